//===- SourceLines.h - "file:line" of IR instructions, formatted once ------===//
//
// Both selectors stamp every MIR instruction with its source line
// (Inst::Loc, shown in listings and errors). Formatting "file:line" anew
// for each instruction was 9% of a `spill` compile (callgrind, docs/NOTES.md,
// 2026-12-02): the text is formatted once per (file, line) here and copied
// after that.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Instruction.h"
#include "llvm/Support/FormatVariadic.h"

#include <string>
#include <utility>

namespace tandem::isel {

class SourceLines {
public:
  /// "file:line" of \p I's debug location; empty where it has none or its
  /// line is 0 (compiler-generated: no source line).
  const std::string &of(const llvm::Instruction &I) {
    const llvm::DebugLoc &DL = I.getDebugLoc();
    if (!DL || DL.getLine() == 0)
      return None;
    auto [It, New] = Cache.try_emplace({DL->getFile(), DL.getLine()});
    if (New)
      It->second = llvm::formatv("{0}:{1}", DL->getFilename(), DL.getLine()).str();
    return It->second;
  }

private:
  llvm::DenseMap<std::pair<const llvm::DIFile *, unsigned>, std::string> Cache;
  const std::string None;
};

} // namespace tandem::isel
