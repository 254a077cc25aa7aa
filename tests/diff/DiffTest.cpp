//===- DiffTest.cpp - Tests of the generator and the differential checker -===//
//
// The generator must produce valid, terminating, fault-free programs that
// exercise every construct it promises; the differ must agree when both
// sides are the same device and must catch, explain and reduce a mismatch.
// Mismatches are made with a device that wraps iss and misbehaves in one
// chosen way (a wrong ALU result, a wrong counter, a corrupted byte), as a
// buggy rtl would.
//
//===----------------------------------------------------------------------===//

#include "Differ.h"
#include "InjectedBugs.h"
#include "RandomProgram.h"

#include "Assembler.h"
#include "ISA.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <gtest/gtest.h>

#include <set>

using namespace llvm;
using namespace tandem;
using namespace tandem::diff;

namespace {

DiffOptions options(DeviceFactory B, std::string NameB) {
  DiffOptions O;
  O.OpenA = namedDevice("iss");
  O.OpenB = std::move(B);
  O.NameB = std::move(NameB);
  return O;
}

/// Instruction lines (not comments, labels or directives) of a program.
unsigned instructionLines(StringRef Asm) {
  SmallVector<StringRef, 0> Lines;
  Asm.split(Lines, '\n');
  unsigned N = 0;
  for (StringRef L : Lines)
    N += L.starts_with("  ") && !L.trim().starts_with(".");
  return N;
}

TEST(Generator, SameSeedSameProgramOtherSeedOther) {
  EXPECT_EQ(printAssembly(generateProgram(7)), printAssembly(generateProgram(7)));
  EXPECT_NE(printAssembly(generateProgram(7)), printAssembly(generateProgram(8)));
}

TEST(Generator, ProgramsRunOnIssWithoutFaultAndDoWork) {
  for (uint64_t Seed = 1; Seed <= 60; ++Seed) {
    RandomProgram P = generateProgram(Seed);
    Expected<RunResult> R = runProgram(P, namedDevice("iss"), {}, false);
    ASSERT_TRUE(bool(R)) << toString(R.takeError());
    EXPECT_FALSE(R->Fault) << "seed " << Seed << ": " << *R->Fault;
    EXPECT_GT(R->WarpInstructions, 300u) << "seed " << Seed;
    // Some lanes are inactive somewhere: the programs diverge.
    EXPECT_LT(R->ThreadInstructions, R->WarpInstructions * 32) << "seed " << Seed;
  }
}

TEST(Generator, CoversEveryPromisedConstruct) {
  std::string All;
  for (uint64_t Seed = 1; Seed <= 60; ++Seed)
    All += printAssembly(generateProgram(Seed));
  for (const char *Needle :
       {"emask.and ", "emask.andn ", "emask.set ", "bnone ", "bany ", "bnz ",
        "bz ", "bar\n", "exit\n", "ld.global.s8", "st.global.u16",
        "ld.shared.u16", "st.shared.u8", "ld.local.s16", "st.local.u8",
        "ld.param.u32", "ld.const.u32", "atom.global.cas", "atom.global.exch",
        "atom.global.fadd", "atom.shared.cas", "atom.shared.add r0,",
        "atom.global.max r0,", "shfl.idx", "shfl.up", "shfl.down", "shfl.xor",
        "vote.any", "vote.all", "vote.ballot", "ffma", "fdiv", "fsqrt",
        "cvt.s32.f32", "divu", "mulhi", "emask.get r1"})
    EXPECT_NE(All.find(Needle), std::string::npos) << Needle;
  // Launch shapes: several blocks, several warps, a partial warp.
  std::set<uint64_t> Blocks, Threads;
  for (uint64_t Seed = 1; Seed <= 60; ++Seed) {
    RandomProgram P = generateProgram(Seed);
    Blocks.insert(P.Grid.count());
    Threads.insert(P.Block.count());
  }
  EXPECT_TRUE(Blocks.count(1) && *Blocks.rbegin() >= 4);
  EXPECT_TRUE(Threads.count(7) || Threads.count(33) || Threads.count(100));
  EXPECT_GE(*Threads.rbegin(), 128u);
}

TEST(Differ, SameDeviceAgrees) {
  DiffOptions O = options(namedDevice("iss"), "iss");
  for (uint64_t Seed = 1; Seed <= 20; ++Seed) {
    Expected<DiffOutcome> R = diffProgram(generateProgram(Seed), O);
    ASSERT_TRUE(bool(R)) << toString(R.takeError());
    EXPECT_TRUE(R->Agree) << R->Report;
  }
}

/// The first seed whose program uses \p Mnemonic.
uint64_t seedUsing(StringRef Mnemonic) {
  for (uint64_t Seed = 1;; ++Seed)
    if (StringRef(printAssembly(generateProgram(Seed))).contains(Mnemonic))
      return Seed;
}

TEST(Differ, CatchesAWrongAluResultAndReducesToIt) {
  uint64_t Seed = seedUsing("\n  xor r");
  RandomProgram P = generateProgram(Seed);
  Expected<DiffOutcome> R = diffProgram(P, options(buggyIss(Bug::XorIsOr), "xor-is-or"));
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  ASSERT_FALSE(R->Agree);
  EXPECT_FALSE(R->GeneratorBug);
  StringRef Rep = R->Report;
  EXPECT_TRUE(Rep.contains("MISMATCH seed " + std::to_string(Seed))) << Rep.str();
  EXPECT_TRUE(Rep.contains("memory: buffer 'out'")) << Rep.str();
  EXPECT_TRUE(Rep.contains("first diverging trace line")) << Rep.str();
  // The diverging trace lines are the xor and the or that replaced it.
  EXPECT_TRUE(Rep.contains("A:    b=")) << Rep.str();
  EXPECT_TRUE(Rep.contains(" xor r")) << Rep.str();
  EXPECT_TRUE(Rep.contains(" or r")) << Rep.str();
  ASSERT_TRUE(R->Reduced.has_value());
  std::string Reduced = printAssembly(*R->Reduced);
  EXPECT_TRUE(Rep.contains(Reduced));
  EXPECT_LT(countNodes(R->Reduced->Body), countNodes(P.Body));
  // What is left is the region holding the xor (and what leads to it).
  EXPECT_TRUE(StringRef(Reduced).contains("\n  xor r")) << Reduced;
  EXPECT_LE(countNodes(R->Reduced->Body), 4u) << Reduced;
  EXPECT_LT(instructionLines(Reduced), instructionLines(printAssembly(P)));
  EXPECT_EQ(R->Reduced->Grid.count(), 1u);
  // The reduced program is valid, and still disagrees.
  Expected<RunResult> A = runProgram(*R->Reduced, namedDevice("iss"), {}, false);
  Expected<RunResult> B = runProgram(*R->Reduced, buggyIss(Bug::XorIsOr), {}, false);
  ASSERT_TRUE(A && B);
  EXPECT_FALSE(A->Fault);
  EXPECT_TRUE(compareRuns(*R->Reduced, *A, *B).has_value());
  // It reassembles from its own text (what a user re-runs).
  EXPECT_TRUE(bool(assemble(Reduced, "reduced.s")));
}

TEST(Differ, CatchesACounterDifference) {
  Expected<DiffOutcome> R = diffProgram(
      generateProgram(3), options(buggyIss(Bug::CountsOneMore), "counts"));
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  ASSERT_FALSE(R->Agree);
  EXPECT_TRUE(StringRef(R->Report).contains("counter warp_instructions")) << R->Report;
  EXPECT_TRUE(StringRef(R->Report).contains("traces agree line for line")) << R->Report;
  EXPECT_FALSE(StringRef(R->Report).contains("memory:")) << R->Report;
}

TEST(Differ, CatchesOneCorruptedByteAndNamesIt) {
  DiffOptions O = options(buggyIss(Bug::FlipsContendedByte), "flip");
  O.Reduce = false;
  Expected<DiffOutcome> R = diffProgram(generateProgram(5), O);
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  ASSERT_FALSE(R->Agree);
  EXPECT_TRUE(StringRef(R->Report).contains(
      "buffer 'atomc' byte 5 = contended global atomic word 1"))
      << R->Report;
  EXPECT_TRUE(StringRef(R->Report).contains("1 byte(s) differ in 'atomc'"))
      << R->Report;
}

TEST(Differ, AFaultingReferenceIsAGeneratorBugNotAMismatch) {
  DiffOptions O;
  O.OpenA = buggyIss(Bug::AlwaysFaults);
  O.OpenB = namedDevice("iss");
  Expected<DiffOutcome> R = diffProgram(generateProgram(2), O);
  ASSERT_TRUE(bool(R)) << toString(R.takeError());
  EXPECT_FALSE(R->Agree);
  EXPECT_TRUE(R->GeneratorBug);
  EXPECT_TRUE(StringRef(R->Report).contains("injected fault"));
}

TEST(Differ, TraceIsComparedPerWarpInProgramOrder) {
  // The same per-warp streams, interleaved differently.
  std::string A = "# launch\nb=0 w=0 pc=0x0000 x\nb=0 w=1 pc=0x0000 y\n"
                  "b=0 w=0 pc=0x0004 z\nb=1 w=0 pc=0x0000 q\n";
  std::string B = "b=1 w=0 pc=0x0000 q\nb=0 w=1 pc=0x0000 y\n"
                  "b=0 w=0 pc=0x0000 x\nb=0 w=0 pc=0x0004 z\n";
  EXPECT_FALSE(firstTraceDivergence(A, B).has_value());
  std::vector<std::string> S = sortedTrace(A);
  ASSERT_EQ(S.size(), 4u);
  EXPECT_EQ(S[1], "b=0 w=0 pc=0x0004 z");
  std::string C = B;
  C.replace(C.find(" z"), 2, " Z");
  std::optional<std::string> D = firstTraceDivergence(A, C);
  ASSERT_TRUE(D.has_value());
  EXPECT_NE(D->find("line 2 of 4 / 4"), std::string::npos) << *D;
  EXPECT_NE(D->find("A:    b=0 w=0 pc=0x0004 z"), std::string::npos) << *D;
  EXPECT_NE(D->find("B:    b=0 w=0 pc=0x0004 Z"), std::string::npos) << *D;
  // A missing line at the end is a divergence too.
  std::optional<std::string> E =
      firstTraceDivergence(A, "b=0 w=0 pc=0x0000 x\nb=0 w=0 pc=0x0004 z\n"
                              "b=0 w=1 pc=0x0000 y\n");
  ASSERT_TRUE(E.has_value());
  EXPECT_NE(E->find("<end of trace>"), std::string::npos) << *E;
}

} // namespace
