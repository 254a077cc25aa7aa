//===- Simt.td - The Tandem SIMT accelerator target -------------*- tblgen -*-===//
//
// Top of the SIMT target description. tandem-tblgen reads this file and
// writes the instruction tables (C++), the SystemVerilog ISA package and
// docs/ISA.md.
//
//===----------------------------------------------------------------------===//

include "Target.td"
include "IRNodes.td"
include "SimtRegisterInfo.td"
include "SimtInstrFormats.td"
include "SimtSchedule.td"
include "SimtInstrInfo.td"
include "SimtPatterns.td"

def SimtTarget : TargetDescription<"The Tandem SIMT instruction set", [
  "### Execution model\n"
  "A kernel runs as a grid of blocks; a block is up to warps-per-core × 32 "
  "threads (the accelerator configuration). A warp is 32 threads in lockstep, "
  "as in CUDA, so lane arithmetic, 32-bit ballots and shuffle offsets behave as "
  "CUDA code expects; a core with L physical lanes spends 32 / L cycles on each "
  "warp instruction. Each warp has an *exec* mask (lanes that execute) and an "
  "*alive* mask (lanes that have not exited); exec is always a subset of alive. "
  "An instruction acts only in the active lanes: inactive lanes keep their "
  "registers and touch no memory, except where an instruction says it acts in "
  "all lanes (`emask.get` writes its result in all 32; `ld.local.all.u32` and "
  "`st.local.all.u32`, which spill a saved mask, access local memory in all 32, "
  "exited lanes included).",
  "### Divergence\n"
  "The compiler manages divergence with the exec mask: `emask.get` saves it, "
  "`emask.and`/`emask.andn` narrow it to the lanes where a condition holds or "
  "fails, `emask.set` restores a saved mask (intersected with alive), `bnone` "
  "skips a region no lane executes and `bany` loops while some lane is active. "
  "`bnz`/`bz` are for uniform conditions (taken if any / no active lane has a "
  "non-zero condition). `exit` retires the active lanes; `bar` synchronises the "
  "warps of a block that have not finished.",
  "### Memory\n"
  "Byte addresses, 32 bits; accesses must be aligned to their size. Spaces: "
  "global (device allocations), shared (per block, from 0), local (per thread, "
  "from 0; the hardware interleaves the 32 threads of a warp word by word, so "
  "word W of lane L lives at (W × 32 + L) × 4 in the warp's local area and a "
  "warp's spill accesses coalesce), param (the launch's parameter buffer, "
  "read-only) and const (the image's constant data, read-only). Atomics on "
  "the same address from lanes of one warp are applied in lane order.",
  "### Floating point\n"
  "IEEE-754 binary32, round to nearest even, subnormal inputs and outputs kept "
  "(no flush to zero). Every NaN an fp instruction produces is the canonical "
  "quiet NaN 0x7fc00000, so the functional simulator and the RTL agree bit for "
  "bit; `fneg` and `fabs` are bit operations. Divide and square root are "
  "correctly rounded by an iterative unit.",
  "### Constants\n"
  "Any 32-bit constant is `movi rd, lo16` followed by `movt rd, hi16` (the "
  "assembler's `li` pseudo-instruction picks the shortest form). The all-zero "
  "word is not an instruction, so running into zeroed memory faults."
]>;
