//===- PtxInstrInfoEmitter.cpp - C++ tables for target/ptx/PTX.h ----------===//
//
// Writes PtxGenInstrInfo.inc in GET_PTX_* sections (each undefines its macro,
// as LLVM's generated files do): the opcode, register-class, condition-code
// and special register enums for PTX.h, and the descriptor tables (patterns
// included, target/common/SelectionPattern.h) for PTX.cpp.
//
//===----------------------------------------------------------------------===//

#include "Emitters.h"
#include "PtxRecords.h"

#include "llvm/TableGen/TableGenBackend.h"

using namespace llvm;

namespace tandem::tblgen {
namespace {

class Section {
public:
  Section(raw_ostream &OS, StringRef Macro) : OS(OS), Macro(Macro.str()) {
    OS << "#ifdef " << Macro << "\n#undef " << Macro << "\n\n";
  }
  ~Section() { OS << "\n#endif // " << Macro << "\n\n"; }

private:
  raw_ostream &OS;
  std::string Macro;
};

std::string quoted(StringRef S) { return "\"" + escapeString(S) + "\""; }

void emitEnums(const PtxTargetModel &M, raw_ostream &OS) {
  {
    Section S(OS, "GET_PTX_OPCODE_ENUM");
    for (const PtxInstrModel &I : M.Instrs)
      OS << "  " << I.Name << ", // " << I.Mnemonic << "\n";
    OS << "  INVALID\n";
  }
  {
    Section S(OS, "GET_PTX_REGCLASS_ENUM");
    for (const PtxRegClassModel &C : M.Classes)
      OS << "  " << C.Name << ",\n";
  }
  {
    Section S(OS, "GET_PTX_CONDCODE_ENUM");
    for (const PtxCondCodeModel &C : M.CondCodes)
      OS << "  " << C.Name << ",\n";
  }
  {
    Section S(OS, "GET_PTX_SPECIAL_REG_ENUM");
    for (const PtxSpecialRegModel &R : M.SpecialRegs)
      OS << "  " << R.Name << " = " << R.Index << ",\n";
  }
}

void emitTables(const PtxTargetModel &M, raw_ostream &OS) {
  Section S(OS, "GET_PTX_TABLES");
  OS << "static const RegClassDesc RegClassDescs[] = {\n";
  for (const PtxRegClassModel &C : M.Classes)
    OS << "  {" << quoted(C.Name) << ", " << quoted(C.Prefix) << ", " << quoted(C.PtxType)
       << ", " << C.Bits << "},\n";
  OS << "};\n\n";

  OS << "static const InstrDesc InstrDescs[] = {\n";
  for (const PtxInstrModel &I : M.Instrs) {
    std::string Flags;
    for (const std::string &F : I.Flags)
      Flags += (Flags.empty() ? "" : " | ") + F;
    OS << "  {" << quoted(I.Name) << ", " << quoted(I.AsmString) << ", "
       << (Flags.empty() ? "0" : Flags) << ", MemSpace::" << I.Space << ", " << I.AccessBytes
       << ", " << I.Operands.size() << ", {";
    for (const PtxOperandModel &Op : I.Operands)
      OS << "{" << quoted(Op.Name) << ", OperandKind::" << Op.Kind << ", RegClass::" << Op.Class
         << ", " << (Op.IsDef ? "true" : "false") << "}, ";
    OS << "}},\n";
  }
  OS << "};\n\n";

  OS << "static const char *const SpecialRegNames[] = {";
  for (const PtxSpecialRegModel &R : M.SpecialRegs)
    OS << quoted(R.AsmName) << ", ";
  OS << "};\n\n";

  OS << "static const char *const CondCodeNames[] = {";
  for (const PtxCondCodeModel &C : M.CondCodes)
    OS << quoted(C.AsmName) << ", ";
  OS << "};\n\n";

  emitPatternTable(
      M.Patterns, [](StringRef Class) { return "RegClass::" + Class.str(); },
      [](StringRef Inst) { return "Opcode::" + Inst.str(); }, OS);
}

} // namespace

void emitPtxInstrInfo(RecordKeeper &Records, raw_ostream &OS) {
  PtxTargetModel M = buildPtxTargetModel(Records);
  emitSourceFileHeader("PTX instruction tables", OS);
  emitEnums(M, OS);
  emitTables(M, OS);
}

} // namespace tandem::tblgen
