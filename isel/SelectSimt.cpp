//===- SelectSimt.cpp - LLVM IR to simt MIR: driver and shared machinery --===//
//
// Input invariants (isel/Prepare.h): one kernel of a prepared module; triple
// nvptx-nvidia-cuda with 32-bit pointers; no switch; one return block;
// structurized CFG; no calls but intrinsics; allocas static.
// Defensive anyway: anything else is an error naming the kernel, the IR
// instruction and its source line, never a crash.
//
// Guarantees (MIR.h, stage "isel"): SSA vregs; one MIR block per IR block,
// same order, named after the IR block (bb<N> when unnamed); PHIs first in a
// block; each block ends in exactly one BR, BRCOND or RET; BRCOND.Divergent
// where LLVM's UniformityInfo or our DivergenceCheck says so (prepare has
// structurized every region either finds divergent), VRegInfo::Uniform from
// LLVM's UniformityInfo; Block::LoopDepth from
// LoopInfo; Inst::Loc "file:line" where the IR has debug locations; kernel
// parameters are loaded (ld.param.u32 [r0 + 4*i]) at the top of the entry
// block; Function::SharedBytes / LocalBytes hold the static shared layout
// (dynamic `extern __shared__` arrays start at SharedBytes) and the alloca
// layout. Physical r0 (reads as zero) appears only as a use operand. The
// result passes mir::verify(Fn, Simt, false).
//
// Table-driven (SimtPatterns.td through isel/PatternMatch.h): every
// one-to-one operation: integer and fp32 arithmetic, reg+imm forms, fma,
// select, int<->float conversions, integer and ordered fp compares (swapped
// forms included), special-register reads, the barrier, shuffles, votes and
// atomics per space. C++ keeps what is not one-to-one: legalization
// (i1/i8/i16 extension, i64 split in SelectWide.cpp), le/ge-against-a-
// constant rewrites, unordered fp compares (inverse + xori), contraction,
// funnel shifts, ctlz/cttz/abs/copysign, addresses and memory spaces, loads
// and stores, atomic sub and cmpxchg (SelectMemory.cpp), control flow, PHIs
// and divergence marks. Where the rules live: see
// SelectSimtImpl.h.
//
//===----------------------------------------------------------------------===//

#include "SelectSimt.h"
#include "SelectSimtImpl.h"

#include "AddressSpaces.h"
#include "ConstLayout.h"
#include "PatternMatch.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/Analysis/TargetTransformInfoImpl.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <vector>

using namespace llvm;

namespace tandem::isel {
namespace detail {

//===----------------------------------------------------------------------===//
// Uniformity: which values may differ between the lanes of a warp
//===----------------------------------------------------------------------===//
//
// LLVM's UniformityInfo asks the target's TTI for the sources of divergence.
// NVPTX's TTI treats every call, so also %ctaid and %ntid reads, as divergent,
// which would turn every blockIdx-dependent branch into mask code. This TTI
// states the simt machine's facts instead:
//   divergent sources: %tid.*, %laneid, shuffles, atomics, loads from local
//   or unknown (generic) memory, calls that are not known intrinsics;
//   always uniform: vote results (the same in every active lane);
//   kernel arguments, %ctaid, %ntid, %nctaid, %warpid, %nwarps, %clock and
//   loads of a uniform address from global/shared memory are uniform.

static bool isNvvmNamed(const Value *V, StringRef Prefix) {
  const auto *CB = dyn_cast<CallBase>(V);
  const Function *Callee = CB ? CB->getCalledFunction() : nullptr;
  return Callee && Callee->getName().starts_with(Prefix);
}

class SimtTTIImpl : public TargetTransformInfoImplCRTPBase<SimtTTIImpl> {
  using BaseT = TargetTransformInfoImplCRTPBase<SimtTTIImpl>;

public:
  explicit SimtTTIImpl(const DataLayout &DL) : BaseT(DL) {}

  bool hasBranchDivergence(const Function * = nullptr) const { return true; }

  bool isAlwaysUniform(const Value *V) const { return isNvvmNamed(V, "llvm.nvvm.vote."); }

  bool isSourceOfDivergence(const Value *V) const {
    if (isa<Argument>(V))
      return false; // kernel parameters: one value per launch
    const auto *I = dyn_cast<Instruction>(V);
    if (!I)
      return false;
    if (const auto *Load = dyn_cast<LoadInst>(I)) {
      unsigned AS = Load->getPointerAddressSpace();
      return AS == GenericAS || AS == LocalAS; // generic: unknown; local: per thread
    }
    if (I->isAtomic())
      return true;
    if (isNvvmNamed(V, "llvm.nvvm.read.ptx.sreg.tid.") ||
        isNvvmNamed(V, "llvm.nvvm.read.ptx.sreg.laneid") || isNvvmNamed(V, "llvm.nvvm.shfl."))
      return true;
    if (isa<IntrinsicInst>(I))
      return false; // the rest are pure functions of their operands
    return isa<CallBase>(I);
  }
};

//===----------------------------------------------------------------------===//
// Construction, layout, blocks
//===----------------------------------------------------------------------===//

Selector::Selector(Function &F, StringRef Name, UniformityInfo &UI, const LoopInfo &LI)
    : F(F), UI(UI), LI(LI), Check(F), Fn(std::make_unique<mir::Function>()) {
  Fn->Name = Name.str();
}

Expected<std::unique_ptr<mir::Function>> Selector::run() {
  if (Error E = checkSignature())
    return E;
  if (Error E = layoutShared())
    return E;
  if (Error E = layoutAllocas())
    return E;
  if (Error E = layoutConst())
    return E;
  createBlocks();
  Cur = Fn->Blocks.front().get();
  loadParams();
  loadDataBase();
  for (BasicBlock &BB : F)
    for (PHINode &Phi : BB.phis())
      if (Error E = checkTypes(Phi))
        return E;
  for (BasicBlock &BB : F)
    createPhis(BB);
  for (BasicBlock &BB : F)
    if (Error E = selectBlock(BB))
      return E;
  if (Error E = fillPhis())
    return E;
  eliminateLocalDuplicates();
  removeDeadCode();
  return std::move(Fn);
}

/// Kernel parameters: 4 bytes each at offsets 0, 4, 8, ... (KernelImage.md).
Error Selector::checkSignature() {
  uint32_t Offset = 0;
  for (Argument &A : F.args()) {
    std::string Name = A.hasName() ? A.getName().str() : formatv("p{0}", A.getArgNo()).str();
    auto Reject = [&](StringRef Why) {
      return createStringError(formatv("kernel {0}: parameter {1} ('{2}'): {3}", kernelName(),
                                       A.getArgNo(), Name, Why));
    };
    Type *T = A.getType();
    mir::ParamKind Kind;
    if (A.hasByValAttr())
      return Reject("structs passed by value are not supported on simt; pass a pointer");
    if (T->isPointerTy())
      Kind = mir::ParamKind::Pointer;
    else if (T->isFloatTy())
      Kind = mir::ParamKind::F32;
    else if (T->isIntegerTy(64))
      return Reject("64-bit integer parameters are not supported on simt (every parameter is "
                    "one 32-bit word); pass int/unsigned");
    else if (T->isDoubleTy())
      return Reject("double parameters are not supported on simt (fp32 only); pass float");
    else if (T->isIntegerTy(32))
      Kind = A.hasZExtAttr() ? mir::ParamKind::U32 : mir::ParamKind::S32;
    else if (T->isIntegerTy(1) || T->isIntegerTy(8) || T->isIntegerTy(16))
      Kind = A.hasSExtAttr() ? mir::ParamKind::S32 : mir::ParamKind::U32;
    else
      return Reject("this parameter type is not supported on simt");
    Fn->Params.push_back({Name, Kind, Offset});
    Offset += 4;
  }
  return Error::success();
}

/// Used parameters are loaded once at the top of the entry block; small
/// integers are widened by the caller (the runtime writes a 32-bit word), so
/// their extension attribute is trusted.
void Selector::loadParams() {
  CurInst = nullptr;
  CurLoc = {};
  CurUniform = true;
  for (Argument &A : F.args()) {
    if (A.use_empty())
      continue;
    Reg R = Fn->newVReg(/*Uniform=*/true, A.getName().str());
    emit(Opcode::PARAM_LD_U32,
         {Operand::def(R), Operand::use(0), Operand::imm(Fn->Params[A.getArgNo()].Offset)});
    unsigned Bits = bitsOf(A.getType());
    if (Bits < 32 && A.hasSExtAttr())
      noteSext(R, Bits);
    else if (Bits < 32 && A.hasZExtAttr())
      noteZext(R, Bits);
    Values[&A] = {R, mir::NoReg};
  }
}

static bool usedBy(const Value *V, const Function &F, SmallPtrSetImpl<const Value *> &Seen) {
  for (const User *U : V->users()) {
    if (const auto *I = dyn_cast<Instruction>(U)) {
      if (I->getFunction() == &F)
        return true;
    } else if (isa<Constant>(U) && Seen.insert(U).second && usedBy(U, F, Seen)) {
      return true;
    }
  }
  return false;
}

/// Static __shared__ variables this kernel uses get offsets from 0 in module
/// order; `extern __shared__` arrays (declarations or zero-sized) all start
/// at the end of them, which is where the runtime puts the launch's dynamic
/// shared memory (Function::SharedBytes is rounded up to their alignment).
Error Selector::layoutShared() {
  const DataLayout &DL = F.getDataLayout();
  uint64_t End = 0;
  SmallVector<const GlobalVariable *, 2> Dynamic;
  Align DynAlign(4);
  for (const GlobalVariable &GV : F.getParent()->globals()) {
    if (GV.getAddressSpace() != 3)
      continue;
    SmallPtrSet<const Value *, 8> Seen;
    if (!usedBy(&GV, F, Seen))
      continue;
    uint64_t Size = DL.getTypeAllocSize(GV.getValueType());
    Align A = std::max(GV.getAlign().value_or(DL.getABITypeAlign(GV.getValueType())), Align(1));
    if (GV.isDeclaration() || Size == 0) {
      Dynamic.push_back(&GV);
      DynAlign = std::max(DynAlign, A);
      continue;
    }
    End = alignTo(End, A);
    SharedOffsets[&GV] = End;
    End += Size;
    if (End > (1u << 24))
      return createStringError(formatv("kernel {0}: __shared__ variable {1} ends at byte {2}; "
                                       "that is more shared memory than any simt configuration has",
                                       kernelName(), GV.getName(), End));
  }
  if (!Dynamic.empty())
    End = alignTo(End, DynAlign);
  for (const GlobalVariable *GV : Dynamic)
    SharedOffsets[GV] = End;
  Fn->SharedBytes = End;
  return Error::success();
}

/// Allocas: per-thread local memory from 0, each at least 4-aligned.
Error Selector::layoutAllocas() {
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
  Fn->LocalBytes = alignTo(End, 4);
  return Error::success();
}

/// __constant__ and __device__ variables: the module's const and data
/// sections, the same layouts the listing's .const and .data sections are
/// printed from (ConstLayout.h).
Error Selector::layoutConst() {
  Expected<ConstLayout> Layout = layoutConstants(*F.getParent());
  if (!Layout)
    return createStringError(
        formatv("kernel {0}: {1}", kernelName(), toString(Layout.takeError())));
  ConstOffsets = std::move(Layout->Offsets);
  DataBaseSlot = Layout->DataBaseSlot;
  Expected<SectionLayout> Data = layoutDeviceData(*F.getParent());
  if (!Data)
    return createStringError(
        formatv("kernel {0}: {1}", kernelName(), toString(Data.takeError())));
  DataOffsets = std::move(Data->Offsets);
  for (const auto &[GV, Offset] : DataOffsets) {
    SmallPtrSet<const Value *, 8> Seen;
    UsesDeviceData |= usedBy(GV, F, Seen);
  }
  return Error::success();
}

std::optional<uint32_t> Selector::constOffset(const GlobalVariable *GV) const {
  auto It = ConstOffsets.find(GV);
  if (It == ConstOffsets.end())
    return std::nullopt;
  return It->second;
}

uint32_t Selector::sharedOffset(const GlobalVariable *GV) const {
  return SharedOffsets.lookup(GV);
}

std::optional<uint32_t> Selector::localOffset(const AllocaInst *AI) const {
  auto It = LocalOffsets.find(AI);
  if (It == LocalOffsets.end())
    return std::nullopt;
  return It->second;
}

void Selector::createBlocks() {
  StringSet<> Taken;
  unsigned Index = 0;
  for (BasicBlock &BB : F) {
    std::string Name = BB.hasName() ? BB.getName().str() : formatv("bb{0}", Index).str();
    std::string Unique = Name;
    for (unsigned K = 1; !Taken.insert(Unique).second; ++K)
      Unique = formatv("{0}.{1}", Name, K).str();
    mir::Block *B = Fn->addBlock(Unique);
    B->LoopDepth = LI.getLoopDepth(&BB);
    BlockMap[&BB] = B;
    ++Index;
  }
}

//===----------------------------------------------------------------------===//
// Errors and emission
//===----------------------------------------------------------------------===//

StringRef Selector::where(const Instruction &I) const { return Lines.of(I); }

Error Selector::cannotSelect(const Instruction &I, StringRef Why) const {
  std::string Text;
  raw_string_ostream OS(Text);
  I.print(OS);
  // Drop metadata attachments (", !dbg !12"): noise to the reader, who gets
  // the source line in parentheses.
  StringRef Trimmed = StringRef(Text).trim();
  for (size_t At; (At = Trimmed.rfind(", !")) != StringRef::npos;) {
    StringRef Tail = Trimmed.substr(At + 3);
    auto [Kind, Node] = Tail.split(' ');
    if (Kind.empty() || !Node.starts_with("!") || Node.contains(' '))
      break;
    Trimmed = Trimmed.take_front(At);
  }
  std::string Loc = where(I).str();
  return createStringError(formatv("kernel {0}: cannot select `{1}`{2}{3}", kernelName(), Trimmed,
                                   Loc.empty() ? "" : " (" + Loc + ")",
                                   Why.empty() ? "" : ": " + Why.str()));
}

mir::Inst &Selector::emit(unsigned Opcode, ArrayRef<Operand> Ops) {
  mir::Inst I;
  I.Opcode = Opcode;
  I.Ops.assign(Ops.begin(), Ops.end());
  I.Loc = CurLoc;
  Cur->Insts.push_back(std::move(I));
  return Cur->Insts.back();
}

Reg Selector::newReg(StringRef DebugName) { return Fn->newVReg(CurUniform, DebugName.str()); }

bool Selector::fitsImm(Opcode O, int64_t V) {
  auto [Min, Max] = simt::immRange(O);
  return V >= Min && V <= Max;
}

/// Any 32-bit constant; zero is the zero register. Values are kept as the
/// sign-extended 32-bit pattern so equal words share one LI per block.
Reg Selector::loadImm(int64_t Value) {
  Value = static_cast<int32_t>(static_cast<uint32_t>(Value));
  if (Value == 0)
    return 0;
  auto It = BlockImms.find(Value);
  if (It != BlockImms.end())
    return It->second;
  Reg R = Fn->newVReg(/*Uniform=*/true);
  emit(mir::LI, {Operand::def(R), Operand::imm(Value)});
  if (Value > 0)
    noteZext(R, 32 - llvm::countl_zero(static_cast<uint32_t>(Value)));
  BlockImms[Value] = R;
  return R;
}

void Selector::emitRI(Opcode ImmForm, Opcode RegForm, Reg Dst, Reg Src, int64_t Imm) {
  if (fitsImm(ImmForm, Imm))
    emit(ImmForm, {Operand::def(Dst), Operand::use(Src), Operand::imm(Imm)});
  else
    emit(RegForm, {Operand::def(Dst), Operand::use(Src), Operand::use(loadImm(Imm))});
}

Reg Selector::emitRI(Opcode ImmForm, Opcode RegForm, Reg Src, int64_t Imm) {
  Reg Dst = newReg();
  emitRI(ImmForm, RegForm, Dst, Src, Imm);
  return Dst;
}

Reg Selector::emitRR(Opcode O, Reg A, Reg B) {
  Reg Dst = newReg();
  emit(O, {Operand::def(Dst), Operand::use(A), Operand::use(B)});
  return Dst;
}

//===----------------------------------------------------------------------===//
// Values and registers
//===----------------------------------------------------------------------===//

unsigned Selector::bitsOf(Type *T) {
  if (T->isIntegerTy())
    return T->getIntegerBitWidth();
  return 32; // float, pointers
}

int64_t Selector::constValue(const ConstantInt &C, Ext E) {
  unsigned Bits = C.getBitWidth();
  if (Bits >= 32)
    return static_cast<int32_t>(C.getZExtValue());
  if (E == Ext::Zext || (E == Ext::Any && Bits == 1))
    return C.getZExtValue();
  return C.getSExtValue();
}

Reg Selector::newResultReg(Value *V, bool HighWord) {
  std::string Name = V->getName().str();
  if (HighWord && !Name.empty())
    Name += ".hi";
  return Fn->newVReg(!UI.isDivergent(V), Name);
}

ValueRegs &Selector::resultRegs(Value *V) {
  auto It = Values.find(V);
  if (It != Values.end())
    return It->second;
  ValueRegs R;
  R.Lo = newResultReg(V, false);
  if (V->getType()->isIntegerTy(64))
    R.Hi = newResultReg(V, true);
  return Values[V] = R;
}

void Selector::bindResult(Instruction &I, ValueRegs Regs) {
  auto It = Values.find(&I);
  if (It == Values.end()) {
    Values[&I] = Regs;
    return;
  }
  // A use laid out before this block already named I's registers.
  copy(It->second.Lo, Regs.Lo);
  if (It->second.Hi != mir::NoReg)
    copy(It->second.Hi, Regs.Hi);
}

Error Selector::aliasResult(Instruction &I, Value *Src) {
  Expected<ValueRegs> R = regsOf(Src);
  if (!R)
    return R.takeError();
  bindResult(I, *R);
  return Error::success();
}

Expected<ValueRegs> Selector::regsOf(Value *V) {
  if (isa<Instruction>(V) || isa<Argument>(V)) {
    if (isa<Argument>(V) && !Values.count(V))
      return createStringError(formatv("kernel {0}: internal error: parameter {1} not loaded",
                                       kernelName(), V->getName()));
    return resultRegs(V);
  }
  Type *T = V->getType();
  auto Unsupported = [&](StringRef Why) -> Error {
    if (CurInst)
      return cannotSelect(*CurInst, Why);
    return createStringError(formatv("kernel {0}: {1}", kernelName(), Why));
  };
  if (isa<UndefValue>(V)) // undef and poison: zero is as good as any value
    return ValueRegs{0, T->isIntegerTy(64) ? 0u : mir::NoReg};
  if (auto *C = dyn_cast<ConstantInt>(V)) {
    if (C->getBitWidth() == 64) {
      uint64_t W = C->getZExtValue();
      return ValueRegs{loadImm(W & 0xffffffffu), loadImm(W >> 32)};
    }
    if (C->getBitWidth() > 64)
      return Unsupported("integers wider than 64 bits are not supported on simt");
    return ValueRegs{loadImm(constValue(*C, Ext::Any)), mir::NoReg};
  }
  if (auto *C = dyn_cast<ConstantFP>(V)) {
    if (!T->isFloatTy())
      return Unsupported("only fp32 (float) is supported on simt");
    return ValueRegs{loadImm(C->getValueAPF().bitcastToAPInt().getZExtValue()), mir::NoReg};
  }
  if (std::optional<int64_t> Addr = constantAddress(V))
    return ValueRegs{loadImm(*Addr), mir::NoReg};
  if (auto *CE = dyn_cast<ConstantExpr>(V)) {
    switch (CE->getOpcode()) {
    case Instruction::AddrSpaceCast:
    case Instruction::BitCast:
    case Instruction::PtrToInt:
    case Instruction::IntToPtr:
      if (bitsOf(CE->getOperand(0)->getType()) == bitsOf(T))
        return regsOf(CE->getOperand(0));
      break;
    default:
      break;
    }
  }
  if (std::optional<Address> A = deviceDataAddress(V))
    return ValueRegs{A->Offset ? emitRI(Opcode::ADDI, Opcode::ADD, A->Base, A->Offset) : A->Base,
                     mir::NoReg};
  if (auto *GV = dyn_cast<GlobalVariable>(V->stripPointerCasts()))
    return Unsupported(formatv("global variable @{0} is in address space {1}; simt supports "
                               "__shared__, __constant__ and __device__ variables only",
                               GV->getName(), GV->getAddressSpace())
                           .str());
  return Unsupported("unsupported constant operand");
}

Expected<Reg> Selector::regOf(Value *V, Ext E) {
  if (V->getType()->isIntegerTy(64)) {
    if (CurInst)
      return cannotSelect(*CurInst, "64-bit operands are not supported by this operation");
    return createStringError("internal error: 64-bit value read as one register");
  }
  unsigned Bits = bitsOf(V->getType());
  if (auto *C = dyn_cast<ConstantInt>(V))
    return loadImm(constValue(*C, E));
  Expected<ValueRegs> R = regsOf(V);
  if (!R)
    return R.takeError();
  return extend(R->Lo, Bits, E);
}

/// Makes the upper 32 - Bits bits of R defined (zero, or copies of the sign
/// bit), unless they are known to be already.
Reg Selector::extend(Reg R, unsigned Bits, Ext E) {
  if (Bits >= 32 || E == Ext::Any || R == 0)
    return R;
  auto Known = [](const DenseMap<Reg, unsigned> &M, Reg R, unsigned Bits, bool Strict) {
    auto It = M.find(R);
    return It != M.end() && (Strict ? It->second < Bits : It->second <= Bits);
  };
  if (E == Ext::Zext && Known(ZextWidth, R, Bits, false))
    return R;
  // Zero-extended from fewer bits: the sign bit is 0, so it is sign-extended.
  if (E == Ext::Sext && (Known(SextWidth, R, Bits, false) || Known(ZextWidth, R, Bits, true)))
    return R;
  uint64_t Key = (uint64_t(R) << 8) | (Bits << 1) | (E == Ext::Sext ? 1 : 0);
  if (Reg Done = BlockExts.lookup(Key))
    return Done;
  Reg Dst;
  if (E == Ext::Zext && fitsImm(Opcode::ANDI, (int64_t(1) << Bits) - 1)) {
    Dst = emitRI(Opcode::ANDI, Opcode::AND, R, (int64_t(1) << Bits) - 1);
  } else {
    Reg Up = emitRI(Opcode::SHLI, Opcode::SHL, R, 32 - Bits);
    Dst = emitRI(E == Ext::Zext ? Opcode::SHRI : Opcode::SRAI,
                 E == Ext::Zext ? Opcode::SHR : Opcode::SRA, Up, 32 - Bits);
  }
  if (E == Ext::Zext)
    noteZext(Dst, Bits);
  else
    noteSext(Dst, Bits);
  BlockExts[Key] = Dst;
  return Dst;
}

//===----------------------------------------------------------------------===//
// The pattern table (SimtPatterns.td) through the shared matcher
//===----------------------------------------------------------------------===//
//
// simt has one register class (GPR, class 0): every i1..i32, float and
// pointer value fits it. A constant is offered as the immediate it is after
// the operand's extension; the table decides whether an immediate form
// (simm12) takes it.

Expected<bool> Selector::selectByPattern(StringRef IRName, ArrayRef<PatArg> Args, Reg Dst) {
  constexpr uint8_t GPRClass = 0;
  SmallVector<PatternInput, 4> Inputs;
  for (const PatArg &A : Args) {
    if (A.Offset) { // a folded address: base register A.R, offset *A.Offset
      Inputs.push_back({GPRClass, A.Offset, /*IsAddress=*/true});
      continue;
    }
    if (A.R == mir::NoReg && A.V->getType()->isIntegerTy(64))
      return false; // i64 is legalized by SelectWide.cpp, never by the table
    PatternInput In{GPRClass, std::nullopt};
    if (auto *C = dyn_cast_or_null<ConstantInt>(A.V); C && A.R == mir::NoReg)
      In.Imm = constValue(*C, A.E);
    Inputs.push_back(In);
  }
  const target::PatternDesc *P =
      findPattern(simt::selectionPatterns(), IRName,
                  Dst == mir::NoReg ? target::NoResultClass : GPRClass, Inputs);
  if (!P)
    return false;
  Expected<SmallVector<Operand, 6>> Ops =
      patternOperands(*P, Dst, Inputs, [&](unsigned K) -> Expected<Reg> {
        return Args[K].R != mir::NoReg ? Expected<Reg>(Args[K].R) : regOf(Args[K].V, Args[K].E);
      });
  if (!Ops)
    return Ops.takeError();
  emit(P->Opcode, *Ops);
  return true;
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

/// Integers of any width up to 32 live in one register, defined in their
/// low bits (extended where a rule reads the rest), so LLVM's odd-width
/// values (an `i3` induction variable after -O2's indvars) select like i8;
/// in memory only the widths the ISA loads and stores.
static bool isLegalScalar(Type *T) {
  if (T->isIntegerTy())
    return T->getIntegerBitWidth() <= 32 || T->getIntegerBitWidth() == 64;
  return T->isFloatTy() || T->isPointerTy() || T->isVoidTy() || T->isLabelTy() ||
         T->isMetadataTy() || T->isTokenTy();
}

Error Selector::checkTypes(Instruction &I) {
  SmallVector<Type *, 4> Types{I.getType()};
  for (Value *Op : I.operands())
    Types.push_back(Op->getType());
  // cmpxchg's {value, i1} pair is the one aggregate: its extractvalues are
  // checked by selectExtractValue.
  if (auto *CX = dyn_cast<AtomicCmpXchgInst>(&I))
    Types[0] = CX->getCompareOperand()->getType();
  if (isa<ExtractValueInst>(I) && isa<AtomicCmpXchgInst>(I.getOperand(0)))
    Types.pop_back();
  for (Type *T : Types) {
    if (T->isDoubleTy())
      return cannotSelect(I, "double precision (f64) is not supported on simt (fp32 only); use "
                             "float and float literals (1.0f)");
    if (T->isHalfTy() || T->isBFloatTy())
      return cannotSelect(I, "half precision is not supported on simt; use float");
    if (T->isVectorTy())
      return cannotSelect(I, "vector types are not supported on simt");
    if (!isLegalScalar(T))
      return cannotSelect(I, "this type is not supported on simt");
  }
  Type *Accessed = nullptr;
  if (isa<LoadInst>(I) || isa<StoreInst>(I))
    Accessed = getLoadStoreType(&I);
  else if (auto *CX = dyn_cast<AtomicCmpXchgInst>(&I))
    Accessed = CX->getCompareOperand()->getType();
  else if (auto *RMW = dyn_cast<AtomicRMWInst>(&I))
    Accessed = RMW->getValOperand()->getType();
  if (Accessed) {
    if (Accessed->isIntegerTy() &&
        !llvm::is_contained({1u, 8u, 16u, 32u, 64u}, Accessed->getIntegerBitWidth()))
      return cannotSelect(I, "memory accesses of this integer width are not supported on simt "
                             "(8, 16, 32 or 64 bits)");
  }
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Blocks, PHIs, branches
//===----------------------------------------------------------------------===//

/// Whether the i1 \p V is selected as exactly 0 or 1 in its register:
/// constants are (loaded zero-extended), compares are, and/or/xor of such
/// values are (selectBinary notes it too), and so is a phi of such values
/// (a phi on the way is assumed to be: if all the others are, it is). Not
/// an undef incoming: zext of undef must still give 0 or 1, and an
/// IMPLICIT_DEF leaves any bits.
static bool isZeroOrOne(const Value *V, SmallPtrSetImpl<const PHINode *> &Visiting) {
  if (isa<ConstantInt>(V) || isa<CmpInst>(V))
    return true;
  if (const auto *Op = dyn_cast<BinaryOperator>(V))
    return (Op->getOpcode() == Instruction::And || Op->getOpcode() == Instruction::Or ||
            Op->getOpcode() == Instruction::Xor) &&
           isZeroOrOne(Op->getOperand(0), Visiting) && isZeroOrOne(Op->getOperand(1), Visiting);
  const auto *Phi = dyn_cast<PHINode>(V);
  if (!Phi)
    return false;
  if (!Visiting.insert(Phi).second)
    return true;
  return llvm::all_of(Phi->incoming_values(),
                      [&](const Value *In) { return isZeroOrOne(In, Visiting); });
}

void Selector::createPhis(BasicBlock &BB) {
  Cur = BlockMap[&BB];
  for (PHINode &Phi : BB.phis()) {
    CurInst = &Phi;
    CurLoc = where(Phi);
    ValueRegs &R = resultRegs(&Phi);
    // StructurizeCFG's flag phis (`phi i1 [false, %else], [true, %hdr]`):
    // the branch on one then needs no andi.
    SmallPtrSet<const PHINode *, 4> Visiting;
    if (Phi.getType()->isIntegerTy(1) && isZeroOrOne(&Phi, Visiting))
      noteZext(R.Lo, 1);
    Phis.push_back({&Phi, Cur, Cur->Insts.size(), R.Hi != mir::NoReg});
    emit(mir::PHI, {Operand::def(R.Lo)});
    if (R.Hi != mir::NoReg)
      emit(mir::PHI, {Operand::def(R.Hi)});
  }
}

/// PHI operands are filled once every block is selected, so every incoming
/// instruction has its registers. Constant incomings are materialized at the
/// end of the predecessor (before its terminator): a PHI operand is always a
/// virtual register, never r0, so cfg lowering's copies need no special case.
/// An undef incoming (StructurizeCFG's Flow phis have one on every edge that
/// skips the region) is a fresh vreg defined by IMPLICIT_DEF, not a loaded
/// zero: cfg lowering turns its copy into an IMPLICIT_DEF of the phi
/// (partial under a narrowed mask), so no instruction runs for it.
Error Selector::fillPhis() {
  // Per predecessor: the immediates already loaded there for PHIs, so PHIs
  // sharing a constant incoming share its LI.
  DenseMap<mir::Block *, DenseMap<int64_t, Reg>> PredImms;
  for (PendingPhi &P : Phis) {
    CurInst = P.Phi;
    CurLoc = where(*P.Phi);
    for (unsigned K = 0; K < P.Phi->getNumIncomingValues(); ++K) {
      Value *In = P.Phi->getIncomingValue(K);
      mir::Block *Pred = BlockMap.lookup(P.Phi->getIncomingBlock(K));
      // Emit into Pred in front of its terminator: constants are loaded
      // there, an undef gets its IMPLICIT_DEF there, and a half that is the
      // zero register (an i64 zext's high word) becomes a vreg there.
      mir::Inst Term = std::move(Pred->Insts.back());
      Pred->Insts.pop_back();
      Cur = Pred;
      BlockImms = std::move(PredImms[Pred]);
      BlockExts.clear();
      CurUniform = true;
      Expected<ValueRegs> Got = isa<UndefValue>(In) ? undefinedRegs(P.Wide) : regsOf(In);
      if (!Got)
        return Got.takeError();
      ValueRegs R = *Got;
      for (Reg *Half : {&R.Lo, &R.Hi})
        if (*Half != mir::NoReg && mir::isPhysical(*Half)) {
          Reg &Zero = BlockImms[0]; // loadImm never caches 0: a free slot
          if (!Zero) {
            Zero = Fn->newVReg(true);
            emit(mir::LI, {Operand::def(Zero), Operand::imm(0)});
          }
          *Half = Zero;
        }
      PredImms[Pred] = std::move(BlockImms);
      BlockImms.clear();
      Pred->Insts.push_back(std::move(Term));
      P.B->Insts[P.Index].Ops.push_back(Operand::use(R.Lo));
      P.B->Insts[P.Index].Ops.push_back(Operand::block(Pred));
      if (P.Wide) {
        P.B->Insts[P.Index + 1].Ops.push_back(Operand::use(R.Hi));
        P.B->Insts[P.Index + 1].Ops.push_back(Operand::block(Pred));
      }
    }
  }
  return Error::success();
}

ValueRegs Selector::undefinedRegs(bool Wide) {
  ValueRegs R{Fn->newVReg(true), Wide ? Fn->newVReg(true) : mir::NoReg};
  for (Reg Half : {R.Lo, R.Hi})
    if (Half != mir::NoReg)
      emit(mir::IMPLICIT_DEF, {Operand::def(Half)});
  return R;
}

Error Selector::selectBlock(BasicBlock &BB) {
  Cur = BlockMap[&BB];
  BlockImms.clear();
  BlockExts.clear();
  for (Instruction &I : BB) {
    if (isa<PHINode>(I))
      continue;
    CurInst = &I;
    CurLoc = where(I);
    CurUniform = I.getType()->isVoidTy() || !UI.isDivergent(&I);
    for (Value *Op : I.operands())
      if ((isa<Instruction>(Op) || isa<Argument>(Op)) && UI.isDivergent(Op))
        CurUniform = false;
    if (Error E = checkTypes(I))
      return E;
    if (Error E = selectInst(I))
      return E;
  }
  return Error::success();
}

/// `br i1 (icmp ne x, 0)` branches on x itself (and `icmp eq x, 0` with the
/// targets swapped): the compare is then dead and removed.
Error Selector::selectBranch(BranchInst &Br) {
  if (Br.isUnconditional()) {
    emit(mir::BR, {Operand::block(BlockMap[Br.getSuccessor(0)])});
    return Error::success();
  }
  Value *Cond = Br.getCondition();
  BasicBlock *T = Br.getSuccessor(0), *Fl = Br.getSuccessor(1);
  if (auto *C = dyn_cast<ConstantInt>(Cond)) {
    emit(mir::BR, {Operand::block(BlockMap[C->isOne() ? T : Fl])});
    return Error::success();
  }
  Value *Tested = Cond;
  if (auto *Cmp = dyn_cast<ICmpInst>(Cond)) {
    auto *Zero = dyn_cast<ConstantInt>(Cmp->getOperand(1));
    if (Cmp->isEquality() && Zero && Zero->isZero() && Cmp->hasOneUse() &&
        Cmp->getParent() == Br.getParent() && !Cmp->getOperand(0)->getType()->isIntegerTy(64)) {
      Tested = Cmp->getOperand(0);
      if (Cmp->getPredicate() == CmpInst::ICMP_EQ)
        std::swap(T, Fl);
    }
  }
  Expected<Reg> R = regOf(Tested, Ext::Zext);
  if (!R)
    return R.takeError();
  mir::Inst &I = emit(mir::BRCOND, {Operand::use(*R), Operand::block(BlockMap[T]),
                                    Operand::block(BlockMap[Fl])});
  // Divergent when either analysis says so: a branch lowered as uniform
  // whose lanes disagree would run one side for the whole warp.
  I.Divergent = UI.hasDivergentTerminator(*Br.getParent()) ||
                Check.hasDivergentTerminator(*Br.getParent());
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Dispatch by IR opcode
//===----------------------------------------------------------------------===//

Error Selector::selectInst(Instruction &I) {
  switch (I.getOpcode()) {
  case Instruction::Add:
  case Instruction::Sub:
  case Instruction::Mul:
  case Instruction::And:
  case Instruction::Or:
  case Instruction::Xor:
  case Instruction::Shl:
  case Instruction::LShr:
  case Instruction::AShr:
  case Instruction::UDiv:
  case Instruction::SDiv:
  case Instruction::URem:
  case Instruction::SRem:
    if (I.getType()->isIntegerTy(64))
      return selectWideBinary(cast<BinaryOperator>(I));
    return selectBinary(cast<BinaryOperator>(I));
  case Instruction::FAdd:
  case Instruction::FSub:
    return selectFAddOrFSub(cast<BinaryOperator>(I));
  case Instruction::FMul:
  case Instruction::FDiv:
  case Instruction::FNeg: {
    SmallVector<PatArg, 2> Args;
    for (Value *Op : I.operands())
      Args.push_back({Op});
    Expected<bool> Done = selectByPattern(I.getOpcodeName(), Args, result(&I));
    if (!Done)
      return Done.takeError();
    return *Done ? Error::success() : cannotSelect(I);
  }
  case Instruction::ICmp:
    if (I.getOperand(0)->getType()->isIntegerTy(64))
      return selectWideICmp(cast<ICmpInst>(I));
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
  case Instruction::PtrToInt:
  case Instruction::IntToPtr:
  case Instruction::BitCast:
  case Instruction::AddrSpaceCast:
    return selectCast(cast<CastInst>(I));
  case Instruction::Freeze:
    return aliasResult(I, I.getOperand(0));
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
  case Instruction::Alloca:
    emit(mir::LI, {Operand::def(result(&I)),
                   Operand::imm(*localOffset(cast<AllocaInst>(&I)))});
    return Error::success();
  case Instruction::Call:
    return selectCall(cast<CallInst>(I));
  case Instruction::Fence:
    // Every simt memory access completes in program order (ISA.md), so a
    // fence (__threadfence) needs no instruction.
    return Error::success();
  case Instruction::Br:
    return selectBranch(cast<BranchInst>(I));
  case Instruction::Ret:
  case Instruction::Unreachable: // nothing follows: finishing the lanes is fine
    emit(mir::RET, {});
    return Error::success();
  case Instruction::Switch:
    return cannotSelect(I, "switch should have been lowered by preparation (internal error)");
  default:
    return cannotSelect(I);
  }
}

//===----------------------------------------------------------------------===//
// Local value numbering: one instruction per computation per block
//===----------------------------------------------------------------------===//
//
// Address arithmetic is selected per GEP, so two GEPs with the same index
// (out[i] = in[i]) compute `i << 2` twice. Within a block, a later pure
// instruction identical to an earlier one is dropped and its uses renamed:
// the earlier one is in the same block, before it, so it dominates every use.

static bool isPureComputation(const mir::Inst &I) {
  if (I.isPseudo())
    return I.Opcode == mir::LI;
  const simt::InstrDesc &D = simt::getDesc(static_cast<Opcode>(I.Opcode));
  constexpr uint32_t NotPure = simt::IsLoad | simt::IsStore | simt::IsAtomic | simt::IsBranch |
                               simt::IsJump | simt::IsTerminator | simt::IsBarrier |
                               simt::IsExit | simt::IsMaskOp | simt::IsWarpOp | simt::ReadsRd;
  // s2r %clock differs between reads; the others are constant per thread.
  if (I.Opcode == opc(Opcode::S2R) && I.Ops[1].Imm == int64_t(simt::SpecialReg::CLOCK))
    return false;
  return !(D.Flags & NotPure) && !I.Ops.empty() && I.Ops[0].isReg() && I.Ops[0].IsDef;
}

void Selector::eliminateLocalDuplicates() {
  DenseMap<Reg, Reg> Renamed;
  auto Rename = [&](Reg R) {
    auto It = Renamed.find(R);
    return It == Renamed.end() ? R : It->second;
  };
  for (const auto &B : Fn->Blocks) {
    // Keyed by the bytes of (opcode, then kind and value of each source
    // operand); the keys live in the map's own bump allocator, so a large
    // block costs a few slabs, not an allocation per instruction.
    StringMap<Reg, BumpPtrAllocator> Seen;
    SmallVector<int64_t, 12> Key;
    auto Duplicate = [&](mir::Inst &I) {
      for (Operand &O : I.Ops)
        if (O.isReg() && !O.IsDef)
          O.R = Rename(O.R);
      if (!isPureComputation(I))
        return false;
      Key.assign({int64_t(I.Opcode)});
      for (const Operand &O : llvm::drop_begin(I.Ops)) {
        Key.push_back(O.K);
        Key.push_back(O.isReg() ? int64_t(O.R) : O.Imm);
      }
      StringRef Bytes(reinterpret_cast<const char *>(Key.data()), Key.size() * sizeof(int64_t));
      auto [It, New] = Seen.try_emplace(Bytes, I.Ops[0].R);
      if (New)
        return false;
      Renamed[I.Ops[0].R] = It->second;
      return true;
    };
    llvm::erase_if(B->Insts, Duplicate);
  }
  // Uses in later blocks, and PHI operands anywhere.
  for (const auto &B : Fn->Blocks)
    for (mir::Inst &I : B->Insts)
      for (Operand &O : I.Ops)
        if (O.isReg() && !O.IsDef)
          O.R = Rename(O.R);
}

//===----------------------------------------------------------------------===//
// Dead code: folded GEPs, contracted fmuls, unused parameter loads
//===----------------------------------------------------------------------===//

static bool isRemovable(const mir::Inst &I) {
  if (I.isPseudo())
    return I.Opcode == mir::COPY || I.Opcode == mir::PHI || I.Opcode == mir::LI ||
           I.Opcode == mir::IMPLICIT_DEF;
  const simt::InstrDesc &D = simt::getDesc(static_cast<Opcode>(I.Opcode));
  constexpr uint32_t Effects = simt::IsStore | simt::IsAtomic | simt::IsBranch | simt::IsJump |
                               simt::IsTerminator | simt::IsBarrier | simt::IsExit |
                               simt::IsMaskOp;
  if (D.Flags & Effects)
    return false;
  // A load the IR had stays (it may be volatile); only the loads selection
  // itself adds for parameters are dropped when unused.
  if (D.has(simt::IsLoad))
    return D.Space == simt::MemSpace::Param;
  return true;
}

void Selector::removeDeadCode() {
  bool Changed = true;
  while (Changed) {
    Changed = false;
    DenseMap<Reg, unsigned> Uses;
    for (const auto &B : Fn->Blocks)
      for (const mir::Inst &I : B->Insts)
        for (const Operand &O : I.Ops)
          if (O.isReg() && !O.IsDef && mir::isVirtual(O.R))
            ++Uses[O.R];
    for (const auto &B : Fn->Blocks) {
      auto Dead = [&](const mir::Inst &I) {
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
      };
      size_t Before = B->Insts.size();
      llvm::erase_if(B->Insts, Dead);
      Changed |= B->Insts.size() != Before;
    }
  }
}

} // namespace detail

//===----------------------------------------------------------------------===//
// Entry point
//===----------------------------------------------------------------------===//

Expected<std::unique_ptr<mir::Function>> selectSimt(Function &Kernel, StringRef DisplayName) {
  if (Kernel.isDeclaration())
    return createStringError(formatv("kernel {0}: has no body to compile", DisplayName));
  // Analyses for this one function; the simt TTI decides what diverges.
  FunctionAnalysisManager FAM;
  FAM.registerPass([] {
    return TargetIRAnalysis(
        [](const Function &F) { return TargetTransformInfo(detail::SimtTTIImpl(F.getDataLayout())); });
  });
  PassBuilder PB;
  PB.registerFunctionAnalyses(FAM);
  UniformityInfo &UI = FAM.getResult<UniformityInfoAnalysis>(Kernel);
  const LoopInfo &LI = FAM.getResult<LoopAnalysis>(Kernel);
  detail::Selector S(Kernel, DisplayName, UI, LI);
  Expected<std::unique_ptr<mir::Function>> Fn = S.run();
  FAM.clear();
  return Fn;
}

} // namespace tandem::isel
