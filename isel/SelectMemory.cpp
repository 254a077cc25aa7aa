//===- SelectMemory.cpp - simt lowering rules: addresses and memory -------===//
//
// getelementptr, load, store, atomicrmw, cmpxchg (+ its extractvalue).
//
// Address spaces: 1 global, 3 shared, 4 const, 5 local come from the pointer
// type.
// A generic pointer (address space 0, where preparation could not infer one)
// is traced to its origins: kernel parameters and pointers loaded from memory
// are global, allocas local, __shared__ variables shared, an addrspacecast
// says where it came from. Mixed or unknown origins are an error: simt has no
// generic addressing.
//
// Addresses are folded: constant GEP offsets (and casts) become the simm12
// of the memory instruction, also the constant part of a GEP with variable
// indices (its own add is then dead); a constant address (a __shared__
// variable, an alloca, a __constant__ variable) becomes [r0 + offset].
//
// __constant__ variables live in the image's const section at the offsets of
// isel/ConstLayout.h. The ISA reads it with ld.const.u32 only: an i8/i16 is
// taken out of the aligned word holding it (shift right by 8 * (address & 3),
// then mask), an i64 is two words. Stores and atomics there are errors
// (Prepare reports them first, with the source line).
//
// __device__ variables live in the image's data section, which the device
// copies into global memory when it loads the image; the loader writes the
// section's address into the const section's data base slot
// (isel/ConstLayout.h). A kernel that uses one loads that word once at the
// top of its entry block into a uniform register, and a variable's address
// is that register + the variable's offset: ordinary global memory from then
// on (loads, stores, atomics, pointers that may be stored or passed on).
//
// One-to-one loads and stores come from SimtPatterns.td: this file picks the
// node (`load.<space>.<bits>`, `sextload.<space>.<bits>` for a narrow load
// only ever sign-extended, `store.<space>.<bits>`), folds the address and
// moves an offset the pattern's simm12 does not take into the base (a far
// offset as base + K, K shared by the block's nearby far accesses, and the
// rest in the simm12: farAddress). Still
// C++ here, not one-to-one: i64 loads and stores (two word accesses),
// sub-word __constant__ loads (word load, shift, mask) and cmpxchg's success
// flag. Those opcodes are looked up by mnemonic (`ld.<space>.u32`,
// `atom.<space>.cas`) so no table of memory opcodes is repeated here.
//
//===----------------------------------------------------------------------===//

#include "SelectSimtImpl.h"

#include "AddressSpaces.h"
#include "PatternMatch.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/GetElementPtrTypeIterator.h"
#include "llvm/IR/Operator.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace llvm;

namespace tandem::isel::detail {

static StringRef spaceName(simt::MemSpace S) {
  switch (S) {
  case simt::MemSpace::Global: return "global";
  case simt::MemSpace::Shared: return "shared";
  case simt::MemSpace::Local: return "local";
  case simt::MemSpace::Param: return "param";
  case simt::MemSpace::Const: return "const";
  default: return "none";
  }
}

static Opcode mnemonicOpcode(const Twine &Mnemonic) {
  std::optional<Opcode> O = simt::lookupMnemonic(Mnemonic.str());
  assert(O && "memory mnemonic missing from the simt tables");
  return *O;
}

//===----------------------------------------------------------------------===//
// Address spaces
//===----------------------------------------------------------------------===//

namespace {
/// Collects the address spaces a generic pointer may point into.
struct SpaceTracer {
  SmallPtrSet<const Value *, 16> Seen;
  SmallVector<simt::MemSpace, 2> Spaces;
  bool Unknown = false;

  void add(simt::MemSpace S) {
    if (!llvm::is_contained(Spaces, S))
      Spaces.push_back(S);
  }

  static std::optional<simt::MemSpace> fromAS(unsigned AS) {
    switch (AS) {
    case GlobalAS:
      return simt::MemSpace::Global;
    case SharedAS:
      return simt::MemSpace::Shared;
    case LocalAS:
      return simt::MemSpace::Local;
    case ConstAS:
      return simt::MemSpace::Const;
    default:
      return std::nullopt;
    }
  }

  void trace(const Value *V) {
    if (!Seen.insert(V).second)
      return;
    if (std::optional<simt::MemSpace> S = fromAS(V->getType()->getPointerAddressSpace()))
      return add(*S);
    if (isa<Argument>(V) || isa<LoadInst>(V))
      return add(simt::MemSpace::Global);
    if (isa<AllocaInst>(V))
      return add(simt::MemSpace::Local);
    if (isa<ConstantPointerNull>(V) || isa<UndefValue>(V))
      return;
    if (const auto *GV = dyn_cast<GlobalVariable>(V)) {
      if (auto S = fromAS(GV->getAddressSpace()))
        return add(*S);
      return add(simt::MemSpace::Global);
    }
    if (const auto *Op = dyn_cast<Operator>(V)) {
      switch (Op->getOpcode()) {
      case Instruction::GetElementPtr:
      case Instruction::BitCast:
      case Instruction::AddrSpaceCast:
        return trace(Op->getOperand(0));
      case Instruction::Select:
        trace(Op->getOperand(1));
        return trace(Op->getOperand(2));
      case Instruction::PHI:
        for (const Value *In : cast<PHINode>(Op)->incoming_values())
          trace(In);
        return;
      default:
        break;
      }
    }
    Unknown = true;
  }
};
} // namespace

Expected<simt::MemSpace> Selector::memSpaceOf(Value *Ptr, const Instruction &User) {
  SpaceTracer T;
  T.trace(Ptr);
  if (T.Unknown || T.Spaces.size() != 1)
    return cannotSelect(User, "cannot tell which memory space (global, shared, local or "
                              "__constant__) this pointer points into; simt has no generic "
                              "addressing. Keep shared, local and __constant__ pointers apart "
                              "from global ones");
  return T.Spaces[0];
}

//===----------------------------------------------------------------------===//
// Addresses
//===----------------------------------------------------------------------===//

/// Walks from V through GEPs with constant offsets and bit/address-space
/// casts to what they offset; adds the bytes to Off. Null when a GEP has a
/// variable index.
static const Value *stripConstantOffsets(const Value *V, const DataLayout &DL, int64_t &Off) {
  for (;;) {
    if (const auto *GEP = dyn_cast<GEPOperator>(V)) {
      APInt C(DL.getIndexTypeSizeInBits(GEP->getType()), 0);
      if (!GEP->accumulateConstantOffset(DL, C))
        return nullptr;
      Off += C.getSExtValue();
      V = GEP->getPointerOperand();
      continue;
    }
    if (const auto *Op = dyn_cast<Operator>(V);
        Op && (Op->getOpcode() == Instruction::BitCast ||
               Op->getOpcode() == Instruction::AddrSpaceCast)) {
      V = Op->getOperand(0);
      continue;
    }
    return V;
  }
}

std::optional<int64_t> Selector::constantAddress(Value *Ptr) {
  int64_t Off = 0;
  const Value *V = stripConstantOffsets(Ptr, F.getDataLayout(), Off);
  if (!V)
    return std::nullopt;
  if (auto *GV = dyn_cast<GlobalVariable>(V); GV && GV->getAddressSpace() == SharedAS)
    return Off + sharedOffset(GV);
  if (auto *GV = dyn_cast<GlobalVariable>(V); GV && GV->getAddressSpace() == ConstAS)
    if (std::optional<uint32_t> C = constOffset(GV))
      return Off + *C;
  if (auto *AI = dyn_cast<AllocaInst>(V))
    if (std::optional<uint32_t> L = localOffset(AI))
      return Off + *L;
  if (isa<ConstantPointerNull>(V))
    return Off;
  return std::nullopt;
}

std::optional<Address> Selector::deviceDataAddress(const Value *Ptr) const {
  int64_t Off = 0;
  const auto *GV = dyn_cast_or_null<GlobalVariable>(stripConstantOffsets(Ptr, F.getDataLayout(), Off));
  auto It = GV ? DataOffsets.find(GV) : DataOffsets.end();
  if (It == DataOffsets.end() || DataBase == mir::NoReg)
    return std::nullopt;
  return Address{DataBase, static_cast<int32_t>(Off + It->second)};
}

Expected<Address> Selector::addressOf(Value *Ptr) {
  const DataLayout &DL = F.getDataLayout();
  int64_t Off = 0;
  Value *V = Ptr;
  for (;;) {
    if (std::optional<int64_t> C = constantAddress(V))
      return Address{0, Off + *C};
    if (std::optional<Address> D = deviceDataAddress(V))
      return Address{D->Base, Off + D->Offset};
    // A GEP selected already: its variable part + its constant offset.
    if (auto It = GEPParts.find(V); It != GEPParts.end())
      return Address{It->second.Base, Off + It->second.Offset};
    if (auto *GEP = dyn_cast<GEPOperator>(V)) {
      APInt C(DL.getIndexTypeSizeInBits(GEP->getType()), 0);
      if (GEP->accumulateConstantOffset(DL, C)) {
        Off += C.getSExtValue();
        V = GEP->getPointerOperand();
        continue;
      }
    }
    if (auto *Op = dyn_cast<Operator>(V);
        Op && (Op->getOpcode() == Instruction::BitCast ||
               Op->getOpcode() == Instruction::AddrSpaceCast)) {
      V = Op->getOperand(0);
      continue;
    }
    break;
  }
  Expected<Reg> Base = regOf(V);
  if (!Base)
    return Base.takeError();
  return Address{*Base, Off};
}

/// \p A with its offset moved into the base: [base + 0] (a constant
/// address, base r0, becomes a loaded immediate).
static Address offsetIntoBase(Selector &S, Address A) {
  Reg Base = A.Base == 0 ? S.loadImm(A.Offset)
                         : S.emitRI(Opcode::ADDI, Opcode::ADD, A.Base, A.Offset);
  return Address{Base, 0};
}

/// The part K of an offset \p Off that does not fit an access whose offset
/// field takes [Min, Max] (and \p Extra bytes more), chosen from few values
/// so that nearby far accesses agree on it: base + K is then computed once
/// and the rest stays in each access's offset field. First choice: the
/// largest step one `addi` takes towards Off (one instruction for offsets
/// just past the field: transpose's tile rows 16 and 24); else the multiple of the
/// field's span nearest to Off. nullopt when no such K leaves a rest that
/// fits (an i64's second word at the edge).
static std::optional<int64_t> sharedFarPart(int64_t Off, int64_t Min, int64_t Max,
                                            int64_t Extra) {
  auto RestFits = [&](int64_t K) {
    return Off - K >= Min && Off - K + Extra <= Max;
  };
  auto [AddMin, AddMax] = simt::immRange(Opcode::ADDI);
  int64_t OneAddStep = Off > 0 ? AddMax : AddMin;
  if (RestFits(OneAddStep))
    return OneAddStep;
  int64_t Span = Max - Min + 1;
  int64_t K = llvm::divideFloorSigned(Off - Min, Span) * Span;
  if (RestFits(K))
    return K;
  return std::nullopt;
}

/// \p A for an access whose offset field takes [Min, Max] (and Extra bytes
/// more), A's offset not fitting: [base + K] + rest with K from
/// sharedFarPart. The `addi`/`li`+`add` of base + K is the same instruction
/// for every access of the block with that base and K, so the selector's
/// local duplicate elimination (SelectSimt.cpp) keeps one. A constant
/// address (base r0) keeps its single `li` of the whole address.
static Address farAddress(Selector &S, Address A, int64_t Min, int64_t Max, int64_t Extra) {
  std::optional<int64_t> K;
  if (A.Base != 0)
    K = sharedFarPart(A.Offset, Min, Max, Extra);
  if (!K)
    return offsetIntoBase(S, A);
  Reg Base = S.emitRI(Opcode::ADDI, Opcode::ADD, A.Base, *K);
  return Address{Base, A.Offset - *K};
}

/// Base + offset where the offset fits \p O's simm12 (and \p Extra more
/// bytes, for the second word of an i64); else see farAddress.
static Address fitOffset(Selector &S, Address A, Opcode O, int64_t Extra = 0) {
  if (Selector::fitsImm(O, A.Offset) && Selector::fitsImm(O, A.Offset + Extra))
    return A;
  auto [Min, Max] = simt::immRange(O);
  return farAddress(S, A, Min, Max, Extra);
}

/// \p A where the load/store pattern of node \p Node (SimtPatterns.td: its
/// `addr` operand, then for a store the value) takes A's offset; else see
/// farAddress, with the offset range of the instruction the pattern selects
/// (offset 0 fits every addressing mode).
static Address fitPatternOffset(Selector &S, StringRef Node, Address A, bool IsStore) {
  constexpr uint8_t GPRClass = 0;
  auto Find = [&](int64_t Offset) {
    SmallVector<PatternInput, 2> Inputs{{GPRClass, Offset, /*IsAddress=*/true}};
    if (IsStore)
      Inputs.push_back({GPRClass, std::nullopt});
    return findPattern(simt::selectionPatterns(), Node,
                       IsStore ? target::NoResultClass : int16_t(GPRClass), Inputs);
  };
  if (Find(A.Offset))
    return A;
  const target::PatternDesc *AtZero = Find(0);
  if (!AtZero)
    return offsetIntoBase(S, A); // selectLoad/selectStore report the missing pattern
  auto [Min, Max] = simt::immRange(static_cast<Opcode>(AtZero->Opcode));
  Address Far = farAddress(S, A, Min, Max, /*Extra=*/0);
  assert(Find(Far.Offset) && "the rest of a far offset fits the pattern's addressing mode");
  return Far;
}

void Selector::loadDataBase() {
  if (!UsesDeviceData || !DataBaseSlot)
    return;
  CurInst = nullptr;
  CurLoc = {};
  CurUniform = true;
  DataBase = Fn->newVReg(/*Uniform=*/true, "data_base");
  Opcode Ld = mnemonicOpcode("ld.const.u32");
  Address Slot = fitOffset(*this, Address{0, *DataBaseSlot}, Ld);
  emit(Ld, {Operand::def(DataBase), Operand::use(Slot.Base), Operand::imm(Slot.Offset)});
}

//===----------------------------------------------------------------------===//
// getelementptr (when not folded into a memory access)
//===----------------------------------------------------------------------===//
//
// address = base + sum(index * stride) + constant; strides that are powers of
// two shift. Indices are sign-extended to 32 bits (an i64 index uses its low
// word: pointers are 32-bit, arithmetic wraps).

Error Selector::selectGEP(GetElementPtrInst &GEP) {
  if (std::optional<int64_t> C = constantAddress(&GEP)) {
    emit(mir::LI, {Operand::def(result(&GEP)), Operand::imm(static_cast<int32_t>(*C))});
    return Error::success();
  }
  const DataLayout &DL = F.getDataLayout();
  int64_t Off = 0;
  Reg Acc = mir::NoReg;
  Value *Base = GEP.getPointerOperand();
  if (std::optional<int64_t> C = constantAddress(Base)) {
    Off += *C;
  } else {
    Expected<Reg> R = regOf(Base);
    if (!R)
      return R.takeError();
    Acc = *R;
  }
  for (gep_type_iterator GTI = gep_type_begin(GEP), E = gep_type_end(GEP); GTI != E; ++GTI) {
    Value *Idx = GTI.getOperand();
    if (StructType *ST = GTI.getStructTypeOrNull()) {
      Off += DL.getStructLayout(ST)->getElementOffset(cast<ConstantInt>(Idx)->getZExtValue());
      continue;
    }
    int64_t Stride = GTI.getSequentialElementStride(DL);
    if (auto *C = dyn_cast<ConstantInt>(Idx)) {
      Off += C->getSExtValue() * Stride;
      continue;
    }
    Reg R;
    if (Idx->getType()->isIntegerTy(64)) {
      Expected<ValueRegs> W = regsOf(Idx);
      if (!W)
        return W.takeError();
      R = W->Lo;
    } else {
      Expected<Reg> N = regOf(Idx, Ext::Sext);
      if (!N)
        return N.takeError();
      R = *N;
    }
    Reg Scaled = R;
    if (Stride != 1)
      Scaled = isPowerOf2_64(Stride) ? emitRI(Opcode::SHLI, Opcode::SHL, R, Log2_64(Stride))
                                     : emitRI(Opcode::MULI, Opcode::MUL, R, Stride);
    Acc = Acc == mir::NoReg ? Scaled : emitRR(Opcode::ADD, Acc, Scaled);
  }
  Off = static_cast<int32_t>(Off);
  if (Acc != mir::NoReg)
    GEPParts[&GEP] = Address{Acc, Off};
  if (Acc == mir::NoReg) {
    emit(mir::LI, {Operand::def(result(&GEP)), Operand::imm(Off)});
    return Error::success();
  }
  if (Off == 0) {
    bindResult(GEP, {Acc, mir::NoReg});
    return Error::success();
  }
  emitRI(Opcode::ADDI, Opcode::ADD, result(&GEP), Acc, Off);
  return Error::success();
}

//===----------------------------------------------------------------------===//
// load store
//===----------------------------------------------------------------------===//

static Error checkAlignment(Selector &S, Instruction &I, Align A, unsigned Bytes) {
  if (A.value() >= std::min(Bytes, 4u))
    return Error::success();
  return S.cannotSelect(I, formatv("the access is aligned to {0} bytes; simt needs {1}-byte "
                                   "alignment",
                                   A.value(), std::min(Bytes, 4u))
                               .str());
}

/// Narrow loads extend in hardware; a value only ever sign-extended is
/// loaded with the signed form so the sext is free.
Error Selector::selectLoad(LoadInst &L) {
  Type *T = L.getType();
  unsigned Bits = bitsOf(T);
  unsigned Bytes = Bits == 1 ? 1 : (T->isIntegerTy(64) ? 8 : Bits / 8);
  if (Error E = checkAlignment(*this, L, L.getAlign(), Bytes))
    return E;
  Expected<simt::MemSpace> Space = memSpaceOf(L.getPointerOperand(), L);
  if (!Space)
    return Space.takeError();
  Expected<Address> Addr = addressOf(L.getPointerOperand());
  if (!Addr)
    return Addr.takeError();
  if (*Space == simt::MemSpace::Const && Bytes < 4)
    return selectSubWordConstLoad(L, *Addr, Bytes);
  StringRef SpaceStr = spaceName(*Space);
  if (Bytes == 8) {
    Opcode O = mnemonicOpcode("ld." + SpaceStr + ".u32");
    Address A = fitOffset(*this, *Addr, O, 4);
    ValueRegs D = resultRegs(&L);
    emit(O, {Operand::def(D.Lo), Operand::use(A.Base), Operand::imm(A.Offset)});
    emit(O, {Operand::def(D.Hi), Operand::use(A.Base), Operand::imm(A.Offset + 4)});
    return Error::success();
  }
  bool Signed = Bytes < 4 && Bits > 1 && !L.use_empty() &&
                llvm::all_of(L.users(), [](User *U) { return isa<SExtInst>(U); });
  // load_<space>_<bits> / sextload_<space>_<bits> in SimtPatterns.td.
  std::string Node =
      formatv("{0}.{1}.{2}", Signed ? "sextload" : "load", SpaceStr, Bytes * 8).str();
  Address A = fitPatternOffset(*this, Node, *Addr, /*IsStore=*/false);
  Reg Dst = result(&L);
  Expected<bool> Done = selectByPattern(Node, {{nullptr, Ext::Any, A.Base, A.Offset}}, Dst);
  if (!Done)
    return Done.takeError();
  if (!*Done)
    return cannotSelect(L, "internal compiler error: no " + Node + " pattern in SimtPatterns.td");
  if (Bytes < 4) {
    if (Signed)
      noteSext(Dst, Bytes * 8);
    else
      noteZext(Dst, Bytes * 8);
  }
  return Error::success();
}

/// The const space has word loads only: an i8/i16 (or i1 byte) at address A
/// is bits [8 * (A & 3), +8 * Bytes) of the word at A & ~3 (alignment checked
/// before: an i16 is 2-aligned, so it never straddles two words). The result
/// is zero-extended; a sign extension the user wants is selected as usual.
Error Selector::selectSubWordConstLoad(LoadInst &L, Address Addr, unsigned Bytes) {
  Opcode Ld = mnemonicOpcode("ld.const.u32");
  unsigned Bits = Bytes * 8;
  Reg Dst = result(&L);
  auto Extract = [&](Reg Word, std::optional<unsigned> ConstShift, Reg DynShift) {
    Reg Shifted = Word;
    if (ConstShift && *ConstShift)
      Shifted = emitRI(Opcode::SHRI, Opcode::SHR, Word, *ConstShift);
    else if (!ConstShift)
      Shifted = emitRR(Opcode::SHR, Word, DynShift);
    if (ConstShift && *ConstShift + Bits == 32)
      copy(Dst, Shifted); // the logical shift cleared the bits above
    else
      emitRI(Opcode::ANDI, Opcode::AND, Dst, Shifted, (1 << Bits) - 1);
    noteZext(Dst, Bits);
  };
  if (Addr.Base == 0) { // a constant address: the shift is known
    Address Word = fitOffset(*this, Address{0, Addr.Offset & ~int64_t(3)}, Ld);
    Reg W = newReg();
    emit(Ld, {Operand::def(W), Operand::use(Word.Base), Operand::imm(Word.Offset)});
    Extract(W, static_cast<unsigned>(Addr.Offset & 3) * 8, mir::NoReg);
    return Error::success();
  }
  // base + offset: with a word-multiple offset only the base's low bits
  // matter, so the offset stays in the load's immediate.
  Reg Full = Addr.Base;
  int64_t WordOffset = 0;
  if (Addr.Offset % 4 == 0)
    WordOffset = Addr.Offset;
  else
    Full = emitRI(Opcode::ADDI, Opcode::ADD, Addr.Base, Addr.Offset);
  Reg AlignedBase = emitRI(Opcode::ANDI, Opcode::AND, Full, -4);
  Reg ByteInWord = emitRI(Opcode::ANDI, Opcode::AND, Full, 3);
  Reg Shift = emitRI(Opcode::SHLI, Opcode::SHL, ByteInWord, 3);
  Address Word = fitOffset(*this, Address{AlignedBase, WordOffset}, Ld);
  Reg W = newReg();
  emit(Ld, {Operand::def(W), Operand::use(Word.Base), Operand::imm(Word.Offset)});
  Extract(W, std::nullopt, Shift);
  return Error::success();
}

/// Narrow stores write the low bytes; an i1 is stored as a 0/1 byte.
Error Selector::selectStore(StoreInst &S) {
  Value *Val = S.getValueOperand();
  Type *T = Val->getType();
  unsigned Bits = bitsOf(T);
  unsigned Bytes = Bits == 1 ? 1 : (T->isIntegerTy(64) ? 8 : Bits / 8);
  if (Error E = checkAlignment(*this, S, S.getAlign(), Bytes))
    return E;
  Expected<simt::MemSpace> Space = memSpaceOf(S.getPointerOperand(), S);
  if (!Space)
    return Space.takeError();
  if (*Space == simt::MemSpace::Const)
    return cannotSelect(S, "a store to __constant__ memory; it is read-only on the device");
  Expected<Address> Addr = addressOf(S.getPointerOperand());
  if (!Addr)
    return Addr.takeError();
  StringRef SpaceStr = spaceName(*Space);
  if (Bytes == 8) {
    Expected<ValueRegs> V = regsOf(Val);
    if (!V)
      return V.takeError();
    Opcode O = mnemonicOpcode("st." + SpaceStr + ".u32");
    Address A = fitOffset(*this, *Addr, O, 4);
    emit(O, {Operand::use(A.Base), Operand::imm(A.Offset), Operand::use(V->Lo)});
    emit(O, {Operand::use(A.Base), Operand::imm(A.Offset + 4), Operand::use(V->Hi)});
    return Error::success();
  }
  Expected<Reg> V = regOf(Val, Bits == 1 ? Ext::Zext : Ext::Any);
  if (!V)
    return V.takeError();
  // store_<space>_<bits> in SimtPatterns.td.
  std::string Node = formatv("store.{0}.{1}", SpaceStr, Bytes * 8).str();
  Address A = fitPatternOffset(*this, Node, *Addr, /*IsStore=*/true);
  Expected<bool> Done = selectByPattern(
      Node, {{nullptr, Ext::Any, A.Base, A.Offset}, {nullptr, Ext::Any, *V}}, mir::NoReg);
  if (!Done)
    return Done.takeError();
  if (!*Done)
    return cannotSelect(S, "internal compiler error: no " + Node + " pattern in SimtPatterns.td");
  return Error::success();
}

//===----------------------------------------------------------------------===//
// atomicrmw cmpxchg
//===----------------------------------------------------------------------===//
//
// atom.<space>.<op> rd, [rs1], rs2 returns the old value (the instruction
// from SimtPatterns.td's atomic_<op>_<space> patterns); the address has no
// offset field, so a folded offset is added first. sub is add of the
// negation. Orderings and scopes need nothing: simt atomics are applied in
// order, lanes of a warp in lane order.

static Expected<Reg> atomicAddress(Selector &S, Instruction &I, Value *Ptr, StringRef &Space) {
  Expected<simt::MemSpace> Sp = S.memSpaceOf(Ptr, I);
  if (!Sp)
    return Sp.takeError();
  if (*Sp != simt::MemSpace::Global && *Sp != simt::MemSpace::Shared)
    return S.cannotSelect(I, "simt atomics work on global and shared memory only");
  Space = spaceName(*Sp);
  Expected<Address> A = S.addressOf(Ptr);
  if (!A)
    return A.takeError();
  if (A->Offset == 0)
    return A->Base;
  if (A->Base == 0)
    return S.loadImm(A->Offset);
  return S.emitRI(Opcode::ADDI, Opcode::ADD, A->Base, A->Offset);
}

Error Selector::selectAtomicRMW(AtomicRMWInst &I) {
  Type *T = I.getType();
  if (!(T->isIntegerTy(32) || T->isFloatTy() || T->isPointerTy()))
    return cannotSelect(I, "simt atomics are 32-bit only");
  // The instruction comes from the table (atomic_<op>_<space> patterns);
  // sub has none: it is add of the negated value.
  StringRef Op = AtomicRMWInst::getOperationName(I.getOperation());
  bool Negate = I.getOperation() == AtomicRMWInst::Sub;
  if (Negate)
    Op = "add";
  StringRef Space;
  Expected<Reg> Addr = atomicAddress(*this, I, I.getPointerOperand(), Space);
  if (!Addr)
    return Addr.takeError();
  Expected<Reg> V = regOf(I.getValOperand());
  if (!V)
    return V.takeError();
  Reg Val = Negate ? emitRR(Opcode::SUB, 0, *V) : *V;
  Expected<bool> Done = selectByPattern(("atomicrmw." + Op + "." + Space).str(),
                                        {{nullptr, Ext::Any, *Addr}, {nullptr, Ext::Any, Val}},
                                        result(&I));
  if (!Done)
    return Done.takeError();
  if (!*Done)
    return cannotSelect(I, formatv("simt has no atomic {0} (it has add, fadd, min, max, umin, "
                                   "umax, xchg and cas)",
                                   AtomicRMWInst::getOperationName(I.getOperation()))
                               .str());
  return Error::success();
}

/// cmpxchg yields {old, success}; success = (old == expected). Its
/// extractvalues pick one of the two registers.
Error Selector::selectCmpXchg(AtomicCmpXchgInst &I) {
  Type *T = I.getCompareOperand()->getType();
  if (!(T->isIntegerTy(32) || T->isPointerTy() || T->isFloatTy()))
    return cannotSelect(I, "simt atomics are 32-bit only");
  StringRef Space;
  Expected<Reg> Addr = atomicAddress(*this, I, I.getPointerOperand(), Space);
  if (!Addr)
    return Addr.takeError();
  Expected<Reg> Cmp = regOf(I.getCompareOperand()), New = regOf(I.getNewValOperand());
  if (!Cmp)
    return Cmp.takeError();
  if (!New)
    return New.takeError();
  ValueRegs &P = PairValues[&I];
  if (P.Lo == mir::NoReg) {
    P.Lo = Fn->newVReg(!UI.isDivergent(&I));
    P.Hi = Fn->newVReg(!UI.isDivergent(&I));
  }
  emit(mnemonicOpcode("atom." + Space + ".cas"),
       {Operand::def(P.Lo), Operand::use(*Addr), Operand::use(*Cmp), Operand::use(*New)});
  emit(Opcode::SETEQ, {Operand::def(P.Hi), Operand::use(P.Lo), Operand::use(*Cmp)});
  noteZext(P.Hi, 1);
  return Error::success();
}

Error Selector::selectExtractValue(ExtractValueInst &I) {
  auto *CX = dyn_cast<AtomicCmpXchgInst>(I.getAggregateOperand());
  if (!CX || I.getNumIndices() != 1 || I.getIndices()[0] > 1)
    return cannotSelect(I, "aggregates are supported only as the result of cmpxchg");
  ValueRegs &P = PairValues[CX];
  if (P.Lo == mir::NoReg) { // the cmpxchg is laid out after this use
    P.Lo = Fn->newVReg(!UI.isDivergent(CX));
    P.Hi = Fn->newVReg(!UI.isDivergent(CX));
  }
  bindResult(I, {I.getIndices()[0] == 0 ? P.Lo : P.Hi, mir::NoReg});
  return Error::success();
}

} // namespace tandem::isel::detail
