//===- CoalesceLaneCopiesTest.cpp - lane-aware copy coalescing ------------===//
//
// Functions are built by hand in the shapes cfg lowering emits. Each runs on
// a four-lane interpreter of lowered MIR below (an exec mask; every write
// but emask.get's touches only the active lanes) before coalescing, after
// it, and after register allocation (whose checker runs too), and must
// store the same values in every lane: a merge of two vregs some lane needs
// at once shows as a wrong value. The structural checks say which copies
// went. The last test takes every suite kernel through cfg lowering and the
// pass, which must know its mask code. The kernel suite and compfuzz run
// whole kernels through the pass.
//
//===----------------------------------------------------------------------===//

#include "regalloc/CoalesceLaneCopies.h"
#include "LoweredMirBuilder.h"
#include "frontend/Frontend.h"
#include "isel/LowerControlFlow.h"
#include "isel/Prepare.h"
#include "isel/SelectSimt.h"
#include "regalloc/RegAlloc.h"

#include "ISA.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <array>
#include <map>

using namespace tandem;
using namespace tandem::mir;

namespace {

using mirtest::Builder;
using mirtest::op;
using mirtest::printed;

/// s2r of the lane number (the interpreter's %tid.x).
Reg laneId(Builder &Bld) { return Bld.s2r(0); }

// --- a four-lane interpreter of lowered MIR --------------------------------

constexpr unsigned Lanes = 4;
constexpr unsigned AllLanes = (1u << Lanes) - 1;
using Stored = std::map<std::pair<int64_t, unsigned>, uint32_t>; ///< (offset, lane)

/// Runs \p Fn on four lanes (s2r gives the lane number) and returns what
/// each lane stored. Registers start with a different garbage value per
/// register and lane, so a value some lane lost shows.
Stored interpret(const Function &Fn) {
  std::map<Reg, std::array<uint32_t, Lanes>> Regs;
  auto Get = [&](Reg R, unsigned Lane) -> uint32_t {
    if (R == 0)
      return 0;
    auto It = Regs.find(R);
    return It == Regs.end() ? 0xA5A50000u ^ (R * 7 + Lane) : It->second[Lane];
  };
  auto Set = [&](Reg R, unsigned Lane, uint32_t V) {
    if (!Regs.count(R))
      for (unsigned L = 0; L < Lanes; ++L)
        Regs[R][L] = Get(R, L);
    Regs[R][Lane] = V;
  };
  Stored Out;
  unsigned Exec = AllLanes;
  size_t B = 0, K = 0;
  for (unsigned Steps = 0; Steps < 10000; ++Steps) {
    if (K == Fn.Blocks[B]->Insts.size()) {
      ++B; // fall through
      K = 0;
      continue;
    }
    const Inst &I = Fn.Blocks[B]->Insts[K++];
    auto Jump = [&](const Block *T) {
      for (B = 0; Fn.Blocks[B].get() != T; ++B) {
      }
      K = 0;
    };
    auto Use = [&](unsigned Op, unsigned Lane) { return Get(I.Ops[Op].R, Lane); };
    auto EachLane = [&](auto F) {
      for (unsigned L = 0; L < Lanes; ++L)
        if (Exec >> L & 1)
          F(L);
    };
    using simt::Opcode;
    if (I.Opcode == COPY) {
      EachLane([&](unsigned L) { Set(I.Ops[0].R, L, Use(1, L)); });
      continue;
    }
    if (I.Opcode == LI) {
      EachLane([&](unsigned L) { Set(I.Ops[0].R, L, static_cast<uint32_t>(I.Ops[1].Imm)); });
      continue;
    }
    if (I.Opcode == IMPLICIT_DEF)
      continue;
    switch (static_cast<Opcode>(I.Opcode)) {
    case Opcode::S2R:
      EachLane([&](unsigned L) { Set(I.Ops[0].R, L, L); });
      break;
    case Opcode::ADD:
      EachLane([&](unsigned L) { Set(I.Ops[0].R, L, Use(1, L) + Use(2, L)); });
      break;
    case Opcode::ADDI:
      EachLane(
          [&](unsigned L) { Set(I.Ops[0].R, L, Use(1, L) + static_cast<uint32_t>(I.Ops[2].Imm)); });
      break;
    case Opcode::SETLT:
      EachLane([&](unsigned L) {
        Set(I.Ops[0].R, L, static_cast<int32_t>(Use(1, L)) < static_cast<int32_t>(Use(2, L)));
      });
      break;
    case Opcode::SETLTI:
      EachLane(
          [&](unsigned L) { Set(I.Ops[0].R, L, static_cast<int32_t>(Use(1, L)) < I.Ops[2].Imm); });
      break;
    case Opcode::EMASK_GET:
      for (unsigned L = 0; L < Lanes; ++L) // every lane, active or not
        Set(I.Ops[0].R, L, Exec);
      break;
    case Opcode::EMASK_SET:
      Exec = Use(0, 0) & AllLanes;
      break; // lane 0, active or not
    case Opcode::EMASK_AND:
    case Opcode::EMASK_ANDN: {
      bool Andn = I.Opcode == op(Opcode::EMASK_ANDN);
      EachLane([&](unsigned L) {
        if ((Use(0, L) != 0) == Andn)
          Exec &= ~(1u << L);
      });
      break;
    }
    case Opcode::BNONE:
      if (Exec == 0)
        Jump(I.Ops[0].Target);
      break;
    case Opcode::BANY:
      if (Exec != 0)
        Jump(I.Ops[0].Target);
      break;
    case Opcode::BRA:
      Jump(I.Ops[0].Target);
      break;
    case Opcode::GLOBAL_ST_U32:
      EachLane([&](unsigned L) { Out[{I.Ops[1].Imm, L}] = Use(2, L); });
      break;
    case Opcode::EXIT:
      return Out;
    default:
      ADD_FAILURE() << "the test interpreter does not know opcode " << I.Opcode;
      return Out;
    }
  }
  ADD_FAILURE() << "no exit after 10000 steps";
  return Out;
}

unsigned countCopies(const Function &Fn) { return mirtest::countOpcode(Fn, COPY); }

struct Coalesced {
  regalloc::CoalesceStats Stats;
  unsigned CopiesLeft = 0; ///< right after coalescing
  std::string Printed;     ///< the function right after coalescing
};

/// Coalesces \p Fn, then allocates it (the checker runs); each form must
/// store what the original stored.
Coalesced coalesceAndCompare(Function &Fn, const Stored &Expected) {
  EXPECT_EQ(interpret(Fn), Expected) << "the hand-built function itself\n" << printed(Fn);
  Coalesced C;
  C.Stats = regalloc::coalesceLaneCopies(Fn);
  C.CopiesLeft = countCopies(Fn);
  C.Printed = printed(Fn);
  EXPECT_FALSE(C.Stats.ShapeUnsupported);
  EXPECT_EQ(interpret(Fn), Expected) << "after coalescing\n" << C.Printed;
  llvm::Error E = regalloc::allocateRegisters(Fn, regalloc::RegAllocOptions());
  EXPECT_FALSE(E) << llvm::toString(std::move(E)) << "\n" << printed(Fn);
  EXPECT_EQ(interpret(Fn), Expected) << "after allocation\n" << printed(Fn);
  return C;
}

Stored perLane(int64_t Off, std::array<uint32_t, Lanes> Values) {
  Stored S;
  for (unsigned L = 0; L < Lanes; ++L)
    S[{Off, L}] = Values[L];
  return S;
}

/// entry: p = x (every lane); lanes 0 and 1 take `then`: p = x + 5 under
/// the narrowed mask; join: store p (at 0), and the caller's stores after.
struct IfJoinPhi {
  Function Fn;
  Block *Then = nullptr;
  Reg X = mir::NoReg;
  Builder Join{Fn, nullptr};

  IfJoinPhi() {
    Block *Entry = Fn.addBlock("entry");
    Then = Fn.addBlock("then");
    Join.B = Fn.addBlock("join");
    Builder E{Fn, Entry};
    Reg Lane = laneId(E);
    X = E.li(10);
    Reg P = Fn.newVReg();
    E.copy(P, X, /*Partial=*/false);
    Reg Mask = E.saveMask();
    E.maskOp(simt::Opcode::EMASK_AND, E.ri(simt::Opcode::SETLTI, Lane, 2));
    E.branch(simt::Opcode::BNONE, Join.B);
    Builder T{Fn, Then};
    T.copy(P, T.ri(simt::Opcode::ADDI, X, 5), /*Partial=*/true);
    Join.maskOp(simt::Opcode::EMASK_SET, Mask);
    Join.stGlobal(0, P);
  }
};

/// x, the then-value and p all merge: in the warp p is live through `then`
/// (lanes 2 and 3 keep x in it) while x and y are read and written there,
/// but no lane needs two of them at once.
TEST(CoalesceLaneCopiesTest, AJoinPhiSharesOneRegisterWithBothItsSources) {
  IfJoinPhi If;
  If.Join.exit();

  EXPECT_EQ(countCopies(If.Fn), 2u);
  Coalesced C = coalesceAndCompare(If.Fn, perLane(0, {15, 15, 10, 10}));
  EXPECT_EQ(C.Stats.CopiesRemoved, 2u) << C.Printed;
  EXPECT_EQ(C.Stats.VRegsMerged, 2u);
  EXPECT_EQ(C.CopiesLeft, 0u) << C.Printed;
  // The then-value is now written straight into p's register, and lanes 2
  // and 3 keep x there: a PartialDef.
  const Inst &Add = If.Then->Insts[0];
  EXPECT_EQ(Add.Opcode, op(simt::Opcode::ADDI));
  EXPECT_TRUE(Add.PartialDef) << C.Printed;
}

/// Lanes 0 and 1 read x early in `then`, save the mask for a nested if, and
/// only then compute the value they give p. x, p and y merge into M. To the
/// warp, the lanes 2 and 3 left out still need M (x) all through `then`, so
/// y's def must be a PartialDef: without it M would look dead between x's
/// last read and y's def, and the allocator would give that register to
/// the nested if's saved mask, which emask.get writes in all lanes.
TEST(CoalesceLaneCopiesTest, TheLanesLeftOutKeepTheMergedValueAcrossAWholeWarpWrite) {
  Function Fn;
  Block *Entry = Fn.addBlock("entry");
  Block *Then = Fn.addBlock("then");
  Block *Inner = Fn.addBlock("inner");
  Block *InnerJoin = Fn.addBlock("inner.join");
  Block *Join = Fn.addBlock("join");
  Builder E{Fn, Entry};
  Reg Lane = laneId(E);
  Reg X = E.li(10);
  Reg P = Fn.newVReg();
  E.copy(P, X, /*Partial=*/false);
  Reg Mask = E.saveMask();
  E.maskOp(simt::Opcode::EMASK_AND, E.ri(simt::Opcode::SETLTI, Lane, 2));
  E.branch(simt::Opcode::BNONE, Join);
  Builder T{Fn, Then};
  T.stGlobal(12, X);
  Reg InnerMask = T.saveMask();
  T.maskOp(simt::Opcode::EMASK_AND, T.ri(simt::Opcode::SETLTI, Lane, 1));
  T.branch(simt::Opcode::BNONE, InnerJoin);
  Builder I{Fn, Inner};
  I.stGlobal(8, Lane);
  Builder IJ{Fn, InnerJoin};
  IJ.maskOp(simt::Opcode::EMASK_SET, InnerMask);
  Reg Y = IJ.ri(simt::Opcode::ADDI, Lane, 14);
  IJ.copy(P, Y, /*Partial=*/true);
  Builder J{Fn, Join};
  J.maskOp(simt::Opcode::EMASK_SET, Mask);
  J.stGlobal(0, P);
  J.exit();

  Stored Expected = perLane(0, {14, 15, 10, 10});
  Expected[{12, 0}] = Expected[{12, 1}] = 10;
  Expected[{8, 0}] = 0;
  Coalesced C = coalesceAndCompare(Fn, Expected);
  EXPECT_EQ(C.Stats.CopiesRemoved, 2u) << C.Printed;
  EXPECT_TRUE(InnerJoin->Insts[1].PartialDef) << C.Printed;
}

/// if/else as StructurizeCFG leaves it (spmv_merge's merge loop body):
/// lanes 0 and 1 run the else-region, then a Flow block whose flag (an `li`
/// on each path) sends them past the then-region, which lanes 2 and 3 run.
/// The join's phi p gets `row + 1` in the else-lanes and `row` in the
/// then-lanes. All three merge, which takes two refinements of the per-lane
/// CFG: the else-lanes, whose flag is the `li 0`, never enter the
/// then-region, so row is dead after `row + 1`; and Flow's copy of the
/// else-value into p writes nothing once the two share a register, so it
/// does not clobber the row the then-lanes still need.
TEST(CoalesceLaneCopiesTest, AFlowBlocksConstantFlagsAndIdentityCopiesFreeAnIfElse) {
  Function Fn;
  Block *Entry = Fn.addBlock("entry");
  Block *Else = Fn.addBlock("else");
  Block *Flow = Fn.addBlock("flow");
  Block *Then = Fn.addBlock("then");
  Block *Join = Fn.addBlock("join");
  Builder E{Fn, Entry};
  Reg Lane = laneId(E);
  Reg Row = E.li(10);
  Reg ElseValue = Fn.newVReg();
  E.emit(Inst(IMPLICIT_DEF, {Operand::def(ElseValue)}));
  Reg Flag = E.li(1);
  Reg FlowMask = E.saveMask();
  E.maskOp(simt::Opcode::EMASK_AND, E.ri(simt::Opcode::SETLTI, Lane, 2));
  E.branch(simt::Opcode::BNONE, Flow);
  Builder L{Fn, Else};
  L.stGlobal(8, Row);
  L.emit(
       Inst(op(simt::Opcode::ADDI), {Operand::def(ElseValue), Operand::use(Row), Operand::imm(1)}))
      .PartialDef = true;
  L.emit(Inst(LI, {Operand::def(Flag), Operand::imm(0)})).PartialDef = true;
  Builder F{Fn, Flow};
  F.maskOp(simt::Opcode::EMASK_SET, FlowMask);
  Reg P = Fn.newVReg();
  F.copy(P, ElseValue, /*Partial=*/false);
  Reg JoinMask = F.saveMask();
  F.maskOp(simt::Opcode::EMASK_AND, Flag);
  F.branch(simt::Opcode::BNONE, Join);
  Builder T{Fn, Then};
  T.stGlobal(12, Row);
  T.copy(P, Row, /*Partial=*/true);
  Builder J{Fn, Join};
  J.maskOp(simt::Opcode::EMASK_SET, JoinMask);
  J.stGlobal(0, P);
  J.exit();

  Stored Expected = perLane(0, {11, 11, 10, 10});
  Expected[{8, 0}] = Expected[{8, 1}] = 10;
  Expected[{12, 2}] = Expected[{12, 3}] = 10;
  Coalesced C = coalesceAndCompare(Fn, Expected);
  EXPECT_EQ(C.Stats.CopiesRemoved, 2u) << C.Printed;
  EXPECT_EQ(C.CopiesLeft, 0u) << C.Printed;
}

/// As the first test, but x is also stored after the join: p and x are
/// then live at once with different values in lanes 0 and 1, so p's copy
/// of x stays; p and the then-value still merge.
TEST(CoalesceLaneCopiesTest, ASourceStillNeededWithAnotherValueKeepsItsCopy) {
  IfJoinPhi If;
  If.Join.stGlobal(4, If.X);
  If.Join.exit();

  Stored Expected = perLane(0, {15, 15, 10, 10});
  Expected.merge(perLane(4, {10, 10, 10, 10}));
  Coalesced C = coalesceAndCompare(If.Fn, Expected);
  EXPECT_EQ(C.Stats.CopiesRemoved, 1u) << C.Printed;
  EXPECT_EQ(C.CopiesLeft, 1u) << C.Printed;
}

/// A divergent loop whose header phi h is read after the loop: lane L runs
/// L + 1 iterations of n = h + 1, and the lanes that leave do so at the
/// latch's emask.and, before the back-edge copy h = n, so they store their
/// last h (L), not n. n and h must not merge: n is written in every lane
/// still looping, including those about to leave with h. (A per-lane view
/// that let the leaving lanes run the copy would see no conflict here.)
TEST(CoalesceLaneCopiesTest, LanesLeavingALoopAtTheLatchKeepTheHeaderValue) {
  Function Fn;
  Block *Entry = Fn.addBlock("entry");
  Block *Loop = Fn.addBlock("loop");
  Block *Exit = Fn.addBlock("exit");
  Builder E{Fn, Entry};
  Reg Lane = laneId(E);
  Reg Limit = E.ri(simt::Opcode::ADDI, Lane, 1);
  Reg H = E.li(0);
  Reg Mask = E.saveMask();
  Builder L{Fn, Loop};
  Loop->LoopDepth = 1;
  Reg N = L.ri(simt::Opcode::ADDI, H, 1);
  Reg Again = L.rr(simt::Opcode::SETLT, N, Limit);
  L.maskOp(simt::Opcode::EMASK_AND, Again);
  // h is read after the loop, so cfg lowering marks its defs in the loop
  // partial (markLoopLiveOuts).
  L.copy(H, N, /*Partial=*/true);
  L.branch(simt::Opcode::BANY, Loop);
  Builder X{Fn, Exit};
  X.maskOp(simt::Opcode::EMASK_SET, Mask);
  X.stGlobal(0, H);
  X.exit();

  Coalesced C = coalesceAndCompare(Fn, perLane(0, {0, 1, 2, 3}));
  EXPECT_EQ(C.Stats.CopiesRemoved, 0u) << C.Printed;
  EXPECT_EQ(C.CopiesLeft, 1u) << C.Printed;
}

/// A saved exec mask must keep all 32 lanes (emask.get writes them all,
/// emask.set reads lane 0): a copy of one is never coalesced away, even
/// where the lane view sees no conflict.
TEST(CoalesceLaneCopiesTest, ASavedMaskIsNeverMerged) {
  Function Fn;
  Block *Entry = Fn.addBlock("entry");
  Block *Then = Fn.addBlock("then");
  Block *Join = Fn.addBlock("join");
  Builder E{Fn, Entry};
  Reg Lane = laneId(E);
  Reg Mask = E.saveMask();
  Reg Saved = Fn.newVReg();
  E.copy(Saved, Mask, /*Partial=*/false);
  Reg Cond = E.ri(simt::Opcode::SETLTI, Lane, 1);
  E.maskOp(simt::Opcode::EMASK_AND, Cond);
  E.branch(simt::Opcode::BNONE, Join);
  Builder T{Fn, Then};
  T.stGlobal(4, Lane);
  Builder J{Fn, Join};
  J.maskOp(simt::Opcode::EMASK_SET, Saved);
  J.stGlobal(0, Lane);
  J.exit();

  Stored Expected = perLane(0, {0, 1, 2, 3});
  Expected[{4, 0}] = 0;
  Coalesced C = coalesceAndCompare(Fn, Expected);
  EXPECT_EQ(C.Stats.CopiesRemoved, 0u) << C.Printed;
  EXPECT_EQ(C.CopiesLeft, 1u) << C.Printed;
}

/// Mask code outside cfg lowering's shapes (here a restore in the middle
/// of a block) leaves the function as it was.
TEST(CoalesceLaneCopiesTest, MaskCodeOfAnotherShapeChangesNothing) {
  Function Fn;
  Block *Entry = Fn.addBlock("entry");
  Builder E{Fn, Entry};
  Reg X = E.li(7);
  Reg Mask = E.saveMask();
  E.maskOp(simt::Opcode::EMASK_SET, Mask);
  Reg P = Fn.newVReg();
  E.copy(P, X, /*Partial=*/false);
  E.stGlobal(0, P);
  E.exit();

  regalloc::CoalesceStats Stats = regalloc::coalesceLaneCopies(Fn);
  EXPECT_TRUE(Stats.ShapeUnsupported);
  EXPECT_EQ(Stats.CopiesRemoved, 0u);
  EXPECT_EQ(countCopies(Fn), 1u) << printed(Fn);
}

/// The pass does nothing, silently, when cfg lowering's mask code has a
/// shape it does not know (a safe fallback, invisible in the output). Every
/// kernel of the suite must have the known shapes, and the divergent ones
/// must lose copies: a change to cfg lowering that breaks either shows here
/// rather than as slower code.
TEST(CoalesceLaneCopiesTest, EverySuiteKernelHasTheShapesCfgLoweringPromises) {
  std::error_code EC;
  std::vector<std::string> Sources;
  for (llvm::sys::fs::directory_iterator It(TANDEM_SOURCE_DIR "/microbench/kernels", EC), End;
       It != End && !EC; It.increment(EC))
    if (llvm::sys::path::extension(It->path()) == ".cu")
      Sources.push_back(It->path());
  ASSERT_FALSE(EC) << EC.message();
  ASSERT_GE(Sources.size(), 15u);
  std::map<std::string, unsigned> CopiesRemoved;
  for (const std::string &Path : Sources) {
    SCOPED_TRACE(Path);
    llvm::LLVMContext Ctx;
    auto M = frontend::loadKernelSource(Path, Ctx, frontend::FrontendOptions());
    ASSERT_TRUE(bool(M)) << llvm::toString(M.takeError());
    ASSERT_FALSE(llvm::errorToBool(isel::prepareModule(**M, isel::PrepareOptions())));
    for (llvm::Function *K : frontend::kernelsOf(**M)) {
      auto Fn = isel::selectSimt(*K, K->getName().str());
      ASSERT_TRUE(bool(Fn)) << llvm::toString(Fn.takeError());
      ASSERT_FALSE(llvm::errorToBool(isel::lowerControlFlow(**Fn)));
      regalloc::CoalesceStats Stats = regalloc::coalesceLaneCopies(**Fn);
      EXPECT_FALSE(Stats.ShapeUnsupported) << K->getName().str();
      CopiesRemoved[K->getName().str()] = Stats.CopiesRemoved;
    }
  }
  for (const char *Divergent : {"divergent", "spmv_merge", "softmax_rows"})
    EXPECT_GT(CopiesRemoved[Divergent], 0u) << Divergent;
}

} // namespace
