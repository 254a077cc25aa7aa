// RUN: not tandem-tblgen --gen-instr-info -I %tandem_td_common -I %S/Inputs %s -o %t 2>&1 | FileCheck %s
// An immediate pattern operand must be the instruction operand's own type:
// ADD's $rs2 is a register.
// CHECK: error: pattern operand $i (simm12) does not fit operand $rs2 of ADD: an immediate operand type must be the instruction operand's own
include "MiniTarget.td"
def : Pat<(add GPR:$a, simm12:$i), (ADD GPR:$a, simm12:$i)>;
