//===- PtxInstrInfo.td - PTX instructions -----------------------*- tblgen -*-===//
//
// One record per PTX instruction *form* the compiler emits: the assembly
// template names the operands ($d, $a, ...) and the dag lists them with
// their classes. MIR operands follow the dag order: outs, then ins (the
// template may mention them in any order). Operand classes:
//   Pred, B32, B64, F32, F64     a register of that class
//   s32, s64, sf32, sf64         a register of that class OR an immediate
//                                (PTX accepts immediates in most source
//                                positions; f32/f64 immediates print as
//                                0fXXXXXXXX / 0dXXXXXXXXXXXXXXXX)
//   memoff                       the constant byte offset of [$base+$off]
//   sym                          a symbol: parameter, shared variable or
//                                the local depot (printed by name)
//   sreg                         a special register (%tid.x, ...)
//   cc                           a comparison (eq, lt, lo, ...; see PTX.h)
//   target                       a branch target (a block label)
// Floating point add/sub/mul carry .rn so ptxas never fuses them into an
// fma on its own: contraction is decided by the selector (where the IR
// allows it), so the PTX means exactly what the IR means.
//
//===----------------------------------------------------------------------===//

class PtxOperand<string kind, PtxRegClass rc> : Operand<kind, rc.Size> {
  PtxRegClass Class = rc;
}
def s32  : PtxOperand<"RegOrImm", B32>;
def s64  : PtxOperand<"RegOrImm", B64>;
def sf32 : PtxOperand<"RegOrImm", F32>;
def sf64 : PtxOperand<"RegOrImm", F64>;
def memoff : PtxOperand<"MemOffset", B64>;
def sym    : PtxOperand<"Symbol", B64>;
def sreg   : PtxOperand<"SpecialReg", B32>;
def cc     : PtxOperand<"CondCode", Pred>;
def target : PtxOperand<"Block", Pred>;

class PtxInst<string asm, dag outs, dag ins, string desc = ""> : Instruction {
  let Namespace = "Ptx";
  let AsmString = asm;
  let OutOperandList = outs;
  let InOperandList = ins;
  let Description = desc;
}

//===----------------------------------------------------------------------===//
// Integer arithmetic and logic
//===----------------------------------------------------------------------===//

// op.s32 / op.s64 (or .u32, .b32, ... as the suffixes say).
multiclass Int3<string op, string t32, string t64> {
  def _32 : PtxInst<op # "." # t32 # " $d, $a, $b", (outs B32:$d), (ins s32:$a, s32:$b)>;
  def _64 : PtxInst<op # "." # t64 # " $d, $a, $b", (outs B64:$d), (ins s64:$a, s64:$b)>;
}
defm ADD   : Int3<"add", "s32", "s64">;
defm SUB   : Int3<"sub", "s32", "s64">;
defm MUL   : Int3<"mul.lo", "s32", "s64">;
defm AND   : Int3<"and", "b32", "b64">;
defm OR    : Int3<"or",  "b32", "b64">;
defm XOR   : Int3<"xor", "b32", "b64">;
defm SDIV  : Int3<"div", "s32", "s64">;
defm UDIV  : Int3<"div", "u32", "u64">;
defm SREM  : Int3<"rem", "s32", "s64">;
defm UREM  : Int3<"rem", "u32", "u64">;
defm SMIN  : Int3<"min", "s32", "s64">;
defm SMAX  : Int3<"max", "s32", "s64">;
defm UMIN  : Int3<"min", "u32", "u64">;
defm UMAX  : Int3<"max", "u32", "u64">;
defm MULHI_S : Int3<"mul.hi", "s32", "s64">;
defm MULHI_U : Int3<"mul.hi", "u32", "u64">;

// Shifts: the amount is a .u32 operand at both widths; counts beyond the
// width give 0 (or the sign), which covers LLVM's poison cases.
multiclass Shift<string op, string t32, string t64> {
  def _32 : PtxInst<op # "." # t32 # " $d, $a, $b", (outs B32:$d), (ins s32:$a, s32:$b)>;
  def _64 : PtxInst<op # "." # t64 # " $d, $a, $b", (outs B64:$d), (ins s64:$a, s32:$b)>;
}
defm SHL : Shift<"shl", "b32", "b64">;
defm SRL : Shift<"shr", "u32", "u64">;
defm SRA : Shift<"shr", "s32", "s64">;

// Wide multiply: the 64-bit product of two 32-bit values (address arithmetic).
def MULWIDE_S32 : PtxInst<"mul.wide.s32 $d, $a, $b", (outs B64:$d), (ins s32:$a, s32:$b)>;
def MULWIDE_U32 : PtxInst<"mul.wide.u32 $d, $a, $b", (outs B64:$d), (ins s32:$a, s32:$b)>;

// Bit counting: the result is a .u32 at both widths.
def POPC_32 : PtxInst<"popc.b32 $d, $a", (outs B32:$d), (ins s32:$a)>;
def POPC_64 : PtxInst<"popc.b64 $d, $a", (outs B32:$d), (ins s64:$a)>;
def CLZ_32  : PtxInst<"clz.b32 $d, $a",  (outs B32:$d), (ins s32:$a)>;
def CLZ_64  : PtxInst<"clz.b64 $d, $a",  (outs B32:$d), (ins s64:$a)>;
def BREV_32 : PtxInst<"brev.b32 $d, $a", (outs B32:$d), (ins s32:$a)>;
def BREV_64 : PtxInst<"brev.b64 $d, $a", (outs B64:$d), (ins s64:$a)>;
def ABS_32  : PtxInst<"abs.s32 $d, $a",  (outs B32:$d), (ins s32:$a)>;
def ABS_64  : PtxInst<"abs.s64 $d, $a",  (outs B64:$d), (ins s64:$a)>;
def NOT_32  : PtxInst<"not.b32 $d, $a",  (outs B32:$d), (ins s32:$a)>;

// Funnel shifts: d = high word of ({hi, lo} << (n & 31)), resp. low word of
// ({hi, lo} >> (n & 31)).
def SHF_L_WRAP : PtxInst<"shf.l.wrap.b32 $d, $lo, $hi, $n", (outs B32:$d),
                         (ins s32:$lo, s32:$hi, s32:$n)>;
def SHF_R_WRAP : PtxInst<"shf.r.wrap.b32 $d, $lo, $hi, $n", (outs B32:$d),
                         (ins s32:$lo, s32:$hi, s32:$n)>;

// Predicate logic (i1 values).
def AND_PRED : PtxInst<"and.pred $d, $a, $b", (outs Pred:$d), (ins Pred:$a, Pred:$b)>;
def OR_PRED  : PtxInst<"or.pred $d, $a, $b",  (outs Pred:$d), (ins Pred:$a, Pred:$b)>;
def XOR_PRED : PtxInst<"xor.pred $d, $a, $b", (outs Pred:$d), (ins Pred:$a, Pred:$b)>;
def NOT_PRED : PtxInst<"not.pred $d, $a",     (outs Pred:$d), (ins Pred:$a)>;

//===----------------------------------------------------------------------===//
// Floating point
//===----------------------------------------------------------------------===//

multiclass Fp3<string op> {
  def _F32 : PtxInst<op # ".f32 $d, $a, $b", (outs F32:$d), (ins sf32:$a, sf32:$b)>;
  def _F64 : PtxInst<op # ".f64 $d, $a, $b", (outs F64:$d), (ins sf64:$a, sf64:$b)>;
}
defm FADD : Fp3<"add.rn">;
defm FSUB : Fp3<"sub.rn">;
defm FMUL : Fp3<"mul.rn">;
defm FDIV : Fp3<"div.rn">;
defm FMIN : Fp3<"min">;
defm FMAX : Fp3<"max">;

multiclass Fp2<string op> {
  def _F32 : PtxInst<op # ".f32 $d, $a", (outs F32:$d), (ins sf32:$a)>;
  def _F64 : PtxInst<op # ".f64 $d, $a", (outs F64:$d), (ins sf64:$a)>;
}
defm FNEG   : Fp2<"neg">;
defm FABS   : Fp2<"abs">;
defm FSQRT  : Fp2<"sqrt.rn">;

// cvt.rmi.f32 takes the type twice: cvt.rmi.f32.f32 $d, $a.
foreach rnd = ["rmi", "rpi", "rzi", "rni"] in {
  def CVT_ # rnd # _F32 : PtxInst<"cvt." # rnd # ".f32.f32 $d, $a", (outs F32:$d), (ins F32:$a)>;
  def CVT_ # rnd # _F64 : PtxInst<"cvt." # rnd # ".f64.f64 $d, $a", (outs F64:$d), (ins F64:$a)>;
}

def FMA_F32 : PtxInst<"fma.rn.f32 $d, $a, $b, $c", (outs F32:$d), (ins sf32:$a, sf32:$b, sf32:$c)>;
def FMA_F64 : PtxInst<"fma.rn.f64 $d, $a, $b, $c", (outs F64:$d), (ins sf64:$a, sf64:$b, sf64:$c)>;

// What nvcc's libdevice builds expf, exp2f and powf from (the math
// library's ptx variant uses them the same way): the hardware's 2^x and
// 1/x approximations (.ftz flushes subnormal inputs and results; rcp.approx
// is within 1 ulp), a clamp to [0, 1] (NaN gives 0), and fma rounding
// toward minus infinity.
def EX2_APPROX_FTZ_F32 : PtxInst<"ex2.approx.ftz.f32 $d, $a", (outs F32:$d), (ins F32:$a)>;
def EX2_APPROX_F32     : PtxInst<"ex2.approx.f32 $d, $a", (outs F32:$d), (ins F32:$a)>;
def RCP_APPROX_FTZ_F32 : PtxInst<"rcp.approx.ftz.f32 $d, $a", (outs F32:$d), (ins F32:$a)>;
def CVT_SAT_F32        : PtxInst<"cvt.sat.f32.f32 $d, $a", (outs F32:$d), (ins F32:$a)>;
def FMA_RM_F32 : PtxInst<"fma.rm.f32 $d, $a, $b, $c", (outs F32:$d), (ins sf32:$a, sf32:$b, sf32:$c)>;

//===----------------------------------------------------------------------===//
// Conversions and moves
//===----------------------------------------------------------------------===//

class Cvt<string types, PtxRegClass to, PtxOperand from>
    : PtxInst<"cvt." # types # " $d, $a", (outs to:$d), (ins from:$a)>;
def CVT_F32_S32 : Cvt<"rn.f32.s32", F32, s32>;
def CVT_F32_U32 : Cvt<"rn.f32.u32", F32, s32>;
def CVT_F32_S64 : Cvt<"rn.f32.s64", F32, s64>;
def CVT_F32_U64 : Cvt<"rn.f32.u64", F32, s64>;
def CVT_F64_S32 : Cvt<"rn.f64.s32", F64, s32>;
def CVT_F64_U32 : Cvt<"rn.f64.u32", F64, s32>;
def CVT_F64_S64 : Cvt<"rn.f64.s64", F64, s64>;
def CVT_F64_U64 : Cvt<"rn.f64.u64", F64, s64>;
def CVT_S32_F32 : Cvt<"rzi.s32.f32", B32, sf32>;
def CVT_U32_F32 : Cvt<"rzi.u32.f32", B32, sf32>;
def CVT_S64_F32 : Cvt<"rzi.s64.f32", B64, sf32>;
def CVT_U64_F32 : Cvt<"rzi.u64.f32", B64, sf32>;
def CVT_S32_F64 : Cvt<"rzi.s32.f64", B32, sf64>;
def CVT_U32_F64 : Cvt<"rzi.u32.f64", B32, sf64>;
def CVT_S64_F64 : Cvt<"rzi.s64.f64", B64, sf64>;
def CVT_U64_F64 : Cvt<"rzi.u64.f64", B64, sf64>;
def CVT_F32_F64 : Cvt<"rn.f32.f64", F32, sf64>;
def CVT_F64_F32 : Cvt<"f64.f32", F64, sf32>;
def CVT_U64_U32 : Cvt<"u64.u32", B64, s32>;
def CVT_S64_S32 : Cvt<"s64.s32", B64, s32>;
def CVT_U32_U64 : Cvt<"u32.u64", B32, s64>;

// Copies (the COPY pseudo prints as the move of its class) and constants.
def MOV_PRED : PtxInst<"mov.pred $d, $a", (outs Pred:$d), (ins Pred:$a)>;
def MOV_B32  : PtxInst<"mov.b32 $d, $a",  (outs B32:$d), (ins s32:$a)>;
def MOV_B64  : PtxInst<"mov.b64 $d, $a",  (outs B64:$d), (ins s64:$a)>;
def MOV_F32  : PtxInst<"mov.f32 $d, $a",  (outs F32:$d), (ins sf32:$a)>;
def MOV_F64  : PtxInst<"mov.f64 $d, $a",  (outs F64:$d), (ins sf64:$a)>;
// Bit casts between integer and float registers of one size.
def MOV_F32_B32 : PtxInst<"mov.b32 $d, $a", (outs F32:$d), (ins B32:$a)>;
def MOV_B32_F32 : PtxInst<"mov.b32 $d, $a", (outs B32:$d), (ins F32:$a)>;
def MOV_F64_B64 : PtxInst<"mov.b64 $d, $a", (outs F64:$d), (ins B64:$a)>;
def MOV_B64_F64 : PtxInst<"mov.b64 $d, $a", (outs B64:$d), (ins F64:$a)>;
// The address of a symbol (shared variable, local depot) in its space.
def MOV_SYM  : PtxInst<"mov.u64 $d, $s", (outs B64:$d), (ins sym:$s)>;
def MOV_SREG : PtxInst<"mov.u32 $d, $sr", (outs B32:$d), (ins sreg:$sr)>;

// Generic <-> specific address spaces.
foreach space = ["global", "shared", "local", "const"] in {
  def CVTA_ # space : PtxInst<"cvta." # space # ".u64 $d, $a", (outs B64:$d), (ins B64:$a)>;
  def CVTA_TO_ # space : PtxInst<"cvta.to." # space # ".u64 $d, $a", (outs B64:$d), (ins B64:$a)>;
}

//===----------------------------------------------------------------------===//
// Compares and selects
//===----------------------------------------------------------------------===//

class Setp<string t, PtxOperand src>
    : PtxInst<"setp.$cc." # t # " $d, $a, $b", (outs Pred:$d), (ins cc:$cc, src:$a, src:$b)>;
def SETP_S32 : Setp<"s32", s32>;
def SETP_U32 : Setp<"u32", s32>;
def SETP_S64 : Setp<"s64", s64>;
def SETP_U64 : Setp<"u64", s64>;
def SETP_F32 : Setp<"f32", sf32>;
def SETP_F64 : Setp<"f64", sf64>;

class Selp<string t, PtxRegClass rc, PtxOperand src>
    : PtxInst<"selp." # t # " $d, $a, $b, $c", (outs rc:$d), (ins src:$a, src:$b, Pred:$c)>;
def SELP_B32 : Selp<"b32", B32, s32>;
def SELP_B64 : Selp<"b64", B64, s64>;
def SELP_F32 : Selp<"f32", F32, sf32>;
def SELP_F64 : Selp<"f64", F64, sf64>;

//===----------------------------------------------------------------------===//
// Memory: [$base+$off] with a 64-bit base register
//===----------------------------------------------------------------------===//

// char/short parameters: zero-extended into a .b32 register (the invariant
// of promoted i8/i16 values; SelectPtx.cpp).
def LD_PARAM_U8 : PtxInst<"ld.param.u8 $d, [$s]", (outs B32:$d), (ins sym:$s)> {
  let isLoad = 1; let Space = ParamSpace; let AccessBytes = 1;
}
def LD_PARAM_U16 : PtxInst<"ld.param.u16 $d, [$s]", (outs B32:$d), (ins sym:$s)> {
  let isLoad = 1; let Space = ParamSpace; let AccessBytes = 2;
}
def LD_PARAM_U32 : PtxInst<"ld.param.u32 $d, [$s]", (outs B32:$d), (ins sym:$s)> {
  let isLoad = 1; let Space = ParamSpace; let AccessBytes = 4;
}
def LD_PARAM_U64 : PtxInst<"ld.param.u64 $d, [$s]", (outs B64:$d), (ins sym:$s)> {
  let isLoad = 1; let Space = ParamSpace; let AccessBytes = 8;
}
def LD_PARAM_F32 : PtxInst<"ld.param.f32 $d, [$s]", (outs F32:$d), (ins sym:$s)> {
  let isLoad = 1; let Space = ParamSpace; let AccessBytes = 4;
}
def LD_PARAM_F64 : PtxInst<"ld.param.f64 $d, [$s]", (outs F64:$d), (ins sym:$s)> {
  let isLoad = 1; let Space = ParamSpace; let AccessBytes = 8;
}

// Loads and stores of every type in one space. u8/u16 load into (and store
// from) a .b32 register: ld zero-extends, st truncates.
class MemType<string name, string ptxType, PtxRegClass rc, int bytes> {
  string Name = name;
  string PtxType = ptxType;
  PtxRegClass Class = rc;
  int Bytes = bytes;
}
def MemU8  : MemType<"U8",  "u8",  B32, 1>;
def MemU16 : MemType<"U16", "u16", B32, 2>;
def MemU32 : MemType<"U32", "u32", B32, 4>;
def MemU64 : MemType<"U64", "u64", B64, 8>;
def MemF32 : MemType<"F32", "f32", F32, 4>;
def MemF64 : MemType<"F64", "f64", F64, 8>;

multiclass LoadStore<string ld, string st, MemorySpace space> {
  foreach t = [MemU8, MemU16, MemU32, MemU64, MemF32, MemF64] in {
    def _LD_ # t.Name : PtxInst<ld # "." # t.PtxType # " $d, [$base+$off]",
                                (outs t.Class:$d), (ins B64:$base, memoff:$off)> {
      let isLoad = 1; let Space = space; let AccessBytes = t.Bytes;
    }
    if !ne(st, "") then
    def _ST_ # t.Name : PtxInst<st # "." # t.PtxType # " [$base+$off], $v", (outs),
                                (ins B64:$base, memoff:$off, t.Class:$v)> {
      let isStore = 1; let Space = space; let AccessBytes = t.Bytes;
    }
  }
}
defm GLOBAL    : LoadStore<"ld.global", "st.global", GlobalSpace>;
// Read-only data (a noalias pointer the kernel never writes through): the
// non-coherent texture path.
defm GLOBAL_NC : LoadStore<"ld.global.nc", "", GlobalSpace>;
defm SHARED    : LoadStore<"ld.shared", "st.shared", SharedSpace>;
// __constant__ variables (.const declarations): read-only, no stores.
defm CONST     : LoadStore<"ld.const", "", ConstSpace>;
defm LOCAL     : LoadStore<"ld.local", "st.local", LocalSpace>;
// Generic addresses (a pointer whose space preparation could not infer, such
// as one loaded from memory): plain ld/st, the hardware finds the window.
def GenericSpace : MemorySpace<"Generic">;
defm GENERIC   : LoadStore<"ld", "st", GenericSpace>;

// Atomics: d = old value; the memory gets (old op v).
class AtomOp<string name, string op, PtxRegClass rc, int bytes> {
  string Name = name;
  string Op = op;
  PtxRegClass Class = rc;
  int Bytes = bytes;
}
multiclass Atomics<string pre, MemorySpace space> {
  foreach a = [AtomOp<"ADD_U32", "add.u32", B32, 4>, AtomOp<"ADD_U64", "add.u64", B64, 8>,
               AtomOp<"ADD_F32", "add.f32", F32, 4>, AtomOp<"MIN_S32", "min.s32", B32, 4>,
               AtomOp<"MAX_S32", "max.s32", B32, 4>, AtomOp<"MIN_U32", "min.u32", B32, 4>,
               AtomOp<"MAX_U32", "max.u32", B32, 4>, AtomOp<"EXCH_B32", "exch.b32", B32, 4>,
               AtomOp<"EXCH_B64", "exch.b64", B64, 8>, AtomOp<"AND_B32", "and.b32", B32, 4>,
               AtomOp<"OR_B32", "or.b32", B32, 4>, AtomOp<"XOR_B32", "xor.b32", B32, 4>,
               AtomOp<"INC_U32", "inc.u32", B32, 4>, AtomOp<"DEC_U32", "dec.u32", B32, 4>] in
    def _ # a.Name : PtxInst<pre # "." # a.Op # " $d, [$base+$off], $v", (outs a.Class:$d),
                             (ins B64:$base, memoff:$off, a.Class:$v)> {
      let isAtomic = 1; let Space = space; let AccessBytes = a.Bytes;
    }
  def _CAS_B32 : PtxInst<pre # ".cas.b32 $d, [$base+$off], $cmp, $v", (outs B32:$d),
                         (ins B64:$base, memoff:$off, B32:$cmp, B32:$v)> {
    let isAtomic = 1; let Space = space; let AccessBytes = 4;
  }
  def _CAS_B64 : PtxInst<pre # ".cas.b64 $d, [$base+$off], $cmp, $v", (outs B64:$d),
                         (ins B64:$base, memoff:$off, B64:$cmp, B64:$v)> {
    let isAtomic = 1; let Space = space; let AccessBytes = 8;
  }
}
defm ATOM_GLOBAL : Atomics<"atom.global", GlobalSpace>;
defm ATOM_SHARED : Atomics<"atom.shared", SharedSpace>;
defm ATOM_GENERIC : Atomics<"atom", GenericSpace>;

//===----------------------------------------------------------------------===//
// Warp operations, barriers, control flow
//===----------------------------------------------------------------------===//

// shfl.sync.MODE.b32 d, a, lane/delta, clamp, membermask. A .f32 register
// is a valid .b32 operand.
foreach mode = ["idx", "up", "down", "bfly"] in {
  def SHFL_ # mode # _B32 : PtxInst<"shfl.sync." # mode # ".b32 $d, $a, $b, $c, $m",
      (outs B32:$d), (ins B32:$a, s32:$b, s32:$c, s32:$m)> { let isWarpOp = 1; }
  def SHFL_ # mode # _F32 : PtxInst<"shfl.sync." # mode # ".b32 $d, $a, $b, $c, $m",
      (outs F32:$d), (ins F32:$a, s32:$b, s32:$c, s32:$m)> { let isWarpOp = 1; }
}
def VOTE_ANY : PtxInst<"vote.sync.any.pred $d, $a, $m", (outs Pred:$d), (ins Pred:$a, s32:$m)> {
  let isWarpOp = 1;
}
def VOTE_ALL : PtxInst<"vote.sync.all.pred $d, $a, $m", (outs Pred:$d), (ins Pred:$a, s32:$m)> {
  let isWarpOp = 1;
}
def VOTE_BALLOT : PtxInst<"vote.sync.ballot.b32 $d, $a, $m", (outs B32:$d), (ins Pred:$a, s32:$m)> {
  let isWarpOp = 1;
}

def BAR_SYNC   : PtxInst<"bar.sync 0", (outs), (ins)> { let isBarrier = 1; }
def BAR_WARP_SYNC : PtxInst<"bar.warp.sync $m", (outs), (ins s32:$m)> { let isBarrier = 1; }
def MEMBAR_CTA : PtxInst<"membar.cta", (outs), (ins)> { let isBarrier = 1; }
def MEMBAR_GL  : PtxInst<"membar.gl", (outs), (ins)> { let isBarrier = 1; }

// What the printer writes for the BR / BRCOND / RET pseudos.
def BRA_UNI  : PtxInst<"bra.uni $t", (outs), (ins target:$t)> {
  let isJump = 1; let isTerminator = 1;
}
def BRA_PRED : PtxInst<"@$p bra $t", (outs), (ins Pred:$p, target:$t)> {
  let isBranch = 1; let isTerminator = 1;
}
def RET : PtxInst<"ret", (outs), (ins)> { let isExit = 1; let isTerminator = 1; }

// First in a loop header LLVM has unrolled already or must not unroll
// (llvm.loop.unroll.disable): ptxas unrolls loops on its own otherwise, as
// NVPTX's printer also says.
def PRAGMA_NOUNROLL : PtxInst<".pragma \"nounroll\"", (outs), (ins)> { let isBarrier = 1; }
