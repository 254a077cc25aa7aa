//===- ConfigTest.cpp - The accelerator configuration file ----------------===//
//
// The default file, the round trip through configToJson, and one test per
// kind of error, each checking the exact message a user would read.
//
//===----------------------------------------------------------------------===//

#include "tandem/Config.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <string>

using namespace tandem;

namespace {

void expectSameConfig(const AcceleratorConfig &Expected,
                      const AcceleratorConfig &Actual) {
  EXPECT_EQ(Expected.Name, Actual.Name);
  EXPECT_EQ(Expected.Cores, Actual.Cores);
  EXPECT_EQ(Expected.WarpsPerCore, Actual.WarpsPerCore);
  EXPECT_EQ(Expected.Lanes, Actual.Lanes);
  EXPECT_EQ(Expected.Registers, Actual.Registers);
  EXPECT_EQ(Expected.Scheduler, Actual.Scheduler);
  EXPECT_EQ(Expected.MemWait, Actual.MemWait);
  EXPECT_EQ(Expected.L1.LocalWrites, Actual.L1.LocalWrites);
  EXPECT_EQ(Expected.L1.SizeBytes, Actual.L1.SizeBytes);
  EXPECT_EQ(Expected.L1.Ways, Actual.L1.Ways);
  EXPECT_EQ(Expected.L1.LineBytes, Actual.L1.LineBytes);
  EXPECT_EQ(Expected.Shared.SizeBytes, Actual.Shared.SizeBytes);
  EXPECT_EQ(Expected.Shared.Banks, Actual.Shared.Banks);
  EXPECT_EQ(Expected.Dram.LatencyCycles, Actual.Dram.LatencyCycles);
  EXPECT_EQ(Expected.Dram.BytesPerCycle, Actual.Dram.BytesPerCycle);
  EXPECT_EQ(Expected.Dram.Channels, Actual.Dram.Channels);
  EXPECT_EQ(Expected.Dram.MaxOutstanding, Actual.Dram.MaxOutstanding);
}

/// The full error text of parsing \p Json as "bad.json" (empty if it parsed).
std::string parseError(llvm::StringRef Json) {
  llvm::Expected<AcceleratorConfig> C = parseConfig(Json, "bad.json");
  if (C)
    return "";
  return llvm::toString(C.takeError());
}

AcceleratorConfig parseOrFail(llvm::StringRef Json) {
  llvm::Expected<AcceleratorConfig> C = parseConfig(Json, "test.json");
  if (!C) {
    ADD_FAILURE() << llvm::toString(C.takeError());
    return {};
  }
  return *C;
}

TEST(ConfigTest, DefaultFileLoadsAndEqualsTheDefaults) {
  llvm::Expected<AcceleratorConfig> C = loadConfig(defaultConfigPath());
  ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
  expectSameConfig(AcceleratorConfig{}, *C);
  // The values the issue asks for, independent of the struct's defaults.
  EXPECT_EQ(C->Name, "default");
  EXPECT_EQ(C->Cores, 1u);
  EXPECT_EQ(C->WarpsPerCore, 8u);
  EXPECT_EQ(C->maxThreadsPerBlock(), 256u);
  EXPECT_EQ(C->Lanes, 8u);
  EXPECT_EQ(C->cyclesPerWarpInstr(), 4u);
  EXPECT_EQ(C->Registers, 32u);
  EXPECT_EQ(C->Scheduler, WarpScheduler::RoundRobin);
  EXPECT_EQ(C->L1.SizeBytes, 16u * 1024);
  EXPECT_EQ(C->L1.Ways, 4u);
  EXPECT_EQ(C->L1.LineBytes, 64u);
  EXPECT_EQ(C->Shared.SizeBytes, 16u * 1024);
  EXPECT_EQ(C->Shared.Banks, 8u);
  EXPECT_EQ(C->Dram.LatencyCycles, 100u);
  EXPECT_EQ(C->Dram.BytesPerCycle, 16u);
}

TEST(ConfigTest, DefaultFileIsInCanonicalForm) {
  // configs/default.json is what configToJson writes for the defaults, so a
  // change to Config.h's defaults that forgets the file fails here.
  auto Buffer = llvm::MemoryBuffer::getFile(defaultConfigPath());
  ASSERT_TRUE(bool(Buffer)) << Buffer.getError().message();
  EXPECT_EQ((*Buffer)->getBuffer().str(), configToJson(AcceleratorConfig{}));
}

TEST(ConfigTest, DefaultPathIsInTheSourceTree) {
  llvm::SmallString<256> Expected(TANDEM_SOURCE_DIR);
  llvm::sys::path::append(Expected, "configs", "default.json");
  EXPECT_EQ(defaultConfigPath(), std::string(Expected));
}

TEST(ConfigTest, MissingKeysTakeTheDefaults) {
  expectSameConfig(AcceleratorConfig{}, parseOrFail("{}"));

  AcceleratorConfig Expected;
  Expected.L1.Ways = 8;
  Expected.Dram.Channels = 2;
  expectSameConfig(
      Expected, parseOrFail(R"({"l1": {"ways": 8}, "dram": {"channels": 2}})"));
}

TEST(ConfigTest, RoundTripsThroughConfigToJson) {
  AcceleratorConfig C;
  C.Name = "wide-4core";
  C.Cores = 4;
  C.WarpsPerCore = 16;
  C.Lanes = 32;
  C.Registers = 64;
  C.Scheduler = WarpScheduler::GreedyThenOldest;
  C.MemWait = MemoryWait::Register;
  C.L1 = {64 * 1024, 8, 128, LocalWritePolicy::WriteThrough};
  C.Shared = {48 * 1024, 32};
  C.Dram = {400, 64, 4, 32};
  std::string Json = configToJson(C);
  expectSameConfig(C, parseOrFail(Json));
  // Writing what was read gives the same text: the format is stable.
  EXPECT_EQ(Json, configToJson(parseOrFail(Json)));
}

TEST(ConfigTest, IntegralDoublesAreAccepted) {
  EXPECT_EQ(parseOrFail(R"({"lanes": 16.0})").Lanes, 16u);
}

TEST(ConfigTest, UnknownKeySuggestsTheClosestKnownKey) {
  EXPECT_EQ(parseError(R"({"l1": {"sise_bytes": 1024}})"),
            "bad.json: l1.sise_bytes: unknown key; did you mean "
            "'l1.size_bytes'?");
  EXPECT_EQ(parseError(R"({"lane": 8})"),
            "bad.json: lane: unknown key; did you mean 'lanes'?");
  EXPECT_EQ(parseError(R"({"dram": {"Latency_Cycles": 8}})"),
            "bad.json: dram.Latency_Cycles: unknown key; did you mean "
            "'dram.latency_cycles'?");
}

TEST(ConfigTest, UnknownKeyWithoutCloseMatchListsTheKnownKeys) {
  EXPECT_EQ(parseError(R"({"shared": {"frobnicate": 1}})"),
            "bad.json: shared.frobnicate: unknown key; known keys here: "
            "size_bytes, banks");
}

TEST(ConfigTest, ShortUnknownKeyGetsNoFarFetchedSuggestion) {
  // "s" is two edits from "l1": listing the keys helps more than guessing.
  EXPECT_EQ(parseError(R"({"s": 1})"),
            "bad.json: s: unknown key; known keys here: name, cores, "
            "warps_per_core, lanes, registers, imem_words, scheduler, memory_wait, lsu, l1, "
            "shared, dram");
}

TEST(ConfigTest, InstructionMemoryIsAPowerOfTwoInRange) {
  EXPECT_EQ(parseOrFail(R"({"imem_words": 8192})").ImemWords, 8192u);
  EXPECT_EQ(parseError(R"({"imem_words": 5000})"),
            "bad.json: imem_words: 5000 is not a power of two; try 4096 or 8192");
  EXPECT_NE(parseError(R"({"imem_words": 128})").find("out of range"), std::string::npos);
}

TEST(ConfigTest, SchedulerPolicyIsReadByName) {
  EXPECT_EQ(parseOrFail(R"({"scheduler": "rr"})").Scheduler,
            WarpScheduler::RoundRobin);
  EXPECT_EQ(parseOrFail(R"({"scheduler": "gto"})").Scheduler,
            WarpScheduler::GreedyThenOldest);
  EXPECT_EQ(schedulerName(WarpScheduler::GreedyThenOldest), "gto");
  EXPECT_EQ(schedulerName(WarpScheduler::RoundRobin), "rr");
}

TEST(ConfigTest, UnknownSchedulerPolicyNamesTheAllowedOnes) {
  EXPECT_EQ(parseError(R"({"scheduler": "lrr"})"),
            "bad.json: scheduler: \"lrr\" is not a scheduler policy; use "
            "\"rr\" (round-robin) or \"gto\" (greedy-then-oldest)");
  EXPECT_EQ(parseError(R"({"scheduler": 1})"),
            "bad.json: scheduler: expected a string (\"rr\" or \"gto\"), "
            "got 1");
}

TEST(ConfigTest, MemoryWaitIsReadByNameAndInstructionByDefault) {
  EXPECT_EQ(parseOrFail("{}").MemWait, MemoryWait::Instruction);
  EXPECT_EQ(parseOrFail(R"({"memory_wait": "register"})").MemWait, MemoryWait::Register);
  EXPECT_EQ(parseOrFail(R"({"memory_wait": "instruction"})").MemWait, MemoryWait::Instruction);
  EXPECT_EQ(memoryWaitName(MemoryWait::Register), "register");
  EXPECT_EQ(parseError(R"({"memory_wait": "load"})"),
            "bad.json: memory_wait: \"load\" is not a memory wait; use \"instruction\" "
            "(a warp waits for each memory instruction) or \"register\" (only for the "
            "registers loads write)");
}

TEST(ConfigTest, LsuInFlightIsOneByDefaultAndAtMostWhatTheCoreIsBuiltFor) {
  EXPECT_EQ(AcceleratorConfig().Lsu.InFlight, 1u);
  EXPECT_EQ(AcceleratorConfig().Lsu.MaxInFlight, 8u);
  EXPECT_EQ(parseOrFail(R"({"lsu": {"in_flight": 8}})").Lsu.InFlight, 8u);
  EXPECT_EQ(parseError(R"({"lsu": {"in_flight": 9}})"),
            "bad.json: lsu.in_flight: 9 is more than lsu.max_in_flight (8), the most the "
            "core is built to hold; raise max_in_flight (another Verilated model) or use at "
            "most 8");
  EXPECT_EQ(parseError(R"({"lsu": {"max_in_flight": 2, "in_flight": 4}})"),
            "bad.json: lsu.in_flight: 4 is more than lsu.max_in_flight (2), the most the "
            "core is built to hold; raise max_in_flight (another Verilated model) or use at "
            "most 2");
  AcceleratorConfig Wide = parseOrFail(R"({"lsu": {"max_in_flight": 16, "in_flight": 12}})");
  EXPECT_EQ(Wide.Lsu.MaxInFlight, 16u);
  EXPECT_EQ(Wide.Lsu.InFlight, 12u);
  EXPECT_EQ(parseError(R"({"lsu": {"in_flight": 0}})"),
            "bad.json: lsu.in_flight: 0 is out of range; allowed: 1..16");
  EXPECT_EQ(parseError(R"({"lsu": {"max_in_flight": 17}})"),
            "bad.json: lsu.max_in_flight: 17 is out of range; allowed: 1..16");
  EXPECT_EQ(parseError(R"({"lsu": {"slots": 2}})"),
            "bad.json: lsu.slots: unknown key; known keys here: max_in_flight, in_flight");
}

TEST(ConfigTest, LocalWritePolicyIsReadByNameAndWriteBackByDefault) {
  EXPECT_EQ(AcceleratorConfig().L1.LocalWrites, LocalWritePolicy::WriteBack);
  EXPECT_EQ(parseOrFail(R"({"l1": {"local_write_policy": "write-through"}})").L1.LocalWrites,
            LocalWritePolicy::WriteThrough);
  EXPECT_EQ(parseOrFail(R"({"l1": {"local_write_policy": "write-back"}})").L1.LocalWrites,
            LocalWritePolicy::WriteBack);
  EXPECT_EQ(localWritePolicyName(LocalWritePolicy::WriteThrough), "write-through");
  EXPECT_EQ(parseError(R"({"l1": {"local_write_policy": "writeback"}})"),
            "bad.json: l1.local_write_policy: \"writeback\" is not a local write "
            "policy; use \"write-back\" or \"write-through\"");
  EXPECT_EQ(parseError(R"({"l1": {"local_write_policy": true}})"),
            "bad.json: l1.local_write_policy: expected a string (\"write-back\" or "
            "\"write-through\"), got true");
}

TEST(ConfigTest, DescriptionHoldsEveryValue) {
  EXPECT_EQ(describeConfig(AcceleratorConfig()),
            "8 lanes, 8 warps per core, 32 registers, 4096-word instruction memory, "
            "scheduler rr, memory wait instruction, 1 memory instruction in flight (built for 8); "
            "L1 16384 "
            "bytes, 4-way, "
            "64-byte lines, local stores write-back; shared 16384 bytes, 8 banks; DRAM 100 "
            "cycles, 16 bytes per cycle, 1 channel, 16 outstanding; 1 core");
}

TEST(ConfigTest, RepeatedKeyNamesBothPositions) {
  // llvm::json would silently keep one of the two values.
  EXPECT_EQ(parseError("{\"cores\": 1,\n \"cores\": 2}"),
            "bad.json: cores: appears twice (at 1:2 and 2:2); keep one");
  EXPECT_EQ(parseError(R"({"l1": {"ways": 2, "ways": 4}})"),
            "bad.json: l1.ways: appears twice (at 1:9 and 1:20); keep one");
  // Equal keys in different objects are fine; escaped quotes in a value do
  // not derail the scan (only the name itself is wrong here).
  EXPECT_EQ(parseError(R"({"l1": {"size_bytes": 256}, "shared": )"
                       R"({"size_bytes": 256}, "name": "a\"b\"c"})"),
            "bad.json: name: \"a\\\"b\\\"c\" is not a valid name; use 1 to "
            "64 letters, digits, '_', '-' or '.' (it names build directories "
            "and reports)");
}

TEST(ConfigTest, WrongTypeNamesKeyValueAndRange) {
  EXPECT_EQ(parseError(R"({"lanes": "8"})"),
            "bad.json: lanes: expected an integer (a power of two in 1..32), "
            "got \"8\"");
  EXPECT_EQ(parseError(R"({"cores": 1.5})"),
            "bad.json: cores: expected an integer (1..64), got 1.5");
  EXPECT_EQ(parseError(R"({"name": 5})"),
            "bad.json: name: expected a string, got 5");
  EXPECT_EQ(parseError(R"({"l1": 5})"),
            "bad.json: l1: expected an object, got 5");
  EXPECT_EQ(parseError("[1, 2]"),
            "bad.json: expected a JSON object at the top level, got [1,2]");
}

TEST(ConfigTest, OutOfRangeNamesKeyValueAndRange) {
  EXPECT_EQ(parseError(R"({"cores": 0})"),
            "bad.json: cores: 0 is out of range; allowed: 1..64");
  EXPECT_EQ(parseError(R"({"cores": -3})"),
            "bad.json: cores: -3 is out of range; allowed: 1..64");
  EXPECT_EQ(parseError(R"({"warps_per_core": 33})"),
            "bad.json: warps_per_core: 33 is out of range; allowed: 1..32");
  EXPECT_EQ(parseError(R"({"registers": 1})"),
            "bad.json: registers: 1 is out of range; allowed: 2..64");
  EXPECT_EQ(parseError(R"({"registers": 65})"),
            "bad.json: registers: 65 is out of range; allowed: 2..64");
  EXPECT_EQ(parseError(R"({"lanes": 64})"),
            "bad.json: lanes: 64 is out of range; allowed: a power of two in "
            "1..32");
  EXPECT_EQ(parseError(R"({"l1": {"line_bytes": 512}})"),
            "bad.json: l1.line_bytes: 512 is out of range; allowed: a power "
            "of two in 16..256");
  EXPECT_EQ(parseError(R"({"shared": {"banks": 64}})"),
            "bad.json: shared.banks: 64 is out of range; allowed: a power of "
            "two in 1..32");
  EXPECT_EQ(parseError(R"({"dram": {"latency_cycles": 0}})"),
            "bad.json: dram.latency_cycles: 0 is out of range; allowed: "
            "1..1000000");
  // Beyond uint32 (and beyond int64): still a range error, never truncated.
  EXPECT_EQ(parseError(R"({"cores": 4294967297})"),
            "bad.json: cores: 4294967297 is out of range; allowed: 1..64");
  EXPECT_EQ(parseError(R"({"cores": 18446744073709551615})"),
            "bad.json: cores: 18446744073709551615 is out of range; allowed: "
            "1..64");
}

TEST(ConfigTest, NonPowerOfTwoSuggestsNeighbours) {
  EXPECT_EQ(parseError(R"({"l1": {"ways": 3}})"),
            "bad.json: l1.ways: 3 is not a power of two; try 2 or 4");
  EXPECT_EQ(parseError(R"({"lanes": 12})"),
            "bad.json: lanes: 12 is not a power of two; try 8 or 16");
  EXPECT_EQ(parseError(R"({"l1": {"size_bytes": 20000}})"),
            "bad.json: l1.size_bytes: 20000 is not a power of two; try 16384 "
            "or 32768");
  EXPECT_EQ(parseError(R"({"shared": {"banks": 6}})"),
            "bad.json: shared.banks: 6 is not a power of two; try 4 or 8");
}

TEST(ConfigTest, CacheMustHoldOneSet) {
  EXPECT_EQ(
      parseError(R"({"l1": {"size_bytes": 128, "ways": 4, "line_bytes": 64}})"),
      "bad.json: l1.size_bytes: 128 holds no complete set: ways * "
      "line_bytes = 4 * 64 = 256; make it at least 256 or use fewer "
      "ways");
  // A set exactly the size of the cache (fully associative) is fine.
  EXPECT_EQ(
      parseOrFail(R"({"l1": {"size_bytes": 256, "ways": 4, "line_bytes": 64}})")
          .L1.SizeBytes,
      256u);
}

TEST(ConfigTest, SharedSizeMustFillWholeBankRows) {
  EXPECT_EQ(parseError(R"({"shared": {"size_bytes": 100, "banks": 8}})"),
            "bad.json: shared.size_bytes: 100 is not a multiple of 4 * banks "
            "= 32; try 96 or 128");
  EXPECT_EQ(parseError(R"({"shared": {"size_bytes": 16}})"),
            "bad.json: shared.size_bytes: 16 is not a multiple of 4 * banks "
            "= 32; try 32");
}

TEST(ConfigTest, InvalidNameIsRejected) {
  EXPECT_EQ(parseError(R"({"name": "a b"})"),
            "bad.json: name: \"a b\" is not a valid name; use 1 to 64 "
            "letters, digits, '_', '-' or '.' (it names build directories "
            "and reports)");
  EXPECT_NE(parseError(R"({"name": ""})"), "");
  EXPECT_NE(parseError(R"({"name": "../x"})"), "");
}

TEST(ConfigTest, InvalidJsonNamesLineAndColumn) {
  std::string Message = parseError("{\n  \"cores\": 1,\n}");
  EXPECT_EQ(Message.rfind("bad.json:3:1: invalid JSON: ", 0), 0u) << Message;
  // Columns count from 1 even where the parser says 0 (an empty file).
  EXPECT_EQ(parseError(""), "bad.json:1:1: invalid JSON: Unexpected EOF");
}

TEST(ConfigTest, EveryProblemIsReportedOnItsOwnLine) {
  EXPECT_EQ(parseError(R"({"cores": 0, "lanes": 3, "l1": {"wayz": 2}})"),
            "bad.json: cores: 0 is out of range; allowed: 1..64\n"
            "bad.json: lanes: 3 is not a power of two; try 2 or 4\n"
            "bad.json: l1.wayz: unknown key; did you mean 'l1.ways'?");
}

TEST(ConfigTest, InvalidFieldDoesNotCascadeIntoCrossChecks) {
  // ways is rejected; the set-size check must not also complain about it.
  EXPECT_EQ(parseError(R"({"l1": {"size_bytes": 64, "ways": 3}})"),
            "bad.json: l1.ways: 3 is not a power of two; try 2 or 4");
}

TEST(ConfigTest, EmptyOriginStillPrefixesMessages) {
  llvm::Expected<AcceleratorConfig> C = parseConfig(R"({"cores": 0})", "");
  ASSERT_FALSE(bool(C));
  EXPECT_EQ(llvm::toString(C.takeError()),
            "<config>: cores: 0 is out of range; allowed: 1..64");
}

class ConfigFileTest : public ::testing::Test {
protected:
  void TearDown() override {
    if (!Path.empty())
      llvm::sys::fs::remove(Path);
  }
  std::string writeTemp(llvm::StringRef Text) {
    llvm::SmallString<128> P;
    int FD;
    EXPECT_FALSE(
        llvm::sys::fs::createTemporaryFile("tandem-config", "json", FD, P));
    llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
    OS << Text;
    Path = std::string(P);
    return Path;
  }
  std::string Path;
};

TEST_F(ConfigFileTest, MessagesStartWithTheFilePath) {
  std::string P = writeTemp(R"({"l1": {"ways": 3}})");
  llvm::Expected<AcceleratorConfig> C = loadConfig(P);
  ASSERT_FALSE(bool(C));
  EXPECT_EQ(llvm::toString(C.takeError()),
            P + ": l1.ways: 3 is not a power of two; try 2 or 4");
}

TEST_F(ConfigFileTest, MissingFileIsNamed) {
  llvm::Expected<AcceleratorConfig> C =
      loadConfig("/nonexistent/tandem/none.json");
  ASSERT_FALSE(bool(C));
  EXPECT_EQ(llvm::toString(C.takeError()),
            "/nonexistent/tandem/none.json: cannot read the configuration: "
            "No such file or directory");
}

TEST_F(ConfigFileTest, DirectoryIsNotAConfiguration) {
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("tandem-config", Dir));
  llvm::Expected<AcceleratorConfig> C = loadConfig(Dir);
  llvm::sys::fs::remove(Dir);
  ASSERT_FALSE(bool(C));
  EXPECT_EQ(llvm::toString(C.takeError()),
            std::string(Dir) +
                ": is not a regular file; pass a .json configuration file "
                "(see configs/default.json)");
}

TEST_F(ConfigFileTest, OversizedFileIsRejectedBeforeReading) {
  std::string P = writeTemp(std::string(2 << 20, ' '));
  llvm::Expected<AcceleratorConfig> C = loadConfig(P);
  ASSERT_FALSE(bool(C));
  EXPECT_EQ(llvm::toString(C.takeError()),
            P + ": 2097152 bytes is too large for a configuration (at most "
                "1048576)");
}

} // namespace
