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

#include <string>
#include <vector>

namespace tandem::emit {

void printSimtAsm(llvm::raw_ostream &OS, const mir::Function &Fn);

/// Code words \p Fn assembles to (an `li` may take two, IMPLICIT_DEF none):
/// the "instructions" of the listing's header comment.
unsigned simtCodeWords(const mir::Function &Fn);

/// The kernel's name in the listing and the image: a C identifier (IR names
/// may hold '.', '$' or start with a digit).
std::string simtKernelName(const mir::Function &Fn);

/// The parameters' names in the listing and the image, in order: C
/// identifiers ("p<K>" when unnamed), a repeat of an earlier one's name
/// suffixed "_<K>". The printer and emit/ImageBuilder both use these, so the
/// image built from MIR names what the assembled listing names.
std::vector<std::string> simtParamNames(const mir::Function &Fn);

} // namespace tandem::emit
