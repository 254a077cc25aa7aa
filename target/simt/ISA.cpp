//===- ISA.cpp - Generic walkers over the generated SIMT tables -----------===//
//
// The tables themselves are generated (SimtGenInstrInfo.inc); this file only
// walks them, so nothing here knows any particular instruction. Invariants
// the generator guarantees: InstrDescs is indexed by Opcode; every operand's
// field exists in its format; immediates fit their fields; FieldMask covers
// exactly the opcode and the operand fields.
//
//===----------------------------------------------------------------------===//

#include "ISA.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace tandem::simt {

#define GET_INSTR_INFO_TABLES
#include "SimtGenInstrInfo.inc"

static_assert(NumGeneratedGPRs == NumEncodableGPRs,
              "SimtRegisterInfo.td and ISA.h disagree on the register count");
static_assert(std::size(InstrDescs) == size_t(Opcode::INVALID),
              "one descriptor per opcode");

const InstrDesc &getDesc(Opcode Op) {
  assert(Op != Opcode::INVALID && "no descriptor for INVALID");
  return InstrDescs[static_cast<unsigned>(Op)];
}

const FormatDesc &getFormatDesc(Format F) {
  return FormatDescs[static_cast<unsigned>(F)];
}

const SchedClassDesc &getSchedClassDesc(SchedClass S) {
  return SchedClassDescs[static_cast<unsigned>(S)];
}

const char *getFuncUnitName(FuncUnit U) {
  return FuncUnitNames[static_cast<unsigned>(U)];
}

ArrayRef<SpecialRegDesc> specialRegs() { return SpecialRegDescs; }

std::optional<SpecialReg> lookupSpecialReg(StringRef Name) {
  for (const SpecialRegDesc &S : SpecialRegDescs)
    if (Name == S.Name)
      return static_cast<SpecialReg>(S.Index);
  return std::nullopt;
}

unsigned numOpcodes() { return static_cast<unsigned>(Opcode::INVALID); }

std::optional<Opcode> lookupMnemonic(StringRef Mnemonic) {
  static const StringMap<Opcode> ByMnemonic = [] {
    StringMap<Opcode> M;
    for (unsigned I = 0; I < numOpcodes(); ++I)
      M[InstrDescs[I].Mnemonic] = opcodeAt(I);
    return M;
  }();
  auto It = ByMnemonic.find(Mnemonic);
  if (It == ByMnemonic.end())
    return std::nullopt;
  return It->second;
}

ArrayRef<target::PatternDesc> selectionPatterns() { return PatternDescs; }

std::pair<int64_t, int64_t> immRange(Opcode Op) {
  const InstrDesc &D = getDesc(Op);
  return {D.ImmMin, D.ImmMax};
}

static const FieldLayout *findField(Format F, Field Which) {
  const FormatDesc &FD = getFormatDesc(F);
  for (unsigned I = 0; I < FD.NumFields; ++I)
    if (FD.Fields[I].Which == Which)
      return &FD.Fields[I];
  return nullptr;
}

static int64_t fieldValue(const DecodedInst &I, Field F) {
  switch (F) {
  case Field::Rd:
    return I.Rd;
  case Field::Rs1:
    return I.Rs1;
  case Field::Rs2:
    return I.Rs2;
  case Field::Rs3:
    return I.Rs3;
  case Field::Imm:
    return I.Imm;
  }
  return 0;
}

static void setFieldValue(DecodedInst &I, Field F, int64_t V) {
  switch (F) {
  case Field::Rd:
    I.Rd = uint8_t(V);
    return;
  case Field::Rs1:
    I.Rs1 = uint8_t(V);
    return;
  case Field::Rs2:
    I.Rs2 = uint8_t(V);
    return;
  case Field::Rs3:
    I.Rs3 = uint8_t(V);
    return;
  case Field::Imm:
    I.Imm = int32_t(V);
    return;
  }
}

static const char *fieldName(Field F) {
  static const char *const Names[] = {"rd", "rs1", "rs2", "rs3", "imm"};
  return Names[static_cast<unsigned>(F)];
}

Expected<uint32_t> encode(const DecodedInst &I) {
  if (I.Op == Opcode::INVALID || static_cast<unsigned>(I.Op) >= numOpcodes())
    return createStringError("cannot encode an invalid opcode");
  const InstrDesc &D = getDesc(I.Op);
  uint32_t Word = uint32_t(D.Encoding) << 24;
  unsigned UsedFields = 0; // bit per Field
  for (unsigned K = 0; K < D.NumOperands; ++K) {
    const OperandInfo &Op = D.Operands[K];
    const FieldLayout *F = findField(D.Fmt, Op.Where);
    int64_t V = fieldValue(I, Op.Where);
    UsedFields |= 1u << static_cast<unsigned>(Op.Where);
    if (Op.Kind == OperandKind::GPR) {
      if (V >= NumEncodableGPRs)
        return createStringError("%s: register r%d does not exist (r0..r63)",
                                 D.Mnemonic, int(V));
    } else if (V < D.ImmMin || V > D.ImmMax) {
      return createStringError("%s: %s %lld out of range [%d, %d]", D.Mnemonic,
                               fieldName(Op.Where), (long long)V, D.ImmMin, D.ImmMax);
    }
    uint32_t Mask = (F->Width == 32 ? ~0u : (1u << F->Width) - 1u);
    Word |= (uint32_t(V) & Mask) << F->Lo;
  }
  for (Field F : {Field::Rd, Field::Rs1, Field::Rs2, Field::Rs3, Field::Imm})
    if (!(UsedFields & (1u << static_cast<unsigned>(F))) && fieldValue(I, F) != 0)
      return createStringError("%s has no %s operand", D.Mnemonic, fieldName(F));
  return Word;
}

std::optional<DecodedInst> decode(uint32_t Word) {
  uint16_t Index = DecodeTable[Word >> 24];
  if (Index == NoInstr)
    return std::nullopt;
  const InstrDesc &D = InstrDescs[Index];
  if (Word & ~D.FieldMask)
    return std::nullopt;
  DecodedInst I;
  I.Op = opcodeAt(Index);
  for (unsigned K = 0; K < D.NumOperands; ++K) {
    const OperandInfo &Op = D.Operands[K];
    const FieldLayout *F = findField(D.Fmt, Op.Where);
    uint32_t Raw = (Word >> F->Lo) & ((1u << F->Width) - 1u);
    int64_t V = Raw;
    bool Signed = Op.Kind == OperandKind::SImm || Op.Kind == OperandKind::PCRel;
    if (Signed)
      V = SignExtend64(Raw, F->Width);
    if (Op.Kind != OperandKind::GPR && (V < D.ImmMin || V > D.ImmMax))
      return std::nullopt;
    setFieldValue(I, Op.Where, V);
  }
  return I;
}

static void printOperand(raw_ostream &OS, const OperandInfo &Op,
                         const DecodedInst &I, uint32_t PC) {
  int64_t V = fieldValue(I, Op.Where);
  switch (Op.Kind) {
  case OperandKind::GPR:
    OS << 'r' << V;
    return;
  case OperandKind::SImm:
    OS << V;
    return;
  case OperandKind::UImm:
    OS << format_hex(uint64_t(V), 2);
    return;
  case OperandKind::PCRel:
    OS << format_hex(uint32_t(int64_t(PC) + 4 * V), 2);
    return;
  case OperandKind::SpecialReg:
    if (size_t(V) < std::size(SpecialRegDescs))
      OS << '%' << SpecialRegDescs[V].Name;
    else
      OS << "%sr" << V;
    return;
  }
}

std::string formatWithTemplate(Opcode Op,
                               function_ref<void(raw_ostream &, unsigned)> PrintOperand) {
  const InstrDesc &D = getDesc(Op);
  std::string Text;
  raw_string_ostream OS(Text);
  OS << D.Mnemonic;
  StringRef Asm = D.AsmString;
  if (!Asm.empty())
    OS << ' ';
  while (!Asm.empty()) {
    size_t Dollar = Asm.find('$');
    OS << Asm.substr(0, Dollar);
    if (Dollar == StringRef::npos)
      break;
    Asm = Asm.drop_front(Dollar + 1);
    size_t End = Asm.find_if_not([](char C) { return isAlnum(C) || C == '_'; });
    StringRef Name = Asm.substr(0, End);
    Asm = Asm.drop_front(Name.size());
    Field Which = StringSwitch<Field>(Name)
                      .Case("rd", Field::Rd)
                      .Case("rs1", Field::Rs1)
                      .Case("rs2", Field::Rs2)
                      .Case("rs3", Field::Rs3)
                      .Default(Field::Imm);
    for (unsigned K = 0; K < D.NumOperands; ++K)
      if (D.Operands[K].Where == Which)
        PrintOperand(OS, K);
  }
  // "[r1 + -4]" reads better, and parses, as "[r1 - 4]".
  size_t Pos;
  while ((Pos = Text.find("+ -")) != std::string::npos)
    Text.replace(Pos, 3, "- ");
  return Text;
}

std::string formatInst(const DecodedInst &I, uint32_t PC) {
  if (I.Op == Opcode::INVALID)
    return "<invalid>";
  const InstrDesc &D = getDesc(I.Op);
  return formatWithTemplate(I.Op, [&](raw_ostream &OS, unsigned K) {
    printOperand(OS, D.Operands[K], I, PC);
  });
}

} // namespace tandem::simt
