//===- SimtAsmPrinterTest.cpp - the printer and the assembler agree -------===//
//
// Each test builds allocated MIR by hand, prints it, assembles the text with
// tandem::assemble and checks the decoded words and the kernel table, so a
// printer that writes something the assembler reads differently fails here.

#include "emit/SimtAsmPrinter.h"

#include "Assembler.h"
#include "ISA.h"
#include "isel/MIR.h"

#include <gtest/gtest.h>

using namespace tandem;
using namespace tandem::mir;

namespace {

unsigned op(simt::Opcode O) { return static_cast<unsigned>(O); }

std::string printed(const Function &Fn) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  emit::printSimtAsm(OS, Fn);
  return Text;
}

KernelImage assembled(const std::string &Text) {
  llvm::Expected<KernelImage> Img = assemble(Text, "printed.s");
  if (!Img) {
    ADD_FAILURE() << llvm::toString(Img.takeError()) << "\n--- text ---\n" << Text;
    return {};
  }
  return std::move(*Img);
}

simt::DecodedInst wordAt(const KernelImage &Img, size_t Index) {
  EXPECT_LT(Index, Img.Code.size());
  if (Index >= Img.Code.size())
    return {};
  std::optional<simt::DecodedInst> D = simt::decode(Img.Code[Index]);
  EXPECT_TRUE(D.has_value()) << "word " << Index << " does not decode";
  return D.value_or(simt::DecodedInst{});
}

/// A small kernel after allocation: s2r, li (short and long), a param load,
/// a load with an offset, a uniform branch over a block, a copy, a spill
/// store and reload, exit.
///   entry: s2r r1, %tid.x; li r2, 5; li r3, 0x12345678; ld.param r4, [r0+4]
///          ld.global r5, [r4 + -8]; bz r5, done
///   body:  mov r6, r5; st.local [r0 + 0], r6 (spill); ld.local r7, [r0+0]
///          (reload); st.global [r4 + 12], r7
///   done:  exit
Function sampleKernel() {
  Function Fn;
  Fn.Name = "sample";
  Fn.Params = {{"a", mir::ParamKind::Pointer, 0}, {"n", mir::ParamKind::U32, 4}};
  Fn.SharedBytes = 64;
  Fn.LocalBytes = 8;
  Fn.Stats.RegistersUsed = 8;
  Fn.Stats.SpillBytes = 4;
  Block *Entry = Fn.addBlock("entry");
  Block *Body = Fn.addBlock("if.then");
  Block *Done = Fn.addBlock("if.end");
  auto &E = Entry->Insts;
  E.push_back(Inst(op(simt::Opcode::S2R), {Operand::def(1), Operand::imm(0)}));
  E.back().Loc = "k.cu:3";
  E.push_back(Inst(LI, {Operand::def(2), Operand::imm(5)}));
  E.push_back(Inst(LI, {Operand::def(3), Operand::imm(0x12345678)}));
  E.push_back(Inst(op(simt::Opcode::PARAM_LD_U32), {Operand::def(4), Operand::use(0), Operand::imm(4)}));
  E.push_back(Inst(op(simt::Opcode::GLOBAL_LD_U32), {Operand::def(5), Operand::use(4), Operand::imm(-8)}));
  E.push_back(Inst(op(simt::Opcode::BZ), {Operand::use(5), Operand::block(Done)}));
  auto &B = Body->Insts;
  B.push_back(Inst(COPY, {Operand::def(6), Operand::use(5)}));
  B.push_back(Inst(op(simt::Opcode::LOCAL_ST_U32), {Operand::use(0), Operand::imm(0), Operand::use(6)}));
  B.back().IsSpillCode = true;
  B.push_back(Inst(IMPLICIT_DEF, {Operand::def(3)}));
  B.push_back(Inst(op(simt::Opcode::LOCAL_LD_U32), {Operand::def(7), Operand::use(0), Operand::imm(0)}));
  B.back().IsSpillCode = true;
  B.push_back(Inst(op(simt::Opcode::GLOBAL_ST_U32), {Operand::use(4), Operand::imm(12), Operand::use(7)}));
  Done->Insts.push_back(Inst(op(simt::Opcode::EXIT), {}));
  return Fn;
}

TEST(SimtAsmPrinterTest, KernelTableMatchesTheFunction) {
  Function Fn = sampleKernel();
  std::string Text = printed(Fn);
  KernelImage Img = assembled(Text);
  ASSERT_EQ(Img.Kernels.size(), 1u) << Text;
  const KernelInfo &K = Img.Kernels[0];
  EXPECT_EQ(K.Name, "sample");
  ASSERT_EQ(K.Params.size(), 2u);
  EXPECT_EQ(K.Params[0].Name, "a");
  EXPECT_EQ(K.Params[0].Kind, tandem::ParamKind::Pointer);
  EXPECT_EQ(K.Params[1].Name, "n");
  EXPECT_EQ(K.Params[1].Kind, tandem::ParamKind::U32);
  EXPECT_EQ(K.Params[1].Offset, 4u);
  EXPECT_EQ(K.SharedBytes, 64u);
  EXPECT_EQ(K.LocalBytes, 8u);
  // The highest register named is r7.
  EXPECT_EQ(K.RegistersUsed, 8u);
  // 12 instructions, one of them an IMPLICIT_DEF (no code) and one an li
  // that needs movi + movt: 12 words.
  EXPECT_EQ(K.CodeBytes, 12u * 4);
  EXPECT_EQ(emit::simtCodeWords(Fn) * 4, K.CodeBytes);
  EXPECT_NE(Text.find("8 registers used, 4 spill bytes per thread, 12 instructions"),
            std::string::npos)
      << Text;
}

TEST(SimtAsmPrinterTest, InstructionsDecodeToTheirOperands) {
  KernelImage Img = assembled(printed(sampleKernel()));
  ASSERT_EQ(Img.Code.size(), 12u);
  simt::DecodedInst S2R = wordAt(Img, 0);
  EXPECT_EQ(S2R.Op, simt::Opcode::S2R);
  EXPECT_EQ(S2R.Rd, 1);
  EXPECT_EQ(S2R.Imm, 0); // %tid.x
  simt::DecodedInst Li = wordAt(Img, 1);
  EXPECT_EQ(Li.Op, simt::Opcode::MOVI);
  EXPECT_EQ(Li.Imm, 5);
  EXPECT_EQ(wordAt(Img, 2).Op, simt::Opcode::MOVI);
  EXPECT_EQ(wordAt(Img, 2).Imm, 0x5678);
  EXPECT_EQ(wordAt(Img, 3).Op, simt::Opcode::MOVT);
  EXPECT_EQ(wordAt(Img, 3).Imm, 0x1234);
  simt::DecodedInst Param = wordAt(Img, 4);
  EXPECT_EQ(Param.Op, simt::Opcode::PARAM_LD_U32);
  EXPECT_EQ(Param.Rd, 4);
  EXPECT_EQ(Param.Imm, 4);
  simt::DecodedInst Load = wordAt(Img, 5);
  EXPECT_EQ(Load.Op, simt::Opcode::GLOBAL_LD_U32);
  EXPECT_EQ(Load.Rd, 5);
  EXPECT_EQ(Load.Rs1, 4);
  EXPECT_EQ(Load.Imm, -8);
  // bz at word 6 jumps over the 5 words of if.then (IMPLICIT_DEF emits none)
  // to exit at word 11: 5 words ahead.
  simt::DecodedInst Branch = wordAt(Img, 6);
  EXPECT_EQ(Branch.Op, simt::Opcode::BZ);
  EXPECT_EQ(Branch.Rs1, 5);
  EXPECT_EQ(Branch.Imm, 5);
  simt::DecodedInst Mov = wordAt(Img, 7);
  EXPECT_EQ(Mov.Op, simt::Opcode::MOV);
  EXPECT_EQ(Mov.Rd, 6);
  EXPECT_EQ(Mov.Rs1, 5);
  simt::DecodedInst Spill = wordAt(Img, 8);
  EXPECT_EQ(Spill.Op, simt::Opcode::LOCAL_ST_U32);
  EXPECT_EQ(Spill.Rs1, 0);
  EXPECT_EQ(Spill.Rs2, 6);
  EXPECT_EQ(wordAt(Img, 9).Op, simt::Opcode::LOCAL_LD_U32);
  simt::DecodedInst Store = wordAt(Img, 10);
  EXPECT_EQ(Store.Op, simt::Opcode::GLOBAL_ST_U32);
  EXPECT_EQ(Store.Rs1, 4);
  EXPECT_EQ(Store.Imm, 12);
  EXPECT_EQ(Store.Rs2, 7);
  EXPECT_EQ(wordAt(Img, 11).Op, simt::Opcode::EXIT);
}

TEST(SimtAsmPrinterTest, ListingCarriesLabelsAndComments) {
  std::string Text = printed(sampleKernel());
  // Only the branch target gets a label; the fall-through block is named in
  // a comment.
  EXPECT_NE(Text.find(".LBB2_if.end:\n"), std::string::npos) << Text;
  EXPECT_NE(Text.find("bz r5, .LBB2_if.end"), std::string::npos) << Text;
  EXPECT_EQ(Text.find(".LBB1_if.then:"), std::string::npos) << Text;
  EXPECT_NE(Text.find("# bb.if.then"), std::string::npos) << Text;
  EXPECT_NE(Text.find("ld.global.u32 r5, [r4 - 8]"), std::string::npos) << Text;
  // Parameter loads name the parameter; the image holds its offset (4).
  EXPECT_NE(Text.find("ld.param.u32 r4, [r0 + @n]"), std::string::npos) << Text;
  EXPECT_NE(Text.find("# k.cu:3"), std::string::npos) << Text;
  EXPECT_NE(Text.find("# spill"), std::string::npos) << Text;
  EXPECT_NE(Text.find("# reload"), std::string::npos) << Text;
  EXPECT_NE(Text.find("# r3 = undef"), std::string::npos) << Text;
  EXPECT_NE(Text.find("li r3, 305419896"), std::string::npos) << Text;
}

TEST(SimtAsmPrinterTest, SanitizesNamesTheAssemblerWouldRefuse) {
  Function Fn;
  Fn.Name = "k.clone";
  Fn.Params = {{"", mir::ParamKind::F32, 0}, {"x.addr", mir::ParamKind::S32, 4}, {"x_addr", mir::ParamKind::U32, 8}};
  Block *Entry = Fn.addBlock("entry");
  Block *Loop = Fn.addBlock("loop$1");
  Entry->Insts.push_back(Inst(op(simt::Opcode::BRA), {Operand::block(Loop)}));
  Loop->Insts.push_back(Inst(op(simt::Opcode::BRA), {Operand::block(Loop)}));
  std::string Text = printed(Fn);
  KernelImage Img = assembled(Text);
  ASSERT_EQ(Img.Kernels.size(), 1u) << Text;
  EXPECT_EQ(Img.Kernels[0].Name, "k_clone");
  ASSERT_EQ(Img.Kernels[0].Params.size(), 3u);
  EXPECT_EQ(Img.Kernels[0].Params[0].Name, "p0");
  EXPECT_EQ(Img.Kernels[0].Params[0].Kind, tandem::ParamKind::F32);
  EXPECT_EQ(Img.Kernels[0].Params[1].Name, "x_addr");
  EXPECT_EQ(Img.Kernels[0].Params[2].Name, "x_addr_2");
  // The self loop: bra 0 words away.
  EXPECT_EQ(wordAt(Img, 1).Op, simt::Opcode::BRA);
  EXPECT_EQ(wordAt(Img, 1).Imm, 0);
  EXPECT_EQ(wordAt(Img, 0).Imm, 1);
}

TEST(SimtAsmPrinterTest, TwoKernelsMayUseTheSameBlockNames) {
  Function A = sampleKernel();
  Function B = sampleKernel();
  B.Name = "other";
  std::string Text = printed(A) + printed(B);
  KernelImage Img = assembled(Text);
  ASSERT_EQ(Img.Kernels.size(), 2u);
  EXPECT_EQ(Img.Kernels[1].Name, "other");
  EXPECT_EQ(Img.Kernels[1].EntryOffset, 12u * 4);
}

} // namespace
