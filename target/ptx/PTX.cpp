//===- PTX.cpp - lookups over the generated PTX tables --------------------===//

#include "PTX.h"

#include <cassert>
#include <cstring>
#include <iterator>

namespace tandem::ptx {

#define GET_PTX_TABLES
#include "PtxGenInstrInfo.inc"

const InstrDesc &getDesc(Opcode Op) {
  assert(static_cast<unsigned>(Op) < numOpcodes() && "not a PTX opcode");
  return InstrDescs[static_cast<unsigned>(Op)];
}

unsigned numOpcodes() { return std::size(InstrDescs); }

const RegClassDesc &getRegClassDesc(RegClass C) {
  return RegClassDescs[static_cast<unsigned>(C)];
}

unsigned numRegClasses() { return std::size(RegClassDescs); }

const char *specialRegName(SpecialReg R) { return SpecialRegNames[static_cast<unsigned>(R)]; }

std::optional<SpecialReg> lookupSpecialReg(llvm::StringRef Name) {
  for (unsigned I = 0; I < std::size(SpecialRegNames); ++I)
    if (Name == SpecialRegNames[I])
      return static_cast<SpecialReg>(I);
  return std::nullopt;
}

const char *condCodeName(CondCode C) { return CondCodeNames[static_cast<unsigned>(C)]; }

llvm::ArrayRef<target::PatternDesc> selectionPatterns() { return PatternDescs; }

std::optional<Opcode> lookupOpcode(llvm::StringRef RecordName) {
  for (unsigned I = 0; I < numOpcodes(); ++I)
    if (RecordName == InstrDescs[I].Name)
      return static_cast<Opcode>(I);
  return std::nullopt;
}

int operandIndex(const InstrDesc &D, llvm::StringRef Name) {
  for (unsigned K = 0; K < D.NumOperands; ++K)
    if (Name == D.Operands[K].Name)
      return K;
  return -1;
}

bool InstrDesc::isPure() const {
  constexpr uint32_t Effects = IsLoad | IsStore | IsAtomic | IsBranch | IsJump | IsTerminator |
                               IsBarrier | IsExit | IsWarpOp;
  return (Flags & Effects) == 0;
}

} // namespace tandem::ptx
