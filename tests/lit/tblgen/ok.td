// The mini target generates; the enum follows encoding order.
// RUN: tandem-tblgen --gen-instr-info -I %tandem_td_common -I %S/Inputs %s -o - | FileCheck %s
// CHECK: #ifdef GET_OPCODE_ENUM
// CHECK-NEXT: #undef GET_OPCODE_ENUM
// CHECK: ADD, // 0x01 add
// CHECK-NEXT: SUB, // 0x02 sub
// CHECK-NEXT: INVALID
include "MiniTarget.td"
def SUB : MiniInst<0x02, FmtR, "sub", "$rd, $rs1, $rs2", (outs GPR:$rd), (ins GPR:$rs1, GPR:$rs2)>;
