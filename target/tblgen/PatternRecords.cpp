//===- PatternRecords.cpp - Read and check selection patterns -------------===//
//
// See PatternRecords.h. Patterns are visited in definition order: the
// matcher takes the first that fits, so .td order is priority order.
//
//===----------------------------------------------------------------------===//

#include "PatternRecords.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/TableGen/Error.h"

using namespace llvm;

namespace tandem::tblgen {
namespace {

struct PatternOperand {
  std::string Name;
  const Record *Type;
  unsigned Uses = 0;
};

/// A result operand that is not a pattern operand: its fixed value, if the
/// record is one (a SpecialRegister's Index, a PatImm's Value).
std::optional<int64_t> fixedValue(const Init *Arg) {
  const auto *Def = dyn_cast<DefInit>(Arg);
  if (!Def)
    return std::nullopt;
  const Record *R = Def->getDef();
  if (R->isSubClassOf("SpecialRegister"))
    return R->getValueAsInt("Index");
  if (R->isSubClassOf("PatImm"))
    return R->getValueAsInt("Value");
  return std::nullopt;
}

/// Checks that pattern operand \p P may feed instruction operand \p Op and
/// says how it is matched.
PatArgModel argFor(const Record *Pat, const PatternOperand &P, const PatInstOperand &Op,
                   unsigned Index, StringRef Inst) {
  PatArgModel A;
  A.InstOperand = Index;
  auto Mismatch = [&](StringRef Why) {
    PrintFatalError(Pat->getLoc(), "pattern operand $" + P.Name + " (" + P.Type->getName() +
                                       ") does not fit operand $" + Op.Name + " of " + Inst +
                                       ": " + Why);
  };
  if (P.Type->isSubClassOf("RegisterClass")) {
    if (Op.Kind != "Reg" && Op.Kind != "RegOrImm")
      Mismatch("that operand is not a register");
    if (Op.Class != P.Type->getName())
      Mismatch("that operand is of class " + Op.Class);
    A.Kind = Op.Kind;
    A.Class = Op.Class;
    return A;
  }
  if (Op.Kind != "Imm" || Op.Type != P.Type)
    Mismatch("an immediate operand type must be the instruction operand's own");
  A.Kind = "Imm";
  A.ImmMin = Op.ImmMin;
  A.ImmMax = Op.ImmMax;
  return A;
}

/// An addressing mode \p P feeds a base register operand \p Base and the
/// offset operand \p Offset right after it.
PatArgModel addrArgFor(const Record *Pat, const PatternOperand &P, const PatInstOperand &Base,
                       const PatInstOperand &Offset, unsigned Index, StringRef Inst) {
  const Record *BaseClass = P.Type->getValueAsDef("Base");
  const Record *OffsetType = P.Type->getValueAsDef("Offset");
  if ((Base.Kind != "Reg" && Base.Kind != "RegOrImm") || Base.Class != BaseClass->getName() ||
      Offset.Type != OffsetType)
    PrintFatalError(Pat->getLoc(), "addressing mode $" + P.Name + " (" + P.Type->getName() +
                                       ") does not fit operands $" + Base.Name + ", $" +
                                       Offset.Name + " of " + Inst + ": it is a " +
                                       BaseClass->getName() + " base and a " +
                                       OffsetType->getName() + " offset");
  PatArgModel A;
  A.Kind = "Addr";
  A.Class = Base.Class;
  A.InstOperand = Index;
  // The offset's range: an immediate operand's own, else any 64-bit value.
  A.ImmMin = Offset.Kind == "Imm" ? Offset.ImmMin : INT64_MIN;
  A.ImmMax = Offset.Kind == "Imm" ? Offset.ImmMax : INT64_MAX;
  return A;
}

SelPatternModel readPattern(const Record *R, function_ref<const std::vector<PatInstOperand> *(
                                                 const Record *)> OperandsOf) {
  const DagInit *Match = R->getValueAsDag("PatternToMatch");
  const ListInit *L = R->getValueAsListInit("ResultInstrs");
  if (L->size() != 1)
    PrintFatalError(R->getLoc(), "a pattern has exactly one result instruction");
  const auto *Result = dyn_cast<DagInit>(L->getElement(0));
  if (!Result)
    PrintFatalError(R->getLoc(), "a pattern's result is an (Instruction ...) dag");
  const Record *Node = Match->getOperatorAsDef(R->getLoc());
  const Record *Inst = Result->getOperatorAsDef(R->getLoc());
  const std::vector<PatInstOperand> *Ops = OperandsOf(Inst);
  if (!Node->isSubClassOf("SDNode") || !Ops)
    PrintFatalError(R->getLoc(), "a pattern maps (SDNode ...) to (Instruction ...) of this "
                                 "target");
  SelPatternModel P;
  P.Def = R;
  P.IRName = Node->getValueAsString("IRName").str();
  P.Result = Inst->getName().str();
  P.NumInstOperands = Ops->size();

  std::vector<unsigned> Uses;
  for (unsigned K = 0; K < Ops->size(); ++K) {
    if (!(*Ops)[K].IsDef) {
      Uses.push_back(K);
    } else if (!P.ResultClass.empty() || K != 0) {
      PrintFatalError(R->getLoc(), "a pattern's result instruction " + P.Result +
                                       " must define at most one register, first");
    } else {
      P.ResultClass = (*Ops)[K].Class;
    }
  }
  // An addressing mode (AddrMode) fills two instruction operands.
  auto Width = [](const Init *Arg) {
    const auto *Def = dyn_cast<DefInit>(Arg);
    return Def && Def->getDef()->isSubClassOf("AddrMode") ? 2u : 1u;
  };
  unsigned Given = 0;
  for (unsigned J = 0; J < Result->getNumArgs(); ++J)
    Given += Width(Result->getArg(J));
  if (Given != Uses.size())
    PrintFatalError(R->getLoc(), "pattern and result take different operand counts: " +
                                     P.Result + " takes " + Twine(Uses.size()) +
                                     ", the result gives " + Twine(Given));

  std::vector<PatternOperand> Operands;
  for (unsigned K = 0; K < Match->getNumArgs(); ++K) {
    const auto *Ty = dyn_cast<DefInit>(Match->getArg(K));
    StringRef Name = Match->getArgNameStr(K);
    if (!Ty || Name.empty())
      PrintFatalError(R->getLoc(), "pattern operands are written Type:$name");
    if (llvm::any_of(Operands, [&](const PatternOperand &O) { return O.Name == Name; }))
      PrintFatalError(R->getLoc(), "pattern operand $" + Name + " is named twice");
    Operands.push_back({Name.str(), Ty->getDef()});
  }
  P.Args.resize(Operands.size());
  for (unsigned J = 0, U = 0; J < Result->getNumArgs(); U += Width(Result->getArg(J)), ++J) {
    const PatInstOperand &Op = (*Ops)[Uses[U]];
    StringRef Name = Result->getArgNameStr(J);
    if (Name.empty()) {
      std::optional<int64_t> V = fixedValue(Result->getArg(J));
      if (!V)
        PrintFatalError(R->getLoc(), "result operand " + Twine(J) + " of " + P.Result +
                                         " is neither a pattern operand ($name) nor a fixed "
                                         "value (a SpecialRegister or PatImm)");
      if (Op.Kind != "Fixed" && Op.Kind != "Imm")
        PrintFatalError(R->getLoc(), "operand $" + Op.Name + " of " + P.Result +
                                         " takes a value from the IR, not a fixed one");
      P.Fixed.push_back({Uses[U], *V});
      continue;
    }
    auto It = llvm::find_if(Operands, [&](const PatternOperand &O) { return O.Name == Name; });
    if (It == Operands.end())
      PrintFatalError(R->getLoc(), "result operand $" + Name + " is not a pattern operand");
    const auto *Ty = dyn_cast<DefInit>(Result->getArg(J));
    if (!Ty || Ty->getDef() != It->Type)
      PrintFatalError(R->getLoc(), "result operand $" + Name + " must repeat the pattern's "
                                       "type " + It->Type->getName());
    if (It->Uses++)
      PrintFatalError(R->getLoc(), "pattern operand $" + Name + " is used twice");
    P.Args[It - Operands.begin()] =
        Width(Result->getArg(J)) == 2
            ? addrArgFor(R, *It, Op, (*Ops)[Uses[U] + 1], Uses[U], P.Result)
            : argFor(R, *It, Op, Uses[U], P.Result);
  }
  for (const PatternOperand &O : Operands)
    if (!O.Uses)
      PrintFatalError(R->getLoc(), "pattern operand $" + O.Name + " is not used by the result");
  if (P.Args.size() > 4 || P.Fixed.size() > 2)
    PrintFatalError(R->getLoc(), "a pattern takes at most 4 operands and 2 fixed values "
                                 "(target/common/SelectionPattern.h)");
  return P;
}

std::string int64Literal(int64_t V) {
  if (V == INT64_MIN)
    return "INT64_MIN";
  return std::to_string(V) + (V > INT32_MAX || V < INT32_MIN ? "LL" : "");
}

} // namespace

std::vector<SelPatternModel> readSelectionPatterns(
    RecordKeeper &Records,
    function_ref<const std::vector<PatInstOperand> *(const Record *)> OperandsOf) {
  std::vector<Record *> Defs = Records.getAllDerivedDefinitions("Pattern");
  llvm::sort(Defs, [](const Record *A, const Record *B) { return A->getID() < B->getID(); });
  std::vector<SelPatternModel> Out;
  for (const Record *R : Defs)
    Out.push_back(readPattern(R, OperandsOf));
  return Out;
}

void emitPatternTable(ArrayRef<SelPatternModel> Patterns,
                      function_ref<std::string(StringRef)> ClassExpr,
                      function_ref<std::string(StringRef)> OpcodeExpr, raw_ostream &OS) {
  OS << "static const target::PatternDesc PatternDescs[] = {\n";
  for (const SelPatternModel &P : Patterns) {
    OS << "  {\"" << P.IRName << "\", "
       << (P.ResultClass.empty() ? std::string("target::NoResultClass")
                                 : "int16_t(" + ClassExpr(P.ResultClass) + ")")
       << ", uint16_t(" << OpcodeExpr(P.Result) << "), " << P.NumInstOperands << ",\n   "
       << P.Args.size() << ", {";
    for (const PatArgModel &A : P.Args)
      OS << "{target::PatOperandKind::" << A.Kind << ", uint8_t("
         << (A.Class.empty() ? std::string("0") : ClassExpr(A.Class)) << "), " << A.InstOperand << ", " << int64Literal(A.ImmMin) << ", "
         << int64Literal(A.ImmMax) << "}, ";
    OS << "}, " << P.Fixed.size() << ", {";
    for (const PatFixedModel &F : P.Fixed)
      OS << "{" << F.InstOperand << ", " << int64Literal(F.Value) << "}, ";
    OS << "}},\n";
  }
  OS << "};\n";
}

} // namespace tandem::tblgen
