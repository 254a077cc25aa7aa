// RUN: not tandem-tblgen --gen-instr-info -I %tandem_td_common -I %S/Inputs %s -o %t 2>&1 | FileCheck %s
// CHECK: error: opcode 0 is reserved: the all-zero word is illegal
include "MiniTarget.td"
def NOP : MiniInst<0x00, FmtR, "nop", "", (outs), (ins)>;
