//===- PtxTest.cpp - the ptx target: selection, out of SSA, ptxas ---------===//
//
// The ptxas tests compile every kernel of the suite (microbench/kernels) and
// the header's every feature for --target ptx and run
// `ptxas -arch=sm_90 -o /dev/null` on the result; they say SKIPPED where
// ptxas is not installed. The rest need no tool.
//
//===----------------------------------------------------------------------===//

#include "compiler/Compiler.h"
#include "isel/SelectPtx.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <map>

using namespace llvm;
using namespace tandem;

namespace {

std::string writeTemp(StringRef Prefix, StringRef Ext, StringRef Text) {
  SmallString<128> Path;
  EXPECT_FALSE(sys::fs::createTemporaryFile(Prefix, Ext, Path));
  std::error_code EC;
  raw_fd_ostream OS(Path, EC);
  OS << Text;
  return std::string(Path);
}

std::optional<std::string> findPtxas() {
  if (ErrorOr<std::string> P = sys::findProgramByName("ptxas"))
    return *P;
  if (sys::fs::can_execute("/usr/local/cuda/bin/ptxas"))
    return std::string("/usr/local/cuda/bin/ptxas");
  return std::nullopt;
}

Expected<std::string> compilePtx(StringRef Path) {
  compiler::CompileOptions O;
  O.Target = "ptx";
  O.Emit = compiler::EmitKind::Asm;
  Expected<compiler::CompileResult> R = compiler::compileFile(Path, O);
  if (!R)
    return R.takeError();
  return R->Text;
}

/// Runs ptxas on \p Ptx; empty on success, else ptxas's messages.
std::string ptxasErrors(const std::string &Ptxas, StringRef Ptx) {
  std::string In = writeTemp("ptx-test", "ptx", Ptx);
  SmallString<128> Err;
  sys::fs::createTemporaryFile("ptxas", "txt", Err);
  std::optional<StringRef> Redirects[] = {std::nullopt, std::nullopt, StringRef(Err)};
  int Rc = sys::ExecuteAndWait(Ptxas, {Ptxas, "-arch=sm_90", "-o", "/dev/null", In}, std::nullopt,
                               Redirects);
  std::string Messages;
  if (auto Buf = MemoryBuffer::getFile(Err))
    Messages = (*Buf)->getBuffer().str();
  sys::fs::remove(In);
  sys::fs::remove(Err);
  return Rc == 0 ? "" : "ptxas exit " + std::to_string(Rc) + ":\n" + Messages;
}

std::vector<std::string> suiteKernels() {
  std::vector<std::string> Files;
  std::error_code EC;
  std::string Dir = std::string(TANDEM_SOURCE_DIR) + "/microbench/kernels";
  for (sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC))
    if (sys::path::extension(It->path()) == ".cu")
      Files.push_back(It->path());
  std::sort(Files.begin(), Files.end());
  return Files;
}

TEST(PtxCompile, EverySuiteKernelPassesPtxas) {
  std::optional<std::string> Ptxas = findPtxas();
  std::vector<std::string> Files = suiteKernels();
  ASSERT_GE(Files.size(), 10u) << "the kernel suite went missing";
  for (const std::string &File : Files) {
    SCOPED_TRACE(File);
    Expected<std::string> Ptx = compilePtx(File);
    ASSERT_TRUE(!!Ptx) << toString(Ptx.takeError());
    EXPECT_NE(Ptx->find(".visible .entry"), std::string::npos);
    if (Ptxas) {
      EXPECT_EQ(ptxasErrors(*Ptxas, *Ptx), "") << *Ptx;
    }
  }
  if (!Ptxas)
    GTEST_SKIP() << "ptxas not found (PATH, /usr/local/cuda/bin): compiled every kernel but "
                    "could not check the PTX";
}

TEST(PtxCompile, EveryHeaderFeaturePassesPtxas) {
  std::optional<std::string> Ptxas = findPtxas();
  std::string File =
      std::string(TANDEM_SOURCE_DIR) + "/tests/lit/prepare/Inputs/header-everything.cu";
  Expected<std::string> Ptx = compilePtx(File);
  ASSERT_TRUE(!!Ptx) << toString(Ptx.takeError());
  if (!Ptxas)
    GTEST_SKIP() << "ptxas not found: the PTX was not checked";
  EXPECT_EQ(ptxasErrors(*Ptxas, *Ptx), "") << *Ptx;
}

TEST(PtxCompile, ObjectOutputIsAnErrorThatSaysPtxIsText) {
  std::string File = writeTemp("ptx-obj", "cu", "__global__ void k(int *p) { *p = 1; }\n");
  compiler::CompileOptions O;
  O.Target = "ptx";
  O.Emit = compiler::EmitKind::Obj;
  Expected<compiler::CompileResult> R = compiler::compileFile(File, O);
  ASSERT_FALSE(!!R);
  EXPECT_NE(toString(R.takeError()).find("text"), std::string::npos);
}

TEST(PtxCompile, EightBitArithmeticIsAClearError) {
  std::string File = writeTemp("ptx-i8", "cu",
                               "__global__ void k(unsigned char *p, int n) {\n"
                               "  unsigned char c = p[0];\n"
                               "  for (int i = 1; i < n; ++i) c = c * p[i] + 1;\n"
                               "  p[0] = c;\n}\n");
  compiler::CompileOptions O;
  O.Target = "ptx";
  O.Emit = compiler::EmitKind::Asm;
  Expected<compiler::CompileResult> R = compiler::compileFile(File, O);
  if (R)
    return; // the optimizer widened everything: nothing to reject
  std::string Msg = toString(R.takeError());
  EXPECT_NE(Msg.find("kernel k"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("ptx"), std::string::npos) << Msg;
}

//===----------------------------------------------------------------------===//
// Out of SSA: parallel copies
//===----------------------------------------------------------------------===//

/// Runs the COPYs of \p B in order on \p Values (vreg -> value).
void runCopies(const mir::Block &B, std::map<mir::Reg, int> &Values) {
  for (const mir::Inst &I : B.Insts)
    if (I.Opcode == mir::COPY)
      Values[I.Ops[0].R] = Values[I.Ops[1].R];
}

/// entry -> loop; loop: a, b = phi [x, y] from entry, [b, a] from loop
/// (a swap each iteration); loop branches back or to exit.
struct SwapLoop {
  mir::Function Fn;
  mir::Block *Entry, *Loop, *Exit;
  mir::Reg X, Y, A, B, C;

  SwapLoop() {
    Entry = Fn.addBlock("entry");
    Loop = Fn.addBlock("loop");
    Exit = Fn.addBlock("exit");
    for (mir::Reg *R : {&X, &Y, &A, &B})
      *R = Fn.newVReg(), Fn.info(*R).RegClass = uint8_t(ptx::RegClass::B32);
    C = Fn.newVReg();
    Fn.info(C).RegClass = uint8_t(ptx::RegClass::Pred);
    using mir::Operand;
    auto Mov = [](mir::Reg R, int64_t V) {
      return mir::Inst(unsigned(ptx::Opcode::MOV_B32), {Operand::def(R), Operand::imm(V)});
    };
    Entry->Insts.push_back(Mov(X, 7));
    Entry->Insts.push_back(Mov(Y, 9));
    Entry->Insts.push_back(mir::Inst(unsigned(ptx::Opcode::SETP_U32),
                                     {Operand::def(C), Operand::imm(int64_t(ptx::CondCode::NE)),
                                      Operand::imm(1), Operand::imm(0)}));
    Entry->Insts.push_back(mir::Inst(mir::BR, {Operand::block(Loop)}));
    Loop->Insts.push_back(mir::Inst(mir::PHI, {Operand::def(A), Operand::use(X),
                                               Operand::block(Entry), Operand::use(B),
                                               Operand::block(Loop)}));
    Loop->Insts.push_back(mir::Inst(mir::PHI, {Operand::def(B), Operand::use(Y),
                                               Operand::block(Entry), Operand::use(A),
                                               Operand::block(Loop)}));
    Loop->Insts.push_back(
        mir::Inst(mir::BRCOND, {Operand::use(C), Operand::block(Loop), Operand::block(Exit)}));
    Exit->Insts.push_back(mir::Inst(mir::RET, {}));
  }
};

TEST(PtxOutOfSSA, SwapThroughABackEdgeKeepsBothValues) {
  SwapLoop S;
  isel::lowerPtxOutOfSSA(S.Fn);
  EXPECT_EQ(mir::verify(S.Fn, mir::TargetKind::Ptx, false), "");
  // The back edge loop -> loop is critical (loop has two successors): its
  // copies must sit in a new block, not before loop's conditional branch.
  ASSERT_EQ(S.Fn.Blocks.size(), 4u);
  mir::Block *Split = S.Fn.Blocks[2].get();
  EXPECT_EQ(S.Loop->Insts.back().Ops[1].Target, Split);
  for (const mir::Inst &I : S.Loop->Insts)
    EXPECT_NE(I.Opcode, mir::PHI);
  // The swap is a cycle: it needs a temporary, and afterwards a and b hold
  // each other's old values.
  std::map<mir::Reg, int> Values{{S.A, 1}, {S.B, 2}};
  runCopies(*Split, Values);
  EXPECT_EQ(Values[S.A], 2);
  EXPECT_EQ(Values[S.B], 1);
  // The entry edge is not critical: its copies are at entry's end.
  std::map<mir::Reg, int> Init{{S.X, 7}, {S.Y, 9}};
  runCopies(*S.Entry, Init);
  EXPECT_EQ(Init[S.A], 7);
  EXPECT_EQ(Init[S.B], 9);
  EXPECT_EQ(S.Entry->Insts.back().Opcode, mir::BR);
}

} // namespace
