//===- MatrixMarket.h - Matrix Market coordinate reader ---------*- C++ -*-===//
//
// Reads `%%MatrixMarket matrix coordinate <field> <symmetry>` files, the
// format of the SuiteSparse Matrix Collection:
//   field    real | integer | pattern      (pattern entries get the value 1.0)
//   symmetry general | symmetric | skew-symmetric
// `array` (dense) files, `complex` fields and `hermitian` symmetry are
// refused with an error that says they are not supported.
//
// The file is untrusted input: every size, index and count is checked before
// it is used (the declared entry count against the matrix shape and against
// the bytes left in the file, before anything is reserved), and every error
// reads "<file>:<line>: <what is wrong>". Nothing is half-loaded: the result
// is a whole matrix or an error.
//
// The reader keeps the entries as stored (one triangle for symmetric files);
// toCsr (Csr.h) expands them.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tandem::sparse {

enum class Field : uint8_t { Real, Integer, Pattern };
enum class Symmetry : uint8_t { General, Symmetric, SkewSymmetric };

/// The largest row or column count accepted, 2^28 = 268,435,456. Every use
/// allocates per row and per column however few nonzeros the file stores:
/// CSR row pointers (rows + 1 words), the dense x of SpMV (cols words), the
/// statistics' per-row lengths. At 2^28 each is at most 1 GiB (a 40-byte
/// `2147483647 2147483647 0` header would otherwise cost 8 GiB of row
/// pointers), and it still fits the devices' 4 GiB address space
/// (sim/iss/DeviceMemory.h) and the kernels' 32-bit signed `int` indices.
constexpr uint64_t MaxDimension = uint64_t(1) << 28;
/// The largest number of stored entries accepted (before and after symmetric
/// expansion): CSR row pointers are 32-bit signed `int` in the kernels.
constexpr uint64_t MaxEntries = INT32_MAX;

/// One stored entry, 0-based.
struct Entry {
  uint32_t Row = 0, Col = 0;
  double Value = 0;
};

/// A coordinate matrix exactly as the file stores it (0-based indices; a
/// symmetric file's entries are its lower triangle and diagonal).
struct CooMatrix {
  uint32_t Rows = 0, Cols = 0;
  Field F = Field::Real;
  Symmetry S = Symmetry::General;
  std::vector<Entry> Entries;
};

llvm::StringRef fieldName(Field F);
llvm::StringRef symmetryName(Symmetry S);

/// Parses Matrix Market text; \p FileName only names the input in errors.
llvm::Expected<CooMatrix> parseMatrixMarket(llvm::StringRef Text, llvm::StringRef FileName);

/// Reads and parses the file at \p Path.
llvm::Expected<CooMatrix> readMatrixMarket(llvm::StringRef Path);

} // namespace tandem::sparse
