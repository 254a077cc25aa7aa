//===- RegAllocTest.cpp - register allocation, spilling and its checker ---===//
//
// Functions are built by hand in the shape cfg lowering produces. The
// strongest evidence is the single-lane interpreter below: each function
// runs before allocation (vregs) and after (physical registers, spill code)
// and must store the same values to global memory.
//
//===----------------------------------------------------------------------===//

#include "regalloc/RegAlloc.h"
#include "LoweredMirBuilder.h"
#include "regalloc/Liveness.h"

#include "ISA.h"

#include "llvm/Support/FormatVariadic.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <random>

using namespace tandem;
using namespace tandem::mir;
using llvm::Error;
using llvm::Expected;

namespace {

using mirtest::Builder;
using mirtest::countIf;
using mirtest::countOpcode;
using mirtest::op;
using mirtest::printed;

std::unique_ptr<Function> cloneFunction(const Function &Fn) {
  auto C = std::make_unique<Function>();
  C->Name = Fn.Name;
  C->Params = Fn.Params;
  C->SharedBytes = Fn.SharedBytes;
  C->LocalBytes = Fn.LocalBytes;
  C->Stats = Fn.Stats;
  for (unsigned V = 0; V < Fn.numVRegs(); ++V)
    C->newVReg(Fn.info(VirtRegBase + V).Uniform, Fn.info(VirtRegBase + V).Name);
  std::map<const Block *, Block *> Map;
  for (const auto &B : Fn.Blocks) {
    Block *NB = C->addBlock(B->Name);
    NB->LoopDepth = B->LoopDepth;
    NB->Insts = B->Insts;
    Map[B.get()] = NB;
  }
  for (auto &B : C->Blocks)
    for (Inst &I : B->Insts)
      for (Operand &O : I.Ops)
        if (O.isBlock())
          O.Target = Map[O.Target];
  return C;
}

// --- a single-lane interpreter -------------------------------------------

struct Machine {
  std::vector<uint32_t> Params;
  std::vector<uint32_t> Const; ///< the image's constant data, by word
  uint32_t Tid = 3;
  std::map<uint32_t, uint32_t> Global; ///< inputs and outputs
};

/// Runs \p Fn for one thread; returns global memory afterwards. Registers
/// and local memory start with garbage, so a value read before it is
/// written (a missing reload, a clobbered register) shows.
Expected<std::map<uint32_t, uint32_t>> interpret(const Function &Fn, Machine M) {
  std::map<Reg, uint32_t> Regs;
  std::map<uint32_t, uint32_t> Local;
  auto Get = [&](const Operand &O) -> uint32_t {
    if (O.R == 0)
      return 0;
    auto It = Regs.find(O.R);
    return It == Regs.end() ? 0xA5A50000u ^ O.R : It->second;
  };
  auto LoadLocal = [&](uint32_t A) {
    auto It = Local.find(A);
    return It == Local.end() ? 0x5A5A0000u ^ A : It->second;
  };
  std::map<const Block *, size_t> Index;
  for (size_t K = 0; K < Fn.Blocks.size(); ++K)
    Index[Fn.Blocks[K].get()] = K;
  size_t BI = 0, II = 0;
  for (unsigned Steps = 0; Steps < 100000; ++Steps) {
    if (BI >= Fn.Blocks.size())
      return M.Global;
    const Block &B = *Fn.Blocks[BI];
    if (II >= B.Insts.size()) {
      ++BI;
      II = 0;
      continue;
    }
    const Inst &I = B.Insts[II++];
    auto Set = [&](uint32_t V) {
      if (I.Ops[0].R != 0)
        Regs[I.Ops[0].R] = V;
    };
    auto Jump = [&](const Block *T) {
      BI = Index[T];
      II = 0;
    };
    using simt::Opcode;
    if (I.Opcode == LI) {
      Set(static_cast<uint32_t>(I.Ops[1].Imm));
      continue;
    }
    if (I.Opcode == COPY) {
      Set(Get(I.Ops[1]));
      continue;
    }
    if (I.Opcode == IMPLICIT_DEF) {
      Set(0x12345678);
      continue;
    }
    uint32_t A = I.Ops.size() > 1 && I.Ops[1].isReg() ? Get(I.Ops[1]) : 0;
    uint32_t C = I.Ops.size() > 2 && I.Ops[2].isReg() ? Get(I.Ops[2]) : 0;
    int64_t Imm = I.Ops.size() > 2 && I.Ops[2].isImm() ? I.Ops[2].Imm : 0;
    switch (static_cast<Opcode>(I.Opcode)) {
    case Opcode::ADD: Set(A + C); break;
    case Opcode::SUB: Set(A - C); break;
    case Opcode::MUL: Set(A * C); break;
    case Opcode::XOR: Set(A ^ C); break;
    case Opcode::SETLT: Set(static_cast<int32_t>(A) < static_cast<int32_t>(C)); break;
    case Opcode::SEL: Set(A != 0 ? C : Get(I.Ops[3])); break;
    case Opcode::ADDI: Set(A + static_cast<uint32_t>(Imm)); break;
    case Opcode::MULI: Set(A * static_cast<uint32_t>(Imm)); break;
    case Opcode::S2R: Set(I.Ops[1].Imm == 0 ? M.Tid : 100 + static_cast<uint32_t>(I.Ops[1].Imm)); break;
    case Opcode::PARAM_LD_U32: Set(M.Params.at((A + Imm) / 4)); break;
    case Opcode::CONST_LD_U32: Set(M.Const.at((A + Imm) / 4)); break;
    case Opcode::GLOBAL_LD_U32: Set(M.Global[A + Imm]); break;
    case Opcode::LOCAL_LD_U32:
    case Opcode::LOCAL_LD_ALL_U32: Set(LoadLocal(A + Imm)); break;
    case Opcode::GLOBAL_ST_U32: M.Global[Get(I.Ops[0]) + I.Ops[1].Imm] = Get(I.Ops[2]); break;
    case Opcode::LOCAL_ST_U32:
    case Opcode::LOCAL_ST_ALL_U32: Local[Get(I.Ops[0]) + I.Ops[1].Imm] = Get(I.Ops[2]); break;
    case Opcode::EMASK_GET: Set(1); break; // one lane: every mask is "lane 0"
    case Opcode::EMASK_SET:
    case Opcode::EMASK_AND:
    case Opcode::EMASK_ANDN: break;
    case Opcode::BNZ: if (Get(I.Ops[0]) != 0) Jump(I.Ops[1].Target); break;
    case Opcode::BZ: if (Get(I.Ops[0]) == 0) Jump(I.Ops[1].Target); break;
    case Opcode::BRA: Jump(I.Ops[0].Target); break;
    case Opcode::EXIT: return M.Global;
    default:
      return llvm::createStringError("interpreter: unsupported " + opcodeName(I.Opcode, TargetKind::Simt));
    }
  }
  return llvm::createStringError("interpreter: step limit");
}

// --- helpers for assertions ----------------------------------------------

std::string errorText(Error E) { return llvm::toString(std::move(E)); }

void expectAllPhysical(const Function &Fn, unsigned NumRegisters) {
  for (const auto &B : Fn.Blocks)
    for (const Inst &I : B->Insts)
      for (const Operand &O : I.Ops)
        if (O.isReg()) {
          ASSERT_TRUE(isPhysical(O.R)) << printed(Fn);
          ASSERT_LT(O.R, NumRegisters) << printed(Fn);
          if (O.R != 0) {
            EXPECT_TRUE(isVirtual(O.Orig)) << printed(Fn);
          }
        }
}

/// Allocates \p Fn with the checker on and proves the allocation preserves
/// what the function stores.
void allocateAndCompare(Function &Fn, unsigned NumRegisters, const Machine &M) {
  Expected<std::map<uint32_t, uint32_t>> Before = interpret(Fn, M);
  ASSERT_TRUE(!!Before) << errorText(Before.takeError());
  regalloc::RegAllocOptions Opts;
  Opts.NumRegisters = NumRegisters;
  Opts.Check = true;
  Error E = regalloc::allocateRegisters(Fn, Opts);
  ASSERT_FALSE(E) << errorText(std::move(E)) << "\n" << printed(Fn);
  ASSERT_EQ(verify(Fn, TargetKind::Simt, true), "");
  if (std::getenv("REGALLOC_TEST_PRINT")) // to look at the allocations
    llvm::errs() << printed(Fn);
  expectAllPhysical(Fn, NumRegisters);
  Expected<std::map<uint32_t, uint32_t>> After = interpret(Fn, M);
  ASSERT_TRUE(!!After) << errorText(After.takeError());
  EXPECT_EQ(*Before, *After) << printed(Fn);
}

/// A register of the physical operand that stands for \p V.
Reg registerOf(const Function &Fn, Reg V) {
  for (const auto &B : Fn.Blocks)
    for (const Inst &I : B->Insts)
      for (const Operand &O : I.Ops)
        if (O.isReg() && O.Orig == V)
          return O.R;
  return NoReg;
}

// --- functions used by several tests ---------------------------------------

/// 20 values loaded from global memory, all live at once, then summed with
/// weights: the spill test.
struct PressureKernel {
  Function Fn;
  Machine M;
  PressureKernel(unsigned Values, uint32_t LocalBytes = 0) {
    Fn.Name = "pressure";
    Fn.LocalBytes = LocalBytes;
    Builder Bd{Fn, Fn.addBlock("entry")};
    std::vector<Reg> V;
    for (unsigned K = 0; K < Values; ++K) {
      V.push_back(Bd.ldGlobal(4 * K));
      M.Global[4 * K] = 7 * K + 1;
    }
    Reg Acc = Bd.ri(simt::Opcode::MULI, V.back(), 3);
    for (unsigned K = Values - 1; K-- > 0;)
      Acc = Bd.rr(simt::Opcode::ADD, Acc, Bd.ri(simt::Opcode::MULI, V[K], K + 1));
    Bd.stGlobal(1024, Acc);
    Bd.exit();
  }
};

/// for (i = 0; i < 10; ++i) s += i * tid; with the phi copies cfg lowering
/// makes at the latch.
std::unique_ptr<Function> makeLoop() {
  auto Fn = std::make_unique<Function>();
  Fn->Name = "loop";
  Block *Entry = Fn->addBlock("entry");
  Block *Loop = Fn->addBlock("loop");
  Block *Exit = Fn->addBlock("exit");
  Loop->LoopDepth = 1;
  Builder E{*Fn, Entry};
  Reg I = E.li(0), S = E.li(0), N = E.li(10), T = E.s2r(0);
  Builder L{*Fn, Loop};
  Reg P = L.rr(simt::Opcode::MUL, I, T);
  Reg S2 = L.rr(simt::Opcode::ADD, S, P);
  Reg I2 = L.ri(simt::Opcode::ADDI, I, 1);
  Reg C = L.rr(simt::Opcode::SETLT, I2, N);
  L.copy(S, S2);
  L.copy(I, I2);
  L.emit(Inst(op(simt::Opcode::BNZ), {Operand::use(C), Operand::block(Loop)}));
  Builder X{*Fn, Exit};
  X.stGlobal(0, S);
  X.exit();
  return Fn;
}

// --- tests ----------------------------------------------------------------

TEST(RegAllocTest, StraightLineCodeFitsWithoutSpilling) {
  Function Fn;
  Fn.Name = "straight";
  Builder Bd{Fn, Fn.addBlock("entry")};
  Reg A = Bd.li(5), B = Bd.li(7);
  Reg C = Bd.rr(simt::Opcode::ADD, A, B);
  Reg D = Bd.rr(simt::Opcode::MUL, C, A);
  Bd.stGlobal(0, D);
  Bd.exit();
  allocateAndCompare(Fn, 32, Machine());
  EXPECT_EQ(countIf(Fn, [](const Inst &I) { return I.IsSpillCode; }), 0u);
  EXPECT_EQ(Fn.Stats.SpillSlots, 0u);
  EXPECT_EQ(Fn.LocalBytes, 0u);
  // A and B are live together, C and A too: three registers at most.
  EXPECT_LE(Fn.Stats.RegistersUsed, 4u);
  EXPECT_GE(Fn.Stats.RegistersUsed, 3u);
  EXPECT_NE(registerOf(Fn, A), registerOf(Fn, B));
}

TEST(RegAllocTest, LoopCarriedValuesSurviveTheBackEdge) {
  auto Fn = makeLoop();
  Machine M;
  M.Tid = 3;
  allocateAndCompare(*Fn, 32, M);
  Expected<std::map<uint32_t, uint32_t>> Out = interpret(*Fn, M);
  ASSERT_TRUE(!!Out);
  EXPECT_EQ((*Out)[0], 45u * 3u);
  // Both phi copies coalesced: i/i2 and s/s2 never overlap.
  EXPECT_EQ(countOpcode(*Fn, COPY), 0u) << printed(*Fn);
}

TEST(RegAllocTest, TooManyLiveValuesAreSpilledToLocalSlots) {
  PressureKernel K(20, /*LocalBytes=*/6);
  allocateAndCompare(K.Fn, 8, K.M);
  const Function &Fn = K.Fn;
  unsigned Stores = countOpcode(Fn, op(simt::Opcode::LOCAL_ST_U32), true);
  unsigned Reloads = countOpcode(Fn, op(simt::Opcode::LOCAL_LD_U32), true);
  EXPECT_GT(Fn.Stats.SpillSlots, 0u);
  EXPECT_EQ(Fn.Stats.SpillBytes, 4 * Fn.Stats.SpillSlots);
  EXPECT_EQ(Fn.Stats.SpillStores, Stores);
  EXPECT_EQ(Fn.Stats.SpillReloads, Reloads);
  EXPECT_GT(Stores, 0u);
  EXPECT_GE(Reloads, Stores); // every spilled value is used at least once
  EXPECT_LE(Fn.Stats.RegistersUsed, 8u);
  // Slots start after the program's own local bytes, aligned to 4.
  EXPECT_EQ(Fn.LocalBytes, 8u + Fn.Stats.SpillBytes);
  for (const auto &B : Fn.Blocks)
    for (const Inst &I : B->Insts)
      if (I.IsSpillCode) {
        bool IsLoad = I.Opcode == op(simt::Opcode::LOCAL_LD_U32);
        int64_t Off = IsLoad ? I.Ops[2].Imm : I.Ops[1].Imm;
        EXPECT_EQ(IsLoad ? I.Ops[1].R : I.Ops[0].R, 0u);
        EXPECT_GE(Off, 8);
        EXPECT_LT(Off, 8 + static_cast<int64_t>(Fn.Stats.SpillBytes));
        EXPECT_EQ(Off % 4, 0);
      }
}

TEST(RegAllocTest, ConstantsParamsAndThreadIdsAreRematerializedNotSpilled) {
  // Also a word of the image's const data at [r0 + imm] (a __constant__
  // value, or the data section's base address that __device__ accesses
  // add to): read-only while a kernel runs, so recomputable anywhere.
  Function Fn;
  Fn.Name = "remat";
  Builder Bd{Fn, Fn.addBlock("entry")};
  std::vector<Reg> V;
  V.push_back(Bd.constWord(8)); // read last: the longest-lived
  for (int K = 0; K < 6; ++K)
    V.push_back(Bd.li(1000 + K));
  V.push_back(Bd.param(4));
  V.push_back(Bd.s2r(0));
  Reg Acc = Bd.ri(simt::Opcode::ADDI, V.back(), 1);
  for (size_t K = V.size() - 1; K-- > 0;)
    Acc = Bd.rr(simt::Opcode::XOR, Bd.ri(simt::Opcode::MULI, Acc, 3), V[K]);
  Bd.stGlobal(0, Acc);
  Bd.exit();
  Machine M;
  M.Params = {11, 22};
  M.Const = {5, 6, 0x1234567};
  allocateAndCompare(Fn, 4, M);
  EXPECT_GT(Fn.Stats.Remats, 0u);
  EXPECT_EQ(Fn.Stats.SpillSlots, 0u) << printed(Fn);
  EXPECT_EQ(countOpcode(Fn, op(simt::Opcode::LOCAL_ST_U32)), 0u);
  EXPECT_GT(countOpcode(Fn, op(simt::Opcode::CONST_LD_U32), true), 0u) << printed(Fn);
  EXPECT_EQ(countOpcode(Fn, LI, true) + countOpcode(Fn, op(simt::Opcode::PARAM_LD_U32), true) +
                countOpcode(Fn, op(simt::Opcode::CONST_LD_U32), true) +
                countOpcode(Fn, op(simt::Opcode::S2R), true),
            Fn.Stats.Remats);
}

TEST(RegAllocTest, ClockIsSpilledNotRematerialized) {
  Function Fn;
  Fn.Name = "clock";
  Builder Bd{Fn, Fn.addBlock("entry")};
  Reg Clock = Bd.s2r(static_cast<int64_t>(*simt::lookupSpecialReg("clock")));
  std::vector<Reg> V;
  for (int K = 0; K < 4; ++K)
    V.push_back(Bd.ldGlobal(4 * K));
  Reg Acc = Clock;
  for (Reg X : V)
    Acc = Bd.rr(simt::Opcode::ADD, Acc, X);
  Bd.stGlobal(64, Acc);
  Bd.exit();
  regalloc::RegAllocOptions Opts;
  Opts.NumRegisters = 4;
  Error E = regalloc::allocateRegisters(Fn, Opts);
  ASSERT_FALSE(E) << errorText(std::move(E));
  EXPECT_EQ(countOpcode(Fn, op(simt::Opcode::S2R)), 1u) << printed(Fn);
  EXPECT_EQ(countOpcode(Fn, op(simt::Opcode::S2R), true), 0u) << printed(Fn);
}

TEST(RegAllocTest, PartialDefKeepsTheOldValueLiveThroughTheCopy) {
  // v = 1 for every lane; then-side lanes overwrite it with w under a
  // narrowed mask (a partial copy); v is read after the join. Without the
  // PartialDef mark v would be dead between its LI and the copy.
  Function Fn;
  Fn.Name = "partial";
  Block *Entry = Fn.addBlock("entry");
  Block *Then = Fn.addBlock("then");
  Block *Join = Fn.addBlock("join");
  Builder E{Fn, Entry};
  Reg V = E.li(1);
  Reg Mask = Fn.newVReg();
  E.emit(Inst(op(simt::Opcode::EMASK_GET), {Operand::def(Mask)}));
  Reg Tid = E.s2r(0);
  Reg Cond = E.ri(simt::Opcode::SETLTI, Tid, 4);
  E.emit(Inst(op(simt::Opcode::EMASK_AND), {Operand::use(Cond)}));
  E.emit(Inst(op(simt::Opcode::BNONE), {Operand::block(Join)}));
  Builder T{Fn, Then};
  Reg X = T.li(5);
  Reg W = T.rr(simt::Opcode::ADD, X, X);
  T.copy(V, W, /*Partial=*/true);
  Builder J{Fn, Join};
  J.emit(Inst(op(simt::Opcode::EMASK_SET), {Operand::use(Mask)}));
  J.stGlobal(0, V);
  J.exit();

  regalloc::Liveness L = regalloc::computeLiveness(Fn);
  const regalloc::LiveInterval &VI = L.Intervals[V - VirtRegBase];
  EXPECT_TRUE(VI.overlaps(L.Intervals[X - VirtRegBase]));
  EXPECT_TRUE(VI.overlaps(L.Intervals[W - VirtRegBase]));
  // One segment from the LI to the store: no hole at the partial copy.
  EXPECT_EQ(VI.Segs.size(), 1u);

  regalloc::RegAllocOptions Opts;
  Error Err = regalloc::allocateRegisters(Fn, Opts);
  ASSERT_FALSE(Err) << errorText(std::move(Err));
  Reg RV = Entry->Insts[0].Ops[0].R;
  const Inst &Copy = Then->Insts[2];
  ASSERT_EQ(Copy.Opcode, COPY) << printed(Fn);
  EXPECT_EQ(Copy.Ops[0].R, RV) << printed(Fn);
  EXPECT_NE(Then->Insts[0].Ops[0].R, RV) << printed(Fn);
  EXPECT_NE(Then->Insts[1].Ops[0].R, RV) << printed(Fn);
  EXPECT_EQ(Join->Insts[1].Ops[2].R, RV) << printed(Fn);
}

TEST(RegAllocTest, PartialDefWithNoDefBeforeItIsNotLiveBeforeIt) {
  // The shape of a divergent phi's first copy: V's "old value" is read by
  // its PartialDef, but no def of V can have run before it, so there is
  // nothing to keep. V must not hold a register from the entry on: with 7
  // loads live at once in r1..r7, that would force a spill.
  Function Fn;
  Fn.Name = "firstpartial";
  Builder Bd{Fn, Fn.addBlock("entry")};
  Machine M;
  std::mt19937 Rng(11);
  std::vector<Reg> Vals;
  for (unsigned K = 0; K < 7; ++K) {
    Vals.push_back(Bd.ldGlobal(4 * K));
    M.Global[4 * K] = Rng();
  }
  Reg Sum = Vals[0];
  for (unsigned K = 1; K < 7; ++K)
    Sum = Bd.rr(simt::Opcode::XOR, Sum, Vals[K]);
  Reg V = Fn.newVReg();
  size_t CopyIndex = Bd.B->Insts.size();
  Bd.copy(V, Sum, /*Partial=*/true);
  Bd.stGlobal(64, V);
  Bd.exit();

  regalloc::Liveness L = regalloc::computeLiveness(Fn);
  const regalloc::LiveInterval &VI = L.Intervals[V - VirtRegBase];
  ASSERT_FALSE(VI.empty());
  EXPECT_EQ(VI.start(), 2 * CopyIndex + 1) << "V is live before its first def";
  EXPECT_TRUE(L.LiveIn[0].none());

  allocateAndCompare(Fn, 8, M);
  EXPECT_EQ(countIf(Fn, [](const Inst &I) { return I.IsSpillCode; }), 0u) << printed(Fn);
}

/// V is long-lived and rarely used, so with 5 registers it is the one
/// spilled; a partial copy redefines it in the middle. Returns V.
Reg buildPartialSpill(Function &Fn, Machine &M) {
  Fn.Name = "partialspill";
  Builder Bd{Fn, Fn.addBlock("entry")};
  Reg V = Bd.ldGlobal(0);
  std::vector<Reg> Vals;
  for (unsigned K = 1; K < 8; ++K) {
    Vals.push_back(Bd.ldGlobal(4 * K));
    M.Global[4 * K] = 3 * K;
  }
  Reg W = Bd.ri(simt::Opcode::ADDI, Vals[0], 9);
  Bd.copy(V, W, /*Partial=*/true);
  Reg Acc = Vals[0];
  for (Reg X : Vals)
    Acc = Bd.rr(simt::Opcode::ADD, Bd.rr(simt::Opcode::MUL, Acc, X), X);
  Bd.stGlobal(64, Bd.rr(simt::Opcode::ADD, Acc, V));
  Bd.exit();
  return V;
}

TEST(RegAllocTest, SpilledPartialDefStoresAfterAndLeavesTheOldValueInItsSlot) {
  // V's partial redefinition is stored right after, under the same exec
  // mask, so the slot keeps the old value in the lanes it does not write:
  // no reload before it (one temporary fewer), and it is OldValueInSlot.
  Function Fn;
  Machine M;
  Reg V = buildPartialSpill(Fn, M);
  allocateAndCompare(Fn, 5, M);
  const auto &Insts = Fn.Blocks[0]->Insts;
  auto It = std::find_if(Insts.begin(), Insts.end(), [](const Inst &I) { return I.PartialDef; });
  ASSERT_NE(It, Insts.end()) << printed(Fn);
  ASSERT_TRUE(It != Insts.begin() && It + 1 != Insts.end());
  EXPECT_TRUE(It->OldValueInSlot) << printed(Fn);
  const Inst &Before = *(It - 1), &Store = *(It + 1);
  EXPECT_TRUE(Store.IsSpillCode && Store.Opcode == op(simt::Opcode::LOCAL_ST_U32)) << printed(Fn);
  EXPECT_EQ(Store.Ops[2].R, It->Ops[0].R);
  EXPECT_FALSE(Before.IsSpillCode && Before.Opcode == op(simt::Opcode::LOCAL_LD_U32) &&
               Before.Ops[0].R == It->Ops[0].R)
      << "the old value is reloaded\n" << printed(Fn);
  EXPECT_EQ(It->Ops[0].Orig, V);
}

TEST(RegAllocTest, CopiesAreCoalescedUnlessTheValuesOverlap) {
  Function Fn;
  Fn.Name = "copies";
  Builder Bd{Fn, Fn.addBlock("entry")};
  Reg A = Bd.ldGlobal(0);
  Reg B = Fn.newVReg();
  Bd.copy(B, A); // A dies here: coalesced
  Reg C = Fn.newVReg();
  Bd.copy(C, B); // B lives on and C is changed: must stay a real copy
  Bd.emit(Inst(op(simt::Opcode::ADDI), {Operand::def(C), Operand::use(C), Operand::imm(1)}));
  Bd.stGlobal(4, Bd.rr(simt::Opcode::SUB, C, B));
  Bd.exit();
  Machine M;
  M.Global[0] = 41;
  allocateAndCompare(Fn, 32, M);
  EXPECT_EQ(countOpcode(Fn, COPY), 1u) << printed(Fn);
  EXPECT_EQ(Fn.Stats.RegistersUsed, 3u) << printed(Fn);
  Expected<std::map<uint32_t, uint32_t>> Out = interpret(Fn, M);
  ASSERT_TRUE(!!Out);
  EXPECT_EQ((*Out)[4], 1u);
}

/// A pressure kernel with a saved exec mask around all of it: the
/// longest-lived, least-used value, so the first to spill.
Reg addMaskAroundTheKernel(PressureKernel &K) {
  Block *Entry = K.Fn.Blocks[0].get();
  Reg Mask = K.Fn.newVReg();
  Entry->Insts.insert(Entry->Insts.begin(), Inst(op(simt::Opcode::EMASK_GET), {Operand::def(Mask)}));
  Entry->Insts.insert(Entry->Insts.end() - 1, Inst(op(simt::Opcode::EMASK_SET), {Operand::use(Mask)}));
  return Mask;
}

TEST(RegAllocTest, ExecMaskValuesSpillWithAllLanesAccesses) {
  // A saved mask (emask.get writes all lanes, emask.set reads lane 0, active
  // or not) is stored and reloaded with st/ld.local.all.u32, never the
  // lane-masked forms, and never rematerialized.
  PressureKernel K(12);
  Reg Mask = addMaskAroundTheKernel(K);
  allocateAndCompare(K.Fn, 6, K.M);
  unsigned MaskStores = 0, MaskReloads = 0;
  for (const auto &B : K.Fn.Blocks)
    for (const Inst &I : B->Insts)
      for (const Operand &O : I.Ops)
        if (O.isReg() && O.Orig == Mask && I.IsSpillCode) {
          bool AllLanes = I.Opcode == op(simt::Opcode::LOCAL_ST_ALL_U32) ||
                          I.Opcode == op(simt::Opcode::LOCAL_LD_ALL_U32);
          EXPECT_TRUE(AllLanes) << printed(K.Fn);
          (I.Opcode == op(simt::Opcode::LOCAL_ST_ALL_U32) ? MaskStores : MaskReloads) += 1;
        }
  EXPECT_EQ(MaskStores, 1u) << printed(K.Fn);
  EXPECT_EQ(MaskReloads, 1u) << printed(K.Fn);
}

/// The allocation error for `sel` of three loaded values (four registers
/// at once: three sources and r0) with \p NumRegisters registers.
std::string tightSelError(unsigned NumRegisters) {
  Function Fn;
  Fn.Name = "tight";
  Builder Bd{Fn, Fn.addBlock("entry")};
  Reg A = Bd.ldGlobal(0), B = Bd.ldGlobal(4), C = Bd.ldGlobal(8);
  Reg D = Fn.newVReg();
  Bd.emit(Inst(op(simt::Opcode::SEL), {Operand::def(D), Operand::use(A), Operand::use(B), Operand::use(C)}));
  Bd.stGlobal(12, D);
  Bd.exit();
  regalloc::RegAllocOptions Opts;
  Opts.NumRegisters = NumRegisters;
  return errorText(regalloc::allocateRegisters(Fn, Opts));
}

TEST(RegAllocTest, ReportsWhenOneInstructionNeedsMoreRegistersThanExist) {
  std::string Msg = tightSelError(3);
  EXPECT_NE(Msg.find("kernel 'tight'"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("cannot allocate registers"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("sel"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("r1..r2 all hold values that cannot be spilled"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("the configuration's 3 registers"), std::string::npos) << Msg;
  // The smallest configuration: one allocatable register.
  Msg = tightSelError(2);
  EXPECT_NE(Msg.find("r1 holds a value that cannot be spilled"), std::string::npos) << Msg;
}

/// Far spill slots (compfuzz finding 3): beyond `[r0 + simm12]` a slot is
/// addressed as `li a, off` then `[a + 0]`, and the program still computes
/// the same, as the checker proves.
TEST(RegAllocTest, SpillSlotsBeyondTheImmediateRangeAreAddressedThroughARegister) {
  PressureKernel K(20, /*LocalBytes=*/2040);
  allocateAndCompare(K.Fn, 8, K.M);
  const Function &Fn = K.Fn;
  EXPECT_GT(Fn.Stats.SpillSlots, 2u);
  unsigned Near = 0, Far = 0;
  for (const auto &B : Fn.Blocks)
    for (size_t X = 0; X < B->Insts.size(); ++X) {
      const Inst &I = B->Insts[X];
      bool IsLoad = I.Opcode == op(simt::Opcode::LOCAL_LD_U32);
      if (!I.IsSpillCode || (!IsLoad && I.Opcode != op(simt::Opcode::LOCAL_ST_U32)))
        continue;
      Reg Base = IsLoad ? I.Ops[1].R : I.Ops[0].R;
      int64_t Imm = IsLoad ? I.Ops[2].Imm : I.Ops[1].Imm;
      if (Base == 0) {
        ++Near;
        EXPECT_LE(Imm + 3, 2047);
        continue;
      }
      ++Far;
      ASSERT_GT(X, 0u);
      const Inst &Li = B->Insts[X - 1];
      EXPECT_TRUE(Li.IsSpillCode && Li.Opcode == LI && Li.Ops[0].R == Base) << printed(Fn);
      EXPECT_GT(Li.Ops[1].Imm + 3, 2047);
      EXPECT_EQ(Imm, 0);
    }
  EXPECT_GT(Near, 0u); // slot 0 at 2040 is still within reach
  EXPECT_GT(Far, 0u);
  EXPECT_EQ(Fn.Stats.SpillAddresses, Far);
}

TEST(RegAllocCheckerTest, CatchesAFarReloadFromTheWrongSlot) {
  PressureKernel K(20, /*LocalBytes=*/2040);
  regalloc::RegAllocOptions Opts;
  Opts.NumRegisters = 8;
  ASSERT_FALSE(regalloc::allocateRegisters(K.Fn, Opts));
  ASSERT_FALSE(regalloc::checkAllocation(K.Fn));
  // Point the first far reload's address at another slot.
  bool Corrupted = false;
  for (auto &B : K.Fn.Blocks)
    for (size_t X = 1; X < B->Insts.size() && !Corrupted; ++X) {
      Inst &I = B->Insts[X];
      if (I.IsSpillCode && I.Opcode == op(simt::Opcode::LOCAL_LD_U32) && I.Ops[1].R != 0) {
        B->Insts[X - 1].Ops[1].Imm -= 4; // the neighbouring slot holds another value
        Corrupted = true;
      }
    }
  ASSERT_TRUE(Corrupted) << printed(K.Fn);
  std::string Msg = errorText(regalloc::checkAllocation(K.Fn));
  EXPECT_NE(Msg.find("spill reload"), std::string::npos) << Msg;
}

TEST(RegAllocTest, RejectsAConfigurationWithoutAllocatableRegisters) {
  Function Fn;
  Fn.Name = "k";
  Builder Bd{Fn, Fn.addBlock("entry")};
  Bd.stGlobal(0, Bd.li(1));
  Bd.exit();
  regalloc::RegAllocOptions Opts;
  Opts.NumRegisters = 1;
  EXPECT_NE(errorText(regalloc::allocateRegisters(Fn, Opts)).find("registers"), std::string::npos);
}

/// A random program: straight-line entry code, a loop that runs five times
/// and redefines earlier values through (partial) copies, and an exit that
/// stores a few values. Single-lane semantics of a partial copy are those of
/// a copy.
std::unique_ptr<Function> randomProgram(std::mt19937 &Rng, Machine &M) {
  auto Fn = std::make_unique<Function>();
  Fn->Name = "random";
  Block *Entry = Fn->addBlock("entry");
  Block *Loop = Fn->addBlock("loop");
  Block *Exit = Fn->addBlock("exit");
  Loop->LoopDepth = 1;
  for (uint32_t K = 0; K < 16; ++K)
    M.Global[4 * K] = Rng();
  M.Params = {static_cast<uint32_t>(Rng()), static_cast<uint32_t>(Rng())};
  std::vector<Reg> Avail;
  auto Pick = [&] { return Avail[Rng() % Avail.size()]; };
  auto EmitRandom = [&](Builder &Bd, unsigned N) {
    using O = simt::Opcode;
    const O Binary[] = {O::ADD, O::SUB, O::MUL, O::XOR};
    for (unsigned K = 0; K < N; ++K) {
      switch (Avail.size() < 2 ? Rng() % 2 : Rng() % 8) {
      case 0: Avail.push_back(Bd.li(static_cast<int64_t>(Rng() % 5000) - 2500)); break;
      case 1: Avail.push_back(Bd.ldGlobal(4 * (Rng() % 16))); break;
      case 2:
      case 3: Avail.push_back(Bd.rr(Binary[Rng() % 4], Pick(), Pick())); break;
      case 4: Avail.push_back(Bd.ri(Rng() % 2 ? O::ADDI : O::MULI, Pick(), Rng() % 100)); break;
      case 5: Bd.copy(Pick(), Pick(), /*Partial=*/Rng() % 3 == 0); break;
      case 6: Avail.push_back(Rng() % 2 ? Bd.s2r(0) : Bd.param(4 * (Rng() % 2))); break;
      default: {
        Reg D = Fn->newVReg();
        Bd.emit(Inst(op(O::SEL), {Operand::def(D), Operand::use(Pick()), Operand::use(Pick()),
                                  Operand::use(Pick())}));
        Avail.push_back(D);
      }
      }
    }
  };
  Builder E{*Fn, Entry};
  Reg Counter = E.li(0), Limit = E.li(5);
  EmitRandom(E, 6 + Rng() % 14);
  Builder L{*Fn, Loop};
  EmitRandom(L, 4 + Rng() % 14);
  Reg Next = L.ri(simt::Opcode::ADDI, Counter, 1);
  L.copy(Counter, Next);
  Reg Cond = L.rr(simt::Opcode::SETLT, Counter, Limit);
  L.emit(Inst(op(simt::Opcode::BNZ), {Operand::use(Cond), Operand::block(Loop)}));
  Builder X{*Fn, Exit};
  EmitRandom(X, Rng() % 4);
  for (unsigned K = 0; K < 6; ++K)
    X.stGlobal(512 + 4 * K, Pick());
  X.exit();
  return Fn;
}

TEST(RegAllocTest, RandomProgramsComputeTheSameAfterAllocation) {
  std::mt19937 Rng(42);
  unsigned Spilled = 0, Rematted = 0;
  for (int Trial = 0; Trial < 300; ++Trial) {
    Machine M;
    auto Fn = randomProgram(Rng, M);
    ASSERT_EQ(verify(*Fn, TargetKind::Simt, true), "");
    const unsigned Registers[] = {4, 5, 8, 16};
    unsigned NumRegisters = Registers[Trial % 4];
    SCOPED_TRACE(::testing::Message() << "trial " << Trial << ", " << NumRegisters << " registers\n"
                                      << printed(*Fn));
    allocateAndCompare(*Fn, NumRegisters, M);
    if (HasFatalFailure())
      return;
    Spilled += Fn->Stats.SpillSlots > 0;
    Rematted += Fn->Stats.Remats > 0;
  }
  // The sample must exercise what it claims to.
  EXPECT_GT(Spilled, 30u);
  EXPECT_GT(Rematted, 30u);
}

// --- the checker ---------------------------------------------------------

struct Allocated {
  std::unique_ptr<Function> Fn;
  Reg A = NoReg, B = NoReg;
};

/// a = 5; b = 7; c = a + b; d = c * a; store d.
Allocated allocatedStraightLine() {
  Allocated R;
  R.Fn = std::make_unique<Function>();
  R.Fn->Name = "straight";
  Builder Bd{*R.Fn, R.Fn->addBlock("entry")};
  R.A = Bd.li(5);
  R.B = Bd.li(7);
  Reg C = Bd.rr(simt::Opcode::ADD, R.A, R.B);
  Bd.stGlobal(0, Bd.rr(simt::Opcode::MUL, C, R.A));
  Bd.exit();
  regalloc::RegAllocOptions Opts;
  EXPECT_EQ(errorText(regalloc::allocateRegisters(*R.Fn, Opts)), "");
  return R;
}

TEST(RegAllocCheckerTest, AcceptsTheAllocatorsOutput) {
  Allocated R = allocatedStraightLine();
  EXPECT_EQ(errorText(regalloc::checkAllocation(*R.Fn)), "");
  auto Loop = makeLoop();
  ASSERT_EQ(errorText(regalloc::allocateRegisters(*Loop, regalloc::RegAllocOptions())), "");
  EXPECT_EQ(errorText(regalloc::checkAllocation(*Loop)), "");
}

TEST(RegAllocCheckerTest, CatchesSwappedUseRegisters) {
  Allocated R = allocatedStraightLine();
  Inst &Add = R.Fn->Blocks[0]->Insts[2];
  ASSERT_EQ(Add.Opcode, op(simt::Opcode::ADD));
  ASSERT_NE(Add.Ops[1].R, Add.Ops[2].R);
  std::swap(Add.Ops[1].R, Add.Ops[2].R);
  std::string Msg = errorText(regalloc::checkAllocation(*R.Fn));
  EXPECT_NE(Msg.find("kernel 'straight'"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("bb.entry, instruction 2 (add)"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find(llvm::formatv("should hold %v{0}", R.A - VirtRegBase).str()), std::string::npos) << Msg;
}

TEST(RegAllocCheckerTest, CatchesARegisterReusedWhileLive) {
  Allocated R = allocatedStraightLine();
  // b is written into a's register while a is still needed.
  auto &Insts = R.Fn->Blocks[0]->Insts;
  Insts[1].Ops[0].R = Insts[0].Ops[0].R;
  std::string Msg = errorText(regalloc::checkAllocation(*R.Fn));
  EXPECT_NE(Msg.find("instruction 2 (add)"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find(llvm::formatv("but may hold only %v{0}", R.B - VirtRegBase).str()), std::string::npos)
      << Msg;
}

TEST(RegAllocCheckerTest, CatchesAValueClobberedAroundTheLoop) {
  auto Fn = makeLoop();
  ASSERT_EQ(errorText(regalloc::allocateRegisters(*Fn, regalloc::RegAllocOptions())), "");
  // Point the loop's multiply at a register nothing loop-carried lives in.
  Block *Loop = Fn->Blocks[1].get();
  Inst &Mul = Loop->Insts[0];
  ASSERT_EQ(Mul.Opcode, op(simt::Opcode::MUL));
  Mul.Ops[0].R = 20;
  Inst &Add = Loop->Insts[1];
  Add.Ops[2].R = 20;
  EXPECT_EQ(errorText(regalloc::checkAllocation(*Fn)), "") << "renaming a temporary consistently is fine";
  // But writing it over the loop counter's register breaks the next round.
  Reg Counter = Mul.Ops[1].R;
  Mul.Ops[0].R = Counter;
  Add.Ops[2].R = Counter;
  std::string Msg = errorText(regalloc::checkAllocation(*Fn));
  EXPECT_NE(Msg.find("should hold"), std::string::npos) << Msg;
}

TEST(RegAllocCheckerTest, CatchesADroppedReload) {
  PressureKernel K(20);
  regalloc::RegAllocOptions Opts;
  Opts.NumRegisters = 8;
  ASSERT_EQ(errorText(regalloc::allocateRegisters(K.Fn, Opts)), "");
  Expected<std::map<uint32_t, uint32_t>> Good = interpret(K.Fn, K.M);
  ASSERT_TRUE(!!Good);
  unsigned Dropped = 0, Caught = 0;
  for (size_t B = 0; B < K.Fn.Blocks.size(); ++B)
    for (size_t I = 0; I < K.Fn.Blocks[B]->Insts.size(); ++I) {
      const Inst &X = K.Fn.Blocks[B]->Insts[I];
      if (!X.IsSpillCode || X.Opcode != op(simt::Opcode::LOCAL_LD_U32))
        continue;
      auto Broken = cloneFunction(K.Fn);
      Broken->Blocks[B]->Insts.erase(Broken->Blocks[B]->Insts.begin() + I);
      ++Dropped;
      Error E = regalloc::checkAllocation(*Broken);
      Expected<std::map<uint32_t, uint32_t>> Out = interpret(*Broken, K.M);
      ASSERT_TRUE(!!Out);
      if (E) {
        ++Caught;
        EXPECT_NE(errorText(std::move(E)).find("should hold"), std::string::npos);
      } else {
        // Only a reload the register did not need may pass.
        EXPECT_EQ(*Out, *Good) << "checker missed a dropped reload at bb " << B << " inst " << I;
      }
    }
  EXPECT_GT(Dropped, 0u);
  EXPECT_GT(Caught, 0u);
}

TEST(RegAllocCheckerTest, AnOldValueInSlotDefNeedsItsStoreToTheValuesSlot) {
  Function Fn;
  Machine M;
  buildPartialSpill(Fn, M);
  regalloc::RegAllocOptions Opts;
  Opts.NumRegisters = 5;
  ASSERT_EQ(errorText(regalloc::allocateRegisters(Fn, Opts)), "");
  EXPECT_EQ(errorText(regalloc::checkAllocation(Fn)), "");
  auto &Insts = Fn.Blocks[0]->Insts;
  auto It = std::find_if(Insts.begin(), Insts.end(), [](const Inst &I) { return I.OldValueInSlot; });
  ASSERT_NE(It, Insts.end()) << printed(Fn);
  ASSERT_TRUE(It + 1 != Insts.end() && (It + 1)->Opcode == op(simt::Opcode::LOCAL_ST_U32));
  size_t K = It - Insts.begin();
  {
    // Stored to another value's slot: the lanes it does not write lose
    // the value.
    int64_t Own = Insts[K + 1].Ops[1].Imm, Other = Own;
    for (const Inst &I : Insts)
      if (I.IsSpillCode && I.Opcode == op(simt::Opcode::LOCAL_ST_U32) && I.Ops[1].Imm != Own)
        Other = I.Ops[1].Imm;
    ASSERT_NE(Other, Own) << "a second spill slot\n" << printed(Fn);
    auto Broken = cloneFunction(Fn);
    Broken->Blocks[0]->Insts[K + 1].Ops[1].Imm = Other;
    std::string Msg = errorText(regalloc::checkAllocation(*Broken));
    EXPECT_NE(Msg.find("partial def of a spilled value"), std::string::npos) << Msg;
  }
  {
    // Not stored at all.
    auto Broken = cloneFunction(Fn);
    Broken->Blocks[0]->Insts.erase(Broken->Blocks[0]->Insts.begin() + K + 1);
    std::string Msg = errorText(regalloc::checkAllocation(*Broken));
    EXPECT_NE(Msg.find("not followed by a spill store"), std::string::npos) << Msg;
  }
}

TEST(RegAllocCheckerTest, AnExecMaskSpilledWithLaneMaskedCodeIsRejected) {
  // The lane-masked forms would lose the inactive lanes' copy of the mask,
  // which the lane-agnostic dataflow cannot see: a rule of its own.
  for (simt::Opcode AllLanes : {simt::Opcode::LOCAL_ST_ALL_U32, simt::Opcode::LOCAL_LD_ALL_U32}) {
    PressureKernel K(12);
    addMaskAroundTheKernel(K);
    regalloc::RegAllocOptions Opts;
    Opts.NumRegisters = 6;
    ASSERT_EQ(errorText(regalloc::allocateRegisters(K.Fn, Opts)), "");
    ASSERT_EQ(errorText(regalloc::checkAllocation(K.Fn)), "");
    bool Replaced = false;
    for (Inst &I : K.Fn.Blocks[0]->Insts)
      if (I.Opcode == op(AllLanes)) {
        I.Opcode = op(AllLanes == simt::Opcode::LOCAL_ST_ALL_U32 ? simt::Opcode::LOCAL_ST_U32
                                                                  : simt::Opcode::LOCAL_LD_U32);
        Replaced = true;
      }
    ASSERT_TRUE(Replaced) << printed(K.Fn);
    std::string Msg = errorText(regalloc::checkAllocation(K.Fn));
    EXPECT_NE(Msg.find("an exec-mask value, moves only the active lanes"), std::string::npos) << Msg;
  }
}

TEST(RegAllocCheckerTest, CatchesEveryCorruptionThatChangesTheResult) {
  // Random single-register corruptions of a spilled allocation: whenever
  // the program's output changes, the checker must have objected.
  PressureKernel K(14);
  regalloc::RegAllocOptions Opts;
  Opts.NumRegisters = 6;
  ASSERT_EQ(errorText(regalloc::allocateRegisters(K.Fn, Opts)), "");
  Expected<std::map<uint32_t, uint32_t>> Good = interpret(K.Fn, K.M);
  ASSERT_TRUE(!!Good);
  std::vector<std::pair<size_t, size_t>> RegOperands;
  const auto &Insts = K.Fn.Blocks[0]->Insts;
  for (size_t I = 0; I < Insts.size(); ++I)
    for (size_t O = 0; O < Insts[I].Ops.size(); ++O)
      if (Insts[I].Ops[O].isReg() && Insts[I].Ops[O].R != 0)
        RegOperands.push_back({I, O});
  std::mt19937 Rng(1234);
  unsigned Changed = 0;
  for (int Trial = 0; Trial < 300; ++Trial) {
    auto [I, O] = RegOperands[Rng() % RegOperands.size()];
    auto Broken = cloneFunction(K.Fn);
    Broken->Blocks[0]->Insts[I].Ops[O].R = 1 + Rng() % (Opts.NumRegisters - 1);
    Expected<std::map<uint32_t, uint32_t>> Out = interpret(*Broken, K.M);
    ASSERT_TRUE(!!Out);
    if (*Out == *Good)
      continue;
    ++Changed;
    EXPECT_NE(errorText(regalloc::checkAllocation(*Broken)), "") << "missed: instruction " << I << " operand " << O
                                                     << "\n"
                                                     << printed(*Broken);
  }
  EXPECT_GT(Changed, 20u);
}

} // namespace

namespace {

/// Reloads the forwarding should have removed: within a block, a lane-masked
/// spill reload of slot S while S's value is known to be in a register (a
/// spill store or reload of S into it, with no def of that register, no
/// exec-mask op and no other store of S in between).
std::vector<std::string> reloadsOfValuesInRegisters(const Function &Fn) {
  std::vector<std::string> Found;
  const unsigned Ld = op(simt::Opcode::LOCAL_LD_U32), St = op(simt::Opcode::LOCAL_ST_U32);
  for (const auto &B : Fn.Blocks) {
    std::map<int64_t, Reg> Held;
    for (size_t K = 0; K < B->Insts.size(); ++K) {
      const Inst &I = B->Insts[K];
      bool Spill = I.IsSpillCode && I.Ops.size() == 3;
      if (Spill && I.Opcode == Ld && I.Ops[1].R == 0) {
        if (Held.count(I.Ops[2].Imm))
          Found.push_back(B->Name + ":" + std::to_string(K));
      }
      if (!mir::isPseudo(I.Opcode) &&
          (simt::getDesc(simt::Opcode(I.Opcode)).Flags & simt::IsMaskOp))
        Held.clear();
      for (const Operand &O : I.Ops)
        if (O.isReg() && O.IsDef)
          for (auto It = Held.begin(); It != Held.end();)
            It = It->second == O.R ? Held.erase(It) : std::next(It);
      if (Spill && I.Opcode == St && I.Ops[0].R == 0 && !(K && B->Insts[K - 1].OldValueInSlot))
        Held[I.Ops[1].Imm] = I.Ops[2].R;
      if (Spill && I.Opcode == Ld && I.Ops[1].R == 0)
        Held[I.Ops[2].Imm] = I.Ops[0].R;
    }
  }
  return Found;
}

} // namespace

TEST(RegAllocTest, ReloadsOfValuesStillInARegisterAreForwarded) {
  // Under pressure, spill-everywhere reloads before each use; where the
  // value is still in the register it was stored from or reloaded into,
  // the reload is deleted or becomes a COPY (an ALU op, not an LSU access).
  // The interpreter checks the results, the checker the allocation.
  unsigned Forwarded = 0;
  for (unsigned Regs : {5u, 6u, 8u}) {
    // A long-lived value used right after its definition and again at the
    // end: spilled (long interval, few uses), its first use reads the
    // register it was stored from.
    Function Fn;
    Fn.Name = "firstuse";
    Machine M;
    Builder Bd{Fn, Fn.addBlock("entry")};
    Reg A = Bd.ldGlobal(0);
    M.Global[0] = 41;
    Bd.stGlobal(2048, Bd.ri(simt::Opcode::ADDI, A, 1));
    std::vector<Reg> V;
    for (unsigned K = 1; K <= 12; ++K) {
      V.push_back(Bd.ldGlobal(4 * K));
      M.Global[4 * K] = 3 * K + 2;
    }
    Reg Acc = A;
    for (unsigned K = V.size(); K-- > 0;)
      Acc = Bd.rr(simt::Opcode::ADD, Acc, Bd.ri(simt::Opcode::MULI, V[K], K + 1));
    Bd.stGlobal(1024, Bd.rr(simt::Opcode::ADD, Acc, A));
    Bd.exit();
    {
      SCOPED_TRACE(std::to_string(Regs) + " registers, firstuse");
      allocateAndCompare(Fn, Regs, M);
      EXPECT_EQ(reloadsOfValuesInRegisters(Fn), std::vector<std::string>{}) << printed(Fn);
      Forwarded += Fn.Stats.ReloadsForwarded;
    }
    SCOPED_TRACE(std::to_string(Regs) + " registers");
    PressureKernel K(20);
    allocateAndCompare(K.Fn, Regs, K.M);
    EXPECT_EQ(reloadsOfValuesInRegisters(K.Fn), std::vector<std::string>{}) << printed(K.Fn);
    Forwarded += K.Fn.Stats.ReloadsForwarded;
    PressureKernel WithMask(12);
    addMaskAroundTheKernel(WithMask);
    allocateAndCompare(WithMask.Fn, Regs, WithMask.M);
    EXPECT_EQ(reloadsOfValuesInRegisters(WithMask.Fn), std::vector<std::string>{})
        << printed(WithMask.Fn);
    Forwarded += WithMask.Fn.Stats.ReloadsForwarded;
  }
  EXPECT_GT(Forwarded, 0u) << "no reload was forwarded: the test no longer exercises it";
}
