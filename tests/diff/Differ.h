//===- Differ.h - Run one program on two devices and compare --------------===//
//
// The differential checker: assemble a RandomProgram, run it on two devices
// (normally iss, the reference, and rtl) with the same seeded random inputs
// and the same launch, and compare every buffer byte for byte and the
// dynamic instruction counters. On a mismatch it explains it: the first
// differing byte (with the thread and slot word it belongs to), the counters
// that differ, the first diverging line of the two commit traces sorted per
// (block, warp), and a reduced program (delta debugging over the program's
// region tree) that still disagrees, printed as assembly.
//
// Input invariants: the devices are opened fresh for every run through the
// factories, so no state leaks between runs. Guarantees: a program on which
// the reference device (A) faults is reported as a generator bug, never as a
// mismatch; the reducer only keeps candidates that run on A without a fault.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "RandomProgram.h"

#include "tandem/Runtime.h"

#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tandem::diff {

/// Opens a device for one run; the options carry the trace stream.
using DeviceFactory = std::function<llvm::Expected<std::unique_ptr<Device>>(
    const DeviceOptions &)>;

/// A factory for a device the runtime knows by \p Name ("iss", "rtl").
DeviceFactory namedDevice(std::string Name);

/// What one run left behind.
struct RunResult {
  std::optional<std::string> Fault; ///< the launch error, if it faulted
  std::vector<std::vector<uint8_t>> Buffers;
  uint64_t WarpInstructions = 0, ThreadInstructions = 0;
  std::string Trace; ///< only when asked for
};

/// Runs \p P on a device from \p Open. Errors are setup failures (the device
/// does not open, the program does not assemble); a kernel fault is a
/// RunResult with Fault set.
llvm::Expected<RunResult> runProgram(const RandomProgram &P,
                                     const DeviceFactory &Open,
                                     const AcceleratorConfig &Config,
                                     bool WithTrace);

/// The first difference between two runs, or nullopt if they agree.
std::optional<std::string> compareRuns(const RandomProgram &P,
                                       const RunResult &A, const RunResult &B);

/// Keeps the instruction lines of a trace, stably sorted by (block, warp).
std::vector<std::string> sortedTrace(llvm::StringRef Trace);
/// "line N:\n  A: ...\n  B: ..." for the first diverging line; nullopt if the
/// sorted traces are equal.
std::optional<std::string> firstTraceDivergence(llvm::StringRef A,
                                                llvm::StringRef B);

struct DiffOptions {
  std::string NameA = "iss", NameB = "iss";
  DeviceFactory OpenA, OpenB;
  AcceleratorConfig Config;
  bool Reduce = true;
  unsigned ReduceBudget = 400; ///< candidate programs tried at most
};

/// The verdict on one program.
struct DiffOutcome {
  bool Agree = true;
  bool GeneratorBug = false; ///< the reference faulted: not a device mismatch
  std::string Report;        ///< empty when they agree
  std::optional<RandomProgram> Reduced;
  uint64_t WarpInstructions = 0, ThreadInstructions = 0; ///< on A
};

/// Runs \p P on both devices; on a mismatch fills the report (seed, the
/// difference, the trace divergence and the reduced program).
llvm::Expected<DiffOutcome> diffProgram(const RandomProgram &P,
                                        const DiffOptions &Opts);

/// Shrinks \p P while \p StillFails holds (delta debugging over the region
/// tree: drop chunks of regions, hoist a region's bodies into its parent,
/// drop leaf lines, shrink the launch). At most \p Budget calls.
RandomProgram
reduceProgram(const RandomProgram &P,
              const std::function<bool(const RandomProgram &)> &StillFails,
              unsigned Budget);

} // namespace tandem::diff
