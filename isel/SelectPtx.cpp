//===- SelectPtx.cpp - LLVM IR to ptx MIR ----------------------------------===//
//
// Input invariants and guarantees: see SelectPtx.h (selectPtx).
//
// Value representation (every rule relies on it):
//   * one IR value = one vreg whose class follows its type (classOf):
//     i1 -> Pred, i32 -> B32, i64 and pointers (any space) -> B64,
//     float -> F32, double -> F64. i8 and i16 values are promoted: they
//     live in a B32 register, ZERO-EXTENDED (bits above the type's width
//     are 0). Every rule keeps that: loads use ld.u8/u16, constants are
//     zero-extended immediates, add/sub/mul/shl and anything that may set
//     high bits mask the result (and.b32 0xff/0xffff), and rules that read
//     a narrow value as signed (sdiv, srem, ashr, signed compares, sext,
//     sitofp, smin/smax/abs) sign-extend it first (shl + shr.s32).
//   * pointers hold addresses in their own space: a global pointer is a
//     global address (kernel pointer parameters go through cvta.to.global as
//     the IR's addrspacecast says), a shared pointer the address `mov.u64
//     %rd, sym` gives, a local pointer an address in the local depot.
//   * constants become immediates where the instruction's operand accepts one
//     (RegOrImm) and a `mov` into a fresh register, once per block, elsewhere.
//
// Table-driven (PtxPatterns.td through the shared isel/PatternMatch.h, via
// selectByPattern): arithmetic, selects, conversions, compares (setp with
// its condition code), special-register reads, barriers and memory
// barriers, shuffles, votes, atomics, loads and stores per space and width
// ([base+off] addressing; load.global_nc for read-only data). The rules
// below keep what is not one-to-one: i8/i16 promotion, i1 logic (an i1
// select with a constant arm is one and/or.pred) and i1 compares,
// sign-extending narrow operands of signed compares, casts between address
// spaces, GEPs, which space an access is and the address folding, atomic
// sub, i64 shift amounts, contraction, cttz and 64-bit counts, control flow.
//
//===----------------------------------------------------------------------===//

#include "SelectPtx.h"

#include "AddressSpaces.h"
#include "ExportedVariable.h"
#include "PatternMatch.h"
#include "SourceLines.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/GetElementPtrTypeIterator.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Transforms/Utils/UnrollLoop.h"

#include <map>
#include <tuple>

using namespace llvm;

namespace tandem::isel {

std::string ptxIdentifier(StringRef Name) {
  std::string Out;
  for (char C : Name) {
    if (isAlnum(C) || C == '_' || C == '$')
      Out += C;
    else
      Out += "_$_";
  }
  if (Out.empty() || isDigit(Out[0]))
    Out = "_" + Out;
  return Out;
}

namespace {

using mir::Operand;
using mir::Reg;
using ptx::Opcode;
using ptx::RegClass;

/// The class of a value of type \p T, if PTX values of it are supported.
std::optional<RegClass> classOf(Type *T) {
  if (T->isIntegerTy(1))
    return RegClass::Pred;
  if (T->isIntegerTy() && T->getIntegerBitWidth() <= 32)
    return RegClass::B32;
  if (T->isIntegerTy(64) || T->isPointerTy())
    return RegClass::B64;
  if (T->isFloatTy())
    return RegClass::F32;
  if (T->isDoubleTy())
    return RegClass::F64;
  return std::nullopt;
}

/// i8 and i16, and any other width from 2 to 31 bits (LLVM's indvars
/// makes an i3 counter for a loop of at most 7 trips): promoted to a
/// zero-extended B32 register. Memory, parameters and atomics take only
/// the ISA's widths (accessBits, declareParams, selectAtomicRMW).
bool isNarrowInt(Type *T) {
  return T->isIntegerTy() && T->getIntegerBitWidth() > 1 && T->getIntegerBitWidth() < 32;
}

/// Opcode by record name; the names are the .td's, so a miss is a bug in
/// this file, reported as an internal error by the caller.
std::optional<Opcode> op(StringRef RecordName) { return ptx::lookupOpcode(RecordName); }

/// An address: base register + constant byte offset ([base+off]).
struct Address {
  Reg Base = mir::NoReg;
  int64_t Offset = 0;
};

/// One pattern operand: the IR value, or a register already computed (then
/// Class says its class).
struct PatArg {
  Value *V = nullptr;
  Reg R = mir::NoReg;
  RegClass Class = RegClass::B32;
  std::optional<int64_t> Offset = std::nullopt; ///< set: an address, [R + *Offset]
};

/// Writes constant \p C's bytes (little-endian, as \p DL places them;
/// padding stays zero) into \p Out. Plain data only: integers, floats,
/// null pointers, undef, zeroinitializer, arrays, vectors and structs.
Error initializerBytes(const Constant *C, const DataLayout &DL, MutableArrayRef<uint8_t> Out) {
  if (isa<ConstantAggregateZero>(C) || isa<UndefValue>(C) || isa<ConstantPointerNull>(C))
    return Error::success();
  auto WriteInt = [&](const APInt &V) {
    for (unsigned K = 0; K < Out.size() && K * 8 < V.getBitWidth(); ++K)
      Out[K] = uint8_t(V.extractBitsAsZExtValue(std::min(8u, V.getBitWidth() - K * 8), K * 8));
    return Error::success();
  };
  if (auto *CI = dyn_cast<ConstantInt>(C))
    return WriteInt(CI->getValue());
  if (auto *CF = dyn_cast<ConstantFP>(C))
    return WriteInt(CF->getValueAPF().bitcastToAPInt());
  if (auto *CS = dyn_cast<ConstantStruct>(C)) {
    const StructLayout *SL = DL.getStructLayout(CS->getType());
    for (unsigned K = 0; K < CS->getNumOperands(); ++K)
      if (Error E = initializerBytes(CS->getOperand(K), DL,
                                     Out.drop_front(SL->getElementOffset(K))))
        return E;
    return Error::success();
  }
  if (isa<ConstantArray>(C) || isa<ConstantDataSequential>(C) || isa<ConstantVector>(C)) {
    Type *Elt = isa<ArrayType>(C->getType()) ? C->getType()->getArrayElementType()
                                             : cast<VectorType>(C->getType())->getElementType();
    uint64_t Stride = DL.getTypeAllocSize(Elt);
    unsigned N = isa<ConstantDataSequential>(C)
                     ? cast<ConstantDataSequential>(C)->getNumElements()
                     : C->getNumOperands();
    for (unsigned K = 0; K < N; ++K)
      if (Error E = initializerBytes(C->getAggregateElement(K), DL, Out.drop_front(K * Stride)))
        return E;
    return Error::success();
  }
  return createStringError(formatv("its initializer holds {0}, which ptx cannot emit yet "
                                   "(plain numbers, arrays and structs of them can)",
                                   *C));
}

/// A __constant__ (\p AS 4) or __device__ (1) variable's module-scope
/// declaration: its PTX name, space, size, alignment and initial bytes.
/// Fails, naming the variable, on a declaration without a definition or an
/// initializer ptx cannot emit.
Expected<ptx::KernelInfo::GlobalVar> ptxVariable(const GlobalVariable &GV) {
  const DataLayout &DL = GV.getDataLayout();
  StringRef Kind = GV.getAddressSpace() == ConstAS ? "__constant__" : "__device__";
  if (GV.isDeclaration())
    return createStringError(formatv("{0} variable {1} has no definition in this file (extern "
                                     "variables are not supported on ptx)",
                                     Kind, GV.getName()));
  ptx::KernelInfo::GlobalVar G;
  G.Symbol = ptxIdentifier(GV.getName());
  G.Const = GV.getAddressSpace() == ConstAS;
  G.Size = std::max<uint64_t>(DL.getTypeAllocSize(GV.getValueType()), 1);
  G.Align = std::max<unsigned>(
      GV.getAlign().value_or(DL.getABITypeAlign(GV.getValueType())).value(), 1);
  G.Init.assign(G.Size, 0);
  if (GV.hasInitializer())
    if (Error E = initializerBytes(GV.getInitializer(), DL, G.Init))
      return createStringError(
          formatv("{0} variable {1}: {2}", Kind, GV.getName(), toString(std::move(E))));
  return G;
}

class PtxSelector {
public:
  PtxSelector(Function &F, StringRef Name) : F(F), Fn(std::make_unique<mir::Function>()) {
    Fn->Name = Name.str();
  }

  Expected<PtxSelection> run() {
    if (Error E = declareParams())
      return E;
    if (Error E = layoutShared())
      return E;
    if (Error E = layoutGlobals())
      return E;
    if (Error E = layoutLocals())
      return E;
    createBlocks();
    findNoUnrollHeaders();
    Cur = Fn->Blocks.front().get();
    loadParams();
    for (BasicBlock &BB : F)
      if (Error E = createPhis(BB))
        return E;
    for (BasicBlock &BB : F)
      if (Error E = selectBlock(BB))
        return E;
    if (Error E = fillPhis())
      return E;
    removeDeadCode();
    return PtxSelection{std::move(Fn), std::move(Info)};
  }

private:
  //===--- errors, emission, registers ---------------------------------===//

  StringRef where(const Instruction &I) const { return Lines.of(I); }

  Error cannotSelect(const Instruction &I, StringRef Why = {}) const {
    std::string Text;
    raw_string_ostream OS(Text);
    I.print(OS);
    StringRef Trimmed = StringRef(Text).trim();
    Trimmed = Trimmed.take_front(Trimmed.find(", !dbg"));
    std::string Loc = where(I).str();
    return createStringError(formatv("kernel {0}: cannot select `{1}` for ptx{2}{3}", Fn->Name,
                                     Trimmed, Loc.empty() ? "" : " (" + Loc + ")",
                                     Why.empty() ? "" : ": " + Why.str()));
  }

  Error internal(const Instruction &I, StringRef What) const {
    return cannotSelect(I, ("internal compiler error: " + What).str());
  }

  mir::Inst &emit(unsigned Opc, ArrayRef<Operand> Ops) {
    mir::Inst I;
    I.Opcode = Opc;
    I.Ops.assign(Ops.begin(), Ops.end());
    I.Loc = CurLoc;
    Cur->Insts.push_back(std::move(I));
    return Cur->Insts.back();
  }
  mir::Inst &emit(Opcode O, ArrayRef<Operand> Ops) { return emit(unsigned(O), Ops); }

  Reg newReg(RegClass C, StringRef Name = {}) {
    Reg R = Fn->newVReg(false, Name.str());
    Fn->info(R).RegClass = uint8_t(C);
    return R;
  }
  RegClass classOfReg(Reg R) const { return RegClass(Fn->info(R).RegClass); }

  /// The register of IR value \p V's result (created on first request, so
  /// uses laid out before the definition work).
  Reg result(Value *V) {
    auto It = Values.find(V);
    if (It != Values.end())
      return It->second;
    Reg R = newReg(*classOf(V->getType()), V->getName());
    Values[V] = R;
    return R;
  }

  /// \p I's value is \p R (a no-op cast): copies when a use already asked
  /// for I's register.
  void bindResult(Instruction &I, Reg R) {
    auto It = Values.find(&I);
    if (It == Values.end()) {
      Values[&I] = R;
      return;
    }
    emit(mir::COPY, {Operand::def(It->second), Operand::use(R)});
  }

  /// Bits of a constant as the immediate operand holds them (floats: their
  /// IEEE bits, printed as 0f/0d by the printer).
  static std::optional<int64_t> immediateOf(Value *V) {
    if (auto *C = dyn_cast<ConstantInt>(V)) // i1, i8, i16: zero-extended (see the top)
      return C->getBitWidth() < 32 ? int64_t(C->getZExtValue()) : C->getSExtValue();
    if (auto *C = dyn_cast<ConstantFP>(V))
      return int64_t(C->getValueAPF().bitcastToAPInt().getZExtValue());
    if (isa<ConstantPointerNull>(V) || isa<UndefValue>(V))
      return 0; // undef/poison: any value will do, 0 is the simplest
    return std::nullopt;
  }

  /// A register holding constant \p Imm of class \p C (one mov per block).
  Reg materialize(int64_t Imm, RegClass C) {
    auto Key = std::make_pair(unsigned(C), Imm);
    auto It = BlockConsts.find(Key);
    if (It != BlockConsts.end())
      return It->second;
    static const Opcode Movs[] = {Opcode::MOV_PRED, Opcode::MOV_B32, Opcode::MOV_B64,
                                  Opcode::MOV_F32, Opcode::MOV_F64};
    Reg R = newReg(C);
    if (C == RegClass::Pred) // mov.pred takes no immediate: compare constants
      emit(Opcode::SETP_U32, {Operand::def(R), Operand::imm(int64_t(ptx::CondCode::NE)),
                              Operand::imm(Imm ? 1 : 0), Operand::imm(0)});
    else
      emit(Movs[unsigned(C)], {Operand::def(R), Operand::imm(Imm)});
    BlockConsts[Key] = R;
    return R;
  }

  /// The register holding \p V (constants, globals and constant expressions
  /// are materialized in the current block).
  Expected<Reg> regOf(Value *V) {
    if (isa<Instruction>(V) || isa<Argument>(V)) {
      if (!classOf(V->getType()))
        return createStringError(formatv("kernel {0}: a value of type {1} is not supported on "
                                         "ptx",
                                         Fn->Name, *V->getType()));
      return result(V);
    }
    if (std::optional<int64_t> Imm = immediateOf(V)) {
      std::optional<RegClass> C = classOf(V->getType());
      if (!C)
        return createStringError(formatv("kernel {0}: a constant of type {1} is not supported "
                                         "on ptx",
                                         Fn->Name, *V->getType()));
      return materialize(*Imm, *C);
    }
    if (V->getType()->isPointerTy())
      return constantPointer(cast<Constant>(V));
    // The address of a variable as a 64-bit integer (`(uintptr_t)&var`).
    if (auto *CE = dyn_cast<ConstantExpr>(V);
        CE && CE->getOpcode() == Instruction::PtrToInt && V->getType()->isIntegerTy(64))
      return constantPointer(CE->getOperand(0));
    return createStringError(
        formatv("kernel {0}: constant {1} is not supported on ptx", Fn->Name, *V));
  }

  /// An operand for instruction operand \p Info: an immediate where it
  /// accepts one, else a register.
  Expected<Operand> operandFor(const PatArg &A, const ptx::OperandInfo &Info) {
    if (A.R != mir::NoReg)
      return Operand::use(A.R);
    if (Info.Kind == ptx::OperandKind::RegOrImm)
      if (std::optional<int64_t> Imm = immediateOf(A.V);
          Imm && !A.V->getType()->isPointerTy())
        return Operand::imm(*Imm);
    Expected<Reg> R = regOf(A.V);
    if (!R)
      return R.takeError();
    return Operand::use(*R);
  }

  //===--- constant pointers (shared variables, the local depot) -------===//

  unsigned symbol(StringRef Name) {
    Info.Symbols.push_back(Name.str());
    return Info.Symbols.size() - 1;
  }

  Reg symbolAddress(unsigned Sym) {
    auto It = BlockSyms.find(Sym);
    if (It != BlockSyms.end())
      return It->second;
    Reg R = newReg(RegClass::B64);
    emit(Opcode::MOV_SYM, {Operand::def(R), Operand::imm(Sym)});
    return BlockSyms[Sym] = R;
  }

  Reg addImm64(Reg Base, int64_t Offset) {
    if (Offset == 0)
      return Base;
    Reg R = newReg(RegClass::B64);
    emit(Opcode::ADD_64, {Operand::def(R), Operand::use(Base), Operand::imm(Offset)});
    return R;
  }

  /// A constant pointer as base + offset: a shared variable (plus constant
  /// GEPs), possibly cast to generic.
  Expected<Address> constantAddress(Constant *C) {
    const DataLayout &DL = F.getDataLayout();
    APInt Off(64, 0);
    Value *Base = C->stripAndAccumulateConstantOffsets(DL, Off, /*AllowNonInbounds=*/true);
    if (auto *GV = dyn_cast<GlobalVariable>(Base)) {
      auto It = VarSymbols.find(GV);
      if (It == VarSymbols.end())
        return createStringError(formatv("kernel {0}: global variable {1} in address space {2} "
                                         "is not supported on ptx (__shared__, __constant__ and "
                                         "__device__ variables are)",
                                         Fn->Name, GV->getName(), GV->getAddressSpace()));
      // Stripping looked through address-space casts: the variable's own
      // address (mov) converted to the space C's type says (cvta), which
      // keeps offsets.
      Expected<Reg> Addr = castAddressSpace(symbolAddress(It->second), GV->getType(), C->getType());
      if (!Addr)
        return Addr.takeError();
      return Address{*Addr, Off.getSExtValue()};
    }
    if (auto *CE = dyn_cast<ConstantExpr>(Base);
        CE && CE->getOpcode() == Instruction::AddrSpaceCast) {
      Expected<Reg> Inner = constantPointer(CE->getOperand(0));
      if (!Inner)
        return Inner.takeError();
      Expected<Reg> Cast = castAddressSpace(*Inner, CE->getOperand(0)->getType(), CE->getType());
      if (!Cast)
        return Cast.takeError();
      return Address{*Cast, Off.getSExtValue()};
    }
    if (isa<ConstantPointerNull>(Base))
      return Address{materialize(0, RegClass::B64), Off.getSExtValue()};
    return createStringError(
        formatv("kernel {0}: constant pointer {1} is not supported on ptx", Fn->Name, *C));
  }

  Expected<Reg> constantPointer(Constant *C) {
    Expected<Address> A = constantAddress(C);
    if (!A)
      return A.takeError();
    return addImm64(A->Base, A->Offset);
  }

  /// Converts a pointer between address spaces (cvta).
  Expected<Reg> castAddressSpace(Reg Src, Type *From, Type *To) {
    unsigned S = From->getPointerAddressSpace(), D = To->getPointerAddressSpace();
    if (S == D)
      return Src;
    auto Name = [](unsigned AS) -> StringRef {
      switch (AS) {
      case GlobalAS: return "global";
      case SharedAS: return "shared";
      case LocalAS: return "local";
      case ConstAS: return "const";
      default: return "";
      }
    };
    std::string Rec;
    if (S == GenericAS && !Name(D).empty())
      Rec = ("CVTA_TO_" + Name(D)).str();
    else if (D == GenericAS && !Name(S).empty())
      Rec = ("CVTA_" + Name(S)).str();
    else
      return createStringError(formatv("kernel {0}: a cast from address space {1} to {2} is "
                                       "not supported on ptx",
                                       Fn->Name, S, D));
    Reg R = newReg(RegClass::B64);
    emit(*op(Rec), {Operand::def(R), Operand::use(Src)});
    return R;
  }

  //===--- setup --------------------------------------------------------===//

  Error declareParams() {
    for (Argument &A : F.args()) {
      std::string Sym = formatv("{0}_param_{1}", ptxIdentifier(Fn->Name), A.getArgNo()).str();
      Type *T = A.getType();
      std::string PtxType;
      if (A.hasByValAttr())
        PtxType = "";
      else if (T->isPointerTy() || T->isIntegerTy(64))
        PtxType = ".u64";
      else if (T->isIntegerTy(32))
        PtxType = ".u32";
      else if (T->isIntegerTy(16))
        PtxType = ".u16";
      else if (T->isIntegerTy(8))
        PtxType = ".u8";
      else if (T->isFloatTy())
        PtxType = ".f32";
      else if (T->isDoubleTy())
        PtxType = ".f64";
      if (PtxType.empty())
        return createStringError(
            formatv("kernel {0}: parameter {1} ('{2}') has a type ptx does not support yet "
                    "(pointers, integers, float and double are); pass a pointer",
                    Fn->Name, A.getArgNo(), A.getName()));
      Info.Params.push_back({Sym, PtxType});
      ParamSymbols.push_back(symbol(Sym));
      Fn->Params.push_back({A.getName().str(),
                            T->isPointerTy()  ? mir::ParamKind::Pointer
                            : T->isFloatTy() ? mir::ParamKind::F32
                                             : mir::ParamKind::U32,
                            uint32_t(A.getArgNo())});
    }
    return Error::success();
  }

  void loadParams() {
    CurLoc = {};
    for (Argument &A : F.args()) {
      if (A.use_empty())
        continue;
      static const std::map<std::string, Opcode> Loads = {{".u8", Opcode::LD_PARAM_U8},
                                                          {".u16", Opcode::LD_PARAM_U16},
                                                          {".u32", Opcode::LD_PARAM_U32},
                                                          {".u64", Opcode::LD_PARAM_U64},
                                                          {".f32", Opcode::LD_PARAM_F32},
                                                          {".f64", Opcode::LD_PARAM_F64}};
      emit(Loads.at(Info.Params[A.getArgNo()].PtxType),
           {Operand::def(result(&A)), Operand::imm(ParamSymbols[A.getArgNo()])});
    }
  }

  static bool usedBy(const Value *V, const Function &Fn, SmallPtrSetImpl<const Value *> &Seen) {
    for (const User *U : V->users()) {
      if (const auto *I = dyn_cast<Instruction>(U)) {
        if (I->getFunction() == &Fn)
          return true;
      } else if (isa<Constant>(U) && Seen.insert(U).second && usedBy(U, Fn, Seen)) {
        return true;
      }
    }
    return false;
  }

  /// __shared__ variables the kernel uses become .shared declarations; an
  /// `extern __shared__` array (a declaration or zero-sized) is dynamic
  /// shared memory: `.extern .shared .align 16 .b8 name[]`.
  Error layoutShared() {
    const DataLayout &DL = F.getDataLayout();
    for (GlobalVariable &GV : F.getParent()->globals()) {
      if (GV.getAddressSpace() != SharedAS)
        continue;
      SmallPtrSet<const Value *, 8> Seen;
      if (!usedBy(&GV, F, Seen))
        continue;
      ptx::KernelInfo::SharedVar S;
      S.Symbol = ptxIdentifier(GV.getName());
      S.Size = DL.getTypeAllocSize(GV.getValueType());
      S.Extern = GV.isDeclaration() || S.Size == 0;
      S.Align = S.Extern ? 16
                         : std::max<unsigned>(
                               GV.getAlign().value_or(DL.getABITypeAlign(GV.getValueType())).value(),
                               1);
      VarSymbols[&GV] = symbol(S.Symbol);
      Info.Shared.push_back(S);
    }
    return Error::success();
  }

  /// __constant__ (address space 4) and __device__ (1) variables the kernel
  /// uses become module-scope .const / .global declarations with their
  /// initializers; `mov.u64 %rd, name` gives the address in that space.
  Error layoutGlobals() {
    for (GlobalVariable &GV : F.getParent()->globals()) {
      unsigned AS = GV.getAddressSpace();
      if (AS != ConstAS && AS != GlobalAS)
        continue;
      SmallPtrSet<const Value *, 8> Seen;
      if (!usedBy(&GV, F, Seen))
        continue;
      Expected<ptx::KernelInfo::GlobalVar> G = ptxVariable(GV);
      if (!G)
        return createStringError(formatv("kernel {0}: {1}", Fn->Name, toString(G.takeError())));
      VarSymbols[&GV] = symbol(G->Symbol);
      Info.Globals.push_back(std::move(*G));
    }
    return Error::success();
  }

  /// Allocas live in one per-thread local array, the depot.
  Error layoutLocals() {
    const DataLayout &DL = F.getDataLayout();
    uint64_t End = 0;
    for (Instruction &I : instructions(F)) {
      auto *AI = dyn_cast<AllocaInst>(&I);
      if (!AI)
        continue;
      std::optional<TypeSize> Size = AI->getAllocationSize(DL);
      if (!AI->isStaticAlloca() || !Size || Size->isScalable())
        return cannotSelect(*AI, "only fixed-size allocas in the entry block are supported");
      End = alignTo(End, std::max(AI->getAlign(), Align(4)));
      LocalOffsets[AI] = End;
      End += Size->getFixedValue();
    }
    Info.LocalBytes = alignTo(End, 16);
    if (End)
      Info.LocalDepotSymbol = symbol(ptxIdentifier("__local_depot_" + Fn->Name));
    return Error::success();
  }

  void createBlocks() {
    StringSet<> Taken;
    unsigned Index = 0;
    for (BasicBlock &BB : F) {
      std::string Name = BB.hasName() ? BB.getName().str() : formatv("bb{0}", Index).str();
      std::string Unique = Name;
      for (unsigned K = 1; !Taken.insert(Unique).second; ++K)
        Unique = formatv("{0}.{1}", Name, K).str();
      BlockMap[&BB] = Fn->addBlock(Unique);
      ++Index;
    }
  }

  /// Headers of loops LLVM has unrolled already or must not unroll: a back
  /// edge carries llvm.loop.unroll.disable (or unroll.count 1). Their blocks
  /// start with `.pragma "nounroll"`, as NVPTX's printer writes, or ptxas
  /// unrolls them again (a runtime-unrolled loop's remainder, 3 iterations
  /// at most, became 3 more copies of the body).
  void findNoUnrollHeaders() {
    DominatorTree DT(F);
    LoopInfo LI(DT);
    for (Loop *L : LI.getLoopsInPreorder()) {
      SmallVector<BasicBlock *, 2> Latches;
      L->getLoopLatches(Latches);
      for (BasicBlock *Latch : Latches) {
        MDNode *LoopID = Latch->getTerminator()->getMetadata(LLVMContext::MD_loop);
        if (!LoopID)
          continue;
        MDNode *Count = GetUnrollMetadata(LoopID, "llvm.loop.unroll.count");
        if (GetUnrollMetadata(LoopID, "llvm.loop.unroll.disable") ||
            (Count && mdconst::extract<ConstantInt>(Count->getOperand(1))->isOne()))
          NoUnrollHeaders.insert(L->getHeader());
      }
    }
  }

  //===--- blocks, PHIs -------------------------------------------------===//

  Error createPhis(BasicBlock &BB) {
    Cur = BlockMap[&BB];
    for (PHINode &Phi : BB.phis()) {
      if (!classOf(Phi.getType()))
        return cannotSelect(Phi, "values of this type are not supported on ptx");
      CurLoc = where(Phi);
      Phis.push_back({&Phi, Cur, Cur->Insts.size()});
      emit(mir::PHI, {Operand::def(result(&Phi))});
    }
    return Error::success();
  }

  /// Constant incomings are materialized at the end of the predecessor,
  /// before its terminator.
  Error fillPhis() {
    for (auto &[Phi, B, Index] : Phis) {
      for (unsigned K = 0; K < Phi->getNumIncomingValues(); ++K) {
        mir::Block *Pred = BlockMap.lookup(Phi->getIncomingBlock(K));
        mir::Inst Term = std::move(Pred->Insts.back());
        Pred->Insts.pop_back();
        Cur = Pred;
        forgetBlockValues();
        Expected<Reg> R = regOf(Phi->getIncomingValue(K));
        if (!R)
          return R.takeError();
        Pred->Insts.push_back(std::move(Term));
        B->Insts[Index].Ops.push_back(Operand::use(*R));
        B->Insts[Index].Ops.push_back(Operand::block(Pred));
      }
    }
    return Error::success();
  }

  /// Values kept in a register for reuse within one block (constants,
  /// symbol addresses, sign extensions, scaled indices) are not available
  /// in another: called whenever selection moves to a block.
  void forgetBlockValues() {
    BlockConsts.clear();
    BlockSyms.clear();
    BlockSignExtended.clear();
    BlockScaledIndices.clear();
  }

  Error selectBlock(BasicBlock &BB) {
    Cur = BlockMap[&BB];
    forgetBlockValues();
    if (NoUnrollHeaders.contains(&BB)) {
      CurLoc = {}; // a directive, no source line
      emit(Opcode::PRAGMA_NOUNROLL, {});
    }
    for (Instruction &I : BB) {
      if (isa<PHINode>(I))
        continue;
      CurLoc = where(I);
      if (Error E = checkTypes(I))
        return E;
      if (Error E = selectInst(I))
        return E;
    }
    return Error::success();
  }

  Error checkTypes(Instruction &I) {
    SmallVector<Type *, 4> Types{I.getType()};
    for (Value *Op : I.operands())
      Types.push_back(Op->getType());
    if (isa<AtomicCmpXchgInst>(I) || isa<ExtractValueInst>(I))
      Types.erase(Types.begin()); // the {value, i1} pair: extractvalue splits it
    for (Type *T : Types) {
      if (T->isVoidTy() || T->isLabelTy() || T->isMetadataTy() || T->isTokenTy() ||
          classOf(T))
        continue;
      if (T->isStructTy() && isa<IntrinsicInst>(I))
        continue;
      return cannotSelect(I, "values of this type are not supported on ptx (i1, i32, i64, "
                             "pointers, float and double are)");
    }
    return Error::success();
  }

  //===--- the pattern table ----------------------------------------------===//

  /// Selects \p IRName with operands \p Args and a result of class \p Result
  /// into \p Dst through the first matching pattern; false when none does.
  Expected<bool> selectByPattern(StringRef IRName, ArrayRef<PatArg> Args, RegClass Result,
                                 Reg Dst) {
    return matchPattern(IRName, Args, int16_t(Result), Dst);
  }

  /// The shared matcher (isel/PatternMatch.h) over PtxPatterns.td: classes
  /// from the IR types, constants offered as immediates (PTX's s32 operands
  /// take them). \p ResultClass is target::NoResultClass for no result.
  Expected<bool> matchPattern(StringRef IRName, ArrayRef<PatArg> Args, int16_t ResultClass,
                              Reg Dst) {
    SmallVector<PatternInput, 4> Inputs;
    for (const PatArg &A : Args) {
      if (A.R != mir::NoReg) {
        Inputs.push_back({uint8_t(A.Class), A.Offset, A.Offset.has_value()});
        continue;
      }
      std::optional<RegClass> C = classOf(A.V->getType());
      if (!C)
        return false;
      PatternInput In{uint8_t(*C), std::nullopt};
      if (!A.V->getType()->isPointerTy())
        In.Imm = immediateOf(A.V);
      Inputs.push_back(In);
    }
    const target::PatternDesc *P =
        findPattern(ptx::selectionPatterns(), IRName, ResultClass, Inputs);
    if (!P)
      return false;
    Expected<SmallVector<Operand, 6>> Ops =
        patternOperands(*P, Dst, Inputs, [&](unsigned K) -> Expected<Reg> {
          return Args[K].R != mir::NoReg ? Expected<Reg>(Args[K].R) : regOf(Args[K].V);
        });
    if (!Ops)
      return Ops.takeError();
    emit(unsigned(P->Opcode), *Ops);
    return true;
  }

  /// \p IRName from the table, an instruction without a result.
  Error byPatternNoResult(Instruction &I, StringRef IRName, ArrayRef<PatArg> Args,
                          StringRef Why = "no pattern in PtxPatterns.td matches") {
    Expected<bool> Done = matchPattern(IRName, Args, target::NoResultClass, mir::NoReg);
    if (!Done)
      return Done.takeError();
    return *Done ? Error::success() : cannotSelect(I, Why);
  }

  Error byPattern(Instruction &I, StringRef IRName, ArrayRef<PatArg> Args) {
    Expected<bool> Done = selectByPattern(IRName, Args, *classOf(I.getType()), result(&I));
    if (!Done)
      return Done.takeError();
    return *Done ? Error::success() : cannotSelect(I, "no pattern in PtxPatterns.td matches");
  }

  static SmallVector<PatArg, 3> argsOf(ArrayRef<Value *> Vs) {
    SmallVector<PatArg, 3> Args;
    for (Value *V : Vs)
      Args.push_back({V});
    return Args;
  }

  //===--- dispatch -----------------------------------------------------===//

  Error selectInst(Instruction &I) {
    if (isa<BinaryOperator>(I) && isNarrowInt(I.getType()))
      return selectNarrowBinary(cast<BinaryOperator>(I));
    switch (I.getOpcode()) {
    case Instruction::Shl:
    case Instruction::LShr:
    case Instruction::AShr:
      return selectShift(cast<BinaryOperator>(I));
    case Instruction::FAdd:
      return selectFAdd(cast<BinaryOperator>(I));
    case Instruction::SDiv: // by a power of two: shifts since Prepare
    case Instruction::Add:
    case Instruction::Sub:
    case Instruction::Mul:
    case Instruction::And:
    case Instruction::Or:
    case Instruction::Xor:
    case Instruction::UDiv:
    case Instruction::URem:
    case Instruction::SRem:
    case Instruction::FSub:
    case Instruction::FMul:
    case Instruction::FDiv:
    case Instruction::FNeg: {
      SmallVector<Value *, 2> Ops(I.operands());
      return byPattern(I, I.getOpcodeName(), argsOf(Ops));
    }
    case Instruction::ICmp:
      return selectICmp(cast<ICmpInst>(I));
    case Instruction::FCmp:
      return selectFCmp(cast<FCmpInst>(I));
    case Instruction::Select:
      return selectSelect(cast<SelectInst>(I));
    case Instruction::Trunc:
    case Instruction::ZExt:
    case Instruction::SExt:
    case Instruction::FPToUI:
    case Instruction::FPToSI:
    case Instruction::UIToFP:
    case Instruction::SIToFP:
    case Instruction::FPTrunc:
    case Instruction::FPExt:
    case Instruction::PtrToInt:
    case Instruction::IntToPtr:
    case Instruction::BitCast:
    case Instruction::AddrSpaceCast:
      return selectCast(cast<CastInst>(I));
    case Instruction::Freeze:
      return alias(I, I.getOperand(0));
    case Instruction::GetElementPtr:
      return selectGEP(cast<GetElementPtrInst>(I));
    case Instruction::Load:
      return selectLoad(cast<LoadInst>(I));
    case Instruction::Store:
      return selectStore(cast<StoreInst>(I));
    case Instruction::AtomicRMW:
      return selectAtomicRMW(cast<AtomicRMWInst>(I));
    case Instruction::AtomicCmpXchg:
      return selectCmpXchg(cast<AtomicCmpXchgInst>(I));
    case Instruction::ExtractValue:
      return selectExtractValue(cast<ExtractValueInst>(I));
    case Instruction::Alloca: {
      Reg Depot = symbolAddress(Info.LocalDepotSymbol);
      emit(Opcode::ADD_64, {Operand::def(result(&I)), Operand::use(Depot),
                            Operand::imm(LocalOffsets.lookup(cast<AllocaInst>(&I)))});
      return Error::success();
    }
    case Instruction::Call:
      return selectCall(cast<CallInst>(I));
    case Instruction::Fence:
      emit(Opcode::MEMBAR_GL, {});
      return Error::success();
    case Instruction::Br:
      return selectBranch(cast<BranchInst>(I));
    case Instruction::Ret:
    case Instruction::Unreachable:
      emit(mir::RET, {});
      return Error::success();
    default:
      return cannotSelect(I);
    }
  }

  Error alias(Instruction &I, Value *Src) {
    Expected<Reg> R = regOf(Src);
    if (!R)
      return R.takeError();
    bindResult(I, *R);
    return Error::success();
  }

  //===--- integer and float arithmetic -----------------------------------===//

  //===--- i8 / i16 (promoted to zero-extended B32) --------------------===//

  static int64_t narrowMask(Type *T) {
    return int64_t((uint64_t(1) << T->getIntegerBitWidth()) - 1);
  }

  /// \p V (i8/i16) sign-extended to 32 bits, as a pattern operand. Computed
  /// once per block: every signed use in the block (a compare after a
  /// division, a sext next to an ashr) reads the same word.
  Expected<PatArg> signExtended(Value *V) {
    unsigned Bits = V->getType()->getIntegerBitWidth();
    if (auto *C = dyn_cast<ConstantInt>(V))
      return PatArg{nullptr, materialize(C->getSExtValue(), RegClass::B32), RegClass::B32};
    if (auto Known = BlockSignExtended.find(V); Known != BlockSignExtended.end())
      return PatArg{nullptr, Known->second, RegClass::B32};
    Expected<Reg> X = regOf(V);
    if (!X)
      return X.takeError();
    Reg Up = newReg(RegClass::B32), Word = newReg(RegClass::B32);
    emit(Opcode::SHL_32, {Operand::def(Up), Operand::use(*X), Operand::imm(32 - Bits)});
    emit(Opcode::SRA_32, {Operand::def(Word), Operand::use(Up), Operand::imm(32 - Bits)});
    BlockSignExtended[V] = Word;
    return PatArg{nullptr, Word, RegClass::B32};
  }

  /// Selects \p IRName on \p Args into a fresh B32 register and masks it
  /// to \p I's width into I's register (the zero-extension invariant).
  Error byPatternMasked(Instruction &I, StringRef IRName, ArrayRef<PatArg> Args) {
    Reg Wide = newReg(RegClass::B32);
    Expected<bool> Done = selectByPattern(IRName, Args, RegClass::B32, Wide);
    if (!Done)
      return Done.takeError();
    if (!*Done)
      return cannotSelect(I, "no pattern in PtxPatterns.td matches");
    emit(Opcode::AND_32, {Operand::def(result(&I)), Operand::use(Wide),
                          Operand::imm(narrowMask(I.getType()))});
    return Error::success();
  }

  /// i8/i16 arithmetic in 32 bits. and/or/xor/udiv/urem/lshr of
  /// zero-extended operands are already zero-extended; add/sub/mul/shl
  /// carry into the high bits and are masked; sdiv/srem/ashr read their
  /// (first) operands sign-extended and are masked.
  Error selectNarrowBinary(BinaryOperator &I) {
    Value *A = I.getOperand(0), *B = I.getOperand(1);
    switch (I.getOpcode()) {
    case Instruction::And:
    case Instruction::Or:
    case Instruction::Xor:
    case Instruction::UDiv:
    case Instruction::URem:
    case Instruction::LShr:
      return byPattern(I, I.getOpcodeName(), argsOf({A, B}));
    case Instruction::Add:
    case Instruction::Sub:
    case Instruction::Mul:
    case Instruction::Shl:
      return byPatternMasked(I, I.getOpcodeName(), argsOf({A, B}));
    case Instruction::SDiv:
    case Instruction::SRem:
    case Instruction::AShr: {
      Expected<PatArg> SA = signExtended(A);
      if (!SA)
        return SA.takeError();
      PatArg SB{B};
      if (I.getOpcode() != Instruction::AShr) { // a shift amount is unsigned
        Expected<PatArg> X = signExtended(B);
        if (!X)
          return X.takeError();
        SB = *X;
      }
      return byPatternMasked(I, I.getOpcodeName(), {*SA, SB});
    }
    default:
      return cannotSelect(I);
    }
  }

  /// PTX shifts take a .u32 amount at both widths; a 64-bit amount is
  /// truncated (amounts >= 64 are poison in IR, so any result is right).
  Error selectShift(BinaryOperator &I) {
    PatArg Amount{I.getOperand(1)};
    if (I.getType()->isIntegerTy(64)) {
      if (auto *C = dyn_cast<ConstantInt>(I.getOperand(1))) {
        // An immediate amount, as a 32-bit constant (the .u32 operand).
        Amount = {ConstantInt::get(Type::getInt32Ty(I.getContext()), C->getZExtValue() & 63)};
      } else {
        Expected<Reg> Wide = regOf(I.getOperand(1));
        if (!Wide)
          return Wide.takeError();
        Reg Narrow = newReg(RegClass::B32);
        emit(Opcode::CVT_U32_U64, {Operand::def(Narrow), Operand::use(*Wide)});
        Amount = {nullptr, Narrow, RegClass::B32};
      }
    }
    return byPattern(I, I.getOpcodeName(), {{I.getOperand(0)}, Amount});
  }

  /// `fadd contract (fmul contract a, b), c` is one fma.rn when the product
  /// has no other use: what -ffp-contract=fast (CUDA's default) allows.
  Error selectFAdd(BinaryOperator &I) {
    if (I.hasAllowContract()) {
      for (unsigned K = 0; K < 2; ++K) {
        auto *Mul = dyn_cast<BinaryOperator>(I.getOperand(K));
        if (!Mul || Mul->getOpcode() != Instruction::FMul || !Mul->hasAllowContract() ||
            !Mul->hasOneUse() || Mul->getParent() != I.getParent())
          continue;
        return byPattern(I, "llvm.fma",
                         argsOf({Mul->getOperand(0), Mul->getOperand(1), I.getOperand(1 - K)}));
      }
    }
    return byPattern(I, "fadd", argsOf({I.getOperand(0), I.getOperand(1)}));
  }

  //===--- compares and selects ------------------------------------------===//

  Error selectICmp(ICmpInst &I) {
    Value *A = I.getOperand(0), *B = I.getOperand(1);
    RegClass C = *classOf(A->getType());
    if (C == RegClass::Pred) {
      // i1 compares: ne is xor; eq is not(xor). Ordered ones are rare
      // enough to reject.
      if (!I.isEquality())
        return cannotSelect(I, "ordered compares of i1 values are not supported on ptx");
      Reg X = I.getPredicate() == CmpInst::ICMP_NE ? result(&I) : newReg(RegClass::Pred);
      Expected<bool> Done = selectByPattern("xor", argsOf({A, B}), RegClass::Pred, X);
      if (!Done)
        return Done.takeError();
      if (I.getPredicate() == CmpInst::ICMP_EQ)
        emit(Opcode::NOT_PRED, {Operand::def(result(&I)), Operand::use(X)});
      return Error::success();
    }
    // setp with its condition code comes from the table (IntCmpPat).
    std::string Node = comparePatternName(I.getPredicate());
    bool Unsigned = I.isUnsigned() || I.isEquality();
    if (!Unsigned && isNarrowInt(A->getType())) { // compare the sign-extended words
      Expected<PatArg> SA = signExtended(A);
      if (!SA)
        return SA.takeError();
      Expected<PatArg> SB = signExtended(B);
      if (!SB)
        return SB.takeError();
      return byPattern(I, Node, {*SA, *SB});
    }
    return byPattern(I, Node, argsOf({A, B}));
  }

  /// setp.<cc>.f32/f64 from the table (FpCmpPat); true and false are
  /// constants.
  Error selectFCmp(FCmpInst &I) {
    CmpInst::Predicate P = I.getPredicate();
    if (P == CmpInst::FCMP_TRUE || P == CmpInst::FCMP_FALSE) {
      bindResult(I, materialize(P == CmpInst::FCMP_TRUE, RegClass::Pred));
      return Error::success();
    }
    return byPattern(I, comparePatternName(P), argsOf({I.getOperand(0), I.getOperand(1)}));
  }

  /// selp for values; i1 values: (c & t) | (~c & f).
  /// i1 selects with a constant arm are logic: `select c, x, false` is
  /// `c & x` and `select c, true, x` is `c | x` (LLVM's canonical form of
  /// `&&` and `||`), one and.pred / or.pred instead of the general
  /// not/and/and/or.pred below.
  Expected<bool> selectLogicalSelect(SelectInst &I) {
    auto *T = dyn_cast<ConstantInt>(I.getTrueValue());
    auto *F = dyn_cast<ConstantInt>(I.getFalseValue());
    if (F && F->isZero())
      return selectByPattern("and", argsOf({I.getCondition(), I.getTrueValue()}), RegClass::Pred,
                             result(&I));
    if (T && T->isOne())
      return selectByPattern("or", argsOf({I.getCondition(), I.getFalseValue()}), RegClass::Pred,
                             result(&I));
    return false;
  }

  Error selectSelect(SelectInst &I) {
    if (I.getType()->isIntegerTy(1)) {
      Expected<bool> Logic = selectLogicalSelect(I);
      if (!Logic)
        return Logic.takeError();
      if (*Logic)
        return Error::success();
      Expected<Reg> C = regOf(I.getCondition());
      Expected<Reg> T = regOf(I.getTrueValue());
      Expected<Reg> Fl = regOf(I.getFalseValue());
      if (!C || !T || !Fl)
        return joinErrors(joinErrors(C.takeError(), T.takeError()), Fl.takeError());
      Reg NotC = newReg(RegClass::Pred), A = newReg(RegClass::Pred), B = newReg(RegClass::Pred);
      emit(Opcode::NOT_PRED, {Operand::def(NotC), Operand::use(*C)});
      emit(Opcode::AND_PRED, {Operand::def(A), Operand::use(*C), Operand::use(*T)});
      emit(Opcode::AND_PRED, {Operand::def(B), Operand::use(NotC), Operand::use(*Fl)});
      emit(Opcode::OR_PRED, {Operand::def(result(&I)), Operand::use(A), Operand::use(B)});
      return Error::success();
    }
    return byPattern(I, "select",
                     argsOf({I.getCondition(), I.getTrueValue(), I.getFalseValue()}));
  }

  //===--- casts ----------------------------------------------------------===//

  Error selectCast(CastInst &I) {
    Value *Src = I.getOperand(0);
    Type *From = Src->getType(), *To = I.getType();
    switch (I.getOpcode()) {
    case Instruction::AddrSpaceCast: {
      Expected<Reg> R = regOf(Src);
      if (!R)
        return R.takeError();
      Expected<Reg> Cast = castAddressSpace(*R, From, To);
      if (!Cast)
        return Cast.takeError();
      bindResult(I, *Cast);
      return Error::success();
    }
    case Instruction::PtrToInt:
    case Instruction::IntToPtr:
      if (To->isIntegerTy(32)) // the low word of an address
        return byPattern(I, "trunc", argsOf({Src}));
      if (From->isIntegerTy(32))
        return byPattern(I, "zext", argsOf({Src}));
      return alias(I, Src);
    case Instruction::BitCast:
      if (classOf(From) == classOf(To))
        return alias(I, Src);
      break;
    case Instruction::ZExt:
    case Instruction::SExt:
      if (From->isIntegerTy(1)) {
        // selp: 1 (zext) or -1 (sext) where the predicate holds, else 0.
        Expected<Reg> P = regOf(Src);
        if (!P)
          return P.takeError();
        int64_t One = I.getOpcode() == Instruction::ZExt ? 1
                      : isNarrowInt(To)                  ? narrowMask(To) // zero-extended -1
                                                         : -1;
        Opcode O = To->isIntegerTy(64) ? Opcode::SELP_B64 : Opcode::SELP_B32;
        emit(O, {Operand::def(result(&I)), Operand::imm(One), Operand::imm(0), Operand::use(*P)});
        return Error::success();
      }
      if (isNarrowInt(From))
        return selectNarrowExtend(I);
      break;
    case Instruction::Trunc:
      if (To->isIntegerTy(1)) {
        // The low bit: and with 1, compare with 0.
        Expected<Reg> X = regOf(Src);
        if (!X)
          return X.takeError();
        bool Wide = From->isIntegerTy(64);
        Reg Bit = newReg(Wide ? RegClass::B64 : RegClass::B32);
        emit(Wide ? Opcode::AND_64 : Opcode::AND_32,
             {Operand::def(Bit), Operand::use(*X), Operand::imm(1)});
        emit(Wide ? Opcode::SETP_U64 : Opcode::SETP_U32,
             {Operand::def(result(&I)), Operand::imm(int64_t(ptx::CondCode::NE)),
              Operand::use(Bit), Operand::imm(0)});
        return Error::success();
      }
      if (isNarrowInt(To))
        return selectNarrowTrunc(I);
      break;
    case Instruction::SIToFP:
      if (isNarrowInt(From)) {
        Expected<PatArg> S = signExtended(Src);
        if (!S)
          return S.takeError();
        return byPattern(I, "sitofp", {*S});
      }
      break;
    case Instruction::FPToSI:
    case Instruction::FPToUI:
      if (isNarrowInt(To)) // out of range is poison; masking keeps the invariant
        return byPatternMasked(I, I.getOpcodeName(), argsOf({Src}));
      break;
    default:
      break;
    }
    return byPattern(I, I.getOpcodeName(), argsOf({Src}));
  }

  /// Extensions of zero-extended i8/i16 words: zext is free (or cvt to
  /// 64 bits); sext shifts the value to the top and back arithmetically (and
  /// masks again when the result is itself narrow: i8 -> i16).
  Error selectNarrowExtend(CastInst &I) {
    Expected<Reg> X = regOf(I.getOperand(0));
    if (!X)
      return X.takeError();
    Reg Word = *X;
    if (I.getOpcode() == Instruction::SExt) {
      Expected<PatArg> S = signExtended(I.getOperand(0)); // shared with other signed uses
      if (!S)
        return S.takeError();
      Word = S->R;
      if (I.getType()->isIntegerTy(64)) {
        emit(Opcode::CVT_S64_S32, {Operand::def(result(&I)), Operand::use(Word)});
        return Error::success();
      }
      if (isNarrowInt(I.getType())) {
        emit(Opcode::AND_32, {Operand::def(result(&I)), Operand::use(Word),
                              Operand::imm(narrowMask(I.getType()))});
        return Error::success();
      }
    } else if (I.getType()->isIntegerTy(64)) {
      emit(Opcode::CVT_U64_U32, {Operand::def(result(&I)), Operand::use(Word)});
      return Error::success();
    }
    bindResult(I, Word);
    return Error::success();
  }

  Error selectNarrowTrunc(CastInst &I) {
    Expected<Reg> X = regOf(I.getOperand(0));
    if (!X)
      return X.takeError();
    Reg Src = *X;
    if (I.getOperand(0)->getType()->isIntegerTy(64)) {
      Src = newReg(RegClass::B32);
      emit(Opcode::CVT_U32_U64, {Operand::def(Src), Operand::use(*X)});
    }
    if (!Values.count(&I))
      Values[&I] = newReg(RegClass::B32);
    unsigned Bits = I.getType()->getIntegerBitWidth();
    emit(Opcode::AND_32, {Operand::def(Values[&I]), Operand::use(Src),
                          Operand::imm(int64_t((1u << Bits) - 1))});
    return Error::success();
  }

  //===--- addresses --------------------------------------------------------===//

  /// base + sum(index * size) + constant. Variable indices that are sign-
  /// or zero-extended 32-bit values use mul.wide (one instruction for the
  /// extension and the scaling).
  Error selectGEP(GetElementPtrInst &GEP) {
    Expected<Address> Base = addressOf(GEP.getPointerOperand());
    if (!Base)
      return Base.takeError();
    const DataLayout &DL = F.getDataLayout();
    int64_t Offset = Base->Offset;
    Reg Sum = Base->Base;
    for (gep_type_iterator It = gep_type_begin(GEP), E = gep_type_end(GEP); It != E; ++It) {
      Value *Idx = It.getOperand();
      if (StructType *ST = It.getStructTypeOrNull()) {
        Offset += DL.getStructLayout(ST)->getElementOffset(cast<ConstantInt>(Idx)->getZExtValue());
        continue;
      }
      int64_t Size = It.getSequentialElementStride(DL).getFixedValue();
      if (auto *C = dyn_cast<ConstantInt>(Idx)) {
        Offset += C->getSExtValue() * Size;
        continue;
      }
      Expected<Reg> Scaled = scaledIndex(Idx, Size);
      if (!Scaled)
        return Scaled.takeError();
      Reg Next = newReg(RegClass::B64);
      emit(Opcode::ADD_64, {Operand::def(Next), Operand::use(Sum), Operand::use(*Scaled)});
      Sum = Next;
    }
    GEPAddress[&GEP] = {Sum, Offset};
    // The pointer value itself, for uses that are not memory accesses (dead
    // code removal drops it when every use folded the offset).
    Reg R = result(&GEP);
    if (Offset == 0)
      emit(mir::COPY, {Operand::def(R), Operand::use(Sum)});
    else
      emit(Opcode::ADD_64, {Operand::def(R), Operand::use(Sum), Operand::imm(Offset)});
    return Error::success();
  }

  /// Idx * Size as a 64-bit byte offset, once per block: accesses to
  /// several arrays at one index (vals[j] and colIdx[j]) share it. An
  /// extended index is known by what it extends, so -O0's one sext per
  /// access shares it too (extensions of one value are one number).
  Expected<Reg> scaledIndex(Value *Idx, int64_t Size) {
    ScaledIndexKey Key{Idx, 0, Size};
    if (auto *Ext = dyn_cast<CastInst>(Idx); Ext && (isa<SExtInst>(Ext) || isa<ZExtInst>(Ext)))
      Key = {Ext->getOperand(0), Ext->getOpcode(), Size};
    if (auto It = BlockScaledIndices.find(Key); It != BlockScaledIndices.end())
      return It->second;
    Expected<Reg> Scaled = emitScaledIndex(Idx, Size);
    if (Scaled)
      BlockScaledIndices[Key] = *Scaled;
    return Scaled;
  }

  Expected<Reg> emitScaledIndex(Value *Idx, int64_t Size) {
    Reg Out = newReg(RegClass::B64);
    Value *Narrow = nullptr;
    bool Signed = true;
    if (Idx->getType()->isIntegerTy(32)) {
      Narrow = Idx;
    } else if (auto *Ext = dyn_cast<CastInst>(Idx);
               Ext && (isa<SExtInst>(Ext) || isa<ZExtInst>(Ext)) &&
               Ext->getSrcTy()->isIntegerTy(32)) {
      Narrow = Ext->getOperand(0);
      Signed = isa<SExtInst>(Ext);
    }
    if (Narrow && isInt<32>(Size)) {
      Expected<Reg> N = regOf(Narrow);
      if (!N)
        return N.takeError();
      emit(Signed ? Opcode::MULWIDE_S32 : Opcode::MULWIDE_U32,
           {Operand::def(Out), Operand::use(*N), Operand::imm(Size)});
      return Out;
    }
    if (isNarrowInt(Idx->getType()) && isInt<32>(Size)) {
      // GEP indices are signed: widen the zero-extended word as signed.
      Expected<PatArg> S = signExtended(Idx);
      if (!S)
        return S.takeError();
      emit(Opcode::MULWIDE_S32, {Operand::def(Out), Operand::use(S->R), Operand::imm(Size)});
      return Out;
    }
    Expected<Reg> W = regOf(Idx);
    if (!W)
      return W.takeError();
    if (Size == 1)
      return *W;
    if (isPowerOf2_64(Size))
      emit(Opcode::SHL_64, {Operand::def(Out), Operand::use(*W), Operand::imm(Log2_64(Size))});
    else
      emit(Opcode::MUL_64, {Operand::def(Out), Operand::use(*W), Operand::imm(Size)});
    return Out;
  }

  /// [base+offset] for a pointer: folds a GEP's constant part.
  Expected<Address> addressOf(Value *Ptr) {
    auto It = GEPAddress.find(Ptr);
    if (It != GEPAddress.end())
      return It->second;
    if (auto *C = dyn_cast<Constant>(Ptr))
      return constantAddress(C);
    Expected<Reg> R = regOf(Ptr);
    if (!R)
      return R.takeError();
    return Address{*R, 0};
  }

  /// The PTX state space of an access, as the record-name prefix.
  Expected<StringRef> spaceOf(Value *Ptr, Instruction &I) {
    switch (Ptr->getType()->getPointerAddressSpace()) {
    case GlobalAS: return StringRef("GLOBAL");
    case SharedAS: return StringRef("SHARED");
    case LocalAS: return StringRef("LOCAL");
    case ConstAS: return StringRef("CONST");
    // A pointer whose space preparation could not infer (loaded from
    // memory, passed through an integer): generic ld/st/atom.
    case GenericAS: return StringRef("GENERIC");
    default:
      return cannotSelect(I, "only global, shared, local, const and generic memory accesses "
                             "are supported on ptx");
    }
  }

  /// The access width in bits of a load or store of \p T (the load/store
  /// nodes' <bits>); 0 where ptx has no such access.
  static unsigned accessBits(Type *T) {
    if (T->isIntegerTy(8) || T->isIntegerTy(16) || T->isIntegerTy(32) || T->isIntegerTy(64))
      return T->getIntegerBitWidth();
    if (T->isPointerTy() || T->isDoubleTy())
      return 64;
    if (T->isFloatTy())
      return 32;
    return 0;
  }

  /// A global load may take the read-only (non-coherent) path when the
  /// kernel cannot write the data: the pointer is based on a `noalias`
  /// kernel parameter the kernel only reads through (clang marks
  /// `const T *__restrict__` so; LLVM infers `readonly`).
  static bool isReadOnlyGlobal(LoadInst &L) {
    if (L.isVolatile() || L.isAtomic())
      return false;
    const auto *A = dyn_cast<Argument>(getUnderlyingObject(L.getPointerOperand(), 0));
    return A && A->hasNoAliasAttr() && A->onlyReadsMemory();
  }

  /// The folded address of \p Ptr as an addressing-mode pattern operand.
  Expected<PatArg> addressArg(Value *Ptr) {
    Expected<Address> A = addressOf(Ptr);
    if (!A)
      return A.takeError();
    return PatArg{nullptr, A->Base, RegClass::B64, A->Offset};
  }

  /// Loads and stores come from the table (load_<space>_<bits> and
  /// store_<space>_<bits> in PtxPatterns.td): the node names the space and
  /// width, the value's class the type. Here: the space (and the read-only
  /// path) and the folded address.
  Error selectLoad(LoadInst &L) {
    if (L.isAtomic())
      return cannotSelect(L, "atomic loads are not supported on ptx; use atomicAdd(p, 0)");
    Expected<StringRef> Space = spaceOf(L.getPointerOperand(), L);
    if (!Space)
      return Space.takeError();
    unsigned Bits = accessBits(L.getType());
    if (!Bits)
      return cannotSelect(L, "loads of this type are not supported on ptx");
    std::string SpaceName = Space->lower();
    if (SpaceName == "global" && isReadOnlyGlobal(L))
      SpaceName = "global_nc";
    Expected<PatArg> Addr = addressArg(L.getPointerOperand());
    if (!Addr)
      return Addr.takeError();
    Expected<bool> Done = selectByPattern(formatv("load.{0}.{1}", SpaceName, Bits).str(), {*Addr},
                                          *classOf(L.getType()), result(&L));
    if (!Done)
      return Done.takeError();
    return *Done ? Error::success() : internal(L, "no load pattern for this type and space");
  }

  Error selectStore(StoreInst &S) {
    if (S.isAtomic())
      return cannotSelect(S, "atomic stores are not supported on ptx; use atomicExch");
    Value *V = S.getValueOperand();
    Expected<StringRef> Space = spaceOf(S.getPointerOperand(), S);
    if (!Space)
      return Space.takeError();
    unsigned Bits = accessBits(V->getType());
    StringRef Unsupported = "stores of this type are not supported on ptx";
    if (!Bits)
      return cannotSelect(S, Unsupported);
    Expected<PatArg> Addr = addressArg(S.getPointerOperand());
    if (!Addr)
      return Addr.takeError();
    // The value is a register operand: a constant gets its mov (once per block).
    return byPatternNoResult(S, formatv("store.{0}.{1}", Space->lower(), Bits).str(),
                             {*Addr, PatArg{V}}, Unsupported);
  }

  //===--- atomics ----------------------------------------------------------===//

  Error selectAtomicRMW(AtomicRMWInst &I) {
    Expected<StringRef> Space = spaceOf(I.getPointerOperand(), I);
    if (!Space)
      return Space.takeError();
    if (*Space == "LOCAL")
      return cannotSelect(I, "atomics on local memory are not supported on ptx");
    // The instruction comes from the table (atomic_<op>_<space> patterns,
    // the value's class picks the width); atom has no sub: add the negated
    // value. i8/i16 would match the 32-bit forms, so they are refused here.
    Type *T = I.getType();
    StringRef Unsupported = "this atomic operation or type is not supported on ptx";
    if (isNarrowInt(T))
      return cannotSelect(I, Unsupported);
    StringRef Op = AtomicRMWInst::getOperationName(I.getOperation());
    PatArg Value{I.getValOperand()};
    if (I.getOperation() == AtomicRMWInst::Sub && (T->isIntegerTy(32) || T->isIntegerTy(64))) {
      Expected<Reg> R = regOf(Value.V);
      if (!R)
        return R.takeError();
      RegClass C = T->isIntegerTy(32) ? RegClass::B32 : RegClass::B64;
      Reg Negated = newReg(C);
      emit(C == RegClass::B32 ? Opcode::SUB_32 : Opcode::SUB_64,
           {Operand::def(Negated), Operand::imm(0), Operand::use(*R)});
      Value = {nullptr, Negated, C};
      Op = "add";
    }
    Expected<Address> A = addressOf(I.getPointerOperand());
    if (!A)
      return A.takeError();
    PatArg Addr{nullptr, A->Base, RegClass::B64, A->Offset};
    Expected<bool> Done =
        selectByPattern(("atomicrmw." + Op + "." + Space->lower()).str(), {Addr, Value},
                        *classOf(T), result(&I));
    if (!Done)
      return Done.takeError();
    return *Done ? Error::success() : cannotSelect(I, Unsupported);
  }

  /// cmpxchg gives {old, success}; success is old == compare.
  Error selectCmpXchg(AtomicCmpXchgInst &I) {
    Expected<StringRef> Space = spaceOf(I.getPointerOperand(), I);
    if (!Space)
      return Space.takeError();
    Type *T = I.getCompareOperand()->getType();
    if ((!T->isIntegerTy(32) && !T->isIntegerTy(64)) || *Space == "LOCAL")
      return cannotSelect(I, "atomicCAS works on 32- and 64-bit integers in global or shared "
                             "memory on ptx");
    bool Wide = T->isIntegerTy(64);
    Expected<Address> A = addressOf(I.getPointerOperand());
    Expected<Reg> Cmp = regOf(I.getCompareOperand());
    Expected<Reg> New = regOf(I.getNewValOperand());
    if (!A || !Cmp || !New)
      return joinErrors(joinErrors(A.takeError(), Cmp.takeError()), New.takeError());
    Reg Old = newReg(Wide ? RegClass::B64 : RegClass::B32);
    Reg Ok = newReg(RegClass::Pred);
    emit(*op(("ATOM_" + *Space + (Wide ? "_CAS_B64" : "_CAS_B32")).str()),
         {Operand::def(Old), Operand::use(A->Base), Operand::imm(A->Offset), Operand::use(*Cmp),
          Operand::use(*New)});
    emit(Wide ? Opcode::SETP_U64 : Opcode::SETP_U32,
         {Operand::def(Ok), Operand::imm(int64_t(ptx::CondCode::EQ)), Operand::use(Old),
          Operand::use(*Cmp)});
    Pairs[&I] = {Old, Ok};
    return Error::success();
  }

  Error selectExtractValue(ExtractValueInst &I) {
    auto It = Pairs.find(I.getAggregateOperand());
    if (It == Pairs.end() || I.getNumIndices() != 1 || I.getIndices()[0] > 1)
      return cannotSelect(I, "aggregates are supported only as cmpxchg results on ptx");
    bindResult(I, I.getIndices()[0] == 0 ? It->second.first : It->second.second);
    return Error::success();
  }

  //===--- calls: intrinsics ------------------------------------------------===//

  Error selectCall(CallInst &I) {
    auto *II = dyn_cast<IntrinsicInst>(&I);
    if (!II)
      return cannotSelect(I, "calls are not supported on ptx; device functions are inlined");
    Intrinsic::ID ID = II->getIntrinsicID();
    if (II->isAssumeLikeIntrinsic() || ID == Intrinsic::donothing ||
        ID == Intrinsic::experimental_noalias_scope_decl || ID == Intrinsic::invariant_start ||
        ID == Intrinsic::invariant_end)
      return Error::success();
    StringRef Name = II->getCalledFunction()->getName();
    if (Name.starts_with("llvm.nvvm."))
      return selectNvvm(*II, Name);
    if (II->getType()->isVoidTy() || !classOf(II->getType()))
      return cannotSelect(I, "this intrinsic is not supported on ptx");
    SmallVector<Value *, 3> Args(II->args());
    if (isNarrowInt(II->getType()))
      return selectNarrowIntrinsic(*II);
    switch (ID) {
    case Intrinsic::ctlz:
    case Intrinsic::ctpop:
      Args.resize(1); // ctlz's is-zero-poison flag: clz.b32 gives 32 for 0
      if (Args[0]->getType()->isIntegerTy(64))
        return selectCount64(*II, Args[0]);
      break;
    case Intrinsic::abs:
      Args.resize(1); // abs.s32 of INT_MIN is INT_MIN, the wrapping result
      break;
    case Intrinsic::cttz: {
      // cttz = clz(brev(x)).
      if (!II->getType()->isIntegerTy(32))
        break;
      Expected<Reg> X = regOf(Args[0]);
      if (!X)
        return X.takeError();
      Reg Rev = newReg(RegClass::B32);
      emit(Opcode::BREV_32, {Operand::def(Rev), Operand::use(*X)});
      emit(Opcode::CLZ_32, {Operand::def(result(II)), Operand::use(Rev)});
      return Error::success();
    }
    default:
      break;
    }
    StringRef Base = ID == Intrinsic::fmuladd ? StringRef("llvm.fma") : Intrinsic::getBaseName(ID);
    return byPattern(I, Base, argsOf(Args));
  }

  /// i8/i16 intrinsics on zero-extended words: umin/umax/ctpop as they
  /// are; smin/smax/abs on the sign-extended words, masked.
  Error selectNarrowIntrinsic(IntrinsicInst &II) {
    Intrinsic::ID ID = II.getIntrinsicID();
    StringRef Base = Intrinsic::getBaseName(ID);
    switch (ID) {
    case Intrinsic::umin:
    case Intrinsic::umax:
      return byPattern(II, Base, argsOf({II.getArgOperand(0), II.getArgOperand(1)}));
    case Intrinsic::ctpop:
      return byPattern(II, Base, argsOf({II.getArgOperand(0)}));
    case Intrinsic::smin:
    case Intrinsic::smax:
    case Intrinsic::abs: {
      unsigned N = ID == Intrinsic::abs ? 1 : 2; // abs's is-poison flag is not a value
      SmallVector<PatArg, 2> Args;
      for (unsigned K = 0; K < N; ++K) {
        Expected<PatArg> S = signExtended(II.getArgOperand(K));
        if (!S)
          return S.takeError();
        Args.push_back(*S);
      }
      return byPatternMasked(II, Base, Args);
    }
    default:
      return cannotSelect(II, "this intrinsic on 8- or 16-bit integers is not supported on "
                              "ptx; compute in int");
    }
  }

  /// clz.b64 / popc.b64 count into a .u32; the IR wants an i64.
  Error selectCount64(IntrinsicInst &II, Value *X) {
    Expected<Reg> R = regOf(X);
    if (!R)
      return R.takeError();
    Reg Count = newReg(RegClass::B32);
    emit(II.getIntrinsicID() == Intrinsic::ctlz ? Opcode::CLZ_64 : Opcode::POPC_64,
         {Operand::def(Count), Operand::use(*R)});
    emit(Opcode::CVT_U64_U32, {Operand::def(result(&II)), Operand::use(Count)});
    return Error::success();
  }

  /// Special registers, barriers, shuffles and votes come from the table
  /// (the sreg_*, barrier0, membar_*, shfl_*, vote_* nodes); this checks
  /// what a pattern cannot say (barrier 0 only, the supported forms) and
  /// puts the intrinsic's operands in the nodes' order.
  Error selectNvvm(IntrinsicInst &II, StringRef Name) {
    StringRef Full = Name;
    if (Name.consume_front("llvm.nvvm.read.ptx.sreg.")) {
      if (Name == "warpsize") {
        bindResult(II, materialize(32, RegClass::B32));
        return Error::success();
      }
      Expected<bool> Done = selectByPattern(Full, {}, RegClass::B32, result(&II));
      if (!Done)
        return Done.takeError();
      return *Done ? Error::success()
                   : cannotSelect(II, "this special register is not supported on ptx");
    }
    if (Name == "llvm.nvvm.barrier0" || Name == "llvm.nvvm.bar.sync" ||
        Name == "llvm.nvvm.barrier.sync") {
      if (II.arg_size() > 0) {
        auto *Id = dyn_cast<ConstantInt>(II.getArgOperand(0));
        if (!Id || !Id->isZero())
          return cannotSelect(II, "only barrier 0 (__syncthreads) is supported on ptx");
      }
      return byPatternNoResult(II, "llvm.nvvm.barrier0", {});
    }
    if (Name.starts_with("llvm.nvvm.membar."))
      return byPatternNoResult(II, Name, {});
    if (Name == "llvm.nvvm.bar.warp.sync")
      return byPatternNoResult(II, Name, argsOf({II.getArgOperand(0)}));
    // llvm.nvvm.shfl.sync.MODE.{i32,f32}(mask, value, lane/delta, clamp).
    if (Name.consume_front("llvm.nvvm.shfl.sync.")) {
      auto [Mode, Type] = Name.split('.');
      if (II.getType()->isStructTy() || (Type != "i32" && Type != "f32"))
        return cannotSelect(II, "this shuffle form is not supported on ptx");
      Expected<bool> Done = selectByPattern(
          ("shfl." + Mode).str(),
          argsOf({II.getArgOperand(1), II.getArgOperand(2), II.getArgOperand(3),
                  II.getArgOperand(0)}), // a, b, c, membermask
          *classOf(II.getType()), result(&II));
      if (!Done)
        return Done.takeError();
      return *Done ? Error::success()
                   : cannotSelect(II, "this shuffle mode is not supported on ptx");
    }
    // llvm.nvvm.vote.{any,all,ballot}.sync(mask, pred).
    if (Name.consume_front("llvm.nvvm.vote.")) {
      auto [Kind, Sync] = Name.split('.');
      if (!llvm::is_contained({"any", "all", "ballot"}, Kind) || Sync != "sync")
        return cannotSelect(II, "this vote is not supported on ptx (any, all, ballot with "
                                "_sync are)");
      return byPattern(II, ("vote." + Kind).str(),
                       argsOf({II.getArgOperand(1), II.getArgOperand(0)})); // pred, mask
    }
    // Any other NVVM intrinsic with a value that PtxPatterns.td names (the
    // math library's ex2.approx, cvt.sat, fma.rm): adding one is a .td edit.
    if (std::optional<RegClass> C = classOf(II.getType())) {
      SmallVector<Value *, 3> Args(II.args());
      Expected<bool> Done = selectByPattern(Full, argsOf(Args), *C, result(&II));
      if (!Done)
        return Done.takeError();
      if (*Done)
        return Error::success();
    }
    return cannotSelect(II, "this NVVM intrinsic has no ptx lowering yet");
  }

  //===--- branches -----------------------------------------------------===//

  Error selectBranch(BranchInst &Br) {
    if (Br.isUnconditional()) {
      emit(mir::BR, {Operand::block(BlockMap[Br.getSuccessor(0)])});
      return Error::success();
    }
    if (auto *C = dyn_cast<ConstantInt>(Br.getCondition())) {
      emit(mir::BR, {Operand::block(BlockMap[Br.getSuccessor(C->isOne() ? 0 : 1)])});
      return Error::success();
    }
    Expected<Reg> P = regOf(Br.getCondition());
    if (!P)
      return P.takeError();
    emit(mir::BRCOND, {Operand::use(*P), Operand::block(BlockMap[Br.getSuccessor(0)]),
                       Operand::block(BlockMap[Br.getSuccessor(1)])});
    return Error::success();
  }

  //===--- dead code ----------------------------------------------------===//

  /// Folded GEPs, contracted fmuls and unused parameter loads leave defs
  /// nobody reads; loads the IR had stay (they may be volatile).
  static bool isRemovable(const mir::Inst &I) {
    if (I.isPseudo())
      return I.Opcode == mir::COPY || I.Opcode == mir::PHI || I.Opcode == mir::IMPLICIT_DEF;
    const ptx::InstrDesc &D = ptx::getDesc(I.Opcode);
    return D.isPure() || (D.has(ptx::IsLoad) && D.Space == ptx::MemSpace::Param);
  }

  void removeDeadCode() {
    for (bool Changed = true; Changed;) {
      Changed = false;
      DenseMap<Reg, unsigned> Uses;
      for (const auto &B : Fn->Blocks)
        for (const mir::Inst &I : B->Insts)
          for (const Operand &O : I.Ops)
            if (O.isReg() && !O.IsDef)
              ++Uses[O.R];
      for (const auto &B : Fn->Blocks) {
        size_t Before = B->Insts.size();
        llvm::erase_if(B->Insts, [&](const mir::Inst &I) {
          if (!isRemovable(I))
            return false;
          bool HasDef = false;
          for (const Operand &O : I.Ops)
            if (O.isReg() && O.IsDef) {
              HasDef = true;
              if (Uses.lookup(O.R))
                return false;
            }
          return HasDef;
        });
        Changed |= B->Insts.size() != Before;
      }
    }
  }

  //===--- state ----------------------------------------------------------===//

  Function &F;
  std::unique_ptr<mir::Function> Fn;
  ptx::KernelInfo Info;
  mir::Block *Cur = nullptr;
  /// Inst::Loc of what is being emitted, already stored in the function.
  llvm::StringRef CurLoc;
  mutable SourceLines Lines{*Fn}; ///< where()'s cache
  DenseMap<const BasicBlock *, mir::Block *> BlockMap;
  SmallPtrSet<const BasicBlock *, 4> NoUnrollHeaders; ///< findNoUnrollHeaders
  DenseMap<const Value *, Reg> Values;
  DenseMap<const Value *, std::pair<Reg, Reg>> Pairs; ///< cmpxchg {old, success}
  DenseMap<const Value *, Address> GEPAddress;
  /// __shared__, __constant__ and __device__ variables: their symbol.
  DenseMap<const GlobalVariable *, unsigned> VarSymbols;
  DenseMap<const AllocaInst *, uint64_t> LocalOffsets;
  std::vector<unsigned> ParamSymbols;
  /// Per block: constants and symbol addresses already in a register.
  std::map<std::pair<unsigned, int64_t>, Reg> BlockConsts;
  DenseMap<unsigned, Reg> BlockSyms;
  /// Per block: i8/i16 values already sign-extended to a word (signExtended).
  DenseMap<const Value *, Reg> BlockSignExtended;
  /// Per block: index * size byte offsets already computed (scaledIndex),
  /// by {index or the value it extends, the extension's opcode or 0, size}.
  using ScaledIndexKey = std::tuple<const Value *, unsigned, int64_t>;
  std::map<ScaledIndexKey, Reg> BlockScaledIndices;
  struct PendingPhi {
    PHINode *Phi;
    mir::Block *B;
    size_t Index;
  };
  std::vector<PendingPhi> Phis;
};

} // namespace

Expected<PtxSelection> selectPtx(Function &Kernel, StringRef DisplayName) {
  if (Kernel.isDeclaration())
    return createStringError(formatv("kernel {0}: has no body to compile", DisplayName));
  return PtxSelector(Kernel, DisplayName).run();
}

Expected<std::vector<ptx::KernelInfo::GlobalVar>> ptxExportedVariables(const Module &M) {
  std::vector<ptx::KernelInfo::GlobalVar> Out;
  for (const GlobalVariable &GV : M.globals()) {
    unsigned AS = GV.getAddressSpace();
    if ((AS != ConstAS && AS != GlobalAS) || !isExportedVariable(GV))
      continue;
    Expected<ptx::KernelInfo::GlobalVar> G = ptxVariable(GV);
    if (!G)
      return G.takeError();
    Out.push_back(std::move(*G));
  }
  return Out;
}

} // namespace tandem::isel
