//===- SelectPtxOutOfSSA.cpp - ptx MIR out of SSA --------------------------===//
//
// Input: SSA MIR from selectPtx (PHIs first in their blocks; blocks end in
// BR, BRCOND or RET; every vreg has its ptx::RegClass).
// Guarantees: no PHI left; an edge from a block with two successors into a
// block that had PHIs goes through a new block (placed right after the
// predecessor) that holds that edge's copies; every other predecessor ends
// with its copies right before its terminator. The copies of one edge are a
// parallel copy, sequentialized so no source is overwritten before it is
// read (a cycle goes through one temporary). No register allocation: PTX
// registers are virtual and ptxas allocates them; the printer numbers each
// class densely.
//
// Why splitting is needed: the copies for the edge P -> B must run only on
// that edge. When P also branches elsewhere, copies at P's end would run on
// the other edge too, and could even overwrite the branch condition (a loop
// latch testing a header PHI).
//
// Coalescing is not done here yet: every PHI keeps its own register and its
// copies. ptxas coalesces register moves itself, so the SASS does not pay for
// them; only the PTX text is longer.
//
//===----------------------------------------------------------------------===//

#include "SelectPtx.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

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

/// Splits every critical edge P -> B where B has PHIs: a new block N
/// between them (P's terminator and B's PHIs retargeted).
void splitCriticalEdges(mir::Function &Fn) {
  std::vector<Block *> WithPhis;
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
    }
  }
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

} // namespace

void lowerPtxOutOfSSA(mir::Function &Fn) {
  splitCriticalEdges(Fn);
  // Per predecessor, the copies of all PHIs of one successor (one edge).
  for (const auto &B : Fn.Blocks) {
    if (!hasPhis(*B))
      continue;
    DenseMap<Block *, std::vector<Copy>> EdgeCopies;
    std::vector<Block *> Order;
    for (const Inst &Phi : B->Insts) {
      if (Phi.Opcode != mir::PHI)
        break;
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
}

} // namespace tandem::isel
