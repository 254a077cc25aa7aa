//===- NpyTest.cpp - NumPy .npy reading and writing -----------------------===//
//
// numpy is not installed on these machines, so the "numpy-written" files are
// the exact bytes numpy.save produces, built by hand: magic, version, header
// length, the dict padded with spaces to a 64-byte boundary and a newline.

#include "Npy.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

using namespace tandem;
using namespace tandem::npy;

namespace {

/// The bytes numpy.save writes for a header dict \p Dict and raw \p Data.
std::vector<uint8_t> npyBytes(const std::string &Dict, const std::vector<uint8_t> &Data,
                              int Major = 1) {
  std::string Header = Dict;
  size_t Prefix = Major == 1 ? 10 : 12;
  size_t Total = (Prefix + Header.size() + 1 + 63) / 64 * 64;
  Header.append(Total - Prefix - Header.size() - 1, ' ');
  Header += '\n';
  std::vector<uint8_t> Out = {0x93, 'N', 'U', 'M', 'P', 'Y', uint8_t(Major), 0};
  uint32_t Len = Header.size();
  Out.push_back(Len & 0xff);
  Out.push_back(Len >> 8);
  if (Major == 2) {
    Out.push_back(Len >> 16);
    Out.push_back(Len >> 24);
  }
  Out.insert(Out.end(), Header.begin(), Header.end());
  Out.insert(Out.end(), Data.begin(), Data.end());
  return Out;
}

std::vector<uint8_t> le32(std::initializer_list<uint32_t> Words) {
  std::vector<uint8_t> B;
  for (uint32_t W : Words)
    for (int K = 0; K < 4; ++K)
      B.push_back(uint8_t(W >> (8 * K)));
  return B;
}

std::string errorOf(const std::vector<uint8_t> &Bytes) {
  llvm::Expected<Array> A = parse(Bytes, "in.npy");
  if (A) {
    ADD_FAILURE() << "parsed a malformed file";
    return "";
  }
  return llvm::toString(A.takeError());
}

TEST(NpyTest, ReadsWhatNumpyWritesForEachDtype) {
  // np.save(f, np.array([1.5, -2, 0.25], dtype=np.float32))
  std::vector<uint8_t> F = npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
                                    le32({0x3fc00000, 0xc0000000, 0x3e800000}));
  // numpy pads this header to 118 bytes: 10 + 118 = 128, a multiple of 64.
  ASSERT_EQ(F.size(), 128u + 12);
  llvm::Expected<Array> A = parse(F, "f.npy");
  ASSERT_TRUE(bool(A)) << llvm::toString(A.takeError());
  EXPECT_EQ(A->Type, DType::F32);
  EXPECT_EQ(A->Shape, std::vector<uint64_t>{3});
  EXPECT_EQ(A->count(), 3u);
  float Second;
  std::memcpy(&Second, &A->Data[4], 4);
  EXPECT_EQ(Second, -2.0f);

  llvm::Expected<Array> I = parse(
      npyBytes("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }", le32({1, 2, 3, ~0u})),
      "i.npy");
  ASSERT_TRUE(bool(I)) << llvm::toString(I.takeError());
  EXPECT_EQ(I->Type, DType::I32);
  EXPECT_EQ(I->Shape, (std::vector<uint64_t>{2, 2}));
  EXPECT_EQ(I->count(), 4u);

  llvm::Expected<Array> U = parse(
      npyBytes("{'descr': '<u4', 'fortran_order': False, 'shape': (1,), }", le32({7})), "u.npy");
  ASSERT_TRUE(bool(U)) << llvm::toString(U.takeError());
  EXPECT_EQ(U->Type, DType::U32);

  llvm::Expected<Array> B =
      parse(npyBytes("{'descr': '|u1', 'fortran_order': False, 'shape': (5,), }", {1, 2, 3, 4, 5}),
            "b.npy");
  ASSERT_TRUE(bool(B)) << llvm::toString(B.takeError());
  EXPECT_EQ(B->Type, DType::U8);
  EXPECT_EQ(B->Data, (std::vector<uint8_t>{1, 2, 3, 4, 5}));
}

TEST(NpyTest, ReadsVersion2AndZeroDimensionalArrays) {
  llvm::Expected<Array> A = parse(
      npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", le32({0, 0}), 2),
      "v2.npy");
  ASSERT_TRUE(bool(A)) << llvm::toString(A.takeError());
  EXPECT_EQ(A->count(), 2u);
  llvm::Expected<Array> S = parse(
      npyBytes("{'descr': '<u4', 'fortran_order': False, 'shape': (), }", le32({9})), "s.npy");
  ASSERT_TRUE(bool(S)) << llvm::toString(S.takeError());
  EXPECT_TRUE(S->Shape.empty());
  EXPECT_EQ(S->count(), 1u);
  // Keys in another order, double quotes and no trailing comma are fine.
  llvm::Expected<Array> O = parse(
      npyBytes("{\"shape\": (1,), \"fortran_order\": False, \"descr\": \"<i4\"}", le32({1})),
      "o.npy");
  ASSERT_TRUE(bool(O)) << llvm::toString(O.takeError());
}

TEST(NpyTest, WritesExactlyWhatNumpyWrites) {
  Array A = Array::vector(DType::F32, 3);
  std::vector<uint8_t> Data = le32({0x3fc00000, 0xc0000000, 0x3e800000});
  A.Data = Data;
  llvm::Expected<std::vector<uint8_t>> Bytes = serialize(A);
  ASSERT_TRUE(bool(Bytes));
  EXPECT_EQ(*Bytes, npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", Data));
}

TEST(NpyTest, RoundTripsEveryDtypeAndShapeThroughAFile) {
  llvm::SmallString<128> Dir;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("npytest", Dir));
  for (DType T : {DType::F32, DType::I32, DType::U32, DType::U8}) {
    Array A;
    A.Type = T;
    A.Shape = {2, 3};
    for (unsigned K = 0; K < 6 * elementBytes(T); ++K)
      A.Data.push_back(uint8_t(K * 37 + 1));
    llvm::SmallString<128> Path(Dir);
    llvm::sys::path::append(Path, (shortName(T) + ".npy").str());
    ASSERT_FALSE(bool(writeFile(A, Path)));
    llvm::Expected<Array> B = readFile(Path);
    ASSERT_TRUE(bool(B)) << llvm::toString(B.takeError());
    EXPECT_EQ(B->Type, T);
    EXPECT_EQ(B->Shape, A.Shape);
    EXPECT_EQ(B->Data, A.Data);
    llvm::sys::fs::remove(Path);
  }
  llvm::sys::fs::remove(Dir);
}

TEST(NpyTest, ShortNames) {
  EXPECT_EQ(parseShortName("f32"), DType::F32);
  EXPECT_EQ(parseShortName("i32"), DType::I32);
  EXPECT_EQ(parseShortName("s32"), DType::I32);
  EXPECT_EQ(parseShortName("u32"), DType::U32);
  EXPECT_EQ(parseShortName("u8"), DType::U8);
  EXPECT_FALSE(parseShortName("f64").has_value());
}

TEST(NpyTest, RejectsMalformedFilesNamingTheProblem) {
  const std::string Good = "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }";
  auto Has = [](const std::string &Msg, const char *Part) {
    EXPECT_NE(Msg.find(Part), std::string::npos) << Msg;
    EXPECT_EQ(Msg.rfind("in.npy: ", 0), 0u) << Msg;
  };
  std::vector<uint8_t> BadMagic = npyBytes(Good, le32({0}));
  BadMagic[1] = 'X';
  Has(errorOf(BadMagic), "not a NumPy .npy file");

  std::vector<uint8_t> BadVersion = npyBytes(Good, le32({0}));
  BadVersion[6] = 3;
  Has(errorOf(BadVersion), "format version 3.0 is not supported");

  std::vector<uint8_t> LongHeader = npyBytes(Good, le32({0}));
  LongHeader[8] = 0xff;
  LongHeader[9] = 0x7f;
  Has(errorOf(LongHeader), "header length 32767 runs past the end of the file");

  Has(errorOf({0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 4}), "truncated: the header length is missing");

  Has(errorOf(npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }",
                       le32({0, 0}))),
      "dtype '<f8' is not supported");
  Has(errorOf(npyBytes("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", le32({0}))),
      "(big-endian)");
  Has(errorOf(npyBytes("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }", le32({0}))),
      "fortran_order is True");
  Has(errorOf(npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", le32({0}))),
      "shape (4,) of <f4 needs 16 data bytes, but the file holds 4 (truncated?)");
  Has(errorOf(npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }",
                       le32({0, 0}))),
      "needs 4 data bytes, but the file holds 8");
  Has(errorOf(npyBytes("{'descr': '<f4', 'fortran_order': False, }", le32({0}))),
      "key 'shape' is missing");
  Has(errorOf(npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}",
                       le32({0}))),
      "malformed header");
  Has(errorOf(npyBytes("{'descr': '<f4' 'fortran_order': False, 'shape': (1,), }", le32({0}))),
      "expected ',' or '}' after the value of 'descr'");
  Has(errorOf(npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (a,), }", le32({0}))),
      "expected a non-negative integer in the tuple of 'shape'");
  Has(errorOf(npyBytes("{'descr': '<f4', 'fortran_order': 0, 'shape': (1,), }", le32({0}))),
      "the value of 'fortran_order' is not a string");
  Has(errorOf(npyBytes("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,)}",
                       le32({0}))),
      "key 'descr' appears twice");
  Has(errorOf(npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': 'x'}",
                       le32({0}))),
      "unknown key 'extra'");
  Has(errorOf(npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': "
                       "(4294967296, 4294967296, 4294967296), }",
                       le32({0}))),
      "is too large");
  // A header without the closing newline (hand-written by a buggy tool).
  std::vector<uint8_t> NoNewline = npyBytes(Good, le32({0}));
  NoNewline[NoNewline.size() - 4 - 1] = ' ';
  Has(errorOf(NoNewline), "does not end with a newline");
}

TEST(NpyTest, MissingFileIsNamed) {
  llvm::Expected<Array> A = readFile("/nonexistent/dir/x.npy");
  ASSERT_FALSE(bool(A));
  std::string Msg = llvm::toString(A.takeError());
  EXPECT_NE(Msg.find("/nonexistent/dir/x.npy: cannot read"), std::string::npos) << Msg;
}

} // namespace
