//===- Liveness.cpp - block liveness and live intervals for regalloc -------===//
//
// Input invariants and guarantees: see Liveness.h.
//
//===----------------------------------------------------------------------===//

#include "regalloc/Liveness.h"

#include "ISA.h"

#include "llvm/ADT/DenseMap.h"

#include <algorithm>

using namespace llvm;

namespace tandem::regalloc {

using mir::Block;
using mir::Function;
using mir::Inst;
using mir::Operand;
using mir::Reg;

unsigned LiveInterval::size() const {
  unsigned N = 0;
  for (const Segment &S : Segs)
    N += S.End - S.Start;
  return N;
}

bool LiveInterval::overlaps(const LiveInterval &Other) const {
  // Both lists are sorted: walk them together.
  size_t I = 0, J = 0;
  while (I < Segs.size() && J < Other.Segs.size()) {
    const Segment &A = Segs[I], &B = Other.Segs[J];
    if (A.Start < B.End && B.Start < A.End)
      return true;
    if (A.End <= B.End)
      ++I;
    else
      ++J;
  }
  return false;
}

bool LiveInterval::covers(unsigned Pos) const {
  for (const Segment &S : Segs)
    if (S.Start <= Pos && Pos < S.End)
      return true;
  return false;
}

bool readsDestinationAsInput(const Inst &I) {
  const simt::InstrDesc *D = mir::simtDescOf(I);
  return D && D->has(simt::ReadsRd);
}

bool makesWholeWarp(const Inst &I, const Operand &O) {
  if (!O.isReg())
    return false;
  if (!O.IsDef)
    return I.Opcode == static_cast<unsigned>(simt::Opcode::EMASK_SET);
  const simt::InstrDesc *D = mir::simtDescOf(I);
  return D && D->has(simt::WritesAllLanes);
}

bool defReadsOldValue(const Inst &I) {
  return (I.PartialDef && !I.OldValueInSlot) || readsDestinationAsInput(I);
}

unsigned Liveness::blockOf(unsigned G) const {
  auto It = std::upper_bound(BlockStart.begin(), BlockStart.end(), G);
  return static_cast<unsigned>(It - BlockStart.begin()) - 1;
}

std::vector<SmallVector<unsigned, 2>> successorIndices(const Function &Fn) {
  DenseMap<const Block *, unsigned> Index;
  for (unsigned B = 0; B < Fn.Blocks.size(); ++B)
    Index[Fn.Blocks[B].get()] = B;
  std::vector<SmallVector<unsigned, 2>> Succs(Fn.Blocks.size());
  for (unsigned B = 0; B < Fn.Blocks.size(); ++B)
    for (Block *S : mir::successors(Fn, *Fn.Blocks[B]))
      Succs[B].push_back(Index.lookup(S));
  return Succs;
}

namespace {

/// Upward-exposed uses (Gen) and defs (Kill) of each block.
void computeGenKill(const Function &Fn, std::vector<BitVector> &Gen, std::vector<BitVector> &Kill) {
  unsigned NV = Fn.numVRegs();
  Gen.assign(Fn.Blocks.size(), BitVector(NV));
  Kill.assign(Fn.Blocks.size(), BitVector(NV));
  for (unsigned B = 0; B < Fn.Blocks.size(); ++B) {
    for (const Inst &I : Fn.Blocks[B]->Insts) {
      bool ReadsDef = defReadsOldValue(I);
      for (const Operand &O : I.Ops) {
        bool Reads = isVirtualUse(O) || (ReadsDef && isVirtualDef(O));
        if (Reads && !Kill[B].test(vregIndex(O.R)))
          Gen[B].set(vregIndex(O.R));
      }
      for (const Operand &O : I.Ops)
        if (isVirtualDef(O))
          Kill[B].set(vregIndex(O.R));
    }
  }
}

/// Builds the segments of every vreg by walking each block backwards from
/// its live-out set. A read of a vreg no def can reach (MaybeDefIn) keeps
/// it only from that read on, not from the block's start: there is no old
/// value to keep, so the register is free until the read.
void buildIntervals(const Function &Fn, Liveness &L, const std::vector<BitVector> &MaybeDefIn) {
  unsigned NV = Fn.numVRegs();
  L.Intervals.assign(NV, LiveInterval());
  // Open[v] = end position of the segment being built for v (0: none open).
  std::vector<unsigned> Open(NV, 0);
  // FirstRead[v] = earliest read of v seen so far in the current block
  // (the walk is backwards, so the latest one recorded).
  std::vector<unsigned> FirstRead(NV, 0);
  std::vector<unsigned> OpenList;
  auto AddSegment = [&](unsigned V, unsigned Start, unsigned End) {
    L.Intervals[V].Segs.push_back({Start, End});
  };
  auto OpenAt = [&](unsigned V, unsigned End) {
    if (Open[V])
      return;
    Open[V] = End;
    OpenList.push_back(V);
  };
  for (unsigned B = Fn.Blocks.size(); B-- > 0;) {
    unsigned Start = L.BlockStart[B], End = L.BlockStart[B + 1];
    for (unsigned V : L.LiveOut[B].set_bits())
      OpenAt(V, 2 * End);
    const auto &Insts = Fn.Blocks[B]->Insts;
    for (unsigned G = End; G-- > Start;) {
      const Inst &I = Insts[G - Start];
      bool ReadsDef = defReadsOldValue(I);
      for (const Operand &O : I.Ops) {
        if (!isVirtualDef(O))
          continue;
        unsigned V = vregIndex(O.R);
        if (ReadsDef) {
          // The old value flows through: keep (or start) one segment that
          // continues to the def's predecessor instructions.
          OpenAt(V, 2 * G + 2);
          FirstRead[V] = 2 * G + 1;
          continue;
        }
        AddSegment(V, 2 * G + 1, Open[V] ? Open[V] : 2 * G + 2);
        Open[V] = 0;
      }
      for (const Operand &O : I.Ops)
        if (isVirtualUse(O)) {
          OpenAt(vregIndex(O.R), 2 * G + 1);
          FirstRead[vregIndex(O.R)] = 2 * G;
        }
    }
    for (unsigned V : OpenList)
      if (Open[V]) {
        AddSegment(V, MaybeDefIn[B].test(V) ? 2 * Start : FirstRead[V], Open[V]);
        Open[V] = 0;
      }
    OpenList.clear();
  }
  // Segments were added back to front, block by block: sort and join the
  // ones that touch (a value live across a block boundary).
  for (LiveInterval &LI : L.Intervals) {
    auto &S = LI.Segs;
    std::sort(S.begin(), S.end(), [](const Segment &A, const Segment &B) { return A.Start < B.Start; });
    SmallVector<Segment, 4> Merged;
    for (const Segment &Seg : S) {
      if (!Merged.empty() && Seg.Start <= Merged.back().End)
        Merged.back().End = std::max(Merged.back().End, Seg.End);
      else
        Merged.push_back(Seg);
    }
    S = std::move(Merged);
  }
}

} // namespace

Liveness computeLiveness(const Function &Fn) {
  Liveness L;
  unsigned NB = Fn.Blocks.size();
  L.BlockStart.resize(NB + 1);
  unsigned Count = 0;
  for (unsigned B = 0; B < NB; ++B) {
    L.BlockStart[B] = Count;
    Count += Fn.Blocks[B]->Insts.size();
  }
  L.BlockStart[NB] = Count;

  std::vector<BitVector> Gen, Kill;
  computeGenKill(Fn, Gen, Kill);
  std::vector<SmallVector<unsigned, 2>> Succs = successorIndices(Fn);
  L.LiveIn = Gen;
  L.LiveOut.assign(NB, BitVector(Fn.numVRegs()));
  // Backward dataflow; visiting blocks last to first converges quickly for
  // layout-ordered code (only loop back edges need another round).
  bool Changed = true;
  BitVector Out(Fn.numVRegs()), In(Fn.numVRegs()); // scratch, reused
  while (Changed) {
    Changed = false;
    for (unsigned B = NB; B-- > 0;) {
      Out.reset();
      for (unsigned S : Succs[B])
        Out |= L.LiveIn[S];
      In = Out;
      In.reset(Kill[B]);
      In |= Gen[B];
      if (Out != L.LiveOut[B] || In != L.LiveIn[B]) {
        L.LiveOut[B] = Out;
        L.LiveIn[B] = In;
        Changed = true;
      }
    }
  }
  // Forward: the vregs some def may reach at each block's entry. Where
  // none can, a vreg's "old value" (read by a PartialDef, or by a use of an
  // undefined value) is nothing, so it is not live there. Without this, the
  // partial-def COPYs of divergent code would keep their vregs live from the
  // kernel's entry to their first def.
  std::vector<BitVector> MaybeDefIn(NB, BitVector(Fn.numVRegs()));
  Changed = true;
  while (Changed) {
    Changed = false;
    for (unsigned B = 0; B < NB; ++B) {
      Out = MaybeDefIn[B];
      Out |= Kill[B];
      for (unsigned S : Succs[B])
        if (Out.test(MaybeDefIn[S])) { // Out has a bit S's entry lacks
          MaybeDefIn[S] |= Out;
          Changed = true;
        }
    }
  }
  for (unsigned B = 0; B < NB; ++B) {
    L.LiveIn[B] &= MaybeDefIn[B];
    Out = MaybeDefIn[B]; // the vregs that may be defined at B's exit
    Out |= Kill[B];
    L.LiveOut[B] &= Out;
  }
  buildIntervals(Fn, L, MaybeDefIn);
  L.MaybeDefIn = std::move(MaybeDefIn);
  return L;
}

} // namespace tandem::regalloc
