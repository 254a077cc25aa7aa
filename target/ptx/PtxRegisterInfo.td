//===- PtxRegisterInfo.td - PTX register classes ----------------*- tblgen -*-===//
//
// PTX registers are virtual: ptxas allocates them. A class is a prefix and a
// PTX type; the compiler numbers the registers of each class densely
// (%r1..%rN) and declares them with `.reg .b32 %r<N+1>;`. The class of an
// LLVM IR value follows from its type (isel/SelectPtx.cpp, classOfType):
//   i1 -> Pred, i8/i16 (promoted, zero-extended) and i32 -> B32, i64 and
//   pointers -> B64, float -> F32, double -> F64.
//
//===----------------------------------------------------------------------===//

class PtxRegClass<string prefix, string ptxType, int size> : RegisterClass<[]> {
  string Prefix = prefix;   // %p, %r, ...
  string PtxType = ptxType; // .pred, .b32, ...
  let Size = size;
}

def Pred : PtxRegClass<"%p",  ".pred", 1>;
def B32  : PtxRegClass<"%r",  ".b32",  32>;
def B64  : PtxRegClass<"%rd", ".b64",  64>;
def F32  : PtxRegClass<"%f",  ".f32",  32>;
def F64  : PtxRegClass<"%fd", ".f64",  64>;

// Special registers, read with `mov.u32 $d, %name` (MOV_SREG).
def SR_TID_X    : SpecialRegister<"tid.x",    0,  "thread index in the block, x">;
def SR_TID_Y    : SpecialRegister<"tid.y",    1,  "thread index in the block, y">;
def SR_TID_Z    : SpecialRegister<"tid.z",    2,  "thread index in the block, z">;
def SR_NTID_X   : SpecialRegister<"ntid.x",   3,  "block size, x">;
def SR_NTID_Y   : SpecialRegister<"ntid.y",   4,  "block size, y">;
def SR_NTID_Z   : SpecialRegister<"ntid.z",   5,  "block size, z">;
def SR_CTAID_X  : SpecialRegister<"ctaid.x",  6,  "block index in the grid, x">;
def SR_CTAID_Y  : SpecialRegister<"ctaid.y",  7,  "block index in the grid, y">;
def SR_CTAID_Z  : SpecialRegister<"ctaid.z",  8,  "block index in the grid, z">;
def SR_NCTAID_X : SpecialRegister<"nctaid.x", 9,  "grid size in blocks, x">;
def SR_NCTAID_Y : SpecialRegister<"nctaid.y", 10, "grid size in blocks, y">;
def SR_NCTAID_Z : SpecialRegister<"nctaid.z", 11, "grid size in blocks, z">;
def SR_LANEID   : SpecialRegister<"laneid",   12, "lane of the thread in its warp">;
def SR_WARPID   : SpecialRegister<"warpid",   13, "warp slot of the thread on its SM (not stable)">;
def SR_CLOCK    : SpecialRegister<"clock",    14, "low 32 bits of the SM cycle counter">;
