//===- DeviceProfile.h - Model latencies from a measured profile -*- C++ -*-===//
//
// `tandem profile` (microbench/Profile.h) measures a device with
// microbenchmarks. The simt model can take its latencies from such a
// profile rather than from the configuration alone:
//
//   * DRAM latency: chase_dram - chase_l1 (cycles per dependent load: a
//     miss against a hit in the same loop) less MissOverHitCycles, the
//     cycles a miss costs over a hit beyond the DRAM latency itself (the
//     request and response paths and the channel occupancy of one line),
//     measured on the rtl: 104 cycles at a configured latency of 100.
//   * ALU and FPU: the dependent-chain latencies iadd_lat and fma_lat are
//     the cycles from one instruction's issue to the next dependent one's,
//     what the scoreboard model calls the result's ready time.
//
// Input invariants: a profile object as measureProfile() writes it.
// Guarantees: an error names the file (Source) and the missing or unusable
// probe; a profile measured in warp instructions (iss) is refused, since
// its values are counts, not time.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tandem/Config.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace tandem::models {

/// Latencies the model takes from a profile (see the file comment).
struct ModelLatencies {
  std::string Source; ///< the file, or "tandem profile --quick on rtl"
  double DramLatencyCycles = 0;
  /// 0: not measured, the generated tables serve (a chain probe that
  /// spilled measured local memory too: at 4 registers iadd_lat read 12.35
  /// cycles where the ALU's result is ready in 5).
  double AluReadyCycles = 0, FpuReadyCycles = 0;
};

/// chase_dram - chase_l1 - DRAM latency on the rtl (see the file comment).
constexpr double MissOverHitCycles = 4;

llvm::Expected<ModelLatencies> latenciesFromProfile(const llvm::json::Object &Profile,
                                                    llvm::StringRef Source);

/// \p C with the profile's DRAM latency (rounded to whole cycles): the
/// configuration the model's LSU cost model uses. Only the model's copy:
/// the devices keep their own.
AcceleratorConfig withProfileLatencies(AcceleratorConfig C, const ModelLatencies &L);

} // namespace tandem::models
