//===- ConstLayout.h - __constant__ and __device__ variables in the image -*- C++ -*-===//
//
// Input: a prepared module (isel/Prepare.h): every used __constant__
// (address space 4) and __device__ (address space 1) variable has a
// definition whose initializer is made of integers, floats, null pointers,
// undef/poison and zeroinitializer, nested in arrays and structs (Prepare
// reports stores and escaping pointers into __constant__ memory, with the
// kernel and the source line; an initializer holding an address is reported
// here, naming the variable).
// Output: two sections of the image, laid out the same way: each placed
// variable (one a kernel reads, or one defined with external linkage and a
// symbol-table name: CUDA keeps those for the host's cudaMemcpyToSymbol
// even when no kernel reads them) of the section's address space at an offset aligned to its
// alignment (at least 4, so a word access to any of its bytes stays inside
// the variable's words), in module order, its initializer's bytes
// little-endian as the data layout places them (padding and zero-init are
// zero bytes).
//  - the const section: the __constant__ variables, read with ld.const;
//    when the module places a __device__ variable, one more word after them,
//    the data base slot, into which the loader writes the data section's
//    device address (docs/KernelImage.md);
//  - the data section: the __device__ variables' initial bytes. The device
//    copies them into global memory when it loads the image (one instance
//    per loaded image, shared by all launches); kernels address a variable
//    as (the word at the data base slot) + its offset.
//
// The layouts are pure functions of the module, so the selector (offsets in
// every kernel) and the listing's `.const`/`.data` sections (the image's
// bytes) compute the same ones independently; both sections are shared by
// all kernels of the image.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tandem::isel {

/// The address spaces clang and NVPTX give __constant__ and __device__
/// variables.
constexpr unsigned ConstantAddressSpace = 4;
constexpr unsigned DeviceAddressSpace = 1;

struct GlobalSymbol {
  const llvm::GlobalVariable *Var = nullptr;
  /// The listing's label: the IR name, characters the assembler does not
  /// take replaced by '_', made unique.
  std::string Label;
  /// The name as the source spells it (demangled), for comments and tools.
  std::string SourceName;
  uint32_t Offset = 0;
  uint32_t Size = 0;
  /// Named in the image's symbol table (the listing's `.size`), so the host
  /// finds it by name, as the IR and the PTX name it (C identifiers as
  /// written, C++ names mangled): every variable but LLVM's private ones
  /// (string literals, local arrays' initializers), whose names mean
  /// nothing to a user, and names the assembly syntax cannot spell
  /// ([A-Za-z_][A-Za-z0-9_.]* only).
  bool HostVisible = false;
  /// The symbol's name, the IR name; Label differs where the IR name would
  /// read as a register (`r2` gets the label `r2_`) or collides.
  std::string SymbolName;
};

/// The layout of the const or the data section.
struct SectionLayout {
  std::vector<GlobalSymbol> Symbols; ///< by increasing offset
  std::vector<uint8_t> Bytes;        ///< the whole section, whole words
  llvm::DenseMap<const llvm::GlobalVariable *, uint32_t> Offsets;
  /// Const section only: the offset of the data base slot (the word the
  /// loader fills with the data section's address), present when the module
  /// places a __device__ variable.
  std::optional<uint32_t> DataBaseSlot;
};
using ConstLayout = SectionLayout;

/// Lays out every placed __constant__ variable of \p M, then the data base
/// slot if \p M places a __device__ variable. Errors name the variable (an
/// initializer that is not plain data, a variable without a definition, a
/// section over 16 MiB).
llvm::Expected<SectionLayout> layoutConstants(const llvm::Module &M);
/// Lays out every placed __device__ variable of \p M; errors as above.
llvm::Expected<SectionLayout> layoutDeviceData(const llvm::Module &M);

/// The listing's `.const` and `.data` sections for \p M (docs/Assembly.md):
/// each headed by a comment with its symbols' offsets and sizes, then per
/// symbol `.align`, its label, its bytes (`.word` for whole words,
/// `.byte` for a tail) and, for a host-visible one, `.size LABEL, BYTES`
/// (an image symbol; `, NAME` when the name is not the label); the const
/// section ends with the `.data_base` word
/// when there is data. Prints nothing for a section without symbols.
/// Offsets start at 0, so these must be the listing's only const and data
/// bytes.
llvm::Error printGlobalSections(llvm::raw_ostream &OS, const llvm::Module &M);

} // namespace tandem::isel
