//===- SimtRegisterInfo.td - SIMT registers ---------------------*- tblgen -*-===//
//
// 64 general registers can be named by the 6-bit register fields; how many a
// configuration provides is `registers` in the accelerator configuration.
// Every register holds one 32-bit value per thread (32 per warp). r0 reads as
// zero in every lane and ignores writes.
//
//===----------------------------------------------------------------------===//

class SimtReg<int n> : Register<"r" # n, n>;

def R0 : SimtReg<0> { let IsConstantZero = 1; }
foreach i = 1...63 in
  def R#i : SimtReg<i>;

def GPR : RegisterClass<!foreach(i, !range(64), !cast<Register>("R" # i))>;

// Special registers, read with `s2r rd, %name`.
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
def SR_LANEID   : SpecialRegister<"laneid",   12, "lane of the thread in its warp, 0..31">;
def SR_WARPID   : SpecialRegister<"warpid",   13, "warp of the thread in its block">;
def SR_NWARPS   : SpecialRegister<"nwarps",   14, "warps in the block">;
def SR_CLOCK    : SpecialRegister<"clock",    15,
  "low 32 bits of the core's cycle counter (on iss: warp instructions the core has issued); the only non-deterministic value a program can read">;
