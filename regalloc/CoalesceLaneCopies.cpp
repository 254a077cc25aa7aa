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
// Flow flags. StructurizeCFG turns an if/else into two regions in a row:
// the else-region, then a Flow block whose emask.and tests an i1 phi, and
// the phi's copies are `li`s (0 at the end of the else-region, 1 on the
// edge that skips it). The lanes on an edge whose last write of the flag
// is such an `li` all stay or all leave at the Flow block's emask.and(n),
// so that edge enters only the staying (or only the leaving) half of the
// Flow block's liveness: the else-lanes never run the then-region.
//
// Interference (Chaitin): d interferes with v when v is live on some lane's
// path right after a def of d, except when that def is `COPY d, v`. When
// that def is `COPY d, s`, the interference holds only while d and s are
// in different classes: once they share one, the copy is deleted and
// writes nothing (Flow's copy of an else-value into the join's phi then
// no longer clobbers the header value the then-lanes still need). Two
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

bool isOpcode(const Inst &I, simt::Opcode O) { return I.Opcode == static_cast<unsigned>(O); }

bool writes(const Inst &I, Reg R) {
  return llvm::any_of(I.Ops, [&](const Operand &O) { return isVirtualDef(O) && O.R == R; });
}

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

/// Which lanes of an edge into a block S with an emask.and(n) go on past it.
enum class Fate : uint8_t {
  Unknown, ///< some may stay and some may leave
  Stay,    ///< every lane on the edge stays in S's region
  Leave,   ///< every lane on the edge leaves at S's emask.and(n)
};

/// An edge of the per-lane CFG.
struct LaneEdge {
  unsigned To = 0;
  Fate F = Fate::Unknown;
};

/// One block of the per-lane CFG (see the file comment).
struct LaneBlock {
  /// Index of the emask.and(n) after which some lanes leave, or -1.
  int LeaveAt = -1;
  /// Its flag, and whether the lanes where the flag is zero stay (andn).
  Reg Flag = mir::NoReg;
  bool KeepWhereZero = false;
  /// An instruction before the emask.and(n) writes the flag.
  bool FlagWrittenBefore = false;
  /// Where the lanes that leave wake up (LeaveAt >= 0).
  LaneEdge LeaveTo;
  /// Where the lanes still running at the block's end go.
  SmallVector<LaneEdge, 2> StayTo;
};

/// Splits \p Blk's mask code into \p LB: where lanes leave and which
/// successor each part goes to. False when it is not one of cfg lowering's
/// two shapes.
bool classifyMaskCode(const Function &Fn, const Block &Blk, ArrayRef<unsigned> Succs,
                      LaneBlock &LB) {
  const Inst *MaskBranch = nullptr;
  for (unsigned K = 0; K < Blk.Insts.size(); ++K) {
    const Inst &I = Blk.Insts[K];
    // A restore anywhere but at the top would wake lanes mid-block.
    if (isOpcode(I, simt::Opcode::EMASK_SET) && K != 0)
      return false;
    if (narrowsMask(I)) {
      if (LB.LeaveAt >= 0)
        return false;
      LB.LeaveAt = static_cast<int>(K);
      LB.KeepWhereZero = isOpcode(I, simt::Opcode::EMASK_ANDN);
      if (I.Ops.size() == 1 && isVirtualUse(I.Ops[0]))
        LB.Flag = I.Ops[0].R;
    }
    if (isOpcode(I, simt::Opcode::BNONE) || isOpcode(I, simt::Opcode::BANY)) {
      if (MaskBranch || LB.LeaveAt < 0)
        return false;
      MaskBranch = &I;
    }
  }
  if (LB.LeaveAt < 0) {
    for (unsigned S : Succs)
      LB.StayTo.push_back({S, Fate::Unknown});
    return true;
  }
  if (!MaskBranch || Succs.size() != 2)
    return false;
  const Operand *TargetOp =
      llvm::find_if(MaskBranch->Ops, [](const Operand &O) { return O.isBlock(); });
  if (TargetOp == MaskBranch->Ops.end())
    return false;
  bool TargetFirst = Fn.Blocks[Succs[0]].get() == TargetOp->Target;
  unsigned Target = TargetFirst ? Succs[0] : Succs[1];
  unsigned Other = TargetFirst ? Succs[1] : Succs[0];
  // bnone J: the lanes left out go to J. bany H: the lanes kept go to H.
  bool IsIf = isOpcode(*MaskBranch, simt::Opcode::BNONE);
  LB.LeaveTo = {IsIf ? Target : Other, Fate::Unknown};
  LB.StayTo = {{IsIf ? Other : Target, Fate::Unknown}};
  for (unsigned K = 0; K < static_cast<unsigned>(LB.LeaveAt); ++K)
    LB.FlagWrittenBefore |= writes(Blk.Insts[K], LB.Flag);
  return true;
}

/// What the lanes that run \p From up to instruction \p End (exclusive)
/// and then enter \p To do at To's emask.and(n). Structurization's Flow
/// blocks branch on an i1 phi whose incoming values are mostly constants,
/// and its copy on the edge is an `li`: the lanes that ran an else-region
/// reach the Flow block with the flag that sends them past the
/// then-region. Known only when From's last write of the flag before End
/// is such an `li` and To writes no flag before its emask.and(n).
Fate fateOnEdge(const Block &From, unsigned End, const LaneBlock &To) {
  if (To.LeaveAt < 0 || To.Flag == mir::NoReg || To.FlagWrittenBefore)
    return Fate::Unknown;
  for (unsigned K = End; K-- > 0;) {
    const Inst &I = From.Insts[K];
    if (!writes(I, To.Flag))
      continue;
    if (I.Opcode != mir::LI || I.Ops.size() != 2 || !I.Ops[1].isImm())
      return Fate::Unknown;
    bool Nonzero = static_cast<uint32_t>(I.Ops[1].Imm) != 0;
    return Nonzero != To.KeepWhereZero ? Fate::Stay : Fate::Leave;
  }
  return Fate::Unknown;
}

/// The per-lane CFG of \p Fn, or nothing when a block's mask code is not in
/// one of the two shapes cfg lowering emits.
std::optional<std::vector<LaneBlock>> buildLaneCfg(const Function &Fn) {
  std::vector<SmallVector<unsigned, 2>> Succs = successorIndices(Fn);
  std::vector<LaneBlock> Lanes(Fn.Blocks.size());
  for (unsigned B = 0; B < Fn.Blocks.size(); ++B)
    if (!classifyMaskCode(Fn, *Fn.Blocks[B], Succs[B], Lanes[B]))
      return std::nullopt;
  for (unsigned B = 0; B < Fn.Blocks.size(); ++B) {
    LaneBlock &LB = Lanes[B];
    const Block &Blk = *Fn.Blocks[B];
    if (LB.LeaveAt >= 0) {
      const Block &Wake = *Fn.Blocks[LB.LeaveTo.To];
      if (Wake.Insts.empty() || !isOpcode(Wake.Insts.front(), simt::Opcode::EMASK_SET))
        return std::nullopt;
      LB.LeaveTo.F = fateOnEdge(Blk, LB.LeaveAt, Lanes[LB.LeaveTo.To]);
    }
    for (LaneEdge &E : LB.StayTo)
      E.F = fateOnEdge(Blk, Blk.Insts.size(), Lanes[E.To]);
  }
  return Lanes;
}

/// Per-lane liveness: at each block's entry, for the lanes that will stay
/// past its emask.and(n), for those that will leave there, and for all; and
/// a walk that reports the live set right after each instruction.
class LaneLiveness {
public:
  LaneLiveness(const Function &Fn, const std::vector<LaneBlock> &Cfg)
      : Fn(Fn), Cfg(Cfg), LiveIn(Fn.Blocks.size(), BitVector(Fn.numVRegs())), InStay(LiveIn),
        InLeave(LiveIn) {
    BitVector Stay(Fn.numVRegs()), Scratch(Fn.numVRegs());
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (unsigned B = Fn.Blocks.size(); B-- > 0;) {
        const LaneBlock &LB = Cfg[B];
        const auto &Insts = Fn.Blocks[B]->Insts;
        liveAtEnd(B, Stay);
        unsigned PrefixEnd = LB.LeaveAt >= 0 ? LB.LeaveAt + 1 : 0;
        for (unsigned K = Insts.size(); K-- > PrefixEnd;)
          transfer(Insts[K], Stay);
        if (LB.LeaveAt < 0) {
          Changed |= assign(LiveIn[B], Stay);
          continue;
        }
        Scratch = edgeIn(LB.LeaveTo);
        for (unsigned K = PrefixEnd; K-- > 0;) {
          transfer(Insts[K], Stay);
          transfer(Insts[K], Scratch);
        }
        Changed |= assign(InStay[B], Stay);
        Changed |= assign(InLeave[B], Scratch);
        Stay |= Scratch;
        Changed |= assign(LiveIn[B], Stay);
      }
    }
  }

  /// Walks block \p B backwards, calling \p Visit(I, live after I) for each
  /// instruction.
  template <typename VisitFn> void walk(unsigned B, BitVector &Live, VisitFn Visit) const {
    const LaneBlock &LB = Cfg[B];
    liveAtEnd(B, Live);
    const auto &Insts = Fn.Blocks[B]->Insts;
    for (unsigned K = Insts.size(); K-- > 0;) {
      if (static_cast<int>(K) == LB.LeaveAt)
        Live |= edgeIn(LB.LeaveTo); // the lanes that leave, right after it
      Visit(Insts[K], Live);
      transfer(Insts[K], Live);
    }
  }

private:
  const Function &Fn;
  const std::vector<LaneBlock> &Cfg;
  std::vector<BitVector> LiveIn, InStay, InLeave;

  const BitVector &edgeIn(const LaneEdge &E) const {
    switch (E.F) {
    case Fate::Stay:
      return InStay[E.To];
    case Fate::Leave:
      return InLeave[E.To];
    case Fate::Unknown:
      break;
    }
    return LiveIn[E.To];
  }

  void liveAtEnd(unsigned B, BitVector &Live) const {
    Live.reset();
    for (const LaneEdge &E : Cfg[B].StayTo)
      Live |= edgeIn(E);
  }

  /// One instruction, backwards, as the lanes that run it see it: every
  /// def (a PartialDef too) kills; movt also reads its destination.
  static void transfer(const Inst &I, BitVector &Live) {
    bool ReadsDef = readsDestinationAsInput(I);
    for (const Operand &O : I.Ops)
      if (isVirtualDef(O) && !ReadsDef)
        Live.reset(vregIndex(O.R));
    for (const Operand &O : I.Ops)
      if (isVirtualUse(O) || (ReadsDef && isVirtualDef(O)))
        Live.set(vregIndex(O.R));
  }

  static bool assign(BitVector &To, const BitVector &From) {
    if (To == From)
      return false;
    To = From;
    return true;
  }
};

/// The vregs COPYs relate, numbered densely, with their interference.
struct Candidates {
  std::vector<int> IndexOf; ///< per vreg index, or -1
  std::vector<Reg> VRegOf;  ///< per candidate
  BitVector Mask;           ///< over vreg indices
  /// Interference from defs that write whatever happens.
  std::vector<BitVector> Interferes;
  /// Interference from the write of `COPY d, s`, per d: (v, s) for each v
  /// live after it. It holds unless d and s end up in one class: the copy
  /// is then deleted and writes nothing.
  std::vector<std::vector<std::pair<unsigned, unsigned>>> CopyWrites;

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
  C.CopyWrites.resize(C.size());
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
      int SrcIndex = Src == mir::NoReg ? -1 : C.indexOf(Src);
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
          if (R == O.R || R == Src)
            continue;
          if (SrcIndex >= 0)
            C.CopyWrites[D].push_back({static_cast<unsigned>(C.IndexOf[V]), SrcIndex});
          else
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
      : CopyWrites(C.CopyWrites), Parent(C.size()), Members(C.size()), Interferes(C.Interferes) {
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
    if (A == B || Interferes[A].anyCommon(Members[B]) || copyWriteClobbers(A, B, A, B) ||
        copyWriteClobbers(B, A, A, B))
      return false;
    Parent[B] = A;
    Members[A] |= Members[B];
    Interferes[A] |= Interferes[B];
    return true;
  }

  const BitVector &members(unsigned K) { return Members[find(K)]; }

private:
  const std::vector<std::vector<std::pair<unsigned, unsigned>>> &CopyWrites;
  std::vector<unsigned> Parent;
  std::vector<BitVector> Members, Interferes;

  /// Some `COPY d, s` with d in class \p Writer writes while a member of
  /// \p Live is live, and s would stay outside the merged class A + B, so
  /// the copy would stay.
  bool copyWriteClobbers(unsigned Writer, unsigned Live, unsigned A, unsigned B) {
    for (unsigned D : Members[Writer].set_bits())
      for (auto [V, S] : CopyWrites[D])
        if (Members[Live].test(V)) {
          unsigned SC = find(S);
          if (SC != A && SC != B)
            return true;
        }
    return false;
  }
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

/// Renames every member of a class to its representative and deletes the
/// COPYs that leaves between one register and itself. On the way, each def
/// of a merged vreg becomes a PartialDef where another member is live
/// across it in the warp (before the merge), and an IMPLICIT_DEF there is
/// deleted; see the file comment.
void rewrite(Function &Fn, const Candidates &C, Classes &Cls, CoalesceStats &Stats) {
  Liveness Warp = computeLiveness(Fn);
  auto OtherMemberLiveAcross = [&](const Operand &O, unsigned Pos) {
    for (unsigned M : Cls.members(C.indexOf(O.R)).set_bits())
      if (C.VRegOf[M] != O.R && Warp.Intervals[vregIndex(C.VRegOf[M])].covers(Pos))
        return true;
    return false;
  };
  std::vector<Reg> RenameTo(C.size());
  for (unsigned K = 0; K < C.size(); ++K) {
    RenameTo[K] = C.VRegOf[Cls.find(K)];
    if (RenameTo[K] != C.VRegOf[K]) {
      mir::VRegInfo &Rep = Fn.info(RenameTo[K]);
      Rep.Uniform = Rep.Uniform && Fn.info(C.VRegOf[K]).Uniform;
    }
  }
  unsigned G = 0; // the instruction's number in Warp
  for (auto &B : Fn.Blocks) {
    std::vector<Inst> Kept;
    Kept.reserve(B->Insts.size());
    for (Inst &I : B->Insts) {
      unsigned Pos = 2 * G++ + 1; // where I writes
      bool OthersLive = llvm::any_of(I.Ops, [&](const Operand &O) {
        return isVirtualDef(O) && C.indexOf(O.R) >= 0 && OtherMemberLiveAcross(O, Pos);
      });
      if (OthersLive && I.Opcode == mir::IMPLICIT_DEF)
        continue;
      I.PartialDef |= OthersLive;
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
  // A merge can make a copy an identity and so allow one tried before it
  // (a Flow phi's copy of an else-value into it, then its copy of the
  // header phi): go over the copies until nothing more merges.
  std::vector<std::pair<Reg, Reg>> Copies = copiesByLoopDepth(Fn, C);
  for (bool Merged = true; Merged;) {
    Merged = false;
    for (auto [Dst, Src] : Copies)
      if (Cls.tryMerge(C.indexOf(Src), C.indexOf(Dst))) {
        ++Stats.VRegsMerged;
        Merged = true;
      }
  }
  if (Stats.VRegsMerged == 0)
    return Stats;

  rewrite(Fn, C, Cls, Stats);
  return Stats;
}

} // namespace tandem::regalloc
