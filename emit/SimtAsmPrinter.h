//===- SimtAsmPrinter.h - allocated simt MIR to assembly ---------*- C++ -*-===//
//
// Input: MIR after register allocation (physical registers only).
// Output: assembly text in the language of docs/Assembly.md (`.kernel`,
// `.param`, `.shared`, `.local`, labels, instructions; COPY as mov, LI as
// li), which emit/Assembler turns into a kernel image. Comments carry the
// source location and the spill/remat marks, so the listing reads well.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "isel/MIR.h"

#include "llvm/Support/raw_ostream.h"

namespace tandem::emit {

void printSimtAsm(llvm::raw_ostream &OS, const mir::Function &Fn);

/// Code words \p Fn assembles to (an `li` may take two, IMPLICIT_DEF none):
/// the "instructions" of the listing's header comment.
unsigned simtCodeWords(const mir::Function &Fn);

} // namespace tandem::emit
