//===- Csr.cpp - Coordinate to CSR ----------------------------------------===//
//
// Input: a CooMatrix from the reader (indices in range, one triangle for the
// symmetric kinds). Output: CSR satisfying verifyCsr. Expansion happens
// before sorting so that a mirrored entry and a stored one at the same
// position are merged like any other duplicate.
//
//===----------------------------------------------------------------------===//

#include "sparse/Csr.h"

#include "llvm/ADT/Twine.h"

#include <algorithm>

using namespace llvm;

namespace tandem::sparse {

namespace {

Error csrError(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Msg);
}

/// The stored entries plus their mirror images.
Expected<std::vector<Entry>> expandSymmetry(const CooMatrix &M) {
  if (M.S == Symmetry::General)
    return M.Entries;
  uint64_t OffDiagonal = 0;
  for (const Entry &E : M.Entries)
    OffDiagonal += E.Row != E.Col;
  if (M.Entries.size() + OffDiagonal > MaxEntries)
    return csrError("the " + symmetryName(M.S) + " matrix has " +
                    Twine(M.Entries.size() + OffDiagonal) +
                    " nonzeros after expansion; at most " + Twine(MaxEntries) +
                    " are supported");
  const double Sign = M.S == Symmetry::SkewSymmetric ? -1.0 : 1.0;
  std::vector<Entry> All;
  All.reserve(M.Entries.size() + OffDiagonal);
  for (const Entry &E : M.Entries) {
    All.push_back(E);
    if (E.Row != E.Col)
      All.push_back({E.Col, E.Row, Sign * E.Value});
  }
  return All;
}

} // namespace

Expected<CsrMatrix> toCsr(const CooMatrix &M) {
  Expected<std::vector<Entry>> Expanded = expandSymmetry(M);
  if (!Expanded)
    return Expanded.takeError();
  std::vector<Entry> &All = *Expanded;
  // Stable, so duplicates are summed in file order: the same input always
  // gives the same fp32 values.
  std::stable_sort(All.begin(), All.end(), [](const Entry &A, const Entry &B) {
    return A.Row != B.Row ? A.Row < B.Row : A.Col < B.Col;
  });

  CsrMatrix A;
  A.Rows = M.Rows;
  A.Cols = M.Cols;
  A.RowPtr.assign(size_t(M.Rows) + 1, 0);
  A.ColIdx.reserve(All.size());
  A.Values.reserve(All.size());
  double Sum = 0;
  for (size_t I = 0; I < All.size(); ++I) {
    Sum += All[I].Value;
    bool LastOfPosition = I + 1 == All.size() || All[I + 1].Row != All[I].Row ||
                          All[I + 1].Col != All[I].Col;
    if (!LastOfPosition)
      continue;
    A.ColIdx.push_back(All[I].Col);
    A.Values.push_back(float(Sum));
    ++A.RowPtr[All[I].Row + 1];
    Sum = 0;
  }
  for (uint32_t R = 0; R < M.Rows; ++R)
    A.RowPtr[R + 1] += A.RowPtr[R];
  return A;
}

Expected<CsrMatrix> loadCsr(StringRef Path) {
  Expected<CooMatrix> M = readMatrixMarket(Path);
  if (!M)
    return M.takeError();
  Expected<CsrMatrix> A = toCsr(*M);
  if (!A)
    return createStringError(inconvertibleErrorCode(),
                             Path + ": " + toString(A.takeError()));
  return A;
}

Error verifyCsr(const CsrMatrix &A, StringRef Name) {
  auto Fail = [&](const Twine &Msg) { return csrError("CSR matrix '" + Name + "': " + Msg); };
  if (A.RowPtr.size() != size_t(A.Rows) + 1)
    return Fail("RowPtr has " + Twine(A.RowPtr.size()) + " entries, expected rows + 1 = " +
                Twine(uint64_t(A.Rows) + 1));
  if (A.ColIdx.size() != A.Values.size())
    return Fail(Twine(A.ColIdx.size()) + " column indices but " + Twine(A.Values.size()) +
                " values");
  if (A.RowPtr[0] != 0 || A.RowPtr[A.Rows] != A.ColIdx.size())
    return Fail("RowPtr must run from 0 to nnz = " + Twine(A.ColIdx.size()) + ", but runs from " +
                Twine(A.RowPtr[0]) + " to " + Twine(A.RowPtr[A.Rows]));
  for (uint32_t R = 0; R < A.Rows; ++R) {
    if (A.RowPtr[R + 1] < A.RowPtr[R] || A.RowPtr[R + 1] > A.ColIdx.size())
      return Fail("RowPtr[" + Twine(R + 1) + "] = " + Twine(A.RowPtr[R + 1]) +
                  " is below RowPtr[" + Twine(R) + "] or above nnz");
    for (uint32_t J = A.RowPtr[R]; J < A.RowPtr[R + 1]; ++J) {
      if (A.ColIdx[J] >= A.Cols)
        return Fail("row " + Twine(R) + " has column " + Twine(A.ColIdx[J]) + " >= cols " +
                    Twine(A.Cols));
      if (J > A.RowPtr[R] && A.ColIdx[J] <= A.ColIdx[J - 1])
        return Fail("row " + Twine(R) + " has columns out of order or repeated at " +
                    Twine(A.ColIdx[J]));
    }
  }
  return Error::success();
}

} // namespace tandem::sparse
