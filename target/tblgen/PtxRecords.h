//===- PtxRecords.h - A checked model of the PTX target's records ---------===//
//
// Reads target/ptx/*.td (written with target/common/Target.td and the PTX
// classes in PtxRegisterInfo.td / PtxInstrInfo.td) into plain structs,
// checking what the generated tables rely on: every asm template mentions
// each operand exactly once, operand types are register classes or PTX
// operands, every pattern's result instruction exists, has one def, and
// takes exactly the pattern's operands (matched by name, same classes).
// A violation is a TableGen error at the record, so a bad .td edit fails
// the build with a pointer to the line.
//
// The simt model (SimtRecords.h) is separate: the two targets share the
// base classes, not the checks (PTX has no encodings or formats).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "PatternRecords.h"

#include "llvm/TableGen/Record.h"

#include <string>
#include <vector>

namespace tandem::tblgen {

struct PtxRegClassModel {
  std::string Name, Prefix, PtxType;
  int Bits = 0;
};

struct PtxOperandModel {
  std::string Name;
  /// Reg, RegOrImm, MemOffset, Symbol, SpecialReg, CondCode, Block
  std::string Kind;
  std::string Class; ///< register class record name
  bool IsDef = false;
  const llvm::Record *Type = nullptr; ///< B32, s32, sreg, ...
};

struct PtxInstrModel {
  const llvm::Record *Def = nullptr;
  std::string Name, AsmString, Mnemonic;
  std::vector<PtxOperandModel> Operands; ///< dag order: outs, then ins
  std::vector<std::string> Flags;
  std::string Space;
  int AccessBytes = 0;
};

struct PtxSpecialRegModel {
  std::string Name, AsmName;
  int Index = 0;
};

struct PtxCondCodeModel {
  std::string Name;    ///< record name without "CC_": EQ, LTU, ...
  std::string AsmName; ///< eq, ltu, ...
};

struct PtxTargetModel {
  std::vector<PtxRegClassModel> Classes;
  std::vector<PtxInstrModel> Instrs; ///< in definition order
  std::vector<PtxSpecialRegModel> SpecialRegs; ///< by index
  std::vector<PtxCondCodeModel> CondCodes;     ///< by value
  std::vector<SelPatternModel> Patterns;       ///< in .td order (PatternRecords.h)
};

/// Builds and checks the model; reports errors through PrintFatalError.
PtxTargetModel buildPtxTargetModel(llvm::RecordKeeper &Records);

} // namespace tandem::tblgen
