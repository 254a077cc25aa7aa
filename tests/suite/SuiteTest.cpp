//===- SuiteTest.cpp - The CUDA C kernel suite on iss and rtl -------------===//
//
// Every suite case (microbench/Suite.h) is compiled once from its .cu file
// (simt, -O2, the default configuration's register count) and run on iss
// and on rtl: both must match the CPU reference, and the two devices must
// agree exactly on every output word and on every counter iss reports
// (warp_instructions, thread_instructions, bytes by space, atomics, ...).
// The spill case is also compiled at 16 and 32 registers: the compiler's
// report must show spill bytes, and the results must still be right.
//
// The harness tests (SuiteHarness.*) need no compiler: they check that
// every case's problem is well formed and deterministic, and that the checks
// catch wrong results (skipped launches leave poison, a flipped bit) using
// the hand-written vadd sample, whose signature matches vadd.cu.
//
//===----------------------------------------------------------------------===//

#include "Samples.h"
#include "Suite.h"

#include "ISA.h"
#include "tandem/Config.h"
#include "tandem/Runtime.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>

using namespace tandem;
using namespace tandem::suite;
using namespace llvm;

namespace {

const AcceleratorConfig &config() {
  static const AcceleratorConfig C = [] {
    Expected<AcceleratorConfig> Loaded = loadConfig(defaultConfigPath());
    if (!Loaded) {
      ADD_FAILURE() << toString(Loaded.takeError());
      return AcceleratorConfig();
    }
    return *Loaded;
  }();
  return C;
}

RunOptions runOptions() {
  RunOptions O;
  O.Limit = Limits::of(config());
  return O;
}

std::unique_ptr<Device> open(StringRef Name) {
  DeviceOptions O;
  O.Config = config();
  Expected<std::unique_ptr<Device>> D = openDevice(Name, O);
  if (!D) {
    ADD_FAILURE() << "opening " << Name.str() << ": " << toString(D.takeError());
    return nullptr;
  }
  return std::move(*D);
}

/// A compilation, or why it failed.
struct Compiled {
  std::optional<compiler::CompileResult> Result;
  std::string Error;
};

/// Each (source, register count) is compiled once per test binary run: the
/// spmv cases share spmv.cu, and the spill test reuses the default one.
const Compiled &compiled(const SuiteCase &C, unsigned NumRegisters) {
  static std::map<std::pair<std::string, unsigned>, Compiled> Cache;
  auto [It, Inserted] = Cache.try_emplace({C.Source, NumRegisters});
  if (Inserted) {
    AcceleratorConfig Config;
    Config.Registers = NumRegisters;
    Expected<compiler::CompileResult> R = compileCase(C, compiler::optionsFor(Config));
    if (!R)
      It->second.Error = toString(R.takeError());
    else if (!R->Image)
      It->second.Error = "compileFile returned no image for --emit obj";
    else
      It->second.Result = std::move(*R);
  }
  return It->second;
}

/// The compiler's report for the kernels \p C launches.
std::vector<const compiler::KernelReport *> reportsOf(const SuiteCase &C,
                                                      const compiler::CompileResult &R) {
  std::vector<const compiler::KernelReport *> Out;
  for (const Launch &La : C.makeProblem(runOptions()).Launches)
    for (const compiler::KernelReport &K : R.Kernels)
      if (K.Name == La.Kernel && !llvm::is_contained(Out, &K))
        Out.push_back(&K);
  return Out;
}

std::string countersSummary(const Counters &C) {
  return formatv("warp_instr={0} thread_instr={1} lanes={2}% gld={3}B gst={4}B "
                 "shared={5}B local={6}B atomics={7} barriers={8} divergent={9}",
                 C.get("warp_instructions"), C.get("thread_instructions"),
                 C.get("active_lane_pct_x100") / 100.0, C.get("global_load_bytes"),
                 C.get("global_store_bytes"),
                 C.get("shared_load_bytes") + C.get("shared_store_bytes"),
                 C.get("local_load_bytes") + C.get("local_store_bytes"),
                 C.get("atomics_global") + C.get("atomics_shared"), C.get("barriers"),
                 C.get("divergent_branches"))
      .str();
}

/// Runs \p C from \p Img on \p DeviceName; a device error fails the test.
std::optional<SuiteResult> runOn(StringRef DeviceName, const SuiteCase &C,
                                 const KernelImage &Img, const RunOptions &Opts) {
  std::unique_ptr<Device> D = open(DeviceName);
  if (!D)
    return std::nullopt;
  SuiteResult R;
  if (Error E = C.run(*D, Img, R, Opts)) {
    ADD_FAILURE() << toString(std::move(E));
    return std::nullopt;
  }
  return R;
}

/// The first word where iss and rtl differ, or "".
std::string firstOutputDifference(const SuiteResult &A, const SuiteResult &B) {
  if (A.Outputs.size() != B.Outputs.size())
    return "different numbers of outputs";
  for (size_t O = 0; O < A.Outputs.size(); ++O) {
    if (A.Outputs[O].size() != B.Outputs[O].size())
      return formatv("output {0}: different sizes", O).str();
    for (size_t I = 0; I < A.Outputs[O].size(); ++I)
      if (A.Outputs[O][I] != B.Outputs[O][I])
        return formatv("output {0}, word {1}: iss {2:x8}, rtl {3:x8}", O, I, A.Outputs[O][I],
                       B.Outputs[O][I])
            .str();
  }
  return "";
}

/// Every counter iss reports has the same value on rtl.
void expectSameCounters(const Counters &Iss, const Counters &Rtl, StringRef Where) {
  for (const auto &[Name, V] : Iss.Values) {
    EXPECT_TRUE(Rtl.has(Name)) << Where.str() << ": rtl does not report " << Name;
    EXPECT_EQ(V, Rtl.get(Name)) << Where.str() << ": counter " << Name << " differs";
  }
}

/// Both devices pass the reference and agree exactly; prints a summary.
/// Returns the iss result (none if a device failed).
std::optional<SuiteResult> runOnBothAndCompare(const SuiteCase &C, const KernelImage &Img, StringRef Label) {
  RunOptions Opts = runOptions();
  std::optional<SuiteResult> Iss = runOn("iss", C, Img, Opts);
  std::optional<SuiteResult> Rtl = runOn("rtl", C, Img, Opts);
  if (Iss) {
    EXPECT_TRUE(Iss->Passed) << C.Name << " on iss: " << Iss->Message;
  }
  if (Rtl) {
    EXPECT_TRUE(Rtl->Passed) << C.Name << " on rtl: " << Rtl->Message;
  }
  if (!Iss || !Rtl)
    return std::nullopt;
  EXPECT_GT(Iss->Total.get("warp_instructions"), 0u) << C.Name << ": nothing ran on iss";
  EXPECT_EQ(firstOutputDifference(*Iss, *Rtl), "") << C.Name << ": iss and rtl disagree";
  EXPECT_EQ(Iss->PerLaunch.size(), Rtl->PerLaunch.size());
  for (size_t L = 0; L < std::min(Iss->PerLaunch.size(), Rtl->PerLaunch.size()); ++L)
    expectSameCounters(Iss->PerLaunch[L], Rtl->PerLaunch[L],
                       formatv("{0} launch {1}", C.Name, L + 1).str());
  outs() << formatv("[suite] {0} ({1}): {2}\n", C.Name, Label, Iss->Size)
         << formatv("[suite]   max rel error {0:e}; iss {1:f3}s, rtl {2:f3}s, rtl cycles {3}\n",
                    Iss->MaxRelError, Iss->Seconds, Rtl->Seconds, Rtl->Total.get("cycles"))
         << "[suite]   " << countersSummary(Iss->Total) << "\n";
  outs().flush();
  return Iss;
}

void printCompileReport(const SuiteCase &C, const compiler::CompileResult &R, unsigned Regs) {
  for (const compiler::KernelReport *K : reportsOf(C, R))
    outs() << formatv("[suite] {0}: kernel {1} at {2} registers: {3} used, {4} spill bytes, "
                      "{5} instructions\n",
                      C.Name, K->Name, Regs, K->RegistersUsed, K->SpillBytes, K->Instructions);
  outs().flush();
}

// Tests are parameterized by case name, so ctest lists `GetParam() = "vadd"`.
std::vector<std::string> allCases() {
  std::vector<std::string> Out;
  for (const SuiteCase &C : suiteCases())
    Out.push_back(C.Name);
  return Out;
}

std::vector<std::string> spillCases() {
  std::vector<std::string> Out;
  for (const SuiteCase &C : suiteCases())
    if (C.MustSpill)
      Out.push_back(C.Name);
  return Out;
}

std::string caseName(const testing::TestParamInfo<std::string> &Info) { return Info.param; }

//===--- End to end: compile, run on iss and rtl --------------------------===//

class SuiteCaseTest : public testing::TestWithParam<std::string> {};

TEST_P(SuiteCaseTest, MatchesReferenceOnIssAndRtl) {
  const SuiteCase &C = *findCase(GetParam());
  const Compiled &Comp = compiled(C, config().Registers);
  ASSERT_TRUE(Comp.Result) << "compiling " << C.sourcePath() << ": " << Comp.Error;
  printCompileReport(C, *Comp.Result, config().Registers);
  ASSERT_FALSE(reportsOf(C, *Comp.Result).empty())
      << "the compiler's report names none of the kernels " << C.Name << " launches";
  runOnBothAndCompare(C, *Comp.Result->Image, formatv("{0} registers", config().Registers).str());
}

INSTANTIATE_TEST_SUITE_P(Suite, SuiteCaseTest, testing::ValuesIn(allCases()), caseName);

class SuiteSpillTest : public testing::TestWithParam<std::string> {};

TEST_P(SuiteSpillTest, SpillsAt16And32RegistersAndStaysCorrect) {
  const SuiteCase &C = *findCase(GetParam());
  for (unsigned Regs : {16u, 32u}) {
    SCOPED_TRACE(formatv("{0} registers", Regs).str());
    const Compiled &Comp = compiled(C, Regs);
    ASSERT_TRUE(Comp.Result) << "compiling " << C.sourcePath() << ": " << Comp.Error;
    printCompileReport(C, *Comp.Result, Regs);
    std::vector<const compiler::KernelReport *> Reports = reportsOf(C, *Comp.Result);
    ASSERT_FALSE(Reports.empty());
    for (const compiler::KernelReport *K : Reports) {
      EXPECT_GT(K->SpillBytes, 0u) << K->Name << " did not spill at " << Regs << " registers";
      EXPECT_LE(K->RegistersUsed, Regs) << K->Name;
      const KernelInfo *Info = Comp.Result->Image->findKernel(K->Name);
      ASSERT_NE(Info, nullptr) << K->Name << " is reported but not in the image";
      EXPECT_LE(Info->RegistersUsed, Regs) << K->Name;
      EXPECT_GT(Info->LocalBytes, 0u) << K->Name << ": spills need per-thread local memory";
    }
    // The devices run the default configuration: a kernel allocated for
    // fewer registers fits it.
    std::optional<SuiteResult> Iss =
        runOnBothAndCompare(C, *Comp.Result->Image, formatv("{0} registers", Regs).str());
    if (Iss) {
      EXPECT_GT(Iss->Total.get("local_load_bytes"), 0u) << "the spilled code reloads nothing";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Suite, SuiteSpillTest, testing::ValuesIn(spillCases()), caseName);

/// Instruction words of \p Img with major opcode \p Op.
size_t countOpcode(const KernelImage &Img, simt::Opcode Op) {
  unsigned Encoding = simt::getDesc(Op).Encoding;
  return llvm::count_if(Img.Code, [&](uint32_t Word) { return Word >> 24 == Encoding; });
}

class SuiteMaskSpillTest : public testing::TestWithParam<std::string> {};

// At 8 registers the nested divergent regions of these cases keep more
// saved exec masks live than fit, so the allocator spills masks with the
// all-lanes local accesses (a lane-masked reload could miss lane 0, which
// emask.set reads). Before those existed, both cases failed to compile.
TEST_P(SuiteMaskSpillTest, SpillsExecMasksAt8RegistersAndStaysCorrect) {
  const SuiteCase *Case = findCase(GetParam());
  ASSERT_NE(Case, nullptr) << "no suite case " << GetParam();
  const SuiteCase &C = *Case;
  constexpr unsigned Regs = 8;
  const Compiled &Comp = compiled(C, Regs);
  ASSERT_TRUE(Comp.Result) << "compiling " << C.sourcePath() << ": " << Comp.Error;
  printCompileReport(C, *Comp.Result, Regs);
  const KernelImage &Img = *Comp.Result->Image;
  EXPECT_GT(countOpcode(Img, simt::Opcode::LOCAL_ST_ALL_U32), 0u) << "no exec mask was spilled";
  EXPECT_GT(countOpcode(Img, simt::Opcode::LOCAL_LD_ALL_U32), 0u) << "no exec mask was reloaded";
  for (const compiler::KernelReport *K : reportsOf(C, *Comp.Result))
    EXPECT_LE(K->RegistersUsed, Regs) << K->Name;
  runOnBothAndCompare(C, Img, formatv("{0} registers", Regs).str());
}

INSTANTIATE_TEST_SUITE_P(Suite, SuiteMaskSpillTest, testing::Values("divergent", "spmv_balanced"),
                         caseName);

class SuiteFewRegistersTest : public testing::TestWithParam<std::string> {};

// 4 registers (r0 and three more) is the smallest count every suite kernel
// compiles at (docs/NOTES.md): nearly every value, exec masks included,
// lives in a spill slot. The results must still match the CPU reference.
// iss only (milliseconds a case); rtl agrees with iss on spilled code in
// SuiteSpillTest and SuiteMaskSpillTest.
TEST_P(SuiteFewRegistersTest, EveryCaseAt4RegistersMatchesTheReferenceOnIss) {
  const SuiteCase *Case = findCase(GetParam());
  ASSERT_NE(Case, nullptr) << "no suite case " << GetParam();
  constexpr unsigned Regs = 4;
  const Compiled &Comp = compiled(*Case, Regs);
  ASSERT_TRUE(Comp.Result) << "compiling " << Case->sourcePath() << ": " << Comp.Error;
  for (const compiler::KernelReport *K : reportsOf(*Case, *Comp.Result))
    EXPECT_LE(K->RegistersUsed, Regs) << K->Name;
  std::optional<SuiteResult> Iss = runOn("iss", *Case, *Comp.Result->Image, runOptions());
  ASSERT_TRUE(Iss);
  EXPECT_TRUE(Iss->Passed) << Case->Name << " at 4 registers on iss: " << Iss->Message;
  EXPECT_GT(Iss->Total.get("local_load_bytes"), 0u) << "nothing was spilled at 4 registers";
}

INSTANTIATE_TEST_SUITE_P(Suite, SuiteFewRegistersTest, testing::ValuesIn(allCases()), caseName);

//===--- The harness itself (no compiler needed) --------------------------===//

bool allZero(ArrayRef<uint32_t> Words) {
  return llvm::all_of(Words, [](uint32_t W) { return W == 0; });
}

TEST(SuiteHarness, EveryCaseHasAWellFormedDeterministicProblem) {
  ASSERT_GE(suiteCases().size(), 15u);
  ASSERT_EQ(spillCases().size(), 1u);
  RunOptions Opts = runOptions();
  for (const SuiteCase &C : suiteCases()) {
    SCOPED_TRACE(C.Name);
    EXPECT_EQ(findCase(C.Name), &C) << "duplicate case name";
    Problem P = C.makeProblem(Opts);
    ASSERT_FALSE(P.Launches.empty());
    ASSERT_FALSE(P.Checks.empty());

    // The same seed gives the same problem; another seed other inputs.
    Problem Again = C.makeProblem(Opts);
    RunOptions Other = Opts;
    Other.Seed = 2;
    Problem Reseeded = C.makeProblem(Other);
    bool AnyInputDiffers = false;
    for (size_t B = 0; B < P.Buffers.size(); ++B) {
      const Buffer &Buf = P.Buffers[B];
      EXPECT_EQ(Buf.Data, Again.Buffers[B].Data) << Buf.Name << " is not deterministic";
      if (Buf.R == Role::Out) {
        EXPECT_TRUE(llvm::all_of(Buf.Data, [](uint32_t W) { return W == PoisonWord; }))
            << Buf.Name << " is not poisoned";
        continue;
      }
      EXPECT_FALSE(allZero(Buf.Data)) << "input " << Buf.Name << " is all zeros";
      AnyInputDiffers |= Buf.Data != Reseeded.Buffers[B].Data;
    }
    EXPECT_TRUE(AnyInputDiffers) << "the seed does not change the inputs";

    // Every output is checked against something that is not poison.
    for (unsigned B = 0; B < P.Buffers.size(); ++B)
      if (P.Buffers[B].R != Role::In) {
        EXPECT_TRUE(llvm::any_of(P.Checks, [&](const Check &Ch) { return Ch.BufferIndex == B; }))
            << P.Buffers[B].Name << " has no check";
      }
    for (const Check &Ch : P.Checks) {
      EXPECT_EQ(Ch.Want.size(), P.Buffers[Ch.BufferIndex].Data.size());
      EXPECT_FALSE(llvm::is_contained(Ch.Want, PoisonWord))
          << "an expected value equals the poison word";
    }

    // Launches fit the default configuration, and the source defines every
    // kernel launched (so the table and the .cu files cannot drift apart).
    ErrorOr<std::unique_ptr<MemoryBuffer>> Src = MemoryBuffer::getFile(C.sourcePath());
    ASSERT_TRUE(bool(Src)) << C.sourcePath() << ": " << Src.getError().message();
    for (const Launch &La : P.Launches) {
      EXPECT_LE(La.Block.count(), config().maxThreadsPerBlock()) << La.Kernel;
      EXPECT_GT(La.Grid.count(), 0u) << La.Kernel;
      EXPECT_TRUE((*Src)->getBuffer().contains("__global__ void " + La.Kernel + "("))
          << C.sourcePath() << " does not define kernel " << La.Kernel;
      for (const Arg &A : La.Args)
        if (A.K == Arg::Kind::Buffer) {
          EXPECT_LT(A.BufferIndex, P.Buffers.size());
        }
    }
  }
}

/// samples/asm/vadd.s has vadd.cu's signature (a, b, c, n): the harness can
/// be checked on both devices before the compiler exists.
std::optional<KernelImage> handWrittenVadd() {
  Expected<KernelImage> Img = samples::assembleSampleFile("vadd.s");
  if (!Img) {
    ADD_FAILURE() << toString(Img.takeError());
    return std::nullopt;
  }
  return std::move(*Img);
}

TEST(SuiteHarness, HandWrittenVaddPassesOnIssAndRtl) {
  std::optional<KernelImage> Img = handWrittenVadd();
  ASSERT_TRUE(Img);
  runOnBothAndCompare(*findCase("vadd"), *Img, "samples/asm/vadd.s");
}

TEST(SuiteHarness, AnOutputLeftPoisonedFails) {
  std::optional<KernelImage> Img = handWrittenVadd();
  ASSERT_TRUE(Img);
  RunOptions Opts = runOptions();
  Opts.Fault = Sabotage::SkipLaunch;
  std::optional<SuiteResult> R = runOn("iss", *findCase("vadd"), *Img, Opts);
  ASSERT_TRUE(R);
  EXPECT_FALSE(R->Passed);
  EXPECT_NE(R->Message.find("[poison: never written]"), std::string::npos) << R->Message;
}

TEST(SuiteHarness, AFlippedBitFailsEvenUnderATolerance) {
  std::optional<KernelImage> Img = handWrittenVadd();
  ASSERT_TRUE(Img);
  RunOptions Opts = runOptions();
  Opts.Fault = Sabotage::CorruptOutput;
  std::optional<SuiteResult> R = runOn("iss", *findCase("vadd"), *Img, Opts);
  ASSERT_TRUE(R);
  EXPECT_FALSE(R->Passed);
  EXPECT_EQ(R->Mismatches, 1u) << R->Message;
}

TEST(SuiteHarness, ConstantsTheHostDidNotWriteFailConstConv) {
  // const_conv's coefficients, gain and bias are drawn by the host and
  // written by name (copyToSymbol) before the launch, away from the
  // source's initializers: without the writes the check must fail, so its
  // passing run shows that host writes to __constant__ memory arrive.
  const SuiteCase &C = *findCase("const_conv");
  ASSERT_FALSE(C.makeProblem(runOptions()).SymbolWrites.empty());
  const Compiled &Comp = compiled(C, 32);
  ASSERT_TRUE(Comp.Result) << Comp.Error;
  RunOptions Opts = runOptions();
  Opts.Fault = Sabotage::SkipSymbolWrites;
  std::optional<SuiteResult> R = runOn("iss", C, *Comp.Result->Image, Opts);
  ASSERT_TRUE(R);
  EXPECT_FALSE(R->Passed) << "const_conv passed with the source's own constants";
  R = runOn("iss", C, *Comp.Result->Image, runOptions());
  ASSERT_TRUE(R);
  EXPECT_TRUE(R->Passed) << R->Message;
}

TEST(SuiteHarness, AMissingKernelIsAnErrorNamingIt) {
  std::optional<KernelImage> Img = handWrittenVadd();
  ASSERT_TRUE(Img);
  std::unique_ptr<Device> D = open("iss");
  ASSERT_TRUE(D);
  SuiteResult R;
  Error E = findCase("saxpy")->run(*D, *Img, R, runOptions());
  ASSERT_TRUE(bool(E));
  std::string Msg = toString(std::move(E));
  EXPECT_NE(Msg.find("suite case 'saxpy' on iss"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("no kernel 'saxpy'"), std::string::npos) << Msg;
}

TEST(SuiteHarness, ABlockLargerThanTheConfigurationIsAnError) {
  std::optional<KernelImage> Img = handWrittenVadd();
  ASSERT_TRUE(Img);
  std::unique_ptr<Device> D = open("iss");
  ASSERT_TRUE(D);
  // gemm needs 16 x 16 blocks; pretend the device holds 128 threads.
  RunOptions Opts = runOptions();
  Opts.Limit.MaxThreadsPerBlock = 128;
  Problem P = findCase("sgemm_tiled")->makeProblem(Opts);
  SuiteResult R;
  Error E = runProblem(*D, P, "sgemm_tiled", R, Opts);
  ASSERT_TRUE(bool(E));
  std::string Msg = toString(std::move(E));
  EXPECT_NE(Msg.find("needs 256 threads per block"), std::string::npos) << Msg;
}

} // namespace
