//===- SuiteKernels.h - the kernel suite's sources, for compiler tests -*- C++ -*-===//
//
// Every microbench/kernels/*.cu, sorted: the PTX test runs each through
// ptxas, the image builder's test compares its two ways of making an image.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <string>
#include <vector>

namespace tandem::testing {

inline std::vector<std::string> suiteKernels() {
  using namespace llvm;
  std::vector<std::string> Files;
  std::error_code EC;
  std::string Dir = std::string(TANDEM_SOURCE_DIR) + "/microbench/kernels";
  for (sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC))
    if (sys::path::extension(It->path()) == ".cu")
      Files.push_back(It->path());
  std::sort(Files.begin(), Files.end());
  return Files;
}

} // namespace tandem::testing
