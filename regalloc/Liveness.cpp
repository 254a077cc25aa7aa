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

bool defReadsOldValue(const Inst &I) {
  if (I.PartialDef)
    return true;
  if (I.isPseudo() || I.Opcode >= simt::numOpcodes())
    return false;
  return simt::getDesc(static_cast<simt::Opcode>(I.Opcode)).has(simt::ReadsRd);
}

unsigned Liveness::blockOf(unsigned G) const {
  auto It = std::upper_bound(BlockStart.begin(), BlockStart.end(), G);
  return static_cast<unsigned>(It - BlockStart.begin()) - 1;
}

namespace {

unsigned vregIndex(Reg R) { return R - mir::VirtRegBase; }

bool isVirtualUse(const Operand &O) { return O.isReg() && !O.IsDef && mir::isVirtual(O.R); }
bool isVirtualDef(const Operand &O) { return O.isReg() && O.IsDef && mir::isVirtual(O.R); }

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
/// its live-out set.
void buildIntervals(const Function &Fn, Liveness &L) {
  unsigned NV = Fn.numVRegs();
  L.Intervals.assign(NV, LiveInterval());
  // Open[v] = end position of the segment being built for v (0: none open).
  std::vector<unsigned> Open(NV, 0);
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
          continue;
        }
        AddSegment(V, 2 * G + 1, Open[V] ? Open[V] : 2 * G + 2);
        Open[V] = 0;
      }
      for (const Operand &O : I.Ops)
        if (isVirtualUse(O))
          OpenAt(vregIndex(O.R), 2 * G + 1);
    }
    for (unsigned V : OpenList)
      if (Open[V]) {
        AddSegment(V, 2 * Start, Open[V]);
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
  while (Changed) {
    Changed = false;
    for (unsigned B = NB; B-- > 0;) {
      BitVector Out(Fn.numVRegs());
      for (unsigned S : Succs[B])
        Out |= L.LiveIn[S];
      BitVector In = Out;
      In.reset(Kill[B]);
      In |= Gen[B];
      if (Out != L.LiveOut[B] || In != L.LiveIn[B]) {
        L.LiveOut[B] = std::move(Out);
        L.LiveIn[B] = std::move(In);
        Changed = true;
      }
    }
  }
  buildIntervals(Fn, L);
  return L;
}

} // namespace tandem::regalloc
