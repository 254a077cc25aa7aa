//===- KernelImageTest.cpp - Kernel image reader and writer ---------------===//
//
// Round trips of random images, every reader check provoked by corrupting a
// valid image (each corruption is also stored as a file in
// tests/data/images/, see its README), the writer's refusal of inconsistent
// images, and sweeps that flip or cut every byte of a valid image (run them
// under the ASan build: they must never crash).
//
// The header and table offsets below are the documented layout
// (docs/KernelImage.md); the tests fail if the code drifts from the document.
//
//===----------------------------------------------------------------------===//

#include "tandem/KernelImage.h"

#include "llvm/Support/CRC.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <vector>

using namespace tandem;
using Bytes = std::vector<uint8_t>;

namespace {

//===----------------------------------------------------------------------===//
// The documented layout
//===----------------------------------------------------------------------===//

enum HeaderField : uint32_t {
  HMagic = 0,
  HVersion = 4, // u16, followed by u16 flags at 6
  HChecksum = 8,
  HHeaderBytes = 12,
  HFileBytes = 16,
  HKernelCount = 20,
  HKernelTableOffset = 24,
  HParamCount = 28,
  HParamTableOffset = 32,
  HCodeOffset = 36,
  HCodeBytes = 40,
  HConstOffset = 44,
  HConstBytes = 48,
  HStrtabOffset = 52,
  HStrtabBytes = 56,
  HDataOffset = 60,
  HDataBytes = 64,
  HDataBaseSlot = 68,
  HSymbolCount = 72,
  HSymbolTableOffset = 76,
};
constexpr uint32_t HFlags = 6;
constexpr uint32_t HeaderSize = 80;

enum KernelField : uint32_t {
  KNameOffset = 0,
  KEntryOffset = 4,
  KCodeBytes = 8,
  KSharedBytes = 12,
  KRegistersUsed = 16,
  KLocalBytes = 20,
  KFirstParam = 24,
  KParamCount = 28,
};
constexpr uint32_t KernelEntrySize = 32;

enum ParamField : uint32_t {
  PNameOffset = 0,
  PKind = 4,
  POffset = 8,
  PSize = 12
};
constexpr uint32_t ParamEntrySize = 16;

enum SymbolField : uint32_t {
  SNameOffset = 0,
  SSection = 4,
  SOffset = 8,
  SSize = 12
};
constexpr uint32_t SymbolEntrySize = 16;

uint32_t get32(const Bytes &B, uint32_t Off) {
  return llvm::support::endian::read32le(B.data() + Off);
}
void set32(Bytes &B, uint32_t Off, uint32_t V) {
  llvm::support::endian::write32le(B.data() + Off, V);
}
uint32_t kernelField(const Bytes &B, uint32_t K, KernelField F) {
  return get32(B, HKernelTableOffset) + K * KernelEntrySize + F;
}
uint32_t paramField(const Bytes &B, uint32_t P, ParamField F) {
  return get32(B, HParamTableOffset) + P * ParamEntrySize + F;
}
uint32_t symbolField(const Bytes &B, uint32_t S, SymbolField F) {
  return get32(B, HSymbolTableOffset) + S * SymbolEntrySize + F;
}
/// The checksum is the CRC-32 of every byte after the checksum field.
void fixChecksum(Bytes &B) {
  set32(B, HChecksum, llvm::crc32(llvm::ArrayRef<uint8_t>(B).drop_front(12)));
}

//===----------------------------------------------------------------------===//
// Images and comparisons
//===----------------------------------------------------------------------===//

KernelParam param(const char *Name, ParamKind Kind, uint32_t Offset) {
  KernelParam P;
  P.Name = Name;
  P.Kind = Kind;
  P.Offset = Offset;
  return P;
}

/// Three kernels over 18 code words (72 bytes): vadd [0x0, 0x18),
/// reduce_sum [0x18, 0x38), scale [0x38, 0x48); 12 const bytes (the data
/// base slot at 4, symbol 'coeffs' at [8, 12)); 8 data bytes (symbol
/// 'counter').
KernelImage sampleImage() {
  KernelImage Img;
  KernelInfo VAdd;
  VAdd.Name = "vadd";
  VAdd.EntryOffset = 0;
  VAdd.CodeBytes = 24;
  VAdd.RegistersUsed = 8;
  VAdd.Params = {
      param("a", ParamKind::Pointer, 0), param("b", ParamKind::Pointer, 4),
      param("c", ParamKind::Pointer, 8), param("n", ParamKind::U32, 12)};
  KernelInfo Reduce;
  Reduce.Name = "reduce_sum";
  Reduce.EntryOffset = 24;
  Reduce.CodeBytes = 32;
  Reduce.SharedBytes = 1024;
  Reduce.RegistersUsed = 12;
  Reduce.Params = {param("in", ParamKind::Pointer, 0),
                   param("out", ParamKind::Pointer, 4),
                   param("n", ParamKind::S32, 8)};
  KernelInfo Scale;
  Scale.Name = "scale";
  Scale.EntryOffset = 56;
  Scale.CodeBytes = 16;
  Scale.LocalBytes = 16;
  Scale.RegistersUsed = 5;
  Scale.Params = {param("x", ParamKind::Pointer, 0),
                  param("alpha", ParamKind::F32, 4)};
  Img.Kernels = {VAdd, Reduce, Scale};
  for (uint32_t I = 0; I < 18; ++I)
    Img.Code.push_back(0x9E3779B9u * (I + 1));
  for (uint8_t I = 0; I < 12; ++I)
    Img.Const.push_back(uint8_t(0xA0 + I));
  for (uint8_t I = 0; I < 8; ++I)
    Img.Data.push_back(uint8_t(0xD0 + I));
  Img.DataBaseSlot = 4;
  Img.Symbols = {{"coeffs", SymbolSection::Const, 8, 4},
                 {"counter", SymbolSection::Data, 0, 8}};
  return Img;
}

Bytes bytesOf(const KernelImage &Img) {
  llvm::Expected<Bytes> B = writeImage(Img);
  if (!B) {
    ADD_FAILURE() << llvm::toString(B.takeError());
    return {};
  }
  return *B;
}

Bytes sampleBytes() { return bytesOf(sampleImage()); }

/// The sample with 1100 const bytes of 'a' right before the string table, to
/// build a name longer than the reader allows.
Bytes longConstBytes() {
  KernelImage Img = sampleImage();
  Img.Const.assign(1100, 'a');
  Img.Data.clear(); // the const bytes must end where the string table starts
  Img.DataBaseSlot = 0;
  Img.Symbols.pop_back(); // 'counter' was in the data section
  return bytesOf(Img);
}

void expectSameImage(const KernelImage &A, const KernelImage &B) {
  ASSERT_EQ(A.Kernels.size(), B.Kernels.size());
  for (size_t K = 0; K < A.Kernels.size(); ++K) {
    const KernelInfo &X = A.Kernels[K], &Y = B.Kernels[K];
    SCOPED_TRACE("kernel " + std::to_string(K) + " " + X.Name);
    EXPECT_EQ(X.Name, Y.Name);
    EXPECT_EQ(X.EntryOffset, Y.EntryOffset);
    EXPECT_EQ(X.CodeBytes, Y.CodeBytes);
    EXPECT_EQ(X.SharedBytes, Y.SharedBytes);
    EXPECT_EQ(X.RegistersUsed, Y.RegistersUsed);
    EXPECT_EQ(X.LocalBytes, Y.LocalBytes);
    ASSERT_EQ(X.Params.size(), Y.Params.size());
    for (size_t P = 0; P < X.Params.size(); ++P) {
      EXPECT_EQ(X.Params[P].Name, Y.Params[P].Name);
      EXPECT_EQ(X.Params[P].Kind, Y.Params[P].Kind);
      EXPECT_EQ(X.Params[P].Offset, Y.Params[P].Offset);
      EXPECT_EQ(X.Params[P].Size, Y.Params[P].Size);
    }
  }
  EXPECT_EQ(A.Code, B.Code);
  EXPECT_EQ(A.Const, B.Const);
  EXPECT_EQ(A.Data, B.Data);
  EXPECT_EQ(A.DataBaseSlot, B.DataBaseSlot);
  ASSERT_EQ(A.Symbols.size(), B.Symbols.size());
  for (size_t S = 0; S < A.Symbols.size(); ++S) {
    SCOPED_TRACE("symbol " + std::to_string(S) + " " + A.Symbols[S].Name);
    EXPECT_EQ(A.Symbols[S].Name, B.Symbols[S].Name);
    EXPECT_EQ(A.Symbols[S].Section, B.Symbols[S].Section);
    EXPECT_EQ(A.Symbols[S].Offset, B.Symbols[S].Offset);
    EXPECT_EQ(A.Symbols[S].Size, B.Symbols[S].Size);
  }
}

std::string randomName(std::mt19937 &R, const std::string &Prefix) {
  static const char Chars[] =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$.";
  std::string S = Prefix;
  for (unsigned I = 0, N = R() % 12; I < N; ++I)
    S += Chars[R() % (sizeof(Chars) - 1)];
  return S;
}

KernelImage randomImage(std::mt19937 &R) {
  KernelImage Img;
  Img.Code.resize(1 + R() % 64);
  for (uint32_t &W : Img.Code)
    W = uint32_t(R());
  Img.Const.resize(R() % 41);
  for (uint8_t &C : Img.Const)
    C = uint8_t(R());
  if (Img.Const.size() >= 4 && R() % 2) {
    Img.Data.resize(1 + R() % 40);
    for (uint8_t &C : Img.Data)
      C = uint8_t(R());
    Img.DataBaseSlot = 4 * uint32_t(R() % (Img.Const.size() / 4));
  }
  // Symbols: random ranges of either section, clear of the data base slot.
  for (unsigned S = 0, NS = R() % 5; S < NS; ++S) {
    bool InData = !Img.Data.empty() && R() % 2;
    ImageSymbol Sym;
    Sym.Section = InData ? SymbolSection::Data : SymbolSection::Const;
    llvm::ArrayRef<uint8_t> Sec = Img.sectionBytes(Sym.Section);
    if (Sec.empty())
      continue;
    Sym.Name = randomName(R, "s" + std::to_string(S) + "_");
    Sym.Offset = uint32_t(R() % Sec.size());
    Sym.Size = 1 + uint32_t(R() % (Sec.size() - Sym.Offset));
    bool CoversSlot = !InData && !Img.Data.empty() &&
                      Sym.Offset < Img.DataBaseSlot + 4 &&
                      Img.DataBaseSlot < Sym.Offset + Sym.Size;
    if (!CoversSlot)
      Img.Symbols.push_back(Sym);
  }
  uint32_t CodeWords = uint32_t(Img.Code.size());
  for (unsigned K = 0, NK = R() % 6; K < NK; ++K) {
    KernelInfo Info;
    Info.Name = randomName(R, "k" + std::to_string(K) + "_");
    uint32_t First = R() % CodeWords;
    Info.EntryOffset = First * 4;
    Info.CodeBytes = (1 + R() % (CodeWords - First)) * 4;
    Info.SharedBytes = R() % 2 ? uint32_t(R()) : 0;
    Info.LocalBytes = R() % 2 ? uint32_t(R()) : 0;
    Info.RegistersUsed = R() % 65;
    // Distinct slots of a 64-byte buffer, in random order, with gaps.
    std::vector<uint32_t> Slots(16);
    for (uint32_t S = 0; S < 16; ++S)
      Slots[S] = S * 4;
    std::shuffle(Slots.begin(), Slots.end(), R);
    for (unsigned P = 0, NP = R() % 7; P < NP; ++P) {
      KernelParam Param;
      Param.Name = randomName(R, "p" + std::to_string(P) + "_");
      Param.Kind = static_cast<ParamKind>(R() % 4);
      Param.Offset = Slots[P];
      Info.Params.push_back(Param);
    }
    Img.Kernels.push_back(Info);
  }
  return Img;
}

template <typename T> std::string errorOf(llvm::Expected<T> V) {
  if (V)
    return "<no error>";
  return llvm::toString(V.takeError());
}

std::string readError(const Bytes &B) {
  return errorOf(readImage(B, "foo.img"));
}

void expectWords(const std::string &Msg,
                 const std::vector<std::string> &Words) {
  for (const std::string &W : Words)
    EXPECT_NE(Msg.find(W), std::string::npos)
        << "expected '" << W << "' in: " << Msg;
}

//===----------------------------------------------------------------------===//
// Round trips and layout
//===----------------------------------------------------------------------===//

TEST(KernelImage, SampleRoundTrips) {
  KernelImage Img = sampleImage();
  Bytes B = bytesOf(Img);
  llvm::Expected<KernelImage> Back = readImage(B, "sample.img");
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  expectSameImage(Img, *Back);
}

TEST(KernelImage, RandomImagesRoundTripAndRewriteIdentically) {
  std::mt19937 R(20261201);
  for (int Iter = 0; Iter < 300; ++Iter) {
    SCOPED_TRACE("iteration " + std::to_string(Iter));
    KernelImage Img = randomImage(R);
    Bytes B = bytesOf(Img);
    llvm::Expected<KernelImage> Back = readImage(B, "random.img");
    ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
    expectSameImage(Img, *Back);
    EXPECT_EQ(B, bytesOf(*Back)); // the writer is a function of the image
  }
}

TEST(KernelImage, EmptyImageRoundTrips) {
  KernelImage Img;
  Bytes B = bytesOf(Img);
  EXPECT_EQ(B.size(), HeaderSize);
  llvm::Expected<KernelImage> Back = readImage(B, "empty.img");
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  expectSameImage(Img, *Back);
}

TEST(KernelImage, WriterFollowsTheDocumentedLayout) {
  KernelImage Img = sampleImage();
  Bytes B = sampleBytes();
  EXPECT_EQ(std::string(B.begin(), B.begin() + 4), "TNDM");
  EXPECT_EQ(get32(B, HMagic), KernelImageMagic);
  EXPECT_EQ(llvm::support::endian::read16le(B.data() + HVersion), 3);
  EXPECT_EQ(llvm::support::endian::read16le(B.data() + HFlags), 0);
  EXPECT_EQ(get32(B, HHeaderBytes), HeaderSize);
  EXPECT_EQ(get32(B, HFileBytes), B.size());
  EXPECT_EQ(get32(B, HChecksum),
            llvm::crc32(llvm::ArrayRef<uint8_t>(B).drop_front(12)));
  EXPECT_EQ(get32(B, HKernelCount), 3u);
  EXPECT_EQ(get32(B, HParamCount), 9u);
  // header | kernel table | parameter table | symbol table | code | const
  // | data | strtab
  EXPECT_EQ(get32(B, HKernelTableOffset), HeaderSize);
  EXPECT_EQ(get32(B, HParamTableOffset), HeaderSize + 3 * KernelEntrySize);
  EXPECT_EQ(get32(B, HSymbolCount), 2u);
  EXPECT_EQ(get32(B, HSymbolTableOffset),
            get32(B, HParamTableOffset) + 9 * ParamEntrySize);
  EXPECT_EQ(get32(B, HCodeOffset),
            get32(B, HSymbolTableOffset) + 2 * SymbolEntrySize);
  EXPECT_EQ(get32(B, HCodeBytes), 72u);
  EXPECT_EQ(get32(B, HConstOffset), get32(B, HCodeOffset) + 72);
  EXPECT_EQ(get32(B, HConstBytes), 12u);
  EXPECT_EQ(get32(B, HDataOffset), get32(B, HConstOffset) + 12);
  EXPECT_EQ(get32(B, HDataBytes), 8u);
  EXPECT_EQ(get32(B, HDataBaseSlot), 4u);
  EXPECT_EQ(B[get32(B, HDataOffset) + 5], Img.Data[5]);
  EXPECT_EQ(get32(B, HStrtabOffset), get32(B, HDataOffset) + 8);
  EXPECT_EQ(get32(B, HStrtabOffset) + get32(B, HStrtabBytes), B.size());
  // Kernel 1 (reduce_sum) and its parameters, field by field.
  EXPECT_EQ(get32(B, kernelField(B, 1, KEntryOffset)), 24u);
  EXPECT_EQ(get32(B, kernelField(B, 1, KCodeBytes)), 32u);
  EXPECT_EQ(get32(B, kernelField(B, 1, KSharedBytes)), 1024u);
  EXPECT_EQ(get32(B, kernelField(B, 1, KRegistersUsed)), 12u);
  EXPECT_EQ(get32(B, kernelField(B, 2, KLocalBytes)), 16u);
  EXPECT_EQ(get32(B, kernelField(B, 1, KFirstParam)), 4u);
  EXPECT_EQ(get32(B, kernelField(B, 1, KParamCount)), 3u);
  EXPECT_EQ(get32(B, paramField(B, 6, PKind)), uint32_t(ParamKind::S32));
  EXPECT_EQ(get32(B, paramField(B, 6, POffset)), 8u);
  EXPECT_EQ(get32(B, paramField(B, 6, PSize)), 4u);
  const char *Strtab =
      reinterpret_cast<const char *>(B.data()) + get32(B, HStrtabOffset);
  EXPECT_STREQ(Strtab + get32(B, kernelField(B, 1, KNameOffset)), "reduce_sum");
  EXPECT_STREQ(Strtab + get32(B, paramField(B, 6, PNameOffset)), "n");
  // Symbol 1 (counter), field by field.
  EXPECT_STREQ(Strtab + get32(B, symbolField(B, 1, SNameOffset)), "counter");
  EXPECT_EQ(get32(B, symbolField(B, 1, SSection)), uint32_t(SymbolSection::Data));
  EXPECT_EQ(get32(B, symbolField(B, 1, SOffset)), 0u);
  EXPECT_EQ(get32(B, symbolField(B, 1, SSize)), 8u);
  EXPECT_EQ(get32(B, symbolField(B, 0, SOffset)), 8u);
  EXPECT_EQ(get32(B, get32(B, HCodeOffset) + 4), Img.Code[1]);
  EXPECT_EQ(B[get32(B, HConstOffset) + 3], Img.Const[3]);
}

TEST(KernelImage, WriterStoresEachNameOnce) {
  Bytes B = sampleBytes();
  // vadd's "n" (param 3) and reduce_sum's "n" (param 6) share one string.
  EXPECT_EQ(get32(B, paramField(B, 3, PNameOffset)),
            get32(B, paramField(B, 6, PNameOffset)));
}

TEST(KernelImage, ParamBytesIsTheEndOfTheLastParameter) {
  KernelInfo K;
  EXPECT_EQ(K.paramBytes(), 0u);
  K.Params = {param("a", ParamKind::U32, 12), param("b", ParamKind::F32, 0)};
  EXPECT_EQ(K.paramBytes(), 16u); // gaps count; order does not matter
}

TEST(KernelImage, FindKernelByName) {
  KernelImage Img = sampleImage();
  const KernelInfo *K = Img.findKernel("reduce_sum");
  ASSERT_NE(K, nullptr);
  EXPECT_EQ(K->EntryOffset, 24u);
  EXPECT_EQ(Img.findKernel("reduce"), nullptr);
  EXPECT_EQ(Img.findKernel(""), nullptr);
}

TEST(KernelImage, FindSymbolByName) {
  KernelImage Img = sampleImage();
  const ImageSymbol *S = Img.findSymbol("counter");
  ASSERT_NE(S, nullptr);
  EXPECT_EQ(S->Section, SymbolSection::Data);
  EXPECT_EQ(S->Size, 8u);
  EXPECT_EQ(Img.findSymbol("vadd"), nullptr); // kernels are not symbols
  EXPECT_EQ(Img.findSymbol(""), nullptr);
}

//===----------------------------------------------------------------------===//
// Corruptions: each reader check, provoked on a valid image
//===----------------------------------------------------------------------===//

struct Corruption {
  const char *File; ///< its copy in tests/data/images/
  std::function<Bytes()> Base;
  std::function<void(Bytes &)> Mutate;
  bool FixChecksum; ///< recompute it so the structural check is reached
  std::vector<std::string> Words;
};

// Sample offsets: code section 72 bytes; kernel 2 (scale) at [0x38, 0x48).
const std::vector<Corruption> &corruptions() {
  static const std::vector<Corruption> Table = {
      {"truncated-header.img",
       sampleBytes,
       [](Bytes &B) { B.resize(30); },
       false,
       {"foo.img: ", "30 bytes", "smaller than the 80-byte header"}},
      {"truncated.img",
       sampleBytes,
       [](Bytes &B) { B.erase(B.end() - 5, B.end()); },
       false,
       {"file_bytes", "truncated or padded"}},
      {"padded.img",
       sampleBytes,
       [](Bytes &B) { B.push_back(0); },
       false,
       {"file_bytes", "truncated or padded"}},
      {"bad-magic.img",
       sampleBytes,
       [](Bytes &B) { B[0] = 'X'; },
       false,
       {"bad magic", "not a Tandem kernel image"}},
      {"bad-version.img",
       sampleBytes,
       [](Bytes &B) { B[HVersion] = 1; },
       false,
       {"version 1 is not supported (expected 3)"}},
      {"nonzero-flags.img",
       sampleBytes,
       [](Bytes &B) { B[HFlags] = 1; },
       false,
       {"flags 0x1 must be 0"}},
      {"bad-header-bytes.img",
       sampleBytes,
       [](Bytes &B) { set32(B, HHeaderBytes, 64); },
       true,
       {"header_bytes 0x40", "expected 0x50"}},
      {"bad-checksum.img",
       sampleBytes,
       [](Bytes &B) { B[get32(B, HCodeOffset) + 5] ^= 0x10; },
       false,
       {"checksum", "does not match the contents", "corrupted"}},
      {"section-out-of-bounds.img",
       sampleBytes,
       [](Bytes &B) {
         set32(B, HCodeOffset, (get32(B, HFileBytes) - 8) & ~3u);
       },
       true,
       {"code section [", "exceeds the file"}},
      {"huge-const-bytes.img",
       sampleBytes,
       [](Bytes &B) { set32(B, HConstBytes, 0xFFFFFFFF); },
       true,
       {"const section [", "0x10000", "exceeds the file"}},
      {"sections-overlap.img",
       sampleBytes,
       [](Bytes &B) { set32(B, HConstOffset, get32(B, HCodeOffset)); },
       true,
       {"const section [", "overlaps the code section ["}},
      {"section-overlaps-header.img",
       sampleBytes,
       [](Bytes &B) { set32(B, HKernelTableOffset, 8); },
       true,
       {"kernel table (kernel_count 3 x 32 bytes) [0x8, 0x68)",
        "overlaps the header [0x0, 0x50)"}},
      {"huge-data-bytes.img",
       sampleBytes,
       [](Bytes &B) { set32(B, HDataBytes, 0xFFFFFFF0); },
       true,
       {"data section [", "exceeds the file"}},
      {"data-slot-outside-const.img",
       sampleBytes,
       [](Bytes &B) { set32(B, HDataBaseSlot, 12); },
       true,
       {"data_base_slot 0xc is not a 4-aligned word inside the const "
        "section (0xc bytes)"}},
      {"data-slot-without-data.img",
       sampleBytes,
       [](Bytes &B) {
         // The data bytes become string table bytes nothing refers to.
         set32(B, HStrtabOffset, get32(B, HDataOffset));
         set32(B, HStrtabBytes, get32(B, HStrtabBytes) + 8);
         set32(B, HDataBytes, 0);
       },
       true,
       {"data_base_slot 0x4 must be 0 in an image without a data section"}},
      {"misaligned-code-section.img",
       sampleBytes,
       [](Bytes &B) { set32(B, HCodeOffset, get32(B, HCodeOffset) + 2); },
       true,
       {"code_offset 0x", "is not a multiple of 4"}},
      {"huge-kernel-count.img",
       sampleBytes,
       [](Bytes &B) { set32(B, HKernelCount, 0xFFFFFFFF); },
       true,
       {"kernel table (kernel_count 4294967295 x 32 bytes)",
        "exceeds the file"}},
      {"huge-param-count.img",
       sampleBytes,
       [](Bytes &B) { set32(B, HParamCount, 0x10000000); },
       true,
       {"parameter table (param_count 268435456 x 16 bytes)",
        "exceeds the file"}},
      {"misaligned-entry.img",
       sampleBytes,
       [](Bytes &B) { set32(B, kernelField(B, 1, KEntryOffset), 26); },
       true,
       {"kernel 1 ('reduce_sum'): entry_offset 0x1a is not 4-aligned"}},
      {"kernel-code-out-of-range.img",
       sampleBytes,
       [](Bytes &B) { set32(B, kernelField(B, 2, KCodeBytes), 0x20); },
       true,
       {"foo.img: kernel 2 ('scale'): code range [0x38, 0x58) exceeds the "
        "code section (0x48 bytes)"}},
      {"kernel-code-wraps.img",
       sampleBytes,
       [](Bytes &B) { set32(B, kernelField(B, 2, KCodeBytes), 0xFFFFFFF8); },
       true,
       {"kernel 2 ('scale'): code range [0x38, 0x100000030) exceeds"}},
      {"kernel-without-code.img",
       sampleBytes,
       [](Bytes &B) { set32(B, kernelField(B, 0, KCodeBytes), 0); },
       true,
       {"kernel 0 ('vadd'): code_bytes is 0"}},
      {"too-many-registers.img",
       sampleBytes,
       [](Bytes &B) { set32(B, kernelField(B, 1, KRegistersUsed), 65); },
       true,
       {"kernel 1 ('reduce_sum'): registers_used 65 exceeds 64"}},
      {"unterminated-name.img",
       sampleBytes,
       [](Bytes &B) { B.back() = 'x'; },
       true,
       {"symbol 1: the name at string table offset",
        "is not NUL-terminated within the string table"}},
      {"name-offset-out-of-range.img",
       sampleBytes,
       [](Bytes &B) {
         set32(B, kernelField(B, 1, KNameOffset), get32(B, HStrtabBytes));
       },
       true,
       {"kernel 1: name_offset 0x", "is outside the string table"}},
      {"name-too-long.img",
       longConstBytes,
       [](Bytes &B) {
         // The string table grows backwards over the 1100 const bytes 'a';
         // kernel 0's name (at offset 0) now starts there.
         set32(B, HStrtabOffset, get32(B, HConstOffset));
         set32(B, HStrtabBytes, get32(B, HStrtabBytes) + 1100);
         set32(B, HConstBytes, 0);
       },
       true,
       {"kernel 0: the name at string table offset 0x0 is longer than 1024 "
        "bytes"}},
      {"empty-name.img",
       sampleBytes,
       [](Bytes &B) { // the NUL that ends "vadd"
         set32(B, kernelField(B, 1, KNameOffset), 4);
       },
       true,
       {"kernel 1 (''): the name is empty"}},
      {"invalid-name.img",
       sampleBytes,
       [](Bytes &B) { B[get32(B, HStrtabOffset)] = '9'; },
       true,
       {"kernel 0 ('9add'): the name is not a valid identifier"}},
      {"duplicate-name.img",
       sampleBytes,
       [](Bytes &B) {
         set32(B, kernelField(B, 2, KNameOffset),
               get32(B, kernelField(B, 0, KNameOffset)));
       },
       true,
       {"kernel 2 ('vadd'): the name is already used by kernel 0"}},
      {"bad-param-kind.img",
       sampleBytes,
       [](Bytes &B) { set32(B, paramField(B, 5, PKind), 7); },
       true,
       {"kernel 1 ('reduce_sum'): parameter 1 ('out'): kind 7 is not valid "
        "(expected 0..3"}},
      {"bad-param-size.img",
       sampleBytes,
       [](Bytes &B) { set32(B, paramField(B, 0, PSize), 8); },
       true,
       {"kernel 0 ('vadd'): parameter 0 ('a'): size 8 is not valid "
        "(expected 4"}},
      {"misaligned-param.img",
       sampleBytes,
       [](Bytes &B) { set32(B, paramField(B, 8, POffset), 6); },
       true,
       {"kernel 2 ('scale'): parameter 1 ('alpha'): offset 0x6 is not "
        "4-aligned"}},
      {"overlapping-params.img",
       sampleBytes,
       [](Bytes &B) { set32(B, paramField(B, 2, POffset), 4); },
       true,
       {"kernel 0 ('vadd'): parameter 2 ('c'): [0x4, 0x8) overlaps parameter "
        "1 ('b') [0x4, 0x8)"}},
      {"param-beyond-buffer.img",
       sampleBytes,
       [](Bytes &B) { set32(B, paramField(B, 3, POffset), 4096); },
       true,
       {"parameter 3 ('n'): range [0x1000, 0x1004) exceeds the parameter "
        "buffer"}},
      {"duplicate-param-name.img",
       sampleBytes,
       [](Bytes &B) {
         set32(B, paramField(B, 1, PNameOffset),
               get32(B, paramField(B, 0, PNameOffset)));
       },
       true,
       {"kernel 0 ('vadd'): parameter 1 ('a'): the name is already used by "
        "parameter 0"}},
      {"param-range-out-of-table.img",
       sampleBytes,
       [](Bytes &B) { set32(B, kernelField(B, 2, KParamCount), 3); },
       true,
       {"kernel 2 ('scale'): parameters [7, 10) exceed the parameter table "
        "(9 entries)"}},
      {"wrong-first-param.img",
       sampleBytes,
       [](Bytes &B) { set32(B, kernelField(B, 1, KFirstParam), 0); },
       true,
       {"kernel 1 ('reduce_sum'): first_param 0 is not valid (expected 4"}},
      {"unclaimed-params.img",
       sampleBytes,
       [](Bytes &B) { set32(B, kernelField(B, 2, KParamCount), 1); },
       true,
       {"the parameter table has 9 entries but the kernels use 8"}},
      {"huge-symbol-count.img",
       sampleBytes,
       [](Bytes &B) { set32(B, HSymbolCount, 0x10000000); },
       true,
       {"symbol table (symbol_count 268435456 x 16 bytes)", "exceeds the file"}},
      {"misaligned-symbol-table.img",
       sampleBytes,
       [](Bytes &B) { set32(B, HSymbolTableOffset, get32(B, HSymbolTableOffset) + 1); },
       true,
       {"symbol_table_offset 0x", "is not a multiple of 4"}},
      {"bad-symbol-section.img",
       sampleBytes,
       [](Bytes &B) { set32(B, symbolField(B, 1, SSection), 2); },
       true,
       {"symbol 1 ('counter'): section 2 is not valid (expected 0 const or 1 data)"}},
      {"symbol-out-of-range.img",
       sampleBytes,
       [](Bytes &B) { set32(B, symbolField(B, 1, SSize), 9); },
       true,
       {"symbol 1 ('counter'): range [0x0, 0x9) exceeds the data section (0x8 bytes)"}},
      {"symbol-covers-data-slot.img",
       sampleBytes,
       [](Bytes &B) { set32(B, symbolField(B, 0, SOffset), 6); set32(B, symbolField(B, 0, SSize), 2); },
       true,
       {"symbol 0 ('coeffs'): range [0x6, 0x8) covers the data base slot at 0x4"}},
      {"empty-symbol.img",
       sampleBytes,
       [](Bytes &B) { set32(B, symbolField(B, 0, SSize), 0); },
       true,
       {"symbol 0 ('coeffs'): size is 0"}},
      {"duplicate-symbol-name.img",
       sampleBytes,
       [](Bytes &B) {
         set32(B, symbolField(B, 1, SNameOffset), get32(B, symbolField(B, 0, SNameOffset)));
       },
       true,
       {"symbol 1 ('coeffs'): the name is already used by symbol 0"}},
  };
  return Table;
}

Bytes corrupted(const Corruption &C) {
  Bytes B = C.Base();
  C.Mutate(B);
  if (C.FixChecksum)
    fixChecksum(B);
  return B;
}

class KernelImageCorruption : public testing::TestWithParam<size_t> {};

TEST_P(KernelImageCorruption, IsRejectedWithAMessageNamingTheProblem) {
  const Corruption &C = corruptions()[GetParam()];
  std::string Msg = readError(corrupted(C));
  EXPECT_EQ(Msg.rfind("foo.img: ", 0), 0u) << Msg;
  expectWords(Msg, C.Words);
}

INSTANTIATE_TEST_SUITE_P(KernelImage, KernelImageCorruption,
                         testing::Range(size_t(0), corruptions().size()),
                         [](const testing::TestParamInfo<size_t> &Info) {
                           std::string Name = corruptions()[Info.param].File;
                           Name = Name.substr(0, Name.find('.'));
                           std::replace(Name.begin(), Name.end(), '-', '_');
                           return Name;
                         });

//===----------------------------------------------------------------------===//
// Sweeps (meant for the ASan/UBSan build)
//===----------------------------------------------------------------------===//

TEST(KernelImage, EverySingleByteFlipIsDetected) {
  // Fields before the checksum are compared with fixed values; every byte
  // after it is covered by the CRC-32, which catches any single-byte change.
  Bytes Good = sampleBytes();
  for (size_t I = 0; I < Good.size(); ++I)
    for (uint8_t Mask : {0x01, 0x80, 0xFF}) {
      Bytes B = Good;
      B[I] ^= Mask;
      EXPECT_NE(readError(B), "<no error>")
          << "flip of byte " << I << " by " << int(Mask) << " not detected";
    }
}

// With the checksum recomputed, a flip reaches the structural checks. Each
// result is either an error or an image that survives a write/read round
// trip; what matters most is that none of them crashes.
TEST(KernelImage, ByteFlipsPastTheChecksumNeverCrash) {
  Bytes Good = sampleBytes();
  size_t Rejected = 0, Accepted = 0;
  for (size_t I = 0; I < Good.size(); ++I)
    for (uint8_t Mask : {0x01, 0x04, 0x10, 0x80, 0xFF}) {
      Bytes B = Good;
      B[I] ^= Mask;
      fixChecksum(B);
      llvm::Expected<KernelImage> Img = readImage(B, "flip.img");
      if (!Img) {
        llvm::consumeError(Img.takeError());
        ++Rejected;
        continue;
      }
      ++Accepted;
      llvm::Expected<Bytes> Again = writeImage(*Img);
      ASSERT_TRUE(bool(Again)) << llvm::toString(Again.takeError());
      llvm::Expected<KernelImage> Back = readImage(*Again, "again.img");
      ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
      expectSameImage(*Img, *Back);
    }
  // Flips in code, const data and unchecked fields are legitimate images;
  // flips in offsets, counts and names are not.
  EXPECT_GT(Rejected, 0u);
  EXPECT_GT(Accepted, 0u);
}

TEST(KernelImage, EveryTruncationIsDetected) {
  Bytes Good = sampleBytes();
  for (size_t N = 0; N < Good.size(); ++N) {
    Bytes B(Good.begin(), Good.begin() + N);
    std::string Msg = readError(B);
    EXPECT_NE(Msg, "<no error>") << "truncation to " << N << " bytes";
  }
}

//===----------------------------------------------------------------------===//
// The writer refuses inconsistent images
//===----------------------------------------------------------------------===//

std::string writeError(const KernelImage &Img) {
  return errorOf(writeImage(Img));
}

TEST(KernelImageWriter, RejectsKernelCodeOutsideCode) {
  KernelImage Img = sampleImage();
  Img.Kernels[2].CodeBytes = 0x20;
  EXPECT_EQ(writeError(Img),
            "kernel image: kernel 2 ('scale'): code range [0x38, 0x58) exceeds "
            "the code section (0x48 bytes)");
}

TEST(KernelImageWriter, RejectsMisalignedEntry) {
  KernelImage Img = sampleImage();
  Img.Kernels[0].EntryOffset = 2;
  expectWords(writeError(Img), {"kernel 0 ('vadd'): entry_offset 0x2 is not "
                                "4-aligned"});
}

TEST(KernelImageWriter, RejectsDuplicateKernelNames) {
  KernelImage Img = sampleImage();
  Img.Kernels[1].Name = "vadd";
  expectWords(writeError(Img),
              {"kernel 1 ('vadd'): the name is already used by kernel 0"});
}

TEST(KernelImageWriter, RejectsBadNames) {
  KernelImage Img = sampleImage();
  Img.Kernels[0].Name = "";
  expectWords(writeError(Img), {"kernel 0 (''): the name is empty"});
  Img.Kernels[0].Name = "has space";
  expectWords(writeError(Img), {"not a valid identifier"});
  Img.Kernels[0].Name = std::string("nul\0inside", 10);
  expectWords(writeError(Img), {"'nul\\00inside'", "not a valid identifier"});
  Img.Kernels[0].Name = std::string(1025, 'k');
  expectWords(writeError(Img), {"1025 bytes long (at most 1024)", "...'"});
  Img.Kernels[0].Name = "vadd";
  Img.Kernels[0].Params[0].Name = std::string(257, 'p');
  expectWords(writeError(Img), {"parameter 0", "257 bytes long (at most 256)"});
}

TEST(KernelImageWriter, RejectsBadParams) {
  KernelImage Img = sampleImage();
  Img.Kernels[1].Params[2].Kind = static_cast<ParamKind>(9);
  expectWords(writeError(Img),
              {"kernel 1 ('reduce_sum'): parameter 2 ('n'): kind 9 is not "
               "valid"});
  Img = sampleImage();
  Img.Kernels[1].Params[2].Size = 2;
  expectWords(writeError(Img),
              {"size 2 is not valid (expected 4 for kind s32)"});
  Img = sampleImage();
  Img.Kernels[0].Params[3].Offset = 0;
  expectWords(writeError(Img), {"parameter 3 ('n'): [0x0, 0x4) overlaps "
                                "parameter 0 ('a')"});
  Img = sampleImage();
  Img.Kernels[0].Params[3].Offset = 0xFFFFFFFC; // offset + size wraps in u32
  expectWords(writeError(Img), {"range [0xfffffffc, 0x100000000) exceeds the "
                                "parameter buffer"});
  Img = sampleImage();
  Img.Kernels[0].Params[3].Name = "b";
  expectWords(writeError(Img), {"parameter 3 ('b'): the name is already used "
                                "by parameter 1"});
}

TEST(KernelImageWriter, RejectsBadSymbols) {
  KernelImage Img = sampleImage();
  Img.Symbols[0].Name = "9lives";
  expectWords(writeError(Img), {"symbol 0 ('9lives'): the name is not a valid identifier"});
  Img = sampleImage();
  Img.Symbols[1].Name = "coeffs";
  expectWords(writeError(Img), {"symbol 1 ('coeffs'): the name is already used by symbol 0"});
  Img = sampleImage();
  Img.Symbols[0].Offset = 0xFFFFFFFC; // offset + size wraps in u32
  expectWords(writeError(Img),
              {"range [0xfffffffc, 0x100000000) exceeds the const section (0xc bytes)"});
  Img = sampleImage();
  Img.Symbols[0] = {"coeffs", SymbolSection::Const, 0, 12};
  expectWords(writeError(Img), {"covers the data base slot at 0x4"});
  Img = sampleImage();
  Img.Symbols[0].Section = static_cast<SymbolSection>(5);
  expectWords(writeError(Img), {"section 5 is not valid"});
  // Without a data section the slot is not there to protect.
  Img = sampleImage();
  Img.Data.clear();
  Img.DataBaseSlot = 0;
  Img.Symbols = {{"all", SymbolSection::Const, 0, 12}};
  EXPECT_EQ(writeError(Img), "<no error>");
}

TEST(KernelImageWriter, RejectsTooManyRegistersAndEmptyKernels) {
  KernelImage Img = sampleImage();
  Img.Kernels[0].RegistersUsed = 65;
  expectWords(writeError(Img), {"registers_used 65 exceeds 64"});
  Img = sampleImage();
  Img.Kernels[0].CodeBytes = 0;
  expectWords(writeError(Img), {"code_bytes is 0"});
  Img = sampleImage();
  Img.Kernels[0].CodeBytes = 6;
  expectWords(writeError(Img), {"code_bytes 0x6 is not a multiple of 4"});
}

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

std::string scratchDir() {
  llvm::SmallString<128> Dir;
  std::error_code EC = llvm::sys::fs::createUniqueDirectory("kimg", Dir);
  EXPECT_FALSE(EC) << EC.message();
  return std::string(Dir);
}

std::vector<std::string> filesIn(const std::string &Dir) {
  std::vector<std::string> Files;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC))
    Files.push_back(std::string(llvm::sys::path::filename(It->path())));
  std::sort(Files.begin(), Files.end());
  return Files;
}

TEST(KernelImageFile, WritesAtomicallyAndReadsBack) {
  std::string Dir = scratchDir();
  std::string Path = Dir + "/k.img";
  ASSERT_FALSE(bool(writeImageFile(sampleImage(), Path)));
  // Only the image itself: the temporary file was renamed, not left behind.
  EXPECT_EQ(filesIn(Dir), std::vector<std::string>{"k.img"});
  llvm::Expected<KernelImage> Back = readImageFile(Path);
  ASSERT_TRUE(bool(Back)) << llvm::toString(Back.takeError());
  expectSameImage(sampleImage(), *Back);
  llvm::sys::fs::remove_directories(Dir);
}

TEST(KernelImageFile, InvalidImageLeavesTheOldFileUntouched) {
  std::string Dir = scratchDir();
  std::string Path = Dir + "/k.img";
  ASSERT_FALSE(bool(writeImageFile(sampleImage(), Path)));
  KernelImage Bad = sampleImage();
  Bad.Kernels[1].Name = "vadd";
  std::string Msg = llvm::toString(writeImageFile(Bad, Path));
  expectWords(Msg, {Path + ": kernel 1 ('vadd'): the name is already used"});
  EXPECT_EQ(filesIn(Dir), std::vector<std::string>{"k.img"});
  EXPECT_TRUE(bool(readImageFile(Path)));
  llvm::sys::fs::remove_directories(Dir);
}

TEST(KernelImageFile, ErrorsNameThePath) {
  std::string Dir = scratchDir();
  std::string Missing = Dir + "/missing.img";
  expectWords(errorOf(readImageFile(Missing)),
              {Missing + ": cannot read the kernel image"});
  std::string NoDir = Dir + "/no/such/dir/k.img";
  expectWords(llvm::toString(writeImageFile(sampleImage(), NoDir)),
              {NoDir, "cannot write the kernel image"});
  // Messages of a file read carry its path as the origin.
  std::string Path = Dir + "/bad.img";
  Bytes B = sampleBytes();
  B[0] = 'X';
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    ASSERT_FALSE(EC) << EC.message();
    OS.write(reinterpret_cast<const char *>(B.data()), B.size());
  }
  expectWords(errorOf(readImageFile(Path)), {Path + ": bad magic"});
  llvm::sys::fs::remove_directories(Dir);
}

//===----------------------------------------------------------------------===//
// tests/data/images/: the corruptions above as files, plus valid seeds
//===----------------------------------------------------------------------===//

struct DataFile {
  std::string Name;
  Bytes Contents;
};

/// Every file the generator owns. Regenerate them with
///   TANDEM_REGENERATE_IMAGES=1 tandem-unittests
///   --gtest_filter='KernelImageData.*'
std::vector<DataFile> generatedFiles() {
  std::vector<DataFile> Files;
  Files.push_back({"valid-sample.img", sampleBytes()});
  std::mt19937 R(7);
  KernelImage Random = randomImage(R);
  while (Random.Kernels.size() < 3)
    Random = randomImage(R);
  Files.push_back({"valid-random.img", bytesOf(Random)});
  Files.push_back({"valid-empty.img", bytesOf(KernelImage())});
  for (const Corruption &C : corruptions())
    Files.push_back({C.File, corrupted(C)});
  return Files;
}

const std::string ImagesDir = std::string(TANDEM_TEST_DATA_DIR) + "/images";

Bytes readFileBytes(const std::string &Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!Buf)
    return {};
  llvm::StringRef S = (*Buf)->getBuffer();
  return Bytes(S.begin(), S.end());
}

TEST(KernelImageData, FilesMatchTheirGenerator) {
  bool Regenerate = std::getenv("TANDEM_REGENERATE_IMAGES") != nullptr;
  for (const DataFile &F : generatedFiles()) {
    std::string Path = ImagesDir + "/" + F.Name;
    if (Regenerate) {
      llvm::Error E = llvm::writeToOutput(Path, [&](llvm::raw_ostream &OS) {
        OS.write(reinterpret_cast<const char *>(F.Contents.data()),
                 F.Contents.size());
        return llvm::Error::success();
      });
      ASSERT_FALSE(bool(E)) << llvm::toString(std::move(E));
      continue;
    }
    EXPECT_EQ(readFileBytes(Path), F.Contents)
        << Path << " is stale or missing; regenerate it (see README.md there)";
  }
}

TEST(KernelImageData, EveryFileIsReadAsItsNameSays) {
  std::vector<std::string> Files = filesIn(ImagesDir);
  size_t Images = 0;
  for (const std::string &Name : Files) {
    if (!llvm::StringRef(Name).ends_with(".img"))
      continue;
    ++Images;
    std::string Msg = errorOf(readImageFile(ImagesDir + "/" + Name));
    if (llvm::StringRef(Name).starts_with("valid-"))
      EXPECT_EQ(Msg, "<no error>") << Name;
    else
      EXPECT_NE(Msg, "<no error>") << Name << " was accepted";
  }
  EXPECT_GE(Images, corruptions().size() + 3);
}

} // namespace
