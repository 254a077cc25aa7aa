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
