//===- LowerControlFlow.cpp - branches, exec masks, out of SSA ------------===//
//
// Input invariants (MIR.h "isel", what selectSimt produces after LLVM's
// StructurizeCFG, lower-switch, exit unification and LCSSA):
//   - SSA; PHIs only at block starts; every block ends in exactly one BR,
//     BRCOND or RET (one RET block).
//   - Every BRCOND marked Divergent is structured, in one of two shapes:
//     (a) an if-header B: one successor is B's immediate post-dominator J
//         (the join, StructurizeCFG's "Flow" block); the other, R, starts a
//         single-entry region whose only exit is J. if-then-else arrives as
//         two such regions in a row.
//     (b) the latch L of a loop: one successor is the loop header H, which
//         dominates L; the other is the loop's only exit X.
//   - Uniform BRCONDs may have any (reducible) shape.
//
// Guarantees (MIR.h "cfg lowering"; docs/Divergence.md explains why):
//   - No PHI, BR, BRCOND or RET is left. Blocks are in layout order: a
//     structured reverse postorder (the entry first; an if-header followed by
//     its region, the region by its join; loop bodies contiguous, a latch
//     followed by the loop's exit), with blocks splitting critical edges
//     between their source and target when those are adjacent, else just
//     after their source. A block falls through to the next one unless it
//     ends in bra or exit.
//   - Uniform branches are bnz / bz / bra; RET is exit.
//   - Divergent if:   m = emask.get; emask.and(n) c; bnone J; <region>;
//                     J: emask.set m
//     Divergent loop: m = emask.get in the preheader; in the latch
//                     emask.and(n) c (keep the lanes that go round again);
//                     bany H; X: emask.set m
//     Constructs that share a join save and restore one mask register per
//     join (the outermost construct's); plain edges into such a join save
//     the current mask so the restore is defined on every path.
//   - PHIs become parallel copies at the ends of predecessors (swaps broken
//     with a temporary); critical edges of uniform branches are split. The
//     copy of an undefined incoming value (a vreg the input defines only by
//     IMPLICIT_DEF) is an IMPLICIT_DEF of the phi, that of a constant that
//     fits one li word and has no other reader is an LI into the phi
//     (PartialDef where the copy would be); input IMPLICIT_DEFs and LIs
//     left unread are removed. A COPY whose source is defined earlier in
//     its block and read nowhere else is folded into that def, which takes
//     the COPY's PartialDef (forwardCopiesIntoDefs). A divergent loop's
//     header phi whose back-edge value is computed in the latch and not
//     read after it there, nor after the loop, gets that value computed
//     into its own register: no back-edge copy (mergeLoopCarriedValues;
//     the input is then no longer SSA for that phi).
//     Inst::PartialDef is set on every phi copy that runs under a narrowed
//     mask, on a divergent if-header's copies to a join an enclosing
//     construct shares, on a divergent latch's exit copies, and on every
//     definition inside a divergent loop of a value used outside it. (An
//     if-header's copies to its own join and a latch's back-edge copies
//     are full defs: the lanes they leave out never read those phis again;
//     see lowerDivergentIf.)
//   - Errors: a barrier under divergent control flow (names the kernel, the
//     block and the source line); a divergent branch that is not structured
//     ("internal: ...", a bug in the stages before).
//
//===----------------------------------------------------------------------===//

#include "LowerControlFlow.h"

#include "ISA.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <optional>

using namespace llvm;

namespace tandem::isel {
namespace {

using mir::Block;
using mir::Inst;
using mir::Operand;
using mir::Reg;

unsigned op(simt::Opcode O) { return static_cast<unsigned>(O); }

constexpr int NoBlock = -1;
using Adjacency = std::vector<SmallVector<unsigned, 2>>;

//===----------------------------------------------------------------------===//
// The CFG of the SSA input, by block index (Fn.Blocks order)
//===----------------------------------------------------------------------===//

Inst &terminatorOf(Block &B) { return B.Insts.back(); }

bool isPseudoTerminator(const Inst &I) {
  return I.Opcode == mir::BR || I.Opcode == mir::BRCOND || I.Opcode == mir::RET;
}

/// BRCOND with both targets equal behaves like BR; the rest of the pass
/// only sees BRCONDs with two different targets.
bool isTwoWayBranch(const Inst &T) {
  return T.Opcode == mir::BRCOND && T.Ops[1].Target != T.Ops[2].Target;
}

struct Graph {
  std::vector<Block *> Blocks;
  DenseMap<const Block *, unsigned> Index;
  Adjacency Succs, Preds;

  unsigned size() const { return Blocks.size(); }
  unsigned indexOf(const Block *B) const { return Index.lookup(B); }
};

Graph buildGraph(mir::Function &Fn) {
  Graph G;
  for (auto &B : Fn.Blocks) {
    G.Index[B.get()] = G.Blocks.size();
    G.Blocks.push_back(B.get());
  }
  G.Succs.resize(G.size());
  G.Preds.resize(G.size());
  for (unsigned I = 0; I < G.size(); ++I) {
    for (const Operand &O : terminatorOf(*G.Blocks[I]).Ops) {
      if (!O.isBlock())
        continue;
      unsigned S = G.indexOf(O.Target);
      if (!is_contained(G.Succs[I], S)) {
        G.Succs[I].push_back(S);
        G.Preds[S].push_back(I);
      }
    }
  }
  return G;
}

//===----------------------------------------------------------------------===//
// Dominators (Cooper, Harvey, Kennedy: "A Simple, Fast Dominance Algorithm")
//===----------------------------------------------------------------------===//

/// Immediate dominators of the graph given by \p Succ / \p Pred from \p Root;
/// Idom[Root] == Root, NoBlock for nodes Root does not reach.
std::vector<int> computeIdoms(unsigned Root, const Adjacency &Succ, const Adjacency &Pred) {
  unsigned N = Succ.size();
  std::vector<int> PostNum(N, -1);
  std::vector<unsigned> PostOrder;
  // Iterative DFS: (node, next successor to visit).
  std::vector<std::pair<unsigned, unsigned>> Stack{{Root, 0}};
  std::vector<bool> Seen(N, false);
  Seen[Root] = true;
  while (!Stack.empty()) {
    auto &[Node, Next] = Stack.back();
    if (Next < Succ[Node].size()) {
      unsigned S = Succ[Node][Next++];
      if (!Seen[S]) {
        Seen[S] = true;
        Stack.push_back({S, 0});
      }
      continue;
    }
    PostNum[Node] = PostOrder.size();
    PostOrder.push_back(Node);
    Stack.pop_back();
  }

  std::vector<int> Idom(N, NoBlock);
  Idom[Root] = Root;
  auto Intersect = [&](unsigned A, unsigned B) {
    while (A != B) {
      while (PostNum[A] < PostNum[B])
        A = Idom[A];
      while (PostNum[B] < PostNum[A])
        B = Idom[B];
    }
    return A;
  };
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (auto It = PostOrder.rbegin(); It != PostOrder.rend(); ++It) {
      unsigned B = *It;
      if (B == Root)
        continue;
      int NewIdom = NoBlock;
      for (unsigned P : Pred[B])
        if (Idom[P] != NoBlock)
          NewIdom = NewIdom == NoBlock ? int(P) : int(Intersect(P, NewIdom));
      if (Idom[B] != NewIdom) {
        Idom[B] = NewIdom;
        Changed = true;
      }
    }
  }
  return Idom;
}

bool dominates(const std::vector<int> &Idom, unsigned A, unsigned B) {
  if (Idom[B] == NoBlock)
    return false;
  for (;;) {
    if (A == B)
      return true;
    if (Idom[B] == int(B))
      return false;
    B = Idom[B];
  }
}

/// Immediate post-dominators; a virtual exit node (index G.size()) succeeds
/// every RET block. NoBlock where the virtual exit is the post-dominator or
/// the block never reaches a RET.
std::vector<int> computeIpdoms(const Graph &G) {
  unsigned Exit = G.size();
  Adjacency RevSucc(G.size() + 1), RevPred(G.size() + 1);
  for (unsigned B = 0; B < G.size(); ++B) {
    RevSucc[B] = G.Preds[B];
    RevPred[B] = G.Succs[B];
    if (terminatorOf(*G.Blocks[B]).Opcode == mir::RET) {
      RevSucc[Exit].push_back(B);
      RevPred[B].push_back(Exit);
    }
  }
  std::vector<int> Ipdom = computeIdoms(Exit, RevSucc, RevPred);
  Ipdom.pop_back();
  for (int &D : Ipdom)
    if (D == int(Exit))
      D = NoBlock;
  return Ipdom;
}

//===----------------------------------------------------------------------===//
// Small helpers
//===----------------------------------------------------------------------===//

StringSet<> blockNames(const mir::Function &Fn) {
  StringSet<> Names;
  for (const auto &B : Fn.Blocks)
    Names.insert(B->Name);
  return Names;
}

/// \p Wanted, or with a numeric suffix if taken; the result is reserved.
std::string uniqueBlockName(StringSet<> &Names, StringRef Wanted) {
  std::string Name = Wanted.str();
  for (unsigned K = 1; Names.contains(Name); ++K)
    Name = formatv("{0}.{1}", Wanted, K).str();
  Names.insert(Name);
  return Name;
}

void retarget(Inst &Term, Block *From, Block *To) {
  for (Operand &O : Term.Ops)
    if (O.isBlock() && O.Target == From)
      O.Target = To;
}

std::string where(const Inst &I) { return I.Loc.empty() ? "" : (" at " + I.Loc).str(); }

Error checkInputShape(const mir::Function &Fn) {
  if (Fn.Blocks.empty())
    return createStringError(formatv("kernel {0}: no blocks to lower", Fn.Name));
  for (const auto &B : Fn.Blocks)
    if (B->Insts.empty() || !isPseudoTerminator(B->Insts.back()))
      return createStringError(
          formatv("internal: kernel {0}: bb.{1} does not end in BR, BRCOND or RET "
                  "(control-flow lowering expects selectSimt's output)",
                  Fn.Name, B->Name));
  return Error::success();
}

/// Unreachable blocks would only confuse dominance; nothing runs them.
void removeUnreachableBlocks(mir::Function &Fn) {
  Graph G = buildGraph(Fn);
  std::vector<int> Idom = computeIdoms(0, G.Succs, G.Preds);
  DenseSet<const Block *> Dead;
  for (unsigned B = 0; B < G.size(); ++B)
    if (Idom[B] == NoBlock)
      Dead.insert(G.Blocks[B]);
  if (Dead.empty())
    return;
  for (auto &B : Fn.Blocks)
    for (Inst &I : B->Insts) {
      if (I.Opcode != mir::PHI)
        continue;
      SmallVector<Operand, 4> Kept{I.Ops[0]};
      for (size_t K = 1; K + 1 < I.Ops.size(); K += 2)
        if (!Dead.count(I.Ops[K + 1].Target))
          Kept.append({I.Ops[K], I.Ops[K + 1]});
      I.Ops = std::move(Kept);
    }
  llvm::erase_if(Fn.Blocks, [&](const std::unique_ptr<Block> &B) { return Dead.count(B.get()); });
}

//===----------------------------------------------------------------------===//
// Preheaders: a divergent loop saves its mask at the end of a block that
// runs once per loop entry, with the entering lanes, and leads only to the
// header. Done on SSA before the analysis so the analysis sees the final CFG.
//===----------------------------------------------------------------------===//

void insertPreheader(mir::Function &Fn, const Graph &G, unsigned H,
                     ArrayRef<unsigned> Outside) {
  Block *Header = G.Blocks[H];
  StringSet<> Names = blockNames(Fn);
  auto PH = std::make_unique<Block>(uniqueBlockName(Names, Header->Name + ".preheader"));
  PH->LoopDepth = Header->LoopDepth ? Header->LoopDepth - 1 : 0;
  DenseSet<const Block *> FromOutside;
  for (unsigned P : Outside)
    FromOutside.insert(G.Blocks[P]);

  // Incoming values from outside move to the preheader: retargeted when there
  // is one outside predecessor, merged by a new PHI when there are several.
  for (Inst &Phi : Header->Insts) {
    if (Phi.Opcode != mir::PHI)
      break;
    if (Outside.size() == 1) {
      for (Operand &O : Phi.Ops)
        if (O.isBlock() && FromOutside.count(O.Target))
          O.Target = PH.get();
      continue;
    }
    Reg Dst = Phi.Ops[0].R;
    Reg Merged = mir::isVirtual(Dst) ? Fn.newVReg(Fn.info(Dst).Uniform, Fn.info(Dst).Name)
                                     : Fn.newVReg();
    Inst NewPhi(mir::PHI, {Operand::def(Merged)});
    NewPhi.Loc = Phi.Loc;
    SmallVector<Operand, 4> Kept{Phi.Ops[0]};
    for (size_t K = 1; K + 1 < Phi.Ops.size(); K += 2) {
      if (FromOutside.count(Phi.Ops[K + 1].Target))
        NewPhi.Ops.append({Phi.Ops[K], Phi.Ops[K + 1]});
      else
        Kept.append({Phi.Ops[K], Phi.Ops[K + 1]});
    }
    Kept.append({Operand::use(Merged), Operand::block(PH.get())});
    Phi.Ops = std::move(Kept);
    PH->Insts.push_back(std::move(NewPhi));
  }
  Inst Br(mir::BR, {Operand::block(Header)});
  Br.Loc = Header->Insts.front().Loc;
  PH->Insts.push_back(std::move(Br));
  for (unsigned P : Outside)
    retarget(terminatorOf(*G.Blocks[P]), Header, PH.get());

  auto Pos = llvm::find_if(Fn.Blocks, [&](const auto &B) { return B.get() == Header; });
  Fn.Blocks.insert(Pos, std::move(PH));
}

/// Headers of loops whose latch branch is divergent.
std::vector<unsigned> divergentLoopHeaders(const Graph &G, const std::vector<int> &Idom) {
  std::vector<unsigned> Headers;
  for (unsigned B = 0; B < G.size(); ++B) {
    const Inst &T = terminatorOf(*G.Blocks[B]);
    if (!isTwoWayBranch(T) || !T.Divergent)
      continue;
    for (unsigned S : G.Succs[B])
      if (dominates(Idom, S, B) && !is_contained(Headers, S))
        Headers.push_back(S);
  }
  return Headers;
}

void ensurePreheaders(mir::Function &Fn) {
  // One at a time: each insertion changes the block indices.
  for (;;) {
    Graph G = buildGraph(Fn);
    std::vector<int> Idom = computeIdoms(0, G.Succs, G.Preds);
    bool Inserted = false;
    for (unsigned H : divergentLoopHeaders(G, Idom)) {
      SmallVector<unsigned, 2> Outside;
      for (unsigned P : G.Preds[H])
        if (!dominates(Idom, H, P))
          Outside.push_back(P);
      bool HasPreheader = H != 0 && Outside.size() == 1 && G.Succs[Outside[0]].size() == 1;
      if (HasPreheader)
        continue;
      insertPreheader(Fn, G, H, Outside);
      Inserted = true;
      break;
    }
    if (!Inserted)
      return;
  }
}

//===----------------------------------------------------------------------===//
// Divergent constructs
//===----------------------------------------------------------------------===//

/// \p Def may write another register than its own destination: it has
/// one, does not read it (movt), writes only the active lanes and is not a
/// mask operation. LI, COPY and IMPLICIT_DEF qualify.
bool canWriteAnotherRegister(const Inst &Def) {
  if (Def.Opcode == mir::LI || Def.Opcode == mir::COPY || Def.Opcode == mir::IMPLICIT_DEF)
    return true;
  const simt::InstrDesc *D = mir::simtDescOf(Def);
  return D && !D->has(simt::ReadsRd) && !D->has(simt::WritesAllLanes) && !D->has(simt::IsMaskOp) &&
         llvm::count_if(Def.Ops, [](const Operand &O) { return O.isReg() && O.IsDef; }) == 1;
}

/// A divergent if-region or a divergent loop: lanes leave the common path
/// at Branch and all meet again at Join, where the saved mask comes back.
struct Construct {
  enum KindT { If, Loop } Kind;
  unsigned Branch;    ///< if: the header B; loop: the latch L
  unsigned Join;      ///< if: J; loop: the exit X
  unsigned SavePoint; ///< if: B; loop: the preheader
  unsigned Entry;     ///< if: the region entry R; loop: the header H
  /// if: the region is the false side (emask.andn); loop: the lanes that go
  /// round again are those where the condition is zero (emask.andn).
  bool KeepWhereZero;
  BitVector Region;   ///< if: the region's blocks; loop: the loop body
};

class Lowering {
public:
  explicit Lowering(mir::Function &Fn) : Fn(Fn), G(buildGraph(Fn)), Names(blockNames(Fn)) {}

  Error run();

private:
  mir::Function &Fn;
  Graph G;
  StringSet<> Names; ///< block names in use, for new blocks
  std::vector<int> Idom, Ipdom;
  std::vector<Construct> Constructs;
  std::vector<int> ConstructAt;  ///< per block: the construct its branch starts
  BitVector Narrowed;            ///< per block: runs under a narrowed mask
  std::vector<Reg> JoinMask;     ///< per block: mask restored on entry, or NoReg
  DenseSet<Reg> UndefinedVRegs;  ///< vregs the input defines by IMPLICIT_DEF
  /// vregs the input defines by an LI that fits one instruction word and
  /// reads once
  DenseMap<Reg, int64_t> SmallConstants;

  /// A block splitting the critical edge From -> To.
  struct Split {
    unsigned From, To;
    std::unique_ptr<Block> B;
  };
  std::vector<Split> Splits;
  std::vector<Block *> Layout;

  Error analyze();
  Error classify(unsigned B);
  Error addLoop(unsigned Latch, unsigned Header, unsigned Exit);
  Error addIf(unsigned B);
  Error checkBarriers() const;
  void assignJoinMasks();

  bool needsPlainSave(unsigned From, unsigned To) const;
  SmallVector<std::pair<Reg, Reg>, 4> phiCopies(unsigned From, unsigned To) const;
  bool edgeHasCode(unsigned From, unsigned To) const;
  void appendEdgeCode(unsigned From, unsigned To, bool Partial, std::vector<Inst> &Out,
                      StringRef Loc);
  void appendParallelCopies(SmallVector<std::pair<Reg, Reg>, 4> Copies, bool Partial,
                            std::vector<Inst> &Out, StringRef Loc);
  Block *edgeTarget(unsigned From, unsigned To) const;
  void splitCriticalEdges();
  std::vector<unsigned> structuredOrder() const;
  void buildLayout();
  Block *layoutNext(const Block *B) const;
  std::vector<Inst> lowerBlock(unsigned B);
  void lowerTerminator(unsigned B, std::vector<Inst> &Out);
  void lowerUniformBranch(unsigned B, std::vector<Inst> &Out);
  void lowerDivergentIf(const Construct &C, std::vector<Inst> &Out);
  void lowerDivergentLatch(const Construct &C, std::vector<Inst> &Out);
  std::vector<Inst> lowerSplit(const Split &S);
  void markLoopLiveOuts();
  void removeUnreadPhiSources();
  void forwardCopiesIntoDefs();
  void mergeLoopCarriedValues();

  Error internal(unsigned B, const Twine &Msg) const {
    return createStringError(formatv("internal: kernel {0}: bb.{1}{2}: {3}", Fn.Name,
                                     G.Blocks[B]->Name, where(terminatorOf(*G.Blocks[B])),
                                     Msg.str()));
  }
  Inst branch(simt::Opcode O, Block *Target, StringRef Loc) const {
    Inst I(op(O), {Operand::block(Target)});
    I.Loc = Loc;
    return I;
  }
  Inst withReg(simt::Opcode O, Operand R, StringRef Loc) const {
    Inst I(op(O), {R});
    I.Loc = Loc;
    return I;
  }
};

Error Lowering::run() {
  if (Error E = analyze())
    return E;
  if (Error E = checkBarriers())
    return E;
  mergeLoopCarriedValues();
  assignJoinMasks();
  splitCriticalEdges();
  buildLayout();

  // Lower every block from the untouched input (PHIs of successors are read
  // while lowering), then install the results.
  std::vector<std::vector<Inst>> Lowered(G.size());
  for (unsigned B = 0; B < G.size(); ++B)
    Lowered[B] = lowerBlock(B);
  std::vector<std::vector<Inst>> SplitCode;
  for (const Split &S : Splits)
    SplitCode.push_back(lowerSplit(S));
  for (unsigned B = 0; B < G.size(); ++B)
    G.Blocks[B]->Insts = std::move(Lowered[B]);
  for (size_t K = 0; K < Splits.size(); ++K)
    Splits[K].B->Insts = std::move(SplitCode[K]);

  markLoopLiveOuts();
  removeUnreadPhiSources();

  // Install the layout: original blocks keep their objects, splits join them.
  DenseMap<Block *, std::unique_ptr<Block>> Owned;
  for (auto &B : Fn.Blocks)
    Owned[B.get()] = std::move(B);
  for (Split &S : Splits)
    Owned[S.B.get()] = std::move(S.B);
  Fn.Blocks.clear();
  for (Block *B : Layout)
    Fn.Blocks.push_back(std::move(Owned[B]));
  forwardCopiesIntoDefs();
  return Error::success();
}

/// `%x = op ...; ...; %p = COPY %x` in one block, with %x read only there:
/// op writes %p itself and the COPY goes. Under a narrowed mask op writes
/// only the active lanes, as the COPY did, so it takes the COPY's
/// PartialDef. Not when something in between reads or writes %p or changes
/// the mask, nor when op writes all lanes or reads its destination. This
/// is what removes a region's copy into its join's phi: the allocator
/// could not, since the partial copy keeps the phi's old value live there.
void Lowering::forwardCopiesIntoDefs() {
  DenseMap<Reg, unsigned> Reads, Defs;
  for (const auto &B : Fn.Blocks)
    for (const Inst &I : B->Insts)
      for (const Operand &O : I.Ops)
        if (O.isReg() && mir::isVirtual(O.R))
          ++(O.IsDef ? Defs : Reads)[O.R];
  auto Touches = [](const Inst &I, Reg R) {
    return llvm::any_of(I.Ops, [&](const Operand &O) { return O.isReg() && O.R == R; });
  };
  auto ChangesMask = [](const Inst &I) {
    const simt::InstrDesc *D = mir::simtDescOf(I);
    return D && D->has(simt::IsMaskOp);
  };
  for (const auto &B : Fn.Blocks) {
    auto &Insts = B->Insts;
    for (size_t J = 0; J < Insts.size(); ++J) {
      Inst &Copy = Insts[J];
      if (Copy.Opcode != mir::COPY)
        continue;
      Reg P = Copy.Ops[0].R, X = Copy.Ops[1].R;
      if (!mir::isVirtual(P) || !mir::isVirtual(X) || P == X || Reads.lookup(X) != 1 ||
          Defs.lookup(X) != 1)
        continue;
      // The def of X, searching back; give up at anything that forbids it.
      std::optional<size_t> DefAt;
      for (size_t K = J; K-- > 0;) {
        const Inst &I = Insts[K];
        bool DefinesX = llvm::any_of(
            I.Ops, [&](const Operand &O) { return O.isReg() && O.IsDef && O.R == X; });
        if (DefinesX) {
          DefAt = K;
          break;
        }
        if (Touches(I, P) || ChangesMask(I))
          break;
      }
      if (!DefAt || !canWriteAnotherRegister(Insts[*DefAt]))
        continue;
      Inst &Def = Insts[*DefAt];
      for (Operand &O : Def.Ops)
        if (O.isReg() && O.IsDef)
          O.R = P;
      Def.PartialDef = Def.PartialDef || Copy.PartialDef;
      Copy.Opcode = mir::IMPLICIT_DEF; // marked for removal below
      Copy.Ops.clear();
    }
    llvm::erase_if(Insts, [](const Inst &I) { return I.Opcode == mir::IMPLICIT_DEF && I.Ops.empty(); });
  }
}

/// A divergent loop's header phi `%h = phi [%init, preheader], [%v, latch]`
/// with %v computed in the latch (a running sum's `%v = ffma ..., %h`):
/// %v's def writes %h itself and %v's readers read %h, so the back edge
/// has no copy. The allocator cannot find this: %v is read after the loop
/// (directly or by an exit phi), so markLoopLiveOuts makes its def partial
/// and %v stays live around the whole loop, overlapping %h, and every
/// iteration paid a mov (spmv_scalar's `mov r15, r12`). Per lane the two
/// never overlap, which is what the conditions check:
///   - %v has its one def in the latch, one that can write another
///     register (canWriteAnotherRegister), not a phi;
///   - %v is read by that header phi only, by the latch after its def, or
///     outside the loop: where it is read, %h holds it (the latch is the
///     last block of every iteration and the loop's only exit);
///   - %h is not read after %v's def: not later in the latch (terminator
///     included), not by a phi on an edge out of the latch (another header
///     phi's back-edge copy, or an exit phi, would have read the old %h),
///     not outside the loop. Reads in the other loop blocks come before the
///     latch in every iteration; the def itself reads its operands first.
/// A lane that has left keeps its last %v in %h: nothing writes the lanes
/// that are off, and markLoopLiveOuts makes the def partial since %h is
/// now read after the loop. Runs on the SSA input, before any copy exists.
void Lowering::mergeLoopCarriedValues() {
  struct Site {
    unsigned Block;
    size_t Index;
  };
  // Only the registers loop-header phis name (each phi's result and its
  // back-edge value) can merge, so only their reads and defs are collected:
  // a map over every vreg of a large loop-free kernel was the most
  // expensive part of cfg lowering.
  DenseSet<Reg> Candidates;
  for (const Construct &C : Constructs) {
    if (C.Kind != Construct::Loop)
      continue;
    for (const Inst &Phi : G.Blocks[C.Entry]->Insts) {
      if (Phi.Opcode != mir::PHI)
        break;
      Candidates.insert(Phi.Ops[0].R);
      for (size_t K = 1; K + 1 < Phi.Ops.size(); K += 2)
        if (Phi.Ops[K + 1].Target == G.Blocks[C.Branch])
          Candidates.insert(Phi.Ops[K].R);
    }
  }
  if (Candidates.empty())
    return;
  DenseMap<Reg, SmallVector<Site, 4>> Reads, Defs;
  for (unsigned B = 0; B < G.size(); ++B)
    for (size_t K = 0; K < G.Blocks[B]->Insts.size(); ++K)
      for (const Operand &O : G.Blocks[B]->Insts[K].Ops)
        if (O.isReg() && mir::isVirtual(O.R) && Candidates.contains(O.R))
          (O.IsDef ? Defs : Reads)[O.R].push_back({B, K});
  auto InstAt = [&](Site S) -> const Inst & { return G.Blocks[S.Block]->Insts[S.Index]; };
  // The blocks a phi's reads of R come from.
  auto PhiReadsFrom = [](const Inst &Phi, Reg R) {
    SmallVector<const Block *, 2> From;
    for (size_t K = 1; K + 1 < Phi.Ops.size(); K += 2)
      if (Phi.Ops[K].R == R)
        From.push_back(Phi.Ops[K + 1].Target);
    return From;
  };

  DenseMap<Reg, Reg> Rename;
  for (const Construct &C : Constructs) {
    if (C.Kind != Construct::Loop)
      continue;
    unsigned L = C.Branch, H = C.Entry;
    const Block *Latch = G.Blocks[L];
    for (const Inst &Phi : G.Blocks[H]->Insts) {
      if (Phi.Opcode != mir::PHI)
        break;
      Reg Hp = Phi.Ops[0].R, V = mir::NoReg;
      for (size_t K = 1; K + 1 < Phi.Ops.size(); K += 2)
        if (Phi.Ops[K + 1].Target == Latch)
          V = Phi.Ops[K].R;
      if (V == mir::NoReg || !mir::isVirtual(V) || V == Hp || Rename.count(V) ||
          UndefinedVRegs.contains(V) || SmallConstants.count(V))
        continue;
      const auto &VDefs = Defs[V];
      if (VDefs.size() != 1 || VDefs[0].Block != L)
        continue;
      size_t DefAt = VDefs[0].Index;
      const Inst &Def = InstAt(VDefs[0]);
      if (Def.Opcode == mir::PHI || !canWriteAnotherRegister(Def))
        continue;

      unsigned HeaderPhiReads = 0;
      bool Fits = true;
      for (Site S : Reads[V]) {
        if (S.Block == H && InstAt(S).Opcode == mir::PHI)
          ++HeaderPhiReads;
        else if (C.Region.test(S.Block) && !(S.Block == L && S.Index > DefAt))
          Fits = false;
      }
      if (!Fits || HeaderPhiReads != 1)
        continue;
      for (Site S : Reads[Hp]) {
        const Inst &I = InstAt(S);
        if (I.Opcode == mir::PHI) {
          for (const Block *From : PhiReadsFrom(I, Hp))
            if (From == Latch || !C.Region.test(G.indexOf(From)))
              Fits = false;
        } else if (!C.Region.test(S.Block) || (S.Block == L && S.Index > DefAt)) {
          Fits = false;
        }
      }
      if (Fits)
        Rename[V] = Hp;
    }
  }
  if (Rename.empty())
    return;
  for (auto &B : Fn.Blocks)
    for (Inst &I : B->Insts)
      for (Operand &O : I.Ops)
        if (O.isReg())
          if (auto It = Rename.find(O.R); It != Rename.end())
            O.R = It->second;
}

/// The undefined and constant incoming values of PHIs whose copies no
/// longer read them (undefined ones are read by nothing else, see
/// SelectSimt's fillPhis; constants may be).
void Lowering::removeUnreadPhiSources() {
  DenseSet<Reg> Read;
  for (const auto &B : Fn.Blocks)
    for (const Inst &I : B->Insts)
      for (const Operand &O : I.Ops)
        if (O.isReg() && !O.IsDef)
          Read.insert(O.R);
  for (const Split &S : Splits)
    for (const Inst &I : S.B->Insts)
      for (const Operand &O : I.Ops)
        if (O.isReg() && !O.IsDef)
          Read.insert(O.R);
  auto Unread = [&](const Inst &I) {
    bool PhiSource = (I.Opcode == mir::IMPLICIT_DEF && UndefinedVRegs.contains(I.Ops[0].R)) ||
                     (I.Opcode == mir::LI && SmallConstants.contains(I.Ops[0].R));
    return PhiSource && !Read.contains(I.Ops[0].R);
  };
  for (const auto &B : Fn.Blocks)
    llvm::erase_if(B->Insts, Unread);
}

Error Lowering::analyze() {
  // Constants read once, by a phi: loaded into the phi instead. One LI
  // that several phis read stays, and the allocator can give them all its
  // register.
  DenseMap<Reg, unsigned> Reads;
  for (const auto &B : Fn.Blocks)
    for (const Inst &I : B->Insts)
      for (const Operand &O : I.Ops)
        if (O.isReg() && !O.IsDef)
          ++Reads[O.R];
  for (const auto &B : Fn.Blocks)
    for (const Inst &I : B->Insts)
      if (I.Opcode == mir::IMPLICIT_DEF)
        UndefinedVRegs.insert(I.Ops[0].R);
      else if (I.Opcode == mir::LI && I.Ops.size() == 2 && I.Ops[1].isImm() &&
               simt::fitsOneMovi(static_cast<uint32_t>(I.Ops[1].Imm)) &&
               Reads.lookup(I.Ops[0].R) == 1)
        SmallConstants[I.Ops[0].R] = I.Ops[1].Imm;
  Idom = computeIdoms(0, G.Succs, G.Preds);
  Ipdom = computeIpdoms(G);
  ConstructAt.assign(G.size(), -1);
  for (unsigned B = 0; B < G.size(); ++B)
    if (Error E = classify(B))
      return E;
  Narrowed.resize(G.size());
  for (const Construct &C : Constructs)
    Narrowed |= C.Region;
  return Error::success();
}

Error Lowering::classify(unsigned B) {
  const Inst &T = terminatorOf(*G.Blocks[B]);
  if (!isTwoWayBranch(T) || !T.Divergent)
    return Error::success();
  unsigned TrueS = G.indexOf(T.Ops[1].Target), FalseS = G.indexOf(T.Ops[2].Target);
  bool TrueBack = dominates(Idom, TrueS, B), FalseBack = dominates(Idom, FalseS, B);
  if (TrueBack && FalseBack)
    return internal(B, "divergent branch with two back edges is not structurized");
  if (TrueBack)
    return addLoop(B, TrueS, FalseS);
  if (FalseBack)
    return addLoop(B, FalseS, TrueS);
  return addIf(B);
}

Error Lowering::addLoop(unsigned Latch, unsigned Header, unsigned Exit) {
  Construct C{Construct::Loop, Latch, Exit, 0, Header, false, BitVector(G.size())};
  const Inst &T = terminatorOf(*G.Blocks[Latch]);
  C.KeepWhereZero = G.indexOf(T.Ops[2].Target) == Header;

  // The natural loop of every back edge into Header.
  SmallVector<unsigned, 8> Work;
  C.Region.set(Header);
  for (unsigned P : G.Preds[Header])
    if (dominates(Idom, Header, P))
      Work.push_back(P);
  while (!Work.empty()) {
    unsigned X = Work.pop_back_val();
    if (C.Region.test(X))
      continue;
    C.Region.set(X);
    append_range(Work, G.Preds[X]);
  }

  for (unsigned P : G.Preds[Header]) {
    if (C.Region.test(P))
      continue;
    C.SavePoint = P; // ensurePreheaders left exactly one, leading only here
  }
  for (const Construct &Other : Constructs)
    if (Other.Kind == Construct::Loop && Other.Entry == Header)
      return internal(Latch, formatv("loop at bb.{0} has a second divergent latch (bb.{1})",
                                     G.Blocks[Header]->Name, G.Blocks[Other.Branch]->Name));

  // Lanes that leave wait for the others at the one exit; any other way out
  // would lose them, and only the latch may decide per lane.
  for (unsigned P : C.Region.set_bits()) {
    for (unsigned S : G.Succs[P]) {
      if (C.Region.test(S))
        continue;
      bool DivergentExit = terminatorOf(*G.Blocks[P]).Divergent && P != Latch;
      if (S != Exit || DivergentExit)
        return internal(P, formatv("divergent loop exit not structurized (loop at bb.{0} "
                                   "leaves to bb.{1}; its latch bb.{2} exits to bb.{3})",
                                   G.Blocks[Header]->Name, G.Blocks[S]->Name,
                                   G.Blocks[Latch]->Name, G.Blocks[Exit]->Name));
    }
  }
  ConstructAt[Latch] = Constructs.size();
  Constructs.push_back(std::move(C));
  return Error::success();
}

Error Lowering::addIf(unsigned B) {
  const Inst &T = terminatorOf(*G.Blocks[B]);
  unsigned TrueS = G.indexOf(T.Ops[1].Target), FalseS = G.indexOf(T.Ops[2].Target);
  int J = Ipdom[B];
  if (J == NoBlock)
    return internal(B, "divergent branch has no immediate post-dominator to reconverge at "
                       "(does every path reach the return block?)");
  if (TrueS != unsigned(J) && FalseS != unsigned(J))
    return internal(B, formatv("divergent branch not structurized: neither bb.{0} nor bb.{1} "
                               "is its immediate post-dominator bb.{2}",
                               G.Blocks[TrueS]->Name, G.Blocks[FalseS]->Name,
                               G.Blocks[J]->Name));
  bool RegionOnFalse = TrueS == unsigned(J);
  unsigned R = RegionOnFalse ? FalseS : TrueS;
  Construct C{Construct::If, B, unsigned(J), B, R, RegionOnFalse, BitVector(G.size())};

  SmallVector<unsigned, 8> Work{R};
  while (!Work.empty()) {
    unsigned X = Work.pop_back_val();
    if (X == unsigned(J) || C.Region.test(X))
      continue;
    if (X == B)
      return internal(B, "divergent loop exit not structurized (the branch's region leads "
                         "back to it)");
    C.Region.set(X);
    append_range(Work, G.Succs[X]);
  }
  for (unsigned X : C.Region.set_bits())
    for (unsigned P : G.Preds[X])
      if (!C.Region.test(P) && !(X == R && P == B))
        return internal(B, formatv("divergent region entered from bb.{0} into bb.{1}: not "
                                   "single-entry",
                                   G.Blocks[P]->Name, G.Blocks[X]->Name));
  ConstructAt[B] = Constructs.size();
  Constructs.push_back(std::move(C));
  return Error::success();
}

Error Lowering::checkBarriers() const {
  for (unsigned B : Narrowed.set_bits())
    for (const Inst &I : G.Blocks[B]->Insts)
      if (I.Opcode == op(simt::Opcode::BAR))
        return createStringError(
            formatv("kernel {0}: __syncthreads() in divergent control flow (block {1}{2}): "
                    "every thread of the block must reach the same barrier; move it out of "
                    "the thread-dependent if or loop",
                    Fn.Name, G.Blocks[B]->Name, where(I)));
  return Error::success();
}

/// One mask register per join. Only constructs whose save point lies outside
/// every other construct meeting at the same join save it: an inner one's
/// lanes are a subset, and its save would not run on the outer skip path.
void Lowering::assignJoinMasks() {
  JoinMask.assign(G.size(), mir::NoReg);
  for (const Construct &C : Constructs)
    if (JoinMask[C.Join] == mir::NoReg)
      JoinMask[C.Join] = Fn.newVReg(/*Uniform=*/true, "emask." + G.Blocks[C.Join]->Name);
}

bool isOutermostAtJoin(const Construct &C, ArrayRef<Construct> All) {
  for (const Construct &Other : All)
    if (&Other != &C && Other.Join == C.Join && Other.Region.test(C.SavePoint))
      return false;
  return true;
}

/// An edge into a join that no construct meeting there covers (for example
/// a uniform branch around a divergent if): the restore at the join must
/// find the current mask, so the edge saves it.
bool Lowering::needsPlainSave(unsigned From, unsigned To) const {
  if (JoinMask[To] == mir::NoReg)
    return false;
  for (const Construct &C : Constructs)
    if (C.Join == To && (C.Region.test(From) || (C.Kind == Construct::If && C.Branch == From)))
      return false;
  return true;
}

SmallVector<std::pair<Reg, Reg>, 4> Lowering::phiCopies(unsigned From, unsigned To) const {
  SmallVector<std::pair<Reg, Reg>, 4> Copies;
  const Block *Src = G.Blocks[From];
  for (const Inst &Phi : G.Blocks[To]->Insts) {
    if (Phi.Opcode != mir::PHI)
      break;
    for (size_t K = 1; K + 1 < Phi.Ops.size(); K += 2)
      if (Phi.Ops[K + 1].Target == Src) {
        Copies.push_back({Phi.Ops[0].R, Phi.Ops[K].R});
        break;
      }
  }
  llvm::erase_if(Copies, [](const auto &C) { return C.first == C.second; });
  return Copies;
}

bool Lowering::edgeHasCode(unsigned From, unsigned To) const {
  return !phiCopies(From, To).empty() || needsPlainSave(From, To);
}

void Lowering::appendEdgeCode(unsigned From, unsigned To, bool Partial, std::vector<Inst> &Out,
                              StringRef Loc) {
  appendParallelCopies(phiCopies(From, To), Partial, Out, Loc);
  if (needsPlainSave(From, To)) {
    Inst Save(op(simt::Opcode::EMASK_GET), {Operand::def(JoinMask[To])});
    Save.Loc = Loc;
    Out.push_back(std::move(Save));
  }
}

/// Phi copies of one edge happen at once: a copy whose destination another
/// copy still reads waits, and a cycle (a swap) goes through a temporary.
void Lowering::appendParallelCopies(SmallVector<std::pair<Reg, Reg>, 4> Pending, bool Partial,
                                    std::vector<Inst> &Out, StringRef Loc) {
  auto Emit = [&](Reg Dst, Reg Src, bool IsPhiDef) {
    // An undefined incoming value: any bits will do in the lanes the copy
    // writes, so no instruction runs. The IMPLICIT_DEF still starts the
    // phi's live range there (or, as a partial def, keeps the old value
    // live for the lanes it leaves out). A one-word constant is loaded
    // straight into the phi's register: an li instead of an li and a mov.
    Inst Copy(mir::COPY, {Operand::def(Dst), Operand::use(Src)});
    if (UndefinedVRegs.contains(Src))
      Copy = Inst(mir::IMPLICIT_DEF, {Operand::def(Dst)});
    else if (auto Imm = SmallConstants.find(Src); Imm != SmallConstants.end())
      Copy = Inst(mir::LI, {Operand::def(Dst), Operand::imm(Imm->second)});
    Copy.PartialDef = Partial && IsPhiDef;
    Copy.Loc = Loc;
    Out.push_back(std::move(Copy));
  };
  while (!Pending.empty()) {
    auto Ready = llvm::find_if(Pending, [&](const auto &C) {
      return llvm::none_of(Pending, [&](const auto &D) { return D.second == C.first; });
    });
    if (Ready != Pending.end()) {
      Emit(Ready->first, Ready->second, true);
      Pending.erase(Ready);
      continue;
    }
    // Every destination is still read: a cycle. Park one destination's old
    // value in a temporary and let its readers use that.
    Reg Parked = Pending.front().first;
    Reg Temp = mir::isVirtual(Parked) ? Fn.newVReg(Fn.info(Parked).Uniform) : Fn.newVReg();
    Emit(Temp, Parked, false);
    for (auto &C : Pending)
      if (C.second == Parked)
        C.second = Temp;
  }
}

/// Critical edges of uniform branches that need code get a block of their
/// own; divergent branches place their edge code around the mask code.
void Lowering::splitCriticalEdges() {
  for (unsigned B = 0; B < G.size(); ++B) {
    const Inst &T = terminatorOf(*G.Blocks[B]);
    if (!isTwoWayBranch(T) || ConstructAt[B] >= 0)
      continue;
    for (unsigned S : G.Succs[B]) {
      if (!edgeHasCode(B, S))
        continue;
      auto NB = std::make_unique<Block>(
          uniqueBlockName(Names, G.Blocks[B]->Name + ".to." + G.Blocks[S]->Name));
      NB->LoopDepth = std::min(G.Blocks[B]->LoopDepth, G.Blocks[S]->LoopDepth);
      Splits.push_back({B, S, std::move(NB)});
    }
  }
}

Block *Lowering::edgeTarget(unsigned From, unsigned To) const {
  for (const Split &S : Splits)
    if (S.From == From && S.To == To)
      return S.B.get();
  return G.Blocks[To];
}

/// Layout: a depth-first reverse postorder that visits, at each branch, the
/// successor to place late first. So the successor visited last (placed
/// right after the block) is the one a structured program wants there: an
/// if-header is followed by its region and the region by its join (the
/// join post-dominates the region, so it is visited first and lands after
/// it), a loop's body stays together because its exits are visited first,
/// and a latch is followed by the loop's exit. Every block still comes after
/// its forward predecessors, and the entry block stays first.
std::vector<unsigned> Lowering::structuredOrder() const {
  // Natural loops by header, to tell loop exits from edges that stay inside.
  std::vector<BitVector> LoopBodies;
  for (unsigned B = 0; B < G.size(); ++B)
    for (unsigned H : G.Succs[B]) {
      if (!dominates(Idom, H, B))
        continue;
      BitVector Body(G.size());
      Body.set(H);
      SmallVector<unsigned, 8> Work{B};
      while (!Work.empty()) {
        unsigned X = Work.pop_back_val();
        if (Body.test(X))
          continue;
        Body.set(X);
        append_range(Work, G.Preds[X]);
      }
      LoopBodies.push_back(std::move(Body));
    }
  auto LoopsLeft = [&](unsigned From, unsigned To) {
    unsigned N = 0;
    for (const BitVector &Body : LoopBodies)
      N += Body.test(From) && !Body.test(To);
    return N;
  };
  auto PostDominates = [&](unsigned A, unsigned B) {
    for (int X = int(B); X != NoBlock; X = Ipdom[X])
      if (X == int(A))
        return true;
    return false;
  };
  /// Successors of B, the one to place furthest away first.
  auto VisitOrder = [&](unsigned B) {
    SmallVector<unsigned, 2> Order(G.Succs[B].rbegin(), G.Succs[B].rend());
    if (Order.size() == 2) {
      unsigned A = Order[0], C = Order[1];
      unsigned LeaveA = LoopsLeft(B, A), LeaveC = LoopsLeft(B, C);
      bool Swap = LeaveC != LeaveA ? LeaveC > LeaveA : PostDominates(C, A) && !PostDominates(A, C);
      if (Swap)
        std::swap(Order[0], Order[1]);
    }
    return Order;
  };

  std::vector<unsigned> PostOrder;
  std::vector<bool> Seen(G.size(), false);
  std::vector<std::pair<unsigned, SmallVector<unsigned, 2>>> Stack;
  Seen[0] = true;
  Stack.push_back({0, VisitOrder(0)});
  while (!Stack.empty()) {
    auto &[Node, Pending] = Stack.back();
    if (!Pending.empty()) {
      unsigned S = Pending.front();
      Pending.erase(Pending.begin());
      if (!Seen[S]) {
        Seen[S] = true;
        Stack.push_back({S, VisitOrder(S)});
      }
      continue;
    }
    PostOrder.push_back(Node);
    Stack.pop_back();
  }
  return std::vector<unsigned>(PostOrder.rbegin(), PostOrder.rend());
}

/// The structured order, with each critical-edge block placed between its
/// source and its target when they are adjacent (the source then falls
/// through into it), else right after its source.
void Lowering::buildLayout() {
  std::vector<unsigned> Order = structuredOrder();
  for (size_t K = 0; K < Order.size(); ++K) {
    unsigned B = Order[K];
    Layout.push_back(G.Blocks[B]);
    int Next = K + 1 < Order.size() ? int(Order[K + 1]) : NoBlock;
    const Split *ToNext = nullptr;
    for (const Split &S : Splits) {
      if (S.From != B)
        continue;
      if (int(S.To) == Next)
        ToNext = &S;
      else
        Layout.push_back(S.B.get());
    }
    if (ToNext)
      Layout.push_back(ToNext->B.get());
  }
}

Block *Lowering::layoutNext(const Block *B) const {
  for (size_t K = 0; K + 1 < Layout.size(); ++K)
    if (Layout[K] == B)
      return Layout[K + 1];
  return nullptr;
}

std::vector<Inst> Lowering::lowerBlock(unsigned B) {
  std::vector<Inst> Out;
  Block &Blk = *G.Blocks[B];
  if (JoinMask[B] != mir::NoReg)
    Out.push_back(withReg(simt::Opcode::EMASK_SET, Operand::use(JoinMask[B]),
                          Blk.Insts.front().Loc));
  for (size_t K = 0; K + 1 < Blk.Insts.size(); ++K)
    if (Blk.Insts[K].Opcode != mir::PHI)
      Out.push_back(Blk.Insts[K]);
  lowerTerminator(B, Out);
  return Out;
}

void Lowering::lowerTerminator(unsigned B, std::vector<Inst> &Out) {
  const Inst &T = terminatorOf(*G.Blocks[B]);
  if (T.Opcode == mir::RET) {
    Inst Exit(op(simt::Opcode::EXIT), {});
    Exit.Loc = T.Loc;
    Out.push_back(std::move(Exit));
    return;
  }
  if (ConstructAt[B] >= 0) {
    const Construct &C = Constructs[ConstructAt[B]];
    if (C.Kind == Construct::If)
      lowerDivergentIf(C, Out);
    else
      lowerDivergentLatch(C, Out);
    return;
  }
  if (isTwoWayBranch(T)) {
    lowerUniformBranch(B, Out);
    return;
  }
  // BR, or a BRCOND whose targets are the same block.
  unsigned S = G.Succs[B].front();
  appendEdgeCode(B, S, Narrowed.test(B), Out, T.Loc);
  for (const Construct &C : Constructs)
    if (C.Kind == Construct::Loop && C.SavePoint == B && isOutermostAtJoin(C, Constructs)) {
      Inst Save(op(simt::Opcode::EMASK_GET), {Operand::def(JoinMask[C.Join])});
      Save.Loc = T.Loc;
      Out.push_back(std::move(Save));
    }
  if (layoutNext(G.Blocks[B]) != G.Blocks[S])
    Out.push_back(branch(simt::Opcode::BRA, G.Blocks[S], T.Loc));
}

void Lowering::lowerUniformBranch(unsigned B, std::vector<Inst> &Out) {
  const Inst &T = terminatorOf(*G.Blocks[B]);
  Block *TrueT = edgeTarget(B, G.indexOf(T.Ops[1].Target));
  Block *FalseT = edgeTarget(B, G.indexOf(T.Ops[2].Target));
  Block *Next = layoutNext(G.Blocks[B]);
  Operand Cond = Operand::use(T.Ops[0].R);
  auto CondBranch = [&](simt::Opcode O, Block *Target) {
    Inst I(op(O), {Cond, Operand::block(Target)});
    I.Loc = T.Loc;
    Out.push_back(std::move(I));
  };
  if (FalseT == Next) {
    CondBranch(simt::Opcode::BNZ, TrueT);
  } else if (TrueT == Next) {
    CondBranch(simt::Opcode::BZ, FalseT);
  } else {
    CondBranch(simt::Opcode::BNZ, TrueT);
    Out.push_back(branch(simt::Opcode::BRA, FalseT, T.Loc));
  }
}

/// B: [copies B->J] m = emask.get; emask.and(n) c; [copies B->R]; bnone J
/// The B->J copies run in every active lane; the region's own copies at its
/// end overwrite them in the lanes that took the region, which run later
/// (so those are partial defs). The B->J copies are full defs unless an
/// enclosing construct shares the join: the lanes B's mask leaves out then
/// reach J with the value the enclosing construct's copies gave them, which
/// must survive. Otherwise no lane inactive at B reads the phi's register
/// again (J's uses are dominated by J, inside every region around B; uses
/// after a loop around B go through its exit phis, and a value used outside
/// a loop is made partial by markLoopLiveOuts), so its old contents may go:
/// the copy and its source can then share a register. With the back-edge
/// copies of lowerDivergentLatch, 2026-12-01: static movs divergent 34 ->
/// 29, softmax 22 -> 15, spmv_balanced 38 -> 31; rtl cycles divergent
/// -5.9%, spmv_merge up to -2.9% (docs/NOTES.md).
void Lowering::lowerDivergentIf(const Construct &C, std::vector<Inst> &Out) {
  const Inst &T = terminatorOf(*G.Blocks[C.Branch]);
  appendEdgeCode(C.Branch, C.Join, /*Partial=*/!isOutermostAtJoin(C, Constructs), Out, T.Loc);
  if (isOutermostAtJoin(C, Constructs)) {
    Inst Save(op(simt::Opcode::EMASK_GET), {Operand::def(JoinMask[C.Join])});
    Save.Loc = T.Loc;
    Out.push_back(std::move(Save));
  }
  Out.push_back(withReg(C.KeepWhereZero ? simt::Opcode::EMASK_ANDN : simt::Opcode::EMASK_AND,
                        Operand::use(T.Ops[0].R), T.Loc));
  appendEdgeCode(C.Branch, C.Entry, /*Partial=*/true, Out, T.Loc);
  Out.push_back(branch(simt::Opcode::BNONE, G.Blocks[C.Join], T.Loc));
  if (layoutNext(G.Blocks[C.Branch]) != G.Blocks[C.Entry])
    Out.push_back(branch(simt::Opcode::BRA, G.Blocks[C.Entry], T.Loc));
}

/// L: [copies L->X] emask.and(n) c; [copies L->H]; bany H; (X next)
/// Exit copies run in every lane still looping; lanes that go round again
/// overwrite them on a later iteration, lanes that leave keep them (partial
/// defs: a lane that left reads its exit value after the loop, and an
/// emask.get in the loop writes every lane of its register). The back-edge
/// copies are full defs: the lanes they leave out have left the loop and
/// never read a header phi again (the preheader's copies set it anew if an
/// outer loop comes back; a header phi used after the loop is made partial
/// by markLoopLiveOuts), so the copy and its source may share a register.
void Lowering::lowerDivergentLatch(const Construct &C, std::vector<Inst> &Out) {
  const Inst &T = terminatorOf(*G.Blocks[C.Branch]);
  appendEdgeCode(C.Branch, C.Join, /*Partial=*/true, Out, T.Loc);
  Out.push_back(withReg(C.KeepWhereZero ? simt::Opcode::EMASK_ANDN : simt::Opcode::EMASK_AND,
                        Operand::use(T.Ops[0].R), T.Loc));
  appendEdgeCode(C.Branch, C.Entry, /*Partial=*/false, Out, T.Loc);
  Out.push_back(branch(simt::Opcode::BANY, G.Blocks[C.Entry], T.Loc));
  if (layoutNext(G.Blocks[C.Branch]) != G.Blocks[C.Join])
    Out.push_back(branch(simt::Opcode::BRA, G.Blocks[C.Join], T.Loc));
}

std::vector<Inst> Lowering::lowerSplit(const Split &S) {
  std::vector<Inst> Out;
  StringRef Loc = terminatorOf(*G.Blocks[S.From]).Loc;
  appendEdgeCode(S.From, S.To, Narrowed.test(S.From), Out, Loc);
  if (layoutNext(S.B.get()) != G.Blocks[S.To])
    Out.push_back(branch(simt::Opcode::BRA, G.Blocks[S.To], Loc));
  return Out;
}

/// A lane that leaves a divergent loop early keeps its values while the
/// others iterate and redefine the same registers in their lanes only. So a
/// value defined in the loop and used after it is never killed by a def in
/// the loop: mark those defs PartialDef and liveness keeps it live around.
void Lowering::markLoopLiveOuts() {
  for (const Construct &C : Constructs) {
    if (C.Kind != Construct::Loop)
      continue;
    DenseSet<const Block *> Body;
    for (unsigned B : C.Region.set_bits())
      Body.insert(G.Blocks[B]);
    for (const Split &S : Splits)
      if (C.Region.test(S.From))
        Body.insert(S.B.get());
    DenseSet<Reg> DefinedInside, UsedOutside;
    for (Block *B : Layout) {
      bool Inside = Body.count(B);
      for (const Inst &I : B->Insts)
        for (const Operand &O : I.Ops) {
          if (!O.isReg() || !mir::isVirtual(O.R))
            continue;
          if (Inside && O.IsDef)
            DefinedInside.insert(O.R);
          if (!Inside && !O.IsDef)
            UsedOutside.insert(O.R);
        }
    }
    for (Block *B : Layout) {
      if (!Body.count(B))
        continue;
      for (Inst &I : B->Insts)
        for (const Operand &O : I.Ops)
          if (O.isReg() && O.IsDef && UsedOutside.count(O.R))
            I.PartialDef = true;
    }
  }
}

} // namespace

llvm::Error lowerControlFlow(mir::Function &Fn) {
  if (Error E = checkInputShape(Fn))
    return E;
  removeUnreachableBlocks(Fn);
  ensurePreheaders(Fn);
  return Lowering(Fn).run();
}

} // namespace tandem::isel
