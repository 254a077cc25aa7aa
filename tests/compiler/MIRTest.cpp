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

TEST(MIRTest, SsaLiveOutReadsPhiOperandsOnTheirEdges) {
  // entry: n = li; br loop
  // loop:  s = phi [n, entry], [t, loop]; t = s + 1; c = t < n;
  //        brcond c, loop, exit
  // exit:  ret
  Function Fn;
  Fn.Name = "count";
  Block *Entry = Fn.addBlock("entry");
  Block *Loop = Fn.addBlock("loop");
  Block *Exit = Fn.addBlock("exit");
  Reg N = Fn.newVReg(), S = Fn.newVReg(), T = Fn.newVReg(), C = Fn.newVReg();
  Entry->Insts.push_back(Inst(LI, {Operand::def(N), Operand::imm(8)}));
  Entry->Insts.push_back(Inst(BR, {Operand::block(Loop)}));
  Loop->Insts.push_back(Inst(PHI, {Operand::def(S), Operand::use(N), Operand::block(Entry),
                                   Operand::use(T), Operand::block(Loop)}));
  Loop->Insts.push_back(
      Inst(op(simt::Opcode::ADDI), {Operand::def(T), Operand::use(S), Operand::imm(1)}));
  Loop->Insts.push_back(
      Inst(op(simt::Opcode::SETLTU), {Operand::def(C), Operand::use(T), Operand::use(N)}));
  Loop->Insts.push_back(
      Inst(BRCOND, {Operand::use(C), Operand::block(Loop), Operand::block(Exit)}));
  Exit->Insts.push_back(Inst(RET, {}));
  ASSERT_EQ(verify(Fn, TargetKind::Simt, false), "");
  std::vector<llvm::BitVector> Out = ssaLiveOut(Fn);
  ASSERT_EQ(Out.size(), 3u);
  auto Live = [&](unsigned B, Reg R) { return Out[B].test(R - VirtRegBase); };
  // entry: n for the PHI's edge and for the loop's compare; not s, which
  // the PHI defines below, nor t, which the PHI reads only on the back edge.
  EXPECT_TRUE(Live(0, N));
  EXPECT_FALSE(Live(0, S));
  EXPECT_FALSE(Live(0, T));
  // loop: t for the PHI's back edge and n for the compare, not the PHI's
  // result s (its next value is t) nor the condition (read by the
  // terminator, inside the block).
  EXPECT_TRUE(Live(1, T));
  EXPECT_TRUE(Live(1, N));
  EXPECT_FALSE(Live(1, S));
  EXPECT_FALSE(Live(1, C));
  EXPECT_TRUE(Out[2].none());
}
