//===- PtxPrinter.h - ptx MIR to PTX text ------------------------*- C++ -*-===//
//
// Input: kernels after isel::lowerPtxOutOfSSA (no PHI; BR/BRCOND/RET pseudo
// terminators; COPYs; ptx::Opcode instructions with operands in dag order;
// every vreg with its ptx::RegClass) and their ptx::KernelInfo.
// Output: one PTX module: .version/.target/.address_size, the .const
// (__constant__) and .global (__device__) variables with their initializers
// (every externally visible one, used or not, as nvcc keeps them, and the
// internal ones a kernel uses) and the .shared variables of all kernels
// (module scope, each once), then
// per kernel a
// `.visible .entry NAME(.param ... NAME_param_K, ...)` whose registers are
// numbered densely per class (%r1..%rN, declared `.reg .b32 %r<N+1>;`),
// labels `$L__BB<kernel>_<block>`, instructions from the .td templates,
// and `// file:line` comments where the source line changes.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "isel/MIR.h"

#include "PTX.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace tandem::emit {

struct PtxKernelRef {
  const mir::Function *Fn;
  const ptx::KernelInfo *Info;
};

struct PtxModuleOptions {
  std::string Arch = "sm_90";
  std::string SourceName; ///< for the header comment
  unsigned OptLevel = 2;
};

/// \p Exported: the module's externally visible variables
/// (isel::ptxExportedVariables), declared first, in module order; then
/// those the kernels use that are not among them (internal ones).
void printPtxModule(llvm::raw_ostream &OS, llvm::ArrayRef<PtxKernelRef> Kernels,
                    llvm::ArrayRef<ptx::KernelInfo::GlobalVar> Exported,
                    const PtxModuleOptions &Opts);

/// Virtual registers the kernel's body uses, all classes (for reports).
unsigned ptxRegisterCount(const mir::Function &Fn);
/// Instructions the kernel's body has (for reports).
unsigned ptxInstructionCount(const mir::Function &Fn);

} // namespace tandem::emit
