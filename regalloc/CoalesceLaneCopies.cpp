//===- CoalesceLaneCopies.cpp - lane-aware copy coalescing for simt -------===//
//
// Input invariants and guarantees: see CoalesceLaneCopies.h.
//
// The per-lane CFG. After cfg lowering every block runs in the lanes of the
// exec mask, and a lane walks one path of the lowered CFG, except where a
// mask op leaves it behind:
//   if-header   B: ...; emask.and(n) c; [copies B->R]; bnone J; [bra R]
//   latch       L: ...; emask.and(n) c; [copies L->H]; bany H; [bra X]
// The lanes the and(n) turns off run nothing more of B (not even its copies
// after the and(n)) and wake up at the emask.set that starts J (X). So in
// the per-lane CFG, the lanes that leave do so right after the and(n), to
// J (X), and the lanes that stay go on to R (H) at the end of B. Per-lane
// liveness is the usual backward dataflow over that graph with a def, even
// a PartialDef, killing its vreg: in the lanes that run it, it is a full
// write. (movt, which computes from its destination, still reads it.)
//
// Interference (Chaitin): d interferes with v when v is live on some lane's
// path right after a def of d, except when that def is `COPY d, v`. Two
// non-interfering vregs can share one register in every lane: each lane
// needs at most one of them at a time, or both with the same value (the
// copy), and a masked write touches only the lanes that run it. The
// exceptions are whole-warp values (written by emask.get in all 32 lanes,
// or read by emask.set from lane 0, active or not): never merged. The
// IMPLICIT_DEF of a phi writes nothing, so it interferes with nothing.
//
// From lanes back to the warp. The allocator and its checker model the
// warp: a vreg is live wherever any lane may still need it, and a def that
// is not a PartialDef claims that no lane needs the old value any more.
// After renaming, the merged vreg M holds, in the lanes a def of member a
// leaves out, whatever member those lanes need, and some lane needs member
// b at a def of a exactly where the warp liveness before the merge has b
// live across it. So such a def becomes a PartialDef (an IMPLICIT_DEF
// there is deleted: it writes nothing and must not end M's value), and the
// warp model of the result is sound again. The price is that M may stay
// live in the warp longer than any member did; coalescing pays where it
// removes copies from loops, which is where it is tried first.
//
//===----------------------------------------------------------------------===//

#include "regalloc/CoalesceLaneCopies.h"

#include "regalloc/Liveness.h"

#include "ISA.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <numeric>
#include <optional>

using namespace llvm;

namespace tandem::regalloc {

using mir::Block;
using mir::Function;
using mir::Inst;
using mir::Operand;
using mir::Reg;

namespace {

unsigned vregIndex(Reg R) { return R - mir::VirtRegBase; }
bool isVirtualUse(const Operand &O) { return O.isReg() && !O.IsDef && mir::isVirtual(O.R); }
bool isVirtualDef(const Operand &O) { return O.isReg() && O.IsDef && mir::isVirtual(O.R); }

bool isOpcode(const Inst &I, simt::Opcode O) { return I.Opcode == static_cast<unsigned>(O); }

bool narrowsMask(const Inst &I) {
  return isOpcode(I, simt::Opcode::EMASK_AND) || isOpcode(I, simt::Opcode::EMASK_ANDN);
}

/// `COPY d, s` between two vregs: its source, else NoReg.
Reg copySource(const Inst &I) {
  if (I.Opcode != mir::COPY || I.Ops.size() != 2 || !isVirtualDef(I.Ops[0]) ||
      !isVirtualUse(I.Ops[1]))
    return mir::NoReg;
  return I.Ops[1].R;
}

/// One block of the per-lane CFG (see the file comment).
struct LaneBlock {
  /// Index of the emask.and(n) after which some lanes leave, or -1.
  int LeaveAt = -1;
  /// Where the lanes that leave wake up (LeaveAt >= 0).
  unsigned LeaveTo = 0;
  /// Where the lanes still running at the block's end go.
  SmallVector<unsigned, 2> StayTo;
};

/// The per-lane CFG of \p Fn, or nothing when a block's mask code is not in
/// one of the two shapes cfg lowering emits.
std::optional<std::vector<LaneBlock>> buildLaneCfg(const Function &Fn) {
  DenseMap<const Block *, unsigned> Index;
  for (unsigned B = 0; B < Fn.Blocks.size(); ++B)
    Index[Fn.Blocks[B].get()] = B;
  std::vector<LaneBlock> Lanes(Fn.Blocks.size());
  for (unsigned B = 0; B < Fn.Blocks.size(); ++B) {
    const Block &Blk = *Fn.Blocks[B];
    SmallVector<unsigned, 2> Succs;
    for (const Block *S : mir::successors(Fn, Blk))
      Succs.push_back(Index.lookup(S));
    const Inst *MaskBranch = nullptr;
    for (unsigned K = 0; K < Blk.Insts.size(); ++K) {
      const Inst &I = Blk.Insts[K];
      // A restore anywhere but at the top would wake lanes mid-block.
      if (isOpcode(I, simt::Opcode::EMASK_SET) && K != 0)
        return std::nullopt;
      if (narrowsMask(I)) {
        if (Lanes[B].LeaveAt >= 0)
          return std::nullopt;
        Lanes[B].LeaveAt = static_cast<int>(K);
      }
      if (isOpcode(I, simt::Opcode::BNONE) || isOpcode(I, simt::Opcode::BANY)) {
        if (MaskBranch || Lanes[B].LeaveAt < 0)
          return std::nullopt;
        MaskBranch = &I;
      }
    }
    if (Lanes[B].LeaveAt < 0) {
      Lanes[B].StayTo = Succs;
      continue;
    }
    if (!MaskBranch || Succs.size() != 2)
      return std::nullopt;
    const Operand *TargetOp =
        llvm::find_if(MaskBranch->Ops, [](const Operand &O) { return O.isBlock(); });
    if (TargetOp == MaskBranch->Ops.end())
      return std::nullopt;
    unsigned Target = Index.lookup(TargetOp->Target);
    unsigned Other = Succs[0] == Target ? Succs[1] : Succs[0];
    // bnone J: the lanes left out go to J. bany H: the lanes kept go to H.
    bool IsIf = isOpcode(*MaskBranch, simt::Opcode::BNONE);
    Lanes[B].LeaveTo = IsIf ? Target : Other;
    Lanes[B].StayTo = {IsIf ? Other : Target};
    const Block &Wake = *Fn.Blocks[Lanes[B].LeaveTo];
    if (Wake.Insts.empty() || !isOpcode(Wake.Insts.front(), simt::Opcode::EMASK_SET))
      return std::nullopt;
  }
  return Lanes;
}

/// Per-lane liveness: LiveIn per block, and a walk that reports the live
/// set right after each instruction.
class LaneLiveness {
public:
  LaneLiveness(const Function &Fn, const std::vector<LaneBlock> &Cfg)
      : Fn(Fn), Cfg(Cfg), LiveIn(Fn.Blocks.size(), BitVector(Fn.numVRegs())) {
    BitVector In(Fn.numVRegs());
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (unsigned B = Fn.Blocks.size(); B-- > 0;) {
        walk(B, In, [](const Inst &, const BitVector &) {});
        if (In != LiveIn[B]) {
          LiveIn[B] = In;
          Changed = true;
        }
      }
    }
  }

  /// Walks block \p B backwards, calling \p Visit(I, live after I) for each
  /// instruction; leaves B's live-in set in \p Live.
  template <typename VisitFn> void walk(unsigned B, BitVector &Live, VisitFn Visit) const {
    const LaneBlock &LB = Cfg[B];
    Live.reset();
    for (unsigned S : LB.StayTo)
      Live |= LiveIn[S];
    const auto &Insts = Fn.Blocks[B]->Insts;
    for (unsigned K = Insts.size(); K-- > 0;) {
      if (static_cast<int>(K) == LB.LeaveAt)
        Live |= LiveIn[LB.LeaveTo]; // the lanes that leave, right after it
      const Inst &I = Insts[K];
      Visit(I, Live);
      bool ReadsDef = readsDestinationAsInput(I);
      for (const Operand &O : I.Ops)
        if (isVirtualDef(O) && !ReadsDef)
          Live.reset(vregIndex(O.R));
      for (const Operand &O : I.Ops)
        if (isVirtualUse(O) || (ReadsDef && isVirtualDef(O)))
          Live.set(vregIndex(O.R));
    }
  }

private:
  const Function &Fn;
  const std::vector<LaneBlock> &Cfg;
  std::vector<BitVector> LiveIn;
};

/// The vregs COPYs relate, numbered densely, with their interference.
struct Candidates {
  std::vector<int> IndexOf; ///< per vreg index, or -1
  std::vector<Reg> VRegOf;  ///< per candidate
  BitVector Mask;           ///< over vreg indices
  std::vector<BitVector> Interferes;

  unsigned size() const { return VRegOf.size(); }
  int indexOf(Reg R) const { return IndexOf[vregIndex(R)]; }
};

/// Vregs that must keep all 32 lanes (Liveness.h makesWholeWarp).
BitVector wholeWarpVRegs(const Function &Fn) {
  BitVector WholeWarp(Fn.numVRegs());
  for (const auto &B : Fn.Blocks)
    for (const Inst &I : B->Insts)
      for (const Operand &O : I.Ops)
        if (O.isReg() && mir::isVirtual(O.R) && makesWholeWarp(I, O))
          WholeWarp.set(vregIndex(O.R));
  return WholeWarp;
}

Candidates findCandidates(const Function &Fn, const BitVector &WholeWarp) {
  Candidates C;
  C.IndexOf.assign(Fn.numVRegs(), -1);
  C.Mask.resize(Fn.numVRegs());
  auto Add = [&](Reg R) {
    unsigned V = vregIndex(R);
    if (C.IndexOf[V] >= 0)
      return;
    C.IndexOf[V] = static_cast<int>(C.VRegOf.size());
    C.VRegOf.push_back(R);
    C.Mask.set(V);
  };
  for (const auto &B : Fn.Blocks)
    for (const Inst &I : B->Insts) {
      Reg Src = copySource(I);
      Reg Dst = Src == mir::NoReg ? mir::NoReg : I.Ops[0].R;
      if (Src == mir::NoReg || Src == Dst || WholeWarp.test(vregIndex(Src)) ||
          WholeWarp.test(vregIndex(Dst)))
        continue;
      Add(Dst);
      Add(Src);
    }
  C.Interferes.assign(C.size(), BitVector(C.size()));
  return C;
}

void recordInterference(const Function &Fn, const LaneLiveness &Lanes, Candidates &C) {
  BitVector Live(Fn.numVRegs()), Hit(Fn.numVRegs());
  auto Edge = [&](unsigned A, unsigned B) {
    C.Interferes[A].set(B);
    C.Interferes[B].set(A);
  };
  for (unsigned B = 0; B < Fn.Blocks.size(); ++B)
    Lanes.walk(B, Live, [&](const Inst &I, const BitVector &LiveAfter) {
      if (I.Opcode == mir::IMPLICIT_DEF)
        return; // writes nothing
      Reg Src = copySource(I);
      SmallVector<unsigned, 2> DefsHere;
      for (const Operand &O : I.Ops) {
        if (!isVirtualDef(O) || C.indexOf(O.R) < 0)
          continue;
        unsigned D = C.indexOf(O.R);
        for (unsigned Other : DefsHere)
          Edge(D, Other);
        DefsHere.push_back(D);
        Hit = LiveAfter;
        Hit &= C.Mask;
        for (unsigned V : Hit.set_bits()) {
          Reg R = mir::VirtRegBase + V;
          if (R != O.R && R != Src)
            Edge(D, C.IndexOf[V]);
        }
      }
    });
}

/// Union-find over candidates; a class carries its members and everything
/// they interfere with.
class Classes {
public:
  explicit Classes(const Candidates &C)
      : Parent(C.size()), Members(C.size()), Interferes(C.Interferes) {
    std::iota(Parent.begin(), Parent.end(), 0u);
    for (unsigned K = 0; K < C.size(); ++K) {
      Members[K].resize(C.size());
      Members[K].set(K);
    }
  }

  unsigned find(unsigned K) {
    while (Parent[K] != K)
      K = Parent[K] = Parent[Parent[K]];
    return K;
  }

  /// Merges the classes of \p A and \p B unless some member of one
  /// interferes with some member of the other.
  bool tryMerge(unsigned A, unsigned B) {
    A = find(A);
    B = find(B);
    if (A == B || Interferes[A].anyCommon(Members[B]))
      return false;
    Parent[B] = A;
    Members[A] |= Members[B];
    Interferes[A] |= Interferes[B];
    return true;
  }

  const BitVector &members(unsigned K) { return Members[find(K)]; }

private:
  std::vector<unsigned> Parent;
  std::vector<BitVector> Members, Interferes;
};

/// The COPYs worth coalescing, deepest loops first (where a copy costs the
/// most), in layout order otherwise.
std::vector<std::pair<Reg, Reg>> copiesByLoopDepth(const Function &Fn, const Candidates &C) {
  std::vector<std::pair<unsigned, std::pair<Reg, Reg>>> Found;
  for (const auto &B : Fn.Blocks)
    for (const Inst &I : B->Insts) {
      Reg Src = copySource(I);
      if (Src != mir::NoReg && C.indexOf(Src) >= 0 && C.indexOf(I.Ops[0].R) >= 0)
        Found.push_back({B->LoopDepth, {I.Ops[0].R, Src}});
    }
  std::stable_sort(Found.begin(), Found.end(),
                   [](const auto &X, const auto &Y) { return X.first > Y.first; });
  std::vector<std::pair<Reg, Reg>> Copies;
  for (const auto &F : Found)
    Copies.push_back(F.second);
  return Copies;
}

/// Makes each def of a merged vreg a PartialDef where another member is
/// live across it in the warp (before the merge), and deletes IMPLICIT_DEFs
/// there; see the file comment.
void keepOtherLanes(Function &Fn, const Candidates &C, Classes &Cls) {
  Liveness Warp = computeLiveness(Fn);
  unsigned G = 0;
  for (auto &B : Fn.Blocks) {
    std::vector<Inst> Kept;
    Kept.reserve(B->Insts.size());
    for (Inst &I : B->Insts) {
      unsigned Pos = 2 * G++ + 1; // where I writes
      bool OthersLive = false;
      for (const Operand &O : I.Ops) {
        if (!isVirtualDef(O) || C.indexOf(O.R) < 0)
          continue;
        for (unsigned M : Cls.members(C.indexOf(O.R)).set_bits())
          if (C.VRegOf[M] != O.R && Warp.Intervals[vregIndex(C.VRegOf[M])].covers(Pos))
            OthersLive = true;
      }
      if (OthersLive && I.Opcode == mir::IMPLICIT_DEF)
        continue;
      if (OthersLive)
        I.PartialDef = true;
      Kept.push_back(std::move(I));
    }
    B->Insts = std::move(Kept);
  }
}

} // namespace

CoalesceStats coalesceLaneCopies(Function &Fn) {
  CoalesceStats Stats;
  std::optional<std::vector<LaneBlock>> Cfg = buildLaneCfg(Fn);
  if (!Cfg) {
    Stats.ShapeUnsupported = true;
    return Stats;
  }
  Candidates C = findCandidates(Fn, wholeWarpVRegs(Fn));
  if (C.size() == 0)
    return Stats;
  LaneLiveness Lanes(Fn, *Cfg);
  recordInterference(Fn, Lanes, C);

  Classes Cls(C);
  for (auto [Dst, Src] : copiesByLoopDepth(Fn, C))
    if (Cls.tryMerge(C.indexOf(Src), C.indexOf(Dst)))
      ++Stats.VRegsMerged;
  if (Stats.VRegsMerged == 0)
    return Stats;

  keepOtherLanes(Fn, C, Cls);

  // Rename every member to its class's representative.
  std::vector<Reg> RenameTo(C.size());
  for (unsigned K = 0; K < C.size(); ++K)
    RenameTo[K] = C.VRegOf[Cls.find(K)];
  for (unsigned K = 0; K < C.size(); ++K)
    if (RenameTo[K] != C.VRegOf[K]) {
      mir::VRegInfo &Rep = Fn.info(RenameTo[K]);
      Rep.Uniform = Rep.Uniform && Fn.info(C.VRegOf[K]).Uniform;
    }
  for (auto &B : Fn.Blocks) {
    std::vector<Inst> Kept;
    Kept.reserve(B->Insts.size());
    for (Inst &I : B->Insts) {
      for (Operand &O : I.Ops)
        if (O.isReg() && mir::isVirtual(O.R) && C.indexOf(O.R) >= 0)
          O.R = RenameTo[C.indexOf(O.R)];
      if (I.Opcode == mir::COPY && I.Ops[0].R == I.Ops[1].R) {
        ++Stats.CopiesRemoved;
        continue;
      }
      Kept.push_back(std::move(I));
    }
    B->Insts = std::move(Kept);
  }
  return Stats;
}

} // namespace tandem::regalloc
