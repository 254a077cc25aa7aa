//===- PtxPatterns.td - IR to PTX selection patterns ------------*- tblgen -*-===//
//
// Each pattern maps one IR operation (target/common/IRNodes.td) whose
// operands have the given register classes onto one instruction; the
// result class is the instruction's def. The shared matcher
// (isel/PatternMatch.h, used by isel/SelectPtx.cpp's selectByPattern) picks
// the first pattern whose node, operand classes and result class match the
// IR instruction's types; a constant operand becomes
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
def : Pat<(nvvm_ex2_approx_ftz F32:$a), (EX2_APPROX_FTZ_F32 F32:$a)>;
def : Pat<(nvvm_ex2_approx F32:$a), (EX2_APPROX_F32 F32:$a)>;
def : Pat<(nvvm_saturate F32:$a), (CVT_SAT_F32 F32:$a)>;
def : Pat<(nvvm_rcp_approx_ftz F32:$a), (RCP_APPROX_FTZ_F32 F32:$a)>;
def : Pat<(nvvm_fma_rm F32:$a, F32:$b, F32:$c), (FMA_RM_F32 F32:$a, F32:$b, F32:$c)>;

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

// Special registers: mov.u32 from the register.
def : Pat<(sreg_tid_x),    (MOV_SREG SR_TID_X)>;
def : Pat<(sreg_tid_y),    (MOV_SREG SR_TID_Y)>;
def : Pat<(sreg_tid_z),    (MOV_SREG SR_TID_Z)>;
def : Pat<(sreg_ntid_x),   (MOV_SREG SR_NTID_X)>;
def : Pat<(sreg_ntid_y),   (MOV_SREG SR_NTID_Y)>;
def : Pat<(sreg_ntid_z),   (MOV_SREG SR_NTID_Z)>;
def : Pat<(sreg_ctaid_x),  (MOV_SREG SR_CTAID_X)>;
def : Pat<(sreg_ctaid_y),  (MOV_SREG SR_CTAID_Y)>;
def : Pat<(sreg_ctaid_z),  (MOV_SREG SR_CTAID_Z)>;
def : Pat<(sreg_nctaid_x), (MOV_SREG SR_NCTAID_X)>;
def : Pat<(sreg_nctaid_y), (MOV_SREG SR_NCTAID_Y)>;
def : Pat<(sreg_nctaid_z), (MOV_SREG SR_NCTAID_Z)>;
def : Pat<(sreg_laneid),   (MOV_SREG SR_LANEID)>;
def : Pat<(sreg_warpid),   (MOV_SREG SR_WARPID)>;
def : Pat<(sreg_clock),    (MOV_SREG SR_CLOCK)>;

// Barriers. membar.sys is stronger than membar.gl, which covers one device.
def : Pat<(barrier0), (BAR_SYNC)>;
def : Pat<(bar_warp_sync B32:$m), (BAR_WARP_SYNC B32:$m)>;
def : Pat<(membar_cta), (MEMBAR_CTA)>;
def : Pat<(membar_gl), (MEMBAR_GL)>;
def : Pat<(membar_sys), (MEMBAR_GL)>;

// Warp operations: (value, lane or delta, clamp, member mask); the value's
// class picks the form. Votes: (predicate, member mask).
foreach mode = ["idx", "up", "down", "bfly"] in {
  def : Pat<(!cast<SDNode>("shfl_" # mode) B32:$a, B32:$b, B32:$c, B32:$m),
            (!cast<Instruction>("SHFL_" # mode # "_B32") B32:$a, B32:$b, B32:$c, B32:$m)>;
  def : Pat<(!cast<SDNode>("shfl_" # mode) F32:$a, B32:$b, B32:$c, B32:$m),
            (!cast<Instruction>("SHFL_" # mode # "_F32") F32:$a, B32:$b, B32:$c, B32:$m)>;
}
def : Pat<(vote_any Pred:$a, B32:$m), (VOTE_ANY Pred:$a, B32:$m)>;
def : Pat<(vote_all Pred:$a, B32:$m), (VOTE_ALL Pred:$a, B32:$m)>;
def : Pat<(vote_ballot Pred:$a, B32:$m), (VOTE_BALLOT Pred:$a, B32:$m)>;

// setp's comparisons: PTX.h's CondCode enum and condCodeName() are generated
// from these records, in this order (--gen-ptx-instr-info).
class PtxCondCode<string name, int value> : PatImm<value> { string Name = name; }
def CC_EQ  : PtxCondCode<"eq",  0>;
def CC_NE  : PtxCondCode<"ne",  1>;
def CC_LT  : PtxCondCode<"lt",  2>;
def CC_LE  : PtxCondCode<"le",  3>;
def CC_GT  : PtxCondCode<"gt",  4>;
def CC_GE  : PtxCondCode<"ge",  5>;
def CC_LO  : PtxCondCode<"lo",  6>;
def CC_LS  : PtxCondCode<"ls",  7>;
def CC_HI  : PtxCondCode<"hi",  8>;
def CC_HS  : PtxCondCode<"hs",  9>;
def CC_EQU : PtxCondCode<"equ", 10>;
def CC_NEU : PtxCondCode<"neu", 11>;
def CC_LTU : PtxCondCode<"ltu", 12>;
def CC_LEU : PtxCondCode<"leu", 13>;
def CC_GTU : PtxCondCode<"gtu", 14>;
def CC_GEU : PtxCondCode<"geu", 15>;
def CC_NUM : PtxCondCode<"num", 16>;
def CC_NaN : PtxCondCode<"nan", 17>;

// Integer compares: eq/ne and the unsigned ones compare .u, the signed
// ones .s. isel/SelectPtx.cpp sign-extends i8/i16 operands of signed
// compares and compares i1 values with xor itself.
multiclass IntCmpPat<SDNode node, string sign, PtxCondCode cc> {
  def : Pat<(node B32:$a, B32:$b),
            (!cast<Instruction>("SETP_" # sign # "32") cc, B32:$a, B32:$b)>;
  def : Pat<(node B64:$a, B64:$b),
            (!cast<Instruction>("SETP_" # sign # "64") cc, B64:$a, B64:$b)>;
}
defm : IntCmpPat<seteq,  "U", CC_EQ>;
defm : IntCmpPat<setne,  "U", CC_NE>;
defm : IntCmpPat<setlt,  "S", CC_LT>;
defm : IntCmpPat<setle,  "S", CC_LE>;
defm : IntCmpPat<setgt,  "S", CC_GT>;
defm : IntCmpPat<setge,  "S", CC_GE>;
defm : IntCmpPat<setult, "U", CC_LO>;
defm : IntCmpPat<setule, "U", CC_LS>;
defm : IntCmpPat<setugt, "U", CC_HI>;
defm : IntCmpPat<setuge, "U", CC_HS>;

// Float compares: ordered and unordered forms of each predicate, num, nan.
multiclass FpCmpPat<SDNode node, PtxCondCode cc> {
  def : Pat<(node F32:$a, F32:$b), (SETP_F32 cc, F32:$a, F32:$b)>;
  def : Pat<(node F64:$a, F64:$b), (SETP_F64 cc, F64:$a, F64:$b)>;
}
defm : FpCmpPat<fsetoeq, CC_EQ>;
defm : FpCmpPat<fsetone, CC_NE>;
defm : FpCmpPat<fsetolt, CC_LT>;
defm : FpCmpPat<fsetole, CC_LE>;
defm : FpCmpPat<fsetogt, CC_GT>;
defm : FpCmpPat<fsetoge, CC_GE>;
defm : FpCmpPat<fsetueq, CC_EQU>;
defm : FpCmpPat<fsetune, CC_NEU>;
defm : FpCmpPat<fsetult, CC_LTU>;
defm : FpCmpPat<fsetule, CC_LEU>;
defm : FpCmpPat<fsetugt, CC_GTU>;
defm : FpCmpPat<fsetuge, CC_GEU>;
defm : FpCmpPat<fseto,   CC_NUM>;
defm : FpCmpPat<fsetuo,  CC_NaN>;

// Atomics: atom.<space>.<op> d, [base+off], v; the value's class picks the
// form (add.u32, add.u64, add.f32). The selector folds the address.
def addr : AddrMode<B64, memoff>;
foreach space = ["global", "shared", "generic"] in {
  defvar SP = !toupper(space);
  foreach op = [["add", "ADD_U32", "B32"], ["add", "ADD_U64", "B64"], ["fadd", "ADD_F32", "F32"],
                ["min", "MIN_S32", "B32"], ["max", "MAX_S32", "B32"], ["umin", "MIN_U32", "B32"],
                ["umax", "MAX_U32", "B32"], ["xchg", "EXCH_B32", "B32"], ["xchg", "EXCH_B64", "B64"],
                ["and", "AND_B32", "B32"], ["or", "OR_B32", "B32"], ["xor", "XOR_B32", "B32"],
                ["uinc_wrap", "INC_U32", "B32"], ["udec_wrap", "DEC_U32", "B32"]] in {
    defvar rc = !cast<PtxRegClass>(op[2]);
    def : Pat<(!cast<SDNode>("atomic_" # op[0] # "_" # space) addr:$p, rc:$v),
              (!cast<Instruction>("ATOM_" # SP # "_" # op[1]) addr:$p, rc:$v)>;
  }
}

// Loads and stores: ld.<space>.<type> d, [base+off] and st.<space>.<type>
// [base+off], v, the address folded by `addr`. The node gives the width,
// the value's class the type (B32 u32, F32 f32, ...); u8/u16 load into and
// store from a zero-extended .b32 register. global_nc is the read-only
// (non-coherent) path the selector picks for data the kernel cannot write;
// const and global_nc have no stores.
foreach space = [["global", "GLOBAL", "st"], ["global_nc", "GLOBAL_NC", ""],
                 ["shared", "SHARED", "st"], ["local", "LOCAL", "st"], ["const", "CONST", ""],
                 ["generic", "GENERIC", "st"]] in {
  defvar sp = space[0];
  defvar SP = space[1];
  foreach t = [["8", "U8", "B32"], ["16", "U16", "B32"], ["32", "U32", "B32"],
               ["32", "F32", "F32"], ["64", "U64", "B64"], ["64", "F64", "F64"]] in {
    defvar rc = !cast<PtxRegClass>(t[2]);
    def : Pat<(!cast<SDNode>("load_" # sp # "_" # t[0]) addr:$p),
              (!cast<Instruction>(SP # "_LD_" # t[1]) addr:$p)>;
    if !ne(space[2], "") then
    def : Pat<(!cast<SDNode>("store_" # sp # "_" # t[0]) addr:$p, rc:$v),
              (!cast<Instruction>(SP # "_ST_" # t[1]) addr:$p, rc:$v)>;
  }
}
