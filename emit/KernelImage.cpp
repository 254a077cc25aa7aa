//===- KernelImage.cpp - Read, validate and write SIMT kernel images ------===//
//
// The format is described field by field in docs/KernelImage.md. In short:
//
//   header (80 bytes) | kernel table | parameter table | symbol table | code
//   | const | data | strtab
//
// all integers little-endian. The writer always produces that order; the
// reader accepts the sections in any order and with gaps, as long as each is
// inside the file, aligned where required and disjoint from the others.
//
// Invariants a KernelImage returned by readImage() (and accepted by
// writeImage()) satisfies, so that devices need not check them again:
//  - every kernel has a non-empty, unique identifier of at most
//    MaxKernelNameBytes bytes;
//  - its code range [EntryOffset, EntryOffset + CodeBytes) is non-empty,
//    4-aligned and inside Code;
//  - RegistersUsed <= MaxRegisters (the encoding's register count);
//  - its parameters have unique identifier names, valid kinds, size 4,
//    4-aligned offsets, do not overlap and end within MaxParamBufferBytes;
//  - with a data section, DataBaseSlot is a 4-aligned word inside Const
//    (without one it is 0), so a loader can write the data's address there;
//  - every symbol has a unique identifier of at most MaxSymbolNameBytes
//    bytes, a valid section, a non-empty range inside that section and, in
//    the const section, clear of the data base slot (so a host write to a
//    __constant__ variable cannot clobber the data section's address).
// The reader also guarantees that nothing it allocates is larger than a
// small multiple of the input size: every count is checked against the
// bytes the file actually holds before anything is allocated, and names are
// bounded in length.
//
//===----------------------------------------------------------------------===//

#include "tandem/KernelImage.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CRC.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <limits>
#include <numeric>

using namespace llvm;
using llvm::support::endian::read16le;
using llvm::support::endian::read32le;
using llvm::support::endian::write16le;
using llvm::support::endian::write32le;

namespace tandem {

namespace {

// Sizes of the fixed-size records of format version 3 (version 1 had no
// data section: a 60-byte header; version 2 no symbol table: 72 bytes).
constexpr uint32_t HeaderSize = 80;
constexpr uint32_t KernelEntrySize = 32;
constexpr uint32_t ParamEntrySize = 16;
constexpr uint32_t SymbolEntrySize = 16;

// The checksum covers every byte after its own field, so that a flip in any
// field the reader does not compare against a fixed value is detected.
constexpr uint32_t ChecksumStart = 12;

// Limits the format imposes. The register limit is the encoding's (6-bit
// register fields); the parameter buffer limit is CUDA's classic 4 KiB. The
// name limits bound what a crafted file can make the reader allocate (many
// entries pointing at one long name) and catch corrupt name offsets early.
constexpr uint32_t MaxRegisters = 64;
constexpr uint64_t MaxParamBufferBytes = 4096;
constexpr size_t MaxKernelNameBytes = 1024;
constexpr size_t MaxParamNameBytes = 256;
constexpr size_t MaxSymbolNameBytes = 1024;
constexpr uint32_t ParamKindCount = 4;
constexpr uint32_t SymbolSectionCount = 2;
constexpr uint64_t MaxFileBytes = std::numeric_limits<uint32_t>::max();

// Byte offsets of the header fields.
namespace hdr {
enum : uint32_t {
  Magic = 0,
  Version = 4,
  Flags = 6,
  Checksum = 8,
  HeaderBytes = 12,
  FileBytes = 16,
  KernelCount = 20,
  KernelTableOffset = 24,
  ParamCount = 28,
  ParamTableOffset = 32,
  CodeOffset = 36,
  CodeBytes = 40,
  ConstOffset = 44,
  ConstBytes = 48,
  StrtabOffset = 52,
  StrtabBytes = 56,
  DataOffset = 60,
  DataBytes = 64,
  DataBaseSlot = 68,
  SymbolCount = 72,
  SymbolTableOffset = 76,
};
} // namespace hdr

// Byte offsets of the fields of a kernel table entry.
namespace kent {
enum : uint32_t {
  NameOffset = 0,
  EntryOffset = 4,
  CodeBytes = 8,
  SharedBytes = 12,
  RegistersUsed = 16,
  LocalBytes = 20,
  FirstParam = 24,
  ParamCount = 28,
};
} // namespace kent

// Byte offsets of the fields of a parameter table entry.
namespace pent {
enum : uint32_t { NameOffset = 0, Kind = 4, Offset = 8, Size = 12 };
} // namespace pent

// Byte offsets of the fields of a symbol table entry.
namespace sent {
enum : uint32_t { NameOffset = 0, Section = 4, Offset = 8, Size = 12 };
} // namespace sent

struct Header {
  uint32_t Magic, HeaderBytes, FileBytes, Checksum;
  uint16_t Version, Flags;
  uint32_t KernelCount, KernelTableOffset, ParamCount, ParamTableOffset;
  uint32_t CodeOffset, CodeBytes, ConstOffset, ConstBytes;
  uint32_t StrtabOffset, StrtabBytes;
  uint32_t DataOffset, DataBytes, DataBaseSlot;
  uint32_t SymbolCount, SymbolTableOffset;
};

/// "Origin: message", the shape of every error this file returns.
template <typename... Ts>
Error fail(StringRef Origin, const char *Fmt, Ts &&...Vals) {
  return createStringError(inconvertibleErrorCode(),
                           Twine(Origin) + ": " +
                               formatv(Fmt, std::forward<Ts>(Vals)...).str());
}

/// A name as it appears in messages: escaped (it may be garbage from a
/// corrupt file) and shortened so one bad name cannot flood the terminal.
std::string quoted(StringRef Name) {
  constexpr size_t Shown = 48;
  std::string S;
  raw_string_ostream OS(S);
  OS << '\'';
  printEscapedString(Name.take_front(Shown), OS);
  if (Name.size() > Shown)
    OS << "...";
  OS << '\'';
  return S;
}

std::string kernelLabel(size_t Index, StringRef Name) {
  return formatv("kernel {0} ({1})", Index, quoted(Name)).str();
}

std::string symbolLabel(size_t Index, StringRef Name) {
  return formatv("symbol {0} ({1})", Index, quoted(Name)).str();
}

std::string paramLabel(size_t KIndex, StringRef KName, size_t PIndex,
                       StringRef PName) {
  return formatv("{0}: parameter {1} ({2})", kernelLabel(KIndex, KName), PIndex,
                 quoted(PName))
      .str();
}

bool isIdentifier(StringRef Name) {
  auto IsFirst = [](char C) { return isAlpha(C) || C == '_' || C == '$'; };
  auto IsRest = [&](char C) { return IsFirst(C) || isDigit(C) || C == '.'; };
  return !Name.empty() && IsFirst(Name.front()) &&
         all_of(Name.drop_front(), IsRest);
}

/// Checks a kernel or parameter name; \p Label says whose it is.
Error checkName(StringRef Origin, StringRef Label, StringRef Name,
                size_t MaxBytes) {
  if (Name.empty())
    return fail(Origin, "{0}: the name is empty", Label);
  if (Name.size() > MaxBytes)
    return fail(Origin, "{0}: the name is {1} bytes long (at most {2})", Label,
                Name.size(), MaxBytes);
  if (!isIdentifier(Name))
    return fail(Origin,
                "{0}: the name is not a valid identifier (expected "
                "[A-Za-z_$][A-Za-z0-9_$.]*)",
                Label);
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Validation of the in-memory image (shared by the reader and the writer)
//===----------------------------------------------------------------------===//

Error checkParam(StringRef Origin, StringRef Label, const KernelParam &P) {
  if (Error E = checkName(Origin, Label, P.Name, MaxParamNameBytes))
    return E;
  if (static_cast<uint32_t>(P.Kind) >= ParamKindCount)
    return fail(Origin,
                "{0}: kind {1} is not valid (expected 0..3: pointer, u32, s32, "
                "f32)",
                Label, static_cast<uint32_t>(P.Kind));
  if (P.Size != 4)
    return fail(Origin, "{0}: size {1} is not valid (expected 4 for kind {2})",
                Label, P.Size, paramKindName(P.Kind));
  if (P.Offset % 4 != 0)
    return fail(Origin, "{0}: offset {1:x} is not 4-aligned", Label, P.Offset);
  uint64_t End = uint64_t(P.Offset) + P.Size;
  if (End > MaxParamBufferBytes)
    return fail(Origin,
                "{0}: range [{1:x}, {2:x}) exceeds the parameter buffer "
                "({3:x} bytes at most)",
                Label, P.Offset, End, MaxParamBufferBytes);
  return Error::success();
}

Error checkParams(StringRef Origin, size_t KIndex, const KernelInfo &K) {
  StringMap<size_t> Seen;
  for (auto [PIndex, P] : enumerate(K.Params)) {
    std::string Label = paramLabel(KIndex, K.Name, PIndex, P.Name);
    if (Error E = checkParam(Origin, Label, P))
      return E;
    auto [It, Inserted] = Seen.try_emplace(P.Name, PIndex);
    if (!Inserted)
      return fail(Origin, "{0}: the name is already used by parameter {1}",
                  Label, It->second);
  }
  // Sorting by offset makes any overlap show up between neighbours; the
  // index breaks ties so the message does not depend on the sort. (No
  // stable_sort: libstdc++ 12's deprecation warning breaks clang -Werror.)
  std::vector<size_t> Order(K.Params.size());
  std::iota(Order.begin(), Order.end(), size_t(0));
  llvm::sort(Order, [&](size_t A, size_t B) {
    return std::pair(K.Params[A].Offset, A) < std::pair(K.Params[B].Offset, B);
  });
  for (size_t I = 1; I < Order.size(); ++I) {
    const KernelParam &Prev = K.Params[Order[I - 1]];
    const KernelParam &Cur = K.Params[Order[I]];
    uint64_t PrevEnd = uint64_t(Prev.Offset) + Prev.Size;
    if (Cur.Offset < PrevEnd)
      return fail(Origin,
                  "{0}: [{1:x}, {2:x}) overlaps parameter {3} ({4}) "
                  "[{5:x}, {6:x})",
                  paramLabel(KIndex, K.Name, Order[I], Cur.Name), Cur.Offset,
                  uint64_t(Cur.Offset) + Cur.Size, Order[I - 1],
                  quoted(Prev.Name), Prev.Offset, PrevEnd);
  }
  return Error::success();
}

Error checkKernel(StringRef Origin, size_t Index, const KernelInfo &K,
                  uint64_t CodeSectionBytes) {
  std::string Label = kernelLabel(Index, K.Name);
  if (Error E = checkName(Origin, Label, K.Name, MaxKernelNameBytes))
    return E;
  if (K.EntryOffset % 4 != 0)
    return fail(Origin, "{0}: entry_offset {1:x} is not 4-aligned", Label,
                K.EntryOffset);
  if (K.CodeBytes == 0)
    return fail(Origin,
                "{0}: code_bytes is 0 (a kernel has at least one "
                "instruction)",
                Label);
  if (K.CodeBytes % 4 != 0)
    return fail(Origin, "{0}: code_bytes {1:x} is not a multiple of 4", Label,
                K.CodeBytes);
  uint64_t End = uint64_t(K.EntryOffset) + K.CodeBytes;
  if (End > CodeSectionBytes)
    return fail(Origin,
                "{0}: code range [{1:x}, {2:x}) exceeds the code section "
                "({3:x} bytes)",
                Label, K.EntryOffset, End, CodeSectionBytes);
  if (K.RegistersUsed > MaxRegisters)
    return fail(Origin,
                "{0}: registers_used {1} exceeds {2} (the encoding's "
                "register count)",
                Label, K.RegistersUsed, MaxRegisters);
  return checkParams(Origin, Index, K);
}

Error checkSymbol(StringRef Origin, size_t Index, const ImageSymbol &S,
                  const KernelImage &Img) {
  std::string Label = symbolLabel(Index, S.Name);
  if (Error E = checkName(Origin, Label, S.Name, MaxSymbolNameBytes))
    return E;
  if (static_cast<uint32_t>(S.Section) >= SymbolSectionCount)
    return fail(Origin, "{0}: section {1} is not valid (expected 0 const or 1 data)",
                Label, static_cast<uint32_t>(S.Section));
  if (S.Size == 0)
    return fail(Origin, "{0}: size is 0 (a variable has at least one byte)", Label);
  uint64_t SectionBytes = Img.sectionBytes(S.Section).size();
  uint64_t End = uint64_t(S.Offset) + S.Size;
  if (End > SectionBytes)
    return fail(Origin, "{0}: range [{1:x}, {2:x}) exceeds the {3} section ({4:x} bytes)",
                Label, S.Offset, End, symbolSectionName(S.Section), SectionBytes);
  if (S.Section == SymbolSection::Const && !Img.Data.empty() &&
      S.Offset < uint64_t(Img.DataBaseSlot) + 4 && Img.DataBaseSlot < End)
    return fail(Origin,
                "{0}: range [{1:x}, {2:x}) covers the data base slot at {3:x} (the "
                "word the loader fills with the data section's address)",
                Label, S.Offset, End, Img.DataBaseSlot);
  return Error::success();
}

Error checkSymbols(StringRef Origin, const KernelImage &Img) {
  StringMap<size_t> Seen;
  for (auto [Index, S] : enumerate(Img.Symbols)) {
    if (Error E = checkSymbol(Origin, Index, S, Img))
      return E;
    auto [It, Inserted] = Seen.try_emplace(S.Name, Index);
    if (!Inserted)
      return fail(Origin, "{0}: the name is already used by symbol {1}",
                  symbolLabel(Index, S.Name), It->second);
  }
  return Error::success();
}

Error validate(const KernelImage &Img, StringRef Origin) {
  uint64_t CodeSectionBytes = uint64_t(Img.Code.size()) * 4;
  if (CodeSectionBytes > MaxFileBytes)
    return fail(Origin,
                "the code section ({0:x} bytes) does not fit in an "
                "image (4 GiB at most)",
                CodeSectionBytes);
  if (Img.Const.size() > MaxFileBytes)
    return fail(Origin,
                "the const section ({0:x} bytes) does not fit in an "
                "image (4 GiB at most)",
                uint64_t(Img.Const.size()));
  if (Img.Data.size() > MaxFileBytes)
    return fail(Origin,
                "the data section ({0:x} bytes) does not fit in an "
                "image (4 GiB at most)",
                uint64_t(Img.Data.size()));
  if (Img.Data.empty() && Img.DataBaseSlot != 0)
    return fail(Origin,
                "data_base_slot {0:x} must be 0 in an image without a data "
                "section",
                Img.DataBaseSlot);
  if (!Img.Data.empty() && (Img.DataBaseSlot % 4 != 0 ||
                            uint64_t(Img.DataBaseSlot) + 4 > Img.Const.size()))
    return fail(Origin,
                "data_base_slot {0:x} is not a 4-aligned word inside the "
                "const section ({1:x} bytes); the loader writes the data "
                "section's address there",
                Img.DataBaseSlot, uint64_t(Img.Const.size()));
  StringMap<size_t> Seen;
  for (auto [Index, K] : enumerate(Img.Kernels)) {
    if (Error E = checkKernel(Origin, Index, K, CodeSectionBytes))
      return E;
    auto [It, Inserted] = Seen.try_emplace(K.Name, Index);
    if (!Inserted)
      return fail(Origin, "{0}: the name is already used by kernel {1}",
                  kernelLabel(Index, K.Name), It->second);
  }
  return checkSymbols(Origin, Img);
}

//===----------------------------------------------------------------------===//
// Reader
//===----------------------------------------------------------------------===//

Header parseHeader(const uint8_t *P) {
  Header H;
  H.Magic = read32le(P + hdr::Magic);
  H.Version = read16le(P + hdr::Version);
  H.Flags = read16le(P + hdr::Flags);
  H.Checksum = read32le(P + hdr::Checksum);
  H.HeaderBytes = read32le(P + hdr::HeaderBytes);
  H.FileBytes = read32le(P + hdr::FileBytes);
  H.KernelCount = read32le(P + hdr::KernelCount);
  H.KernelTableOffset = read32le(P + hdr::KernelTableOffset);
  H.ParamCount = read32le(P + hdr::ParamCount);
  H.ParamTableOffset = read32le(P + hdr::ParamTableOffset);
  H.CodeOffset = read32le(P + hdr::CodeOffset);
  H.CodeBytes = read32le(P + hdr::CodeBytes);
  H.ConstOffset = read32le(P + hdr::ConstOffset);
  H.ConstBytes = read32le(P + hdr::ConstBytes);
  H.StrtabOffset = read32le(P + hdr::StrtabOffset);
  H.StrtabBytes = read32le(P + hdr::StrtabBytes);
  H.DataOffset = read32le(P + hdr::DataOffset);
  H.DataBytes = read32le(P + hdr::DataBytes);
  H.DataBaseSlot = read32le(P + hdr::DataBaseSlot);
  H.SymbolCount = read32le(P + hdr::SymbolCount);
  H.SymbolTableOffset = read32le(P + hdr::SymbolTableOffset);
  return H;
}

/// The fields that identify the file and its size; nothing else in the
/// header is trusted before the checksum has been verified.
Error checkIdentity(ArrayRef<uint8_t> Bytes, const Header &H,
                    StringRef Origin) {
  if (H.Magic != KernelImageMagic)
    return fail(Origin,
                "bad magic {0:x} (expected {1:x}, \"TNDM\"): not a Tandem "
                "kernel image",
                H.Magic, KernelImageMagic);
  if (H.Version != KernelImageVersion)
    return fail(Origin, "version {0} is not supported (expected {1})",
                H.Version, KernelImageVersion);
  if (H.Flags != 0)
    return fail(Origin, "flags {0:x} must be 0 in version {1}", H.Flags,
                KernelImageVersion);
  if (H.HeaderBytes != HeaderSize)
    return fail(Origin,
                "header_bytes {0:x} is not valid (expected {1:x} in "
                "version {2})",
                H.HeaderBytes, HeaderSize, KernelImageVersion);
  if (H.FileBytes != Bytes.size())
    return fail(Origin,
                "the file is {0:x} bytes but its header's file_bytes says "
                "{1:x} (truncated or padded?)",
                uint64_t(Bytes.size()), H.FileBytes);
  uint32_t Computed = crc32(Bytes.drop_front(ChecksumStart));
  if (Computed != H.Checksum)
    return fail(Origin,
                "checksum {0:x} does not match the contents (computed {1:x}): "
                "the file is corrupted",
                H.Checksum, Computed);
  return Error::success();
}

struct Section {
  std::string Desc; // what messages call it, with the fields that size it
  uint64_t Offset;
  uint64_t Size;
  uint64_t end() const { return Offset + Size; }
};

std::vector<Section> sectionsOf(const Header &H) {
  auto Table = [](const char *Name, const char *CountField, uint32_t Count,
                  uint32_t EntrySize) {
    return formatv("{0} ({1} {2} x {3} bytes)", Name, CountField, Count,
                   EntrySize)
        .str();
  };
  // Counts are 32-bit and entries small, so the 64-bit products cannot wrap.
  return {
      {"header", 0, H.HeaderBytes},
      {Table("kernel table", "kernel_count", H.KernelCount, KernelEntrySize),
       H.KernelTableOffset, uint64_t(H.KernelCount) * KernelEntrySize},
      {Table("parameter table", "param_count", H.ParamCount, ParamEntrySize),
       H.ParamTableOffset, uint64_t(H.ParamCount) * ParamEntrySize},
      {Table("symbol table", "symbol_count", H.SymbolCount, SymbolEntrySize),
       H.SymbolTableOffset, uint64_t(H.SymbolCount) * SymbolEntrySize},
      {"code section", H.CodeOffset, H.CodeBytes},
      {"const section", H.ConstOffset, H.ConstBytes},
      {"data section", H.DataOffset, H.DataBytes},
      {"string table", H.StrtabOffset, H.StrtabBytes},
  };
}

Error checkAlignment(const Header &H, StringRef Origin) {
  struct {
    const char *Field;
    uint32_t Value;
  } Aligned[] = {{"kernel_table_offset", H.KernelTableOffset},
                 {"param_table_offset", H.ParamTableOffset},
                 {"symbol_table_offset", H.SymbolTableOffset},
                 {"code_offset", H.CodeOffset},
                 {"code_bytes", H.CodeBytes},
                 {"const_offset", H.ConstOffset}};
  for (const auto &A : Aligned)
    if (A.Value % 4 != 0)
      return fail(Origin, "{0} {1:x} is not a multiple of 4", A.Field, A.Value);
  return Error::success();
}

/// Every section inside the file and disjoint from the others. Checked
/// before any table is read, so no count can make the reader allocate more
/// than the file holds.
Error checkSections(const Header &H, StringRef Origin) {
  if (Error E = checkAlignment(H, Origin))
    return E;
  std::vector<Section> Sections = sectionsOf(H);
  for (const Section &S : Sections)
    if (S.end() > H.FileBytes)
      return fail(Origin, "{0} [{1:x}, {2:x}) exceeds the file ({3:x} bytes)",
                  S.Desc, S.Offset, S.end(), H.FileBytes);
  // Empty sections occupy no bytes and cannot overlap anything.
  llvm::erase_if(Sections, [](const Section &S) { return S.Size == 0; });
  // Sorted by offset, any overlap shows up between neighbours; the
  // description breaks ties so the message does not depend on the sort.
  llvm::sort(Sections, [](const Section &A, const Section &B) {
    return std::pair(A.Offset, A.Desc) < std::pair(B.Offset, B.Desc);
  });
  for (size_t I = 1; I < Sections.size(); ++I) {
    const Section &Prev = Sections[I - 1], &Cur = Sections[I];
    if (Cur.Offset < Prev.end())
      return fail(Origin, "{0} [{1:x}, {2:x}) overlaps the {3} [{4:x}, {5:x})",
                  Cur.Desc, Cur.Offset, Cur.end(), Prev.Desc, Prev.Offset,
                  Prev.end());
  }
  return Error::success();
}

/// The NUL-terminated name at \p Offset in the string table.
Expected<StringRef> readName(StringRef Strtab, uint32_t Offset, size_t MaxBytes,
                             StringRef Origin, StringRef Label) {
  if (Offset >= Strtab.size())
    return fail(Origin,
                "{0}: name_offset {1:x} is outside the string table ({2:x} "
                "bytes)",
                Label, Offset, uint64_t(Strtab.size()));
  // Bounding the search keeps reading many entries linear in their count.
  StringRef Window = Strtab.substr(Offset, MaxBytes + 1);
  size_t Nul = Window.find('\0');
  if (Nul == StringRef::npos && Window.size() <= MaxBytes)
    return fail(Origin,
                "{0}: the name at string table offset {1:x} is not "
                "NUL-terminated within the string table ({2:x} bytes)",
                Label, Offset, uint64_t(Strtab.size()));
  if (Nul == StringRef::npos)
    return fail(Origin,
                "{0}: the name at string table offset {1:x} is longer than "
                "{2} bytes",
                Label, Offset, MaxBytes);
  return Window.take_front(Nul);
}

Expected<KernelParam> readParam(const uint8_t *P, StringRef Strtab,
                                StringRef Origin, StringRef Label) {
  KernelParam Param;
  Expected<StringRef> Name = readName(Strtab, read32le(P + pent::NameOffset),
                                      MaxParamNameBytes, Origin, Label);
  if (!Name)
    return Name.takeError();
  Param.Name = Name->str();
  // The raw value must be checked before it is narrowed into the enum.
  uint32_t Kind = read32le(P + pent::Kind);
  if (Kind >= ParamKindCount)
    return fail(Origin,
                "{0} ({1}): kind {2} is not valid (expected 0..3: pointer, "
                "u32, s32, f32)",
                Label, quoted(Param.Name), Kind);
  Param.Kind = static_cast<ParamKind>(Kind);
  Param.Offset = read32le(P + pent::Offset);
  Param.Size = read32le(P + pent::Size);
  return Param;
}

/// Checks that a kernel's parameter entries [First, First + Count) are the
/// next unclaimed ones and inside the table; advances \p NextParam past them.
Error claimParams(uint32_t First, uint32_t Count, const Header &H,
                  uint64_t &NextParam, StringRef Origin, StringRef Label) {
  if (First != NextParam)
    return fail(Origin,
                "{0}: first_param {1} is not valid (expected {2}: parameter "
                "entries are stored in kernel order)",
                Label, First, NextParam);
  uint64_t End = uint64_t(First) + Count;
  if (End > H.ParamCount)
    return fail(Origin,
                "{0}: parameters [{1}, {2}) exceed the parameter table ({3} "
                "entries)",
                Label, First, End, H.ParamCount);
  NextParam = End;
  return Error::success();
}

/// Reads the parameter entries [First, First + Count), already claimed.
Error readParams(ArrayRef<uint8_t> Bytes, const Header &H, StringRef Strtab,
                 uint32_t First, uint32_t Count, StringRef Origin,
                 StringRef Label, std::vector<KernelParam> &Params) {
  Params.reserve(Count);
  for (uint32_t I = 0; I < Count; ++I) {
    const uint8_t *PE = Bytes.data() + H.ParamTableOffset +
                        (uint64_t(First) + I) * ParamEntrySize;
    std::string PLabel = formatv("{0}: parameter {1}", Label, I).str();
    Expected<KernelParam> Param = readParam(PE, Strtab, Origin, PLabel);
    if (!Param)
      return Param.takeError();
    Params.push_back(std::move(*Param));
  }
  return Error::success();
}

/// Reads kernel \p Index; \p NextParam is the first parameter entry not yet
/// claimed by an earlier kernel (parameters are stored in kernel order).
Expected<KernelInfo> readKernel(ArrayRef<uint8_t> Bytes, const Header &H,
                                StringRef Strtab, uint32_t Index,
                                uint64_t &NextParam, StringRef Origin) {
  const uint8_t *P =
      Bytes.data() + H.KernelTableOffset + uint64_t(Index) * KernelEntrySize;
  KernelInfo K;
  Expected<StringRef> Name =
      readName(Strtab, read32le(P + kent::NameOffset), MaxKernelNameBytes,
               Origin, formatv("kernel {0}", Index).str());
  if (!Name)
    return Name.takeError();
  K.Name = Name->str();
  K.EntryOffset = read32le(P + kent::EntryOffset);
  K.CodeBytes = read32le(P + kent::CodeBytes);
  K.SharedBytes = read32le(P + kent::SharedBytes);
  K.RegistersUsed = read32le(P + kent::RegistersUsed);
  K.LocalBytes = read32le(P + kent::LocalBytes);
  uint32_t First = read32le(P + kent::FirstParam);
  uint32_t Count = read32le(P + kent::ParamCount);
  std::string Label = kernelLabel(Index, K.Name);
  if (Error E = claimParams(First, Count, H, NextParam, Origin, Label))
    return E;
  if (Error E =
          readParams(Bytes, H, Strtab, First, Count, Origin, Label, K.Params))
    return E;
  return K;
}

/// Reads symbol \p Index: its name and raw section are checked here, its
/// range later by validate().
Expected<ImageSymbol> readSymbol(ArrayRef<uint8_t> Bytes, const Header &H,
                                 StringRef Strtab, uint32_t Index, StringRef Origin) {
  const uint8_t *P =
      Bytes.data() + H.SymbolTableOffset + uint64_t(Index) * SymbolEntrySize;
  ImageSymbol S;
  Expected<StringRef> Name = readName(Strtab, read32le(P + sent::NameOffset),
                                      MaxSymbolNameBytes, Origin,
                                      formatv("symbol {0}", Index).str());
  if (!Name)
    return Name.takeError();
  S.Name = Name->str();
  // The raw value must be checked before it is narrowed into the enum.
  uint32_t Section = read32le(P + sent::Section);
  if (Section >= SymbolSectionCount)
    return fail(Origin, "{0}: section {1} is not valid (expected 0 const or 1 data)",
                symbolLabel(Index, S.Name), Section);
  S.Section = static_cast<SymbolSection>(Section);
  S.Offset = read32le(P + sent::Offset);
  S.Size = read32le(P + sent::Size);
  return S;
}

Expected<KernelImage> readTables(ArrayRef<uint8_t> Bytes, const Header &H,
                                 StringRef Origin) {
  KernelImage Img;
  StringRef Strtab(reinterpret_cast<const char *>(Bytes.data()) +
                       H.StrtabOffset,
                   H.StrtabBytes);
  uint64_t NextParam = 0;
  Img.Kernels.reserve(H.KernelCount);
  for (uint32_t I = 0; I < H.KernelCount; ++I) {
    Expected<KernelInfo> K = readKernel(Bytes, H, Strtab, I, NextParam, Origin);
    if (!K)
      return K.takeError();
    Img.Kernels.push_back(std::move(*K));
  }
  if (NextParam != H.ParamCount)
    return fail(Origin,
                "the parameter table has {0} entries but the kernels use {1}",
                H.ParamCount, NextParam);
  Img.Code.resize(H.CodeBytes / 4);
  for (size_t W = 0; W < Img.Code.size(); ++W)
    Img.Code[W] = read32le(Bytes.data() + H.CodeOffset + W * 4);
  Img.Const.assign(Bytes.begin() + H.ConstOffset,
                   Bytes.begin() + H.ConstOffset + H.ConstBytes);
  Img.Data.assign(Bytes.begin() + H.DataOffset,
                  Bytes.begin() + H.DataOffset + H.DataBytes);
  Img.DataBaseSlot = H.DataBaseSlot;
  Img.Symbols.reserve(H.SymbolCount);
  for (uint32_t I = 0; I < H.SymbolCount; ++I) {
    Expected<ImageSymbol> S = readSymbol(Bytes, H, Strtab, I, Origin);
    if (!S)
      return S.takeError();
    Img.Symbols.push_back(std::move(*S));
  }
  return Img;
}

//===----------------------------------------------------------------------===//
// Writer
//===----------------------------------------------------------------------===//

/// Names are stored once each, in order of first use, so the output is a
/// function of the image alone.
class StringTable {
public:
  uint32_t add(StringRef S) {
    auto [It, Inserted] = Offsets.try_emplace(S, uint32_t(Bytes.size()));
    if (Inserted) {
      Bytes.append(S.begin(), S.end());
      Bytes.push_back('\0');
    }
    return It->second;
  }
  const std::string &bytes() const { return Bytes; }

private:
  StringMap<uint32_t> Offsets;
  std::string Bytes;
};

struct Layout {
  uint64_t KernelTable, ParamTable, SymbolTable, Code, Const, Data, Strtab, End;
  uint32_t ParamCount;
};

Expected<Layout> layOut(const KernelImage &Img, uint64_t StrtabBytes,
                        StringRef Origin) {
  Layout L;
  uint64_t Params = 0;
  for (const KernelInfo &K : Img.Kernels)
    Params += K.Params.size();
  L.KernelTable = HeaderSize;
  L.ParamTable = L.KernelTable + uint64_t(Img.Kernels.size()) * KernelEntrySize;
  L.SymbolTable = L.ParamTable + Params * ParamEntrySize;
  L.Code = L.SymbolTable + uint64_t(Img.Symbols.size()) * SymbolEntrySize;
  L.Const = L.Code + uint64_t(Img.Code.size()) * 4;
  L.Data = L.Const + Img.Const.size();
  L.Strtab = L.Data + Img.Data.size();
  L.End = L.Strtab + StrtabBytes;
  if (L.End > MaxFileBytes)
    return fail(Origin, "the image would be {0:x} bytes (4 GiB at most)",
                L.End);
  L.ParamCount = uint32_t(Params);
  return L;
}

void writeHeader(uint8_t *P, const KernelImage &Img, const Layout &L,
                 uint32_t StrtabBytes) {
  write32le(P + hdr::Magic, KernelImageMagic);
  write16le(P + hdr::Version, KernelImageVersion);
  write16le(P + hdr::Flags, 0);
  write32le(P + hdr::HeaderBytes, HeaderSize);
  write32le(P + hdr::FileBytes, uint32_t(L.End));
  write32le(P + hdr::KernelCount, uint32_t(Img.Kernels.size()));
  write32le(P + hdr::KernelTableOffset, uint32_t(L.KernelTable));
  write32le(P + hdr::ParamCount, L.ParamCount);
  write32le(P + hdr::ParamTableOffset, uint32_t(L.ParamTable));
  write32le(P + hdr::CodeOffset, uint32_t(L.Code));
  write32le(P + hdr::CodeBytes, uint32_t(Img.Code.size() * 4));
  write32le(P + hdr::ConstOffset, uint32_t(L.Const));
  write32le(P + hdr::ConstBytes, uint32_t(Img.Const.size()));
  write32le(P + hdr::StrtabOffset, uint32_t(L.Strtab));
  write32le(P + hdr::StrtabBytes, StrtabBytes);
  write32le(P + hdr::DataOffset, uint32_t(L.Data));
  write32le(P + hdr::DataBytes, uint32_t(Img.Data.size()));
  write32le(P + hdr::DataBaseSlot, Img.DataBaseSlot);
  write32le(P + hdr::SymbolCount, uint32_t(Img.Symbols.size()));
  write32le(P + hdr::SymbolTableOffset, uint32_t(L.SymbolTable));
}

void writeTables(uint8_t *Out, const KernelImage &Img, const Layout &L,
                 StringTable &Strings) {
  uint32_t NextParam = 0;
  for (auto [I, K] : enumerate(Img.Kernels)) {
    uint8_t *P = Out + L.KernelTable + I * KernelEntrySize;
    write32le(P + kent::NameOffset, Strings.add(K.Name));
    write32le(P + kent::EntryOffset, K.EntryOffset);
    write32le(P + kent::CodeBytes, K.CodeBytes);
    write32le(P + kent::SharedBytes, K.SharedBytes);
    write32le(P + kent::RegistersUsed, K.RegistersUsed);
    write32le(P + kent::LocalBytes, K.LocalBytes);
    write32le(P + kent::FirstParam, NextParam);
    write32le(P + kent::ParamCount, uint32_t(K.Params.size()));
    for (const KernelParam &Param : K.Params) {
      uint8_t *PE = Out + L.ParamTable + uint64_t(NextParam++) * ParamEntrySize;
      write32le(PE + pent::NameOffset, Strings.add(Param.Name));
      write32le(PE + pent::Kind, static_cast<uint32_t>(Param.Kind));
      write32le(PE + pent::Offset, Param.Offset);
      write32le(PE + pent::Size, Param.Size);
    }
  }
  for (auto [I, S] : enumerate(Img.Symbols)) {
    uint8_t *P = Out + L.SymbolTable + I * SymbolEntrySize;
    write32le(P + sent::NameOffset, Strings.add(S.Name));
    write32le(P + sent::Section, static_cast<uint32_t>(S.Section));
    write32le(P + sent::Offset, S.Offset);
    write32le(P + sent::Size, S.Size);
  }
}

Expected<std::vector<uint8_t>> writeImageTo(const KernelImage &Img,
                                            StringRef Origin) {
  if (Error E = validate(Img, Origin))
    return E;
  // The string table is built first because the layout needs its size.
  StringTable Strings;
  for (const KernelInfo &K : Img.Kernels) {
    Strings.add(K.Name);
    for (const KernelParam &P : K.Params)
      Strings.add(P.Name);
  }
  for (const ImageSymbol &S : Img.Symbols)
    Strings.add(S.Name);
  Expected<Layout> L = layOut(Img, Strings.bytes().size(), Origin);
  if (!L)
    return L.takeError();
  std::vector<uint8_t> Out(L->End, 0);
  writeHeader(Out.data(), Img, *L, uint32_t(Strings.bytes().size()));
  writeTables(Out.data(), Img, *L, Strings);
  for (auto [W, Word] : enumerate(Img.Code))
    write32le(Out.data() + L->Code + W * 4, Word);
  llvm::copy(Img.Const, Out.begin() + L->Const);
  llvm::copy(Img.Data, Out.begin() + L->Data);
  llvm::copy(Strings.bytes(), Out.begin() + L->Strtab);
  write32le(Out.data() + hdr::Checksum,
            crc32(ArrayRef<uint8_t>(Out).drop_front(ChecksumStart)));
  return Out;
}

} // namespace

const char *paramKindName(ParamKind K) {
  switch (K) {
  case ParamKind::Pointer:
    return "ptr";
  case ParamKind::U32:
    return "u32";
  case ParamKind::S32:
    return "s32";
  case ParamKind::F32:
    return "f32";
  }
  return "invalid";
}

const char *symbolSectionName(SymbolSection S) {
  switch (S) {
  case SymbolSection::Const:
    return "const";
  case SymbolSection::Data:
    return "data";
  }
  return "invalid";
}

uint32_t KernelInfo::paramBytes() const {
  uint64_t End = 0;
  for (const KernelParam &P : Params)
    End = std::max(End, uint64_t(P.Offset) + P.Size);
  return uint32_t(
      std::min<uint64_t>(End, std::numeric_limits<uint32_t>::max()));
}

const KernelInfo *KernelImage::findKernel(StringRef Name) const {
  for (const KernelInfo &K : Kernels)
    if (K.Name == Name)
      return &K;
  return nullptr;
}

const ImageSymbol *KernelImage::findSymbol(StringRef Name) const {
  for (const ImageSymbol &S : Symbols)
    if (S.Name == Name)
      return &S;
  return nullptr;
}

Expected<std::vector<uint8_t>> writeImage(const KernelImage &Img) {
  return writeImageTo(Img, "kernel image");
}

Expected<KernelImage> readImage(ArrayRef<uint8_t> Bytes, StringRef Origin) {
  if (Bytes.size() > MaxFileBytes)
    return fail(Origin,
                "the file is {0:x} bytes (a kernel image is 4 GiB at "
                "most)",
                uint64_t(Bytes.size()));
  if (Bytes.size() < HeaderSize)
    return fail(Origin,
                "the file is {0} bytes, smaller than the {1}-byte header "
                "(truncated?)",
                Bytes.size(), HeaderSize);
  Header H = parseHeader(Bytes.data());
  if (Error E = checkIdentity(Bytes, H, Origin))
    return E;
  if (Error E = checkSections(H, Origin))
    return E;
  Expected<KernelImage> Img = readTables(Bytes, H, Origin);
  if (!Img)
    return Img.takeError();
  if (Error E = validate(*Img, Origin))
    return E;
  return Img;
}

Expected<KernelImage> readImageFile(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(
      Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Buf)
    return fail(Path, "cannot read the kernel image: {0}",
                Buf.getError().message());
  return readImage(arrayRefFromStringRef((*Buf)->getBuffer()), Path);
}

Error writeImageFile(const KernelImage &Img, StringRef Path) {
  Expected<std::vector<uint8_t>> Bytes = writeImageTo(Img, Path);
  if (!Bytes)
    return Bytes.takeError();
  // writeToOutput writes a temporary file next to Path and renames it, so a
  // reader never sees a half-written image.
  Error E = writeToOutput(Path, [&](raw_ostream &OS) {
    OS.write(reinterpret_cast<const char *>(Bytes->data()), Bytes->size());
    return Error::success();
  });
  if (E)
    return fail(Path, "cannot write the kernel image: {0}",
                toString(std::move(E)));
  return Error::success();
}

} // namespace tandem
