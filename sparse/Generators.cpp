//===- Generators.cpp - Seeded synthetic sparse matrices ------------------===//
//
// Each generator validates its parameters, bounds the nonzero count (at most
// MaxEntries) before reserving, then fills CSR row by row from one
// std::mt19937_64 stream seeded with the caller's seed.
//
//===----------------------------------------------------------------------===//

#include "sparse/Generators.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <random>

using namespace llvm;

namespace tandem::sparse {

namespace {

/// Platform-independent draws from mt19937_64.
class Rng {
public:
  explicit Rng(uint64_t Seed) : Engine(Seed) {}
  /// Uniform in [0, N), N > 0 (Lemire's multiply-shift; the bias is below
  /// 2^-32 for the sizes used here).
  uint64_t below(uint64_t N) {
    return uint64_t((unsigned __int128)Engine() * N >> 64);
  }
  /// Uniform in [0, 1) with 53 random bits.
  double unit() { return double(Engine() >> 11) * 0x1.0p-53; }
  /// Uniform in [-1, 1), never 0 (a stored zero would hide errors).
  float value() {
    for (;;) {
      float V = float(2.0 * unit() - 1.0);
      if (V != 0.0f)
        return V;
    }
  }

private:
  std::mt19937_64 Engine;
};

Error paramError(StringRef Generator, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), Generator + " generator: " + Msg);
}

Error checkNnz(StringRef Generator, uint64_t Nnz) {
  if (Nnz > MaxEntries)
    return paramError(Generator, "the matrix would have " + Twine(Nnz) +
                                     " nonzeros; at most " + Twine(MaxEntries) +
                                     " are supported");
  return Error::success();
}

CsrMatrix emptyMatrix(uint32_t Rows, uint32_t Cols, uint64_t ReserveNnz) {
  CsrMatrix A;
  A.Rows = Rows;
  A.Cols = Cols;
  A.RowPtr.assign(size_t(Rows) + 1, 0);
  A.ColIdx.reserve(ReserveNnz);
  A.Values.reserve(ReserveNnz);
  return A;
}

/// Appends \p Count distinct columns of [0, Cols), sorted, to row \p Row
/// (Robert Floyd's sampling: Count draws whatever Count / Cols is).
void appendRandomRow(CsrMatrix &A, Rng &R, uint32_t Row, uint32_t Count) {
  std::vector<uint32_t> Cols;
  Cols.reserve(Count);
  DenseSet<uint32_t> Taken;
  for (uint32_t J = A.Cols - Count; J < A.Cols; ++J) {
    uint32_t T = uint32_t(R.below(uint64_t(J) + 1));
    uint32_t Pick = Taken.insert(T).second ? T : J;
    if (Pick == J)
      Taken.insert(J);
    Cols.push_back(Pick);
  }
  std::sort(Cols.begin(), Cols.end());
  for (uint32_t C : Cols) {
    A.ColIdx.push_back(C);
    A.Values.push_back(R.value());
  }
  A.RowPtr[Row + 1] = A.RowPtr[Row] + Count;
}

} // namespace

Expected<CsrMatrix> generateUniform(uint64_t Seed, uint32_t Rows, uint32_t Cols,
                                    uint32_t NnzPerRow) {
  if (Rows > MaxDimension || Cols > MaxDimension)
    return paramError("uniform", "rows and cols must be at most " + Twine(MaxDimension));
  if (NnzPerRow > Cols)
    return paramError("uniform", "nnz per row (" + Twine(NnzPerRow) + ") exceeds cols (" +
                                     Twine(Cols) + ")");
  uint64_t Nnz = uint64_t(Rows) * NnzPerRow;
  if (Error E = checkNnz("uniform", Nnz))
    return E;
  Rng R(Seed);
  CsrMatrix A = emptyMatrix(Rows, Cols, Nnz);
  for (uint32_t Row = 0; Row < Rows; ++Row)
    appendRandomRow(A, R, Row, NnzPerRow);
  return A;
}

Expected<CsrMatrix> generatePowerLaw(uint64_t Seed, uint32_t Rows, uint32_t Cols,
                                     double Exponent, uint32_t MinRowLength,
                                     uint32_t MaxRowLength) {
  if (Rows > MaxDimension || Cols > MaxDimension)
    return paramError("power-law", "rows and cols must be at most " + Twine(MaxDimension));
  if (!(Exponent >= 0 && Exponent <= 100))
    return paramError("power-law", "exponent must be in [0, 100], got " + formatv("{0}", Exponent));
  if (MinRowLength > MaxRowLength)
    return paramError("power-law", "min row length " + Twine(MinRowLength) +
                                       " exceeds max row length " + Twine(MaxRowLength));
  if (MaxRowLength > Cols)
    return paramError("power-law", "max row length " + Twine(MaxRowLength) +
                                       " exceeds cols (" + Twine(Cols) + ")");
  // The worst case bounds the allocation before any row is drawn.
  if (Error E = checkNnz("power-law", uint64_t(Rows) * MaxRowLength))
    return E;

  // Inverse-CDF table over the allowed lengths.
  std::vector<double> Cdf;
  Cdf.reserve(MaxRowLength - MinRowLength + 1);
  double Total = 0;
  for (uint64_t K = MinRowLength; K <= MaxRowLength; ++K)
    Cdf.push_back(Total += std::pow(double(K) + 1.0, -Exponent));
  Rng R(Seed);
  std::vector<uint32_t> Lengths(Rows);
  uint64_t Nnz = 0;
  for (uint32_t &L : Lengths) {
    double U = R.unit() * Total;
    size_t I = std::upper_bound(Cdf.begin(), Cdf.end(), U) - Cdf.begin();
    L = MinRowLength + uint32_t(std::min(I, Cdf.size() - 1));
    Nnz += L;
  }
  CsrMatrix A = emptyMatrix(Rows, Cols, Nnz);
  for (uint32_t Row = 0; Row < Rows; ++Row)
    appendRandomRow(A, R, Row, Lengths[Row]);
  return A;
}

Expected<CsrMatrix> generateBanded(uint64_t Seed, uint32_t N, uint32_t HalfBandwidth) {
  if (N > MaxDimension)
    return paramError("banded", "n must be at most " + Twine(MaxDimension));
  uint64_t Diagonals = 2 * uint64_t(HalfBandwidth) + 1;
  if (Error E = checkNnz("banded", uint64_t(N) * std::min<uint64_t>(Diagonals, N)))
    return E;
  Rng R(Seed);
  CsrMatrix A = emptyMatrix(N, N, uint64_t(N) * std::min<uint64_t>(Diagonals, N));
  for (uint32_t Row = 0; Row < N; ++Row) {
    uint32_t First = Row > HalfBandwidth ? Row - HalfBandwidth : 0;
    uint32_t Last = uint32_t(std::min<uint64_t>(uint64_t(Row) + HalfBandwidth, N - 1));
    for (uint32_t C = First; C <= Last; ++C) {
      A.ColIdx.push_back(C);
      A.Values.push_back(R.value());
    }
    A.RowPtr[Row + 1] = A.RowPtr[Row] + (Last - First + 1);
  }
  return A;
}

Expected<CsrMatrix> generateBlockDiagonal(uint64_t Seed, uint32_t N, uint32_t BlockSize,
                                          double Density) {
  if (N > MaxDimension)
    return paramError("block-diagonal", "n must be at most " + Twine(MaxDimension));
  if (BlockSize == 0)
    return paramError("block-diagonal", "block size must be at least 1");
  if (!(Density > 0 && Density <= 1))
    return paramError("block-diagonal", "density must be in (0, 1], got " + formatv("{0}", Density));
  uint64_t Worst = uint64_t(N) * std::min(BlockSize, N);
  if (Error E = checkNnz("block-diagonal", Worst))
    return E;
  Rng R(Seed);
  CsrMatrix A = emptyMatrix(N, N, uint64_t(double(Worst) * Density) + 1);
  for (uint32_t Row = 0; Row < N; ++Row) {
    uint32_t First = Row / BlockSize * BlockSize;
    uint32_t End = uint32_t(std::min<uint64_t>(uint64_t(First) + BlockSize, N));
    uint32_t Count = 0;
    for (uint32_t C = First; C < End; ++C) {
      if (R.unit() >= Density)
        continue;
      A.ColIdx.push_back(C);
      A.Values.push_back(R.value());
      ++Count;
    }
    A.RowPtr[Row + 1] = A.RowPtr[Row] + Count;
  }
  return A;
}

} // namespace tandem::sparse
