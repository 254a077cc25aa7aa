//===- SourceLines.h - "file:line" of IR instructions, formatted once ------===//
//
// Both selectors stamp every MIR instruction with its source line
// (Inst::Loc, shown in listings and errors). Formatting "file:line" anew
// for each instruction was 9% of a `spill` compile (callgrind, docs/NOTES.md,
// 2026-12-02): the text is formatted once per (file, line) here, stored in
// the function being built (mir::Function::internLoc), and every later
// instruction of that line gets the same StringRef.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "MIR.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Instruction.h"
#include "llvm/Support/FormatVariadic.h"

#include <utility>

namespace tandem::isel {

/// One per function being selected: the StringRefs it hands out point
/// into that function's location pool.
class SourceLines {
public:
  explicit SourceLines(mir::Function &Fn) : Fn(Fn) {}

  /// "file:line" of \p I's debug location, stored in the function; empty
  /// where it has none or its line is 0 (compiler-generated: no source
  /// line).
  llvm::StringRef of(const llvm::Instruction &I) {
    const llvm::DebugLoc &DL = I.getDebugLoc();
    if (!DL || DL.getLine() == 0)
      return {};
    auto [It, New] = Cache.try_emplace({DL->getFile(), DL.getLine()});
    if (New)
      It->second = Fn.internLoc(llvm::formatv("{0}:{1}", DL->getFilename(), DL.getLine()).str());
    return It->second;
  }

private:
  mir::Function &Fn;
  llvm::DenseMap<std::pair<const llvm::DIFile *, unsigned>, llvm::StringRef> Cache;
};

} // namespace tandem::isel
