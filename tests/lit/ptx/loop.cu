// A counted loop: setp + @%p bra, registers declared per class. Out of SSA
// coalesces: the accumulator's PHI, its initial 0 and the fma are one
// register (no float copy, no block for the back edge); the counter
// starts as a copy of tid.x, which stays live after the loop. `#pragma
// unroll 1` keeps the loop one loop: without it the runtime-unroll hint
// (unroll-hints.cu) unrolls it 4x.
// RUN: tandem compile %s --target ptx -o - | FileCheck %s
// RUN: tandem compile %s --target ptx -o - | FileCheck %s --check-prefix=NOMOV
// RUN: %if ptxas %{ tandem compile %s --target ptx -o %t.ptx && %ptxas %t.ptx %}

extern "C" __global__ void sum(const float *x, float *out, int n) {
  float s = 0.0f;
#pragma unroll 1
  for (int i = threadIdx.x; i < n; i += 32)
    s += x[i] * x[i];
  out[threadIdx.x] = s;
}

// CHECK-LABEL: .visible .entry sum(
// CHECK: .reg .pred {{.*}}%p<{{[0-9]+}}>;
// CHECK-NEXT: .reg .b32 {{.*}}%r<{{[0-9]+}}>;
// CHECK-NEXT: .reg .b64 {{.*}}%rd<{{[0-9]+}}>;
// CHECK-NEXT: .reg .f32 {{.*}}%f<{{[0-9]+}}>;
// CHECK: mov.u32 [[TID:%r[0-9]+]], %tid.x;
// CHECK: setp.{{ge|le|lt|gt}}.s32 [[P:%p[0-9]+]], [[TID]],
// CHECK: @[[P]] bra $L__BB0_{{[0-9]+}};
// CHECK: mov.b32 [[I:%r[0-9]+]], [[TID]];
// CHECK: $L__BB0_{{[0-9]+}}:
// CHECK: fma.rn.f32 [[S:%f[0-9]+]], {{%f[0-9]+}}, {{%f[0-9]+}}, [[S]];
// CHECK: add.s32 [[I]], [[I]], 32;
// CHECK: setp.{{.*}}.s32 [[Q:%p[0-9]+]], [[I]],
// CHECK: @[[Q]] bra $L__BB0_{{[0-9]+}};
// One mov.f32 in all: the shared initial 0 (value-based coalescing joined
// the two PHIs' zeros, and the repeated constant is dropped).
// NOMOV-NOT: mov.f32
// NOMOV: mov.f32 {{%f[0-9]+}}, 0f00000000;
// NOMOV-NOT: mov.f32
