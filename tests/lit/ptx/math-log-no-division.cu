// The math library without division where a polynomial or a reciprocal
// serves (cuda/math/tandem_math.cu, docs/Compiler.md "The device math
// library"): logf and log2f are a fitted polynomial on both targets, so no
// divide at all; tanhf and powf correct a reciprocal, which on ptx is
// rcp.approx.ftz (nvcc's way) and on simt one correctly rounded fdiv each
// (they had two). Every function stays branch-free.
// RUN: tandem compile %s --target ptx -O3 -o - | FileCheck %s
// RUN: tandem compile %s --target simt -O3 --emit asm -o - | FileCheck %s --check-prefix=SIMT
// RUN: %if ptxas %{ tandem compile %s --target ptx -O3 -o %t.ptx && %ptxas %t.ptx %}

extern "C" __global__ void logs(const float *x, float *y) {
  int i = threadIdx.x;
  y[i] = logf(x[i]);
  y[i + 32] = log2f(x[i]);
}

extern "C" __global__ void tanh_pow(const float *x, float *y) {
  int i = threadIdx.x;
  y[i] = tanhf(x[i]);
  y[i + 32] = powf(x[i], x[i + 1]);
}

// The exponent is found with nvcc's trick: the bits of sqrt(1/2)
// subtracted, the exponent field kept and converted, scaled by 2^-23.
// CHECK-LABEL: .visible .entry logs(
// CHECK-NOT: {{(div|rcp)\.|bra}}
// CHECK: add.s32 %r[[D:[0-9]+]], %r{{[0-9]+}}, -1060439283;
// CHECK-NEXT: and.b32 %r[[O:[0-9]+]], %r[[D]], -8388608;
// CHECK: cvt.rn.f32.s32 %f[[OF:[0-9]+]], %r[[O]];
// CHECK: fma.rn.f32 %f{{[0-9]+}}, %f[[OF]], 0f34000000,
// CHECK-NOT: {{(div|rcp)\.|bra}}
// CHECK: ret;

// CHECK-LABEL: .visible .entry tanh_pow(
// CHECK-NOT: {{div\.|bra}}
// CHECK: rcp.approx.ftz.f32
// CHECK-NOT: {{div\.|bra}}
// CHECK: rcp.approx.ftz.f32
// CHECK-NOT: {{(div|rcp)\.|bra}}
// CHECK: ret;

// SIMT-LABEL: .kernel logs
// SIMT-NOT: {{fdiv|emask}}
// SIMT: exit
// SIMT-LABEL: .kernel tanh_pow
// SIMT-NOT: emask
// SIMT: fdiv
// SIMT-NOT: emask
// SIMT: fdiv
// SIMT-NOT: {{fdiv|emask}}
// SIMT: exit
