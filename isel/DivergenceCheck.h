//===- DivergenceCheck.h - our own conservative divergence analysis -*- C++ -*-===//
//
// A second opinion on LLVM's UniformityInfo for the simt target, used where
// a wrong "uniform" would miscompile silently: a branch lowered as uniform
// whose lanes disagree runs only one side for the whole warp. LLVM 19 has at
// least one such bug (llvm-project issue 137277). The pipeline treats a
// branch as divergent when either analysis says so (never the other way
// round). See DivergenceCheck.cpp for the rules and docs/Divergence.md.
//
// Input: any function (prepared kernels in practice); no analyses needed, the
// check builds its own dominator, post-dominator and loop trees.
// Guarantee (the invariant): a value or branch reported uniform has the same
// value (takes the same direction) in every lane active at it, assuming the
// machine facts listed in DivergenceCheck.cpp. When unsure, divergent.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Function.h"

namespace tandem::isel {

class DivergenceCheck {
public:
  explicit DivergenceCheck(const llvm::Function &F);

  /// \p V may differ between the active lanes of a warp. Arguments,
  /// constants and values of other functions are uniform.
  bool isDivergent(const llvm::Value &V) const { return Divergent.contains(&V); }
  /// \p BB ends in a conditional branch (or switch) whose lanes may go
  /// different ways.
  bool hasDivergentTerminator(const llvm::BasicBlock &BB) const {
    return DivergentBranches.contains(&BB);
  }
  unsigned numDivergentBranches() const { return DivergentBranches.size(); }

private:
  llvm::SmallPtrSet<const llvm::Value *, 32> Divergent;
  llvm::SmallPtrSet<const llvm::BasicBlock *, 16> DivergentBranches;
};

} // namespace tandem::isel
