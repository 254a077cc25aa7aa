//===- ListScheduler.cpp - pre-allocation list scheduling for simt --------===//
//
// See ListScheduler.h for the contract. One block at a time:
//   1. build the dependence graph of the block's body (data edges carry the
//      producer's latency; memory-order edges keep stores, atomics, barriers
//      and %clock reads in place relative to each other and to loads);
//   2. give each node its height: the longest latency path to the block's
//      end, which is what list scheduling ranks by (global loads count the
//      configured memory latency, so they rise to the top);
//   3. issue one instruction per cycle from the ready set, highest first,
//      unless the number of values live is near the register budget, in
//      which case instructions that free registers win, then selection
//      order (not height: that would hoist again). Live counts every
//      value: the block's own and those live into its body (PHI results,
//      values from other blocks), from an SSA block liveness
//      (mir::ssaLiveOut); counting only the block's own let the scheduler
//      hoist past the budget in blocks where live-through values already
//      filled it (many_live spilled 144 bytes a thread scheduled against 92
//      in selection order, 2026-12-03).
// Between 2 and 3, edges of latency 0 make a loop's latch read each
// loop-carried value before it defines the next one (orderCarriedValues),
// so the two can share a register. After 3, a block whose order peaks
// above what the register file holds keeps selection order if that peaks
// lower: the allocator spills less there.
// Ties keep the original order, so the result is deterministic. Ready
// instructions that read no register (constants, parameter loads) are kept
// in two lists sorted once by each ranking (FreeNodes) rather than asked
// every cycle, which keeps long blocks from scheduling in quadratic time.
//
// Per-vreg facts (local uses left, defined in the body) are flat arrays
// indexed by vreg number, shared by all blocks of the function, and the
// values live after each body one bit vector per block: under
// register pressure the pressure delta of every ready instruction is asked
// each cycle, and hash-map lookups there were most of the scheduler's time.
//
//===----------------------------------------------------------------------===//

#include "sched/ListScheduler.h"

#include "ISA.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>

using namespace llvm;

namespace tandem::sched {
namespace {

using mir::Inst;
using mir::Reg;

/// Registers the pressure budget leaves out: r0 (zero) and what selection
/// does not show yet (cfg lowering's exec masks, allocator temporaries).
constexpr int ReservedRegisters = 4;

/// How an instruction takes part in memory ordering.
enum class MemKind { None, Load, Store, Ordered };

bool isSpecialReadOfClock(const Inst &I) {
  if (I.Opcode != static_cast<unsigned>(simt::Opcode::S2R) || I.Ops.size() < 2)
    return false;
  auto Clock = simt::lookupSpecialReg("clock");
  return Clock && I.Ops[1].isImm() && I.Ops[1].Imm == static_cast<int64_t>(*Clock);
}

MemKind memKindOf(const Inst &I) {
  const simt::InstrDesc *D = mir::simtDescOf(I);
  if (!D)
    return MemKind::None;
  // Parameters and constants cannot change during a launch.
  if (D->Space == simt::MemSpace::Param || D->Space == simt::MemSpace::Const)
    return MemKind::None;
  if (D->has(simt::IsBarrier) || D->has(simt::IsAtomic) || D->has(simt::IsMaskOp) ||
      isSpecialReadOfClock(I))
    return MemKind::Ordered;
  if (D->has(simt::IsStore))
    return MemKind::Store;
  if (D->has(simt::IsLoad))
    return MemKind::Load;
  return MemKind::None;
}

bool leavesTheCore(const Inst &I) {
  const simt::InstrDesc *D = mir::simtDescOf(I);
  return D && D->Space == simt::MemSpace::Global && (D->has(simt::IsLoad) || D->has(simt::IsAtomic));
}

unsigned latencyOf(const Inst &I, const ScheduleOptions &Opts) {
  if (I.Opcode == mir::IMPLICIT_DEF)
    return 0;
  if (I.Opcode == mir::LI)
    return 2; // up to two words (movi + movt)
  const simt::InstrDesc *D = mir::simtDescOf(I);
  if (!D)
    return 1;
  unsigned Lat = simt::getSchedClassDesc(D->Sched).Latency;
  if (leavesTheCore(I))
    Lat += Opts.GlobalMemoryLatency;
  return Lat;
}

bool isPseudoTerminator(const Inst &I) {
  return I.Opcode == mir::BR || I.Opcode == mir::BRCOND || I.Opcode == mir::RET;
}

unsigned vregIndex(Reg R) { return R - mir::VirtRegBase; }

/// Per vreg index, for one function: scratch counts of the uses left in
/// the block being scheduled.
struct VRegTables {
  /// Uses left in the body being scheduled of each value it reads or
  /// defines; zero for every other vreg (and for all of them between
  /// blocks).
  std::vector<unsigned> Remaining;
  /// The values defined in the body being scheduled (clear between blocks).
  BitVector DefinedHere;
};

struct Node {
  unsigned Latency = 1;
  unsigned Height = 0;
  SmallVector<std::pair<unsigned, unsigned>, 4> Succs; // (node, edge latency)
  unsigned NumPreds = 0;
  unsigned Earliest = 0;
  /// Values this node defines that stay live after the block or have uses
  /// here; and the values whose last local use it may be.
  SmallVector<Reg, 2> Defs;
  SmallVector<Reg, 4> Uses;
  /// Uses without repeats, each with how often this node reads it.
  SmallVector<std::pair<Reg, unsigned>, 4> DistinctUses;
};

class BlockScheduler {
public:
  /// \p LiveAfter: the values live after \p B's body (liveAfterBodies);
  /// \p Carried: (PHI result, the value \p B hands it on its edge) for
  /// the PHIs of \p B's successors whose value \p B defines
  /// (loopCarriedValues).
  BlockScheduler(mir::Block &B, const BitVector &LiveAfter, ArrayRef<std::pair<Reg, Reg>> Carried,
                 VRegTables &Tables, const ScheduleOptions &Opts)
      : B(B), LiveOut(LiveAfter), Carried(Carried), Remaining(Tables.Remaining),
        DefinedHere(Tables.DefinedHere), Opts(Opts) {}

  /// Returns how many instructions changed position.
  unsigned run() {
    findBody();
    if (End - Begin < 2)
      return 0;
    buildGraph();
    computeHeights();
    orderCarriedValues();
    std::vector<unsigned> Order = schedule();
    unsigned Moved = 0;
    std::vector<Inst> Body;
    Body.reserve(Order.size());
    for (unsigned K = 0; K < Order.size(); ++K) {
      Moved += Order[K] != K;
      Body.push_back(std::move(B.Insts[Begin + Order[K]]));
    }
    std::move(Body.begin(), Body.end(), B.Insts.begin() + Begin);
    return Moved;
  }

private:
  mir::Block &B;
  const BitVector &LiveOut; ///< live after the body
  ArrayRef<std::pair<Reg, Reg>> Carried;
  DenseMap<Reg, unsigned> DefNode; ///< the node defining each value of the body
  std::vector<unsigned> &Remaining;
  BitVector &DefinedHere;
  const ScheduleOptions &Opts;
  size_t Begin = 0, End = 0; // body: [Begin, End)
  std::vector<Node> Nodes;

  void findBody() {
    Begin = 0;
    while (Begin < B.Insts.size() && B.Insts[Begin].Opcode == mir::PHI)
      ++Begin;
    End = B.Insts.size();
    if (End > Begin && isPseudoTerminator(B.Insts[End - 1]))
      --End;
  }

  Inst &body(unsigned N) { return B.Insts[Begin + N]; }

  void addEdge(unsigned From, unsigned To, unsigned Latency) {
    Nodes[From].Succs.push_back({To, Latency});
    ++Nodes[To].NumPreds;
  }

  void buildGraph() {
    unsigned N = End - Begin;
    Nodes.assign(N, Node());
    DefNode.clear();
    // Memory order per space (global, shared and local never alias): loads
    // may pass loads; a store orders with every access to its space; a
    // barrier, an atomic or a clock read orders with every access.
    struct SpaceOrder {
      std::optional<unsigned> LastStore;
      SmallVector<unsigned, 8> LoadsSinceStore;
    };
    DenseMap<unsigned, SpaceOrder> Spaces;
    std::optional<unsigned> LastOrdered;
    SmallVector<unsigned, 16> AccessesSinceOrdered;
    for (unsigned K = 0; K < N; ++K) {
      Inst &I = body(K);
      Node &Nd = Nodes[K];
      Nd.Latency = latencyOf(I, Opts);
      for (const mir::Operand &O : I.Ops) {
        if (!O.isReg() || !mir::isVirtual(O.R))
          continue;
        if (O.IsDef) {
          DefNode[O.R] = K;
          Nd.Defs.push_back(O.R);
        } else {
          Nd.Uses.push_back(O.R);
          auto Seen =
              llvm::find_if(Nd.DistinctUses, [&](const auto &U) { return U.first == O.R; });
          if (Seen != Nd.DistinctUses.end())
            ++Seen->second;
          else
            Nd.DistinctUses.push_back({O.R, 1});
          auto It = DefNode.find(O.R);
          if (It != DefNode.end() && It->second != K)
            addEdge(It->second, K, Nodes[It->second].Latency);
        }
      }
      MemKind Kind = memKindOf(I);
      if (Kind == MemKind::None)
        continue;
      if (LastOrdered)
        addEdge(*LastOrdered, K, 1);
      if (Kind == MemKind::Ordered) {
        for (unsigned A : AccessesSinceOrdered)
          addEdge(A, K, 1);
        AccessesSinceOrdered.clear();
        Spaces.clear();
        LastOrdered = K;
        continue;
      }
      AccessesSinceOrdered.push_back(K);
      SpaceOrder &Space = Spaces[static_cast<unsigned>(mir::simtDescOf(I)->Space)];
      if (Space.LastStore)
        addEdge(*Space.LastStore, K, 1);
      if (Kind == MemKind::Load) {
        Space.LoadsSinceStore.push_back(K);
      } else {
        for (unsigned L : Space.LoadsSinceStore)
          addEdge(L, K, 1);
        Space.LoadsSinceStore.clear();
        Space.LastStore = K;
      }
    }
  }

  /// True when \p To depends on \p From (a path of edges).
  bool reaches(unsigned From, unsigned To) const {
    SmallVector<unsigned, 16> Work{From};
    BitVector Seen(Nodes.size());
    while (!Work.empty()) {
      unsigned N = Work.pop_back_val();
      if (N == To)
        return true;
      for (auto [S, Lat] : Nodes[N].Succs)
        if (!Seen.test(S)) {
          Seen.set(S);
          Work.push_back(S);
        }
    }
    return false;
  }

  /// A value this block hands a PHI (the next trip's induction variable,
  /// say) can share the PHI result's register only if it is defined after
  /// the result's last read here: `s' = s >> 1; c = s < 2` needs a copy on
  /// the back edge, `c = s < 2; s' = s >> 1` none (softmax's reduction
  /// loops, 2026-12-03). So every read of the PHI result is ordered before
  /// the def of the value that replaces it, unless the result lives on
  /// after the block anyway or the def feeds that read. Edges of latency 0
  /// added after the heights (a heuristic order, not a data dependence).
  void orderCarriedValues() {
    for (auto [Phi, Next] : Carried) {
      auto Def = DefNode.find(Next);
      if (Def == DefNode.end() || LiveOut.test(vregIndex(Phi)))
        continue;
      for (unsigned U = 0; U < Nodes.size(); ++U)
        if (U != Def->second && llvm::is_contained(Nodes[U].Uses, Phi) && !reaches(Def->second, U))
          addEdge(U, Def->second, 0);
    }
  }

  void computeHeights() {
    // Edges only go forward in the original order, so a reverse walk sees
    // every successor before its predecessors.
    for (unsigned K = Nodes.size(); K-- > 0;) {
      Node &Nd = Nodes[K];
      Nd.Height = Nd.Latency;
      for (auto [S, Lat] : Nd.Succs)
        Nd.Height = std::max(Nd.Height, Lat + Nodes[S].Height);
    }
  }

  /// Remaining := uses in the body of each value it reads. Returns the
  /// values live when the body starts that it reads: those it reads but
  /// does not define. (Values live through it unread hold a register
  /// whatever the order: countLiveThrough, taken off the budget.)
  int countLocalUses() {
    for (const Node &Nd : Nodes)
      for (Reg R : Nd.Defs)
        DefinedHere.set(vregIndex(R));
    int LiveIn = 0;
    for (const Node &Nd : Nodes)
      for (Reg R : Nd.Uses)
        if (Remaining[vregIndex(R)]++ == 0 && !DefinedHere.test(vregIndex(R)))
          ++LiveIn;
    return LiveIn;
  }

  /// Values live through the body without being read or defined in it.
  int countLiveThrough() const {
    int N = 0;
    for (unsigned V : LiveOut.set_bits())
      N += Remaining[V] == 0 && !DefinedHere.test(V);
    return N;
  }

  /// Leaves the tables clear for the next block.
  void clearLocalUses() {
    for (const Node &Nd : Nodes) {
      for (Reg R : Nd.Defs) {
        DefinedHere.reset(vregIndex(R));
        Remaining[vregIndex(R)] = 0;
      }
      for (Reg R : Nd.Uses)
        Remaining[vregIndex(R)] = 0;
    }
  }

  /// Change in the number of live values if \p K issued now: its defs
  /// that are read later, less the values it reads for the last time.
  int pressureDelta(unsigned K) const {
    int Delta = 0;
    for (Reg R : Nodes[K].Defs)
      if (LiveOut.test(vregIndex(R)) || Remaining[vregIndex(R)] > 0)
        ++Delta;
    for (auto [R, UsesHere] : Nodes[K].DistinctUses) {
      unsigned Left = Remaining[vregIndex(R)];
      if (Left != 0 && Left == UsesHere && !LiveOut.test(vregIndex(R)))
        --Delta;
    }
    return Delta;
  }

  /// The ready instructions that read no register and wait for nothing
  /// (constants, parameter loads, special registers). Their pressure delta
  /// and height cannot change while they wait (their defs' readers wait
  /// for them), so instead of being asked every cycle like the rest of the
  /// ready set, each ranking's best of them is at the front of a sorted
  /// list. The pick is the same, since both rankings are total orders. In
  /// blocks of thousands of instructions most of the ready set was
  /// constants, and asking them every cycle made scheduling quadratic
  /// (1.45 s of a 6,400-statement kernel's 3.1 s compile, 2026-12-03).
  class FreeNodes {
  public:
    FreeNodes(const BlockScheduler &S, ArrayRef<unsigned> Free) : ByHeight(Free), ByDelta(Free) {
      // The rankings of schedule(): by height (highest first), or under
      // pressure by delta (lowest first); then selection order.
      llvm::sort(ByHeight, [&](unsigned A, unsigned B) {
        return S.Nodes[A].Height != S.Nodes[B].Height ? S.Nodes[A].Height > S.Nodes[B].Height
                                                      : A < B;
      });
      llvm::sort(ByDelta, [&](unsigned A, unsigned B) {
        int DA = S.pressureDelta(A), DB = S.pressureDelta(B);
        return DA != DB ? DA < DB : A < B;
      });
      Taken.resize(S.Nodes.size());
      IsFree.resize(S.Nodes.size());
      for (unsigned K : Free)
        IsFree.set(K);
      Left = Free.size();
    }
    bool empty() const { return Left == 0; }
    /// The best of those not taken yet, under pressure or not.
    std::optional<unsigned> best(bool Tight) {
      std::vector<unsigned> &List = Tight ? ByDelta : ByHeight;
      size_t &Next = Tight ? NextByDelta : NextByHeight;
      while (Next < List.size() && Taken.test(List[Next]))
        ++Next;
      return Next < List.size() ? std::optional<unsigned>(List[Next]) : std::nullopt;
    }
    bool contains(unsigned K) const { return IsFree.test(K); }
    void take(unsigned K) {
      Taken.set(K);
      --Left;
    }

  private:
    std::vector<unsigned> ByHeight, ByDelta;
    size_t NextByHeight = 0, NextByDelta = 0;
    BitVector IsFree, Taken;
    size_t Left = 0;
  };

  /// Counts \p K as issued: its reads are done. Returns the change in the
  /// number of live values (pressureDelta before the reads).
  int issue(unsigned K) {
    int Delta = pressureDelta(K);
    for (Reg R : Nodes[K].Uses)
      if (unsigned &N = Remaining[vregIndex(R)]; N > 0)
        --N;
    return Delta;
  }

  /// The most values live at once if the body kept selection order
  /// (counted as schedule() counts). Recounts the uses; the caller clears
  /// them (clearLocalUses).
  int selectionOrderPeak() {
    clearLocalUses();
    int Live = countLocalUses(), Peak = Live;
    for (unsigned K = 0; K < Nodes.size(); ++K) {
      Live += issue(K);
      Peak = std::max(Peak, Live);
    }
    return Peak;
  }

  std::vector<unsigned> schedule() {
    int Live = countLocalUses(), Peak = Live; // values live now, and at most so far
    // r0 is the zero register; keep a few more for what selection does not
    // show yet (cfg lowering's exec masks, the allocator's temporaries),
    // and for the values live through the body.
    const int LiveThrough = countLiveThrough();
    int Budget = std::max<int>(4, int(Opts.NumRegisters) - ReservedRegisters - LiveThrough);
    // What the register file holds for the body's values: all but r0 and
    // the values live through the body.
    const int FileSize = int(Opts.NumRegisters) - 1 - LiveThrough;
    std::vector<unsigned> Ready, Order, FreeList;
    for (unsigned K = 0; K < Nodes.size(); ++K)
      if (Nodes[K].NumPreds == 0)
        (Nodes[K].DistinctUses.empty() ? FreeList : Ready).push_back(K);
    FreeNodes Free(*this, FreeList);
    unsigned Cycle = 0;
    while (!Ready.empty() || !Free.empty()) {
      std::optional<unsigned> Pick;
      int PickDelta = 0;
      bool Tight = Live >= Budget;
      unsigned NextCycle = ~0u;
      // Under pressure, waiting for an instruction that frees a register
      // beats issuing one that takes another.
      unsigned NextRelief = ~0u;
      auto Consider = [&](unsigned K, int Delta) {
        if (!Pick) {
          Pick = K;
          PickDelta = Delta;
          return;
        }
        // Under pressure: what frees registers first, then selection
        // order, which keeps each value near its uses; heights would hoist
        // again (many_live spilled 280 bytes a thread with heights as the
        // tie-break, 84 with the order, 92 unscheduled; 2026-12-03).
        bool Better;
        if (Tight && Delta != PickDelta)
          Better = Delta < PickDelta;
        else if (Tight)
          Better = K < *Pick;
        else if (Nodes[K].Height != Nodes[*Pick].Height)
          Better = Nodes[K].Height > Nodes[*Pick].Height;
        else
          Better = K < *Pick;
        if (Better) {
          Pick = K;
          PickDelta = Delta;
        }
      };
      for (unsigned K : Ready) {
        if (Nodes[K].Earliest > Cycle) {
          NextCycle = std::min(NextCycle, Nodes[K].Earliest);
          if (Tight && pressureDelta(K) <= 0)
            NextRelief = std::min(NextRelief, Nodes[K].Earliest);
          continue;
        }
        // Only under pressure does the choice depend on the delta; otherwise
        // it is computed once, when the pick issues (below).
        Consider(K, Tight ? pressureDelta(K) : 0);
      }
      if (auto F = Free.best(Tight)) // waits for nothing: Earliest is 0
        Consider(*F, Tight ? pressureDelta(*F) : 0);
      if (!Pick) {
        Cycle = NextCycle; // nothing can issue yet: wait for the next one
        continue;
      }
      if (Tight && PickDelta > 0 && NextRelief != ~0u) {
        Cycle = NextRelief;
        continue;
      }
      unsigned K = *Pick;
      if (Free.contains(K))
        Free.take(K);
      else
        Ready.erase(llvm::find(Ready, K));
      Order.push_back(K);
      Live += issue(K); // under pressure, PickDelta
      Peak = std::max(Peak, Live);
      for (auto [S, Lat] : Nodes[K].Succs) {
        Nodes[S].Earliest = std::max(Nodes[S].Earliest, Cycle + Lat);
        if (--Nodes[S].NumPreds == 0)
          Ready.push_back(S);
      }
      ++Cycle;
    }
    assert(Order.size() == Nodes.size() && "dependence graph has a cycle");
    // An order whose peak does not fit the register file spills; if
    // selection order peaks lower, it spills less (math_functions: 164
    // bytes a thread at 8 registers scheduled, 100 in selection order,
    // 2026-12-03), so the block keeps it.
    if (Peak > FileSize && selectionOrderPeak() < Peak)
      for (unsigned K = 0; K < Nodes.size(); ++K)
        Order[K] = K;
    clearLocalUses();
    return Order;
  }
};

/// Per block (Fn.Blocks order), by vreg index: the values live after its
/// body, that is live out of the block (mir::ssaLiveOut) or read by its
/// terminator.
std::vector<BitVector> liveAfterBodies(const mir::Function &Fn) {
  std::vector<BitVector> LiveOut = mir::ssaLiveOut(Fn);
  for (size_t K = 0; K < Fn.Blocks.size(); ++K) {
    const mir::Block &B = *Fn.Blocks[K];
    if (!B.Insts.empty() && isPseudoTerminator(B.Insts.back()))
      for (const mir::Operand &O : B.Insts.back().Ops)
        if (O.isReg() && !O.IsDef && mir::isVirtual(O.R))
          LiveOut[K].set(vregIndex(O.R));
  }
  return LiveOut;
}

/// Per block (Fn.Blocks order): (PHI result, value) for each PHI operand
/// that names this block as its predecessor and a value this block
/// defines: on a loop's latch, the loop-carried values.
std::vector<SmallVector<std::pair<Reg, Reg>, 2>> loopCarriedValues(const mir::Function &Fn) {
  DenseMap<const mir::Block *, unsigned> Index;
  for (size_t K = 0; K < Fn.Blocks.size(); ++K)
    Index[Fn.Blocks[K].get()] = unsigned(K);
  std::vector<const mir::Block *> DefBlock(Fn.numVRegs(), nullptr);
  for (const auto &B : Fn.Blocks)
    for (const Inst &I : B->Insts)
      for (const mir::Operand &O : I.Ops)
        if (O.isReg() && O.IsDef && mir::isVirtual(O.R))
          DefBlock[vregIndex(O.R)] = B.get();
  std::vector<SmallVector<std::pair<Reg, Reg>, 2>> Carried(Fn.Blocks.size());
  for (const auto &B : Fn.Blocks)
    for (const Inst &I : B->Insts) {
      if (I.Opcode != mir::PHI)
        break; // PHIs come first
      if (I.Ops.empty() || !I.Ops[0].isReg() || !mir::isVirtual(I.Ops[0].R))
        continue;
      for (size_t O = 1; O + 1 < I.Ops.size(); O += 2) {
        const mir::Operand &V = I.Ops[O], &From = I.Ops[O + 1];
        if (V.isReg() && mir::isVirtual(V.R) && From.isBlock() &&
            DefBlock[vregIndex(V.R)] == From.Target)
          if (auto It = Index.find(From.Target); It != Index.end())
            Carried[It->second].push_back({I.Ops[0].R, V.R});
      }
    }
  return Carried;
}

} // namespace

ScheduleStats scheduleFunction(mir::Function &Fn, const ScheduleOptions &Opts) {
  ScheduleStats Stats;
  VRegTables Tables{std::vector<unsigned>(Fn.numVRegs(), 0), BitVector(Fn.numVRegs())};
  std::vector<BitVector> LiveAfter = liveAfterBodies(Fn);
  std::vector<SmallVector<std::pair<Reg, Reg>, 2>> Carried = loopCarriedValues(Fn);
  for (size_t K = 0; K < Fn.Blocks.size(); ++K) {
    unsigned Moved = BlockScheduler(*Fn.Blocks[K], LiveAfter[K], Carried[K], Tables, Opts).run();
    if (Moved) {
      ++Stats.BlocksReordered;
      Stats.InstructionsMoved += Moved;
    }
  }
  return Stats;
}

} // namespace tandem::sched
