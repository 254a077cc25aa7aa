//===- VcdToFst.h - a VCD waveform rewritten as FST ------------*- C++ -*-===//
//
// Verilator 5.006 compiles a model for one trace format, and the core's
// model is compiled for VCD (docs/RTL.md, "Seeing inside"). `--fst` writes
// the VCD as usual and rewrites it through GTKWave's FST writer (fstapi,
// shipped with Verilator), so no second model of the core is built.
//
// Input: a VCD of scalar, vector and real variables (`$scope`, `$upscope`,
// `$var`, `$timescale`, `$enddefinitions`, then `#time` and value changes),
// as Verilator's VerilatedVcd writes it.
// Guarantees: the FST holds the same scopes, variables (a VCD id shared by
// several variables becomes FST aliases), widths and value changes at the
// same times; vectors written shorter than their width are extended as VCD
// says (with 0, or with x or z when that is the leftmost bit). The FST is
// written beside \p FstPath and renamed into place, so \p FstPath is either
// whole or untouched; a malformed VCD is an error naming its line.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace tandem::rtl {

llvm::Error convertVcdToFst(llvm::StringRef VcdPath, llvm::StringRef FstPath);

} // namespace tandem::rtl
