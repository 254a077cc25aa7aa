// RUN: not tandem-tblgen --gen-instr-info -I %tandem_td_common -I %S/Inputs %s -o %t 2>&1 | FileCheck %s
// CHECK: error: operand $imm (16 bits) does not fit its field (12 bits)
include "MiniTarget.td"
def ADDI : MiniInst<0x02, FmtI, "addi", "$rd, $rs1, $imm", (outs GPR:$rd), (ins GPR:$rs1, simm16:$imm)>;
