//===- GpuRunnerSummaryTest.cpp - The GPU runner's table, with no GPU -----===//
//
// gpu/Summary.h on a handwritten results fixture
// (tests/data/gpu-results-fixture.json; its numbers are invented, not
// measurements): the ours/nvcc table and geometric mean, per matrix the
// fastest of our SpMV kernels and our SpMM against cuSPARSE's best
// algorithm, and the runs the runner skipped.

#include "../../gpu/Summary.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

using namespace tandem::gpu;

namespace {

Json fixture() {
  std::ifstream In(TANDEM_TEST_DATA_DIR "/gpu-results-fixture.json");
  std::stringstream S;
  S << In.rdbuf();
  return JsonParser(S.str()).parse();
}

const SpmvComparison *find(const RunSummary &S, const std::string &Matrix) {
  for (const SpmvComparison &C : S.Spmv)
    if (C.Matrix == Matrix)
      return &C;
  return nullptr;
}

TEST(GpuRunnerSummary, TableRowsAndGeometricMean) {
  RunSummary S = summarizeResults(fixture());
  ASSERT_EQ(S.Rows.size(), 11u); // 2 suite cases + 9 timing entries
  EXPECT_EQ(S.Rows[0].Kernel, "vadd");
  EXPECT_EQ(S.Rows[0].Size, "suite: n=5037; vadd<<<20, 256>>>");
  EXPECT_NEAR(S.Rows[0].oursOverNvcc(), 1.2, 1e-12);
  EXPECT_TRUE(std::isnan(S.Rows[1].Ms[0])) << "a failed variant is NaN, not 0";
  // Rows with both ours and nvcc: vadd suite 1.2, vadd large 1.21, scalar
  // 1.1, vector 0.44/0.45, SpMM on the uniform matrix 0.06/0.048.
  EXPECT_EQ(S.GeomeanRows, 5);
  double Want = std::pow(1.2 * 1.21 * 1.1 * (0.044 / 0.045) * (0.06 / 0.048), 0.2);
  EXPECT_NEAR(S.GeomeanOursOverNvcc, Want, 1e-12);
}

TEST(GpuRunnerSummary, FastestSpmvVariantAgainstBestCusparse) {
  RunSummary S = summarizeResults(fixture());
  ASSERT_EQ(S.Spmv.size(), 2u);
  const SpmvComparison *U = find(S, "uniform 4096 rows, 16 per row");
  ASSERT_TRUE(U);
  EXPECT_DOUBLE_EQ(U->OursMs[0], 0.033);
  EXPECT_DOUBLE_EQ(U->OursMs[1], 0.044);
  EXPECT_TRUE(std::isnan(U->OursMs[2])); // merge failed: not the fastest
  EXPECT_EQ(U->Fastest, "spmv_scalar");
  EXPECT_EQ(U->CusparseAlg, "csr_alg2"); // the better of ALG1 (0.025) and ALG2 (0.022)
  EXPECT_DOUBLE_EQ(U->CusparseMs, 0.022);
  EXPECT_NEAR(U->oursOverCusparse(), 1.5, 1e-12);

  const SpmvComparison *B = find(S, "banded.mtx");
  ASSERT_TRUE(B);
  EXPECT_EQ(B->Fastest, "spmv_vector");
  EXPECT_DOUBLE_EQ(B->FastestMs, 0.012);
  EXPECT_TRUE(B->CusparseAlg.empty());
  EXPECT_TRUE(std::isnan(B->oursOverCusparse()));
  EXPECT_NE(B->CusparseNote.find("not built"), std::string::npos);
}

// SpMM per matrix: ours and nvcc's PTX against cuSPARSE's best SpMM
// algorithm, an algorithm's error kept as the note; SpMM is not an SpMV
// variant (it never enters the SpMV comparison).
TEST(GpuRunnerSummary, SpmmAgainstBestCusparse) {
  RunSummary S = summarizeResults(fixture());
  ASSERT_EQ(S.Spmm.size(), 2u);
  const SpmmComparison &U = S.Spmm[0];
  EXPECT_EQ(U.Matrix, "uniform 4096 rows, 16 per row");
  EXPECT_DOUBLE_EQ(U.DenseColumns, 32);
  EXPECT_DOUBLE_EQ(U.OursMs, 0.06);
  EXPECT_DOUBLE_EQ(U.NvccMs, 0.048);
  EXPECT_EQ(U.CusparseAlg, "csr_alg3"); // 0.030 beats ALG1's 0.040; ALG2 failed
  EXPECT_DOUBLE_EQ(U.CusparseMs, 0.03);
  EXPECT_NEAR(U.oursOverCusparse(), 2.0, 1e-12);
  EXPECT_EQ(U.CusparseNote, "csr_alg2: operation not supported");
  const SpmmComparison &B = S.Spmm[1];
  EXPECT_EQ(B.Matrix, "banded.mtx");
  EXPECT_TRUE(std::isnan(B.NvccMs));
  EXPECT_TRUE(std::isnan(B.oursOverCusparse()));
  EXPECT_NE(B.CusparseNote.find("not built"), std::string::npos);
  // The SpMV comparison of the same matrices is unchanged by the SpMM
  // entries.
  EXPECT_EQ(find(S, "uniform 4096 rows, 16 per row")->Fastest, "spmv_scalar");
  ASSERT_EQ(S.Skipped.size(), 1u);
  EXPECT_NE(S.Skipped[0].find("2^31 elements or more"), std::string::npos) << S.Skipped[0];
}

TEST(GpuRunnerSummary, JsonAndPrintedTable) {
  RunSummary S = summarizeResults(fixture());
  Json J = JsonParser(summaryJson(S)).parse();
  EXPECT_EQ(J["geomean_rows"].integer(), 5);
  ASSERT_EQ(J["spmm"].A.size(), 2u);
  EXPECT_EQ(J["spmm"].A[0]["cusparse_best"].S, "csr_alg3");
  EXPECT_NEAR(J["spmm"].A[0]["ours_over_cusparse"].N, 2.0, 1e-5);
  EXPECT_EQ(J["spmm"].A[1]["ours_over_cusparse"].K, Json::Kind::Null);
  ASSERT_EQ(J["skipped"].A.size(), 1u);
  ASSERT_EQ(J["spmv"].A.size(), 2u);
  const Json &U = J["spmv"].A[0];
  EXPECT_EQ(U["matrix"].S, "uniform 4096 rows, 16 per row");
  EXPECT_EQ(U["fastest"].S, "spmv_scalar");
  EXPECT_EQ(U["cusparse_best"].S, "csr_alg2");
  EXPECT_NEAR(U["ours_over_cusparse"].N, 1.5, 1e-5);
  EXPECT_EQ(U["ours_ms"]["spmv_merge"].K, Json::Kind::Null);
  const Json &B = J["spmv"].A[1];
  EXPECT_EQ(B["ours_over_cusparse"].K, Json::Kind::Null);
  EXPECT_EQ(B["cusparse_best"].K, Json::Kind::Null);

  std::FILE *F = std::tmpfile();
  ASSERT_TRUE(F);
  printSummary(S, F);
  std::rewind(F);
  std::string Text;
  char Buf[512];
  while (std::fgets(Buf, sizeof(Buf), F))
    Text += Buf;
  std::fclose(F);
  EXPECT_NE(Text.find("geometric mean ours/nvcc over 5 rows"), std::string::npos) << Text;
  size_t SpmmLine = Text.find("uniform 4096 rows, 16 per row", Text.find("SpMM matrix"));
  ASSERT_NE(SpmmLine, std::string::npos) << Text;
  std::string SpmmRow = Text.substr(SpmmLine, Text.find('\n', SpmmLine) - SpmmLine);
  EXPECT_NE(SpmmRow.find("csr_alg3"), std::string::npos) << SpmmRow;
  EXPECT_NE(SpmmRow.find("2.000"), std::string::npos) << SpmmRow;
  EXPECT_NE(Text.find("skipped: spmm_csr on 'uniform 4194304 rows"), std::string::npos) << Text;
  EXPECT_NE(Text.find("ours/cuSP"), std::string::npos) << Text;
  // The uniform matrix's line: fastest, cuSPARSE's best and the ratio.
  size_t Line = Text.find("uniform 4096 rows, 16 per row", Text.find("SpMV matrix"));
  ASSERT_NE(Line, std::string::npos) << Text;
  std::string Row = Text.substr(Line, Text.find('\n', Line) - Line);
  EXPECT_NE(Row.find("spmv_scalar"), std::string::npos) << Row;
  EXPECT_NE(Row.find("csr_alg2"), std::string::npos) << Row;
  EXPECT_NE(Row.find("1.500"), std::string::npos) << Row;
}

TEST(GpuRunnerSummary, MalformedResultsNameTheMember) {
  Json Bad = JsonParser(R"({"timing": [{"size": "x"}]})").parse();
  try {
    summarizeResults(Bad);
    FAIL() << "no error";
  } catch (const std::exception &E) {
    EXPECT_NE(std::string(E.what()).find("'case'"), std::string::npos) << E.what();
  }
}

} // namespace
