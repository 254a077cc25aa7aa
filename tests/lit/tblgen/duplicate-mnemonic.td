// RUN: not tandem-tblgen --gen-instr-info -I %tandem_td_common -I %S/Inputs %s -o %t 2>&1 | FileCheck %s
// CHECK: error: mnemonic 'add' is empty or not unique
include "MiniTarget.td"
def ADD2 : MiniInst<0x02, FmtR, "add", "$rd, $rs1, $rs2", (outs GPR:$rd), (ins GPR:$rs1, GPR:$rs2)>;
