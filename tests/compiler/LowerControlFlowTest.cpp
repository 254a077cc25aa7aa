//===- LowerControlFlowTest.cpp - branches, exec masks, out of SSA --------===//
//
// Each case builds SSA MIR by hand in the shape selectSimt produces (after
// StructurizeCFG), lowers it, checks mir::verify, and then EXECUTES both
// forms: the SSA input one lane at a time (a scalar reference: PHIs, BRCOND
// per lane) and the lowered code for one 32-lane warp following docs/ISA.md
// (exec and alive masks, instructions write active lanes only, bnz/bz/bnone/
// bany as specified). Programs store one word per lane; the two memories
// must agree, and each case also checks the values the program means.
//
//===----------------------------------------------------------------------===//

#include "isel/LowerControlFlow.h"
#include "isel/MIR.h"

#include "ISA.h"

#include "llvm/Support/Error.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>

using namespace tandem;
using namespace tandem::mir;
using simt::Opcode;

namespace {

unsigned op(Opcode O) { return static_cast<unsigned>(O); }
constexpr unsigned Lanes = 32;
constexpr uint32_t Poison = 0xdeadbeef;
constexpr int64_t LaneIdReg = 12; // %laneid

//===----------------------------------------------------------------------===//
// Building SSA MIR
//===----------------------------------------------------------------------===//

struct Builder {
  Function Fn;
  Builder() { Fn.Name = "k"; }

  Block *block(const std::string &Name, unsigned Depth = 0) {
    Block *B = Fn.addBlock(Name);
    B->LoopDepth = Depth;
    return B;
  }
  Reg def(Block *B, unsigned Opc, std::initializer_list<Operand> Uses, bool Uniform = false) {
    Reg D = Fn.newVReg(Uniform);
    Inst I;
    I.Opcode = Opc;
    I.Ops.push_back(Operand::def(D));
    I.Ops.append(Uses.begin(), Uses.end());
    B->Insts.push_back(std::move(I));
    return D;
  }
  Reg li(Block *B, int64_t V, bool Uniform = true) {
    return def(B, LI, {Operand::imm(V)}, Uniform);
  }
  Reg lane(Block *B) { return def(B, op(Opcode::S2R), {Operand::imm(LaneIdReg)}); }
  Reg ri(Block *B, Opcode O, Reg A, int64_t Imm, bool Uniform = false) {
    return def(B, op(O), {Operand::use(A), Operand::imm(Imm)}, Uniform);
  }
  Reg rr(Block *B, Opcode O, Reg A, Reg C, bool Uniform = false) {
    return def(B, op(O), {Operand::use(A), Operand::use(C)}, Uniform);
  }
  Reg undef(Block *B) { return def(B, IMPLICIT_DEF, {}); }
  /// A PHI at the start of B; incoming values are added with incoming().
  Reg phi(Block *B, bool Uniform = false) {
    Reg D = Fn.newVReg(Uniform);
    size_t Pos = 0;
    while (Pos < B->Insts.size() && B->Insts[Pos].Opcode == PHI)
      ++Pos;
    B->Insts.insert(B->Insts.begin() + Pos, Inst(PHI, {Operand::def(D)}));
    return D;
  }
  void incoming(Block *B, Reg Phi, Reg V, Block *From) {
    for (Inst &I : B->Insts)
      if (I.Opcode == PHI && I.Ops[0].R == Phi) {
        I.Ops.push_back(Operand::use(V));
        I.Ops.push_back(Operand::block(From));
        return;
      }
    FAIL() << "no phi";
  }
  /// Stores V at Addr + Off (global memory, one word).
  void store(Block *B, Reg Addr, int64_t Off, Reg V) {
    B->Insts.push_back(Inst(op(Opcode::GLOBAL_ST_U32),
                            {Operand::use(Addr), Operand::imm(Off), Operand::use(V)}));
  }
  void bar(Block *B) { B->Insts.push_back(Inst(op(Opcode::BAR), {})); }
  void br(Block *B, Block *T) { B->Insts.push_back(Inst(BR, {Operand::block(T)})); }
  void brcond(Block *B, Reg C, Block *T, Block *F, bool Divergent) {
    Inst I(BRCOND, {Operand::use(C), Operand::block(T), Operand::block(F)});
    I.Divergent = Divergent;
    B->Insts.push_back(std::move(I));
  }
  void ret(Block *B) { B->Insts.push_back(Inst(RET, {})); }
  /// lane and lane * 4 (this lane's word) in the entry block.
  std::pair<Reg, Reg> laneAndAddr(Block *Entry) {
    Reg L = lane(Entry);
    return {L, ri(Entry, Opcode::SHLI, L, 2)};
  }
};

//===----------------------------------------------------------------------===//
// Shared ALU semantics (docs/ISA.md) for the handful of opcodes tests use
//===----------------------------------------------------------------------===//

using Memory = std::map<uint32_t, uint32_t>;

/// Result of an ALU instruction from its source values; false if the test
/// interpreter does not know the opcode.
bool evalAlu(const Inst &I, const std::function<uint32_t(Reg)> &Val, unsigned Lane,
             uint32_t &Out) {
  auto A = [&] { return Val(I.Ops[1].R); };
  auto B = [&] { return Val(I.Ops[2].R); };
  auto Imm = [&] { return uint32_t(int32_t(I.Ops[2].Imm)); };
  auto S = [](uint32_t V) { return int32_t(V); };
  if (I.Opcode == LI) {
    Out = uint32_t(I.Ops[1].Imm);
    return true;
  }
  if (I.Opcode == COPY) {
    Out = A();
    return true;
  }
  if (I.Opcode == IMPLICIT_DEF) {
    Out = Poison;
    return true;
  }
  if (I.isPseudo())
    return false;
  switch (static_cast<Opcode>(I.Opcode)) {
  case Opcode::S2R:
    if (I.Ops[1].Imm != LaneIdReg)
      return false;
    Out = Lane;
    return true;
  case Opcode::ADD: Out = A() + B(); return true;
  case Opcode::SUB: Out = A() - B(); return true;
  case Opcode::MUL: Out = A() * B(); return true;
  case Opcode::AND: Out = A() & B(); return true;
  case Opcode::SETLT: Out = S(A()) < S(B()); return true;
  case Opcode::SETEQ: Out = A() == B(); return true;
  case Opcode::ADDI: Out = A() + Imm(); return true;
  case Opcode::ANDI: Out = A() & Imm(); return true;
  case Opcode::SHLI: Out = A() << (Imm() & 31); return true;
  case Opcode::SHRI: Out = A() >> (Imm() & 31); return true;
  case Opcode::SETLTI: Out = S(A()) < S(Imm()); return true;
  case Opcode::SETEQI: Out = A() == Imm(); return true;
  case Opcode::SETNEI: Out = A() != Imm(); return true;
  default: return false;
  }
}

//===----------------------------------------------------------------------===//
// Reference: the SSA input, one lane at a time
//===----------------------------------------------------------------------===//

std::string runReference(const Function &Fn, Memory &Mem) {
  for (unsigned Lane = 0; Lane < Lanes; ++Lane) {
    std::map<Reg, uint32_t> R;
    auto Val = [&](Reg X) -> uint32_t {
      if (X == 0)
        return 0;
      auto It = R.find(X);
      return It == R.end() ? Poison : It->second;
    };
    const Block *Cur = Fn.Blocks.front().get(), *Prev = nullptr;
    for (unsigned Steps = 0;; ++Steps) {
      if (Steps > 100000)
        return "reference: too many steps";
      // PHIs read their inputs at once.
      std::vector<std::pair<Reg, uint32_t>> PhiVals;
      for (const Inst &I : Cur->Insts) {
        if (I.Opcode != PHI)
          break;
        bool Found = false;
        for (size_t K = 1; K + 1 < I.Ops.size(); K += 2)
          if (I.Ops[K + 1].Target == Prev) {
            PhiVals.push_back({I.Ops[0].R, Val(I.Ops[K].R)});
            Found = true;
            break;
          }
        if (!Found)
          return "reference: phi without incoming for bb." + Cur->Name;
      }
      for (auto &[D, V] : PhiVals)
        R[D] = V;
      const Block *Next = nullptr;
      bool Done = false;
      for (const Inst &I : Cur->Insts) {
        if (I.Opcode == PHI)
          continue;
        if (I.Opcode == BR) {
          Next = I.Ops[0].Target;
        } else if (I.Opcode == BRCOND) {
          Next = Val(I.Ops[0].R) ? I.Ops[1].Target : I.Ops[2].Target;
        } else if (I.Opcode == RET) {
          Done = true;
        } else if (I.Opcode == op(Opcode::GLOBAL_ST_U32)) {
          Mem[Val(I.Ops[0].R) + uint32_t(I.Ops[1].Imm)] = Val(I.Ops[2].R);
        } else if (I.Opcode == op(Opcode::BAR)) {
        } else {
          uint32_t Out;
          if (!evalAlu(I, Val, Lane, Out))
            return "reference: unknown opcode " + opcodeName(I.Opcode, TargetKind::Simt);
          R[I.Ops[0].R] = Out;
        }
      }
      if (Done)
        break;
      Prev = Cur;
      Cur = Next;
    }
  }
  return "";
}

//===----------------------------------------------------------------------===//
// The lowered code on one warp
//===----------------------------------------------------------------------===//

/// Virtual registers live after each instruction of the lowered code, with
/// Inst::PartialDef honoured as the register allocator must (the def is
/// also a use). The warp below clobbers every other register in all lanes
/// after each instruction, as an allocator reusing the register could: if a
/// PartialDef mark is missing, some lane loses a value it still needs.
using LiveAfter = std::map<const Inst *, std::set<Reg>>;

LiveAfter computeLiveness(const Function &Fn) {
  std::map<const Block *, std::set<Reg>> LiveIn;
  auto Transfer = [](const Inst &I, std::set<Reg> &Live) {
    for (const Operand &O : I.Ops)
      if (O.isReg() && O.IsDef && isVirtual(O.R) && !I.PartialDef)
        Live.erase(O.R);
    for (const Operand &O : I.Ops)
      if (O.isReg() && isVirtual(O.R) && (!O.IsDef || I.PartialDef))
        Live.insert(O.R);
  };
  LiveAfter Result;
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (auto It = Fn.Blocks.rbegin(); It != Fn.Blocks.rend(); ++It) {
      const Block &B = **It;
      std::set<Reg> Live;
      for (Block *S : successors(Fn, B))
        Live.insert(LiveIn[S].begin(), LiveIn[S].end());
      for (auto I = B.Insts.rbegin(); I != B.Insts.rend(); ++I) {
        Result[&*I] = Live;
        Transfer(*I, Live);
      }
      if (Live != LiveIn[&B]) {
        LiveIn[&B] = Live;
        Changed = true;
      }
    }
  }
  return Result;
}

struct WarpStats {
  unsigned Steps = 0;
  unsigned BnoneTaken = 0, BnoneNotTaken = 0, BanyTaken = 0;
  unsigned Instructions = 0;
};

std::string runWarp(const Function &Fn, Memory &Mem, WarpStats &Stats,
                    const LiveAfter *Clobber = nullptr) {
  std::map<Reg, std::array<uint32_t, Lanes>> R;
  uint32_t Exec = ~0u, Alive = ~0u;
  auto Get = [&](Reg X, unsigned Lane) -> uint32_t {
    if (X == 0)
      return 0;
    auto It = R.find(X);
    return It == R.end() ? Poison : It->second[Lane];
  };
  auto Set = [&](Reg X, unsigned Lane, uint32_t V) {
    auto It = R.find(X);
    if (It == R.end()) {
      std::array<uint32_t, Lanes> Init;
      Init.fill(Poison);
      It = R.emplace(X, Init).first;
    }
    It->second[Lane] = V;
  };
  auto Active = [&](unsigned Lane) { return (Exec >> Lane) & 1; };
  auto AnyActive = [&](Reg C, bool WantNonZero) {
    for (unsigned L = 0; L < Lanes; ++L)
      if (Active(L) && (Get(C, L) != 0) == WantNonZero)
        return true;
    return false;
  };
  std::map<const Block *, size_t> Index;
  for (size_t K = 0; K < Fn.Blocks.size(); ++K)
    Index[Fn.Blocks[K].get()] = K;

  size_t BI = 0, II = 0;
  const Inst *Prev = nullptr;
  for (;;) {
    if (++Stats.Steps > 200000)
      return "warp: too many steps";
    if (BI >= Fn.Blocks.size())
      return "warp: ran off the end of the function";
    const Block &B = *Fn.Blocks[BI];
    if (II >= B.Insts.size()) {
      ++BI;
      II = 0;
      continue;
    }
    const Inst &I = B.Insts[II++];
    ++Stats.Instructions;
    if (Clobber && Prev) {
      // What the previous instruction left dead, an allocator may reuse.
      const std::set<Reg> &Live = Clobber->at(Prev);
      for (auto &[X, Vals] : R)
        if (isVirtual(X) && !Live.count(X))
          Vals.fill(0xc10bbe12u);
    }
    Prev = &I;
    auto Jump = [&](const Block *T) {
      BI = Index.at(T);
      II = 0;
    };
    if (I.isPseudo() && I.Opcode != COPY && I.Opcode != LI && I.Opcode != IMPLICIT_DEF)
      return "warp: pseudo " + opcodeName(I.Opcode, TargetKind::Simt) + " left in bb." + B.Name;
    switch (I.isPseudo() ? Opcode::INVALID : static_cast<Opcode>(I.Opcode)) {
    case Opcode::EMASK_GET:
      for (unsigned L = 0; L < Lanes; ++L)
        Set(I.Ops[0].R, L, Exec);
      continue;
    case Opcode::EMASK_SET:
      Exec = Get(I.Ops[0].R, 0) & Alive;
      continue;
    case Opcode::EMASK_AND:
    case Opcode::EMASK_ANDN: {
      bool Keep = I.Opcode == op(Opcode::EMASK_AND);
      uint32_t M = 0;
      for (unsigned L = 0; L < Lanes; ++L)
        if (Active(L) && (Get(I.Ops[0].R, L) != 0) == Keep)
          M |= 1u << L;
      Exec = M;
      continue;
    }
    case Opcode::BRA:
      Jump(I.Ops[0].Target);
      continue;
    case Opcode::BNZ:
      if (AnyActive(I.Ops[0].R, true))
        Jump(I.Ops[1].Target);
      continue;
    case Opcode::BZ:
      if (!AnyActive(I.Ops[0].R, true))
        Jump(I.Ops[1].Target);
      continue;
    case Opcode::BNONE:
      if (Exec == 0) {
        ++Stats.BnoneTaken;
        Jump(I.Ops[0].Target);
      } else {
        ++Stats.BnoneNotTaken;
      }
      continue;
    case Opcode::BANY:
      if (Exec != 0) {
        ++Stats.BanyTaken;
        Jump(I.Ops[0].Target);
      }
      continue;
    case Opcode::EXIT:
      Alive &= ~Exec;
      Exec = 0;
      if (Alive == 0)
        return "";
      return "warp: exit with lanes still alive";
    case Opcode::BAR:
      continue;
    case Opcode::GLOBAL_ST_U32:
      for (unsigned L = 0; L < Lanes; ++L)
        if (Active(L))
          Mem[Get(I.Ops[0].R, L) + uint32_t(I.Ops[1].Imm)] = Get(I.Ops[2].R, L);
      continue;
    default:
      break;
    }
    // Only the copies between narrowing the mask and bnone/bany may run with
    // no lane active (they then write nothing); other code must be skipped.
    if (Exec == 0 && I.Opcode != COPY)
      return "warp: instruction run with no active lane in bb." + B.Name;
    for (unsigned L = 0; L < Lanes; ++L) {
      if (!Active(L))
        continue;
      uint32_t Out;
      if (!evalAlu(I, [&](Reg X) { return Get(X, L); }, L, Out))
        return "warp: unknown opcode " + opcodeName(I.Opcode, TargetKind::Simt);
      Set(I.Ops[0].R, L, Out);
    }
  }
}

std::string dump(const Function &Fn) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  print(OS, Fn, TargetKind::Simt);
  return S;
}

/// Lowers B.Fn, runs input and output, and checks they agree and that lane
/// L's word is Expected(L). Returns the warp's statistics.
WarpStats lowerAndRun(Builder &B, const std::function<uint32_t(unsigned)> &Expected,
                      unsigned WordsPerLane = 1) {
  WarpStats Stats;
  EXPECT_EQ(verify(B.Fn, TargetKind::Simt, false), "") << dump(B.Fn);
  Memory RefMem, WarpMem;
  std::string RefErr = runReference(B.Fn, RefMem);
  EXPECT_EQ(RefErr, "");
  std::string Before = dump(B.Fn);
  if (llvm::Error E = isel::lowerControlFlow(B.Fn)) {
    ADD_FAILURE() << llvm::toString(std::move(E)) << "\n" << Before;
    return Stats;
  }
  std::string After = dump(B.Fn);
  if (std::getenv("TANDEM_TEST_DUMP")) // for reading what the pass makes
    llvm::errs() << Before << After;
  EXPECT_EQ(verify(B.Fn, TargetKind::Simt, true), "") << After;
  std::string WarpErr = runWarp(B.Fn, WarpMem, Stats);
  EXPECT_EQ(WarpErr, "") << After;
  EXPECT_EQ(RefMem, WarpMem) << "before:\n" << Before << "after:\n" << After;
  // Again with dead registers clobbered: the liveness the allocator derives
  // (PartialDef included) must keep every value some lane still needs.
  LiveAfter Live = computeLiveness(B.Fn);
  Memory ClobberedMem;
  WarpStats Ignored;
  EXPECT_EQ(runWarp(B.Fn, ClobberedMem, Ignored, &Live), "") << After;
  EXPECT_EQ(RefMem, ClobberedMem) << "with dead registers clobbered:\n" << After;
  if (Expected) {
    for (unsigned L = 0; L < Lanes; ++L)
      EXPECT_EQ(WarpMem[L * 4], Expected(L)) << "lane " << L << "\n" << After;
  }
  EXPECT_EQ(WarpMem.size(), Lanes * WordsPerLane) << After;
  return Stats;
}

unsigned countOpcode(const Function &Fn, unsigned Opc) {
  unsigned N = 0;
  for (const auto &B : Fn.Blocks)
    for (const Inst &I : B->Insts)
      N += I.Opcode == Opc;
  return N;
}

const Block *findBlock(const Function &Fn, const std::string &Name) {
  for (const auto &B : Fn.Blocks)
    if (B->Name == Name)
      return B.get();
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Divergent if
//===----------------------------------------------------------------------===//

/// entry: c = lane < K; brcond c, then, join (or join, then when OnFalse)
/// then:  x1 = lane + 1          join: x = phi(100, x1); store x
void buildIfThen(Builder &B, int K, bool OnFalse) {
  Block *Entry = B.block("entry"), *Then = B.block("then"), *Join = B.block("join");
  auto [Lane, Addr] = B.laneAndAddr(Entry);
  Reg C = B.ri(Entry, Opcode::SETLTI, Lane, K);
  Reg X0 = B.li(Entry, 100);
  if (OnFalse)
    B.brcond(Entry, C, Join, Then, true);
  else
    B.brcond(Entry, C, Then, Join, true);
  Reg X1 = B.ri(Then, Opcode::ADDI, Lane, 1);
  B.br(Then, Join);
  Reg X = B.phi(Join);
  B.incoming(Join, X, X0, Entry);
  B.incoming(Join, X, X1, Then);
  B.store(Join, Addr, 0, X);
  B.ret(Join);
}

TEST(LowerControlFlowTest, DivergentIfThenRunsRegionOnlyInTakenLanes) {
  for (int K : {10, 100, 0}) {
    for (bool OnFalse : {false, true}) {
      SCOPED_TRACE("K=" + std::to_string(K) + (OnFalse ? " region on false side" : ""));
      Builder B;
      buildIfThen(B, K, OnFalse);
      WarpStats S = lowerAndRun(B, [&](unsigned L) {
        bool Taken = (int(L) < K) != OnFalse;
        return Taken ? L + 1 : 100u;
      });
      const Block *Entry = findBlock(B.Fn, "entry");
      ASSERT_TRUE(Entry);
      // m = emask.get; emask.and(n) c; bnone join, falling into the region.
      unsigned Narrow = op(OnFalse ? Opcode::EMASK_ANDN : Opcode::EMASK_AND);
      EXPECT_EQ(countOpcode(B.Fn, Narrow), 1u);
      EXPECT_EQ(countOpcode(B.Fn, op(Opcode::EMASK_GET)), 1u);
      EXPECT_EQ(countOpcode(B.Fn, op(Opcode::BNONE)), 1u);
      EXPECT_EQ(B.Fn.Blocks[2]->Insts.front().Opcode, op(Opcode::EMASK_SET));
      bool NoLaneTakes = OnFalse ? K >= 32 : K <= 0;
      EXPECT_EQ(S.BnoneTaken, NoLaneTakes ? 1u : 0u);
    }
  }
}

/// The StructurizeCFG shape of if (lane < K) x = lane + 1; else x = lane + 2;
void buildIfThenElse(Builder &B, int K) {
  Block *Entry = B.block("entry"), *Then = B.block("then"), *Flow = B.block("flow"),
        *Else = B.block("else"), *End = B.block("end");
  auto [Lane, Addr] = B.laneAndAddr(Entry);
  Reg C = B.ri(Entry, Opcode::SETLTI, Lane, K);
  Reg Undef = B.undef(Entry);
  Reg Zero = B.li(Entry, 0), One = B.li(Entry, 1);
  B.brcond(Entry, C, Then, Flow, true);
  Reg A = B.ri(Then, Opcode::ADDI, Lane, 1);
  B.br(Then, Flow);
  Reg PV = B.phi(Flow), PC = B.phi(Flow);
  B.incoming(Flow, PV, A, Then);
  B.incoming(Flow, PV, Undef, Entry);
  B.incoming(Flow, PC, Zero, Then);
  B.incoming(Flow, PC, One, Entry);
  B.brcond(Flow, PC, Else, End, true);
  Reg Bv = B.ri(Else, Opcode::ADDI, Lane, 2);
  B.br(Else, End);
  Reg R = B.phi(End);
  B.incoming(End, R, PV, Flow);
  B.incoming(End, R, Bv, Else);
  B.store(End, Addr, 0, R);
  B.ret(End);
}

/// entry -> r1 -> r2 -> join, entry and r1 both also branching to join
/// (divergent): lanes < 20 enter r1, lanes < \p Inner of those r2; join
/// stores 1, 2 or 3 by how far each lane got.
void buildNestedIfsSharingAJoin(Builder &B, int Inner) {
  Block *Entry = B.block("entry"), *R1 = B.block("r1"), *R2 = B.block("r2"),
        *J = B.block("join");
  auto [Lane, Addr] = B.laneAndAddr(Entry);
  Reg C1 = B.ri(Entry, Opcode::SETLTI, Lane, 20);
  Reg A = B.li(Entry, 1);
  B.brcond(Entry, C1, R1, J, true);
  Reg C2 = B.ri(R1, Opcode::SETLTI, Lane, Inner);
  Reg Bv = B.li(R1, 2);
  B.brcond(R1, C2, R2, J, true);
  Reg Cv = B.li(R2, 3);
  B.br(R2, J);
  Reg X = B.phi(J);
  B.incoming(J, X, A, Entry);
  B.incoming(J, X, Bv, R1);
  B.incoming(J, X, Cv, R2);
  B.store(J, Addr, 0, X);
  B.ret(J);
}

TEST(LowerControlFlowTest, DivergentIfThenElseGivesEachLaneItsSide) {
  for (int K : {13, 32, 0}) {
    SCOPED_TRACE("K=" + std::to_string(K));
    Builder B;
    buildIfThenElse(B, K);
    WarpStats S = lowerAndRun(B, [&](unsigned L) { return int(L) < K ? L + 1 : L + 2; });
    // All lanes on one side: the other region is skipped by bnone.
    EXPECT_EQ(S.BnoneTaken, (K == 32 || K == 0) ? 1u : 0u);
    EXPECT_EQ(S.BnoneNotTaken, (K == 32 || K == 0) ? 1u : 2u);
  }
}

TEST(LowerControlFlowTest, PhiCopiesUnderNarrowedMaskArePartialDefs) {
  Builder B;
  buildIfThenElse(B, 13);
  ASSERT_FALSE(llvm::errorToBool(isel::lowerControlFlow(B.Fn)));
  std::string Text = dump(B.Fn);
  unsigned Copies = 0;
  for (const auto &Blk : B.Fn.Blocks)
    for (const Inst &I : Blk->Insts)
      // entry's pv is undefined, the pc's are constants loaded into it,
      // then's and else's values are computed straight into the phis
      if (I.Opcode == COPY || I.Opcode == IMPLICIT_DEF || I.Opcode == LI || I.PartialDef) {
        ++Copies;
        // then's and else's copies run under a narrowed mask and must keep
        // the other lanes' values; entry's and flow's, the if-headers',
        // run before the narrowing in every lane that reaches the join, so
        // nothing of the old value is read again: full defs, which lets a
        // copy share its source's register.
        bool Header = Blk->Name == "entry" || Blk->Name == "flow";
        EXPECT_EQ(I.PartialDef, !Header) << "bb." << Blk->Name << "\n" << Text;
      }
  EXPECT_EQ(Copies, 6u) << Text; // entry: pv, pc; then: pv, pc; flow: r; else: r
  // In entry the copies for edge entry->flow come before the mask code.
  const Block *Entry = findBlock(B.Fn, "entry");
  ASSERT_TRUE(Entry);
  size_t FirstCopy = 0, Get = 0;
  for (size_t K = 0; K < Entry->Insts.size(); ++K) {
    if (Entry->Insts[K].Opcode == COPY && !FirstCopy)
      FirstCopy = K;
    if (Entry->Insts[K].Opcode == op(Opcode::EMASK_GET))
      Get = K;
  }
  EXPECT_LT(FirstCopy, Get) << Text;
}

TEST(LowerControlFlowTest, AnUndefinedIncomingValueIsAnImplicitDefNotACopy) {
  // StructurizeCFG's Flow phis take undef on the edge that skips a region.
  // Its copy runs no instruction: an IMPLICIT_DEF of the phi, a full def in
  // the if-header, and the input's IMPLICIT_DEF goes.
  Builder B;
  buildIfThenElse(B, 13);
  const Block *Entry = B.Fn.Blocks.front().get();
  ASSERT_EQ(countOpcode(B.Fn, IMPLICIT_DEF), 1u);
  Reg Undefined = NoReg;
  for (const Inst &I : Entry->Insts)
    if (I.Opcode == IMPLICIT_DEF)
      Undefined = I.Ops[0].R;
  lowerAndRun(B, [](unsigned L) { return L < 13 ? L + 1 : L + 2; });
  std::string Text = dump(B.Fn);
  EXPECT_EQ(countOpcode(B.Fn, IMPLICIT_DEF), 1u) << Text;
  for (const auto &Blk : B.Fn.Blocks)
    for (const Inst &I : Blk->Insts) {
      for (const Operand &O : I.Ops)
        EXPECT_FALSE(O.isReg() && O.R == Undefined) << "the input's undefined vreg is left\n" << Text;
      if (I.Opcode == IMPLICIT_DEF) {
        EXPECT_EQ(Blk->Name, "entry") << Text;
        EXPECT_FALSE(I.PartialDef) << Text;
      }
    }
}

TEST(LowerControlFlowTest, ARegionsValueIsComputedIntoTheJoinsPhi) {
  // then: a = lane + 1, read only by join's phi. The addi writes the phi
  // itself, as a partial def (the lanes that skipped then keep entry's 7),
  // and no COPY is left; the clobbering run checks the partial def.
  Builder B;
  Block *Entry = B.block("entry"), *Then = B.block("then"), *Join = B.block("join");
  auto [Lane, Addr] = B.laneAndAddr(Entry);
  Reg C = B.ri(Entry, Opcode::SETLTI, Lane, 11);
  Reg Seven = B.ri(Entry, Opcode::ADDI, Lane, 7);
  B.brcond(Entry, C, Then, Join, true);
  Reg A = B.ri(Then, Opcode::ADDI, Lane, 1);
  B.br(Then, Join);
  Reg P = B.phi(Join);
  B.incoming(Join, P, A, Then);
  B.incoming(Join, P, Seven, Entry);
  B.store(Join, Addr, 0, P);
  B.ret(Join);
  lowerAndRun(B, [](unsigned L) { return L < 11 ? L + 1 : L + 7; });
  std::string Text = dump(B.Fn);
  const Block *ThenAfter = findBlock(B.Fn, "then");
  ASSERT_TRUE(ThenAfter) << Text;
  ASSERT_EQ(ThenAfter->Insts.size(), 1u) << Text;
  const Inst &Add = ThenAfter->Insts[0];
  EXPECT_EQ(Add.Opcode, op(Opcode::ADDI)) << Text;
  EXPECT_EQ(Add.Ops[0].R, P) << Text;
  EXPECT_TRUE(Add.PartialDef) << Text;
  // entry's copy of lane + 7 is forwarded too, as a full def.
  EXPECT_EQ(countOpcode(B.Fn, COPY), 0u) << Text;
}

TEST(LowerControlFlowTest, AnUndefinedIncomingValueUnderANarrowedMaskIsAPartialImplicitDef) {
  // entry -> then -> flow: the then-lanes bring undef to flow's phi, the
  // others entry's 7. The then-side IMPLICIT_DEF must stay a partial def,
  // so the allocator keeps 7 live for the lanes that skipped then (the run
  // with dead registers clobbered checks it).
  Builder B;
  Block *Entry = B.block("entry"), *Then = B.block("then"), *Flow = B.block("flow");
  auto [Lane, Addr] = B.laneAndAddr(Entry);
  Reg C = B.ri(Entry, Opcode::SETLTI, Lane, 9);
  Reg Seven = B.li(Entry, 7);
  B.brcond(Entry, C, Then, Flow, true);
  Reg Undef = B.undef(Then);
  B.br(Then, Flow);
  Reg P = B.phi(Flow);
  B.incoming(Flow, P, Seven, Entry);
  B.incoming(Flow, P, Undef, Then);
  Reg Sum = B.ri(Flow, Opcode::ADDI, P, 1);
  B.store(Flow, Addr, 0, Sum);
  B.ret(Flow);
  lowerAndRun(B, [](unsigned L) { return L < 9 ? Poison + 1 : 8u; });
  std::string Text = dump(B.Fn);
  const Block *ThenAfter = findBlock(B.Fn, "then");
  ASSERT_TRUE(ThenAfter) << Text;
  unsigned Defs = 0;
  for (const Inst &I : ThenAfter->Insts)
    if (I.Opcode == IMPLICIT_DEF) {
      ++Defs;
      EXPECT_TRUE(I.PartialDef) << Text;
      EXPECT_EQ(I.Ops[0].R, P) << Text;
    }
  EXPECT_EQ(Defs, 1u) << Text;
  EXPECT_EQ(countOpcode(B.Fn, COPY), 0u) << Text; // entry loads 7 into the phi
}

TEST(LowerControlFlowTest, AnInnerIfSharingItsJoinKeepsTheOuterLanesValues) {
  // entry -> r1 -> r2 -> join, with entry and r1 both branching to join:
  // the lanes that skip r1 reach join with the value entry's copy gave
  // them, so r1's header copy, which runs without them, is a partial def;
  // entry's, the outermost header at that join, is not.
  Builder B;
  buildNestedIfsSharingAJoin(B, 8);
  ASSERT_FALSE(llvm::errorToBool(isel::lowerControlFlow(B.Fn)));
  std::string Text = dump(B.Fn);
  for (const char *Name : {"entry", "r1", "r2"}) {
    const Block *Blk = findBlock(B.Fn, Name);
    ASSERT_TRUE(Blk) << Name;
    for (const Inst &I : Blk->Insts) {
      if (I.Opcode == COPY) {
        EXPECT_EQ(I.PartialDef, llvm::StringRef(Name) != "entry") << "bb." << Name << "\n"
                                                                 << Text;
      }
    }
  }
}

/// Two divergent ifs meeting at one join: only the outer mask is restored.
TEST(LowerControlFlowTest, NestedIfsSharingAJoinRestoreTheOuterMask) {
  for (int Inner : {8, 0, 32}) {
    SCOPED_TRACE("inner K=" + std::to_string(Inner));
    Builder B;
    buildNestedIfsSharingAJoin(B, Inner);
    WarpStats S = lowerAndRun(B, [&](unsigned L) {
      return int(L) < std::min(Inner, 20) ? 3u : L < 20 ? 2u : 1u;
    });
    EXPECT_EQ(countOpcode(B.Fn, op(Opcode::EMASK_GET)), 1u) << dump(B.Fn);
    EXPECT_EQ(countOpcode(B.Fn, op(Opcode::EMASK_SET)), 1u) << dump(B.Fn);
    EXPECT_EQ(S.BnoneTaken, Inner == 0 ? 1u : 0u);
  }
}

/// A uniform branch around a divergent if into the if's join: the uniform
/// edge must leave a mask for the join's restore.
TEST(LowerControlFlowTest, UniformEdgeIntoDivergentJoinSavesTheMask) {
  for (int U : {0, 1}) {
    SCOPED_TRACE("U=" + std::to_string(U));
    Builder B;
    Block *Entry = B.block("entry"), *D = B.block("d"), *R = B.block("r"),
          *J = B.block("join");
    auto [Lane, Addr] = B.laneAndAddr(Entry);
    Reg Uv = B.li(Entry, U);
    Reg Five = B.li(Entry, 5), Six = B.li(Entry, 6);
    Reg C = B.ri(Entry, Opcode::SETLTI, Lane, 10);
    B.brcond(Entry, Uv, D, J, false);
    B.brcond(D, C, R, J, true);
    Reg Seven = B.li(R, 7);
    B.br(R, J);
    Reg X = B.phi(J);
    B.incoming(J, X, Five, Entry);
    B.incoming(J, X, Six, D);
    B.incoming(J, X, Seven, R);
    B.store(J, Addr, 0, X);
    B.ret(J);
    lowerAndRun(B, [&](unsigned L) { return U == 0 ? 5u : L < 10 ? 7u : 6u; });
    EXPECT_EQ(countOpcode(B.Fn, op(Opcode::EMASK_GET)), 2u) << dump(B.Fn);
  }
}

//===----------------------------------------------------------------------===//
// Divergent loops
//===----------------------------------------------------------------------===//

/// sum = 0 + 1 + ... + (lane & 7) in a one-block loop; the exit reads the
/// sum through an LCSSA phi, or directly when !Lcssa.
void buildSumLoop(Builder &B, bool Lcssa, int Mask = 7) {
  Block *Entry = B.block("entry"), *Loop = B.block("loop", 1), *Exit = B.block("exit");
  auto [Lane, Addr] = B.laneAndAddr(Entry);
  Reg N = B.ri(Entry, Opcode::ANDI, Lane, Mask);
  Reg Zero = B.li(Entry, 0);
  B.br(Entry, Loop);
  Reg I = B.phi(Loop), S = B.phi(Loop);
  Reg S1 = B.rr(Loop, Opcode::ADD, S, I);
  Reg I1 = B.ri(Loop, Opcode::ADDI, I, 1);
  Reg Done = B.rr(Loop, Opcode::SETLT, N, I1);
  B.brcond(Loop, Done, Exit, Loop, true);
  B.incoming(Loop, I, Zero, Entry);
  B.incoming(Loop, I, I1, Loop);
  B.incoming(Loop, S, Zero, Entry);
  B.incoming(Loop, S, S1, Loop);
  Reg Out = S1;
  if (Lcssa) {
    Out = B.phi(Exit);
    B.incoming(Exit, Out, S1, Loop);
  }
  B.store(Exit, Addr, 0, Out);
  B.ret(Exit);
}

TEST(LowerControlFlowTest, DivergentLoopRunsEachLaneItsTripCount) {
  for (bool Lcssa : {true, false}) {
    for (int Mask : {7, 0}) {
      SCOPED_TRACE(std::string(Lcssa ? "lcssa" : "no lcssa") + " mask " + std::to_string(Mask));
      Builder B;
      buildSumLoop(B, Lcssa, Mask);
      WarpStats S = lowerAndRun(B, [&](unsigned L) {
        unsigned N = L & Mask;
        return N * (N + 1) / 2;
      });
      // The warp goes round max(n) times; then bany falls through.
      EXPECT_EQ(S.BanyTaken, unsigned(Mask));
      const Block *Loop = findBlock(B.Fn, "loop");
      const Block *Exit = findBlock(B.Fn, "exit");
      ASSERT_TRUE(Loop && Exit);
      EXPECT_EQ(Loop->Insts.back().Opcode, op(Opcode::BANY));
      EXPECT_EQ(Exit->Insts.front().Opcode, op(Opcode::EMASK_SET));
      // Lanes keep going where done == 0.
      EXPECT_EQ(countOpcode(B.Fn, op(Opcode::EMASK_ANDN)), 1u);
    }
  }
}

TEST(LowerControlFlowTest, ValuesLeavingADivergentLoopArePartialDefs) {
  for (bool Lcssa : {true, false}) {
    Builder B;
    buildSumLoop(B, Lcssa);
    ASSERT_FALSE(llvm::errorToBool(isel::lowerControlFlow(B.Fn)));
    std::string Text = dump(B.Fn);
    const Block *Entry = findBlock(B.Fn, "entry");
    const Block *Loop = findBlock(B.Fn, "loop");
    ASSERT_TRUE(Entry && Loop);
    for (const Inst &I : Entry->Insts)
      EXPECT_FALSE(I.PartialDef) << "entry runs with every lane\n" << Text;
    bool SawSum = false, Narrowed = false;
    unsigned ExitCopies = 0, BackEdgeCopies = 0;
    for (const Inst &I : Loop->Insts) {
      if (I.Opcode == op(Opcode::EMASK_AND) || I.Opcode == op(Opcode::EMASK_ANDN))
        Narrowed = true;
      if (I.Opcode == COPY) {
        // Before the narrowing, exit copies: a lane that leaves keeps its
        // exit value while the others go round (partial). After it, the
        // back edge's: the lanes left out never read a header phi again.
        ++(Narrowed ? BackEdgeCopies : ExitCopies);
        EXPECT_EQ(I.PartialDef, !Narrowed) << Text;
      }
      if (I.Opcode == op(Opcode::ADD)) {
        SawSum = true;
        // Without LCSSA the sum itself is used after the loop.
        EXPECT_EQ(I.PartialDef, !Lcssa) << Text;
      }
    }
    EXPECT_TRUE(SawSum);
    EXPECT_EQ(ExitCopies, Lcssa ? 1u : 0u) << Text;
    // The new sum and count are computed into the header phis' registers
    // (mergeLoopCarriedValues): the back edge copies nothing.
    EXPECT_EQ(BackEdgeCopies, 0u) << Text;
  }
}

/// A loop-carried value computed in the latch is written into its header
/// phi (no back-edge copy) when the phi is not read after it, and keeps its
/// copy when it is: read later in the latch, by the latch's branch, by
/// another header phi's back edge, or after the loop. Every form runs on
/// the warp interpreter against the lane-at-a-time reference.
TEST(LowerControlFlowTest, LoopCarriedValueIsComputedIntoItsHeaderPhiUnlessThePhiIsReadAfter) {
  enum Reader { None, LaterInLatch, Branch, OtherPhi, AfterLoop };
  for (Reader R : {None, LaterInLatch, Branch, OtherPhi, AfterLoop}) {
    SCOPED_TRACE("reader " + std::to_string(R));
    // s = 0; i = 0; do { s1 = s + i; i1 = i + 1; } while (i1 <= (lane & 7));
    // then store s1 (or what the case reads) for the lane.
    Builder B;
    Block *Entry = B.block("entry"), *Loop = B.block("loop", 1), *Exit = B.block("exit");
    auto [Lane, Addr] = B.laneAndAddr(Entry);
    Reg N = B.ri(Entry, Opcode::ANDI, Lane, 7);
    Reg Zero = B.li(Entry, 0);
    B.br(Entry, Loop);
    Reg I = B.phi(Loop), S = B.phi(Loop);
    Reg Prev = R == OtherPhi ? B.phi(Loop) : NoReg; // the sum one iteration late
    Reg S1 = B.rr(Loop, Opcode::ADD, S, I);
    Reg I1 = B.ri(Loop, Opcode::ADDI, I, 1);
    Reg Limit = N;
    if (R == LaterInLatch) // n + s1 - s - i == n, reading s after s1's def
      Limit =
          B.rr(Loop, Opcode::SUB, B.rr(Loop, Opcode::SUB, B.rr(Loop, Opcode::ADD, N, S1), S), I);
    Reg Done = R == Branch ? B.rr(Loop, Opcode::SETLT, N, B.rr(Loop, Opcode::ADD, I1, S))
                           : B.rr(Loop, Opcode::SETLT, Limit, I1);
    B.brcond(Loop, Done, Exit, Loop, true);
    B.incoming(Loop, I, Zero, Entry);
    B.incoming(Loop, I, I1, Loop);
    B.incoming(Loop, S, Zero, Entry);
    B.incoming(Loop, S, S1, Loop);
    if (Prev != NoReg) {
      B.incoming(Loop, Prev, Zero, Entry);
      B.incoming(Loop, Prev, S, Loop);
    }
    Reg Out = B.phi(Exit);
    B.incoming(Exit, Out, R == AfterLoop ? S : R == OtherPhi ? Prev : S1, Loop);
    B.store(Exit, Addr, 0, Out);
    B.ret(Exit);

    lowerAndRun(B, [&](unsigned L) {
      uint32_t Sum = 0, Before = 0, Last = 0, K = 0;
      uint32_t Lim = L & 7;
      for (;;) { // the do-while above, per lane
        Before = Last;
        Last = Sum;
        Sum += K;
        ++K;
        bool Leave = R == Branch ? Lim < K + Last : Lim < K;
        if (Leave)
          break;
      }
      if (R == AfterLoop)
        return Last;
      if (R == OtherPhi)
        return Before;
      return Sum;
    });
    const Block *LoopB = findBlock(B.Fn, "loop");
    ASSERT_TRUE(LoopB);
    bool Narrowed = false, SumCopied = false, SumIntoPhi = false;
    for (const Inst &I2 : LoopB->Insts) {
      if (I2.Opcode == op(Opcode::EMASK_ANDN))
        Narrowed = true;
      if (Narrowed && I2.Opcode == COPY && I2.Ops[0].R == S)
        SumCopied = true;
      if (I2.Opcode == op(Opcode::ADD) && I2.Ops[0].R == S)
        SumIntoPhi = true;
    }
    EXPECT_EQ(SumIntoPhi, R == None) << dump(B.Fn);
    EXPECT_EQ(SumCopied, R != None) << dump(B.Fn);
  }
}

/// do { if ((i & 1) == 0) acc += i; } while (++i < n) behind a uniform branch,
/// so the loop needs a new preheader and the skip edge a split.
TEST(LowerControlFlowTest, IfInsideDivergentLoopWithCreatedPreheader) {
  Builder B;
  Block *Entry = B.block("entry"), *H = B.block("h", 1), *T = B.block("t", 1),
        *L = B.block("l", 1), *X = B.block("x"), *Done = B.block("done");
  auto [Lane, Addr] = B.laneAndAddr(Entry);
  Reg N = B.ri(Entry, Opcode::ANDI, Lane, 15);
  Reg U = B.li(Entry, 1);
  Reg Zero = B.li(Entry, 0);
  B.brcond(Entry, U, H, Done, false);
  Reg I = B.phi(H), Acc = B.phi(H);
  Reg Odd = B.ri(H, Opcode::ANDI, I, 1);
  Reg Even = B.ri(H, Opcode::SETEQI, Odd, 0);
  B.brcond(H, Even, T, L, true);
  Reg Acc1 = B.rr(T, Opcode::ADD, Acc, I);
  B.br(T, L);
  Reg Acc2 = B.phi(L);
  B.incoming(L, Acc2, Acc, H);
  B.incoming(L, Acc2, Acc1, T);
  Reg I1 = B.ri(L, Opcode::ADDI, I, 1);
  Reg C = B.rr(L, Opcode::SETLT, I1, N);
  B.brcond(L, C, H, X, true);
  B.incoming(H, I, Zero, Entry);
  B.incoming(H, I, I1, L);
  B.incoming(H, Acc, Zero, Entry);
  B.incoming(H, Acc, Acc2, L);
  Reg RX = B.phi(X);
  B.incoming(X, RX, Acc2, L);
  B.br(X, Done);
  Reg R = B.phi(Done);
  B.incoming(Done, R, Zero, Entry);
  B.incoming(Done, R, RX, X);
  B.store(Done, Addr, 0, R);
  B.ret(Done);
  lowerAndRun(B, [](unsigned Lane) {
    unsigned N = Lane & 15, Acc = 0;
    for (unsigned I = 0; I == 0 || I < N; ++I)
      if (I % 2 == 0)
        Acc += I;
    return Acc;
  });
  const Block *PH = findBlock(B.Fn, "h.preheader");
  ASSERT_TRUE(PH) << dump(B.Fn);
  EXPECT_EQ(PH->LoopDepth, 0u);
  bool SavesMask = false;
  for (const Inst &I : PH->Insts)
    SavesMask |= I.Opcode == op(Opcode::EMASK_GET);
  EXPECT_TRUE(SavesMask) << dump(B.Fn);
  EXPECT_TRUE(findBlock(B.Fn, "entry.to.done")) << dump(B.Fn);
}

/// Two loop entries: the new preheader merges their values with a phi.
TEST(LowerControlFlowTest, PreheaderMergesValuesFromSeveralEntries) {
  for (int U : {0, 1}) {
    Builder B;
    Block *Entry = B.block("entry"), *A = B.block("a"), *Bb = B.block("b"),
          *H = B.block("h", 1), *X = B.block("x");
    auto [Lane, Addr] = B.laneAndAddr(Entry);
    Reg Lim = B.ri(Entry, Opcode::ANDI, Lane, 7);
    Lim = B.ri(Entry, Opcode::ADDI, Lim, 4);
    B.brcond(Entry, B.li(Entry, U), A, Bb, false);
    Reg X0 = B.li(A, 3);
    B.br(A, H);
    Reg X1 = B.li(Bb, 5);
    B.br(Bb, H);
    Reg I = B.phi(H);
    Reg I1 = B.ri(H, Opcode::ADDI, I, 1);
    Reg C = B.rr(H, Opcode::SETLT, I1, Lim);
    B.brcond(H, C, H, X, true);
    B.incoming(H, I, X0, A);
    B.incoming(H, I, X1, Bb);
    B.incoming(H, I, I1, H);
    Reg R = B.phi(X);
    B.incoming(X, R, I1, H);
    B.store(X, Addr, 0, R);
    B.ret(X);
    lowerAndRun(B, [&](unsigned L) {
      unsigned Start = U ? 3 : 5;
      return std::max(Start + 1, (L & 7) + 4);
    });
    EXPECT_TRUE(findBlock(B.Fn, "h.preheader")) << dump(B.Fn);
  }
}

/// The structurized form of: for (i = 0;; ++i) if (i == (lane & 15)) break;
TEST(LowerControlFlowTest, BreakOutOfDivergentLoop) {
  Builder B;
  Block *Entry = B.block("entry"), *H = B.block("h", 1), *Body = B.block("body", 1),
        *Flow = B.block("flow", 1), *X = B.block("x");
  auto [Lane, Addr] = B.laneAndAddr(Entry);
  Reg Lim = B.ri(Entry, Opcode::ANDI, Lane, 15);
  Reg Zero = B.li(Entry, 0), One = B.li(Entry, 1);
  B.br(Entry, H);
  Reg I = B.phi(H);
  Reg C = B.rr(H, Opcode::SETEQ, I, Lim);
  B.brcond(H, C, Flow, Body, true);
  Reg I1 = B.ri(Body, Opcode::ADDI, I, 1);
  B.br(Body, Flow);
  Reg Brk = B.phi(Flow), INext = B.phi(Flow);
  B.incoming(Flow, Brk, One, H);
  B.incoming(Flow, Brk, Zero, Body);
  B.incoming(Flow, INext, I, H);
  B.incoming(Flow, INext, I1, Body);
  B.brcond(Flow, Brk, X, H, true);
  B.incoming(H, I, Zero, Entry);
  B.incoming(H, I, INext, Flow);
  Reg R = B.phi(X);
  B.incoming(X, R, INext, Flow);
  B.store(X, Addr, 0, R);
  B.ret(X);
  WarpStats S = lowerAndRun(B, [](unsigned L) { return L & 15; });
  EXPECT_EQ(S.BanyTaken, 15u);
  // The last iteration's body runs in no lane: bnone skips it.
  EXPECT_EQ(S.BnoneTaken, 1u);
}

/// for j in 0..a: for k in 0..b: s += j, with a and b per lane.
TEST(LowerControlFlowTest, NestedDivergentLoops) {
  Builder B;
  Block *Entry = B.block("entry"), *OH = B.block("oh", 1), *IH = B.block("ih", 2),
        *OL = B.block("ol", 1), *X = B.block("x");
  auto [Lane, Addr] = B.laneAndAddr(Entry);
  Reg A = B.ri(Entry, Opcode::ANDI, Lane, 3);
  Reg Bv = B.ri(Entry, Opcode::SHRI, Lane, 2);
  Bv = B.ri(Entry, Opcode::ANDI, Bv, 3);
  Reg Zero = B.li(Entry, 0);
  B.br(Entry, OH);
  Reg J = B.phi(OH), S = B.phi(OH);
  B.br(OH, IH);
  Reg K = B.phi(IH), T = B.phi(IH);
  Reg T1 = B.rr(IH, Opcode::ADD, T, J);
  Reg K1 = B.ri(IH, Opcode::ADDI, K, 1);
  Reg CI = B.rr(IH, Opcode::SETLT, Bv, K1);
  B.brcond(IH, CI, OL, IH, true);
  B.incoming(IH, K, Zero, OH);
  B.incoming(IH, K, K1, IH);
  B.incoming(IH, T, S, OH);
  B.incoming(IH, T, T1, IH);
  Reg S2 = B.phi(OL);
  B.incoming(OL, S2, T1, IH);
  Reg J1 = B.ri(OL, Opcode::ADDI, J, 1);
  Reg CO = B.rr(OL, Opcode::SETLT, A, J1);
  B.brcond(OL, CO, X, OH, true);
  B.incoming(OH, J, Zero, Entry);
  B.incoming(OH, J, J1, OL);
  B.incoming(OH, S, Zero, Entry);
  B.incoming(OH, S, S2, OL);
  Reg R = B.phi(X);
  B.incoming(X, R, S2, OL);
  B.store(X, Addr, 0, R);
  B.ret(X);
  lowerAndRun(B, [](unsigned L) {
    unsigned A = L & 3, Bv = (L >> 2) & 3;
    return (Bv + 1) * A * (A + 1) / 2;
  });
  EXPECT_EQ(countOpcode(B.Fn, op(Opcode::BANY)), 2u);
  EXPECT_EQ(countOpcode(B.Fn, op(Opcode::EMASK_GET)), 2u) << dump(B.Fn);
}

//===----------------------------------------------------------------------===//
// Uniform branches and out of SSA
//===----------------------------------------------------------------------===//

TEST(LowerControlFlowTest, UniformBranchFallsIntoTheSuccessorLaidOutNext) {
  // Input order a, b, c, c2; a: brcond u, T, F. a stores 1, c and c2
  // overwrite it with 22 and 33 and go on to b, the return block. The layout
  // puts b last (it post-dominates c and c2) and a's true side right after
  // a, so a branches to the other side: bz when the false side is b or
  // c2, bnz when the true side is b.
  struct Shape {
    const char *T, *F;
    std::vector<Opcode> Want;
    std::vector<std::string> Layout;
  };
  for (const Shape &Sh : {Shape{"c", "b", {Opcode::BZ}, {"a", "c", "b"}},
                          Shape{"b", "c", {Opcode::BNZ}, {"a", "c", "b"}},
                          Shape{"c", "c2", {Opcode::BZ}, {"a", "c", "c2", "b"}}}) {
    for (int U : {0, 1}) {
      SCOPED_TRACE(std::string(Sh.T) + "," + Sh.F + " u=" + std::to_string(U));
      Builder B;
      Block *A = B.block("a"), *Bb = B.block("b"), *C = B.block("c"), *C2 = B.block("c2");
      auto Named = [&](std::string N) { return N == "b" ? Bb : N == "c" ? C : C2; };
      auto [Lane, Addr] = B.laneAndAddr(A);
      B.store(A, Addr, 0, B.li(A, 1));
      Reg Uv = B.li(A, U);
      B.brcond(A, Uv, Named(Sh.T), Named(Sh.F), false);
      B.ret(Bb);
      B.store(C, Addr, 0, B.li(C, 22));
      B.br(C, Bb);
      B.store(C2, Addr, 0, B.li(C2, 33));
      B.br(C2, Bb);
      std::string Taken = U ? Sh.T : Sh.F;
      uint32_t Want = Taken == "b" ? 1 : Taken == "c" ? 22 : 33;
      lowerAndRun(B, [&](unsigned) { return Want; });
      std::vector<std::string> Layout;
      for (const auto &Blk : B.Fn.Blocks)
        Layout.push_back(Blk->Name);
      EXPECT_EQ(Layout, Sh.Layout) << dump(B.Fn);
      const Block *Lowered = findBlock(B.Fn, "a");
      ASSERT_TRUE(Lowered);
      std::vector<Opcode> Got;
      for (const Inst &I : Lowered->Insts)
        if (!I.isPseudo() && simt::getDesc(Opcode(I.Opcode)).has(simt::IsTerminator))
          Got.push_back(Opcode(I.Opcode));
      EXPECT_EQ(Got, Sh.Want) << dump(B.Fn);
    }
  }
}

TEST(LowerControlFlowTest, LayoutFollowsTheCfgSoBrBecomesFallThrough) {
  Builder B;
  Block *A = B.block("a"), *Bb = B.block("b"), *C = B.block("c");
  auto [Lane, Addr] = B.laneAndAddr(A);
  B.br(A, C);
  B.store(Bb, Addr, 0, B.li(Bb, 1));
  B.ret(Bb);
  B.store(C, Addr, 0, B.li(C, 2));
  B.br(C, Bb);
  // Input order a, b, c with a -> c -> b: laid out a, c, b, no jump at all.
  lowerAndRun(B, [](unsigned) { return 1u; });
  ASSERT_EQ(B.Fn.Blocks.size(), 3u);
  EXPECT_EQ(B.Fn.Blocks[1]->Name, "c");
  EXPECT_EQ(countOpcode(B.Fn, op(Opcode::BRA)), 0u) << dump(B.Fn);
  EXPECT_EQ(B.Fn.Blocks[2]->Insts.back().Opcode, op(Opcode::EXIT));
}

/// StructurizeCFG's habit: the join ("Flow") block listed before the region
/// it joins, here a divergent if around a divergent loop. The layout puts
/// the region (preheader, loop) right after the if-header and the join
/// right after the loop's exit, so no bra is needed anywhere.
TEST(LowerControlFlowTest, JoinListedBeforeItsRegionIsLaidOutAfterIt) {
  Builder B;
  Block *Entry = B.block("entry"), *Flow = B.block("flow"), *Body = B.block("body", 1),
        *End = B.block("end");
  auto [Lane, Addr] = B.laneAndAddr(Entry);
  Reg C = B.ri(Entry, Opcode::SETLTI, Lane, 20);
  Reg Zero = B.li(Entry, 0), Hundred = B.li(Entry, 100);
  B.brcond(Entry, C, Body, Flow, true);
  // body: i += 1 while i < lane (at least once)
  Reg I = B.phi(Body, false), S = B.phi(Body, false);
  Reg I1 = B.ri(Body, Opcode::ADDI, I, 1);
  Reg S1 = B.rr(Body, Opcode::ADD, S, I1);
  Reg More = B.rr(Body, Opcode::SETLT, I1, Lane);
  B.brcond(Body, More, Body, Flow, true);
  B.incoming(Body, I, Zero, Entry);
  B.incoming(Body, I, I1, Body);
  B.incoming(Body, S, Zero, Entry);
  B.incoming(Body, S, S1, Body);
  Reg X = B.phi(Flow);
  B.incoming(Flow, X, Hundred, Entry);
  B.incoming(Flow, X, S1, Body);
  B.br(Flow, End);
  B.store(End, Addr, 0, X);
  B.ret(End);
  lowerAndRun(B, [](unsigned L) {
    if (L >= 20)
      return 100u;
    unsigned N = std::max(L, 1u);
    return N * (N + 1) / 2;
  });
  EXPECT_EQ(countOpcode(B.Fn, op(Opcode::BRA)), 0u) << dump(B.Fn);
  std::vector<std::string> Layout;
  for (const auto &Blk : B.Fn.Blocks)
    Layout.push_back(Blk->Name);
  EXPECT_EQ(Layout, (std::vector<std::string>{"entry", "body.preheader", "body", "flow", "end"}))
      << dump(B.Fn);
}

/// a, b = b, a on every iteration of a uniform loop: the copies need a temp.
TEST(LowerControlFlowTest, SwapPhisBecomeACycleThroughATemporary) {
  Builder B;
  Block *Entry = B.block("entry"), *H = B.block("h", 1), *X = B.block("x");
  auto [Lane, Addr] = B.laneAndAddr(Entry);
  Reg A0 = Lane, B0 = B.ri(Entry, Opcode::ADDI, Lane, 100);
  Reg Zero = B.li(Entry, 0);
  B.br(Entry, H);
  Reg A = B.phi(H), Bv = B.phi(H), I = B.phi(H, true);
  Reg I1 = B.ri(H, Opcode::ADDI, I, 1, true);
  Reg C = B.ri(H, Opcode::SETLTI, I1, 3, true);
  B.brcond(H, C, H, X, false);
  B.incoming(H, A, A0, Entry);
  B.incoming(H, A, Bv, H);
  B.incoming(H, Bv, B0, Entry);
  B.incoming(H, Bv, A, H);
  B.incoming(H, I, Zero, Entry);
  B.incoming(H, I, I1, H);
  B.store(X, Addr, 0, A);
  B.store(X, Addr, 128, Bv);
  B.ret(X);
  // Three iterations: swapped twice.
  lowerAndRun(B, [](unsigned L) { return L; }, 2);
  // The back edge of a two-way uniform branch is critical: split.
  const Block *Split = findBlock(B.Fn, "h.to.h");
  ASSERT_TRUE(Split) << dump(B.Fn);
  unsigned Copies = 0;
  for (const Inst &I : Split->Insts) {
    Copies += I.Opcode == COPY;
    EXPECT_FALSE(I.PartialDef) << "uniform code writes every lane";
  }
  EXPECT_EQ(Copies, 4u) << dump(B.Fn); // temp, a, b, i
  EXPECT_EQ(Split->Insts.back().Opcode, op(Opcode::BRA));
}

TEST(LowerControlFlowTest, ParallelCopyReadsASourceBeforeOverwritingIt) {
  // x' = y, y' = 7: y must be read into x before y changes (no cycle).
  Builder B;
  Block *Entry = B.block("entry"), *H = B.block("h", 1), *X = B.block("x");
  auto [Lane, Addr] = B.laneAndAddr(Entry);
  Reg Seven = B.li(Entry, 7), Zero = B.li(Entry, 0);
  B.br(Entry, H);
  Reg Y = B.phi(H), Xv = B.phi(H), I = B.phi(H, true);
  Reg I1 = B.ri(H, Opcode::ADDI, I, 1, true);
  Reg C = B.ri(H, Opcode::SETLTI, I1, 2, true);
  B.brcond(H, C, H, X, false);
  B.incoming(H, Xv, Zero, Entry);
  B.incoming(H, Xv, Y, H);
  B.incoming(H, Y, Lane, Entry);
  B.incoming(H, Y, Seven, H);
  B.incoming(H, I, Zero, Entry);
  B.incoming(H, I, I1, H);
  B.store(X, Addr, 0, Xv);
  B.ret(X);
  lowerAndRun(B, [](unsigned L) { return L; });
}

TEST(LowerControlFlowTest, CriticalEdgeOfUniformBranchIsSplitBeforeAPhi) {
  for (int U : {0, 1}) {
    Builder B;
    Block *Entry = B.block("entry"), *Mid = B.block("mid"), *J = B.block("join");
    auto [Lane, Addr] = B.laneAndAddr(Entry);
    Reg One = B.li(Entry, 1);
    B.brcond(Entry, B.li(Entry, U), Mid, J, false);
    Reg Two = B.ri(Mid, Opcode::ADDI, Lane, 2);
    B.br(Mid, J);
    Reg X = B.phi(J);
    B.incoming(J, X, One, Entry);
    B.incoming(J, X, Two, Mid);
    B.store(J, Addr, 0, X);
    B.ret(J);
    lowerAndRun(B, [&](unsigned L) { return U ? L + 2 : 1u; });
    const Block *Split = findBlock(B.Fn, "entry.to.join");
    ASSERT_TRUE(Split) << dump(B.Fn);
    // The constant is loaded straight into the phi's register, and the
    // LI it came from, read by nothing else, is gone.
    const Inst &Load = Split->Insts.front();
    EXPECT_EQ(Load.Opcode, LI) << dump(B.Fn);
    EXPECT_EQ(Load.Ops[0].R, X) << dump(B.Fn);
    EXPECT_EQ(Load.Ops[1].Imm, 1) << dump(B.Fn);
    for (const auto &Blk : B.Fn.Blocks)
      for (const Inst &I : Blk->Insts)
        EXPECT_FALSE(I.Opcode == LI && I.Ops[0].R == One) << dump(B.Fn);
    EXPECT_EQ(countOpcode(B.Fn, COPY), 0u) << dump(B.Fn); // mid's addi writes X
    // mid's copy is not on a critical edge: it stays in mid.
    EXPECT_FALSE(findBlock(B.Fn, "mid.to.join"));
    EXPECT_EQ(B.Fn.Blocks.size(), 4u);
  }
}

//===----------------------------------------------------------------------===//
// Random structured programs: the shapes StructurizeCFG leaves, nested at
// random (divergent if-then, if-then-else through a Flow block, divergent
// do-while loops with and without LCSSA phis, uniform ifs and loops), every
// variable stored at the end; input and lowered code must agree.
//===----------------------------------------------------------------------===//

class RandomProgram {
public:
  RandomProgram(Builder &B, uint32_t Seed) : B(B), State(Seed * 2654435761u + 1) {}

  void build() {
    Block *Cur = B.block("entry");
    auto [L, A] = B.laneAndAddr(Cur);
    Lane = L;
    Addr = A;
    Env Vars;
    for (unsigned K = 0; K < NumVars; ++K)
      Vars.push_back(B.ri(Cur, Opcode::ADDI, Lane, rand(100)));
    body(Cur, Vars, 0);
    for (unsigned K = 0; K < NumVars; ++K)
      B.store(Cur, Addr, 128 * K, Vars[K]);
    B.ret(Cur);
  }

private:
  using Env = std::vector<Reg>;
  static constexpr unsigned NumVars = 3;
  Builder &B;
  uint32_t State;
  Reg Lane = 0, Addr = 0;
  unsigned Names = 0;

  unsigned rand(unsigned N) {
    State = State * 1103515245u + 12345u;
    return (State >> 8) % N;
  }
  Block *newBlock(const char *What, unsigned Depth) {
    return B.block(std::string(What) + std::to_string(Names++), Depth);
  }
  Reg divergentCond(Block *Cur, const Env &Vars) {
    switch (rand(3)) {
    case 0:
      return B.ri(Cur, Opcode::SETLTI, Lane, rand(34)); // includes all and none
    case 1:
      return B.rr(Cur, Opcode::SETLT, Vars[rand(NumVars)], Vars[rand(NumVars)]);
    default:
      return B.ri(Cur, Opcode::SETLTI, B.ri(Cur, Opcode::ANDI, Vars[rand(NumVars)], 7),
                  rand(9));
    }
  }
  /// Phis at Join merging each variable from the given edges.
  Env merge(Block *Join, const std::vector<std::pair<Env, Block *>> &In) {
    Env Out;
    for (unsigned K = 0; K < NumVars; ++K) {
      Reg P = B.phi(Join);
      for (auto &[Vars, From] : In)
        B.incoming(Join, P, Vars[K], From);
      Out.push_back(P);
    }
    return Out;
  }

  void body(Block *&Cur, Env &Vars, unsigned Depth) {
    unsigned N = 1 + rand(3);
    for (unsigned S = 0; S < N; ++S) {
      unsigned Kind = Depth >= 3 ? 0 : rand(7);
      switch (Kind) {
      case 0:
      case 1:
        arith(Cur, Vars);
        break;
      case 2:
        ifThen(Cur, Vars, Depth, /*Divergent=*/true);
        break;
      case 3:
        ifThenElse(Cur, Vars, Depth);
        break;
      case 4:
        loop(Cur, Vars, Depth, /*Divergent=*/true);
        break;
      case 5:
        ifThen(Cur, Vars, Depth, /*Divergent=*/false);
        break;
      default:
        loop(Cur, Vars, Depth, /*Divergent=*/false);
        break;
      }
    }
  }

  void arith(Block *Cur, Env &Vars) {
    unsigned K = rand(NumVars);
    if (rand(2))
      Vars[K] = B.rr(Cur, Opcode::ADD, Vars[rand(NumVars)], Vars[rand(NumVars)]);
    else
      Vars[K] = B.ri(Cur, Opcode::ADDI, Vars[rand(NumVars)], int(rand(200)) - 100);
  }

  void ifThen(Block *&Cur, Env &Vars, unsigned Depth, bool Divergent) {
    unsigned D = Cur->LoopDepth;
    Reg C = Divergent ? divergentCond(Cur, Vars) : B.li(Cur, rand(2));
    Block *Then = newBlock("then", D), *ThenEnd = Then;
    Env ThenVars = Vars;
    body(ThenEnd, ThenVars, Depth + 1);
    Block *Join = newBlock("join", D);
    if (rand(2))
      B.brcond(Cur, C, Then, Join, Divergent);
    else // the region on the false side
      B.brcond(Cur, B.ri(Cur, Opcode::SETEQI, C, 0), Join, Then, Divergent);
    B.br(ThenEnd, Join);
    Vars = merge(Join, {{Vars, Cur}, {ThenVars, ThenEnd}});
    Cur = Join;
  }

  void ifThenElse(Block *&Cur, Env &Vars, unsigned Depth) {
    unsigned D = Cur->LoopDepth;
    Reg C = divergentCond(Cur, Vars);
    Reg One = B.li(Cur, 1), Zero = B.li(Cur, 0);
    Block *Then = newBlock("then", D), *ThenEnd = Then;
    Env ThenVars = Vars;
    body(ThenEnd, ThenVars, Depth + 1);
    Block *Flow = newBlock("flow", D);
    B.brcond(Cur, C, Then, Flow, true);
    B.br(ThenEnd, Flow);
    Env FlowVars = merge(Flow, {{Vars, Cur}, {ThenVars, ThenEnd}});
    Reg GoElse = B.phi(Flow);
    B.incoming(Flow, GoElse, One, Cur);
    B.incoming(Flow, GoElse, Zero, ThenEnd);
    Block *Else = newBlock("else", D), *ElseEnd = Else;
    Env ElseVars = FlowVars;
    body(ElseEnd, ElseVars, Depth + 1);
    Block *End = newBlock("end", D);
    B.brcond(Flow, GoElse, Else, End, true);
    B.br(ElseEnd, End);
    Vars = merge(End, {{FlowVars, Flow}, {ElseVars, ElseEnd}});
    Cur = End;
  }

  /// do { body } while (++i < trips), trips per lane when divergent.
  void loop(Block *&Cur, Env &Vars, unsigned Depth, bool Divergent) {
    unsigned D = Cur->LoopDepth;
    Reg Trips = Divergent ? B.ri(Cur, Opcode::ANDI, B.rr(Cur, Opcode::ADD, Lane, Vars[rand(NumVars)]), 3)
                          : B.li(Cur, 1 + rand(3));
    Reg Zero = B.li(Cur, 0, !Divergent);
    Block *H = newBlock("loop", D + 1);
    B.br(Cur, H);
    Reg I = B.phi(H, !Divergent);
    Env HeadVars;
    for (unsigned K = 0; K < NumVars; ++K)
      HeadVars.push_back(B.phi(H));
    Block *Latch = H;
    Env BodyVars = HeadVars;
    body(Latch, BodyVars, Depth + 1);
    Reg I1 = B.ri(Latch, Opcode::ADDI, I, 1, !Divergent);
    Reg Again = B.rr(Latch, Opcode::SETLT, I1, Trips, !Divergent);
    Block *Exit = newBlock("exit", D);
    B.brcond(Latch, Again, H, Exit, Divergent);
    B.incoming(H, I, Zero, Cur);
    B.incoming(H, I, I1, Latch);
    for (unsigned K = 0; K < NumVars; ++K) {
      B.incoming(H, HeadVars[K], Vars[K], Cur);
      B.incoming(H, HeadVars[K], BodyVars[K], Latch);
    }
    if (rand(2)) {
      Vars = merge(Exit, {{BodyVars, Latch}}); // LCSSA phis
    } else {
      Vars = BodyVars;
    }
    Cur = Exit;
  }
};

TEST(LowerControlFlowTest, RandomStructuredProgramsAgreeWithTheReference) {
  for (uint32_t Seed = 1; Seed <= 400; ++Seed) {
    SCOPED_TRACE("seed " + std::to_string(Seed));
    Builder B;
    RandomProgram(B, Seed).build();
    lowerAndRun(B, nullptr, 3);
    if (HasFailure())
      break;
  }
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

std::string lowerError(Builder &B) {
  llvm::Error E = isel::lowerControlFlow(B.Fn);
  return E ? llvm::toString(std::move(E)) : "";
}

TEST(LowerControlFlowTest, BarrierInDivergentIfIsAnError) {
  Builder B;
  buildIfThen(B, 10, false);
  Block *Then = B.Fn.Blocks[1].get();
  Then->Insts.insert(Then->Insts.begin(), Inst(op(Opcode::BAR), {}));
  Then->Insts.front().Loc = "k.cu:7";
  std::string Msg = lowerError(B);
  EXPECT_NE(Msg.find("kernel k: __syncthreads() in divergent control flow (block then"),
            std::string::npos)
      << Msg;
  EXPECT_NE(Msg.find("k.cu:7"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("every thread of the block must reach the same barrier"),
            std::string::npos);
}

TEST(LowerControlFlowTest, BarrierInDivergentLoopIsAnError) {
  Builder B;
  buildSumLoop(B, true);
  B.bar(B.Fn.Blocks[1].get());
  std::swap(B.Fn.Blocks[1]->Insts.back(), B.Fn.Blocks[1]->Insts[B.Fn.Blocks[1]->Insts.size() - 2]);
  EXPECT_NE(lowerError(B).find("__syncthreads() in divergent control flow (block loop"),
            std::string::npos);
}

TEST(LowerControlFlowTest, BarrierInUniformCodeIsFine) {
  Builder B;
  buildIfThen(B, 10, false);
  Block *Join = B.Fn.Blocks[2].get();
  Join->Insts.insert(Join->Insts.begin() + 1, Inst(op(Opcode::BAR), {}));
  lowerAndRun(B, [](unsigned L) { return L < 10 ? L + 1 : 100u; });
  EXPECT_EQ(countOpcode(B.Fn, op(Opcode::BAR)), 1u);
}

TEST(LowerControlFlowTest, UnstructuredDivergentBranchIsAnInternalError) {
  // entry -> a | b (divergent), a -> c, b -> c and a -> d: neither successor
  // of entry post-dominates it.
  Builder B;
  Block *Entry = B.block("entry"), *A = B.block("a"), *Bb = B.block("b"), *C = B.block("c"),
        *D = B.block("d"), *End = B.block("end");
  auto [Lane, Addr] = B.laneAndAddr(Entry);
  Reg Cond = B.ri(Entry, Opcode::SETLTI, Lane, 4);
  B.brcond(Entry, Cond, A, Bb, true);
  B.brcond(A, B.li(A, 1), C, D, false);
  B.br(Bb, C);
  B.br(C, End);
  B.br(D, End);
  B.store(End, Addr, 0, Lane);
  B.ret(End);
  std::string Msg = lowerError(B);
  EXPECT_NE(Msg.find("internal: kernel k: bb.entry"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("not structurized"), std::string::npos) << Msg;
}

TEST(LowerControlFlowTest, DivergentExitFromLoopMiddleIsAnInternalError) {
  // loop: h -> m; m: divergent exit to x or on to l; l -> h (uniform latch).
  Builder B;
  Block *Entry = B.block("entry"), *H = B.block("h"), *M = B.block("m"), *L = B.block("l"),
        *X = B.block("x");
  auto [Lane, Addr] = B.laneAndAddr(Entry);
  B.br(Entry, H);
  B.br(H, M);
  B.brcond(M, B.ri(M, Opcode::SETLTI, Lane, 3), X, L, true);
  B.br(L, H);
  B.store(X, Addr, 0, Lane);
  B.ret(X);
  std::string Msg = lowerError(B);
  EXPECT_NE(Msg.find("not structurized"), std::string::npos) << Msg;
}

} // namespace
