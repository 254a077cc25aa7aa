//===- StaticInputs.cpp - What each workload's static estimate may read ---===//
//
// See StaticInputs.h. A table of workloads and the buffers (by the names the
// suite and the report give them) their static estimate may read, plus the
// merge path's carries computed on the host.
//
//===----------------------------------------------------------------------===//

#include "StaticInputs.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>

using namespace llvm;

namespace tandem::models {
namespace {

struct WorkloadReads {
  StringRef Workloads; ///< comma-separated names (suite case or report variant)
  SmallVector<StringRef, 2> Buffers;
  bool MergeCarries = false;
  StringRef Note;
};

/// The workloads that read input data, and what they read.
ArrayRef<WorkloadReads> table() {
  static const WorkloadReads Table[] = {
      {"spmv_scalar,spmv_vector,spmm", {"rowPtr", "colIdx"}, false,
       "the matrix's rowPtr and colIdx (row loops' trip counts, the x or B gathers' "
       "addresses)"},
      {"spmv_merge,spmv_balanced", {"rowPtr", "colIdx"}, true,
       "the matrix's rowPtr and colIdx, and each slice's carry row from the merge-path "
       "search replayed on the host on rowPtr (the fixup's loop)"},
      {"histogram", {"in"}, false, "the input words (each element's bin)"},
      {"divergent", {"in"}, false,
       "the input words (the branches, the inner loop's and the Collatz loop's trip "
       "counts)"},
  };
  return Table;
}

const WorkloadReads *readsOf(StringRef Workload) {
  for (const WorkloadReads &R : table()) {
    SmallVector<StringRef, 4> Names;
    R.Workloads.split(Names, ',');
    if (is_contained(Names, Workload))
      return &R;
  }
  return nullptr;
}

InputRegion regionOf(const HostBuffer &B) {
  return {B.Name, B.Address, std::make_shared<const std::vector<uint32_t>>(B.Words.vec())};
}

/// The spmv_merge launch's carry rows as a region at its carryRow buffer
/// (parameter words: rows, nnz, rowPtr, colIdx, vals, x, y, itemsPerThread,
/// carryRow, carryVal); nullopt when there is no such launch.
std::optional<InputRegion> carryRegion(ArrayRef<HostBuffer> Buffers,
                                       ArrayRef<StaticLaunch> Launches) {
  const HostBuffer *RowPtr = nullptr;
  for (const HostBuffer &B : Buffers)
    if (B.Name == "rowPtr")
      RowPtr = &B;
  for (const StaticLaunch &L : Launches) {
    if (L.Kernel != "spmv_merge" || L.ParamWords.size() < 10 || !RowPtr)
      continue;
    uint32_t Threads = L.Grid[0] * L.Grid[1] * L.Grid[2] * L.Block[0] * L.Block[1] * L.Block[2];
    InputRegion R;
    R.Name = "carryRow (host merge-path search)";
    R.Base = L.ParamWords[8];
    R.Words = std::make_shared<const std::vector<uint32_t>>(
        mergeCarryRows(RowPtr->Words, Threads, L.ParamWords[7]));
    return R;
  }
  return std::nullopt;
}

} // namespace

std::vector<uint32_t> mergeCarryRows(ArrayRef<uint32_t> RowPtr, uint32_t Threads,
                                     uint32_t ItemsPerThread) {
  const uint32_t Rows = RowPtr.empty() ? 0 : uint32_t(RowPtr.size() - 1);
  const uint64_t Total = uint64_t(Rows) + (RowPtr.empty() ? 0 : RowPtr.back());
  std::vector<uint32_t> Carry(Threads);
  uint32_t Row = 0;
  uint64_t Nz = 0; // the merge, walked once across all slices
  for (uint32_t T = 0; T < Threads; ++T) {
    const uint64_t End = std::min<uint64_t>(uint64_t(T + 1) * ItemsPerThread, Total);
    while (Row + Nz < End) {
      if (Nz < RowPtr[Row + 1])
        ++Nz;
      else
        ++Row; // a row end comes before a nonzero at the same position
    }
    Carry[T] = Row;
  }
  return Carry;
}

InputModel workloadInputs(StringRef Workload, ArrayRef<HostBuffer> Buffers,
                          ArrayRef<StaticLaunch> Launches) {
  InputModel M;
  const WorkloadReads *Reads = readsOf(Workload);
  if (!Reads)
    return M;
  for (const HostBuffer &B : Buffers)
    if (is_contained(Reads->Buffers, StringRef(B.Name)))
      M.Regions.push_back(regionOf(B));
  if (Reads->MergeCarries)
    if (std::optional<InputRegion> Carries = carryRegion(Buffers, Launches))
      M.Regions.push_back(std::move(*Carries));
  return M;
}

std::vector<std::string> staticInputNotes() {
  std::vector<std::string> Out;
  for (const WorkloadReads &R : table())
    Out.push_back(("static estimate of " + R.Workloads + " reads " + R.Note +
                   "; no device-computed or float value")
                      .str());
  return Out;
}

} // namespace tandem::models
