//===- SimtInstrInfo.td - SIMT instructions ---------------------*- tblgen -*-===//
//
// Semantics are per thread unless the description says otherwise. An
// instruction acts only in the active lanes of its warp (the exec mask);
// inactive lanes keep their registers and touch no memory. All values are
// 32 bits; "s" means signed, "u" unsigned.
//
// The all-zero word is not an instruction: running into zeroed memory faults.
//
// Floating point: IEEE-754 binary32, round to nearest even, subnormal inputs
// and outputs kept (no flush to zero). Every NaN an fp instruction produces is
// the canonical quiet NaN 0x7fc00000, so iss and rtl agree bit for bit.
//
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// Integer arithmetic (R format: rd = rs1 op rs2)
//===----------------------------------------------------------------------===//

class ALU_rr<bits<8> opc, string mn, string desc, SchedWrite sched = WriteALU>
    : SimtInst<opc, FmtR, mn, "$rd, $rs1, $rs2", (outs GPR:$rd),
               (ins GPR:$rs1, GPR:$rs2), sched, desc>;

def ADD    : ALU_rr<0x01, "add",    "rd = rs1 + rs2 (wraps)">;
def SUB    : ALU_rr<0x02, "sub",    "rd = rs1 - rs2 (wraps)">;
def MUL    : ALU_rr<0x03, "mul",    "rd = low 32 bits of rs1 * rs2", WriteIMul>;
def MULHI  : ALU_rr<0x04, "mulhi",  "rd = high 32 bits of the signed 64-bit product rs1 * rs2", WriteIMul>;
def MULHIU : ALU_rr<0x05, "mulhiu", "rd = high 32 bits of the unsigned 64-bit product rs1 * rs2", WriteIMul>;
def AND    : ALU_rr<0x06, "and",    "rd = rs1 & rs2">;
def OR     : ALU_rr<0x07, "or",     "rd = rs1 | rs2">;
def XOR    : ALU_rr<0x08, "xor",    "rd = rs1 ^ rs2">;
def SHL    : ALU_rr<0x09, "shl",    "rd = rs1 << rs2; shift counts of 32 or more give 0">;
def SHR    : ALU_rr<0x0A, "shr",    "rd = rs1 >> rs2, logical; counts of 32 or more give 0">;
def SRA    : ALU_rr<0x0B, "sra",    "rd = rs1 >> rs2, arithmetic; counts of 32 or more give the sign in every bit">;
def MIN    : ALU_rr<0x0C, "min",    "rd = signed minimum of rs1, rs2">;
def MAX    : ALU_rr<0x0D, "max",    "rd = signed maximum of rs1, rs2">;
def MINU   : ALU_rr<0x0E, "minu",   "rd = unsigned minimum of rs1, rs2">;
def MAXU   : ALU_rr<0x0F, "maxu",   "rd = unsigned maximum of rs1, rs2">;
def SETEQ  : ALU_rr<0x10, "seteq",  "rd = (rs1 == rs2) ? 1 : 0">;
def SETNE  : ALU_rr<0x11, "setne",  "rd = (rs1 != rs2) ? 1 : 0">;
def SETLT  : ALU_rr<0x12, "setlt",  "rd = (rs1 < rs2, signed) ? 1 : 0">;
def SETLE  : ALU_rr<0x13, "setle",  "rd = (rs1 <= rs2, signed) ? 1 : 0">;
def SETLTU : ALU_rr<0x14, "setltu", "rd = (rs1 < rs2, unsigned) ? 1 : 0">;
def SETLEU : ALU_rr<0x15, "setleu", "rd = (rs1 <= rs2, unsigned) ? 1 : 0">;

def SEL : SimtInst<0x16, FmtR4, "sel", "$rd, $rs1, $rs2, $rs3", (outs GPR:$rd),
                   (ins GPR:$rs1, GPR:$rs2, GPR:$rs3), WriteALU,
                   "rd = (rs1 != 0) ? rs2 : rs3">;

class ALU_r<bits<8> opc, string mn, string desc, SchedWrite sched = WriteALU>
    : SimtInst<opc, FmtR, mn, "$rd, $rs1", (outs GPR:$rd), (ins GPR:$rs1), sched, desc>;

def MOV  : ALU_r<0x17, "mov",  "rd = rs1">;
def POPC : ALU_r<0x18, "popc", "rd = number of set bits in rs1">;
def CLZ  : ALU_r<0x19, "clz",  "rd = number of leading zero bits in rs1 (32 for 0)">;
def BREV : ALU_r<0x1A, "brev", "rd = rs1 with its bit order reversed">;

// Integer division runs on the iterative unit, one quotient bit per cycle.
def DIV  : ALU_rr<0x1C, "div",  "rd = rs1 / rs2, signed, rounded toward zero; x/0 = -1; INT_MIN/-1 = INT_MIN", WriteIDiv>;
def DIVU : ALU_rr<0x1D, "divu", "rd = rs1 / rs2, unsigned; x/0 = 0xffffffff", WriteIDiv>;
def REM  : ALU_rr<0x1E, "rem",  "rd = rs1 % rs2, signed, sign of the dividend; x%0 = x; INT_MIN%-1 = 0", WriteIDiv>;
def REMU : ALU_rr<0x1F, "remu", "rd = rs1 % rs2, unsigned; x%0 = x", WriteIDiv>;

//===----------------------------------------------------------------------===//
// Integer arithmetic with an immediate (I format: rd = rs1 op simm12)
//===----------------------------------------------------------------------===//

class ALU_ri<bits<8> opc, string mn, string desc, SchedWrite sched = WriteALU>
    : SimtInst<opc, FmtI, mn, "$rd, $rs1, $imm", (outs GPR:$rd),
               (ins GPR:$rs1, simm12:$imm), sched, desc>;

def ADDI    : ALU_ri<0x20, "addi",    "rd = rs1 + imm">;
def ANDI    : ALU_ri<0x21, "andi",    "rd = rs1 & imm (imm sign-extended)">;
def ORI     : ALU_ri<0x22, "ori",     "rd = rs1 | imm (imm sign-extended)">;
def XORI    : ALU_ri<0x23, "xori",    "rd = rs1 ^ imm (imm sign-extended)">;
def SHLI    : ALU_ri<0x24, "shli",    "rd = rs1 << (imm & 31)">;
def SHRI    : ALU_ri<0x25, "shri",    "rd = rs1 >> (imm & 31), logical">;
def SRAI    : ALU_ri<0x26, "srai",    "rd = rs1 >> (imm & 31), arithmetic">;
def SETEQI  : ALU_ri<0x27, "seteqi",  "rd = (rs1 == imm) ? 1 : 0">;
def SETNEI  : ALU_ri<0x28, "setnei",  "rd = (rs1 != imm) ? 1 : 0">;
def SETLTI  : ALU_ri<0x29, "setlti",  "rd = (rs1 < imm, signed) ? 1 : 0">;
def SETLTUI : ALU_ri<0x2A, "setltui", "rd = (rs1 < imm, unsigned, imm sign-extended) ? 1 : 0">;
def SETGTI  : ALU_ri<0x2B, "setgti",  "rd = (rs1 > imm, signed) ? 1 : 0">;
def SETGTUI : ALU_ri<0x2C, "setgtui", "rd = (rs1 > imm, unsigned, imm sign-extended) ? 1 : 0">;
def MULI    : ALU_ri<0x2D, "muli",    "rd = low 32 bits of rs1 * imm", WriteIMul>;

//===----------------------------------------------------------------------===//
// Constants: any 32-bit value is `movi rd, lo16` then `movt rd, hi16`.
//===----------------------------------------------------------------------===//

def MOVI : SimtInst<0x2E, FmtU, "movi", "$rd, $imm", (outs GPR:$rd), (ins simm18:$imm),
                    WriteALU, "rd = imm, sign-extended from 18 bits">;
def MOVT : SimtInst<0x2F, FmtU, "movt", "$rd, $imm", (outs GPR:$rd), (ins uimm16:$imm),
                    WriteALU, "rd = (imm << 16) | (rd & 0xffff): sets the top half, keeps the bottom"> {
  let readsRd = 1;
}

//===----------------------------------------------------------------------===//
// fp32 arithmetic
//===----------------------------------------------------------------------===//

let isFloat = 1 in {
class FPU_rr<bits<8> opc, string mn, string desc, SchedWrite sched = WriteFPU>
    : SimtInst<opc, FmtR, mn, "$rd, $rs1, $rs2", (outs GPR:$rd),
               (ins GPR:$rs1, GPR:$rs2), sched, desc>;
class FPU_r<bits<8> opc, string mn, string desc, SchedWrite sched = WriteFPU>
    : SimtInst<opc, FmtR, mn, "$rd, $rs1", (outs GPR:$rd), (ins GPR:$rs1), sched, desc>;
}

def FADD  : FPU_rr<0x30, "fadd", "rd = rs1 + rs2">;
def FSUB  : FPU_rr<0x31, "fsub", "rd = rs1 - rs2">;
def FMUL  : FPU_rr<0x32, "fmul", "rd = rs1 * rs2">;
def FFMA  : SimtInst<0x33, FmtR4, "ffma", "$rd, $rs1, $rs2, $rs3", (outs GPR:$rd),
                     (ins GPR:$rs1, GPR:$rs2, GPR:$rs3), WriteFMA,
                     "rd = rs1 * rs2 + rs3 with a single rounding"> { let isFloat = 1; }
def FMIN  : FPU_rr<0x34, "fmin", "rd = minimum of rs1, rs2; if one is NaN, the other; -0 < +0">;
def FMAX  : FPU_rr<0x35, "fmax", "rd = maximum of rs1, rs2; if one is NaN, the other; -0 < +0">;
def FNEG  : FPU_r<0x36, "fneg", "rd = rs1 with its sign bit flipped (NaNs too: a bit operation)">;
def FABS  : FPU_r<0x37, "fabs", "rd = rs1 with its sign bit cleared (NaNs too: a bit operation)">;
def FSETEQ  : FPU_rr<0x38, "fseteq",  "rd = (rs1 == rs2, ordered) ? 1 : 0">;
def FSETNE  : FPU_rr<0x39, "fsetne",  "rd = (rs1 != rs2, ordered: false if either is NaN) ? 1 : 0">;
def FSETLT  : FPU_rr<0x3A, "fsetlt",  "rd = (rs1 < rs2, ordered) ? 1 : 0">;
def FSETLE  : FPU_rr<0x3B, "fsetle",  "rd = (rs1 <= rs2, ordered) ? 1 : 0">;
def FSETNAN : FPU_rr<0x3C, "fsetnan", "rd = (rs1 or rs2 is NaN) ? 1 : 0">;
def FDIV  : FPU_rr<0x3D, "fdiv", "rd = rs1 / rs2, correctly rounded (iterative unit)", WriteFDiv>;
def FSQRT : FPU_r<0x3E, "fsqrt", "rd = square root of rs1, correctly rounded (iterative unit); negative inputs give NaN, -0 gives -0", WriteFSqrt>;
def CVT_F32_S32 : FPU_r<0x3F, "cvt.f32.s32", "rd = float(rs1 as signed), rounded to nearest even">;
def CVT_F32_U32 : FPU_r<0x40, "cvt.f32.u32", "rd = float(rs1 as unsigned), rounded to nearest even">;
def CVT_S32_F32 : FPU_r<0x41, "cvt.s32.f32", "rd = rs1 rounded toward zero to a signed integer, saturating; NaN gives 0">;
def CVT_U32_F32 : FPU_r<0x42, "cvt.u32.f32", "rd = rs1 rounded toward zero to an unsigned integer, saturating; NaN gives 0">;
def FFLOOR : FPU_r<0x43, "ffloor", "rd = rs1 rounded toward minus infinity, as a float">;
def FCEIL  : FPU_r<0x44, "fceil",  "rd = rs1 rounded toward plus infinity, as a float">;
def FTRUNC : FPU_r<0x45, "ftrunc", "rd = rs1 rounded toward zero, as a float">;
def FRINT  : FPU_r<0x46, "frint",  "rd = rs1 rounded to the nearest integer, ties to even, as a float">;

//===----------------------------------------------------------------------===//
// Memory. Addresses are byte addresses, rs1 + imm; an access must be aligned
// to its size. Global addresses are device addresses; shared addresses start
// at 0 in each block; local addresses start at 0 in each thread (the hardware
// interleaves the threads of a warp word by word, so a warp's accesses to one
// local address coalesce); param addresses index the launch's parameter
// buffer and const addresses the image's constant data.
//===----------------------------------------------------------------------===//

class LoadInst<bits<8> opc, string mn, MemorySpace space, int bytes, bit sext>
    : SimtInst<opc, FmtI, mn, "$rd, [$rs1 + $imm]", (outs GPR:$rd),
               (ins GPR:$rs1, simm12:$imm), WriteLoad,
               "rd = " # !if(sext, "sign", "zero") # "-extended " # bytes #
               "-byte value at " # space.Name # " address rs1 + imm"> {
  let isLoad = 1;
  let Space = space;
  let AccessBytes = bytes;
  let SignExtend = sext;
}

class StoreInst<bits<8> opc, string mn, MemorySpace space, int bytes>
    : SimtInst<opc, FmtS, mn, "[$rs1 + $imm], $rs2", (outs),
               (ins GPR:$rs1, simm12:$imm, GPR:$rs2), WriteStore,
               "store the low " # bytes # " bytes of rs2 at " # space.Name #
               " address rs1 + imm"> {
  let isStore = 1;
  let Space = space;
  let AccessBytes = bytes;
}

// Loads of 8, 16 and 32 bits and stores of 8, 16 and 32 bits per space;
// opcodes base+0..4 for loads, base+8..10 for stores.
multiclass MemOps<bits<8> base, string sp, MemorySpace space> {
  def _LD_U8  : LoadInst<!add(base, 0), "ld." # sp # ".u8",  space, 1, 0>;
  def _LD_S8  : LoadInst<!add(base, 1), "ld." # sp # ".s8",  space, 1, 1>;
  def _LD_U16 : LoadInst<!add(base, 2), "ld." # sp # ".u16", space, 2, 0>;
  def _LD_S16 : LoadInst<!add(base, 3), "ld." # sp # ".s16", space, 2, 1>;
  def _LD_U32 : LoadInst<!add(base, 4), "ld." # sp # ".u32", space, 4, 0>;
  def _ST_U8  : StoreInst<!add(base, 8),  "st." # sp # ".u8",  space, 1>;
  def _ST_U16 : StoreInst<!add(base, 9),  "st." # sp # ".u16", space, 2>;
  def _ST_U32 : StoreInst<!add(base, 10), "st." # sp # ".u32", space, 4>;
}

defm GLOBAL : MemOps<0x50, "global", GlobalSpace>;
defm SHARED : MemOps<0x60, "shared", SharedSpace>;
defm LOCAL : MemOps<0x70, "local",  LocalSpace>;

// Whole-warp local accesses: the only memory instructions that ignore the
// exec mask. The register allocator spills a saved exec mask with them: an
// emask.get result must survive in every lane (emask.set reads lane 0, which
// need not be active where the mask is restored), and a lane-masked store and
// reload would keep only the active ones.
let allLanes = 1 in {
def LOCAL_LD_ALL_U32 : LoadInst<0x77, "ld.local.all.u32", LocalSpace, 4, 0> {
  let writesAllLanes = 1;
  let Description = "rd = 4-byte value at Local address rs1 + imm, in all 32 lanes, active or not: reloads a spilled exec mask";
}
def LOCAL_ST_ALL_U32 : StoreInst<0x7F, "st.local.all.u32", LocalSpace, 4> {
  let Description = "store rs2 at Local address rs1 + imm in all 32 lanes, active or not: spills an exec mask saved with emask.get";
}
}

def PARAM_LD_U32 : LoadInst<0x5C, "ld.param.u32", ParamSpace, 4, 0>;
def CONST_LD_U32 : LoadInst<0x5D, "ld.const.u32", ConstSpace, 4, 0>;

//===----------------------------------------------------------------------===//
// Atomics: rd = old value at [rs1]; memory = old op rs2. Lanes of one warp
// that hit the same address are applied in lane order.
//===----------------------------------------------------------------------===//

class AtomicInst<bits<8> opc, string mn, MemorySpace space, string op>
    : SimtInst<opc, FmtR, mn, "$rd, [$rs1], $rs2", (outs GPR:$rd),
               (ins GPR:$rs1, GPR:$rs2), WriteAtomic,
               "rd = old 32-bit value at " # space.Name # " address rs1; store " # op> {
  let isAtomic = 1;
  let Space = space;
  let AccessBytes = 4;
}

class AtomicCAS<bits<8> opc, string mn, MemorySpace space>
    : SimtInst<opc, FmtR4, mn, "$rd, [$rs1], $rs2, $rs3", (outs GPR:$rd),
               (ins GPR:$rs1, GPR:$rs2, GPR:$rs3), WriteAtomic,
               "rd = old 32-bit value at " # space.Name # " address rs1; if old == rs2, store rs3"> {
  let isAtomic = 1;
  let Space = space;
  let AccessBytes = 4;
}

multiclass AtomicOps<bits<8> base, string sp, MemorySpace space> {
  def _ADD  : AtomicInst<!add(base, 0), "atom." # sp # ".add",  space, "old + rs2">;
  def _FADD : AtomicInst<!add(base, 1), "atom." # sp # ".fadd", space, "old + rs2 as fp32 (canonical NaN)">;
  def _MIN  : AtomicInst<!add(base, 2), "atom." # sp # ".min",  space, "signed min(old, rs2)">;
  def _MAX  : AtomicInst<!add(base, 3), "atom." # sp # ".max",  space, "signed max(old, rs2)">;
  def _MINU : AtomicInst<!add(base, 4), "atom." # sp # ".minu", space, "unsigned min(old, rs2)">;
  def _MAXU : AtomicInst<!add(base, 5), "atom." # sp # ".maxu", space, "unsigned max(old, rs2)">;
  def _EXCH : AtomicInst<!add(base, 6), "atom." # sp # ".exch", space, "rs2">;
  def _CAS  : AtomicCAS<!add(base, 7), "atom." # sp # ".cas", space>;
}

defm ATOM_GLOBAL : AtomicOps<0x80, "global", GlobalSpace>;
defm ATOM_SHARED : AtomicOps<0x88, "shared", SharedSpace>;

//===----------------------------------------------------------------------===//
// Warp operations. A lane reads another lane's rs1 only if that lane is
// active; otherwise (or out of range) it gets its own rs1, as CUDA's
// __shfl_sync does.
//===----------------------------------------------------------------------===//

let isWarpOp = 1 in {
class ShflInst<bits<8> opc, string mn, string desc>
    : SimtInst<opc, FmtR, mn, "$rd, $rs1, $rs2", (outs GPR:$rd),
               (ins GPR:$rs1, GPR:$rs2), WriteShfl, desc>;
class VoteInst<bits<8> opc, string mn, string desc>
    : SimtInst<opc, FmtR, mn, "$rd, $rs1", (outs GPR:$rd), (ins GPR:$rs1), WriteCtrl, desc>;
}

def SHFL_IDX  : ShflInst<0x90, "shfl.idx",  "rd = rs1 of lane (rs2 & 31)">;
def SHFL_UP   : ShflInst<0x91, "shfl.up",   "rd = rs1 of lane (laneid - rs2), own rs1 if that is below 0">;
def SHFL_DOWN : ShflInst<0x92, "shfl.down", "rd = rs1 of lane (laneid + rs2), own rs1 if that is above 31">;
def SHFL_XOR  : ShflInst<0x93, "shfl.xor",  "rd = rs1 of lane (laneid ^ (rs2 & 31))">;
def VOTE_ANY    : VoteInst<0x94, "vote.any",    "rd = 1 if rs1 != 0 in any active lane, else 0">;
def VOTE_ALL    : VoteInst<0x95, "vote.all",    "rd = 1 if rs1 != 0 in every active lane, else 0">;
def VOTE_BALLOT : VoteInst<0x96, "vote.ballot", "rd = bit mask of the active lanes where rs1 != 0">;

//===----------------------------------------------------------------------===//
// Exec mask: compiler-managed divergence. Each warp has an exec mask (lanes
// that execute) and an alive mask (lanes that have not exited); exec is
// always a subset of alive.
//===----------------------------------------------------------------------===//

let isMaskOp = 1 in {
def EMASK_GET : SimtInst<0xA0, FmtR, "emask.get", "$rd", (outs GPR:$rd), (ins), WriteCtrl,
                         "rd = exec, written in all 32 lanes (active or not) so it can be restored from any lane"> {
  let writesAllLanes = 1;
}
def EMASK_SET : SimtInst<0xA1, FmtR, "emask.set", "$rs1", (outs), (ins GPR:$rs1), WriteCtrl,
                         "exec = (rs1 of lane 0) & alive: restores a mask saved with emask.get">;
def EMASK_AND : SimtInst<0xA2, FmtR, "emask.and", "$rs1", (outs), (ins GPR:$rs1), WriteCtrl,
                         "exec = exec & {active lanes where rs1 != 0}: enter the then-side">;
def EMASK_ANDN : SimtInst<0xA3, FmtR, "emask.andn", "$rs1", (outs), (ins GPR:$rs1), WriteCtrl,
                          "exec = exec & {active lanes where rs1 == 0}: enter the else-side, or drop lanes leaving a loop">;
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

let isTerminator = 1 in {
def BRA : SimtInst<0xB0, FmtJ, "bra", "$imm", (outs), (ins brtarget24:$imm), WriteBranch,
                   "jump to pc + 4*imm"> { let isJump = 1; }
def BNZ : SimtInst<0xB1, FmtB, "bnz", "$rs1, $imm", (outs), (ins GPR:$rs1, brtarget18:$imm), WriteBranch,
                   "branch to pc + 4*imm if rs1 != 0 in any active lane (for a uniform rs1: if rs1 != 0)"> { let isBranch = 1; }
def BZ : SimtInst<0xB2, FmtB, "bz", "$rs1, $imm", (outs), (ins GPR:$rs1, brtarget18:$imm), WriteBranch,
                  "branch to pc + 4*imm if rs1 == 0 in every active lane; exactly when bnz does not branch"> { let isBranch = 1; }
def BNONE : SimtInst<0xB3, FmtJ, "bnone", "$imm", (outs), (ins brtarget24:$imm), WriteBranch,
                     "branch to pc + 4*imm if no lane is active (exec == 0)"> { let isBranch = 1; let isMaskOp = 1; }
def BANY : SimtInst<0xB4, FmtJ, "bany", "$imm", (outs), (ins brtarget24:$imm), WriteBranch,
                    "branch to pc + 4*imm if some lane is active (exec != 0)"> { let isBranch = 1; let isMaskOp = 1; }
def EXIT : SimtInst<0xB9, FmtN, "exit", "", (outs), (ins), WriteCtrl,
                    "the active lanes finish: alive &= ~exec, exec = 0; the warp finishes when no lane is alive"> {
  let isExit = 1;
  let isMaskOp = 1;
}
}

def BAR : SimtInst<0xB8, FmtN, "bar", "", (outs), (ins), WriteBar,
                   "wait until every warp of the block reaches a bar. A bar that a finished warp can never reach is a barrier deadlock (a fault), whether the warp finished before or while the others wait, so the verdict does not depend on warp scheduling"> {
  let isBarrier = 1;
}
def NOP : SimtInst<0xBA, FmtN, "nop", "", (outs), (ins), WriteCtrl, "do nothing">;

def S2R : SimtInst<0xC0, FmtU, "s2r", "$rd, $imm", (outs GPR:$rd), (ins sreg:$imm), WriteCtrl,
                   "rd = special register imm (see the special register table)">;
