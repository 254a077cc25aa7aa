//===- GpuModelReference.cpp - The gpu model on the guide's SpMV numbers ---===//
//
//   tandem-gpu-model-reference [PROFILE.json]
//
// Not a test: prints the gpu model's predictions for the runner's synthetic
// matrices (three 4M-row SpMV ones, two 128K-row SpMM ones, regenerated
// exactly as the runner makes them: gpu/Sparse.h, seed from the name) next
// to the single measurements
// of ../shared/DESIGN.md ("Reference numbers (H200 ...)"), which are the
// guide's, not ours. docs/NOTES.md records its output. About two minutes
// on the 2-core VM (the LRU statistics of 50-67M nonzeros).
//
//===----------------------------------------------------------------------===//

#include "GpuModel.h"
#include "ReportGpu.h"

#include "../../gpu/Sparse.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdio>

using namespace tandem;
using namespace tandem::models;

int main(int Argc, char **Argv) {
  llvm::Expected<GpuProfile> P =
      loadGpuProfile(Argc > 1 ? Argv[1] : TANDEM_GPU_REFERENCE_PROFILE);
  if (!P) {
    llvm::errs() << "tandem-gpu-model-reference: " << llvm::toString(P.takeError()) << "\n";
    return 1;
  }
  // The csr specs of tools/tandem/SuiteExportCommand.cpp (timingSpecs), and
  // the guide's numbers for them (scalar, vector; negative: none given).
  // SpMM runs on every one of them (rows on blockIdx.x,
  // microbench/SpmmShape.h); the guide has no SpMM numbers, so those
  // predictions are written down before any measurement.
  struct Case {
    const char *Spec;
    double DesignScalarMs, DesignVectorMs;
  };
  const Case Cases[] = {
      {R"({"matrix": "uniform", "rows": 4194304, "nnz_per_row": 16})", 0.543, -1},
      {R"({"matrix": "powerlaw", "rows": 4194304, "nnz_per_row": 12, "exponent": 1.2})", 15.0,
       1.27},
      {R"({"matrix": "banded", "rows": 4194304, "bandwidth": 13})", 0.153, -1},
      {R"({"matrix": "uniform", "rows": 131072, "nnz_per_row": 16})", -1, -1},
      {R"({"matrix": "powerlaw", "rows": 131072, "nnz_per_row": 12, "exponent": 1.2})", -1, -1},
  };
  const double MsPerCycle = 1e3 / P->ClockHz;
  auto PrintPrediction = [&](const std::string &Kernel, const GpuWorkload &W, double Design) {
    Prediction Pr = predictGpu(W, *P);
    const Breakdown &B = Pr.Parts;
    std::printf("  %-12s predicted %8.3f ms  (%-16s compute %.3f, bandwidth %.3f, latency "
                "%.3f, imbalance %.3f, launch %.4f; DRAM %.0f MB, L2-only %.0f MB)",
                Kernel.c_str(), Pr.Cycles * MsPerCycle, Pr.Bound.c_str(), B.Compute * MsPerCycle,
                B.MemoryBandwidth * MsPerCycle, B.MemoryLatency * MsPerCycle,
                B.LoadImbalance * MsPerCycle, B.Launch * MsPerCycle, W.DramBytes / 1e6,
                W.L2OnlyBytes / 1e6);
    if (Design > 0)
      std::printf("  guide: %.3f ms (%+.0f%%)", Design,
                  (Pr.Cycles * MsPerCycle - Design) / Design * 100);
    std::printf("\n");
  };
  for (const Case &C : Cases) {
    gpu::Json Spec = gpu::JsonParser(C.Spec).parse();
    std::string Name = gpu::syntheticName(Spec);
    sparse::CsrMatrix A = tandem::cli::toSparseCsr(gpu::syntheticMatrix(Spec));
    sparse::MatrixStats S = sparse::computeStats(A, cacheShapeForL2(*P));
    std::printf("%s: nnz %llu, longest row %u, window imbalance %.2f, x sectors per window "
                "%.1f, x L2 misses %llu\n",
                Name.c_str(), (unsigned long long)S.Nnz, S.RowLengthMax, S.WindowImbalance,
                S.LinesPerWindow, (unsigned long long)S.XMisses);
    for (SpmvVariant V : {SpmvVariant::Scalar, SpmvVariant::Vector, SpmvVariant::Merge}) {
      double Design = V == SpmvVariant::Scalar   ? C.DesignScalarMs
                      : V == SpmvVariant::Vector ? C.DesignVectorMs
                                                 : -1;
      PrintPrediction(spmvVariantName(V).str(), spmvWorkload(S, V, *P), Design);
    }
    const unsigned Columns = 32; // suite::ReportSpmmColumns, the bundle's spmm_columns
    sparse::MatrixStats SB = sparse::computeStats(A, cacheShapeForSpmm(*P, Columns));
    std::printf("  spmm_csr, %u columns: B rows per block %.1f, B row reads missing the L2 %llu "
                "(B has %llu rows)\n",
                Columns, SB.LinesPerWindow, (unsigned long long)SB.XMisses,
                (unsigned long long)SB.XLines);
    PrintPrediction("spmm_csr", spmmWorkload(SB, Columns, *P), -1);
  }
  return 0;
}
