//===- SimtModelTest.cpp - The simt model on cases with known answers ----===//

#include "SimtModel.h"

#include <gtest/gtest.h>

using namespace tandem::models;

namespace {

WarpDemand warp(double Compute, double Memory, double Dram = 0, double Dependency = 0) {
  WarpDemand W;
  W.Service[Datapath] = Compute;
  W.Service[Station::Lsu] = Memory;
  W.DramChannelCycles = Dram;
  W.DependencyCycles = Dependency;
  return W;
}

LaunchProfile oneBlock(std::vector<WarpDemand> Warps) {
  LaunchProfile L;
  L.Blocks.emplace_back();
  SegmentProfile S;
  S.Warps = std::move(Warps);
  L.Blocks.back().Segments.push_back(std::move(S));
  return L;
}

ModelParams noOverheads() {
  ModelParams P;
  P.BlockOverheadCycles = 0;
  P.LaunchOverheadCycles = 0;
  return P;
}

} // namespace

TEST(Mva, SingleStationIsProcessorSharing) {
  // N customers on one server of demand 1: each job's response time is N.
  EXPECT_DOUBLE_EQ(mvaResponseTime(1, {1.0}, 0), 1.0);
  EXPECT_DOUBLE_EQ(mvaResponseTime(5, {1.0}, 0), 5.0);
}

TEST(Mva, TwoBalancedStationsByHand) {
  // n=1: R=2, X=1/2, Q=1/2 each; n=2: R_k = 1.5, R = 3.
  EXPECT_DOUBLE_EQ(mvaResponseTime(2, {1.0, 1.0}, 0), 3.0);
}

TEST(Mva, DelayOnlyNeverQueues) {
  EXPECT_DOUBLE_EQ(mvaResponseTime(8, {0.0, 0.0}, 7.0), 7.0);
}

TEST(SimtModel, ComputeBoundBlockIsTheDatapathTotal) {
  // 8 warps, 1000 datapath cycles each, almost no memory: the datapath
  // serves them one after another.
  std::vector<WarpDemand> Warps(8, warp(1000, 4));
  Prediction P = predictLaunch(oneBlock(Warps), noOverheads());
  EXPECT_NEAR(P.Cycles, 8000, 8000 * 0.01);
  EXPECT_EQ(P.Bound, "compute");
  EXPECT_NEAR(P.Parts.total(), P.Cycles, 1e-6);
}

TEST(SimtModel, BandwidthBoundBlockIsTheLsuTotal) {
  // 4 warps whose LSU time is mostly DRAM channel occupancy.
  std::vector<WarpDemand> Warps(4, warp(20, 1000, 900));
  Prediction P = predictLaunch(oneBlock(Warps), noOverheads());
  EXPECT_NEAR(P.Cycles, 4000, 4000 * 0.02);
  EXPECT_EQ(P.Bound, "memory bandwidth");
}

TEST(SimtModel, SingleWarpChainExposesEveryLatency) {
  // One warp: nothing overlaps. 100 datapath cycles, 5 loads of 100 LSU
  // cycles, 50 cycles of dependency latency fully exposed: 650 exactly.
  ModelParams Par = noOverheads();
  Par.DependencyExposure = 1.0;
  Prediction P = predictLaunch(oneBlock({warp(100, 500, 20, 50)}), Par);
  EXPECT_DOUBLE_EQ(P.Cycles, 650);
  EXPECT_EQ(P.Bound, "memory latency");
  EXPECT_DOUBLE_EQ(P.Parts.LoadImbalance, 0);
}

TEST(SimtModel, ManyWarpsHideLatencyBehindCompute) {
  // The same warp 8 times: the LSU (500 each, 4000 in all) is the
  // bottleneck, far less than 8 x 650 serial.
  ModelParams Par = noOverheads();
  Prediction P = predictLaunch(oneBlock(std::vector<WarpDemand>(8, warp(100, 500))), Par);
  EXPECT_GE(P.Cycles, 4000);
  EXPECT_LT(P.Cycles, 8 * 600 * 0.95);
}

TEST(SimtModel, UnequalWarpsCostLoadImbalance) {
  // Latency-only warps (nothing shared): 100 and 300 cycles take 300, a
  // balanced block would take 200.
  ModelParams Par = noOverheads();
  Par.DependencyExposure = 1.0;
  Prediction P = predictLaunch(oneBlock({warp(0, 0, 0, 100), warp(0, 0, 0, 300)}), Par);
  EXPECT_DOUBLE_EQ(P.Cycles, 300);
  EXPECT_DOUBLE_EQ(P.Parts.LoadImbalance, 100);
}

TEST(SimtModel, WaitingAtABarrierIsSynchronization) {
  // The same unequal warps (100 and 300 cycles) before a barrier and after
  // it: the early warp waits at the barrier (synchronization), then exits
  // early (load imbalance).
  ModelParams Par = noOverheads();
  Par.DependencyExposure = 1.0;
  LaunchProfile L = oneBlock({warp(0, 0, 0, 100), warp(0, 0, 0, 300)});
  L.Blocks[0].Segments.push_back(L.Blocks[0].Segments[0]);
  L.Blocks[0].Barriers = 1;
  Prediction P = predictLaunch(L, Par);
  EXPECT_DOUBLE_EQ(P.Cycles, 600);
  EXPECT_DOUBLE_EQ(P.Parts.Synchronization, 100);
  EXPECT_DOUBLE_EQ(P.Parts.LoadImbalance, 100);
}

TEST(SimtModel, BlocksAddUpWithTheirOverheads) {
  ModelParams Par = noOverheads();
  Par.BlockOverheadCycles = 10;
  Par.BarrierCycles = 3;
  LaunchProfile L = oneBlock({warp(400, 0)});
  L.Blocks.push_back(L.Blocks.back());
  SegmentProfile After;
  After.Warps = {warp(100, 0)};
  L.Blocks.back().Segments.push_back(After);
  L.Blocks.back().Barriers = 1;
  Prediction P = predictLaunch(L, Par);
  EXPECT_DOUBLE_EQ(P.Cycles, 400 + 10 + 400 + 100 + 3 + 10);
  EXPECT_DOUBLE_EQ(P.Parts.Synchronization, 3);
  EXPECT_DOUBLE_EQ(P.Parts.Launch, 20);
}

namespace {

/// A round: \p Instructions datapath instructions of 4 cycles (8 lanes),
/// then, if \p LsuCycles, a memory instruction holding the LSU that long.
WarpStep round(unsigned Instructions, double LsuCycles) {
  WarpStep S;
  S.Instructions = Instructions;
  S.Datapath = 4.0 * Instructions;
  S.HasMemory = LsuCycles > 0;
  S.Lsu = LsuCycles;
  return S;
}

ModelParams inRounds() {
  ModelParams P = noOverheads();
  P.CostInRounds = true;
  P.DependencyExposure = 1.0;
  return P;
}

/// One block of \p Warps identical warps walking \p Rounds.
LaunchProfile roundsBlock(unsigned Warps, std::vector<WarpStep> Rounds) {
  LaunchProfile L = oneBlock(std::vector<WarpDemand>(Warps, warp(0, 0)));
  L.Blocks[0].Segments[0].Steps.assign(Warps, Rounds);
  return L;
}

} // namespace

TEST(SimtModelRounds, WarpsTheLsuLetsGoEarlyComputeWhileTheOthersWait) {
  // 4 warps, each a 100-cycle load first, then 50 instructions (200 cycles)
  // of datapath. The LSU serves them in turn (warp k from 100k); warp 0
  // issues its first instruction at 101 (one issue a cycle), and from then
  // on the datapath never idles: 101 + 4 x 200 = 901. The window bound
  // said max(4 x 100, 4 x 200) = 800 (hash64's first window).
  Prediction P = predictLaunch(roundsBlock(4, {round(0, 100), round(50, 0)}), inRounds());
  EXPECT_DOUBLE_EQ(P.Cycles, 901);
  EXPECT_NEAR(P.Parts.total(), P.Cycles, 1e-9);
}

TEST(SimtModelRounds, WarpsInStepMeetAtTheLsuAndTheDatapathIdles) {
  // The reverse order: 50 instructions each, then a 100-cycle load. The
  // round-robin scheduler interleaves the four warps instruction by
  // instruction (warp k's i-th at 16i + 4k), so warp 0 issues its last at
  // 784 and its load the cycle after (785: the LSU is free, and no other
  // warp can issue while the datapath streams), and the others queue
  // behind it while the datapath idles: 785 + 4 x 100 = 1185, near the
  // sum (800 + 400), not the max (const_conv's pattern).
  Prediction P = predictLaunch(roundsBlock(4, {round(50, 100)}), inRounds());
  EXPECT_DOUBLE_EQ(P.Cycles, 1185);
  // Identical warps: no load imbalance.
  EXPECT_NEAR(P.Parts.LoadImbalance, 0, 1e-6);
  EXPECT_NEAR(P.Parts.total(), P.Cycles, 1e-9);
}

TEST(SimtModelRounds, AloneAWarpIsItsOwnPath) {
  // One warp: 50 cycles of compute with 30 dependency cycles, a 100-cycle
  // load, 20 more: nothing overlaps, 200 exactly.
  WarpStep First = round(0, 100), Last = round(0, 0);
  First.Datapath = 50; // one 50-cycle instruction (no Instructions given)
  First.Dependency = 30;
  Last.Datapath = 20;
  Prediction P = predictLaunch(roundsBlock(1, {First, Last}), inRounds());
  EXPECT_DOUBLE_EQ(P.Cycles, 200);
  EXPECT_DOUBLE_EQ(P.Parts.LoadImbalance, 0);
}

TEST(SimtModelRounds, UnequalWarpsCostLoadImbalance) {
  // Latency-only warps (nothing shared but the issue slot): 100 and 300
  // cycles take 300; two mean warps (200 each) would take 201, the second
  // issuing a cycle after the first.
  WarpStep Short, Long;
  Short.Dependency = 100;
  Short.HasMemory = Long.HasMemory = true; // a zero-cycle memory instruction
  Long.Dependency = 300;
  LaunchProfile L = oneBlock({warp(0, 0), warp(0, 0)});
  L.Blocks[0].Segments[0].Steps = {{Short}, {Long}};
  Prediction P = predictLaunch(L, inRounds());
  EXPECT_NEAR(P.Cycles, 300, 1e-6);
  EXPECT_NEAR(P.Parts.LoadImbalance, 99, 1e-6);
}

TEST(SimtModelRounds, WaitingAtABarrierIsSynchronization) {
  // The warps above before a barrier and after it: before, the short warp
  // waits at the barrier for the long one (synchronization); after, it
  // exits early (load imbalance). Each is the 99 cycles beyond two mean
  // warps.
  WarpStep Short, Long;
  Short.Dependency = 100;
  Short.HasMemory = Long.HasMemory = true;
  Long.Dependency = 300;
  LaunchProfile L = oneBlock({warp(0, 0), warp(0, 0)});
  L.Blocks[0].Segments[0].Steps = {{Short}, {Long}};
  L.Blocks[0].Segments.push_back(L.Blocks[0].Segments[0]);
  L.Blocks[0].Barriers = 1;
  Prediction P = predictLaunch(L, inRounds());
  EXPECT_NEAR(P.Cycles, 600, 1e-6);
  EXPECT_NEAR(P.Parts.Synchronization, 99, 1e-6);
  EXPECT_NEAR(P.Parts.LoadImbalance, 99, 1e-6);
  EXPECT_NEAR(P.Parts.total(), P.Cycles, 1e-6);
}

TEST(SimtModelRounds, AMemoryIssueMovesTheRoundRobinPointer) {
  // Warp 0 issues three 4-cycle memory instructions back to back (LSU from
  // 0, 4, 8); warps 1 and 2 have two 4-cycle instructions each. After every
  // memory issue the first ready warp after warp 0 is warp 1, so warp 1
  // gets the datapath at 1 and 5 and is done at 9; warp 2 only then (9,
  // 13): done at 17. Had the memory issues left the pointer alone, warps 1
  // and 2 would alternate and warp 1 would be done at 13 (stencil5: the
  // warps just after the LSU's warp leave their address arithmetic first).
  std::vector<std::vector<WarpStep>> Warps = {
      {round(0, 4), round(0, 4), round(0, 4)}, {round(2, 0)}, {round(2, 0)}};
  RoundsResult R = roundsCycles(Warps, inRounds());
  ASSERT_EQ(R.WarpEnd.size(), 3u);
  EXPECT_DOUBLE_EQ(R.WarpEnd[0], 12);
  EXPECT_DOUBLE_EQ(R.WarpEnd[1], 9);
  EXPECT_DOUBLE_EQ(R.WarpEnd[2], 17);
  EXPECT_DOUBLE_EQ(R.Cycles, 17);
}

TEST(SimtModelRounds, ASecondLoadWaitsForTheWarpsNextInTheRing) {
  // Warp 0 has two 10-cycle loads in a row, warp 1 one. Nothing issues
  // while warp 0's first load runs, so the pointer still names warp 0 when
  // both are ready at 10, and warp 1, next in the ring, gets the LSU: warp
  // 1 done at 20, warp 0 at 30 (spmv_merge's parameter loads on the rtl:
  // 0 1 2 3 0 1 2 3, not 0 0 1 1).
  std::vector<std::vector<WarpStep>> Warps = {{round(0, 10), round(0, 10)}, {round(0, 10)}};
  RoundsResult R = roundsCycles(Warps, inRounds());
  EXPECT_DOUBLE_EQ(R.WarpEnd[0], 30);
  EXPECT_DOUBLE_EQ(R.WarpEnd[1], 20);
}

TEST(SimtModelRounds, AnIssueInBetweenLetsTheLoadingWarpKeepTheLsu) {
  // The same, with warp 2 issuing one instruction at 1: the pointer then
  // names warp 2, the first ready warp after it is warp 0, whose second
  // load goes at 10 (done at 20) before warp 1's (done at 30); spmv_merge's
  // back-to-back parameter loads on the rtl when another warp computed
  // during the first.
  std::vector<std::vector<WarpStep>> Warps = {
      {round(0, 10), round(0, 10)}, {round(0, 10)}, {round(1, 0)}};
  RoundsResult R = roundsCycles(Warps, inRounds());
  EXPECT_DOUBLE_EQ(R.WarpEnd[0], 20);
  EXPECT_DOUBLE_EQ(R.WarpEnd[1], 30);
  EXPECT_DOUBLE_EQ(R.WarpEnd[2], 5);
}

TEST(SimtModelRounds, AWarpIssuesAgainWhenTheLsuIsFree) {
  // Two warps, one 11-cycle parameter load each (LsuCostModel's cost runs
  // to the next issue): warp 1's load goes when warp 0's is done, 11 cycles
  // later, as the rtl's parameter loads follow each other.
  RoundsResult R = roundsCycles({{round(0, 11)}, {round(0, 11)}}, inRounds());
  EXPECT_DOUBLE_EQ(R.WarpEnd[0], 11);
  EXPECT_DOUBLE_EQ(R.WarpEnd[1], 22);
}

TEST(SimtModelRounds, GtoKeepsIssuingFromTheLastWarpWhileItIsReady) {
  // Two warps of three 4-cycle instructions. Round-robin alternates them
  // (warp 0 at 0, 8, 16: done at 20; warp 1 at 24). Under gto the last
  // issuer keeps the datapath while it is ready; the last-issuer register
  // starts at the core's last slot, so in a block that fills the core
  // (CoreWarps 2) warp 1 runs first (done at 12), warp 0 after it (24).
  std::vector<std::vector<WarpStep>> Warps = {{round(3, 0)}, {round(3, 0)}};
  RoundsResult Rr = roundsCycles(Warps, inRounds());
  EXPECT_DOUBLE_EQ(Rr.WarpEnd[0], 20);
  EXPECT_DOUBLE_EQ(Rr.WarpEnd[1], 24);
  ModelParams Gto = inRounds();
  Gto.Scheduler = tandem::WarpScheduler::GreedyThenOldest;
  Gto.CoreWarps = 2;
  RoundsResult G = roundsCycles(Warps, Gto);
  EXPECT_DOUBLE_EQ(G.WarpEnd[0], 24);
  EXPECT_DOUBLE_EQ(G.WarpEnd[1], 12);
  // A block that leaves slots free: the oldest warp, 0, goes first.
  Gto.CoreWarps = 8;
  G = roundsCycles(Warps, Gto);
  EXPECT_DOUBLE_EQ(G.WarpEnd[0], 12);
  EXPECT_DOUBLE_EQ(G.WarpEnd[1], 24);
}

TEST(SimtModelRounds, GtoLetsTheLastIssuerGoBeforeTheWaitingWarps) {
  // Three warps, each a 10-cycle load, then one 4-cycle instruction. Both
  // policies load warp 0 at 0. At 10 warp 0 (ready to compute) and warp 1
  // (waiting at the LSU) are both ready. Round-robin picks warp 1, next
  // in the ring (load 10-20), and warp 0 computes at 11: done at 15, warp
  // 1 at 24, warp 2 (load 21-31) at 35. gto keeps the last issuer, warp 0
  // (computes at 10: done at 14), then loads the oldest waiting warp, 1
  // (11-21, done at 25), then warp 2 (22-32, done at 36).
  std::vector<std::vector<WarpStep>> Warps(3, {round(0, 10), round(1, 0)});
  RoundsResult Rr = roundsCycles(Warps, inRounds());
  EXPECT_EQ(Rr.WarpEnd, (std::vector<double>{15, 24, 35}));
  ModelParams Gto = inRounds();
  Gto.Scheduler = tandem::WarpScheduler::GreedyThenOldest;
  RoundsResult G = roundsCycles(Warps, Gto);
  EXPECT_EQ(G.WarpEnd, (std::vector<double>{14, 25, 36}));
}

TEST(SimtModelRounds, CostsMemoryAtIssueInIssueOrder) {
  // With a coster, each load's cycles are asked for as it issues, in the
  // order the scheduler reaches them, and replace the step's Lsu.
  std::vector<std::vector<WarpStep>> Warps = {{round(0, 1), round(0, 1)}, {round(0, 1)}};
  std::vector<std::pair<size_t, size_t>> Asked;
  std::vector<double> IssuedAt;
  RoundsResult R =
      roundsCycles(Warps, inRounds(), [&](size_t Warp, size_t Step, double IssueCycle) {
        Asked.push_back({Warp, Step});
        IssuedAt.push_back(IssueCycle);
        return 10.0;
      });
  // As ASecondLoadWaitsForTheWarpsNextInTheRing: warp 0, warp 1, warp 0,
  // each asked in the cycle it issues (the LSU model's DRAM queues drain
  // by the walk's clock).
  EXPECT_EQ(Asked, (std::vector<std::pair<size_t, size_t>>{{0, 0}, {1, 0}, {0, 1}}));
  EXPECT_EQ(IssuedAt, (std::vector<double>{0, 10, 20}));
  EXPECT_DOUBLE_EQ(R.Cycles, 30);
}

TEST(SimtModelRounds, AMemoryInstructionIssuesTheCycleAfterADatapathOne) {
  // The rtl's warp is ready when its operands are and its unit is free
  // (simt_core.sv), so an independent load goes to the LSU the cycle after
  // the warp's add went to the datapath: 1 + 10 = 11, not 4 + 10 (gto, where
  // one warp issues alone, ran up to 7% over before 2026-12-02). A load
  // waiting on the add waits its stall from that cycle: 1 + 4 + 10.
  // Datapath instructions still follow each other 4 cycles apart.
  WarpStep Independent = round(1, 10), Dependent = round(1, 10);
  Independent.Stalls = {0, 0};
  Dependent.Stalls = {0, 4};
  Dependent.Dependency = 4;
  EXPECT_DOUBLE_EQ(roundsCycles({{Independent}}, inRounds()).Cycles, 11);
  EXPECT_DOUBLE_EQ(roundsCycles({{Dependent}}, inRounds()).Cycles, 15);
  EXPECT_DOUBLE_EQ(roundsCycles({{round(2, 0)}}, inRounds()).Cycles, 8);
  EXPECT_DOUBLE_EQ(roundsCycles({{round(2, 10)}}, inRounds()).Cycles, 4 + 1 + 10);
}

TEST(SimtModelRounds, AWarpStallsWhereItsProfileSays) {
  // Two warps of two 4-cycle instructions with 8 stall cycles each. Spread
  // evenly (no Stalls: 4 before each issue), or all before the second
  // instruction, the datapath has slack for the other warp: 20 cycles.
  // All before the first, both warps start at 8 and the datapath has none:
  // 8 + 4 x 4 = 24. gto, which switches warps at exactly such stalls,
  // needs the position (thread-per-row SpMV under gto: docs/NOTES.md).
  auto Cycles = [](std::vector<float> Stalls) {
    WarpStep S = round(2, 0);
    S.Dependency = 8;
    S.Stalls = std::move(Stalls);
    return roundsCycles({{S}, {S}}, inRounds()).Cycles;
  };
  EXPECT_DOUBLE_EQ(Cycles({}), 20);
  EXPECT_DOUBLE_EQ(Cycles({0, 8}), 20);
  EXPECT_DOUBLE_EQ(Cycles({8, 0}), 24);
}

TEST(SimtModelRounds, ABarrierRestartsEveryWarpTogether) {
  // Two segments of 4 warps, each segment costed from all warps starting
  // together: before the barrier the warps compute and meet at the LSU
  // (1185, as above); after it each loads first and then computes (901):
  // 1185 + 3 (the barrier) + 901. Nothing of the first segment's tail
  // overlaps the second: the barrier waits for the last warp.
  LaunchProfile L = roundsBlock(4, {round(50, 100)});
  SegmentProfile After;
  After.Warps.assign(4, warp(0, 0));
  After.Steps.assign(4, {round(0, 100), round(50, 0)});
  L.Blocks[0].Segments.push_back(After);
  L.Blocks[0].Barriers = 1;
  ModelParams Par = inRounds();
  Par.BarrierCycles = 3;
  Prediction P = predictLaunch(L, Par);
  EXPECT_DOUBLE_EQ(P.Cycles, 1185 + 3 + 901);
  EXPECT_DOUBLE_EQ(P.Parts.Synchronization, 3);
}

TEST(SimtModelRounds, TheScoreboardOutlastsAMemoryInstruction) {
  // One warp: a remainder writing r3 (readable 130 cycles after its issue,
  // holding the iterative unit 128), a 10-cycle parameter load of r4, then
  // an add reading r3. The load goes at 1 and is done at 11; the add waits
  // for r3 until 130 and streams until 134. A stall measured with the warp
  // alone cannot say this: the load's cycles are only known in the walk.
  WarpStep First = round(1, 10), Then = round(1, 0);
  WarpStep::Issue Rem, Load, Add;
  Rem.Regs = (1u << 1) | (1u << 2) | (1u << 3);
  Rem.Def = 3;
  Rem.Latency = 130;
  Rem.Iterative = 128;
  Load.Regs = 1u << 4;
  Add.Regs = (1u << 3) | (1u << 5);
  Add.Def = 5;
  Add.Latency = 5;
  First.Issues = {Rem, Load};
  Then.Issues = {Add};
  RoundsResult R = roundsCycles({{First, Then}}, inRounds());
  EXPECT_DOUBLE_EQ(R.Cycles, 134);
  // A second warp's remainder waits for the iterative unit: the first's
  // issue at 0 holds it until 128, and it takes the next at 129.
  WarpStep Other = round(1, 0);
  Other.Issues = {Rem};
  RoundsResult Two = roundsCycles({{First, Then}, {Other}}, inRounds());
  EXPECT_DOUBLE_EQ(Two.WarpEnd[1], 129 + 4);
}

TEST(SimtModelRounds, TheLastIssuerRegisterStartsWhereTheRtlHasIt) {
  ModelParams Rr = inRounds(), Gto = inRounds();
  Gto.Scheduler = tandem::WarpScheduler::GreedyThenOldest;
  Rr.CoreWarps = Gto.CoreWarps = 8;
  // A block start: the register is reset to the core's last slot (7).
  // Round-robin then looks at warp 0 first; gto at slot 7, there only when
  // the block fills the core (else 4 of 4: none, the oldest goes).
  EXPECT_EQ(initialLastIssued({}, 4, std::nullopt, Rr), 3u);
  EXPECT_EQ(initialLastIssued({}, 4, std::nullopt, Gto), 4u);
  EXPECT_EQ(initialLastIssued({}, 8, std::nullopt, Gto), 7u);
  // After a barrier whose last arrival was slot 1: round-robin looks at
  // slot 2 next, gto at slot 1.
  EXPECT_EQ(initialLastIssued({}, 4, 1u, Rr), 1u);
  EXPECT_EQ(initialLastIssued({}, 4, 1u, Gto), 1u);
  // Slots missing from the segment (warps that exited): round-robin looks
  // at the first present slot after 1, wrapping; gto at none.
  const std::vector<unsigned> Slots = {0, 2, 3};
  EXPECT_EQ(initialLastIssued(Slots, 3, 1u, Rr), 0u); // then index 1: slot 2
  EXPECT_EQ(initialLastIssued({2, 3}, 2, 1u, Rr), 1u); // then index 0: slot 2
  EXPECT_EQ(initialLastIssued(Slots, 3, 2u, Gto), 1u);
  EXPECT_EQ(initialLastIssued(Slots, 3, 1u, Gto), 3u);
}

TEST(SimtModelRounds, AfterABarrierTheScanGoesOnFromTheLastArrival) {
  // Before the barrier warp 0 has two instructions and warp 1 one: 0 (warp
  // 0), 4 (warp 1), 8 (warp 0: the last arrival's `bar`). The rtl releases
  // the warps at 10, while that bar holds the datapath until 12. After it
  // both warps have an instruction, warp 0 then a 100-cycle load:
  // round-robin looks at warp 1 first (it follows the last issuer), and
  // the datapath takes it at 2 (12 - 10): warp 1 at 2, warp 0 at 6, its
  // load at 7, done at 107; 10 + 107 in all. Restarted from the
  // block-start value (before 2026-12-02) warp 0 went first and loaded at
  // 3; without the bar's datapath carried over, at 5.
  LaunchProfile L = oneBlock({warp(0, 0), warp(0, 0)});
  L.Blocks[0].Segments[0].Steps = {{round(2, 0)}, {round(1, 0)}};
  SegmentProfile After;
  After.Warps.assign(2, warp(0, 0));
  After.Steps = {{round(1, 100)}, {round(1, 0)}};
  L.Blocks[0].Segments.push_back(After);
  L.Blocks[0].Barriers = 1;
  EXPECT_DOUBLE_EQ(predictLaunch(L, inRounds()).Cycles, 10 + 107);
  // A new block starts from the reset value again.
  L.Blocks.push_back(L.Blocks[0]);
  EXPECT_DOUBLE_EQ(predictLaunch(L, inRounds()).Cycles, 2 * (10 + 107));
  // The release itself: a segment ending in a datapath instruction at a
  // barrier ends two cycles after that issue; one ending in a memory
  // instruction (a hand-made profile) when it completes.
  RoundsResult Bar = roundsCycles({{round(2, 0)}, {round(1, 0)}}, inRounds());
  EXPECT_DOUBLE_EQ(segmentEnd(Bar, true).Cycles, 10);
  EXPECT_DOUBLE_EQ(segmentEnd(Bar, true).DatapathBusy, 2);
  EXPECT_DOUBLE_EQ(segmentEnd(Bar, false).Cycles, 12);
  RoundsResult Load = roundsCycles({{round(1, 10)}}, inRounds());
  EXPECT_DOUBLE_EQ(segmentEnd(Load, true).Cycles, 11);
  EXPECT_DOUBLE_EQ(segmentEnd(Load, true).DatapathBusy, 0);
}

/// One warp: a 100-cycle load of r4, then two instructions that do not
/// read it and one that does (5-cycle results).
std::vector<WarpStep> loadThenUse(bool WithScoreboard) {
  WarpStep Load = round(0, 100), Then = round(3, 0);
  if (WithScoreboard) {
    WarpStep::Issue Ld, A, B, Use;
    Ld.Regs = 1u << 4;
    Ld.Def = 4;
    A.Regs = 1u << 5;
    A.Def = 5;
    A.Latency = 5;
    B.Regs = 1u << 6;
    B.Def = 6;
    B.Latency = 5;
    Use.Regs = (1u << 4) | (1u << 7);
    Use.Def = 7;
    Use.Latency = 5;
    Load.Issues = {Ld};
    Then.Issues = {A, B, Use};
  }
  return {Load, Then};
}

TEST(SimtModelRounds, UnderRegisterWaitAWarpGoesOnPastItsLoad) {
  ModelParams Insn = inRounds(), Reg = inRounds();
  Reg.MemWait = tandem::MemoryWait::Register;
  // Instruction: the load is done at 100, then 4 cycles each: 112.
  EXPECT_DOUBLE_EQ(roundsCycles({loadThenUse(true)}, Insn).Cycles, 112);
  // Register: the two independent instructions go at 1 and 5, the use
  // waits for r4 until 100 and streams until 104.
  EXPECT_DOUBLE_EQ(roundsCycles({loadThenUse(true)}, Reg).Cycles, 104);
  // Without scoreboard entries the walk cannot know what the load writes:
  // the warp waits for it, an upper bound.
  EXPECT_DOUBLE_EQ(roundsCycles({loadThenUse(false)}, Reg).Cycles, 112);
}

TEST(SimtModelRounds, UnderRegisterWaitTheLsuAndLoadsCarryAcrossABarrier) {
  // One warp. Before the barrier: a 50-cycle store, then `bar` (issued at
  // 1: the store holds nothing); the release is 2 cycles after the bar's
  // issue, at 3, with the LSU busy until 50. After it: a 10-cycle load of
  // r4 waits for the LSU (47 cycles into the segment), is done at 57, and
  // its use streams until 61. Whole launch: 3 + 61.
  ModelParams Reg = inRounds();
  Reg.MemWait = tandem::MemoryWait::Register;
  WarpStep Store = round(0, 50), Bar = round(1, 0), Load = round(0, 10), Use = round(1, 0);
  WarpStep::Issue St, B, Ld, U;
  St.Regs = (1u << 2) | (1u << 3);
  Ld.Regs = 1u << 4;
  Ld.Def = 4;
  U.Regs = 1u << 4;
  Store.Issues = {St};
  Bar.Issues = {B};
  Load.Issues = {Ld};
  Use.Issues = {U};
  LaunchProfile L = oneBlock({warp(0, 0)});
  L.Blocks[0].Segments[0].Steps = {{Store, Bar}};
  SegmentProfile After;
  After.Warps = {warp(0, 0)};
  After.Steps = {{Load, Use}};
  L.Blocks[0].Segments.push_back(After);
  L.Blocks[0].Barriers = 1;
  EXPECT_DOUBLE_EQ(predictLaunch(L, Reg).Cycles, 3 + 61);

  // A load issued before the barrier and used after it: its register is
  // still pending when the next segment starts. Load of r4 (100 cycles) at
  // 0, bar at 1, release at 3; the use waits until 100, 97 cycles into
  // the segment, and streams until 101: 3 + 101.
  WarpStep Early = round(0, 100);
  Early.Issues = {Ld};
  L.Blocks[0].Segments[0].Steps = {{Early, Bar}};
  L.Blocks[0].Segments[1].Steps = {{Use}};
  EXPECT_DOUBLE_EQ(predictLaunch(L, Reg).Cycles, 3 + 101);
}

TEST(SimtModelRounds, OnByDefaultOffTheWindowsCost) {
  // The rounds cost a block by default; without CostInRounds the same block
  // is costed by its WarpDemands (here all zero), not by its rounds.
  EXPECT_TRUE(ModelParams().CostInRounds);
  ModelParams Windows = noOverheads();
  Windows.CostInRounds = false;
  Prediction P = predictLaunch(roundsBlock(4, {round(50, 100)}), Windows);
  EXPECT_DOUBLE_EQ(P.Cycles, 0);
  ModelParams Rounds = noOverheads();
  Rounds.DependencyExposure = 1.0;
  EXPECT_DOUBLE_EQ(predictLaunch(roundsBlock(4, {round(50, 100)}), Rounds).Cycles, 1185);
}

namespace {
/// Blocks of one warp of \p Compute datapath cycles each (compute only).
LaunchProfile computeBlocks(std::initializer_list<double> Compute) {
  LaunchProfile L;
  for (double C : Compute) {
    L.Blocks.emplace_back();
    SegmentProfile S;
    S.Warps = {warp(C, 0)};
    L.Blocks.back().Segments.push_back(std::move(S));
  }
  return L;
}
} // namespace

TEST(SimtModel, BlocksGoToTheCoreFreeFirst) {
  ModelParams Par = noOverheads();
  Par.Cores = 2;
  // Core 0: 100 then 50 (free at 100 before core 1 at 300); core 1: 300.
  // The launch ends with core 1.
  Prediction P = predictLaunch(computeBlocks({100, 300, 50}), Par);
  EXPECT_DOUBLE_EQ(P.Cycles, 300);
  // Four equal blocks on two cores: two waves.
  EXPECT_DOUBLE_EQ(predictLaunch(computeBlocks({100, 100, 100, 100}), Par).Cycles, 200);
  // One core: the sum.
  Par.Cores = 1;
  EXPECT_DOUBLE_EQ(predictLaunch(computeBlocks({100, 300, 50}), Par).Cycles, 450);
  // The per-block overhead is paid on each core's blocks only.
  Par.Cores = 2;
  Par.BlockOverheadCycles = 1;
  EXPECT_DOUBLE_EQ(predictLaunch(computeBlocks({100, 100, 100, 100}), Par).Cycles, 202);
}

TEST(SimtModel, SharedDramIsMvaOverTheCoresAndTheSlots) {
  ModelParams Par = noOverheads();
  Par.DramChannels = 1;
  Par.DramMaxOutstanding = 16;
  // One core: its own work.
  EXPECT_DOUBLE_EQ(sharedDramCycles(1664, 475, 763.0 * 16, 1, Par), 1664);
  // Two cores, 763 cycles of slot demand (slot-cycles over 16 slots) in
  // 1664 of work: each core does half; by hand, with one customer the
  // station holds 381.5 / 832 of it, the second waits behind that.
  double Demand = 763.0 / 2, Delay = (1664 - 763.0) / 2;
  double Alone = Demand + Delay;
  EXPECT_DOUBLE_EQ(sharedDramCycles(1664, 475, 763.0 * 16, 2, Par),
                   Delay + Demand * (1 + Demand / Alone));
  // No DRAM: the work spread evenly.
  EXPECT_DOUBLE_EQ(sharedDramCycles(4000, 0, 0, 4, Par), 1000);
  // The channels' occupancy bounds it when the slots do not: 64 slots
  // over 2 channels, 4000 cycles of occupancy.
  Par.DramMaxOutstanding = 64;
  Par.DramChannels = 2;
  EXPECT_DOUBLE_EQ(sharedDramCycles(1000, 4000, 104.0 * 1000, 4, Par), 2000);
}

TEST(SimtModel, CoresSharingTheDramContendForIt) {
  ModelParams Par = noOverheads();
  Par.Cores = 4;
  Par.DramLatencyCycles = 100;
  Par.DramMaxOutstanding = 16;
  // Four blocks of one warp, each 1000 LSU cycles of which 900 occupy the
  // channel: on one core each, 1000 cycles. 900 requests hold a slot 104
  // cycles each: more than the 16 slots give in 4000 cycles, so the cores
  // go one after another.
  LaunchProfile L;
  for (int B = 0; B < 4; ++B) {
    L.Blocks.emplace_back();
    SegmentProfile S;
    S.Warps = {warp(0, 1000, 900)};
    L.Blocks.back().Segments.push_back(std::move(S));
  }
  L.Memory.DramRequests = 4 * 225; // 4-cycle line requests
  Prediction P = predictLaunch(L, Par);
  EXPECT_DOUBLE_EQ(P.Cycles, sharedDramCycles(4000, 3600, 900 * 104, 4, Par));
  EXPECT_DOUBLE_EQ(P.Cycles, 4000);
  EXPECT_EQ(P.Bound, "memory bandwidth");
  EXPECT_NEAR(P.Parts.total(), P.Cycles, 1e-6);
  // One core: the blocks one after another, nothing on top.
  Par.Cores = 1;
  EXPECT_DOUBLE_EQ(predictLaunch(L, Par).Cycles, 4000);
  // Two blocks on four cores: two customers.
  L.Blocks.resize(2);
  L.Memory.DramRequests = 2 * 225;
  Par.Cores = 4;
  EXPECT_DOUBLE_EQ(predictLaunch(L, Par).Cycles, sharedDramCycles(2000, 1800, 450 * 104, 2, Par));
}
