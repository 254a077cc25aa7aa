//===- MatrixMarketTest.cpp - The Matrix Market reader --------------------===//
//
// Good files of every supported kind, each malformed-file error (the message
// must name the file and the line), and every matrix in ../shared/matrices
// checked against an independent count: the README's header sizes and a
// plain std::set of (row, col) positions after mirroring.
//
//===----------------------------------------------------------------------===//

#include "sparse/Csr.h"
#include "sparse/MatrixMarket.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

using namespace llvm;
using namespace tandem::sparse;

namespace {

CooMatrix parseOk(StringRef Text) {
  Expected<CooMatrix> M = parseMatrixMarket(Text, "ok.mtx");
  if (!M) {
    ADD_FAILURE() << toString(M.takeError());
    return {};
  }
  return std::move(*M);
}

/// The error message of parsing \p Text as "bad.mtx" (empty if it parsed).
std::string parseError(StringRef Text) {
  Expected<CooMatrix> M = parseMatrixMarket(Text, "bad.mtx");
  if (M)
    return "";
  return toString(M.takeError());
}

/// Asserts the text fails at \p Line with a message containing \p What.
void expectError(StringRef Text, unsigned Line, StringRef What) {
  std::string Msg = parseError(Text);
  SCOPED_TRACE(Text.str());
  ASSERT_FALSE(Msg.empty()) << "parsed, but should fail at line " << Line;
  EXPECT_NE(Msg.find("bad.mtx:" + std::to_string(Line) + ": "), std::string::npos) << Msg;
  EXPECT_NE(Msg.find(What.str()), std::string::npos) << Msg;
}

TEST(MatrixMarket, ReadsGeneralRealWithComments) {
  CooMatrix M = parseOk("%%MatrixMarket matrix coordinate real general\n"
                        "% a comment\n"
                        "%\n"
                        "\n"
                        "3 4 3\n"
                        "1 1 2.5\n"
                        "3 4 -1e-3\n"
                        "% a comment among the entries\n"
                        "2 2 7\n");
  EXPECT_EQ(M.Rows, 3u);
  EXPECT_EQ(M.Cols, 4u);
  EXPECT_EQ(M.F, Field::Real);
  EXPECT_EQ(M.S, Symmetry::General);
  ASSERT_EQ(M.Entries.size(), 3u);
  EXPECT_EQ(M.Entries[1].Row, 2u);
  EXPECT_EQ(M.Entries[1].Col, 3u);
  EXPECT_DOUBLE_EQ(M.Entries[1].Value, -1e-3);
}

TEST(MatrixMarket, PatternEntriesAreOne) {
  CooMatrix M = parseOk("%%MatrixMarket matrix coordinate pattern symmetric\n2 2 2\n1 1\n2 1\n");
  ASSERT_EQ(M.Entries.size(), 2u);
  EXPECT_EQ(M.F, Field::Pattern);
  EXPECT_EQ(M.Entries[0].Value, 1.0);
  EXPECT_EQ(M.Entries[1].Value, 1.0);
}

TEST(MatrixMarket, IntegerAndCaseInsensitiveBannerAndCrlf) {
  CooMatrix M =
      parseOk("%%MatrixMarket MATRIX Coordinate INTEGER General\r\n2 2 1\r\n2 1 -42\r\n");
  ASSERT_EQ(M.Entries.size(), 1u);
  EXPECT_EQ(M.F, Field::Integer);
  EXPECT_EQ(M.Entries[0].Value, -42.0);
}

TEST(MatrixMarket, SkewSymmetricExpandsNegated) {
  CooMatrix M = parseOk("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n"
                        "2 1 5\n3 1 -2\n");
  Expected<CsrMatrix> A = toCsr(M);
  ASSERT_TRUE(bool(A)) << toString(A.takeError());
  EXPECT_EQ(A->nnz(), 4u);
  // Row 0 holds the mirrors (0,1) = -5 and (0,2) = 2.
  ASSERT_EQ(A->rowLength(0), 2u);
  EXPECT_EQ(A->ColIdx[0], 1u);
  EXPECT_EQ(A->Values[0], -5.0f);
  EXPECT_EQ(A->Values[1], 2.0f);
}

TEST(MatrixMarket, BannerErrors) {
  expectError("", 1, "empty file");
  expectError("%MatrixMarket matrix coordinate real general\n1 1 0\n", 1,
              "not a Matrix Market file");
  expectError("%%MatrixMarket matrix coordinate real\n1 1 0\n", 1, "needs 4 words");
  expectError("%%MatrixMarket vector coordinate real general\n", 1, "'vector' is not supported");
  expectError("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 1,
              "'array' files are not supported");
  expectError("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", 1,
              "'complex' matrices are not supported");
  expectError("%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n", 1,
              "'hermitian' matrices are not supported");
  expectError("%%MatrixMarket matrix coordinate pattern skew-symmetric\n1 1 0\n", 1,
              "cannot be 'skew-symmetric'");
  expectError("%%MatrixMarket matrix coordinate float general\n1 1 0\n", 1, "unknown field");
  expectError("%%MatrixMarket matrix coordinate real upper\n1 1 0\n", 1, "unknown symmetry");
}

TEST(MatrixMarket, SizeLineErrors) {
  const std::string H = "%%MatrixMarket matrix coordinate real general\n% c\n";
  expectError(H, 2, "ends before the size line");
  expectError(H + "3 3\n", 3, "3 numbers");
  expectError(H + "3 3 1 4\n", 3, "3 numbers");
  expectError(H + "3 x 1\n1 1 1\n", 3, "cols 'x' is not a non-negative integer");
  expectError(H + "-3 3 1\n1 1 1\n", 3, "rows '-3'");
  expectError(H + "3000000000 3 1\n1 1 1\n", 3, "too large");
  expectError(H + "2 2 5\n", 3, "stores at most 4");
  expectError("%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n1 1 1\n", 2,
              "must be square");
  expectError("%%MatrixMarket matrix coordinate real symmetric\n2 2 4\n", 2, "stores at most 3");
}

// A huge declared count in a small file must be refused before anything is
// reserved (the test would die of bad_alloc otherwise).
TEST(MatrixMarket, HugeCountsAreRefusedBeforeAllocation) {
  const std::string H = "%%MatrixMarket matrix coordinate real general\n";
  expectError(H + "200000000 200000000 2000000000\n1 1 1\n", 2, "only 6 bytes follow");
  expectError(H + "200000000 200000000 3000000000\n1 1 1\n", 2, "at most 2147483647");
  expectError("%%MatrixMarket matrix coordinate pattern general\n9 9 3\n1 1\n2 2\n", 2,
              "truncated");
}

// A matrix with no nonzeros still costs its row pointers (rows + 1 words
// in CSR) and its x (cols words): a 2^31-1-row header would make toCsr
// allocate 8 GiB, so the size line is refused against MaxDimension (2^28)
// before anything is sized by it, naming the file and the header's line.
TEST(MatrixMarket, HugeDimensionsAreRefusedBeforeAllocation) {
  const std::string H = "%%MatrixMarket matrix coordinate real general\n% empty\n";
  expectError(H + "2147483647 2147483647 0\n", 3, "too large; at most 268435456");
  expectError(H + "268435457 1 0\n", 3, "too large");
  expectError(H + "1 268435457 0\n", 3, "too large");
  expectError("%%MatrixMarket matrix coordinate pattern symmetric\n2147483647 2147483647 0\n", 2,
              "too large");
  // The limit itself is accepted (the reader stores no per-row data).
  CooMatrix AtLimit = parseOk(H + "268435456 268435456 0\n");
  EXPECT_EQ(AtLimit.Rows, MaxDimension);
  EXPECT_EQ(AtLimit.Cols, MaxDimension);

  // Through loadCsr the error names the file's path and the line.
  SmallString<128> Path;
  ASSERT_FALSE(sys::fs::createTemporaryFile("huge", "mtx", Path));
  {
    std::ofstream F(Path.c_str());
    F << H << "2147483647 2147483647 0\n";
  }
  Expected<CsrMatrix> A = loadCsr(Path);
  sys::fs::remove(Path);
  ASSERT_FALSE(bool(A)) << "a 2^31-1-row matrix was converted";
  std::string Msg = toString(A.takeError());
  EXPECT_NE(Msg.find((Path + ":3: matrix size 2147483647 x 2147483647 is too large").str()),
            std::string::npos)
      << Msg;
}

TEST(MatrixMarket, EntryErrors) {
  const std::string H = "%%MatrixMarket matrix coordinate real general\n3 3 2\n";
  // (the comment keeps the byte-count check from firing first)
  expectError(H + "1 1 1\n% padding\n", 4, "ends after 1 of the 2 entries declared on line 2");
  expectError(H + "1 1 1\n4 1 1\n", 4, "row index 4 is out of range 1..3");
  expectError(H + "1 1 1\n1 0 1\n", 4, "column index 0 is out of range 1..3");
  expectError(H + "1 1 1\n-1 1 1\n", 4, "row index '-1'");
  expectError(H + "1 1 1\n1 2\n% padding\n", 4, "found 2 fields");
  expectError(H + "1 1 1\n1 2 3 junk\n", 4, "unexpected text 'junk'");
  expectError(H + "1 1 1\n1 2 3.0x\n", 4, "not a real number");
  expectError(H + "1 1 1\n1 2 nan\n", 4, "not finite");
  expectError(H + "1 1 1\n1 2 3\n2 2 2\n", 5, "unexpected data after the last of the 2");
  expectError("%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 2.5\n", 3,
              "not an integer");
  expectError("%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1 1\n", 3,
              "unexpected text '1'");
  expectError("%%MatrixMarket matrix coordinate real symmetric\n3 3 1\n1 2 1\n", 3,
              "above the diagonal");
  expectError("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 1\n2 2 1\n", 3,
              "not below the diagonal");
}

TEST(MatrixMarket, MissingFileNamesThePath) {
  Expected<CooMatrix> M = readMatrixMarket("/nonexistent/dir/m.mtx");
  ASSERT_FALSE(bool(M));
  std::string Msg = toString(M.takeError());
  EXPECT_NE(Msg.find("/nonexistent/dir/m.mtx"), std::string::npos) << Msg;
}

//===--- The shared matrices ----------------------------------------------===//

std::string sharedMatricesDir() {
  if (const char *Env = std::getenv("TANDEM_MATRICES_DIR"))
    return Env;
  return TANDEM_SHARED_MATRICES_DIR;
}

struct ReadmeRow {
  uint64_t Rows, Cols, Stored;
};

/// file -> header sizes, from the README's table ("| 3elt.mtx | ... | 4720 4720 13722 |").
std::map<std::string, ReadmeRow> readmeHeaders(const std::string &Dir) {
  std::map<std::string, ReadmeRow> Rows;
  std::ifstream In(Dir + "/README.md");
  std::string Line;
  while (std::getline(In, Line)) {
    if (Line.rfind("| ", 0) != 0 || Line.find(".mtx") == std::string::npos)
      continue;
    std::string Name = Line.substr(2, Line.find(' ', 2) - 2);
    size_t LastBar = Line.rfind('|'), PrevBar = Line.rfind('|', LastBar - 1);
    std::istringstream Sizes(Line.substr(PrevBar + 1, LastBar - PrevBar - 1));
    ReadmeRow R{};
    if (Sizes >> R.Rows >> R.Cols >> R.Stored)
      Rows[Name] = R;
  }
  return Rows;
}

/// Distinct positions after mirroring, counted with nothing from the reader:
/// a plain token scan of the file.
uint64_t independentNnz(const std::string &Path) {
  std::ifstream In(Path);
  std::string Line;
  std::getline(In, Line);
  bool Mirror = Line.find("symmetric") != std::string::npos; // also skew-symmetric
  bool SizeSeen = false;
  std::set<std::pair<uint64_t, uint64_t>> Positions;
  while (std::getline(In, Line)) {
    if (Line.empty() || Line[0] == '%')
      continue;
    std::istringstream S(Line);
    uint64_t I, J;
    if (!(S >> I >> J))
      continue;
    if (!SizeSeen) {
      SizeSeen = true;
      continue;
    }
    Positions.insert({I, J});
    if (Mirror)
      Positions.insert({J, I});
  }
  return Positions.size();
}

TEST(MatrixMarket, EverySharedMatrixLoadsWithTheRightCounts) {
  const std::string Dir = sharedMatricesDir();
  if (!sys::fs::is_directory(Dir))
    GTEST_SKIP() << "no shared matrices at " << Dir << " (set TANDEM_MATRICES_DIR)";
  std::map<std::string, ReadmeRow> Readme = readmeHeaders(Dir);
  ASSERT_FALSE(Readme.empty()) << "no table rows in " << Dir << "/README.md";
  unsigned Files = 0;
  std::error_code EC;
  for (sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC)) {
    if (sys::path::extension(It->path()) != ".mtx")
      continue;
    ++Files;
    std::string Name = sys::path::filename(It->path()).str();
    SCOPED_TRACE(Name);
    Expected<CooMatrix> M = readMatrixMarket(It->path());
    ASSERT_TRUE(bool(M)) << toString(M.takeError());
    ASSERT_TRUE(Readme.count(Name)) << "not in README.md";
    const ReadmeRow &R = Readme[Name];
    EXPECT_EQ(M->Rows, R.Rows);
    EXPECT_EQ(M->Cols, R.Cols);
    EXPECT_EQ(M->Entries.size(), R.Stored);
    Expected<CsrMatrix> A = toCsr(*M);
    ASSERT_TRUE(bool(A)) << toString(A.takeError());
    EXPECT_EQ(A->nnz(), independentNnz(It->path()));
    if (Error E = verifyCsr(*A, Name))
      ADD_FAILURE() << toString(std::move(E));
  }
  EXPECT_EQ(Files, Readme.size()) << "README.md and the folder disagree";
}

} // namespace
