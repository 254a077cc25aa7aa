//===- TraceProfileTest.cpp - LSU cost model and trace profiler ----------===//

#include "TraceProfile.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace tandem;
using namespace tandem::models;

namespace {

AcceleratorConfig config(unsigned MaxOutstanding = 16) {
  AcceleratorConfig C; // 8 lanes: 4 cycles per warp instruction
  C.Dram.MaxOutstanding = MaxOutstanding;
  return C;
}

std::vector<uint32_t> lines(unsigned N, uint32_t Base = 0x100000) {
  std::vector<uint32_t> L;
  for (unsigned I = 0; I < N; ++I)
    L.push_back(Base + 64 * I);
  return L;
}

} // namespace

TEST(LsuCostModel, OneMissIsLatencyPlusPipeline) {
  // issue 1 + AGU 4 + check 1, send at 6, ready 6 + 4 + 100 + 3 (the
  // response path) = 113, taken at 114, done 115, write-back 116: with the
  // warp's next issue, the 117 cycles the rtl's timeline shows.
  LsuCostModel M(config());
  LsuCost C = M.lines(true, false, lines(1), {}, false);
  EXPECT_DOUBLE_EQ(C.Cycles, 116);
  EXPECT_DOUBLE_EQ(C.DramChannelCycles, 4);
  // The same line again hits the L1: 6 + 1 hit + 1 + 1.
  EXPECT_DOUBLE_EQ(M.lines(true, false, lines(1), {}, false).Cycles, 9);
  EXPECT_EQ(M.memory().L1Hits, 1u);
  EXPECT_EQ(M.memory().L1Misses, 1u);
  M.startBlock(); // the L1 is invalidated at every block start
  EXPECT_GT(M.lines(true, false, lines(1), {}, false).Cycles, 100);
}

TEST(LsuCostModel, ScatteredLoadIsChannelBound) {
  // 32 lines back to back: the channel takes 4 cycles each, the last is
  // ready at 6 + 31 * 4 + 4 + 100.
  LsuCostModel M(config(64));
  LsuCost C = M.lines(true, false, lines(32), {}, false);
  EXPECT_DOUBLE_EQ(C.Cycles, 116 + 31 * 4);
  EXPECT_DOUBLE_EQ(C.DramChannelCycles, 128);
}

TEST(LsuCostModel, OutstandingLimitSerialisesRequests) {
  LsuCostModel Wide(config(64)), Narrow(config(4));
  double Free = Wide.lines(true, false, lines(16), {}, false).Cycles;
  double Limited = Narrow.lines(true, false, lines(16), {}, false).Cycles;
  // 16 requests, 4 in flight: four rounds of the 100-cycle latency.
  EXPECT_GT(Limited, 4 * 100);
  EXPECT_GT(Limited, Free + 200);
}

TEST(LsuCostModel, GlobalAtomicsAreLaneSerial) {
  LsuCostModel M(config());
  std::vector<uint32_t> Addrs(8, 0x2000);
  EXPECT_GT(M.globalAtomic(Addrs).Cycles, 8 * 100);
}

TEST(SharedRounds, ConflictsCostRounds) {
  std::vector<uint32_t> Unit, Stride8, Same;
  for (uint32_t L = 0; L < 32; ++L) {
    Unit.push_back(4 * L);
    Stride8.push_back(32 * L); // every lane of a sub-warp in bank 0
    Same.push_back(64);        // one word: a broadcast
  }
  EXPECT_EQ(sharedRounds(Unit, ~0u, 8, 8), 4u);
  EXPECT_EQ(sharedRounds(Stride8, ~0u, 8, 8), 32u);
  EXPECT_EQ(sharedRounds(Same, ~0u, 8, 8), 4u);
}

TEST(TraceProfiler, BuildsWarpsSegmentsAndLsuCosts) {
  TraceProfiler T(config());
  T << "# launch kernel=k grid=2,1,1 block=64,1,1\n"
    << "b=0 w=0 pc=0x0000 mask=ffffffff add r1, r2, r3 | r1=[0]\n"
    << "b=0 w=0 pc=0x0004 mask=ffffffff bar | wait\n"
    << "b=0 w=1 pc=0x0000 mask=ffffffff add r1, r2, r3 | r1=[0]\n"
    << "b=0 w=1 pc=0x0004 mask=ffffffff bar | wait\n"
    << "b=0 w=0 pc=0x0008 mask=00000001 ld.global.u32 r4, [r1 + 0] | r4=[1] a=[00100000]\n"
    << "b=0 w=0 pc=0x000c mask=ffffffff exit | exec=00000000 alive=00000000\n"
    << "b=0 w=1 pc=0x000c mask=ffffffff exit | exec=00000000 alive=00000000\n"
    << "b=1 w=0 pc=0x000c mask=ffffffff exit | exec=00000000 alive=00000000\n"
    << "garbage line\n";
  T.finish();
  ASSERT_EQ(T.launches().size(), 1u);
  const LaunchProfile &L = T.launches()[0];
  EXPECT_EQ(L.Kernel, "k");
  ASSERT_EQ(L.Blocks.size(), 2u);
  const BlockProfile &B = L.Blocks[0];
  ASSERT_EQ(B.Segments.size(), 2u);
  EXPECT_EQ(B.Barriers, 1u);
  ASSERT_EQ(B.Segments[0].Warps.size(), 2u);
  EXPECT_DOUBLE_EQ(B.Segments[0].Warps[0].Service[Datapath], 8); // add + bar
  EXPECT_DOUBLE_EQ(B.Segments[1].Warps[0].Service[Datapath], 4); // exit
  EXPECT_DOUBLE_EQ(B.Segments[1].Warps[0].Service[Lsu], 116);    // one miss
  EXPECT_DOUBLE_EQ(B.Segments[1].Warps[1].Service[Lsu], 0);
  EXPECT_EQ(L.WarpInstructions, 8u);
  EXPECT_EQ(T.malformedLines(), 1u);
}
