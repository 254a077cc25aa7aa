//===- SimtPatterns.td - IR to SIMT selection patterns ----------*- tblgen -*-===//
//
// Each pattern maps one IR operation with register (GPR) or immediate
// (simm12, ...) operands onto one instruction. tandem-tblgen checks that
// every result instruction exists and that operand names agree; isel/ reads
// the generated table. Adding a pattern is an edit here, nothing else.
// Patterns listed first win when several match (immediate forms first).
//
//===----------------------------------------------------------------------===//

// Immediate forms first so `x + 4` becomes addi.
def : Pat<(add GPR:$a, simm12:$i), (ADDI GPR:$a, simm12:$i)>;
def : Pat<(and GPR:$a, simm12:$i), (ANDI GPR:$a, simm12:$i)>;
def : Pat<(or  GPR:$a, simm12:$i), (ORI  GPR:$a, simm12:$i)>;
def : Pat<(xor GPR:$a, simm12:$i), (XORI GPR:$a, simm12:$i)>;
def : Pat<(shl GPR:$a, simm12:$i), (SHLI GPR:$a, simm12:$i)>;
def : Pat<(srl GPR:$a, simm12:$i), (SHRI GPR:$a, simm12:$i)>;
def : Pat<(sra GPR:$a, simm12:$i), (SRAI GPR:$a, simm12:$i)>;
def : Pat<(mul GPR:$a, simm12:$i), (MULI GPR:$a, simm12:$i)>;

multiclass BinPat<SDNode node, Instruction inst> {
  def : Pat<(node GPR:$a, GPR:$b), (inst GPR:$a, GPR:$b)>;
}
defm : BinPat<add, ADD>;
defm : BinPat<sub, SUB>;
defm : BinPat<mul, MUL>;
defm : BinPat<and, AND>;
defm : BinPat<or,  OR>;
defm : BinPat<xor, XOR>;
defm : BinPat<shl, SHL>;
defm : BinPat<srl, SHR>;
defm : BinPat<sra, SRA>;
defm : BinPat<sdiv, DIV>;
defm : BinPat<udiv, DIVU>;
defm : BinPat<srem, REM>;
defm : BinPat<urem, REMU>;
defm : BinPat<smin, MIN>;
defm : BinPat<smax, MAX>;
defm : BinPat<umin, MINU>;
defm : BinPat<umax, MAXU>;
defm : BinPat<fadd, FADD>;
defm : BinPat<fsub, FSUB>;
defm : BinPat<fmul, FMUL>;
defm : BinPat<fdiv, FDIV>;
defm : BinPat<fminnum, FMIN>;
defm : BinPat<fmaxnum, FMAX>;

multiclass UnPat<SDNode node, Instruction inst> {
  def : Pat<(node GPR:$a), (inst GPR:$a)>;
}
defm : UnPat<ctpop, POPC>;
defm : UnPat<bitreverse, BREV>;
defm : UnPat<fneg, FNEG>;
defm : UnPat<fabs, FABS>;
defm : UnPat<fsqrt, FSQRT>;
defm : UnPat<ffloor, FFLOOR>;
defm : UnPat<fceil, FCEIL>;
defm : UnPat<ftrunc, FTRUNC>;
defm : UnPat<frint, FRINT>;
defm : UnPat<sitofp, CVT_F32_S32>;
defm : UnPat<uitofp, CVT_F32_U32>;
defm : UnPat<fptosi, CVT_S32_F32>;
defm : UnPat<fptoui, CVT_U32_F32>;

def : Pat<(fma GPR:$a, GPR:$b, GPR:$c), (FFMA GPR:$a, GPR:$b, GPR:$c)>;
def : Pat<(select GPR:$c, GPR:$t, GPR:$f), (SEL GPR:$c, GPR:$t, GPR:$f)>;
