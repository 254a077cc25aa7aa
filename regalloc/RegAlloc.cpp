//===- RegAlloc.cpp - register allocation for simt ------------------------===//
//
// Input: MIR after cfg lowering: blocks in layout order, simt instructions
// plus COPY, LI and IMPLICIT_DEF; vregs possibly defined more than once (phi
// copies); Inst::PartialDef on defs that keep the old value in the lanes
// they do not write; physical registers only as the zero register r0.
//
// Guarantees: every register operand is physical, in r1..r(NumRegisters-1)
// (r0 stays where it was), with Operand::Orig naming the vreg it stands for;
// two vregs share a register only where their live intervals do not
// overlap; spill code (IsSpillCode) keeps every value a spilled vreg needs
// in its local-memory slot; COPYs whose source and destination got the same
// register are gone; Fn.LocalBytes and Fn.Stats describe the result. With
// RegAllocOptions::Check, checkAllocation has proved the result.
//
// Algorithm (docs/RegAlloc.md): rounds of liveness -> linear scan over the
// layout numbering (intervals with holes, copy hints, eviction by spill
// weight) -> if something did not fit, spill-everywhere or rematerialize it
// and start the next round. Spill and remat temporaries are unspillable and
// live for one instruction, so each round spills strictly fewer candidates
// and the rounds end.
//
// SIMT notes: a value written by an instruction that writes all 32 lanes
// (emask.get) or read by emask.set (which reads lane 0, active or not) is
// a whole-warp value: its spill code is `st.local.all.u32` and
// `ld.local.all.u32`, which move all 32 lanes whatever the exec mask (the
// lane-masked ones would lose the inactive lanes' copy of a saved mask,
// and lane 0 need not be active where the mask is restored). A spilled
// PartialDef gets no reload of its old value (Inst::OldValueInSlot): the
// instruction and its spill store run under the same exec mask, so the
// store writes only the lanes the instruction wrote and the slot's other
// lanes keep the old value (the checker asks the slot for it). One fewer
// temporary at that instruction. Only an instruction that computes from its
// destination (movt), or also reads the spilled value, reloads it.
//
//===----------------------------------------------------------------------===//

#include "regalloc/RegAlloc.h"

#include "regalloc/Liveness.h"

#include "ISA.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>

using namespace llvm;

namespace tandem::regalloc {

using mir::Block;
using mir::Function;
using mir::Inst;
using mir::NoReg;
using mir::Operand;
using mir::Reg;
using mir::VirtRegBase;

namespace {

/// Spill and allocate rounds before giving up. Each round spills at least
/// one vreg that is not a temporary, so this bounds only pathological input.
constexpr unsigned MaxRounds = 64;
/// Largest byte offset a `[r0 + simm12]` spill access can reach; slots
/// further out are addressed through a register (Allocator::spillBase).
constexpr int64_t MaxSpillOffset = 2047;

unsigned opc(simt::Opcode O) { return static_cast<unsigned>(O); }

bool isTerminator(const Inst &I) {
  if (I.Opcode == mir::BR || I.Opcode == mir::BRCOND || I.Opcode == mir::RET)
    return true;
  const simt::InstrDesc *D = mir::simtDescOf(I);
  return D && D->has(simt::IsTerminator);
}

Reg vregOf(unsigned Index) { return VirtRegBase + Index; }

/// Special registers whose value never changes during a thread's life, so
/// `s2r` can be re-executed anywhere (everything but %clock).
bool isConstantSpecialReg(int64_t Index) {
  static const std::optional<simt::SpecialReg> Clock = simt::lookupSpecialReg("clock");
  if (Index < 0 || Index >= static_cast<int64_t>(simt::specialRegs().size()))
    return false;
  return !Clock || Index != static_cast<int64_t>(*Clock);
}

/// An instruction that computes the same value wherever it runs, so it can
/// be re-executed before each use instead of spilling its result.
bool isRematerializable(const Inst &I) {
  if (I.PartialDef)
    return false;
  if (I.Opcode == mir::LI || I.Opcode == mir::IMPLICIT_DEF)
    return true;
  // Parameters and the image's const data (__constant__ values, the data
  // section's base address) are read-only while a kernel runs.
  if (I.Opcode == opc(simt::Opcode::PARAM_LD_U32) || I.Opcode == opc(simt::Opcode::CONST_LD_U32))
    return I.Ops.size() == 3 && I.Ops[1].isReg() && I.Ops[1].R == 0;
  if (I.Opcode == opc(simt::Opcode::S2R))
    return I.Ops.size() == 2 && I.Ops[1].isImm() && isConstantSpecialReg(I.Ops[1].Imm);
  return false;
}

std::string describeVReg(const Function &Fn, Reg V) {
  std::string S = formatv("%v{0}", vregIndex(V)).str();
  if (vregIndex(V) < Fn.numVRegs() && !Fn.info(V).Name.empty())
    S += " (" + Fn.info(V).Name + ")";
  return S;
}

/// What the allocator needs to know about one vreg in one round.
struct VRegFacts {
  unsigned Defs = 0;
  double Occurrences = 0; ///< operands naming it, each weighted 10^LoopDepth
  double Weight = 0;      ///< spill weight: cost of spilling per unit length
  bool Unspillable = false;
  /// Needs all 32 lanes kept (an exec mask): spilled with the all-lanes
  /// local accesses.
  bool WholeWarp = false;
  /// The single def that can be re-executed anywhere, or null. Points into
  /// the function: valid until spill code is inserted (insertSpillCode
  /// copies the ones it needs first). A pointer, not a copy, because the
  /// facts of every vreg are rebuilt each round: copies made the table
  /// 8x larger (it went to mmap and page faults) and cost an allocation
  /// per copied source location.
  const Inst *RematDef = nullptr;
  SmallVector<unsigned, 2> CopyPartners; ///< vreg indices
};

/// Positions assigned to one physical register: a bit per position (2 per
/// instruction, Liveness.h) and, where set, the vreg holding it. Finding
/// what an interval collides with is then a few word operations per
/// segment, which matters because eviction asks it of every register.
/// (Whether a register is free at all is answered for all registers at
/// once by Allocator::assign's per-position register masks.)
class RegOccupancy {
public:
  explicit RegOccupancy(unsigned NumPositions)
      : Occupied(NumPositions), Owner(new unsigned[NumPositions]) {}

  void add(const LiveInterval &LI, unsigned V) {
    for (const Segment &S : LI.Segs) {
      Occupied.set(S.Start, S.End);
      std::fill(Owner.get() + S.Start, Owner.get() + S.End, V);
    }
  }
  void remove(const LiveInterval &LI) {
    for (const Segment &S : LI.Segs)
      Occupied.reset(S.Start, S.End);
  }
  /// Vreg indices whose segments here overlap \p LI.
  SmallVector<unsigned, 4> conflicts(const LiveInterval &LI,
                                     const std::vector<LiveInterval> &Intervals) const {
    SmallVector<unsigned, 4> Out;
    for (const Segment &S : LI.Segs) {
      int P = Occupied.find_first_in(S.Start, S.End);
      while (P != -1) {
        unsigned X = Owner[P];
        if (!is_contained(Out, X))
          Out.push_back(X);
        // Skip the rest of X's segment that holds P.
        unsigned Next = segmentEnd(Intervals[X], P);
        P = Next < S.End ? Occupied.find_first_in(Next, S.End) : -1;
      }
    }
    return Out;
  }

private:
  BitVector Occupied;
  std::unique_ptr<unsigned[]> Owner; ///< valid where Occupied is set

  static unsigned segmentEnd(const LiveInterval &LI, unsigned Pos) {
    auto It = llvm::upper_bound(LI.Segs, Pos,
                                [](unsigned P, const Segment &Seg) { return P < Seg.End; });
    assert(It != LI.Segs.end() && It->Start <= Pos && "the owner covers the position");
    return It->End;
  }
};

class Allocator {
public:
  Allocator(Function &Fn, const RegAllocOptions &Opts) : Fn(Fn), Opts(Opts) {
    SpillBase = alignTo(Fn.LocalBytes, 4);
    growTables();
  }

  Error run();

private:
  Function &Fn;
  const RegAllocOptions &Opts;
  uint32_t SpillBase = 0;
  /// Per vreg index: the vreg its operands stand for (a spill or remat
  /// temporary stands for the vreg it was made for; others for themselves).
  std::vector<Reg> StandsFor;
  std::vector<bool> IsTemp;
  /// Per vreg index: spill slot, or -1.
  std::vector<int> SlotOf;
  unsigned NumSlots = 0;
  mir::AllocStats Stats;

  void growTables();
  Reg newTemp(Reg V);
  std::vector<VRegFacts> computeFacts(const Liveness &L) const;
  Expected<std::vector<Reg>> assign(const Liveness &L, const std::vector<VRegFacts> &Facts,
                                    std::vector<unsigned> &Spilled);
  SmallVector<Reg, 2> registersToAvoid(unsigned V, const std::vector<VRegFacts> &Facts,
                                       const std::vector<Reg> &Assigned) const;
  Reg pickFreeRegister(unsigned V, const LiveInterval &LI, const std::vector<VRegFacts> &Facts,
                       const std::vector<Reg> &Assigned, ArrayRef<uint64_t> RegsAt) const;
  Error cannotFit(const Liveness &L, unsigned V) const;
  Error insertSpillCode(ArrayRef<unsigned> Spilled, const std::vector<VRegFacts> &Facts);
  int64_t slotOffset(unsigned Slot) const;
  Reg newAddressTemp();
  Reg spillBase(int64_t Off, StringRef Loc, SmallVectorImpl<Inst> &Out);
  void appendReload(Reg T, int64_t Off, bool WholeWarp, StringRef Loc,
                    SmallVectorImpl<Inst> &Out);
  void appendStore(Reg T, int64_t Off, bool WholeWarp, StringRef Loc,
                   SmallVectorImpl<Inst> &Out);
  void rewrite(const std::vector<Reg> &Assigned);
  void recordFirstPartialDefs(const Liveness &L, const std::vector<Reg> &Assigned);
  /// Deletes identity COPYs; returns whether it deleted any.
  bool removeIdentityCopies();
  /// Reloads whose value is still in a register: deleted, or a COPY.
  void forwardSpilledValues();
  /// Per block, bit = vreg an operand stands for (StandsFor): some def of
  /// it, or of a temporary standing for it, may have run before the block.
  /// From the last round's liveness.
  std::vector<BitVector> StandsForDefinedIn;
  /// A PartialDef (or movt) that some path reaches with no def of its vreg
  /// before it: there its old value is nothing, so its register need not
  /// hold it (Liveness.h); removeIdentityCopies must not merge its vreg
  /// with one that may be defined there.
  struct FirstPartialDef {
    unsigned VReg, Block, Index; ///< VReg: the vreg index it stands for
    bool IdentityCopy;           ///< deleted with its requirement, unless kept
  };
  std::vector<FirstPartialDef> FirstPartialDefs;
  void fillStats();
};

void Allocator::growTables() {
  for (unsigned V = StandsFor.size(); V < Fn.numVRegs(); ++V) {
    StandsFor.push_back(vregOf(V));
    IsTemp.push_back(false);
    SlotOf.push_back(-1);
  }
}

Reg Allocator::newTemp(Reg V) {
  // Unnamed: messages name a temporary by the vreg it stands for
  // (StandsFor), and a name per temporary cost an allocation each.
  Reg T = Fn.newVReg(Fn.info(V).Uniform, "");
  growTables();
  StandsFor[vregIndex(T)] = StandsFor[vregIndex(V)];
  IsTemp[vregIndex(T)] = true;
  return T;
}

/// The address of a far spill slot: a temporary that stands for itself (it
/// holds no program value, so the checker must not take it for one).
Reg Allocator::newAddressTemp() {
  Reg A = Fn.newVReg(/*Uniform=*/false, "spill.addr");
  growTables();
  IsTemp[vregIndex(A)] = true;
  return A;
}

std::vector<VRegFacts> Allocator::computeFacts(const Liveness &L) const {
  std::vector<VRegFacts> F(Fn.numVRegs());
  for (const auto &B : Fn.Blocks) {
    double Freq = std::pow(10.0, std::min(B->LoopDepth, 6u));
    for (const Inst &I : B->Insts) {
      for (const Operand &O : I.Ops) {
        if (!O.isReg() || !mir::isVirtual(O.R))
          continue;
        VRegFacts &VF = F[vregIndex(O.R)];
        VF.Occurrences += Freq;
        if (makesWholeWarp(I, O))
          VF.WholeWarp = true;
        if (O.IsDef) {
          ++VF.Defs;
          if (isRematerializable(I))
            VF.RematDef = &I;
        }
      }
      if (I.Opcode == mir::COPY && mir::isVirtual(I.Ops[0].R) && mir::isVirtual(I.Ops[1].R)) {
        unsigned Dst = vregIndex(I.Ops[0].R), Src = vregIndex(I.Ops[1].R);
        F[Dst].CopyPartners.push_back(Src);
        F[Src].CopyPartners.push_back(Dst);
      }
    }
  }
  for (unsigned V = 0; V < F.size(); ++V) {
    VRegFacts &VF = F[V];
    // Only a single, context-free def can be recomputed, and only into the
    // active lanes: a whole-warp value is reloaded instead.
    if (VF.Defs != 1 || VF.WholeWarp)
      VF.RematDef = nullptr;
    if (IsTemp[V])
      VF.Unspillable = true;
    double Length = L.Intervals[V].size() / 2.0 + 1.0;
    VF.Weight = VF.Occurrences / Length;
    if (VF.RematDef)
      VF.Weight *= 0.5; // recomputing is cheaper than a reload
  }
  return F;
}

SmallVector<Reg, 2> Allocator::registersToAvoid(unsigned V, const std::vector<VRegFacts> &Facts,
                                                const std::vector<Reg> &Assigned) const {
  // A spill temporary must not share a register with its copy partner: the
  // COPY would disappear, and with it the checker's evidence that the
  // register also holds the spilled value (docs/RegAlloc.md).
  SmallVector<Reg, 2> Avoid;
  for (unsigned P : Facts[V].CopyPartners)
    if (Assigned[P] != NoReg && (IsTemp[V] || IsTemp[P]))
      Avoid.push_back(Assigned[P]);
  return Avoid;
}

/// \p RegsAt: per position, a bit per register occupied there.
Reg Allocator::pickFreeRegister(unsigned V, const LiveInterval &LI, const std::vector<VRegFacts> &Facts,
                                const std::vector<Reg> &Assigned, ArrayRef<uint64_t> RegsAt) const {
  // One pass over the interval's positions finds every register busy
  // anywhere in it (instead of asking each register in turn).
  uint64_t Busy = 1; // r0 is never allocated
  for (const Segment &S : LI.Segs)
    for (unsigned P = S.Start; P < S.End; ++P)
      Busy |= RegsAt[P];
  for (Reg R : registersToAvoid(V, Facts, Assigned))
    Busy |= uint64_t(1) << R;
  for (unsigned P : Facts[V].CopyPartners)
    if (Assigned[P] != NoReg && !(Busy >> Assigned[P] & 1))
      return Assigned[P];
  uint64_t Free = ~Busy;
  if (Opts.NumRegisters < 64)
    Free &= (uint64_t(1) << Opts.NumRegisters) - 1;
  return Free ? Reg(llvm::countr_zero(Free)) : NoReg;
}

Error Allocator::cannotFit(const Liveness &L, unsigned V) const {
  unsigned G = L.Intervals[V].start() / 2;
  unsigned B = L.blockOf(G);
  const Block &Blk = *Fn.Blocks[B];
  size_t K = G - L.BlockStart[B];
  // A spill temporary starts at its reload; name the instruction it serves.
  while (IsTemp[V] && Blk.Insts[K].IsSpillCode && K + 1 < Blk.Insts.size())
    ++K;
  const Inst &I = Blk.Insts[K];
  std::string What = IsTemp[V] ? formatv("a spill temporary of {0}", describeVReg(Fn, StandsFor[V])).str()
                               : describeVReg(Fn, vregOf(V));
  // Only spill temporaries are unspillable: they hold this instruction's
  // operands, so the instruction itself needs more registers than exist.
  std::string Held = Opts.NumRegisters == 2
                         ? std::string("r1 holds a value")
                         : formatv("r1..r{0} all hold values", Opts.NumRegisters - 1).str();
  return createStringError(formatv("kernel '{0}': cannot allocate registers: at bb.{1}, instruction {2} "
                                   "({3}){4}, {5} needs a register but {6} that cannot be spilled "
                                   "there; the code needs more than the configuration's {7} "
                                   "registers (`registers`); use a configuration with more registers",
                                   Fn.Name, Blk.Name, K, mir::opcodeName(I.Opcode, mir::TargetKind::Simt),
                                   I.Loc.empty() ? "" : (" at " + I.Loc).str(), What, Held, Opts.NumRegisters));
}

Expected<std::vector<Reg>> Allocator::assign(const Liveness &L, const std::vector<VRegFacts> &Facts,
                                             std::vector<unsigned> &Spilled) {
  unsigned NV = Fn.numVRegs();
  unsigned NumPositions = 2 * L.BlockStart.back() + 2;
  // Linear-scan order: by interval start, ties by vreg index. A counting
  // sort over the positions (a stable sort by start of the vregs in index
  // order gives the same order, at several times the cost).
  std::vector<unsigned> StartsBefore(NumPositions + 1, 0);
  unsigned NumIntervals = 0;
  for (unsigned V = 0; V < NV; ++V)
    if (!L.Intervals[V].empty()) {
      ++StartsBefore[L.Intervals[V].start() + 1];
      ++NumIntervals;
    }
  for (unsigned P = 1; P <= NumPositions; ++P)
    StartsBefore[P] += StartsBefore[P - 1];
  std::vector<unsigned> Order(NumIntervals);
  for (unsigned V = 0; V < NV; ++V)
    if (!L.Intervals[V].empty())
      Order[StartsBefore[L.Intervals[V].start()]++] = V;

  std::vector<RegOccupancy> Occ;
  Occ.reserve(Opts.NumRegisters);
  for (unsigned R = 0; R < Opts.NumRegisters; ++R)
    Occ.emplace_back(NumPositions);
  std::vector<uint64_t> RegsAt(NumPositions, 0);
  std::vector<Reg> Assigned(NV, NoReg);
  auto Place = [&](unsigned V, Reg R) {
    Occ[R].add(L.Intervals[V], V);
    for (const Segment &S : L.Intervals[V].Segs)
      for (unsigned P = S.Start; P < S.End; ++P)
        RegsAt[P] |= uint64_t(1) << R;
    Assigned[V] = R;
  };
  auto Evict = [&](unsigned X, Reg R) {
    Occ[R].remove(L.Intervals[X]);
    for (const Segment &S : L.Intervals[X].Segs)
      for (unsigned P = S.Start; P < S.End; ++P)
        RegsAt[P] &= ~(uint64_t(1) << R);
    Assigned[X] = NoReg;
  };
  for (unsigned V : Order) {
    const LiveInterval &LI = L.Intervals[V];
    Reg Free = pickFreeRegister(V, LI, Facts, Assigned, RegsAt);
    if (Free != NoReg) {
      Place(V, Free);
      continue;
    }
    // Nothing free: evict the cheapest register's occupants, or spill V
    // itself when it is the cheapest.
    Reg Best = NoReg;
    double BestCost = std::numeric_limits<double>::infinity();
    SmallVector<unsigned, 4> BestConflicts;
    SmallVector<Reg, 2> Avoid = registersToAvoid(V, Facts, Assigned);
    for (Reg R = 1; R < Opts.NumRegisters; ++R) {
      if (is_contained(Avoid, R))
        continue;
      SmallVector<unsigned, 4> C = Occ[R].conflicts(LI, L.Intervals);
      if (any_of(C, [&](unsigned X) { return Facts[X].Unspillable; }))
        continue;
      double Cost = 0;
      for (unsigned X : C)
        Cost += Facts[X].Weight;
      if (Cost < BestCost) {
        Best = R;
        BestCost = Cost;
        BestConflicts = std::move(C);
      }
    }
    if (!Facts[V].Unspillable && (Best == NoReg || Facts[V].Weight <= BestCost)) {
      Spilled.push_back(V);
      continue;
    }
    if (Best == NoReg)
      return cannotFit(L, V);
    for (unsigned X : BestConflicts) {
      Evict(X, Best);
      Spilled.push_back(X);
    }
    Place(V, Best);
  }
  return Assigned;
}

/// A slot's byte offset. Spill access addresses are `[r0 + off]` while the
/// offset fits the 12-bit immediate; beyond it, `li a, off` then `[a + 0]`
/// (a fresh one-instruction temporary), so a large spill area costs one
/// instruction per access instead of failing.
int64_t Allocator::slotOffset(unsigned Slot) const {
  return static_cast<int64_t>(SpillBase) + 4 * static_cast<int64_t>(Slot);
}

Inst spillCode(Inst I, StringRef Loc) {
  I.IsSpillCode = true;
  I.Loc = Loc;
  return I;
}

/// Appends the address of slot byte offset \p Off to \p Out when it is
/// beyond the immediate's reach; returns the base register to use.
Reg Allocator::spillBase(int64_t Off, StringRef Loc, SmallVectorImpl<Inst> &Out) {
  if (Off + 3 <= MaxSpillOffset)
    return 0;
  Reg A = newAddressTemp();
  Out.push_back(spillCode(Inst(mir::LI, {Operand::def(A), Operand::imm(Off)}), Loc));
  ++Stats.SpillAddresses;
  return A;
}

/// A whole-warp value (an exec mask) moves with the all-lanes forms.
void Allocator::appendReload(Reg T, int64_t Off, bool WholeWarp, StringRef Loc,
                             SmallVectorImpl<Inst> &Out) {
  Reg Base = spillBase(Off, Loc, Out);
  int64_t Imm = Base == 0 ? Off : 0;
  simt::Opcode Load = WholeWarp ? simt::Opcode::LOCAL_LD_ALL_U32 : simt::Opcode::LOCAL_LD_U32;
  Out.push_back(spillCode(Inst(opc(Load), {Operand::def(T), Operand::use(Base), Operand::imm(Imm)}), Loc));
}

void Allocator::appendStore(Reg T, int64_t Off, bool WholeWarp, StringRef Loc,
                            SmallVectorImpl<Inst> &Out) {
  Reg Base = spillBase(Off, Loc, Out);
  int64_t Imm = Base == 0 ? Off : 0;
  simt::Opcode Store = WholeWarp ? simt::Opcode::LOCAL_ST_ALL_U32 : simt::Opcode::LOCAL_ST_U32;
  Out.push_back(spillCode(Inst(opc(Store), {Operand::use(Base), Operand::imm(Imm), Operand::use(T)}), Loc));
}

Error Allocator::insertSpillCode(ArrayRef<unsigned> Spilled, const std::vector<VRegFacts> &Facts) {
  std::vector<bool> IsSpilled(Fn.numVRegs(), false);
  // The defs to recompute, copied before the blocks they live in are
  // rewritten (Facts' pointers die with them).
  DenseMap<unsigned, Inst> RematDefOf;
  for (unsigned V : Spilled) {
    IsSpilled[V] = true;
    if (Facts[V].RematDef)
      RematDefOf.try_emplace(V, *Facts[V].RematDef);
    else
      SlotOf[V] = NumSlots++;
  }

  auto IsRematted = [&](Reg R) {
    return mir::isVirtual(R) && vregIndex(R) < IsSpilled.size() && IsSpilled[vregIndex(R)] &&
           Facts[vregIndex(R)].RematDef;
  };
  // The spilled vregs \p I reads or writes, each once.
  auto TouchedBy = [&](const Inst &I) {
    SmallVector<Reg, 4> Touched;
    for (const Operand &O : I.Ops)
      if (O.isReg() && mir::isVirtual(O.R) && vregIndex(O.R) < IsSpilled.size() &&
          IsSpilled[vregIndex(O.R)] && !is_contained(Touched, O.R))
        Touched.push_back(O.R);
    return Touched;
  };
  for (auto &B : Fn.Blocks) {
    // Room for everything this adds, so Out never grows: each touch adds
    // at most a reload and a store, each with an address `li` for a far
    // slot. Growing by doubling copied a large block's instructions once
    // more and, past glibc's mmap threshold, mapped the memory in afresh
    // on every compile (docs/NOTES.md, compile speed).
    size_t MaxAdded = 0;
    for (const Inst &I : B->Insts)
      MaxAdded += 4 * TouchedBy(I).size();
    std::vector<Inst> Out;
    Out.reserve(B->Insts.size() + MaxAdded);
    for (Inst &I : B->Insts) {
      // The single def of a rematerialized vreg goes; each use recomputes it.
      if (any_of(I.Ops, [&](const Operand &O) { return O.isReg() && O.IsDef && IsRematted(O.R); }))
        continue;
      SmallVector<Reg, 4> Touched = TouchedBy(I);
      SmallVector<Inst, 2> Before, After;
      for (Reg V : Touched) {
        bool Uses = any_of(I.Ops, [&](const Operand &O) { return O.isReg() && !O.IsDef && O.R == V; });
        bool Defs = any_of(I.Ops, [&](const Operand &O) { return O.isReg() && O.IsDef && O.R == V; });
        Reg T = newTemp(V);
        const VRegFacts &VF = Facts[vregIndex(V)];
        if (VF.RematDef) {
          Inst Remat = RematDefOf.find(vregIndex(V))->second;
          for (Operand &O : Remat.Ops)
            if (O.isReg() && O.IsDef)
              O.R = T;
          Remat.IsSpillCode = true;
          Remat.Divergent = false;
          Remat.Loc = I.Loc;
          Before.push_back(std::move(Remat));
          ++Stats.Remats;
        } else {
          int64_t Off = slotOffset(SlotOf[vregIndex(V)]);
          // A whole-warp value's store writes all lanes of the register,
          // so a partial def of one needs its old value in the register.
          bool ReloadOldValue =
              Defs && (readsDestinationAsInput(I) || (I.PartialDef && VF.WholeWarp));
          if (Uses || ReloadOldValue) {
            appendReload(T, Off, VF.WholeWarp, I.Loc, Before);
            ++Stats.SpillReloads;
          } else if (Defs && I.PartialDef) {
            I.OldValueInSlot = true;
          }
          if (Defs) {
            appendStore(T, Off, VF.WholeWarp, I.Loc, After);
            ++Stats.SpillStores;
          }
        }
        for (Operand &O : I.Ops)
          if (O.isReg() && O.R == V)
            O.R = T;
      }
      if (!After.empty() && isTerminator(I))
        return createStringError(formatv("kernel '{0}': internal error in regalloc: bb.{1}: the "
                                         "terminator {2} defines a spilled register; nowhere to "
                                         "store it",
                                         Fn.Name, B->Name,
                                         mir::opcodeName(I.Opcode, mir::TargetKind::Simt)));
      for (Inst &X : Before)
        Out.push_back(std::move(X));
      Out.push_back(std::move(I));
      for (Inst &X : After)
        Out.push_back(std::move(X));
    }
    B->Insts = std::move(Out);
  }
  return Error::success();
}

void Allocator::rewrite(const std::vector<Reg> &Assigned) {
  for (auto &B : Fn.Blocks)
    for (Inst &I : B->Insts)
      for (Operand &O : I.Ops) {
        if (!O.isReg() || !mir::isVirtual(O.R))
          continue;
        unsigned V = vregIndex(O.R);
        assert(Assigned[V] != NoReg && "a vreg with an operand has an interval and a register");
        O.Orig = StandsFor[V];
        O.R = Assigned[V];
      }
}

/// Per block, bit = vreg index: some def of the vreg has run on every path
/// from the entry to the block's entry (forward dataflow, meet =
/// intersection; blocks no path reaches keep every bit).
std::vector<BitVector> definedOnEveryPath(const Function &Fn) {
  unsigned NB = Fn.Blocks.size(), NV = Fn.numVRegs();
  DenseMap<const Block *, unsigned> Index;
  for (unsigned B = 0; B < NB; ++B)
    Index[Fn.Blocks[B].get()] = B;
  std::vector<BitVector> Defs(NB, BitVector(NV));
  std::vector<SmallVector<unsigned, 2>> Succs(NB);
  for (unsigned B = 0; B < NB; ++B) {
    for (const Inst &I : Fn.Blocks[B]->Insts)
      for (const Operand &O : I.Ops)
        if (O.isReg() && O.IsDef && mir::isVirtual(O.R))
          Defs[B].set(vregIndex(O.R));
    for (const Block *S : mir::successors(Fn, *Fn.Blocks[B]))
      Succs[B].push_back(Index.lookup(S));
  }
  std::vector<BitVector> In(NB, BitVector(NV, true));
  if (NB)
    In[0].reset();
  BitVector Out;
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (unsigned B = 0; B < NB; ++B) {
      Out = In[B];
      Out |= Defs[B];
      for (unsigned S : Succs[B])
        if (S != 0 && Out != In[S]) {
          BitVector Met = In[S];
          Met &= Out;
          if (Met != In[S]) {
            In[S] = std::move(Met);
            Changed = true;
          }
        }
    }
  }
  return In;
}

void Allocator::recordFirstPartialDefs(const Liveness &L, const std::vector<Reg> &Assigned) {
  unsigned NB = Fn.Blocks.size(), NV = Fn.numVRegs();
  FirstPartialDefs.clear();
  // A PartialDef is first where its vreg is undefined on some path to it:
  // also one whose old value is live from another path (a loop's back
  // edge), so Liveness alone does not tell.
  std::vector<BitVector> Defined = definedOnEveryPath(Fn);
  for (unsigned B = 0; B < NB; ++B) {
    const Block &Blk = *Fn.Blocks[B];
    BitVector &DefinedHere = Defined[B];
    for (size_t K = 0; K < Blk.Insts.size(); ++K) {
      const Inst &I = Blk.Insts[K];
      if (!defReadsOldValue(I) && !I.OldValueInSlot) {
        for (const Operand &O : I.Ops)
          if (O.isReg() && O.IsDef && mir::isVirtual(O.R))
            DefinedHere.set(vregIndex(O.R));
        continue;
      }
      bool Identity = I.Opcode == mir::COPY && mir::isVirtual(I.Ops[0].R) &&
                      mir::isVirtual(I.Ops[1].R) &&
                      Assigned[vregIndex(I.Ops[0].R)] == Assigned[vregIndex(I.Ops[1].R)];
      unsigned G = L.BlockStart[B] + K;
      for (const Operand &O : I.Ops)
        if (O.isReg() && O.IsDef && mir::isVirtual(O.R)) {
          unsigned V = vregIndex(O.R);
          if (!L.Intervals[V].covers(2 * G) || !DefinedHere.test(V))
            FirstPartialDefs.push_back({vregIndex(StandsFor[V]), B, unsigned(K), Identity});
          DefinedHere.set(V);
        }
    }
  }
  StandsForDefinedIn.clear();
  if (FirstPartialDefs.empty())
    return; // removeIdentityCopies will not ask
  StandsForDefinedIn.assign(NB, BitVector(NV));
  for (unsigned B = 0; B < NB; ++B)
    for (unsigned V : L.MaybeDefIn[B].set_bits())
      StandsForDefinedIn[B].set(vregIndex(StandsFor[V]));
}

/// Deletes COPYs whose source and destination share a register. Those two
/// vregs never overlap (else they could not share it), so from here on they
/// are one value: their Orig labels are merged so checkAllocation still
/// proves the function without the COPY. Spill temporaries never take part
/// (pickFreeRegister keeps them apart), so each merged class lives in one
/// register.
///
/// One exception keeps a COPY: when a member of one class has a PartialDef
/// that no def of it reaches (its old value is nothing, so its register
/// was free before it) while a member of the other class may be defined
/// there. Merged, the class would count as defined at that PartialDef, and
/// the checker would rightly ask its register to hold the class's value.
bool Allocator::removeIdentityCopies() {
  unsigned NV = Fn.numVRegs();
  std::vector<unsigned> Parent(NV);
  std::vector<SmallVector<unsigned, 2>> Members(NV);
  for (unsigned V = 0; V < NV; ++V) {
    Parent[V] = V;
    Members[V].push_back(V);
  }
  std::vector<SmallVector<const FirstPartialDef *, 1>> FirstPartialsOf(NV);
  for (const FirstPartialDef &P : FirstPartialDefs)
    FirstPartialsOf[P.VReg].push_back(&P);
  auto Find = [&](unsigned V) {
    while (Parent[V] != V)
      V = Parent[V] = Parent[Parent[V]];
    return V;
  };
  // Decide first (indices stay put), then erase.
  std::vector<SmallVector<unsigned, 4>> Doomed(Fn.Blocks.size());
  // A first PartialDef that is an identity COPY already deleted (or the one
  // being decided, (CurB, CurK)) asks nothing of the final form.
  auto Gone = [&](const FirstPartialDef &P, unsigned CurB, unsigned CurK) {
    if (P.Block == CurB && P.Index == CurK)
      return true;
    return P.IdentityCopy && llvm::binary_search(Doomed[P.Block], P.Index);
  };
  // May a member of C be defined at a first PartialDef of a member of A?
  auto Clashes = [&](unsigned A, unsigned C, unsigned CurB, unsigned CurK) {
    for (unsigned U : Members[A])
      for (const FirstPartialDef *P : FirstPartialsOf[U]) {
        if (Gone(*P, CurB, CurK))
          continue;
        for (unsigned W : Members[C]) {
          if (StandsForDefinedIn[P->Block].test(W))
            return true;
          const auto &Insts = Fn.Blocks[P->Block]->Insts;
          for (unsigned K = 0; K < P->Index; ++K)
            for (const Operand &O : Insts[K].Ops)
              if (O.isReg() && O.IsDef && O.Orig == vregOf(W))
                return true;
        }
      }
    return false;
  };
  for (unsigned B = 0; B < Fn.Blocks.size(); ++B) {
    const auto &Insts = Fn.Blocks[B]->Insts;
    for (unsigned K = 0; K < Insts.size(); ++K) {
      const Inst &I = Insts[K];
      if (I.Opcode != mir::COPY || I.Ops[0].R != I.Ops[1].R)
        continue;
      if (I.Ops[0].Orig != NoReg && I.Ops[1].Orig != NoReg) {
        unsigned A = Find(vregIndex(I.Ops[0].Orig)), C = Find(vregIndex(I.Ops[1].Orig));
        if (A != C) {
          if (Clashes(A, C, B, K) || Clashes(C, A, B, K))
            continue;
          unsigned Root = std::min(A, C), Other = std::max(A, C);
          Parent[Other] = Root;
          Members[Root].append(Members[Other].begin(), Members[Other].end());
          Members[Other].clear();
        }
      }
      Doomed[B].push_back(K);
    }
  }
  bool Removed = false;
  for (unsigned B = 0; B < Fn.Blocks.size(); ++B) {
    if (Doomed[B].empty())
      continue;
    auto &Insts = Fn.Blocks[B]->Insts;
    std::vector<Inst> Kept;
    Kept.reserve(Insts.size() - Doomed[B].size());
    for (unsigned K = 0, D = 0; K < Insts.size(); ++K) {
      if (D < Doomed[B].size() && Doomed[B][D] == K) {
        ++D;
        continue;
      }
      Kept.push_back(std::move(Insts[K]));
    }
    Insts = std::move(Kept);
    Removed = true;
  }
  if (!Removed)
    return false;
  for (auto &B : Fn.Blocks)
    for (Inst &I : B->Insts)
      for (Operand &O : I.Ops)
        if (O.isReg() && mir::isVirtual(O.Orig))
          O.Orig = vregOf(Find(vregIndex(O.Orig)));
  return true;
}

/// Spill-everywhere reloads before every use, even one right after the
/// spill store, while the value is still in the register it was stored
/// from. Within a block, after a lane-masked spill store `st.local.u32
/// [r0 + S], rX` or reload `ld.local.u32 rX, [r0 + S]`, a lane-masked
/// reload `ld.local.u32 rY, [r0 + S]` reads what rX holds in every active
/// lane as long as, in between, rX is not written, slot S not stored again
/// and the exec mask not touched (a mask op could activate lanes the store
/// did not write). The reload is then deleted (rY is rX) or becomes `COPY
/// rY, rX`, an ALU op instead of a memory access on the LSU, which is this
/// machine's bottleneck. Not forwarded: all-lanes spill code (whole-warp
/// values: a COPY moves only the active lanes), a store right after an
/// OldValueInSlot def (its register holds the value only in the lanes the
/// def wrote), and anything across a block boundary. Any other local store
/// to [r0 + imm] forgets the slots it overlaps; one through another base
/// register forgets every slot. FirstPartialDefs' instruction indices follow
/// the instructions they name (a deleted reload shifts those after it).
void Allocator::forwardSpilledValues() {
  if (NumSlots == 0)
    return; // nothing was spilled: no reloads to forward
  const unsigned LoadOpc = opc(simt::Opcode::LOCAL_LD_U32);
  const unsigned StoreOpc = opc(simt::Opcode::LOCAL_ST_U32);
  constexpr unsigned Deleted = ~0u;
  for (unsigned BI = 0; BI < Fn.Blocks.size(); ++BI) {
    auto &B = Fn.Blocks[BI];
    // Where instruction K of the block ends up; Deleted if it does not.
    std::vector<unsigned> NewIndex(B->Insts.size(), Deleted);
    DenseMap<int64_t, Reg> InRegister; // slot offset -> register holding it
    auto Forget = [&](Reg R) {
      for (auto It = InRegister.begin(); It != InRegister.end();) {
        auto Cur = It++;
        if (Cur->second == R)
          InRegister.erase(Cur);
      }
    };
    std::vector<Inst> Out;
    Out.reserve(B->Insts.size());
    for (size_t K = 0; K < B->Insts.size(); ++K) {
      Inst &I = B->Insts[K];
      // Each instruction is kept, replaced by one COPY, or deleted below;
      // the first two land here.
      NewIndex[K] = Out.size();
      const simt::InstrDesc *D =
          mir::isPseudo(I.Opcode) ? nullptr : &simt::getDesc(simt::Opcode(I.Opcode));
      bool SpillAtR0 = I.IsSpillCode && I.Ops.size() == 3 &&
                       (I.Opcode == LoadOpc ? I.Ops[1] : I.Ops[0]).R == 0;
      if (SpillAtR0 && I.Opcode == LoadOpc) {
        int64_t Slot = I.Ops[2].Imm;
        Reg To = I.Ops[0].R;
        auto It = InRegister.find(Slot);
        if (It != InRegister.end()) {
          --Stats.SpillReloads;
          ++Stats.ReloadsForwarded;
          if (It->second == To) {
            NewIndex[K] = Deleted;
            continue; // the value is already there
          }
          Inst Copy(mir::COPY, {Operand::def(To), Operand::use(It->second)});
          Copy.Ops[0].Orig = I.Ops[0].Orig;
          Copy.Ops[1].Orig = I.Ops[0].Orig;
          Copy.IsSpillCode = true;
          Copy.Loc = I.Loc;
          Forget(To);
          Out.push_back(std::move(Copy));
          continue;
        }
        Forget(To);
        InRegister[Slot] = To;
        Out.push_back(std::move(I));
        continue;
      }
      if (SpillAtR0 && I.Opcode == StoreOpc) {
        int64_t Slot = I.Ops[1].Imm;
        bool AfterOldValueInSlotDef =
            !Out.empty() && Out.back().OldValueInSlot &&
            any_of(Out.back().Ops,
                   [&](const Operand &O) { return O.isReg() && O.IsDef && O.R == I.Ops[2].R; });
        if (AfterOldValueInSlotDef || I.Ops[2].R == 0)
          InRegister.erase(Slot);
        else
          InRegister[Slot] = I.Ops[2].R;
        Out.push_back(std::move(I));
        continue;
      }
      if (D && (D->Flags & simt::IsMaskOp))
        InRegister.clear();
      if (D && (D->Flags & simt::IsStore) && D->Space == simt::MemSpace::Local) {
        // Which operand is the base depends on the form; any local store
        // not recognised above may alias a slot.
        const Operand &Base = I.Ops[0];
        if (Base.isReg() && Base.R == 0 && I.Ops.size() > 1 && I.Ops[1].isImm()) {
          int64_t At = I.Ops[1].Imm;
          for (auto It = InRegister.begin(); It != InRegister.end();) {
            auto Cur = It++;
            if (Cur->first < At + std::max<int64_t>(D->AccessBytes, 1) && At < Cur->first + 4)
              InRegister.erase(Cur);
          }
        } else {
          InRegister.clear();
        }
      }
      if (D && (D->Flags & simt::IsAtomic) && D->Space == simt::MemSpace::Local)
        InRegister.clear();
      for (const Operand &O : I.Ops)
        if (O.isReg() && O.IsDef)
          Forget(O.R);
      Out.push_back(std::move(I));
    }
    B->Insts = std::move(Out);
    for (FirstPartialDef &P : FirstPartialDefs)
      if (P.Block == BI)
        P.Index = NewIndex[P.Index];
  }
  // A deleted reload is nobody's first PartialDef any more.
  llvm::erase_if(FirstPartialDefs, [&](const FirstPartialDef &P) { return P.Index == Deleted; });
}

void Allocator::fillStats() {
  Reg Highest = 0;
  for (const auto &B : Fn.Blocks)
    for (const Inst &I : B->Insts)
      for (const Operand &O : I.Ops)
        if (O.isReg() && mir::isPhysical(O.R))
          Highest = std::max(Highest, O.R);
  Stats.RegistersUsed = Highest + 1;
  Stats.SpillSlots = NumSlots;
  Stats.SpillBytes = 4 * NumSlots;
  Fn.Stats = Stats;
  if (NumSlots > 0)
    Fn.LocalBytes = SpillBase + 4 * NumSlots;
}

/// Input the allocator cannot handle is a bug in an earlier stage; say so
/// instead of producing a wrong allocation.
Error checkInput(const Function &Fn, const RegAllocOptions &Opts) {
  if (Opts.NumRegisters < 2 || Opts.NumRegisters > simt::NumEncodableGPRs)
    return createStringError(formatv("kernel '{0}': `registers` = {1}: register allocation needs "
                                     "between 2 and {2} registers (r0 is the zero register)",
                                     Fn.Name, Opts.NumRegisters, simt::NumEncodableGPRs));
  for (const auto &B : Fn.Blocks)
    for (size_t K = 0; K < B->Insts.size(); ++K)
      for (const Operand &O : B->Insts[K].Ops) {
        if (!O.isReg())
          continue;
        if (O.R == NoReg || (mir::isVirtual(O.R) && vregIndex(O.R) >= Fn.numVRegs()))
          return createStringError(formatv("kernel '{0}': internal error before regalloc: bb.{1}, "
                                           "instruction {2}: invalid register operand",
                                           Fn.Name, B->Name, K));
        if (mir::isPhysical(O.R) && O.R != 0)
          return createStringError(formatv("kernel '{0}': internal error before regalloc: bb.{1}, "
                                           "instruction {2}: physical register r{3} before "
                                           "allocation (only the zero register r0 may appear)",
                                           Fn.Name, B->Name, K, O.R));
      }
  return Error::success();
}

Error Allocator::run() {
  if (Error E = checkInput(Fn, Opts))
    return E;
  for (unsigned Round = 0;; ++Round) {
    if (Round == MaxRounds)
      return createStringError(formatv("kernel '{0}': register allocation did not converge after {1} "
                                       "spill rounds (internal error); use a configuration with more "
                                       "registers",
                                       Fn.Name, MaxRounds));
    Liveness L = computeLiveness(Fn);
    std::vector<VRegFacts> Facts = computeFacts(L);
    std::vector<unsigned> Spilled;
    Expected<std::vector<Reg>> Assigned = assign(L, Facts, Spilled);
    if (!Assigned)
      return Assigned.takeError();
    if (Spilled.empty()) {
      recordFirstPartialDefs(L, *Assigned);
      rewrite(*Assigned);
      break;
    }
    if (Error E = insertSpillCode(Spilled, Facts))
      return E;
  }
  forwardSpilledValues();
  // Check with the identity COPYs still present (the strongest evidence),
  // then again on the final form others will see, unless removing them
  // changed nothing (then the final form is the one just proved).
  if (Opts.Check)
    if (Error E = checkAllocation(Fn))
      return E;
  bool Changed = removeIdentityCopies();
  fillStats();
  if (Opts.Check && Changed)
    return checkAllocation(Fn);
  return Error::success();
}

} // namespace

Error allocateRegisters(Function &Fn, const RegAllocOptions &Opts) {
  Allocator A(Fn, Opts);
  return A.run();
}

} // namespace tandem::regalloc
