//===- Profile.h - Microbenchmarks and the device profile -------*- C++ -*-===//
//
// Runs the probe kernels (microbench/probes/*.cu, compiled by our back end)
// on one device and returns the device profile: one JSON object with the
// device, the configuration, each probe's value and unit, and the sweeps as
// arrays. docs/Profile.md describes every probe and the numbers measured.
//
// Method: every probe is a loop of n trips; it runs with n and with 2n trips
// and the counters of the two launches are subtracted, so launch, prologue
// and epilogue costs cancel. The metric is the device's `cycles` counter
// where it has one (rtl); a device without it (iss, a functional simulator)
// is measured in `warp_instructions` instead, and the profile says so in
// "metric": those values are instruction counts, not time.
//
// Input invariants: D was opened with C (the caller's job); C is valid.
// Guarantees: no printing; a compile error, a fault or a launch that does
// not fit the configuration comes back as an llvm::Error naming the probe
// and the device. Device buffers are freed before returning; the device's
// loaded image is replaced.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tandem/Config.h"
#include "tandem/Runtime.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace tandem::profile {

/// Bump when a probe, a key or a unit changes meaning.
constexpr int ProfileVersion = 1;

/// What one probe measures, for documentation and `tandem profile --list`.
struct ProbeInfo {
  const char *Name;
  const char *Unit; ///< on a device with `cycles`
  const char *What;
  bool Quick;       ///< part of the --quick subset
};

/// Every probe and sweep, in the order they run.
llvm::ArrayRef<ProbeInfo> probeInfos();

/// The probe kernels' folder: $TANDEM_PROBES_DIR if set, else the source
/// tree's microbench/probes if it exists, else the installed copy.
std::string probesDir();

struct ProfileOptions {
  /// Only the probes marked Quick, with smaller sweeps and fewer trips.
  bool Quick = false;
  /// If not empty, only these probes and sweeps (names from probeInfos()).
  std::vector<std::string> Only;
};

/// Measures the profile of \p D (opened with \p C). The result:
///   { "version", "device", "metric": "cycles"|"warp_instructions",
///     "quick", "config": {the configuration file's object},
///     "probes": { NAME: { "value", "unit", "what", "ops", "delta": {counter
///                 deltas of the 2n-n subtraction}, ...extra keys } },
///     "sweeps": { "shared_bank_stride": [ {"stride", "value", "unit",
///                 "conflict_cycles_per_load"} ], "global_stride": [ {"stride",
///                 "value", "unit", "requests_per_load"} ] } }
llvm::Expected<llvm::json::Object> measureProfile(Device &D, const AcceleratorConfig &C,
                                                  const ProfileOptions &Opts);
/// The same with default options but \p Quick.
llvm::Expected<llvm::json::Object> measureProfile(Device &D, const AcceleratorConfig &C,
                                                  bool Quick);

} // namespace tandem::profile
