//===- ConstLayout.h - __constant__ variables in the image's const section -*- C++ -*-===//
//
// Input: a prepared module (isel/Prepare.h): every __constant__ variable
// (address space 4) that is used has a definition whose initializer is made
// of integers, floats, null pointers, undef/poison and zeroinitializer,
// nested in arrays and structs (Prepare reports anything else, and every
// store or escaping pointer, with the kernel and the source line).
// Output: the const section of the image: each used __constant__ variable at
// an offset aligned to its alignment (at least 4, so a word load of any of
// its bytes stays inside the variable's words), in module order, its
// initializer's bytes little-endian as the data layout places them
// (padding and zero-init are zero bytes).
//
// The layout is a pure function of the module, so the selector (ld.const
// offsets of every kernel) and the listing's `.const` section (the image's
// bytes) compute the same one independently; the section is shared by all
// kernels of the image.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tandem::isel {

/// The address space clang and NVPTX give __constant__ variables.
constexpr unsigned ConstantAddressSpace = 4;

struct ConstSymbol {
  const llvm::GlobalVariable *Var = nullptr;
  /// The listing's label: the IR name, characters the assembler does not
  /// take replaced by '_', made unique.
  std::string Label;
  /// The name as the source spells it (demangled), for comments and tools.
  std::string SourceName;
  uint32_t Offset = 0;
  uint32_t Size = 0;
};

struct ConstLayout {
  std::vector<ConstSymbol> Symbols; ///< by increasing offset
  std::vector<uint8_t> Bytes;       ///< the whole const section
  llvm::DenseMap<const llvm::GlobalVariable *, uint32_t> Offsets;
};

/// Lays out every used __constant__ variable of \p M. Errors name the
/// variable (an initializer that is not plain data, a variable without a
/// definition, a section over 16 MiB).
llvm::Expected<ConstLayout> layoutConstants(const llvm::Module &M);

/// The listing's `.const` section for \p M (docs/Assembly.md): a comment
/// with each symbol's offset and size, then per symbol `.align`, its label
/// and its bytes (`.word` for whole words, `.byte` for a tail). Prints
/// nothing when the module has no used __constant__ variable. Offsets start
/// at 0, so it must be the listing's only const data.
llvm::Error printConstSection(llvm::raw_ostream &OS, const llvm::Module &M);

} // namespace tandem::isel
