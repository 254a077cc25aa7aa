//===- SamplesAsOnIss.h - every sample on an rtl variant against iss ------===//
//
// The rtl tests that change a run-time input of the core (the scheduler
// policy, the memory wait) check the same thing first: every sample still
// computes what iss computes, with every counter iss reports and the same
// per-warp traces. This runs that check once for all of them, opens the
// rtl variant they check, runs their small assembly kernels, and asks the
// simt model what it predicts from an iss trace.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Assembler.h"
#include "Samples.h"
#include "SimtModel.h"
#include "TraceLines.h"
#include "TraceProfile.h"

#include "tandem/Runtime.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

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

/// The simt model's cycles for the launches of the iss trace \p Trace (what
/// `tandem report` calls iss-assisted), under \p C.
inline double modelledCycles(llvm::StringRef Trace, const AcceleratorConfig &C) {
  models::TraceProfiler Profiler(C, nullptr, /*CollectRounds=*/true);
  Profiler << Trace;
  Profiler.finish();
  EXPECT_EQ(Profiler.malformedLines(), 0u);
  double Cycles = 0;
  for (const models::LaunchProfile &L : Profiler.launches())
    Cycles += models::predictLaunch(L, models::ModelParams::forConfig(C)).Cycles;
  return Cycles;
}

/// \p N random words from \p Seed, each below 2^Bits.
inline std::vector<uint32_t> randomWords(size_t N, unsigned Seed, unsigned Bits = 32) {
  std::vector<uint32_t> W(N);
  std::mt19937 G(Seed);
  for (uint32_t &X : W)
    X = Bits >= 32 ? uint32_t(G()) : uint32_t(G()) >> (32 - Bits);
  return W;
}

/// Runs the assembly kernel \p Source ("k", parameters `a` and `out`) as
/// one block of \p Threads threads on the rtl under \p C: `a` holds \p In,
/// `out` (Threads words) is poisoned first and read back into \p Out.
/// Returns the launch's cycles, or 0 after a test failure saying why;
/// \p All, if given, receives every counter.
inline uint64_t runAsmKernel(const AcceleratorConfig &C, const std::string &Source,
                             unsigned Threads, const std::vector<uint32_t> &In,
                             std::vector<uint32_t> &Out, Counters *All = nullptr) {
  auto D = openRtlWith(C);
  if (!D)
    return 0;
  auto Img = assemble(Source, "kernel.s");
  if (!Img) {
    ADD_FAILURE() << llvm::toString(Img.takeError());
    return 0;
  }
  if (llvm::Error E = D->loadImage(*Img)) {
    ADD_FAILURE() << llvm::toString(std::move(E));
    return 0;
  }
  auto A = D->alloc(In.size() * 4);
  auto O = D->alloc(Threads * 4);
  if (!A || !O) {
    ADD_FAILURE() << "alloc failed";
    llvm::consumeError(A.takeError());
    llvm::consumeError(O.takeError());
    return 0;
  }
  EXPECT_FALSE(bool(D->write<uint32_t>(*A, In)));
  EXPECT_FALSE(bool(D->write<uint32_t>(*O, std::vector<uint32_t>(Threads, 0xdeadbeefu))));
  LaunchParams P;
  P.Kernel = "k";
  P.Block.X = Threads;
  P.Args = {KernelArg::ptr(*A), KernelArg::ptr(*O)};
  if (llvm::Error E = D->launch(P)) {
    ADD_FAILURE() << llvm::toString(std::move(E));
    return 0;
  }
  Out.resize(Threads);
  EXPECT_FALSE(bool(D->read<uint32_t>(Out, *O)));
  if (All)
    *All = D->counters();
  return D->counters().get("cycles");
}

} // namespace tandem::rtltest
