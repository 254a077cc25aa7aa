//===- ExportedVariable.h - Which variables the host may find by name -*- C++ -*-===//
//
// The one rule both targets use for __constant__ and __device__ variables
// no kernel reads: nvcc keeps every such variable that is defined with
// external linkage in the module, so the host's cudaMemcpyToSymbol finds
// it; a static (internal) one, or a declaration, is not kept. The simt
// image (ConstLayout.cpp) and the PTX module (SelectPtx.cpp,
// ptxExportedVariables) declare the same variables by it, which
// PtxCompile.ImageSymbolsAreThePtxModulesVariables checks.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/IR/GlobalVariable.h"

namespace tandem::isel {

/// Defined here with external linkage (LLVM's own llvm.* globals excluded).
inline bool isExportedVariable(const llvm::GlobalVariable &GV) {
  return !GV.isDeclaration() && !GV.hasLocalLinkage() && !GV.getName().starts_with("llvm.");
}

} // namespace tandem::isel
