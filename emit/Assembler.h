//===- Assembler.h - SIMT assembly text to kernel images -------*- C++ -*-===//
//
// Turns SIMT assembly (syntax: docs/Assembly.md) into a KernelImage. The
// assembler is table-driven: an instruction's operands are parsed by walking
// its InstrDesc (AsmString template and OperandInfo kinds) from the generated
// ISA tables, so an instruction added to target/simt/SimtInstrInfo.td is
// accepted here without any change to this code.
//
// Input: any text (it is untrusted). Guarantees: either an image whose every
// code word encodes and whose kernel metadata (entry, size, parameters,
// registers used) matches the source, or an error whose message holds every
// diagnostic (up to 20 errors), each LLVM style:
//   FILE:LINE:COL: error: MESSAGE
//   <source line>
//   <caret under COL>
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ISA.h"
#include "tandem/KernelImage.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace tandem {

/// The most errors one assembly reports before it stops.
constexpr unsigned MaxAssemblerErrors = 20;

/// Assembles a whole source file. \p FileName is used in diagnostics only.
llvm::Expected<KernelImage> assemble(llvm::StringRef Source,
                                     llvm::StringRef FileName);

/// Parses one real (non-pseudo) instruction, e.g. "add r1, r2, r3", as if it
/// sat at code byte address \p PC: branch targets must be absolute code
/// addresses (there are no labels here), the form formatInst() prints.
/// Errors are diagnostics against the text as "<instruction>:1:COL".
llvm::Expected<simt::DecodedInst> parseInstruction(llvm::StringRef Text,
                                                   uint32_t PC = 0);

} // namespace tandem
