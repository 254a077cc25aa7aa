//===- PatternMatch.cpp - The one table-driven matcher --------------------===//
//
// See PatternMatch.h. A linear scan: tables have a few hundred entries and
// most names match a handful, so a scan beats building an index per kernel.
//
//===----------------------------------------------------------------------===//

#include "PatternMatch.h"

using namespace llvm;

namespace tandem::isel {

static bool takes(const target::PatOperandDesc &Arg, const PatternInput &In) {
  if (Arg.Class != In.Class || In.IsAddress != (Arg.Kind == target::PatOperandKind::Addr))
    return false;
  if (Arg.Kind != target::PatOperandKind::Imm && Arg.Kind != target::PatOperandKind::Addr)
    return true;
  return In.Imm && *In.Imm >= Arg.ImmMin && *In.Imm <= Arg.ImmMax;
}

const target::PatternDesc *findPattern(ArrayRef<target::PatternDesc> Table, StringRef IRName,
                                       int16_t ResultClass, ArrayRef<PatternInput> Inputs) {
  for (const target::PatternDesc &P : Table) {
    if (P.NumArgs != Inputs.size() || P.ResultClass != ResultClass || IRName != P.IRName)
      continue;
    bool Fits = true;
    for (unsigned K = 0; K < Inputs.size() && Fits; ++K)
      Fits = takes(P.Args[K], Inputs[K]);
    if (Fits)
      return &P;
  }
  return nullptr;
}

Expected<SmallVector<mir::Operand, 6>>
patternOperands(const target::PatternDesc &P, mir::Reg Dst, ArrayRef<PatternInput> Inputs,
                function_ref<Expected<mir::Reg>(unsigned K)> RegOf) {
  SmallVector<mir::Operand, 6> Ops(P.NumInstOperands, mir::Operand::imm(0));
  if (P.ResultClass != target::NoResultClass)
    Ops[0] = mir::Operand::def(Dst); // a pattern's instruction has its def first
  for (unsigned K = 0; K < Inputs.size(); ++K) {
    const target::PatOperandDesc &Arg = P.Args[K];
    if (Arg.Kind == target::PatOperandKind::Addr) { // base register, then offset
      Expected<mir::Reg> Base = RegOf(K);
      if (!Base)
        return Base.takeError();
      Ops[Arg.InstOperand] = mir::Operand::use(*Base);
      Ops[Arg.InstOperand + 1] = mir::Operand::imm(*Inputs[K].Imm);
      continue;
    }
    bool AsImm = Inputs[K].Imm && Arg.Kind != target::PatOperandKind::Reg;
    if (AsImm) {
      Ops[Arg.InstOperand] = mir::Operand::imm(*Inputs[K].Imm);
      continue;
    }
    Expected<mir::Reg> R = RegOf(K);
    if (!R)
      return R.takeError();
    Ops[Arg.InstOperand] = mir::Operand::use(*R);
  }
  for (unsigned K = 0; K < P.NumFixed; ++K)
    Ops[P.Fixed[K].InstOperand] = mir::Operand::imm(P.Fixed[K].Value);
  return Ops;
}

} // namespace tandem::isel
