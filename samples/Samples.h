//===- Samples.h - Sample SIMT programs with CPU references ----*- C++ -*-===//
//
// The hand-written assembly programs in samples/asm/, each with a host
// driver: it assembles the sample's .s file, allocates device buffers with
// random inputs (seeded std::mt19937, never all zeros) and poisoned outputs
// (0xDEADBEEF, plus poisoned guard words after every output so a write past
// the end is seen), launches the kernel on a device, reads the outputs back
// and compares them with a reference computed on the host. docs/Samples.md
// describes every sample and its check.
//
// Checks: integer results and element-wise fp32 results (one correctly
// rounded operation per element, e.g. fadd or ffma) are compared bit for
// bit; the fp32 dot product, whose summation order differs from the host's,
// within the rounding-error bound of its summation (see dot in Samples.cpp).
//
// Input invariants: none; every failure is a value. Guarantees: a sample
// whose program faults, does not assemble or whose buffers cannot be
// allocated comes back as an llvm::Error naming the sample; a sample that
// runs but computes a wrong result comes back as a SampleResult with
// Passed == false and a Message naming the buffer, index, the value read
// and the value expected. Device buffers a sample allocates are freed before
// it returns.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tandem/KernelImage.h"
#include "tandem/Runtime.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tandem::samples {

/// What a sample's outputs are poisoned with before the launch.
constexpr uint32_t PoisonWord = 0xDEADBEEF;
/// Poisoned words after every output buffer; a kernel writing one of them
/// fails its check.
constexpr uint32_t GuardWords = 16;

/// Deliberate faults in the harness, so tests can prove a check fails when
/// the result is wrong.
enum class Sabotage {
  None,
  SkipLaunch,    ///< do not launch: the outputs stay poisoned
  CorruptOutput, ///< flip one bit of one element of the first output read
};

struct SampleOptions {
  /// Seeds the input generator; each sample mixes in its name, so a sample
  /// gets the same inputs whichever others run.
  uint64_t Seed = 1;
  /// Multiplies the problem sizes (1: the default, well under a second per
  /// sample on iss). Must be at least 1 and at most MaxScale.
  unsigned Scale = 1;
  /// Names of the samples to run; empty: all, in table order.
  std::vector<std::string> Only;
  /// The most threads a block may have on the device (the configuration's
  /// maxThreadsPerBlock()); samples shrink their blocks to fit. At least 32.
  uint32_t MaxThreadsPerBlock = 256;
  /// Folder holding the .s files; empty: defaultSamplesDir().
  std::string Dir;
  /// If set, a line "# sample NAME: ..." is written here before each launch
  /// (pass the same stream as DeviceOptions::Trace to delimit the trace).
  llvm::raw_ostream *Trace = nullptr;
  Sabotage Fault = Sabotage::None;
};

constexpr unsigned MaxScale = 64;

struct SampleResult {
  std::string Name;
  bool Passed = false;
  /// The problem size if it passed; what differs if it failed.
  std::string Message;
  /// Elements of the problem (n; rows * cols for transpose).
  uint64_t Elements = 0;
  /// The launch's shape.
  Dim3 Grid, Block;
  /// The device's counters of the sample's launch.
  tandem::Counters Counters;
  /// Wall time of the launch.
  double Seconds = 0;
};

struct SampleInfo {
  const char *Name;    ///< e.g. "vadd"
  const char *File;    ///< in the samples folder, e.g. "vadd.s"
  const char *Kernel;  ///< the kernel the sample launches
  const char *Summary; ///< one line: what it shows
};

/// Every sample, in the order runSamples() runs them.
llvm::ArrayRef<SampleInfo> sampleTable();
/// The sample called \p Name, or null.
const SampleInfo *findSample(llvm::StringRef Name);

/// The samples folder: $TANDEM_SAMPLES_DIR if set, else the source tree's
/// samples/asm this build came from if it exists, else the installed copy
/// (<prefix>/share/tandem/samples).
std::string defaultSamplesDir();

/// Reads and assembles \p File from \p Dir (empty: defaultSamplesDir()).
llvm::Expected<KernelImage> assembleSampleFile(llvm::StringRef File,
                                               llvm::StringRef Dir = "");

/// Runs one sample on \p D (loading its image, replacing any earlier one).
llvm::Expected<SampleResult> runSample(Device &D, llvm::StringRef Name,
                                       const SampleOptions &Opts);

/// Runs the samples Opts.Only names (all if empty), stopping at the first
/// one that errs; a sample that merely computes a wrong result does not stop
/// the others.
llvm::Expected<std::vector<SampleResult>> runSamples(Device &D,
                                                     const SampleOptions &Opts);

/// Validates Opts.Scale and Opts.Only (unknown names are listed with the
/// known ones).
llvm::Error checkOptions(const SampleOptions &Opts);

} // namespace tandem::samples
