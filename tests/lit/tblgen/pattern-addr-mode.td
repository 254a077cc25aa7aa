// RUN: not tandem-tblgen --gen-instr-info -I %tandem_td_common -I %S/Inputs %s -o %t 2>&1 | FileCheck %s
// An addressing mode fills a base register and the offset after it; this
// one's offset type (simm16) is not the instruction's (simm12).
// CHECK: error: addressing mode $p (addr16) does not fit operands $rs1, $imm of LD: it is a GPR base and a simm16 offset
include "MiniTarget.td"
def LD : MiniInst<0x02, FmtI, "ld", "$rd, [$rs1 + $imm]", (outs GPR:$rd), (ins GPR:$rs1, simm12:$imm)>;
def addr16 : AddrMode<GPR, simm16>;
def ldnode : SDNode<"load.test">;
def : Pat<(ldnode addr16:$p), (LD addr16:$p)>;
