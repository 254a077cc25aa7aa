//===- Ptx.td - The PTX target (NVIDIA GPUs) --------------------*- tblgen -*-===//
//
// Top of the PTX target description. tandem-tblgen --gen-ptx-instr-info reads
// this file and writes PtxGenInstrInfo.inc: the opcode enum, the register
// classes, the instruction descriptors (assembly templates, operand classes,
// flags), the special registers and the selection patterns. target/ptx/PTX.h
// wraps the tables; isel/SelectPtx*.cpp and emit/PtxPrinter.cpp walk them.
// docs/PTX.md explains the target and how to add a pattern.
//
//===----------------------------------------------------------------------===//

include "Target.td"
include "IRNodes.td"
include "PtxRegisterInfo.td"
include "PtxInstrInfo.td"
include "PtxPatterns.td"
