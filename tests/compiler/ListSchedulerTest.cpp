//===- ListSchedulerTest.cpp - pre-allocation list scheduling -------------===//

#include "sched/ListScheduler.h"

#include "compiler/Compiler.h"

#include "ISA.h"

#include "llvm/ADT/DenseMap.h"

#include <gtest/gtest.h>

using namespace tandem;
using namespace tandem::mir;

namespace {

unsigned op(simt::Opcode O) { return static_cast<unsigned>(O); }

/// Builds a block of N independent "load, add 1, store" chains in source
/// order (chain after chain), the shape a simple unrolled loop body has.
struct Chains {
  Function Fn;
  Block *B;
  explicit Chains(unsigned N) {
    Fn.Name = "chains";
    B = Fn.addBlock("entry");
    Reg Base = Fn.newVReg(true);
    B->Insts.push_back(Inst(PARAM_LD(), {Operand::def(Base), Operand::use(0), Operand::imm(0)}));
    for (unsigned K = 0; K < N; ++K) {
      Reg V = Fn.newVReg(), W = Fn.newVReg();
      B->Insts.push_back(Inst(op(simt::Opcode::GLOBAL_LD_U32),
                              {Operand::def(V), Operand::use(Base), Operand::imm(4 * K)}));
      B->Insts.push_back(Inst(op(simt::Opcode::ADDI), {Operand::def(W), Operand::use(V), Operand::imm(1)}));
      B->Insts.push_back(Inst(op(simt::Opcode::GLOBAL_ST_U32),
                              {Operand::use(Base), Operand::imm(1024 + 4 * K), Operand::use(W)}));
    }
    B->Insts.push_back(Inst(RET, {}));
  }
  static unsigned PARAM_LD() { return op(simt::Opcode::PARAM_LD_U32); }
};

bool isOp(const Inst &I, simt::Opcode O) { return I.Opcode == op(O); }

/// Schedules \p Fn for a file of \p Registers registers; the result must
/// still be valid MIR.
void scheduleFor(Function &Fn, unsigned Registers) {
  sched::ScheduleOptions Opts;
  Opts.NumRegisters = Registers;
  sched::scheduleFunction(Fn, Opts);
  EXPECT_EQ(verify(Fn, TargetKind::Simt, false), "");
}

/// Every use comes after its def (or is one of \p DefinedBefore, values
/// of earlier blocks), and stores keep their order relative to each other
/// and to loads that preceded them in the original.
void expectDependencesKept(const Block &B, std::vector<Reg> DefinedBefore = {}) {
  std::vector<Reg> Defined = std::move(DefinedBefore);
  for (const Inst &I : B.Insts) {
    for (const Operand &O : I.Ops) {
      if (O.isReg() && !O.IsDef && isVirtual(O.R)) {
        EXPECT_TRUE(llvm::is_contained(Defined, O.R)) << "use before def of %v" << O.R - VirtRegBase;
      }
    }
    for (const Operand &O : I.Ops)
      if (O.isReg() && O.IsDef)
        Defined.push_back(O.R);
  }
  int64_t LastStoreOffset = -1;
  for (const Inst &I : B.Insts)
    if (isOp(I, simt::Opcode::GLOBAL_ST_U32)) {
      EXPECT_GT(I.Ops[1].Imm, LastStoreOffset) << "stores were reordered";
      LastStoreOffset = I.Ops[1].Imm;
    }
  EXPECT_EQ(B.Insts.back().Opcode, RET) << "the terminator must stay last";
}

TEST(ListSchedulerTest, LoadsDoNotPassStores) {
  // Without alias information a load may read what an earlier store wrote,
  // so chains separated by stores keep their order.
  Chains C(4);
  sched::ScheduleOptions Opts;
  Opts.NumRegisters = 64;
  sched::ScheduleStats Stats = sched::scheduleFunction(C.Fn, Opts);
  EXPECT_EQ(Stats.InstructionsMoved, 0u);
  ASSERT_EQ(verify(C.Fn, TargetKind::Simt, false), "");
  expectDependencesKept(*C.B);
}

TEST(ListSchedulerTest, BatchesLoadsWhenNoStoreSeparatesThem) {
  // sum = a[0] + a[1] + a[2] + a[3], written as a dependent chain of adds
  // interleaved with the loads: the scheduler issues all four loads first.
  Function Fn;
  Fn.Name = "sum4";
  Block *B = Fn.addBlock("entry");
  Reg Base = Fn.newVReg(true);
  B->Insts.push_back(Inst(op(simt::Opcode::PARAM_LD_U32), {Operand::def(Base), Operand::use(0), Operand::imm(0)}));
  Reg Acc = Fn.newVReg();
  B->Insts.push_back(Inst(op(simt::Opcode::GLOBAL_LD_U32), {Operand::def(Acc), Operand::use(Base), Operand::imm(0)}));
  for (unsigned K = 1; K < 4; ++K) {
    Reg V = Fn.newVReg(), S = Fn.newVReg();
    B->Insts.push_back(Inst(op(simt::Opcode::GLOBAL_LD_U32), {Operand::def(V), Operand::use(Base), Operand::imm(4 * K)}));
    B->Insts.push_back(Inst(op(simt::Opcode::FADD), {Operand::def(S), Operand::use(Acc), Operand::use(V)}));
    Acc = S;
  }
  B->Insts.push_back(Inst(op(simt::Opcode::GLOBAL_ST_U32), {Operand::use(Base), Operand::imm(64), Operand::use(Acc)}));
  B->Insts.push_back(Inst(RET, {}));

  sched::ScheduleOptions Opts;
  sched::scheduleFunction(Fn, Opts);
  ASSERT_EQ(verify(Fn, TargetKind::Simt, false), "");
  expectDependencesKept(*B);
  for (unsigned K = 1; K <= 4; ++K) {
    EXPECT_TRUE(isOp(B->Insts[K], simt::Opcode::GLOBAL_LD_U32))
        << "instruction " << K << " should be one of the four loads";
  }
}

TEST(ListSchedulerTest, GlobalLoadsPassSharedStores) {
  // Spaces never alias: a global load may rise above a shared store.
  Function Fn;
  Fn.Name = "spaces";
  Block *B = Fn.addBlock("entry");
  Reg V = Fn.newVReg(), W = Fn.newVReg();
  B->Insts.push_back(Inst(LI, {Operand::def(V), Operand::imm(5)}));
  B->Insts.push_back(Inst(op(simt::Opcode::SHARED_ST_U32), {Operand::use(0), Operand::imm(0), Operand::use(V)}));
  B->Insts.push_back(Inst(op(simt::Opcode::GLOBAL_LD_U32), {Operand::def(W), Operand::use(0), Operand::imm(4)}));
  B->Insts.push_back(Inst(op(simt::Opcode::GLOBAL_ST_U32), {Operand::use(0), Operand::imm(0), Operand::use(W)}));
  B->Insts.push_back(Inst(RET, {}));
  sched::scheduleFunction(Fn, {});
  EXPECT_TRUE(isOp(B->Insts[0], simt::Opcode::GLOBAL_LD_U32));
  expectDependencesKept(*B);
}

TEST(ListSchedulerTest, NothingCrossesABarrier) {
  Function Fn;
  Fn.Name = "bar";
  Block *B = Fn.addBlock("entry");
  Reg V = Fn.newVReg(), W = Fn.newVReg();
  B->Insts.push_back(Inst(LI, {Operand::def(V), Operand::imm(5)}));
  B->Insts.push_back(Inst(op(simt::Opcode::SHARED_ST_U32), {Operand::use(0), Operand::imm(0), Operand::use(V)}));
  B->Insts.push_back(Inst(op(simt::Opcode::BAR), {}));
  B->Insts.push_back(Inst(op(simt::Opcode::SHARED_LD_U32), {Operand::def(W), Operand::use(0), Operand::imm(4)}));
  B->Insts.push_back(Inst(op(simt::Opcode::GLOBAL_ST_U32), {Operand::use(0), Operand::imm(0), Operand::use(W)}));
  B->Insts.push_back(Inst(RET, {}));
  sched::scheduleFunction(Fn, {});
  EXPECT_TRUE(isOp(B->Insts[1], simt::Opcode::SHARED_ST_U32));
  EXPECT_TRUE(isOp(B->Insts[2], simt::Opcode::BAR));
  EXPECT_TRUE(isOp(B->Insts[3], simt::Opcode::SHARED_LD_U32));
}

TEST(ListSchedulerTest, RegisterBudgetLimitsHoisting) {
  // 24 independent loads each feeding one add into an accumulator chain:
  // with 64 registers every load is hoisted; with 16 the scheduler keeps
  // the number of loaded-but-unused values near the budget (16 less the 4
  // it reserves, less the base and the accumulator: 10).
  auto Build = [](Function &Fn) {
    Fn.Name = "many";
    Block *B = Fn.addBlock("entry");
    Reg Base = Fn.newVReg(true);
    B->Insts.push_back(Inst(op(simt::Opcode::PARAM_LD_U32), {Operand::def(Base), Operand::use(0), Operand::imm(0)}));
    Reg Acc = Fn.newVReg();
    B->Insts.push_back(Inst(LI, {Operand::def(Acc), Operand::imm(0)}));
    for (unsigned K = 0; K < 24; ++K) {
      Reg V = Fn.newVReg(), S = Fn.newVReg();
      B->Insts.push_back(Inst(op(simt::Opcode::GLOBAL_LD_U32), {Operand::def(V), Operand::use(Base), Operand::imm(4 * K)}));
      B->Insts.push_back(Inst(op(simt::Opcode::ADD), {Operand::def(S), Operand::use(Acc), Operand::use(V)}));
      Acc = S;
    }
    B->Insts.push_back(Inst(op(simt::Opcode::GLOBAL_ST_U32), {Operand::use(Base), Operand::imm(0), Operand::use(Acc)}));
    B->Insts.push_back(Inst(RET, {}));
    return B;
  };
  auto MaxLoadsInFlight = [](const Block &B) {
    unsigned Live = 0, Max = 0;
    for (const Inst &I : B.Insts) {
      if (isOp(I, simt::Opcode::GLOBAL_LD_U32))
        Max = std::max(Max, ++Live);
      else if (isOp(I, simt::Opcode::ADD))
        --Live;
    }
    return Max;
  };
  Function Wide, Narrow;
  Block *WB = Build(Wide), *NB = Build(Narrow);
  scheduleFor(Wide, 64);
  scheduleFor(Narrow, 16);
  expectDependencesKept(*WB);
  expectDependencesKept(*NB);
  EXPECT_EQ(MaxLoadsInFlight(*WB), 24u);
  EXPECT_LE(MaxLoadsInFlight(*NB), 10u);
  EXPECT_GE(MaxLoadsInFlight(*NB), 4u) << "some loads should still be batched";
}

TEST(ListSchedulerTest, ValuesLiveIntoABlockCountAgainstTheBudget) {
  // The entry block defines 20 values; the next block loads 8 words into an
  // accumulator chain and then adds the 20 in. With 16 registers the 20
  // already fill the budget, so the loads are not hoisted: each waits for
  // the add that frees its register (counting only the block's own values
  // hoisted 8 and made the allocator spill; many_live, 2026-12-03). With 64
  // there is room for all 8.
  std::vector<Reg> Values;
  auto Build = [&Values](Function &Fn) {
    Values.clear();
    Fn.Name = "livein";
    Block *Entry = Fn.addBlock("entry");
    Block *Body = Fn.addBlock("body");
    for (unsigned K = 0; K < 20; ++K) {
      Values.push_back(Fn.newVReg());
      Entry->Insts.push_back(Inst(LI, {Operand::def(Values.back()), Operand::imm(K + 1)}));
    }
    Entry->Insts.push_back(Inst(BR, {Operand::block(Body)}));
    Reg Base = Fn.newVReg(true);
    Body->Insts.push_back(Inst(op(simt::Opcode::PARAM_LD_U32),
                               {Operand::def(Base), Operand::use(0), Operand::imm(0)}));
    Reg Acc = Fn.newVReg();
    Body->Insts.push_back(Inst(LI, {Operand::def(Acc), Operand::imm(0)}));
    auto Add = [&](Reg V) {
      Reg S = Fn.newVReg();
      Body->Insts.push_back(
          Inst(op(simt::Opcode::ADD), {Operand::def(S), Operand::use(Acc), Operand::use(V)}));
      Acc = S;
    };
    for (unsigned K = 0; K < 8; ++K) {
      Reg V = Fn.newVReg();
      Body->Insts.push_back(Inst(op(simt::Opcode::GLOBAL_LD_U32),
                                 {Operand::def(V), Operand::use(Base), Operand::imm(4 * K)}));
      Add(V);
    }
    for (Reg V : Values)
      Add(V);
    Body->Insts.push_back(Inst(op(simt::Opcode::GLOBAL_ST_U32),
                               {Operand::use(Base), Operand::imm(0), Operand::use(Acc)}));
    Body->Insts.push_back(Inst(RET, {}));
    return Body;
  };
  auto MaxLoadsInFlight = [](const Block &B) {
    unsigned InFlight = 0, Max = 0;
    for (const Inst &I : B.Insts) {
      if (isOp(I, simt::Opcode::GLOBAL_LD_U32))
        Max = std::max(Max, ++InFlight);
      else if (isOp(I, simt::Opcode::ADD) && InFlight > 0)
        --InFlight;
    }
    return Max;
  };
  Function Wide, Narrow;
  Block *WB = Build(Wide);
  std::vector<Reg> WideValues = Values;
  Block *NB = Build(Narrow);
  scheduleFor(Wide, 64);
  scheduleFor(Narrow, 16);
  expectDependencesKept(*WB, WideValues);
  expectDependencesKept(*NB, Values);
  EXPECT_EQ(MaxLoadsInFlight(*WB), 8u);
  EXPECT_EQ(MaxLoadsInFlight(*NB), 1u);
}

TEST(ListSchedulerTest, ALoopCarriedValueIsDefinedAfterItsPredecessorsLastRead) {
  // for (s = n; ; s >>= 1) if (s < 2) break: selection writes s' = s >> 1
  // before the compare reads s, so s and s' overlap and the back edge needs
  // a copy. The scheduler orders the compare first: s' can take s's
  // register (softmax's reduction loops).
  Function Fn;
  Fn.Name = "halve";
  Block *Entry = Fn.addBlock("entry");
  Block *Loop = Fn.addBlock("loop");
  Block *Exit = Fn.addBlock("exit");
  Reg Init = Fn.newVReg(), S = Fn.newVReg(), Next = Fn.newVReg(), Done = Fn.newVReg();
  Entry->Insts.push_back(Inst(LI, {Operand::def(Init), Operand::imm(256)}));
  Entry->Insts.push_back(Inst(BR, {Operand::block(Loop)}));
  Loop->Insts.push_back(Inst(PHI, {Operand::def(S), Operand::use(Init), Operand::block(Entry),
                                   Operand::use(Next), Operand::block(Loop)}));
  Loop->Insts.push_back(
      Inst(op(simt::Opcode::SHRI), {Operand::def(Next), Operand::use(S), Operand::imm(1)}));
  Loop->Insts.push_back(
      Inst(op(simt::Opcode::SETLTUI), {Operand::def(Done), Operand::use(S), Operand::imm(2)}));
  Loop->Insts.push_back(
      Inst(BRCOND, {Operand::use(Done), Operand::block(Exit), Operand::block(Loop)}));
  Exit->Insts.push_back(Inst(RET, {}));
  ASSERT_EQ(verify(Fn, TargetKind::Simt, false), "");
  sched::scheduleFunction(Fn, {});
  ASSERT_EQ(verify(Fn, TargetKind::Simt, false), "");
  EXPECT_TRUE(isOp(Loop->Insts[1], simt::Opcode::SETLTUI));
  EXPECT_TRUE(isOp(Loop->Insts[2], simt::Opcode::SHRI));
}

/// The most values live at once in \p B (each from its def to its last
/// read in \p B; values read after \p B do not occur in these tests).
unsigned maxLive(const Block &B) {
  llvm::DenseMap<Reg, size_t> LastRead;
  for (size_t K = 0; K < B.Insts.size(); ++K)
    for (const Operand &O : B.Insts[K].Ops)
      if (O.isReg() && !O.IsDef && isVirtual(O.R))
        LastRead[O.R] = K;
  unsigned Live = 0, Max = 0;
  for (size_t K = 0; K < B.Insts.size(); ++K) {
    for (const Operand &O : B.Insts[K].Ops)
      if (O.isReg() && !O.IsDef && isVirtual(O.R) && LastRead[O.R] == K)
        --Live;
    for (const Operand &O : B.Insts[K].Ops)
      if (O.isReg() && O.IsDef && LastRead.count(O.R))
        Max = std::max(Max, ++Live);
  }
  return Max;
}

TEST(ListSchedulerTest, ConstantsAreRankedLikeEveryOtherInstruction) {
  // Constants wait for nothing, so the scheduler keeps them apart from the
  // rest of the ready set (ranked once, not asked every cycle); they must
  // still be picked as any instruction would be. 24 constants each feed a
  // divide (34 cycles) whose result goes into an accumulator chain. With
  // 64 registers the constants and divides rise by height; with 12 the
  // guard keeps the values live near the budget (12 less the 4 reserved).
  auto Build = [](Function &Fn) {
    Fn.Name = "constants";
    Block *B = Fn.addBlock("entry");
    Reg Base = Fn.newVReg(true);
    B->Insts.push_back(Inst(op(simt::Opcode::PARAM_LD_U32),
                            {Operand::def(Base), Operand::use(0), Operand::imm(0)}));
    Reg Acc = Fn.newVReg();
    B->Insts.push_back(Inst(LI, {Operand::def(Acc), Operand::imm(0)}));
    for (unsigned K = 0; K < 24; ++K) {
      Reg C = Fn.newVReg(), Q = Fn.newVReg(), S = Fn.newVReg();
      B->Insts.push_back(Inst(LI, {Operand::def(C), Operand::imm(1000 + K)}));
      B->Insts.push_back(
          Inst(op(simt::Opcode::DIV), {Operand::def(Q), Operand::use(C), Operand::use(Base)}));
      B->Insts.push_back(
          Inst(op(simt::Opcode::ADD), {Operand::def(S), Operand::use(Acc), Operand::use(Q)}));
      Acc = S;
    }
    B->Insts.push_back(Inst(op(simt::Opcode::GLOBAL_ST_U32),
                            {Operand::use(Base), Operand::imm(0), Operand::use(Acc)}));
    B->Insts.push_back(Inst(RET, {}));
    return B;
  };
  Function Wide, Narrow;
  Block *WB = Build(Wide), *NB = Build(Narrow);
  scheduleFor(Wide, 64);
  scheduleFor(Narrow, 12);
  expectDependencesKept(*WB);
  expectDependencesKept(*NB);
  // Without pressure, by height: divide K (34 cycles, then adds K..23 at 2
  // each, then the store) goes before the first add (24 adds and the
  // store, 49) when 34 + 2 * (24 - K) + 1 > 49, for K < 17.
  auto FirstAdd =
      llvm::find_if(WB->Insts, [](const Inst &I) { return isOp(I, simt::Opcode::ADD); });
  EXPECT_EQ(std::count_if(WB->Insts.begin(), FirstAdd,
                          [](const Inst &I) { return isOp(I, simt::Opcode::DIV); }),
            17);
  EXPECT_GE(maxLive(*WB), 17u);
  EXPECT_LE(maxLive(*NB), 9u);
  EXPECT_GE(maxLive(*NB), 4u) << "some divides should still overlap";
}

TEST(ListSchedulerTest, ABlockPastTheRegisterFileKeepsSelectionOrderWhenThatPeaksLower) {
  // math_functions' one long block: under pressure the scheduler's order
  // needs more registers at its peak than selection order, and the
  // allocator spilled more after it (164 bytes a thread at 8 registers
  // against 100, 52 against 40 at 16; 2026-12-03). When the scheduled
  // peak does not fit the register file, the block now keeps selection
  // order if that peaks lower.
  for (unsigned Registers : {8u, 16u}) {
    compiler::CompileOptions Opts;
    Opts.NumRegisters = Registers;
    auto Spill = [&](bool Schedule) -> unsigned {
      Opts.Schedule = Schedule;
      auto R = compiler::compileFile(std::string(TANDEM_SOURCE_DIR) + "/microbench/kernels/math.cu",
                                     Opts);
      if (!R) {
        ADD_FAILURE() << toString(R.takeError());
        return 0;
      }
      return R->Kernels.at(0).SpillBytes;
    };
    unsigned Scheduled = Spill(true), Unscheduled = Spill(false);
    EXPECT_GT(Unscheduled, 0u) << "math.cu should spill at " << Registers << " registers";
    EXPECT_LE(Scheduled, Unscheduled) << Registers << " registers";
  }
}

} // namespace
