//===- Disassembler.cpp - Kernel images back to SIMT assembly -------------===//
//
// Decoding is table-driven (simt::decode, simt::formatInst); this file only
// lays the listing out. The image is not trusted: kernel code ranges are
// checked against Code before any word is read.
//
//===----------------------------------------------------------------------===//

#include "Disassembler.h"

#include "ISA.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <map>
#include <optional>

using namespace llvm;

namespace tandem {
namespace {

/// "0x0010": code addresses, at least four hex digits.
std::string addr(uint64_t A) {
  std::string S;
  raw_string_ostream(S) << format_hex(A, 6);
  return S;
}

std::string labelName(uint32_t Address) { return ".L" + addr(Address); }

/// Whether a kernel's code range lies inside Code; never reads Code.
bool codeInImage(const KernelInfo &K, const KernelImage &Img) {
  uint64_t End = uint64_t(K.EntryOffset) + K.CodeBytes;
  return K.EntryOffset % 4 == 0 && K.CodeBytes % 4 == 0 &&
         End <= uint64_t(Img.Code.size()) * 4;
}

/// Addresses inside [Begin, End) that some branch in that range targets.
DenseSet<uint32_t> branchTargets(const KernelImage &Img, uint32_t Begin,
                                 uint32_t End) {
  DenseSet<uint32_t> Targets;
  for (uint32_t PC = Begin; PC < End; PC += 4) {
    std::optional<simt::DecodedInst> I = simt::decode(Img.Code[PC / 4]);
    if (!I)
      continue;
    const simt::InstrDesc &D = simt::getDesc(I->Op);
    for (unsigned K = 0; K < D.NumOperands; ++K) {
      if (D.Operands[K].Kind != simt::OperandKind::PCRel)
        continue;
      uint32_t Target = PC + 4 * static_cast<uint32_t>(I->Imm);
      if (Target >= Begin && Target < End)
        Targets.insert(Target);
    }
  }
  return Targets;
}

/// What a `ld.const.u32 rd, [r0 + imm]` reads, as llvm-objdump symbolizes
/// an operand: "coeffs+8" (the const symbol covering the byte), "the data
/// section's address" (the data base slot), or nothing.
std::string constOperandName(const KernelImage &Img, uint32_t Word) {
  std::optional<simt::DecodedInst> I = simt::decode(Word);
  if (!I || I->Op != simt::Opcode::CONST_LD_U32 || I->Rs1 != 0 || I->Imm < 0)
    return "";
  uint32_t At = uint32_t(I->Imm);
  if (!Img.Data.empty() && At == Img.DataBaseSlot)
    return "the data section's address";
  for (const ImageSymbol &S : Img.Symbols)
    if (S.Section == SymbolSection::Const && At >= S.Offset && At - S.Offset < S.Size)
      return At == S.Offset ? S.Name : S.Name + "+" + std::to_string(At - S.Offset);
  return "";
}

void printCode(const KernelImage &Img, uint32_t Begin, uint32_t End,
               raw_ostream &OS) {
  DenseSet<uint32_t> Targets = branchTargets(Img, Begin, End);
  for (uint32_t PC = Begin; PC < End; PC += 4) {
    if (Targets.count(PC))
      OS << labelName(PC) << ":\n";
    uint32_t Word = Img.Code[PC / 4];
    OS << "  " << addr(PC) << ":  " << format_hex_no_prefix(Word, 8) << "  "
       << disassembleWord(Word, PC);
    std::string Operand = constOperandName(Img, Word);
    if (!Operand.empty())
      OS << "  # <" << Operand << ">";
    OS << "\n";
  }
}

void printHeader(const KernelImage &Img, raw_ostream &OS) {
  OS << "kernel image: " << Img.Kernels.size()
     << (Img.Kernels.size() == 1 ? " kernel, " : " kernels, ")
     << Img.Code.size() << " code words (" << Img.Code.size() * 4 << " bytes), "
     << Img.Const.size() << " const bytes";
  if (!Img.Data.empty())
    OS << ", " << Img.Data.size()
       << " data bytes (their device address goes into the const word at offset "
       << Img.DataBaseSlot << " at load)";
  OS << "\n\n";
}

void printKernelTable(const KernelImage &Img, raw_ostream &OS) {
  size_t NameWidth = 4;
  for (const KernelInfo &K : Img.Kernels)
    NameWidth = std::max(NameWidth, K.Name.size());
  OS << "Kernels:\n";
  OS << "  " << left_justify("name", NameWidth)
     << "     entry      bytes     shared      local   regs  params\n";
  for (const KernelInfo &K : Img.Kernels) {
    OS << "  " << left_justify(K.Name, NameWidth) << "  "
       << right_justify(addr(K.EntryOffset), 8) << format(" %10u", K.CodeBytes)
       << format(" %10u", K.SharedBytes) << format(" %10u", K.LocalBytes)
       << format(" %6u", K.RegistersUsed) << " ";
    if (K.Params.empty())
      OS << " -";
    for (const KernelParam &P : K.Params)
      OS << " " << P.Name << ":" << paramKindName(P.Kind) << "@" << P.Offset;
    OS << "\n";
  }
}

void printKernelCode(const KernelImage &Img, const KernelInfo &K,
                     raw_ostream &OS) {
  OS << "\nDisassembly of kernel " << K.Name << ":\n\n" << K.Name << ":\n";
  if (!codeInImage(K, Img)) {
    OS << "  <code range " << addr(K.EntryOffset) << " + " << K.CodeBytes
       << " bytes lies outside the image's " << Img.Code.size() * 4
       << " code bytes or is misaligned>\n";
    return;
  }
  printCode(Img, K.EntryOffset, K.EntryOffset + K.CodeBytes, OS);
}

/// Code words no kernel claims (an image the assembler writes has none).
void printUnclaimedCode(const KernelImage &Img, raw_ostream &OS) {
  std::vector<bool> Claimed(Img.Code.size(), false);
  for (const KernelInfo &K : Img.Kernels)
    if (codeInImage(K, Img))
      std::fill_n(Claimed.begin() + K.EntryOffset / 4, K.CodeBytes / 4, true);
  size_t I = 0;
  while (I < Claimed.size()) {
    if (Claimed[I]) {
      ++I;
      continue;
    }
    size_t J = I;
    while (J < Claimed.size() && !Claimed[J])
      ++J;
    OS << "\nCode outside any kernel:\n\n";
    printCode(Img, static_cast<uint32_t>(4 * I), static_cast<uint32_t>(4 * J),
              OS);
    I = J;
  }
}

/// A hex and ASCII dump of a .const or .data section.
void printSectionBytes(StringRef Name, ArrayRef<uint8_t> Bytes, raw_ostream &OS) {
  if (Bytes.empty())
    return;
  OS << "\nContents of section " << Name << " (" << Bytes.size() << " bytes):\n";
  for (size_t Line = 0; Line < Bytes.size(); Line += 16) {
    OS << "  " << format_hex_no_prefix(Line, 4) << " ";
    std::string Ascii;
    for (size_t I = Line; I < Line + 16; ++I) {
      if (I % 4 == 0)
        OS << " ";
      if (I >= Bytes.size()) {
        OS << "  ";
        continue;
      }
      uint8_t B = Bytes[I];
      OS << format_hex_no_prefix(B, 2);
      Ascii += isPrint(B) ? static_cast<char>(B) : '.';
    }
    OS << "  " << Ascii << "\n";
  }
}

} // namespace

std::string disassembleWord(uint32_t Word, uint32_t PC) {
  if (std::optional<simt::DecodedInst> I = simt::decode(Word))
    return simt::formatInst(*I, PC);
  std::string S;
  raw_string_ostream(S) << ".word " << format_hex(Word, 10) << "  # illegal";
  return S;
}

/// The symbol table, like `llvm-objdump --syms`: section, offset, size,
/// name, in table order.
static void printSymbolTable(const KernelImage &Img, raw_ostream &OS) {
  if (Img.Symbols.empty())
    return;
  OS << "\nSymbols:\n  section    offset       size  name\n";
  for (const ImageSymbol &S : Img.Symbols)
    OS << "  " << left_justify(symbolSectionName(S.Section), 7)
       << format(" %9u %10u", S.Offset, S.Size) << "  " << S.Name << "\n";
}

void disassembleImage(const KernelImage &Img, raw_ostream &OS) {
  printHeader(Img, OS);
  printKernelTable(Img, OS);
  printSymbolTable(Img, OS);
  for (const KernelInfo &K : Img.Kernels)
    printKernelCode(Img, K, OS);
  printUnclaimedCode(Img, OS);
  printSectionBytes(".const", Img.Const, OS);
  printSectionBytes(".data", Img.Data, OS);
}

/// The label objdump --source gives symbol \p Index: its name where the
/// assembler reads that as a label, else `.Lsym<Index>` (`.size` then
/// names the symbol; a leading '.' keeps the label from clashing with any
/// symbol's name).
static std::string symbolLabel(const KernelImage &Img, size_t Index) {
  StringRef Name = Img.Symbols[Index].Name;
  bool AsLabel = simt::isAsmIdentifier(Name) && !Name.starts_with(".") &&
                 !simt::parseRegisterName(Name);
  return AsLabel ? Name.str() : ".Lsym" + std::to_string(Index);
}

/// \p Bytes as `.word`s and `.byte`s, with a label line where a symbol of
/// \p In starts (a word a label falls inside is printed as bytes); the word
/// at \p DataBaseSlot (if any) as `.data_base`, which reassembles to the
/// same zero word and slot.
static void printSectionAsAssembly(const KernelImage &Img, SymbolSection In,
                                   std::optional<uint32_t> DataBaseSlot,
                                   raw_ostream &OS) {
  ArrayRef<uint8_t> Bytes = Img.sectionBytes(In);
  std::multimap<uint32_t, std::string> Starts;
  for (size_t I = 0; I < Img.Symbols.size(); ++I)
    if (Img.Symbols[I].Section == In)
      Starts.emplace(Img.Symbols[I].Offset, symbolLabel(Img, I));
  auto LabelInside = [&](size_t Begin, size_t End) {
    auto It = Starts.lower_bound(uint32_t(Begin));
    return It != Starts.end() && It->first < End;
  };
  size_t I = 0;
  while (I < Bytes.size()) {
    for (auto [It, E] = Starts.equal_range(uint32_t(I)); It != E; ++It)
      OS << It->second << ":\n";
    if (I % 4 != 0 || I + 4 > Bytes.size() || LabelInside(I + 1, I + 4)) {
      OS << "  .byte " << format_hex(Bytes[I], 4) << "\n";
      ++I;
      continue;
    }
    uint32_t W = 0;
    for (unsigned B = 0; B < 4; ++B)
      W |= uint32_t(Bytes[I + B]) << (8 * B);
    if (DataBaseSlot && I == *DataBaseSlot && W == 0)
      OS << "  .data_base\n";
    else
      OS << "  .word " << format_hex(W, 10) << "\n";
    I += 4;
  }
}

void printImageAsAssembly(const KernelImage &Img, raw_ostream &OS) {
  OS << "# Disassembled by tandem objdump --source; reassemble with "
        "`tandem as`.\n";
  for (const KernelInfo &K : Img.Kernels) {
    OS << "\n.kernel " << K.Name << "\n";
    for (const KernelParam &P : K.Params)
      OS << "  .param " << P.Name << " " << paramKindName(P.Kind) << "\n";
    if (K.SharedBytes)
      OS << "  .shared " << K.SharedBytes << "\n";
    if (K.LocalBytes)
      OS << "  .local " << K.LocalBytes << "\n";
    if (!codeInImage(K, Img)) {
      OS << "  # code range outside the image; nothing to print\n";
      continue;
    }
    uint32_t End = K.EntryOffset + K.CodeBytes;
    DenseSet<uint32_t> Targets = branchTargets(Img, K.EntryOffset, End);
    for (uint32_t PC = K.EntryOffset; PC < End; PC += 4) {
      if (Targets.count(PC))
        OS << labelName(PC) << ":\n";
      OS << "  " << disassembleWord(Img.Code[PC / 4], PC) << "\n";
    }
  }
  if (!Img.Const.empty()) {
    OS << "\n.const\n";
    std::optional<uint32_t> Slot;
    if (!Img.Data.empty())
      Slot = Img.DataBaseSlot;
    printSectionAsAssembly(Img, SymbolSection::Const, Slot, OS);
  }
  if (!Img.Data.empty()) {
    OS << "\n.data\n";
    printSectionAsAssembly(Img, SymbolSection::Data, std::nullopt, OS);
  }
  // After every label, in table order, so the symbol table reassembles in
  // the same order.
  if (!Img.Symbols.empty())
    OS << "\n";
  for (size_t I = 0; I < Img.Symbols.size(); ++I) {
    std::string Label = symbolLabel(Img, I);
    OS << "  .size " << Label << ", " << Img.Symbols[I].Size;
    if (Label != Img.Symbols[I].Name)
      OS << ", " << Img.Symbols[I].Name;
    OS << "\n";
  }
}

} // namespace tandem
