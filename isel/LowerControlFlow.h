//===- LowerControlFlow.h - branches, exec masks, out of SSA -----*- C++ -*-===//
//
// Input: SSA MIR from selectSimt: structured control flow (the CFG
// StructurizeCFG leaves: each divergent BRCOND heads an if-then,
// if-then-else or a loop with one exit), PHI, BR, BRCOND, RET.
// Output: blocks in layout order; uniform BRCONDs become bnz/bz/bra;
// divergent ones become exec-mask code (emask.get/and/andn/set, bnone to
// skip a region no lane runs, bany to repeat a loop while a lane remains);
// RET becomes exit; PHIs become COPYs at the ends of predecessor blocks
// (parallel-copy semantics resolved, critical edges split), with
// Inst::PartialDef set on copies that run under a narrowed exec mask.
// `__syncthreads` (bar) inside a region the analysis proves divergent is
// an error naming the kernel.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "MIR.h"

#include "llvm/Support/Error.h"

namespace tandem::isel {

llvm::Error lowerControlFlow(mir::Function &Fn);

} // namespace tandem::isel
