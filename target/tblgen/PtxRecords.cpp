//===- PtxRecords.cpp - Build and check the PTX target model --------------===//
//
// See PtxRecords.h. Records are visited in definition order so the generated
// tables follow the .td files (pattern priority is .td order).
//
//===----------------------------------------------------------------------===//

#include "PtxRecords.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/TableGen/Error.h"

#include <map>

using namespace llvm;

namespace tandem::tblgen {
namespace {

std::vector<Record *> inOrder(RecordKeeper &RK, StringRef Class) {
  std::vector<Record *> Defs = RK.getAllDerivedDefinitions(Class);
  llvm::sort(Defs, [](const Record *A, const Record *B) { return A->getID() < B->getID(); });
  return Defs;
}

void readClasses(RecordKeeper &RK, PtxTargetModel &M) {
  for (Record *R : inOrder(RK, "PtxRegClass"))
    M.Classes.push_back({R->getName().str(), R->getValueAsString("Prefix").str(),
                         R->getValueAsString("PtxType").str(), int(R->getValueAsInt("Size"))});
  if (M.Classes.empty())
    PrintFatalError("the PTX target defines no PtxRegClass");
}

/// Operand kind and class of a dag operand type.
PtxOperandModel operandOf(const Record *Inst, const Record *Type, StringRef Name, bool IsDef) {
  PtxOperandModel Op;
  Op.Name = Name.str();
  Op.IsDef = IsDef;
  Op.Type = Type;
  if (Type->isSubClassOf("PtxRegClass")) {
    Op.Kind = "Reg";
    Op.Class = Type->getName().str();
  } else if (Type->isSubClassOf("PtxOperand")) {
    Op.Kind = Type->getValueAsString("OperandKind").str();
    Op.Class = Type->getValueAsDef("Class")->getName().str();
  } else {
    PrintFatalError(Inst->getLoc(), "operand $" + Name + ": type " + Type->getName() +
                                        " is neither a PtxRegClass nor a PtxOperand");
  }
  if (IsDef && Op.Kind != "Reg")
    PrintFatalError(Inst->getLoc(), "operand $" + Name + ": a def must be a register class");
  return Op;
}

std::vector<std::string> templateOperandNames(StringRef Asm) {
  std::vector<std::string> Names;
  for (size_t I = 0; I < Asm.size(); ++I) {
    if (Asm[I] != '$')
      continue;
    size_t E = I + 1;
    while (E < Asm.size() && (isAlnum(Asm[E]) || Asm[E] == '_'))
      ++E;
    Names.push_back(Asm.substr(I + 1, E - I - 1).str());
    I = E - 1;
  }
  return Names;
}

void readInstrOperands(const Record *R, PtxInstrModel &I) {
  for (auto [Field, IsDef] : {std::pair("OutOperandList", true), {"InOperandList", false}}) {
    const DagInit *D = R->getValueAsDag(Field);
    for (unsigned K = 0; K < D->getNumArgs(); ++K) {
      auto *Def = dyn_cast<DefInit>(D->getArg(K));
      StringRef Name = D->getArgNameStr(K);
      if (!Def || Name.empty())
        PrintFatalError(R->getLoc(), "operands are written Type:$name");
      I.Operands.push_back(operandOf(R, Def->getDef(), Name, IsDef));
    }
  }
  std::vector<std::string> Mentioned = templateOperandNames(I.AsmString);
  StringMap<unsigned> Count;
  for (const std::string &N : Mentioned)
    ++Count[N];
  for (const PtxOperandModel &Op : I.Operands)
    if (Count.lookup(Op.Name) != 1)
      PrintFatalError(R->getLoc(), "AsmString must mention $" + Op.Name + " exactly once");
  if (Mentioned.size() != I.Operands.size())
    PrintFatalError(R->getLoc(), "AsmString names an operand the dags do not list");
  StringMap<bool> Seen;
  for (const PtxOperandModel &Op : I.Operands)
    if (!Seen.try_emplace(Op.Name, true).second)
      PrintFatalError(R->getLoc(), "operand $" + Op.Name + " listed twice");
}

void readInstrs(RecordKeeper &RK, PtxTargetModel &M) {
  static const std::pair<const char *, const char *> FlagBits[] = {
      {"isLoad", "IsLoad"},       {"isStore", "IsStore"},     {"isAtomic", "IsAtomic"},
      {"isBranch", "IsBranch"},   {"isJump", "IsJump"},       {"isTerminator", "IsTerminator"},
      {"isBarrier", "IsBarrier"}, {"isExit", "IsExit"},       {"isWarpOp", "IsWarpOp"}};
  for (Record *R : inOrder(RK, "PtxInst")) {
    PtxInstrModel I;
    I.Def = R;
    I.Name = R->getName().str();
    I.AsmString = R->getValueAsString("AsmString").str();
    I.Mnemonic = StringRef(I.AsmString).split(' ').first.str();
    if (I.AsmString.empty())
      PrintFatalError(R->getLoc(), "a PTX instruction needs an AsmString");
    readInstrOperands(R, I);
    for (auto [Bit, Flag] : FlagBits)
      if (R->getValueAsBit(Bit))
        I.Flags.push_back(Flag);
    I.Space = R->getValueAsDef("Space")->getValueAsString("Name").str();
    I.AccessBytes = R->getValueAsInt("AccessBytes");
    bool IsMem = R->getValueAsBit("isLoad") || R->getValueAsBit("isStore") ||
                 R->getValueAsBit("isAtomic");
    if (IsMem != (I.Space != "None") || IsMem != (I.AccessBytes > 0))
      PrintFatalError(R->getLoc(), "memory instructions, and only they, have a Space and "
                                   "AccessBytes");
    M.Instrs.push_back(std::move(I));
  }
}

void readSpecialRegs(RecordKeeper &RK, PtxTargetModel &M) {
  for (Record *R : inOrder(RK, "SpecialRegister")) {
    PtxSpecialRegModel S;
    S.Name = R->getName().str();
    if (StringRef(S.Name).starts_with("SR_"))
      S.Name = S.Name.substr(3);
    S.AsmName = R->getValueAsString("AsmName").str();
    S.Index = R->getValueAsInt("Index");
    M.SpecialRegs.push_back(S);
  }
  llvm::sort(M.SpecialRegs, [](auto &A, auto &B) { return A.Index < B.Index; });
  for (unsigned I = 0; I < M.SpecialRegs.size(); ++I)
    if (M.SpecialRegs[I].Index != int(I))
      PrintFatalError("special register indices must be 0..N-1 without gaps");
}

/// setp's comparisons (PtxCondCode records): values 0..N-1 in order, so the
/// generated enum and name table agree with the patterns' fixed values.
void readCondCodes(RecordKeeper &RK, PtxTargetModel &M) {
  for (Record *R : inOrder(RK, "PtxCondCode")) {
    if (R->getValueAsInt("Value") != int64_t(M.CondCodes.size()))
      PrintFatalError(R->getLoc(), "condition codes take the values 0..N-1 in definition order");
    StringRef Name = R->getName();
    Name.consume_front("CC_");
    M.CondCodes.push_back({Name.str(), R->getValueAsString("Name").str()});
  }
}

/// The instructions' operands as the pattern reader sees them (MIR order is
/// dag order on ptx: outs, then ins).
void readPatterns(RecordKeeper &RK, PtxTargetModel &M) {
  std::map<const Record *, std::vector<PatInstOperand>> OperandsByInst;
  for (const PtxInstrModel &I : M.Instrs) {
    std::vector<PatInstOperand> &Ops = OperandsByInst[I.Def];
    for (const PtxOperandModel &O : I.Operands) {
      std::string Kind = "Other"; // offsets, symbols, branch targets: rules fill them
      if (O.Kind == "Reg" || O.Kind == "RegOrImm")
        Kind = O.Kind;
      else if (O.Kind == "SpecialReg" || O.Kind == "CondCode")
        Kind = "Fixed";
      Ops.push_back({O.Name, O.Type, Kind, O.Class, O.IsDef, 0, 0});
    }
  }
  M.Patterns = readSelectionPatterns(RK, [&](const Record *Inst) {
    auto It = OperandsByInst.find(Inst);
    return It == OperandsByInst.end() ? nullptr : &It->second;
  });
}

} // namespace

PtxTargetModel buildPtxTargetModel(RecordKeeper &Records) {
  PtxTargetModel M;
  readClasses(Records, M);
  readInstrs(Records, M);
  readSpecialRegs(Records, M);
  readCondCodes(Records, M);
  readPatterns(Records, M);
  return M;
}

} // namespace tandem::tblgen
