// The math library on both targets (cuda/math/tandem_math.cu, docs/Compiler.md
// "The device math library"). On ptx, expf is nvcc's own sequence around
// ex2.approx.ftz (cvt.sat, fma.rm, the exponent shifted into place) and
// exp2f is ex2.approx alone; on simt both are the library's polynomial.
// Both targets are branch-free: no branch, and on simt no mask code.
// RUN: tandem compile %s --target ptx -O3 -o - | FileCheck %s
// RUN: tandem compile %s --target simt -O3 --emit asm -o - | FileCheck %s --check-prefix=SIMT
// RUN: %if ptxas %{ tandem compile %s --target ptx -O3 -o %t.ptx && %ptxas %t.ptx %}

extern "C" __global__ void exps(const float *x, float *y) {
  int i = threadIdx.x;
  y[i] = expf(x[i]);
  y[i + 32] = exp2f(x[i]);
}

// CHECK-LABEL: .visible .entry exps(
// CHECK-NOT: bra
// CHECK: ld.global.f32 %f[[X:[0-9]+]], [%rd{{[0-9]+}}+0];
// CHECK-NEXT: fma.rn.f32 %f[[T:[0-9]+]], %f[[X]], 0f3BBB989D, 0f3F000000;
// CHECK-NEXT: cvt.sat.f32.f32 %f[[S:[0-9]+]], %f[[T]];
// CHECK-NEXT: fma.rm.f32 %f[[B:[0-9]+]], %f[[S]], 0f437C0000, 0f4B400001;
// CHECK-NEXT: add.rn.f32 %f[[J:[0-9]+]], %f[[B]], 0fCB40007F;
// CHECK-NEXT: neg.f32 %f[[NJ:[0-9]+]], %f[[J]];
// CHECK-NEXT: fma.rn.f32 %f[[F0:[0-9]+]], %f[[X]], 0f3FB8AA3B, %f[[NJ]];
// CHECK-NEXT: fma.rn.f32 %f[[F:[0-9]+]], %f[[X]], 0f32A57060, %f[[F0]];
// CHECK-NEXT: mov.b32 %r[[BB:[0-9]+]], %f[[B]];
// CHECK-NEXT: shl.b32 %r[[E:[0-9]+]], %r[[BB]], 23;
// CHECK-NEXT: mov.b32 %f[[SCALE:[0-9]+]], %r[[E]];
// CHECK-NEXT: ex2.approx.ftz.f32 %f[[P:[0-9]+]], %f[[F]];
// CHECK-NEXT: mul.rn.f32 %f{{[0-9]+}}, %f[[P]], %f[[SCALE]];
// CHECK: ex2.approx.f32 %f{{[0-9]+}}, %f{{[0-9]+}};
// CHECK-NOT: bra
// CHECK: ret;

// SIMT-LABEL: .kernel exps
// SIMT-NOT: ex2
// SIMT-NOT: emask
// SIMT-NOT: {{^  b}}
// SIMT: frint
// SIMT: fmin
// SIMT: exit
