//===- SamplesAsOnIss.h - every sample on an rtl variant against iss ------===//
//
// The rtl tests that change a run-time input of the core (the scheduler
// policy, the memory wait) check the same thing first: every sample still
// computes what iss computes, with every counter iss reports and the same
// per-warp traces. This runs that check once for all of them, and opens
// the rtl variant they check.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Samples.h"
#include "TraceLines.h"

#include "tandem/Runtime.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <string>

namespace tandem::rtltest {

/// The rtl device under \p C (defaults but for the input a test varies),
/// tracing to \p Trace; null, after a test failure saying why, if it does
/// not open.
inline std::unique_ptr<Device> openRtlWith(const AcceleratorConfig &C,
                                           llvm::raw_ostream *Trace = nullptr) {
  DeviceOptions O;
  O.Config = C;
  O.Trace = Trace;
  auto D = openDevice("rtl", O);
  if (!D) {
    ADD_FAILURE() << llvm::toString(D.takeError());
    return nullptr;
  }
  return std::move(*D);
}

/// Runs every sample with seed \p Seed on a traced iss and on \p Rtl, whose
/// trace the caller routed to \p RtlTrace (cleared before each sample), and
/// expects the sample's CPU reference to pass on both, every iss counter
/// equal and the same per-warp traces; \p What names the variant in
/// failures. \p Also, if given, checks more per sample with the iss trace
/// and the rtl's result.
inline void expectEverySampleAsOnIss(
    Device &Rtl, std::string &RtlTrace, llvm::StringRef What, uint64_t Seed,
    llvm::function_ref<void(llvm::StringRef Sample, const std::string &IssTrace,
                            const samples::SampleResult &OnRtl)>
        Also = nullptr) {
  std::string IssTrace;
  llvm::raw_string_ostream IssOS(IssTrace);
  DeviceOptions IO;
  IO.Trace = &IssOS;
  auto Iss = openDevice("iss", IO);
  ASSERT_TRUE(bool(Iss)) << llvm::toString(Iss.takeError());
  for (const samples::SampleInfo &S : samples::sampleTable()) {
    samples::SampleOptions O;
    O.Seed = Seed;
    IssTrace.clear();
    RtlTrace.clear();
    auto A = samples::runSample(**Iss, S.Name, O);
    ASSERT_TRUE(bool(A)) << S.Name << ": " << llvm::toString(A.takeError());
    auto B = samples::runSample(Rtl, S.Name, O);
    ASSERT_TRUE(bool(B)) << S.Name << ": " << llvm::toString(B.takeError());
    EXPECT_TRUE(A->Passed) << S.Name << " on iss: " << A->Message;
    EXPECT_TRUE(B->Passed) << S.Name << " under " << What.str() << ": " << B->Message;
    for (const auto &[Name, V] : A->Counters.Values)
      EXPECT_EQ(B->Counters.get(Name), V) << S.Name << ": counter " << Name;
    ASSERT_TRUE(sameWarpTraces(IssTrace, RtlTrace)) << S.Name;
    if (Also)
      Also(S.Name, IssTrace, *B);
  }
}

} // namespace tandem::rtltest
