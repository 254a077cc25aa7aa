//===- MemoryWaitTest.cpp - What a warp waits for after a memory instruction ===//
//
// The configuration's `memory_wait` is an input the core latches at each
// block start (like the scheduler policy): under "instruction" a warp
// issues nothing until its memory instruction has written back; under
// "register" it goes on issuing and only an instruction naming the register
// a load writes waits for it (stores never hold the warp). These tests show:
// - under "register" every sample computes what iss computes, with every
//   counter iss reports and the same per-warp traces (the harness prints a
//   warp's lines in program order even when a load commits after the
//   independent instructions that follow it);
// - independent work after a load or a store overlaps it, by exactly the
//   datapath cycles of that work; a dependent instruction still waits;
// - the simt model, fed the iss trace, predicts the rtl's cycles exactly
//   under "register" on every sample, as it does under "instruction".
// The differ's random programs run against iss under "register" as a ctest
// entry (tests/rtl/CMakeLists.txt, configs/memory-wait-register.json).
//
//===----------------------------------------------------------------------===//

#include "SamplesAsOnIss.h"

#include "tandem/Runtime.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

using namespace tandem;
using namespace llvm;

namespace {

std::unique_ptr<Device> openRtl(MemoryWait Wait, raw_ostream *Trace = nullptr) {
  AcceleratorConfig C;
  C.MemWait = Wait;
  return rtltest::openRtlWith(C, Trace);
}

TEST(RtlMemoryWait, RegisterWaitComputesWhatIssComputesOnEverySample) {
  std::string RtlTrace;
  raw_string_ostream RtlOS(RtlTrace);
  auto Rtl = openRtl(MemoryWait::Register, &RtlOS);
  ASSERT_TRUE(Rtl);
  AcceleratorConfig C;
  C.MemWait = MemoryWait::Register;
  rtltest::expectEverySampleAsOnIss(
      *Rtl, RtlTrace, "memory_wait register", 7,
      [&](StringRef Sample, const std::string &IssTrace, const samples::SampleResult &OnRtl) {
        // To the cycle (the model's costs carry fractions of a cycle).
        EXPECT_NEAR(rtltest::modelledCycles(IssTrace, C), double(OnRtl.Counters.get("cycles")), 0.5)
            << Sample.str() << ": the simt model under memory_wait register";
      });
}

/// One warp: a global load (or store) of its thread's word, then
/// \p Independent instructions that do not touch r5, then one that reads r5
/// (for the store, r3: the address), and a store of the result.
std::string overlapKernel(bool Store, unsigned Independent) {
  std::string S = R"(
.kernel k
.param a ptr
.param out ptr
    s2r r1, %tid.x
    shli r1, r1, 2
    ld.param.u32 r3, [r0 + @a]
    add r3, r3, r1
    ld.param.u32 r4, [r0 + @out]
    add r4, r4, r1
)";
  S += Store ? "    st.global.u32 [r3 + 0], r1\n" : "    ld.global.u32 r5, [r3 + 0]\n";
  for (unsigned I = 0; I < Independent; ++I)
    S += formatv("    addi r{0}, r0, {1}\n", 6 + I % 8, I + 1).str();
  S += Store ? "    addi r5, r3, 1\n" : "    addi r5, r5, 1\n";
  S += "    st.global.u32 [r4 + 0], r5\n    exit\n";
  return S;
}

struct OverlapRun {
  uint64_t Cycles = 0;
  std::vector<uint32_t> Out;
};

OverlapRun runOverlap(MemoryWait Wait, bool Store, unsigned Independent) {
  AcceleratorConfig C;
  C.MemWait = Wait;
  std::vector<uint32_t> In(32);
  std::mt19937 G(11);
  for (uint32_t &W : In)
    W = G();
  OverlapRun R;
  R.Cycles = rtltest::runAsmKernel(C, overlapKernel(Store, Independent), 32, In, R.Out);
  // The result is In[t] + 1 after the load, the address + 1 after the store.
  for (unsigned T = 0; T < R.Out.size() && !Store; ++T)
    EXPECT_EQ(R.Out[T], In[T] + 1) << "thread " << T;
  return R;
}

// Eight independent instructions after a load that misses in the L1: under
// "instruction" they start when the load has written back, under
// "register" they stream while it is in flight, and the instruction that
// reads the loaded register issues when the load writes back either way.
// The kernel's last store overlaps its `exit` under "register" too, so the
// saving is measured against the same kernel without the eight: exactly
// their datapath time, 8 x 32/lanes cycles.
TEST(RtlMemoryWait, IndependentWorkOverlapsALoadByItsDatapathCycles) {
  const unsigned Cpw = AcceleratorConfig().cyclesPerWarpInstr();
  OverlapRun Insn = runOverlap(MemoryWait::Instruction, /*Store=*/false, 8);
  OverlapRun Reg = runOverlap(MemoryWait::Register, /*Store=*/false, 8);
  OverlapRun Insn0 = runOverlap(MemoryWait::Instruction, /*Store=*/false, 0);
  OverlapRun Reg0 = runOverlap(MemoryWait::Register, /*Store=*/false, 0);
  ASSERT_GT(Insn.Cycles, 0u);
  ASSERT_GT(Insn0.Cycles, 0u);
  EXPECT_EQ(Insn.Out, Reg.Out);
  EXPECT_GT(Insn0.Cycles, Reg0.Cycles) << "the exit did not overlap the last store";
  EXPECT_EQ((Insn.Cycles - Reg.Cycles) - (Insn0.Cycles - Reg0.Cycles), 8u * Cpw)
      << "instruction " << Insn.Cycles << " and " << Insn0.Cycles << ", register " << Reg.Cycles
      << " and " << Reg0.Cycles;
}

// A store holds the warp under "instruction" only: the work after it runs
// while the store goes out.
TEST(RtlMemoryWait, AStoreNeverHoldsTheWarpUnderRegister) {
  OverlapRun Insn = runOverlap(MemoryWait::Instruction, /*Store=*/true, 8);
  OverlapRun Reg = runOverlap(MemoryWait::Register, /*Store=*/true, 8);
  ASSERT_GT(Insn.Cycles, 0u);
  EXPECT_EQ(Insn.Out, Reg.Out);
  EXPECT_LT(Reg.Cycles, Insn.Cycles);
}

} // namespace
