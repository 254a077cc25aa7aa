//===- CoalesceLaneCopies.h - lane-aware copy coalescing for simt -*- C++ -*-===//
//
// Input: MIR after cfg lowering (MIR.h "cfg lowering"), before register
// allocation: vregs (and r0), COPYs, Inst::PartialDef marks, exec-mask code
// in the shapes LowerControlFlow.h guarantees.
//
// Guarantees: the same program, in every lane, with some COPY-related vregs
// renamed to one vreg and the COPYs between them deleted. Whole-warp values
// (saved exec masks) are never renamed. Each def of a renamed vreg is a
// PartialDef wherever a lane the def leaves out may still need the value,
// so the allocator's liveness and its checker stay sound for the result.
// Where the CFG does not have the shape cfg lowering guarantees, nothing is
// changed.
//
// Why: the allocator sees the warp. A phi's register written under a
// narrowed exec mask is live through the whole region, because the lanes
// left out keep their old value in it, so the phi's copy and its source
// overlap and cannot share a register: one `mov` per copy. One lane's view
// is sharper: a masked write touches only the lanes that run it, and each
// lane walks one path of the CFG, so two values that never interfere on any
// lane's path (Chaitin's interference over per-lane liveness, the copy
// itself excepted) can share one register (docs/RegAlloc.md, "Lane-aware
// coalescing").
//
//===----------------------------------------------------------------------===//
#pragma once

#include "isel/MIR.h"

namespace tandem::regalloc {

struct CoalesceStats {
  unsigned CopiesRemoved = 0;    ///< COPYs deleted because both sides merged
  unsigned VRegsMerged = 0;      ///< vregs renamed into another
  bool ShapeUnsupported = false; ///< the CFG was not cfg lowering's; no change
};

/// Merges COPY-related vregs of \p Fn that no lane needs at the same time
/// with different values (see the file comment).
CoalesceStats coalesceLaneCopies(mir::Function &Fn);

} // namespace tandem::regalloc
