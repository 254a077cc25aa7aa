// RUN: not tandem-tblgen --gen-instr-info -I %tandem_td_common -I %S/Inputs %s -o %t 2>&1 | FileCheck %s
// CHECK: duplicate-opcode.td:[[@LINE+2]]:5: error: opcode 0x1 is already used by ADD
include "MiniTarget.td"
def SUB : MiniInst<0x01, FmtR, "sub", "$rd, $rs1, $rs2", (outs GPR:$rd), (ins GPR:$rs1, GPR:$rs2)>;
