//===- SelectSimtTest.cpp - simt instruction selection --------------------===//
//
// Each test selects a small kernel written in the form isel/Prepare.h
// guarantees and checks the MIR: opcodes and operands of the key
// instructions (printed with mir::print), the layouts, the uniformity marks,
// and the error text for what simt cannot do. Every selected function must
// pass mir::verify.
//
//===----------------------------------------------------------------------===//

#include "isel/MIR.h"
#include "isel/SelectSimt.h"

#include "ISA.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/SourceMgr.h"

#include <gtest/gtest.h>

#include <regex>

using namespace llvm;
using namespace tandem;

namespace {

const char *Header = R"(
target datalayout = "e-p:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare void @llvm.nvvm.barrier0()
declare float @llvm.nvvm.shfl.sync.down.f32(i32, float, i32, i32)
declare i32 @llvm.nvvm.shfl.sync.idx.i32(i32, i32, i32, i32)
declare i32 @llvm.nvvm.shfl.sync.up.i32(i32, i32, i32, i32)
declare i32 @llvm.nvvm.vote.ballot.sync(i32, i1)
declare i1 @llvm.nvvm.vote.any.sync(i32, i1)
declare i32 @llvm.smin.i32(i32, i32)
declare float @llvm.fmuladd.f32(float, float, float)
declare i32 @llvm.ctlz.i32(i32, i1)
)";

struct Selected {
  std::unique_ptr<LLVMContext> Ctx;
  std::unique_ptr<Module> M;
  std::unique_ptr<mir::Function> Fn;
  std::string Text;  ///< mir::print output
  std::string Error; ///< selection error, if any
};

/// Parses Header + \p Body, selects @k.
Selected select(const std::string &Body) {
  Selected S;
  S.Ctx = std::make_unique<LLVMContext>();
  SMDiagnostic Diag;
  S.M = parseAssemblyString(std::string(Header) + Body, Diag, *S.Ctx);
  if (!S.M) {
    std::string Msg;
    raw_string_ostream OS(Msg);
    Diag.print("test", OS);
    ADD_FAILURE() << "IR does not parse: " << Msg;
    return S;
  }
  std::string Broken;
  raw_string_ostream BrokenOS(Broken);
  if (verifyModule(*S.M, &BrokenOS)) {
    ADD_FAILURE() << "test IR is invalid: " << Broken;
    return S;
  }
  Function *K = S.M->getFunction("k");
  Expected<std::unique_ptr<mir::Function>> Fn = isel::selectSimt(*K, "k");
  if (!Fn) {
    S.Error = toString(Fn.takeError());
    return S;
  }
  S.Fn = std::move(*Fn);
  raw_string_ostream OS(S.Text);
  mir::print(OS, *S.Fn, mir::TargetKind::Simt);
  EXPECT_EQ(mir::verify(*S.Fn, mir::TargetKind::Simt, false), "") << S.Text;
  return S;
}

/// True when some line of \p Text matches \p Pattern (an ECMAScript regex
/// for the whole line, leading spaces ignored).
bool hasLine(const std::string &Text, const std::string &Pattern) {
  std::regex Re("^\\s*" + Pattern + "\\s*(;.*)?$");
  std::istringstream In(Text);
  for (std::string Line; std::getline(In, Line);)
    if (std::regex_match(Line, Re))
      return true;
  return false;
}

unsigned countOpcode(const mir::Function &Fn, unsigned Opc) {
  unsigned N = 0;
  for (const auto &B : Fn.Blocks)
    for (const mir::Inst &I : B->Insts)
      N += I.Opcode == Opc;
  return N;
}
unsigned countOpcode(const mir::Function &Fn, simt::Opcode O) {
  return countOpcode(Fn, static_cast<unsigned>(O));
}

const mir::Inst *findInst(const mir::Function &Fn, unsigned Opc) {
  for (const auto &B : Fn.Blocks)
    for (const mir::Inst &I : B->Insts)
      if (I.Opcode == Opc)
        return &I;
  return nullptr;
}

#define EXPECT_LINE(S, Pattern) EXPECT_TRUE(hasLine((S).Text, Pattern)) << (S).Text << (S).Error

const std::string V = "%v[0-9]+";

//===--- the pattern table ------------------------------------------------===//

TEST(SelectSimtTest, AddImmediateFormsFollowThePatternTable) {
  Selected S = select(R"(
define void @k(ptr addrspace(1) %p, i32 %a) {
  %x = add i32 %a, 7
  %y = add i32 %x, 2047
  %z = add i32 %y, 2048
  %w = add i32 %z, %a
  store i32 %w, ptr addrspace(1) %p
  ret void
})");
  ASSERT_TRUE(S.Fn) << S.Error;
  EXPECT_LINE(S, V + " = addi " + V + ", 7");
  EXPECT_LINE(S, V + " = addi " + V + ", 2047");     // the top of simm12
  EXPECT_LINE(S, V + " = LI 2048");                   // out of range: li + add
  EXPECT_LINE(S, V + " = add " + V + ", " + V);
  EXPECT_EQ(countOpcode(*S.Fn, simt::Opcode::ADD), 2u) << S.Text;
  EXPECT_EQ(countOpcode(*S.Fn, simt::Opcode::ADDI), 2u) << S.Text;
}

TEST(SelectSimtTest, ParametersAreLoadedFromTheirOffsetsAndUniform) {
  Selected S = select(R"(
define void @k(ptr addrspace(1) %p, i32 %unused, float %f) {
  store float %f, ptr addrspace(1) %p
  ret void
})");
  ASSERT_TRUE(S.Fn) << S.Error;
  ASSERT_EQ(S.Fn->Params.size(), 3u);
  EXPECT_EQ(S.Fn->Params[0].Kind, mir::ParamKind::Pointer);
  EXPECT_EQ(S.Fn->Params[1].Kind, mir::ParamKind::S32);
  EXPECT_EQ(S.Fn->Params[2].Kind, mir::ParamKind::F32);
  EXPECT_EQ(S.Fn->Params[2].Offset, 8u);
  EXPECT_LINE(S, V + " = ld.param.u32 r0, 0");
  EXPECT_LINE(S, V + " = ld.param.u32 r0, 8");
  EXPECT_EQ(countOpcode(*S.Fn, simt::Opcode::PARAM_LD_U32), 2u) << "unused params are not loaded";
  const mir::Inst *Ld = findInst(*S.Fn, static_cast<unsigned>(simt::Opcode::PARAM_LD_U32));
  EXPECT_TRUE(S.Fn->info(Ld->Ops[0].R).Uniform);
}

TEST(SelectSimtTest, ZeroIsTheZeroRegister) {
  Selected S = select(R"(
define void @k(ptr addrspace(1) %p, i32 %a) {
  %n = sub i32 0, %a
  store i32 %n, ptr addrspace(1) %p
  store i32 0, ptr addrspace(1) %p
  ret void
})");
  ASSERT_TRUE(S.Fn) << S.Error;
  EXPECT_LINE(S, V + " = sub r0, " + V);
  EXPECT_LINE(S, "st.global.u32 " + V + ", 0, r0");
}

//===--- memory -----------------------------------------------------------===//

TEST(SelectSimtTest, LoadsAndStoresPerSpaceWithFoldedOffsets) {
  Selected S = select(R"(
@tile = internal addrspace(3) global [64 x float] undef, align 4
define void @k(ptr addrspace(1) %p) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %a = alloca [4 x i32], align 4
  %la = addrspacecast ptr %a to ptr addrspace(5)
  %g = getelementptr inbounds i32, ptr addrspace(1) %p, i32 3
  %v = load i32, ptr addrspace(1) %g, align 4
  %s = getelementptr inbounds [64 x float], ptr addrspace(3) @tile, i32 0, i32 5
  store i32 %v, ptr addrspace(3) %s, align 4
  %l = getelementptr inbounds i32, ptr addrspace(5) %la, i32 2
  store i32 %t, ptr addrspace(5) %l, align 4
  %b = getelementptr inbounds i8, ptr addrspace(1) %p, i32 1
  %c = load i8, ptr addrspace(1) %b, align 1
  %cs = sext i8 %c to i32
  %h = getelementptr inbounds i16, ptr addrspace(1) %p, i32 4
  %hv = load i16, ptr addrspace(1) %h, align 2
  %hz = zext i16 %hv to i32
  %sum = add i32 %cs, %hz
  %far = getelementptr inbounds i32, ptr addrspace(1) %p, i32 1000
  store i32 %sum, ptr addrspace(1) %far, align 4
  %t8 = trunc i32 %t to i8
  store i8 %t8, ptr addrspace(1) %p, align 1
  ret void
})");
  ASSERT_TRUE(S.Fn) << S.Error;
  EXPECT_LINE(S, V + " = ld.global.u32 " + V + ", 12");
  EXPECT_LINE(S, "st.shared.u32 r0, 20, " + V);       // static shared: [r0 + offset]
  EXPECT_LINE(S, "st.local.u32 r0, 8, " + V);         // alloca at local 0, + 8
  EXPECT_LINE(S, V + " = ld.global.s8 " + V + ", 1");  // only sext users: signed load
  EXPECT_LINE(S, V + " = ld.global.u16 " + V + ", 8");
  // 4000 > 2047: a second base p + 2047 (one addi), the rest in the field.
  EXPECT_LINE(S, V + " = addi " + V + ", 2047");
  EXPECT_LINE(S, "st.global.u32 " + V + ", 1953, " + V);
  EXPECT_LINE(S, "st.global.u8 " + V + ", 0, " + V);
  // The extension of the narrow loads is free: no shifts or masks.
  EXPECT_EQ(countOpcode(*S.Fn, simt::Opcode::SHLI) + countOpcode(*S.Fn, simt::Opcode::ANDI), 0u)
      << S.Text;
  EXPECT_EQ(S.Fn->LocalBytes, 16u);
  EXPECT_EQ(S.Fn->SharedBytes, 256u);
}

TEST(SelectSimtTest, SharedLayoutPutsDynamicSharedAfterStatic) {
  Selected S = select(R"(
@a = internal addrspace(3) global [3 x i8] undef, align 1
@b = internal addrspace(3) global [2 x i32] undef, align 4
@unused = internal addrspace(3) global [100 x i32] undef, align 4
@dyn = external addrspace(3) global [0 x float], align 16
define void @k(ptr addrspace(1) %p) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  store i8 1, ptr addrspace(3) @a, align 1
  %b1 = getelementptr inbounds [2 x i32], ptr addrspace(3) @b, i32 0, i32 1
  store i32 2, ptr addrspace(3) %b1, align 4
  %d = getelementptr inbounds [0 x float], ptr addrspace(3) @dyn, i32 0, i32 %t
  %v = load float, ptr addrspace(3) %d, align 4
  store float %v, ptr addrspace(1) %p, align 4
  ret void
})");
  ASSERT_TRUE(S.Fn) << S.Error;
  // @a at 0 (3 bytes), @b aligned to 4 -> 4..12, @dyn at 16 (its alignment);
  // @unused is not used by this kernel and takes no space.
  EXPECT_LINE(S, "st.shared.u8 r0, 0, " + V);
  EXPECT_LINE(S, "st.shared.u32 r0, 8, " + V);
  EXPECT_LINE(S, V + " = ld.shared.u32 " + V + ", 16"); // tid*4 + 16, folded
  EXPECT_EQ(S.Fn->SharedBytes, 16u);
}

TEST(SelectSimtTest, GenericPointersAreTracedToTheirSpace) {
  Selected S = select(R"(
@tile = internal addrspace(3) global [64 x float] undef, align 4
define void @k(ptr %p) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %g = getelementptr inbounds float, ptr %p, i32 %t
  %v = load float, ptr %g, align 4
  %s = getelementptr inbounds [64 x float], ptr addrspacecast (ptr addrspace(3) @tile to ptr), i32 0, i32 %t
  store float %v, ptr %s, align 4
  ret void
})");
  ASSERT_TRUE(S.Fn) << S.Error;
  EXPECT_LINE(S, V + " = ld.global.u32 " + V + ", 0");
  EXPECT_LINE(S, "st.shared.u32 " + V + ", 0, " + V);
}

TEST(SelectSimtTest, AtomicsReturnTheOldValue) {
  Selected S = select(R"(
@cnt = internal addrspace(3) global i32 undef, align 4
define void @k(ptr addrspace(1) %p, i32 %a, float %f) {
  %q = getelementptr inbounds i32, ptr addrspace(1) %p, i32 4
  %o1 = atomicrmw add ptr addrspace(1) %q, i32 %a seq_cst, align 4
  %o2 = atomicrmw fadd ptr addrspace(1) %p, float %f monotonic, align 4
  %o3 = atomicrmw umax ptr addrspace(3) @cnt, i32 %o1 seq_cst, align 4
  %o4 = atomicrmw sub ptr addrspace(1) %p, i32 %a seq_cst, align 4
  %cx = cmpxchg ptr addrspace(1) %p, i32 %o3, i32 %o4 seq_cst seq_cst, align 4
  %old = extractvalue { i32, i1 } %cx, 0
  %ok = extractvalue { i32, i1 } %cx, 1
  %okz = zext i1 %ok to i32
  %r = add i32 %old, %okz
  store i32 %r, ptr addrspace(1) %p, align 4
  ret void
})");
  ASSERT_TRUE(S.Fn) << S.Error;
  EXPECT_LINE(S, V + " = addi " + V + ", 16");  // atomics have no offset field
  EXPECT_LINE(S, V + " = atom.global.add " + V + ", " + V);
  EXPECT_LINE(S, V + " = atom.global.fadd " + V + ", " + V);
  EXPECT_LINE(S, V + " = atom.shared.maxu r0, " + V);
  EXPECT_LINE(S, V + " = atom.global.cas " + V + ", " + V + ", " + V);
  EXPECT_LINE(S, V + " = sub r0, " + V);       // atomic sub = add of -a
  EXPECT_EQ(countOpcode(*S.Fn, simt::Opcode::ATOM_GLOBAL_ADD), 2u) << S.Text;
  // success = (old == expected); its zext is free (seteq gives 0/1).
  EXPECT_LINE(S, V + " = seteq " + V + ", " + V);
  EXPECT_EQ(countOpcode(*S.Fn, simt::Opcode::ANDI), 0u) << S.Text;
}

TEST(SelectSimtTest, AddressArithmeticIsComputedOncePerBlock) {
  Selected S = select(R"(
define void @k(ptr addrspace(1) %out, ptr addrspace(1) %in) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %src = getelementptr inbounds float, ptr addrspace(1) %in, i32 %t
  %v = load float, ptr addrspace(1) %src, align 4
  %dst = getelementptr inbounds float, ptr addrspace(1) %out, i32 %t
  %dst4 = getelementptr inbounds i8, ptr addrspace(1) %dst, i32 4
  store float %v, ptr addrspace(1) %dst4, align 4
  ret void
})");
  ASSERT_TRUE(S.Fn) << S.Error;
  EXPECT_EQ(countOpcode(*S.Fn, simt::Opcode::SHLI), 1u) << S.Text; // t << 2 shared
  EXPECT_LINE(S, "st.global.u32 " + V + ", 4, " + V);             // +4 folded
  EXPECT_EQ(countOpcode(*S.Fn, simt::Opcode::ADDI), 0u) << S.Text;
}

//===--- compares, select, casts -------------------------------------------===//

TEST(SelectSimtTest, IntegerComparesUseImmediateAndSwappedForms) {
  Selected S = select(R"(
define void @k(ptr addrspace(1) %p, i32 %a, i32 %b) {
  %c1 = icmp slt i32 %a, 10
  %c2 = icmp sgt i32 %a, %b
  %c3 = icmp sle i32 %a, 10
  %c4 = icmp uge i32 %a, %b
  %c5 = icmp eq i32 %a, 5000
  %c6 = icmp ugt i32 %a, 3
  %c7 = icmp sge i32 %a, -4
  %x1 = or i1 %c1, %c2
  %x2 = or i1 %x1, %c3
  %x3 = or i1 %x2, %c4
  %x4 = or i1 %x3, %c5
  %x5 = or i1 %x4, %c6
  %x6 = or i1 %x5, %c7
  %z = zext i1 %x6 to i32
  store i32 %z, ptr addrspace(1) %p
  ret void
})");
  ASSERT_TRUE(S.Fn) << S.Error;
  EXPECT_LINE(S, V + " = setlti " + V + ", 10");
  EXPECT_LINE(S, "(%v[0-9]+) = setlt (%v[0-9]+), (%v[0-9]+)"); // sgt: swapped setlt
  EXPECT_LINE(S, V + " = setlti " + V + ", 11");               // sle 10 = slt 11
  EXPECT_LINE(S, V + " = setleu " + V + ", " + V);              // uge: swapped setleu
  EXPECT_LINE(S, V + " = LI 5000");
  EXPECT_LINE(S, V + " = seteq " + V + ", " + V);
  EXPECT_LINE(S, V + " = setgtui " + V + ", 3");
  EXPECT_LINE(S, V + " = setgti " + V + ", -5");               // sge -4 = sgt -5
  // i1 results are 0/1 and stay so through or: the zext costs nothing.
  EXPECT_EQ(countOpcode(*S.Fn, simt::Opcode::ANDI), 0u) << S.Text;
  // sgt swaps its operands: setlt b, a.
  const mir::Inst *Lt = findInst(*S.Fn, static_cast<unsigned>(simt::Opcode::SETLT));
  ASSERT_TRUE(Lt);
  const mir::Inst *LdA = nullptr, *LdB = nullptr; // params a (offset 4), b (8)
  for (const mir::Inst &I : S.Fn->Blocks[0]->Insts) {
    if (I.Opcode != static_cast<unsigned>(simt::Opcode::PARAM_LD_U32))
      continue;
    if (I.Ops[2].Imm == 4)
      LdA = &I;
    if (I.Ops[2].Imm == 8)
      LdB = &I;
  }
  ASSERT_TRUE(LdA && LdB);
  EXPECT_EQ(Lt->Ops[1].R, LdB->Ops[0].R);
  EXPECT_EQ(Lt->Ops[2].R, LdA->Ops[0].R);
}

TEST(SelectSimtTest, NarrowComparesExtendTheirOperandsFirst) {
  Selected S = select(R"(
define void @k(ptr addrspace(1) %p, i32 %a, i32 %b) {
  %x = trunc i32 %a to i8
  %y = trunc i32 %b to i8
  %c = icmp slt i8 %x, %y
  %u = icmp ult i8 %x, 200
  %both = and i1 %c, %u
  %z = zext i1 %both to i32
  store i32 %z, ptr addrspace(1) %p
  ret void
})");
  ASSERT_TRUE(S.Fn) << S.Error;
  EXPECT_LINE(S, V + " = shli " + V + ", 24"); // sext i8: shli 24 + srai 24
  EXPECT_LINE(S, V + " = srai " + V + ", 24");
  EXPECT_LINE(S, V + " = andi " + V + ", 255"); // zext i8 for the unsigned compare
  EXPECT_LINE(S, V + " = setltui " + V + ", 200");
  EXPECT_EQ(countOpcode(*S.Fn, simt::Opcode::SRAI), 2u) << S.Text;
}

TEST(SelectSimtTest, FloatComparesOrderedAndUnordered) {
  Selected S = select(R"(
define void @k(ptr addrspace(1) %p, float %a, float %b) {
  %c1 = fcmp olt float %a, %b
  %c2 = fcmp ogt float %a, %b
  %c3 = fcmp uge float %a, %b
  %c4 = fcmp uno float %a, %b
  %c5 = fcmp une float %a, %b
  %x1 = xor i1 %c1, %c2
  %x2 = xor i1 %x1, %c3
  %x3 = xor i1 %x2, %c4
  %x4 = xor i1 %x3, %c5
  %z = zext i1 %x4 to i32
  store i32 %z, ptr addrspace(1) %p
  ret void
})");
  ASSERT_TRUE(S.Fn) << S.Error;
  EXPECT_LINE(S, V + " = fsetlt " + V + ", " + V);
  EXPECT_LINE(S, V + " = fsetnan " + V + ", " + V);
  // uge = !(olt), une = !(oeq): the ordered compare, then xori 1. uge
  // reuses olt's fsetlt a, b (same block, same operands); ogt is fsetlt b, a.
  EXPECT_EQ(countOpcode(*S.Fn, simt::Opcode::FSETLT), 2u) << S.Text;
  EXPECT_LINE(S, V + " = fseteq " + V + ", " + V);
  EXPECT_EQ(countOpcode(*S.Fn, simt::Opcode::XORI), 2u) << S.Text;
  const mir::Inst *Olt = findInst(*S.Fn, static_cast<unsigned>(simt::Opcode::FSETLT));
  const mir::Inst *Not = findInst(*S.Fn, static_cast<unsigned>(simt::Opcode::XORI));
  ASSERT_TRUE(Olt && Not);
  EXPECT_EQ(Not->Ops[1].R, Olt->Ops[0].R) << "uge must negate olt" << S.Text;
  EXPECT_EQ(Not->Ops[2].Imm, 1);
}

TEST(SelectSimtTest, SelectIsSelAndSmallIntrinsicsUseThePatterns) {
  Selected S = select(R"(
define void @k(ptr addrspace(1) %p, i32 %a, i32 %b, float %f) {
  %c = icmp ne i32 %a, 0
  %s = select i1 %c, i32 %a, i32 %b
  %m = call i32 @llvm.smin.i32(i32 %s, i32 %b)
  %l = call i32 @llvm.ctlz.i32(i32 %m, i1 false)
  %fm = call float @llvm.fmuladd.f32(float %f, float %f, float %f)
  %i = fptosi float %fm to i32
  %r = add i32 %l, %i
  store i32 %r, ptr addrspace(1) %p
  ret void
})");
  ASSERT_TRUE(S.Fn) << S.Error;
  EXPECT_LINE(S, V + " = setnei " + V + ", 0");
  EXPECT_LINE(S, V + " = sel " + V + ", " + V + ", " + V);
  EXPECT_LINE(S, V + " = min " + V + ", " + V);
  EXPECT_LINE(S, V + " = clz " + V);
  EXPECT_LINE(S, V + " = ffma " + V + ", " + V + ", " + V);
  EXPECT_LINE(S, V + " = cvt.s32.f32 " + V);
}

TEST(SelectSimtTest, ContractedMultiplyAddIsOneFfma) {
  Selected S = select(R"(
define void @k(ptr addrspace(1) %p, float %a, float %b, float %c) {
  %m = fmul contract float %a, %b
  %s = fadd contract float %c, %m
  %m2 = fmul float %a, %b
  %s2 = fadd float %m2, %s
  store float %s2, ptr addrspace(1) %p
  ret void
})");
  ASSERT_TRUE(S.Fn) << S.Error;
  EXPECT_EQ(countOpcode(*S.Fn, simt::Opcode::FFMA), 1u) << S.Text;
  EXPECT_EQ(countOpcode(*S.Fn, simt::Opcode::FMUL), 1u) << "the contracted fmul is dead" << S.Text;
  EXPECT_EQ(countOpcode(*S.Fn, simt::Opcode::FADD), 1u) << "no contract flag: no fusion" << S.Text;
}

//===--- i64 --------------------------------------------------------------===//

TEST(SelectSimtTest, I64AddMulShiftCompareAreSplitIntoWords) {
  Selected S = select(R"(
define void @k(ptr addrspace(1) %p, i32 %a, i32 %b, i32 %n) {
  %x = sext i32 %a to i64
  %y = zext i32 %b to i64
  %sum = add i64 %x, %y
  %prod = mul i64 %sum, %sum
  %sh = shl i64 %prod, 40
  %amt = zext i32 %n to i64
  %sv = lshr i64 %sh, %amt
  %c = icmp slt i64 %sv, %x
  %cz = zext i1 %c to i64
  %r = add i64 %sv, %cz
  store i64 %r, ptr addrspace(1) %p, align 8
  %q = getelementptr inbounds i64, ptr addrspace(1) %p, i32 1
  store i64 %prod, ptr addrspace(1) %q, align 8
  ret void
})");
  ASSERT_TRUE(S.Fn) << S.Error;
  EXPECT_LINE(S, V + " = srai " + V + ", 31");     // sext: high word = sign
  EXPECT_LINE(S, V + " = setltu " + V + ", " + V); // carry of the low add
  EXPECT_LINE(S, V + " = mulhiu " + V + ", " + V);
  EXPECT_EQ(countOpcode(*S.Fn, simt::Opcode::MUL), 3u) << S.Text; // lo*lo, two cross terms
  EXPECT_LINE(S, V + " = shli " + V + ", 8");      // shl 40: hi = lo << 8, lo = 0
  // ... the zero register, not a register loaded with 0.
  EXPECT_FALSE(hasLine(S.Text, V + " = LI 0")) << S.Text;
  EXPECT_LINE(S, V + " = setlt " + V + ", " + V);  // hi words, signed
  EXPECT_LINE(S, "st.global.u32 " + V + ", 0, " + V);
  EXPECT_LINE(S, "st.global.u32 " + V + ", 4, " + V);
  EXPECT_LINE(S, "st.global.u32 " + V + ", 12, " + V);
}

TEST(SelectSimtTest, I64ZeroHalvesNeedNoInstruction) {
  // (b << 32) | a is the two words as they are: no shift, no or, no li 0.
  // x >> 33 has the zero register as its high word, so x ^ (x >> 33) is one
  // xor (the high word is x's), and & zext(a) one and (the high word is 0).
  Selected S = select(R"(
define void @k(ptr addrspace(1) %p, i32 %a, i32 %b) {
  %lo = zext i32 %a to i64
  %hi = zext i32 %b to i64
  %hs = shl i64 %hi, 32
  %x = or i64 %hs, %lo
  %y = lshr i64 %x, 33
  %z = xor i64 %x, %y
  %w = and i64 %z, %lo
  store i64 %z, ptr addrspace(1) %p, align 8
  %q = getelementptr inbounds i64, ptr addrspace(1) %p, i32 1
  store i64 %w, ptr addrspace(1) %q, align 8
  ret void
})");
  ASSERT_TRUE(S.Fn) << S.Error;
  EXPECT_EQ(countOpcode(*S.Fn, simt::Opcode::OR), 0u) << S.Text;
  EXPECT_EQ(countOpcode(*S.Fn, simt::Opcode::XOR), 1u) << S.Text;
  EXPECT_EQ(countOpcode(*S.Fn, simt::Opcode::AND), 1u) << S.Text;
  EXPECT_FALSE(hasLine(S.Text, V + " = LI 0")) << S.Text;
  EXPECT_LINE(S, V + " = shri " + V + ", 1"); // x >> 33: lo = b >> 1
  // w's high word is the zero register, stored as it is.
  EXPECT_LINE(S, "st.global.u32 " + V + ", 12, r0");
}

TEST(SelectSimtTest, I64PhiIsTwoPhis) {
  Selected S = select(R"(
define void @k(ptr addrspace(1) %p, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %acc = phi i64 [ 5, %entry ], [ %acc1, %loop ]
  %last = phi i64 [ 0, %entry ], [ %w, %loop ]
  %w = zext i32 %i to i64
  %acc1 = add i64 %acc, %w
  %i1 = add i32 %i, 1
  %c = icmp slt i32 %i1, %n
  br i1 %c, label %loop, label %done
done:
  store i64 %acc1, ptr addrspace(1) %p, align 8
  %q = getelementptr inbounds i64, ptr addrspace(1) %p, i32 1
  store i64 %last, ptr addrspace(1) %q, align 8
  ret void
})");
  ASSERT_TRUE(S.Fn) << S.Error;
  EXPECT_EQ(countOpcode(*S.Fn, mir::PHI), 5u) << S.Text;
  // PHI operands are always vregs: the zext's zero high word and the
  // constant 0 get a vreg in the predecessor.
  for (const auto &B : S.Fn->Blocks)
    for (const mir::Inst &I : B->Insts)
      if (I.Opcode == mir::PHI)
        for (const mir::Operand &O : I.Ops) {
          EXPECT_TRUE(!O.isReg() || mir::isVirtual(O.R)) << S.Text;
        }
  EXPECT_EQ(S.Fn->Blocks[1]->LoopDepth, 1u);
  EXPECT_EQ(S.Fn->Blocks[1]->Name, "loop");
  // Constant incomings are materialized in the predecessor, before its branch.
  EXPECT_LINE(S, V + " = LI 5");
}

//===--- warp operations, barrier, divergence ----------------------------===//

TEST(SelectSimtTest, ShuffleVoteBarrierAndSpecialRegisters) {
  Selected S = select(R"(
define void @k(ptr addrspace(1) %p, float %f) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  call void @llvm.nvvm.barrier0()
  %d = call float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float %f, i32 4, i32 31)
  %u = call i32 @llvm.nvvm.shfl.sync.up.i32(i32 -1, i32 %t, i32 1, i32 0)
  %x = call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 -1, i32 %u, i32 %b, i32 31)
  %pos = fcmp ogt float %d, 0.0
  %m = call i32 @llvm.nvvm.vote.ballot.sync(i32 -1, i1 %pos)
  %a = call i1 @llvm.nvvm.vote.any.sync(i32 -1, i1 %pos)
  %az = zext i1 %a to i32
  %s1 = add i32 %m, %x
  %s2 = add i32 %s1, %az
  store i32 %s2, ptr addrspace(1) %p
  ret void
})");
  ASSERT_TRUE(S.Fn) << S.Error;
  EXPECT_LINE(S, V + " = s2r 0");  // %tid.x
  EXPECT_LINE(S, V + " = s2r 6");  // %ctaid.x
  EXPECT_LINE(S, "bar");
  EXPECT_LINE(S, V + " = shfl.down " + V + ", " + V);
  EXPECT_LINE(S, V + " = shfl.up " + V + ", " + V);
  EXPECT_LINE(S, V + " = shfl.idx " + V + ", " + V);
  EXPECT_LINE(S, V + " = vote.ballot " + V);
  EXPECT_LINE(S, V + " = vote.any " + V);
  // Uniformity: tid and shuffles diverge; ctaid and votes do not.
  for (const mir::Inst &I : S.Fn->Blocks[0]->Insts) {
    if (I.Ops.empty() || !I.Ops[0].isReg() || !I.Ops[0].IsDef)
      continue;
    bool Uniform = S.Fn->info(I.Ops[0].R).Uniform;
    auto Is = [&](simt::Opcode O) { return I.Opcode == static_cast<unsigned>(O); };
    if (Is(simt::Opcode::S2R)) {
      EXPECT_EQ(Uniform, I.Ops[1].Imm == 6) << "s2r " << I.Ops[1].Imm;
    }
    if (Is(simt::Opcode::SHFL_DOWN) || Is(simt::Opcode::SHFL_IDX)) {
      EXPECT_FALSE(Uniform);
    }
    if (Is(simt::Opcode::VOTE_BALLOT) || Is(simt::Opcode::VOTE_ANY)) {
      EXPECT_TRUE(Uniform);
    }
  }
}

TEST(SelectSimtTest, ShuffleWidthOtherThan32IsAnError) {
  Selected S = select(R"(
define void @k(ptr addrspace(1) %p, float %f) {
  %d = call float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float %f, i32 4, i32 6175)
  store float %d, ptr addrspace(1) %p
  ret void
})");
  EXPECT_FALSE(S.Fn);
  EXPECT_NE(S.Error.find("full-warp shuffles"), std::string::npos) << S.Error;
}

TEST(SelectSimtTest, BranchDivergenceFollowsUniformity) {
  Selected S = select(R"(
define void @k(ptr addrspace(1) %p, i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %c = icmp slt i32 %t, %n
  br i1 %c, label %then, label %join
then:
  store i32 1, ptr addrspace(1) %p
  br label %join
join:
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %c2 = icmp slt i32 %b, %n
  br i1 %c2, label %then2, label %exit
then2:
  store i32 2, ptr addrspace(1) %p
  br label %exit
exit:
  ret void
})");
  ASSERT_TRUE(S.Fn) << S.Error;
  ASSERT_EQ(S.Fn->Blocks.size(), 5u);
  const mir::Inst &B1 = S.Fn->Blocks[0]->Insts.back();
  const mir::Inst &B2 = S.Fn->Blocks[2]->Insts.back();
  ASSERT_EQ(B1.Opcode, mir::BRCOND);
  ASSERT_EQ(B2.Opcode, mir::BRCOND);
  EXPECT_TRUE(B1.Divergent) << "tid-dependent";
  EXPECT_FALSE(B2.Divergent) << "blockIdx/param-dependent";
  EXPECT_EQ(B1.Ops[1].Target, S.Fn->Blocks[1].get());
  EXPECT_EQ(B1.Ops[2].Target, S.Fn->Blocks[2].get());
}

TEST(SelectSimtTest, BranchOnCompareWithZeroTestsTheValue) {
  Selected S = select(R"(
define void @k(ptr addrspace(1) %p, i32 %n) {
entry:
  %c = icmp eq i32 %n, 0
  br i1 %c, label %zero, label %exit
zero:
  store i32 1, ptr addrspace(1) %p
  br label %exit
exit:
  ret void
})");
  ASSERT_TRUE(S.Fn) << S.Error;
  EXPECT_EQ(countOpcode(*S.Fn, simt::Opcode::SETEQI), 0u) << S.Text;
  const mir::Inst &Br = S.Fn->Blocks[0]->Insts.back();
  ASSERT_EQ(Br.Opcode, mir::BRCOND);
  // eq 0 swaps the targets: taken (n != 0) goes to exit.
  EXPECT_EQ(Br.Ops[1].Target->Name, "exit");
  EXPECT_EQ(Br.Ops[2].Target->Name, "zero");
}

TEST(SelectSimtTest, BranchOnAFlagPhiOfConstantsAndComparesNeedsNoAndi) {
  // StructurizeCFG's Flow flag: a phi of i1 constants (and here a
  // compare), each 0 or 1 in the whole register, so the branch tests the
  // phi itself. With an undef incoming it is not known: the zext (and the
  // branch) mask it first.
  Selected S = select(R"(
define void @k(ptr addrspace(1) %p, i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %c = icmp slt i32 %t, %n
  br i1 %c, label %else, label %flow
else:
  %d = icmp eq i32 %t, 3
  br label %flow
flow:
  %f = phi i1 [ %d, %else ], [ true, %entry ]
  %u = phi i1 [ false, %else ], [ undef, %entry ]
  %z = zext i1 %u to i32
  store i32 %z, ptr addrspace(1) %p
  br i1 %f, label %then, label %exit
then:
  store i32 1, ptr addrspace(1) %p
  br label %exit
exit:
  ret void
})");
  ASSERT_TRUE(S.Fn) << S.Error;
  const mir::Block *Flow = nullptr;
  for (const auto &B : S.Fn->Blocks)
    if (B->Name == "flow")
      Flow = B.get();
  ASSERT_TRUE(Flow) << S.Text;
  ASSERT_GE(Flow->Insts.size(), 2u);
  mir::Reg F = Flow->Insts[0].Ops[0].R, U = Flow->Insts[1].Ops[0].R;
  const mir::Inst &Br = Flow->Insts.back();
  ASSERT_EQ(Br.Opcode, mir::BRCOND) << S.Text;
  EXPECT_EQ(Br.Ops[0].R, F) << "the branch should test the flag phi itself\n" << S.Text;
  unsigned AndiOfU = 0;
  for (const mir::Inst &I : Flow->Insts)
    AndiOfU += I.Opcode == static_cast<unsigned>(simt::Opcode::ANDI) && I.Ops[1].R == U;
  EXPECT_EQ(AndiOfU, 1u) << "zext of a phi with an undef incoming must mask it\n" << S.Text;
}

TEST(SelectSimtTest, OddWidthIntegersSelectLikeNarrowOnes) {
  // LLVM's indvars makes an i3 induction variable of a loop that runs at
  // most 7 times (compfuzz finding 11). It lives in a register's low 3
  // bits; the compare extends it first (an andi 7).
  Selected S = select(R"(
define void @k(ptr addrspace(1) %p, i32 %n) {
entry:
  %t = trunc i32 %n to i3
  br label %loop
loop:
  %i = phi i3 [ 0, %entry ], [ %i.next, %loop ]
  %i.next = add i3 %i, 1
  %done = icmp eq i3 %i.next, %t
  br i1 %done, label %exit, label %loop
exit:
  %w = zext i3 %i.next to i32
  store i32 %w, ptr addrspace(1) %p
  ret void
})");
  ASSERT_TRUE(S.Fn) << S.Error;
  EXPECT_LINE(S, V + " = andi " + V + ", 7");
  Selected L = select(R"(
define void @k(ptr addrspace(1) %p, i32 %n) {
  %v = load i3, ptr addrspace(1) %p
  %w = zext i3 %v to i32
  store i32 %w, ptr addrspace(1) %p
  ret void
})");
  EXPECT_FALSE(L.Fn);
  EXPECT_NE(L.Error.find("memory accesses of this integer width are not supported"),
            std::string::npos)
      << L.Error;
}

//===--- errors -----------------------------------------------------------===//

TEST(SelectSimtTest, DoubleIsAnErrorNamingTheInstructionAndLine) {
  Selected S = select(R"(
define void @k(ptr addrspace(1) %p, float %f) {
  %d = fpext float %f to double, !dbg !8
  %m = fmul double %d, %d
  %r = fptrunc double %m to float
  store float %r, ptr addrspace(1) %p
  ret void
}
!llvm.module.flags = !{!0}
!llvm.dbg.cu = !{!1}
!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus, file: !2, emissionKind: LineTablesOnly)
!2 = !DIFile(filename: "k.cu", directory: "/tmp")
!5 = distinct !DISubprogram(name: "k", scope: !2, file: !2, line: 1, type: !6, unit: !1, spFlags: DISPFlagDefinition)
!6 = !DISubroutineType(types: !{})
!8 = !DILocation(line: 7, column: 3, scope: !5)
)");
  EXPECT_FALSE(S.Fn);
  EXPECT_NE(S.Error.find("kernel k: cannot select `%d = fpext float %f to double"),
            std::string::npos)
      << S.Error;
  EXPECT_NE(S.Error.find("(k.cu:7)"), std::string::npos) << S.Error;
  EXPECT_NE(S.Error.find("f64"), std::string::npos) << S.Error;
}

TEST(SelectSimtTest, UnsupportedInstructionAndI64DivisionAreErrors) {
  Selected S = select(R"(
define void @k(ptr addrspace(1) %p, i32 %a) {
  %o = atomicrmw and ptr addrspace(1) %p, i32 %a seq_cst, align 4
  ret void
})");
  EXPECT_FALSE(S.Fn);
  EXPECT_NE(S.Error.find("kernel k: cannot select `%o = atomicrmw and"), std::string::npos)
      << S.Error;
  Selected D = select(R"(
define void @k(ptr addrspace(1) %p, i32 %a) {
  %x = zext i32 %a to i64
  %q = udiv i64 %x, 3
  store i64 %q, ptr addrspace(1) %p, align 8
  ret void
})");
  EXPECT_FALSE(D.Fn);
  EXPECT_NE(D.Error.find("64-bit division is not supported on simt by selection: isel/Prepare"),
            std::string::npos)
      << D.Error;
  Selected P = select(R"(
define void @k(ptr addrspace(1) %p, i64 %big) {
  ret void
})");
  EXPECT_FALSE(P.Fn);
  EXPECT_NE(P.Error.find("kernel k: parameter 1 ('big')"), std::string::npos) << P.Error;
}

} // namespace
