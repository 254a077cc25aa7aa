//===- StatsTest.cpp - Matrix statistics ----------------------------------===//
//
// Hand-computed answers on small matrices, and the LRU figures checked
// against a naive list-based LRU simulation on generated matrices.
//
//===----------------------------------------------------------------------===//

#include "sparse/Generators.h"
#include "sparse/Stats.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <list>

using namespace llvm;
using namespace tandem::sparse;

namespace {

/// CSR from per-row column lists (values 1).
CsrMatrix fromRows(uint32_t Cols, const std::vector<std::vector<uint32_t>> &Rows) {
  CsrMatrix A;
  A.Rows = uint32_t(Rows.size());
  A.Cols = Cols;
  for (const auto &Row : Rows) {
    for (uint32_t C : Row) {
      A.ColIdx.push_back(C);
      A.Values.push_back(1.0f);
    }
    A.RowPtr.push_back(uint32_t(A.ColIdx.size()));
  }
  if (Error E = verifyCsr(A, "test"))
    ADD_FAILURE() << toString(std::move(E));
  return A;
}

TEST(Stats, RowLengthsAndPositions) {
  // Lengths 2, 0, 4, 1, 3: mean 2, variance 2, max 4.
  CsrMatrix A = fromRows(10, {{0, 9}, {}, {1, 2, 3, 4}, {3}, {2, 5, 6}});
  MatrixStats S = computeStats(A);
  EXPECT_EQ(S.Rows, 5u);
  EXPECT_EQ(S.Nnz, 10u);
  EXPECT_DOUBLE_EQ(S.Density, 10.0 / 50);
  EXPECT_DOUBLE_EQ(S.RowLengthMean, 2.0);
  EXPECT_NEAR(S.RowLengthStddev, std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(S.RowLengthCv, std::sqrt(2.0) / 2, 1e-12);
  EXPECT_EQ(S.RowLengthMin, 0u);
  EXPECT_EQ(S.RowLengthMax, 4u);
  EXPECT_EQ(S.RowLengthP50, 2u); // sorted 0 1 2 3 4
  EXPECT_EQ(S.RowLengthP90, 4u);
  EXPECT_EQ(S.EmptyRows, 1u);
  EXPECT_DOUBLE_EQ(S.WindowImbalance, 2.0); // one window: max 4 / mean 2
  EXPECT_EQ(S.Bandwidth, 9u);               // row 0, column 9
  EXPECT_DOUBLE_EQ(S.MeanRowSpan, (10 + 4 + 1 + 5) / 4.0);
}

TEST(Stats, LinesAndReuseDistances) {
  // 16 fp32 per 64-byte line: columns 0..15 are line 0, 16..31 line 1, ...
  // Stream of lines: row0: 0 0 1 | row1: 2 | row2: 0 1 2 3
  CsrMatrix A = fromRows(64, {{0, 5, 16}, {40}, {1, 17, 33, 63}});
  CacheShape Shape;
  Shape.LineBytes = 64;
  Shape.CapacityBytes = 2 * 64; // two lines
  Shape.RowWindow = 2;
  MatrixStats S = computeStats(A, Shape);
  EXPECT_EQ(S.XLines, 4u);
  EXPECT_EQ(S.XLinesTouched, 4u);
  EXPECT_DOUBLE_EQ(S.LinesPerRow, (2 + 1 + 4) / 3.0);
  EXPECT_DOUBLE_EQ(S.LinesPerWindow, (3 + 4) / 2.0); // rows {0,1}: lines 0,1,2; row {2}: 4
  // Reuses: line 0 at t=1 (distance 0), line 0 at t=4 (lines 1, 2 since: 2),
  // line 1 at t=5 (0, 2 since its last touch at t=2: 2), line 2 at t=6 (0, 1: 2).
  EXPECT_EQ(S.ReuseDistanceP50, 2u);
  EXPECT_EQ(S.ReuseDistanceP90, 2u);
  // 2-line LRU: 4 cold misses + the three reuses at distance 2.
  EXPECT_EQ(S.XMisses, 7u);
  EXPECT_DOUBLE_EQ(S.XMissRate, 7.0 / 8);
}

/// Misses of a fully associative LRU cache, simulated the slow, obvious way.
uint64_t naiveLruMisses(const CsrMatrix &A, uint64_t CapacityLines, uint32_t ElemsPerLine) {
  std::list<uint64_t> Lru; // front: most recent
  uint64_t Misses = 0;
  for (uint32_t C : A.ColIdx) {
    uint64_t L = C / ElemsPerLine;
    auto It = std::find(Lru.begin(), Lru.end(), L);
    if (It == Lru.end()) {
      ++Misses;
      if (Lru.size() == CapacityLines)
        Lru.pop_back();
    } else {
      Lru.erase(It);
    }
    Lru.push_front(L);
  }
  return Misses;
}

TEST(Stats, LruMissesMatchANaiveSimulation) {
  Expected<CsrMatrix> Power = generatePowerLaw(11, 400, 3000, 1.2, 0, 120);
  Expected<CsrMatrix> Band = generateBanded(11, 600, 20);
  ASSERT_TRUE(Power && Band);
  for (const CsrMatrix *A : {&*Power, &*Band})
    for (uint64_t Lines : {1u, 8u, 32u, 100u}) {
      CacheShape Shape;
      Shape.CapacityBytes = Lines * 64;
      MatrixStats S = computeStats(*A, Shape);
      EXPECT_EQ(S.XMisses, naiveLruMisses(*A, Lines, 16)) << Lines << " lines";
    }
  // A band of 41 columns fits in 4 lines of a 32-line cache: only cold misses.
  MatrixStats S = computeStats(*Band, CacheShape{64, 32 * 64, 4, 32});
  EXPECT_EQ(S.XMisses, S.XLinesTouched);
  EXPECT_EQ(S.Bandwidth, 20u);
}

TEST(Stats, TablePrintsOneRowPerMatrix) {
  CsrMatrix A = fromRows(10, {{0, 9}, {}, {1, 2, 3, 4}});
  std::string Out;
  raw_string_ostream OS(Out);
  printStatsTable(OS, {{"tiny.mtx", computeStats(A)}});
  EXPECT_NE(Out.find("| tiny.mtx | 3 | 10 | 6 | 2.00 | 4 |"), std::string::npos) << Out;
}

TEST(Stats, EmptyMatrix) {
  CsrMatrix A;
  MatrixStats S = computeStats(A);
  EXPECT_EQ(S.Nnz, 0u);
  EXPECT_EQ(S.XMisses, 0u);
  EXPECT_EQ(S.RowLengthCv, 0.0);
}

} // namespace
