//===- ConstLayout.cpp - __constant__ and __device__ variables in the image -===//
//
// See ConstLayout.h for the input invariants and the guarantees.
//
//===----------------------------------------------------------------------===//

#include "ConstLayout.h"
#include "ExportedVariable.h"

#include "ISA.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace llvm;

namespace tandem::isel {

namespace {

/// Either section may be addressed with any 32-bit address, but one this
/// large is surely a mistake (the image stores every initial byte; big
/// buffers belong in cudaMalloc'd memory passed as an argument).
constexpr uint64_t MaxSectionBytes = 16u << 20;

/// What differs between the const and the data section.
struct SectionKind {
  unsigned AddressSpace;
  const char *Qualifier; ///< in messages: "__constant__"
  const char *Section;   ///< "const"
};
constexpr SectionKind ConstSection{ConstantAddressSpace, "__constant__", "const"};
constexpr SectionKind DataSection{DeviceAddressSpace, "__device__", "data"};

/// Writes \p C's bytes at \p Out[0 .. size of C's type).
Error writeInitializer(const Constant *C, const DataLayout &DL, MutableArrayRef<uint8_t> Out,
                       const GlobalVariable &Var, const SectionKind &Kind) {
  Type *T = C->getType();
  if (isa<ConstantAggregateZero>(C) || isa<UndefValue>(C) || isa<ConstantPointerNull>(C))
    return Error::success(); // Out is zero already
  auto Store = [&](const APInt &Bits) {
    for (unsigned B = 0; B < Bits.getBitWidth() / 8 && B < Out.size(); ++B)
      Out[B] = static_cast<uint8_t>(Bits.extractBitsAsZExtValue(8, B * 8));
  };
  if (const auto *CI = dyn_cast<ConstantInt>(C)) {
    // i1 is one 0/1 byte in memory, like every integer narrower than a byte.
    unsigned Bytes = static_cast<unsigned>(DL.getTypeStoreSize(T));
    Store(CI->getValue().zext(Bytes * 8));
    return Error::success();
  }
  if (const auto *CF = dyn_cast<ConstantFP>(C)) {
    Store(CF->getValueAPF().bitcastToAPInt());
    return Error::success();
  }
  if (const auto *CDS = dyn_cast<ConstantDataSequential>(C)) {
    uint64_t Stride = DL.getTypeAllocSize(CDS->getElementType());
    for (unsigned I = 0, E = CDS->getNumElements(); I != E; ++I)
      if (Error Err = writeInitializer(CDS->getElementAsConstant(I), DL,
                                       Out.slice(I * Stride, Stride), Var, Kind))
        return Err;
    return Error::success();
  }
  if (const auto *CA = dyn_cast<ConstantArray>(C)) {
    uint64_t Stride = DL.getTypeAllocSize(CA->getType()->getElementType());
    for (unsigned I = 0, E = CA->getNumOperands(); I != E; ++I)
      if (Error Err = writeInitializer(CA->getOperand(I), DL, Out.slice(I * Stride, Stride), Var, Kind))
        return Err;
    return Error::success();
  }
  if (const auto *CS = dyn_cast<ConstantStruct>(C)) {
    const StructLayout *SL = DL.getStructLayout(CS->getType());
    for (unsigned I = 0, E = CS->getNumOperands(); I != E; ++I) {
      uint64_t At = SL->getElementOffset(I);
      uint64_t Size = DL.getTypeAllocSize(CS->getOperand(I)->getType());
      if (Error Err = writeInitializer(CS->getOperand(I), DL, Out.slice(At, Size), Var, Kind))
        return Err;
    }
    return Error::success();
  }
  std::string Text;
  raw_string_ostream OS(Text);
  C->printAsOperand(OS, /*PrintType=*/true);
  if (Text.size() > 120)
    Text = Text.substr(0, 117) + "...";
  return createStringError(
      formatv("{0} variable '{1}': its initializer contains `{2}`, which is not "
              "plain data; simt's {3} section holds numbers only (no addresses of other "
              "variables or functions)",
              Kind.Qualifier, demangle(Var.getName().str()), Text, Kind.Section));
}

/// A label the assembler takes: an identifier of the assembly syntax that
/// does not read as a register (simt::isAsmIdentifier, parseRegisterName).
std::string labelFor(StringRef Name) {
  std::string L;
  for (char C : Name)
    L += simt::isAsmIdentifierChar(C) ? C : '_';
  if (L.empty() || isDigit(L[0]))
    L = "c_" + L;
  if (simt::parseRegisterName(L))
    L += "_";
  return L;
}

/// A name `.size` can give a symbol: an identifier of the assembly syntax
/// that is not private to the listing (no leading '.').
bool isSymbolName(StringRef Name) {
  return simt::isAsmIdentifier(Name) && !Name.starts_with(".");
}

/// Read by some instruction, directly or through constant expressions (a
/// mention in @llvm.used or @llvm.compiler.used alone does not count).
bool isUsed(const Value &V) {
  for (const User *U : V.users()) {
    if (isa<Instruction>(U))
      return true;
    if (isa<Constant>(U) && !isa<GlobalValue>(U) && isUsed(*U))
      return true;
  }
  return false;
}

/// In the image: read by some instruction, or exported (ExportedVariable.h)
/// with a name the symbol table can hold, so the host finds it by name even
/// when no kernel reads it.
bool isPlaced(const GlobalVariable &GV) {
  return isUsed(GV) || (isExportedVariable(GV) && isSymbolName(GV.getName()));
}

/// Lays out the placed variables of \p Kind's address space in module order.
Expected<SectionLayout> layoutSection(const Module &M, const SectionKind &Kind) {
  const DataLayout &DL = M.getDataLayout();
  SectionLayout Layout;
  StringSet<> Labels;
  uint64_t End = 0;
  for (const GlobalVariable &GV : M.globals()) {
    if (GV.getAddressSpace() != Kind.AddressSpace || !isPlaced(GV))
      continue;
    std::string Source = demangle(GV.getName().str());
    if (!GV.hasInitializer())
      return createStringError(
          formatv("{0} variable '{1}' is declared but not defined in this source; "
                  "simt fills the {2} section from initializers in the kernel source",
                  Kind.Qualifier, Source, Kind.Section));
    uint64_t Size = DL.getTypeAllocSize(GV.getValueType());
    Align A = std::max(GV.getAlign().value_or(DL.getABITypeAlign(GV.getValueType())), Align(4));
    uint64_t At = alignTo(End, A);
    if (At + Size > MaxSectionBytes)
      return createStringError(formatv("{0} variable '{1}' ends at byte {2}; the "
                                       "{3} section holds at most {4} bytes",
                                       Kind.Qualifier, Source, At + Size, Kind.Section,
                                       MaxSectionBytes));
    Layout.Bytes.resize(At + Size, 0);
    if (Error E = writeInitializer(GV.getInitializer(), DL,
                                   MutableArrayRef<uint8_t>(Layout.Bytes).slice(At, Size), GV,
                                   Kind))
      return E;
    std::string Label = labelFor(GV.getName());
    std::string Unique = Label;
    for (unsigned K = 1; !Labels.insert(Unique).second; ++K)
      Unique = formatv("{0}.{1}", Label, K).str();
    bool HostVisible = !GV.hasPrivateLinkage() && isSymbolName(GV.getName());
    Layout.Symbols.push_back({&GV, Unique, Source, static_cast<uint32_t>(At),
                              static_cast<uint32_t>(Size), HostVisible,
                              GV.getName().str()});
    Layout.Offsets[&GV] = static_cast<uint32_t>(At);
    End = At + Size;
  }
  Layout.Bytes.resize(alignTo(End, 4), 0);
  return Layout;
}

bool placesDeviceVariables(const Module &M) {
  return any_of(M.globals(), [](const GlobalVariable &GV) {
    return GV.getAddressSpace() == DeviceAddressSpace && isPlaced(GV);
  });
}

/// Prints \p B[Begin, End): whole words as `.word`, a tail as
/// `.byte`.
void printBytes(raw_ostream &OS, ArrayRef<uint8_t> B, uint64_t Begin, uint64_t End) {
  auto Word = [&](uint64_t At) {
    return uint32_t(B[At]) | uint32_t(B[At + 1]) << 8 | uint32_t(B[At + 2]) << 16 |
           uint32_t(B[At + 3]) << 24;
  };
  uint64_t At = Begin;
  for (unsigned InLine = 0; At + 4 <= End; At += 4, ++InLine) {
    OS << (InLine % 8 == 0 ? (InLine ? "\n  .word " : "  .word ") : ", ")
       << format_hex(Word(At), 10);
  }
  if (At != Begin)
    OS << "\n";
  if (At < End) {
    OS << "  .byte ";
    for (uint64_t I = At; I < End; ++I)
      OS << (I == At ? "" : ", ") << format_hex(B[I], 4);
    OS << "\n";
  }
}

/// One section of the listing: the symbol table comment, the directive,
/// each symbol aligned to its offset; nothing when there are no symbols.
void printSection(raw_ostream &OS, const SectionLayout &L, StringRef Directive,
                  StringRef HowReached) {
  OS << "\n# " << Directive.drop_front() << " section: " << L.Bytes.size() << " bytes, "
     << HowReached << "\n";
  OS << "#   offset  size  symbol\n";
  for (const GlobalSymbol &S : L.Symbols)
    OS << formatv("#   {0,6}  {1,4}  {2}", S.Offset, S.Size, S.SourceName) << "\n";
  if (L.DataBaseSlot)
    OS << formatv("#   {0,6}  {1,4}  (the data section's address, written at load)",
                  *L.DataBaseSlot, 4)
       << "\n";
  OS << Directive << "\n";
  for (const GlobalSymbol &S : L.Symbols) {
    // The offset is the first multiple of the symbol's alignment after the
    // previous symbol's end, the print position; the largest power of two
    // dividing it (that alignment or more) pads to exactly the offset.
    uint64_t Pad = S.Offset == 0 ? 4 : std::min<uint64_t>(S.Offset & -S.Offset, 4096);
    OS << "  .align " << Pad << "\n";
    OS << S.Label << ":  # " << S.SourceName << ", " << S.Size << " bytes\n";
    printBytes(OS, L.Bytes, S.Offset, S.Offset + S.Size);
    if (S.HostVisible)
      OS << "  .size " << S.Label << ", " << S.Size
         << (S.Label == S.SymbolName ? "" : ", " + S.SymbolName) << "  # a symbol of the image\n";
  }
  // Whole words, so a word access to the last byte stays in the section.
  OS << "  .align 4\n";
  if (L.DataBaseSlot)
    OS << "  .data_base  # the data section's device address, written at load\n";
}

} // namespace

Expected<SectionLayout> layoutConstants(const Module &M) {
  Expected<SectionLayout> Layout = layoutSection(M, ConstSection);
  if (!Layout || !placesDeviceVariables(M))
    return Layout;
  // The slot follows the constants (already whole words), so their offsets
  // do not depend on whether the module has data.
  Layout->DataBaseSlot = static_cast<uint32_t>(Layout->Bytes.size());
  Layout->Bytes.resize(Layout->Bytes.size() + 4, 0);
  return Layout;
}

Expected<SectionLayout> layoutDeviceData(const Module &M) {
  return layoutSection(M, DataSection);
}

Error printGlobalSections(raw_ostream &OS, const Module &M) {
  Expected<SectionLayout> Const = layoutConstants(M);
  if (!Const)
    return Const.takeError();
  Expected<SectionLayout> Data = layoutDeviceData(M);
  if (!Data)
    return Data.takeError();
  if (!Const->Symbols.empty() || Const->DataBaseSlot)
    printSection(OS, *Const, ".const", "read with ld.const.u32");
  if (!Data->Symbols.empty())
    printSection(OS, *Data, ".data",
                 formatv("copied to global memory at load (one instance per loaded image); "
                         "its address is the const word at offset {0}",
                         Const->DataBaseSlot.value_or(0))
                     .str());
  return Error::success();
}

} // namespace tandem::isel
