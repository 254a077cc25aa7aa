//===- SuiteTestSupport.h - Helpers the suite's device tests share -*- C++ -*-===//
//
// compiledOnce: the suite's tests run one image on several devices (test
// parameters); the compile is the slow part, so each source is compiled
// once per register count and process. A compile error is a test failure
// (null result). launch1D: a one-dimensional launch whose failure fails the
// test. openOnDefaultConfig: a device of the kind a test parameter names,
// with the configuration it was opened with.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/Compiler.h"

#include "tandem/Config.h"
#include "tandem/KernelImage.h"
#include "tandem/Runtime.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tandem::testing_support {

/// A device opened on configs/default.json, and that configuration (what
/// the kernels are compiled for).
struct DefaultDevice {
  AcceleratorConfig Config;
  std::unique_ptr<Device> Dev;
};

inline llvm::Expected<DefaultDevice> openOnDefaultConfig(llvm::StringRef Kind) {
  llvm::Expected<AcceleratorConfig> C = loadConfig(defaultConfigPath());
  if (!C)
    return C.takeError();
  DeviceOptions O;
  O.Config = *C;
  llvm::Expected<std::unique_ptr<Device>> D = openDevice(Kind, O);
  if (!D)
    return D.takeError();
  return DefaultDevice{std::move(*C), std::move(*D)};
}

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

/// Launches \p Kernel on \p D with a 1-D grid and block; a failed launch
/// fails the calling test (check HasFatalFailure() to stop there).
inline void launch1D(Device &D, llvm::StringRef Kernel, uint32_t Grid, uint32_t Block,
                     std::vector<KernelArg> Args) {
  LaunchParams L;
  L.Kernel = Kernel.str();
  L.Grid.X = Grid;
  L.Block.X = Block;
  L.Args = std::move(Args);
  llvm::Error E = D.launch(L);
  ASSERT_FALSE(bool(E)) << llvm::toString(std::move(E));
}

} // namespace tandem::testing_support
