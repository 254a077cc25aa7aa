//===- Prepare.h - IR preparation with LLVM's passes -------------*- C++ -*-===//
//
// Input: a module from the front end (any optimization state).
// Output, for every kernel: optimized at the requested -O level, no switch
// (lowered to branches), one return block, address spaces inferred where
// provable, every non-kernel function inlined, and, for the simt target,
// divergent regions structurized (StructurizeCFG, uniform regions skipped;
// a skipped region that LLVM's uniformity analysis or our DivergenceCheck
// finds divergent afterwards makes the whole kernel structurized) so cfg
// lowering sees only if-then, if-then-else and single-exit loops. The
// module is verified. Constructs the back end does not support (calls that
// remain, recursion, f64 on simt, dynamic alloca, varargs, ...) are reported
// here with the function, the IR instruction and the source line.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace tandem::isel {

enum class PrepTarget { Simt, Ptx };

struct PrepareOptions {
  PrepTarget Target = PrepTarget::Simt;
  unsigned OptLevel = 2; ///< 0..3
  /// Pass names (as LLVM's pass manager prints them, e.g. "instcombine",
  /// "structurizecfg", or "prepare" for the end of preparation) after which
  /// the module is printed to PrintStream.
  std::vector<std::string> PrintAfter;
  llvm::raw_ostream *PrintStream = nullptr;
};

llvm::Error prepareModule(llvm::Module &M, const PrepareOptions &Opts);

/// Function attribute (a decimal count) prepare puts on a simt kernel whose
/// region StructurizeCFG skipped as uniform had branches that only our
/// conservative divergence check (DivergenceCheck.h) found divergent; the
/// kernel was then structurized again without skipping.
inline constexpr llvm::StringLiteral DivergenceCheckAttr = "tandem-divergence-check-branches";

/// The count of DivergenceCheckAttr on \p F, 0 without it.
unsigned divergenceCheckBranches(const llvm::Function &F);

} // namespace tandem::isel
