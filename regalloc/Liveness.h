//===- Liveness.h - block liveness and live intervals for regalloc -*- C++ -*-===//
//
// Input: MIR after cfg lowering (blocks in layout order, possibly several
// defs per vreg, Inst::PartialDef marks), or the same MIR with spill code.
// Guarantees: LiveIn/LiveOut per block from a backward dataflow over
// mir::successors; one live interval per vreg over a single numbering of all
// instructions in layout order.
//
// Numbering: instruction g (counting over all blocks in layout order) reads
// its uses at position 2g and writes its defs at 2g + 1, so a value whose
// last use is instruction g ([.., 2g + 1)) does not overlap a value defined
// by g ([2g + 1, ..)): an instruction may write the register it reads.
//
// A def that also reads the register (Inst::PartialDef, or an opcode that
// ReadsRd such as movt) keeps the interval going through the instruction:
// the lanes it does not write still need the previous value.
//
// A vreg is live only where some def of it may have run (on some path from
// the entry): a PartialDef whose old value no def reaches, or a use of a
// never-defined vreg, reads nothing worth keeping, so its interval starts at
// that read instead of at the kernel's entry. (checkAllocation accepts the
// same: a vreg undefined on every path to a read may be read anywhere.)
//
//===----------------------------------------------------------------------===//
#pragma once

#include "isel/MIR.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/SmallVector.h"

#include <vector>

namespace tandem::regalloc {

/// Positions [Start, End) in the numbering above.
struct Segment {
  unsigned Start = 0, End = 0;
};

/// Where a vreg is live: sorted, disjoint, non-adjacent segments. Holes
/// (between segments) are where another vreg may use the same register.
struct LiveInterval {
  llvm::SmallVector<Segment, 4> Segs;

  bool empty() const { return Segs.empty(); }
  unsigned start() const { return Segs.front().Start; }
  /// Total positions covered.
  unsigned size() const;
  bool overlaps(const LiveInterval &Other) const;
  bool covers(unsigned Pos) const;
};

/// Index of a virtual register among the function's vregs (bit positions in
/// the sets below).
inline unsigned vregIndex(mir::Reg R) { return R - mir::VirtRegBase; }
inline bool isVirtualUse(const mir::Operand &O) {
  return O.isReg() && !O.IsDef && mir::isVirtual(O.R);
}
inline bool isVirtualDef(const mir::Operand &O) {
  return O.isReg() && O.IsDef && mir::isVirtual(O.R);
}

/// Per block (Fn.Blocks order), the indices of its successors
/// (mir::successors: branch targets, then the fall-through block).
std::vector<llvm::SmallVector<unsigned, 2>> successorIndices(const mir::Function &Fn);

/// True when \p I's register def also reads the register's old value.
bool defReadsOldValue(const mir::Inst &I);

/// True when \p I computes its result from its destination's old value
/// (movt), not only keeps it in the lanes it leaves out (a PartialDef).
bool readsDestinationAsInput(const mir::Inst &I);

/// True when operand \p O of \p I makes its vreg a whole-warp value (an
/// exec mask): a def by an instruction that writes all 32 lanes
/// (emask.get), or a read by emask.set, which reads lane 0 whether it is
/// active or not. Such a value must keep every lane; the allocator spills
/// it with the all-lanes local accesses, and the checker insists on them.
bool makesWholeWarp(const mir::Inst &I, const mir::Operand &O);

struct Liveness {
  /// First global instruction index of each block; one extra entry at the
  /// end holds the total instruction count.
  std::vector<unsigned> BlockStart;
  /// Per block, bit = vreg index (Reg - VirtRegBase): live and possibly
  /// defined at the block's entry / exit.
  std::vector<llvm::BitVector> LiveIn, LiveOut;
  /// Per block: the vregs some def may have written on some path from the
  /// entry to the block's entry.
  std::vector<llvm::BitVector> MaybeDefIn;
  /// Per vreg index; empty for vregs no instruction mentions.
  std::vector<LiveInterval> Intervals;

  /// Block index holding global instruction \p G.
  unsigned blockOf(unsigned G) const;
};

/// Computes liveness of \p Fn. Physical registers (the zero register r0) are
/// not tracked.
Liveness computeLiveness(const mir::Function &Fn);

} // namespace tandem::regalloc
