//===- LsuInFlightTest.cpp - Several memory instructions in the LSU at once ===//
//
// The configuration's `lsu.in_flight` is an input the core latches at each
// block start: with N above 1 a load whose line requests are all sent waits
// for its responses in one of the LSU's slots while the LSU takes the next
// memory instruction, so up to N are in flight (docs/RTL.md, "Load/store
// unit"). These tests show:
// - every sample computes what iss computes, with every counter iss
//   reports and the same per-warp traces, at in_flight 4 under both memory
//   waits (a warp's loads may then write back out of program order), and
//   at the most the default build holds (lsu.max_in_flight, 8);
// - loads of different warps overlap: four warps' misses cost little more
//   than one, where in_flight 1 serves them one after another;
// - a load miss on a line another warp's load is still fetching merges onto
//   that fill instead of sending a request of its own;
// - a store to a line whose fill is still in flight keeps the fill out of
//   the L1 (the response predates the store), so a later load never sees
//   the old bytes;
// - the simt model, fed the iss trace, predicts the rtl's cycles within
//   1% on every sample at those settings (docs/Report.md says where it is
//   not exact).
// The differ's random programs run against iss at in_flight 4 and 8 as
// ctest entries (tests/rtl/CMakeLists.txt, configs/lsu-in-flight-*.json).
//
//===----------------------------------------------------------------------===//

#include "SamplesAsOnIss.h"

#include "tandem/Runtime.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

using namespace tandem;
using namespace llvm;

namespace {

AcceleratorConfig configWith(unsigned InFlight, MemoryWait Wait) {
  AcceleratorConfig C;
  C.Lsu.InFlight = InFlight;
  C.MemWait = Wait;
  return C;
}

void expectSamplesAsOnIss(unsigned InFlight, MemoryWait Wait) {
  AcceleratorConfig C = configWith(InFlight, Wait);
  std::string RtlTrace;
  raw_string_ostream RtlOS(RtlTrace);
  auto Rtl = rtltest::openRtlWith(C, &RtlOS);
  ASSERT_TRUE(Rtl);
  rtltest::expectEverySampleAsOnIss(
      *Rtl, RtlTrace,
      formatv("lsu.in_flight {0}, memory_wait {1}", InFlight, memoryWaitName(Wait)).str(), 9,
      [&](StringRef Sample, const std::string &IssTrace, const samples::SampleResult &OnRtl) {
        double Measured = double(OnRtl.Counters.get("cycles"));
        EXPECT_NEAR(rtltest::modelledCycles(IssTrace, C), Measured, std::max(1.0, 0.01 * Measured))
            << Sample.str() << ": the simt model at lsu.in_flight " << InFlight;
      });
}

TEST(RtlLsuInFlight, EverySampleComputesWhatIssComputes) {
  expectSamplesAsOnIss(4, MemoryWait::Instruction);
}

TEST(RtlLsuInFlight, EverySampleComputesWhatIssComputesUnderRegisterWait) {
  expectSamplesAsOnIss(4, MemoryWait::Register);
}

TEST(RtlLsuInFlight, EverySampleComputesWhatIssComputesAtTheMostTheBuildHolds) {
  expectSamplesAsOnIss(AcceleratorConfig().Lsu.MaxInFlight, MemoryWait::Register);
}

// Each thread loads its own word (every warp its own two lines, all
// misses) and stores it: out[t] = a[t].
const char *CopyKernel = R"(
.kernel k
.param a ptr
.param out ptr
    s2r r1, %tid.x
    shli r1, r1, 2
    ld.param.u32 r3, [r0 + @a]
    add r3, r3, r1
    ld.param.u32 r4, [r0 + @out]
    add r4, r4, r1
    ld.global.u32 r5, [r3 + 0]
    st.global.u32 [r4 + 0], r5
    exit
)";

// Four warps' loads miss at once. At in_flight 1 the LSU serves them one
// after another, each a DRAM round trip; at in_flight 4 they wait for their
// responses together: the copy takes less than half the cycles, and the
// model predicts both.
TEST(RtlLsuInFlight, LoadsOfDifferentWarpsOverlap) {
  std::vector<uint32_t> In = rtltest::randomWords(128, 5);
  std::vector<uint32_t> One, Four;
  uint64_t Serial =
      rtltest::runAsmKernel(configWith(1, MemoryWait::Instruction), CopyKernel, 128, In, One);
  uint64_t Overlapped =
      rtltest::runAsmKernel(configWith(4, MemoryWait::Instruction), CopyKernel, 128, In, Four);
  ASSERT_GT(Serial, 0u);
  ASSERT_GT(Overlapped, 0u);
  EXPECT_EQ(One, In);
  EXPECT_EQ(Four, In);
  EXPECT_LT(2 * Overlapped, Serial) << "in_flight 1: " << Serial << ", 4: " << Overlapped;
}

// One warp under the `register` wait: a load of its line (a miss, whose
// fill reserves a way), then a store of new words to the same line while
// that fill is in flight, then a load of the line that issues only after
// the first load wrote back (its address depends on the loaded register).
// The fill carries the bytes from before the store, so it must not enter
// the L1: the last load reads the stored words (a stale fill would hit and
// return the old ones).
TEST(RtlLsuInFlight, AStoreKeepsAnOlderFillOutOfTheL1) {
  const char *Kernel = R"(
.kernel k
.param a ptr
.param out ptr
    s2r r1, %tid.x
    shli r2, r1, 2
    ld.param.u32 r3, [r0 + @a]
    add r3, r3, r2
    ld.param.u32 r4, [r0 + @out]
    add r4, r4, r2
    addi r6, r1, 1000
    ld.global.u32 r7, [r3 + 0]
    st.global.u32 [r3 + 0], r6
    andi r8, r7, 0
    add r9, r3, r8
    ld.global.u32 r10, [r9 + 0]
    st.global.u32 [r4 + 0], r10
    exit
)";
  std::vector<uint32_t> In = rtltest::randomWords(32, 7);
  std::vector<uint32_t> Expected(32);
  for (unsigned T = 0; T < 32; ++T)
    Expected[T] = T + 1000;
  for (unsigned InFlight : {1u, 2u, 4u}) {
    std::vector<uint32_t> Out;
    uint64_t Cycles =
        rtltest::runAsmKernel(configWith(InFlight, MemoryWait::Register), Kernel, 32, In, Out);
    ASSERT_GT(Cycles, 0u);
    EXPECT_EQ(Out, Expected) << "in_flight " << InFlight;
  }
}

// Two warps load the same 32 words (two lines): out[t] = a[t % 32]. At
// in_flight 4 the second warp's load misses while the first's fills are in
// flight and merges onto them: two read requests in all, where sending its
// own would make four; every load line still counts as a miss. At
// in_flight 1 the second warp hits the filled lines.
TEST(RtlLsuInFlight, AMissOnALineBeingFilledMergesOntoTheFill) {
  const char *Kernel = R"(
.kernel k
.param a ptr
.param out ptr
    s2r r1, %tid.x
    andi r2, r1, 31
    shli r2, r2, 2
    ld.param.u32 r3, [r0 + @a]
    add r3, r3, r2
    shli r1, r1, 2
    ld.param.u32 r4, [r0 + @out]
    add r4, r4, r1
    ld.global.u32 r5, [r3 + 0]
    st.global.u32 [r4 + 0], r5
    exit
)";
  std::vector<uint32_t> In = rtltest::randomWords(32, 3);
  std::vector<uint32_t> Expected(64);
  for (unsigned T = 0; T < 64; ++T)
    Expected[T] = In[T % 32];
  Counters Merged, Serial;
  std::vector<uint32_t> Out;
  ASSERT_GT(
      rtltest::runAsmKernel(configWith(4, MemoryWait::Instruction), Kernel, 64, In, Out, &Merged),
      0u);
  EXPECT_EQ(Out, Expected);
  EXPECT_EQ(Merged.get("dram_read_bytes"), 2u * 64);
  EXPECT_EQ(Merged.get("l1_misses"), 4u);
  EXPECT_EQ(Merged.get("l1_hits"), 0u);
  ASSERT_GT(
      rtltest::runAsmKernel(configWith(1, MemoryWait::Instruction), Kernel, 64, In, Out, &Serial),
      0u);
  EXPECT_EQ(Out, Expected);
  EXPECT_EQ(Serial.get("dram_read_bytes"), 2u * 64);
  EXPECT_EQ(Serial.get("l1_misses"), 2u);
  EXPECT_EQ(Serial.get("l1_hits"), 2u);
}

TEST(RtlLsuInFlight, AnInFlightCountTheCoreIsNotBuiltForIsAnError) {
  AcceleratorConfig C;
  C.Lsu.InFlight = C.Lsu.MaxInFlight + 1;
  DeviceOptions O;
  O.Config = C;
  auto D = openDevice("rtl", O);
  ASSERT_FALSE(bool(D));
  EXPECT_EQ(toString(D.takeError()),
            "device 'rtl': lsu.in_flight: 9 is more than lsu.max_in_flight (8), the most the "
            "core is built to hold; raise max_in_flight (another Verilated model) or use at "
            "most 8");
}

} // namespace
