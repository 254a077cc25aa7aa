//===- UnrollHints.h - runtime-unroll hints for ptx load loops --*- C++ -*-===//
//
// HintRuntimeUnrollPass marks the small innermost loops that read global
// memory for a 4x runtime unroll, so the -O pipeline's LoopUnrollPass
// unrolls them even where its own cost model declined (see the .cpp).
// Registered by isel/Prepare for the ptx target at -O1 and above, at the
// pipeline's vectorizer-start extension point.
//
//===----------------------------------------------------------------------===//
#ifndef TANDEM_ISEL_UNROLLHINTS_H
#define TANDEM_ISEL_UNROLLHINTS_H

#include "llvm/IR/PassManager.h"

namespace tandem::isel {

struct HintRuntimeUnrollPass : llvm::PassInfoMixin<HintRuntimeUnrollPass> {
  /// The unroll count the hint asks for (NVVM's, in nvcc's PTX of the
  /// suite's strided loops).
  static constexpr unsigned Count = 4;
  /// Loops whose one iteration executes at most this many instructions
  /// get the hint: the one-block body LLVM's NVPTX cost model would unroll
  /// 4x itself (partial threshold 300 / 4 = 75, over 4 copies). A loop with
  /// an if/else is measured along its longer arm, as its iteration runs one.
  static constexpr unsigned MaxIterationInstructions = 18;

  llvm::PreservedAnalyses run(llvm::Function &F, llvm::FunctionAnalysisManager &AM);
};

} // namespace tandem::isel

#endif
