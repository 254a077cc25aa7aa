//===- DivergenceCheck.cpp - our own conservative divergence analysis ------===//
//
// Invariants (what the analysis assumes and guarantees):
//  - Input: any IR function; a declaration has nothing divergent.
//  - Guarantee: every value not reported divergent has one value in all lanes
//    active where it is defined, and every block not reported as having a
//    divergent terminator sends all its active lanes the same way. Being
//    conservative, it may call divergent what is uniform; never the reverse.
//  - Machine facts it relies on (docs/Divergence.md, docs/ISA.md): kernel
//    arguments, constants, %ctaid/%nctaid/%ntid/%warpid/%nwarpid/%clock/
//    %smid and friends are the same in every lane of a warp; a load from
//    global, shared, const or param memory at one address gives every lane
//    the same value (lanes of a warp run it together); a vote's result is
//    the same in all active lanes.
//
// Sources of divergence: %tid.*, %laneid, %lanemask_* and every other
// special register not listed above; loads from local or generic (unknown)
// memory and atomic loads; atomicrmw, cmpxchg; shuffles, unless the value
// shuffled is a constant; calls to anything but intrinsics, inline asm; and
// intrinsics with side effects that return a value (unknown to us).
//
// Propagation, to a fixpoint over a worklist:
//  - data: an instruction with a divergent operand is divergent (except
//    votes), so a load from a divergent address is divergent;
//  - sync dependence: a conditional branch (or switch) on a divergent value
//    is divergent. Lanes leaving it by different successors may meet again
//    in any block reachable from two different successors without passing
//    the branch's immediate post-dominator (the post-dominator included; all
//    blocks reachable when it has none): a superset of the true join blocks
//    (two disjoint paths from different successors). A phi there is
//    divergent when lanes from two successors may come in by two different
//    edges with different incoming values (undef counts as a value). The
//    header of a loop the branch exits is reached from one successor only,
//    so its phis stay uniform: the lanes still iterating entered together
//    and agree on them;
//  - temporal divergence: when the branch's post-dominator lies outside a
//    loop containing it, lanes may leave that loop in different iterations,
//    so every use outside the loop of a value defined inside it is
//    divergent.
// No shortcuts from LLVM's UniformityInfo: the point is to be independent
// of it.
//
//===----------------------------------------------------------------------===//

#include "DivergenceCheck.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

#include <vector>

using namespace llvm;

namespace tandem::isel {

namespace {

StringRef calleeName(const CallBase &CB) {
  const Function *Callee = CB.getCalledFunction();
  return Callee ? Callee->getName() : StringRef();
}

/// Special registers with one value per warp (or per block, grid, machine).
bool isUniformSpecialRegister(StringRef Name) {
  Name.consume_front("llvm.nvvm.read.ptx.sreg.");
  for (StringRef Prefix : {"ctaid.", "nctaid.", "ntid.", "warpid", "nwarpid", "warpsize", "clock",
                           "globaltimer", "smid", "nsmid", "gridid"})
    if (Name.starts_with(Prefix))
      return true;
  return false;
}

/// Address spaces whose loads give every lane the same value for one
/// address: global, shared, const, param.
bool isSharedByAllLanes(unsigned AddressSpace) {
  return AddressSpace == 1 || AddressSpace == 3 || AddressSpace == 4 || AddressSpace == 101;
}

bool isVote(const Instruction &I) {
  const auto *CB = dyn_cast<CallBase>(&I);
  return CB && calleeName(*CB).starts_with("llvm.nvvm.vote.");
}

/// The shuffled value of llvm.nvvm.shfl[.sync].<mode>.<type>: the second
/// argument of the .sync forms (after the member mask), else the first.
const Value *shuffledValue(const CallBase &CB) {
  bool Sync = calleeName(CB).starts_with("llvm.nvvm.shfl.sync.");
  unsigned Index = Sync ? 1 : 0;
  return CB.arg_size() > Index ? CB.getArgOperand(Index) : nullptr;
}

bool isSourceOfDivergence(const Instruction &I) {
  if (isa<AtomicRMWInst>(I) || isa<AtomicCmpXchgInst>(I))
    return true;
  if (const auto *L = dyn_cast<LoadInst>(&I))
    return L->isAtomic() || !isSharedByAllLanes(L->getPointerAddressSpace());
  const auto *CB = dyn_cast<CallBase>(&I);
  if (!CB || CB->getType()->isVoidTy())
    return false;
  const Function *Callee = CB->getCalledFunction();
  if (CB->isInlineAsm() || !Callee || !Callee->isIntrinsic())
    return true;
  StringRef Name = Callee->getName();
  if (Name.starts_with("llvm.nvvm.read.ptx.sreg."))
    return !isUniformSpecialRegister(Name);
  if (Name.starts_with("llvm.nvvm.vote."))
    return false;
  if (Name.starts_with("llvm.nvvm.shfl.")) {
    // The .p forms also return a per-lane "in range" flag.
    const Value *Shuffled = shuffledValue(*CB);
    return CB->getType()->isStructTy() || !Shuffled || !isa<Constant>(Shuffled);
  }
  // Pure or read-only intrinsics are functions of their operands (and, for
  // loads such as ldg, of memory every lane sees alike).
  return !CB->onlyReadsMemory();
}

/// Fixpoint state for one function.
class Propagation {
public:
  Propagation(const Function &F, SmallPtrSetImpl<const Value *> &Divergent,
              SmallPtrSetImpl<const BasicBlock *> &Branches)
      : F(F), DT(const_cast<Function &>(F)), PDT(const_cast<Function &>(F)), LI(DT),
        Divergent(Divergent), Branches(Branches) {}

  void run() {
    for (const Instruction &I : instructions(F))
      if (isSourceOfDivergence(I))
        markValue(I);
    while (!Work.empty()) {
      const Instruction *V = Work.pop_back_val();
      for (const User *U : V->users())
        if (const auto *I = dyn_cast<Instruction>(U); I && I->getFunction() == &F)
          markUse(*I, *V);
    }
  }

private:
  void markValue(const Instruction &I) {
    if (!I.getType()->isVoidTy() && Divergent.insert(&I).second)
      Work.push_back(&I);
  }

  /// \p User reads the divergent \p V.
  void markUse(const Instruction &User, const Value &V) {
    if (const auto *Br = dyn_cast<BranchInst>(&User)) {
      if (Br->isConditional() && Br->getCondition() == &V)
        markBranch(*Br->getParent());
      return;
    }
    if (const auto *Sw = dyn_cast<SwitchInst>(&User)) {
      if (Sw->getCondition() == &V)
        markBranch(*Sw->getParent());
      return;
    }
    if (isVote(User))
      return;
    markValue(User);
  }

  void markBranch(const BasicBlock &BB) {
    if (!Branches.insert(&BB).second)
      return;
    const BasicBlock *Join = immediatePostDominator(BB);
    markJoinPhis(BB, Join);
    markLoopLiveOuts(BB, Join);
  }

  /// Null when BB has none (its paths meet only at the virtual exit).
  const BasicBlock *immediatePostDominator(const BasicBlock &BB) const {
    const DomTreeNode *N = PDT.getNode(&BB);
    const DomTreeNode *IDom = N ? N->getIDom() : nullptr;
    return IDom ? IDom->getBlock() : nullptr;
  }

  /// Lanes that went different ways at \p BB can only meet again in a block
  /// reachable from two different successors before (or at) the join. A
  /// phi there is divergent when lanes from different successors may arrive
  /// by different incoming edges carrying different values. (Arriving by
  /// one edge, lanes get one value: the header of a loop after a loop with
  /// a divergent exit, entered by one edge, keeps its phis uniform; values
  /// that differ because lanes left a loop in different iterations are
  /// caught by markLoopLiveOuts.)
  void markJoinPhis(const BasicBlock &BB, const BasicBlock *Join) {
    SmallVector<const BasicBlock *, 2> Successors;
    for (const BasicBlock *S : successors(&BB))
      if (!is_contained(Successors, S))
        Successors.push_back(S);
    if (Successors.size() < 2)
      return;
    std::vector<SmallPtrSet<const BasicBlock *, 16>> Reached(Successors.size());
    for (unsigned I = 0; I < Successors.size(); ++I) {
      SmallVector<const BasicBlock *, 16> Blocks{Successors[I]};
      while (!Blocks.empty()) {
        const BasicBlock *R = Blocks.pop_back_val();
        if (!Reached[I].insert(R).second)
          continue;
        if (R != Join)
          Blocks.append(succ_begin(R), succ_end(R));
      }
    }
    // The edges P -> R lanes leaving by successor I may take: P reached
    // from I (and not the join, whose successors are not followed), or BB
    // itself when R is successor I.
    auto Edges = [&](unsigned I, const BasicBlock &R) {
      SmallVector<const BasicBlock *, 4> Out;
      for (const BasicBlock *P : predecessors(&R))
        if ((P != Join && Reached[I].contains(P)) || (P == &BB && &R == Successors[I]))
          if (!is_contained(Out, P))
            Out.push_back(P);
      return Out;
    };
    SmallPtrSet<const BasicBlock *, 16> Candidates;
    for (unsigned I = 0; I < Successors.size(); ++I)
      for (unsigned J = I + 1; J < Successors.size(); ++J)
        for (const BasicBlock *R : Reached[I])
          if (Reached[J].contains(R))
            Candidates.insert(R);
    for (const BasicBlock *R : Candidates) {
      if (R->phis().empty())
        continue;
      std::vector<SmallVector<const BasicBlock *, 4>> In;
      for (unsigned I = 0; I < Successors.size(); ++I)
        In.push_back(Edges(I, *R));
      for (const PHINode &Phi : R->phis())
        if (differsAcrossSuccessors(Phi, In))
          markValue(Phi);
    }
  }

  /// Some lanes of two different successors reach \p Phi by edges with
  /// different incoming values.
  static bool differsAcrossSuccessors(const PHINode &Phi,
                                      ArrayRef<SmallVector<const BasicBlock *, 4>> In) {
    for (unsigned I = 0; I < In.size(); ++I)
      for (unsigned J = I + 1; J < In.size(); ++J)
        for (const BasicBlock *P1 : In[I])
          for (const BasicBlock *P2 : In[J])
            if (P1 != P2 &&
                Phi.getIncomingValueForBlock(P1) != Phi.getIncomingValueForBlock(P2))
              return true;
    return false;
  }

  /// Loops the branch's lanes may leave in different iterations: those
  /// containing it but not its join.
  void markLoopLiveOuts(const BasicBlock &BB, const BasicBlock *Join) {
    for (const Loop *L = LI.getLoopFor(&BB); L; L = L->getParentLoop()) {
      if (Join && L->contains(Join))
        return; // so do its parents
      for (const BasicBlock *Inside : L->blocks())
        for (const Instruction &I : *Inside)
          for (const User *U : I.users())
            if (const auto *UI = dyn_cast<Instruction>(U); UI && !L->contains(UI->getParent()))
              markUse(*UI, I);
    }
  }

  const Function &F;
  DominatorTree DT;
  PostDominatorTree PDT;
  LoopInfo LI;
  SmallPtrSetImpl<const Value *> &Divergent;
  SmallPtrSetImpl<const BasicBlock *> &Branches;
  SmallVector<const Instruction *, 32> Work;
};

} // namespace

DivergenceCheck::DivergenceCheck(const Function &F) {
  if (F.isDeclaration())
    return;
  Propagation(F, Divergent, DivergentBranches).run();
}

} // namespace tandem::isel
