//===- SeeingInsideTest.cpp - The rtl device's waveform and timeline ------===//
//
// DeviceOptions::TimelinePath: the Chrome/Perfetto trace of a launch parses
// as JSON, names one track per launched warp of every block, every track's
// intervals are in order and leave no gap, every warp instruction issued is
// one "issue" event, and a warp's intervals add up to no more than the
// launch's cycles while the blocks' tracks together cover it (all but the
// few cycles a block drains after its last warp finishes). Stall intervals
// name causes the program provokes (dependency, memory, barrier).
// DeviceOptions::WaveformPath: a VCD with the core's ports is written, and
// iss refuses both options with a message naming the rtl device.
//
//===----------------------------------------------------------------------===//

#include "SeeingInsideKernel.h"

#include "tandem/Runtime.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

using namespace tandem;
using namespace llvm;

namespace {

using namespace tandem::testing::seeing_inside;

struct Interval {
  int64_t Ts, Dur;
  std::string Name;
};

TEST(RtlSeeingInside, TimelineHasOneOrderedGaplessTrackPerWarp) {
  DeviceOptions O;
  O.TimelinePath = tempPath("json");
  Counters C;
  ASSERT_EQ(runKernel("rtl", O, &C), "");
  std::string Text = readFile(O.TimelinePath);
  sys::fs::remove(O.TimelinePath);
  Expected<json::Value> V = json::parse(Text);
  ASSERT_TRUE(bool(V)) << toString(V.takeError());
  const json::Object *Root = V->getAsObject();
  ASSERT_TRUE(Root);
  const json::Array *Events = Root->getArray("traceEvents");
  ASSERT_TRUE(Events);

  StringSet<> ThreadNames;
  std::map<std::pair<int64_t, int64_t>, std::vector<Interval>> Tracks;
  for (const json::Value &E : *Events) {
    const json::Object *Ev = E.getAsObject();
    ASSERT_TRUE(Ev);
    std::optional<StringRef> Ph = Ev->getString("ph");
    std::optional<int64_t> Pid = Ev->getInteger("pid");
    ASSERT_TRUE(Ph && Pid);
    if (*Ph == "M") {
      if (Ev->getString("name") == StringRef("thread_name"))
        ThreadNames.insert(
            (Twine(*Pid) + "/" + Twine(*Ev->getInteger("tid"))).str());
      continue;
    }
    ASSERT_EQ(*Ph, "X");
    std::optional<int64_t> Tid = Ev->getInteger("tid"),
                           Ts = Ev->getInteger("ts"),
                           Dur = Ev->getInteger("dur");
    ASSERT_TRUE(Tid && Ts && Dur);
    EXPECT_GT(*Dur, 0);
    Tracks[{*Pid, *Tid}].push_back(
        {*Ts, *Dur, Ev->getString("name").value_or("").str()});
  }

  unsigned Warps = (Threads + 31) / 32;
  EXPECT_EQ(Tracks.size(), size_t(Blocks * Warps));
  EXPECT_EQ(ThreadNames.size(), size_t(Blocks * Warps));
  int64_t Cycles = int64_t(C.get("cycles"));
  ASSERT_GT(Cycles, 0);
  uint64_t Issues = 0;
  StringSet<> Causes;
  DenseMap<int64_t, int64_t> BlockBegin, BlockEnd;
  for (auto &[Key, Track] : Tracks) {
    int64_t Sum = 0;
    for (size_t I = 0; I < Track.size(); ++I) {
      if (I) {
        EXPECT_EQ(Track[I].Ts, Track[I - 1].Ts + Track[I - 1].Dur)
            << "block " << Key.first << " warp " << Key.second << ": interval "
            << I << " does not start where the last ended";
      }
      Sum += Track[I].Dur;
      Issues += Track[I].Name == "issue";
      Causes.insert(Track[I].Name);
    }
    EXPECT_LE(Sum, Cycles);
    auto [It, New] = BlockBegin.try_emplace(Key.first, Track.front().Ts);
    if (!New)
      It->second = std::min(It->second, Track.front().Ts);
    BlockEnd[Key.first] = std::max(BlockEnd.lookup(Key.first),
                                   Track.back().Ts + Track.back().Dur);
  }
  EXPECT_EQ(Issues, C.get("warp_instructions"));
  int64_t Covered = 0;
  for (auto &[Block, Begin] : BlockBegin)
    Covered += BlockEnd[Block] - Begin;
  EXPECT_LE(Covered, Cycles);
  // A block drains a few cycles after its last warp's exit issues (the
  // datapath streams it); nothing else is outside the tracks.
  EXPECT_GE(Covered, Cycles - int64_t(Blocks) * 16);
  for (const char *Cause :
       {"stall: dependency", "stall: memory", "stall: barrier"})
    EXPECT_TRUE(Causes.contains(Cause)) << Cause;
}

TEST(RtlSeeingInside, WaveformIsAVcdOfTheCoresPorts) {
  DeviceOptions O;
  O.WaveformPath = tempPath("vcd");
  ASSERT_EQ(runKernel("rtl", O), "");
  std::string Text = readFile(O.WaveformPath);
  sys::fs::remove(O.WaveformPath);
  ASSERT_FALSE(Text.empty());
  StringRef Vcd(Text);
  EXPECT_TRUE(Vcd.contains("$timescale"));
  EXPECT_TRUE(Vcd.contains("$scope module simt_core $end"));
  for (const char *Port : {" clk ", " done ", " issue_valid ", " cnt_cycles "})
    EXPECT_TRUE(Vcd.contains(Port)) << Port;
  EXPECT_TRUE(Vcd.contains("\n#1\n")) << "no value changes dumped";
}

TEST(RtlSeeingInside, IssRefusesWaveformAndTimeline) {
  DeviceOptions O;
  O.WaveformPath = tempPath("vcd");
  EXPECT_NE(runKernel("iss", O).find("only by the rtl device"),
            std::string::npos);
  sys::fs::remove(O.WaveformPath);
  DeviceOptions T;
  T.TimelinePath = "unused.json";
  EXPECT_NE(runKernel("iss", T).find("only by the rtl device"),
            std::string::npos);
}

TEST(RtlSeeingInside, UnwritableTimelineIsAnError) {
  DeviceOptions O;
  O.TimelinePath = "/nonexistent-dir/timeline.json";
  EXPECT_NE(runKernel("rtl", O).find("cannot write '/nonexistent-dir/"),
            std::string::npos);
}

} // namespace
