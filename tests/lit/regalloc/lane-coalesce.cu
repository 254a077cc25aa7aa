// Lane-aware copy coalescing (simt, -O1 and above; regalloc/CoalesceLaneCopies):
// a divergent loop whose accumulator is a phi at the loop header, at the
// inner if's join, at the latch and after the loop. Every one of those phis
// is written under a narrowed exec mask, so in the warp their copies and
// sources overlap; on each lane's own path they never do, and they all get
// one register: no `mov` is left anywhere in the kernel. --no-coalesce keeps
// the copies (six before this pass). The kernel suite's `divergent` runs the
// same loop on iss and rtl against a CPU reference; run/no-coalesce.test runs
// this kernel with and without the pass.
// RUN: tandem compile %s --emit asm -o - | FileCheck %s
// RUN: tandem compile %s --emit asm --no-coalesce -o - | FileCheck %s --check-prefix=COPIES
// RUN: tandem compile %s --emit obj --print-after coalesce --print-after regalloc -o %t.img 2>&1 | FileCheck %s --check-prefix=STAGE
// To regenerate after an intended change: run the RUN lines without FileCheck
// and update the CHECK lines (register numbers are matched loosely).
//
// CHECK-LABEL: .kernel rotate_until
// CHECK-NOT: mov
// CHECK: [[LOOP:.LBB[0-9]+_for.body]]:
// CHECK-NOT: mov
// CHECK: bany [[LOOP]]
// CHECK-NOT: mov
// CHECK: exit
//
// COPIES-LABEL: .kernel rotate_until
// COPIES: [[LOOP:.LBB[0-9]+_for.body]]:
// COPIES: mov
// COPIES: bany [[LOOP]]
//
// STAGE: # *** MIR after coalesce (rotate_until) ***
// STAGE-NOT: COPY
// STAGE: # *** MIR after regalloc (rotate_until) ***
extern "C" __global__ void rotate_until(const unsigned *in, unsigned *out) {
  unsigned t = threadIdx.x, x = in[t], acc = 1;
  for (unsigned k = 0; k < ((x >> 3) & 31); ++k) {
    if ((acc ^ k) & 4)
      acc += k * x;
    else
      acc -= k;
    if ((acc & 0xff) == 0x42)
      continue;
    acc = (acc << 1) | (acc >> 31);
    if (acc > 0xF0000000u)
      break;
  }
  out[t] = acc;
}
