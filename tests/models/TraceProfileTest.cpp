//===- TraceProfileTest.cpp - LSU cost model and trace profiler ----------===//

#include "TraceProfile.h"

#include "ISA.h"

#include <gtest/gtest.h>

#include <algorithm>
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
  // issue 1 + AGU 4 + check 1, registered at 6, accepted at 7, ready (and
  // taken) at 7 + 4 + 100 = 111, write-back 112, next issue 113: the rtl's
  // timeline of vadd with 16 threads (one line) shows 113 issue to issue.
  LsuCostModel M(config());
  LsuCost C = M.lines(LinePath::Global, false, lines(1), {});
  EXPECT_DOUBLE_EQ(C.Cycles, 113);
  EXPECT_DOUBLE_EQ(C.DramChannelCycles, 4);
  // The same line again hits the L1: 6 + 1 hit + 1 + 1.
  EXPECT_DOUBLE_EQ(M.lines(LinePath::Global, false, lines(1), {}).Cycles, 9);
  EXPECT_EQ(M.memory().L1Hits, 1u);
  EXPECT_EQ(M.memory().L1Misses, 1u);
  M.startBlock(); // the L1 is invalidated at every block start
  EXPECT_GT(M.lines(LinePath::Global, false, lines(1), {}).Cycles, 100);
}

TEST(LsuCostModel, TwoLineMissWaitsForTheChannelOnce) {
  // vadd's warp load (32 words, two lines): the second request is accepted
  // at 8 but starts when the channel is free at 11, ready at 115: 117
  // issue to issue, the rtl's timeline of vadd with 32 threads.
  LsuCostModel M(config());
  EXPECT_DOUBLE_EQ(M.lines(LinePath::Global, false, lines(2), {}).Cycles, 117);
  // A warp store of two lines waits for nothing: 6, the two lines, the
  // check of the pending lanes, write-back (the rtl: 10).
  EXPECT_DOUBLE_EQ(M.lines(LinePath::Global, true, lines(2, 0x200000), {64, 64}).Cycles, 10);
  // A param load: accepted at 7, answered at 9 (the rtl: 11).
  EXPECT_DOUBLE_EQ(M.lines(LinePath::OnCore, false, lines(1, 0), {}).Cycles, 11);
}

TEST(LsuCostModel, LocalWriteBackKeepsStoresInTheL1UntilEvicted) {
  // A full warp's st.local.u32: two whole lines, allocated dirty without a
  // request (10 cycles, as a two-line store takes), then hit (10 again).
  LsuCostModel M(config());
  std::vector<uint32_t> Slot = lines(2, 0xC0000000u);
  EXPECT_DOUBLE_EQ(M.lines(LinePath::Local, true, Slot, {64, 64}).Cycles, 10);
  EXPECT_DOUBLE_EQ(M.lines(LinePath::Local, true, Slot, {64, 64}).Cycles, 10);
  EXPECT_EQ(M.memory().DramRequests, 0u);
  // A half-written line cannot be allocated: it goes to memory.
  EXPECT_DOUBLE_EQ(M.lines(LinePath::Local, true, lines(1, 0xC0010000u), {32}).Cycles, 9);
  EXPECT_EQ(M.memory().DramWriteBytes, 32u);
  // Four more slots in the same two sets (64 sets of 64 bytes: 4 KiB
  // apart); the fourth evicts the first slot's dirty lines: each write-back
  // is a whole-line request in a cycle of its own before the allocation.
  for (uint32_t K = 1; K <= 3; ++K)
    M.lines(LinePath::Local, true, lines(2, 0xC0000000u + K * 4096), {64, 64});
  EXPECT_EQ(M.memory().L1Writebacks, 0u);
  M.lines(LinePath::Local, true, lines(2, 0xC0000000u + 4 * 4096), {64, 64});
  EXPECT_EQ(M.memory().L1Writebacks, 2u);
  EXPECT_EQ(M.memory().DramWriteBytes, 32u + 2 * 64);
  // A global load missing in a set whose next way is dirty writes it back
  // first: the read waits one cycle and for the write's channel slot
  // (113 clean, 117 here).
  LsuCost Load = M.lines(LinePath::Global, false, lines(1, 0x100000u), {});
  EXPECT_EQ(M.memory().L1Writebacks, 3u);
  EXPECT_GT(Load.Cycles, 113);
  // Dirty lines are dropped at a block start, never written.
  M.startBlock();
  M.lines(LinePath::Local, true, Slot, {64, 64});
  EXPECT_EQ(M.memory().L1Writebacks, 3u);
}

TEST(LsuCostModel, LocalWriteThroughSendsEveryStore) {
  AcceleratorConfig C = config();
  C.L1.LocalWrites = LocalWritePolicy::WriteThrough;
  LsuCostModel M(C);
  std::vector<uint32_t> Slot = lines(2, 0xC0000000u);
  M.lines(LinePath::Local, true, Slot, {64, 64});
  M.lines(LinePath::Local, true, Slot, {64, 64});
  EXPECT_EQ(M.memory().DramRequests, 4u);
  EXPECT_EQ(M.memory().DramWriteBytes, 4u * 64);
  EXPECT_EQ(M.memory().L1Writebacks, 0u);
}

TEST(LsuCostModel, ScatteredLoadIsChannelBound) {
  // 32 lines back to back: the channel takes 4 cycles each, the last is
  // ready at 7 + 31 * 4 + 4 + 100.
  LsuCostModel M(config(64));
  LsuCost C = M.lines(LinePath::Global, false, lines(32), {});
  EXPECT_DOUBLE_EQ(C.Cycles, 113 + 31 * 4);
  EXPECT_DOUBLE_EQ(C.DramChannelCycles, 128);
}

TEST(LsuCostModel, OutstandingLimitSerialisesRequests) {
  LsuCostModel Wide(config(64)), Narrow(config(4));
  double Free = Wide.lines(LinePath::Global, false, lines(16), {}).Cycles;
  double Limited = Narrow.lines(LinePath::Global, false, lines(16), {}).Cycles;
  // 16 requests, 4 in flight: four rounds of the 100-cycle latency.
  EXPECT_GT(Limited, 4 * 100);
  EXPECT_GT(Limited, Free + 200);
}

TEST(LsuCostModel, AMissTakesItsWayWhenTheResponseComes) {
  // Four lines of one set (16 KiB, 4 ways, 64 B lines: 64 sets, a set
  // every 4 KiB) fill its ways; the victim pointer is back at way 0, which
  // holds the first. An instruction missing a fifth line of the set and
  // then reading the first: the miss reserves way 0 but writes it only
  // when its response comes, so the first line still hits, as on the rtl
  // (its LSU writes the tag on the response). Afterwards the fifth line is
  // in, the first is gone.
  LsuCostModel M(config());
  std::vector<uint32_t> Set0 = {0x100000, 0x101000, 0x102000, 0x103000};
  M.lines(LinePath::Global, false, Set0, {});
  ASSERT_EQ(M.memory().L1Misses, 4u);
  M.lines(LinePath::Global, false, {0x104000, 0x100000}, {});
  EXPECT_EQ(M.memory().L1Misses, 5u);
  EXPECT_EQ(M.memory().L1Hits, 1u);
  M.lines(LinePath::Global, false, {0x104000}, {});
  EXPECT_EQ(M.memory().L1Hits, 2u);
  M.lines(LinePath::Global, false, {0x100000}, {});
  EXPECT_EQ(M.memory().L1Misses, 6u);
}

TEST(LsuCostModel, IdleCyclesDrainTheDramQueue) {
  // A store's DRAM slot stays taken until the write is done (~105 cycles),
  // though the store itself leaves the LSU after 9. With 4 slots, a fifth
  // store straight after four waits for the first slot; after the LSU sat
  // idle 200 cycles (idleUntil: the walk's issue cycle) it waits for
  // nothing (spmv_merge's stores under gto cost the model 100 cycles where
  // the rtl took 20 before the LSU model ran on the walk's clock).
  LsuCostModel Busy(config(4)), Idle(config(4));
  double First = 0;
  for (unsigned K = 0; K < 4; ++K) {
    uint32_t Line = 0x200000 + 64 * K;
    First = Busy.lines(LinePath::Global, true, {Line}, {4}).Cycles;
    Idle.lines(LinePath::Global, true, {Line}, {4});
  }
  Idle.idleUntil(Idle.now() + 200);
  EXPECT_GT(Busy.lines(LinePath::Global, true, {0x300000}, {4}).Cycles, First + 50);
  EXPECT_DOUBLE_EQ(Idle.lines(LinePath::Global, true, {0x300000}, {4}).Cycles, First);
  // A parameter load is answered on the core, but its request waits for
  // room on the DRAM channels like any other (the harness's mem_req_ready):
  // behind four stores in flight it waits for the first.
  LsuCostModel Params(config(4));
  for (unsigned K = 0; K < 4; ++K)
    Params.lines(LinePath::Global, true, {0x200000 + 64 * K}, {4});
  EXPECT_GT(Params.lines(LinePath::OnCore, false, {0}, {}).Cycles, 11 + 50);
  EXPECT_DOUBLE_EQ(Params.lines(LinePath::OnCore, false, {0}, {}).Cycles, 11);
  // The clock never runs back.
  double Now = Idle.now();
  Idle.idleUntil(Now - 100);
  EXPECT_DOUBLE_EQ(Idle.now(), Now);
}

TEST(LsuCostModel, GlobalAtomicLanesGoOutOneACycleUpToTheChannelsRoom) {
  // One lane: registered at 6, accepted at 7, one cycle on the channel,
  // ready at 108, write-back 109, next issue 110. Further lanes go out one
  // a cycle without waiting for responses: three lanes' responses at 108,
  // 109 and 110, next issue 112. A 17th lane waits for room on the channel
  // (dram.max_outstanding 16): the first lane's slot frees at 108, so it
  // goes then and is ready at 210. The rtl agrees on one atomicAdd per
  // thread of a 1, 3, 16, 17 and 32-thread block, contended or not (162,
  // 164, 177, 264 and 279 cycles with the launch's other instructions).
  LsuCostModel M(config());
  EXPECT_DOUBLE_EQ(M.globalAtomic({0x2000}).Cycles, 110);
  EXPECT_DOUBLE_EQ(M.globalAtomic({0x2000, 0x2004, 0x2008}).Cycles, 112);
  LsuCostModel Contended(config());
  EXPECT_DOUBLE_EQ(Contended.globalAtomic(std::vector<uint32_t>(16, 0x2000)).Cycles, 110 + 15);
  LsuCostModel Over(config());
  EXPECT_DOUBLE_EQ(Over.globalAtomic(std::vector<uint32_t>(17, 0x2000)).Cycles, 212);
}

TEST(LsuCostModel, ALoadWaitingInASlotFreesTheFrontEnd) {
  // lsu.in_flight 2: the one-line miss of OneMissIsLatencyPlusPipeline sends
  // its request at 6, sees it out at 7 and moves to a slot then: the LSU
  // takes the next instruction at 8. The load is done as before: its
  // response at 111, its write-back at 112, its warp issues at 113.
  AcceleratorConfig C = config();
  C.Lsu.InFlight = 2;
  LsuCostModel M(C);
  LsuCost First = M.lines(LinePath::Global, false, lines(1), {});
  EXPECT_DOUBLE_EQ(First.Cycles, 8);
  EXPECT_DOUBLE_EQ(First.DoneCycles, 113);
  // A second miss issues at 8, sends at 14 (the channel is free from 11),
  // ready at 15 + 4 + 100 = 119. The only other slot is busy until the
  // first load's write-back at 112; at 113 the second moves there, and the
  // LSU takes the next instruction at 114. The load writes back at 120.
  LsuCost Second = M.lines(LinePath::Global, false, lines(1, 0x200000), {});
  EXPECT_DOUBLE_EQ(Second.Cycles, 114 - 8);
  EXPECT_DOUBLE_EQ(Second.DoneCycles, 121 - 8);
  // At in_flight 1 nothing moves to a slot: the LSU is free when the load
  // is done.
  LsuCostModel One(config());
  LsuCost Alone = One.lines(LinePath::Global, false, lines(1), {});
  EXPECT_DOUBLE_EQ(Alone.Cycles, 113);
  EXPECT_DOUBLE_EQ(Alone.DoneCycles, 113);
}

TEST(LsuCostModel, AStoreKeepsAnOlderFillOutOfTheL1) {
  // A load miss waits in a slot; a store to its line goes out before the
  // response: the response's bytes predate the store, so the line does not
  // enter the L1 and the next load of it misses (the rtl's
  // RtlLsuInFlight.AStoreKeepsAnOlderFillOutOfTheL1).
  AcceleratorConfig C = config();
  C.Lsu.InFlight = 2;
  LsuCostModel M(C);
  M.lines(LinePath::Global, false, lines(1), {});
  M.lines(LinePath::Global, true, lines(1), {64});
  M.idleUntil(500);
  M.lines(LinePath::Global, false, lines(1), {});
  EXPECT_EQ(M.memory().L1Hits, 0u);
  EXPECT_EQ(M.memory().L1Misses, 2u);
  // Without the store the fill enters the L1 and the load hits.
  LsuCostModel N(C);
  N.lines(LinePath::Global, false, lines(1), {});
  N.idleUntil(500);
  N.lines(LinePath::Global, false, lines(1), {});
  EXPECT_EQ(N.memory().L1Hits, 1u);
}

TEST(LsuCostModel, AMissOnALineBeingFilledMergesOntoTheFill) {
  // lsu.in_flight 2: the first load's miss waits in a slot, its response at
  // 111. The second load of the line, issued at 8, finds it on its way:
  // no request (one DRAM request in all), a miss, and its lanes take the
  // first's response: its line cycle at 14, all lanes seen out at 15, the
  // only other slot busy until the first load's write-back at 112, so it
  // stays in the front end; the response at 111 completes its lanes, which
  // S_LINES sees at 112: write-back 113, its warp issues at 114.
  AcceleratorConfig C = config();
  C.Lsu.InFlight = 2;
  LsuCostModel M(C);
  M.lines(LinePath::Global, false, lines(1), {});
  LsuCost Second = M.lines(LinePath::Global, false, lines(1), {});
  EXPECT_EQ(M.memory().DramRequests, 1u);
  EXPECT_EQ(M.memory().L1Misses, 2u);
  EXPECT_EQ(M.memory().L1Hits, 0u);
  EXPECT_DOUBLE_EQ(Second.DoneCycles, 114 - 8);
  EXPECT_DOUBLE_EQ(Second.Cycles, 114 - 8);
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
  // Atomics: a bank serves one lane a cycle, so lanes on one word go one
  // after another; lanes on distinct banks together.
  EXPECT_EQ(sharedRounds(Unit, ~0u, 8, 8, /*Atomic=*/true), 4u);
  EXPECT_EQ(sharedRounds(Stride8, ~0u, 8, 8, /*Atomic=*/true), 32u);
  EXPECT_EQ(sharedRounds(Same, ~0u, 8, 8, /*Atomic=*/true), 32u);
  EXPECT_EQ(sharedRounds({64}, 1u << 9, 8, 8, /*Atomic=*/true), 4u)
      << "one lane: a cycle a sub-warp";
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
  EXPECT_DOUBLE_EQ(B.Segments[1].Warps[0].Service[Lsu], 113);    // one miss
  EXPECT_DOUBLE_EQ(B.Segments[1].Warps[1].Service[Lsu], 0);
  EXPECT_EQ(L.WarpInstructions, 8u);
  EXPECT_EQ(T.malformedLines(), 1u);
}

namespace {

/// L1 hits and misses the profiler predicts for 8 warps that each load
/// their spill slot at local address 0 twice (all 32 lanes: two lines a
/// warp), with \p LaunchExtra appended to the launch line.
MemoryEstimate twoSpillReloadsPerWarp(llvm::StringRef LaunchExtra) {
  TraceProfiler T(config());
  T << "# launch kernel=k grid=1,1,1 block=256,1,1" << LaunchExtra << "\n";
  std::string Zeros = "00000000";
  for (int L = 1; L < 32; ++L)
    Zeros += " 00000000";
  for (int Pass = 0; Pass < 2; ++Pass)
    for (int W = 0; W < 8; ++W)
      T << "b=0 w=" << W << " pc=0x000" << 4 * Pass << " mask=ffffffff ld.local.u32 r4, [r0 + 0] | r4=["
        << Zeros << "] a=[" << Zeros << "]\n";
  T.finish();
  return T.launches()[0].Memory;
}

} // namespace

TEST(TraceProfiler, LocalLinesOfEachWarpFallWhereTheRtlPutsThem) {
  // The rtl gives warp w the local bytes [base + w * stride, ...) with
  // stride = 32 lanes x the kernel's local bytes per thread (4 here): the 8
  // warps' slots are 16 consecutive lines in 16 sets, and every second
  // reload hits. Without the launch's local= the warps got 1 MiB apart,
  // all in one set pair of the 4-way L1: every reload missed.
  MemoryEstimate Known = twoSpillReloadsPerWarp(" local=4");
  EXPECT_EQ(Known.L1Misses, 16u);
  EXPECT_EQ(Known.L1Hits, 16u);
  MemoryEstimate Unknown = twoSpillReloadsPerWarp("");
  EXPECT_EQ(Unknown.L1Misses, 32u);
}

namespace {

/// The dependency cycles of one warp running \p Lines (trace instructions).
double dependencyOf(const std::vector<std::string> &Lines) {
  TraceProfiler T(config());
  T << "# launch kernel=k grid=1,1,1 block=32,1,1\n";
  for (const std::string &L : Lines)
    T << "b=0 w=0 pc=0x0000 mask=ffffffff " << L << " | r1=[0]\n";
  T.finish();
  double D = 0;
  for (const SegmentProfile &S : T.launches()[0].Blocks[0].Segments)
    for (const WarpDemand &W : S.Warps)
      D += W.DependencyCycles;
  return D;
}

} // namespace

TEST(TraceProfiler, ScoreboardChargesOnlyDependentInstructions) {
  // The rtl issues a warp's next instruction once every register it names
  // is ready (docs/RTL.md, Scoreboard): an ALU result is ready
  // max(latency, 32/LANES + 1) = 5 cycles after issue at 8 lanes, one more
  // than the 4 cycles the datapath streams, so a chain waits 1 cycle per
  // link and independent instructions wait for nothing.
  std::vector<std::string> Chain, Independent;
  for (int I = 0; I < 10; ++I) {
    Chain.push_back("add r3, r3, r1");
    Independent.push_back("add r" + std::to_string(4 + I) + ", r1, r2");
  }
  double PerLink = std::max<double>(simt::getSchedClassDesc(simt::getDesc(simt::Opcode::ADD).Sched)
                                        .Latency,
                                    config().cyclesPerWarpInstr() + 1) -
                   config().cyclesPerWarpInstr();
  EXPECT_DOUBLE_EQ(dependencyOf(Chain), 9 * PerLink);
  EXPECT_DOUBLE_EQ(dependencyOf(Independent), 0);
}

TEST(SimtModel, OneLongWarpIsItsOwnPathNotTwice) {
  // Thread-per-row SpMV on a matrix with one long row: one warp of the
  // block runs a long loop while the others finish early. Trace: warp 0 a
  // chain of 400 dependent adds (5 cycles each alone: 4 streaming + 1
  // scoreboard wait), warps 1..3 eight each. The block takes about warp
  // 0's own path (400 x 5) plus at most the others' datapath time; before
  // 2026-12-01 the windows' tail was charged and then the load imbalance
  // (~400 cycles) again on top.
  TraceProfiler T(config());
  T << "# launch kernel=rows grid=1,1,1 block=128,1,1\n";
  for (int W = 0; W < 4; ++W)
    for (int I = 0; I < (W == 0 ? 400 : 8); ++I)
      T << "b=0 w=" << W << " pc=0x0000 mask=ffffffff add r3, r3, r1 | r3=[0]\n";
  T.finish();
  const LaunchProfile &L = T.launches()[0];
  ASSERT_GT(L.Blocks[0].Segments[0].Windows.size(), 1u);
  Prediction P = predictLaunch(L);
  double Alone = 400 * 5, Others = 3 * 8 * 4;
  EXPECT_GE(P.Cycles, Alone);
  EXPECT_LE(P.Cycles, Alone + Others + ModelParams().BlockOverheadCycles);
  EXPECT_GT(P.Parts.LoadImbalance, 0);
  EXPECT_NEAR(P.Parts.total(), P.Cycles, 1e-6);
}

namespace {

llvm::json::Object profileWith(double ChaseDram, const char *Metric = "cycles") {
  auto Probe = [](double V) { return llvm::json::Object{{"value", V}}; };
  return llvm::json::Object{
      {"metric", Metric},
      {"probes", llvm::json::Object{{"chase_dram", Probe(ChaseDram)},
                                    {"chase_l1", Probe(9.234)},
                                    {"iadd_lat", Probe(5.102)},
                                    {"fma_lat", Probe(5.234)}}}};
}

} // namespace

TEST(DeviceProfile, DoubledDramLatencyDoublesTheModelsMissLatency) {
  // The rtl's own profile (docs/Profile.md) gives back the configured 100.
  llvm::Expected<ModelLatencies> Rtl = latenciesFromProfile(profileWith(113.234), "rtl.json");
  ASSERT_TRUE(bool(Rtl)) << llvm::toString(Rtl.takeError());
  EXPECT_NEAR(Rtl->DramLatencyCycles, 100, 1e-9);
  EXPECT_NEAR(Rtl->AluReadyCycles, 5.102, 1e-9);
  // A device whose DRAM answers in 200 cycles: the chase takes 100 more.
  llvm::Expected<ModelLatencies> Slow =
      latenciesFromProfile(profileWith(113.234 + 100), "slow.json");
  ASSERT_TRUE(bool(Slow)) << llvm::toString(Slow.takeError());
  EXPECT_NEAR(Slow->DramLatencyCycles, 200, 1e-9);

  auto OneMiss = [](const ModelLatencies &L) {
    TraceProfiler T(withProfileLatencies(config(), L), &L);
    T << "# launch kernel=k grid=1,1,1 block=32,1,1\n"
      << "b=0 w=0 pc=0x0000 mask=00000001 ld.global.u32 r4, [r1 + 0] | r4=[1] a=[00100000]\n"
      << "b=0 w=0 pc=0x0004 mask=ffffffff exit | exec=00000000 alive=00000000\n";
    T.finish();
    return predictLaunch(T.launches()[0]).Cycles;
  };
  EXPECT_NEAR(OneMiss(*Slow) - OneMiss(*Rtl), 100, 1e-6);

  // A chain probe whose code spilled (a 4-register configuration) waited
  // on local memory too: its figure is not the unit's latency, and the
  // model keeps the generated tables for that unit (0: not measured).
  llvm::json::Object Spilled = profileWith(113.234);
  Spilled.getObject("probes")->getObject("iadd_lat")->insert(
      {"delta", llvm::json::Object{{"local_load_bytes", 256}, {"local_store_bytes", 256}}});
  (*Spilled.getObject("probes")->getObject("iadd_lat"))["value"] = 12.35;
  llvm::Expected<ModelLatencies> Small = latenciesFromProfile(Spilled, "r4.json");
  ASSERT_TRUE(bool(Small)) << llvm::toString(Small.takeError());
  EXPECT_EQ(Small->AluReadyCycles, 0);
  EXPECT_NEAR(Small->FpuReadyCycles, 5.234, 1e-9);
  auto AddChain = [](const ModelLatencies *L) {
    TraceProfiler T(config(), L);
    T << "# launch kernel=k grid=1,1,1 block=32,1,1\n"
      << "b=0 w=0 pc=0x0000 mask=ffffffff add r1, r1, r2 | r1=[0]\n"
      << "b=0 w=0 pc=0x0004 mask=ffffffff add r1, r1, r2 | r1=[0]\n";
    T.finish();
    return predictLaunch(T.launches()[0]).Cycles;
  };
  EXPECT_EQ(AddChain(&*Small), AddChain(nullptr));

  // An iss profile counts instructions: refused, saying so.
  llvm::Expected<ModelLatencies> Iss =
      latenciesFromProfile(profileWith(1.078, "warp_instructions"), "iss.json");
  ASSERT_FALSE(bool(Iss));
  std::string Why = llvm::toString(Iss.takeError());
  EXPECT_NE(Why.find("iss.json"), std::string::npos) << Why;
  EXPECT_NE(Why.find("warp_instructions"), std::string::npos) << Why;
}

TEST(DeviceProfile, AChainProbeShiftsEveryInstructionOfItsUnit) {
  // At 32 lanes (a 1-cycle stream) the add chain probe reads 2 cycles a
  // step, the tables' add latency: a multiply (4 in the tables, on the
  // same ALU) keeps its 4. Before 2026-12-02 the probe's 2 replaced it, and
  // spmm came out 175 cycles short at 32 lanes.
  AcceleratorConfig Wide;
  Wide.Lanes = 32;
  auto MulAddAdd = [&](const ModelLatencies *L) {
    TraceProfiler T(Wide, L);
    T << "# launch kernel=k grid=1,1,1 block=32,1,1\n"
      << "b=0 w=0 pc=0x0000 mask=ffffffff mul r1, r1, r2 | r1=[0]\n"
      << "b=0 w=0 pc=0x0004 mask=ffffffff add r3, r1, r2 | r3=[0]\n"
      << "b=0 w=0 pc=0x0008 mask=ffffffff add r4, r3, r2 | r4=[0]\n";
    T.finish();
    return predictLaunch(T.launches()[0]).Cycles;
  };
  ModelLatencies Rtl;
  Rtl.AluReadyCycles = 2.01;
  Rtl.FpuReadyCycles = 4.0;
  EXPECT_EQ(MulAddAdd(&Rtl), MulAddAdd(nullptr));
  // A device whose add chain takes 3 a step: every ALU result is ready a
  // cycle later, the multiply's too (two dependent steps: 2 cycles).
  ModelLatencies Slow = Rtl;
  Slow.AluReadyCycles = 3.0;
  EXPECT_EQ(MulAddAdd(&Slow), MulAddAdd(nullptr) + 2);
}

namespace {
/// One warp: an add, a load that misses, two adds.
constexpr const char *OneWarpTrace =
    "# launch kernel=k grid=1,1,1 block=32,1,1\n"
    "b=0 w=0 pc=0x0000 mask=ffffffff add r1, r2, r3 | r1=[0]\n"
    "b=0 w=0 pc=0x0004 mask=00000001 ld.global.u32 r4, [r1 + 0] | r4=[1] a=[00100000]\n"
    "b=0 w=0 pc=0x0008 mask=ffffffff add r5, r2, r3 | r5=[0]\n"
    "b=0 w=0 pc=0x000c mask=ffffffff add r6, r2, r3 | r6=[0]\n";
} // namespace

TEST(TraceProfiler, CutsEachWarpIntoRoundsAtItsMemoryInstructions) {
  // One warp: an add, a load that misses, two adds. Its rounds: the add and
  // the load (4 datapath cycles, the miss's 113 LSU cycles, issue to next
  // issue), then the two adds (8 cycles, no memory).
  TraceProfiler T(config(), nullptr, /*CollectRounds=*/true);
  T << OneWarpTrace;
  T.finish();
  const SegmentProfile &S = T.launches()[0].Blocks[0].Segments[0];
  ASSERT_EQ(S.Steps.size(), 1u);
  ASSERT_EQ(S.Steps[0].size(), 2u);
  EXPECT_EQ(S.Steps[0][0].Instructions, 1u);
  EXPECT_EQ(S.Steps[0][1].Instructions, 2u);
  EXPECT_DOUBLE_EQ(S.Steps[0][0].Datapath, 4);
  EXPECT_TRUE(S.Steps[0][0].HasMemory);
  EXPECT_DOUBLE_EQ(S.Steps[0][0].Lsu, 113);
  EXPECT_DOUBLE_EQ(S.Steps[0][1].Datapath, 8);
  EXPECT_FALSE(S.Steps[0][1].HasMemory);
  EXPECT_DOUBLE_EQ(S.Steps[0][1].Lsu, 0);
  // Each issue's own stall, in order (the add and the load; the two adds),
  // summing to the step's Dependency.
  for (const WarpStep &Step : S.Steps[0]) {
    ASSERT_EQ(Step.Stalls.size(), Step.Instructions + (Step.HasMemory ? 1u : 0u));
    double Sum = 0;
    for (float X : Step.Stalls)
      Sum += X;
    EXPECT_DOUBLE_EQ(Sum, Step.Dependency);
  }
}

TEST(TraceProfiler, ALoadsStallCountsFromTheCycleAfterTheWarpsDatapathIssue) {
  // The rtl issues a warp's memory instruction the cycle after its
  // datapath instruction when their registers allow: the load of
  // OneWarpTrace, which reads the add's r1, waits for r1 (ready
  // max(latency, 32/LANES + 1) cycles after the add) less that one cycle;
  // a load of another register waits for nothing.
  auto loadStall = [](const std::string &Load) {
    TraceProfiler T(config(), nullptr, /*CollectRounds=*/true);
    T << "# launch kernel=k grid=1,1,1 block=32,1,1\n"
         "b=0 w=0 pc=0x0000 mask=ffffffff add r1, r2, r3 | r1=[0]\n"
         "b=0 w=0 pc=0x0004 mask=00000001 " << Load << " | r4=[1] a=[00100000]\n";
    T.finish();
    const WarpStep &Step = T.launches()[0].Blocks[0].Segments[0].Steps[0][0];
    EXPECT_EQ(Step.Stalls.size(), 2u);
    return Step.Stalls.back();
  };
  double AddReady = std::max<double>(
      simt::getSchedClassDesc(simt::getDesc(simt::Opcode::ADD).Sched).Latency,
      config().cyclesPerWarpInstr() + 1);
  EXPECT_DOUBLE_EQ(loadStall("ld.global.u32 r4, [r1 + 0]"), AddReady - 1);
  EXPECT_DOUBLE_EQ(loadStall("ld.global.u32 r4, [r2 + 0]"), 0);
}

TEST(TraceProfiler, BuildsNoRoundsUnlessAsked) {
  // Rounds are only for ModelParams::CostInRounds: without CollectRounds
  // the profile has none, and everything else is the same as with them.
  TraceProfiler Off(config(), nullptr, /*CollectRounds=*/false);
  TraceProfiler On(config(), nullptr, /*CollectRounds=*/true);
  Off << OneWarpTrace;
  On << OneWarpTrace;
  Off.finish();
  On.finish();
  const SegmentProfile &A = Off.launches()[0].Blocks[0].Segments[0];
  const SegmentProfile &B = On.launches()[0].Blocks[0].Segments[0];
  EXPECT_TRUE(A.Steps.empty());
  EXPECT_FALSE(B.Steps.empty());
  ASSERT_EQ(A.Warps.size(), B.Warps.size());
  EXPECT_EQ(A.Warps[0].Service, B.Warps[0].Service);
  EXPECT_EQ(A.Warps[0].DependencyCycles, B.Warps[0].DependencyCycles);
  EXPECT_EQ(A.Windows.size(), B.Windows.size());
  ModelParams Windows; // the windows cost both the same
  Windows.CostInRounds = false;
  EXPECT_EQ(predictLaunch(Off.launches()[0], Windows).Cycles,
            predictLaunch(On.launches()[0], Windows).Cycles);
  // The collection follows the model's default when not given.
  TraceProfiler Default(config());
  Default << OneWarpTrace;
  Default.finish();
  EXPECT_EQ(Default.launches()[0].Blocks[0].Segments[0].Steps.empty(),
            !ModelParams().CostInRounds);
}

namespace {

/// The LSU cycles of each warp of a block of two warps that each load two
/// lines (warp 0 lines 0 and 1, warp 1 lines 2 and 3) and then three (its
/// own two and the next warp's first: rowPtr[row] then rowPtr[row + 1] in
/// thread-per-row SpMV), with \p Between (an instruction, or nothing)
/// between a warp's two loads, profiled under \p C, with or without rounds.
std::vector<double> twoLoadLsuCycles(const std::string &Between,
                                     const AcceleratorConfig &C = config(),
                                     bool CollectRounds = true) {
  TraceProfiler T(C, nullptr, CollectRounds);
  T << "# launch kernel=k grid=1,1,1 block=64,1,1\n";
  const char *Addrs[2][2] = {{"00100000 00100040", "00100000 00100040 00100080"},
                             {"00100080 001000c0", "00100080 001000c0 00100100"}};
  for (unsigned W = 0; W < 2; ++W) {
    std::string Warp = "b=0 w=" + std::to_string(W) + " pc=0x0000 ";
    T << Warp << "mask=00000007 ld.global.u32 r4, [r2 + 0] | r4=[0 0 0] a=[" << Addrs[W][0]
      << "]\n";
    if (!Between.empty())
      T << Warp << "mask=ffffffff " << Between << " | r5=[0]\n";
    T << Warp << "mask=00000007 ld.global.u32 r6, [r2 + 0] | r6=[0 0 0] a=[" << Addrs[W][1]
      << "]\n";
  }
  T.finish();
  std::vector<double> Out;
  for (const WarpDemand &W : T.launches()[0].Blocks[0].Segments[0].Warps)
    Out.push_back(W.Service[Lsu]);
  return Out;
}

} // namespace

TEST(TraceProfiler, ReplaysTheL1InTheOrderTheSchedulerIssues) {
  // Round-robin: when warp 0's first load is done (117 cycles, two
  // misses), warp 1's first is also waiting, and the pointer still names
  // warp 0, so warp 1 loads first (117) and warp 0's second finds its three
  // lines filled (11); warp 1's second misses line 4 (115).
  const std::vector<double> Rr = {117 + 11, 117 + 115};
  EXPECT_EQ(twoLoadLsuCycles(""), Rr);
  // An instruction between a warp's loads changes nothing here: warp 1's
  // first load is still ahead of warp 0's second.
  EXPECT_EQ(twoLoadLsuCycles("add r5, r2, r3"), Rr);
  // gto: warp 0, the last issuer, is ready for its second load when the
  // first is done and keeps going; its second load now misses warp 1's
  // first line (115), which warp 1's first load then finds (114: one miss).
  AcceleratorConfig Gto = config();
  Gto.Scheduler = WarpScheduler::GreedyThenOldest;
  const std::vector<double> Greedy = {117 + 115, 114 + 115};
  EXPECT_EQ(twoLoadLsuCycles("", Gto), Greedy);
  // Without rounds there is no issue order: round-robin across warps, a
  // warp's back-to-back loads together, whatever the policy.
  EXPECT_EQ(twoLoadLsuCycles("", config(), /*CollectRounds=*/false), Greedy);
  EXPECT_EQ(twoLoadLsuCycles("", Gto, /*CollectRounds=*/false), Greedy);
}
