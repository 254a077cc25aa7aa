// RUN: not tandem-tblgen --gen-instr-info -I %tandem_td_common -I %S/Inputs %s -o %t 2>&1 | FileCheck %s
// A fixed value (a SpecialRegister, a PatImm) fills only an operand the IR
// cannot: ADD's $rs2 takes a register.
// CHECK: error: operand $rs2 of ADD takes a value from the IR, not a fixed one
include "MiniTarget.td"
def : Pat<(add GPR:$a), (ADD GPR:$a, SR_TID)>;
