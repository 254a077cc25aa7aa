//===- TraceLines.h - comparing iss and rtl traces in the rtl tests -------===//
//
// Warps of one block interleave differently on iss and rtl (and under each
// scheduler policy), so traces are compared per (block, warp), not line by
// line.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace tandem::rtltest {

/// The instruction lines of a trace, each warp's lines together in program
/// order (docs/Trace.md: what `grep '^b=' | sort -s -k1,2` gives).
inline std::vector<std::string> perWarp(const std::string &Trace) {
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  llvm::StringRef(Trace).split(Lines, '\n', -1, false);
  std::vector<std::string> Out;
  for (llvm::StringRef L : Lines)
    if (L.starts_with("b="))
      Out.push_back(L.str());
  auto Key = [](const std::string &L) {
    llvm::StringRef R(L);
    return R.take_front(R.find(' ', R.find(' ') + 1));
  };
  std::stable_sort(Out.begin(), Out.end(),
                   [&](const auto &A, const auto &B) { return Key(A) < Key(B); });
  return Out;
}

/// Success when \p Reference and \p Other have the same lines per warp
/// (perWarp); otherwise a failure naming the line counts or the first line
/// that differs, both versions.
inline ::testing::AssertionResult sameWarpTraces(const std::string &Reference,
                                                 const std::string &Other) {
  std::vector<std::string> A = perWarp(Reference), B = perWarp(Other);
  if (A.size() != B.size())
    return ::testing::AssertionFailure()
           << "the traces have " << A.size() << " and " << B.size() << " instruction lines";
  for (size_t I = 0; I < A.size(); ++I)
    if (A[I] != B[I])
      return ::testing::AssertionFailure() << "first diverging trace line " << I << ":\n  "
                                           << A[I] << "\n  " << B[I];
  return ::testing::AssertionSuccess();
}

} // namespace tandem::rtltest
