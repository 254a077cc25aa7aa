//===- ReportGpuTest.cpp - gpu rows of the report from runner results -----===//
//
// tools/tandem/ReportGpu.h on handwritten fixtures (tests/data/
// gpu-results-fixture.json and gpu-bundle-fixture/; invented numbers, not
// measurements).

#include "ReportGpu.h"

#include "../../gpu/Sparse.h"

#include "sparse/Csr.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

using namespace tandem;
using namespace tandem::models;
using namespace tandem::cli;

namespace {

const std::string Data = TANDEM_TEST_DATA_DIR;
const std::string ResultsPath = Data + "/gpu-results-fixture.json";
const std::string BundleDir = Data + "/gpu-bundle-fixture";

GpuProfile measuredProfile() {
  llvm::Expected<GpuProfile> P =
      gpuProfileForReport(ResultsPath, "", referenceGpuProfilePath());
  if (!P) {
    ADD_FAILURE() << llvm::toString(P.takeError());
    return {};
  }
  return *P;
}

const ReportRow *findRow(const GpuReportRows &R, const std::string &Workload,
                         const std::string &Input) {
  for (const ReportRow &Row : R.Rows)
    if (Row.Workload == Workload && Row.Input == Input)
      return &Row;
  return nullptr;
}

double sumParts(const Breakdown &B) {
  return B.Compute + B.MemoryBandwidth + B.MemoryLatency + B.Synchronization +
         B.LoadImbalance + B.Launch;
}

TEST(ReportGpu, ProfileIsTheMeasuredOneOverTheReference) {
  GpuProfile P = measuredProfile();
  EXPECT_DOUBLE_EQ(P.LaunchOverheadSec, 4.25e-6); // the runner's
  EXPECT_DOUBLE_EQ(P.DramBytesPerSec, 3500e9);    // the runner's
  EXPECT_DOUBLE_EQ(P.FmaLatencyCycles, 4.08);     // not measured: the reference's
  EXPECT_EQ(P.Name, "fixture GPU (measured by the runner)");

  // An explicit profile wins; no results: the reference.
  llvm::Expected<GpuProfile> Ref =
      gpuProfileForReport("", "", referenceGpuProfilePath());
  ASSERT_TRUE(bool(Ref)) << llvm::toString(Ref.takeError());
  EXPECT_DOUBLE_EQ(Ref->LaunchOverheadSec, 3.5e-6);
  llvm::Expected<GpuProfile> Explicit =
      gpuProfileForReport(ResultsPath, referenceGpuProfilePath(), "/nonexistent.json");
  ASSERT_TRUE(bool(Explicit)) << llvm::toString(Explicit.takeError());
  EXPECT_DOUBLE_EQ(Explicit->DramBytesPerSec, 3980e9);
}

// With an iss run's counts, a kernel whose work a warp is size-free gets
// the issue term: the run's warp instructions a warp, scaled from simt to
// PTX by their static sizes (the fixture's vadd PTX has 10), times the
// GPU's warps, at the FMA probe's issue rate; the row says iss-assisted. A
// failed run leaves the row static, with a note.
TEST(ReportGpu, IssCountsGiveSizeFreeKernelsAnIssueTerm) {
  GpuProfile P = measuredProfile();
  int Calls = 0;
  IssCountsFn Iss = [&](llvm::StringRef Case) -> llvm::Expected<IssKernelCounts> {
    ++Calls;
    EXPECT_EQ(Case, "vadd");
    IssKernelCounts K;
    K.Warps = 100;
    K.WarpInstructions = 100 * 40000.0; // 40000 a warp: compute-bound
    K.StaticInstructions = 40;
    return K;
  };
  llvm::Expected<GpuReportRows> R = gpuReportRows(ResultsPath, BundleDir, P, Iss);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(Calls, 1); // vadd only: the SpMV rows have their statistics
  const ReportRow *V = findRow(*R, "vadd", "n=67108864");
  ASSERT_TRUE(V);
  EXPECT_EQ(V->ModelInputs, "iss-assisted");
  EXPECT_EQ(V->Bound, "compute");
  const double WarpInstructions = 67108864.0 / 32 * 40000 * 10 / 40;
  EXPECT_NEAR(V->Parts.Compute, WarpInstructions / P.warpInstructionsPerSec() * 1e3,
              1e-9 * V->Parts.Compute);
  EXPECT_EQ(findRow(*R, "spmv_scalar", "uniform 4096 rows, 16 per row")->ModelInputs, "static");

  IssCountsFn Failing = [](llvm::StringRef) -> llvm::Expected<IssKernelCounts> {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "iss said no");
  };
  llvm::Expected<GpuReportRows> F = gpuReportRows(ResultsPath, BundleDir, P, Failing);
  ASSERT_TRUE(bool(F)) << llvm::toString(F.takeError());
  EXPECT_EQ(findRow(*F, "vadd", "n=67108864")->ModelInputs, "static");
  bool Noted = false;
  for (const std::string &N : F->Notes)
    Noted |= N.find("vadd: no issue term (iss said no)") != std::string::npos;
  EXPECT_TRUE(Noted);
}

TEST(ReportGpu, StreamingRowIsMeasuredAndPredicted) {
  GpuProfile P = measuredProfile();
  llvm::Expected<GpuReportRows> R = gpuReportRows(ResultsPath, BundleDir, P);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  const ReportRow *V = findRow(*R, "vadd", "n=67108864");
  ASSERT_TRUE(V);
  EXPECT_EQ(V->Device, "gpu");
  EXPECT_EQ(V->Unit, "ms");
  EXPECT_EQ(V->ModelInputs, "static");
  EXPECT_EQ(V->Group, "generated");
  ASSERT_TRUE(V->Measured.has_value());
  EXPECT_DOUBLE_EQ(*V->Measured, 0.242);
  double N = 67108864;
  // Bytes at the runner's bandwidth, each thread's wait (no copy probes in
  // the fixture: a DRAM latency over the resident threads), one launch.
  double PerThread = 700 / 1980e6 / (132 * 64 * 32.0);
  EXPECT_NEAR(V->Predicted, (12 * N / 3500e9 + N * PerThread) * 1e3 + 4.25e-3, 1e-9);
  EXPECT_EQ(V->Bound, "memory bandwidth");
  EXPECT_NEAR(sumParts(V->Parts), V->Predicted, 1e-12);
  EXPECT_FALSE(V->TunedOn);
  ASSERT_FALSE(R->Notes.empty());
  EXPECT_NE(R->Notes[0].find("2 suite-size gpu cases left out"), std::string::npos)
      << R->Notes[0];
}

TEST(ReportGpu, SpmvRowsUseTheMatrixStatistics) {
  GpuProfile P = measuredProfile();
  llvm::Expected<GpuReportRows> R = gpuReportRows(ResultsPath, BundleDir, P);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_EQ(R->Rows.size(), 9u); // vadd + (3 SpMV kernels + SpMM) x 2 matrices

  // The synthetic matrix, regenerated from its spec and name as the runner
  // made it.
  const std::string Uniform = "uniform 4096 rows, 16 per row";
  gpu::Json Spec = gpu::JsonParser(
                       R"({"matrix": "uniform", "rows": 4096, "nnz_per_row": 16})")
                       .parse();
  ASSERT_EQ(gpu::syntheticName(Spec), Uniform);
  sparse::CsrMatrix A = tandem::cli::toSparseCsr(gpu::syntheticMatrix(Spec));
  sparse::MatrixStats S = sparse::computeStats(A, cacheShapeForL2(P));
  for (SpmvVariant V : {SpmvVariant::Scalar, SpmvVariant::Vector, SpmvVariant::Merge}) {
    const ReportRow *Row = findRow(*R, spmvVariantName(V).str(), Uniform);
    ASSERT_TRUE(Row) << spmvVariantName(V).str();
    Prediction Want = predictGpu(spmvWorkload(S, V, P), P);
    EXPECT_NEAR(Row->Predicted, Want.seconds(P.ClockHz) * 1e3, 1e-12);
    EXPECT_EQ(Row->Bound, Want.Bound);
    EXPECT_EQ(Row->Group, "generated");
    EXPECT_NEAR(sumParts(Row->Parts), Row->Predicted, 1e-12);
  }
  // The merge kernel failed in the fixture: predicted, not measured.
  EXPECT_FALSE(findRow(*R, "spmv_merge", Uniform)->Measured.has_value());
  EXPECT_DOUBLE_EQ(*findRow(*R, "spmv_scalar", Uniform)->Measured, 0.033);

  // The bundle's matrix file.
  llvm::Expected<sparse::CsrMatrix> B = sparse::loadCsr(BundleDir + "/matrices/banded.mtx");
  ASSERT_TRUE(bool(B)) << llvm::toString(B.takeError());
  sparse::MatrixStats SB = sparse::computeStats(*B, cacheShapeForL2(P));
  const ReportRow *Row = findRow(*R, "spmv_vector", "banded.mtx");
  ASSERT_TRUE(Row);
  EXPECT_EQ(Row->Group, "matrix");
  EXPECT_NEAR(Row->Predicted,
              predictGpu(spmvWorkload(SB, SpmvVariant::Vector, P), P).seconds(P.ClockHz) * 1e3,
              1e-12);
  EXPECT_DOUBLE_EQ(*Row->Measured, 0.012);
}

// SpMM rows: the matrix's statistics with B's rows as the gathered
// elements (cacheShapeForSpmm at the entry's dense_columns), the workload
// spmm_csr; the runner's skipped runs become notes.
TEST(ReportGpu, SpmmRowsUseTheStatisticsOfBsRows) {
  GpuProfile P = measuredProfile();
  llvm::Expected<GpuReportRows> R = gpuReportRows(ResultsPath, BundleDir, P);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  gpu::Json Spec = gpu::JsonParser(
                       R"({"matrix": "uniform", "rows": 4096, "nnz_per_row": 16})")
                       .parse();
  sparse::CsrMatrix A = tandem::cli::toSparseCsr(gpu::syntheticMatrix(Spec));
  sparse::MatrixStats S = sparse::computeStats(A, cacheShapeForSpmm(P, 32));
  const ReportRow *Row = findRow(*R, "spmm_csr", gpu::syntheticName(Spec));
  ASSERT_TRUE(Row);
  Prediction Want = predictGpu(spmmWorkload(S, 32, P), P);
  EXPECT_NEAR(Row->Predicted, Want.seconds(P.ClockHz) * 1e3, 1e-12);
  EXPECT_EQ(Row->Bound, Want.Bound);
  EXPECT_EQ(Row->Group, "generated");
  EXPECT_DOUBLE_EQ(*Row->Measured, 0.06);
  EXPECT_NEAR(sumParts(Row->Parts), Row->Predicted, 1e-12);
  // The SpMV rows of the same matrix keep SpMV's statistics.
  sparse::MatrixStats SpmvStats = sparse::computeStats(A, cacheShapeForL2(P));
  EXPECT_NEAR(findRow(*R, "spmv_scalar", gpu::syntheticName(Spec))->Predicted,
              predictGpu(spmvWorkload(SpmvStats, SpmvVariant::Scalar, P), P).seconds(P.ClockHz) *
                  1e3,
              1e-12);

  const ReportRow *Banded = findRow(*R, "spmm_csr", "banded.mtx");
  ASSERT_TRUE(Banded);
  EXPECT_EQ(Banded->Group, "matrix");
  EXPECT_DOUBLE_EQ(*Banded->Measured, 0.009);

  bool SkipNote = false;
  for (const std::string &N : R->Notes)
    SkipNote |= N.find("gpu runner skipped spmm_csr on 'uniform 4194304 rows") != std::string::npos;
  EXPECT_TRUE(SkipNote);

  // An SpMM entry without its columns is an error naming the file and matrix.
  const char *Manifest = R"({"timing": [], "matrices": ["matrices/banded.mtx"]})";
  const char *Results = R"({"timing": [{"case": "spmm_csr", "size": "m", "matrix": "banded.mtx",
                            "variants": {}}]})";
  llvm::Expected<GpuReportRows> Bad =
      gpuReportRowsFromText(Results, "r.json", Manifest, BundleDir, P);
  ASSERT_FALSE(bool(Bad));
  std::string Msg = llvm::toString(Bad.takeError());
  EXPECT_NE(Msg.find("r.json"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("dense_columns"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("'banded.mtx'"), std::string::npos) << Msg;
}

// A one-launch row whose host submit time the runner recorded is
// predicted with it in place of the launch probe's host time, the
// probe-only prediction kept beside it; merge path's two launches are not;
// without the probe's host time nothing changes.
TEST(ReportGpu, OneLaunchRowsTakeTheirHostSubmitTime) {
  std::ifstream In(ResultsPath);
  std::string Results((std::istreambuf_iterator<char>(In)), std::istreambuf_iterator<char>());
  auto WithHost = [&](std::string Text) {
    for (const char *Entry : {"\"ours\": {\"time\": {\"median_ms\": 0.0180",
                              "\"ours\": {\"time\": {\"median_ms\": 0.0150"}) {
      size_t At = Text.find(Entry);
      EXPECT_NE(At, std::string::npos) << Entry;
      Text.insert(At + std::string(Entry).size(), ", \"host_median_ms\": 0.009");
    }
    return Text;
  };
  std::ifstream M(BundleDir + "/manifest.json");
  std::string Manifest((std::istreambuf_iterator<char>(M)), std::istreambuf_iterator<char>());
  GpuProfile P = measuredProfile();
  P.LaunchLatencySec = 6e-6;
  P.LaunchHostSec = 4e-6;
  llvm::Expected<GpuReportRows> R =
      gpuReportRowsFromText(WithHost(Results), "r.json", Manifest, BundleDir, P);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  const ReportRow *Scalar = findRow(*R, "spmv_scalar", "banded.mtx");
  ASSERT_TRUE(Scalar);
  ASSERT_TRUE(Scalar->HostSubmitUs && Scalar->ProbeLaunchPredicted);
  EXPECT_DOUBLE_EQ(*Scalar->HostSubmitUs, 9);
  // 9 us of host time where the probe's was 4: 5 us (0.005 ms) more.
  EXPECT_NEAR(Scalar->Predicted - *Scalar->ProbeLaunchPredicted, 0.005, 1e-9);
  const ReportRow *Merge = findRow(*R, "spmv_merge", "banded.mtx");
  ASSERT_TRUE(Merge);
  EXPECT_FALSE(Merge->HostSubmitUs);
  bool Note = false;
  for (const std::string &N : R->Notes)
    Note |= N.find("1 one-launch gpu rows take the host's measured submit time") == 0;
  EXPECT_TRUE(Note);

  P.LaunchHostSec = 0;
  R = gpuReportRowsFromText(WithHost(Results), "r.json", Manifest, BundleDir, P);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  EXPECT_FALSE(findRow(*R, "spmv_scalar", "banded.mtx")->HostSubmitUs);
}

TEST(ReportGpu, AStoppedRunsRowsComeWithANoteSayingWhere) {
  GpuProfile P = measuredProfile();
  const char *Manifest = R"({"timing": [], "matrices": []})";
  const char *Stopped = R"({"complete": false, "stopped_at": "timing spmv_vector big",
                            "timing": [], "skipped": []})";
  llvm::Expected<GpuReportRows> R = gpuReportRowsFromText(Stopped, "r.json", Manifest, "b", P);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  bool Noted = false;
  for (const std::string &N : R->Notes)
    Noted |= N.find("stopped before it finished (at timing spmv_vector big)") != std::string::npos;
  EXPECT_TRUE(Noted);

  // A finished run's file has no such note.
  R = gpuReportRowsFromText(R"({"complete": true, "timing": []})", "r.json", Manifest, "b", P);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  for (const std::string &N : R->Notes)
    EXPECT_EQ(N.find("stopped"), std::string::npos) << N;
}

TEST(ReportGpu, ErrorsNameTheFileAndTheMatrix) {
  GpuProfile P = measuredProfile();
  const char *Manifest = R"({"timing": [], "matrices": []})";
  const char *Results = R"({"timing": [{"case": "spmv_scalar", "size": "m", "matrix": "lost.mtx",
                            "variants": {}}]})";
  llvm::Expected<GpuReportRows> R = gpuReportRowsFromText(Results, "r.json", Manifest, "b", P);
  ASSERT_FALSE(bool(R));
  std::string Msg = llvm::toString(R.takeError());
  EXPECT_NE(Msg.find("r.json"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("'lost.mtx'"), std::string::npos) << Msg;

  R = gpuReportRowsFromText("{\"timing\": [", "cut.json", Manifest, "b", P);
  ASSERT_FALSE(bool(R));
  Msg = llvm::toString(R.takeError());
  EXPECT_NE(Msg.find("cut.json"), std::string::npos) << Msg;

  R = gpuReportRows(Data + "/no-such-results.json", BundleDir, P);
  ASSERT_FALSE(bool(R));
  EXPECT_NE(llvm::toString(R.takeError()).find("no-such-results.json"), std::string::npos);
}

} // namespace
