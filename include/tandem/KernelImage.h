//===- KernelImage.h - SIMT kernel images ----------------------*- C++ -*-===//
//
// The binary a `simt` compilation or `tandem as` produces and a device
// loads: code for one or more kernels, their descriptions, constant data and
// the initial contents of the image's writable data (__device__ variables),
// and a symbol table naming those variables for the host.
// The format is documented in docs/KernelImage.md. readImage() checks every
// size, offset, count and the checksum before trusting anything, and names
// what is wrong; writeImage() is its inverse.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tandem {

enum class ParamKind : uint8_t { Pointer = 0, U32 = 1, S32 = 2, F32 = 3 };

/// The name of a parameter kind as the assembly syntax writes it: ptr, u32,
/// s32, f32 ("invalid" for a value outside the enum).
const char *paramKindName(ParamKind K);

struct KernelParam {
  std::string Name;
  ParamKind Kind = ParamKind::U32;
  uint32_t Offset = 0; ///< byte offset in the parameter buffer, 4-aligned
  uint32_t Size = 4;   ///< bytes; 4 for every kind today
};

struct KernelInfo {
  std::string Name;
  uint32_t EntryOffset = 0;   ///< byte offset of the first instruction in Code
  uint32_t CodeBytes = 0;     ///< bytes of code belonging to this kernel
  uint32_t SharedBytes = 0;   ///< static shared memory per block
  uint32_t RegistersUsed = 0; ///< highest register number used + 1
  uint32_t LocalBytes = 0;    ///< per-thread local memory
  std::vector<KernelParam> Params;

  uint32_t paramBytes() const;
};

/// Where an image symbol lives.
enum class SymbolSection : uint8_t { Const = 0, Data = 1 };

/// "const" or "data" ("invalid" for a value outside the enum).
const char *symbolSectionName(SymbolSection S);

/// A named variable of the image: a __constant__ variable in Const or a
/// __device__ variable in Data, for the host to find by name (the runtime's
/// copyToSymbol / copyFromSymbol / symbolAddress, CUDA's
/// cudaMemcpyToSymbol and cuModuleGetGlobal).
struct ImageSymbol {
  std::string Name;  ///< as in the IR and the PTX (mangled where C++ mangles)
  SymbolSection Section = SymbolSection::Const;
  uint32_t Offset = 0; ///< bytes from the start of its section
  uint32_t Size = 0;   ///< bytes, at least 1
};

struct KernelImage {
  std::vector<KernelInfo> Kernels;
  std::vector<uint32_t> Code;  ///< instruction words, all kernels
  std::vector<uint8_t> Const;  ///< constant data (ld.const)
  /// Initial bytes of the image's writable data segment (__device__
  /// variables). A device loading the image allocates Data.size() bytes of
  /// global memory, copies these bytes there and writes the segment's device
  /// address into the const word at DataBaseSlot, where the kernels read it.
  std::vector<uint8_t> Data;
  /// Byte offset in Const of that word: 4-aligned and inside Const when Data
  /// is not empty, 0 otherwise.
  uint32_t DataBaseSlot = 0;
  /// The named variables of Const and Data; unique names, each inside its
  /// section, none covering the data base slot.
  std::vector<ImageSymbol> Symbols;

  const KernelInfo *findKernel(llvm::StringRef Name) const;
  const ImageSymbol *findSymbol(llvm::StringRef Name) const;
  /// The bytes of the section a symbol of section \p S lives in.
  llvm::ArrayRef<uint8_t> sectionBytes(SymbolSection S) const {
    return S == SymbolSection::Data ? Data : Const;
  }
};

constexpr uint32_t KernelImageMagic = 0x4D444E54; // "TNDM" little-endian
constexpr uint16_t KernelImageVersion = 3;

/// Serializes \p Img (little-endian, with checksum). Fails if the image is
/// inconsistent (a kernel's code outside Code, duplicate names, ...).
llvm::Expected<std::vector<uint8_t>> writeImage(const KernelImage &Img);
/// Parses and validates; \p Origin (a file name) prefixes every message.
llvm::Expected<KernelImage> readImage(llvm::ArrayRef<uint8_t> Bytes,
                                      llvm::StringRef Origin);
/// Reads a file and parses it.
llvm::Expected<KernelImage> readImageFile(llvm::StringRef Path);
/// Writes atomically (temporary file, then rename).
llvm::Error writeImageFile(const KernelImage &Img, llvm::StringRef Path);

} // namespace tandem
