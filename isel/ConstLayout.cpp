//===- ConstLayout.cpp - __constant__ variables in the image's const section -===//
//
// See ConstLayout.h for the input invariants and the guarantees.
//
//===----------------------------------------------------------------------===//

#include "ConstLayout.h"

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

/// The const section is read with ld.const (any 32-bit address), but a
/// section this large is surely a mistake (and the image's strings and
/// checks are sized for kernels, not data sets).
constexpr uint64_t MaxConstBytes = 16u << 20;

/// Writes \p C's bytes at \p Out[0 .. size of C's type).
Error writeInitializer(const Constant *C, const DataLayout &DL, MutableArrayRef<uint8_t> Out,
                       const GlobalVariable &Var) {
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
                                       Out.slice(I * Stride, Stride), Var))
        return Err;
    return Error::success();
  }
  if (const auto *CA = dyn_cast<ConstantArray>(C)) {
    uint64_t Stride = DL.getTypeAllocSize(CA->getType()->getElementType());
    for (unsigned I = 0, E = CA->getNumOperands(); I != E; ++I)
      if (Error Err = writeInitializer(CA->getOperand(I), DL, Out.slice(I * Stride, Stride), Var))
        return Err;
    return Error::success();
  }
  if (const auto *CS = dyn_cast<ConstantStruct>(C)) {
    const StructLayout *SL = DL.getStructLayout(CS->getType());
    for (unsigned I = 0, E = CS->getNumOperands(); I != E; ++I) {
      uint64_t At = SL->getElementOffset(I);
      uint64_t Size = DL.getTypeAllocSize(CS->getOperand(I)->getType());
      if (Error Err = writeInitializer(CS->getOperand(I), DL, Out.slice(At, Size), Var))
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
      formatv("__constant__ variable '{0}': its initializer contains `{1}`, which is not "
              "plain data; simt's const section holds numbers only (no addresses of other "
              "variables or functions)",
              demangle(Var.getName().str()), Text));
}

/// A label the assembler takes: [A-Za-z_.$][A-Za-z0-9_.$]*.
std::string labelFor(StringRef Name) {
  std::string L;
  for (char C : Name)
    L += isAlnum(C) || C == '_' || C == '.' || C == '$' ? C : '_';
  if (L.empty() || isDigit(L[0]))
    L = "c_" + L;
  return L;
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

} // namespace

Expected<ConstLayout> layoutConstants(const Module &M) {
  const DataLayout &DL = M.getDataLayout();
  ConstLayout Layout;
  StringSet<> Labels;
  uint64_t End = 0;
  for (const GlobalVariable &GV : M.globals()) {
    if (GV.getAddressSpace() != ConstantAddressSpace || !isUsed(GV))
      continue;
    std::string Source = demangle(GV.getName().str());
    if (!GV.hasInitializer())
      return createStringError(
          formatv("__constant__ variable '{0}' is declared but not defined in this source; "
                  "simt fills the const section from initializers in the kernel source",
                  Source));
    uint64_t Size = DL.getTypeAllocSize(GV.getValueType());
    Align A = std::max(GV.getAlign().value_or(DL.getABITypeAlign(GV.getValueType())), Align(4));
    uint64_t At = alignTo(End, A);
    if (At + Size > MaxConstBytes)
      return createStringError(formatv("__constant__ variable '{0}' ends at byte {1}; the "
                                       "const section holds at most {2} bytes",
                                       Source, At + Size, MaxConstBytes));
    Layout.Bytes.resize(At + Size, 0);
    if (Error E = writeInitializer(GV.getInitializer(), DL,
                                   MutableArrayRef<uint8_t>(Layout.Bytes).slice(At, Size), GV))
      return E;
    std::string Label = labelFor(GV.getName());
    std::string Unique = Label;
    for (unsigned K = 1; !Labels.insert(Unique).second; ++K)
      Unique = formatv("{0}.{1}", Label, K).str();
    Layout.Symbols.push_back({&GV, Unique, Source, static_cast<uint32_t>(At),
                              static_cast<uint32_t>(Size)});
    Layout.Offsets[&GV] = static_cast<uint32_t>(At);
    End = At + Size;
  }
  Layout.Bytes.resize(alignTo(End, 4), 0);
  return Layout;
}

Error printConstSection(raw_ostream &OS, const Module &M) {
  Expected<ConstLayout> Layout = layoutConstants(M);
  if (!Layout)
    return Layout.takeError();
  if (Layout->Symbols.empty())
    return Error::success();
  OS << "\n# const section: " << Layout->Bytes.size() << " bytes, read with ld.const.u32\n";
  OS << "#   offset  size  symbol\n";
  for (const ConstSymbol &S : Layout->Symbols)
    OS << formatv("#   {0,6}  {1,4}  {2}", S.Offset, S.Size, S.SourceName) << "\n";
  OS << ".const\n";
  const std::vector<uint8_t> &B = Layout->Bytes;
  auto Word = [&](uint64_t At) {
    return uint32_t(B[At]) | uint32_t(B[At + 1]) << 8 | uint32_t(B[At + 2]) << 16 |
           uint32_t(B[At + 3]) << 24;
  };
  for (const ConstSymbol &S : Layout->Symbols) {
    // The offset is the first multiple of the symbol's alignment after the
    // previous symbol's end, the print position; the largest power of two
    // dividing it (that alignment or more) pads to exactly the offset.
    uint64_t Pad = S.Offset == 0 ? 4 : std::min<uint64_t>(S.Offset & -S.Offset, 4096);
    OS << "  .align " << Pad << "\n";
    OS << S.Label << ":  # " << S.SourceName << ", " << S.Size << " bytes\n";
    uint64_t At = S.Offset, End = S.Offset + S.Size;
    for (unsigned InLine = 0; At + 4 <= End; At += 4, ++InLine) {
      OS << (InLine % 8 == 0 ? (InLine ? "\n  .word " : "  .word ") : ", ")
         << format_hex(Word(At), 10);
    }
    if (At != S.Offset)
      OS << "\n";
    if (At < End) {
      OS << "  .byte ";
      for (uint64_t I = At; I < End; ++I)
        OS << (I == At ? "" : ", ") << format_hex(B[I], 4);
      OS << "\n";
    }
  }
  // Whole words, so ld.const.u32 of the last byte stays in the section.
  OS << "  .align 4\n";
  return Error::success();
}

} // namespace tandem::isel
