//===- GpuModelTest.cpp - The gpu model on cases with known answers ------===//
//
// A profile with made-up, deliberately uneven numbers (not the H200's) so a
// term that reads the wrong field shows; workload sizes from a seeded RNG.

#include "GpuModel.h"

#include "sparse/Csr.h"
#include "sparse/Stats.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <random>

using namespace tandem;
using namespace tandem::models;

namespace {

const char *TestProfileJson = R"({
  "name": "test card", "source": "GpuModelTest",
  "sm_count": 100, "clock_mhz": 1000, "max_warps_per_sm": 64,
  "l1_latency_cycles": 30, "l2_latency_cycles": 200, "dram_latency_cycles": 500,
  "shared_latency_cycles": 25, "fma_latency_cycles": 4,
  "dram_gb_per_s": 1000, "l2_gb_per_s": 3000, "fp32_tflop_per_s": 10,
  "launch_overhead_us": 2, "l1_bytes": 65536, "l2_bytes": 1048576,
  "atomics_per_s": 5e8
})";

GpuProfile testProfile() {
  llvm::Expected<GpuProfile> P = parseGpuProfile(TestProfileJson, "test");
  if (!P) {
    ADD_FAILURE() << llvm::toString(P.takeError());
    return {};
  }
  return *P;
}

/// The test card with \p Json's numbers read over it (a measured profile
/// over its defaults).
GpuProfile testProfileWith(const char *Json) {
  GpuProfile Base = testProfile();
  llvm::Expected<GpuProfile> P = parseGpuProfile(Json, "measured", &Base);
  if (!P) {
    ADD_FAILURE() << llvm::toString(P.takeError());
    return Base;
  }
  return *P;
}

double seconds(const Prediction &R, const GpuProfile &P) { return R.seconds(P.ClockHz); }

double sumParts(const Breakdown &B) {
  return B.Compute + B.MemoryBandwidth + B.MemoryLatency + B.Synchronization +
         B.LoadImbalance + B.Launch;
}

TEST(GpuProfile, ParsesUnitsAndKeys) {
  GpuProfile P = testProfile();
  EXPECT_EQ(P.Name, "test card");
  EXPECT_DOUBLE_EQ(P.SmCount, 100);
  EXPECT_DOUBLE_EQ(P.ClockHz, 1e9);
  EXPECT_DOUBLE_EQ(P.DramBytesPerSec, 1e12);
  EXPECT_DOUBLE_EQ(P.L2BytesPerSec, 3e12);
  EXPECT_DOUBLE_EQ(P.Fp32FlopsPerSec, 1e13);
  EXPECT_DOUBLE_EQ(P.LaunchOverheadSec, 2e-6);
  EXPECT_DOUBLE_EQ(P.L2Bytes, 1048576);
  EXPECT_DOUBLE_EQ(P.SameAddressAtomicsPerSec, 5e8);
  EXPECT_DOUBLE_EQ(P.residentWarps(), 6400);
}

TEST(GpuProfile, MissingOrBadNumbersAreNamed) {
  std::string Text = TestProfileJson;
  std::string NoDram = Text;
  NoDram.replace(NoDram.find("\"dram_gb_per_s\": 1000,"), 22, "");
  llvm::Expected<GpuProfile> P = parseGpuProfile(NoDram, "cut.json");
  ASSERT_FALSE(bool(P));
  std::string Msg = llvm::toString(P.takeError());
  EXPECT_NE(Msg.find("cut.json"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("'dram_gb_per_s'"), std::string::npos) << Msg;

  std::string Zero = Text;
  Zero.replace(Zero.find("\"sm_count\": 100"), 15, "\"sm_count\": 0");
  P = parseGpuProfile(Zero, "zero.json");
  ASSERT_FALSE(bool(P));
  Msg = llvm::toString(P.takeError());
  EXPECT_NE(Msg.find("'sm_count' must be a positive number"), std::string::npos) << Msg;

  P = parseGpuProfile("[1]", "array.json");
  ASSERT_FALSE(bool(P));
  EXPECT_NE(llvm::toString(P.takeError()).find("not a JSON object"), std::string::npos);
}

TEST(GpuProfile, MeasuredNumbersOverTheDefaults) {
  GpuProfile Base = testProfile();
  llvm::Expected<GpuProfile> P =
      parseGpuProfile(R"({"name": "measured", "launch_overhead_us": 7.5})", "m", &Base);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  EXPECT_EQ(P->Name, "measured");
  EXPECT_DOUBLE_EQ(P->LaunchOverheadSec, 7.5e-6);
  EXPECT_DOUBLE_EQ(P->DramBytesPerSec, Base.DramBytesPerSec); // not measured: kept
}

TEST(GpuProfile, WriteReadRoundTrip) {
  GpuProfile P = testProfile();
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  writeGpuProfile(P, OS);
  llvm::Expected<GpuProfile> Q = parseGpuProfile(Text, "written");
  ASSERT_TRUE(bool(Q)) << llvm::toString(Q.takeError());
  EXPECT_EQ(Q->Name, P.Name);
  EXPECT_DOUBLE_EQ(Q->L1LatencyCycles, P.L1LatencyCycles);
  EXPECT_DOUBLE_EQ(Q->LaunchOverheadSec, P.LaunchOverheadSec);
  EXPECT_DOUBLE_EQ(Q->SameAddressAtomicsPerSec, P.SameAddressAtomicsPerSec);
}

TEST(GpuProfile, ReferenceFileLoads) {
  llvm::Expected<GpuProfile> P = loadGpuProfile(TANDEM_GPU_REFERENCE_PROFILE);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  // The DESIGN.md numbers, at their clock.
  EXPECT_DOUBLE_EQ(P->ClockHz, 1980e6);
  EXPECT_DOUBLE_EQ(P->DramLatencyCycles, 643);
  EXPECT_DOUBLE_EQ(P->FmaLatencyCycles, 4.08);
  EXPECT_DOUBLE_EQ(P->DramBytesPerSec, 3980e9);
  EXPECT_DOUBLE_EQ(P->LaunchOverheadSec, 3.5e-6);
}

// The profile the runner measured on the lent H200 (2026-12-04) reads over
// the reference, which fills what it did not measure.
TEST(GpuProfile, TheMeasuredH200ProfileReadsOverTheReference) {
  llvm::Expected<GpuProfile> Ref = loadGpuProfile(TANDEM_GPU_REFERENCE_PROFILE);
  ASSERT_TRUE(bool(Ref)) << llvm::toString(Ref.takeError());
  auto Text = llvm::MemoryBuffer::getFile(TANDEM_GPU_MEASURED_PROFILE);
  ASSERT_TRUE(bool(Text));
  llvm::Expected<GpuProfile> P =
      parseGpuProfile((*Text)->getBuffer(), TANDEM_GPU_MEASURED_PROFILE, &*Ref);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  EXPECT_DOUBLE_EQ(P->SmCount, 132);
  EXPECT_DOUBLE_EQ(P->L2BytesPerSec, Ref->L2BytesPerSec); // not measured
  EXPECT_GT(P->LaunchLatencySec, 0);
  EXPECT_GT(P->DramCopyVectorBytesPerSec, P->DramCopyScalarBytesPerSec);
  GpuProfile::DramStream S = P->dramStream();
  EXPECT_GT(S.PeakBytesPerSec, P->DramCopyVectorBytesPerSec);
  EXPECT_GT(S.SecondsPerThread, 0);
}

// A pure streaming kernel (vadd: two loads, one store per thread): bytes /
// DRAM bandwidth, plus each thread's wait (without the copy probes, a DRAM
// latency shared by the resident threads), plus the launch;
// bandwidth-bound.
TEST(GpuModel, StreamingKernelIsBytesOverBandwidthPlusAWaitPerThreadPlusLaunch) {
  GpuProfile P = testProfile();
  std::mt19937_64 Rng(11);
  for (int Trial = 0; Trial < 5; ++Trial) {
    double N = double(uint64_t(1) << 22) + double(Rng() % (uint64_t(1) << 22));
    GpuWorkload W;
    W.Kernel = "vadd";
    W.Threads = N;
    W.DramBytes = 12 * N;
    W.Flops = N;
    W.ChainDram = 1;
    Prediction R = predictGpu(W, P);
    double PerThread = 500 / 1e9 / (6400 * 32.0);
    double Want = 12 * N / 1e12 + N * PerThread + 2e-6;
    EXPECT_NEAR(seconds(R, P), Want, Want * 1e-12) << N;
    EXPECT_EQ(R.Bound, "memory bandwidth");
    EXPECT_NEAR(sumParts(R.Parts), R.Cycles, R.Cycles * 1e-12);
    EXPECT_DOUBLE_EQ(R.Parts.Launch, 2e-6 * 1e9);
  }
}

// One warp, a dependent FMA chain: chain x FMA latency + launch, far above
// the throughput figure (flops / peak).
TEST(GpuModel, FmaChainIsLatencyBound) {
  GpuProfile P = testProfile();
  GpuWorkload W;
  W.Threads = 32;
  W.ChainFma = 1237;
  W.Flops = 2 * 1237 * 32;
  Prediction R = predictGpu(W, P);
  EXPECT_DOUBLE_EQ(R.Cycles, 1237 * 4 + 2000);
  EXPECT_DOUBLE_EQ(R.Parts.Compute, 1237 * 4);
  EXPECT_GT(R.Parts.Compute, 100 * W.Flops / P.Fp32FlopsPerSec * P.ClockHz);
  EXPECT_EQ(R.Bound, "compute");
  EXPECT_DOUBLE_EQ(R.Parts.MemoryLatency, 0);

  // More warps than the GPU holds: one chain per wave.
  W.Threads = 32 * 6400 * 3 + 1; // 3 full waves and one warp
  EXPECT_DOUBLE_EQ(predictGpu(W, P).Parts.Compute, 4 * 1237 * 4);
}

// A pointer chase through DRAM is memory latency.
TEST(GpuModel, DependentLoadsAreMemoryLatency) {
  GpuProfile P = testProfile();
  GpuWorkload W;
  W.Threads = 32;
  W.ChainDram = 100;
  W.ChainFma = 100;
  Prediction R = predictGpu(W, P);
  EXPECT_EQ(R.Bound, "memory latency");
  EXPECT_DOUBLE_EQ(R.Parts.MemoryLatency, 100 * 500);
  EXPECT_DOUBLE_EQ(R.Parts.Compute, 100 * 4);
}

TEST(GpuModel, SameAddressAtomicsSerialize) {
  GpuProfile P = testProfile();
  GpuWorkload W;
  W.Threads = 1 << 20;
  W.DramBytes = 4 << 20;
  W.SameAddressAtomics = 1 << 20;
  Prediction R = predictGpu(W, P);
  EXPECT_DOUBLE_EQ(R.Parts.Synchronization, double(1 << 20) / 5e8 * 1e9);
  EXPECT_EQ(R.Bound, "synchronization");
}

// The optional numbers and their defaults where not measured: a launch
// costs the back-to-back overhead, an SM one shared warp access a cycle, a
// far L2 line the near latency.
TEST(GpuProfile, OptionalNumbersDefaultWhereNotMeasured) {
  GpuProfile P = testProfile();
  EXPECT_DOUBLE_EQ(P.launchLatencySec(), 2e-6);
  EXPECT_DOUBLE_EQ(P.launchNextSec(), 2e-6);
  EXPECT_DOUBLE_EQ(P.sharedWarpAccessesPerSmCycle(), 1);
  EXPECT_DOUBLE_EQ(P.l2GatherLatency(1e12), 200);

  GpuProfile Measured = testProfileWith(
      R"({"launch_latency_us": 7, "launch_next_us": 5, "shared_warp_accesses_per_sm_cycle": 0.5,
          "l2_far_latency_cycles": 400})");
  const GpuProfile *M = &Measured;
  EXPECT_DOUBLE_EQ(M->launchLatencySec(), 7e-6);
  EXPECT_DOUBLE_EQ(M->launchNextSec(), 5e-6);
  EXPECT_DOUBLE_EQ(M->sharedWarpAccessesPerSmCycle(), 0.5);
  // Near while the footprint fits half the L2, then the mean of near and far.
  EXPECT_DOUBLE_EQ(M->l2GatherLatency(P.L2Bytes / 2), 200);
  EXPECT_DOUBLE_EQ(M->l2GatherLatency(P.L2Bytes / 2 + 1), 300);
  // A miss: the L2's latency while everything fits the L2, else DRAM's.
  EXPECT_DOUBLE_EQ(M->missLatency(P.L2Bytes), 300);
  EXPECT_DOUBLE_EQ(M->missLatency(P.L2Bytes + 1), 500);
  EXPECT_DOUBLE_EQ(M->missLatency(0), 500); // footprint unknown

  // Written and read back, the unmeasured ones stay unmeasured.
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  writeGpuProfile(P, OS);
  EXPECT_EQ(Text.find("launch_next_us"), std::string::npos) << Text;
  llvm::Expected<GpuProfile> Q = parseGpuProfile(Text, "written");
  ASSERT_TRUE(bool(Q)) << llvm::toString(Q.takeError());
  EXPECT_DOUBLE_EQ(Q->launchNextSec(), 2e-6);
}

// A row's first launch costs the launch latency, each further one the next
// launch's cost.
TEST(GpuModel, LaunchesCostTheLatencyThenTheNextLaunch) {
  GpuProfile P = testProfileWith(R"({"launch_latency_us": 7, "launch_next_us": 5})");
  GpuWorkload W;
  W.Threads = 32;
  W.ChainFma = 1;
  W.Launches = 3;
  EXPECT_DOUBLE_EQ(predictGpu(W, P).Parts.Launch, (7e-6 + 2 * 5e-6) * 1e9);
  W.Launches = 1;
  EXPECT_DOUBLE_EQ(predictGpu(W, P).Parts.Launch, 7e-6 * 1e9);
}

// With the copy probes, a dependent DRAM load in a kernel that fills every
// thread slot waits the loaded latency (the copies' wait per thread times
// the slots: Little's law), in a smaller kernel proportionally less, down to
// the idle chase's latency; without them, the idle latency.
TEST(GpuModel, DramChainsWaitTheLatencyLoadedByTheirThreads) {
  GpuProfile P =
      testProfileWith(R"({"dram_copy_scalar_gb_per_s": 600, "dram_copy_vector_gb_per_s": 900})");
  const double Slots = 100 * 64 * 32;
  const double Loaded = P.dramStream().SecondsPerThread * Slots * 1e9;
  ASSERT_GT(Loaded, 500);
  EXPECT_DOUBLE_EQ(P.loadedDramLatencyCycles(Slots), Loaded);
  EXPECT_DOUBLE_EQ(P.loadedDramLatencyCycles(4 * Slots), Loaded);
  EXPECT_DOUBLE_EQ(P.loadedDramLatencyCycles(Slots / 2), 500 + (Loaded - 500) / 2);
  EXPECT_DOUBLE_EQ(P.loadedDramLatencyCycles(0), 500);
  EXPECT_DOUBLE_EQ(testProfile().loadedDramLatencyCycles(Slots), 500);

  GpuWorkload W; // one wave of a chain of 10 DRAM loads, nothing else
  W.Threads = Slots;
  W.ChainDram = 10;
  Prediction R = predictGpu(W, P);
  EXPECT_EQ(R.Bound, "memory latency");
  EXPECT_DOUBLE_EQ(R.Parts.MemoryLatency, 10 * Loaded);
  EXPECT_DOUBLE_EQ(predictGpu(W, testProfile()).Parts.MemoryLatency, 10 * 500);
}

// Warp instructions issue at the FMA probe's rate (64 flops a warp FMA): a
// third compute bound, beside flops and shared accesses, that binds a
// branchy kernel with no flops.
TEST(GpuModel, WarpInstructionsIssueAtTheFmaProbesRate) {
  GpuProfile P = testProfile(); // 10 TFLOP/s: 156.25e9 warp instructions a second
  EXPECT_DOUBLE_EQ(P.warpInstructionsPerSec(), 10e12 / 64);
  GpuWorkload W;
  W.Threads = 1 << 20;
  W.DramBytes = 8 << 20;
  W.ChainDram = 1;
  W.WarpInstructions = 1e9;
  Prediction R = predictGpu(W, P);
  EXPECT_EQ(R.Bound, "compute");
  EXPECT_DOUBLE_EQ(R.Parts.Compute, 1e9 / (10e12 / 64) * 1e9);
  W.WarpInstructions = 0; // unknown: the same kernel is memory-bound
  EXPECT_NE(predictGpu(W, P).Bound, "compute");
}

// The five-buffer launch probe's excess over the one-buffer probe, a
// quarter a buffer, is what each buffer beyond the first adds to a row's
// first launch (not to the launches after it); unmeasured, nothing.
TEST(GpuModel, EachFurtherBufferAddsAQuarterOfTheFiveBufferProbesExcess) {
  GpuProfile P = testProfileWith(
      R"({"launch_latency_us": 7, "launch_next_us": 5, "launch_latency_5_buffers_us": 9})");
  EXPECT_DOUBLE_EQ(P.launchPerBufferSec(), 0.5e-6);
  GpuWorkload W;
  W.Threads = 32;
  W.ChainFma = 1;
  W.Buffers = 5;
  EXPECT_DOUBLE_EQ(predictGpu(W, P).Parts.Launch, 9e-6 * 1e9); // the probe itself
  W.Buffers = 3;
  W.Launches = 2;
  EXPECT_DOUBLE_EQ(predictGpu(W, P).Parts.Launch, (7e-6 + 2 * 0.5e-6 + 5e-6) * 1e9);

  GpuProfile NoProbe = testProfileWith(R"({"launch_latency_us": 7})");
  EXPECT_DOUBLE_EQ(NoProbe.launchPerBufferSec(), 0);
  W.Launches = 1;
  EXPECT_DOUBLE_EQ(predictGpu(W, NoProbe).Parts.Launch, 7e-6 * 1e9);
  // Five buffers measured cheaper than one (noise): no negative cost.
  GpuProfile Cheaper =
      testProfileWith(R"({"launch_latency_us": 7, "launch_latency_5_buffers_us": 6})");
  EXPECT_DOUBLE_EQ(Cheaper.launchPerBufferSec(), 0);
}

// The copy probes (8 bytes a thread at the scalar rate, 32 at the vector
// rate) split DRAM time into bytes at a peak and a wait per thread; the
// model then reproduces both probes exactly, and a kernel in between (vadd,
// 12 bytes a thread) lands between their rates.
TEST(GpuModel, TheCopyProbesSplitDramTimeIntoBytesAndThreads) {
  GpuProfile Measured =
      testProfileWith(R"({"dram_copy_scalar_gb_per_s": 600, "dram_copy_vector_gb_per_s": 900})");
  const GpuProfile *P = &Measured;
  GpuProfile::DramStream S = P->dramStream();
  EXPECT_NEAR(S.PeakBytesPerSec, 24 / (32 / 900e9 - 8 / 600e9), 1);
  EXPECT_GT(S.PeakBytesPerSec, 900e9);
  const double N = 1 << 24;
  auto DramSeconds = [&](double Threads, double Bytes) {
    GpuWorkload W;
    W.Threads = Threads;
    W.DramBytes = Bytes;
    Prediction R = predictGpu(W, *P);
    EXPECT_EQ(R.Bound, "memory bandwidth");
    return R.Parts.MemoryBandwidth / P->ClockHz;
  };
  EXPECT_NEAR(DramSeconds(N, 8 * N), 8 * N / 600e9, 1e-12);
  EXPECT_NEAR(DramSeconds(N / 4, 8 * N), 8 * N / 900e9, 1e-12);
  double Vadd = DramSeconds(N, 12 * N);
  EXPECT_LT(Vadd, 12 * N / 600e9);
  EXPECT_GT(Vadd, 12 * N / 900e9);

  // Probes that do not make sense (vector slower): the fallback.
  GpuProfile Odd =
      testProfileWith(R"({"dram_copy_scalar_gb_per_s": 900, "dram_copy_vector_gb_per_s": 600})");
  EXPECT_DOUBLE_EQ(Odd.dramStream().PeakBytesPerSec, testProfile().DramBytesPerSec);
}

// Warp-wide shared accesses over the SMs' rate are compute time.
TEST(GpuModel, SharedAccessesAreCompute) {
  GpuProfile P = testProfileWith(R"({"shared_warp_accesses_per_sm_cycle": 0.5})");
  GpuWorkload W;
  W.Threads = 1 << 20;
  W.SharedWarpAccesses = 3e7;
  Prediction R = predictGpu(W, P);
  EXPECT_EQ(R.Bound, "compute");
  EXPECT_DOUBLE_EQ(R.Parts.Compute, 3e7 / (100 * 0.5));
}

// LDS.128 broadcasts (sgemm's A row) go at their own measured rate, the
// other shared accesses at the scalar one; unmeasured, all at the scalar.
TEST(GpuModel, BroadcastVectorSharedLoadsGoAtTheirOwnRate) {
  GpuWorkload W;
  W.Threads = 1 << 20;
  W.SharedWarpAccesses = 3e7;
  W.SharedV4BroadcastWarpAccesses = 1e7;
  GpuProfile P = testProfileWith(R"({"shared_warp_accesses_per_sm_cycle": 0.5,
                                     "shared_v4_broadcast_warp_accesses_per_sm_cycle": 0.25})");
  EXPECT_DOUBLE_EQ(predictGpu(W, P).Parts.Compute, (2e7 / 0.5 + 1e7 / 0.25) / 100);
  GpuProfile Scalar = testProfileWith(R"({"shared_warp_accesses_per_sm_cycle": 0.5})");
  EXPECT_DOUBLE_EQ(predictGpu(W, Scalar).Parts.Compute, 3e7 / (100 * 0.5));
  // More broadcasts than accesses: counted as all of them, no negative rest.
  W.SharedV4BroadcastWarpAccesses = 4e7;
  EXPECT_DOUBLE_EQ(predictGpu(W, P).Parts.Compute, 3e7 / (100 * 0.25));
}

// A row's own host submit time replaces the launch probe's host part;
// without the probe's host time (or the row's) the probe's latency stands.
TEST(GpuModel, TheRowsHostSubmitTimeReplacesTheProbesHostPart) {
  GpuProfile P = testProfileWith(R"({"launch_latency_us": 6, "launch_host_us": 4})");
  GpuWorkload W;
  W.Launches = 1;
  EXPECT_DOUBLE_EQ(predictGpu(W, P).Parts.Launch, 6e-6 * 1e9);
  W.HostSubmitSec = 7e-6; // a slower host: 3 us more than the probe's
  EXPECT_NEAR(predictGpu(W, P).Parts.Launch, 9e-6 * 1e9, 1e-6);
  W.HostSubmitSec = 2e-6; // a faster one
  EXPECT_NEAR(predictGpu(W, P).Parts.Launch, 4e-6 * 1e9, 1e-6);
  GpuProfile NoHost = testProfileWith(R"({"launch_latency_us": 6})");
  EXPECT_DOUBLE_EQ(predictGpu(W, NoHost).Parts.Launch, 6e-6 * 1e9);
}

// Each SM starts and retires its share of the blocks at the probe's cost
// a block, the first already in the launch latency: a fourth bound, shown
// as launch time when it is the largest.
TEST(GpuModel, BlocksBeyondOneAnSmCostTheCtaProbesCyclesEach) {
  GpuProfile P = testProfileWith(R"({"cta_cycles_per_block_touch": 150})");
  GpuWorkload W;
  W.Threads = 128 * 1000; // 1000 blocks over the test card's 100 SMs: 10 each
  W.ThreadsPerBlock = 128;
  W.Launches = 0;
  Prediction R = predictGpu(W, P);
  EXPECT_EQ(R.Bound, "launch");
  EXPECT_DOUBLE_EQ(R.Parts.Launch, (10 - 1) * 150);
  EXPECT_DOUBLE_EQ(R.Cycles, (10 - 1) * 150);
  // A partly filled last round of blocks still costs a block.
  W.Threads = 128 * 1001;
  EXPECT_DOUBLE_EQ(predictGpu(W, P).Parts.Launch, (11 - 1) * 150);
  // One block an SM or fewer: nothing beyond the launch latency.
  W.Threads = 128 * 100;
  EXPECT_DOUBLE_EQ(predictGpu(W, P).Cycles, 0);
  // Hidden under a larger term: the chain shows, the blocks do not.
  W.Threads = 128 * 1000;
  W.ChainDram = 10;
  Prediction Chain = predictGpu(W, P);
  EXPECT_EQ(Chain.Bound, "memory latency");
  EXPECT_EQ(Chain.Parts.Launch, 0);
  // Not measured, or the block size unknown: no block term.
  W.ChainDram = 0;
  EXPECT_DOUBLE_EQ(predictGpu(W, testProfile()).Cycles, 0);
  W.ThreadsPerBlock = 0;
  EXPECT_DOUBLE_EQ(predictGpu(W, P).Cycles, 0);
}

// Buffers that fit the L2 are found there by the timing's repetitions: the
// DRAM bytes become L2 bytes and the chain's DRAM steps L2 steps.
TEST(GpuModel, WorkThatFitsTheL2IsServedByIt) {
  GpuProfile P = testProfile();
  GpuWorkload W;
  W.Threads = 32;
  W.ChainDram = 10;
  W.DramBytes = 1000;
  W.FootprintBytes = P.L2Bytes + 1;
  EXPECT_DOUBLE_EQ(predictGpu(W, P).Parts.MemoryLatency, 10 * 500);
  W.FootprintBytes = P.L2Bytes;
  EXPECT_DOUBLE_EQ(predictGpu(W, P).Parts.MemoryLatency, 10 * 200);

  // Streaming: no DRAM time left, only the L2's.
  GpuWorkload S;
  S.Threads = 1 << 16;
  S.DramBytes = 1 << 19;
  S.FootprintBytes = 1 << 19;
  Prediction R = predictGpu(S, P);
  EXPECT_DOUBLE_EQ(R.Parts.MemoryBandwidth, double(1 << 19) / 3e12 * 1e9);
}

/// \p Rows rows of \p Short nonzeros and one of \p Long (row 0), random
/// columns.
sparse::CsrMatrix oneLongRow(uint32_t Rows, uint32_t Short, uint32_t Long, uint64_t Seed) {
  std::mt19937_64 Rng(Seed);
  sparse::CsrMatrix A;
  A.Rows = A.Cols = Rows;
  for (uint32_t R = 0; R < Rows; ++R) {
    uint32_t Len = R == 0 ? Long : Short;
    std::vector<uint32_t> Cols;
    for (uint32_t K = 0; K < Len; ++K)
      Cols.push_back(Len == Rows ? K : uint32_t(Rng() % Rows));
    std::sort(Cols.begin(), Cols.end());
    Cols.erase(std::unique(Cols.begin(), Cols.end()), Cols.end());
    for (uint32_t C : Cols) {
      A.ColIdx.push_back(C);
      A.Values.push_back(float(Rng() % 1000) / 500 - 1);
    }
    A.RowPtr.push_back(uint32_t(A.ColIdx.size()));
  }
  return A;
}

// Thread-per-row SpMV with one very long row: the longest thread's chain
// dominates (load imbalance); merge path, which splits the work evenly, is
// not imbalance-bound and is faster.
TEST(GpuModel, ScalarSpmvWithOneLongRowIsImbalanceBound) {
  GpuProfile P = testProfile();
  sparse::CsrMatrix A = oneLongRow(40000, 4, 40000, 5);
  sparse::MatrixStats S = sparse::computeStats(A, cacheShapeForL2(P));
  ASSERT_EQ(S.RowLengthMax, 40000u);
  GpuWorkload W = spmvWorkload(S, SpmvVariant::Scalar, P);
  // A, x and y: more than the test card's 1 MiB L2, so the first miss goes
  // to DRAM.
  EXPECT_DOUBLE_EQ(W.FootprintBytes, (40001 + 2 * double(S.Nnz) + 2 * 40000) * 4);
  ASSERT_GT(W.FootprintBytes, P.L2Bytes);
  Prediction Scalar = predictGpu(W, P);
  EXPECT_EQ(Scalar.Bound, "load imbalance");
  // The long row: a DRAM miss, then 40000 / 4 steps of an L1 hit and a
  // gather, in the L2 or, for the statistics' share of misses, in DRAM.
  const double Miss = S.XMissRate;
  ASSERT_GT(Miss, 0);
  double Longest =
      500 + 40000.0 / AssumedLoopLoadsInFlight * (30 + (1 - Miss) * 200 + Miss * 500);
  EXPECT_NEAR(Scalar.Cycles - Scalar.Parts.Launch, Longest, 1e-6 * Longest);
  // Merge path's only imbalance is its fixup: the long row's first slice
  // adds the carries of its other slices (32 items each), one at a time, at
  // an L1 hit plus a 32nd of an L2 access each.
  GpuWorkload MergeWork = spmvWorkload(S, SpmvVariant::Merge, P);
  Prediction Merge = predictGpu(MergeWork, P);
  const double Slices = std::ceil(40001 / 32.0);
  const double L2 = P.l2GatherLatency(MergeWork.FootprintBytes);
  EXPECT_DOUBLE_EQ(Merge.Parts.LoadImbalance, (Slices - 1) * (30 + (L2 - 30) / 32));
  EXPECT_LT(Merge.Cycles, Scalar.Cycles / 3);

  // Merge path walks its items one at a time (each waits for the last:
  // the loop's loads are predicated on the row end last loaded): its chain
  // is the search, then every nonzero's column and gather and every row
  // end's pointer, none divided by AssumedLoopLoadsInFlight.
  const double Items = 32, Total = 40000 + double(S.Nnz);
  const double NnzPerThread = Items * double(S.Nnz) / Total;
  EXPECT_DOUBLE_EQ(MergeWork.ChainL1, Items);
  EXPECT_DOUBLE_EQ(MergeWork.ChainL2,
                   std::ceil(std::log2(Total)) + NnzPerThread * (1 - S.XMissRate));
  EXPECT_DOUBLE_EQ(MergeWork.ChainDram, 1 + NnzPerThread * S.XMissRate);

  // Without the long row the same kernel is not imbalance-bound.
  sparse::CsrMatrix B = oneLongRow(20000, 4, 4, 5);
  sparse::MatrixStats EvenStats = sparse::computeStats(B, cacheShapeForL2(P));
  Prediction Even = predictGpu(spmvWorkload(EvenStats, SpmvVariant::Scalar, P), P);
  EXPECT_NE(Even.Bound, "load imbalance");
  EXPECT_EQ(Even.Parts.LoadImbalance, 0);
  // No row spans two slices: no fixup tail.
  EXPECT_EQ(predictGpu(spmvWorkload(EvenStats, SpmvVariant::Merge, P), P).Parts.LoadImbalance, 0);
}

// The SpMV traffic: every array once, x from the L2's misses.
TEST(GpuModel, SpmvDramBytesCountEveryArrayOnce) {
  GpuProfile P = testProfile();
  sparse::CsrMatrix A = oneLongRow(5000, 7, 7, 9);
  sparse::MatrixStats S = sparse::computeStats(A, cacheShapeForL2(P));
  GpuWorkload W = spmvWorkload(S, SpmvVariant::Vector, P);
  double Want = 5001 * 4 + 2 * double(S.Nnz) * 4 + 5000 * 4 + double(S.XMisses) * 32;
  EXPECT_DOUBLE_EQ(W.DramBytes, Want);
  EXPECT_DOUBLE_EQ(W.Flops, 2 * double(S.Nnz));
  EXPECT_DOUBLE_EQ(W.Threads, 5000 * 32);
  // x (20 KB) fits the 1 MiB L2: only compulsory misses.
  EXPECT_EQ(S.XMisses, S.XLinesTouched);
}

// SpMM's traffic: A once, C once, B's rows (whole lines of Columns x 4
// bytes) from the L2's misses; a thread per element of C.
TEST(GpuModel, SpmmTrafficCountsAOnceCOnceAndBsRowMisses) {
  GpuProfile P = testProfile();
  sparse::CsrMatrix A = oneLongRow(5000, 7, 7, 9);
  sparse::MatrixStats S = sparse::computeStats(A, cacheShapeForSpmm(P, 32));
  ASSERT_EQ(S.Cache.LineBytes, 128u);
  GpuWorkload W = spmmWorkload(S, 32, P);
  double ABytes = 5001 * 4 + 2 * double(S.Nnz) * 4;
  EXPECT_DOUBLE_EQ(W.DramBytes, ABytes + 5000 * 32 * 4 + double(S.XMisses) * 128);
  EXPECT_DOUBLE_EQ(W.Flops, 2 * double(S.Nnz) * 32);
  EXPECT_DOUBLE_EQ(W.Threads, 5000 * 32);
  // B (5000 rows x 128 B = 640 KB) fits the 1 MiB L2: only compulsory misses.
  EXPECT_EQ(S.XMisses, S.XLinesTouched);

  // 64 columns: two warps per row, the second reads A from the L2; B's rows
  // are 256-byte lines.
  sparse::MatrixStats S64 = sparse::computeStats(A, cacheShapeForSpmm(P, 64));
  GpuWorkload W64 = spmmWorkload(S64, 64, P);
  EXPECT_DOUBLE_EQ(W64.Threads, 5000 * 64);
  EXPECT_DOUBLE_EQ(W64.Flops, 2 * W.Flops);
  EXPECT_DOUBLE_EQ(W64.DramBytes, ABytes + 5000 * 64 * 4 + double(S64.XMisses) * 256);
  double BL2 = std::ceil(5000 / SpmmBlockRows) * S64.LinesPerWindow * 256 -
               double(S64.XMisses) * 256;
  EXPECT_DOUBLE_EQ(W64.L2OnlyBytes, BL2 + ABytes);
}

// B larger than the L2: its rows miss beyond the compulsory ones, and the
// DRAM traffic grows with them.
TEST(GpuModel, SpmmBBeyondTheL2MissesToDram) {
  GpuProfile P = testProfile();
  sparse::CsrMatrix A = oneLongRow(40000, 8, 8, 3); // B: 40000 x 128 B = 5 MB
  sparse::MatrixStats S = sparse::computeStats(A, cacheShapeForSpmm(P, 32));
  EXPECT_GT(S.XMisses, S.XLinesTouched);
  GpuWorkload W = spmmWorkload(S, 32, P);
  double ABytes = 40001 * 4 + 2 * double(S.Nnz) * 4;
  EXPECT_DOUBLE_EQ(W.DramBytes, ABytes + 40000 * 32 * 4 + double(S.XMisses) * 128);
  // And a warp's chain: of its rounds of gathers, the missing share waits
  // in DRAM, the rest in the L2 (after the row pointers' DRAM step).
  const double Steps = S.RowLengthMean / AssumedLoopLoadsInFlight; // about 8 / 4
  EXPECT_DOUBLE_EQ(W.ChainDram, 1 + Steps * S.XMissRate);
  EXPECT_DOUBLE_EQ(W.ChainL2, Steps * (1 - S.XMissRate));
}

// A warp is one row: one very long row is the longest warp's chain.
TEST(GpuModel, SpmmWithOneLongRowIsImbalanceBound) {
  GpuProfile P = testProfile();
  sparse::CsrMatrix A = oneLongRow(20000, 4, 20000, 5);
  sparse::MatrixStats S = sparse::computeStats(A, cacheShapeForSpmm(P, 32));
  GpuWorkload W = spmmWorkload(S, 32, P);
  ASSERT_GT(W.FootprintBytes, P.L2Bytes); // B and C alone are 5 MB
  Prediction R = predictGpu(W, P);
  EXPECT_EQ(R.Bound, "load imbalance");
  // B's rows (2.5 MB) do not fit the 1 MiB L2: most of the long row's
  // gathers go to DRAM, in the statistics' share.
  const double Miss = S.XMissRate;
  ASSERT_GT(Miss, 0.5);
  double Longest =
      500 + 20000.0 / AssumedLoopLoadsInFlight * (30 + (1 - Miss) * 200 + Miss * 500);
  EXPECT_NEAR(R.Cycles - R.Parts.Launch, Longest, 1e-6 * Longest);
}

} // namespace
