//===- Sparse.h - CSR matrices for the GPU runner's SpMV timings ---------===//
//
// The runner builds its large SpMV inputs on the GPU machine instead of
// carrying hundreds of megabytes: synthetic 4M-row matrices (uniform rows,
// power-law row lengths, banded) and the real matrices of the bundle, read
// from Matrix Market files. Plain C++17 (no LLVM there); tandem's own sparse
// library (sparse/) has the same generators with LLVM errors.
//
// Input invariants: .mtx files are untrusted: sizes, indices and counts are
// checked and every error names the file and line. Guarantees: rows are
// sorted by column; indices fit int32.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Json.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace tandem::gpu {

/// splitmix64: fast, and enough for test data.
struct Rng {
  uint64_t State;
  explicit Rng(uint64_t Seed) : State(Seed) {}
  uint64_t next() {
    uint64_t Z = (State += 0x9e3779b97f4a7c15ull);
    Z = (Z ^ (Z >> 30)) * 0xbf58476d1ce4e5b9ull;
    Z = (Z ^ (Z >> 27)) * 0x94d049bb133111ebull;
    return Z ^ (Z >> 31);
  }
  /// Uniform in [0, 1).
  float unit() { return float(next() >> 40) / float(1 << 24); }
  uint64_t below(uint64_t N) { return next() % N; }
};

struct Csr {
  uint64_t Rows = 0, Cols = 0;
  std::vector<int32_t> RowPtr{0}, Col;
  std::vector<float> Val;

  /// Closes the current row: sorts its columns (values follow).
  void endRow() {
    size_t Begin = size_t(RowPtr.back()), End = Col.size();
    std::vector<size_t> Order(End - Begin);
    std::iota(Order.begin(), Order.end(), Begin);
    std::sort(Order.begin(), Order.end(), [&](size_t A, size_t B) { return Col[A] < Col[B]; });
    std::vector<int32_t> C(Order.size());
    std::vector<float> V(Order.size());
    for (size_t I = 0; I < Order.size(); ++I) {
      C[I] = Col[Order[I]];
      V[I] = Val[Order[I]];
    }
    std::copy(C.begin(), C.end(), Col.begin() + long(Begin));
    std::copy(V.begin(), V.end(), Val.begin() + long(Begin));
    if (Col.size() > size_t(INT32_MAX))
      throw std::runtime_error("matrix: more than 2^31 nonzeros");
    RowPtr.push_back(int32_t(Col.size()));
    ++Rows;
  }
};

/// \p PerRow nonzeros in every row, at uniformly random columns.
inline Csr uniformCsr(uint64_t Rows, unsigned PerRow, Rng &R) {
  Csr A;
  A.Cols = Rows;
  A.Col.reserve(Rows * PerRow);
  A.Val.reserve(Rows * PerRow);
  for (uint64_t I = 0; I < Rows; ++I) {
    for (unsigned K = 0; K < PerRow; ++K) {
      A.Col.push_back(int32_t(R.below(A.Cols)));
      A.Val.push_back(2 * R.unit() - 1);
    }
    A.endRow();
  }
  return A;
}

/// Row lengths from a Pareto law with tail exponent \p Exponent scaled to a
/// mean of \p MeanPerRow (a few rows very long, most short), random columns.
inline Csr powerLawCsr(uint64_t Rows, double MeanPerRow, double Exponent, Rng &R) {
  Csr A;
  A.Cols = Rows;
  // A Pareto law with minimum m has mean m * a / (a - 1).
  double Min = Exponent > 1 ? MeanPerRow * (Exponent - 1) / Exponent : 1;
  for (uint64_t I = 0; I < Rows; ++I) {
    double U = 1.0 - double(R.unit()); // (0, 1]
    uint64_t Len = uint64_t(std::min(double(A.Cols), Min * std::pow(U, -1.0 / Exponent)));
    for (uint64_t K = 0; K < Len; ++K) {
      A.Col.push_back(int32_t(R.below(A.Cols)));
      A.Val.push_back(2 * R.unit() - 1);
    }
    A.endRow();
  }
  return A;
}

/// \p Diagonals diagonals centred on the main one.
inline Csr bandedCsr(uint64_t Rows, unsigned Diagonals, Rng &R) {
  Csr A;
  A.Cols = Rows;
  int64_t Half = Diagonals / 2;
  for (uint64_t I = 0; I < Rows; ++I) {
    for (int64_t D = -Half; D <= Half; ++D) {
      int64_t C = int64_t(I) + D;
      if (C < 0 || C >= int64_t(Rows))
        continue;
      A.Col.push_back(int32_t(C));
      A.Val.push_back(2 * R.unit() - 1);
    }
    A.RowPtr.push_back(int32_t(A.Col.size())); // already sorted
    ++A.Rows;
  }
  return A;
}

/// A Matrix Market coordinate file (real, integer or pattern; general,
/// symmetric or skew-symmetric) as CSR; pattern entries get value 1.
inline Csr readMatrixMarket(const std::string &Path) {
  std::ifstream In(Path);
  if (!In)
    throw std::runtime_error("cannot read '" + Path + "'");
  std::string Line;
  size_t LineNo = 0;
  auto Fail = [&](const std::string &Why) {
    throw std::runtime_error(Path + ":" + std::to_string(LineNo) + ": " + Why);
  };
  if (!std::getline(In, Line))
    Fail("empty file");
  ++LineNo;
  std::string Banner = Line;
  std::transform(Banner.begin(), Banner.end(), Banner.begin(), ::tolower);
  if (Banner.rfind("%%matrixmarket matrix coordinate", 0) != 0)
    Fail("not a Matrix Market coordinate matrix");
  bool Pattern = Banner.find("pattern") != std::string::npos;
  bool Symmetric = Banner.find("symmetric") != std::string::npos;
  bool Skew = Banner.find("skew-symmetric") != std::string::npos;
  if (Banner.find("complex") != std::string::npos)
    Fail("complex matrices are not supported");
  uint64_t Rows = 0, Cols = 0, Entries = 0;
  while (std::getline(In, Line)) {
    ++LineNo;
    if (Line.empty() || Line[0] == '%')
      continue;
    std::istringstream S(Line);
    if (!(S >> Rows >> Cols >> Entries) || Rows == 0 || Cols == 0 || Rows > INT32_MAX ||
        Cols > INT32_MAX)
      Fail("bad size line");
    break;
  }
  struct Entry {
    int32_t R, C;
    float V;
  };
  std::vector<Entry> E;
  E.reserve(Entries * (Symmetric ? 2 : 1));
  for (uint64_t K = 0; K < Entries;) {
    if (!std::getline(In, Line))
      Fail("expected " + std::to_string(Entries) + " entries, found " + std::to_string(K));
    ++LineNo;
    if (Line.empty() || Line[0] == '%')
      continue;
    std::istringstream S(Line);
    uint64_t I, J;
    double V = 1;
    if (!(S >> I >> J) || (!Pattern && !(S >> V)))
      Fail("bad entry");
    if (I < 1 || I > Rows || J < 1 || J > Cols)
      Fail("index out of range");
    E.push_back({int32_t(I - 1), int32_t(J - 1), float(V)});
    if (Symmetric && I != J)
      E.push_back({int32_t(J - 1), int32_t(I - 1), float(Skew ? -V : V)});
    ++K;
  }
  std::stable_sort(E.begin(), E.end(), [](const Entry &A, const Entry &B) {
    return A.R != B.R ? A.R < B.R : A.C < B.C;
  });
  Csr A;
  A.Cols = Cols;
  size_t K = 0;
  for (uint64_t Row = 0; Row < Rows; ++Row) {
    for (; K < E.size() && uint64_t(E[K].R) == Row; ++K) {
      A.Col.push_back(E[K].C);
      A.Val.push_back(E[K].V);
    }
    A.RowPtr.push_back(int32_t(A.Col.size()));
    ++A.Rows;
  }
  return A;
}

//===--- Synthetic matrices of the manifest's "csr" timing specs ----------===//
//
// Shared by the runner (which times them) and `tandem report` (which
// regenerates the same matrix to compute its statistics for the gpu model):
// the seed depends only on the spec's name.

/// The matrix of a csr timing spec ({"matrix": uniform|powerlaw|banded,
/// "rows", "nnz_per_row", "exponent", "bandwidth"}).
inline Csr syntheticFromSpec(const Json &S, Rng &R) {
  const std::string Kind = S["matrix"].S;
  uint64_t Rows = uint64_t(S["rows"].integer());
  if (Kind == "uniform")
    return uniformCsr(Rows, unsigned(S["nnz_per_row"].integer()), R);
  if (Kind == "powerlaw")
    return powerLawCsr(Rows, double(S["nnz_per_row"].N), S["exponent"].N, R);
  if (Kind == "banded")
    return bandedCsr(Rows, unsigned(S["bandwidth"].integer()), R);
  throw std::runtime_error("timing spec: unknown matrix '" + Kind + "'");
}

/// The name of a synthetic matrix spec: "uniform 4194304 rows, 16 per row".
/// The same spec (several cases name it) is one matrix.
inline std::string syntheticName(const Json &S) {
  const std::string Kind = S["matrix"].S;
  std::string Name = Kind + " " + std::to_string(S["rows"].integer()) + " rows";
  if (S.has("nnz_per_row"))
    Name += ", " + number(S["nnz_per_row"].N) + " per row";
  if (S.has("exponent"))
    Name += ", exponent " + number(S["exponent"].N);
  if (S.has("bandwidth"))
    Name += ", " + std::to_string(S["bandwidth"].integer()) + " diagonals";
  return Name;
}

/// A seed per matrix name (FNV-1a): the matrix does not depend on what was
/// generated before it, so `tandem report` can regenerate it (gpu/Sparse.h).
inline uint64_t matrixSeed(const std::string &Name) {
  uint64_t H = 0xcbf29ce484222325ull;
  for (unsigned char C : Name)
    H = (H ^ C) * 0x100000001b3ull;
  return H;
}

/// The matrix of a csr timing spec, seeded by its name: what the runner
/// times and what `tandem report` and the tests regenerate (one recipe).
inline Csr syntheticMatrix(const Json &S) {
  Rng R(matrixSeed(syntheticName(S)));
  return syntheticFromSpec(S, R);
}

} // namespace tandem::gpu
