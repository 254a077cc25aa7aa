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

WarpStep round(double Compute, double LsuCycles) {
  WarpStep S;
  S.Datapath = Compute;
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
  // 4 warps, each a 100-cycle load first, then 200 cycles of datapath.
  // The LSU serves them in turn (warp k leaves it at 100(k+1)); warp 0
  // starts computing at 100 and from then on the datapath never idles:
  // 100 + 4 x 200 = 900. The window bound said max(4 x 100, 4 x 200) = 800
  // (hash64's first window, too low here since the datapath starts late).
  Prediction P = predictLaunch(roundsBlock(4, {round(0, 100), round(200, 0)}), inRounds());
  EXPECT_NEAR(P.Cycles, 900, 1e-6);
  EXPECT_NEAR(P.Parts.total(), P.Cycles, 1e-9);
}

TEST(SimtModelRounds, WarpsInStepMeetAtTheLsuAndTheDatapathIdles) {
  // The reverse order: 200 cycles of datapath each, then a 100-cycle load.
  // All four compute together (800 cycles, the datapath shared), reach the
  // LSU together and are served in turn while the datapath idles:
  // 800 + 4 x 100 = 1200, the sum, not the max (const_conv's pattern).
  Prediction P = predictLaunch(roundsBlock(4, {round(200, 100)}), inRounds());
  EXPECT_NEAR(P.Cycles, 1200, 1e-6);
  // Identical warps: no load imbalance.
  EXPECT_NEAR(P.Parts.LoadImbalance, 0, 1e-6);
  EXPECT_NEAR(P.Parts.total(), P.Cycles, 1e-9);
}

TEST(SimtModelRounds, AloneAWarpIsItsOwnPath) {
  // One warp: compute 50 with 30 dependency cycles, a 100-cycle load, 20
  // more: nothing overlaps, 200 exactly.
  WarpStep First = round(50, 100);
  First.Dependency = 30;
  ModelParams Par = inRounds();
  Prediction P = predictLaunch(roundsBlock(1, {First, round(20, 0)}), Par);
  EXPECT_DOUBLE_EQ(P.Cycles, 200);
  EXPECT_DOUBLE_EQ(P.Parts.LoadImbalance, 0);
}

TEST(SimtModelRounds, UnequalWarpsCostLoadImbalance) {
  // Latency-only warps (nothing shared): 100 and 300 cycles take 300; two
  // mean warps (200 each) would take 200.
  WarpStep Short, Long;
  Short.Dependency = 100;
  Long.Dependency = 300;
  LaunchProfile L = oneBlock({warp(0, 0), warp(0, 0)});
  L.Blocks[0].Segments[0].Steps = {{Short}, {Long}};
  ModelParams Par = inRounds();
  Prediction P = predictLaunch(L, Par);
  EXPECT_NEAR(P.Cycles, 300, 1e-6);
  EXPECT_NEAR(P.Parts.LoadImbalance, 100, 1e-6);
}

TEST(SimtModelRounds, TheLowestWaitingWarpGetsTheLsuNext) {
  // Warp 2 loads first (LSU busy 0..100). Warps 0 and 1 compute together
  // (the datapath shared: half speed each): warp 1 (10 cycles) waits for
  // the LSU from 20, warp 0 (50 cycles) from 60. At 100 warp 0 goes first
  // (100..200), then warp 1 (200..300), which computes 50 more: 350.
  // First come first served would give 300.
  LaunchProfile L = oneBlock(std::vector<WarpDemand>(3, warp(0, 0)));
  L.Blocks[0].Segments[0].Steps = {{round(50, 100)},
                                   {round(10, 100), round(50, 0)},
                                   {round(0, 100)}};
  Prediction P = predictLaunch(L, inRounds());
  EXPECT_NEAR(P.Cycles, 350, 1e-6);
}

TEST(SimtModelRounds, OffByDefaultTheWindowsCost) {
  // The same block without CostInRounds is costed by its WarpDemands (here
  // all zero), not by its rounds.
  Prediction P = predictLaunch(roundsBlock(4, {round(200, 100)}), noOverheads());
  EXPECT_DOUBLE_EQ(P.Cycles, 0);
}
