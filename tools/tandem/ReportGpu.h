//===- ReportGpu.h - gpu rows of `tandem report` from the runner's results -*- C++ -*-===//
//
// The lent GPU machine has no LLVM, so `tandem report` cannot run there: the
// gpu measurements arrive as the runner's gpu-results.json (docs/GPU.md).
// These functions turn that file, the bundle's manifest (workload sizes,
// timing specs, matrices) and a gpu profile into report rows: device "gpu",
// unit "ms", measured = our PTX's median, predicted by models/GpuModel.h,
// model_inputs "static" (no trace: the workload is described from sizes and
// matrix statistics).
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
llvm::Expected<GpuReportRows> gpuReportRows(llvm::StringRef ResultsPath, llvm::StringRef BundleDir,
                                            const models::GpuProfile &Profile);

/// The same from texts (tests); the names only label errors.
llvm::Expected<GpuReportRows> gpuReportRowsFromText(llvm::StringRef ResultsText,
                                                    llvm::StringRef ResultsName,
                                                    llvm::StringRef ManifestText,
                                                    llvm::StringRef BundleDir,
                                                    const models::GpuProfile &Profile);

/// profiles/h200-reference.json in the source tree.
llvm::StringRef referenceGpuProfilePath();

} // namespace tandem::cli
