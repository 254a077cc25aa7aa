//===- CsrTest.cpp - Coordinate to CSR and the CSR checker ----------------===//

#include "sparse/Csr.h"

#include <gtest/gtest.h>

using namespace llvm;
using namespace tandem::sparse;

namespace {

CsrMatrix csrOf(const CooMatrix &M) {
  Expected<CsrMatrix> A = toCsr(M);
  if (!A) {
    ADD_FAILURE() << toString(A.takeError());
    return {};
  }
  return std::move(*A);
}

std::string verifyMessage(const CsrMatrix &A) {
  if (Error E = verifyCsr(A, "m"))
    return toString(std::move(E));
  return "";
}

TEST(Csr, SortsAndSumsDuplicatesAndKeepsEmptyRows) {
  CooMatrix M;
  M.Rows = 4;
  M.Cols = 3;
  // Unsorted, with (2,1) twice and row 1 and row 3 empty.
  M.Entries = {{2, 2, 1.0}, {0, 1, 4.0}, {2, 1, 0.5}, {2, 0, -1.0}, {2, 1, 0.25}};
  CsrMatrix A = csrOf(M);
  EXPECT_EQ(A.RowPtr, (std::vector<uint32_t>{0, 1, 1, 4, 4}));
  EXPECT_EQ(A.ColIdx, (std::vector<uint32_t>{1, 0, 1, 2}));
  EXPECT_EQ(A.Values, (std::vector<float>{4.0f, -1.0f, 0.75f, 1.0f}));
  EXPECT_EQ(verifyMessage(A), "");
}

TEST(Csr, SymmetricMirrorsOffDiagonalOnly) {
  CooMatrix M;
  M.Rows = M.Cols = 3;
  M.S = Symmetry::Symmetric;
  M.Entries = {{0, 0, 1.0}, {2, 0, 3.0}, {1, 1, 2.0}, {2, 1, 5.0}};
  CsrMatrix A = csrOf(M);
  EXPECT_EQ(A.nnz(), 6u);
  EXPECT_EQ(A.RowPtr, (std::vector<uint32_t>{0, 2, 4, 6}));
  EXPECT_EQ(A.ColIdx, (std::vector<uint32_t>{0, 2, 1, 2, 0, 1}));
  EXPECT_EQ(A.Values, (std::vector<float>{1, 3, 2, 5, 3, 5}));
}

TEST(Csr, VerifyCatchesBrokenMatrices) {
  CooMatrix M;
  M.Rows = M.Cols = 3;
  M.Entries = {{0, 0, 1.0}, {0, 2, 1.0}, {2, 1, 1.0}};
  const CsrMatrix Good = csrOf(M);
  ASSERT_EQ(verifyMessage(Good), "");

  CsrMatrix A = Good;
  A.ColIdx[1] = 3;
  EXPECT_NE(verifyMessage(A).find("column 3 >= cols 3"), std::string::npos);
  A = Good;
  std::swap(A.ColIdx[0], A.ColIdx[1]);
  EXPECT_NE(verifyMessage(A).find("out of order"), std::string::npos);
  A = Good;
  A.RowPtr[2] = 1; // below RowPtr[1] = 2
  EXPECT_NE(verifyMessage(A).find("RowPtr[2] = 1"), std::string::npos);
  A = Good;
  A.RowPtr[1] = 9; // beyond nnz: must not be read past the end
  EXPECT_NE(verifyMessage(A).find("RowPtr[1] = 9"), std::string::npos);
  A = Good;
  A.RowPtr.pop_back();
  EXPECT_NE(verifyMessage(A).find("rows + 1"), std::string::npos);
  A = Good;
  A.Values.pop_back();
  EXPECT_NE(verifyMessage(A).find("values"), std::string::npos);
}

} // namespace
