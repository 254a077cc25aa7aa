//===- Emitters.h - tandem-tblgen back ends --------------------*- C++ -*-===//
#pragma once

#include "SimtRecords.h"

#include "llvm/Support/raw_ostream.h"

namespace tandem::tblgen {

/// C++ tables: SimtGenInstrInfo.inc, in macro-guarded sections (GET_*).
void emitInstrInfo(const TargetModel &M, llvm::raw_ostream &OS);
/// The SystemVerilog package the RTL decoder imports.
void emitSVPackage(const TargetModel &M, llvm::raw_ostream &OS);
/// docs/ISA.md.
void emitISADoc(const TargetModel &M, llvm::raw_ostream &OS);
/// PtxGenInstrInfo.inc for target/ptx (reads its own model, PtxRecords.h).
void emitPtxInstrInfo(llvm::RecordKeeper &Records, llvm::raw_ostream &OS);

} // namespace tandem::tblgen
