// RUN: not tandem-tblgen --gen-instr-info -I %tandem_td_common -I %S/Inputs %s -o %t 2>&1 | FileCheck %s
// CHECK: missing-asm-operand.td:[[@LINE+2]]:5: error: AsmString must mention each operand exactly once
include "MiniTarget.td"
def SUB : MiniInst<0x02, FmtR, "sub", "$rd, $rs1", (outs GPR:$rd), (ins GPR:$rs1, GPR:$rs2)>;
