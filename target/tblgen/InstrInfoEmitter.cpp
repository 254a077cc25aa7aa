//===- InstrInfoEmitter.cpp - C++ tables for target/simt/ISA.h ------------===//
//
// Writes SimtGenInstrInfo.inc. Each section is guarded by a GET_* macro the
// includer defines (as LLVM's generated .inc files are), and undefines it
// again, so one file can be included for several sections. ISA.cpp includes
// the tables; ISA.h includes the enums.
//
//===----------------------------------------------------------------------===//

#include "Emitters.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/TableGen/TableGenBackend.h"

using namespace llvm;

namespace tandem::tblgen {
namespace {

class SectionGuard {
public:
  SectionGuard(raw_ostream &OS, StringRef Macro) : OS(OS), Macro(Macro.str()) {
    OS << "#ifdef " << Macro << "\n#undef " << Macro << "\n\n";
  }
  ~SectionGuard() { OS << "\n#endif // " << Macro << "\n\n"; }

private:
  raw_ostream &OS;
  std::string Macro;
};

void emitEnums(const TargetModel &M, raw_ostream &OS) {
  {
    SectionGuard G(OS, "GET_OPCODE_ENUM");
    for (const InstrModel &I : M.Instrs)
      OS << "  " << I.Name << ", // " << format("0x%02x", I.Encoding) << " "
         << I.Mnemonic << "\n";
    OS << "  INVALID\n";
  }
  {
    SectionGuard G(OS, "GET_FORMAT_ENUM");
    for (const FormatModel &F : M.Formats)
      OS << "  " << F.Name << ",\n";
  }
  {
    SectionGuard G(OS, "GET_SCHED_CLASS_ENUM");
    for (const SchedModel &S : M.Scheds)
      OS << "  " << S.Name << ",\n";
  }
  {
    SectionGuard G(OS, "GET_FUNC_UNIT_ENUM");
    for (const ProcResourceModel &U : M.Units)
      OS << "  " << U.Name << ",\n";
  }
  {
    SectionGuard G(OS, "GET_SPECIAL_REG_ENUM");
    for (const SpecialRegModel &S : M.SpecialRegs)
      OS << "  " << S.Name << " = " << S.Index << ",\n";
  }
}

std::string flagsExpr(const InstrModel &I) {
  if (I.Flags.empty())
    return "0";
  std::string S;
  for (const std::string &F : I.Flags)
    S += (S.empty() ? "" : " | ") + F;
  return S;
}

void emitInstrDescs(const TargetModel &M, raw_ostream &OS) {
  OS << "static const InstrDesc InstrDescs[] = {\n";
  for (const InstrModel &I : M.Instrs) {
    OS << "  {\"" << I.Name << "\", \"" << I.Mnemonic << "\", \""
       << escapeString(I.AsmString) << "\", " << format("0x%02x", I.Encoding)
       << ", Format::" << I.Format->Name << ", SchedClass::" << I.Sched->Name
       << ",\n   " << flagsExpr(I) << ", MemSpace::" << I.Space << ", "
       << I.AccessBytes << ", " << (I.SignExtend ? "true" : "false") << ", "
       << I.Operands.size() << ", {";
    for (const OperandModel &O : I.Operands)
      OS << "{OperandKind::" << O.Kind << ", Field::" << O.Field << ", "
         << (O.IsDef ? "true" : "false") << "}, ";
    OS << "},\n   " << format("0x%08x", I.FieldMask) << "u, " << I.ImmMin << ", "
       << I.ImmMax << "},\n";
  }
  OS << "};\n\n";
}

void emitDecodeTable(const TargetModel &M, raw_ostream &OS) {
  std::vector<int> Table(256, -1);
  for (unsigned Idx = 0; Idx < M.Instrs.size(); ++Idx)
    Table[M.Instrs[Idx].Encoding] = Idx;
  OS << "// Major opcode (bits [31:24]) -> index into InstrDescs, or "
        "NoInstr.\nstatic constexpr uint16_t NoInstr = 0xffff;\n"
        "static const uint16_t DecodeTable[256] = {";
  for (unsigned Enc = 0; Enc < 256; ++Enc) {
    if (Enc % 8 == 0)
      OS << "\n  ";
    if (Table[Enc] < 0)
      OS << "NoInstr, ";
    else
      OS << Table[Enc] << ", ";
  }
  OS << "\n};\n\n";
}

void emitTables(const TargetModel &M, raw_ostream &OS) {
  SectionGuard G(OS, "GET_INSTR_INFO_TABLES");
  OS << "static constexpr unsigned NumGeneratedGPRs = " << M.NumGPRs << ";\n";
  OS << "static const char *const FuncUnitNames[] = {";
  for (const ProcResourceModel &U : M.Units)
    OS << "\"" << U.Name << "\", ";
  OS << "};\n\n";

  OS << "static const FormatDesc FormatDescs[] = {\n";
  for (const FormatModel &F : M.Formats) {
    OS << "  {\"" << F.Name << "\", " << F.Fields.size() << ", {";
    for (const FieldModel &Fd : F.Fields)
      OS << "{Field::" << Fd.Name << ", " << Fd.Lo << ", " << Fd.Width << "}, ";
    OS << "}},\n";
  }
  OS << "};\n\n";

  OS << "static const SchedClassDesc SchedClassDescs[] = {\n";
  for (const SchedModel &S : M.Scheds)
    OS << "  {\"" << S.Name << "\", FuncUnit::" << S.Unit << ", " << S.Latency
       << ", " << S.ReleaseAtCycles << "},\n";
  OS << "};\n\n";

  OS << "static const SpecialRegDesc SpecialRegDescs[] = {\n";
  for (const SpecialRegModel &S : M.SpecialRegs)
    OS << "  {\"" << S.AsmName << "\", " << S.Index << "},\n";
  OS << "};\n\n";

  emitInstrDescs(M, OS);
  emitDecodeTable(M, OS);

  emitPatternTable(
      M.Patterns, [](StringRef) { return std::string("0"); }, // one class: GPR
      [](StringRef Inst) { return "Opcode::" + Inst.str(); }, OS);
}

} // namespace

void emitInstrInfo(const TargetModel &M, raw_ostream &OS) {
  emitSourceFileHeader("SIMT instruction tables (" + M.Namespace + ")", OS);
  emitEnums(M, OS);
  emitTables(M, OS);
}

} // namespace tandem::tblgen
