//===- GpuResultsFileTest.cpp - The runner's results file, whole at each step ===//
//
// gpu/Results.h: the file a stopped GPU run leaves behind parses, holds
// every entry added before the stop with its summary, says where it
// stopped and that it is incomplete; the finished file says complete, and
// its summary is what writeFinal returns. Entries are invented, not
// measurements.

#include "../../gpu/Results.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

using namespace tandem::gpu;

namespace {

Json readJson(const std::string &Path) {
  std::ifstream In(Path);
  std::stringstream S;
  S << In.rdbuf();
  return JsonParser(S.str()).parse();
}

const char *const VaddCase =
    R"({"name":"vadd","size":"n=4096","variants":{"ours":{"correct":true,)"
    R"("time":{"median_ms":0.010}},"nvcc":{"correct":true,"time":{"median_ms":0.008}}}})";
const char *const SpmvTiming =
    R"({"case":"spmv_scalar","size":"banded 100r 300nz","matrix":"banded.mtx",)"
    R"("variants":{"ours":{"time":{"median_ms":0.5}},"nvcc":{"time":{"median_ms":0.4}}},)"
    R"("cusparse":{"csr_alg1":{"median_ms":0.25}}})";

class ResultsFileTest : public ::testing::Test {
protected:
  void SetUp() override {
    Dir = std::filesystem::temp_directory_path() /
          ("tandem-results-file-" + std::to_string(::getpid()) + "-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(Dir);
    Path = (Dir / "gpu-results.json").string();
  }
  void TearDown() override { std::filesystem::remove_all(Dir); }
  std::filesystem::path Dir;
  std::string Path;
};

TEST_F(ResultsFileTest, AStoppedRunLeavesEveryEntryBeforeTheStop) {
  ResultsFile R(Path, R"("gpu":{"name":"Fake H200"},"reps":25)");
  R.addCase(VaddCase);
  R.writeProgress("timing spmv_scalar banded 100r 300nz");
  R.addTiming(SpmvTiming); // added after the last write: lost with the stop
  Json J = readJson(Path);
  EXPECT_FALSE(J["complete"].B);
  EXPECT_EQ(J["stopped_at"].S, "timing spmv_scalar banded 100r 300nz");
  EXPECT_EQ(J["gpu"]["name"].S, "Fake H200");
  ASSERT_EQ(J["cases"].A.size(), 1u);
  EXPECT_TRUE(J["timing"].A.empty());
  EXPECT_FALSE(J.has("all_correct")) << "an incomplete run has no verdict";
  // The summary is of what the file holds: vadd's row, 0.010 / 0.008.
  EXPECT_EQ(J["summary"]["geomean_rows"].N, 1);
  EXPECT_NEAR(J["summary"]["geomean_ours_over_nvcc"].N, 1.25, 1e-9);
  EXPECT_FALSE(std::filesystem::exists(Path + ".tmp"));
}

TEST_F(ResultsFileTest, EachWriteReplacesTheLastWhole) {
  ResultsFile R(Path, R"("gpu":{"name":"Fake H200"})");
  R.addCase(VaddCase);
  R.writeProgress("first");
  R.addTiming(SpmvTiming);
  R.addSkipped("spmm_csr on 'big': not run: too big");
  R.writeProgress("second");
  Json J = readJson(Path);
  EXPECT_EQ(J["stopped_at"].S, "second");
  ASSERT_EQ(J["timing"].A.size(), 1u);
  ASSERT_EQ(J["summary"]["spmv"].A.size(), 1u);
  EXPECT_EQ(J["summary"]["spmv"].A[0]["cusparse_best"].S, "csr_alg1");
  ASSERT_EQ(J["skipped"].A.size(), 1u);
  EXPECT_EQ(J["summary"]["skipped"].A[0].S, "spmm_csr on 'big': not run: too big");
}

TEST_F(ResultsFileTest, TheFinishedFileIsCompleteWithItsVerdict) {
  ResultsFile R(Path, R"("gpu":{"name":"Fake H200"})");
  R.addCase(VaddCase);
  R.writeProgress("timing");
  R.addTiming(SpmvTiming);
  RunSummary S = R.writeFinal("Fake H200, 1980 MHz", /*AllCorrect=*/true);
  Json J = readJson(Path);
  EXPECT_TRUE(J["complete"].B);
  EXPECT_FALSE(J.has("stopped_at"));
  EXPECT_TRUE(J["all_correct"].B);
  EXPECT_EQ(J["nvidia_smi_after"].S, "Fake H200, 1980 MHz");
  // What writeFinal returns is the summary stored in the file.
  EXPECT_EQ(S.GeomeanRows, 2);
  EXPECT_EQ(J["summary"]["geomean_rows"].N, 2);
  EXPECT_NEAR(J["summary"]["geomean_ours_over_nvcc"].N, S.GeomeanOursOverNvcc, 1e-12);
  ASSERT_EQ(S.Spmv.size(), 1u);
  EXPECT_EQ(S.Spmv[0].Fastest, "spmv_scalar");
}

TEST_F(ResultsFileTest, AnUnwritableFolderIsAnErrorNamingTheFile) {
  ResultsFile R((Dir / "missing" / "r.json").string(), R"("gpu":{})");
  try {
    R.writeProgress("x");
    FAIL() << "no error";
  } catch (const std::exception &E) {
    EXPECT_NE(std::string(E.what()).find("missing/r.json.tmp"), std::string::npos) << E.what();
  }
}

} // namespace
