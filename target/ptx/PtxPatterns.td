//===- PtxPatterns.td - IR to PTX selection patterns ------------*- tblgen -*-===//
//
// Each pattern maps one IR operation (target/common/IRNodes.td) whose
// operands have the given register classes onto one instruction; the
// result class is the instruction's def. The selector (isel/SelectPtx.cpp,
// selectByPattern) picks the first pattern whose node, operand classes and
// result class match the IR instruction's types; a constant operand becomes
// an immediate where the instruction's operand accepts one (s32, sf32, ...).
// Result operands are matched to pattern operands BY NAME, so a pattern may
// reorder them (see the funnel shifts). Adding a pattern is an edit here.
//
//===----------------------------------------------------------------------===//

multiclass IntPat<SDNode node, string inst> {
  def : Pat<(node B32:$a, B32:$b), (!cast<Instruction>(inst # "_32") B32:$a, B32:$b)>;
  def : Pat<(node B64:$a, B64:$b), (!cast<Instruction>(inst # "_64") B64:$a, B64:$b)>;
}
defm : IntPat<add, "ADD">;
defm : IntPat<sub, "SUB">;
defm : IntPat<mul, "MUL">;
defm : IntPat<and, "AND">;
defm : IntPat<or,  "OR">;
defm : IntPat<xor, "XOR">;
defm : IntPat<sdiv, "SDIV">;
defm : IntPat<udiv, "UDIV">;
defm : IntPat<srem, "SREM">;
defm : IntPat<urem, "UREM">;
defm : IntPat<smin, "SMIN">;
defm : IntPat<smax, "SMAX">;
defm : IntPat<umin, "UMIN">;
defm : IntPat<umax, "UMAX">;

// The selector hands 64-bit shifts their amount as a 32-bit value.
multiclass ShiftPat<SDNode node, string inst> {
  def : Pat<(node B32:$a, B32:$b), (!cast<Instruction>(inst # "_32") B32:$a, B32:$b)>;
  def : Pat<(node B64:$a, B32:$b), (!cast<Instruction>(inst # "_64") B64:$a, B32:$b)>;
}
defm : ShiftPat<shl, "SHL">;
defm : ShiftPat<srl, "SRL">;
defm : ShiftPat<sra, "SRA">;

def : Pat<(and Pred:$a, Pred:$b), (AND_PRED Pred:$a, Pred:$b)>;
def : Pat<(or  Pred:$a, Pred:$b), (OR_PRED  Pred:$a, Pred:$b)>;
def : Pat<(xor Pred:$a, Pred:$b), (XOR_PRED Pred:$a, Pred:$b)>;

def : Pat<(ctpop B32:$a), (POPC_32 B32:$a)>;
def : Pat<(bitreverse B32:$a), (BREV_32 B32:$a)>;
def : Pat<(bitreverse B64:$a), (BREV_64 B64:$a)>;
// ctlz and abs carry a flag operand the selector drops before matching.
def : Pat<(ctlz B32:$a), (CLZ_32 B32:$a)>;
def : Pat<(abs B32:$a), (ABS_32 B32:$a)>;
def : Pat<(abs B64:$a), (ABS_64 B64:$a)>;
def : Pat<(fshl B32:$hi, B32:$lo, B32:$n), (SHF_L_WRAP B32:$lo, B32:$hi, B32:$n)>;
def : Pat<(fshr B32:$hi, B32:$lo, B32:$n), (SHF_R_WRAP B32:$lo, B32:$hi, B32:$n)>;

multiclass FpBinPat<SDNode node, string inst> {
  def : Pat<(node F32:$a, F32:$b), (!cast<Instruction>(inst # "_F32") F32:$a, F32:$b)>;
  def : Pat<(node F64:$a, F64:$b), (!cast<Instruction>(inst # "_F64") F64:$a, F64:$b)>;
}
defm : FpBinPat<fadd, "FADD">;
defm : FpBinPat<fsub, "FSUB">;
defm : FpBinPat<fmul, "FMUL">;
defm : FpBinPat<fdiv, "FDIV">;
defm : FpBinPat<fminnum, "FMIN">;
defm : FpBinPat<fmaxnum, "FMAX">;

multiclass FpUnPat<SDNode node, string inst> {
  def : Pat<(node F32:$a), (!cast<Instruction>(inst # "_F32") F32:$a)>;
  def : Pat<(node F64:$a), (!cast<Instruction>(inst # "_F64") F64:$a)>;
}
defm : FpUnPat<fneg, "FNEG">;
defm : FpUnPat<fabs, "FABS">;
defm : FpUnPat<fsqrt, "FSQRT">;
defm : FpUnPat<ffloor, "CVT_rmi">;
defm : FpUnPat<fceil, "CVT_rpi">;
defm : FpUnPat<ftrunc, "CVT_rzi">;
defm : FpUnPat<frint, "CVT_rni">;

def : Pat<(fma F32:$a, F32:$b, F32:$c), (FMA_F32 F32:$a, F32:$b, F32:$c)>;
def : Pat<(fma F64:$a, F64:$b, F64:$c), (FMA_F64 F64:$a, F64:$b, F64:$c)>;

// Conversions: the result class picks the instruction.
def : Pat<(sitofp B32:$a), (CVT_F32_S32 B32:$a)>;
def : Pat<(uitofp B32:$a), (CVT_F32_U32 B32:$a)>;
def : Pat<(sitofp B64:$a), (CVT_F32_S64 B64:$a)>;
def : Pat<(uitofp B64:$a), (CVT_F32_U64 B64:$a)>;
def : Pat<(sitofp B32:$a), (CVT_F64_S32 B32:$a)>;
def : Pat<(uitofp B32:$a), (CVT_F64_U32 B32:$a)>;
def : Pat<(sitofp B64:$a), (CVT_F64_S64 B64:$a)>;
def : Pat<(uitofp B64:$a), (CVT_F64_U64 B64:$a)>;
def : Pat<(fptosi F32:$a), (CVT_S32_F32 F32:$a)>;
def : Pat<(fptoui F32:$a), (CVT_U32_F32 F32:$a)>;
def : Pat<(fptosi F32:$a), (CVT_S64_F32 F32:$a)>;
def : Pat<(fptoui F32:$a), (CVT_U64_F32 F32:$a)>;
def : Pat<(fptosi F64:$a), (CVT_S32_F64 F64:$a)>;
def : Pat<(fptoui F64:$a), (CVT_U32_F64 F64:$a)>;
def : Pat<(fptosi F64:$a), (CVT_S64_F64 F64:$a)>;
def : Pat<(fptoui F64:$a), (CVT_U64_F64 F64:$a)>;
def : Pat<(fptrunc F64:$a), (CVT_F32_F64 F64:$a)>;
def : Pat<(fpext F32:$a), (CVT_F64_F32 F32:$a)>;
def : Pat<(zext B32:$a), (CVT_U64_U32 B32:$a)>;
def : Pat<(sext B32:$a), (CVT_S64_S32 B32:$a)>;
def : Pat<(trunc B64:$a), (CVT_U32_U64 B64:$a)>;
def : Pat<(bitcast B32:$a), (MOV_F32_B32 B32:$a)>;
def : Pat<(bitcast F32:$a), (MOV_B32_F32 F32:$a)>;
def : Pat<(bitcast B64:$a), (MOV_F64_B64 B64:$a)>;
def : Pat<(bitcast F64:$a), (MOV_B64_F64 F64:$a)>;

def : Pat<(select Pred:$c, B32:$t, B32:$f), (SELP_B32 B32:$t, B32:$f, Pred:$c)>;
def : Pat<(select Pred:$c, B64:$t, B64:$f), (SELP_B64 B64:$t, B64:$f, Pred:$c)>;
def : Pat<(select Pred:$c, F32:$t, F32:$f), (SELP_F32 F32:$t, F32:$f, Pred:$c)>;
def : Pat<(select Pred:$c, F64:$t, F64:$f), (SELP_F64 F64:$t, F64:$f, Pred:$c)>;
