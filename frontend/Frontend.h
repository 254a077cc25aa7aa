//===- Frontend.h - CUDA C / LLVM IR in, one LLVM module out -----*- C++ -*-===//
//
// Reads a kernel source: CUDA C (.cu) goes through clang-19 (device only,
// -nocudainc -nocudalib, our header cuda/tandem_cuda.h force-included, so the
// same source compiles unchanged under nvcc); .ll and .bc are parsed
// directly. The device math library (cuda/math) is linked in as LLVM IR,
// only the functions the kernel uses. Nothing here optimizes: that is
// isel/Prepare.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace tandem::frontend {

struct FrontendOptions {
  /// true: 32-bit pointers (triple nvptx-nvidia-cuda), what simt wants;
  /// false: nvptx64-nvidia-cuda, for ptx.
  bool Use32BitPointers = true;
  /// Optimization level handed to clang (0..3); clang's own -O pipeline is
  /// disabled (-Xclang -disable-llvm-passes) so isel/Prepare runs ours.
  unsigned OptLevel = 2;
  std::string Arch = "sm_90";
  /// Extra -I / -D arguments for clang.
  std::vector<std::string> ExtraClangArgs;
};

/// Loads \p Path (.cu, .ll or .bc) into \p Ctx. Errors name the file and,
/// for clang failures, carry clang's diagnostics.
llvm::Expected<std::unique_ptr<llvm::Module>>
loadKernelSource(llvm::StringRef Path, llvm::LLVMContext &Ctx,
                 const FrontendOptions &Opts);

/// The kernels of \p M (functions nvvm.annotations marks "kernel", or with
/// the ptx_kernel calling convention) in module order.
std::vector<llvm::Function *> kernelsOf(llvm::Module &M);

/// The name a kernel has in images, listings and `--kernel`: the demangled
/// base name (`vadd` for `_Z4vaddPKfS0_Pfi`); the mangled name when two
/// kernels of the module share a base name.
std::string kernelDisplayName(const llvm::Function &Kernel);

} // namespace tandem::frontend
