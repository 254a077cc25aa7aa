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
// a loop is hinted when it is innermost, one block, at most
// MaxBodyInstructions instructions (PHIs and debug records not counted),
// carries no unroll or vectorize metadata already (remainder loops of an
// earlier unroll carry llvm.loop.unroll.disable), has a computable but not
// constant backedge-taken count (constant trip counts stay with the full
// unroller's cost model), contains a load from global or generic memory,
// and no convergent call (LoopUnrollPass would refuse the runtime remainder).
//
//===----------------------------------------------------------------------===//

#include "isel/UnrollHints.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Utils/LoopUtils.h"

using namespace llvm;

namespace tandem::isel {
namespace {

constexpr unsigned GenericAS = 0, GlobalAS = 1;

bool readsGlobalMemory(const BasicBlock &B) {
  for (const Instruction &I : B)
    if (auto *L = dyn_cast<LoadInst>(&I))
      if (L->getPointerAddressSpace() == GlobalAS || L->getPointerAddressSpace() == GenericAS)
        return true;
  return false;
}

unsigned bodySize(const BasicBlock &B) {
  unsigned N = 0;
  for (const Instruction &I : B)
    N += !isa<PHINode>(I) && !isa<DbgInfoIntrinsic>(I);
  return N;
}

bool hasConvergentCall(const BasicBlock &B) {
  for (const Instruction &I : B)
    if (auto *CB = dyn_cast<CallBase>(&I); CB && CB->isConvergent())
      return true;
  return false;
}

bool wantsHint(Loop &L, ScalarEvolution &SE) {
  if (!L.isInnermost() || L.getNumBlocks() != 1)
    return false;
  if (hasUnrollTransformation(&L) != TM_Unspecified ||
      hasVectorizeTransformation(&L) != TM_Unspecified)
    return false;
  const BasicBlock &Body = *L.getHeader();
  if (bodySize(Body) > HintRuntimeUnrollPass::MaxBodyInstructions || hasConvergentCall(Body) ||
      !readsGlobalMemory(Body))
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
    if (wantsHint(*L, SE)) {
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
