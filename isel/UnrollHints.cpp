//===- UnrollHints.cpp - runtime-unroll hints for ptx load loops ----------===//
//
// Why: ptxas batches the global loads of a loop's unrolled copies, so how
// many loads a warp has in flight follows the unroll count (the "LDG run"
// of scripts/ptx-compare.sh). LLVM runtime-unrolls a unit-stride CSR loop
// (`for (j = start; j < end; ++j)`) by 4, but not the warp-per-row loop
// `for (j = start + lane; j < end; j += 32)`: its trip count,
// (max(end, start + 32) - start - 1) / 32 + 1, costs more to expand than
// SCEVExpander's cheap budget. nvcc's NVVM unrolls both by 4, and ptxas then
// unrolls that 4x again (48 loads in one run for spmv_vector, against our
// 12). The pragma path (llvm.loop.unroll.count) lifts that budget, so this
// pass writes the pragma where LLVM's cost model would otherwise decide.
// With it goes llvm.loop.unroll.followup_unrolled: without a followup, the
// unroller marks the unrolled loop llvm.loop.unroll.disable, which the ptx
// selector writes as `.pragma "nounroll"` (right for a remainder loop) and
// ptxas would not batch the copies further, as it does nvcc's.
//
// Input invariants: SSA after the -O pipeline's simplification (loops in
// simplified, rotated form: the pass runs at the vectorizer-start extension
// point, before LoopUnrollPass). Guarantees: only loop metadata changes;
// a loop is hinted when it is innermost, one iteration executes at most
// MaxIterationInstructions instructions along its longest path (PHIs and
// debug records not counted; an if/else counts its longer arm, as in
// spmv_merge's merge loop, which NVVM unrolls 4x too), it carries no unroll
// or vectorize metadata already (remainder loops of an earlier unroll carry
// llvm.loop.unroll.disable), has a computable but not constant
// backedge-taken count (constant trip counts stay with the full unroller's
// cost model), contains a load that may read global memory (global, or
// generic and not cast from a `__shared__` or local object), and no
// convergent call (LoopUnrollPass would refuse the runtime remainder).
//
//===----------------------------------------------------------------------===//

#include "isel/UnrollHints.h"
#include "isel/AddressSpaces.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/LoopIterator.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Utils/LoopUtils.h"

using namespace llvm;

namespace tandem::isel {
namespace {

/// A load that may go to global memory: from the global space, or generic
/// but not cast from another space's object (the pass runs before
/// address-space inference, so `__shared__` arrays are still reached
/// through addrspacecasts of their addrspace(3) globals).
bool mayReadGlobal(const LoadInst &Ld) {
  unsigned AS = Ld.getPointerAddressSpace();
  if (AS != GenericAS)
    return AS == GlobalAS;
  const Value *Object = getUnderlyingObject(Ld.getPointerOperand());
  unsigned ObjectAS = Object->getType()->getPointerAddressSpace();
  return ObjectAS == GenericAS || ObjectAS == GlobalAS;
}

bool readsGlobalMemory(const Loop &L) {
  for (const BasicBlock *B : L.blocks())
    for (const Instruction &I : *B)
      if (auto *Ld = dyn_cast<LoadInst>(&I); Ld && mayReadGlobal(*Ld))
        return true;
  return false;
}

unsigned blockSize(const BasicBlock &B) {
  unsigned N = 0;
  for (const Instruction &I : B)
    N += !isa<PHINode>(I) && !isa<DbgInfoIntrinsic>(I);
  return N;
}

/// The most instructions one iteration can execute: the longest path from
/// the header through the loop's blocks, back edges left out (an innermost
/// loop's body is then acyclic, and reverse post-order visits every block
/// after its predecessors in the loop).
unsigned longestIteration(Loop &L, const LoopInfo &LI) {
  DenseMap<const BasicBlock *, unsigned> PathTo;
  unsigned Longest = 0;
  LoopBlocksRPO RPO(&L);
  RPO.perform(&LI);
  for (const BasicBlock *B : RPO) {
    unsigned Before = 0;
    if (B != L.getHeader())
      for (const BasicBlock *Pred : predecessors(B))
        if (L.contains(Pred))
          Before = std::max(Before, PathTo.lookup(Pred));
    unsigned Through = Before + blockSize(*B);
    PathTo[B] = Through;
    Longest = std::max(Longest, Through);
  }
  return Longest;
}

bool hasConvergentCall(const Loop &L) {
  for (const BasicBlock *B : L.blocks())
    for (const Instruction &I : *B)
      if (auto *CB = dyn_cast<CallBase>(&I); CB && CB->isConvergent())
        return true;
  return false;
}

bool wantsHint(Loop &L, const LoopInfo &LI, ScalarEvolution &SE) {
  if (!L.isInnermost())
    return false;
  if (hasUnrollTransformation(&L) != TM_Unspecified ||
      hasVectorizeTransformation(&L) != TM_Unspecified)
    return false;
  if (longestIteration(L, LI) > HintRuntimeUnrollPass::MaxIterationInstructions ||
      hasConvergentCall(L) || !readsGlobalMemory(L))
    return false;
  const SCEV *Taken = SE.getBackedgeTakenCount(&L);
  return !isa<SCEVCouldNotCompute>(Taken) && !isa<SCEVConstant>(Taken);
}

/// Count 4, and the unrolled loop keeps only `mustprogress` and the marker
/// `tandem.unrolled` rather than getting llvm.loop.unroll.disable. The
/// marker keeps the followup from being empty: an empty one would leave the
/// unrolled loop its original metadata, this count included.
void addHint(Loop &L) {
  LLVMContext &Ctx = L.getHeader()->getContext();
  SmallVector<Metadata *, 2> Followup{MDString::get(Ctx, "llvm.loop.unroll.followup_unrolled"),
                                      MDNode::get(Ctx, MDString::get(Ctx, "tandem.unrolled"))};
  if (findOptionMDForLoop(&L, "llvm.loop.mustprogress"))
    Followup.push_back(MDNode::get(Ctx, MDString::get(Ctx, "llvm.loop.mustprogress")));
  Metadata *Count = ConstantAsMetadata::get(
      ConstantInt::get(Type::getInt32Ty(Ctx), HintRuntimeUnrollPass::Count));
  MDNode *LoopID = makePostTransformationMetadata(
      Ctx, L.getLoopID(), {},
      {MDNode::get(Ctx, {MDString::get(Ctx, "llvm.loop.unroll.count"), Count}),
       MDNode::get(Ctx, Followup)});
  L.setLoopID(LoopID);
}

} // namespace

PreservedAnalyses HintRuntimeUnrollPass::run(Function &F, FunctionAnalysisManager &AM) {
  LoopInfo &LI = AM.getResult<LoopAnalysis>(F);
  ScalarEvolution &SE = AM.getResult<ScalarEvolutionAnalysis>(F);
  bool Changed = false;
  for (Loop *L : LI.getLoopsInPreorder())
    if (wantsHint(*L, LI, SE)) {
      addHint(*L);
      Changed = true;
    }
  if (!Changed)
    return PreservedAnalyses::all();
  // Loop metadata only: the CFG and every analysis of values stand.
  PreservedAnalyses PA;
  PA.preserveSet<CFGAnalyses>();
  PA.preserve<LoopAnalysis>();
  PA.preserve<ScalarEvolutionAnalysis>();
  return PA;
}

} // namespace tandem::isel
