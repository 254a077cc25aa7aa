// A counted loop: setp + @%p bra, the PHIs become movs on the edges (the
// back edge's through its own block), registers declared per class.
// RUN: tandem compile %s --target ptx -o - | FileCheck %s
// RUN: %if ptxas %{ tandem compile %s --target ptx -o %t.ptx && %ptxas %t.ptx %}

extern "C" __global__ void sum(const float *x, float *out, int n) {
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += 32)
    s += x[i] * x[i];
  out[threadIdx.x] = s;
}

// CHECK-LABEL: .visible .entry sum(
// CHECK: .reg .pred {{.*}}%p<{{[0-9]+}}>;
// CHECK-NEXT: .reg .b32 {{.*}}%r<{{[0-9]+}}>;
// CHECK-NEXT: .reg .b64 {{.*}}%rd<{{[0-9]+}}>;
// CHECK-NEXT: .reg .f32 {{.*}}%f<{{[0-9]+}}>;
// CHECK: setp.{{ge|le|lt|gt}}.s32 [[P:%p[0-9]+]],
// CHECK: @[[P]] bra $L__BB0_{{[0-9]+}};
// CHECK: $L__BB0_{{[0-9]+}}:
// CHECK: fma.rn.f32 {{%f[0-9]+}}, {{%f[0-9]+}}, {{%f[0-9]+}}, {{%f[0-9]+}};
// CHECK: setp.{{.*}}.s32 [[Q:%p[0-9]+]],
// CHECK: @[[Q]] bra $L__BB0_{{[0-9]+}};
// CHECK: mov.f32 {{%f[0-9]+}}, {{%f[0-9]+}};
