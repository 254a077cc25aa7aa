//===- PtxTest.cpp - the ptx target: selection, out of SSA, ptxas ---------===//
//
// The ptxas tests compile every kernel of the suite (microbench/kernels) and
// the header's every feature for --target ptx and run
// `ptxas -arch=sm_90 -o /dev/null` on the result; they say SKIPPED where
// ptxas is not installed. The rest need no tool: without a GPU, small MIR
// interpreters check that out of SSA (with and without coalescing) and the
// i8/i16 promotion keep the program's meaning.
//
//===----------------------------------------------------------------------===//

#include "../../runtime/PtxEntry.h"
#include "SuiteKernels.h"
#include "compiler/Compiler.h"
#include "isel/SelectPtx.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

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

TEST(PtxCompile, EverySuiteKernelPassesPtxas) {
  std::optional<std::string> Ptxas = findPtxas();
  std::vector<std::string> Files = tandem::testing::suiteKernels();
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

TEST(PtxCompile, EightBitArithmeticIsPromotedAndPassesPtxas) {
  std::string File = writeTemp("ptx-i8", "cu",
                               "__global__ void k(unsigned char *p, int n) {\n"
                               "  unsigned char c = p[0];\n"
                               "  for (int i = 1; i < n; ++i) c = c * p[i] + 1;\n"
                               "  p[0] = c;\n}\n");
  Expected<std::string> Ptx = compilePtx(File);
  sys::fs::remove(File);
  ASSERT_TRUE(!!Ptx) << toString(Ptx.takeError());
  // The product wraps at 256: masked in its 32-bit register.
  EXPECT_NE(Ptx->find(", 255;"), std::string::npos) << *Ptx;
  EXPECT_NE(Ptx->find("ld.global.u8"), std::string::npos) << *Ptx;
  EXPECT_NE(Ptx->find("st.global.u8"), std::string::npos) << *Ptx;
  std::optional<std::string> Ptxas = findPtxas();
  if (!Ptxas)
    GTEST_SKIP() << "ptxas not found: the PTX was not checked";
  EXPECT_EQ(ptxasErrors(*Ptxas, *Ptx), "") << *Ptx;
}

TEST(PtxCompile, UnsupportedEightBitIntrinsicIsAClearError) {
  std::string File = writeTemp("ptx-ctlz8", "ll",
                               "target datalayout = \"e-i64:64-i128:128-v16:16-v32:32-n16:32:64\"\n"
                               "target triple = \"nvptx64-nvidia-cuda\"\n"
                               "define void @k(ptr addrspace(1) %p) {\n"
                               "  %v = load i8, ptr addrspace(1) %p\n"
                               "  %c = call i8 @llvm.ctlz.i8(i8 %v, i1 false)\n"
                               "  store i8 %c, ptr addrspace(1) %p\n"
                               "  ret void\n}\n"
                               "declare i8 @llvm.ctlz.i8(i8, i1)\n"
                               "!nvvm.annotations = !{!0}\n"
                               "!0 = !{ptr @k, !\"kernel\", i32 1}\n");
  Expected<std::string> Ptx = compilePtx(File);
  sys::fs::remove(File);
  ASSERT_FALSE(!!Ptx) << *Ptx;
  std::string Msg = toString(Ptx.takeError());
  EXPECT_NE(Msg.find("kernel k"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("llvm.ctlz.i8"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("8- or 16-bit"), std::string::npos) << Msg;
}

TEST(PtxCompile, ConstantAndDeviceVariablesPassPtxas) {
  std::string File = writeTemp("ptx-globals", "cu",
                               "__constant__ short taps[3] = {-1, 2, -1};\n"
                               "__device__ unsigned hits = 3;\n"
                               "__global__ void k(const int *in, int *out) {\n"
                               "  int i = threadIdx.x;\n"
                               "  out[i] = taps[i % 3] * in[i];\n"
                               "  atomicAdd(&hits, 1u);\n}\n");
  Expected<std::string> Ptx = compilePtx(File);
  sys::fs::remove(File);
  ASSERT_TRUE(!!Ptx) << toString(Ptx.takeError());
  // -1, 2, -1 as little-endian 16-bit words.
  EXPECT_NE(Ptx->find(".const .align 2 .b8 taps[6] = {255, 255, 2, 0, 255, 255};"),
            std::string::npos)
      << *Ptx;
  EXPECT_NE(Ptx->find(".global .align 4 .b8 hits[4] = {3, 0, 0, 0};"), std::string::npos) << *Ptx;
  EXPECT_NE(Ptx->find("ld.const.u16"), std::string::npos) << *Ptx;
  EXPECT_NE(Ptx->find("atom.global.add.u32"), std::string::npos) << *Ptx;
  std::optional<std::string> Ptxas = findPtxas();
  if (!Ptxas)
    GTEST_SKIP() << "ptxas not found: the PTX was not checked";
  EXPECT_EQ(ptxasErrors(*Ptxas, *Ptx), "") << *Ptx;
}

// The host finds a variable by the same name, section and size on every
// device: the simt image's symbol table (iss, rtl) and the PTX module's
// variables (gpu, cuModuleGetGlobal) must agree for every source.
TEST(PtxCompile, ImageSymbolsAreThePtxModulesVariables) {
  std::vector<std::string> Files = tandem::testing::suiteKernels();
  for (const char *Extra : {"/tests/suite/kernels/device_globals.cu",
                            "/tests/suite/kernels/symbols.cu",
                            "/tests/lit/compile/symbol-names.cu"})
    Files.push_back(std::string(TANDEM_SOURCE_DIR) + Extra);
  size_t Compared = 0;
  for (const std::string &File : Files) {
    SCOPED_TRACE(File);
    Expected<std::string> Ptx = compilePtx(File);
    ASSERT_TRUE(!!Ptx) << toString(Ptx.takeError());
    compiler::CompileOptions O;
    Expected<compiler::CompileResult> Simt = compiler::compileFile(File, O);
    ASSERT_TRUE(!!Simt) << toString(Simt.takeError());
    ASSERT_TRUE(Simt->Image);
    std::vector<ptx::PtxVariable> Vars = ptx::parsePtxVariables(*Ptx);
    for (const ImageSymbol &S : Simt->Image->Symbols) {
      auto It = std::find_if(Vars.begin(), Vars.end(),
                             [&](const ptx::PtxVariable &V) { return V.Name == S.Name; });
      ASSERT_NE(It, Vars.end()) << "image symbol '" << S.Name << "' is not in the PTX";
      EXPECT_EQ(It->IsConst, S.Section == SymbolSection::Const) << S.Name;
      EXPECT_EQ(It->Bytes, S.Size) << S.Name;
      ++Compared;
    }
  }
  EXPECT_GE(Compared, 10u) << "the sources lost their variables";
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
  // Without coalescing, so the copies of both edges stay to be inspected
  // (the interpreter tests below cover the coalesced form).
  isel::lowerPtxOutOfSSA(S.Fn, {/*Coalesce=*/false});
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

//===----------------------------------------------------------------------===//
// Out of SSA with coalescing: an interpreter checks that the copies keep the
// program's meaning (the swap and lost-copy problems, random phi webs)
//===----------------------------------------------------------------------===//

using mir::Operand;
using ptx::Opcode;

/// Runs a small ptx MIR function (mov, add, setp.lt, st.global.u32, COPY,
/// PHI, BR, BRCOND, RET): PHIs are evaluated in parallel on block entry,
/// from the predecessor. Returns the stored words by offset; fails the test
/// on anything else or after too many steps.
std::map<int64_t, int64_t> interpret(const mir::Function &Fn) {
  std::map<mir::Reg, int64_t> R;
  std::map<int64_t, int64_t> Stored;
  auto Val = [&](const Operand &O) { return O.isImm() ? O.Imm : R.at(O.R); };
  const mir::Block *B = Fn.Blocks.front().get(), *Pred = nullptr;
  for (unsigned Steps = 0; Steps < 100000; ++Steps) {
    std::map<mir::Reg, int64_t> PhiValues;
    for (const mir::Inst &I : B->Insts)
      if (I.Opcode == mir::PHI)
        for (size_t K = 1; K + 1 < I.Ops.size(); K += 2)
          if (I.Ops[K + 1].Target == Pred)
            PhiValues[I.Ops[0].R] = R.at(I.Ops[K].R);
    for (auto [Reg, V] : PhiValues)
      R[Reg] = V;
    const mir::Block *Next = nullptr;
    for (const mir::Inst &I : B->Insts) {
      switch (I.Opcode) {
      case mir::PHI:
        break;
      case mir::COPY:
        R[I.Ops[0].R] = R.at(I.Ops[1].R);
        break;
      case mir::BR:
        Next = I.Ops[0].Target;
        break;
      case mir::BRCOND:
        Next = R.at(I.Ops[0].R) ? I.Ops[1].Target : I.Ops[2].Target;
        break;
      case mir::RET:
        return Stored;
      default:
        switch (Opcode(I.Opcode)) {
        case Opcode::MOV_B32:
        case Opcode::MOV_B64:
          R[I.Ops[0].R] = Val(I.Ops[1]);
          break;
        case Opcode::ADD_32:
          R[I.Ops[0].R] = int32_t(Val(I.Ops[1]) + Val(I.Ops[2]));
          break;
        case Opcode::SETP_S32:
          EXPECT_EQ(I.Ops[1].Imm, int64_t(ptx::CondCode::LT));
          R[I.Ops[0].R] = Val(I.Ops[2]) < Val(I.Ops[3]);
          break;
        case Opcode::GLOBAL_ST_U32:
          Stored[Val(I.Ops[0]) + I.Ops[1].Imm] = Val(I.Ops[2]);
          break;
        default:
          ADD_FAILURE() << "interpret: unexpected opcode " << I.Opcode;
          return Stored;
        }
      }
    }
    if (!Next) {
      ADD_FAILURE() << "interpret: block " << B->Name << " has no terminator";
      return Stored;
    }
    Pred = B;
    B = Next;
  }
  ADD_FAILURE() << "interpret: no RET within the step limit";
  return Stored;
}

unsigned countCopies(const mir::Function &Fn) {
  unsigned N = 0;
  for (const auto &B : Fn.Blocks)
    for (const mir::Inst &I : B->Insts)
      N += I.Opcode == mir::COPY;
  return N;
}

/// Builds functions of one entry, one self-looping header and one exit.
struct LoopBuilder {
  std::unique_ptr<mir::Function> Fn = std::make_unique<mir::Function>();
  mir::Block *Entry = Fn->addBlock("entry"), *Loop = Fn->addBlock("loop"),
             *Exit = Fn->addBlock("exit");
  mir::Reg Base = reg(ptx::RegClass::B64);

  LoopBuilder() {
    Entry->Insts.push_back(inst(Opcode::MOV_B64, {Operand::def(Base), Operand::imm(0)}));
  }

  mir::Reg reg(ptx::RegClass C = ptx::RegClass::B32) {
    mir::Reg R = Fn->newVReg();
    Fn->info(R).RegClass = uint8_t(C);
    return R;
  }
  static mir::Inst inst(Opcode O, std::initializer_list<Operand> Ops) {
    return mir::Inst(unsigned(O), Ops);
  }
  mir::Reg mov(mir::Block *B, int64_t V) {
    mir::Reg R = reg();
    B->Insts.push_back(inst(Opcode::MOV_B32, {Operand::def(R), Operand::imm(V)}));
    return R;
  }
  mir::Reg add(mir::Block *B, mir::Reg A, int64_t V) {
    mir::Reg R = reg();
    B->Insts.push_back(inst(Opcode::ADD_32, {Operand::def(R), Operand::use(A), Operand::imm(V)}));
    return R;
  }
  void phi(mir::Reg D, mir::Reg FromEntry, mir::Reg FromLoop) {
    Loop->Insts.insert(Loop->Insts.begin(),
                       mir::Inst(mir::PHI, {Operand::def(D), Operand::use(FromEntry),
                                            Operand::block(Entry), Operand::use(FromLoop),
                                            Operand::block(Loop)}));
  }
  /// loop: ...; p = setp.lt N, Limit; @p bra loop; exit.
  void latch(mir::Reg N, int64_t Limit) {
    mir::Reg P = reg(ptx::RegClass::Pred);
    Loop->Insts.push_back(inst(Opcode::SETP_S32, {Operand::def(P),
                                                  Operand::imm(int64_t(ptx::CondCode::LT)),
                                                  Operand::use(N), Operand::imm(Limit)}));
    Loop->Insts.push_back(
        mir::Inst(mir::BRCOND, {Operand::use(P), Operand::block(Loop), Operand::block(Exit)}));
    Entry->Insts.push_back(mir::Inst(mir::BR, {Operand::block(Loop)}));
  }
  void store(int64_t Offset, mir::Reg V) {
    Exit->Insts.push_back(inst(Opcode::GLOBAL_ST_U32,
                               {Operand::use(Base), Operand::imm(Offset), Operand::use(V)}));
  }
  void ret() { Exit->Insts.push_back(mir::Inst(mir::RET, {})); }

  /// A deep copy (blocks renamed through a map), to lower one function
  /// two ways.
  std::unique_ptr<mir::Function> clone() const {
    auto C = std::make_unique<mir::Function>();
    std::map<const mir::Block *, mir::Block *> Map;
    for (const auto &B : Fn->Blocks)
      Map[B.get()] = C->addBlock(B->Name);
    for (unsigned K = 0; K < Fn->numVRegs(); ++K)
      C->info(C->newVReg()) = Fn->info(mir::VirtRegBase + K);
    for (const auto &B : Fn->Blocks) {
      Map[B.get()]->Insts = B->Insts;
      for (mir::Inst &I : Map[B.get()]->Insts)
        for (Operand &O : I.Ops)
          if (O.isBlock())
            O.Target = Map.at(O.Target);
    }
    return C;
  }
};

/// Lowers a copy of \p L both ways and checks that both compute what the
/// SSA form computes; returns the coalesced function.
std::unique_ptr<mir::Function> lowerAndCompare(const LoopBuilder &L,
                                               const std::map<int64_t, int64_t> &Expected) {
  EXPECT_EQ(interpret(*L.Fn), Expected) << "the SSA form itself";
  std::unique_ptr<mir::Function> Plain = L.clone(), Coalesced = L.clone();
  isel::lowerPtxOutOfSSA(*Plain, {/*Coalesce=*/false});
  isel::lowerPtxOutOfSSA(*Coalesced);
  EXPECT_EQ(mir::verify(*Plain, mir::TargetKind::Ptx, false), "");
  EXPECT_EQ(mir::verify(*Coalesced, mir::TargetKind::Ptx, false), "");
  EXPECT_EQ(interpret(*Plain), Expected) << "without coalescing";
  EXPECT_EQ(interpret(*Coalesced), Expected) << "with coalescing";
  for (const auto &B : Coalesced->Blocks)
    for (const mir::Inst &I : B->Insts)
      EXPECT_NE(I.Opcode, mir::PHI);
  return Coalesced;
}

TEST(PtxOutOfSSA, CountedLoopCoalescesEveryCopy) {
  // i = phi(0, i + 1) until i + 1 == 10; stores i + 1. The counter, its
  // increment and the constant are one register: no copy, and the split back
  // edge disappears again.
  LoopBuilder L;
  mir::Reg Zero = L.mov(L.Entry, 0), I = L.reg();
  mir::Reg Next = L.add(L.Loop, I, 1);
  L.phi(I, Zero, Next);
  L.latch(Next, 10);
  L.store(0, Next);
  L.ret();
  std::unique_ptr<mir::Function> F = lowerAndCompare(L, {{0, 10}});
  EXPECT_EQ(countCopies(*F), 0u);
  EXPECT_EQ(F->Blocks.size(), 3u);
}

TEST(PtxOutOfSSA, SwapProblemKeepsACycleThroughATemporary) {
  // a, b = phi(7, 9), phi(b, a): they exchange values each trip (three
  // trips). Coalescing must not merge a and b (both live at once), and the
  // back edge's copies are a cycle that needs a temporary.
  LoopBuilder L;
  mir::Reg X = L.mov(L.Entry, 7), Y = L.mov(L.Entry, 9), Zero = L.mov(L.Entry, 0);
  mir::Reg A = L.reg(), B = L.reg(), N = L.reg();
  mir::Reg N1 = L.add(L.Loop, N, 1);
  L.phi(A, X, B);
  L.phi(B, Y, A);
  L.phi(N, Zero, N1);
  L.latch(N1, 4);
  L.store(0, A);
  L.store(4, B);
  L.ret();
  // Trips with n = 0..3 enter the loop 4 times: 3 swaps, so a = 9, b = 7.
  std::unique_ptr<mir::Function> F = lowerAndCompare(L, {{0, 9}, {4, 7}});
  EXPECT_EQ(countCopies(*F), 3u) << "the swap: a temporary and two copies";
}

TEST(PtxOutOfSSA, LostCopyProblemKeepsTheValueLiveAfterTheLoop) {
  // x2 = phi(x1, x3); x3 = x2 + 1 while x3 < 5; the exit reads x2, the value
  // of the last trip's start, which the back edge's copy must not clobber
  // on the way out: x2 and x3 interfere, so their copy stays, on the split
  // back edge only.
  LoopBuilder L;
  mir::Reg X1 = L.mov(L.Entry, 1), X2 = L.reg();
  mir::Reg X3 = L.add(L.Loop, X2, 1);
  L.phi(X2, X1, X3);
  L.latch(X3, 5);
  L.store(0, X2);
  L.store(4, X3);
  L.ret();
  std::unique_ptr<mir::Function> F = lowerAndCompare(L, {{0, 4}, {4, 5}});
  EXPECT_EQ(countCopies(*F), 1u) << "x1 joins x2; only x2 := x3 stays";
  // The copy is in the split block, which must not be the exit's path.
  ASSERT_EQ(F->Blocks.size(), 4u);
  for (const mir::Inst &I : F->Blocks[1]->Insts)
    EXPECT_NE(I.Opcode, mir::COPY) << "a copy before the loop's branch runs on the exit path";
}

TEST(PtxOutOfSSA, RandomPhiWebsComputeWhatTheSSAFormComputes) {
  // Loops whose header PHIs take random other PHIs or increments on the back
  // edge (permutations, cycles, values live after the loop, initial values
  // shared by PHIs or read after the loop), random initial values and trip
  // counts.
  std::mt19937 Rng(20261201);
  for (int Case = 0; Case < 200; ++Case) {
    SCOPED_TRACE("case " + std::to_string(Case));
    LoopBuilder L;
    unsigned K = 2 + Rng() % 5;
    std::vector<mir::Reg> Init, Phi, Inc;
    for (unsigned J = 0; J < K; ++J)
      Init.push_back(Rng() % 4 == 0 && J > 0 ? Init[Rng() % J]
                                             : L.mov(L.Entry, int64_t(Rng() % 1000) + 1));
    mir::Reg Zero = L.mov(L.Entry, 0), N = L.reg();
    for (unsigned J = 0; J < K; ++J)
      Phi.push_back(L.reg());
    mir::Reg N1 = L.add(L.Loop, N, 1);
    for (unsigned J = 0; J < K; ++J)
      Inc.push_back(L.add(L.Loop, Phi[J], int64_t(Rng() % 7) + 1));
    for (unsigned J = 0; J < K; ++J)
      L.phi(Phi[J], Init[J], Rng() % 2 ? Phi[Rng() % K] : Inc[Rng() % K]);
    L.phi(N, Zero, N1);
    L.latch(N1, 1 + Rng() % 6);
    for (unsigned J = 0; J < K; ++J) {
      if (Rng() % 2)
        L.store(4 * J, Phi[J]);
      if (Rng() % 2)
        L.store(4 * (K + J), Inc[J]);
      if (Rng() % 3 == 0) // an initial value live through the loop
        L.store(4 * (2 * K + J), Init[J]);
    }
    L.ret();
    lowerAndCompare(L, interpret(*L.Fn));
  }
}

//===----------------------------------------------------------------------===//
// i8/i16 promotion: the selected MIR, run by an interpreter of 32-bit
// registers, gives what C computes on the narrow types
//===----------------------------------------------------------------------===//

/// The IR of a kernel k(iN %a, iN %b, ptr addrspace(1) %out) storing one
/// i32 per operation (narrow results zero-extended; compares as 0/1).
std::string narrowOpsKernel(unsigned Bits) {
  std::string T = "i" + std::to_string(Bits), Body;
  const char *Ops[] = {
      "%r0 = add T %a, %b",          "%r1 = sub T %a, %b",
      "%r2 = mul T %a, %b",          "%r3 = shl T %a, 3",
      "%r4 = ashr T %a, 2",          "%r5 = lshr T %a, 2",
      "%r6 = sdiv T %a, %bnz",       "%r7 = srem T %a, %bnz",
      "%r8 = udiv T %a, %bnz",       "%r9 = xor T %a, -1",
      "%r10 = call T @llvm.smax.T(T %a, T %b)",
      "%r11 = call T @llvm.smin.T(T %a, T -5)",
      "%r12 = select i1 %slt, T %a, T -7",
      "%r13 = sub T 0, %a",          "%r14 = ashr T %b, %sh",
      "%r15 = call T @llvm.umax.T(T %a, T %b)"};
  auto Subst = [&](std::string S) {
    for (size_t P; (P = S.find('T')) != std::string::npos;)
      S.replace(P, 1, T);
    return S;
  };
  Body += Subst("define void @k(T %a, T %b, ptr addrspace(1) %out) {\n"
                "  %bnz = or T %b, 1\n  %sh = and T %a, 3\n"
                "  %slt = icmp slt T %a, %b\n");
  unsigned K = 0;
  for (const char *Op : Ops) {
    std::string N = std::to_string(K);
    Body += "  " + Subst(Op) + "\n";
    Body += "  %w" + N + " = zext " + T + " %r" + N + " to i32\n";
    Body += "  %p" + N + " = getelementptr i32, ptr addrspace(1) %out, i64 " + N + "\n";
    Body += "  store i32 %w" + N + ", ptr addrspace(1) %p" + N + "\n";
    ++K;
  }
  // Results that are already i32: signed/unsigned compares, sext, sitofp.
  const char *Wide[] = {"%x0 = zext i1 %slt to i32", "%c1 = icmp ult T %a, %b",
                        "%x1 = zext i1 %c1 to i32",  "%x2 = sext T %a to i32",
                        "%c3 = icmp sge T %b, -3",   "%x3 = zext i1 %c3 to i32",
                        "%x4 = sext T %r0 to i32"};
  for (const char *Op : Wide)
    Body += "  " + Subst(Op) + "\n";
  for (unsigned J = 0; J < 5; ++J) {
    std::string N = std::to_string(K + J), X = std::to_string(J);
    Body += "  %q" + X + " = getelementptr i32, ptr addrspace(1) %out, i64 " + N + "\n";
    Body += "  store i32 %x" + X + ", ptr addrspace(1) %q" + X + "\n";
  }
  Body += "  ret void\n}\n";
  for (const char *F : {"smax", "smin", "umax"})
    Body += Subst(std::string("declare T @llvm.") + F + ".T(T, T)\n");
  return Body;
}

/// What C computes for narrowOpsKernel on \p A, \p B (N-bit two's
/// complement; every narrow result zero-extended).
template <typename S> std::vector<uint32_t> narrowOpsExpected(S A, S B) {
  using U = std::make_unsigned_t<S>;
  auto Z = [](auto V) { return uint32_t(U(V)); };
  S Bnz = S(B | 1), Sh = S(A & 3);
  bool Slt = A < B;
  // The product in uint32_t: u16 * u16 promotes to int and can overflow.
  return {Z(A + B), Z(A - B), Z(uint32_t(U(A)) * uint32_t(U(B))), Z(U(A) << 3), Z(A >> 2), Z(U(A) >> 2),
          Z(A / Bnz), Z(A % Bnz), Z(U(A) / U(Bnz)), Z(~A), Z(std::max(A, B)),
          Z(std::min<S>(A, -5)), Z(Slt ? A : S(-7)), Z(-A), Z(B >> Sh),
          Z(std::max(U(A), U(B))), uint32_t(Slt), uint32_t(U(A) < U(B)), uint32_t(int32_t(A)),
          uint32_t(B >= -3), uint32_t(int32_t(S(A + B)))};
}

/// Runs straight-line selected ptx MIR: parameters by symbol index (i8/i16
/// zero-extended, as ld.param.u8/u16 does), 32-bit words stored to
/// the pointer parameter (address 0) by byte offset.
std::map<int64_t, uint32_t> runStraightLine(const mir::Function &Fn,
                                            const std::vector<uint64_t> &Params) {
  std::map<mir::Reg, uint64_t> R;
  std::map<int64_t, uint32_t> Stored;
  auto V = [&](const Operand &O) -> uint64_t { return O.isImm() ? uint64_t(O.Imm) : R.at(O.R); };
  auto V32 = [&](const Operand &O) { return uint32_t(V(O)); };
  auto S32 = [&](const Operand &O) { return int32_t(V32(O)); };
  for (const auto &B : Fn.Blocks)
    for (const mir::Inst &I : B->Insts) {
      if (I.Opcode == mir::RET)
        return Stored;
      if (I.Opcode == mir::COPY) {
        R[I.Ops[0].R] = R.at(I.Ops[1].R);
        continue;
      }
      if (I.isPseudo()) {
        ADD_FAILURE() << "runStraightLine: control flow in the kernel";
        return Stored;
      }
      const mir::Operand *Op = I.Ops.data();
      uint64_t &D = R[Op[0].IsDef && Op[0].isReg() ? Op[0].R : mir::NoReg];
      switch (Opcode(I.Opcode)) {
      case Opcode::LD_PARAM_U8: D = Params.at(Op[1].Imm) & 0xff; break;
      case Opcode::LD_PARAM_U16: D = Params.at(Op[1].Imm) & 0xffff; break;
      case Opcode::LD_PARAM_U32: D = uint32_t(Params.at(Op[1].Imm)); break;
      case Opcode::LD_PARAM_U64: D = Params.at(Op[1].Imm); break;
      case Opcode::MOV_B32: D = V32(Op[1]); break;
      case Opcode::ADD_32: D = uint32_t(V32(Op[1]) + V32(Op[2])); break;
      case Opcode::SUB_32: D = uint32_t(V32(Op[1]) - V32(Op[2])); break;
      case Opcode::MUL_32: D = uint32_t(V32(Op[1]) * V32(Op[2])); break;
      case Opcode::AND_32: D = V32(Op[1]) & V32(Op[2]); break;
      case Opcode::OR_32: D = V32(Op[1]) | V32(Op[2]); break;
      case Opcode::XOR_32: D = V32(Op[1]) ^ V32(Op[2]); break;
      case Opcode::SHL_32: D = V32(Op[2]) > 31 ? 0 : uint32_t(V32(Op[1]) << V32(Op[2])); break;
      case Opcode::SRL_32: D = V32(Op[2]) > 31 ? 0 : V32(Op[1]) >> V32(Op[2]); break;
      case Opcode::SRA_32: D = uint32_t(S32(Op[1]) >> std::min(V32(Op[2]), 31u)); break;
      case Opcode::SDIV_32: D = uint32_t(S32(Op[1]) / S32(Op[2])); break;
      case Opcode::SREM_32: D = uint32_t(S32(Op[1]) % S32(Op[2])); break;
      case Opcode::UDIV_32: D = V32(Op[1]) / V32(Op[2]); break;
      case Opcode::UREM_32: D = V32(Op[1]) % V32(Op[2]); break;
      case Opcode::SMAX_32: D = uint32_t(std::max(S32(Op[1]), S32(Op[2]))); break;
      case Opcode::SMIN_32: D = uint32_t(std::min(S32(Op[1]), S32(Op[2]))); break;
      case Opcode::UMAX_32: D = std::max(V32(Op[1]), V32(Op[2])); break;
      case Opcode::UMIN_32: D = std::min(V32(Op[1]), V32(Op[2])); break;
      case Opcode::SELP_B32: D = R.at(Op[3].R) ? V32(Op[1]) : V32(Op[2]); break;
      case Opcode::SETP_S32:
      case Opcode::SETP_U32: {
        int64_t A = Opcode(I.Opcode) == Opcode::SETP_S32 ? S32(Op[2]) : int64_t(V32(Op[2]));
        int64_t C = Opcode(I.Opcode) == Opcode::SETP_S32 ? S32(Op[3]) : int64_t(V32(Op[3]));
        using CC = ptx::CondCode;
        switch (CC(Op[1].Imm)) {
        case CC::EQ: D = A == C; break;
        case CC::NE: D = A != C; break;
        case CC::LT: case CC::LO: D = A < C; break;
        case CC::LE: case CC::LS: D = A <= C; break;
        case CC::GT: case CC::HI: D = A > C; break;
        case CC::GE: case CC::HS: D = A >= C; break;
        default: ADD_FAILURE() << "runStraightLine: float condition"; break;
        }
        break;
      }
      case Opcode::GLOBAL_ST_U32:
        Stored[int64_t(V(Op[0])) + Op[1].Imm] = V32(Op[2]);
        break;
      default:
        ADD_FAILURE() << "runStraightLine: no semantics for " << ptx::getDesc(I.Opcode).Name;
        return Stored;
      }
    }
  ADD_FAILURE() << "runStraightLine: no RET";
  return Stored;
}

template <typename S> void checkNarrowOps(unsigned Bits) {
  LLVMContext Ctx;
  SMDiagnostic Diag;
  std::unique_ptr<Module> M = parseAssemblyString(
      "target datalayout = \"e-i64:64-i128:128-v16:16-v32:32-n16:32:64\"\n"
      "target triple = \"nvptx64-nvidia-cuda\"\n" +
          narrowOpsKernel(Bits),
      Diag, Ctx);
  ASSERT_TRUE(M) << Diag.getMessage().str();
  Expected<isel::PtxSelection> Sel = isel::selectPtx(*M->getFunction("k"), "k");
  ASSERT_TRUE(!!Sel) << toString(Sel.takeError());
  isel::lowerPtxOutOfSSA(*Sel->Fn);
  std::mt19937 Rng(Bits);
  std::vector<std::pair<S, S>> Inputs = {{S(-128), S(-1)}, {S(127), S(1)}, {S(-1), S(-1)},
                                         {S(0), S(-3)}};
  for (int K = 0; K < 300; ++K)
    Inputs.push_back({S(Rng()), S(Rng())});
  for (auto [A, B] : Inputs) {
    SCOPED_TRACE(std::to_string(A) + ", " + std::to_string(B));
    // Poison the high bits of the parameter words: ld.param.u8/u16 must
    // drop them.
    uint64_t Poison = Bits == 8 ? 0xdeadbe00u : 0xdead0000u;
    std::map<int64_t, uint32_t> Got =
        runStraightLine(*Sel->Fn, {uint64_t(std::make_unsigned_t<S>(A)) | Poison,
                                   uint64_t(std::make_unsigned_t<S>(B)) | Poison, 0});
    std::vector<uint32_t> Want = narrowOpsExpected<S>(A, B);
    ASSERT_EQ(Got.size(), Want.size());
    for (size_t J = 0; J < Want.size(); ++J)
      EXPECT_EQ(Got[int64_t(4 * J)], Want[J]) << "result " << J;
  }
}

TEST(PtxNarrow, OddWidthIntegersArePromotedAndMasked) {
  // LLVM's indvars narrows a counter of at most 7 trips to i3 (compfuzz
  // seed 6042): a zero-extended B32 register like i8, its add masked to 3
  // bits.
  LLVMContext Ctx;
  SMDiagnostic Diag;
  std::unique_ptr<Module> M = parseAssemblyString(
      "target datalayout = \"e-i64:64-i128:128-v16:16-v32:32-n16:32:64\"\n"
      "target triple = \"nvptx64-nvidia-cuda\"\n"
      "define void @k(ptr addrspace(1) %p, i32 %n) {\n"
      "entry:\n  %t = trunc i32 %n to i3\n  br label %loop\n"
      "loop:\n  %i = phi i3 [ 0, %entry ], [ %i.next, %loop ]\n"
      "  %i.next = add i3 %i, 1\n  %done = icmp eq i3 %i.next, %t\n"
      "  br i1 %done, label %exit, label %loop\n"
      "exit:\n  %w = zext i3 %i.next to i32\n  store i32 %w, ptr addrspace(1) %p\n"
      "  ret void\n}\n",
      Diag, Ctx);
  ASSERT_TRUE(M) << Diag.getMessage().str();
  Expected<isel::PtxSelection> Sel = isel::selectPtx(*M->getFunction("k"), "k");
  ASSERT_TRUE(!!Sel) << toString(Sel.takeError());
  unsigned MasksTo3Bits = 0;
  for (const auto &B : Sel->Fn->Blocks)
    for (const mir::Inst &I : B->Insts)
      MasksTo3Bits += I.Opcode == unsigned(Opcode::AND_32) && I.Ops.size() == 3 &&
                      I.Ops[2].isImm() && I.Ops[2].Imm == 7;
  EXPECT_GE(MasksTo3Bits, 2u) << "the trunc and the add each masked to 3 bits";
}

TEST(PtxNarrow, EightBitOperationsComputeWhatCComputes) { checkNarrowOps<int8_t>(8); }
TEST(PtxNarrow, SixteenBitOperationsComputeWhatCComputes) { checkNarrowOps<int16_t>(16); }

} // namespace
