//===- SimtRecords.cpp - Build and check the target model -----------------===//
//
// See SimtRecords.h. Records are visited in definition order (Record IDs) so
// generated tables follow the .td files; instructions are then sorted by
// encoding, which makes the opcode enum and the decode table read alike.
//
//===----------------------------------------------------------------------===//

#include "SimtRecords.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/TableGen/Error.h"

#include <algorithm>
#include <map>

using namespace llvm;

namespace tandem::tblgen {

const FieldModel *FormatModel::field(StringRef FieldName) const {
  for (const FieldModel &F : Fields)
    if (F.Name == FieldName)
      return &F;
  return nullptr;
}

std::string escapeString(StringRef S) {
  std::string Out;
  for (char C : S) {
    if (C == '"' || C == '\\')
      Out += '\\';
    Out += C;
  }
  return Out;
}

namespace {

std::vector<Record *> definitionsInOrder(RecordKeeper &RK, StringRef Class) {
  std::vector<Record *> Defs = RK.getAllDerivedDefinitions(Class);
  llvm::sort(Defs, [](const Record *A, const Record *B) {
    return A->getID() < B->getID();
  });
  return Defs;
}

unsigned bitsValue(const Record *R, StringRef Field) {
  const BitsInit *Bits = R->getValueAsBitsInit(Field);
  unsigned V = 0;
  for (unsigned I = 0; I < Bits->getNumBits(); ++I) {
    auto *Bit = dyn_cast<BitInit>(Bits->getBit(I));
    if (!Bit)
      PrintFatalError(R->getLoc(), Twine(Field) + " has unset bits");
    V |= unsigned(Bit->getValue()) << I;
  }
  return V;
}

std::vector<FormatModel> readFormats(RecordKeeper &RK) {
  std::vector<FormatModel> Out;
  for (Record *R : definitionsInOrder(RK, "InstFormat")) {
    FormatModel F;
    F.Name = R->getName().str();
    if (StringRef(F.Name).starts_with("Fmt"))
      F.Name = F.Name.substr(3);
    uint32_t Covered = 0xFF000000u; // the major opcode
    for (Record *L : R->getValueAsListOfDefs("Fields")) {
      FieldModel FM;
      FM.Name = L->getValueAsDef("Field")->getValueAsString("Name").str();
      FM.Lo = L->getValueAsInt("Lo");
      FM.Width = L->getValueAsInt("Width");
      if (FM.Width == 0 || FM.Lo + FM.Width > 24)
        PrintFatalError(R->getLoc(), "field " + FM.Name + " of format " + F.Name +
                                         " must lie within bits [23:0]");
      if (Covered & FM.mask())
        PrintFatalError(R->getLoc(), "field " + FM.Name + " of format " + F.Name +
                                         " overlaps another field");
      if (F.field(FM.Name))
        PrintFatalError(R->getLoc(), "format " + F.Name + " has field " + FM.Name +
                                         " twice");
      Covered |= FM.mask();
      F.Fields.push_back(FM);
    }
    Out.push_back(std::move(F));
  }
  return Out;
}

void readSchedule(RecordKeeper &RK, TargetModel &M) {
  for (Record *R : definitionsInOrder(RK, "ProcResource"))
    M.Units.push_back({R->getName().str(), R->getValueAsString("Description").str()});
  std::map<const Record *, const Record *> WriteToRes;
  for (Record *R : definitionsInOrder(RK, "WriteRes")) {
    const Record *W = R->getValueAsDef("Write");
    if (!WriteToRes.emplace(W, R).second)
      PrintFatalError(R->getLoc(), "second WriteRes for " + W->getName());
  }
  for (Record *W : definitionsInOrder(RK, "SchedWrite")) {
    auto It = WriteToRes.find(W);
    if (It == WriteToRes.end())
      PrintFatalError(W->getLoc(), "SchedWrite " + W->getName() + " has no WriteRes");
    const Record *Res = It->second;
    std::vector<Record *> Units = Res->getValueAsListOfDefs("ProcResources");
    if (Units.size() != 1)
      PrintFatalError(Res->getLoc(), "a WriteRes names exactly one ProcResource");
    SchedModel S;
    S.Name = W->getName().str();
    S.Unit = Units[0]->getName().str();
    S.Latency = Res->getValueAsInt("Latency");
    S.ReleaseAtCycles = Res->getValueAsInt("ReleaseAtCycles");
    if (S.Latency < 1 || S.Latency > 255 || S.ReleaseAtCycles < 1 ||
        S.ReleaseAtCycles > 255)
      PrintFatalError(Res->getLoc(), "Latency and ReleaseAtCycles must be 1..255");
    M.Scheds.push_back(S);
  }
}

const char *fieldForOperandName(StringRef Name) {
  return StringSwitch<const char *>(Name)
      .Case("rd", "Rd")
      .Case("rs1", "Rs1")
      .Case("rs2", "Rs2")
      .Case("rs3", "Rs3")
      .Case("imm", "Imm")
      .Default(nullptr);
}

// Operand name -> (type record, is-def), from (outs ...) and (ins ...).
struct DagOperand {
  const Record *Type;
  bool IsDef;
};

void collectDagOperands(const Record *R, StringRef DagField, bool IsDef,
                        StringMap<DagOperand> &Out) {
  const DagInit *D = R->getValueAsDag(DagField);
  for (unsigned I = 0; I < D->getNumArgs(); ++I) {
    auto *Def = dyn_cast<DefInit>(D->getArg(I));
    StringRef Name = D->getArgNameStr(I);
    if (!Def || Name.empty())
      PrintFatalError(R->getLoc(), "operands are written Type:$name");
    if (!Out.try_emplace(Name, DagOperand{Def->getDef(), IsDef}).second)
      PrintFatalError(R->getLoc(), "operand $" + Name + " listed twice");
  }
}

std::string operandKind(const Record *Inst, const Record *Type) {
  if (Type->isSubClassOf("RegisterClass"))
    return "GPR";
  if (Type->isSubClassOf("Operand"))
    return Type->getValueAsString("OperandKind").str();
  PrintFatalError(Inst->getLoc(), "operand type " + Type->getName() +
                                      " is neither a RegisterClass nor an Operand");
}

// Walks the asm template and returns operand names in order of appearance.
std::vector<std::string> asmOperandNames(const Record *R, StringRef Asm) {
  std::vector<std::string> Names;
  for (size_t I = 0; I < Asm.size(); ++I) {
    if (Asm[I] != '$')
      continue;
    size_t E = I + 1;
    while (E < Asm.size() && (isAlnum(Asm[E]) || Asm[E] == '_'))
      ++E;
    if (E == I + 1)
      PrintFatalError(R->getLoc(), "'$' without an operand name in AsmString");
    Names.push_back(Asm.substr(I + 1, E - I - 1).str());
    I = E - 1;
  }
  return Names;
}

void readInstrOperands(const Record *R, InstrModel &I) {
  StringMap<DagOperand> DagOps;
  collectDagOperands(R, "OutOperandList", /*IsDef=*/true, DagOps);
  collectDagOperands(R, "InOperandList", /*IsDef=*/false, DagOps);
  std::vector<std::string> Names = asmOperandNames(R, I.AsmString);
  if (Names.size() != DagOps.size())
    PrintFatalError(R->getLoc(), "AsmString must mention each operand exactly once");
  I.FieldMask = 0xFF000000u;
  for (const std::string &Name : Names) {
    auto It = DagOps.find(Name);
    if (It == DagOps.end())
      PrintFatalError(R->getLoc(), "AsmString names $" + Name +
                                       ", which is not an operand");
    const char *FieldName = fieldForOperandName(Name);
    if (!FieldName)
      PrintFatalError(R->getLoc(), "operand $" + Name +
                                       ": operands are named rd, rs1, rs2, rs3, imm");
    const FieldModel *F = I.Format->field(FieldName);
    if (!F)
      PrintFatalError(R->getLoc(), "format " + I.Format->Name + " has no field for $" +
                                       Name);
    OperandModel Op{Name, operandKind(R, It->second.Type), FieldName, It->second.IsDef,
                    It->second.Type};
    if (Op.Kind == "GPR" && F->Width != 6)
      PrintFatalError(R->getLoc(), "register fields are 6 bits wide");
    if (Op.Kind != "GPR") {
      int Bits = It->second.Type->getValueAsInt("Bits");
      if (Bits < 1 || unsigned(Bits) > F->Width)
        PrintFatalError(R->getLoc(), "operand $" + Name + " (" + Twine(Bits) +
                                         " bits) does not fit its field (" +
                                         Twine(F->Width) + " bits)");
      I.HasImm = true;
      I.ImmSigned = Op.Kind == "SImm" || Op.Kind == "PCRel";
      I.ImmMin = I.ImmSigned ? -(int64_t(1) << (Bits - 1)) : 0;
      I.ImmMax = I.ImmSigned ? (int64_t(1) << (Bits - 1)) - 1 : (int64_t(1) << Bits) - 1;
    }
    I.FieldMask |= F->mask();
    I.Operands.push_back(Op);
  }
}

void readInstrFlags(const Record *R, InstrModel &I) {
  static const std::pair<const char *, const char *> FlagBits[] = {
      {"isLoad", "IsLoad"},         {"isStore", "IsStore"},
      {"isAtomic", "IsAtomic"},     {"isBranch", "IsBranch"},
      {"isJump", "IsJump"},         {"isTerminator", "IsTerminator"},
      {"isBarrier", "IsBarrier"},   {"isExit", "IsExit"},
      {"readsRd", "ReadsRd"},       {"writesAllLanes", "WritesAllLanes"},
      {"isMaskOp", "IsMaskOp"},     {"isWarpOp", "IsWarpOp"},
      {"isFloat", "IsFloat"},       {"allLanes", "AllLanes"}};
  for (auto [Bit, Flag] : FlagBits)
    if (R->getValueAsBit(Bit))
      I.Flags.push_back(Flag);
  I.Space = R->getValueAsDef("Space")->getValueAsString("Name").str();
  I.AccessBytes = R->getValueAsInt("AccessBytes");
  I.SignExtend = R->getValueAsBit("SignExtend");
  bool IsMem = R->getValueAsBit("isLoad") || R->getValueAsBit("isStore") ||
               R->getValueAsBit("isAtomic");
  if (IsMem != (I.Space != "None") ||
      IsMem != (I.AccessBytes == 1 || I.AccessBytes == 2 || I.AccessBytes == 4))
    PrintFatalError(R->getLoc(), "memory instructions, and only they, have a "
                                 "Space and AccessBytes of 1, 2 or 4");
}

std::vector<InstrModel> readInstrs(RecordKeeper &RK, const TargetModel &M) {
  std::vector<InstrModel> Out;
  std::map<unsigned, const Record *> ByEncoding;
  StringMap<const Record *> ByMnemonic;
  for (Record *R : definitionsInOrder(RK, "Instruction")) {
    InstrModel I;
    I.Def = R;
    I.Name = R->getName().str();
    I.Mnemonic = R->getValueAsString("Mnemonic").str();
    I.AsmString = R->getValueAsString("AsmString").str();
    I.Description = R->getValueAsString("Description").str();
    I.Encoding = bitsValue(R, "Opcode");
    if (I.Encoding == 0)
      PrintFatalError(R->getLoc(), "opcode 0 is reserved: the all-zero word is illegal");
    if (auto [It, New] = ByEncoding.emplace(I.Encoding, R); !New)
      PrintFatalError(R->getLoc(), "opcode 0x" + utohexstr(I.Encoding) +
                                       " is already used by " + It->second->getName());
    if (I.Mnemonic.empty() || !ByMnemonic.try_emplace(I.Mnemonic, R).second)
      PrintFatalError(R->getLoc(), "mnemonic '" + I.Mnemonic + "' is empty or not unique");
    StringRef FormName = R->getValueAsDef("Form")->getName();
    for (const FormatModel &F : M.Formats)
      if (FormName == F.Name || FormName == "Fmt" + F.Name)
        I.Format = &F;
    StringRef SchedName = R->getValueAsDef("Sched")->getName();
    for (const SchedModel &S : M.Scheds)
      if (SchedName == S.Name)
        I.Sched = &S;
    if (!I.Format || !I.Sched)
      PrintFatalError(R->getLoc(), "unknown format or scheduling class");
    readInstrOperands(R, I);
    readInstrFlags(R, I);
    Out.push_back(std::move(I));
  }
  llvm::sort(Out, [](const InstrModel &A, const InstrModel &B) {
    return A.Encoding < B.Encoding;
  });
  return Out;
}

void readRegisters(RecordKeeper &RK, TargetModel &M) {
  std::vector<Record *> Classes = definitionsInOrder(RK, "RegisterClass");
  if (Classes.size() != 1)
    PrintFatalError("a target has exactly one RegisterClass today (GPR)");
  std::vector<Record *> Regs = Classes[0]->getValueAsListOfDefs("MemberList");
  M.NumGPRs = Regs.size();
  for (unsigned I = 0; I < Regs.size(); ++I) {
    if (Regs[I]->getValueAsInt("HWEncoding") != int(I))
      PrintFatalError(Regs[I]->getLoc(), "register encodings must be 0..N-1 in order");
    if (Regs[I]->getValueAsBit("IsConstantZero"))
      M.ZeroRegister = Regs[I]->getValueAsString("AsmName").str();
  }
  for (Record *R : definitionsInOrder(RK, "SpecialRegister")) {
    SpecialRegModel S;
    S.Name = R->getName().str();
    if (StringRef(S.Name).starts_with("SR_"))
      S.Name = S.Name.substr(3);
    S.AsmName = R->getValueAsString("AsmName").str();
    S.Description = R->getValueAsString("Description").str();
    S.Index = R->getValueAsInt("Index");
    M.SpecialRegs.push_back(S);
  }
  llvm::sort(M.SpecialRegs, [](const SpecialRegModel &A, const SpecialRegModel &B) {
    return A.Index < B.Index;
  });
  for (unsigned I = 0; I < M.SpecialRegs.size(); ++I)
    if (M.SpecialRegs[I].Index != int(I))
      PrintFatalError("special register indices must be 0..N-1 without gaps");
}

/// The instructions' operands as the pattern reader sees them (MIR order is
/// assembly order on simt).
void readPatterns(RecordKeeper &RK, TargetModel &M) {
  std::map<const Record *, std::vector<PatInstOperand>> OperandsByInst;
  for (const InstrModel &I : M.Instrs) {
    std::vector<PatInstOperand> &Ops = OperandsByInst[I.Def];
    for (const OperandModel &O : I.Operands) {
      PatInstOperand P;
      P.Name = O.Name;
      P.Type = O.Type;
      P.IsDef = O.IsDef;
      if (O.Kind == "GPR") {
        P.Kind = "Reg";
        P.Class = O.Type->getName().str();
      } else if (O.Kind == "SImm" || O.Kind == "UImm") {
        P.Kind = "Imm";
        P.ImmMin = I.ImmMin;
        P.ImmMax = I.ImmMax;
      } else if (O.Kind == "SpecialReg") {
        P.Kind = "Fixed";
      } else {
        P.Kind = "Other"; // branch targets: no pattern fills them
      }
      Ops.push_back(std::move(P));
    }
  }
  M.Patterns = readSelectionPatterns(RK, [&](const Record *Inst) {
    auto It = OperandsByInst.find(Inst);
    return It == OperandsByInst.end() ? nullptr : &It->second;
  });
}

} // namespace

TargetModel buildTargetModel(RecordKeeper &Records) {
  TargetModel M;
  M.Formats = readFormats(Records);
  readSchedule(Records, M);
  readRegisters(Records, M);
  M.Instrs = readInstrs(Records, M);
  readPatterns(Records, M);
  std::vector<Record *> Descs = definitionsInOrder(Records, "TargetDescription");
  if (Descs.size() != 1)
    PrintFatalError("a target has exactly one TargetDescription record");
  M.Title = Descs[0]->getValueAsString("Title").str();
  for (StringRef S : Descs[0]->getValueAsListOfStrings("Sections"))
    M.Sections.push_back(S.str());
  if (!M.Instrs.empty())
    M.Namespace = M.Instrs.front().Def->getValueAsString("Namespace").str();
  return M;
}

} // namespace tandem::tblgen
