//===- SimtRecords.h - A checked model of a target's TableGen records -----===//
//
// Reads the records of a target written with target/common/Target.td into
// plain structs, checking everything the emitters rely on: unique opcodes
// that fit 8 bits, operand names that match the format's fields, asm
// templates that mention every operand exactly once, immediates that fit
// their field, patterns whose results exist and whose operands line up.
// Any violation is a TableGen error at the record's location, so a bad .td
// edit fails the build with a pointer to the line, never a wrong table.
//
// Every emitter reads this model, never the raw records, so the C++ tables,
// the SystemVerilog package and docs/ISA.md cannot disagree.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "PatternRecords.h"

#include "llvm/TableGen/Record.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tandem::tblgen {

struct FieldModel {
  std::string Name; // Rd, Rs1, Rs2, Rs3, Imm
  unsigned Lo = 0, Width = 0;
  uint32_t mask() const { return ((Width == 32 ? 0 : (1u << Width)) - 1u) << Lo; }
};

struct FormatModel {
  std::string Name; // record name without the "Fmt" prefix
  std::vector<FieldModel> Fields;
  const FieldModel *field(llvm::StringRef Name) const;
};

struct OperandModel {
  std::string Name;  // as in the dag: rd, rs1, imm, ...
  std::string Kind;  // GPR, SImm, UImm, PCRel, SpecialReg
  std::string Field; // Rd, Rs1, ...
  bool IsDef = false;
  const llvm::Record *Type = nullptr; // GPR, simm12, ...
};

struct SchedModel {
  std::string Name; // SchedWrite record name
  std::string Unit; // ProcResource record name
  int Latency = 1;
  int ReleaseAtCycles = 1;
};

struct InstrModel {
  const llvm::Record *Def = nullptr;
  std::string Name, Mnemonic, AsmString, Description;
  unsigned Encoding = 0;
  const FormatModel *Format = nullptr;
  const SchedModel *Sched = nullptr;
  std::vector<OperandModel> Operands; // in assembly order
  std::vector<std::string> Flags;     // InstrFlag names that are set
  std::string Space;                  // MemSpace enumerator
  int AccessBytes = 0;
  bool SignExtend = false;
  bool HasImm = false;
  int64_t ImmMin = 0, ImmMax = 0;
  bool ImmSigned = false;
  uint32_t FieldMask = 0;
};

struct SpecialRegModel {
  std::string Name; // record name without "SR_"
  std::string AsmName, Description;
  int Index = 0;
};

struct ProcResourceModel {
  std::string Name, Description;
};

struct TargetModel {
  std::string Namespace;
  std::string Title;
  std::vector<std::string> Sections; // markdown, from TargetDescription
  unsigned NumGPRs = 0;
  std::string ZeroRegister;
  std::vector<FormatModel> Formats;
  std::vector<ProcResourceModel> Units;
  std::vector<SchedModel> Scheds;
  std::vector<InstrModel> Instrs; // sorted by encoding
  std::vector<SpecialRegModel> SpecialRegs; // sorted by index
  std::vector<SelPatternModel> Patterns; // in .td order (PatternRecords.h)
};

/// Builds and checks the model; reports errors through PrintFatalError.
TargetModel buildTargetModel(llvm::RecordKeeper &Records);

/// Escapes a string for a C++ or SystemVerilog string literal.
std::string escapeString(llvm::StringRef S);

} // namespace tandem::tblgen
