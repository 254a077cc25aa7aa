//===- SelectPtxOutOfSSA.cpp - ptx MIR out of SSA, with copy coalescing ---===//
//
// Input: SSA MIR from selectPtx (PHIs first in their blocks; blocks end in
// BR, BRCOND or RET; every vreg has its ptx::RegClass; a vreg is defined at
// most once; a vreg used but never defined is allowed and left alone).
// Guarantees: no PHI left; every vreg of a coalesced class renamed to one
// register of that class; a COPY whose source and destination ended up in
// one register removed, and so is a repeated write of the same constant to
// the same register within a block; an edge from a block with two
// successors into a block that had PHIs goes through a new block (placed
// right after the predecessor) that holds that edge's remaining copies, or
// is removed again when none remain; every other predecessor ends with its copies right
// before its terminator. The copies of one edge are a parallel copy,
// sequentialized so no source is overwritten before it is read (a cycle goes
// through one temporary). No register allocation: PTX registers are virtual
// and ptxas allocates them; the printer numbers each class densely.
//
// Why splitting is needed: the copies for the edge P -> B must run only on
// that edge. When P also branches elsewhere, copies at P's end would run on
// the other edge too, and could even overwrite the branch condition (a loop
// latch testing a header PHI).
//
// Coalescing (conservative, intersection-based, as in Sreedhar's method III
// and Budimlic et al.): liveness of the SSA MIR where a PHI's use of x from
// P is at the end of P and its def at the top of its block (all PHIs of a
// block at once). Two vregs interfere when one is live where the other is
// defined (in strict SSA two live ranges overlap exactly then) and they
// may hold different values: `d = COPY s` holds s's value, and identical
// constant instructions (`mov.f32 %f, 0f00000000`) hold the same value, so
// such pairs never interfere (value-based interference, Boissinot et al.).
// What a block's terminator reads also interferes with the PHI defs of its
// successors (their copies sit before the terminator when the edge was not
// split: a BRCOND whose two targets are one block).
// Congruence classes start as single vregs; each PHI's destination is
// joined with each of its sources, then each COPY's destination with its
// source, when the two classes have the same register class and no member
// of one interferes with a member of the other (inner loops first: their
// copies run most often). Renaming every member to one register is then
// safe: no two members holding different values are ever live at once
// (a member written while another is live writes the value the register
// already holds), and the remaining copies of
// an edge are one parallel copy (a copy into a class may overwrite another
// member only when that member is itself read by the same parallel copy,
// which reads every source first). Vregs defined more than once or never
// are not coalesced. The classic failure cases are handled: the swap
// problem (two PHIs of a loop header exchanging values interfere, so their
// copies stay and form a cycle through a temporary) and the lost-copy
// problem (a PHI's value still live after its loop interferes with the
// incoming value, so that copy stays, on the split back edge only).
//
//===----------------------------------------------------------------------===//

#include "SelectPtx.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <map>

using namespace llvm;

namespace tandem::isel {
namespace {

using mir::Block;
using mir::Inst;
using mir::Operand;
using mir::Reg;

struct Copy {
  Reg Dst, Src;
};

size_t indexOf(const mir::Function &Fn, const Block *B) {
  for (size_t K = 0; K < Fn.Blocks.size(); ++K)
    if (Fn.Blocks[K].get() == B)
      return K;
  return Fn.Blocks.size();
}

bool hasPhis(const Block &B) { return !B.Insts.empty() && B.Insts.front().Opcode == mir::PHI; }

/// The PHIs at the top of \p B.
ArrayRef<Inst> phisOf(const Block &B) {
  size_t N = 0;
  while (N < B.Insts.size() && B.Insts[N].Opcode == mir::PHI)
    ++N;
  return ArrayRef<Inst>(B.Insts).take_front(N);
}

/// Splits every critical edge P -> B where B has PHIs: a new block N
/// between them (P's terminator and B's PHIs retargeted). Returns the new
/// blocks.
std::vector<Block *> splitCriticalEdges(mir::Function &Fn) {
  std::vector<Block *> WithPhis, Created;
  for (const auto &B : Fn.Blocks)
    if (hasPhis(*B))
      WithPhis.push_back(B.get());
  unsigned Counter = 0;
  for (Block *B : WithPhis) {
    SmallVector<Block *, 4> Preds;
    for (const Operand &O : B->Insts.front().Ops)
      if (O.isBlock() && !is_contained(Preds, O.Target))
        Preds.push_back(O.Target);
    for (Block *P : Preds) {
      if (mir::successors(Fn, *P).size() < 2)
        continue;
      auto N = std::make_unique<Block>(formatv("{0}.to.{1}.{2}", P->Name, B->Name, Counter++).str());
      N->LoopDepth = std::min(P->LoopDepth, B->LoopDepth);
      N->Insts.push_back(Inst(mir::BR, {Operand::block(B)}));
      Block *NewB = N.get();
      for (Operand &O : P->Insts.back().Ops)
        if (O.isBlock() && O.Target == B)
          O.Target = NewB;
      for (Inst &Phi : B->Insts) {
        if (Phi.Opcode != mir::PHI)
          break;
        for (Operand &O : Phi.Ops)
          if (O.isBlock() && O.Target == P)
            O.Target = NewB;
      }
      Fn.Blocks.insert(Fn.Blocks.begin() + indexOf(Fn, P) + 1, std::move(N));
      Created.push_back(NewB);
    }
  }
  return Created;
}

//===--- liveness and interference of the SSA MIR -------------------------===//

/// True for an instruction that writes one register from immediates only
/// (`mov.f32 %f, 0f00000000`, `mov.u64 %rd, sym`, a constant predicate).
bool isConstantDef(const Inst &I) {
  return !I.isPseudo() && !I.Ops.empty() && I.Ops[0].isReg() && I.Ops[0].IsDef &&
         I.Opcode != unsigned(ptx::Opcode::MOV_SREG) && ptx::getDesc(I.Opcode).isPure() &&
         all_of(drop_begin(I.Ops), [](const Operand &O) { return O.isImm(); });
}


/// Which vregs interfere (see the file comment), by vreg index
/// (Reg - VirtRegBase).
class InterferenceGraph {
public:
  explicit InterferenceGraph(const mir::Function &Fn) : NumRegs(Fn.numVRegs()) {
    computeValues(Fn);
    std::vector<BitVector> LiveOut = mir::ssaLiveOut(Fn);
    for (size_t K = 0; K < Fn.Blocks.size(); ++K)
      addBlockInterference(Fn, *Fn.Blocks[K], LiveOut[K]);
  }

  bool interfere(unsigned A, unsigned B) const {
    return Edges.contains({std::min(A, B), std::max(A, B)});
  }

private:
  static bool isVReg(const Operand &O) { return O.isReg() && mir::isVirtual(O.R); }
  static unsigned idx(Reg R) { return R - mir::VirtRegBase; }

  void add(unsigned A, unsigned B) {
    if (A != B && Value[A] != Value[B])
      Edges.insert({std::min(A, B), std::max(A, B)});
  }

  /// Value[K]: a vreg index standing for the value vreg K holds. A COPY's
  /// destination holds its source's value; instructions that compute a
  /// constant from immediates alone (`mov.f32 %f, 0f00000000`, a symbol's
  /// address, a constant predicate) hold the same value as every identical
  /// one. Two vregs with one value may share a register even where both
  /// are live (value-based interference, Boissinot et al.): whichever
  /// writes it writes what it already holds.
  void computeValues(const mir::Function &Fn) {
    Value.resize(NumRegs);
    for (unsigned K = 0; K < NumRegs; ++K)
      Value[K] = K;
    // Only vregs defined exactly once have one value.
    std::vector<unsigned> Defs(NumRegs, 0);
    for (const auto &B : Fn.Blocks)
      for (const Inst &I : B->Insts)
        for (const Operand &O : I.Ops)
          if (isVReg(O) && O.IsDef)
            ++Defs[idx(O.R)];
    std::map<std::pair<unsigned, SmallVector<int64_t, 4>>, unsigned> Constants;
    DenseMap<unsigned, unsigned> CopyOf;
    for (const auto &B : Fn.Blocks)
      for (const Inst &I : B->Insts) {
        if (I.Ops.empty() || !isVReg(I.Ops[0]) || Defs[idx(I.Ops[0].R)] != 1)
          continue;
        if (I.Opcode == mir::COPY) {
          if (isVReg(I.Ops[1]) && Defs[idx(I.Ops[1].R)] == 1)
            CopyOf[idx(I.Ops[0].R)] = idx(I.Ops[1].R);
          continue;
        }
        if (!isConstantDef(I))
          continue;
        std::pair<unsigned, SmallVector<int64_t, 4>> Key{I.Opcode, {}};
        for (const Operand &O : drop_begin(I.Ops))
          Key.second.push_back(O.Imm);
        Value[idx(I.Ops[0].R)] = Constants.try_emplace(Key, idx(I.Ops[0].R)).first->second;
      }
    // Follow copy chains (SSA: acyclic; the bound guards malformed input).
    for (auto [Dst, Src] : CopyOf) {
      unsigned V = Src;
      for (unsigned Steps = 0; CopyOf.count(V) && Steps < NumRegs; ++Steps)
        V = CopyOf.lookup(V);
      Value[Dst] = Value[V];
    }
  }

  /// Walks \p B backwards from its live-out set \p Live
  /// (mir::ssaLiveOut): each def interferes with everything live right
  /// after it (a COPY's def not with its source); the PHI defs with
  /// everything live below the PHIs and with each other.
  void addBlockInterference(const mir::Function &Fn, const Block &B, BitVector Live) {
    ArrayRef<Inst> Phis = phisOf(B);
    for (size_t K = B.Insts.size(); K-- > Phis.size();) {
      const Inst &I = B.Insts[K];
      for (const Operand &D : I.Ops) {
        if (!isVReg(D) || !D.IsDef)
          continue;
        for (unsigned L : Live.set_bits())
          add(idx(D.R), L);
        for (const Operand &D2 : I.Ops) // defs of one instruction
          if (isVReg(D2) && D2.IsDef)
            add(idx(D.R), idx(D2.R));
      }
      for (const Operand &D : I.Ops)
        if (isVReg(D) && D.IsDef)
          Live.reset(idx(D.R));
      for (const Operand &U : I.Ops)
        if (isVReg(U) && !U.IsDef)
          Live.set(idx(U.R));
    }
    for (const Inst &Phi : Phis) {
      unsigned D = idx(Phi.Ops[0].R);
      for (unsigned L : Live.set_bits())
        add(D, L);
      for (const Inst &Other : Phis)
        add(D, idx(Other.Ops[0].R));
    }
    // The copies of an edge P -> B sit before P's terminator, so whatever
    // the terminator reads (a branch condition when both of a BRCOND's
    // targets are B, so the edge was not split) must survive B's PHI defs.
    for (Block *S : mir::successors(Fn, B))
      for (const Inst &Phi : phisOf(*S))
        for (const Operand &U : B.Insts.back().Ops)
          if (isVReg(U) && !U.IsDef)
            add(idx(Phi.Ops[0].R), idx(U.R));
  }

  unsigned NumRegs;
  std::vector<unsigned> Value;
  DenseSet<std::pair<unsigned, unsigned>> Edges;
};

//===--- congruence classes -----------------------------------------------===//

/// Union-find over vreg indices that keeps each class's members, so two
/// classes can be checked member by member before they are joined.
class CongruenceClasses {
public:
  CongruenceClasses(const mir::Function &Fn, const InterferenceGraph &IG)
      : Fn(Fn), IG(IG), Leader(Fn.numVRegs()), Members(Fn.numVRegs()),
        DefCount(Fn.numVRegs(), 0) {
    for (unsigned K = 0; K < Fn.numVRegs(); ++K) {
      Leader[K] = K;
      Members[K] = {K};
    }
    for (const auto &B : Fn.Blocks)
      for (const Inst &I : B->Insts)
        for (const Operand &O : I.Ops)
          if (O.isReg() && O.IsDef && mir::isVirtual(O.R))
            ++DefCount[O.R - mir::VirtRegBase];
  }

  /// Joins the classes of \p A and \p B when that is safe; true if joined.
  bool tryJoin(Reg A, Reg B) {
    if (!mir::isVirtual(A) || !mir::isVirtual(B))
      return false;
    unsigned IA = A - mir::VirtRegBase, IB = B - mir::VirtRegBase;
    if (DefCount[IA] != 1 || DefCount[IB] != 1 ||
        Fn.info(A).RegClass != Fn.info(B).RegClass)
      return false;
    unsigned LA = find(IA), LB = find(IB);
    if (LA == LB)
      return false;
    for (unsigned X : Members[LA])
      for (unsigned Y : Members[LB])
        if (IG.interfere(X, Y))
          return false;
    if (Members[LA].size() < Members[LB].size())
      std::swap(LA, LB);
    Leader[LB] = LA;
    Members[LA].append(Members[LB].begin(), Members[LB].end());
    Members[LB].clear();
    return true;
  }

  Reg representative(Reg R) {
    if (!mir::isVirtual(R))
      return R;
    return find(R - mir::VirtRegBase) + mir::VirtRegBase;
  }

private:
  unsigned find(unsigned K) {
    while (Leader[K] != K)
      K = Leader[K] = Leader[Leader[K]];
    return K;
  }

  const mir::Function &Fn;
  const InterferenceGraph &IG;
  std::vector<unsigned> Leader;
  std::vector<SmallVector<unsigned, 2>> Members;
  std::vector<unsigned> DefCount;
};

/// Value-based coalescing may join identical constants of one block (two
/// PHIs' initial zeros): the second write of the same constant to the same
/// register, with no other write between, is dropped.
void removeRepeatedConstants(mir::Function &Fn) {
  using ConstantKey = std::pair<unsigned, SmallVector<int64_t, 4>>;
  auto KeyOf = [](const Inst &I) {
    ConstantKey K{I.Opcode, {}};
    for (const Operand &O : drop_begin(I.Ops))
      K.second.push_back(O.Imm);
    return K;
  };
  for (const auto &B : Fn.Blocks) {
    std::map<Reg, ConstantKey> Holds; // register -> the constant it holds
    erase_if(B->Insts, [&](const Inst &I) {
      if (isConstantDef(I)) {
        ConstantKey K = KeyOf(I);
        auto It = Holds.find(I.Ops[0].R);
        if (It != Holds.end() && It->second == K)
          return true;
        Holds[I.Ops[0].R] = std::move(K);
        return false;
      }
      for (const Operand &O : I.Ops)
        if (O.isReg() && O.IsDef)
          Holds.erase(O.R);
      return false;
    });
  }
}

/// Joins PHI webs, then COPYs, inner loops first; renames every register
/// operand (PHIs included) to its class's representative.
void coalesce(mir::Function &Fn) {
  InterferenceGraph Interference(Fn);
  CongruenceClasses Classes(Fn, Interference);
  std::vector<Block *> ByDepth;
  for (const auto &B : Fn.Blocks)
    ByDepth.push_back(B.get());
  llvm::stable_sort(ByDepth, [](Block *A, Block *B) { return A->LoopDepth > B->LoopDepth; });
  for (Block *B : ByDepth)
    for (const Inst &Phi : phisOf(*B))
      for (size_t K = 1; K + 1 < Phi.Ops.size(); K += 2)
        Classes.tryJoin(Phi.Ops[0].R, Phi.Ops[K].R);
  for (Block *B : ByDepth)
    for (const Inst &I : B->Insts)
      if (I.Opcode == mir::COPY && I.Ops[1].isReg())
        Classes.tryJoin(I.Ops[0].R, I.Ops[1].R);
  for (const auto &B : Fn.Blocks)
    for (Inst &I : B->Insts)
      for (Operand &O : I.Ops)
        if (O.isReg())
          O.R = Classes.representative(O.R);
  for (const auto &B : Fn.Blocks)
    erase_if(B->Insts, [](const Inst &I) {
      return I.Opcode == mir::COPY && I.Ops[1].isReg() && I.Ops[0].R == I.Ops[1].R;
    });
  removeRepeatedConstants(Fn);
}

/// Emits the parallel copy \p Copies as a sequence before \p At's
/// terminator: a copy is emitted once no pending copy still reads its
/// destination; when only cycles remain, one destination is saved in a
/// temporary first.
void sequentialize(mir::Function &Fn, Block &At, std::vector<Copy> Copies) {
  erase_if(Copies, [](const Copy &C) { return C.Dst == C.Src; });
  std::vector<Inst> Out;
  auto Emit = [&](Reg Dst, Reg Src) {
    Out.push_back(Inst(mir::COPY, {Operand::def(Dst), Operand::use(Src)}));
  };
  while (!Copies.empty()) {
    auto Ready = find_if(Copies, [&](const Copy &C) {
      return none_of(Copies, [&](const Copy &O) { return O.Src == C.Dst; });
    });
    if (Ready != Copies.end()) {
      Emit(Ready->Dst, Ready->Src);
      Copies.erase(Ready);
      continue;
    }
    // Every destination is still read: a cycle. Save one destination.
    Reg Saved = Copies.front().Dst;
    Reg Temp = Fn.newVReg();
    Fn.info(Temp).RegClass = Fn.info(Saved).RegClass;
    Emit(Temp, Saved);
    for (Copy &C : Copies)
      if (C.Src == Saved)
        C.Src = Temp;
  }
  At.Insts.insert(At.Insts.end() - 1, Out.begin(), Out.end());
}

/// Removes split-edge blocks whose copies all coalesced away (only their
/// BR is left): their predecessor branches straight to the target again.
void removeEmptySplitBlocks(mir::Function &Fn, ArrayRef<Block *> Split) {
  for (Block *N : Split) {
    if (N->Insts.size() != 1 || N->Insts.front().Opcode != mir::BR)
      continue;
    Block *Target = N->Insts.front().Ops[0].Target;
    for (const auto &P : Fn.Blocks)
      for (Inst &I : P->Insts)
        for (Operand &O : I.Ops)
          if (O.isBlock() && O.Target == N)
            O.Target = Target;
    Fn.Blocks.erase(Fn.Blocks.begin() + indexOf(Fn, N));
  }
}

} // namespace

void lowerPtxOutOfSSA(mir::Function &Fn, const PtxOutOfSSAOptions &Opts) {
  std::vector<Block *> Split = splitCriticalEdges(Fn);
  if (Opts.Coalesce)
    coalesce(Fn);
  // Per predecessor, the copies of all PHIs of one successor (one edge).
  for (const auto &B : Fn.Blocks) {
    if (!hasPhis(*B))
      continue;
    DenseMap<Block *, std::vector<Copy>> EdgeCopies;
    std::vector<Block *> Order;
    for (const Inst &Phi : phisOf(*B)) {
      for (size_t K = 1; K + 1 < Phi.Ops.size(); K += 2) {
        Block *P = Phi.Ops[K + 1].Target;
        if (!EdgeCopies.count(P))
          Order.push_back(P);
        EdgeCopies[P].push_back({Phi.Ops[0].R, Phi.Ops[K].R});
      }
    }
    erase_if(B->Insts, [](const Inst &I) { return I.Opcode == mir::PHI; });
    for (Block *P : Order)
      sequentialize(Fn, *P, std::move(EdgeCopies[P]));
  }
  removeEmptySplitBlocks(Fn, Split);
}

} // namespace tandem::isel
