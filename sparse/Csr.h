//===- Csr.h - Compressed sparse row matrices -------------------*- C++ -*-===//
//
// The form every sparse kernel reads (microbench/kernels/spmv*.cu, spmm.cu):
// RowPtr (Rows + 1 offsets), ColIdx and Values (one per stored nonzero),
// columns sorted and unique within each row. Values are fp32, as the
// devices compute in fp32.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "sparse/MatrixMarket.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace tandem::sparse {

struct CsrMatrix {
  uint32_t Rows = 0, Cols = 0;
  std::vector<uint32_t> RowPtr{0}; ///< Rows + 1 entries, RowPtr[0] == 0
  std::vector<uint32_t> ColIdx;
  std::vector<float> Values;

  uint64_t nnz() const { return ColIdx.size(); }
  uint32_t rowLength(uint32_t Row) const { return RowPtr[Row + 1] - RowPtr[Row]; }
};

/// Builds CSR from a coordinate matrix: mirrors the off-diagonal entries of
/// symmetric files (negated for skew-symmetric), sorts by (row, column), and
/// sums duplicate entries (the Matrix Market convention for assembly).
/// Explicit zeros stay stored. Fails only if the expanded matrix has more
/// than MaxEntries nonzeros.
llvm::Expected<CsrMatrix> toCsr(const CooMatrix &M);

/// readMatrixMarket + toCsr.
llvm::Expected<CsrMatrix> loadCsr(llvm::StringRef Path);

/// Checks the invariants above (sizes agree, offsets non-decreasing and
/// ending at nnz, columns in range, sorted and unique per row); for CSR that
/// comes from outside this library. \p Name names the matrix in the error.
llvm::Error verifyCsr(const CsrMatrix &A, llvm::StringRef Name);

} // namespace tandem::sparse
