//===- SelectSimtImpl.h - the simt instruction selector's state -*- C++ -*-===//
//
// Private to isel/Select*.cpp: the selector object one kernel is selected
// with. The lowering rules are split by concern:
//   SelectSimt.cpp    setup (params, shared and local layout, uniformity),
//                     block/PHI/branch selection, the bridge to the shared
//                     pattern matcher (isel/PatternMatch.h),
//                     value-to-register mapping, dead-code cleanup
//   SelectOps.cpp     integer, compare, fp, cast and intrinsic rules (32-bit)
//   SelectMemory.cpp  addresses, loads, stores, atomics
//   SelectWide.cpp    i64 legalization (values split into lo/hi words)
//
// Value representation (the invariant every rule relies on):
//   * i32, float and pointers (32-bit, any address space) live in one vreg.
//   * i1/i8/i16 live in one 32-bit vreg whose UPPER BITS ARE UNDEFINED; a rule
//     that reads the upper bits (compares, division, right shifts, zext/sext,
//     int->float, select/branch conditions, votes) extends first. ZextWidth /
//     SextWidth remember vregs already known to be extended so the common
//     case (an icmp result feeding a branch) needs no extra instruction.
//   * i64 lives in two vregs (Lo, Hi). Hi may be the physical zero register.
//   * Pointers are byte addresses in their space: shared offsets from 0,
//     local (alloca) offsets from 0, const offsets in the image's const
//     section, global addresses; addrspacecast is a no-op.
//   * Constants are materialized where used (LI, or r0 for zero).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "DivergenceCheck.h"
#include "MIR.h"
#include "SourceLines.h"

#include "ISA.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/UniformityAnalysis.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>

namespace tandem::isel::detail {

using mir::Operand;
using mir::Reg;
using simt::Opcode;

inline unsigned opc(Opcode O) { return static_cast<unsigned>(O); }

/// The registers holding one IR value: Hi only for i64.
struct ValueRegs {
  Reg Lo = mir::NoReg;
  Reg Hi = mir::NoReg;
};

/// How a pattern operand must be extended before the instruction reads it
/// (see the value representation above).
enum class Ext : uint8_t { Any, Zext, Sext };

/// One operand handed to the pattern matcher: the IR value and the extension
/// the operation needs, or a register already computed (V null); with
/// Offset, a folded address [R + *Offset] for an addressing-mode operand.
struct PatArg {
  llvm::Value *V;
  Ext E = Ext::Any;
  Reg R = mir::NoReg;
  std::optional<int64_t> Offset = std::nullopt;
};

/// A memory address: register + signed byte offset.
struct Address {
  Reg Base = 0;
  int64_t Offset = 0;
};

class Selector {
public:
  Selector(llvm::Function &F, llvm::StringRef Name, llvm::UniformityInfo &UI,
           const llvm::LoopInfo &LI);
  llvm::Expected<std::unique_ptr<mir::Function>> run();

  //===--- SelectSimt.cpp: driver, values, patterns, control flow -------===//
private:
  llvm::Error checkSignature();
  llvm::Error layoutShared();
  llvm::Error layoutAllocas();
  llvm::Error layoutConst();
  void createBlocks();
  void loadParams();
  llvm::Error checkTypes(llvm::Instruction &I);
  llvm::Error selectBlock(llvm::BasicBlock &BB);
  llvm::Error selectInst(llvm::Instruction &I);
  void createPhis(llvm::BasicBlock &BB);
  llvm::Error fillPhis();
  /// Fresh vregs (two for a wide phi) defined by IMPLICIT_DEF: an undef
  /// phi incoming.
  ValueRegs undefinedRegs(bool Wide);
  llvm::Error selectBranch(llvm::BranchInst &Br);
  void removeDeadCode();
  void eliminateLocalDuplicates();

public:
  // Errors.
  llvm::Error cannotSelect(const llvm::Instruction &I, llvm::StringRef Why = {}) const;
  /// "file:line" of \p I, stored in Fn (Inst::Loc), or empty.
  llvm::StringRef where(const llvm::Instruction &I) const;
  std::string kernelName() const { return Fn->Name; }

  // Emission into the current block.
  mir::Inst &emit(unsigned Opcode, llvm::ArrayRef<Operand> Ops);
  mir::Inst &emit(Opcode O, llvm::ArrayRef<Operand> Ops) { return emit(opc(O), Ops); }
  Reg newReg(llvm::StringRef DebugName = {});
  /// dst = op src, imm  (an ALU_ri instruction); emits LI + the reg-reg form
  /// \p RegForm when \p Imm does not fit.
  void emitRI(Opcode ImmForm, Opcode RegForm, Reg Dst, Reg Src, int64_t Imm);
  Reg emitRI(Opcode ImmForm, Opcode RegForm, Reg Src, int64_t Imm);
  Reg emitRR(Opcode O, Reg A, Reg B);
  void copy(Reg Dst, Reg Src) { emit(mir::COPY, {Operand::def(Dst), Operand::use(Src)}); }
  Reg loadImm(int64_t Value);
  static bool fitsImm(Opcode O, int64_t V);

  // Values.
  /// Result registers of \p I (created on first request).
  ValueRegs &resultRegs(llvm::Value *I);
  /// A fresh register for \p V's low or high word: uniform as V is, named
  /// after it (".hi" for the high word).
  Reg newResultReg(llvm::Value *V, bool HighWord);
  Reg result(llvm::Value *I) { return resultRegs(I).Lo; }
  /// Makes \p Regs the result of \p I (no-op casts, values computed into
  /// fresh registers); copies when a use already asked for I's registers.
  void bindResult(llvm::Instruction &I, ValueRegs Regs);
  llvm::Error aliasResult(llvm::Instruction &I, llvm::Value *Src);
  /// Registers of an operand: materializes constants in the current block.
  llvm::Expected<ValueRegs> regsOf(llvm::Value *V);
  llvm::Expected<Reg> regOf(llvm::Value *V, Ext E = Ext::Any);
  Reg extend(Reg R, unsigned Bits, Ext E);
  void noteZext(Reg R, unsigned Bits) { ZextWidth[R] = Bits; }
  void noteSext(Reg R, unsigned Bits) { SextWidth[R] = Bits; }
  /// The value a constant integer operand has after extension \p E.
  static int64_t constValue(const llvm::ConstantInt &C, Ext E);
  static unsigned bitsOf(llvm::Type *T);

  /// Selects operation \p IRName (see isel/PatternMatch.h) from the pattern
  /// table (SimtPatterns.td) into \p Dst (mir::NoReg: no result); false when
  /// no pattern applies.
  llvm::Expected<bool> selectByPattern(llvm::StringRef IRName, llvm::ArrayRef<PatArg> Args,
                                       Reg Dst);

  // Layout.
  uint32_t sharedOffset(const llvm::GlobalVariable *GV) const;
  std::optional<uint32_t> localOffset(const llvm::AllocaInst *AI) const;
  /// A __constant__ variable's offset in the image's const section.
  std::optional<uint32_t> constOffset(const llvm::GlobalVariable *GV) const;
  /// A __device__ variable's address: the data base register + its offset
  /// in the image's data section (ConstLayout.h); nullopt for other values.
  std::optional<Address> deviceDataAddress(const llvm::Value *V) const;

  //===--- SelectOps.cpp -----------------------------------------------===//
  llvm::Error selectBinary(llvm::BinaryOperator &I);
  llvm::Error selectICmp(llvm::ICmpInst &I);
  llvm::Error selectFCmp(llvm::FCmpInst &I);
  llvm::Error selectSelect(llvm::SelectInst &I);
  llvm::Error selectCast(llvm::CastInst &I);
  llvm::Error selectFAddOrFSub(llvm::BinaryOperator &I);
  llvm::Error selectCall(llvm::CallInst &I);
  llvm::Error selectIntrinsic(llvm::IntrinsicInst &II);
  llvm::Error selectFunnelShift(llvm::IntrinsicInst &II, Reg Dst, bool Left);
  llvm::Error selectNvvm(llvm::IntrinsicInst &II, llvm::StringRef Name);
  /// Emits an icmp of two 32-bit registers (already extended) into Dst.
  void emitIntCompare(llvm::CmpInst::Predicate P, Reg Dst, Reg A, Reg B);
  llvm::Error emitIntCompareValues(llvm::CmpInst::Predicate P, llvm::Value *A, llvm::Value *B,
                                   Reg Dst);

  //===--- SelectMemory.cpp --------------------------------------------===//
  llvm::Error selectGEP(llvm::GetElementPtrInst &GEP);
  llvm::Error selectLoad(llvm::LoadInst &LI);
  llvm::Error selectStore(llvm::StoreInst &SI);
  llvm::Error selectSubWordConstLoad(llvm::LoadInst &L, Address Addr, unsigned Bytes);
  llvm::Error selectAtomicRMW(llvm::AtomicRMWInst &I);
  llvm::Error selectCmpXchg(llvm::AtomicCmpXchgInst &I);
  llvm::Error selectExtractValue(llvm::ExtractValueInst &I);
  /// Loads the data section's address from the const section's data base
  /// slot at the top of the entry block, when the kernel uses __device__
  /// variables.
  void loadDataBase();
  llvm::Expected<simt::MemSpace> memSpaceOf(llvm::Value *Ptr, const llvm::Instruction &User);
  llvm::Expected<Address> addressOf(llvm::Value *Ptr);
  /// A constant pointer (shared global, alloca, null, constant offsets of
  /// those) as a byte address, if it is one.
  std::optional<int64_t> constantAddress(llvm::Value *Ptr);

  //===--- SelectWide.cpp: i64 ------------------------------------------===//
  llvm::Error selectWideBinary(llvm::BinaryOperator &I);
  llvm::Error selectWideICmp(llvm::ICmpInst &I);
  /// Dst (0 or 1) = A P B on 64-bit pairs.
  void emitWideCompare(llvm::CmpInst::Predicate P, ValueRegs A, ValueRegs B, Reg Dst);
  static bool isWideMinMax(const llvm::IntrinsicInst &II);
  llvm::Error selectWideMinMax(llvm::IntrinsicInst &II);
  /// \p I's result registers when halves need no instruction: a known half
  /// (the zero register, or an operand's half as it is) is bound as I's own
  /// register, so users see the zero (no li, no or with 0, no cross term);
  /// mir::NoReg halves get fresh registers for the caller to define. When a
  /// use laid out earlier already named I's registers, those come back and
  /// the known halves are copied into them.
  ValueRegs wideResultWith(llvm::Instruction &I, Reg KnownLo, Reg KnownHi);
  void emitWideShiftConst(llvm::Instruction &I, ValueRegs A, unsigned Amount);
  void emitWideShiftVar(unsigned IROpcode, ValueRegs A, Reg Amount, ValueRegs Dst);

  //===--- state ----------------------------------------------------------===//
  llvm::Function &F;
  llvm::UniformityInfo &UI;
  const llvm::LoopInfo &LI;
  /// Our conservative second opinion on branch divergence.
  DivergenceCheck Check;
  std::unique_ptr<mir::Function> Fn;
  mir::Block *Cur = nullptr;
  /// The IR instruction being selected (for Loc and uniformity of temps).
  llvm::Instruction *CurInst = nullptr;
  bool CurUniform = true;

  llvm::DenseMap<const llvm::BasicBlock *, mir::Block *> BlockMap;
  llvm::DenseMap<const llvm::Value *, ValueRegs> Values;
  /// cmpxchg results: {old value, success flag}.
  llvm::DenseMap<const llvm::Value *, ValueRegs> PairValues;
  /// Per current block (cleared per block): immediates already loaded and
  /// registers already extended, so a block materializes each once.
  llvm::DenseMap<int64_t, Reg> BlockImms;
  llvm::DenseMap<uint64_t, Reg> BlockExts;
  /// Inst::Loc of what is being emitted, already stored in the function.
  llvm::StringRef CurLoc;
  mutable SourceLines Lines{*Fn}; ///< where()'s cache
  /// vreg -> N: the register is known zero- (sign-) extended from N bits.
  llvm::DenseMap<Reg, unsigned> ZextWidth, SextWidth;
  /// Selected GEPs with a variable part: that part's register and the
  /// constant byte offset, so memory accesses fold the constant.
  llvm::DenseMap<const llvm::Value *, Address> GEPParts;
  llvm::DenseMap<const llvm::GlobalVariable *, uint32_t> SharedOffsets;
  llvm::DenseMap<const llvm::AllocaInst *, uint32_t> LocalOffsets;
  /// The module's const section layout (isel/ConstLayout.h).
  llvm::DenseMap<const llvm::GlobalVariable *, uint32_t> ConstOffsets;
  /// __device__ variables: offsets in the data section, the const offset of
  /// the word holding the section's address, whether this kernel uses any,
  /// and the uniform register loadDataBase() puts that address in.
  llvm::DenseMap<const llvm::GlobalVariable *, uint32_t> DataOffsets;
  std::optional<uint32_t> DataBaseSlot;
  bool UsesDeviceData = false;
  Reg DataBase = mir::NoReg;
  /// PHIs to complete once every block is selected.
  struct PendingPhi {
    llvm::PHINode *Phi;
    mir::Block *B;
    size_t Index; ///< of the MIR PHI (lo) in B->Insts
    bool Wide;
  };
  std::vector<PendingPhi> Phis;
};

} // namespace tandem::isel::detail
