//===- SelectWide.cpp - simt lowering rules: i64 on a 32-bit machine ------===//
//
// Every i64 value is a (Lo, Hi) pair of 32-bit registers (little-endian in
// memory: Lo at the lower address). This file expands the i64 arithmetic
// and compares; PHIs, selects, casts, loads, stores and constants handle the
// pair where they are selected (SelectSimt.cpp, SelectOps.cpp,
// SelectMemory.cpp).
//
// Supported: add sub mul and or xor, shl lshr ashr by a constant or a
// variable amount, icmp with every predicate, smin smax umin umax. 64-bit
// division and remainder are rejected with an error (Prepare expands them).
//
// Relied-on ISA facts (ISA.md): register shifts by 32 or more give 0 (shl,
// shr) or the sign in every bit (sra), the count read as unsigned; setltu
// gives the carry/borrow of a 32-bit add/sub.
//
//===----------------------------------------------------------------------===//

#include "SelectSimtImpl.h"

using namespace llvm;

namespace tandem::isel::detail {

//===----------------------------------------------------------------------===//
// add sub mul and or xor shl lshr ashr (i64)
//===----------------------------------------------------------------------===//

namespace {
/// An i64 whose high word is the sign of its low word, as IR says: a sext
/// of an i32, or a constant in [-2^31, 2^31).
bool isSignExtended32(const Value *V) {
  if (auto *C = dyn_cast<ConstantInt>(V))
    return C->getValue().isSignedIntN(32);
  auto *S = dyn_cast<SExtInst>(V);
  return S && S->getSrcTy()->isIntegerTy(32);
}
} // namespace

Error Selector::selectWideBinary(BinaryOperator &I) {
  unsigned IROp = I.getOpcode();
  if (IROp == Instruction::UDiv || IROp == Instruction::SDiv || IROp == Instruction::URem ||
      IROp == Instruction::SRem)
    return cannotSelect(I, "64-bit division is not supported on simt by selection: isel/Prepare "
                           "expands it into a loop of 32-bit operations (run the IR through "
                           "prepareModule)");
  Expected<ValueRegs> EA = regsOf(I.getOperand(0)), EB = regsOf(I.getOperand(1));
  if (!EA)
    return EA.takeError();
  if (!EB)
    return EB.takeError();
  ValueRegs A = *EA, B = *EB;
  auto Def = [](Reg R) { return Operand::def(R); };
  auto Use = [](Reg R) { return Operand::use(R); };
  switch (IROp) {
  case Instruction::Add: { // carry out of the low word: lo < a.lo
    ValueRegs D = resultRegs(&I);
    emit(Opcode::ADD, {Def(D.Lo), Use(A.Lo), Use(B.Lo)});
    Reg Carry = emitRR(Opcode::SETLTU, D.Lo, A.Lo);
    Reg Sum = emitRR(Opcode::ADD, A.Hi, B.Hi);
    emit(Opcode::ADD, {Def(D.Hi), Use(Sum), Use(Carry)});
    return Error::success();
  }
  case Instruction::Sub: { // borrow: a.lo < b.lo
    ValueRegs D = resultRegs(&I);
    emit(Opcode::SUB, {Def(D.Lo), Use(A.Lo), Use(B.Lo)});
    Reg Borrow = emitRR(Opcode::SETLTU, A.Lo, B.Lo);
    Reg Diff = emitRR(Opcode::SUB, A.Hi, B.Hi);
    emit(Opcode::SUB, {Def(D.Hi), Use(Diff), Use(Borrow)});
    return Error::success();
  }
  case Instruction::Mul: { // hi = mulhiu(a.lo, b.lo) + a.lo*b.hi + a.hi*b.lo
    ValueRegs D = resultRegs(&I);
    emit(Opcode::MUL, {Def(D.Lo), Use(A.Lo), Use(B.Lo)});
    // A high word that is the zero register (zext, small constants) has no
    // cross term.
    if (A.Hi == 0 && B.Hi == 0) {
      emit(Opcode::MULHIU, {Def(D.Hi), Use(A.Lo), Use(B.Lo)});
      return Error::success();
    }
    // Two sign-extended 32-bit values: the signed multiply-high alone
    // (Prepare's division by a constant writes mulhi so).
    if (isSignExtended32(I.getOperand(0)) && isSignExtended32(I.getOperand(1))) {
      emit(Opcode::MULHI, {Def(D.Hi), Use(A.Lo), Use(B.Lo)});
      return Error::success();
    }
    Reg High = emitRR(Opcode::MULHIU, A.Lo, B.Lo);
    SmallVector<Reg, 2> Cross;
    if (B.Hi != 0)
      Cross.push_back(emitRR(Opcode::MUL, A.Lo, B.Hi));
    if (A.Hi != 0)
      Cross.push_back(emitRR(Opcode::MUL, A.Hi, B.Lo));
    Reg Partial = Cross.size() == 2 ? emitRR(Opcode::ADD, High, Cross[0]) : High;
    emit(Opcode::ADD, {Def(D.Hi), Use(Partial), Use(Cross.back())});
    return Error::success();
  }
  case Instruction::And:
  case Instruction::Or:
  case Instruction::Xor: {
    Opcode O = IROp == Instruction::And  ? Opcode::AND
               : IROp == Instruction::Or ? Opcode::OR
                                         : Opcode::XOR;
    // A half against a zero half (zext, `x << 32`, small constants): and
    // gives zero, or and xor the other half as it is.
    auto Known = [&](Reg X, Reg Y) -> Reg {
      if (X == 0 || Y == 0)
        return O == Opcode::AND ? Reg(0) : (X == 0 ? Y : X);
      return mir::NoReg;
    };
    Reg KnownLo = Known(A.Lo, B.Lo), KnownHi = Known(A.Hi, B.Hi);
    ValueRegs D = wideResultWith(I, KnownLo, KnownHi);
    if (KnownLo == mir::NoReg)
      emit(O, {Def(D.Lo), Use(A.Lo), Use(B.Lo)});
    if (KnownHi == mir::NoReg)
      emit(O, {Def(D.Hi), Use(A.Hi), Use(B.Hi)});
    return Error::success();
  }
  case Instruction::Shl:
  case Instruction::LShr:
  case Instruction::AShr:
    // Amounts of 64 or more are poison, so only the low six bits matter.
    if (auto *C = dyn_cast<ConstantInt>(I.getOperand(1)))
      emitWideShiftConst(I, A, C->getZExtValue() & 63);
    else
      emitWideShiftVar(IROp, A, B.Lo, resultRegs(&I));
    return Error::success();
  default:
    return cannotSelect(I);
  }
}

ValueRegs Selector::wideResultWith(Instruction &I, Reg KnownLo, Reg KnownHi) {
  if (auto It = Values.find(&I); It != Values.end()) {
    if (KnownLo != mir::NoReg)
      copy(It->second.Lo, KnownLo);
    if (KnownHi != mir::NoReg)
      copy(It->second.Hi, KnownHi);
    return It->second;
  }
  ValueRegs R;
  R.Lo = KnownLo != mir::NoReg ? KnownLo : newResultReg(&I, false);
  R.Hi = KnownHi != mir::NoReg ? KnownHi : newResultReg(&I, true);
  return Values[&I] = R;
}

void Selector::emitWideShiftConst(Instruction &I, ValueRegs A, unsigned N) {
  auto RI = [&](Opcode O, Reg Dst, Reg Src, int64_t Imm) {
    emit(O, {Operand::def(Dst), Operand::use(Src), Operand::imm(Imm)});
  };
  auto Ri = [&](Opcode O, Reg Src, int64_t Imm) {
    Reg Dst = newReg();
    RI(O, Dst, Src, Imm);
    return Dst;
  };
  unsigned IROp = I.getOpcode();
  // Halves that need no instruction: the operand's as they are (a shift by
  // 0, or the word a shift by 32 moves) and the zeros shifted in.
  Reg KnownLo = mir::NoReg, KnownHi = mir::NoReg;
  if (N == 0) {
    KnownLo = A.Lo;
    KnownHi = A.Hi;
  } else if (N >= 32 && IROp == Instruction::Shl) {
    KnownLo = 0;
    if (N == 32)
      KnownHi = A.Lo;
  } else if (N >= 32) {
    if (IROp == Instruction::LShr)
      KnownHi = 0;
    if (N == 32) // `(u64)a * b >> 32` is mulhiu alone
      KnownLo = A.Hi;
  }
  ValueRegs D = wideResultWith(I, KnownLo, KnownHi);
  if (N == 0)
    return;
  switch (IROp) {
  case Instruction::Shl:
    if (N < 32) { // hi = hi << n | lo >> (32 - n)
      Reg Up = Ri(Opcode::SHLI, A.Hi, N);
      Reg Carried = Ri(Opcode::SHRI, A.Lo, 32 - N);
      emit(Opcode::OR, {Operand::def(D.Hi), Operand::use(Up), Operand::use(Carried)});
      RI(Opcode::SHLI, D.Lo, A.Lo, N);
    } else if (N > 32) {
      RI(Opcode::SHLI, D.Hi, A.Lo, N - 32);
    }
    return;
  case Instruction::LShr:
  case Instruction::AShr: {
    bool Arith = IROp == Instruction::AShr;
    Opcode HiShift = Arith ? Opcode::SRAI : Opcode::SHRI;
    if (N < 32) { // lo = lo >> n | hi << (32 - n)
      Reg Down = Ri(Opcode::SHRI, A.Lo, N);
      Reg Carried = Ri(Opcode::SHLI, A.Hi, 32 - N);
      emit(Opcode::OR, {Operand::def(D.Lo), Operand::use(Down), Operand::use(Carried)});
      RI(HiShift, D.Hi, A.Hi, N);
      return;
    }
    if (N > 32)
      RI(HiShift, D.Lo, A.Hi, N - 32);
    if (Arith)
      RI(Opcode::SRAI, D.Hi, A.Hi, 31);
    return;
  }
  default:
    llvm_unreachable("not a shift");
  }
}

/// Shift by a register amount n in [0, 63], branch-free. With m = 32 - n and
/// k = n - 32 (both read as unsigned by the shifter, so a negative one acts
/// as a count >= 32 and contributes 0):
///   shl:  lo = lo << n;  hi = hi << n | lo >> m | lo << k
///   lshr: hi = hi >> n;  lo = lo >> n | hi << m | hi >> k
///   ashr: hi = hi sra n; lo = n < 32 ? (lo >> n | hi << m) : hi sra k
/// (sra by a negative k gives all sign bits, not 0, hence the select.)
void Selector::emitWideShiftVar(unsigned IROp, ValueRegs A, Reg N, ValueRegs D) {
  Reg NegN = emitRR(Opcode::SUB, 0, N);
  Reg M = emitRI(Opcode::ADDI, Opcode::ADD, NegN, 32);
  Reg K = emitRI(Opcode::ADDI, Opcode::ADD, N, -32);
  auto RR = [&](Opcode O, Reg Dst, Reg X, Reg Y) {
    emit(O, {Operand::def(Dst), Operand::use(X), Operand::use(Y)});
  };
  switch (IROp) {
  case Instruction::Shl: {
    RR(Opcode::SHL, D.Lo, A.Lo, N);
    Reg T1 = emitRR(Opcode::SHL, A.Hi, N);
    Reg T2 = emitRR(Opcode::SHR, A.Lo, M);
    Reg T3 = emitRR(Opcode::SHL, A.Lo, K);
    Reg T12 = emitRR(Opcode::OR, T1, T2);
    RR(Opcode::OR, D.Hi, T12, T3);
    return;
  }
  case Instruction::LShr: {
    RR(Opcode::SHR, D.Hi, A.Hi, N);
    Reg T1 = emitRR(Opcode::SHR, A.Lo, N);
    Reg T2 = emitRR(Opcode::SHL, A.Hi, M);
    Reg T3 = emitRR(Opcode::SHR, A.Hi, K);
    Reg T12 = emitRR(Opcode::OR, T1, T2);
    RR(Opcode::OR, D.Lo, T12, T3);
    return;
  }
  case Instruction::AShr: {
    RR(Opcode::SRA, D.Hi, A.Hi, N);
    Reg Down = emitRR(Opcode::SHR, A.Lo, N);
    Reg Carried = emitRR(Opcode::SHL, A.Hi, M);
    Reg Small = emitRR(Opcode::OR, Down, Carried);
    Reg Big = emitRR(Opcode::SRA, A.Hi, K);
    Reg IsSmall = emitRI(Opcode::SETLTUI, Opcode::SETLTU, N, 32);
    emit(Opcode::SEL, {Operand::def(D.Lo), Operand::use(IsSmall), Operand::use(Small),
                       Operand::use(Big)});
    return;
  }
  default:
    llvm_unreachable("not a shift");
  }
}

//===----------------------------------------------------------------------===//
// icmp (i64)
//===----------------------------------------------------------------------===//
//
// eq/ne: (a.lo ^ b.lo) | (a.hi ^ b.hi) compared with 0.
// ordered: a < b  <=>  hi(a) < hi(b) (signed or unsigned per predicate)
//                      or (hi(a) == hi(b) and lo(a) <u lo(b)); <= uses <=u
// on the low words; > and >= swap the operands.

Error Selector::selectWideICmp(ICmpInst &I) {
  Expected<ValueRegs> EA = regsOf(I.getOperand(0)), EB = regsOf(I.getOperand(1));
  if (!EA)
    return EA.takeError();
  if (!EB)
    return EB.takeError();
  Reg Dst = result(&I);
  emitWideCompare(I.getPredicate(), *EA, *EB, Dst);
  return Error::success();
}

void Selector::emitWideCompare(CmpInst::Predicate P, ValueRegs A, ValueRegs B, Reg Dst) {
  noteZext(Dst, 1);
  if (CmpInst::isEquality(P)) {
    Reg LoDiff = emitRR(Opcode::XOR, A.Lo, B.Lo);
    Reg HiDiff = emitRR(Opcode::XOR, A.Hi, B.Hi);
    Reg Diff = emitRR(Opcode::OR, LoDiff, HiDiff);
    emit(P == CmpInst::ICMP_EQ ? Opcode::SETEQI : Opcode::SETNEI,
         {Operand::def(Dst), Operand::use(Diff), Operand::imm(0)});
    return;
  }
  if (P == CmpInst::ICMP_SGT || P == CmpInst::ICMP_SGE || P == CmpInst::ICMP_UGT ||
      P == CmpInst::ICMP_UGE) {
    std::swap(A, B);
    P = CmpInst::getSwappedPredicate(P);
  }
  bool Signed = CmpInst::isSigned(P);
  bool Strict = P == CmpInst::ICMP_SLT || P == CmpInst::ICMP_ULT;
  Reg HiLess = emitRR(Signed ? Opcode::SETLT : Opcode::SETLTU, A.Hi, B.Hi);
  Reg HiEq = emitRR(Opcode::SETEQ, A.Hi, B.Hi);
  Reg LoCmp = emitRR(Strict ? Opcode::SETLTU : Opcode::SETLEU, A.Lo, B.Lo);
  Reg Tie = emitRR(Opcode::AND, HiEq, LoCmp);
  emit(Opcode::OR, {Operand::def(Dst), Operand::use(HiLess), Operand::use(Tie)});
}

//===----------------------------------------------------------------------===//
// smin smax umin umax (i64)
//===----------------------------------------------------------------------===//
//
// InstCombine turns 64-bit compare-and-select idioms (and C's min/max on
// 64-bit values) into these intrinsics: min(a, b) = a < b ? a : b, one
// 64-bit compare and a sel per word.

bool Selector::isWideMinMax(const IntrinsicInst &II) {
  switch (II.getIntrinsicID()) {
  case Intrinsic::smin:
  case Intrinsic::smax:
  case Intrinsic::umin:
  case Intrinsic::umax:
    return II.getType()->isIntegerTy(64);
  default:
    return false;
  }
}

Error Selector::selectWideMinMax(IntrinsicInst &II) {
  Expected<ValueRegs> EA = regsOf(II.getArgOperand(0)), EB = regsOf(II.getArgOperand(1));
  if (!EA)
    return EA.takeError();
  if (!EB)
    return EB.takeError();
  CmpInst::Predicate TakeA;
  switch (II.getIntrinsicID()) {
  case Intrinsic::smin:
    TakeA = CmpInst::ICMP_SLT;
    break;
  case Intrinsic::smax:
    TakeA = CmpInst::ICMP_SGT;
    break;
  case Intrinsic::umin:
    TakeA = CmpInst::ICMP_ULT;
    break;
  default:
    TakeA = CmpInst::ICMP_UGT;
    break;
  }
  ValueRegs A = *EA, B = *EB, D = resultRegs(&II);
  Reg PickA = newReg();
  emitWideCompare(TakeA, A, B, PickA);
  emit(Opcode::SEL, {Operand::def(D.Lo), Operand::use(PickA), Operand::use(A.Lo),
                     Operand::use(B.Lo)});
  emit(Opcode::SEL, {Operand::def(D.Hi), Operand::use(PickA), Operand::use(A.Hi),
                     Operand::use(B.Hi)});
  return Error::success();
}

} // namespace tandem::isel::detail
