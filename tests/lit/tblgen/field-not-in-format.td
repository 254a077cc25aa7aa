// RUN: not tandem-tblgen --gen-instr-info -I %tandem_td_common -I %S/Inputs %s -o %t 2>&1 | FileCheck %s
// CHECK: error: format R has no field for $imm
include "MiniTarget.td"
def ADDI : MiniInst<0x02, FmtR, "addi", "$rd, $rs1, $imm", (outs GPR:$rd), (ins GPR:$rs1, simm12:$imm)>;
