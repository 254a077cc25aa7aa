//===- SpmmShapeTest.cpp - spmm_csr's launch shape and its limits ---------===//
//
// microbench/SpmmShape.h is the one definition of how spmm_csr is launched
// (suite, GPU runner, gpu model). Rows go on blockIdx.x so that the 4M-row
// matrices fit one launch; the limits left are CUDA's 65535 blocks in y
// (column tiles) and the kernel's int indices.
//
//===----------------------------------------------------------------------===//

#include "../../microbench/SpmmShape.h"

#include <gtest/gtest.h>

using namespace tandem;

TEST(SpmmShape, RowsOnXAnyRowCountFits) {
  EXPECT_EQ(spmm::gridX(4194304), 4194304u / spmm::BlockRows);
  EXPECT_EQ(spmm::gridX(75), 19u); // a partial block for the last 3 rows
  EXPECT_EQ(spmm::gridY(32), 1u);
  EXPECT_EQ(spmm::gridY(45), 2u);
  // The 4M-row SpMV matrices of the GPU bundle, at the report's 32 columns:
  // rows on y stopped at 65535 x 4 = 262,140 rows.
  EXPECT_EQ(spmm::unfit(4194304, 4194304, 32), "");
}

TEST(SpmmShape, ColumnTilesBeyondGridYAreNamed) {
  EXPECT_EQ(spmm::unfit(100, 100, 65535 * 32), "");
  std::string Why = spmm::unfit(100, 100, 65535 * 32 + 1);
  EXPECT_NE(Why.find("65536 blocks in y, above CUDA's 65535"), std::string::npos) << Why;
}

TEST(SpmmShape, IntIndexOverflowIsNamed) {
  // C's last element is rows * n - 1: at 2^31 elements the kernel's int
  // row * n + col wraps.
  EXPECT_EQ(spmm::unfit(67108863, 16, 32), "");
  std::string Why = spmm::unfit(67108864, 16, 32);
  EXPECT_NE(Why.find("C (67108864 x 32)"), std::string::npos) << Why;
  EXPECT_NE(Why.find("indexes them with int"), std::string::npos) << Why;
  EXPECT_NE(spmm::unfit(16, 67108864, 32), ""); // B's colIdx * n + col
  EXPECT_EQ(spmm::unfit(16, 16, 0), "B has no columns");
}
