//===- CompiledOnce.h - A test kernel source compiled once per process -*- C++ -*-===//
//
// The suite's tests run one image on several devices (test parameters); the
// compile is the slow part, so each source is compiled once per register
// count and process. A compile error is a test failure (null result).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/Compiler.h"

#include "tandem/KernelImage.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <utility>

namespace tandem::testing_support {

inline const KernelImage *compiledOnce(const std::string &Path, unsigned Registers) {
  static std::map<std::pair<std::string, unsigned>, std::optional<KernelImage>> Cache;
  auto [It, New] = Cache.try_emplace({Path, Registers});
  if (New) {
    compiler::CompileOptions O;
    O.NumRegisters = Registers;
    llvm::Expected<compiler::CompileResult> R = compiler::compileFile(Path, O);
    if (R)
      It->second = std::move(R->Image);
    else
      ADD_FAILURE() << llvm::toString(R.takeError());
  }
  return It->second ? &*It->second : nullptr;
}

} // namespace tandem::testing_support
