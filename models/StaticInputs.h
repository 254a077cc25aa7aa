//===- StaticInputs.h - What each workload's static estimate may read -*- C++ -*-===//
//
// The input statistics the purely static estimate (StaticEstimate.h) uses
// per workload: integer input data the host holds before the launches, and
// results the host computes from it, never a value a device computed and
// never float data. The line between the two estimates of the report:
//   * iss-assisted: counts and addresses from the iss trace of the launch;
//   * static: the machine code walked per warp on the launch's values plus,
//     for the workloads below, these host-side inputs:
//       spmv_scalar, spmv_vector, spmm      the matrix's rowPtr and colIdx;
//       spmv_merge (spmv_balanced)          rowPtr, colIdx, and each merge
//                                           slice's carry row, found on the
//                                           host by the merge-path search
//                                           on rowPtr;
//       histogram                           the input words (their bins);
//       divergent                           the input words (branches, the
//                                           inner loop's and the Collatz
//                                           loop's trip counts).
// Every other workload gets no input data: its static estimate uses the
// launch alone, or has none and says why.
//
// Input invariants: the buffers are the workload's, before its first
// launch, at the device addresses the runtime gives them. Guarantees: the
// regions only hold the named buffers (and host-computed carries); a
// workload not in the list gets an empty model.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "StaticEstimate.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tandem::models {

/// One of a workload's buffers as the host holds it before the launches.
struct HostBuffer {
  std::string Name;
  uint32_t Address = 0; ///< its device address
  llvm::ArrayRef<uint32_t> Words;
};

/// The input data \p Workload's static estimate may read (the file
/// comment), for the launches \p Launches (the merge's slices come from the
/// spmv_merge launch's grid and parameters). Empty for other workloads.
InputModel workloadInputs(llvm::StringRef Workload, llvm::ArrayRef<HostBuffer> Buffers,
                          llvm::ArrayRef<StaticLaunch> Launches);

/// One line per workload that reads input data, saying what it reads (for
/// the report's notes).
std::vector<std::string> staticInputNotes();

/// The merge path replayed on the host (docs/Sparse.md): for each of
/// \p Threads slices of \p ItemsPerThread items of the merge of rowPtr's
/// row ends with the nonzeros (a row end before a nonzero at the same
/// position), the row the slice stops in (rows when it stops at the end).
std::vector<uint32_t> mergeCarryRows(llvm::ArrayRef<uint32_t> RowPtr, uint32_t Threads,
                                     uint32_t ItemsPerThread);

} // namespace tandem::models
