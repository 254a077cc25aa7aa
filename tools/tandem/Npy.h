//===- Npy.h - NumPy .npy files: read and write ----------------*- C++ -*-===//
//
// The buffers `tandem run` fills from and writes back to files are NumPy
// arrays (format: numpy.lib.format, "NEP 1"). Read: versions 1.0 and 2.0,
// little-endian float32 ('<f4'), int32 ('<i4'), uint32 ('<u4') and uint8
// ('|u1'), C order, any shape (the data is used flat; the shape is kept for
// writing back). Written: version 1.0 (2.0 only when the header would not
// fit 1.0's 16-bit length), atomically. A file is untrusted input: the magic,
// version, header length, header dictionary, dtype, fortran_order and the
// shape against the file size are all checked, and every message names the
// file and what is wrong.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace tandem::npy {

enum class DType : uint8_t { F32, I32, U32, U8 };

/// Bytes per element.
unsigned elementBytes(DType T);
/// The header's descr string: "<f4", "<i4", "<u4", "|u1".
llvm::StringRef descr(DType T);
/// The short name the command line uses: f32, i32, u32, u8.
llvm::StringRef shortName(DType T);
/// f32 / i32 (or s32) / u32 / u8, as written on the command line.
std::optional<DType> parseShortName(llvm::StringRef Name);

struct Array {
  DType Type = DType::F32;
  std::vector<uint64_t> Shape; ///< empty: a 0-d array of one element
  std::vector<uint8_t> Data;   ///< elements in C order, little-endian

  /// Elements: the product of Shape (1 for a 0-d array).
  uint64_t count() const;
  /// A 1-D array of \p Count elements, zero-filled.
  static Array vector(DType T, uint64_t Count);
};

/// Parses a whole file's bytes; \p Origin (the file name) starts every
/// message.
llvm::Expected<Array> parse(llvm::ArrayRef<uint8_t> Bytes, llvm::StringRef Origin);
llvm::Expected<Array> readFile(llvm::StringRef Path);

/// The file bytes of \p A (fails only when Data does not match the shape).
llvm::Expected<std::vector<uint8_t>> serialize(const Array &A);
/// Writes atomically: a temporary file next to \p Path, then rename.
llvm::Error writeFile(const Array &A, llvm::StringRef Path);

} // namespace tandem::npy
