//===- ImageBuilder.h - allocated simt MIR straight to a kernel image -*- C++ -*-===//
//
// The `--emit obj` path: encodes allocated MIR with the ISA tables
// (simt::encode) instead of printing a listing and assembling it, which was
// a third of the back end's time on large kernels (docs/NOTES.md, issue 4).
//
// Input invariants: those of the assembly printer (SimtAsmPrinter.h):
// physical registers only, no PHI/BR/BRCOND/RET, blocks in final layout
// order, operands in the descriptor's order.
// Guarantees: the image is byte-for-byte the one emit/Assembler makes from
// printSimtAsm's listing of the same kernels followed by
// isel::printGlobalSections (ImageBuilderTest checks this on every suite
// kernel): the same kernel and parameter names (sanitized as the printer
// does), parameter offsets, shared/local bytes, registers used (highest
// register named + 1, at least 1), `li` expanded to movi or movi + movt,
// branch offsets from the block layout, and the const section padded to
// whole words. A violated invariant is a compiler bug, returned as an error
// naming the kernel, block and instruction, as the listing path would fail
// to assemble.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "isel/ConstLayout.h"
#include "isel/MIR.h"
#include "tandem/KernelImage.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"

namespace tandem::emit {

/// Builds one image from kernels added in order (they follow one another in
/// Code, as in the listing).
class SimtImageBuilder {
public:
  /// Appends \p Fn's code and its kernel table entry.
  llvm::Error addKernel(const mir::Function &Fn);
  /// The const section's bytes (isel::ConstLayout::Bytes), shared by all
  /// kernels; padded to whole words, as the listing's final `.align 4` does.
  void setConstSection(llvm::ArrayRef<uint8_t> Bytes);
  /// The data section's initial bytes (isel::layoutDeviceData) and the
  /// const offset of the word that receives its address at load; padded to
  /// whole words, as the listing's final `.align 4` does.
  void setDataSection(llvm::ArrayRef<uint8_t> Bytes, uint32_t DataBaseSlot);
  /// The symbol table: the host-visible variables of \p Const, then of
  /// \p Data, in offset order, as the listing's `.size` directives name them.
  void setSymbols(const isel::SectionLayout &Const, const isel::SectionLayout &Data);
  /// The image; fails when no kernel was added.
  llvm::Expected<KernelImage> take();

private:
  KernelImage Img;
  llvm::StringSet<> KernelNames;
};

} // namespace tandem::emit
