//===- RtlTest.cpp - The rtl device against the iss and the counters ------===//
//
// Every sample program runs on rtl and on iss: both pass the sample's CPU
// reference, the dynamic instruction counts and every other counter iss
// reports (bytes by space, atomics, barriers, branches, blocks) are
// identical, and so are the commit traces warp by warp (every register value
// written, every address and stored value).
// Directed programs check the microarchitecture through the counters: the
// coalescer's requests for unit-stride and stride-2 loads, L1 reuse, and
// shared-memory bank conflicts. Faults stop the RTL with the ISS's message.
//
//===----------------------------------------------------------------------===//

#include "Assembler.h"
#include "Samples.h"
#include "TraceLines.h"

#include "tandem/DeviceError.h"
#include "tandem/Runtime.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

using namespace tandem;
using namespace llvm;

namespace {

std::unique_ptr<Device> open(StringRef Name, raw_ostream *Trace = nullptr) {
  DeviceOptions O;
  O.Trace = Trace;
  auto D = openDevice(Name, O);
  if (!D) {
    ADD_FAILURE() << toString(D.takeError());
    return nullptr;
  }
  return std::move(*D);
}

using rtltest::sameWarpTraces;

TEST(Rtl, EverySampleAgreesWithIss) {
  std::string IssTrace, RtlTrace;
  raw_string_ostream IssOS(IssTrace), RtlOS(RtlTrace);
  auto Iss = open("iss", &IssOS), Rtl = open("rtl", &RtlOS);
  ASSERT_TRUE(Iss && Rtl);
  for (const samples::SampleInfo &S : samples::sampleTable()) {
    samples::SampleOptions O;
    O.Seed = 7;
    IssTrace.clear();
    RtlTrace.clear();
    auto A = samples::runSample(*Iss, S.Name, O);
    ASSERT_TRUE(bool(A)) << S.Name << ": " << toString(A.takeError());
    auto B = samples::runSample(*Rtl, S.Name, O);
    ASSERT_TRUE(bool(B)) << S.Name << ": " << toString(B.takeError());
    EXPECT_TRUE(A->Passed) << S.Name << " on iss: " << A->Message;
    EXPECT_TRUE(B->Passed) << S.Name << " on rtl: " << B->Message;
    for (const auto &[Name, V] : A->Counters.Values)
      EXPECT_EQ(B->Counters.get(Name), V) << S.Name << ": counter " << Name;
    EXPECT_GT(B->Counters.get("cycles"), 0u) << S.Name;
    // Same instructions, masks, register values and addresses per warp.
    ASSERT_TRUE(sameWarpTraces(IssTrace, RtlTrace)) << S.Name;
  }
}

// DRAM timing is a run-time parameter: other latencies, bandwidths, channel
// counts and outstanding limits change the cycles, never the results.
TEST(Rtl, DramTimingChangesCyclesNotResults) {
  struct Timing {
    uint32_t Latency, BytesPerCycle, Channels, MaxOutstanding;
  };
  uint64_t DefaultCycles = 0;
  for (Timing T :
       {Timing{100, 16, 1, 16}, Timing{1, 64, 4, 1}, Timing{300, 8, 2, 3}}) {
    DeviceOptions O;
    O.Config.Dram = {T.Latency, T.BytesPerCycle, T.Channels, T.MaxOutstanding};
    auto D = openDevice("rtl", O);
    ASSERT_TRUE(bool(D)) << toString(D.takeError());
    auto Iss = open("iss");
    ASSERT_TRUE(Iss);
    uint64_t Cycles = 0;
    for (const char *Name : {"vadd", "transpose", "shuffle_reduce"}) {
      samples::SampleOptions SO;
      SO.Seed = 11;
      SO.Only = {Name};
      auto R = samples::runSample(**D, Name, SO);
      ASSERT_TRUE(bool(R)) << Name << ": " << toString(R.takeError());
      auto I = samples::runSample(*Iss, Name, SO);
      ASSERT_TRUE(bool(I)) << Name << ": " << toString(I.takeError());
      EXPECT_TRUE(R->Passed) << Name << ": " << R->Message;
      EXPECT_EQ(R->Counters.get("warp_instructions"),
                I->Counters.get("warp_instructions"))
          << Name;
      EXPECT_EQ(R->Counters.get("thread_instructions"),
                I->Counters.get("thread_instructions"))
          << Name;
      Cycles += R->Counters.get("cycles");
    }
    if (!DefaultCycles)
      DefaultCycles = Cycles;
    else
      EXPECT_NE(Cycles, DefaultCycles) << "latency " << T.Latency;
  }
}

/// Assembles \p Src, runs kernel "k" on rtl with one block of \p Threads
/// threads and the arguments, and returns the counters.
Counters runOn(Device &D, StringRef Src, unsigned Threads,
               std::vector<KernelArg> Args) {
  auto Img = assemble(Src, "directed.s");
  if (!Img) {
    ADD_FAILURE() << toString(Img.takeError());
    return {};
  }
  if (Error E = D.loadImage(*Img)) {
    ADD_FAILURE() << toString(std::move(E));
    return {};
  }
  LaunchParams P;
  P.Kernel = "k";
  P.Block.X = Threads;
  P.Args = std::move(Args);
  if (Error E = D.launch(P)) {
    ADD_FAILURE() << toString(std::move(E));
    return {};
  }
  return D.counters();
}

// Thread t loads a[t * stride] (twice if `again`).
std::string stridedLoad(bool Again) {
  std::string S = R"(
.kernel k
.param a ptr
.param stride u32
    s2r r1, %tid.x
    ld.param.u32 r2, [r0 + @stride]
    ld.param.u32 r3, [r0 + @a]
    mul r4, r1, r2
    shli r4, r4, 2
    add r3, r3, r4
    ld.global.u32 r5, [r3]
)";
  if (Again)
    S += "    ld.global.u32 r6, [r3]\n";
  S += "    exit\n";
  return S;
}

DevicePtr filledBuffer(Device &D, unsigned Words) {
  auto P = D.alloc(Words * 4);
  EXPECT_TRUE(bool(P));
  std::vector<uint32_t> V(Words);
  std::mt19937 G(3);
  for (uint32_t &W : V)
    W = G() | 1;
  EXPECT_FALSE(bool(D.write<uint32_t>(*P, V)));
  return *P;
}

TEST(Rtl, CoalescerSendsOneRequestPerLine) {
  auto D = open("rtl");
  ASSERT_TRUE(D);
  AcceleratorConfig C;
  unsigned Line = C.L1.LineBytes;
  DevicePtr A = filledBuffer(*D, 256);
  Counters Unit =
      runOn(*D, stridedLoad(false), 32, {KernelArg::ptr(A), KernelArg::u32(1)});
  EXPECT_EQ(Unit.get("dram_requests"), 32 * 4 / Line);
  EXPECT_EQ(Unit.get("l1_misses"), 32 * 4 / Line);
  Counters Two =
      runOn(*D, stridedLoad(false), 32, {KernelArg::ptr(A), KernelArg::u32(2)});
  EXPECT_EQ(Two.get("dram_requests"), 2 * 32 * 4 / Line);
  EXPECT_EQ(Two.get("dram_read_bytes"), 2 * 32 * 4u);
}

TEST(Rtl, ReusedLineIsNotFetchedAgain) {
  auto D = open("rtl");
  ASSERT_TRUE(D);
  AcceleratorConfig C;
  unsigned Lines = 32 * 4 / C.L1.LineBytes;
  DevicePtr A = filledBuffer(*D, 64);
  Counters K =
      runOn(*D, stridedLoad(true), 32, {KernelArg::ptr(A), KernelArg::u32(1)});
  EXPECT_EQ(K.get("l1_misses"), Lines);
  EXPECT_EQ(K.get("l1_hits"), Lines);
  EXPECT_EQ(K.get("dram_requests"), Lines);
}

// Thread t loads shared word t * N: an N-way bank conflict in every
// sub-warp when the banks are as many as the lanes.
std::string sharedStride(unsigned N) {
  return formatv(R"(
.kernel k
.shared 4096
    s2r r1, %tid.x
    muli r2, r1, {0}
    ld.shared.u32 r3, [r2]
    exit
)",
                 N * 4)
      .str();
}

TEST(Rtl, BankConflictsSerialize) {
  auto D = open("rtl");
  ASSERT_TRUE(D);
  AcceleratorConfig C;
  ASSERT_EQ(C.Shared.Banks, C.Lanes) << "the test assumes banks == lanes";
  uint64_t Cpw = C.cyclesPerWarpInstr();
  for (unsigned N : {1u, 2u, 4u, 8u}) {
    Counters K = runOn(*D, sharedStride(N), 32, {});
    uint64_t Cycles = Cpw + K.get("shared_bank_conflict_cycles");
    EXPECT_EQ(Cycles, N * Cpw) << N << "-way conflict";
  }
}

TEST(Rtl, OutOfBoundsLoadFaultsLikeIss) {
  std::string Src = stridedLoad(false);
  std::string Msg[2];
  for (int I = 0; I < 2; ++I) {
    auto D = open(I ? "rtl" : "iss");
    ASSERT_TRUE(D);
    DevicePtr A = filledBuffer(*D, 16);
    auto Img = assemble(Src, "oob.s");
    ASSERT_TRUE(bool(Img));
    ASSERT_FALSE(bool(D->loadImage(*Img)));
    LaunchParams P;
    P.Kernel = "k";
    P.Block.X = 32;
    P.Args = {KernelArg::ptr(A), KernelArg::u32(1)};
    Error E = D->launch(P);
    ASSERT_TRUE(bool(E));
    Msg[I] = toString(std::move(E));
  }
  EXPECT_EQ(Msg[1], Msg[0]);
  EXPECT_NE(Msg[1].find("out-of-bounds global load"), std::string::npos);
}

/// The error of launching kernel "k" of \p Src with \p Threads threads on
/// device \p Name ("" if it succeeds).
std::string launchError(StringRef Name, StringRef Src, unsigned Threads) {
  auto D = open(Name);
  if (!D)
    return "cannot open";
  auto Img = assemble(Src, "fault.s");
  if (!Img)
    return toString(Img.takeError());
  if (Error E = D->loadImage(*Img))
    return toString(std::move(E));
  LaunchParams P;
  P.Kernel = "k";
  P.Block.X = Threads;
  Error E = D->launch(P);
  return E ? toString(std::move(E)) : "";
}

TEST(Rtl, BarrierDeadlockFaultsLikeIss) {
  // Warp 0 exits; warp 1 waits at a bar warp 0 can never reach.
  const char *Src = R"(
.kernel k
    s2r r1, %warpid
    bnz r1, wait
    exit
wait:
    bar
    exit
)";
  for (StringRef Dev : {"iss", "rtl"}) {
    std::string E = launchError(Dev, Src, 64);
    EXPECT_NE(E.find("barrier deadlock"), std::string::npos)
        << Dev.str() << ": " << E;
    EXPECT_NE(E.find("warp 1"), std::string::npos) << Dev.str() << ": " << E;
    // Both name the waiting warp with its bar and the finished one.
    EXPECT_NE(E.find("1 (bar at pc 0x000c)"), std::string::npos) << Dev.str() << ": " << E;
    EXPECT_TRUE(E.find("warps 0 have finished") != std::string::npos ||
                E.find("warp 0 finished while warps 1") != std::string::npos)
        << Dev.str() << ": " << E;
  }
}

TEST(Rtl, RunningOffTheCodeFaultsLikeIss) {
  const char *Src = R"(
.kernel k
    nop
)";
  for (StringRef Dev : {"iss", "rtl"}) {
    std::string E = launchError(Dev, Src, 32);
    EXPECT_NE(E.find("kernel 'k': block (0,0,0) warp 0 pc 0x0004: illegal "
                     "instruction: pc is outside kernel 'k' code [0x0000, 0x0004) "
                     "(reached from pc 0x0000)"),
              std::string::npos)
        << Dev.str() << ": " << E;
  }
}

// The exec-mask spill code: ld.local.all.u32 and st.local.all.u32 act in
// all 32 lanes whatever exec is (here warp 0 runs them with lanes 0..15
// inactive, and warp 1, whose lanes 8..31 never lived, with exec 0).
// Thread t writes 100 if its lane
// was active at the all-lanes store, else the 7 its register held before;
// lane-masked accesses would leave 1 in the slot and 3 in the register.
TEST(Rtl, AllLanesLocalAccessesIgnoreExecLikeIss) {
  const char *Src = R"(
.kernel k
.param out ptr
.param mask u32
.local 4
    s2r r1, %tid.x
    shli r2, r1, 2
    ld.param.u32 r3, [r0 + @out]
    add r3, r3, r2
    li r4, 1
    st.local.u32 [r0 + 0], r4
    li r5, 7
    li r6, 3
    emask.get r7
    ld.param.u32 r8, [r0 + @mask]
    emask.set r8
    li r5, 100
    st.local.all.u32 [r0 + 0], r5
    ld.local.all.u32 r6, [r0 + 0]
    emask.set r7
    st.global.u32 [r3 + 0], r6
    exit
)";
  constexpr unsigned Threads = 40;
  constexpr uint32_t Mask = 0xffff0000u;
  std::string Traces[2];
  for (int Dev = 0; Dev < 2; ++Dev) {
    SCOPED_TRACE(Dev ? "rtl" : "iss");
    raw_string_ostream OS(Traces[Dev]);
    auto D = open(Dev ? "rtl" : "iss", &OS);
    ASSERT_TRUE(D);
    auto Out = D->alloc(Threads * 4);
    ASSERT_TRUE(bool(Out));
    ASSERT_FALSE(bool(D->write<uint32_t>(*Out, std::vector<uint32_t>(Threads, 0xdeadbeefu))));
    Counters C = runOn(*D, Src, Threads, {KernelArg::ptr(*Out), KernelArg::u32(Mask)});
    std::vector<uint32_t> Got(Threads);
    ASSERT_FALSE(bool(D->read<uint32_t>(Got, *Out)));
    for (unsigned T = 0; T < Threads; ++T)
      EXPECT_EQ(Got[T], Mask >> (T % 32) & 1 ? 100u : 7u) << "thread " << T;
    // Both warps store and load all 32 lanes: 2 x 32 x 4 bytes each way,
    // next to the masked store's 40 x 4.
    EXPECT_EQ(C.get("local_store_bytes"), 2u * 32 * 4 + Threads * 4);
    EXPECT_EQ(C.get("local_load_bytes"), 2u * 32 * 4);
    // The launch line says the local bytes per thread and where the rtl
    // puts them: the next allocation after Out (the model's layout).
    std::string Launch = "# launch kernel=k grid=1,1,1 block=40,1,1 local=4 local_base=" +
                         std::string(formatv("{0:x8}", *Out + 256).str());
    EXPECT_NE(Traces[Dev].find(Launch + "\n"), std::string::npos)
        << Launch << '\n'
        << Traces[Dev].substr(0, 200);
  }
  EXPECT_TRUE(sameWarpTraces(Traces[0], Traces[1]));
  // Both devices name the same base: the iss's is where the rtl's is.
  EXPECT_EQ(Traces[0].substr(0, Traces[0].find('\n')), Traces[1].substr(0, Traces[1].find('\n')));
}

} // namespace

namespace {

// An image larger than the instruction memory (4096 words): the rtl loads
// one kernel's code at a time, each word at its image index modulo the
// memory's size, so kernels run at their image pcs. Padding kernels put
// 'tail' across the memory's wrap-around point;
// launching head, tail, head again reloads the memory each time. Results
// and traces (image pcs included) must equal iss's. A kernel that alone is
// larger than the memory is refused, naming it.
TEST(Rtl, ImagesLargerThanTheInstructionMemoryRunKernelByKernel) {
  auto Body = [](int Value) {
    return formatv("    s2r r1, %tid.x\n    shli r1, r1, 2\n    ld.param.u32 r2, [r0 + @out]\n"
                   "    add r2, r2, r1\n    li r3, {0}\n    st.global.u32 [r2 + 0], r3\n"
                   "    exit\n",
                   Value)
        .str();
  };
  std::string Src = ".kernel head\n.param out ptr\n" + Body(11);
  // head is 7 words; pad (4000) and two fillers (2091 each) put tail (7
  // words) at word 8189, across the wrap-around at 8192.
  auto Nops = [&](const char *Name, int Words) {
    Src += formatv(".kernel {0}\n", Name).str();
    for (int I = 0; I < Words - 1; ++I)
      Src += "    nop\n";
    Src += "    exit\n";
  };
  Nops("pad", 4000);
  Nops("filler1", 2091);
  Nops("filler2", 2091);
  Src += ".kernel tail\n.param out ptr\n" + Body(22);
  Expected<KernelImage> Img = assemble(Src, "big.s");
  ASSERT_TRUE(bool(Img)) << toString(Img.takeError());
  ASSERT_GT(Img->Code.size(), 4096u);
  const KernelInfo *Tail = Img->findKernel("tail");
  ASSERT_NE(Tail, nullptr);
  uint32_t TailFirst = Tail->EntryOffset / 4, TailLast = TailFirst + Tail->CodeBytes / 4 - 1;
  ASSERT_NE(TailFirst / 4096, TailLast / 4096) << "tail should cross a wrap-around point";

  std::string Traces[2];
  for (int Dev = 0; Dev < 2; ++Dev) {
    SCOPED_TRACE(Dev ? "rtl" : "iss");
    raw_string_ostream OS(Traces[Dev]);
    auto D = open(Dev ? "rtl" : "iss", &OS);
    ASSERT_TRUE(D);
    Error Loaded = D->loadImage(*Img);
    ASSERT_FALSE(bool(Loaded)) << toString(std::move(Loaded));
    for (auto [Kernel, Want] : {std::pair<const char *, uint32_t>{"head", 11},
                                {"tail", 22},
                                {"head", 11}}) {
      auto Out = D->alloc(64 * 4);
      ASSERT_TRUE(bool(Out));
      ASSERT_FALSE(bool(D->write<uint32_t>(*Out, std::vector<uint32_t>(64, 0xdeadbeefu))));
      LaunchParams P;
      P.Kernel = Kernel;
      P.Grid = {1, 1, 1};
      P.Block = {64, 1, 1};
      P.Args = {KernelArg::ptr(*Out)};
      Error E = D->launch(P);
      ASSERT_FALSE(bool(E)) << Kernel << ": " << toString(std::move(E));
      std::vector<uint32_t> Got(64);
      ASSERT_FALSE(bool(D->read<uint32_t>(Got, *Out)));
      EXPECT_EQ(Got, std::vector<uint32_t>(64, Want)) << Kernel;
    }
  }
  EXPECT_NE(Traces[1].find(formatv("pc={0}", format_hex(Tail->EntryOffset, 6)).str()),
            std::string::npos)
      << "the rtl trace should show tail's image pcs";
  EXPECT_TRUE(sameWarpTraces(Traces[0], Traces[1]));

  // One kernel alone larger than the memory.
  std::string Huge = ".kernel huge\n";
  for (int I = 0; I < 4100; ++I)
    Huge += "    nop\n";
  Huge += "    exit\n";
  Expected<KernelImage> HugeImg = assemble(Huge, "huge.s");
  ASSERT_TRUE(bool(HugeImg)) << toString(HugeImg.takeError());
  auto D = open("rtl");
  ASSERT_TRUE(D);
  Error E = D->loadImage(*HugeImg);
  // A limit of the device, not a fault: callers can tell (tandem/DeviceError.h).
  EXPECT_TRUE(E.isA<CapacityError>());
  std::string Msg = E ? toString(std::move(E)) : "<no error>";
  EXPECT_NE(Msg.find("kernel 'huge' has 4101 instruction words but the core's instruction "
                     "memory holds 4096"),
            std::string::npos)
      << Msg;
}

} // namespace
