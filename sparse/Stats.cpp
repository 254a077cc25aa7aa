//===- Stats.cpp - Matrix statistics for sparse performance models --------===//
//
// One pass over the rows for the length and position figures, one pass over
// the x access stream for the cache figures. LRU stack distances are exact:
// a Fenwick tree over access times marks, for every line, the time of its
// latest access; the distance of an access is the number of marks after the
// line's previous access (O(nnz log nnz)).
//
//===----------------------------------------------------------------------===//

#include "sparse/Stats.h"

#include "llvm/Support/Format.h"

#include <algorithm>
#include <cmath>

using namespace llvm;

namespace tandem::sparse {

namespace {

uint32_t nearestRank(const std::vector<uint32_t> &Sorted, double Fraction) {
  if (Sorted.empty())
    return 0;
  size_t Rank = size_t(std::ceil(Fraction * double(Sorted.size())));
  return Sorted[std::clamp<size_t>(Rank, 1, Sorted.size()) - 1];
}

void rowLengthStats(const CsrMatrix &A, MatrixStats &S) {
  std::vector<uint32_t> Len(A.Rows);
  double Sum = 0, SumSq = 0;
  for (uint32_t R = 0; R < A.Rows; ++R) {
    Len[R] = A.rowLength(R);
    Sum += Len[R];
    SumSq += double(Len[R]) * Len[R];
    S.EmptyRows += Len[R] == 0;
  }
  if (A.Rows == 0)
    return;
  S.RowLengthMean = Sum / A.Rows;
  S.RowLengthStddev =
      std::sqrt(std::max(0.0, SumSq / A.Rows - S.RowLengthMean * S.RowLengthMean));
  S.RowLengthCv = S.RowLengthMean > 0 ? S.RowLengthStddev / S.RowLengthMean : 0;

  double Imbalance = 0;
  unsigned Windows = 0;
  for (uint32_t First = 0; First < A.Rows; First += S.Cache.RowWindow) {
    uint32_t End = std::min<uint64_t>(uint64_t(First) + S.Cache.RowWindow, A.Rows);
    uint32_t Max = *std::max_element(Len.begin() + First, Len.begin() + End);
    double Mean = double(A.RowPtr[End] - A.RowPtr[First]) / (End - First);
    Imbalance += Mean > 0 ? Max / Mean : 1.0;
    ++Windows;
  }
  S.WindowImbalance = Imbalance / Windows;

  std::sort(Len.begin(), Len.end());
  S.RowLengthMin = Len.front();
  S.RowLengthMax = Len.back();
  S.RowLengthP50 = nearestRank(Len, 0.50);
  S.RowLengthP90 = nearestRank(Len, 0.90);
  S.RowLengthP99 = nearestRank(Len, 0.99);
}

void positionStats(const CsrMatrix &A, MatrixStats &S) {
  double Span = 0;
  uint32_t NonEmpty = 0;
  for (uint32_t R = 0; R < A.Rows; ++R) {
    if (A.rowLength(R) == 0)
      continue;
    uint32_t First = A.ColIdx[A.RowPtr[R]], Last = A.ColIdx[A.RowPtr[R + 1] - 1];
    Span += double(Last) - First + 1;
    ++NonEmpty;
    // Columns are sorted: the extremes give the largest distance.
    uint32_t Far = std::max(R > First ? R - First : First - R, R > Last ? R - Last : Last - R);
    S.Bandwidth = std::max(S.Bandwidth, Far);
  }
  S.MeanRowSpan = NonEmpty ? Span / NonEmpty : 0;
}

/// Counts marks at positions <= I (1-based Fenwick tree).
class Fenwick {
public:
  explicit Fenwick(size_t N) : Tree(N + 1, 0) {}
  void add(size_t I, int V) {
    for (++I; I < Tree.size(); I += I & -I)
      Tree[I] += V;
  }
  int64_t prefix(size_t I) const { // sum over [0, I]
    int64_t S = 0;
    for (++I; I > 0; I -= I & -I)
      S += Tree[I];
    return S;
  }

private:
  std::vector<int64_t> Tree;
};

void xAccessStats(const CsrMatrix &A, MatrixStats &S) {
  const CacheShape &C = S.Cache;
  const uint64_t ElemsPerLine = std::max<uint32_t>(1, C.LineBytes / C.ElementBytes);
  const uint64_t CapacityLines = std::max<uint64_t>(1, C.CapacityBytes / C.LineBytes);
  S.XLines = (uint64_t(A.Cols) + ElemsPerLine - 1) / ElemsPerLine;
  auto lineOf = [&](uint32_t Col) { return Col / ElemsPerLine; };

  // Stack distances over the stream.
  constexpr uint64_t Never = UINT64_MAX;
  std::vector<uint64_t> LastTouch(S.XLines, Never);
  Fenwick Marks(A.nnz());
  std::vector<uint32_t> Distances;
  Distances.reserve(A.nnz());
  for (uint64_t T = 0; T < A.nnz(); ++T) {
    uint64_t L = lineOf(A.ColIdx[T]);
    if (LastTouch[L] == Never) {
      ++S.XLinesTouched;
      ++S.XMisses;
    } else {
      uint64_t D = uint64_t(Marks.prefix(T) - Marks.prefix(LastTouch[L]));
      Distances.push_back(uint32_t(std::min<uint64_t>(D, UINT32_MAX)));
      S.XMisses += D >= CapacityLines;
      Marks.add(LastTouch[L], -1);
    }
    Marks.add(T, +1);
    LastTouch[L] = T;
  }
  std::sort(Distances.begin(), Distances.end());
  S.ReuseDistanceP50 = nearestRank(Distances, 0.50);
  S.ReuseDistanceP90 = nearestRank(Distances, 0.90);
  S.XMissRate = A.nnz() ? double(S.XMisses) / double(A.nnz()) : 0;

  // Distinct lines per row and per window: a generation stamp per line
  // avoids clearing a set for every row.
  std::vector<uint64_t> Stamp(S.XLines, Never);
  uint64_t Generation = 0, RowLines = 0, WindowLines = 0, Windows = 0;
  uint32_t NonEmpty = 0;
  for (uint32_t R = 0; R < A.Rows; ++R) {
    ++Generation;
    uint64_t Distinct = 0;
    for (uint32_t J = A.RowPtr[R]; J < A.RowPtr[R + 1]; ++J) {
      uint64_t L = lineOf(A.ColIdx[J]);
      Distinct += Stamp[L] != Generation;
      Stamp[L] = Generation;
    }
    RowLines += Distinct;
    NonEmpty += A.rowLength(R) > 0;
  }
  for (uint32_t First = 0; First < A.Rows; First += C.RowWindow) {
    ++Generation;
    uint32_t End = std::min<uint64_t>(uint64_t(First) + C.RowWindow, A.Rows);
    for (uint32_t J = A.RowPtr[First]; J < A.RowPtr[End]; ++J) {
      uint64_t L = lineOf(A.ColIdx[J]);
      WindowLines += Stamp[L] != Generation;
      Stamp[L] = Generation;
    }
    ++Windows;
  }
  S.LinesPerRow = NonEmpty ? double(RowLines) / NonEmpty : 0;
  S.LinesPerWindow = Windows ? double(WindowLines) / double(Windows) : 0;
}

} // namespace

MatrixStats computeStats(const CsrMatrix &A, const CacheShape &Cache) {
  MatrixStats S;
  S.Cache = Cache;
  S.Cache.LineBytes = std::max<uint32_t>(1, Cache.LineBytes);
  S.Cache.ElementBytes = std::max<uint32_t>(1, Cache.ElementBytes);
  S.Cache.RowWindow = std::max<uint32_t>(1, Cache.RowWindow);
  S.Rows = A.Rows;
  S.Cols = A.Cols;
  S.Nnz = A.nnz();
  S.Density = A.Rows && A.Cols ? double(S.Nnz) / (double(A.Rows) * A.Cols) : 0;
  rowLengthStats(A, S);
  positionStats(A, S);
  xAccessStats(A, S);
  return S;
}

void printStatsTable(raw_ostream &OS, ArrayRef<std::pair<std::string, MatrixStats>> Named) {
  const CacheShape Shape = Named.empty() ? CacheShape() : Named.front().second.Cache;
  OS << "| matrix | rows | cols | nnz | row len mean | max | cv | empty rows | bandwidth "
        "| x lines / " << Shape.RowWindow << " rows | x miss rate (" << Shape.CapacityBytes / 1024
     << " KiB LRU, " << Shape.LineBytes << " B lines) |\n";
  OS << "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto &[Name, S] : Named)
    OS << "| " << Name << " | " << S.Rows << " | " << S.Cols << " | " << S.Nnz << " | "
       << format("%.2f", S.RowLengthMean) << " | " << S.RowLengthMax << " | "
       << format("%.2f", S.RowLengthCv) << " | " << S.EmptyRows << " | " << S.Bandwidth
       << " | " << format("%.1f", S.LinesPerWindow) << " | " << format("%.3f", S.XMissRate)
       << " |\n";
}

} // namespace tandem::sparse
