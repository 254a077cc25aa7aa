// RUN: not tandem-tblgen --gen-instr-info -I %tandem_td_common -I %S/Inputs %s -o %t 2>&1 | FileCheck %s
// CHECK: error: result operand $c is not a pattern operand
include "MiniTarget.td"
def : Pat<(add GPR:$a, GPR:$b), (ADD GPR:$a, GPR:$c)>;
