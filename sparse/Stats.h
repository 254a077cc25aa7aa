//===- Stats.h - Matrix statistics for sparse performance models -*- C++ -*-===//
//
// What an analytic SpMV/SpMM model needs to know about a matrix beyond its
// size: how uneven the rows are (load imbalance, idle lanes in a warp), how
// far from the diagonal the nonzeros lie, and how the gathers of the dense
// vector x behave in a cache (distinct lines a warp touches, LRU reuse
// distance, misses of a fully associative LRU cache of a given size).
//
// The x access stream is the CSR order: row by row, nonzero by nonzero (what
// one thread per row walking a block of rows issues, serialised). Every
// figure is exact for that stream; a model decides how to map it onto a
// device's cache.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "sparse/Csr.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <utility>

namespace tandem::sparse {

/// The cache the x gathers are measured against.
struct CacheShape {
  uint32_t LineBytes = 64;
  uint64_t CapacityBytes = 16 * 1024;
  uint32_t ElementBytes = 4; ///< fp32 x
  /// Consecutive rows counted together for LinesPerWindow (a warp's rows
  /// under thread-per-row).
  uint32_t RowWindow = 32;
};

struct MatrixStats {
  uint32_t Rows = 0, Cols = 0;
  uint64_t Nnz = 0;
  double Density = 0; ///< nnz / (rows * cols)

  // Row lengths.
  double RowLengthMean = 0, RowLengthStddev = 0;
  double RowLengthCv = 0; ///< stddev / mean (0 for an empty matrix)
  uint32_t RowLengthMin = 0, RowLengthMax = 0;
  uint32_t RowLengthP50 = 0, RowLengthP90 = 0, RowLengthP99 = 0; ///< nearest rank
  uint32_t EmptyRows = 0;
  /// Warp-per-32-rows imbalance: mean over windows of RowWindow rows of
  /// (max row length in the window) / (mean row length in the window); what
  /// thread-per-row loses to the longest lane (1 = perfectly even).
  double WindowImbalance = 0;

  // Position of the nonzeros.
  uint32_t Bandwidth = 0;     ///< max |row - col| over the nonzeros
  double MeanRowSpan = 0;     ///< mean over non-empty rows of last col - first col + 1

  // Gathers of x (see the file comment for the access order).
  CacheShape Cache;
  uint64_t XLines = 0;          ///< lines of x: ceil(cols * ElementBytes / LineBytes)
  uint64_t XLinesTouched = 0;   ///< distinct lines ever read: compulsory misses
  double LinesPerRow = 0;       ///< mean distinct lines per non-empty row
  double LinesPerWindow = 0;    ///< mean distinct lines per window of RowWindow rows
  /// LRU stack distance (distinct other lines since the last touch of the
  /// same line) over the non-compulsory accesses; nearest rank.
  uint64_t ReuseDistanceP50 = 0, ReuseDistanceP90 = 0;
  /// Misses of a fully associative LRU cache of Cache.CapacityBytes on the
  /// stream, compulsory ones included; and misses / nnz.
  uint64_t XMisses = 0;
  double XMissRate = 0;
};

MatrixStats computeStats(const CsrMatrix &A, const CacheShape &Cache = {});

/// A Markdown table, one row per named matrix: rows, cols, nnz, row length
/// mean/max/cv, empty rows, bandwidth, lines per window, x miss rate.
void printStatsTable(llvm::raw_ostream &OS,
                     llvm::ArrayRef<std::pair<std::string, MatrixStats>> Named);

} // namespace tandem::sparse
