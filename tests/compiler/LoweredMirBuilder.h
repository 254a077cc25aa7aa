//===- LoweredMirBuilder.h - hand-built MIR after cfg lowering --*- C++ -*-===//
//
// What the register-allocation tests (RegAllocTest, CoalesceLaneCopiesTest)
// build functions with: simt instructions on vregs, appended to one block,
// in the shapes cfg lowering emits (COPYs with PartialDef marks, exec-mask
// code, target branches); and what they inspect the result with.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "isel/MIR.h"

#include "ISA.h"

#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <string>

namespace tandem::mirtest {

inline unsigned op(simt::Opcode O) { return static_cast<unsigned>(O); }

struct Builder {
  mir::Function &Fn;
  mir::Block *B;

  mir::Inst &emit(mir::Inst I) {
    B->Insts.push_back(std::move(I));
    return B->Insts.back();
  }
  mir::Reg li(int64_t V) {
    mir::Reg R = Fn.newVReg();
    emit(mir::Inst(mir::LI, {mir::Operand::def(R), mir::Operand::imm(V)}));
    return R;
  }
  mir::Reg rr(simt::Opcode O, mir::Reg A, mir::Reg C) {
    mir::Reg R = Fn.newVReg();
    emit(mir::Inst(op(O), {mir::Operand::def(R), mir::Operand::use(A), mir::Operand::use(C)}));
    return R;
  }
  mir::Reg ri(simt::Opcode O, mir::Reg A, int64_t Imm) {
    mir::Reg R = Fn.newVReg();
    emit(mir::Inst(op(O), {mir::Operand::def(R), mir::Operand::use(A), mir::Operand::imm(Imm)}));
    return R;
  }
  mir::Reg ldGlobal(int64_t Off) { return ri(simt::Opcode::GLOBAL_LD_U32, 0, Off); }
  mir::Reg param(int64_t Off) { return ri(simt::Opcode::PARAM_LD_U32, 0, Off); }
  mir::Reg constWord(int64_t Off) { return ri(simt::Opcode::CONST_LD_U32, 0, Off); }
  mir::Reg s2r(int64_t Special) {
    mir::Reg R = Fn.newVReg();
    emit(mir::Inst(op(simt::Opcode::S2R), {mir::Operand::def(R), mir::Operand::imm(Special)}));
    return R;
  }
  void copy(mir::Reg Dst, mir::Reg Src, bool Partial = false) {
    emit(mir::Inst(mir::COPY, {mir::Operand::def(Dst), mir::Operand::use(Src)})).PartialDef =
        Partial;
  }
  void stGlobal(int64_t Off, mir::Reg V) {
    emit(mir::Inst(op(simt::Opcode::GLOBAL_ST_U32),
                   {mir::Operand::use(0), mir::Operand::imm(Off), mir::Operand::use(V)}));
  }
  /// m = emask.get: the exec mask, in all 32 lanes.
  mir::Reg saveMask() {
    mir::Reg M = Fn.newVReg();
    emit(mir::Inst(op(simt::Opcode::EMASK_GET), {mir::Operand::def(M)}));
    return M;
  }
  /// emask.set / emask.and / emask.andn of \p R.
  void maskOp(simt::Opcode O, mir::Reg R) { emit(mir::Inst(op(O), {mir::Operand::use(R)})); }
  void branch(simt::Opcode O, mir::Block *Target) {
    emit(mir::Inst(op(O), {mir::Operand::block(Target)}));
  }
  void exit() { emit(mir::Inst(op(simt::Opcode::EXIT), {})); }
};

/// \p Fn as `--emit mir` prints it, for failure messages.
inline std::string printed(const mir::Function &Fn) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  mir::print(OS, Fn, mir::TargetKind::Simt);
  return Text;
}

inline unsigned countIf(const mir::Function &Fn, const std::function<bool(const mir::Inst &)> &P) {
  unsigned N = 0;
  for (const auto &B : Fn.Blocks)
    for (const mir::Inst &I : B->Insts)
      N += P(I);
  return N;
}

inline unsigned countOpcode(const mir::Function &Fn, unsigned Opc, bool SpillCodeOnly = false) {
  return countIf(
      Fn, [&](const mir::Inst &I) { return I.Opcode == Opc && (!SpillCodeOnly || I.IsSpillCode); });
}

} // namespace tandem::mirtest
