//===- Generators.h - Seeded synthetic sparse matrices ----------*- C++ -*-===//
//
// Deterministic CSR generators for sparse workloads: the same parameters
// and seed give the same matrix on every platform (std::mt19937_64, whose
// output the C++ standard fixes, with our own mapping to ranges; no
// std::*_distribution, whose results differ between standard libraries).
// Values are uniform in [-1, 1) and never exactly 0; columns within a row
// are sorted and unique (verifyCsr holds).
//
// Parameters are user input (command lines, report settings): each
// generator checks them and the size of the result before allocating, and
// returns an error naming the parameter.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "sparse/Csr.h"

#include "llvm/Support/Error.h"

#include <cstdint>

namespace tandem::sparse {

/// Every row holds exactly \p NnzPerRow distinct columns drawn uniformly
/// from [0, Cols) (the DESIGN guide's "uniform" SpMV input).
llvm::Expected<CsrMatrix> generateUniform(uint64_t Seed, uint32_t Rows, uint32_t Cols,
                                          uint32_t NnzPerRow);

/// Row lengths k in [MinRowLength, MaxRowLength] drawn independently with
/// P(k) proportional to (k + 1)^-Exponent (a power law shifted by one so
/// that empty rows, k = 0, are allowed); columns uniform and distinct.
/// Exponent >= 0 (0: uniform lengths); MaxRowLength <= Cols.
llvm::Expected<CsrMatrix> generatePowerLaw(uint64_t Seed, uint32_t Rows, uint32_t Cols,
                                           double Exponent, uint32_t MinRowLength,
                                           uint32_t MaxRowLength);

/// An N x N banded matrix with every diagonal -HalfBandwidth..+HalfBandwidth
/// stored (2 * HalfBandwidth + 1 diagonals, clipped at the edges).
llvm::Expected<CsrMatrix> generateBanded(uint64_t Seed, uint32_t N, uint32_t HalfBandwidth);

/// An N x N block-diagonal matrix: square blocks of \p BlockSize along the
/// diagonal (the last one smaller if BlockSize does not divide N), each
/// position inside a block stored with probability \p Density in (0, 1].
llvm::Expected<CsrMatrix> generateBlockDiagonal(uint64_t Seed, uint32_t N, uint32_t BlockSize,
                                                double Density);

} // namespace tandem::sparse
