//===- RuntimeTest.cpp - The device API (include/tandem/Runtime.h) --------===//
//
// Opening devices by name (iss works; rtl, gpu and unknown names fail with
// their documented messages), device memory (256-byte alignment, address 0
// never valid, free() and copy bounds), the Counters container, and the
// exact counters of a launch whose instruction mix is known by hand.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "tandem/Runtime.h"

#include "llvm/ADT/bit.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

using namespace tandem;
using namespace tandem::iss;
using simt::Opcode;
using simt::SpecialReg;

namespace {

std::unique_ptr<Device> openIss(const DeviceOptions &O = {}) {
  auto D = openDevice("iss", O);
  if (!D) {
    ADD_FAILURE() << llvm::toString(D.takeError());
    return nullptr;
  }
  return std::move(*D);
}

std::string errorOf(llvm::Error E) {
  return E ? llvm::toString(std::move(E)) : std::string("<success>");
}
template <typename T> std::string errorOf(llvm::Expected<T> E) {
  return E ? std::string("<success>") : llvm::toString(E.takeError());
}

TEST(RuntimeTest, OpensIssAndRtlAndNamesTheDeviceNotBuiltYet) {
  auto Iss = openIss();
  ASSERT_TRUE(Iss);
  EXPECT_EQ(Iss->name(), "iss");
  DeviceOptions O;
  auto Rtl = openDevice("rtl", O);
  ASSERT_TRUE(bool(Rtl)) << llvm::toString(Rtl.takeError());
  EXPECT_EQ((*Rtl)->name(), "rtl");
  // gpu opens the CUDA driver (GpuDeviceTest covers it); with a library that
  // cannot exist, it says which one it looked for.
  setenv("TANDEM_CUDA_LIBRARY", "libtandem-no-such-cuda.so.1", 1);
  std::string Gpu = errorOf(openDevice("gpu", O));
  unsetenv("TANDEM_CUDA_LIBRARY");
  EXPECT_NE(Gpu.find("cannot open device 'gpu': cannot load the CUDA driver library "
                     "'libtandem-no-such-cuda.so.1'"),
            std::string::npos)
      << Gpu;
  EXPECT_EQ(errorOf(openDevice("tpu", O)),
            "unknown device 'tpu'; known devices: iss, rtl, gpu");
  ASSERT_EQ(knownDevices().size(), 3u);
  EXPECT_EQ(knownDevices()[0], "iss");
  EXPECT_EQ(knownDevices()[1], "rtl");
  EXPECT_EQ(knownDevices()[2], "gpu");
}

TEST(RuntimeTest, SeveralCoresOpenOnBothDevices) {
  DeviceOptions O;
  O.Config.Name = "quad";
  O.Config.Cores = 4;
  // The rtl runs four instances of its core (tests/rtl/MultiCoreTest.cpp);
  // the iss is functional: the core count changes nothing it computes.
  EXPECT_EQ(errorOf(openDevice("rtl", O)), "<success>");
  EXPECT_EQ(errorOf(openDevice("iss", O)), "<success>");
}

TEST(RuntimeTest, RejectsUnusableMemorySizes) {
  DeviceOptions O;
  O.MemoryBytes = 0;
  EXPECT_NE(errorOf(openDevice("iss", O))
                .find("device memory size 0 bytes is out of range"),
            std::string::npos);
  O.MemoryBytes = 1ull << 32; // no room above the first valid address
  EXPECT_NE(errorOf(openDevice("iss", O)).find("out of range"),
            std::string::npos);
}

TEST(RuntimeTest, AllocationsAreAlignedDisjointAndNeverAtZero) {
  auto D = openIss();
  ASSERT_TRUE(D);
  std::mt19937 Rng(7);
  std::vector<std::pair<DevicePtr, uint64_t>> Live;
  for (int I = 0; I < 64; ++I) {
    uint64_t Bytes = 1 + Rng() % 5000;
    auto P = D->alloc(Bytes);
    ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
    EXPECT_EQ(*P % 256, 0u);
    EXPECT_GE(*P, 0x100u);
    for (auto [Q, QBytes] : Live)
      EXPECT_TRUE(*P + Bytes <= Q || Q + QBytes <= *P) << "overlap";
    Live.push_back({*P, Bytes});
    if (Rng() % 3 == 0) { // free one at random: its range may be reused
      size_t K = Rng() % Live.size();
      ASSERT_FALSE(bool(D->free(Live[K].first)));
      Live.erase(Live.begin() + K);
    }
  }
  EXPECT_EQ(errorOf(D->alloc(0)), "cannot allocate 0 bytes of device memory");
  EXPECT_NE(errorOf(D->alloc(1ull << 40))
                .find("out of device memory: 1099511627776 bytes "
                      "requested"),
            std::string::npos);
}

TEST(RuntimeTest, ExhaustingDeviceMemoryIsAnError) {
  DeviceOptions O;
  O.MemoryBytes = 4096;
  auto D = openIss(O);
  ASSERT_TRUE(D);
  auto A = D->alloc(3000), B = D->alloc(1024);
  ASSERT_TRUE(bool(A) && bool(B));
  EXPECT_NE(errorOf(D->alloc(1)).find("out of device memory"),
            std::string::npos);
  ASSERT_FALSE(bool(D->free(*A)));
  auto C = D->alloc(2000);
  ASSERT_TRUE(bool(C));
  EXPECT_EQ(*C, *A); // first fit reuses the freed range
}

TEST(RuntimeTest, FreeOfANonAllocationIsAnError) {
  auto D = openIss();
  ASSERT_TRUE(D);
  auto P = D->alloc(1000);
  ASSERT_TRUE(bool(P));
  EXPECT_EQ(errorOf(D->free(0)),
            "free(0x00000000): not a live allocation (never allocated, "
            "or already freed)");
  EXPECT_EQ(errorOf(D->free(*P + 16)),
            "free(0x00100010): address is inside the allocation at 0x00100000 "
            "(1000 bytes), "
            "not at its start; pass the pointer alloc() returned");
  EXPECT_FALSE(bool(D->free(*P)));
  EXPECT_EQ(errorOf(D->free(*P)),
            "free(0x00100000): not a live allocation (never allocated, "
            "or already freed)");
}

TEST(RuntimeTest, CopiesStayInsideOneAllocation) {
  auto D = openIss();
  ASSERT_TRUE(D);
  auto P = D->alloc(100);
  auto Q = D->alloc(100);
  ASSERT_TRUE(bool(P) && bool(Q));
  std::mt19937 Rng(3);
  std::vector<uint8_t> In(100), Out(100, 0xCD);
  for (uint8_t &B : In)
    B = uint8_t(Rng());
  ASSERT_FALSE(bool(D->copyToDevice(*P, In)));
  ASSERT_FALSE(bool(D->copyFromDevice(Out, *P)));
  EXPECT_EQ(In, Out);
  // Interior copies are fine.
  std::vector<uint8_t> Part(10, 0);
  ASSERT_FALSE(bool(D->copyFromDevice(Part, *P + 90)));
  EXPECT_EQ(Part, std::vector<uint8_t>(In.begin() + 90, In.end()));

  std::vector<uint8_t> Big(101, 1);
  EXPECT_EQ(errorOf(D->copyToDevice(*P, Big)),
            "copy to the device of 101 bytes at device address 0x00100000 runs "
            "past the end of "
            "the allocation at 0x00100000 (100 bytes, ends at 0x00100064)");
  EXPECT_EQ(errorOf(D->copyFromDevice(Part, *P + 95)),
            "copy from the device of 10 bytes at device address 0x0010005f "
            "runs past the end "
            "of the allocation at 0x00100000 (100 bytes, ends at 0x00100064)");
  // The reserved tail between allocations is not part of either.
  EXPECT_EQ(errorOf(D->copyFromDevice(Part, *P + 200)),
            "copy from the device of 10 bytes at device address 0x001000c8: "
            "the address is not "
            "inside any live allocation");
  EXPECT_EQ(errorOf(D->copyToDevice(0, In)),
            "copy to the device of 100 bytes at device address 0x00000000: the "
            "address is not "
            "inside any live allocation");
  EXPECT_FALSE(bool(D->copyToDevice(*Q, {}))); // nothing to copy
}

TEST(RuntimeTest, CountersContainer) {
  Counters C;
  EXPECT_FALSE(C.has("x"));
  EXPECT_EQ(C.get("x"), 0u);
  C.set("x", 5);
  C.add("x", 3);
  C.add("y", 2);
  EXPECT_TRUE(C.has("x"));
  EXPECT_EQ(C.get("x"), 8u);
  EXPECT_EQ(C.get("y"), 2u);
  C.set("x", 1);
  EXPECT_EQ(C.get("x"), 1u);
  ASSERT_EQ(C.Values.size(), 2u);
  EXPECT_EQ(C.Values[0].first, "x"); // insertion order is kept
  EXPECT_EQ(KernelArg::f32(-1.5f).Bits, 0xbfc00000u);
  EXPECT_EQ(KernelArg::s32(-2).Bits, 0xfffffffeu);
}

/// out[i] = a[i] + a[i] for i < n (fp32); 20 instructions, mix known by hand.
KernelBuilder doubler() {
  KernelBuilder K("double");
  K.param("a", ParamKind::Pointer).param("out", ParamKind::Pointer).param("n");
  auto Done = K.newLabel();
  K.emit(Opcode::EMASK_GET, {7})                            // CTRL
      .emit(Opcode::S2R, {1, int64_t(SpecialReg::TID_X)})   // CTRL
      .emit(Opcode::S2R, {2, int64_t(SpecialReg::CTAID_X)}) // CTRL
      .emit(Opcode::S2R, {3, int64_t(SpecialReg::NTID_X)})  // CTRL
      .emit(Opcode::MUL, {2, 2, 3})                         // ALU
      .emit(Opcode::ADD, {1, 1, 2})                         // ALU
      .emit(Opcode::PARAM_LD_U32, {5, 0, 8})                // LSU
      .emit(Opcode::SETLTU, {6, 1, 5})                      // ALU
      .emit(Opcode::EMASK_AND, {6})                         // CTRL
      .branch(Opcode::BNONE, Done)                          // CTRL
      .emit(Opcode::SHLI, {2, 1, 2})                        // ALU
      .emit(Opcode::PARAM_LD_U32, {3, 0, 0})                // LSU
      .emit(Opcode::PARAM_LD_U32, {4, 0, 4})                // LSU
      .emit(Opcode::ADD, {3, 3, 2})                         // ALU
      .emit(Opcode::ADD, {4, 4, 2})                         // ALU
      .emit(Opcode::GLOBAL_LD_U32, {8, 3, 0})               // LSU
      .emit(Opcode::FADD, {8, 8, 8})                        // FPU
      .emit(Opcode::GLOBAL_ST_U32, {4, 0, 8})               // LSU
      .bind(Done)
      .emit(Opcode::EMASK_SET, {7}) // CTRL
      .emit(Opcode::EXIT);          // CTRL
  return K;
}

TEST(RuntimeTest, CountersOfALaunchAreExact) {
  auto D = openIss();
  ASSERT_TRUE(D);
  // Before any launch every counter exists and is zero.
  ASSERT_FALSE(D->counters().Values.empty());
  for (const auto &[Name, V] : D->counters().Values)
    EXPECT_EQ(V, 0u) << Name;

  auto Img = doubler().build();
  ASSERT_TRUE(bool(Img)) << llvm::toString(Img.takeError());
  ASSERT_FALSE(bool(D->loadImage(*Img)));
  constexpr unsigned N = 100;
  std::mt19937 Rng(11);
  std::vector<float> A(N), Out(128, 0);
  for (float &F : A)
    F = float(int(Rng() % 2000) - 1000) / 16.0f;
  auto PA = D->alloc(N * 4), PO = D->alloc(128 * 4);
  ASSERT_TRUE(bool(PA) && bool(PO));
  ASSERT_FALSE(bool(D->write<float>(*PA, A)));
  ASSERT_FALSE(
      bool(D->write<uint32_t>(*PO, std::vector<uint32_t>(128, 0xDEADBEEF))));
  LaunchParams P;
  P.Kernel = "double";
  P.Grid = {2, 1, 1};
  P.Block = {64, 1, 1};
  P.Args = {KernelArg::ptr(*PA), KernelArg::ptr(*PO), KernelArg::u32(N)};
  ASSERT_FALSE(bool(D->launch(P)));
  ASSERT_FALSE(bool(D->read<float>(Out, *PO)));
  for (unsigned I = 0; I < N; ++I)
    ASSERT_EQ(Out[I], A[I] + A[I]) << I;
  EXPECT_EQ(llvm::bit_cast<uint32_t>(Out[N]), 0xDEADBEEFu);

  // 4 warps run all 20 instructions; warp 3 has 4 threads below n.
  const Counters &C = D->counters();
  EXPECT_EQ(C.get("warp_instructions"), 80u);
  EXPECT_EQ(C.get("thread_instructions"),
            9u * 128 + 9 * (96 + 4) + (96 + 4) + 128);
  EXPECT_EQ(C.get("active_lane_pct_x100"), 2280u * 10000 / (32 * 80));
  EXPECT_EQ(C.get("warp_instructions.alu"), 24u);
  EXPECT_EQ(C.get("warp_instructions.fpu"), 4u);
  EXPECT_EQ(C.get("warp_instructions.sfu"), 0u);
  EXPECT_EQ(C.get("warp_instructions.lsu"), 20u);
  EXPECT_EQ(C.get("warp_instructions.ctrl"), 32u);
  EXPECT_EQ(C.get("global_load_bytes"), N * 4);
  EXPECT_EQ(C.get("global_store_bytes"), N * 4);
  EXPECT_EQ(C.get("param_load_bytes"), 128u * 4 + 2 * N * 4);
  EXPECT_EQ(C.get("shared_load_bytes") + C.get("local_load_bytes") +
                C.get("const_load_bytes"),
            0u);
  EXPECT_EQ(C.get("branches_taken"), 0u);
  EXPECT_EQ(C.get("divergent_branches"), 0u);
  EXPECT_EQ(C.get("barriers"), 0u);
  EXPECT_EQ(C.get("blocks"), 2u);
  EXPECT_EQ(C.get("warps_launched"), 4u);

  // A second launch reports its own counts, not a running total.
  P.Grid = {1, 1, 1};
  ASSERT_FALSE(bool(D->launch(P)));
  EXPECT_EQ(D->counters().get("warp_instructions"), 40u);
  EXPECT_EQ(D->counters().get("blocks"), 1u);
}

TEST(RuntimeTest, EveryCounterIsDocumented) {
  auto D = openIss();
  ASSERT_TRUE(D);
  auto Doc = llvm::MemoryBuffer::getFile(TANDEM_SOURCE_DIR "/docs/Counters.md");
  ASSERT_TRUE(bool(Doc)) << "docs/Counters.md is missing";
  llvm::StringRef Text = (*Doc)->getBuffer();
  for (const auto &[Name, V] : D->counters().Values)
    EXPECT_TRUE(Text.contains("`" + Name + "`"))
        << Name << " is not in docs/Counters.md";
}

} // namespace
