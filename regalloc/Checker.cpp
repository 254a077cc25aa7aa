//===- Checker.cpp - proves a register allocation correct -----------------===//
//
// Input: MIR after register allocation: register operands physical, each
// (except the zero register r0) with Operand::Orig naming the vreg it
// stands for; spill code marked IsSpillCode (`ld.local.u32 rd, [r0 + off]`
// reloads, `st.local.u32 [r0 + off], rs` stores, or their all-lanes forms
// `ld.local.all.u32`/`st.local.all.u32`, either also as `[rA + imm]` right
// after the spill code `li rA, base` for far slots, anything else a
// rematerialization whose def stands for the vreg it recomputes).
// Guarantees: success only if every read of a register or spill slot finds
// the vreg it stands for there on every path, in the spirit of regalloc2's
// checker.rs.
//
// Abstract state: for each location (the registers in use and each spill
// slot) the set of vregs whose current value it may be said to hold, as one
// bit matrix per program point (columns: only the vregs some operand stands
// for, so spill temporaries cost nothing). Forward dataflow, meet =
// intersection (a location holds v after a join only if, on every incoming
// path, it holds v or v is undefined there). Each state also has the set of
// vregs no def has reached on this path (all of them at entry): such a vreg
// has no value yet, and any location is as good as another for "no value",
// so a read of it passes anywhere. That one rule also covers a PartialDef
// that is the first def of its vreg on a path (its "old value" is nothing
// yet), which is why regalloc's liveness does not keep such vregs live
// before their first def (Liveness.h).
//
// Transfer of one instruction:
//   - every use of rN standing for v requires v in rN (r0 is not checked);
//   - a def of v into rN: v is removed from every location (it has a new
//     value; stale copies no longer hold it) and is defined from here on,
//     then rN := {v};
//   - a PartialDef (or movt, which reads rd) first requires v in rN: the
//     lanes it does not write keep the old value, which must be v's. One
//     marked OldValueInSlot (a spilled PartialDef) requires v in the slot
//     its spill store right after writes instead: that store, under the same
//     exec mask, writes only the lanes the def wrote. After the store the
//     register holds v only in those lanes, so it is cleared;
//   - COPY rD(d) <- rS(s): rD := rS's set plus d (both hold the same bits),
//     after removing d elsewhere; a PartialDef COPY writes only some lanes,
//     so rD := {d};
//   - spill store to slot: slot := the register's set; spill reload from
//     slot for v: requires v in slot, then rN := slot's set;
//   - rematerialization of v into rN: rN := {v} (the same value v already
//     has, so other copies of v stay valid).
// The state is lane-agnostic: spill code runs under the exec mask of the
// instruction it serves, so the lanes it moves are the lanes that matter.
// The exception is a whole-warp value (an exec mask: written by emask.get,
// which writes all 32 lanes, or read by emask.set, which reads lane 0
// whether it is active or not): every spill store, reload or
// rematerialization of one must be an all-lanes access, checked per
// instruction (not part of the state).
//
//===----------------------------------------------------------------------===//

#include "regalloc/RegAlloc.h"

#include "regalloc/Liveness.h"

#include "ISA.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <optional>
#include <vector>

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

unsigned opc(simt::Opcode O) { return static_cast<unsigned>(O); }

/// The spill slot byte offset \p I accesses, if it is a spill reload
/// (\p Store false) or store (true): `[r0 + off]`, or `[rA + imm]` right
/// after the spill code `li rA, base` that addresses a far slot.
std::optional<int64_t> spillSlot(const Inst &I, const Inst *Prev, bool Store) {
  simt::Opcode Masked = Store ? simt::Opcode::LOCAL_ST_U32 : simt::Opcode::LOCAL_LD_U32;
  simt::Opcode Whole = Store ? simt::Opcode::LOCAL_ST_ALL_U32 : simt::Opcode::LOCAL_LD_ALL_U32;
  unsigned BaseOp = Store ? 0 : 1;
  if (!I.IsSpillCode || (I.Opcode != opc(Masked) && I.Opcode != opc(Whole)) ||
      I.Ops.size() != 3 || !I.Ops[BaseOp].isReg() || !I.Ops[BaseOp + 1].isImm())
    return std::nullopt;
  Reg Base = I.Ops[BaseOp].R;
  int64_t Imm = I.Ops[BaseOp + 1].Imm;
  if (Base == 0)
    return Imm;
  if (Prev && Prev->IsSpillCode && Prev->Opcode == mir::LI && Prev->Ops.size() == 2 &&
      Prev->Ops[0].isReg() && Prev->Ops[0].R == Base && Prev->Ops[1].isImm())
    return Prev->Ops[1].Imm + Imm;
  return std::nullopt;
}

/// Per location, the vregs it may hold: one flat bit matrix, row = location,
/// column = dense vreg id (only vregs some operand stands for get an id, so
/// the rows stay short even after spilling made many temporaries). A single
/// allocation per state keeps copies and joins cheap.
class State {
public:
  State() = default;
  /// The entry state: no location holds anything, every vreg is undefined.
  State(unsigned Locations, unsigned Words, unsigned NumVRegs)
      : Words(Words), Bits(size_t(Locations) * Words, 0), Undef(Words, ~uint64_t(0)) {
    if (NumVRegs % 64) // columns past the last vreg stay clear
      Undef[Words - 1] = (uint64_t(1) << (NumVRegs % 64)) - 1;
  }

  /// Location \p Loc may be read for v: it holds v, or v has no value yet.
  bool test(unsigned Loc, unsigned V) const { return inRow(Loc, V) || isUndef(V); }
  bool inRow(unsigned Loc, unsigned V) const { return row(Loc)[V / 64] >> (V % 64) & 1; }
  bool isUndef(unsigned V) const { return Undef[V / 64] >> (V % 64) & 1; }
  void assignRow(unsigned Dst, unsigned Src) {
    if (Dst != Src)
      std::copy_n(row(Src), Words, row(Dst));
  }
  void clearRow(unsigned Loc) { std::fill_n(row(Loc), Words, 0); }
  void orRow(unsigned Dst, const uint64_t *Src) {
    for (unsigned W = 0; W < Words; ++W)
      row(Dst)[W] |= Src[W];
  }
  void set(unsigned Loc, unsigned V) { row(Loc)[V / 64] |= uint64_t(1) << (V % 64); }
  /// v has a new value: it is defined, and no location holds the old one.
  void forget(unsigned V) {
    uint64_t Mask = ~(uint64_t(1) << (V % 64));
    Undef[V / 64] &= Mask;
    for (size_t I = V / 64; I < Bits.size(); I += Words)
      Bits[I] &= Mask;
  }
  /// Meet: a location may be read for v after the join if, on each incoming
  /// path, it holds v or v is undefined there.
  void intersect(const State &O) {
    for (size_t I = 0; I < Bits.size(); ++I) {
      size_t W = I % Words;
      Bits[I] = (Bits[I] | Undef[W]) & (O.Bits[I] | O.Undef[W]);
    }
    for (unsigned W = 0; W < Words; ++W)
      Undef[W] &= O.Undef[W];
  }
  const uint64_t *row(unsigned Loc) const { return Bits.data() + size_t(Loc) * Words; }
  uint64_t *row(unsigned Loc) { return Bits.data() + size_t(Loc) * Words; }
  bool operator==(const State &O) const { return Bits == O.Bits && Undef == O.Undef; }
  bool operator!=(const State &O) const { return !(*this == O); }

private:
  unsigned Words = 0;
  std::vector<uint64_t> Bits;
  /// Vregs no def has reached on this path: any location may stand for
  /// them (their value is anything).
  std::vector<uint64_t> Undef;
};

class Checker {
public:
  explicit Checker(const Function &Fn) : Fn(Fn) {}
  Error run();

private:
  const Function &Fn;
  /// Dense id of each vreg some operand stands for (Operand::Orig), and back.
  std::vector<unsigned> DenseId; ///< by vreg index; ~0u: no operand stands for it
  std::vector<Reg> VRegOfId;
  unsigned Words = 0;
  /// Registers r0..r(NumRegLocations - 1) in use are the first locations.
  unsigned NumRegLocations = 1;
  /// Spill slot byte offset -> location index (after the registers).
  DenseMap<int64_t, unsigned> SlotLocation;
  unsigned NumLocations = 0;
  /// By dense id: the vreg needs all 32 lanes kept (an exec mask).
  BitVector WholeWarp;

  /// Where the current instruction is, for messages.
  struct Where {
    const Block *B = nullptr;
    size_t Index = 0;
    const Inst *I = nullptr;
  };

  void collectVRegsAndRegisters();
  void collectWholeWarpValues();
  void collectSlots();
  /// A whole-warp value moved by a lane-masked access (or recomputed)
  /// loses its inactive lanes.
  Error checkMovesAllLanes(const Inst &I, const Operand &Moved, const Where &W,
                           const Twine &What) const;
  State entryState() const;
  unsigned idOf(Reg Orig) const { return DenseId[Orig - VirtRegBase]; }
  /// Applies \p I to \p S. With \p W, the first violated requirement is
  /// returned as an error; without, violations are ignored (fixpoint
  /// iteration only needs the states).
  Error transfer(State &S, ArrayRef<Inst> Insts, size_t K, const Where *W) const;
  Error structuralCheck(const Inst &I, const Where &W) const;
  Error fail(const Where &W, const Twine &Msg) const;
  std::string describeHeld(const State &S, unsigned Loc) const;
  std::string vregName(Reg V) const;
  Error require(const State &S, unsigned Loc, Reg V, const Where *W, const Twine &LocName) const;
  static void define(State &S, unsigned Loc, unsigned V);
  std::string locationName(unsigned Loc) const;
};

void Checker::collectVRegsAndRegisters() {
  // structuralCheck has made sure every Orig here is a valid vreg.
  DenseId.assign(Fn.numVRegs(), ~0u);
  for (const auto &B : Fn.Blocks)
    for (const Inst &I : B->Insts)
      for (const Operand &O : I.Ops) {
        if (!O.isReg() || O.R == 0)
          continue;
        NumRegLocations = std::max<unsigned>(NumRegLocations, O.R + 1);
        unsigned &Id = DenseId[O.Orig - VirtRegBase];
        if (Id == ~0u) {
          Id = VRegOfId.size();
          VRegOfId.push_back(O.Orig);
        }
      }
  Words = std::max<unsigned>(1, (VRegOfId.size() + 63) / 64);
  NumLocations = NumRegLocations;
}

void Checker::collectWholeWarpValues() {
  WholeWarp.resize(VRegOfId.size());
  for (const auto &B : Fn.Blocks)
    for (const Inst &I : B->Insts) {
      if (I.IsSpillCode)
        continue;
      for (const Operand &O : I.Ops)
        if (O.isReg() && O.R != 0 && makesWholeWarp(I, O))
          WholeWarp.set(idOf(O.Orig));
    }
}

Error Checker::checkMovesAllLanes(const Inst &I, const Operand &Moved, const Where &W,
                                  const Twine &What) const {
  const simt::InstrDesc *D = mir::simtDescOf(I);
  if (Moved.R == 0 || !WholeWarp.test(idOf(Moved.Orig)) || (D && D->has(simt::AllLanes)))
    return Error::success();
  return fail(W, What + " of " + vregName(Moved.Orig) +
                     ", an exec-mask value, moves only the active lanes; it needs "
                     "ld.local.all.u32/st.local.all.u32 (emask.set reads lane 0, active "
                     "or not)");
}

State Checker::entryState() const { return State(NumLocations, Words, VRegOfId.size()); }

void Checker::collectSlots() {
  for (const auto &B : Fn.Blocks)
    for (size_t K = 0; K < B->Insts.size(); ++K) {
      const Inst *Prev = K ? &B->Insts[K - 1] : nullptr;
      std::optional<int64_t> Off = spillSlot(B->Insts[K], Prev, /*Store=*/false);
      if (!Off)
        Off = spillSlot(B->Insts[K], Prev, /*Store=*/true);
      if (Off && !SlotLocation.count(*Off))
        SlotLocation[*Off] = NumLocations++;
    }
}

std::string Checker::vregName(Reg V) const {
  std::string S = formatv("%v{0}", V - VirtRegBase).str();
  if (V - VirtRegBase < Fn.numVRegs() && !Fn.info(V).Name.empty())
    S += " (" + Fn.info(V).Name + ")";
  return S;
}

std::string Checker::locationName(unsigned Loc) const {
  if (Loc < NumRegLocations)
    return formatv("r{0}", Loc).str();
  for (const auto &[Off, L] : SlotLocation)
    if (L == Loc)
      return formatv("spill slot [r0 + {0}]", Off).str();
  return "?";
}

std::string Checker::describeHeld(const State &S, unsigned Loc) const {
  SmallVector<unsigned, 8> Held;
  for (unsigned V = 0; V < VRegOfId.size(); ++V)
    if (S.inRow(Loc, V))
      Held.push_back(V);
  if (Held.empty())
    return "no value any use may read there";
  std::string Out = "only ";
  for (unsigned K = 0; K < Held.size(); ++K) {
    if (K == 4) {
      Out += formatv(" and {0} more", Held.size() - K).str();
      break;
    }
    Out += (K ? ", " : "") + vregName(VRegOfId[Held[K]]);
  }
  return Out;
}

Error Checker::fail(const Where &W, const Twine &Msg) const {
  std::string Loc = W.I->Loc.empty() ? "" : (" at " + W.I->Loc).str();
  return createStringError(formatv("kernel '{0}': allocation check failed: bb.{1}, instruction {2} "
                                   "({3}){4}: {5}",
                                   Fn.Name, W.B->Name, W.Index,
                                   mir::opcodeName(W.I->Opcode, mir::TargetKind::Simt), Loc, Msg.str())
                               .str());
}

Error Checker::require(const State &S, unsigned Loc, Reg V, const Where *W, const Twine &Why) const {
  if (!W || S.test(Loc, idOf(V)))
    return Error::success();
  return fail(*W, Twine(Why) + ": " + locationName(Loc) + " should hold " + vregName(V) +
                      " but may hold " + describeHeld(S, Loc));
}

void Checker::define(State &S, unsigned Loc, unsigned V) {
  S.forget(V);
  S.clearRow(Loc);
  S.set(Loc, V);
}

Error Checker::structuralCheck(const Inst &I, const Where &W) const {
  for (const Operand &O : I.Ops) {
    if (!O.isReg())
      continue;
    if (mir::isVirtual(O.R))
      return fail(W, "operand is still a virtual register %v" + Twine(O.R - VirtRegBase));
    if (O.R >= simt::NumEncodableGPRs)
      return fail(W, "register r" + Twine(O.R) + " cannot be encoded");
    if (O.R == 0)
      continue;
    if (!mir::isVirtual(O.Orig) || O.Orig - VirtRegBase >= Fn.numVRegs())
      return fail(W, "r" + Twine(O.R) + " does not say which vreg it stands for (Operand::Orig)");
  }
  return Error::success();
}

/// The slot \p I's spill code stores register \p R to right after \p I (a
/// far slot's `li` may come first), if it does.
std::optional<int64_t> slotStoredRightAfter(const Inst &I, ArrayRef<Inst> After, Reg R) {
  const Inst *Prev = &I;
  for (const Inst &Next : After.take_front(2)) {
    if (!Next.IsSpillCode)
      return std::nullopt;
    if (std::optional<int64_t> Off = spillSlot(Next, Prev, /*Store=*/true))
      return Next.Ops[2].R == R ? Off : std::nullopt;
    Prev = &Next;
  }
  return std::nullopt;
}

/// Whether the spill store \p Store (after \p Prev) saves the register an
/// OldValueInSlot def right before it wrote, which then holds the value
/// only in the lanes that def wrote.
bool storesAnOldValueInSlotDef(const Inst &Store, const Inst *Prev, const Inst *PrevPrev) {
  const Inst *Def = Prev && Prev->IsSpillCode && Prev->Opcode == mir::LI ? PrevPrev : Prev;
  if (!Def || !Def->OldValueInSlot)
    return false;
  Reg Saved = Store.Ops[2].R;
  return llvm::any_of(Def->Ops,
                      [&](const Operand &O) { return O.isReg() && O.IsDef && O.R == Saved; });
}

Error Checker::transfer(State &S, ArrayRef<Inst> Insts, size_t K, const Where *W) const {
  const Inst &I = Insts[K];
  const Inst *Prev = K ? &Insts[K - 1] : nullptr;
  const Inst *PrevPrev = K > 1 ? &Insts[K - 2] : nullptr;
  if (std::optional<int64_t> Off = spillSlot(I, Prev, /*Store=*/false)) {
    const Operand &Dst = I.Ops[0];
    unsigned Slot = SlotLocation.lookup(*Off);
    if (Dst.R == 0)
      return Error::success();
    if (W)
      if (Error E = checkMovesAllLanes(I, Dst, *W, "spill reload"))
        return E;
    if (Error E = require(S, Slot, Dst.Orig, W, "spill reload"))
      return E;
    S.assignRow(Dst.R, Slot);
    return Error::success();
  }
  if (std::optional<int64_t> Off = spillSlot(I, Prev, /*Store=*/true)) {
    const Operand &Src = I.Ops[2];
    unsigned Slot = SlotLocation.lookup(*Off);
    if (Src.R == 0) {
      S.clearRow(Slot);
      return Error::success();
    }
    if (Error E = require(S, Src.R, Src.Orig, W, "spill store"))
      return E;
    if (W)
      if (Error E = checkMovesAllLanes(I, Src, *W, "spill store"))
        return E;
    S.assignRow(Slot, Src.R);
    // The slot now holds the value in every lane, the register only in the
    // lanes an OldValueInSlot def wrote: it no longer counts as holding it.
    if (storesAnOldValueInSlotDef(I, Prev, PrevPrev))
      S.clearRow(Src.R);
    return Error::success();
  }
  for (const Operand &O : I.Ops)
    if (O.isReg() && !O.IsDef && O.R != 0)
      if (Error E = require(S, O.R, O.Orig, W, "use"))
        return E;
  bool ReadsOld = defReadsOldValue(I);
  for (const Operand &O : I.Ops) {
    if (!O.isReg() || !O.IsDef || O.R == 0)
      continue;
    unsigned V = idOf(O.Orig);
    if (ReadsOld)
      if (Error E = require(S, O.R, O.Orig, W,
                            "partial def (the lanes it does not write keep the old value)"))
        return E;
    if (I.OldValueInSlot) {
      // The lanes it does not write keep the old value in the slot its
      // spill store (same exec mask) writes right after.
      std::optional<int64_t> Off = slotStoredRightAfter(I, Insts.drop_front(K + 1), O.R);
      if (!Off)
        return W ? fail(*W, formatv("partial def marked old-value-in-slot is not followed by a "
                                    "spill store of r{0}",
                                    O.R))
                 : Error::success();
      if (Error E = require(S, SlotLocation.lookup(*Off), O.Orig, W,
                            "partial def of a spilled value (its slot keeps the old value in "
                            "the lanes it does not write)"))
        return E;
    }
    if (I.IsSpillCode) { // rematerialization: the same value v already has
      if (W)
        if (Error E = checkMovesAllLanes(I, O, *W, "rematerialization"))
          return E;
      S.clearRow(O.R);
      S.set(O.R, V);
      continue;
    }
    if (I.Opcode == mir::COPY && !I.PartialDef) {
      const Operand &Src = I.Ops[1];
      SmallVector<uint64_t, 8> Copied(Words, 0);
      if (Src.R != 0)
        std::copy_n(S.row(Src.R), Words, Copied.begin());
      define(S, O.R, V);
      S.orRow(O.R, Copied.data());
      continue;
    }
    define(S, O.R, V);
  }
  return Error::success();
}

Error Checker::run() {
  // Operands the dataflow cannot interpret are reported first, so the
  // transfer function may assume every register operand is well formed.
  for (const auto &B : Fn.Blocks)
    for (size_t K = 0; K < B->Insts.size(); ++K)
      if (Error E = structuralCheck(B->Insts[K], Where{B.get(), K, &B->Insts[K]}))
        return E;
  collectVRegsAndRegisters();
  collectWholeWarpValues();
  collectSlots();
  unsigned NB = Fn.Blocks.size();
  DenseMap<const Block *, unsigned> Index;
  for (unsigned B = 0; B < NB; ++B)
    Index[Fn.Blocks[B].get()] = B;
  std::vector<SmallVector<unsigned, 2>> Preds(NB), Succs(NB);
  for (unsigned B = 0; B < NB; ++B)
    for (const Block *S : mir::successors(Fn, *Fn.Blocks[B])) {
      Preds[Index.lookup(S)].push_back(B);
      Succs[B].push_back(Index.lookup(S));
    }

  // Optimistic fixpoint: states only shrink, unreached blocks stay out.
  // Only blocks whose predecessors' exit states changed are revisited; a
  // sweep in layout order settles straight-line and if/else code at once.
  // Each visit checks as it goes and keeps the block's first violation;
  // a revisit replaces it. When nothing changes any more, every block's
  // last visit saw its final entry state, so the kept violations are
  // exactly those of a separate checking pass, without paying for one.
  std::vector<std::optional<State>> Out(NB);
  std::vector<std::optional<Error>> Violation(NB);
  BitVector Dirty(NB);
  if (NB)
    Dirty.set(0);
  while (Dirty.any()) {
    for (unsigned B = 0; B < NB; ++B) {
      if (!Dirty.test(B))
        continue;
      Dirty.reset(B);
      std::optional<State> Entry;
      if (B == 0)
        Entry = entryState();
      for (unsigned P : Preds[B]) {
        if (!Out[P])
          continue;
        if (!Entry)
          Entry = *Out[P];
        else
          Entry->intersect(*Out[P]);
      }
      if (!Entry)
        continue;
      State &S = *Entry;
      const Block &Blk = *Fn.Blocks[B];
      if (Violation[B])
        consumeError(std::move(*Violation[B]));
      Violation[B].reset();
      for (size_t K = 0; K < Blk.Insts.size(); ++K) {
        if (Violation[B]) {
          cantFail(transfer(S, Blk.Insts, K, nullptr));
          continue;
        }
        Where W{&Blk, K, &Blk.Insts[K]};
        if (Error E = transfer(S, Blk.Insts, K, &W)) {
          Violation[B] = std::move(E);
          // transfer stopped at the violation; apply the instruction's
          // effect anyway so the states downstream stay meaningful.
          cantFail(transfer(S, Blk.Insts, K, nullptr));
        }
      }
      if (!Out[B] || *Out[B] != S) {
        Out[B] = std::move(S);
        for (unsigned Succ : Succs[B])
          Dirty.set(Succ);
      }
    }
  }
  Error First = Error::success();
  for (unsigned B = 0; B < NB; ++B) {
    if (!Violation[B])
      continue;
    if (First)
      consumeError(std::move(*Violation[B]));
    else
      First = std::move(*Violation[B]);
  }
  return First;
}

} // namespace

Error checkAllocation(const Function &Fn) {
  Checker C(Fn);
  return C.run();
}

} // namespace tandem::regalloc
