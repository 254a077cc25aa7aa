//===- Checker.cpp - proves a register allocation correct -----------------===//
//
// Input: MIR after register allocation: register operands physical, each
// (except the zero register r0) with Operand::Orig naming the vreg it
// stands for; spill code marked IsSpillCode (`ld.local.u32 rd, [r0 + off]`
// reloads, `st.local.u32 [r0 + off], rs` stores, either also as `[rA + imm]`
// right after the spill code `li rA, base` for far slots, anything else a
// rematerialization whose def stands for the vreg it recomputes).
// Guarantees: success only if every read of a register or spill slot finds
// the vreg it stands for there on every path, in the spirit of regalloc2's
// checker.rs.
//
// Abstract state: for each location (r0..r63 and each spill slot) the set of
// vregs whose current value it may be said to hold. Forward dataflow, meet =
// intersection (a location holds v after a join only if it does on every
// incoming path). At entry every location holds every vreg: a vreg not yet
// defined on a path has no value yet, and any location is as good as
// another for "no value". That one rule also covers a PartialDef that is
// the first def of its vreg on a path (its "old value" is nothing yet).
//
// Transfer of one instruction:
//   - every use of rN standing for v requires v in rN (r0 is not checked);
//   - a def of v into rN: v is removed from every location (it has a new
//     value; stale copies no longer hold it), then rN := {v};
//   - a PartialDef (or movt, which reads rd) first requires v in rN: the
//     lanes it does not write keep the old value, which must be v's;
//   - COPY rD(d) <- rS(s): rD := rS's set plus d (both hold the same bits),
//     after removing d elsewhere; a PartialDef COPY writes only some lanes,
//     so rD := {d};
//   - spill store to slot: slot := the register's set; spill reload from
//     slot for v: requires v in slot, then rN := slot's set;
//   - rematerialization of v into rN: rN := {v} (the same value v already
//     has, so other copies of v stay valid).
// The state is lane-agnostic: spill code runs under the exec mask of the
// instruction it serves, so the lanes it moves are the lanes that matter.
//
//===----------------------------------------------------------------------===//

#include "regalloc/RegAlloc.h"

#include "regalloc/Liveness.h"

#include "ISA.h"

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FormatVariadic.h"

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

constexpr unsigned NumRegLocations = simt::NumEncodableGPRs;

/// The spill slot byte offset \p I accesses, if it is a spill reload
/// (\p Store false) or store (true): `[r0 + off]`, or `[rA + imm]` right
/// after the spill code `li rA, base` that addresses a far slot.
std::optional<int64_t> spillSlot(const Inst &I, const Inst *Prev, bool Store) {
  simt::Opcode O = Store ? simt::Opcode::LOCAL_ST_U32 : simt::Opcode::LOCAL_LD_U32;
  unsigned BaseOp = Store ? 0 : 1;
  if (!I.IsSpillCode || I.Opcode != opc(O) || I.Ops.size() != 3 || !I.Ops[BaseOp].isReg() ||
      !I.Ops[BaseOp + 1].isImm())
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

/// Per location, the vregs it may hold (bit = vreg index).
using State = std::vector<BitVector>;

class Checker {
public:
  explicit Checker(const Function &Fn) : Fn(Fn), NV(Fn.numVRegs()) {}
  Error run();

private:
  const Function &Fn;
  unsigned NV;
  /// Spill slot byte offset -> location index (after the registers).
  DenseMap<int64_t, unsigned> SlotLocation;
  unsigned NumLocations = NumRegLocations;

  /// Where the current instruction is, for messages.
  struct Where {
    const Block *B = nullptr;
    size_t Index = 0;
    const Inst *I = nullptr;
  };

  void collectSlots();
  State allHeld() const { return State(NumLocations, BitVector(NV, true)); }
  /// Applies \p I to \p S. With \p W, the first violated requirement is
  /// returned as an error; without, violations are ignored (fixpoint
  /// iteration only needs the states).
  Error transfer(State &S, const Inst &I, const Inst *Prev, const Where *W) const;
  Error structuralCheck(const Inst &I, const Where &W) const;
  Error fail(const Where &W, const Twine &Msg) const;
  std::string describeHeld(const BitVector &Held) const;
  std::string vregName(Reg V) const;
  Error require(const State &S, unsigned Loc, Reg V, const Where *W, const Twine &LocName) const;
  static void define(State &S, unsigned Loc, unsigned V);
  std::string locationName(unsigned Loc) const;
};

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
  if (V - VirtRegBase < NV && !Fn.info(V).Name.empty())
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

std::string Checker::describeHeld(const BitVector &Held) const {
  unsigned Count = Held.count();
  if (Count == 0)
    return "no value any use may read there";
  std::string S = "only ";
  unsigned Shown = 0;
  for (unsigned V : Held.set_bits()) {
    if (Shown == 4) {
      S += formatv(" and {0} more", Count - Shown).str();
      break;
    }
    S += (Shown ? ", " : "") + vregName(VirtRegBase + V);
    ++Shown;
  }
  return S;
}

Error Checker::fail(const Where &W, const Twine &Msg) const {
  std::string Loc = W.I->Loc.empty() ? "" : " at " + W.I->Loc;
  return createStringError(formatv("kernel '{0}': allocation check failed: bb.{1}, instruction {2} "
                                   "({3}){4}: {5}",
                                   Fn.Name, W.B->Name, W.Index,
                                   mir::opcodeName(W.I->Opcode, mir::TargetKind::Simt), Loc, Msg.str())
                               .str());
}

Error Checker::require(const State &S, unsigned Loc, Reg V, const Where *W, const Twine &Why) const {
  if (!W || S[Loc].test(V - VirtRegBase))
    return Error::success();
  return fail(*W, Twine(Why) + ": " + locationName(Loc) + " should hold " + vregName(V) +
                      " but may hold " + describeHeld(S[Loc]));
}

void Checker::define(State &S, unsigned Loc, unsigned V) {
  for (BitVector &Held : S)
    Held.reset(V);
  S[Loc].reset();
  S[Loc].set(V);
}

Error Checker::structuralCheck(const Inst &I, const Where &W) const {
  for (const Operand &O : I.Ops) {
    if (!O.isReg())
      continue;
    if (mir::isVirtual(O.R))
      return fail(W, "operand is still a virtual register %v" + Twine(O.R - VirtRegBase));
    if (O.R >= NumRegLocations)
      return fail(W, "register r" + Twine(O.R) + " cannot be encoded");
    if (O.R == 0)
      continue;
    if (!mir::isVirtual(O.Orig) || O.Orig - VirtRegBase >= NV)
      return fail(W, "r" + Twine(O.R) + " does not say which vreg it stands for (Operand::Orig)");
  }
  return Error::success();
}

Error Checker::transfer(State &S, const Inst &I, const Inst *Prev, const Where *W) const {
  if (std::optional<int64_t> Off = spillSlot(I, Prev, /*Store=*/false)) {
    const Operand &Dst = I.Ops[0];
    unsigned Slot = SlotLocation.lookup(*Off);
    if (Error E = require(S, Slot, Dst.Orig, W, "spill reload"))
      return E;
    if (Dst.R != 0)
      S[Dst.R] = S[Slot];
    return Error::success();
  }
  if (std::optional<int64_t> Off = spillSlot(I, Prev, /*Store=*/true)) {
    const Operand &Src = I.Ops[2];
    unsigned Slot = SlotLocation.lookup(*Off);
    if (Src.R == 0) {
      S[Slot].reset();
      return Error::success();
    }
    if (Error E = require(S, Src.R, Src.Orig, W, "spill store"))
      return E;
    S[Slot] = S[Src.R];
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
    unsigned V = O.Orig - VirtRegBase;
    if (ReadsOld)
      if (Error E = require(S, O.R, O.Orig, W,
                            "partial def (the lanes it does not write keep the old value)"))
        return E;
    if (I.IsSpillCode) { // rematerialization: the same value v already has
      S[O.R].reset();
      S[O.R].set(V);
      continue;
    }
    if (I.Opcode == mir::COPY && !I.PartialDef) {
      const Operand &Src = I.Ops[1];
      BitVector Copied = Src.R == 0 ? BitVector(NV) : S[Src.R];
      define(S, O.R, V);
      S[O.R] |= Copied;
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
  collectSlots();
  unsigned NB = Fn.Blocks.size();
  DenseMap<const Block *, unsigned> Index;
  for (unsigned B = 0; B < NB; ++B)
    Index[Fn.Blocks[B].get()] = B;
  std::vector<SmallVector<unsigned, 2>> Preds(NB);
  for (unsigned B = 0; B < NB; ++B)
    for (const Block *S : mir::successors(Fn, *Fn.Blocks[B]))
      Preds[Index.lookup(S)].push_back(B);

  // Optimistic fixpoint: states only shrink, unreached blocks stay out.
  std::vector<std::optional<State>> In(NB), Out(NB);
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (unsigned B = 0; B < NB; ++B) {
      std::optional<State> Entry;
      if (B == 0)
        Entry = allHeld();
      for (unsigned P : Preds[B]) {
        if (!Out[P])
          continue;
        if (!Entry) {
          Entry = *Out[P];
          continue;
        }
        for (unsigned L = 0; L < NumLocations; ++L)
          (*Entry)[L] &= (*Out[P])[L];
      }
      if (!Entry)
        continue;
      State S = *Entry;
      const Inst *Prev = nullptr;
      for (const Inst &I : Fn.Blocks[B]->Insts) {
        cantFail(transfer(S, I, Prev, nullptr));
        Prev = &I;
      }
      if (!Out[B] || *Out[B] != S) {
        Out[B] = std::move(S);
        Changed = true;
      }
      In[B] = std::move(Entry);
    }
  }
  for (unsigned B = 0; B < NB; ++B) {
    if (!In[B])
      continue;
    State S = *In[B];
    const Block &Blk = *Fn.Blocks[B];
    for (size_t K = 0; K < Blk.Insts.size(); ++K) {
      Where W{&Blk, K, &Blk.Insts[K]};
      if (Error E = transfer(S, Blk.Insts[K], K ? &Blk.Insts[K - 1] : nullptr, &W))
        return E;
    }
  }
  return Error::success();
}

} // namespace

Error checkAllocation(const Function &Fn) {
  Checker C(Fn);
  return C.run();
}

} // namespace tandem::regalloc
