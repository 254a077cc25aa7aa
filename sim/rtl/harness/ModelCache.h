//===- ModelCache.h - A Verilated core for every configuration -*- C++ -*-===//
//
// The default configuration's model is linked into tandem_rtl. A
// configuration whose build parameters (lanes, warps, registers, L1 and
// shared-memory geometry, LSU slots) differ gets its own model, Verilated on first use
// into a shared library and cached under a hash of everything the library
// depends on: the build parameters, the RTL sources and the generated ISA
// package (their contents), the adapter, the Verilator options and the
// compiler. An unchanged configuration is therefore never rebuilt, and an
// edited RTL never runs from a stale cache. Concurrent processes building
// the same model wait on a lock file; the first builds, the others load.
//
// Cache directory: $TANDEM_RTL_CACHE, else $XDG_CACHE_HOME/tandem/rtl, else
// ~/.cache/tandem/rtl. Each model is <dir>/<hash>/ with libsimt_core.so,
// build.log (Verilator's and the compiler's output) and params.txt.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "CoreModel.h"

#include "tandem/Config.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace tandem::rtl {

/// The model linked into this build (the default configuration's).
std::unique_ptr<CoreModel> newDefaultCoreModel(bool AllowTracing);

/// The build parameters of \p C's model, as one line of text.
std::string modelBuildKey(const AcceleratorConfig &C);

/// A model with \p C's build parameters: the linked-in one when they are the
/// default's, else the cached library (built first if absent, with a
/// progress message on standard error). Fails with the build log's path
/// and tail if Verilator or the compiler fails, or names what is missing.
llvm::Expected<std::unique_ptr<CoreModel>>
openCoreModel(const AcceleratorConfig &C, bool AllowTracing);

/// The cache directory models are built into.
std::string modelCacheDir();

/// The directory of \p C's model in the cache (it may not exist yet).
std::string modelDirFor(const AcceleratorConfig &C);

/// Models this process has built (not loaded from the cache): a second
/// open of one configuration leaves it unchanged.
unsigned modelBuildsRun();

} // namespace tandem::rtl
