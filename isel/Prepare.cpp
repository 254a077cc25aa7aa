//===- Prepare.cpp - IR preparation with LLVM's passes ---------------------===//
//
// Input invariants: an NVPTX module from the front end (nvptx or nvptx64
// triple), in any optimization state; kernels marked in nvvm.annotations or
// with the ptx_kernel calling convention.
//
// Guarantees, for every kernel (see Prepare.h):
//  - no calls except to intrinsics: every other function is inlined (the
//    math library included) and recursion is an error;
//  - kernel pointer parameters point to global memory (addrspace 1), stack
//    objects to local memory (addrspace 5); loads, stores and atomics all
//    have a specific address space (generic ones left are an error on simt;
//    ptx accesses them with generic ld/st/atom); a load
//    or store through a select of pointers into two different spaces is
//    split into an if/else with one access per space (through a phi of
//    such pointers too: into the phi's edges, or on simt on a phi of the
//    space); every load and store has at least the alignment its pointer
//    is known to have (InferAlignment);
//  - optimized at the requested level (LLVM's default -O pipeline; at -O0
//    still mem2reg, instsimplify and simplifycfg, so isel always sees SSA
//    and constant operands, such as a shuffle's width, are constants);
//  - no switch, no vector values (scalarized), no memcpy/memset/memmove
//    intrinsics (expanded to loops), no llvm.is.fpclass (integer tests),
//    no i32/i64 sdiv by a power of two (shifts), no saturating add/sub
//    intrinsics (compares and selects), one return block; no `urem x, C`
//    (C a constant, not a power of two) compared with 0 alone (a multiply
//    and an unsigned compare, FoldDivisibilityTestsPass); no phi that
//    agrees with a sibling phi of its block on every edge where it is not
//    undef or poison (FoldPhiIntoAgreeingSiblingPass: a runtime unroll's
//    two phis of one running value);
//  - simt only: no i8/i16/i32 division or remainder by a constant other
//    than a power of two or +-1 (multiply-high and shifts,
//    ExpandDivisionByConstantPass);
//  - simt only: no i64 division or i64<->float conversion (expanded into
//    32-bit operations and a loop), no atomicrmw the ISA lacks (and, or,
//    xor, nand, fsub, fmin, fmax: compare-and-swap loops), no f64,
//    divergent regions structurized (StructurizeCFG with
//    uniform regions skipped), irreducible loops made reducible, loops with
//    one exit block; no phi whose incoming values are one value and undef
//    where that value could replace it (foldPhisOfOneValueAndUndef), nor
//    one whose incoming values are identical pure computations of values
//    available at the phi (RecomputeEqualIncomingValuesPass);
//  - simt only: a pointer into a __constant__ variable (address space 4) is
//    only offset, selected, compared and loaded through (never stored to,
//    stored, converted or passed on), so ld.const can serve every access;
//  - globals only in address spaces 1 (__device__), 3 (__shared__) and 4
//    (__constant__), on both targets;
//  - optimized builds: a GEP index's constant addend is a
//    separate byte offset (`gep i8 (gep P, X...), C`, which isel folds into
//    [base+offset]) and accesses that differ only by it share one base
//    (on simt only where that saves work; SplitAddressOffsetsPass); no GEP
//    with two or more variable indices (SplitGepPrefixPass); `&a[x + y]`
//    beside a dominating `&a[y]` is `&a[y] + x` (ReuseDominatingAddressPass);
//  - the module verifies.
// Unsupported constructs are reported with the kernel, the IR instruction
// and the source line (when the module has debug locations).
//
// Order matters: kernel arguments and allocas are routed through their
// address spaces after optimization, right before infer-address-spaces
// (InstCombine folds a generic -> global -> generic cast pair straight back,
// and SROA and mem2reg work best on plain allocas); CFG shaping comes last
// as the optimizer would undo it.
//
//===----------------------------------------------------------------------===//

#include "isel/Prepare.h"
#include "isel/AddressSpaces.h"
#include "isel/DivergenceCheck.h"
#include "isel/UnrollHints.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/Analysis/UniformityAnalysis.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/GetElementPtrTypeIterator.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/PassInstrumentation.h"
#include "llvm/IR/PassManager.h"
#include "llvm/IR/PatternMatch.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/DivisionByConstantInfo.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/IPO/AlwaysInliner.h"
#include "llvm/Transforms/Scalar.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/InferAddressSpaces.h"
#include "llvm/Transforms/Scalar/InferAlignment.h"
#include "llvm/Transforms/Scalar/InstSimplifyPass.h"
#include "llvm/Transforms/Scalar/Scalarizer.h"
#include "llvm/Transforms/Scalar/SimplifyCFG.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/FixIrreducible.h"
#include "llvm/Transforms/Utils/LowerAtomic.h"
#include "llvm/Transforms/Utils/LowerMemIntrinsics.h"
#include "llvm/Transforms/Utils/LowerSwitch.h"
#include "llvm/Transforms/Utils/Mem2Reg.h"
#include "llvm/Transforms/Utils/UnifyFunctionExitNodes.h"
#include "llvm/Transforms/Utils/UnifyLoopExits.h"

#include <map>
#include <mutex>
#include <optional>

using namespace llvm;

namespace tandem::isel {

namespace {

/// Kernels as the front end defines them (kept local so isel does not
/// depend on the front-end library).
bool isKernel(const Function &F) {
  if (F.getCallingConv() == CallingConv::PTX_Kernel)
    return true;
  const Module *M = F.getParent();
  NamedMDNode *Annotations = M ? M->getNamedMetadata("nvvm.annotations") : nullptr;
  if (!Annotations)
    return false;
  for (const MDNode *Op : Annotations->operands()) {
    if (Op->getNumOperands() < 3)
      continue;
    auto *Fn = mdconst::dyn_extract_or_null<Function>(Op->getOperand(0));
    auto *Name = dyn_cast<MDString>(Op->getOperand(1));
    if (Fn == &F && Name && Name->getString() == "kernel")
      return true;
  }
  return false;
}

// ---- Diagnostics --------------------------------------------------------

std::string readableName(const Function &F) { return demangle(F.getName().str()); }

std::string sourceLocation(const Instruction &I) {
  const DebugLoc &DL = I.getDebugLoc();
  if (!DL)
    return "";
  std::string File = DL->getFilename().str();
  return formatv(" at {0}:{1}:{2}", File.empty() ? "<source>" : File, DL.getLine(),
                 DL.getCol())
      .str();
}

std::string printed(const Value &V) {
  std::string Text;
  raw_string_ostream OS(Text);
  V.print(OS);
  return StringRef(Text).trim().str();
}

/// Problems found in the module, reported together (up to a limit) so a
/// user fixes them in one round.
class Problems {
public:
  void add(const Instruction &I, StringRef What, StringRef Fix) {
    const Function &F = *I.getFunction();
    add(formatv("{0} '{1}'{2}: {3}: `{4}`; {5}", isKernel(F) ? "kernel" : "function",
                readableName(F), sourceLocation(I), What, printed(I), Fix)
            .str());
  }
  void add(std::string Message) {
    if (Messages.size() < MaxReported)
      Messages.push_back(std::move(Message));
    ++Count;
  }
  Error take() {
    if (Messages.empty())
      return Error::success();
    std::string Text = join(Messages, "\n");
    if (Count > Messages.size())
      Text += formatv("\n({0} more problems not shown)", Count - Messages.size()).str();
    return createStringError(Text);
  }

private:
  static constexpr size_t MaxReported = 10;
  std::vector<std::string> Messages;
  size_t Count = 0;
};

// ---- Before optimization: calls the inliner cannot remove --------------

/// Recursion (direct or through other functions) and indirect calls cannot
/// be inlined, and the SIMT target has no call stack.
void checkCallGraph(Module &M, Problems &P) {
  enum class State { Unvisited, OnStack, Done };
  DenseMap<const Function *, State> Visit;
  std::function<void(Function &)> Walk = [&](Function &F) {
    Visit[&F] = State::OnStack;
    for (Instruction &I : instructions(F)) {
      auto *Call = dyn_cast<CallBase>(&I);
      if (!Call || Call->isInlineAsm() || isa<IntrinsicInst>(Call))
        continue;
      Function *Callee = Call->getCalledFunction();
      if (!Callee) {
        P.add(I, "indirect call",
              "the SIMT back end inlines every call and supports no function pointers");
        continue;
      }
      if (Callee->isDeclaration())
        continue; // reported after optimization if it survives
      State S = Visit.lookup(Callee);
      if (S == State::OnStack)
        P.add(I, formatv("recursive call to '{0}'", readableName(*Callee)).str(),
              "the SIMT back end inlines every function and has no call stack; rewrite the "
              "recursion as a loop");
      else if (S == State::Unvisited)
        Walk(*Callee);
    }
    Visit[&F] = State::Done;
  };
  for (Function &F : M)
    if (!F.isDeclaration() && Visit.lookup(&F) == State::Unvisited)
      Walk(F);
}

/// Every non-kernel function is inlined: mark it so (overriding noinline
/// and optnone, which clang puts on functions at -O0) and make it internal
/// so it disappears once inlined.
void markForInlining(Module &M) {
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    F.removeFnAttr(Attribute::OptimizeNone);
    F.removeFnAttr(Attribute::NoInline);
    if (isKernel(F))
      continue;
    F.addFnAttr(Attribute::AlwaysInline);
    F.setLinkage(GlobalValue::InternalLinkage);
    F.setComdat(nullptr);
  }
}

// ---- Our passes ---------------------------------------------------------

/// Replaces the uses of \p V (a generic pointer) with a cast through
/// \p AddrSpace, so infer-address-spaces can give its loads and stores the
/// specific space. What NVPTXLowerArgs and NVPTXLowerAlloca do.
void routeThroughAddressSpace(Value &V, unsigned AddrSpace, Instruction *InsertBefore) {
  IRBuilder<> B(InsertBefore);
  Value *Specific =
      B.CreateAddrSpaceCast(&V, PointerType::get(V.getContext(), AddrSpace), V.getName() + ".as");
  Value *Generic = B.CreateAddrSpaceCast(Specific, V.getType(), V.getName() + ".gen");
  V.replaceUsesWithIf(Generic, [&](Use &U) { return U.getUser() != Specific; });
}

/// Kernel pointer parameters point to global memory (CUDA passes device
/// buffers); byval parameters live in param space and are left alone.
struct LowerKernelPointerArgsPass : PassInfoMixin<LowerKernelPointerArgsPass> {
  PreservedAnalyses run(Function &F, FunctionAnalysisManager &) {
    if (!isKernel(F) || F.isDeclaration())
      return PreservedAnalyses::all();
    bool Changed = false;
    Instruction *Entry = &*F.getEntryBlock().getFirstInsertionPt();
    for (Argument &A : F.args()) {
      auto *PT = dyn_cast<PointerType>(A.getType());
      if (!PT || PT->getAddressSpace() != GenericAS || A.hasByValAttr() || A.use_empty())
        continue;
      routeThroughAddressSpace(A, GlobalAS, Entry);
      Changed = true;
    }
    return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
};

/// Stack objects live in per-thread local memory (addrspace 5).
struct LowerAllocasToLocalPass : PassInfoMixin<LowerAllocasToLocalPass> {
  PreservedAnalyses run(Function &F, FunctionAnalysisManager &) {
    bool Changed = false;
    for (Instruction &I : make_early_inc_range(instructions(F))) {
      auto *AI = dyn_cast<AllocaInst>(&I);
      if (!AI || AI->getAddressSpace() != GenericAS)
        continue;
      routeThroughAddressSpace(*AI, LocalAS, AI->getNextNode());
      Changed = true;
    }
    return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
};

/// The specific address space generic pointer \p V is known to point into
/// (through GEPs to an addrspacecast from a specific space), if any.
std::optional<unsigned> knownAddressSpace(Value *V) {
  for (;;) {
    if (auto *GEP = dyn_cast<GetElementPtrInst>(V))
      V = GEP->getPointerOperand();
    else if (auto *Cast = dyn_cast<AddrSpaceCastInst>(V);
             Cast && Cast->getSrcAddressSpace() != GenericAS)
      return Cast->getSrcAddressSpace();
    else if (auto *Ptr = dyn_cast<PointerType>(V->getType());
             Ptr && Ptr->getAddressSpace() != GenericAS)
      return Ptr->getAddressSpace();
    else
      return std::nullopt;
  }
}

/// The select or phi that \p Ptr is computed from through GEPs, if every
/// pointer it chooses between has a known specific space (what SimplifyCFG
/// and InstCombine make of `c ? local[i] : global[j]`), or null.
Instruction *mixedSpaceChoice(Value *Ptr) {
  while (auto *GEP = dyn_cast<GetElementPtrInst>(Ptr))
    Ptr = GEP->getPointerOperand();
  auto Known = [](Value *V) { return knownAddressSpace(V).has_value(); };
  if (auto *Sel = dyn_cast<SelectInst>(Ptr))
    return Known(Sel->getTrueValue()) && Known(Sel->getFalseValue()) ? Sel : nullptr;
  if (auto *Phi = dyn_cast<PHINode>(Ptr))
    return all_of(Phi->incoming_values(), Known) ? Phi : nullptr;
  return nullptr;
}

/// \p Ptr with \p Choice replaced by \p Chosen: the GEPs between them are
/// rebuilt at \p B's insertion point.
Value *rebuildPointer(IRBuilder<> &B, Value *Ptr, Value *Choice, Value *Chosen) {
  if (Ptr == Choice)
    return Chosen;
  auto *GEP = cast<GetElementPtrInst>(Ptr);
  Value *Base = rebuildPointer(B, GEP->getPointerOperand(), Choice, Chosen);
  SmallVector<Value *, 4> Indices(GEP->indices());
  return B.CreateGEP(GEP->getSourceElementType(), Base, Indices, GEP->getName(),
                     GEP->isInBounds());
}

/// A load or store through `select c, p, q` (or a phi of p and q) where p
/// and q point into different address spaces (one local, one global, say)
/// has no single simt instruction: each space has its own load and store.
///  - select: `if (c) access p else access q` (and a phi for a load);
///  - phi (SimplifyCFG sinks `c ? local[i] : global[j]`'s two loads into
///    the join as one load through a phi of the two addresses): the load
///    moves up into each incoming edge (a new block on an edge from a
///    block that also branches elsewhere), with that edge's address, and a
///    phi joins the values. Only for a load whose block holds the phi, with
///    no write to memory before it in that block, branches into it, and
///    indices computed outside the block.
///  - any other phi, on simt (compfuzz finding 14: LICM sinks a loop's
///    `v = c ? local[i] : global[j]` past the exit as one load through the
///    loop's phi of the two addresses, so the load is not in the phi's
///    block): beside the phi an i1 phi says which of the two spaces each
///    edge brings, and the access is split on it like a select; each side
///    casts the phi's pointer to its space (a no-op on simt, where every
///    space's pointer is the same 32-bit value). Loads and stores, two
///    spaces at most. ptx accesses such pointers as generic ones instead.
/// infer-address-spaces, run again afterwards, gives each copy its space.
/// Branch-free `select c, load p, load q` would be wrong: the access the
/// program does not make may fault (q may be out of bounds when c holds).
/// The branches may be divergent; structurization, which runs later,
/// handles them like any other. Anything else (atomics, three spaces)
/// stays an error with the generic-pointer message.
struct SplitMixedSpaceAccessesPass : PassInfoMixin<SplitMixedSpaceAccessesPass> {
  /// Phis whose access is elsewhere are split on a space tag (simt only).
  bool SplitPhisBySpaceTag = false;

  /// `if (Cond) Access with Choice as SideValue(B, true) else Access with
  /// SideValue(B, false)`, each side's value built in its own arm by B.
  static void splitOn(Instruction &Access, Value *Cond, Value *Choice,
                      function_ref<Value *(IRBuilder<> &B, bool TrueSide)> SideValue) {
    Instruction *ThenTerm = nullptr, *ElseTerm = nullptr;
    SplitBlockAndInsertIfThenElse(Cond, &Access, &ThenTerm, &ElseTerm);
    Value *Ptr = getLoadStorePointerOperand(&Access);
    Instruction *Arm[2];
    for (bool TrueSide : {true, false}) {
      IRBuilder<> B(TrueSide ? ThenTerm : ElseTerm);
      B.SetCurrentDebugLocation(Access.getDebugLoc());
      Value *Side = SideValue(B, TrueSide);
      Instruction *Copy = B.Insert(Access.clone());
      Copy->replaceUsesOfWith(Ptr, rebuildPointer(B, Ptr, Choice, Side));
      Arm[TrueSide ? 0 : 1] = Copy;
    }
    if (isa<LoadInst>(Access)) {
      PHINode *Phi = PHINode::Create(Access.getType(), 2, Access.getName(), Access.getIterator());
      Phi->addIncoming(Arm[0], Arm[0]->getParent());
      Phi->addIncoming(Arm[1], Arm[1]->getParent());
      Phi->setDebugLoc(Access.getDebugLoc());
      Access.replaceAllUsesWith(Phi);
    }
    Access.eraseFromParent();
  }

  static void splitAtSelect(Instruction &Access, SelectInst &Sel) {
    splitOn(Access, Sel.getCondition(), &Sel, [&](IRBuilder<> &, bool TrueSide) {
      return TrueSide ? Sel.getTrueValue() : Sel.getFalseValue();
    });
  }

  /// The two spaces a phi's incoming pointers point into (the first
  /// incoming's first), or nullopt unless there are exactly two.
  static std::optional<std::pair<unsigned, unsigned>> twoSpaces(PHINode &Choice) {
    unsigned First = *knownAddressSpace(Choice.getIncomingValue(0));
    std::optional<unsigned> Second;
    for (Value *In : Choice.incoming_values()) {
      unsigned AS = *knownAddressSpace(In);
      if (AS == First || AS == Second)
        continue;
      if (Second)
        return std::nullopt;
      Second = AS;
    }
    if (!Second)
      return std::nullopt;
    return std::make_pair(First, *Second);
  }

  /// `phi i1` beside \p Choice: true where the edge brings a pointer into
  /// \p Space. One per phi, shared by all its accesses.
  static PHINode *spaceTag(PHINode &Choice, unsigned Space, DenseMap<PHINode *, PHINode *> &Tags) {
    PHINode *&Tag = Tags[&Choice];
    if (Tag)
      return Tag;
    LLVMContext &Ctx = Choice.getContext();
    Tag = PHINode::Create(Type::getInt1Ty(Ctx), Choice.getNumIncomingValues(),
                          Choice.getName() + ".space", Choice.getIterator());
    for (unsigned K = 0; K < Choice.getNumIncomingValues(); ++K)
      Tag->addIncoming(
          ConstantInt::getBool(Ctx, *knownAddressSpace(Choice.getIncomingValue(K)) == Space),
          Choice.getIncomingBlock(K));
    return Tag;
  }

  static void splitAtSpaceTag(Instruction &Access, PHINode &Choice,
                              std::pair<unsigned, unsigned> Spaces,
                              DenseMap<PHINode *, PHINode *> &Tags) {
    PHINode *Tag = spaceTag(Choice, Spaces.first, Tags);
    splitOn(Access, Tag, &Choice, [&](IRBuilder<> &B, bool TrueSide) {
      unsigned AS = TrueSide ? Spaces.first : Spaces.second;
      Value *Specific = B.CreateAddrSpaceCast(&Choice, PointerType::get(Choice.getContext(), AS),
                                              Choice.getName() + ".as");
      return B.CreateAddrSpaceCast(Specific, Choice.getType(), Choice.getName() + ".gen");
    });
  }

  static bool canHoistIntoPredecessors(LoadInst &Load, PHINode &Choice) {
    BasicBlock *Join = Choice.getParent();
    if (Load.getParent() != Join)
      return false;
    for (Instruction &I : make_range(Join->getFirstNonPHIIt(), Load.getIterator()))
      if (I.mayWriteToMemory())
        return false;
    SmallPtrSet<BasicBlock *, 4> Seen;
    for (BasicBlock *Pred : Choice.blocks())
      if (!Seen.insert(Pred).second || !isa<BranchInst>(Pred->getTerminator()))
        return false;
    for (Value *P = Load.getPointerOperand(); P != &Choice;) {
      auto *GEP = cast<GetElementPtrInst>(P);
      for (Value *Index : GEP->indices())
        if (auto *I = dyn_cast<Instruction>(Index); I && I->getParent() == Join)
          return false;
      P = GEP->getPointerOperand();
    }
    return true;
  }

  static void hoistIntoPredecessors(LoadInst &Load, PHINode &Choice) {
    PHINode *Joined = PHINode::Create(Load.getType(), Choice.getNumIncomingValues(),
                                      Load.getName(), Choice.getParent()->getFirstNonPHIIt());
    Joined->setDebugLoc(Load.getDebugLoc());
    // An edge from a block that also branches elsewhere gets a block of
    // its own for the load.
    BasicBlock *Join = Choice.getParent();
    SmallVector<BasicBlock *, 4> Preds(Choice.blocks());
    for (BasicBlock *Pred : Preds) {
      if (Pred->getSingleSuccessor() == Join)
        continue;
      BasicBlock *Edge = BasicBlock::Create(Join->getContext(), Pred->getName() + ".load",
                                            Join->getParent(), Join);
      BranchInst::Create(Join, Edge)->setDebugLoc(Load.getDebugLoc());
      Pred->getTerminator()->replaceSuccessorWith(Join, Edge);
      Join->replacePhiUsesWith(Pred, Edge);
    }
    for (unsigned K = 0; K < Choice.getNumIncomingValues(); ++K) {
      BasicBlock *Pred = Choice.getIncomingBlock(K);
      IRBuilder<> B(Pred->getTerminator());
      B.SetCurrentDebugLocation(Load.getDebugLoc());
      Instruction *Copy = B.Insert(Load.clone());
      Copy->replaceUsesOfWith(Load.getPointerOperand(),
                              rebuildPointer(B, Load.getPointerOperand(), &Choice,
                                             Choice.getIncomingValue(K)));
      Joined->addIncoming(Copy, Pred);
    }
    Load.replaceAllUsesWith(Joined);
    Load.eraseFromParent();
  }

  PreservedAnalyses run(Function &F, FunctionAnalysisManager &) {
    enum class How { Select, Hoist, SpaceTag };
    struct Split {
      Instruction *Access;
      Instruction *Choice;
      How Way;
      std::pair<unsigned, unsigned> Spaces = {}; // SpaceTag: twoSpaces of the phi
    };
    SmallVector<Split, 4> Work;
    for (Instruction &I : instructions(F)) {
      if (!isa<LoadInst>(I) && !isa<StoreInst>(I))
        continue;
      Value *Ptr = getLoadStorePointerOperand(&I);
      if (Ptr->getType()->getPointerAddressSpace() != GenericAS)
        continue;
      Instruction *Choice = mixedSpaceChoice(Ptr);
      auto *Load = dyn_cast<LoadInst>(&I);
      auto *Phi = dyn_cast_or_null<PHINode>(Choice);
      if (!Choice)
        continue;
      if (!Phi)
        Work.push_back({&I, Choice, How::Select});
      else if (Load && canHoistIntoPredecessors(*Load, *Phi))
        Work.push_back({&I, Choice, How::Hoist});
      else if (auto Spaces = SplitPhisBySpaceTag ? twoSpaces(*Phi) : std::nullopt)
        Work.push_back({&I, Choice, How::SpaceTag, *Spaces});
    }
    DenseMap<PHINode *, PHINode *> Tags;
    for (const Split &S : Work) {
      switch (S.Way) {
      case How::Select:
        splitAtSelect(*S.Access, *cast<SelectInst>(S.Choice));
        break;
      case How::Hoist:
        hoistIntoPredecessors(*cast<LoadInst>(S.Access), *cast<PHINode>(S.Choice));
        break;
      case How::SpaceTag:
        splitAtSpaceTag(*S.Access, *cast<PHINode>(S.Choice), S.Spaces, Tags);
        break;
      }
    }
    return Work.empty() ? PreservedAnalyses::all() : PreservedAnalyses::none();
  }
};

/// memcpy/memset/memmove (aggregate copies, zero-initialization) become
/// loops of loads and stores; the SIMT target has no library to call.
struct ExpandMemIntrinsicsPass : PassInfoMixin<ExpandMemIntrinsicsPass> {
  PreservedAnalyses run(Function &F, FunctionAnalysisManager &AM) {
    const TargetTransformInfo &TTI = AM.getResult<TargetIRAnalysis>(F);
    SmallVector<MemIntrinsic *, 4> Work;
    for (Instruction &I : instructions(F))
      if (auto *MI = dyn_cast<MemIntrinsic>(&I))
        Work.push_back(MI);
    for (MemIntrinsic *MI : Work) {
      if (auto *Copy = dyn_cast<MemCpyInst>(MI))
        expandMemCpyAsLoop(Copy, TTI);
      else if (auto *Move = dyn_cast<MemMoveInst>(MI)) {
        if (!expandMemMoveAsLoop(Move, TTI))
          continue; // left for the checks to report
      } else if (auto *Set = dyn_cast<MemSetInst>(MI))
        expandMemSetAsLoop(Set);
      else
        continue;
      MI->eraseFromParent();
    }
    return Work.empty() ? PreservedAnalyses::all() : PreservedAnalyses::none();
  }
};

/// LoopUnroll's runtime remainder leaves two phis in the remainder's exit
/// block that carry one value: `%sum.unr = phi [0, %pre], [%s, %rem]` for
/// the main loop and `%sum.lcssa.unr = phi [poison, %pre], [%s, %rem]` for
/// the loop's exit. Out of SSA they are two registers and a copy between
/// them on the edge into the main loop (`mov.f32` in spmv_vector's PTX). A
/// phi that agrees with a sibling phi of its block on every edge where it
/// is not undef or poison is that sibling: undef and poison may be refined
/// to any value, the sibling's included. The phi is replaced; nothing else
/// changes.
struct FoldPhiIntoAgreeingSiblingPass : PassInfoMixin<FoldPhiIntoAgreeingSiblingPass> {
  PreservedAnalyses run(Function &F, FunctionAnalysisManager &) {
    if (!foldAll(F))
      return PreservedAnalyses::all();
    PreservedAnalyses PA;
    PA.preserveSet<CFGAnalyses>();
    return PA;
  }

  /// Every phi of \p F that has an agreeing sibling is replaced by it.
  static bool foldAll(Function &F) {
    bool Changed = false;
    for (BasicBlock &BB : F)
      for (PHINode &Phi : make_early_inc_range(BB.phis()))
        if (PHINode *Sibling = agreeingSibling(Phi)) {
          Phi.replaceAllUsesWith(Sibling);
          Phi.eraseFromParent();
          Changed = true;
        }
    return Changed;
  }

  static bool agreesWith(const PHINode &Phi, const PHINode &Other) {
    bool SawUndef = false;
    for (unsigned I = 0, E = Phi.getNumIncomingValues(); I != E; ++I) {
      Value *In = Phi.getIncomingValue(I);
      if (isa<UndefValue>(In)) { // poison too
        SawUndef = true;
        continue;
      }
      if (In != Other.getIncomingValueForBlock(Phi.getIncomingBlock(I)))
        return false;
    }
    return SawUndef;
  }

  static PHINode *agreeingSibling(PHINode &Phi) {
    for (PHINode &Other : Phi.getParent()->phis())
      if (&Other != &Phi && Other.getType() == Phi.getType() && agreesWith(Phi, Other))
        return &Other;
    return nullptr;
  }
};

/// GVN's PRE leaves `phi [X1, A], [X2, B]` where X1 and X2 compute one
/// pure value (`and i32 %p, 31`, placed on an edge and kept in a branch).
/// Uniformity analysis calls a phi at the join of a divergent branch
/// divergent unless one Value comes in on every edge, so such a phi of a
/// uniform value, and a branch on it, turn divergent: mask code for a
/// uniform branch, and a __syncthreads() under it becomes an error
/// (compfuzz finding 13). Where every incoming value is an instruction
/// identical to the first one (isIdenticalTo), speculatable, not touching
/// memory, with its operands available at the phi's block, the phi becomes
/// one computation at the top of that block (and copies the phi alone used
/// are deleted): no more instructions than before, and the value is
/// uniform again when its operands are. SimplifyCFG turns a small such
/// diamond into `select %c, X1, X2` (so at -O0 too), which becomes X1.
struct RecomputeEqualIncomingValuesPass : PassInfoMixin<RecomputeEqualIncomingValuesPass> {
  PreservedAnalyses run(Function &F, FunctionAnalysisManager &AM) {
    DominatorTree &DT = AM.getResult<DominatorTreeAnalysis>(F);
    bool Changed = false;
    for (BasicBlock &BB : F) {
      for (PHINode &Phi : make_early_inc_range(BB.phis()))
        Changed |= recompute(Phi, DT);
      for (Instruction &I : make_early_inc_range(BB))
        if (auto *Sel = dyn_cast<SelectInst>(&I))
          Changed |= chooseEither(*Sel);
    }
    if (!Changed)
      return PreservedAnalyses::all();
    PreservedAnalyses PA;
    PA.preserveSet<CFGAnalyses>();
    return PA;
  }

  /// Pure, speculatable, not a phi: may be computed anywhere its operands
  /// are available.
  static bool isPureComputation(const Instruction &I) {
    return !isa<PHINode>(I) && !I.mayReadOrWriteMemory() && isSafeToSpeculativelyExecute(&I);
  }

  static bool chooseEither(SelectInst &Sel) {
    auto *T = dyn_cast<Instruction>(Sel.getTrueValue());
    auto *E = dyn_cast<Instruction>(Sel.getFalseValue());
    if (!T || !E || T == E || !isPureComputation(*T) || !T->isIdenticalTo(E))
      return false;
    Sel.replaceAllUsesWith(T); // an operand of the select: it dominates it
    Sel.eraseFromParent();
    if (E->use_empty())
      E->eraseFromParent();
    return true;
  }

  static bool recompute(PHINode &Phi, const DominatorTree &DT) {
    auto *First = dyn_cast<Instruction>(Phi.getIncomingValue(0));
    if (!First || !isPureComputation(*First))
      return false;
    SmallPtrSet<Instruction *, 4> Copies;
    for (Value *In : Phi.incoming_values()) {
      auto *I = dyn_cast<Instruction>(In);
      if (!I || !(I == First || I->isIdenticalTo(First)))
        return false;
      Copies.insert(I);
    }
    if (Copies.size() < 2)
      return false; // one instruction on every edge: InstSimplify's case
    BasicBlock &BB = *Phi.getParent();
    Instruction *At = &*BB.getFirstInsertionPt();
    for (Value *Op : First->operands())
      if (auto *OpI = dyn_cast<Instruction>(Op); OpI && !DT.dominates(OpI, At))
        return false;
    Instruction *Once = First->clone();
    Once->insertBefore(At);
    Once->takeName(&Phi);
    Once->setDebugLoc(First->getDebugLoc());
    Phi.replaceAllUsesWith(Once);
    Phi.eraseFromParent();
    for (Instruction *I : Copies)
      if (I->use_empty())
        I->eraseFromParent();
    return true;
  }
};

/// llvm.is.fpclass (which InstCombine makes of NaN and infinity tests,
/// including the math library's) becomes integer tests on the bits, which
/// every target selects: one range test on |x| per class, ORed.
struct LowerIsFpClassPass : PassInfoMixin<LowerIsFpClassPass> {
  static Value *classTest(IRBuilder<> &B, Value *Bits, Value *Abs, FPClassTest Mask) {
    auto U32 = [&](uint32_t V) { return B.getInt32(V); };
    auto InRange = [&](uint32_t Lo, uint32_t Hi) { // Lo <= Abs <= Hi, unsigned
      return B.CreateICmpULE(B.CreateSub(Abs, U32(Lo)), U32(Hi - Lo));
    };
    Value *Negative = B.CreateICmpSLT(Bits, U32(0));
    Value *Result = B.getFalse();
    auto Add = [&](FPClassTest Neg, FPClassTest Pos, Value *MagnitudeTest) {
      bool N = (Mask & Neg) != fcNone, P = (Mask & Pos) != fcNone;
      if (!N && !P)
        return;
      Value *T = MagnitudeTest;
      if (N != P)
        T = B.CreateAnd(T, N ? Negative : B.CreateNot(Negative));
      Result = B.CreateOr(Result, T);
    };
    Add(fcNegZero, fcPosZero, B.CreateICmpEQ(Abs, U32(0)));
    Add(fcNegSubnormal, fcPosSubnormal, InRange(1, 0x007fffff));
    Add(fcNegNormal, fcPosNormal, InRange(0x00800000, 0x7f7fffff));
    Add(fcNegInf, fcPosInf, B.CreateICmpEQ(Abs, U32(0x7f800000)));
    if (Mask & fcSNan)
      Result = B.CreateOr(Result, InRange(0x7f800001, 0x7fbfffff));
    if (Mask & fcQNan)
      Result = B.CreateOr(Result, B.CreateICmpUGE(Abs, U32(0x7fc00000)));
    return Result;
  }

  PreservedAnalyses run(Function &F, FunctionAnalysisManager &) {
    bool Changed = false;
    for (Instruction &I : make_early_inc_range(instructions(F))) {
      auto *II = dyn_cast<IntrinsicInst>(&I);
      if (!II || II->getIntrinsicID() != Intrinsic::is_fpclass ||
          !II->getArgOperand(0)->getType()->isFloatTy())
        continue;
      auto *MaskArg = cast<ConstantInt>(II->getArgOperand(1));
      IRBuilder<> B(II);
      Value *Bits = B.CreateBitCast(II->getArgOperand(0), B.getInt32Ty());
      Value *Abs = B.CreateAnd(Bits, B.getInt32(0x7fffffff));
      Value *Test =
          classTest(B, Bits, Abs, static_cast<FPClassTest>(MaskArg->getZExtValue()));
      II->replaceAllUsesWith(Test);
      II->eraseFromParent();
      Changed = true;
    }
    return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
};

// ---- both targets: signed division by a power of two ----------------------

/// `sdiv x, 2^k` (i32, i64; 1 <= k < width - 1) as LLVM's DAG combiner
/// writes it: add 2^k - 1 to a negative x (its sign bits shifted down) and
/// shift arithmetically, which rounds toward zero as sdiv does; `sdiv
/// exact` is the shift alone. Why: simt's div takes 34 cycles on the SFU
/// (and i64 would be ExpandDivision64's loop), and ptxas keeps `div.s32 x,
/// 2` as a division (softmax_rows' expf: 344 SASS instructions with it,
/// 304 with the shifts). InstCombine leaves sdiv for its own canonical
/// form, so this runs after optimization. (Until 2026-12-01 each selector
/// wrote these shifts itself.)
struct ExpandSignedDivByPowerOf2Pass : PassInfoMixin<ExpandSignedDivByPowerOf2Pass> {
  static std::optional<unsigned> shiftOf(const BinaryOperator &I) {
    auto *C = dyn_cast<ConstantInt>(I.getOperand(1));
    if (I.getOpcode() != Instruction::SDiv || !C ||
        !(I.getType()->isIntegerTy(32) || I.getType()->isIntegerTy(64)))
      return std::nullopt;
    const APInt &D = C->getValue();
    if (!D.isPowerOf2() || D.isOne() || D.isMinSignedValue())
      return std::nullopt;
    return D.logBase2();
  }

  PreservedAnalyses run(Function &F, FunctionAnalysisManager &) {
    SmallVector<BinaryOperator *, 4> Work;
    for (Instruction &I : instructions(F))
      if (auto *BO = dyn_cast<BinaryOperator>(&I); BO && shiftOf(*BO))
        Work.push_back(BO);
    for (BinaryOperator *BO : Work) {
      unsigned K = *shiftOf(*BO), Bits = BO->getType()->getIntegerBitWidth();
      IRBuilder<> B(BO); // at the division, with its debug location
      Value *X = BO->getOperand(0), *Q;
      if (BO->isExact()) {
        Q = B.CreateAShr(X, K, "", /*isExact=*/true);
      } else {
        Value *Sign = K == 1 ? X : B.CreateAShr(X, K - 1);
        Value *Bias = B.CreateLShr(Sign, Bits - K); // 2^k - 1 if x < 0, else 0
        Q = B.CreateAShr(B.CreateAdd(X, Bias), K);
      }
      Q->takeName(BO);
      BO->replaceAllUsesWith(Q);
      BO->eraseFromParent();
    }
    return Work.empty() ? PreservedAnalyses::all() : PreservedAnalyses::none();
  }
};

// ---- division by a constant ------------------------------------------------

/// `x % C == 0` and `x % C != 0` (urem, i32 and i64, C neither 0 nor a
/// power of two) as a multiplication, what LLVM's DAG combiner does
/// (prepareUREMEqFold; Granlund and Montgomery, Hacker's Delight 10-17):
/// with C = D0 * 2^k, D0 odd, x is a multiple of C exactly when
/// rotr(x * D0^-1, k) <= (2^W - 1) / C, all modulo 2^W. Why: ptxas expands
/// `rem.u32 x, 11` into a multiply-high sequence and the compare is a
/// second step (divergent: 120 SASS instructions, 96 with the fold, as
/// llc's), and simt's remu is 34 cycles on the SFU where mul is 4 on the
/// ALU. Only remainders no one else reads are folded (the division would
/// still be needed otherwise). Both targets.
///
/// Input: SSA after optimization. Guarantees: each folded compare is
/// `icmp ule/ugt (rotr (mul x, inverse), k), bound` with the compare's
/// name; its urem is gone.
struct FoldDivisibilityTestsPass : PassInfoMixin<FoldDivisibilityTestsPass> {
  /// The remainder \p Cmp tests against zero, when it is a fold candidate.
  static BinaryOperator *candidate(ICmpInst &Cmp) {
    auto *Zero = dyn_cast<ConstantInt>(Cmp.getOperand(1));
    auto *Rem = dyn_cast<BinaryOperator>(Cmp.getOperand(0));
    if (!Cmp.isEquality() || !Zero || !Zero->isZero() || !Rem ||
        Rem->getOpcode() != Instruction::URem ||
        !(Rem->getType()->isIntegerTy(32) || Rem->getType()->isIntegerTy(64)))
      return nullptr;
    auto *C = dyn_cast<ConstantInt>(Rem->getOperand(1));
    if (!C || C->isZero() || C->getValue().isPowerOf2())
      return nullptr;
    for (User *U : Rem->users()) {
      auto *Other = dyn_cast<ICmpInst>(U);
      auto *OtherZero = Other ? dyn_cast<ConstantInt>(Other->getOperand(1)) : nullptr;
      if (!Other || Other->getOperand(0) != Rem || !Other->isEquality() || !OtherZero ||
          !OtherZero->isZero())
        return nullptr;
    }
    return Rem;
  }

  PreservedAnalyses run(Function &F, FunctionAnalysisManager &) {
    SmallVector<ICmpInst *, 4> Work;
    for (Instruction &I : instructions(F))
      if (auto *Cmp = dyn_cast<ICmpInst>(&I); Cmp && candidate(*Cmp))
        Work.push_back(Cmp);
    SmallPtrSet<BinaryOperator *, 4> Folded;
    for (ICmpInst *Cmp : Work) {
      BinaryOperator *Rem = candidate(*Cmp);
      const APInt &C = cast<ConstantInt>(Rem->getOperand(1))->getValue();
      unsigned Bits = C.getBitWidth(), K = C.countr_zero();
      APInt Inverse = C.lshr(K).multiplicativeInverse();
      APInt Bound = APInt::getAllOnes(Bits).udiv(C);
      IRBuilder<> B(Cmp); // at the compare, with its debug location
      Value *P = B.CreateMul(Rem->getOperand(0), B.getInt(Inverse));
      if (K) // rotate right by k: a multiple of 2^k has its low k bits 0
        P = B.CreateOr(B.CreateLShr(P, K), B.CreateShl(P, Bits - K));
      Value *Test = Cmp->getPredicate() == ICmpInst::ICMP_EQ ? B.CreateICmpULE(P, B.getInt(Bound))
                                                             : B.CreateICmpUGT(P, B.getInt(Bound));
      Test->takeName(Cmp);
      Cmp->replaceAllUsesWith(Test);
      Cmp->eraseFromParent();
      Folded.insert(Rem);
    }
    for (BinaryOperator *Rem : Folded)
      if (Rem->use_empty())
        Rem->eraseFromParent();
    return Work.empty() ? PreservedAnalyses::all() : PreservedAnalyses::none();
  }
};

/// simt: `udiv`, `urem`, `sdiv` and `srem` (i8, i16, i32) by a constant as a
/// multiply-high and shifts, LLVM's BuildUDIV/BuildSDIV with its magic
/// numbers (llvm/Support/DivisionByConstantInfo.h): mulhiu/mulhi are 4
/// cycles on the ALU, divu/div 34 on the SFU. A remainder is x - q * C.
/// The multiply-high is written `trunc((ext x * ext M) >> 32)`, which
/// SelectWide selects as mulhiu (zext) or mulhi (sext) alone. ptx is left
/// to ptxas, which does the same for `div.u32 x, C`.
///
/// Input: SSA after optimization and ExpandSignedDivByPowerOf2Pass.
/// Guarantees: no i8/i16/i32 division or remainder by a constant is left
/// except by 0 (undefined), by a power of two (unsigned: InstCombine makes
/// those shifts and masks; signed: shifts already), by 1, -1 and INT_MIN
/// (which InstCombine rewrites); i8/i16 ones are computed in i32, and an
/// extension of their result the same way is the i32 result itself.
struct ExpandDivisionByConstantPass : PassInfoMixin<ExpandDivisionByConstantPass> {
  static bool isCandidate(const BinaryOperator &I) {
    auto *C = dyn_cast<ConstantInt>(I.getOperand(1));
    unsigned Bits = I.getType()->isIntegerTy() ? I.getType()->getIntegerBitWidth() : 0;
    if (!C || !(Bits == 8 || Bits == 16 || Bits == 32))
      return false;
    const APInt &D = C->getValue();
    switch (I.getOpcode()) {
    case Instruction::UDiv:
    case Instruction::URem:
      return !D.isZero() && !D.isPowerOf2();
    case Instruction::SDiv:
    case Instruction::SRem:
      return !D.isZero() && !D.isOne() && !D.isAllOnes() && !D.isMinSignedValue() &&
             !D.abs().isPowerOf2();
    default:
      return false;
    }
  }

  static Value *multiplyHigh(IRBuilder<> &B, Value *X, const APInt &Magic, bool Signed) {
    Type *I64 = B.getInt64Ty();
    Value *Wide = Signed ? B.CreateSExt(X, I64) : B.CreateZExt(X, I64);
    Value *M = B.getInt(Signed ? Magic.sext(64) : Magic.zext(64));
    return B.CreateTrunc(B.CreateLShr(B.CreateMul(Wide, M), 32), B.getInt32Ty());
  }

  /// \p X (i8, i16 or i32) as an i32, extended the division's way. A
  /// narrow X that is `trunc V` of an i32 V whose dropped bits are already
  /// the extension (known bits: tid % 3 narrowed to i16) is V itself.
  static Value *widened(IRBuilder<> &B, Value *X, bool Signed) {
    Type *I32 = B.getInt32Ty();
    if (X->getType() == I32)
      return X;
    if (auto *T = dyn_cast<TruncInst>(X); T && T->getSrcTy() == I32) {
      Value *V = T->getOperand(0);
      const DataLayout &DL = T->getModule()->getDataLayout();
      unsigned Bits = X->getType()->getIntegerBitWidth();
      if (Signed ? ComputeNumSignBits(V, DL) > 32 - Bits
                 : computeKnownBits(V, DL).countMinLeadingZeros() >= 32 - Bits)
        return V;
    }
    return Signed ? B.CreateSExt(X, I32) : B.CreateZExt(X, I32);
  }

  static Value *quotient(IRBuilder<> &B, Value *X, const APInt &D, bool Signed) {
    if (!Signed) {
      auto Magic = UnsignedDivisionByConstantInfo::get(D);
      Value *Q = Magic.PreShift ? B.CreateLShr(X, Magic.PreShift) : X;
      Q = multiplyHigh(B, Q, Magic.Magic, false);
      if (Magic.IsAdd) // the magic needed 33 bits: q + (x - q) / 2
        Q = B.CreateAdd(B.CreateLShr(B.CreateSub(X, Q), 1), Q);
      return Magic.PostShift ? B.CreateLShr(Q, Magic.PostShift) : Q;
    }
    auto Magic = SignedDivisionByConstantInfo::get(D);
    Value *Q = multiplyHigh(B, X, Magic.Magic, true);
    if (D.isStrictlyPositive() && Magic.Magic.isNegative())
      Q = B.CreateAdd(Q, X);
    else if (D.isNegative() && Magic.Magic.isStrictlyPositive())
      Q = B.CreateSub(Q, X);
    if (Magic.ShiftAmount)
      Q = B.CreateAShr(Q, Magic.ShiftAmount);
    return B.CreateAdd(Q, B.CreateLShr(Q, 31)); // round toward zero: +1 if negative
  }

  PreservedAnalyses run(Function &F, FunctionAnalysisManager &) {
    SmallVector<BinaryOperator *, 4> Work;
    for (Instruction &I : instructions(F))
      if (auto *BO = dyn_cast<BinaryOperator>(&I); BO && isCandidate(*BO))
        Work.push_back(BO);
    for (BinaryOperator *BO : Work) {
      unsigned Op = BO->getOpcode();
      bool Signed = Op == Instruction::SDiv || Op == Instruction::SRem;
      IRBuilder<> B(BO); // at the division, with its debug location
      // i8 and i16 (InstCombine narrows `(a + b) % 9` so) divide as i32:
      // the extended quotient of extended operands is the quotient.
      const APInt &Narrow = cast<ConstantInt>(BO->getOperand(1))->getValue();
      APInt D = Signed ? Narrow.sext(32) : Narrow.zext(32);
      Value *X = widened(B, BO->getOperand(0), Signed);
      Value *Result = quotient(B, X, D, Signed);
      if (Op == Instruction::URem || Op == Instruction::SRem)
        Result = B.CreateSub(X, B.CreateMul(Result, B.getInt(D)));
      if (BO->getType()->isIntegerTy(32)) {
        Result->takeName(BO);
        BO->replaceAllUsesWith(Result);
        BO->eraseFromParent();
        continue;
      }
      // The i32 result is already the narrow one extended the operands' way
      // (a quotient or remainder is no wider than its dividend): such
      // extensions take it as it is, without a mask or a sign fill.
      Instruction::CastOps Same = Signed ? Instruction::SExt : Instruction::ZExt;
      for (User *U : make_early_inc_range(BO->users()))
        if (auto *Ext = dyn_cast<CastInst>(U);
            Ext && Ext->getOpcode() == Same && Ext->getType()->isIntegerTy(32)) {
          Ext->replaceAllUsesWith(Result);
          Ext->eraseFromParent();
        }
      Value *Trunc = B.CreateTrunc(Result, BO->getType());
      Trunc->takeName(BO);
      BO->replaceAllUsesWith(Trunc);
      BO->eraseFromParent();
    }
    return Work.empty() ? PreservedAnalyses::all() : PreservedAnalyses::none();
  }
};

/// llvm.{u,s}{add,sub}.sat at any integer width, as compares and selects:
/// InstCombine makes them from C's clamping idioms (`a > b ? a - b : 0` is
/// usub.sat), and neither target's patterns select them (PTX has add.sat
/// for s32 only). Unsigned: the wrapped result, or the bound when it
/// wrapped (a sum below a, a difference where a < b). Signed: the wrapped
/// result, or when it overflowed (the operands' signs say it could and
/// the result's sign disagrees) the bound on a's side: a >> (w-1) is 0 or
/// -1, xor MAX is MAX or MIN.
struct ExpandSaturatingArithmeticPass : PassInfoMixin<ExpandSaturatingArithmeticPass> {
  static Value *expand(IRBuilder<> &B, Intrinsic::ID ID, Value *X, Value *Y) {
    Type *T = X->getType();
    unsigned Bits = T->getScalarSizeInBits();
    switch (ID) {
    case Intrinsic::uadd_sat: {
      Value *Sum = B.CreateAdd(X, Y);
      return B.CreateSelect(B.CreateICmpULT(Sum, X), Constant::getAllOnesValue(T), Sum);
    }
    case Intrinsic::usub_sat:
      return B.CreateSelect(B.CreateICmpULT(X, Y), Constant::getNullValue(T), B.CreateSub(X, Y));
    case Intrinsic::sadd_sat:
    case Intrinsic::ssub_sat: {
      bool Add = ID == Intrinsic::sadd_sat;
      Value *R = Add ? B.CreateAdd(X, Y) : B.CreateSub(X, Y);
      // add: x and y of one sign, r of the other; sub: x and y of different
      // signs, r of y's.
      Value *Overflow = Add ? B.CreateAnd(B.CreateXor(X, R), B.CreateXor(Y, R))
                            : B.CreateAnd(B.CreateXor(X, Y), B.CreateXor(X, R));
      Value *Bound = B.CreateXor(B.CreateAShr(X, Bits - 1),
                                 ConstantInt::get(T, APInt::getSignedMaxValue(Bits)));
      return B.CreateSelect(B.CreateICmpSLT(Overflow, Constant::getNullValue(T)), Bound, R);
    }
    default:
      return nullptr;
    }
  }

  PreservedAnalyses run(Function &F, FunctionAnalysisManager &) {
    SmallVector<IntrinsicInst *, 4> Work;
    for (Instruction &I : instructions(F))
      if (auto *II = dyn_cast<IntrinsicInst>(&I); II && II->getType()->isIntegerTy())
        switch (II->getIntrinsicID()) {
        case Intrinsic::uadd_sat:
        case Intrinsic::usub_sat:
        case Intrinsic::sadd_sat:
        case Intrinsic::ssub_sat:
          Work.push_back(II);
          break;
        default:
          break;
        }
    for (IntrinsicInst *II : Work) {
      IRBuilder<> B(II); // at the call, with its debug location
      Value *V = expand(B, II->getIntrinsicID(), II->getArgOperand(0), II->getArgOperand(1));
      V->takeName(II);
      II->replaceAllUsesWith(V);
      II->eraseFromParent();
    }
    return Work.empty() ? PreservedAnalyses::all() : PreservedAnalyses::none();
  }
};

// ---- simt: operations the ISA lacks, built from ones it has ---------------
//
// These run after optimization (so a division by a constant power of two is
// a shift by then, and the optimizer cannot undo the expansions) and before
// structurization (their loops and branches may be divergent).

/// The divisor and dividend of a 64-bit division, at most 32 bits wide:
/// one hardware divide. Otherwise restoring shift-subtract division, one
/// quotient bit per iteration, in a loop whose trip count (64) is uniform.
/// Division by zero gives an all-ones quotient and the dividend as
/// remainder (undefined in C, as in CUDA).
struct QuotientAndRemainder {
  Value *Quotient, *Remainder;
};

QuotientAndRemainder emitUnsignedDivRem64(IRBuilder<> &B, Value *N, Value *D) {
  Type *I64 = B.getInt64Ty(), *I32 = B.getInt32Ty();
  BasicBlock *Before = B.GetInsertBlock();
  Function *F = Before->getParent();
  Instruction *SplitAt = &*B.GetInsertPoint();
  BasicBlock *Done = Before->splitBasicBlock(SplitAt, "div64.done");
  BasicBlock *Narrow = BasicBlock::Create(F->getContext(), "div64.narrow", F, Done);
  BasicBlock *Loop = BasicBlock::Create(F->getContext(), "div64.loop", F, Done);
  Before->getTerminator()->eraseFromParent();

  B.SetInsertPoint(Before);
  Value *Wide = B.CreateICmpNE(B.CreateLShr(B.CreateOr(N, D), 32), B.getInt64(0), "div64.wide");
  B.CreateCondBr(Wide, Loop, Narrow);

  B.SetInsertPoint(Narrow);
  Value *N32 = B.CreateTrunc(N, I32), *D32 = B.CreateTrunc(D, I32);
  // udiv by zero is undefined behaviour in IR: divide by 1 instead and let
  // the selects give the loop's division-by-zero answer.
  Value *DZero = B.CreateICmpEQ(D32, B.getInt32(0));
  Value *SafeD = B.CreateSelect(DZero, B.getInt32(1), D32);
  Value *Q32 = B.CreateSelect(DZero, B.getInt32(~0u), B.CreateUDiv(N32, SafeD));
  Value *R32 = B.CreateSelect(DZero, N32, B.CreateURem(N32, SafeD));
  Value *QNarrow = B.CreateZExt(Q32, I64), *RNarrow = B.CreateZExt(R32, I64);
  B.CreateBr(Done);

  B.SetInsertPoint(Loop);
  PHINode *Count = B.CreatePHI(I32, 2, "div64.count");
  PHINode *Rest = B.CreatePHI(I64, 2, "div64.rest"); // dividend bits not yet used
  PHINode *Rem = B.CreatePHI(I64, 2, "div64.rem");
  PHINode *Quo = B.CreatePHI(I64, 2, "div64.quo");
  Value *Shifted = B.CreateOr(B.CreateShl(Rem, 1), B.CreateLShr(Rest, 63));
  Value *Fits = B.CreateICmpUGE(Shifted, D);
  Value *NextRem = B.CreateSelect(Fits, B.CreateSub(Shifted, D), Shifted);
  Value *NextQuo = B.CreateOr(B.CreateShl(Quo, 1), B.CreateZExt(Fits, I64));
  Value *NextRest = B.CreateShl(Rest, 1);
  Value *NextCount = B.CreateAdd(Count, B.getInt32(1));
  B.CreateCondBr(B.CreateICmpULT(NextCount, B.getInt32(64)), Loop, Done);
  Count->addIncoming(B.getInt32(0), Before);
  Count->addIncoming(NextCount, Loop);
  Rest->addIncoming(N, Before);
  Rest->addIncoming(NextRest, Loop);
  Rem->addIncoming(B.getInt64(0), Before);
  Rem->addIncoming(NextRem, Loop);
  Quo->addIncoming(B.getInt64(0), Before);
  Quo->addIncoming(NextQuo, Loop);

  B.SetInsertPoint(Done, Done->getFirstInsertionPt());
  PHINode *Q = B.CreatePHI(I64, 2, "div64.q"), *R = B.CreatePHI(I64, 2, "div64.r");
  Q->addIncoming(QNarrow, Narrow);
  Q->addIncoming(NextQuo, Loop);
  R->addIncoming(RNarrow, Narrow);
  R->addIncoming(NextRem, Loop);
  B.SetInsertPoint(SplitAt);
  return {Q, R};
}

/// udiv/sdiv/urem/srem on i64: the SIMT ISA divides 32-bit values only.
/// Signed forms divide magnitudes; the quotient is negative when the signs
/// differ, the remainder takes the dividend's sign (C's truncation).
struct ExpandDivision64Pass : PassInfoMixin<ExpandDivision64Pass> {
  PreservedAnalyses run(Function &F, FunctionAnalysisManager &) {
    SmallVector<BinaryOperator *, 4> Work;
    for (Instruction &I : instructions(F))
      if (auto *BO = dyn_cast<BinaryOperator>(&I); BO && BO->getType()->isIntegerTy(64))
        switch (BO->getOpcode()) {
        case Instruction::UDiv:
        case Instruction::SDiv:
        case Instruction::URem:
        case Instruction::SRem:
          Work.push_back(BO);
          break;
        default:
          break;
        }
    for (BinaryOperator *BO : Work) {
      IRBuilder<> B(BO);
      B.SetCurrentDebugLocation(BO->getDebugLoc());
      bool Signed = BO->getOpcode() == Instruction::SDiv || BO->getOpcode() == Instruction::SRem;
      bool WantQuotient = BO->getOpcode() == Instruction::UDiv || BO->getOpcode() == Instruction::SDiv;
      Value *N = BO->getOperand(0), *D = BO->getOperand(1);
      Value *NNeg = nullptr, *DNeg = nullptr;
      if (Signed) {
        NNeg = B.CreateICmpSLT(N, B.getInt64(0));
        DNeg = B.CreateICmpSLT(D, B.getInt64(0));
        N = B.CreateSelect(NNeg, B.CreateNeg(N), N);
        D = B.CreateSelect(DNeg, B.CreateNeg(D), D);
      }
      QuotientAndRemainder QR = emitUnsignedDivRem64(B, N, D);
      Value *Result = WantQuotient ? QR.Quotient : QR.Remainder;
      if (Signed) {
        Value *Negate = WantQuotient ? B.CreateXor(NNeg, DNeg) : NNeg;
        Result = B.CreateSelect(Negate, B.CreateNeg(Result), Result);
      }
      BO->replaceAllUsesWith(Result);
      Result->takeName(BO);
      BO->eraseFromParent();
    }
    return Work.empty() ? PreservedAnalyses::all() : PreservedAnalyses::none();
  }
};

/// i64 <-> f32 conversions from 32-bit ones (the ISA converts 32-bit
/// integers only), rounding as C does: to nearest even into float, toward
/// zero out of it. Out-of-range float -> integer conversions are undefined
/// in C and give whatever the 32-bit saturating conversions make of them.
struct ExpandConversions64Pass : PassInfoMixin<ExpandConversions64Pass> {
  /// 2^E as a float, for 0 <= E <= 64 (a normal number: exact).
  static Value *powerOfTwo(IRBuilder<> &B, Value *E) {
    return B.CreateBitCast(B.CreateShl(B.CreateAdd(E, B.getInt32(127)), 23), B.getFloatTy());
  }

  /// Unsigned X to float: above 2^32 the top 32 significant bits, with
  /// every bit shifted out ORed into the lowest (a sticky bit far below the
  /// rounding position, so the one rounding of the 32-bit conversion is
  /// the correct one), then scaled back by an exact power of two.
  static Value *unsignedToFloat(IRBuilder<> &B, Value *X) {
    Type *I32 = B.getInt32Ty(), *I64 = B.getInt64Ty();
    Value *Hi = B.CreateTrunc(B.CreateLShr(X, 32), I32);
    Value *Lo = B.CreateTrunc(X, I32);
    Value *HiBits = B.CreateSub(B.getInt32(32),
                                B.CreateBinaryIntrinsic(Intrinsic::ctlz, Hi, B.getFalse()));
    Value *Shift = B.CreateZExt(HiBits, I64); // 0 when Hi == 0
    Value *Top = B.CreateTrunc(B.CreateLShr(X, Shift), I32);
    Value *LostMask = B.CreateSub(B.CreateShl(B.getInt64(1), Shift), B.getInt64(1));
    Value *Sticky = B.CreateZExt(B.CreateICmpNE(B.CreateAnd(X, LostMask), B.getInt64(0)), I32);
    Value *Big = B.CreateFMul(B.CreateUIToFP(B.CreateOr(Top, Sticky), B.getFloatTy()),
                              powerOfTwo(B, HiBits));
    Value *Small = B.CreateUIToFP(Lo, B.getFloatTy());
    return B.CreateSelect(B.CreateICmpEQ(Hi, B.getInt32(0)), Small, Big);
  }

  /// Float X >= 0 to unsigned i64: the high word is trunc(X / 2^32); what
  /// remains, X - high * 2^32, is exact and below 2^32.
  static Value *floatToUnsigned(IRBuilder<> &B, Value *X) {
    Type *I32 = B.getInt32Ty(), *I64 = B.getInt64Ty(), *F32 = B.getFloatTy();
    Value *Hi = B.CreateFPToUI(B.CreateFMul(X, ConstantFP::get(F32, 0x1p-32)), I32);
    Value *HiPart = B.CreateFMul(B.CreateUIToFP(Hi, F32), ConstantFP::get(F32, 0x1p32));
    Value *Lo = B.CreateFPToUI(B.CreateFSub(X, HiPart), I32);
    return B.CreateOr(B.CreateShl(B.CreateZExt(Hi, I64), 32), B.CreateZExt(Lo, I64));
  }

  PreservedAnalyses run(Function &F, FunctionAnalysisManager &) {
    SmallVector<CastInst *, 4> Work;
    for (Instruction &I : instructions(F)) {
      auto *C = dyn_cast<CastInst>(&I);
      if (!C)
        continue;
      bool IntToFloat = isa<SIToFPInst>(C) || isa<UIToFPInst>(C);
      bool FloatToInt = isa<FPToSIInst>(C) || isa<FPToUIInst>(C);
      Type *IntTy = IntToFloat ? C->getSrcTy() : C->getDestTy();
      Type *FpTy = IntToFloat ? C->getDestTy() : C->getSrcTy();
      if ((IntToFloat || FloatToInt) && IntTy->isIntegerTy(64) && FpTy->isFloatTy())
        Work.push_back(C);
    }
    for (CastInst *C : Work) {
      IRBuilder<> B(C);
      B.SetCurrentDebugLocation(C->getDebugLoc());
      Value *X = C->getOperand(0), *Result = nullptr;
      if (isa<UIToFPInst>(C)) {
        Result = unsignedToFloat(B, X);
      } else if (isa<SIToFPInst>(C)) {
        Value *Neg = B.CreateICmpSLT(X, B.getInt64(0));
        Value *Mag = unsignedToFloat(B, B.CreateSelect(Neg, B.CreateNeg(X), X));
        Result = B.CreateSelect(Neg, B.CreateFNeg(Mag), Mag);
      } else if (isa<FPToUIInst>(C)) {
        Result = floatToUnsigned(B, X);
      } else {
        Value *Neg = B.CreateFCmpOLT(X, ConstantFP::get(X->getType(), 0.0));
        Value *Mag = floatToUnsigned(B, B.CreateUnaryIntrinsic(Intrinsic::fabs, X));
        Result = B.CreateSelect(Neg, B.CreateNeg(Mag), Mag);
      }
      C->replaceAllUsesWith(Result);
      Result->takeName(C);
      C->eraseFromParent();
    }
    return Work.empty() ? PreservedAnalyses::all() : PreservedAnalyses::none();
  }
};

/// atomicrmw operations the ISA has no instruction for (and, or, xor, nand,
/// fsub, fmin, fmax, uinc_wrap, udec_wrap) become a compare-and-swap loop:
/// read, compute, cas; a lane whose cas found another value retries with
/// it. Lock-free, so lanes of one warp contending for one word still make
/// progress (one of them wins each round).
struct ExpandAtomicsPass : PassInfoMixin<ExpandAtomicsPass> {
  static bool hasInstruction(const AtomicRMWInst &A) {
    switch (A.getOperation()) {
    case AtomicRMWInst::Add:
    case AtomicRMWInst::Sub:
    case AtomicRMWInst::FAdd:
    case AtomicRMWInst::Min:
    case AtomicRMWInst::Max:
    case AtomicRMWInst::UMin:
    case AtomicRMWInst::UMax:
    case AtomicRMWInst::Xchg:
      return true;
    default:
      return false;
    }
  }

  static void expand(AtomicRMWInst &A) {
    Type *ValTy = A.getType();
    Type *IntTy = IntegerType::get(A.getContext(), ValTy->getPrimitiveSizeInBits());
    BasicBlock *Before = A.getParent();
    Function *F = Before->getParent();
    BasicBlock *Done = Before->splitBasicBlock(&A, "atomic.done");
    BasicBlock *Loop = BasicBlock::Create(A.getContext(), "atomic.cas", F, Done);
    Before->getTerminator()->eraseFromParent();

    IRBuilder<> B(Before);
    B.SetCurrentDebugLocation(A.getDebugLoc());
    Value *Ptr = A.getPointerOperand();
    LoadInst *Initial = B.CreateAlignedLoad(IntTy, Ptr, A.getAlign(), "atomic.initial");
    Initial->setVolatile(true);
    B.CreateBr(Loop);

    B.SetInsertPoint(Loop);
    PHINode *Seen = B.CreatePHI(IntTy, 2, "atomic.seen");
    Value *Old = B.CreateBitCast(Seen, ValTy);
    Value *New = buildAtomicRMWValue(A.getOperation(), B, Old, A.getValOperand());
    AtomicCmpXchgInst *Cas =
        B.CreateAtomicCmpXchg(Ptr, Seen, B.CreateBitCast(New, IntTy), A.getAlign(),
                              A.getOrdering(), AtomicCmpXchgInst::getStrongestFailureOrdering(
                                                   A.getOrdering()),
                              A.getSyncScopeID());
    Value *Found = B.CreateExtractValue(Cas, 0, "atomic.found");
    Value *Swapped = B.CreateExtractValue(Cas, 1, "atomic.swapped");
    B.CreateCondBr(Swapped, Done, Loop);
    Seen->addIncoming(Initial, Before);
    Seen->addIncoming(Found, Loop);

    // The cas that swapped found the value it computed from: the old one.
    B.SetInsertPoint(Done, Done->getFirstInsertionPt());
    Value *Result = B.CreateBitCast(Seen, ValTy);
    A.replaceAllUsesWith(Result);
    Result->takeName(&A);
    A.eraseFromParent();
  }

  PreservedAnalyses run(Function &F, FunctionAnalysisManager &) {
    SmallVector<AtomicRMWInst *, 4> Work;
    for (Instruction &I : instructions(F))
      if (auto *A = dyn_cast<AtomicRMWInst>(&I);
          A && !hasInstruction(*A) && A->getType()->getPrimitiveSizeInBits() == 32)
        Work.push_back(A);
    for (AtomicRMWInst *A : Work)
      expand(*A);
    return Work.empty() ? PreservedAnalyses::all() : PreservedAnalyses::none();
  }
};

// ---- Target machine -----------------------------------------------------

void initializeNVPTX() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
  });
}

/// The NVPTX target machine gives the passes NVPTX's cost model and, more
/// importantly, its divergence facts (thread ids, atomics, shuffles) that
/// uniformity analysis and StructurizeCFG rely on.
Expected<std::unique_ptr<TargetMachine>> createTargetMachine(Module &M) {
  initializeNVPTX();
  Triple TT(M.getTargetTriple());
  if (!TT.isNVPTX())
    return createStringError(formatv(
        "IR preparation needs an NVPTX module (triple nvptx-nvidia-cuda or "
        "nvptx64-nvidia-cuda), not '{0}'",
        M.getTargetTriple()));
  std::string Error;
  const Target *T = TargetRegistry::lookupTarget(TT.str(), Error);
  if (!T)
    return createStringError("the NVPTX target is not available in this LLVM: " + Error);
  std::string CPU = "sm_90";
  for (Function &F : M)
    if (F.hasFnAttribute("target-cpu")) {
      CPU = F.getFnAttribute("target-cpu").getValueAsString().str();
      break;
    }
  return std::unique_ptr<TargetMachine>(
      T->createTargetMachine(TT.str(), CPU, "", TargetOptions(), std::nullopt));
}

OptimizationLevel optimizationLevel(unsigned Level) {
  switch (Level) {
  case 0:
    return OptimizationLevel::O0;
  case 1:
    return OptimizationLevel::O1;
  case 2:
    return OptimizationLevel::O2;
  default:
    return OptimizationLevel::O3;
  }
}

// ---- --print-after --------------------------------------------------------

bool wantsPrint(const PrepareOptions &Opts, StringRef Name) {
  return Opts.PrintStream && is_contained(Opts.PrintAfter, Name);
}

void printUnit(raw_ostream &OS, StringRef Name, Any IR) {
  OS << "; *** IR Dump After " << Name << " ***\n";
  if (const auto *M = llvm::any_cast<const Module *>(&IR))
    (*M)->print(OS, nullptr);
  else if (const auto *F = llvm::any_cast<const Function *>(&IR))
    (*F)->print(OS);
  else if (const auto *C = llvm::any_cast<const LazyCallGraph::SCC *>(&IR))
    for (const LazyCallGraph::Node &N : **C)
      N.getFunction().print(OS);
  else if (const auto *L = llvm::any_cast<const Loop *>(&IR))
    (*L)->getHeader()->getParent()->print(OS);
}

void registerPrintAfter(PassInstrumentationCallbacks &PIC, const PrepareOptions &Opts) {
  if (!Opts.PrintStream || Opts.PrintAfter.empty())
    return;
  PIC.registerAfterPassCallback(
      [&PIC, &Opts](StringRef ClassName, Any IR, const PreservedAnalyses &) {
        StringRef Name = PIC.getPassNameForClassName(ClassName);
        if (!Name.empty() && wantsPrint(Opts, Name))
          printUnit(*Opts.PrintStream, Name, IR);
      });
}

/// `&a[i][j]` (two or more variable indices) as `&(&a[i])[j]`, so that
/// EarlyCSE can share `&a[i]` between accesses to one row, and
/// ReuseDominatingAddressPass can see `&(&a[i])[j - k]` beside
/// `&(&a[i])[j]`: scan_blocks reads `buf[src][tid]` and
/// `buf[src][tid - offset]` and writes `buf[1 - src][tid]`; each full GEP
/// was selected on its own, `buf + src * 1024` twice per iteration (ptx: 80
/// SASS instructions, 72 split, as llc's). Runs after
/// SplitAddressOffsetsPass, which groups the unsplit GEPs by their
/// variable indices (split first, transpose went from 96 to 104).
///
/// Input: SSA. Guarantees: every GEP with two or more non-constant
/// indices, the last of them variable, is `gep (gep P, leading indices),
/// last index`; inbounds is kept on both (an inbounds GEP's partial
/// addresses are in bounds too).
struct SplitGepPrefixPass : PassInfoMixin<SplitGepPrefixPass> {
  PreservedAnalyses run(Function &F, FunctionAnalysisManager &) {
    SmallVector<GetElementPtrInst *, 8> Work;
    for (Instruction &I : instructions(F))
      if (auto *G = dyn_cast<GetElementPtrInst>(&I)) {
        unsigned Variable = 0;
        for (Value *Idx : G->indices())
          Variable += !isa<Constant>(Idx);
        if (Variable >= 2 && !isa<Constant>(G->getOperand(G->getNumOperands() - 1)))
          Work.push_back(G);
      }
    for (GetElementPtrInst *G : Work) {
      IRBuilder<> B(G);
      SmallVector<Value *, 4> Lead(G->idx_begin(), G->idx_end() - 1);
      Value *Prefix =
          B.CreateGEP(G->getSourceElementType(), G->getPointerOperand(), Lead, "", G->isInBounds());
      Value *New = B.CreateGEP(G->getResultElementType(), Prefix,
                               G->getOperand(G->getNumOperands() - 1), "", G->isInBounds());
      New->takeName(G);
      G->replaceAllUsesWith(New);
      G->eraseFromParent();
    }
    return Work.empty() ? PreservedAnalyses::all() : PreservedAnalyses::none();
  }
};

/// The no-wrap flags an add under the GEP index \p Idx (the operand, after
/// any extension) needs for the index of the sum to be the sum of the
/// indices: nuw under a zext; nsw under a sext, or when the index is
/// narrower than the pointer's index width (GEP sign-extends it). The
/// address passes below split indices only under this rule.
struct IndexNoWrap {
  bool Nuw, Nsw;
  IndexNoWrap(const Value *Idx, unsigned IndexBits)
      : Nuw(isa<ZExtInst>(Idx)),
        Nsw(isa<SExtInst>(Idx) || Idx->getType()->getIntegerBitWidth() < IndexBits) {}
  bool allows(const BinaryOperator &Add) const {
    return (!Nuw || Add.hasNoUnsignedWrap()) && (!Nsw || Add.hasNoSignedWrap());
  }
};

/// `&a[x + y]` as `&a[y] + x` where `&a[y]` is already computed and
/// dominates it: `sums[tid + stride]` beside `sums[tid]` (block_reduce)
/// needs only stride's scaled offset, not a second full address (ptx: 72
/// SASS instructions, 64 with it, as llc's NaryReassociate gives; simt: one
/// add fewer per access). A narrow NaryReassociate: that pass reassociates
/// integer adds too, in loops, and ptxas then unrolled spmm_csr's loop
/// (112 -> 328). Here only the GEP is rewritten, only when its last index
/// is an extension of an add used by nothing else (so the add goes away)
/// and another GEP of the same pointer and leading indices has exactly the
/// extended other addend as its last index.
///
/// Input: SSA after optimization. The add must carry the flags IndexNoWrap
/// names (none for an index as wide as the pointer's: 64 bits on ptx, 32
/// on simt; GEP offsets wrap at that width). Guarantees:
/// the rewritten GEP computes the same address, as `gep T, Dominating,
/// ext x`, without inbounds (x alone may be a large offset that the sum
/// with y wrapped back into range).
struct ReuseDominatingAddressPass : PassInfoMixin<ReuseDominatingAddressPass> {
  /// The add under the last index of \p G and how it is extended (0 for
  /// none), when the rewrite is valid and removes the add.
  static BinaryOperator *addUnderLastIndex(GetElementPtrInst &G, unsigned &ExtOp) {
    Value *Idx = G.getOperand(G.getNumOperands() - 1);
    IndexNoWrap Need(Idx, G.getModule()->getDataLayout().getIndexTypeSizeInBits(G.getType()));
    ExtOp = 0;
    if (auto *Ext = dyn_cast<CastInst>(Idx);
        Ext && (Ext->getOpcode() == Instruction::ZExt || Ext->getOpcode() == Instruction::SExt)) {
      if (!Ext->hasOneUse())
        return nullptr;
      ExtOp = Ext->getOpcode();
      Idx = Ext->getOperand(0);
    }
    auto *Add = dyn_cast<BinaryOperator>(Idx);
    if (!Add || Add->getOpcode() != Instruction::Add || !Add->hasOneUse() || !Need.allows(*Add))
      return nullptr;
    return Add;
  }

  /// A GEP other than \p G, dominating it, of the same type, pointer and
  /// leading indices, whose last index is \p Addend extended by \p ExtOp.
  static GetElementPtrInst *dominatingGep(GetElementPtrInst &G, Value *Addend, unsigned ExtOp,
                                          DominatorTree &DT) {
    SmallVector<Value *, 4> LastIndices;
    if (!ExtOp)
      LastIndices.push_back(Addend);
    else
      for (User *U : Addend->users())
        if (auto *Ext = dyn_cast<CastInst>(U);
            Ext && Ext->getOpcode() == ExtOp &&
            Ext->getType() == G.getOperand(G.getNumOperands() - 1)->getType())
          LastIndices.push_back(Ext);
    for (Value *Last : LastIndices)
      for (User *U : Last->users()) {
        auto *Other = dyn_cast<GetElementPtrInst>(U);
        if (!Other || Other == &G || Other->getNumOperands() != G.getNumOperands() ||
            Other->getSourceElementType() != G.getSourceElementType() ||
            Other->getOperand(Other->getNumOperands() - 1) != Last || !DT.dominates(Other, &G))
          continue;
        bool SameLeading = true;
        for (unsigned K = 0; K + 1 < G.getNumOperands(); ++K)
          SameLeading &= Other->getOperand(K) == G.getOperand(K);
        if (SameLeading)
          return Other;
      }
    return nullptr;
  }

  PreservedAnalyses run(Function &F, FunctionAnalysisManager &AM) {
    DominatorTree &DT = AM.getResult<DominatorTreeAnalysis>(F);
    SmallVector<GetElementPtrInst *, 8> Geps;
    for (Instruction &I : instructions(F))
      if (auto *G = dyn_cast<GetElementPtrInst>(&I); G && G->getNumIndices() >= 1)
        Geps.push_back(G);
    bool Changed = false;
    for (GetElementPtrInst *G : Geps) {
      unsigned ExtOp;
      BinaryOperator *Add = addUnderLastIndex(*G, ExtOp);
      if (!Add)
        continue;
      for (unsigned Side : {1u, 0u}) {
        Value *Known = Add->getOperand(Side), *Rest = Add->getOperand(1 - Side);
        GetElementPtrInst *Dom = dominatingGep(*G, Known, ExtOp, DT);
        if (!Dom)
          continue;
        Value *Idx = G->getOperand(G->getNumOperands() - 1);
        IRBuilder<> B(G);
        Value *RestIdx =
            ExtOp ? B.CreateCast(Instruction::CastOps(ExtOp), Rest, Idx->getType()) : Rest;
        Value *New = B.CreateGEP(G->getResultElementType(), Dom, RestIdx);
        New->takeName(G);
        G->replaceAllUsesWith(New);
        G->eraseFromParent();
        if (auto *Ext = dyn_cast<Instruction>(Idx); Ext && Ext != Add && Ext->use_empty())
          Ext->eraseFromParent();
        if (Add->use_empty())
          Add->eraseFromParent();
        Changed = true;
        break;
      }
    }
    if (!Changed)
      return PreservedAnalyses::all();
    PreservedAnalyses PA;
    PA.preserveSet<CFGAnalyses>();
    return PA;
  }
};

/// Constant offsets out of address indices, and one base per group of
/// accesses that differ only by them: `tile[ty + 8][tx]`,
/// `tile[ty + 16][tx]` and `tile[ty][tx]` become one `&tile[ty][tx]` and
/// the byte offsets 1056, 2112 and 0, which both selectors fold into the
/// access's [base+offset]. What NVPTX's SeparateConstOffsetFromGEP and
/// MachineCSE's PRE do for llc. In loops too: an unrolled loop's
/// `vals[j + 1]`, `vals[j + 2]`... become [base+4], [base+8] as in nvcc's
/// PTX (spmv_vector: 328 -> 264 SASS instructions and 40 -> 32 registers;
/// simt spmv_scalar 153 -> 125 instructions). Until 2026-12-03 loops were
/// left out because ptxas then unrolled spmm_csr's loop (112 -> 328 SASS),
/// read as a cost; that unrolling is what batches nvcc's loads.
///
/// Input: SSA after optimization and infer-address-spaces. An index is
/// split as `X + C` when that cannot change the address: an add (or a
/// disjoint or) with the no-wrap flag its extension needs (nuw under a
/// zext, nsw under a sext or for an index narrower than the pointer's
/// index width). Guarantees: every rewritten GEP is `gep i8 (gep P, X...),
/// C`; the shared base sits where it dominates every user, at the nearest
/// common dominator of the group (in a loop only when every member is in
/// that loop, so LCSSA form stays) or before its first
/// member in that block. A base hoisted above its members runs on paths
/// that use none of them (scan_blocks: `buf[src][tid]` under `i < n` and
/// under `tid == blockDim.x - 1`), so where the target asks for it
/// (HoistOnlyWhereItSavesWork: simt) it is hoisted only where that is
/// expected to save work (hoistingSavesWork); otherwise each member block
/// gets its own base. No inbounds on the
/// rewritten GEPs (the base of a group may point outside the object the
/// accesses stay in).
struct SplitAddressOffsetsPass : PassInfoMixin<SplitAddressOffsetsPass> {
  /// False: a group's base always goes to its members' common dominator
  /// (fewest instructions); true: only where hoistingSavesWork says so
  /// (fewest executed). See hoistsOnlyWhereItSavesWork.
  bool HoistOnlyWhereItSavesWork = false;

  /// One index as Root (extended as Ext says) plus Offset elements.
  struct SplitIndex {
    Value *Root;
    unsigned Ext; // 0 none, Instruction::ZExt or Instruction::SExt
    Type *Ty;     // the index's type
    int64_t Offset;
  };

  static SplitIndex splitIndex(Value *Idx, unsigned IndexBits) {
    SplitIndex S{Idx, 0, Idx->getType(), 0};
    Value *Inner = Idx;
    auto *Cast = dyn_cast<CastInst>(Idx);
    if (Cast && (isa<ZExtInst>(Cast) || isa<SExtInst>(Cast))) {
      S.Ext = Cast->getOpcode();
      Inner = Cast->getOperand(0);
    }
    IndexNoWrap Need(Idx, IndexBits);
    int64_t Offset = 0;
    for (;;) {
      auto *Op = dyn_cast<BinaryOperator>(Inner);
      auto *C = Op ? dyn_cast<ConstantInt>(Op->getOperand(1)) : nullptr;
      if (!C || C->getBitWidth() > 64)
        break;
      bool Add = Op->getOpcode() == Instruction::Add && Need.allows(*Op);
      bool DisjointOr = Op->getOpcode() == Instruction::Or && cast<PossiblyDisjointInst>(Op)->isDisjoint();
      if (!Add && !DisjointOr)
        break;
      // A zext's operand adds as unsigned, anything else as signed.
      Offset += Need.Nuw ? int64_t(C->getZExtValue()) : C->getSExtValue();
      Inner = Op->getOperand(0);
    }
    // Even with no offset the root is the extension's operand: `zext x` in
    // two blocks is the same index.
    S.Root = Inner;
    S.Offset = Offset;
    return S;
  }

  struct Member {
    GetElementPtrInst *GEP;
    SmallVector<SplitIndex, 4> Indices;
    int64_t Bytes; // the constant part, in bytes
  };

  PreservedAnalyses run(Function &F, FunctionAnalysisManager &FAM) {
    const DataLayout &DL = F.getDataLayout();
    LoopInfo &LI = FAM.getResult<LoopAnalysis>(F);
    DominatorTree &DT = FAM.getResult<DominatorTreeAnalysis>(F);
    // Groups by base pointer, source type and split indices, in program order.
    using GroupKey = std::vector<const void *>;
    MapVector<GroupKey, SmallVector<Member, 4>, std::map<GroupKey, unsigned>> Groups;
    for (BasicBlock &BB : F) {
      for (Instruction &I : BB) {
        auto *GEP = dyn_cast<GetElementPtrInst>(&I);
        if (!GEP || GEP->hasAllConstantIndices() || GEP->getType()->isVectorTy())
          continue;
        unsigned IndexBits = DL.getIndexTypeSizeInBits(GEP->getType());
        Member M{GEP, {}, 0};
        GroupKey Key{GEP->getPointerOperand(), GEP->getSourceElementType()};
        for (gep_type_iterator It = gep_type_begin(GEP), E = gep_type_end(GEP); It != E; ++It) {
          if (It.isStruct()) {
            M.Indices.push_back(SplitIndex{It.getOperand(), 0, It.getOperand()->getType(), 0});
          } else {
            M.Indices.push_back(splitIndex(It.getOperand(), IndexBits));
            M.Bytes += M.Indices.back().Offset * int64_t(It.getSequentialElementStride(DL).getFixedValue());
          }
          const SplitIndex &S = M.Indices.back();
          Key.insert(Key.end(), {S.Root, reinterpret_cast<const void *>(uintptr_t(S.Ext)), S.Ty});
        }
        Groups[Key].push_back(std::move(M));
      }
    }
    bool Changed = false;
    for (auto &[Key, Members] : Groups) {
      if (!HoistOnlyWhereItSavesWork || hoistingSavesWork(Members, DT)) {
        Changed |= shareBase(Members, DT, LI);
        continue;
      }
      // Members are in program order, so each block's are adjacent.
      for (MutableArrayRef<Member> Rest(Members); !Rest.empty();) {
        BasicBlock *BB = Rest.front().GEP->getParent();
        size_t N = 1;
        while (N < Rest.size() && Rest[N].GEP->getParent() == BB)
          ++N;
        Changed |= shareBase(Rest.take_front(N), DT, LI);
        Rest = Rest.drop_front(N);
      }
    }
    if (!Changed)
      return PreservedAnalyses::all();
    PreservedAnalyses PA;
    PA.preserveSet<CFGAnalyses>();
    return PA;
  }

  /// Whether one base at the members' nearest common dominator is expected
  /// to save work: a base there costs an instruction on paths through none
  /// of the members and saves one on each path through several member
  /// blocks. Certain when a member is in that block or every path from it
  /// meets a member (stencil5's if/else); with no branch weights to go by
  /// (LLVM's static estimates call a bounds check 50/50, so transpose's
  /// four guarded rows come out at 0.94 of the dominator), a bet taken when
  /// three or more blocks share the base, not for two (scan_blocks's
  /// `i < n` and `tid == blockDim.x - 1` writes of `buf[src][tid]`).
  static bool hoistingSavesWork(ArrayRef<Member> Members, DominatorTree &DT) {
    SmallPtrSet<BasicBlock *, 8> MemberBlocks;
    BasicBlock *Common = Members[0].GEP->getParent();
    for (const Member &M : Members) {
      MemberBlocks.insert(M.GEP->getParent());
      Common = DT.findNearestCommonDominator(Common, M.GEP->getParent());
    }
    if (MemberBlocks.contains(Common) || MemberBlocks.size() >= 3)
      return true;
    // Does some path from Common leave the function without a member?
    SmallPtrSet<BasicBlock *, 16> Seen{Common};
    SmallVector<BasicBlock *, 16> Work{Common};
    while (!Work.empty()) {
      BasicBlock *BB = Work.pop_back_val();
      if (succ_empty(BB))
        return false;
      for (BasicBlock *Succ : successors(BB))
        if (!MemberBlocks.contains(Succ) && Seen.insert(Succ).second)
          Work.push_back(Succ);
    }
    return true;
  }

  /// Gives Members one base and rewrites each as base + its byte offset;
  /// false when there is nothing to gain or no place for the base.
  static bool shareBase(MutableArrayRef<Member> Members, DominatorTree &DT, LoopInfo &LI) {
    if (Members.size() == 1 && Members[0].Bytes == 0)
      return false;
    Instruction *At = basePosition(Members, DT, LI);
    if (!At)
      return false;
    IRBuilder<> B(At);
    SmallVector<Value *, 4> BaseIndices;
    for (const SplitIndex &S : Members[0].Indices)
      BaseIndices.push_back(S.Ext ? B.CreateCast(Instruction::CastOps(S.Ext), S.Root, S.Ty) : S.Root);
    GetElementPtrInst *First = Members[0].GEP;
    Value *Base = B.CreateGEP(First->getSourceElementType(), First->getPointerOperand(), BaseIndices,
                              First->getName() + ".base");
    for (Member &M : Members) {
      B.SetInsertPoint(M.GEP);
      Value *Addr = M.Bytes == 0 ? Base : B.CreatePtrAdd(Base, B.getInt64(M.Bytes), M.GEP->getName());
      M.GEP->replaceAllUsesWith(Addr);
      M.GEP->eraseFromParent();
    }
    return true;
  }

  /// Where the group's base goes: before its first member when one block
  /// dominates the group, else at the end of the members' nearest common
  /// dominator; null when that block is in a loop some member is outside
  /// of (the base would be used outside its loop) or an operand of the
  /// base is not available there.
  static Instruction *basePosition(ArrayRef<Member> Members, DominatorTree &DT, LoopInfo &LI) {
    BasicBlock *Common = Members[0].GEP->getParent();
    for (const Member &M : drop_begin(Members))
      Common = DT.findNearestCommonDominator(Common, M.GEP->getParent());
    if (Loop *L = LI.getLoopFor(Common))
      for (const Member &M : Members)
        if (!L->contains(M.GEP->getParent()))
          return nullptr;
    Instruction *At = Common->getTerminator();
    for (const Member &M : Members)
      if (M.GEP->getParent() == Common && DT.dominates(M.GEP, At))
        At = M.GEP;
    auto Available = [&](Value *V) {
      auto *I = dyn_cast<Instruction>(V);
      return !I || DT.dominates(I, At);
    };
    if (!Available(Members[0].GEP->getPointerOperand()))
      return nullptr;
    for (const SplitIndex &S : Members[0].Indices)
      if (!Available(S.Root))
        return nullptr;
    return At;
  }
};

/// One branch per guarded access again where SimplifyCFG threaded a
/// loop-invariant guard (ptx). A fully unrolled `for (j..) if (c && d_j)
/// access_j;` (transpose's `x < cols && y + j < rows`) comes out of the -O
/// pipeline with `c` tested once per copy and its false edge threaded
/// straight to the end: the later copies sit under one `br c` and ptxas
/// batches their loads apart from the first copy's (transpose's LDG run 3,
/// nvcc's 4: NVVM keeps each copy's `c && d_j` as one branch, which ptxas
/// if-converts into one run). This pass rebuilds that shape:
///
///   J: br c, L, E          L: d = ..; br d, T, M      T: ..; br M
///   M: ..; br c', L', E  (or M is E), where c false makes c' false: c' is
///      c, `select c, _, false` or `and c, _`
///
/// becomes `J: d = ..; br (select c, d, false), T, M`: when c is false the
/// path J -> M -> E does nothing the program did not (M's branch goes to E
/// again, and its other instructions, like L's, are cheap, speculatable
/// and read no memory, so computing them when c is false is harmless; the
/// select keeps a poison d from mattering). Input: SSA after the -O
/// pipeline.
/// Guarantees: the same program; a rewritten J ends in a branch on a select
/// of c, and L is gone; nothing else changes. Applied while it matches
/// (each M is the next J). Only where E and M have no phis, but for M = E,
/// where E's phis take the same value from J and L.
struct MergeThreadedGuardsPass : PassInfoMixin<MergeThreadedGuardsPass> {
  static constexpr unsigned MaxHoisted = 4;

  /// Whether \p Cm is false whenever \p C is.
  static bool falseWhenFalse(Value *Cm, Value *C) {
    using namespace PatternMatch;
    return Cm == C || match(Cm, m_Select(m_Specific(C), m_Value(), m_Zero())) ||
           match(Cm, m_c_And(m_Specific(C), m_Value()));
  }

  static bool onlyCheapPureCode(const BasicBlock &L) {
    unsigned N = 0;
    for (const Instruction &I : L) {
      if (I.isTerminator() || isa<DbgInfoIntrinsic>(I))
        continue;
      if (isa<PHINode>(I) || I.mayReadOrWriteMemory() || !isSafeToSpeculativelyExecute(&I) ||
          ++N > MaxHoisted)
        return false;
    }
    return true;
  }

  /// E's phis see one value whether they are reached from J or from L.
  static bool samePhiValues(const BasicBlock &E, const BasicBlock &J, const BasicBlock &L) {
    for (const PHINode &Phi : E.phis())
      if (Phi.getIncomingValueForBlock(&J) != Phi.getIncomingValueForBlock(&L))
        return false;
    return true;
  }

  static bool mergeAt(BasicBlock &J) {
    auto *JBr = dyn_cast<BranchInst>(J.getTerminator());
    if (!JBr || !JBr->isConditional())
      return false;
    Value *C = JBr->getCondition();
    BasicBlock *L = JBr->getSuccessor(0), *E = JBr->getSuccessor(1);
    auto *LBr = dyn_cast<BranchInst>(L->getTerminator());
    if (L == E || L == &J || !L->getSinglePredecessor() || !LBr || !LBr->isConditional() ||
        !onlyCheapPureCode(*L))
      return false;
    BasicBlock *T = LBr->getSuccessor(0), *M = LBr->getSuccessor(1);
    // M = J would be a loop whose new branch sends !c round it again
    // instead of out to E.
    if (M == &J || T == M || T == L || T->getSingleSuccessor() != M ||
        T->getSinglePredecessor() != L)
      return false;
    if (M == E) {
      if (!samePhiValues(*E, J, *L))
        return false;
    } else {
      auto *MBr = dyn_cast<BranchInst>(M->getTerminator());
      if (!MBr || !MBr->isConditional() || !falseWhenFalse(MBr->getCondition(), C) ||
          MBr->getSuccessor(1) != E || !E->phis().empty() || !onlyCheapPureCode(*M))
        return false;
    }
    // J takes L's code and both branches' conditions.
    for (Instruction &I : make_early_inc_range(*L))
      if (!I.isTerminator())
        I.moveBefore(JBr);
    IRBuilder<> B(JBr);
    Value *Both = B.CreateSelect(C, LBr->getCondition(), B.getFalse(), C->getName() + ".and");
    if (M == E)
      for (PHINode &Phi : E->phis())
        Phi.removeIncomingValue(&J, /*DeletePHIIfEmpty=*/false);
    B.CreateCondBr(Both, T, M)->setDebugLoc(LBr->getDebugLoc());
    JBr->eraseFromParent();
    T->replacePhiUsesWith(L, &J);
    M->replacePhiUsesWith(L, &J);
    L->eraseFromParent();
    return true;
  }

  PreservedAnalyses run(Function &F, FunctionAnalysisManager &) {
    bool Changed = false;
    for (BasicBlock &J : F)
      Changed |= mergeAt(J);
    return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
};

// ---- The pipeline ---------------------------------------------------------

/// -O0 still needs SSA (mem2reg) and no dead blocks for isel, and operands
/// selection requires to be constant must be constants: the header computes
/// a shuffle's width operand as `((32 - width) << 8) | clamp` from a default
/// argument, which only folds once the call is inlined and promoted.
/// InstSimplify folds such constant expressions and nothing else of note.
FunctionPassManager minimalCleanup() {
  FunctionPassManager FPM;
  FPM.addPass(PromotePass());
  FPM.addPass(InstSimplifyPass());
  FPM.addPass(SimplifyCFGPass());
  return FPM;
}

/// After optimization: address spaces, scalars, CFG shape the back end
/// accepts (structurization runs separately, see structurize()).
FunctionPassManager shapingPasses(PrepTarget Target) {
  FunctionPassManager FPM;
  // LICM's scalar promotion may write its load and store with alignment 1
  // (compfuzz finding 15), which simt cannot select: the alignment the
  // pointer is known to have is the access's. Before the allocas move to
  // local memory: ValueTracking does not see through the addrspacecast.
  FPM.addPass(InferAlignmentPass());
  if (Target == PrepTarget::Ptx) // simt: 4 more instructions for transpose
    FPM.addPass(MergeThreadedGuardsPass());
  FPM.addPass(ExpandMemIntrinsicsPass());
  FPM.addPass(LowerIsFpClassPass());
  FPM.addPass(LowerKernelPointerArgsPass());
  FPM.addPass(LowerAllocasToLocalPass());
  FPM.addPass(InferAddressSpacesPass());
  SplitMixedSpaceAccessesPass SplitMixed;
  SplitMixed.SplitPhisBySpaceTag = Target == PrepTarget::Simt; // ptx has generic accesses
  FPM.addPass(std::move(SplitMixed));
  FPM.addPass(InferAddressSpacesPass());
  ScalarizerPassOptions Scalarize;
  Scalarize.ScalarizeLoadStore = true;
  FPM.addPass(ScalarizerPass(Scalarize));
  FPM.addPass(LowerSwitchPass());
  FPM.addPass(ExpandSignedDivByPowerOf2Pass()); // before ExpandDivision64
  FPM.addPass(FoldDivisibilityTestsPass());     // before the divisions are expanded
  FPM.addPass(ExpandSaturatingArithmeticPass());
  FPM.addPass(FoldPhiIntoAgreeingSiblingPass());
  if (Target == PrepTarget::Simt) {
    FPM.addPass(RecomputeEqualIncomingValuesPass());
    FPM.addPass(ExpandAtomicsPass());
    FPM.addPass(ExpandDivisionByConstantPass());
    FPM.addPass(ExpandDivision64Pass());
    FPM.addPass(ExpandConversions64Pass());
  }
  FPM.addPass(UnifyFunctionExitNodesPass());
  if (Target == PrepTarget::Simt) {
    FPM.addPass(FixIrreduciblePass());
    FPM.addPass(UnifyLoopExitsPass());
  }
  return FPM;
}

/// The target's choice for SplitAddressOffsetsPass: simt executes every
/// instruction a warp reaches, so a base hoisted onto paths without its
/// accesses is paid there (scan_blocks: +12 warp instructions, +0.3% rtl
/// cycles); for ptx, ptxas places the code, and the hoisted base is the
/// smaller SASS (scan_blocks 80 instructions, 88 with a base per block).
bool hoistsOnlyWhereItSavesWork(PrepTarget Target) { return Target == PrepTarget::Simt; }

/// After shaping, optimized builds only: address arithmetic
/// (SplitAddressOffsetsPass), row addresses apart (SplitGepPrefixPass),
/// then EarlyCSE for what those leave twice and for branches on a
/// condition a dominating branch already decided, then addresses that
/// extend one already computed (ReuseDominatingAddressPass).
FunctionPassManager addressPasses(PrepTarget Target) {
  FunctionPassManager FPM;
  SplitAddressOffsetsPass Split;
  Split.HoistOnlyWhereItSavesWork = hoistsOnlyWhereItSavesWork(Target);
  FPM.addPass(std::move(Split));
  FPM.addPass(SplitGepPrefixPass());
  FPM.addPass(EarlyCSEPass());
  FPM.addPass(ReuseDominatingAddressPass());
  return FPM;
}

/// StructurizeCFG exists with the skip-uniform-regions option only as a
/// legacy pass in LLVM 19 (the new-PM pass has no such option), so it runs
/// in a legacy function pass manager with NVPTX's TTI for the uniformity
/// analysis.
void runStructurizeCFG(Function &F, TargetMachine &TM, bool SkipUniformRegions) {
  legacy::FunctionPassManager FPM(F.getParent());
  FPM.add(createTargetTransformInfoWrapperPass(TM.getTargetIRAnalysis()));
  FPM.add(createStructurizeCFGPass(SkipUniformRegions));
  FPM.doInitialization();
  FPM.run(F);
  FPM.doFinalization();
}

/// StructurizeCFG's Flow phis carry undef on the edges that skip a region:
/// `%v = phi [%x, %region], [undef, %header]`. Where %x is a constant or is
/// defined where it dominates the phi (and not inside a loop the phi is
/// outside of, so LCSSA form stays), the phi is %x: every lane that reads
/// it through the region gets %x, and the others may get anything. Without
/// this, the back end copies %x into the phi's register inside the region,
/// and a copy under a narrowed mask can never share its source's register.
/// The undef is optional: a phi that merges %x on every edge is %x too
/// (folding Flow phis into their agreeing siblings leaves such phis).
void foldPhisOfOneValueAndUndef(Function &F) {
  DominatorTree DT(F);
  LoopInfo LI(DT);
  auto CanStandFor = [&](Value *X, PHINode &Phi) {
    if (isa<Constant>(X) || isa<Argument>(X))
      return true;
    auto *I = dyn_cast<Instruction>(X);
    if (!I || !DT.dominates(I, &Phi))
      return false;
    Loop *DefLoop = LI.getLoopFor(I->getParent());
    return !DefLoop || DefLoop->contains(Phi.getParent());
  };
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (BasicBlock &BB : F)
      for (PHINode &Phi : make_early_inc_range(BB.phis())) {
        Value *Common = nullptr;
        bool OneValue = true;
        for (Value *In : Phi.incoming_values()) {
          if (isa<UndefValue>(In))
            continue;
          if (Common && In != Common) {
            OneValue = false;
            break;
          }
          Common = In;
        }
        if (!OneValue || !Common || Common == &Phi || !CanStandFor(Common, Phi))
          continue;
        Phi.replaceAllUsesWith(Common);
        Phi.eraseFromParent();
        Changed = true;
      }
  }
}

/// Branches StructurizeCFG skipped as uniform (it marks those with
/// !structurizecfg.uniform) that are divergent after all, by LLVM's
/// uniformity analysis recomputed now or by our own conservative check
/// (DivergenceCheck.h). LLVM 19's analysis can miss the divergence of a
/// phi whose block joins the two sides of a divergent branch when each side
/// has several blocks (llvm-project issue 137277; compfuzz finding 6), and
/// the region built on such a phi is then left unstructured. Recomputed
/// after structurization the Flow blocks make that divergence visible to
/// LLVM; DivergenceCheck catches it, and whatever else LLVM may miss,
/// independently. \p CheckOnly counts the branches only our check flags.
unsigned skippedDivergentBranches(Function &F, TargetMachine &TM, unsigned &CheckOnly) {
  CheckOnly = 0;
  unsigned UniformMD = F.getContext().getMDKindID("structurizecfg.uniform");
  auto IsSkipped = [&](const BasicBlock &BB) {
    const auto *Br = dyn_cast_or_null<BranchInst>(BB.getTerminator());
    return Br && Br->isConditional() && Br->getMetadata(UniformMD);
  };
  if (none_of(F, IsSkipped))
    return 0;
  FunctionAnalysisManager FAM;
  PassBuilder PB(&TM);
  PB.registerFunctionAnalyses(FAM);
  UniformityInfo &UI = FAM.getResult<UniformityInfoAnalysis>(F);
  DivergenceCheck Ours(F);
  unsigned Count = 0;
  for (BasicBlock &BB : F) {
    if (!IsSkipped(BB))
      continue;
    bool ByLLVM = UI.isDivergent(cast<BranchInst>(BB.getTerminator())->getCondition());
    bool ByUs = Ours.hasDivergentTerminator(BB);
    Count += ByLLVM || ByUs;
    CheckOnly += ByUs && !ByLLVM;
  }
  return Count;
}

/// Divergent regions are structurized, uniform ones left alone (fewer
/// Flow blocks and exec-mask operations). Where a skipped region turns out
/// divergent, the function is structurized again without skipping: every
/// region then has the shapes the control-flow lowering accepts, at the
/// cost of masks on some uniform branches. When only our check saw the
/// divergence, the kernel gets the attribute DivergenceCheckAttr (the
/// number of such branches) so tools and tests can see it happened.
void structurize(Module &M, TargetMachine &TM) {
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    runStructurizeCFG(F, TM, /*SkipUniformRegions=*/true);
    // StructurizeCFG's Flow phis carry undef where a path skips a region,
    // beside phis of the same value that do not (divergent's loop:
    // `phi [%or, %then], [undef, %body]` next to `phi [%or, %then],
    // [%acc, %body]`): one register, no copies between the two. Before the
    // uniformity check below, which restructures the function should a
    // replaced phi turn a skipped branch divergent.
    FoldPhiIntoAgreeingSiblingPass::foldAll(F);
    unsigned CheckOnly = 0;
    if (skippedDivergentBranches(F, TM, CheckOnly) != 0) {
      runStructurizeCFG(F, TM, /*SkipUniformRegions=*/false);
      FoldPhiIntoAgreeingSiblingPass::foldAll(F);
      if (CheckOnly)
        F.addFnAttr(DivergenceCheckAttr, std::to_string(CheckOnly));
    }
    foldPhisOfOneValueAndUndef(F);
  }
}

void runPipeline(Module &M, TargetMachine &TM, const PrepareOptions &Opts) {
  LoopAnalysisManager LAM;
  FunctionAnalysisManager FAM;
  CGSCCAnalysisManager CGAM;
  ModuleAnalysisManager MAM;
  PassInstrumentationCallbacks PIC;
  PassBuilder PB(&TM, PipelineTuningOptions(), std::nullopt, &PIC);
  PIC.addClassToPassName(LowerKernelPointerArgsPass::name(), "tandem-lower-kernel-args");
  PIC.addClassToPassName(LowerAllocasToLocalPass::name(), "tandem-lower-alloca");
  PIC.addClassToPassName(ExpandMemIntrinsicsPass::name(), "tandem-expand-mem-intrinsics");
  PIC.addClassToPassName(SplitMixedSpaceAccessesPass::name(), "tandem-split-mixed-space-access");
  PIC.addClassToPassName(LowerIsFpClassPass::name(), "tandem-lower-is-fpclass");
  PIC.addClassToPassName(ExpandAtomicsPass::name(), "tandem-expand-atomics");
  PIC.addClassToPassName(ExpandDivision64Pass::name(), "tandem-expand-div64");
  PIC.addClassToPassName(ExpandConversions64Pass::name(), "tandem-expand-cvt64");
  PIC.addClassToPassName(SplitAddressOffsetsPass::name(), "tandem-split-address-offsets");
  PIC.addClassToPassName(RecomputeEqualIncomingValuesPass::name(),
                         "tandem-recompute-equal-incoming");
  PIC.addClassToPassName(HintRuntimeUnrollPass::name(), "tandem-hint-runtime-unroll");
  PIC.addClassToPassName(FoldPhiIntoAgreeingSiblingPass::name(), "tandem-fold-agreeing-phis");
  PIC.addClassToPassName(MergeThreadedGuardsPass::name(), "tandem-merge-threaded-guards");
  registerPrintAfter(PIC, Opts);
  // ptx: loops of global loads unrolled 4x at runtime, as NVVM does, so
  // ptxas can batch their loads (isel/UnrollHints.cpp). Not on simt, whose
  // LSU serves one warp instruction at a time: more copies only add code.
  if (Opts.Target == PrepTarget::Ptx)
    PB.registerVectorizerStartEPCallback(
        [](FunctionPassManager &FPM, OptimizationLevel) { FPM.addPass(HintRuntimeUnrollPass()); });
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);

  ModulePassManager MPM;
  MPM.addPass(AlwaysInlinerPass(/*InsertLifetimeIntrinsics=*/false));
  if (Opts.OptLevel == 0)
    MPM.addPass(createModuleToFunctionPassAdaptor(minimalCleanup()));
  else
    MPM.addPass(PB.buildPerModuleDefaultPipeline(optimizationLevel(Opts.OptLevel)));
  MPM.addPass(createModuleToFunctionPassAdaptor(shapingPasses(Opts.Target)));
  if (Opts.OptLevel > 0)
    MPM.addPass(createModuleToFunctionPassAdaptor(addressPasses(Opts.Target)));
  MPM.run(M, MAM);

  if (Opts.Target == PrepTarget::Simt) {
    structurize(M, TM);
    if (wantsPrint(Opts, "structurizecfg")) {
      *Opts.PrintStream << "; *** IR Dump After structurizecfg ***\n";
      M.print(*Opts.PrintStream, nullptr);
    }
  }
}

// ---- After the pipeline: what the back end cannot take -------------------

bool mentionsType(const Instruction &I, function_ref<bool(Type *)> Pred) {
  if (Pred(I.getType()))
    return true;
  for (const Use &Op : I.operands())
    if (Pred(Op->getType()))
      return true;
  if (auto *AI = dyn_cast<AllocaInst>(&I))
    return Pred(AI->getAllocatedType());
  return false;
}

bool isDouble(Type *T) { return T->getScalarType()->isDoubleTy(); }
bool isWideInteger(Type *T) {
  return T->getScalarType()->isIntegerTy() && T->getScalarSizeInBits() > 64;
}

std::optional<unsigned> memoryAccessAddressSpace(const Instruction &I) {
  if (auto *L = dyn_cast<LoadInst>(&I))
    return L->getPointerAddressSpace();
  if (auto *S = dyn_cast<StoreInst>(&I))
    return S->getPointerAddressSpace();
  if (auto *A = dyn_cast<AtomicRMWInst>(&I))
    return A->getPointerAddressSpace();
  if (auto *C = dyn_cast<AtomicCmpXchgInst>(&I))
    return C->getPointerAddressSpace();
  return std::nullopt;
}

void checkInstruction(const Instruction &I, PrepTarget Target, Problems &P) {
  if (auto *Call = dyn_cast<CallBase>(&I)) {
    const Function *Callee = Call->getCalledFunction();
    if (Call->isInlineAsm())
      P.add(I, "inline assembly", "inline PTX assembly has no SIMT equivalent; remove it");
    else if (!Callee)
      P.add(I, "indirect call", "function pointers are not supported");
    else if (!Callee->isIntrinsic())
      P.add(I, formatv("call to '{0}', which is not defined", readableName(*Callee)).str(),
            Callee->getName().starts_with("__tandem_")
                ? "the front end links the device math library; load the kernel through it"
                : "define the function in the kernel source (the back end inlines every "
                  "call; there is no device library besides the math functions)");
  }
  if (Target == PrepTarget::Simt && mentionsType(I, isDouble))
    P.add(I, "double-precision (f64) value",
          "the SIMT target has no f64; use float (f suffix on literals: 1.0f, sqrtf)");
  if (mentionsType(I, isWideInteger))
    P.add(I, "integer wider than 64 bits", "use 32-bit (or 64-bit) integers");
  if (mentionsType(I, [](Type *T) { return T->isVectorTy(); }))
    P.add(I, "vector value left after scalarization",
          "please report this; vector operations should be scalarized");
  if (auto *AI = dyn_cast<AllocaInst>(&I); AI && !AI->isStaticAlloca())
    P.add(I, "dynamically sized stack allocation",
          "give local arrays a compile-time size (no alloca or variable-length arrays)");
  if (isa<VAArgInst>(&I))
    P.add(I, "variadic argument access", "variadic functions are not supported");
  // ptx has generic ld/st/atom (the hardware finds the window); simt does not.
  if (std::optional<unsigned> AS = memoryAccessAddressSpace(I);
      AS && *AS == GenericAS && Target == PrepTarget::Simt)
    P.add(I, "memory access through a generic pointer whose address space is unknown",
          "the SIMT target needs to know whether a pointer is global, __shared__ or local; "
          "avoid selecting between pointers to different memories and storing pointers in "
          "memory");
}

/// Which globals the targets can place: __shared__ (address space 3),
/// __constant__ (4: the image's const section on simt, .const on ptx) and
/// writable __device__ variables (1: the image's data section, copied into
/// global memory at load, on simt; .global on ptx). Anything else (a generic
/// or local global from a .ll file) has no memory on either target.
void checkGlobals(Module &M, PrepTarget Target, Problems &P) {
  for (GlobalVariable &G : M.globals()) {
    if (G.getName().starts_with("llvm.") || G.use_empty())
      continue;
    unsigned AS = G.getAddressSpace();
    if (AS == SharedAS || AS == ConstAS || AS == GlobalAS)
      continue;
    P.add(formatv("global variable '{0}' in address space {1} is not supported on {2}: "
                  "declare it __device__, __shared__ or __constant__",
                  demangle(G.getName().str()), AS,
                  Target == PrepTarget::Ptx ? "ptx" : "simt")
              .str());
  }
}

/// simt's const space is read-only and has no generic addresses: a pointer
/// into a __constant__ variable may only be offset (GEP, casts), chosen
/// (select, phi), compared and loaded through. A store or atomic through it,
/// or the pointer itself stored, converted to an integer or passed to a call,
/// would write or read the wrong memory, so each is reported with the kernel
/// and source line.
void checkConstantUses(Module &M, Problems &P) {
  for (GlobalVariable &G : M.globals()) {
    if (G.getAddressSpace() != ConstAS || G.use_empty())
      continue;
    std::string Name = demangle(G.getName().str());
    SmallPtrSet<const Value *, 16> Seen;
    SmallVector<const Value *, 16> Work{&G};
    auto Escapes = [&](const Instruction &I, StringRef How) {
      P.add(I, formatv("a pointer into __constant__ variable '{0}' {1}", Name, How).str(),
            "simt reads __constant__ memory with ld.const only, so such a pointer can only be "
            "indexed and loaded through; copy the values you need instead");
    };
    while (!Work.empty()) {
      const Value *V = Work.pop_back_val();
      if (!Seen.insert(V).second)
        continue;
      for (const User *U : V->users()) {
        if (isa<ConstantExpr>(U)) {
          Work.push_back(U);
          continue;
        }
        const auto *I = dyn_cast<Instruction>(U);
        if (!I)
          continue;
        if (isa<GetElementPtrInst>(I) || isa<BitCastInst>(I) || isa<AddrSpaceCastInst>(I) ||
            isa<SelectInst>(I) || isa<PHINode>(I)) {
          Work.push_back(I);
        } else if (isa<LoadInst>(I) || isa<ICmpInst>(I)) {
          // loads (V can only be the address) and pointer compares are fine
        } else if (const auto *St = dyn_cast<StoreInst>(I)) {
          if (St->getPointerOperand() == V)
            P.add(*I, formatv("store to __constant__ variable '{0}'", Name).str(),
                  "__constant__ memory is read-only on the device; use a global buffer "
                  "(a kernel argument) for data the kernel writes");
          else
            Escapes(*I, "is stored to memory");
        } else if (isa<AtomicRMWInst>(I) || isa<AtomicCmpXchgInst>(I)) {
          if (I->getOperand(0) == V) // the address of both atomics
            P.add(*I, formatv("atomic operation on __constant__ variable '{0}'", Name).str(),
                  "__constant__ memory is read-only on the device; use global or __shared__ "
                  "memory for atomics");
          else
            Escapes(*I, "is stored to memory");
        } else if (isa<PtrToIntInst>(I)) {
          Escapes(*I, "is converted to an integer");
        } else {
          Escapes(*I, "reaches an operation other than a load");
        }
      }
    }
  }
}

void checkFunctions(Module &M, PrepTarget Target, Problems &P) {
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    if (F.isVarArg())
      P.add(formatv("function '{0}' is variadic, which is not supported", readableName(F))
                .str());
    for (Instruction &I : instructions(F))
      checkInstruction(I, Target, P);
  }
}

/// Functions left after inlining that nothing calls (e.g. a non-kernel
/// function with external linkage in a .ll input) are dropped, so checks
/// and isel see kernels only.
void dropUnusedNonKernels(Module &M) {
  for (Function &F : make_early_inc_range(M))
    if (!F.isDeclaration() && !isKernel(F) && F.use_empty())
      F.eraseFromParent();
}

} // namespace

unsigned divergenceCheckBranches(const Function &F) {
  unsigned Count = 0;
  if (F.hasFnAttribute(DivergenceCheckAttr))
    F.getFnAttribute(DivergenceCheckAttr).getValueAsString().getAsInteger(10, Count);
  return Count;
}

Error prepareModule(Module &M, const PrepareOptions &Opts) {
  if (Opts.OptLevel > 3)
    return createStringError(formatv("-O{0}: the levels are -O0 to -O3", Opts.OptLevel));
  Expected<std::unique_ptr<TargetMachine>> TM = createTargetMachine(M);
  if (!TM)
    return TM.takeError();

  Problems Before;
  checkCallGraph(M, Before);
  if (Error E = Before.take())
    return E;
  markForInlining(M);

  runPipeline(M, **TM, Opts);
  dropUnusedNonKernels(M);

  std::string VerifierText;
  raw_string_ostream VerifierOS(VerifierText);
  if (verifyModule(M, &VerifierOS))
    return createStringError("internal compiler error: IR preparation produced an invalid "
                             "module:\n" +
                             VerifierText);

  Problems After;
  checkGlobals(M, Opts.Target, After);
  if (Opts.Target == PrepTarget::Simt)
    checkConstantUses(M, After);
  checkFunctions(M, Opts.Target, After);
  if (Error E = After.take())
    return E;

  if (wantsPrint(Opts, "prepare")) {
    *Opts.PrintStream << "; *** IR Dump After prepare ***\n";
    M.print(*Opts.PrintStream, nullptr);
  }
  return Error::success();
}

} // namespace tandem::isel
