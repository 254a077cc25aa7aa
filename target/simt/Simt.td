//===- Simt.td - The Tandem SIMT accelerator target -------------*- tblgen -*-===//
//
// Top of the SIMT target description. tandem-tblgen reads this file and
// writes the instruction tables (C++), the SystemVerilog ISA package and
// docs/ISA.md.
//
//===----------------------------------------------------------------------===//

include "Target.td"
include "IRNodes.td"
include "SimtRegisterInfo.td"
include "SimtInstrFormats.td"
include "SimtSchedule.td"
include "SimtInstrInfo.td"
include "SimtPatterns.td"
