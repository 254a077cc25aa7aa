//===- SweepPointsTest.cpp - The configurations of `tandem sweep` ---------===//
//
// tools/tandem/SweepPoints.h: --set parsing, value typing, dotted keys, the
// cartesian product (its order, names and folders), and the errors a user
// meets before anything runs.

#include "SweepPoints.h"

#include "tandem/Config.h"

#include <gtest/gtest.h>

using namespace tandem;
using namespace tandem::cli;

namespace {

AcceleratorConfig base() {
  llvm::Expected<AcceleratorConfig> C = parseConfig("{}", "test");
  EXPECT_TRUE(bool(C));
  return C ? *C : AcceleratorConfig{};
}

SweepAxis axis(const char *Spec) {
  llvm::Expected<SweepAxis> A = parseSetOption(Spec);
  if (!A) {
    ADD_FAILURE() << llvm::toString(A.takeError());
    return {};
  }
  return *A;
}

std::string errorOf(llvm::Error E) { return llvm::toString(std::move(E)); }

TEST(SweepPoints, SetOptionsParse) {
  SweepAxis A = axis("l1.size_bytes= 4096, 8192");
  EXPECT_EQ(A.Key, "l1.size_bytes");
  EXPECT_EQ(A.Values, (std::vector<std::string>{"4096", "8192"}));
  for (const char *Bad : {"lanes", "=8", "lanes=", "lanes=8,,16", "lanes=8,8"}) {
    llvm::Expected<SweepAxis> E = parseSetOption(Bad);
    ASSERT_FALSE(bool(E)) << Bad;
    EXPECT_NE(errorOf(E.takeError()).find(Bad), std::string::npos) << Bad;
  }
}

TEST(SweepPoints, ValuesAreTypedAsJsonWouldBe) {
  EXPECT_EQ(sweepValue("16").getAsInteger(), std::optional<int64_t>(16));
  EXPECT_EQ(sweepValue("1.5").getAsNumber(), std::optional<double>(1.5));
  EXPECT_EQ(sweepValue("true").getAsBoolean(), std::optional<bool>(true));
  EXPECT_EQ(sweepValue("gto").getAsString(), std::optional<llvm::StringRef>("gto"));
}

TEST(SweepPoints, DottedKeysReachIntoSections) {
  llvm::json::Object O{{"lanes", 8}, {"l1", llvm::json::Object{{"ways", 4}}}};
  ASSERT_FALSE(bool(setDottedKey(O, "l1.ways", 8)));
  EXPECT_EQ(O.getObject("l1")->getInteger("ways"), std::optional<int64_t>(8));
  ASSERT_FALSE(bool(setDottedKey(O, "dram.latency_cycles", 300))); // a new section
  EXPECT_EQ(O.getObject("dram")->getInteger("latency_cycles"), std::optional<int64_t>(300));
  std::string Msg = errorOf(setDottedKey(O, "lanes.x", 1));
  EXPECT_NE(Msg.find("'lanes' is a value, not a section"), std::string::npos) << Msg;
}

// Every combination, the first --set outermost; each a validated
// configuration whose name is its folder.
TEST(SweepPoints, TheCartesianProductInOrder) {
  llvm::Expected<std::vector<SweepPoint>> P =
      expandSweep(base(), {axis("lanes=8,16"), axis("scheduler=rr,gto"),
                           axis("dram.latency_cycles=300")});
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  ASSERT_EQ(P->size(), 4u);
  EXPECT_EQ((*P)[0].Name, "lanes=8 scheduler=rr dram.latency_cycles=300");
  EXPECT_EQ((*P)[1].Name, "lanes=8 scheduler=gto dram.latency_cycles=300");
  EXPECT_EQ((*P)[3].Name, "lanes=16 scheduler=gto dram.latency_cycles=300");
  const SweepPoint &Last = (*P)[3];
  EXPECT_EQ(Last.Config.Lanes, 16u);
  EXPECT_EQ(Last.Config.Scheduler, WarpScheduler::GreedyThenOldest);
  EXPECT_EQ(Last.Config.Dram.LatencyCycles, 300u);
  EXPECT_EQ(Last.Config.WarpsPerCore, base().WarpsPerCore); // untouched keys stay
  EXPECT_EQ(Last.Folder, "lanes-16_scheduler-gto_dram.latency_cycles-300");
  EXPECT_EQ(Last.Config.Name, Last.Folder);
  ASSERT_EQ(Last.Set.size(), 3u);
  EXPECT_EQ(Last.Set[1], std::make_pair(std::string("scheduler"), std::string("gto")));
}

TEST(SweepPoints, ALongNameBecomesANumberedFolder) {
  llvm::Expected<std::vector<SweepPoint>> P =
      expandSweep(base(), {axis("l1.size_bytes=4096"), axis("l1.line_bytes=32"),
                           axis("dram.latency_cycles=300"), axis("dram.bytes_per_cycle=8")});
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  EXPECT_EQ((*P)[0].Folder, "sweep-1");
  EXPECT_EQ((*P)[0].Config.Name, "sweep-1");
}

// The configuration's own checks name the key; the option is named too.
TEST(SweepPoints, BadKeysAndValuesAreTheConfigurationsErrors) {
  llvm::Expected<std::vector<SweepPoint>> P = expandSweep(base(), {axis("lanez=16")});
  ASSERT_FALSE(bool(P));
  std::string Msg = errorOf(P.takeError());
  EXPECT_NE(Msg.find("--set lanez=16"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("'lanes'"), std::string::npos) << Msg; // the suggestion

  P = expandSweep(base(), {axis("lanes=8,7")});
  ASSERT_FALSE(bool(P));
  Msg = errorOf(P.takeError());
  EXPECT_NE(Msg.find("--set lanes=7"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("lanes: "), std::string::npos) << Msg;

  P = expandSweep(base(), {axis("lanes=8"), axis("lanes=16")});
  ASSERT_FALSE(bool(P));
  EXPECT_NE(errorOf(P.takeError()).find("given twice"), std::string::npos);

  P = expandSweep(base(), {axis("dram.latency_cycles=1,2,3,4,5,6,7,8,9"),
                           axis("dram.bytes_per_cycle=1,2,4,8,16,32,64,128")});
  ASSERT_FALSE(bool(P));
  EXPECT_NE(errorOf(P.takeError()).find("more than 64"), std::string::npos);
}

// Suite rows pair on their problem, not their launches.
TEST(SweepPoints, ASuiteInputWithoutItsLaunches) {
  EXPECT_EQ(problemOf("n=5037; vadd<<<20, 256>>>"), "n=5037");
  EXPECT_EQ(problemOf("n=1877; scan_blocks<<<8, 256>>>; scan_blocks<<<1, 256>>>"), "n=1877");
  EXPECT_EQ(problemOf("height=43, width=67; stencil5<<<(3,6,1), (32,8,1)>>>"),
            "height=43, width=67");
  EXPECT_EQ(problemOf("uniform 1500x1500, 8/row"), "uniform 1500x1500, 8/row");
  EXPECT_EQ(problemOf("a; b"), "a; b"); // no launch: whole
}

} // namespace
