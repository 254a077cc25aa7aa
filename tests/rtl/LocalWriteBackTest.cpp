//===- LocalWriteBackTest.cpp - The L1's local write policy, rtl and model -===//
//
// One warp per block stores a word to five local slots that share the L1's
// sets (word W of every lane lies in lines 2W and 2W+1 of the warp's area,
// and W, W+32, W+64, ... fall in the same two sets of the default 64-set,
// 4-way L1), reloads the first slot while it is still cached, and again
// after the fifth store has evicted it.
//
// Write-back (the default, docs/RTL.md "Load/store unit"): the four first
// stores allocate whole lines without reading memory, the reload hits, the
// fifth store writes the first slot's two dirty lines back, the second
// reload misses and first writes back the dirty lines of the way it takes;
// what is still dirty when the block ends is dropped, never written.
// Write-through: every store line goes to memory and a store never
// allocates, so the first reload misses and the second hits.
//
// Both policies give the iss's results and traces, the rtl's counters are
// the ones worked out here, and the simt model's L1 (models/TraceProfile.h,
// fed the iss trace) predicts exactly those counters.
//
//===----------------------------------------------------------------------===//

#include "Assembler.h"
#include "TraceLines.h"
#include "TraceProfile.h"

#include "tandem/Runtime.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <vector>

using namespace tandem;
using namespace llvm;

namespace {

constexpr unsigned Blocks = 2;

constexpr const char *Program = R"(
.kernel k
.param out ptr
.local 1024
    s2r r1, %tid.x
    addi r2, r1, 1000
    st.local.u32 [r0 + 0], r2
    st.local.u32 [r0 + 128], r2
    st.local.u32 [r0 + 256], r2
    st.local.u32 [r0 + 384], r2
    ld.local.u32 r3, [r0 + 0]
    st.local.u32 [r0 + 512], r2
    ld.local.u32 r4, [r0 + 0]
    add r5, r3, r4
    s2r r7, %ctaid.x
    shli r7, r7, 5
    add r7, r7, r1
    shli r7, r7, 2
    ld.param.u32 r6, [r0 + @out]
    add r6, r6, r7
    st.global.u32 [r6], r5
    exit
)";

struct DeviceRun {
  std::vector<uint32_t> Out;
  Counters C;
  std::string Trace;
};

DeviceRun runOn(StringRef DeviceName, LocalWritePolicy Policy) {
  DeviceRun R;
  raw_string_ostream TraceOS(R.Trace);
  DeviceOptions O;
  O.Config.L1.LocalWrites = Policy;
  O.Trace = &TraceOS;
  auto D = openDevice(DeviceName, O);
  if (!D) {
    ADD_FAILURE() << toString(D.takeError());
    return R;
  }
  auto Img = assemble(Program, "local-write-back.s");
  if (!Img) {
    ADD_FAILURE() << toString(Img.takeError());
    return R;
  }
  auto Out = (*D)->alloc(Blocks * 32 * 4);
  if (!Out) {
    ADD_FAILURE() << toString(Out.takeError());
    return R;
  }
  // Poisoned: every lane must write its word.
  std::vector<uint32_t> Poison(Blocks * 32, 0xDEADBEEFu);
  EXPECT_FALSE(bool((*D)->write<uint32_t>(*Out, Poison)));
  LaunchParams P;
  P.Kernel = "k";
  P.Grid.X = Blocks;
  P.Block.X = 32;
  P.Args = {KernelArg::ptr(*Out)};
  if (Error E = (*D)->loadImage(*Img)) {
    ADD_FAILURE() << toString(std::move(E));
    return R;
  }
  if (Error E = (*D)->launch(P)) {
    ADD_FAILURE() << toString(std::move(E));
    return R;
  }
  R.Out.resize(Blocks * 32);
  EXPECT_FALSE(bool((*D)->read<uint32_t>(R.Out, *Out)));
  R.C = (*D)->counters();
  return R;
}

/// The simt model's memory figures for the iss trace \p Trace.
models::MemoryEstimate modelled(StringRef Trace, LocalWritePolicy Policy) {
  AcceleratorConfig C;
  C.L1.LocalWrites = Policy;
  models::TraceProfiler Profiler(C);
  Profiler << Trace;
  Profiler.finish();
  EXPECT_EQ(Profiler.malformedLines(), 0u);
  models::MemoryEstimate Sum;
  for (const models::LaunchProfile &L : Profiler.launches())
    Sum += L.Memory;
  return Sum;
}

/// What both policies must agree on: results (2 * (tid + 1000) in every
/// lane of every block), and the iss's results and warp traces.
void expectIssResults(const DeviceRun &Iss, const DeviceRun &Rtl) {
  ASSERT_EQ(Rtl.Out.size(), size_t(Blocks * 32));
  for (unsigned I = 0; I < Blocks * 32; ++I)
    EXPECT_EQ(Rtl.Out[I], 2 * (I % 32 + 1000)) << "thread " << I;
  EXPECT_EQ(Rtl.Out, Iss.Out);
  EXPECT_TRUE(rtltest::sameWarpTraces(Iss.Trace, Rtl.Trace));
}

void expectModelMatches(const DeviceRun &Iss, const DeviceRun &Rtl, LocalWritePolicy Policy) {
  models::MemoryEstimate M = modelled(Iss.Trace, Policy);
  EXPECT_EQ(M.L1Hits, Rtl.C.get("l1_hits"));
  EXPECT_EQ(M.L1Misses, Rtl.C.get("l1_misses"));
  EXPECT_EQ(M.L1Writebacks, Rtl.C.get("l1_writebacks"));
  EXPECT_EQ(M.DramRequests, Rtl.C.get("dram_requests"));
  EXPECT_EQ(M.DramReadBytes, Rtl.C.get("dram_read_bytes"));
  EXPECT_EQ(M.DramWriteBytes, Rtl.C.get("dram_write_bytes"));
}

} // namespace

TEST(LocalWriteBack, DirtyLinesGoToMemoryOnlyWhenEvicted) {
  DeviceRun Iss = runOn("iss", LocalWritePolicy::WriteBack);
  DeviceRun Rtl = runOn("rtl", LocalWritePolicy::WriteBack);
  expectIssResults(Iss, Rtl);
  // Per block: the first reload hits its two lines; the fifth store and
  // the second reload each write back two dirty lines (a set each); the
  // second reload reads two. The result store is two global lines.
  EXPECT_EQ(Rtl.C.get("l1_hits"), Blocks * 2);
  EXPECT_EQ(Rtl.C.get("l1_misses"), Blocks * 2);
  EXPECT_EQ(Rtl.C.get("l1_writebacks"), Blocks * 4);
  EXPECT_EQ(Rtl.C.get("dram_read_bytes"), Blocks * 2 * 64);
  // No write at block end: the six lines still dirty are dropped.
  EXPECT_EQ(Rtl.C.get("dram_write_bytes"), Blocks * (4 * 64 + 2 * 64));
  EXPECT_EQ(Rtl.C.get("dram_requests"), Blocks * (4 + 2 + 2));
  expectModelMatches(Iss, Rtl, LocalWritePolicy::WriteBack);
}

TEST(LocalWriteBack, WriteThroughSendsEveryLocalStoreToMemory) {
  DeviceRun Iss = runOn("iss", LocalWritePolicy::WriteThrough);
  DeviceRun Rtl = runOn("rtl", LocalWritePolicy::WriteThrough);
  expectIssResults(Iss, Rtl);
  // Per block: five stores of two lines each plus the result's two; the
  // first reload misses (stores do not allocate), the second hits.
  EXPECT_EQ(Rtl.C.get("l1_hits"), Blocks * 2);
  EXPECT_EQ(Rtl.C.get("l1_misses"), Blocks * 2);
  EXPECT_EQ(Rtl.C.get("l1_writebacks"), 0u);
  EXPECT_EQ(Rtl.C.get("dram_read_bytes"), Blocks * 2 * 64);
  EXPECT_EQ(Rtl.C.get("dram_write_bytes"), Blocks * (10 * 64 + 2 * 64));
  EXPECT_EQ(Rtl.C.get("dram_requests"), Blocks * (10 + 2 + 2));
  expectModelMatches(Iss, Rtl, LocalWritePolicy::WriteThrough);
}

TEST(LocalWriteBack, PartialLineStoreMissesGoToMemoryAndHitsStayInTheL1) {
  // Half the warp stores: each slot's first line is half written, so a
  // miss cannot allocate it (that would need the other half from memory)
  // and writes through; the reload then reads the line back and fills it,
  // and a second half-warp store to that filled line is a write-back hit.
  constexpr const char *Half = R"(
.kernel k
.param out ptr
.local 64
    s2r r1, %tid.x
    addi r2, r1, 7
    setlti r3, r1, 8
    emask.get r9
    emask.and r3
    st.local.u32 [r0 + 0], r2
    emask.set r9
    ld.local.u32 r4, [r0 + 0]
    emask.and r3
    st.local.u32 [r0 + 0], r4
    emask.set r9
    ld.local.u32 r5, [r0 + 0]
    shli r6, r1, 2
    ld.param.u32 r7, [r0 + @out]
    add r7, r7, r6
    st.global.u32 [r7], r5
    exit
)";
  for (LocalWritePolicy Policy : {LocalWritePolicy::WriteBack, LocalWritePolicy::WriteThrough}) {
    DeviceOptions O;
    O.Config.L1.LocalWrites = Policy;
    auto D = openDevice("rtl", O);
    ASSERT_TRUE(bool(D)) << toString(D.takeError());
    auto Img = assemble(Half, "half.s");
    ASSERT_TRUE(bool(Img)) << toString(Img.takeError());
    ASSERT_FALSE(bool((*D)->loadImage(*Img)));
    auto Out = (*D)->alloc(32 * 4);
    ASSERT_TRUE(bool(Out));
    std::vector<uint32_t> V(32, 0xDEADBEEFu);
    ASSERT_FALSE(bool((*D)->write<uint32_t>(*Out, V)));
    LaunchParams P;
    P.Kernel = "k";
    P.Block.X = 32;
    P.Args = {KernelArg::ptr(*Out)};
    ASSERT_FALSE(bool((*D)->launch(P)));
    ASSERT_FALSE(bool((*D)->read<uint32_t>(V, *Out)));
    for (unsigned T = 0; T < 32; ++T)
      EXPECT_EQ(V[T], T < 8 ? T + 7 : 0u) << "thread " << T; // local memory starts zeroed
    Counters C = (*D)->counters();
    const char *Name = Policy == LocalWritePolicy::WriteBack ? "write-back" : "write-through";
    EXPECT_EQ(C.get("l1_writebacks"), 0u) << Name;
    // The first store's 32 bytes always go out; the second's only under
    // write-through (under write-back it hits the line the reload filled).
    EXPECT_EQ(C.get("dram_write_bytes"),
              (Policy == LocalWritePolicy::WriteBack ? 32u : 64u) + 2 * 64)
        << Name;
  }
}
