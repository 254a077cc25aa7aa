//===- GeneratorsTest.cpp - Seeded synthetic matrices ---------------------===//
//
// Determinism (same seed, same matrix; another seed, another matrix), shapes
// and CSR invariants, and the row-length distributions each generator
// promises.
//
//===----------------------------------------------------------------------===//

#include "sparse/Generators.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace llvm;
using namespace tandem::sparse;

namespace {

CsrMatrix ok(Expected<CsrMatrix> A) {
  if (!A) {
    ADD_FAILURE() << toString(A.takeError());
    return {};
  }
  if (Error E = verifyCsr(*A, "generated"))
    ADD_FAILURE() << toString(std::move(E));
  return std::move(*A);
}

bool same(const CsrMatrix &A, const CsrMatrix &B) {
  return A.Rows == B.Rows && A.Cols == B.Cols && A.RowPtr == B.RowPtr && A.ColIdx == B.ColIdx &&
         A.Values == B.Values;
}

std::string errorOf(Expected<CsrMatrix> A) {
  if (A)
    return "";
  return toString(A.takeError());
}

TEST(Generators, SameSeedSameMatrixOtherSeedOther) {
  auto Uniform = [](uint64_t S) { return ok(generateUniform(S, 200, 300, 7)); };
  auto Power = [](uint64_t S) { return ok(generatePowerLaw(S, 200, 300, 1.5, 0, 100)); };
  auto Block = [](uint64_t S) { return ok(generateBlockDiagonal(S, 200, 16, 0.3)); };
  auto Band = [](uint64_t S) { return ok(generateBanded(S, 200, 3)); };
  EXPECT_TRUE(same(Uniform(1), Uniform(1)));
  EXPECT_FALSE(same(Uniform(1), Uniform(2)));
  EXPECT_TRUE(same(Power(5), Power(5)));
  EXPECT_FALSE(same(Power(5), Power(6)));
  EXPECT_TRUE(same(Block(9), Block(9)));
  EXPECT_FALSE(same(Block(9), Block(10)));
  EXPECT_TRUE(same(Band(3), Band(3)));
  EXPECT_FALSE(same(Band(3), Band(4))); // the values differ
}

// A fixed seed gives fixed numbers on every platform (mt19937_64 and our own
// range mapping; no std distributions). If a generator changes on purpose,
// print the new values, paste them here and say so in docs/Sparse.md: the
// suite's inputs and any recorded report change with them.
TEST(Generators, OutputIsPinned) {
  CsrMatrix A = ok(generateUniform(42, 2, 1000, 3));
  EXPECT_EQ(A.RowPtr, (std::vector<uint32_t>{0, 3, 6}));
  EXPECT_EQ(A.ColIdx, (std::vector<uint32_t>{638, 752, 753, 273, 372, 573}));
  EXPECT_EQ(A.Values[0], -0x1.7474fp-1f);
  EXPECT_EQ(A.Values[5], 0x1.846472p-5f);
  CsrMatrix P = ok(generatePowerLaw(42, 8, 100, 1.5, 0, 50));
  EXPECT_EQ(P.RowPtr, (std::vector<uint32_t>{0, 5, 7, 11, 11, 26, 26, 27, 27}));
}

TEST(Generators, UniformHasExactRowLengthsAndDistinctColumns) {
  CsrMatrix A = ok(generateUniform(7, 500, 40, 40)); // full rows: every column once
  EXPECT_EQ(A.Rows, 500u);
  EXPECT_EQ(A.Cols, 40u);
  EXPECT_EQ(A.nnz(), 500u * 40u);
  for (uint32_t R = 0; R < A.Rows; ++R) {
    EXPECT_EQ(A.rowLength(R), 40u);
  }
  CsrMatrix B = ok(generateUniform(7, 1000, 5000, 16));
  for (uint32_t R = 0; R < B.Rows; ++R) {
    EXPECT_EQ(B.rowLength(R), 16u);
  }
  for (float V : B.Values) {
    EXPECT_TRUE(V >= -1.0f && V < 1.0f && V != 0.0f) << V;
  }
  // Columns spread over the whole range: each tenth gets about a tenth.
  std::vector<unsigned> Tenths(10, 0);
  for (uint32_t C : B.ColIdx)
    ++Tenths[C * 10 / B.Cols];
  for (unsigned T : Tenths) {
    EXPECT_NEAR(T, B.nnz() / 10.0, B.nnz() / 10.0 * 0.1);
  }
}

TEST(Generators, PowerLawRowLengthsFollowTheLaw) {
  const uint32_t Rows = 20000, Min = 0, Max = 200;
  const double Alpha = 1.8;
  CsrMatrix A = ok(generatePowerLaw(3, Rows, 4000, Alpha, Min, Max));
  std::vector<double> P(Max + 1, 0);
  double Z = 0, Mean = 0;
  for (uint32_t K = Min; K <= Max; ++K)
    Z += P[K] = std::pow(K + 1.0, -Alpha);
  for (uint32_t K = Min; K <= Max; ++K)
    Mean += K * P[K] / Z;
  std::vector<unsigned> Count(Max + 1, 0);
  for (uint32_t R = 0; R < Rows; ++R) {
    ASSERT_LE(A.rowLength(R), Max);
    ++Count[A.rowLength(R)];
  }
  // The most likely lengths within 5 standard deviations of their binomial
  // counts, and the mean within 5%.
  for (uint32_t K = 0; K < 4; ++K) {
    double Want = Rows * P[K] / Z, Sd = std::sqrt(Want * (1 - P[K] / Z));
    EXPECT_NEAR(Count[K], Want, 5 * Sd) << "length " << K;
  }
  EXPECT_NEAR(double(A.nnz()) / Rows, Mean, Mean * 0.05);
  // A heavy tail: some rows near the maximum.
  unsigned Long = 0;
  for (uint32_t K = 100; K <= Max; ++K)
    Long += Count[K];
  EXPECT_GT(Long, 0u);

  CsrMatrix B = ok(generatePowerLaw(3, 2000, 100, 0.0, 5, 9)); // exponent 0: uniform 5..9
  for (uint32_t R = 0; R < B.Rows; ++R) {
    EXPECT_GE(B.rowLength(R), 5u);
    EXPECT_LE(B.rowLength(R), 9u);
  }
  EXPECT_NEAR(double(B.nnz()) / B.Rows, 7.0, 0.15);
}

TEST(Generators, BandedHasEveryDiagonalInTheBand) {
  const uint32_t N = 100, H = 6; // 13 diagonals
  CsrMatrix A = ok(generateBanded(1, N, H));
  EXPECT_EQ(A.Rows, N);
  EXPECT_EQ(A.Cols, N);
  for (uint32_t R = 0; R < N; ++R) {
    uint32_t First = R > H ? R - H : 0, Last = std::min(R + H, N - 1);
    ASSERT_EQ(A.rowLength(R), Last - First + 1) << "row " << R;
    EXPECT_EQ(A.ColIdx[A.RowPtr[R]], First);
  }
  EXPECT_EQ(A.nnz(), N * 13u - 2 * (6 + 5 + 4 + 3 + 2 + 1)); // clipped corners
  EXPECT_EQ(ok(generateBanded(1, 5, 100)).nnz(), 25u);       // band wider than the matrix
}

TEST(Generators, BlockDiagonalStaysInBlocksWithTheDensity) {
  const uint32_t N = 1000, Block = 24; // 1000 = 41 * 24 + 16: a partial last block
  CsrMatrix A = ok(generateBlockDiagonal(8, N, Block, 0.25));
  for (uint32_t R = 0; R < N; ++R)
    for (uint32_t J = A.RowPtr[R]; J < A.RowPtr[R + 1]; ++J) {
      ASSERT_EQ(A.ColIdx[J] / Block, R / Block) << "row " << R << " leaves its block";
    }
  double Positions = 41.0 * Block * Block + 16.0 * 16;
  EXPECT_NEAR(A.nnz() / Positions, 0.25, 0.01);
  CsrMatrix Dense = ok(generateBlockDiagonal(8, 10, 4, 1.0));
  EXPECT_EQ(Dense.nnz(), 4u * 4 + 4 * 4 + 2 * 2);
}

TEST(Generators, BadParametersAreErrorsNamingTheParameter) {
  EXPECT_NE(errorOf(generateUniform(1, 10, 5, 6)).find("exceeds cols"), std::string::npos);
  EXPECT_NE(errorOf(generateUniform(1, 200000000, 200000000, 11)).find("nonzeros"),
            std::string::npos);
  EXPECT_NE(errorOf(generateUniform(1, 2000000000, 10, 2)).find("at most 268435456"),
            std::string::npos);
  EXPECT_NE(errorOf(generatePowerLaw(1, 10, 5, -1, 0, 3)).find("exponent"), std::string::npos);
  EXPECT_NE(errorOf(generatePowerLaw(1, 10, 5, NAN, 0, 3)).find("exponent"), std::string::npos);
  EXPECT_NE(errorOf(generatePowerLaw(1, 10, 5, 1, 4, 3)).find("min row length"),
            std::string::npos);
  EXPECT_NE(errorOf(generatePowerLaw(1, 10, 5, 1, 0, 6)).find("exceeds cols"), std::string::npos);
  EXPECT_NE(errorOf(generateBlockDiagonal(1, 10, 0, 0.5)).find("block size"), std::string::npos);
  EXPECT_NE(errorOf(generateBlockDiagonal(1, 10, 2, 0)).find("density"), std::string::npos);
  EXPECT_NE(errorOf(generateBanded(1, 200000000, 5)).find("nonzeros"), std::string::npos);
  EXPECT_NE(errorOf(generateBanded(1, 2000000000, 5)).find("at most 268435456"),
            std::string::npos);
}

} // namespace
