//===- ReportGpu.h - gpu rows of `tandem report` from the runner's results -*- C++ -*-===//
//
// The lent GPU machine has no LLVM, so `tandem report` cannot run there: the
// gpu measurements arrive as the runner's gpu-results.json (docs/GPU.md).
// These functions turn that file, the bundle's manifest (workload sizes,
// timing specs, matrices) and a gpu profile into report rows: device "gpu",
// unit "ms", measured = our PTX's median, predicted by models/GpuModel.h,
// model_inputs "static" (the workload is described from sizes and matrix
// statistics) or, where an iss run's warp instructions give the issue term,
// "iss-assisted". A row of one launch whose host submit time the runner
// recorded takes it in place of the launch probe's host time
// (host_submit_us; predicted_probe_launch is the prediction without it).
//
// Rows are made for the large timing problems and every SpMV matrix; the
// suite-size cases (microseconds, launch-bound) are left out with a note.
// Synthetic SpMV matrices are regenerated from their spec and seed
// (gpu/Sparse.h, as the runner made them) to compute their statistics;
// 4M-row ones take tens of seconds each.
//
// Input invariants: the results and manifest follow the schemas the runner
// and suite-export write; anything else is an error naming the file.
// Guarantees: each row's breakdown is in ms and sums to its prediction.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "GpuModel.h"
#include "Report.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <string>
#include <vector>

namespace tandem::gpu {
struct Csr;
} // namespace tandem::gpu

namespace tandem::sparse {
struct CsrMatrix;
} // namespace tandem::sparse

namespace tandem::cli {

/// The runner's CSR (gpu/Sparse.h, no LLVM) as the sparse library's, for
/// its statistics.
sparse::CsrMatrix toSparseCsr(const gpu::Csr &A);

/// What an iss run of a suite case counted, for the gpu model's issue term
/// (`tandem report` compiles the case for simt and runs it; tests pass
/// their own).
struct IssKernelCounts {
  double WarpInstructions = 0;   ///< issued, all warps of the run
  double Warps = 0;              ///< warps launched
  double StaticInstructions = 0; ///< the simt kernel's code words
};
using IssCountsFn = std::function<llvm::Expected<IssKernelCounts>(llvm::StringRef Case)>;

struct GpuReportRows {
  std::vector<models::ReportRow> Rows;
  std::vector<std::string> Notes; ///< what was left out, and why
};

/// The profile for a report: \p ProfilePath if not empty; else the
/// results' measured "profile" object over the reference profile
/// \p ReferencePath (numbers the runner did not measure keep the
/// reference's); else the reference itself.
llvm::Expected<models::GpuProfile> gpuProfileForReport(llvm::StringRef ResultsPath,
                                                       llvm::StringRef ProfilePath,
                                                       llvm::StringRef ReferencePath);

/// The gpu rows of \p ResultsPath (the runner's results) for the bundle in
/// \p BundleDir (its manifest.json and matrices/), predicted with \p Profile.
/// With \p Iss, the kernels whose work a warp does not grow with the
/// problem (perWarpWorkIsSizeFree) get an issue term from its counts,
/// scaled from our simt code to our PTX by their static sizes: those rows
/// are "iss-assisted", the others "static".
llvm::Expected<GpuReportRows> gpuReportRows(llvm::StringRef ResultsPath, llvm::StringRef BundleDir,
                                            const models::GpuProfile &Profile,
                                            const IssCountsFn &Iss = nullptr);

/// The same from texts (tests); the names only label errors.
llvm::Expected<GpuReportRows> gpuReportRowsFromText(llvm::StringRef ResultsText,
                                                    llvm::StringRef ResultsName,
                                                    llvm::StringRef ManifestText,
                                                    llvm::StringRef BundleDir,
                                                    const models::GpuProfile &Profile,
                                                    const IssCountsFn &Iss = nullptr);

/// True for the suite kernels whose work a warp does not depend on the
/// problem size (a thread an element or a tile), so a suite-size iss run's
/// warp instructions a warp hold at the GPU's size.
bool perWarpWorkIsSizeFree(llvm::StringRef Case);

/// profiles/h200-reference.json in the source tree.
llvm::StringRef referenceGpuProfilePath();

} // namespace tandem::cli
