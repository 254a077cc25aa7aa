//===- SelectPtx.h - LLVM IR to ptx MIR, and ptx out of SSA ------*- C++ -*-===//
//
// selectPtx
//   Input: one kernel of a module prepared for ptx (isel/Prepare.h with
//   PrepTarget::Ptx: nvptx64, 64-bit pointers, no switch, one return block,
//   no calls but intrinsics, address spaces inferred; the CFG is NOT
//   structurized: PTX branches diverge in hardware).
//   Output: an SSA mir::Function whose target opcodes are ptx::Opcode
//   (print and verify it with mir::TargetKind::Ptx): PHI, BR, BRCOND, RET
//   pseudos for control flow; every vreg's VRegInfo::RegClass set
//   (ptx::RegClass from the IR type); plus the ptx::KernelInfo the printer
//   needs (parameters, shared, __constant__ and __device__ variables with
//   their initializers, local depot, symbols). i8/i16 values are promoted
//   to zero-extended B32 registers (see SelectPtx.cpp). Arithmetic,
//   compares, special registers, barriers, warp operations and atomics
//   come from the pattern table (PtxPatterns.td, through the shared
//   isel/PatternMatch.h); the rest from the rules in SelectPtx.cpp.
//   Errors name the kernel, the IR instruction and the source line.
//
// lowerPtxOutOfSSA (SelectPtxOutOfSSA.cpp)
//   Input: selectPtx's output. Output: no PHI; critical edges into blocks
//   that had PHIs split (new blocks placed after their predecessor, removed
//   again when no copy is left on them); PHI webs and COPYs whose live
//   ranges do not interfere coalesced into one register; each remaining PHI
//   operand a COPY at the end of its predecessor, sequentialized with
//   parallel-copy semantics. BR/BRCOND/RET stay (the printer writes them).
//   Not SSA any more.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "MIR.h"

#include "PTX.h"

#include "llvm/IR/Function.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <vector>

namespace tandem::isel {

struct PtxSelection {
  std::unique_ptr<mir::Function> Fn;
  ptx::KernelInfo Info;
};

/// Selects \p Kernel; \p DisplayName becomes the entry's name.
llvm::Expected<PtxSelection> selectPtx(llvm::Function &Kernel, llvm::StringRef DisplayName);

struct PtxOutOfSSAOptions {
  /// Coalesce PHI webs and copies (off: every PHI keeps its own register
  /// and every copy stays; tests compare the two).
  bool Coalesce = true;
};

/// PHIs to copies (see above).
void lowerPtxOutOfSSA(mir::Function &Fn, const PtxOutOfSSAOptions &Opts = {});

/// The module's exported __constant__ and __device__ variables (defined with
/// external linkage: ExportedVariable.h, the rule the simt image uses too),
/// in module order, whether or not a kernel uses them, so the host finds one
/// by name (cudaMemcpyToSymbol) even when no kernel reads it. Fails, naming
/// the variable, where one's initializer cannot be emitted.
llvm::Expected<std::vector<ptx::KernelInfo::GlobalVar>>
ptxExportedVariables(const llvm::Module &M);

/// A name PTX accepts as an identifier: [A-Za-z_$][A-Za-z0-9_$]*; other
/// characters become '_$_' as NVPTX does ("a.b" -> "a_$_b").
std::string ptxIdentifier(llvm::StringRef Name);

} // namespace tandem::isel
