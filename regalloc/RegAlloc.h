//===- RegAlloc.h - register allocation for simt ------------------*- C++ -*-===//
//
// Input: MIR after cfg lowering (layout order, COPYs, PartialDef marks,
// vregs, possibly several defs per vreg).
// Output: every register operand physical, within r1..r(NumRegisters-1)
// (r0 is the zero register); Operand::Orig records the vreg each one stands
// for; spill code (st.local / ld.local at r0 + 4*slot, IsSpillCode) where
// the registers do not suffice; constants (LI) and other cheap values
// rematerialized rather than spilled; COPYs between the same register
// removed. Function::LocalBytes grows by the spill area; Function::Stats
// filled in.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "isel/MIR.h"

#include "llvm/Support/Error.h"

namespace tandem::regalloc {

struct RegAllocOptions {
  /// Registers the configuration provides (`registers`), r0 included.
  unsigned NumRegisters = 32;
  /// Run the checker after allocating (tests always do).
  bool Check = true;
};

llvm::Error allocateRegisters(mir::Function &Fn, const RegAllocOptions &Opts);

/// Proves an allocation correct in the spirit of regalloc2's checker: a
/// forward dataflow over the allocated function tracks which vreg each
/// physical register and spill slot holds (via Operand::Orig and the spill
/// code), meets at joins by intersection, and fails, naming the block,
/// instruction and vreg, when a use reads a location that may not hold the
/// vreg it stands for.
llvm::Error checkAllocation(const mir::Function &Fn);

} // namespace tandem::regalloc
