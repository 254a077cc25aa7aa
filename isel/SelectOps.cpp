//===- SelectOps.cpp - simt lowering rules: arithmetic, compares, casts ---===//
//
// Rules for 32-bit-or-narrower values (i64 is SelectWide.cpp's), grouped by
// IR opcode. The instruction always comes from the pattern table
// (SimtPatterns.td) where a one-to-one pattern can express the operation:
// arithmetic, compares, special registers, barrier, shuffles, votes. These
// rules add what a pattern cannot: operand extension for narrow integers,
// canonical compare operands and le/ge-with-constant rewrites, unordered fp
// compares, contraction, bit tricks, and the NVVM checks (barrier id,
// shuffle width).
//
// Invariant relied on and kept (SelectSimtImpl.h): the upper bits of an
// i1/i8/i16 register are undefined; a rule that reads them extends first.
//
//===----------------------------------------------------------------------===//

#include "PatternMatch.h"
#include "SelectSimtImpl.h"

#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace llvm;

namespace tandem::isel::detail {

static Error patternOrFail(Selector &S, Instruction &I, StringRef IRName, ArrayRef<PatArg> Args,
                           Reg Dst) {
  Expected<bool> Done = S.selectByPattern(IRName, Args, Dst);
  if (!Done)
    return Done.takeError();
  return *Done ? Error::success() : S.cannotSelect(I);
}

//===----------------------------------------------------------------------===//
// add sub mul and or xor shl lshr ashr udiv sdiv urem srem (i1..i32)
//===----------------------------------------------------------------------===//
//
// Narrow operands are extended where the result depends on their upper bits:
// right shifts and division read the whole register; every shift amount is
// zero-extended (garbage above it would make a small count look >= 32).

Error Selector::selectBinary(BinaryOperator &I) {
  unsigned Bits = bitsOf(I.getType());
  Ext A = Ext::Any, B = Ext::Any;
  switch (I.getOpcode()) {
  case Instruction::Shl:
    B = Ext::Zext;
    break;
  case Instruction::LShr:
  case Instruction::UDiv:
  case Instruction::URem:
    A = B = Ext::Zext;
    break;
  case Instruction::AShr:
    A = Ext::Sext;
    B = Ext::Zext;
    break;
  case Instruction::SDiv:
  case Instruction::SRem:
    A = B = Ext::Sext;
    break;
  default:
    break;
  }
  Reg Dst = result(&I);
  if (Error E = patternOrFail(*this, I, I.getOpcodeName(), {{I.getOperand(0), A}, {I.getOperand(1), B}},
                              Dst))
    return E;
  if (Bits < 32 && A == Ext::Zext)
    noteZext(Dst, Bits); // lshr, udiv, urem of zero-extended operands
  if (Bits < 32 && A == Ext::Sext)
    noteSext(Dst, Bits);
  // Logic on 0/1 values stays 0/1: keeps i1 and/or/xor branch conditions
  // free of re-normalization.
  auto ZextBits = [&](Value *V) -> std::optional<unsigned> {
    if (auto *C = dyn_cast<ConstantInt>(V))
      return C->getValue().getActiveBits();
    auto R = Values.find(V);
    if (R == Values.end() || !ZextWidth.count(R->second.Lo))
      return std::nullopt;
    return ZextWidth.lookup(R->second.Lo);
  };
  if (I.getOpcode() == Instruction::Or || I.getOpcode() == Instruction::Xor ||
      I.getOpcode() == Instruction::And) {
    std::optional<unsigned> WA = ZextBits(I.getOperand(0)), WB = ZextBits(I.getOperand(1));
    if (WA && WB)
      noteZext(Dst, std::max(std::max(*WA, *WB), 1u));
    else if (I.getOpcode() == Instruction::And && (WA || WB))
      noteZext(Dst, std::max(WA ? *WA : *WB, 1u));
  }
  return Error::success();
}

//===----------------------------------------------------------------------===//
// icmp (i1..i32, pointers)
//===----------------------------------------------------------------------===//
//
// The table (SimtPatterns.td) has eq/ne/lt/le register forms, signed and
// unsigned, gt/ge as swapped register forms, and eq/ne/lt/gt immediate
// forms. What is left here: the constant goes right, operands are extended
// as the predicate's signedness says, and le/ge against a constant become
// lt/gt with the constant moved by one when that reaches an immediate form.

void Selector::emitIntCompare(CmpInst::Predicate P, Reg Dst, Reg A, Reg B) {
  Expected<bool> Done =
      selectByPattern(comparePatternName(P), {{nullptr, Ext::Any, A}, {nullptr, Ext::Any, B}}, Dst);
  if (!Done || !*Done)
    report_fatal_error("SimtPatterns.td lost its register pattern for " +
                       Twine(comparePatternName(P)) +
                       (Done ? Twine() : ": " + toString(Done.takeError())));
  noteZext(Dst, 1);
}

/// `x <= K` is `x < K+1` and `x >= K` is `x > K-1` unless K is the extreme
/// value: the predicate and constant that reach the lt/gt immediate forms.
/// \p K is the 32-bit operand value (sign-extended for signed predicates).
static std::optional<std::pair<CmpInst::Predicate, int64_t>> strictForm(CmpInst::Predicate P,
                                                                         int64_t K) {
  uint32_t UK = static_cast<uint32_t>(K);
  auto Signed32 = [](uint32_t V) { return static_cast<int64_t>(static_cast<int32_t>(V)); };
  switch (P) {
  case CmpInst::ICMP_SLE:
    if (K != INT32_MAX)
      return std::pair(CmpInst::ICMP_SLT, K + 1);
    break;
  case CmpInst::ICMP_SGE:
    if (K != INT32_MIN)
      return std::pair(CmpInst::ICMP_SGT, K - 1);
    break;
  case CmpInst::ICMP_ULE:
    if (UK != UINT32_MAX)
      return std::pair(CmpInst::ICMP_ULT, Signed32(UK + 1));
    break;
  case CmpInst::ICMP_UGE:
    if (UK != 0)
      return std::pair(CmpInst::ICMP_UGT, Signed32(UK - 1));
    break;
  default:
    break;
  }
  return std::nullopt;
}

Error Selector::emitIntCompareValues(CmpInst::Predicate P, Value *A, Value *B, Reg Dst) {
  if (isa<ConstantInt>(A) && !isa<ConstantInt>(B)) {
    std::swap(A, B);
    P = CmpInst::getSwappedPredicate(P);
  }
  Ext E = CmpInst::isSigned(P) ? Ext::Sext : Ext::Zext;
  if (auto *C = dyn_cast<ConstantInt>(B)) {
    if (auto Strict = strictForm(P, constValue(*C, E))) {
      PatternInput Inputs[] = {{0, std::nullopt}, {0, Strict->second}};
      const target::PatternDesc *Imm = findPattern(
          simt::selectionPatterns(), comparePatternName(Strict->first), 0, Inputs);
      if (Imm && takesImmediate(*Imm, 1)) {
        Expected<Reg> RA = regOf(A, E);
        if (!RA)
          return RA.takeError();
        emit(Imm->Opcode, {Operand::def(Dst), Operand::use(*RA), Operand::imm(Strict->second)});
        noteZext(Dst, 1);
        return Error::success();
      }
    }
  }
  Expected<bool> Done = selectByPattern(comparePatternName(P), {{A, E}, {B, E}}, Dst);
  if (!Done)
    return Done.takeError();
  if (!*Done)
    return cannotSelect(*CurInst, "no pattern in SimtPatterns.td matches this compare");
  noteZext(Dst, 1);
  return Error::success();
}

Error Selector::selectICmp(ICmpInst &I) {
  return emitIntCompareValues(I.getPredicate(), I.getOperand(0), I.getOperand(1), result(&I));
}

//===----------------------------------------------------------------------===//
// fcmp
//===----------------------------------------------------------------------===//
//
// The table has the ordered predicates (false on NaN) and uno. Each other
// unordered predicate is the negation of an ordered one (ult = !oge), and
// ord is !uno, so it is that compare followed by xori 1.

Error Selector::selectFCmp(FCmpInst &I) {
  Reg Dst = result(&I);
  noteZext(Dst, 1);
  CmpInst::Predicate P = I.getPredicate();
  if (P == CmpInst::FCMP_TRUE || P == CmpInst::FCMP_FALSE) {
    emit(mir::LI, {Operand::def(Dst), Operand::imm(P == CmpInst::FCMP_TRUE)});
    return Error::success();
  }
  bool Invert = (CmpInst::isUnordered(P) && P != CmpInst::FCMP_UNO) || P == CmpInst::FCMP_ORD;
  CmpInst::Predicate Tested = Invert ? CmpInst::getInversePredicate(P) : P;
  Expected<Reg> A = regOf(I.getOperand(0)), B = regOf(I.getOperand(1));
  if (!A)
    return A.takeError();
  if (!B)
    return B.takeError();
  Reg T = Invert ? newReg() : Dst;
  Expected<bool> Done = selectByPattern(
      comparePatternName(Tested), {{nullptr, Ext::Any, *A}, {nullptr, Ext::Any, *B}}, T);
  if (!Done)
    return Done.takeError();
  if (!*Done)
    return cannotSelect(I);
  if (Invert)
    emit(Opcode::XORI, {Operand::def(Dst), Operand::use(T), Operand::imm(1)});
  return Error::success();
}

//===----------------------------------------------------------------------===//
// select
//===----------------------------------------------------------------------===//

Error Selector::selectSelect(SelectInst &I) {
  if (!I.getType()->isIntegerTy(64))
    return patternOrFail(*this, I, "select",
                         {{I.getCondition(), Ext::Zext}, {I.getTrueValue()}, {I.getFalseValue()}},
                         result(&I));
  // i64: one sel per half.
  Expected<Reg> C = regOf(I.getCondition(), Ext::Zext);
  if (!C)
    return C.takeError();
  Expected<ValueRegs> T = regsOf(I.getTrueValue()), Fl = regsOf(I.getFalseValue());
  if (!T)
    return T.takeError();
  if (!Fl)
    return Fl.takeError();
  ValueRegs D = resultRegs(&I);
  emit(Opcode::SEL, {Operand::def(D.Lo), Operand::use(*C), Operand::use(T->Lo), Operand::use(Fl->Lo)});
  emit(Opcode::SEL, {Operand::def(D.Hi), Operand::use(*C), Operand::use(T->Hi), Operand::use(Fl->Hi)});
  return Error::success();
}

//===----------------------------------------------------------------------===//
// casts: trunc zext sext, int<->float, and the no-ops
//===----------------------------------------------------------------------===//
//
// Pointers are 32-bit, so ptrtoint/inttoptr/bitcast/addrspacecast and trunc
// only rename registers. zext/sext do the extension the narrow source left
// undefined; to i64 they also make the high word.

Error Selector::selectCast(CastInst &I) {
  Value *Src = I.getOperand(0);
  Type *From = Src->getType(), *To = I.getType();
  unsigned FromBits = bitsOf(From);
  bool ToWide = To->isIntegerTy(64), FromWide = From->isIntegerTy(64);
  switch (I.getOpcode()) {
  case Instruction::Trunc:
  case Instruction::PtrToInt:
  case Instruction::IntToPtr:
  case Instruction::BitCast:
  case Instruction::AddrSpaceCast: {
    if (I.getOpcode() == Instruction::IntToPtr && FromBits < 32) {
      Expected<Reg> R = regOf(Src, Ext::Zext);
      if (!R)
        return R.takeError();
      bindResult(I, {*R, mir::NoReg});
      return Error::success();
    }
    Expected<ValueRegs> R = regsOf(Src);
    if (!R)
      return R.takeError();
    ValueRegs Out = *R;
    if (FromWide && !ToWide)
      Out.Hi = mir::NoReg; // the low word
    else if (ToWide && !FromWide)
      Out.Hi = 0; // ptrtoint to i64: pointers are 32-bit unsigned
    bindResult(I, Out);
    return Error::success();
  }
  case Instruction::ZExt:
  case Instruction::SExt: {
    bool Signed = I.getOpcode() == Instruction::SExt;
    Expected<Reg> R = regOf(Src, Signed ? Ext::Sext : Ext::Zext);
    if (!R)
      return R.takeError();
    ValueRegs Out{*R, mir::NoReg};
    if (ToWide)
      Out.Hi = Signed ? emitRI(Opcode::SRAI, Opcode::SRA, *R, 31) : 0;
    bindResult(I, Out);
    return Error::success();
  }
  case Instruction::FPToSI:
  case Instruction::FPToUI:
  case Instruction::SIToFP:
  case Instruction::UIToFP: {
    if (ToWide || FromWide)
      return cannotSelect(I, "conversions between 64-bit integers and float are not supported "
                             "on simt; convert through int/unsigned");
    Ext E = I.getOpcode() == Instruction::SIToFP   ? Ext::Sext
            : I.getOpcode() == Instruction::UIToFP ? Ext::Zext
                                                   : Ext::Any;
    return patternOrFail(*this, I, I.getOpcodeName(), {{Src, E}}, result(&I));
  }
  default:
    return cannotSelect(I);
  }
}

//===----------------------------------------------------------------------===//
// fadd fsub (with contraction)
//===----------------------------------------------------------------------===//
//
// `fadd contract (fmul contract a, b), c` is one ffma when the product has no
// other use (clang emits this shape for a*b+c under -ffp-contract=fast, the
// CUDA default). The fmul itself was selected already; dead-code removal
// drops it.

Error Selector::selectFAddOrFSub(BinaryOperator &I) {
  if (I.getOpcode() == Instruction::FAdd && I.hasAllowContract()) {
    for (unsigned K = 0; K < 2; ++K) {
      auto *Mul = dyn_cast<BinaryOperator>(I.getOperand(K));
      if (!Mul || Mul->getOpcode() != Instruction::FMul || !Mul->hasAllowContract() ||
          !Mul->hasOneUse() || Mul->getParent() != I.getParent())
        continue;
      return patternOrFail(*this, I, "llvm.fma",
                           {{Mul->getOperand(0)}, {Mul->getOperand(1)}, {I.getOperand(1 - K)}},
                           result(&I));
    }
  }
  return patternOrFail(*this, I, I.getOpcodeName(), {{I.getOperand(0)}, {I.getOperand(1)}},
                       result(&I));
}

//===----------------------------------------------------------------------===//
// calls: intrinsics only
//===----------------------------------------------------------------------===//

Error Selector::selectCall(CallInst &I) {
  if (I.isInlineAsm())
    return cannotSelect(I, "inline assembly is not supported on simt");
  if (auto *II = dyn_cast<IntrinsicInst>(&I))
    return selectIntrinsic(*II);
  return cannotSelect(I, "calls are not supported on simt; device functions must be inlined "
                         "(mark them __forceinline__ or static)");
}

/// Extension a table-selected integer intrinsic needs on narrow operands.
static Ext intrinsicOperandExt(Intrinsic::ID ID) {
  switch (ID) {
  case Intrinsic::smin:
  case Intrinsic::smax:
    return Ext::Sext;
  case Intrinsic::umin:
  case Intrinsic::umax:
  case Intrinsic::ctpop:
    return Ext::Zext;
  default:
    return Ext::Any;
  }
}

Error Selector::selectFunnelShift(IntrinsicInst &II, Reg Dst, bool Left) {
  Expected<Reg> A = regOf(II.getArgOperand(0));
  if (!A)
    return A.takeError();
  Expected<Reg> B = regOf(II.getArgOperand(1));
  if (!B)
    return B.takeError();
  // The word shifted left is a for fshl and the high half a for fshr too;
  // only which of the two amounts is c & 31 differs.
  if (auto *C = dyn_cast<ConstantInt>(II.getArgOperand(2))) {
    unsigned K = C->getZExtValue() & 31;
    if (K == 0) {
      emit(mir::COPY, {Operand::def(Dst), Operand::use(Left ? *A : *B)});
      return Error::success();
    }
    unsigned LeftAmount = Left ? K : 32 - K;
    Reg Hi = emitRI(Opcode::SHLI, Opcode::SHL, *A, LeftAmount);
    Reg Lo = emitRI(Opcode::SHRI, Opcode::SHR, *B, 32 - LeftAmount);
    emit(Opcode::OR, {Operand::def(Dst), Operand::use(Hi), Operand::use(Lo)});
    return Error::success();
  }
  Expected<Reg> C = regOf(II.getArgOperand(2));
  if (!C)
    return C.takeError();
  Reg Amount = emitRI(Opcode::ANDI, Opcode::AND, *C, 31);
  Reg Rest = emitRR(Opcode::SUB, loadImm(32), Amount);
  Reg Hi = emitRR(Opcode::SHL, *A, Left ? Amount : Rest);
  Reg Lo = emitRR(Opcode::SHR, *B, Left ? Rest : Amount);
  emit(Opcode::OR, {Operand::def(Dst), Operand::use(Hi), Operand::use(Lo)});
  return Error::success();
}

Error Selector::selectIntrinsic(IntrinsicInst &II) {
  Intrinsic::ID ID = II.getIntrinsicID();
  // Markers with no code.
  if (II.isAssumeLikeIntrinsic() || ID == Intrinsic::donothing ||
      ID == Intrinsic::experimental_noalias_scope_decl || ID == Intrinsic::invariant_start ||
      ID == Intrinsic::invariant_end)
    return Error::success();
  StringRef Name = II.getCalledFunction()->getName();
  if (Name.starts_with("llvm.nvvm."))
    return selectNvvm(II, Name);
  if (isWideMinMax(II))
    return selectWideMinMax(II);
  for (Value *Arg : II.args())
    if (Arg->getType()->isIntegerTy(64) && ID != Intrinsic::ctlz && ID != Intrinsic::cttz)
      return cannotSelect(II, "64-bit operands are not supported by this operation on simt");
  if (II.getType()->isIntegerTy(64))
    return cannotSelect(II, "64-bit results are not supported by this operation on simt");

  Reg Dst = II.getType()->isVoidTy() ? mir::NoReg : result(&II);
  unsigned Bits = II.getType()->isVoidTy() ? 32 : bitsOf(II.getType());
  switch (ID) {
  // ctlz: clz counts in 32 bits; a narrow value counts 32 - Bits fewer.
  case Intrinsic::ctlz: {
    Expected<Reg> X = regOf(II.getArgOperand(0), Ext::Zext);
    if (!X)
      return X.takeError();
    if (Bits == 32) {
      emit(Opcode::CLZ, {Operand::def(Dst), Operand::use(*X)});
    } else {
      Reg T = newReg();
      emit(Opcode::CLZ, {Operand::def(T), Operand::use(*X)});
      emitRI(Opcode::ADDI, Opcode::ADD, Dst, T, -int64_t(32 - Bits));
    }
    return Error::success();
  }
  // cttz: clz of the bit-reversed value; a narrow value gets a stop bit at
  // position Bits so cttz(0) = Bits.
  case Intrinsic::cttz: {
    Expected<Reg> X = regOf(II.getArgOperand(0));
    if (!X)
      return X.takeError();
    Reg In = Bits == 32 ? *X : emitRI(Opcode::ORI, Opcode::OR, *X, int64_t(1) << Bits);
    Reg Rev = newReg();
    emit(Opcode::BREV, {Operand::def(Rev), Operand::use(In)});
    emit(Opcode::CLZ, {Operand::def(Dst), Operand::use(Rev)});
    return Error::success();
  }
  // Funnel shifts (what LLVM makes of rotates): fshl(a, b, c) is the high
  // word of (a:b) << (c & 31), fshr(a, b, c) the low word of (a:b) >> (c & 31).
  // A shift by 32 - 0 = 32 gives 0 on simt (shl/shr), so c & 31 == 0 needs
  // no special case.
  case Intrinsic::fshl:
  case Intrinsic::fshr:
    if (Bits == 32)
      return selectFunnelShift(II, Dst, ID == Intrinsic::fshl);
    break;
  // abs: max(x, -x); INT_MIN stays INT_MIN as in LLVM's wrapping form.
  case Intrinsic::abs: {
    Expected<Reg> X = regOf(II.getArgOperand(0), Ext::Sext);
    if (!X)
      return X.takeError();
    Reg Neg = emitRR(Opcode::SUB, 0, *X);
    emit(Opcode::MAX, {Operand::def(Dst), Operand::use(*X), Operand::use(Neg)});
    return Error::success();
  }
  // copysign(m, s): m's magnitude bits with s's sign bit. InstCombine makes
  // it of `(float)i * 0.0f` (a zero with i's sign); bit operations are
  // exact for every input, NaNs included.
  case Intrinsic::copysign:
    if (II.getType()->isFloatTy()) {
      Expected<Reg> M = regOf(II.getArgOperand(0));
      if (!M)
        return M.takeError();
      Expected<Reg> S = regOf(II.getArgOperand(1));
      if (!S)
        return S.takeError();
      Reg Magnitude = emitRI(Opcode::ANDI, Opcode::AND, *M, 0x7fffffff);
      Reg Sign = emitRI(Opcode::ANDI, Opcode::AND, *S, int64_t(0x80000000u));
      emit(Opcode::OR, {Operand::def(Dst), Operand::use(Magnitude), Operand::use(Sign)});
      return Error::success();
    }
    break;
  // bitreverse of a narrow value: reverse 32 bits, then the value sits in
  // the top Bits bits.
  case Intrinsic::bitreverse:
    if (Bits < 32) {
      Expected<Reg> X = regOf(II.getArgOperand(0));
      if (!X)
        return X.takeError();
      Reg Rev = newReg();
      emit(Opcode::BREV, {Operand::def(Rev), Operand::use(*X)});
      emit(Opcode::SHRI, {Operand::def(Dst), Operand::use(Rev), Operand::imm(32 - Bits)});
      return Error::success();
    }
    break;
  default:
    break;
  }
  // Everything else through the pattern table, by the intrinsic's base name
  // (llvm.smin.i32 -> llvm.smin). fmuladd may fuse, so it is fma.
  StringRef Base = ID == Intrinsic::fmuladd ? StringRef("llvm.fma") : Intrinsic::getBaseName(ID);
  SmallVector<PatArg, 3> Args;
  for (Value *Arg : II.args())
    Args.push_back({Arg, intrinsicOperandExt(ID)});
  if (Dst == mir::NoReg)
    return cannotSelect(II);
  return patternOrFail(*this, II, Base, Args, Dst);
}

//===----------------------------------------------------------------------===//
// NVVM intrinsics: special registers, barrier, shuffles, votes
//===----------------------------------------------------------------------===//

Error Selector::selectNvvm(IntrinsicInst &II, StringRef Name) {
  auto FromTable = [&](StringRef Node, ArrayRef<PatArg> Args, Reg Dst,
                       StringRef Why = {}) -> Error {
    Expected<bool> Done = selectByPattern(Node, Args, Dst);
    if (!Done)
      return Done.takeError();
    return *Done ? Error::success() : cannotSelect(II, Why);
  };
  // %tid.x and friends: one pattern per special register (sreg_* nodes).
  StringRef Full = Name;
  if (Name.consume_front("llvm.nvvm.read.ptx.sreg.")) {
    if (Name == "warpsize") {
      emit(mir::LI, {Operand::def(result(&II)), Operand::imm(simt::WarpSize)});
      return Error::success();
    }
    return FromTable(Full, {}, result(&II),
                     formatv("special register %{0} does not exist on simt", Name).str());
  }
  // __syncthreads(): bar has no barrier number, so only barrier 0 exists.
  if (Name == "llvm.nvvm.barrier0" || Name == "llvm.nvvm.bar.sync" ||
      Name == "llvm.nvvm.barrier.sync") {
    if (II.arg_size() > 0) {
      auto *Id = dyn_cast<ConstantInt>(II.getArgOperand(0));
      if (!Id || !Id->isZero())
        return cannotSelect(II, "simt has one barrier per block; named barriers (id != 0) are "
                                "not supported");
    }
    return FromTable("llvm.nvvm.barrier0", {}, mir::NoReg);
  }
  if (Name.starts_with("llvm.nvvm.membar."))
    return Error::success(); // accesses complete in order (see Fence)
  // __shfl_*_sync(mask, v, lane/delta, c): the mask is ignored (every simt
  // shuffle reads the named lane, active or not); c must be the full-warp
  // value: 0 for up, 0x1f otherwise (a narrower width is not supported).
  if (Name.consume_front("llvm.nvvm.shfl.")) {
    bool Sync = Name.consume_front("sync.");
    StringRef Mode = Name.split('.').first;
    if (!llvm::is_contained({"idx", "up", "down", "bfly"}, Mode) || II.getType()->isStructTy())
      return cannotSelect(II);
    unsigned First = Sync ? 1 : 0;
    auto *Clamp = dyn_cast<ConstantInt>(II.getArgOperand(First + 2));
    uint64_t Want = Mode == "up" ? 0 : 0x1f;
    if (!Clamp || Clamp->getZExtValue() != Want)
      return cannotSelect(II, formatv("only full-warp shuffles are supported on simt (width "
                                      "32: the last argument must be {0})",
                                      Want)
                                  .str());
    return FromTable(("shfl." + Mode).str(),
                     {{II.getArgOperand(First)}, {II.getArgOperand(First + 1), Ext::Zext}},
                     result(&II));
  }
  // __any_sync / __all_sync / __ballot_sync: the mask is ignored (votes see
  // the active lanes).
  if (Name.consume_front("llvm.nvvm.vote.")) {
    StringRef Kind = Name.split('.').first;
    if (!llvm::is_contained({"any", "all", "ballot"}, Kind))
      return cannotSelect(II, "this vote is not supported on simt (any, all, ballot are)");
    Reg Dst = result(&II);
    if (Error E = FromTable(("vote." + Kind).str(),
                            {{II.getArgOperand(II.arg_size() - 1), Ext::Zext}}, Dst))
      return E;
    if (Kind != "ballot")
      noteZext(Dst, 1);
    return Error::success();
  }
  return cannotSelect(II, "this NVVM intrinsic has no simt lowering");
}

} // namespace tandem::isel::detail
