//===- IssFaultTest.cpp - Every iss fault, provoked and checked -----------===//
//
// Each fault kind the simulator reports (memory out of bounds and misaligned
// in every space, illegal instructions, pc outside the kernel, step limit,
// barrier deadlock, and the launch checks: block size, argument count,
// registers, shared memory, unknown kernel) is provoked by a small kernel,
// and its message is checked for the kernel, block, warp, lane, pc,
// disassembled instruction and address it must name.
//
//===----------------------------------------------------------------------===//

#include "KernelBuilder.h"

#include "tandem/Runtime.h"

#include <gtest/gtest.h>

using namespace tandem;
using namespace tandem::iss;
using simt::Opcode;
using simt::SpecialReg;

namespace {

int64_t sr(SpecialReg R) { return int64_t(R); }

uint32_t encoded(const simt::DecodedInst &I) {
  llvm::Expected<uint32_t> W = simt::encode(I);
  if (!W) {
    ADD_FAILURE() << llvm::toString(W.takeError());
    return 0;
  }
  return *W;
}

class IssFaultTest : public ::testing::Test {
protected:
  void SetUp() override { reopen(); }
  void reopen() {
    auto D = openDevice("iss", Opts);
    ASSERT_TRUE(bool(D)) << llvm::toString(D.takeError());
    Dev = std::move(*D);
  }
  DevicePtr alloc(uint64_t Bytes) {
    auto P = Dev->alloc(Bytes);
    if (!P) {
      ADD_FAILURE() << llvm::toString(P.takeError());
      return 0;
    }
    std::vector<uint8_t> Fill(Bytes);
    for (size_t I = 0; I < Bytes; ++I)
      Fill[I] = uint8_t(I * 37 + 11);
    EXPECT_FALSE(bool(Dev->copyToDevice(*P, Fill)));
    return *P;
  }
  /// The message of the error the launch must fail with.
  std::string faultOf(const KernelBuilder &K, Dim3 Grid, Dim3 Block,
                      std::vector<KernelArg> Args, uint32_t DynShared = 0) {
    auto Img = K.build();
    if (!Img)
      return "build failed: " + llvm::toString(Img.takeError());
    return faultOfImage(*Img, Img->Kernels[0].Name, Grid, Block,
                        std::move(Args), DynShared);
  }
  std::string faultOfImage(const KernelImage &Img, const std::string &Name,
                           Dim3 Grid, Dim3 Block, std::vector<KernelArg> Args,
                           uint32_t DynShared = 0) {
    if (llvm::Error E = Dev->loadImage(Img))
      return "load failed: " + llvm::toString(std::move(E));
    LaunchParams P;
    P.Kernel = Name;
    P.Grid = Grid;
    P.Block = Block;
    P.DynamicSharedBytes = DynShared;
    P.Args = std::move(Args);
    llvm::Error E = Dev->launch(P);
    if (!E) {
      ADD_FAILURE() << "launch of '" << Name
                    << "' succeeded; a fault was expected";
      return "";
    }
    return llvm::toString(std::move(E));
  }

  DeviceOptions Opts;
  std::unique_ptr<Device> Dev;
};

#define EXPECT_CONTAINS(Text, Part)                                            \
  EXPECT_NE(std::string(Text).find(Part), std::string::npos)                   \
      << "expected \"" << (Part) << "\" in:\n  " << (Text)

/// c[i] = a[i] + b[i] without a bounds check: i = ctaid.x * ntid.x + tid.x.
KernelBuilder uncheckedVadd() {
  KernelBuilder K("vadd");
  K.param("a", ParamKind::Pointer)
      .param("b", ParamKind::Pointer)
      .param("c", ParamKind::Pointer);
  K.emit(Opcode::S2R, {1, sr(SpecialReg::TID_X)})      // 0x00
      .emit(Opcode::S2R, {2, sr(SpecialReg::CTAID_X)}) // 0x04
      .emit(Opcode::S2R, {3, sr(SpecialReg::NTID_X)})  // 0x08
      .emit(Opcode::MUL, {2, 2, 3})                    // 0x0c
      .emit(Opcode::ADD, {1, 1, 2})                    // 0x10
      .emit(Opcode::SHLI, {2, 1, 2})                   // 0x14
      .emit(Opcode::PARAM_LD_U32, {3, 0, 0})           // 0x18
      .emit(Opcode::PARAM_LD_U32, {4, 0, 4})           // 0x1c
      .emit(Opcode::PARAM_LD_U32, {5, 0, 8})           // 0x20
      .emit(Opcode::ADD, {3, 3, 2})                    // 0x24
      .emit(Opcode::ADD, {4, 4, 2})                    // 0x28
      .emit(Opcode::ADD, {5, 5, 2})                    // 0x2c
      .emit(Opcode::GLOBAL_LD_U32, {6, 3, 0})          // 0x30
      .emit(Opcode::GLOBAL_LD_U32, {7, 4, 0})          // 0x34
      .emit(Opcode::FADD, {8, 6, 7})                   // 0x38
      .emit(Opcode::GLOBAL_ST_U32, {5, 0, 8})          // 0x3c
      .emit(Opcode::EXIT);                             // 0x40
  return K;
}

TEST_F(IssFaultTest, GlobalLoadPastTheEndNamesEverything) {
  // 231 elements; blocks of 64: thread 231 is block 3, warp 1, lane 7.
  DevicePtr A = alloc(231 * 4), B = alloc(256 * 4), C = alloc(256 * 4);
  ASSERT_EQ(A, 0x00100000u);
  std::string M =
      faultOf(uncheckedVadd(), {4, 1, 1}, {64, 1, 1},
              {KernelArg::ptr(A), KernelArg::ptr(B), KernelArg::ptr(C)});
  EXPECT_EQ(
      M,
      "kernel 'vadd': block (3,0,0) warp 1 lane 7 pc 0x0030 (ld.global.u32 r6, "
      "[r3 + 0]): "
      "out-of-bounds global load of 4 bytes at 0x0010039c (nearest allocation "
      "0x00100000..0x0010039c, 924 bytes)");
  // The counters cover the instructions run up to the fault.
  EXPECT_GT(Dev->counters().get("warp_instructions"), 3u * 2 * 17);
  EXPECT_EQ(Dev->counters().get("blocks"), 4u);
}

TEST_F(IssFaultTest, GlobalStoreThroughNullAndFreedPointers) {
  DevicePtr A = alloc(256 * 4), B = alloc(256 * 4), C = alloc(256 * 4);
  std::string M =
      faultOf(uncheckedVadd(), {1, 1, 1}, {32, 1, 1},
              {KernelArg::ptr(A), KernelArg::ptr(B), KernelArg::ptr(0)});
  EXPECT_EQ(
      M,
      "kernel 'vadd': block (0,0,0) warp 0 lane 0 pc 0x003c (st.global.u32 [r5 "
      "+ 0], r8): "
      "out-of-bounds global store of 4 bytes at 0x00000000 (nearest allocation "
      "0x00100000..0x00100400, 1024 bytes)");
  ASSERT_FALSE(bool(Dev->free(B)));
  M = faultOf(uncheckedVadd(), {1, 1, 1}, {32, 1, 1},
              {KernelArg::ptr(A), KernelArg::ptr(B), KernelArg::ptr(C)});
  EXPECT_CONTAINS(M, "warp 0 lane 0 pc 0x0034 (ld.global.u32 r7, [r4 + 0]): "
                     "out-of-bounds global "
                     "load of 4 bytes at 0x00100400");
}

TEST_F(IssFaultTest, AccessRunningPastTheEndOfAnAllocation) {
  // A 10-byte buffer: a 4-byte load at offset 8 starts inside and ends outside.
  DevicePtr P = alloc(10);
  KernelBuilder K("tail");
  K.param("p", ParamKind::Pointer);
  K.emit(Opcode::PARAM_LD_U32, {1, 0, 0})
      .emit(Opcode::GLOBAL_LD_U32, {2, 1, 8})
      .emit(Opcode::EXIT);
  std::string M = faultOf(K, {1, 1, 1}, {1, 1, 1}, {KernelArg::ptr(P)});
  EXPECT_EQ(M, "kernel 'tail': block (0,0,0) warp 0 lane 0 pc 0x0004 "
               "(ld.global.u32 r2, [r1 + 8]): "
               "out-of-bounds global load of 4 bytes at 0x00100008 (runs 2 "
               "bytes past the end of "
               "the allocation 0x00100000..0x0010000a, 10 bytes)");
}

TEST_F(IssFaultTest, MisalignedAccessesInEachSpace) {
  DevicePtr P = alloc(64);
  struct Case {
    Opcode Op;
    bool Store;
    int64_t Imm;
    const char *Want;
  };
  for (const Case &C : std::vector<Case>{
           {Opcode::GLOBAL_LD_U32, false, 2,
            "misaligned global load of 4 bytes at 0x00100002 "
            "(must be 4-byte aligned)"},
           {Opcode::GLOBAL_LD_S16, false, 1,
            "misaligned global load of 2 bytes at 0x00100001"},
           {Opcode::GLOBAL_ST_U16, true, 3,
            "misaligned global store of 2 bytes at 0x00100003"},
           {Opcode::SHARED_ST_U32, true, 6,
            "misaligned shared store of 4 bytes at 0x00000006"},
           {Opcode::LOCAL_LD_U32, false, 1,
            "misaligned local load of 4 bytes at 0x00000001"},
           {Opcode::PARAM_LD_U32, false, 2,
            "misaligned param load of 4 bytes at 0x00000002"},
       }) {
    KernelBuilder K("mis");
    K.param("p", ParamKind::Pointer).shared(64).local(16);
    bool Global = simt::getDesc(C.Op).Space == simt::MemSpace::Global;
    K.emit(Opcode::PARAM_LD_U32, {1, 0, 0});
    if (!Global)
      K.emit(Opcode::MOVI, {1, 0});
    if (C.Store)
      K.emit(C.Op, {1, C.Imm, 2});
    else
      K.emit(C.Op, {2, 1, C.Imm});
    K.emit(Opcode::EXIT);
    std::string M = faultOf(K, {1, 1, 1}, {32, 1, 1}, {KernelArg::ptr(P)});
    EXPECT_CONTAINS(M, "kernel 'mis': block (0,0,0) warp 0 lane 0 pc ");
    EXPECT_CONTAINS(M, C.Want);
  }
  // Atomics: 4-byte aligned too.
  KernelBuilder K("atom");
  K.param("p", ParamKind::Pointer);
  K.emit(Opcode::PARAM_LD_U32, {1, 0, 0})
      .emit(Opcode::S2R, {2, sr(SpecialReg::LANEID)})
      .emit(Opcode::ADD, {1, 1, 2})
      .emit(Opcode::ATOM_GLOBAL_ADD, {3, 1, 2})
      .emit(Opcode::EXIT);
  std::string M = faultOf(K, {1, 1, 1}, {32, 1, 1}, {KernelArg::ptr(P)});
  EXPECT_EQ(M, "kernel 'atom': block (0,0,0) warp 0 lane 1 pc 0x000c "
               "(atom.global.add r3, [r1], r2): "
               "misaligned global atomic of 4 bytes at 0x00100001 (must be "
               "4-byte aligned)");
}

TEST_F(IssFaultTest, SharedMemoryEndsAtStaticPlusDynamicBytes) {
  // Lane i stores at shared address 4 * i: 32 lanes need 128 bytes.
  KernelBuilder K("shared");
  K.shared(64);
  K.emit(Opcode::S2R, {1, sr(SpecialReg::LANEID)})
      .emit(Opcode::SHLI, {1, 1, 2})
      .emit(Opcode::SHARED_ST_U32, {1, 0, 1})
      .emit(Opcode::EXIT);
  std::string M = faultOf(K, {2, 1, 1}, {32, 1, 1}, {}, 32);
  EXPECT_EQ(M, "kernel 'shared': block (0,0,0) warp 0 lane 24 pc 0x0008 "
               "(st.shared.u32 [r1 + 0], r1): "
               "out-of-bounds shared store of 4 bytes at 0x00000060 (the block "
               "has 96 bytes of "
               "shared memory: 64 static + 32 dynamic)");
  // With 64 dynamic bytes the same kernel fits.
  auto Img = K.build();
  ASSERT_TRUE(bool(Img));
  ASSERT_FALSE(bool(Dev->loadImage(*Img)));
  LaunchParams P;
  P.Kernel = "shared";
  P.DynamicSharedBytes = 64;
  P.Block = {32, 1, 1};
  EXPECT_FALSE(bool(Dev->launch(P)));
  // An atomic past the end of shared memory.
  KernelBuilder A("sharedatom");
  A.shared(16)
      .emit(Opcode::MOVI, {1, 16})
      .emit(Opcode::ATOM_SHARED_ADD, {2, 1, 1})
      .emit(Opcode::EXIT);
  M = faultOf(A, {1, 1, 1}, {1, 1, 1}, {});
  EXPECT_CONTAINS(M, "lane 0 pc 0x0004 (atom.shared.add r2, [r1], r1): "
                     "out-of-bounds shared atomic "
                     "of 4 bytes at 0x00000010");
}

TEST_F(IssFaultTest, LocalParamAndConstBounds) {
  KernelBuilder L("local");
  L.local(32)
      .emit(Opcode::MOVI, {1, 0})
      .emit(Opcode::LOCAL_ST_U32, {1, 32, 1})
      .emit(Opcode::EXIT);
  EXPECT_EQ(faultOf(L, {1, 1, 1}, {8, 1, 1}, {}),
            "kernel 'local': block (0,0,0) warp 0 lane 0 pc 0x0004 "
            "(st.local.u32 [r1 + 32], r1): "
            "out-of-bounds local store of 4 bytes at 0x00000020 (the kernel "
            "has 32 bytes of local "
            "memory per thread)");
  KernelBuilder N("negative");
  N.local(32)
      .emit(Opcode::MOVI, {1, 0})
      .emit(Opcode::LOCAL_LD_U8, {2, 1, -1})
      .emit(Opcode::EXIT);
  EXPECT_CONTAINS(faultOf(N, {1, 1, 1}, {8, 1, 1}, {}),
                  "out-of-bounds local load of 1 bytes at 0xffffffff");

  KernelBuilder P("param");
  P.param("x")
      .param("y")
      .emit(Opcode::PARAM_LD_U32, {1, 0, 8})
      .emit(Opcode::EXIT);
  EXPECT_EQ(
      faultOf(P, {1, 1, 1}, {1, 1, 1}, {KernelArg::u32(1), KernelArg::u32(2)}),
      "kernel 'param': block (0,0,0) warp 0 lane 0 pc 0x0000 (ld.param.u32 r1, "
      "[r0 + 8]): "
      "out-of-bounds param load of 4 bytes at 0x00000008 (the parameter buffer "
      "is 8 bytes)");

  KernelBuilder C("konst");
  C.emit(Opcode::S2R, {1, sr(SpecialReg::LANEID)})
      .emit(Opcode::SHLI, {1, 1, 2})
      .emit(Opcode::CONST_LD_U32, {2, 1, 0})
      .emit(Opcode::EXIT);
  auto Img = C.build();
  ASSERT_TRUE(bool(Img));
  Img->Const.assign(40, 7);
  EXPECT_EQ(faultOfImage(*Img, "konst", {1, 1, 1}, {32, 1, 1}, {}),
            "kernel 'konst': block (0,0,0) warp 0 lane 10 pc 0x0008 "
            "(ld.const.u32 r2, [r1 + 0]): "
            "out-of-bounds const load of 4 bytes at 0x00000028 (the image has "
            "40 bytes of "
            "constant data)");
}

TEST_F(IssFaultTest, IllegalInstructions) {
  KernelBuilder Z("zeros");
  Z.emit(Opcode::NOP).word(0).emit(Opcode::EXIT);
  EXPECT_EQ(faultOf(Z, {1, 1, 1}, {32, 1, 1}, {}),
            "kernel 'zeros': block (0,0,0) warp 0 pc 0x0004 (word 0x00000000): "
            "illegal "
            "instruction: word 0x00000000 does not decode (unknown opcode 0x00 "
            "or stray bits "
            "outside the format's fields)");

  // nop with a stray bit in its (unused) operand bits.
  uint32_t Nop = encoded({Opcode::NOP, 0, 0, 0, 0, 0});
  KernelBuilder S("stray");
  S.word(Nop | 0x40).emit(Opcode::EXIT);
  EXPECT_CONTAINS(faultOf(S, {1, 1, 1}, {1, 1, 1}, {}), "pc 0x0000 (word 0x");
  EXPECT_CONTAINS(faultOf(S, {1, 1, 1}, {1, 1, 1}, {}), "does not decode");

  // A register the kernel's metadata does not declare.
  KernelBuilder R("regs");
  R.emit(Opcode::ADD, {9, 1, 2}).emit(Opcode::EXIT).registersUsed(4);
  EXPECT_EQ(
      faultOf(R, {1, 1, 1}, {1, 1, 1}, {}),
      "kernel 'regs': block (0,0,0) warp 0 pc 0x0000 (add r9, r1, r2): illegal "
      "instruction: it names r9 but the kernel declares RegistersUsed 4 "
      "(registers "
      "r0..r3); the image is inconsistent");
}

TEST_F(IssFaultTest, PcOutsideTheKernel) {
  // Falling off the end: the lanes never exit.
  KernelBuilder F("falloff");
  F.emit(Opcode::NOP).emit(Opcode::NOP);
  EXPECT_EQ(faultOf(F, {1, 1, 1}, {32, 1, 1}, {}),
            "kernel 'falloff': block (0,0,0) warp 0 pc 0x0008: illegal "
            "instruction: pc is "
            "outside kernel 'falloff' code [0x0000, 0x0008) (reached from pc "
            "0x0004)");
  // A branch into another kernel's code is outside this kernel too.
  KernelImage Img;
  KernelBuilder First("first");
  First.emit(Opcode::EXIT);
  ASSERT_FALSE(bool(First.addTo(Img)));
  // A jump of -2 words from pc 0x0008 lands in the first kernel's code.
  KernelBuilder Jump("jump");
  Jump.emit(Opcode::NOP).word(encoded({Opcode::BRA, 0, 0, 0, 0, -2}));
  ASSERT_FALSE(bool(Jump.addTo(Img)));
  EXPECT_EQ(
      faultOfImage(Img, "jump", {1, 1, 1}, {1, 1, 1}, {}),
      "kernel 'jump': block (0,0,0) warp 0 pc 0x0000: illegal instruction: pc "
      "is "
      "outside kernel 'jump' code [0x0004, 0x000c) (reached from pc 0x0008)");
}

TEST_F(IssFaultTest, StepLimitCatchesEndlessLoops) {
  Opts.StepLimit = 1000;
  reopen();
  KernelBuilder K("spin");
  auto Top = K.newLabel();
  K.bind(Top).emit(Opcode::ADDI, {1, 1, 1}).branch(Opcode::BRA, Top);
  std::string M = faultOf(K, {1, 1, 1}, {64, 1, 1}, {});
  EXPECT_EQ(M, "kernel 'spin': block (0,0,0) warp 0 pc 0x0000 (addi r1, r1, "
               "1): step limit "
               "exceeded: 1000 warp instructions executed in this launch (an "
               "endless loop? "
               "raise DeviceOptions::StepLimit or --step-limit)");
  EXPECT_EQ(Dev->counters().get("warp_instructions"), 1000u);
}

TEST_F(IssFaultTest, BarrierDeadlockDoesNotDependOnWhichWarpRunsFirst) {
  // Warp 0 exits before warps 1 and 2 reach their bar: on iss warp 0 runs
  // to completion first, so nobody is waiting when it finishes; the bar can
  // still never complete, and the verdict must be the same as when the
  // exiting warp runs last (BarrierDeadlockNamesTheWaitingWarps).
  KernelBuilder K("early_exit");
  auto Skip = K.newLabel();
  K.emit(Opcode::S2R, {1, sr(SpecialReg::WARPID)})
      .branch(Opcode::BZ, {1}, Skip)
      .emit(Opcode::BAR) // 0x08
      .bind(Skip)
      .emit(Opcode::EXIT); // 0x0c
  std::string M = faultOf(K, {1, 1, 1}, {96, 1, 1}, {});
  EXPECT_EQ(M, "kernel 'early_exit': block (0,0,0) warp 1 pc 0x0008 (bar): "
               "barrier deadlock: warps 1 (bar at pc 0x0008), 2 (bar at pc "
               "0x0008) wait at a barrier but warps 0 have finished; every "
               "warp that waits at a bar needs all warps of its block there");
}

TEST_F(IssFaultTest, BarrierDeadlockNamesTheWaitingWarps) {
  // Warp 1 exits without reaching the bar warps 0 and 2 wait at.
  KernelBuilder K("deadlock");
  auto Skip = K.newLabel();
  K.emit(Opcode::S2R, {1, sr(SpecialReg::WARPID)})
      .emit(Opcode::SETEQI, {2, 1, 1})
      .branch(Opcode::BNZ, {2}, Skip)
      .emit(Opcode::BAR) // 0x0c
      .bind(Skip)
      .emit(Opcode::EXIT); // 0x10
  std::string M = faultOf(K, {2, 1, 1}, {96, 1, 1}, {});
  EXPECT_EQ(M, "kernel 'deadlock': block (0,0,0) warp 1 pc 0x0010 (exit): "
               "barrier deadlock: warp "
               "1 finished while warps 0 (bar at pc 0x000c) wait at a barrier; "
               "every warp that "
               "has not finished must reach each bar");
  // Every warp reaching the bar (and partial blocks) is fine.
  KernelBuilder Ok("fine");
  Ok.emit(Opcode::BAR).emit(Opcode::BAR).emit(Opcode::EXIT);
  auto Img = Ok.build();
  ASSERT_TRUE(bool(Img));
  ASSERT_FALSE(bool(Dev->loadImage(*Img)));
  LaunchParams P;
  P.Kernel = "fine";
  P.Block = {70, 1, 1};
  EXPECT_FALSE(bool(Dev->launch(P)));
  EXPECT_EQ(Dev->counters().get("barriers"), 6u);
}

TEST_F(IssFaultTest, LaunchChecks) {
  KernelBuilder K("k");
  K.param("a", ParamKind::Pointer)
      .param("n", ParamKind::U32)
      .emit(Opcode::EXIT);
  std::vector<KernelArg> Two = {KernelArg::ptr(0x100000), KernelArg::u32(1)};
  EXPECT_EQ(faultOf(K, {1, 1, 1}, {16, 17, 1}, Two),
            "kernel 'k': cannot launch: block (16,17,1) has 272 threads, more "
            "than the "
            "configuration's limit of 256 (WarpsPerCore 8 x 32 threads); use "
            "smaller blocks or a "
            "configuration with more warps");
  EXPECT_EQ(faultOf(K, {1, 1, 1}, {32, 1, 1}, {KernelArg::u32(1)}),
            "kernel 'k': cannot launch: it takes 2 arguments (a: ptr, n: u32) "
            "but the launch "
            "passes 1");
  EXPECT_EQ(faultOf(K, {1, 0, 1}, {32, 1, 1}, Two),
            "kernel 'k': cannot launch: grid (1,0,1) has no blocks; every "
            "dimension must be >= 1");
  EXPECT_CONTAINS(faultOf(K, {1, 1, 1}, {0, 1, 1}, Two),
                  "block (0,1,1) has no threads");

  KernelBuilder R("bigregs");
  R.emit(Opcode::ADD, {40, 1, 2}).emit(Opcode::EXIT);
  EXPECT_EQ(faultOf(R, {1, 1, 1}, {1, 1, 1}, {}),
            "kernel 'bigregs': cannot launch: it uses 41 registers but the "
            "configuration has 32 "
            "(registers); recompile for this configuration");

  KernelBuilder S("bigshared");
  S.shared(16 * 1024).emit(Opcode::EXIT);
  EXPECT_EQ(faultOf(S, {1, 1, 1}, {1, 1, 1}, {}, 4),
            "kernel 'bigshared': cannot launch: it needs 16388 bytes of shared "
            "memory (16384 "
            "static + 4 dynamic) but a core has 16384 (shared.size_bytes)");

  auto Img = K.build();
  ASSERT_TRUE(bool(Img));
  EXPECT_EQ(faultOfImage(*Img, "nosuch", {1, 1, 1}, {1, 1, 1}, {}),
            "kernel 'nosuch' is not in the loaded image (kernels: k)");
}

TEST_F(IssFaultTest, LaunchWithoutImageAndBadImages) {
  LaunchParams P;
  P.Kernel = "k";
  EXPECT_EQ(
      llvm::toString(Dev->launch(P)),
      "cannot launch kernel 'k': no image is loaded (call loadImage first)");
  KernelImage Img;
  KernelBuilder K("k");
  K.emit(Opcode::EXIT);
  ASSERT_FALSE(bool(K.addTo(Img)));
  KernelImage Dup = Img;
  Dup.Kernels.push_back(Dup.Kernels[0]);
  EXPECT_EQ(llvm::toString(Dev->loadImage(Dup)),
            "kernel 'k' is defined twice in the image");
  KernelImage Outside = Img;
  Outside.Kernels[0].CodeBytes = 8;
  EXPECT_EQ(llvm::toString(Dev->loadImage(Outside)),
            "kernel 'k': code [0, 8) lies outside the image's 4 bytes of code");
  KernelImage BadParam = Img;
  BadParam.Kernels[0].Params.push_back({"p", ParamKind::U32, 2, 4});
  EXPECT_CONTAINS(llvm::toString(Dev->loadImage(BadParam)),
                  "parameter 'p' has size 4 at offset 2");
}

} // namespace
