//===- MIRTest.cpp - machine IR printing and verification -----------------===//

#include "isel/MIR.h"

#include "ISA.h"

#include <gtest/gtest.h>

using namespace tandem;
using namespace tandem::mir;

namespace {

unsigned op(simt::Opcode O) { return static_cast<unsigned>(O); }

TEST(MIRTest, PrintsVirtualRegistersAndBlocks) {
  Function Fn;
  Fn.Name = "k";
  Block *Entry = Fn.addBlock("entry");
  Reg A = Fn.newVReg(), B = Fn.newVReg();
  Entry->Insts.push_back(Inst(LI, {Operand::def(A), Operand::imm(7)}));
  Entry->Insts.push_back(Inst(op(simt::Opcode::ADD), {Operand::def(B), Operand::use(A), Operand::use(A)}));
  Entry->Insts.push_back(Inst(RET, {}));
  ASSERT_EQ(verify(Fn, TargetKind::Simt, false), "");
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  print(OS, Fn, TargetKind::Simt);
  EXPECT_NE(Text.find("%v0 = LI 7"), std::string::npos) << Text;
  EXPECT_NE(Text.find("%v1 = add %v0, %v0"), std::string::npos) << Text;
}

TEST(MIRTest, LocationsAreStoredOncePerFunctionAndMoveWithIt) {
  auto Fn = std::make_unique<Function>();
  std::string Where = "microbench/kernels/some_long_kernel_name.cu:42";
  llvm::StringRef A = Fn->internLoc(Where), B = Fn->internLoc(Where);
  EXPECT_EQ(A, Where);
  EXPECT_EQ(A.data(), B.data()) << "one stored copy per distinct location";
  EXPECT_NE(A.data(), Where.data()) << "the function keeps its own copy";
  EXPECT_TRUE(Fn->internLoc("").empty());
  Where.assign(Where.size(), 'x'); // the caller's string may change or go
  EXPECT_EQ(A, "microbench/kernels/some_long_kernel_name.cu:42");

  // Moving the function (as the stages hand it on) keeps its
  // instructions' locations valid after the moved-from object is gone.
  Fn->addBlock("entry")->Insts.push_back(Inst(RET, {}));
  Fn->Blocks[0]->Insts.back().Loc = A;
  Function Moved = std::move(*Fn);
  Fn.reset();
  EXPECT_EQ(Moved.Blocks[0]->Insts.back().Loc, "microbench/kernels/some_long_kernel_name.cu:42");
  EXPECT_EQ(Moved.internLoc(A).data(), A.data());
}

TEST(MIRTest, VerifierRejectsWrongOperandKindsAndUndefinedUses) {
  Function Fn;
  Fn.Name = "k";
  Block *Entry = Fn.addBlock("entry");
  Reg A = Fn.newVReg(), B = Fn.newVReg();
  Entry->Insts.push_back(Inst(op(simt::Opcode::ADDI), {Operand::def(B), Operand::use(A), Operand::use(A)}));
  Entry->Insts.push_back(Inst(RET, {}));
  EXPECT_NE(verify(Fn, TargetKind::Simt, false).find("operand 2 has the wrong kind"), std::string::npos);
  Entry->Insts[0].Ops[2] = Operand::imm(1);
  EXPECT_NE(verify(Fn, TargetKind::Simt, false).find("%v0 is used but never defined"), std::string::npos);
}

TEST(MIRTest, SuccessorsIncludeFallThroughAfterLowering) {
  Function Fn;
  Fn.Name = "k";
  Block *A = Fn.addBlock("a");
  Block *B = Fn.addBlock("b");
  Block *C = Fn.addBlock("c");
  Reg R = Fn.newVReg();
  A->Insts.push_back(Inst(LI, {Operand::def(R), Operand::imm(1)}));
  A->Insts.push_back(Inst(op(simt::Opcode::BNZ), {Operand::use(R), Operand::block(C)}));
  B->Insts.push_back(Inst(op(simt::Opcode::BRA), {Operand::block(C)}));
  C->Insts.push_back(Inst(op(simt::Opcode::EXIT), {}));
  auto SA = successors(Fn, *A);
  ASSERT_EQ(SA.size(), 2u);
  EXPECT_EQ(SA[0], C);
  EXPECT_EQ(SA[1], B);
  auto SB = successors(Fn, *B);
  ASSERT_EQ(SB.size(), 1u);
  EXPECT_EQ(SB[0], C);
  EXPECT_TRUE(successors(Fn, *C).empty());
}

} // namespace
