//===- SchedulerTest.cpp - The warp scheduler policy, chosen at run time --===//
//
// The configuration's `scheduler` ("rr" round-robin, "gto" greedy-then-
// oldest) is an input the core latches at each block start, so one
// Verilated model runs both. These tests show:
// - every sample computes the same results (its CPU reference passes) with
//   the same instruction counts, per-warp commit traces and every counter
//   iss reports, under either policy (round-robin in RtlTest.cpp,
//   greedy-then-oldest here), and the policy changes a sample's cycles;
// - the policies really differ where they should: on a program of
//   independent instructions, greedy-then-oldest keeps issuing one warp until
//   it finishes (the commit order switches warp once per warp), round-robin
//   rotates through the warps at every issue.
// The random programs of the differ run against iss under "gto" as a ctest
// entry (tests/rtl/CMakeLists.txt, configs/gto.json).
//
//===----------------------------------------------------------------------===//

#include "Assembler.h"
#include "Samples.h"
#include "SamplesAsOnIss.h"

#include "tandem/Runtime.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

using namespace tandem;
using namespace llvm;

namespace {

std::unique_ptr<Device> openRtl(WarpScheduler Policy, raw_ostream *Trace = nullptr) {
  AcceleratorConfig C;
  C.Scheduler = Policy;
  return rtltest::openRtlWith(C, Trace);
}

// Round-robin against iss is Rtl.EverySampleAgreesWithIss (RtlTest.cpp);
// the same here under greedy-then-oldest, so both policies compute the same.
TEST(RtlScheduler, GreedyThenOldestComputesWhatIssComputesOnEverySample) {
  std::string GtoTrace;
  raw_string_ostream GtoOS(GtoTrace);
  auto Gto = openRtl(WarpScheduler::GreedyThenOldest, &GtoOS);
  ASSERT_TRUE(Gto);
  rtltest::expectEverySampleAsOnIss(*Gto, GtoTrace, "gto", 5);
}

// The policy reaches the core: the same work takes other cycles.
// (transpose: 62,061 cycles under rr, 58,124 under gto when written.)
TEST(RtlScheduler, PolicyChangesTheCyclesNotTheWork) {
  Counters C[2];
  for (WarpScheduler P :
       {WarpScheduler::RoundRobin, WarpScheduler::GreedyThenOldest}) {
    auto D = openRtl(P);
    ASSERT_TRUE(D);
    samples::SampleOptions O;
    O.Seed = 5;
    O.Only = {"transpose"};
    auto R = samples::runSample(*D, "transpose", O);
    ASSERT_TRUE(bool(R)) << toString(R.takeError());
    EXPECT_TRUE(R->Passed) << R->Message;
    C[P == WarpScheduler::GreedyThenOldest] = R->Counters;
  }
  EXPECT_NE(C[0].get("cycles"), C[1].get("cycles"));
  EXPECT_EQ(C[0].get("warp_instructions"), C[1].get("warp_instructions"));
  EXPECT_EQ(C[0].get("thread_instructions"), C[1].get("thread_instructions"));
}

/// Eight independent instructions per warp: nothing but the shared datapath
/// ever holds a warp back, so the order is the scheduler's alone.
constexpr const char *Independent = R"(
.kernel k
    addi r1, r0, 1
    addi r2, r0, 2
    addi r3, r0, 3
    addi r4, r0, 4
    addi r5, r0, 5
    addi r6, r0, 6
    addi r7, r0, 7
    addi r8, r0, 8
    exit
)";
constexpr unsigned Warps = 4, InstrsPerWarp = 9;

/// The warp of every committed instruction, in commit order.
std::vector<unsigned> commitOrder(WarpScheduler Policy) {
  std::string Trace;
  raw_string_ostream OS(Trace);
  auto D = openRtl(Policy, &OS);
  if (!D)
    return {};
  auto Img = assemble(Independent, "independent.s");
  if (!Img) {
    ADD_FAILURE() << toString(Img.takeError());
    return {};
  }
  if (Error E = D->loadImage(*Img)) {
    ADD_FAILURE() << toString(std::move(E));
    return {};
  }
  LaunchParams P;
  P.Kernel = "k";
  P.Block.X = Warps * 32;
  if (Error E = D->launch(P)) {
    ADD_FAILURE() << toString(std::move(E));
    return {};
  }
  std::vector<unsigned> Order;
  SmallVector<StringRef, 0> Lines;
  StringRef(Trace).split(Lines, '\n', -1, false);
  for (StringRef L : Lines) {
    unsigned W;
    size_t At = L.find(" w=");
    if (L.starts_with("b=") && At != StringRef::npos &&
        !L.substr(At + 3).take_until([](char C) { return C == ' '; })
             .getAsInteger(10, W))
      Order.push_back(W);
  }
  return Order;
}

unsigned warpSwitches(const std::vector<unsigned> &Order) {
  unsigned N = 0;
  for (size_t I = 1; I < Order.size(); ++I)
    N += Order[I] != Order[I - 1];
  return N;
}

TEST(RtlScheduler, GreedyThenOldestKeepsIssuingOneWarp) {
  std::vector<unsigned> Gto = commitOrder(WarpScheduler::GreedyThenOldest);
  ASSERT_EQ(Gto.size(), Warps * InstrsPerWarp);
  // Warp 0 runs to its exit, then warp 1 (the oldest left), and so on.
  for (size_t I = 0; I < Gto.size(); ++I) {
    EXPECT_EQ(Gto[I], I / InstrsPerWarp) << "commit " << I;
  }
  EXPECT_EQ(warpSwitches(Gto), Warps - 1);
}

TEST(RtlScheduler, RoundRobinRotatesThroughTheWarps) {
  std::vector<unsigned> Rr = commitOrder(WarpScheduler::RoundRobin);
  ASSERT_EQ(Rr.size(), Warps * InstrsPerWarp);
  for (size_t I = 0; I < Rr.size(); ++I) {
    EXPECT_EQ(Rr[I], I % Warps) << "commit " << I;
  }
  EXPECT_EQ(warpSwitches(Rr), Warps * InstrsPerWarp - 1);
}

} // namespace
