//===- Disassembler.h - Kernel images back to SIMT assembly ----*- C++ -*-===//
//
// Prints kernel images the way llvm-objdump prints object files: a header,
// the kernel table, each kernel's code (address, raw word, instruction, a
// label line before every branch target) and the const section as a hex
// dump; a const load at [r0 + imm] is annotated with the symbol it reads.
// Every instruction is decoded with simt::decode and printed with
// simt::formatInst, so the text is exactly what the assembler accepts.
//
// Input invariants: none; the image may be inconsistent (a kernel whose code
// lies outside Code is reported in the listing, never read out of bounds).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tandem/KernelImage.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>

namespace tandem {

/// One code word as assembly text: the instruction, or for a word that does
/// not decode ".word 0x...  # illegal" (which assembles back to the word).
std::string disassembleWord(uint32_t Word, uint32_t PC);

/// The objdump-style listing of \p Img.
void disassembleImage(const KernelImage &Img, llvm::raw_ostream &OS);

/// \p Img as an assembly source file that `tandem as` turns back into the
/// same image (code, kernel table and const bytes; label names are lost).
void printImageAsAssembly(const KernelImage &Img, llvm::raw_ostream &OS);

} // namespace tandem
