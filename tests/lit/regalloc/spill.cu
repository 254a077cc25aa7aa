// Register allocation golden test: 20 values live at once do not fit in 12
// registers, so some are spilled to local memory (st.local/ld.local at
// r0 + slot), no register beyond r11 is named, and the allocation checker
// (run by every compile) accepts the result. That spilled code computes the
// right values is shown by the kernel suite (many_live at 16 registers).
// RUN: tandem compile %s --config %S/Inputs/regs12.json --emit asm --stats -o - 2>%t.stats | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// To regenerate after an intended change: run the first RUN line without
// FileCheck and update the CHECK lines (register numbers are matched loosely).

// CHECK: # kernel many: 12 registers used, {{[1-9][0-9]*}} spill bytes per thread
// CHECK: .kernel many
// CHECK: .local {{[1-9][0-9]*}}
// CHECK: st.local.u32 [r0 + {{[0-9]+}}], r{{[0-9]+}}
// CHECK: ld.local.u32 r{{[0-9]+}}, [r0 + {{[0-9]+}}]
// CHECK-NOT: r12
// CHECK: exit
// STATS: kernel registers spill-bytes instructions
// STATS-NEXT: many 12 {{[1-9][0-9]*}} {{[0-9]+}}
extern "C" __global__ void many(const int *in, int *out) {
  int t = threadIdx.x;
  int v[20];
#pragma unroll
  for (int k = 0; k < 20; ++k)
    v[k] = in[t * 20 + k] * (k + 3);
  int s = 0;
#pragma unroll
  for (int k = 0; k < 20; ++k)
    s += v[k] * v[19 - k];
  out[t] = s;
}
