//===- MultiCoreTest.cpp - Several cores share the grid and the DRAM ------===//
//
// With `cores` N the rtl device runs N instances of the Verilated core in
// lock step: blocks go to the cores in linear order, each to the core that
// is free first, and the cores share the DRAM model's channels and their
// outstanding slots (docs/RTL.md, "Several cores"). These tests show:
// - every sample computes what iss computes, with every counter iss
//   reports and the same per-warp traces, on 4 cores, and also on 3 cores
//   under the `register` wait with 8 loads in flight and 2 channels;
// - every sample with at least 4 blocks takes fewer cycles on 4 cores than
//   on 1; the simt model's median |error| on them is under 5% and each is
//   within 20% (histogram_shared, the worst, -15.6%: its blocks end in a
//   burst of global atomics that the cores send at once, which queue
//   longer than the model's mean-value contention says; docs/Report.md);
// - each core's blocks get their own local memory: blocks running at once
//   store different values to the same local offset and read their own
//   back through DRAM (write-through local stores);
// - the timeline names the core of each block, and blocks beyond the first
//   wave go to the core that is free first;
// - a fault names the block and its core; a waveform with several cores is
//   refused with a message saying why.
// The differ's random programs run against iss on 4 cores as a ctest
// entry (tests/rtl/CMakeLists.txt).
//
//===----------------------------------------------------------------------===//

#include "Assembler.h"
#include "SamplesAsOnIss.h"

#include "tandem/Runtime.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <vector>

using namespace tandem;
using namespace llvm;

namespace {

AcceleratorConfig withCores(unsigned Cores) {
  AcceleratorConfig C;
  C.Name = formatv("cores-{0}", Cores).str();
  C.Cores = Cores;
  return C;
}

void expectSamplesAsOnIss(const AcceleratorConfig &C, StringRef What, uint64_t Seed) {
  std::string RtlTrace;
  raw_string_ostream RtlOS(RtlTrace);
  auto Rtl = rtltest::openRtlWith(C, &RtlOS);
  ASSERT_TRUE(Rtl);
  rtltest::expectEverySampleAsOnIss(*Rtl, RtlTrace, What, Seed);
}

TEST(RtlMultiCore, EverySampleComputesWhatIssComputesOnFourCores) {
  expectSamplesAsOnIss(withCores(4), "4 cores", 21);
}

TEST(RtlMultiCore, EverySampleComputesWhatIssComputesOnThreeCoresWithLoadsInFlight) {
  AcceleratorConfig C = withCores(3);
  C.MemWait = MemoryWait::Register;
  C.Lsu.InFlight = 8;
  C.Dram.Channels = 2;
  expectSamplesAsOnIss(C, "3 cores, register wait, in_flight 8", 22);
}

TEST(RtlMultiCore, SamplesWithFourBlocksOrMoreRunFasterAndAsModelled) {
  AcceleratorConfig One = withCores(1), Four = withCores(4);
  auto Rtl1 = rtltest::openRtlWith(One);
  auto Rtl4 = rtltest::openRtlWith(Four);
  ASSERT_TRUE(Rtl1 && Rtl4);
  std::string IssTrace;
  raw_string_ostream IssOS(IssTrace);
  DeviceOptions IO;
  IO.Trace = &IssOS;
  auto Iss = openDevice("iss", IO);
  ASSERT_TRUE(bool(Iss)) << toString(Iss.takeError());
  std::vector<double> Errors;
  for (const samples::SampleInfo &S : samples::sampleTable()) {
    samples::SampleOptions O;
    O.Seed = 23;
    IssTrace.clear();
    auto A = samples::runSample(**Iss, S.Name, O);
    auto B1 = samples::runSample(*Rtl1, S.Name, O);
    auto B4 = samples::runSample(*Rtl4, S.Name, O);
    ASSERT_TRUE(A && B1 && B4) << S.Name;
    if (B4->Grid.count() < 4)
      continue;
    double Cycles1 = double(B1->Counters.get("cycles"));
    double Cycles4 = double(B4->Counters.get("cycles"));
    EXPECT_LT(Cycles4, Cycles1) << S.Name << ": " << B4->Grid.count() << " blocks";
    double Predicted = rtltest::modelledCycles(IssTrace, Four);
    EXPECT_NEAR(Predicted, Cycles4, 0.20 * Cycles4)
        << S.Name << ": the simt model on 4 cores (1 core: " << Cycles1 << " cycles)";
    Errors.push_back(std::abs(Predicted / Cycles4 - 1));
  }
  ASSERT_GE(Errors.size(), 4u) << "samples with at least 4 blocks";
  llvm::sort(Errors);
  EXPECT_LT(Errors[Errors.size() / 2], 0.05) << "median |error| of the simt model on 4 cores";
}

// Each thread stores (block << 16 | thread) to local offset 0, then loads it
// back and writes it to out[block * 32 + thread]. Under write-through local
// stores the load misses the L1 and reads DRAM: blocks running at once on
// different cores would read each other's values if they shared local
// memory.
const char *LocalKernel = R"(
.kernel k
.param out ptr
.local 64
    s2r r1, %tid.x
    s2r r2, %ctaid.x
    shli r3, r2, 16
    add r3, r3, r1
    st.local.u32 [r0 + 0], r3
    ld.local.u32 r4, [r0 + 0]
    shli r5, r2, 5
    add r5, r5, r1
    shli r5, r5, 2
    ld.param.u32 r6, [r0 + @out]
    add r6, r6, r5
    st.global.u32 [r6], r4
    exit
)";

/// Runs the assembly kernel \p Source ("k", one parameter `out`, one word a
/// thread) on \p Blocks blocks of 32 threads under \p C, `out` poisoned
/// first. Returns the error text ("" on success) and fills \p Out.
std::string runBlocks(const AcceleratorConfig &C, const std::string &Source, unsigned Blocks,
                      std::vector<uint32_t> &Out, const std::string &TimelinePath = "") {
  DeviceOptions O;
  O.Config = C;
  O.TimelinePath = TimelinePath;
  auto D = openDevice("rtl", O);
  if (!D)
    return toString(D.takeError());
  auto Img = assemble(Source, "multi-core.s");
  if (!Img)
    return toString(Img.takeError());
  if (Error E = (*D)->loadImage(*Img))
    return toString(std::move(E));
  auto Buf = (*D)->alloc(Blocks * 32 * 4);
  if (!Buf)
    return toString(Buf.takeError());
  if (Error E = (*D)->write<uint32_t>(*Buf, std::vector<uint32_t>(Blocks * 32, 0xdeadbeefu)))
    return toString(std::move(E));
  LaunchParams P;
  P.Kernel = "k";
  P.Grid.X = Blocks;
  P.Block.X = 32;
  P.Args = {KernelArg::ptr(*Buf)};
  if (Error E = (*D)->launch(P))
    return toString(std::move(E));
  Out.resize(Blocks * 32);
  if (Error E = (*D)->read<uint32_t>(Out, *Buf))
    return toString(std::move(E));
  return "";
}

TEST(RtlMultiCore, EachCoresBlocksHaveTheirOwnLocalMemory) {
  AcceleratorConfig C = withCores(4);
  C.L1.LocalWrites = LocalWritePolicy::WriteThrough;
  constexpr unsigned Blocks = 8;
  std::vector<uint32_t> Out;
  ASSERT_EQ(runBlocks(C, LocalKernel, Blocks, Out), "");
  for (unsigned B = 0; B < Blocks; ++B)
    for (unsigned T = 0; T < 32; ++T)
      EXPECT_EQ(Out[B * 32 + T], (B << 16) | T) << "block " << B << " thread " << T;
}

TEST(RtlMultiCore, TimelineNamesEachBlocksCore) {
  AcceleratorConfig C = withCores(4);
  SmallString<128> Path;
  ASSERT_FALSE(sys::fs::createTemporaryFile("multi-core-timeline", "json", Path));
  constexpr unsigned Blocks = 6;
  std::vector<uint32_t> Out;
  ASSERT_EQ(runBlocks(C, LocalKernel, Blocks, Out, std::string(Path)), "");
  auto Text = MemoryBuffer::getFile(Path);
  sys::fs::remove(Path);
  ASSERT_TRUE(bool(Text));
  Expected<json::Value> J = json::parse((*Text)->getBuffer());
  ASSERT_TRUE(bool(J)) << toString(J.takeError());
  std::map<int64_t, std::string> ProcessName;
  for (const json::Value &E : *J->getAsObject()->getArray("traceEvents")) {
    const json::Object &O = *E.getAsObject();
    if (O.getString("name") == "process_name")
      ProcessName[*O.getInteger("pid")] = O.getObject("args")->getString("name")->str();
  }
  ASSERT_EQ(ProcessName.size(), Blocks);
  // The first wave: block I on core I. The identical blocks finish in core
  // order, so the next two go to cores 0 and 1.
  for (unsigned B = 0; B < Blocks; ++B)
    EXPECT_EQ(ProcessName[B], formatv("block ({0},0,0) on core {1}", B, B % 4).str());
}

// Block 1 stores 4 KiB past its buffer.
const char *FaultKernel = R"(
.kernel k
.param out ptr
    s2r r1, %tid.x
    s2r r2, %ctaid.x
    shli r2, r2, 12
    shli r1, r1, 2
    add r1, r1, r2
    ld.param.u32 r6, [r0 + @out]
    add r6, r6, r1
    st.global.u32 [r6], r1
    exit
)";

TEST(RtlMultiCore, FaultNamesTheBlockAndItsCore) {
  std::vector<uint32_t> Out;
  std::string Error = runBlocks(withCores(2), FaultKernel, 2, Out);
  EXPECT_NE(Error.find("kernel 'k': block (1,0,0) on core 1 warp 0 lane 0 pc "), std::string::npos)
      << Error;
  EXPECT_NE(Error.find("out-of-bounds global store"), std::string::npos) << Error;
}

TEST(RtlMultiCore, WaveformOfSeveralCoresIsRefused) {
  DeviceOptions O;
  O.Config = withCores(2);
  O.WaveformPath = "never-written.vcd";
  auto D = openDevice("rtl", O);
  ASSERT_FALSE(bool(D));
  EXPECT_EQ(toString(D.takeError()),
            "device 'rtl': a waveform of configuration 'cores-2' with 2 cores is not built yet "
            "(each core is its own Verilated model and writes its own VCD); the timeline and the "
            "trace cover every core, or use a 1-core configuration for the waveform");
  EXPECT_FALSE(sys::fs::exists("never-written.vcd"));
}

} // namespace
