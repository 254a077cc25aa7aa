//===- SimtPatterns.td - IR to SIMT selection patterns ----------*- tblgen -*-===//
//
// Each pattern maps one IR operation with register (GPR) or immediate
// (simm12, ...) operands onto one instruction; the result may reorder the
// operands by name and add fixed values (a special register). tandem-tblgen
// checks every pattern (target/tblgen/PatternRecords.cpp); isel/'s shared
// matcher (isel/PatternMatch.h) reads the generated table. Adding a pattern
// is an edit here, nothing else; tests/compiler/PatternTableTest.cpp covers
// it. Patterns listed first win when several match (immediate forms first).
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

// Integer compares (isel canonicalizes: a constant operand on the right).
// Immediate forms first; gt/ge with registers swap the operands. le/ge
// against a constant become lt/gt with the constant moved by one in
// isel/SelectOps.cpp (not a one-to-one rewrite).
def : Pat<(seteq  GPR:$a, simm12:$i), (SETEQI  GPR:$a, simm12:$i)>;
def : Pat<(setne  GPR:$a, simm12:$i), (SETNEI  GPR:$a, simm12:$i)>;
def : Pat<(setlt  GPR:$a, simm12:$i), (SETLTI  GPR:$a, simm12:$i)>;
def : Pat<(setult GPR:$a, simm12:$i), (SETLTUI GPR:$a, simm12:$i)>;
def : Pat<(setgt  GPR:$a, simm12:$i), (SETGTI  GPR:$a, simm12:$i)>;
def : Pat<(setugt GPR:$a, simm12:$i), (SETGTUI GPR:$a, simm12:$i)>;
defm : BinPat<seteq,  SETEQ>;
defm : BinPat<setne,  SETNE>;
defm : BinPat<setlt,  SETLT>;
defm : BinPat<setle,  SETLE>;
defm : BinPat<setult, SETLTU>;
defm : BinPat<setule, SETLEU>;
multiclass SwappedPat<SDNode node, Instruction inst> {
  def : Pat<(node GPR:$a, GPR:$b), (inst GPR:$b, GPR:$a)>;
}
defm : SwappedPat<setgt,  SETLT>;
defm : SwappedPat<setge,  SETLE>;
defm : SwappedPat<setugt, SETLTU>;
defm : SwappedPat<setuge, SETLEU>;

// Ordered fp compares; the unordered ones (and ord) are the inverse compare
// followed by xori 1 (isel/SelectOps.cpp).
defm : BinPat<fsetoeq, FSETEQ>;
defm : BinPat<fsetone, FSETNE>;
defm : BinPat<fsetolt, FSETLT>;
defm : BinPat<fsetole, FSETLE>;
defm : SwappedPat<fsetogt, FSETLT>;
defm : SwappedPat<fsetoge, FSETLE>;
defm : BinPat<fsetuo, FSETNAN>;

// Special registers: s2r with the register's index.
def : Pat<(sreg_tid_x),    (S2R SR_TID_X)>;
def : Pat<(sreg_tid_y),    (S2R SR_TID_Y)>;
def : Pat<(sreg_tid_z),    (S2R SR_TID_Z)>;
def : Pat<(sreg_ntid_x),   (S2R SR_NTID_X)>;
def : Pat<(sreg_ntid_y),   (S2R SR_NTID_Y)>;
def : Pat<(sreg_ntid_z),   (S2R SR_NTID_Z)>;
def : Pat<(sreg_ctaid_x),  (S2R SR_CTAID_X)>;
def : Pat<(sreg_ctaid_y),  (S2R SR_CTAID_Y)>;
def : Pat<(sreg_ctaid_z),  (S2R SR_CTAID_Z)>;
def : Pat<(sreg_nctaid_x), (S2R SR_NCTAID_X)>;
def : Pat<(sreg_nctaid_y), (S2R SR_NCTAID_Y)>;
def : Pat<(sreg_nctaid_z), (S2R SR_NCTAID_Z)>;
def : Pat<(sreg_laneid),   (S2R SR_LANEID)>;
def : Pat<(sreg_warpid),   (S2R SR_WARPID)>;
def : Pat<(sreg_nwarps),   (S2R SR_NWARPS)>;
def : Pat<(sreg_clock),    (S2R SR_CLOCK)>;

def : Pat<(barrier0), (BAR)>;

// Warp operations: isel drops the member mask (simt shuffles read the named
// lane, active or not; votes see the active lanes) and checks the clamp.
def : Pat<(shfl_idx  GPR:$v, GPR:$lane), (SHFL_IDX  GPR:$v, GPR:$lane)>;
def : Pat<(shfl_up   GPR:$v, GPR:$lane), (SHFL_UP   GPR:$v, GPR:$lane)>;
def : Pat<(shfl_down GPR:$v, GPR:$lane), (SHFL_DOWN GPR:$v, GPR:$lane)>;
def : Pat<(shfl_bfly GPR:$v, GPR:$lane), (SHFL_XOR  GPR:$v, GPR:$lane)>;
defm : UnPat<vote_any, VOTE_ANY>;
defm : UnPat<vote_all, VOTE_ALL>;
defm : UnPat<vote_ballot, VOTE_BALLOT>;

// Atomics: atom.<space>.<op> rd, [rs1], rs2 has no offset field, so the
// selector adds a folded offset to the address first.
foreach space = ["global", "shared"] in {
  defvar SP = !toupper(space);
  foreach op = [["add", "ADD"], ["fadd", "FADD"], ["min", "MIN"], ["max", "MAX"],
                ["umin", "MINU"], ["umax", "MAXU"], ["xchg", "EXCH"]] in
    def : Pat<(!cast<SDNode>("atomic_" # op[0] # "_" # space) GPR:$p, GPR:$v),
              (!cast<Instruction>("ATOM_" # SP # "_" # op[1]) GPR:$p, GPR:$v)>;
}

// Loads and stores: ld.<space>.<u|s><bits> rd, [rs1 + simm12] and
// st.<space>.u<bits> [rs1 + simm12], rs2, the address folded by `addr` (a
// base register and an offset that fits simm12; the selector moves a larger
// offset into the base first). sextload is a narrow load whose value is only
// sign-extended. The const space has word loads only: isel/SelectMemory.cpp
// extracts i8/i16 from the word, and i64 accesses are two word accesses.
def addr : AddrMode<GPR, simm12>;
foreach space = ["global", "shared", "local"] in {
  defvar SP = !toupper(space);
  foreach w = ["8", "16", "32"] in {
    def : Pat<(!cast<SDNode>("load_" # space # "_" # w) addr:$p),
              (!cast<Instruction>(SP # "_LD_U" # w) addr:$p)>;
    def : Pat<(!cast<SDNode>("store_" # space # "_" # w) addr:$p, GPR:$v),
              (!cast<Instruction>(SP # "_ST_U" # w) addr:$p, GPR:$v)>;
  }
  foreach w = ["8", "16"] in
    def : Pat<(!cast<SDNode>("sextload_" # space # "_" # w) addr:$p),
              (!cast<Instruction>(SP # "_LD_S" # w) addr:$p)>;
}
def : Pat<(load_const_32 addr:$p), (CONST_LD_U32 addr:$p)>;
