//===- SamplesTest.cpp - The sample programs on iss -----------------------===//
//
// Every sample runs on the iss device and matches its CPU reference; the
// checks themselves are shown to fail when the output is wrong (never
// written, one bit flipped, written past the end); the counters of the
// launches agree with what each program must do (bytes moved, atomics,
// barriers, divergence); and broken sample sources come back as errors
// naming the sample and the position or fault.
//
//===----------------------------------------------------------------------===//

#include "Samples.h"

#include "tandem/Config.h"
#include "tandem/Runtime.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <memory>
#include <string>

using namespace tandem;
using namespace tandem::samples;

namespace {

std::unique_ptr<Device> openIss(llvm::raw_ostream *Trace = nullptr,
                                unsigned WarpsPerCore = 0) {
  llvm::Expected<AcceleratorConfig> Config = loadConfig(defaultConfigPath());
  EXPECT_TRUE(bool(Config)) << llvm::toString(Config.takeError());
  if (!Config)
    return nullptr;
  DeviceOptions Opts;
  Opts.Config = *Config;
  if (WarpsPerCore)
    Opts.Config.WarpsPerCore = WarpsPerCore;
  Opts.Trace = Trace;
  llvm::Expected<std::unique_ptr<Device>> D = openDevice("iss", Opts);
  EXPECT_TRUE(bool(D)) << llvm::toString(D.takeError());
  return D ? std::move(*D) : nullptr;
}

/// Runs \p Name, failing the test if it errs.
SampleResult mustRun(Device &D, llvm::StringRef Name,
                     const SampleOptions &Opts = {}) {
  llvm::Expected<SampleResult> R = runSample(D, Name, Opts);
  EXPECT_TRUE(bool(R)) << llvm::toString(R.takeError());
  return R ? std::move(*R) : SampleResult{};
}

std::string readSample(llvm::StringRef File) {
  llvm::SmallString<256> Path(defaultSamplesDir());
  llvm::sys::path::append(Path, File);
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  EXPECT_TRUE(bool(Buf)) << Path.str().str();
  return Buf ? (*Buf)->getBuffer().str() : "";
}

/// A temporary samples folder holding one file, removed afterwards.
class ScratchDir {
public:
  ScratchDir() {
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("tandem-samples", Path));
  }
  ~ScratchDir() { llvm::sys::fs::remove_directories(Path); }
  void write(llvm::StringRef File, llvm::StringRef Text) {
    llvm::SmallString<256> P(Path);
    llvm::sys::path::append(P, File);
    std::error_code EC;
    llvm::raw_fd_ostream OS(P, EC);
    ASSERT_FALSE(EC) << EC.message();
    OS << Text;
  }
  std::string dir() const { return Path.str().str(); }

private:
  llvm::SmallString<256> Path;
};

/// Replaces the one occurrence of \p From in \p Text.
std::string replaceOnce(std::string Text, llvm::StringRef From,
                        llvm::StringRef To) {
  size_t At = Text.find(From.str());
  EXPECT_NE(At, std::string::npos)
      << "sample source changed: no '" << From.str() << "'";
  if (At != std::string::npos)
    Text.replace(At, From.size(), To.str());
  return Text;
}

class EachSample : public ::testing::TestWithParam<std::string> {};

TEST_P(EachSample, MatchesCpuReference) {
  std::unique_ptr<Device> D = openIss();
  ASSERT_TRUE(D);
  SampleResult R = mustRun(*D, GetParam());
  EXPECT_TRUE(R.Passed) << R.Message;
  EXPECT_EQ(R.Name, GetParam());
  EXPECT_GT(R.Counters.get("thread_instructions"), 0u);
}

TEST_P(EachSample, MatchesCpuReferenceAtAnotherSeedAndScale) {
  std::unique_ptr<Device> D = openIss();
  ASSERT_TRUE(D);
  SampleOptions Opts;
  Opts.Seed = 0x5eed5eed12345ull;
  Opts.Scale = 2;
  SampleResult R = mustRun(*D, GetParam(), Opts);
  EXPECT_TRUE(R.Passed) << R.Message;
  SampleResult Small = mustRun(*D, GetParam());
  EXPECT_GT(R.Elements, Small.Elements);
}

TEST_P(EachSample, CheckFailsWhenOutputsAreNeverWritten) {
  std::unique_ptr<Device> D = openIss();
  ASSERT_TRUE(D);
  SampleOptions Opts;
  Opts.Fault = Sabotage::SkipLaunch;
  SampleResult R = mustRun(*D, GetParam(), Opts);
  EXPECT_FALSE(R.Passed);
  EXPECT_NE(R.Message.find("want"), std::string::npos) << R.Message;
}

TEST_P(EachSample, CheckFailsWhenOneOutputBitFlips) {
  std::unique_ptr<Device> D = openIss();
  ASSERT_TRUE(D);
  SampleOptions Opts;
  Opts.Fault = Sabotage::CorruptOutput;
  SampleResult R = mustRun(*D, GetParam(), Opts);
  EXPECT_FALSE(R.Passed);
  // Exactly the flipped element is wrong (divrem's identity check may add
  // one more line for the same index).
  EXPECT_TRUE(llvm::StringRef(R.Message).starts_with("1 error") ||
              (GetParam() == "divrem" &&
               llvm::StringRef(R.Message).starts_with("2 errors")))
      << R.Message;
}

std::vector<std::string> sampleNames() {
  std::vector<std::string> Names;
  for (const SampleInfo &S : sampleTable())
    Names.push_back(S.Name);
  return Names;
}

INSTANTIATE_TEST_SUITE_P(Samples, EachSample,
                         ::testing::ValuesIn(sampleNames()),
                         [](const auto &Info) { return Info.param; });

TEST(Samples, BlocksShrinkToSmallConfigurations) {
  for (unsigned Warps : {1u, 2u}) {
    std::unique_ptr<Device> D = openIss(nullptr, Warps);
    ASSERT_TRUE(D);
    SampleOptions Opts;
    Opts.MaxThreadsPerBlock = Warps * 32;
    llvm::Expected<std::vector<SampleResult>> Rs = runSamples(*D, Opts);
    ASSERT_TRUE(bool(Rs)) << llvm::toString(Rs.takeError());
    EXPECT_EQ(Rs->size(), sampleTable().size());
    for (const SampleResult &R : *Rs) {
      EXPECT_TRUE(R.Passed)
          << Warps << " warps, " << R.Name << ": " << R.Message;
      EXPECT_LE(R.Block.count(), Warps * 32) << R.Name;
    }
  }
  SampleOptions TooSmall;
  TooSmall.MaxThreadsPerBlock = 16;
  EXPECT_NE(llvm::toString(checkOptions(TooSmall)).find("at least one warp"),
            std::string::npos);
}

TEST(Samples, TableHasTheRequiredSamples) {
  for (const char *Name :
       {"vadd", "reduce", "divergent", "histogram", "shuffle_reduce"})
    EXPECT_NE(findSample(Name), nullptr) << Name;
  EXPECT_EQ(findSample("no_such_sample"), nullptr);
}

TEST(Samples, RunSamplesRunsTheFilteredOnesInTableOrder) {
  std::unique_ptr<Device> D = openIss();
  ASSERT_TRUE(D);
  SampleOptions Opts;
  Opts.Only = {"reduce", "vadd"};
  llvm::Expected<std::vector<SampleResult>> Rs = runSamples(*D, Opts);
  ASSERT_TRUE(bool(Rs)) << llvm::toString(Rs.takeError());
  ASSERT_EQ(Rs->size(), 2u);
  EXPECT_EQ((*Rs)[0].Name, "vadd");
  EXPECT_EQ((*Rs)[1].Name, "reduce");
  EXPECT_TRUE((*Rs)[0].Passed && (*Rs)[1].Passed);
}

TEST(Samples, SameSeedSameCountersAcrossRuns) {
  std::unique_ptr<Device> D = openIss();
  ASSERT_TRUE(D);
  SampleResult A = mustRun(*D, "divergent");
  SampleResult B = mustRun(*D, "divergent");
  EXPECT_EQ(A.Counters.Values, B.Counters.Values);
  SampleOptions Other;
  Other.Seed = 99;
  SampleResult C = mustRun(*D, "divergent", Other);
  // Data-dependent trip counts: other inputs, other instruction counts.
  EXPECT_NE(A.Counters.get("thread_instructions"),
            C.Counters.get("thread_instructions"));
}

TEST(Samples, UnknownNamesAndScalesAreRejected) {
  std::unique_ptr<Device> D = openIss();
  ASSERT_TRUE(D);
  llvm::Expected<SampleResult> R = runSample(*D, "vad", {});
  ASSERT_FALSE(bool(R));
  std::string Msg = llvm::toString(R.takeError());
  EXPECT_NE(Msg.find("no sample named 'vad'"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("vadd"), std::string::npos) << Msg;

  SampleOptions Opts;
  Opts.Scale = 0;
  llvm::Expected<std::vector<SampleResult>> Rs = runSamples(*D, Opts);
  ASSERT_FALSE(bool(Rs));
  EXPECT_NE(llvm::toString(Rs.takeError()).find("scale 0"), std::string::npos);
}

//===--- Counters ---------------------------------------------------------===//

TEST(SamplesCounters, VaddMovesTwelveBytesPerElement) {
  std::unique_ptr<Device> D = openIss();
  ASSERT_TRUE(D);
  SampleResult R = mustRun(*D, "vadd");
  ASSERT_TRUE(R.Passed) << R.Message;
  EXPECT_NE(R.Elements % R.Block.X, 0u)
      << "n must not be a multiple of the block";
  EXPECT_EQ(R.Counters.get("global_load_bytes"), 8 * R.Elements);
  EXPECT_EQ(R.Counters.get("global_store_bytes"), 4 * R.Elements);
  EXPECT_EQ(R.Counters.get("atomics_global"), 0u);
}

TEST(SamplesCounters, HistogramDoesOneGlobalAtomicPerElement) {
  std::unique_ptr<Device> D = openIss();
  ASSERT_TRUE(D);
  SampleResult R = mustRun(*D, "histogram");
  ASSERT_TRUE(R.Passed) << R.Message;
  EXPECT_EQ(R.Counters.get("atomics_global"), R.Elements);
  EXPECT_EQ(R.Counters.get("atomics_shared"), 0u);
}

TEST(SamplesCounters, PrivatizedHistogramMergesOncePerBinAndBlock) {
  std::unique_ptr<Device> D = openIss();
  ASSERT_TRUE(D);
  SampleResult R = mustRun(*D, "histogram_shared");
  ASSERT_TRUE(R.Passed) << R.Message;
  EXPECT_EQ(R.Counters.get("atomics_shared"), R.Elements);
  EXPECT_EQ(R.Counters.get("atomics_global"), 256 * R.Grid.count());
  // Two bars per warp: after clearing and after counting.
  EXPECT_EQ(R.Counters.get("barriers"),
            2 * R.Grid.count() * R.Block.count() / 32);
}

TEST(SamplesCounters, ReduceSynchronizesWithBarriers) {
  std::unique_ptr<Device> D = openIss();
  ASSERT_TRUE(D);
  SampleResult R = mustRun(*D, "reduce");
  ASSERT_TRUE(R.Passed) << R.Message;
  // One bar after the stores plus one per tree level (log2 256 = 8), per warp.
  uint64_t Warps = R.Grid.count() * R.Block.count() / 32;
  EXPECT_GT(R.Counters.get("barriers"), 0u);
  EXPECT_EQ(R.Counters.get("barriers"), 9 * Warps);
  EXPECT_EQ(R.Counters.get("global_load_bytes"), 4 * R.Elements);
  EXPECT_EQ(R.Counters.get("global_store_bytes"), 4 * R.Grid.count());
}

TEST(SamplesCounters, DivergentSampleLeavesLanesIdle) {
  std::unique_ptr<Device> D = openIss();
  ASSERT_TRUE(D);
  SampleResult R = mustRun(*D, "divergent");
  ASSERT_TRUE(R.Passed) << R.Message;
  uint64_t Warp = R.Counters.get("warp_instructions");
  uint64_t Thread = R.Counters.get("thread_instructions");
  ASSERT_GT(Warp, 0u);
  EXPECT_LT(Thread, 32 * Warp);
  // The data-dependent loop diverges a lot more than vadd's bounds check.
  EXPECT_LT(double(Thread) / (32.0 * double(Warp)), 0.8);
}

TEST(SamplesCounters, ShuffleReduceUsesNoSharedMemory) {
  std::unique_ptr<Device> D = openIss();
  ASSERT_TRUE(D);
  SampleResult R = mustRun(*D, "shuffle_reduce");
  ASSERT_TRUE(R.Passed) << R.Message;
  EXPECT_EQ(R.Counters.get("shared_load_bytes"), 0u);
  EXPECT_EQ(R.Counters.get("shared_store_bytes"), 0u);
  EXPECT_EQ(R.Counters.get("global_load_bytes"), 4 * R.Elements);
  // Three words per warp that has elements.
  EXPECT_EQ(R.Counters.get("global_store_bytes"),
            12 * ((R.Elements + 31) / 32));
}

TEST(SamplesCounters, DotAddsOncePerWarp) {
  std::unique_ptr<Device> D = openIss();
  ASSERT_TRUE(D);
  SampleResult R = mustRun(*D, "dot");
  ASSERT_TRUE(R.Passed) << R.Message;
  EXPECT_EQ(R.Counters.get("atomics_global"),
            R.Grid.count() * R.Block.count() / 32);
}

TEST(SamplesCounters, SkippedLaunchHasNoCounters) {
  std::unique_ptr<Device> D = openIss();
  ASSERT_TRUE(D);
  SampleOptions Opts;
  Opts.Fault = Sabotage::SkipLaunch;
  SampleResult R = mustRun(*D, "vadd", Opts);
  EXPECT_TRUE(R.Counters.Values.empty());
}

//===--- Broken sample programs -------------------------------------------===//

TEST(SamplesErrors, WritePastTheEndIsCaughtByTheGuardWords) {
  // Store c[i + 1] instead of c[i]: c[0] stays poisoned and the lane with
  // i = n - 1 writes the first guard word.
  ScratchDir Dir;
  Dir.write("vadd.s",
            replaceOnce(readSample("vadd.s"), "st.global.u32 [r11], r14",
                        "st.global.u32 [r11 + 4], r14"));
  std::unique_ptr<Device> D = openIss();
  ASSERT_TRUE(D);
  SampleOptions Opts;
  Opts.Dir = Dir.dir();
  SampleResult R = mustRun(*D, "vadd", Opts);
  EXPECT_FALSE(R.Passed);
  EXPECT_NE(R.Message.find("c was written past its end"), std::string::npos)
      << R.Message;
  EXPECT_NE(R.Message.find("c[0] = 0xdeadbeef"), std::string::npos)
      << R.Message;
  EXPECT_NE(R.Message.find("poison"), std::string::npos) << R.Message;
}

TEST(SamplesErrors, ReductionWithoutBarriersIsCaught) {
  // Without bar, a warp reads partial sums other warps have not stored yet.
  std::string Source = readSample("reduce.s");
  size_t Bars = 0;
  for (size_t At; (At = Source.find("    bar\n")) != std::string::npos; ++Bars)
    Source.replace(At, 8, "    nop\n");
  ASSERT_EQ(Bars, 2u);
  ScratchDir Dir;
  Dir.write("reduce.s", Source);
  std::unique_ptr<Device> D = openIss();
  ASSERT_TRUE(D);
  SampleOptions Opts;
  Opts.Dir = Dir.dir();
  SampleResult R = mustRun(*D, "reduce", Opts);
  EXPECT_FALSE(R.Passed);
  EXPECT_EQ(R.Counters.get("barriers"), 0u);
  EXPECT_NE(R.Message.find("out["), std::string::npos) << R.Message;
}

TEST(SamplesErrors, AssemblyErrorNamesSampleAndPosition) {
  ScratchDir Dir;
  Dir.write("vadd.s", replaceOnce(readSample("vadd.s"), "fadd r14, r12, r13",
                                  "fadd r14, r12, r99"));
  std::unique_ptr<Device> D = openIss();
  ASSERT_TRUE(D);
  SampleOptions Opts;
  Opts.Dir = Dir.dir();
  llvm::Expected<SampleResult> R = runSample(*D, "vadd", Opts);
  ASSERT_FALSE(bool(R));
  std::string Msg = llvm::toString(R.takeError());
  EXPECT_NE(Msg.find("sample 'vadd'"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("vadd.s:"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("r99"), std::string::npos) << Msg;
}

TEST(SamplesErrors, FaultNamesSampleAndKernel) {
  // Store through a null pointer.
  ScratchDir Dir;
  Dir.write("vadd.s",
            replaceOnce(readSample("vadd.s"), "st.global.u32 [r11], r14",
                        "st.global.u32 [r0 + 16], r14"));
  std::unique_ptr<Device> D = openIss();
  ASSERT_TRUE(D);
  SampleOptions Opts;
  Opts.Dir = Dir.dir();
  llvm::Expected<SampleResult> R = runSample(*D, "vadd", Opts);
  ASSERT_FALSE(bool(R));
  std::string Msg = llvm::toString(R.takeError());
  EXPECT_NE(Msg.find("sample 'vadd'"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("kernel 'vadd'"), std::string::npos) << Msg;
}

TEST(SamplesErrors, MissingFolderNamesThePathAndTheFix) {
  std::unique_ptr<Device> D = openIss();
  ASSERT_TRUE(D);
  SampleOptions Opts;
  Opts.Dir = "/nonexistent/tandem-samples";
  llvm::Expected<SampleResult> R = runSample(*D, "reduce", Opts);
  ASSERT_FALSE(bool(R));
  std::string Msg = llvm::toString(R.takeError());
  EXPECT_NE(Msg.find("sample 'reduce'"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("/nonexistent/tandem-samples/reduce.s"), std::string::npos)
      << Msg;
  EXPECT_NE(Msg.find("TANDEM_SAMPLES_DIR"), std::string::npos) << Msg;
}

TEST(SamplesTrace, TraceIsDelimitedBySample) {
  std::string Trace;
  llvm::raw_string_ostream OS(Trace);
  std::unique_ptr<Device> D = openIss(&OS);
  ASSERT_TRUE(D);
  SampleOptions Opts;
  Opts.Trace = &OS;
  SampleResult R = mustRun(*D, "divrem", Opts);
  EXPECT_TRUE(R.Passed) << R.Message;
  OS.flush();
  EXPECT_EQ(Trace.rfind("# sample divrem: kernel divrem", 0), 0u)
      << Trace.substr(0, 200);
  // One trace line per warp instruction follows the header.
  size_t Lines = std::count(Trace.begin(), Trace.end(), '\n');
  EXPECT_GE(Lines, R.Counters.get("warp_instructions"));
}

} // namespace
