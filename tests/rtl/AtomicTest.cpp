//===- AtomicTest.cpp - A warp's atomic lanes overlap on the rtl ----------===//
//
// A global atomic's lanes go out one request a cycle without waiting for
// each other's responses; the memory side performs them in request order,
// and each response's old word goes to the lowest lane sent to its address
// whose response is not in. A shared atomic's lanes on distinct banks are
// served together, one lane a bank a cycle (docs/RTL.md, "Load/store
// unit"). These tests show:
// - 32 lanes on one word get the old values in lane order, and the warp's
//   atomic costs less than two one-lane atomics (lane by lane, a DRAM round
//   trip each, it cost 32);
// - when the channels answer out of lane order (lane 0's word waits behind
//   a store burst on its channel, the others' channel is free), every lane
//   still gets its own word's old value;
// - 32 lanes on one shared word get the old values in lane order, one a
//   cycle (bank conflicts), and lanes on their own words (distinct banks)
//   are served a sub-warp a cycle.
// The simt model's cost of the same (LsuCostModel.GlobalAtomicLanes...) and
// the profile's throughput (tests/profile) are checked elsewhere.
//
//===----------------------------------------------------------------------===//

#include "SamplesAsOnIss.h"

#include <gtest/gtest.h>

#include <vector>

using namespace tandem;

namespace {

// out[t] = atomicAdd(&a[0], 1): lane t sees a[0] + t.
const char *ContendedKernel = R"(
.kernel k
.param a ptr
.param out ptr
    s2r r1, %tid.x
    shli r1, r1, 2
    ld.param.u32 r3, [r0 + @a]
    ld.param.u32 r4, [r0 + @out]
    add r4, r4, r1
    li r5, 1
    atom.global.add r6, [r3], r5
    st.global.u32 [r4 + 0], r6
    exit
)";

TEST(RtlGlobalAtomic, OneWordsLanesApplyInLaneOrderAndOverlap) {
  AcceleratorConfig C;
  std::vector<uint32_t> In = rtltest::randomWords(32, 11, /*Bits=*/24), Out, One;
  uint64_t Warp = rtltest::runAsmKernel(C, ContendedKernel, 32, In, Out);
  uint64_t Lane = rtltest::runAsmKernel(C, ContendedKernel, 1, In, One);
  ASSERT_GT(Warp, 0u);
  ASSERT_GT(Lane, 0u);
  for (unsigned T = 0; T < 32; ++T)
    EXPECT_EQ(Out[T], In[0] + T) << "lane " << T;
  EXPECT_EQ(One[0], In[0]);
  EXPECT_LT(Warp, 2 * Lane) << "32 lanes: " << Warp << " cycles, one lane: " << Lane;
}

// Two DRAM channels (a line's channel is its index mod 2). Each lane first
// stores to its own line at a + 256 + 128 t: 32 lines on the channel of
// a's line, 128 cycles of it at 16 bytes a cycle. Then lane 0 adds to a[0]
// (that channel, behind the stores) and lanes 1..31 to a[16] (the other
// channel, free), so lane 0's response comes after the others'.
const char *ReorderedKernel = R"(
.kernel k
.param a ptr
.param out ptr
    s2r r1, %tid.x
    shli r2, r1, 2
    ld.param.u32 r3, [r0 + @a]
    ld.param.u32 r4, [r0 + @out]
    add r4, r4, r2
    shli r5, r1, 7
    add r5, r5, r3
    st.global.u32 [r5 + 256], r1
    addi r6, r1, 31
    shri r6, r6, 5
    shli r6, r6, 6
    add r6, r6, r3
    li r7, 1
    atom.global.add r8, [r6], r7
    st.global.u32 [r4 + 0], r8
    exit
)";

TEST(RtlGlobalAtomic, ResponsesOutOfLaneOrderReachTheirLanes) {
  AcceleratorConfig C;
  C.Dram.Channels = 2;
  C.Dram.MaxOutstanding = 64; // the stores never hold the atomic back
  std::vector<uint32_t> In = rtltest::randomWords(64 + 32 * 32, 13, /*Bits=*/24), Out;
  ASSERT_GT(rtltest::runAsmKernel(C, ReorderedKernel, 32, In, Out), 0u);
  EXPECT_EQ(Out[0], In[0]) << "lane 0, alone on a[0]";
  for (unsigned T = 1; T < 32; ++T)
    EXPECT_EQ(Out[T], In[16] + (T - 1)) << "lane " << T << " on a[16]";
}

// Each lane stores a[t] to shared word t, then adds 1 to word 0 (lanes on
// one word) or to word t (LANES lanes of a sub-warp on distinct banks).
std::string sharedAtomicKernel(bool OneWord) {
  return std::string(R"(
.kernel k
.shared 128
.param a ptr
.param out ptr
    s2r r1, %tid.x
    shli r2, r1, 2
    ld.param.u32 r3, [r0 + @a]
    add r3, r3, r2
    ld.param.u32 r4, [r0 + @out]
    add r4, r4, r2
    ld.global.u32 r5, [r3 + 0]
    st.shared.u32 [r2 + 0], r5
    li r6, 1
)") + (OneWord ? "    atom.shared.add r7, [r0], r6\n" : "    atom.shared.add r7, [r2], r6\n") +
         R"(    st.global.u32 [r4 + 0], r7
    exit
)";
}

TEST(RtlSharedAtomic, OneWordsLanesGoInLaneOrderDistinctBanksTogether) {
  AcceleratorConfig C; // 8 lanes, 8 banks: 4 sub-warps of 8 lanes
  std::vector<uint32_t> In = rtltest::randomWords(32, 17, /*Bits=*/24), OneWord, OwnWords;
  Counters Contended, Spread;
  uint64_t OneWordCycles =
      rtltest::runAsmKernel(C, sharedAtomicKernel(true), 32, In, OneWord, &Contended);
  uint64_t OwnWordCycles =
      rtltest::runAsmKernel(C, sharedAtomicKernel(false), 32, In, OwnWords, &Spread);
  ASSERT_GT(OneWordCycles, 0u);
  ASSERT_GT(OwnWordCycles, 0u);
  for (unsigned T = 0; T < 32; ++T) {
    EXPECT_EQ(OneWord[T], In[0] + T) << "lane " << T << " on word 0";
    EXPECT_EQ(OwnWords[T], In[T]) << "lane " << T << " on its own word";
  }
  // One word: each sub-warp's 8 lanes one a cycle, 7 extra cycles each.
  EXPECT_EQ(Contended.get("shared_bank_conflict_cycles"), 4u * 7);
  EXPECT_EQ(Spread.get("shared_bank_conflict_cycles"), 0u);
  EXPECT_EQ(OneWordCycles - OwnWordCycles, 4u * 7);
}

} // namespace
