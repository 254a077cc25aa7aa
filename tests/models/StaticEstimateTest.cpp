//===- StaticEstimateTest.cpp - The purely static profile, known answers -===//
//
// Small kernels in assembly whose dynamic counts are known by hand: a
// straight-line kernel, a counted loop, ifs on the thread index (known) and
// on loaded data (both sides run), and a CSR-like row loop whose trip
// counts come from a given row-length distribution.
//
//===----------------------------------------------------------------------===//

#include "StaticEstimate.h"
#include "StaticTestKernels.h"

#include <gtest/gtest.h>

#include <numeric>
#include <random>

using namespace tandem;
using namespace tandem::models;
using namespace tandem::models::testing;

namespace {

double totalDatapath(const LaunchProfile &P) {
  double D = 0;
  for (const BlockProfile &B : P.Blocks)
    for (const SegmentProfile &S : B.Segments)
      for (const WarpDemand &W : S.Warps)
        D += W.Service[Datapath];
  return D;
}

constexpr const char *StraightLine = R"(
.kernel straight
.param in ptr
.param out ptr
    s2r r1, %tid.x
    shli r2, r1, 2
    ld.param.u32 r3, [r0 + @in]
    add r3, r3, r2
    ld.global.u32 r4, [r3]
    addi r4, r4, 1
    ld.param.u32 r5, [r0 + @out]
    add r5, r5, r2
    st.global.u32 [r5], r4
    exit
)";

} // namespace

TEST(StaticEstimate, StraightLineKernelCountsEveryInstructionOncePerWarp) {
  AcceleratorConfig C;
  KernelImage Img = assembleOrDie(StraightLine);
  llvm::Expected<LaunchProfile> P =
      estimateLaunch(Img, launch("straight", 64, {0x100000, 0x200000}), C);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  EXPECT_EQ(P->WarpInstructions, 2u * 10);
  EXPECT_EQ(P->ThreadInstructions, 64u * 10);
  // 6 non-memory instructions per warp at 32/LANES cycles each.
  EXPECT_DOUBLE_EQ(totalDatapath(*P), 2 * 6 * double(C.cyclesPerWarpInstr()));
  // Each warp reads and writes 32 consecutive words: 128 bytes, known
  // addresses, so the coalescer sees exactly 128 / line lines.
  uint64_t Lines = 128 / C.L1.LineBytes;
  EXPECT_EQ(P->Memory.L1Misses, 2 * Lines);
  EXPECT_EQ(P->Memory.L1Hits, 0u);
  EXPECT_EQ(P->Memory.DramRequests, 2 * 2 * Lines);
  EXPECT_EQ(P->Memory.DramWriteBytes, 64u * 4);
}

TEST(StaticEstimate, CollectsRoundsOnlyWhenTheCostingAsks) {
  // `--model-rounds off` costs by windows: the static profile then builds
  // no rounds, and the windows' inputs are the same as with them.
  AcceleratorConfig C;
  KernelImage Img = assembleOrDie(StraightLine);
  StaticLaunch L = launch("straight", 64, {0x100000, 0x200000});
  llvm::Expected<LaunchProfile> Off = estimateLaunch(Img, L, C, {}, nullptr, false);
  llvm::Expected<LaunchProfile> On = estimateLaunch(Img, L, C, {}, nullptr, true);
  ASSERT_TRUE(bool(Off)) << llvm::toString(Off.takeError());
  ASSERT_TRUE(bool(On)) << llvm::toString(On.takeError());
  const SegmentProfile &A = Off->Blocks[0].Segments[0];
  const SegmentProfile &B = On->Blocks[0].Segments[0];
  EXPECT_TRUE(A.Steps.empty());
  EXPECT_FALSE(B.Steps.empty());
  EXPECT_EQ(A.Windows.size(), B.Windows.size());
  EXPECT_DOUBLE_EQ(totalDatapath(*Off), totalDatapath(*On));
  ModelParams Windows;
  Windows.CostInRounds = false;
  EXPECT_EQ(predictLaunch(*Off, Windows).Cycles, predictLaunch(*On, Windows).Cycles);
}

TEST(StaticEstimate, CountedLoopRunsItsTripCountFromTheLaunch) {
  AcceleratorConfig C;
  KernelImage Img = assembleOrDie(R"(
.kernel counted
.param n u32
    ld.param.u32 r1, [r0 + @n]
    movi r2, 0
loop:
    addi r2, r2, 1
    setlt r3, r2, r1
    bnz r3, loop
    exit
)");
  llvm::Expected<std::vector<MachineLoop>> Loops = findLoops(Img, "counted");
  ASSERT_TRUE(bool(Loops)) << llvm::toString(Loops.takeError());
  ASSERT_EQ(Loops->size(), 1u);
  EXPECT_EQ((*Loops)[0].Step, 1u);
  std::mt19937 Rng(7);
  for (int K = 0; K < 3; ++K) {
    uint32_t N = 2 + Rng() % 50;
    llvm::Expected<LaunchProfile> P = estimateLaunch(Img, launch("counted", 32, {N}), C);
    ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
    EXPECT_EQ(P->WarpInstructions, 2 + 3ull * N + 1) << "n = " << N;
  }
}

namespace {

constexpr const char *Branchy = R"(
.kernel branchy
.param in ptr
    s2r r1, %tid.x
    emask.get r7
    setltui r2, r1, 8
    emask.and r2
    bnone skip1
    addi r3, r3, 1
skip1:
    emask.set r7
    shli r4, r1, 2
    ld.param.u32 r5, [r0 + @in]
    add r5, r5, r4
    ld.global.u32 r6, [r5]
    emask.and r6
    bnone else
    addi r3, r3, 2
else:
    emask.set r7
    emask.andn r6
    bnone end
    addi r3, r3, 3
end:
    emask.set r7
    exit
)";
constexpr uint64_t BranchyInstructions = 20;

} // namespace

TEST(StaticEstimate, DivergentIfOnDataRunsBothSidesAndIfOnTidIsExact) {
  AcceleratorConfig C;
  KernelImage Img = assembleOrDie(Branchy);
  llvm::Expected<LaunchProfile> P = estimateLaunch(Img, launch("branchy", 64, {0x100000}), C);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  // Warp 0: every instruction (the data-dependent if/else: both sides);
  // its tid < 8 side (bnone, addi, emask.set) runs with 8 lanes. Warp 1:
  // no lane has tid < 8, so bnone skips the addi.
  EXPECT_EQ(P->WarpInstructions, 2 * BranchyInstructions - 1);
  uint64_t Warp0 = 32 * (BranchyInstructions - 3) + 8 * 3;
  uint64_t Warp1 = 32 * (BranchyInstructions - 3) + 0 /*bnone, emask.set*/ + 0;
  EXPECT_EQ(P->ThreadInstructions, Warp0 + Warp1);
}


TEST(StaticEstimate, CsrRowLoopTakesTripCountsFromTheRowLengths) {
  AcceleratorConfig C;
  KernelImage Img = assembleOrDie(RowLoop);
  std::mt19937 Rng(11);
  std::vector<uint32_t> Length(32);
  for (uint32_t &L : Length)
    L = Rng() % 9; // some empty rows
  Length[5] = 40;  // one long row: the warp runs it alone at the end
  InputModel In;
  In.LoopRange = [&](unsigned Loop, uint32_t, uint32_t Thread) -> std::optional<uint64_t> {
    EXPECT_EQ(Loop, 0u);
    return Length[Thread];
  };
  llvm::Expected<LaunchProfile> P = estimateLaunch(Img, launch("rows", 32, {0x100000}), C, In);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  uint64_t Max = *std::max_element(Length.begin(), Length.end());
  // 10 before the loop, 4 per iteration of the longest row, 2 after.
  EXPECT_EQ(P->WarpInstructions, 10 + 4 * Max + 2);
  // Per lane: 3 instructions per iteration, the bany on all but its last.
  uint64_t Loop = 0;
  for (uint32_t L : Length)
    if (L)
      Loop += 3 * L + (L - 1);
  // The prefix with 32 lanes (start < end is data: every lane stays), the
  // loop, then emask.set issued with no lane left and exit with all 32.
  EXPECT_EQ(P->ThreadInstructions, 32 * 10 + Loop + 32);

  // Without the row lengths the estimate says which loop it cannot count.
  llvm::Expected<LaunchProfile> None = estimateLaunch(Img, launch("rows", 32, {0x100000}), C);
  ASSERT_FALSE(bool(None));
  std::string Why = llvm::toString(None.takeError());
  EXPECT_NE(Why.find("kernel 'rows'"), std::string::npos) << Why;
  EXPECT_NE(Why.find("no trip count"), std::string::npos) << Why;
}

TEST(StaticEstimate, DataDependentAddressWithoutStatisticsSaysWhere) {
  AcceleratorConfig C;
  KernelImage Img = assembleOrDie(Gather);
  llvm::Expected<LaunchProfile> P =
      estimateLaunch(Img, launch("gather", 32, {0x100000, 0x200000}), C);
  ASSERT_FALSE(bool(P));
  std::string Why = llvm::toString(P.takeError());
  EXPECT_NE(Why.find("pc 0x0020"), std::string::npos) << Why;
  EXPECT_NE(Why.find("parameter word 1"), std::string::npos) << Why;
  // With an address model the same launch is estimated.
  InputModel In;
  In.Address = [](const DataAccess &A) -> std::optional<uint32_t> {
    return 0x300000 + 4 * A.Thread;
  };
  EXPECT_TRUE(bool(estimateLaunch(Img, launch("gather", 32, {0x100000, 0x200000}), C, In)));
}
