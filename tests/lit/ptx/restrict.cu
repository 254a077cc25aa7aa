// Loads through a `const __restrict__` pointer the kernel never writes take
// the non-coherent path (ld.global.nc); loads through a plain pointer do not.
// RUN: tandem compile %s --target ptx -o - | FileCheck %s
// RUN: %if ptxas %{ tandem compile %s --target ptx -o %t.ptx && %ptxas %t.ptx %}

extern "C" __global__ void axpy(const float *__restrict__ x, float *y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

// CHECK-LABEL: .visible .entry axpy(
// CHECK: mul.wide.s32 [[OFF:%rd[0-9]+]], {{%r[0-9]+}}, 4;
// CHECK-DAG: ld.global.nc.f32 {{%f[0-9]+}}, [{{%rd[0-9]+}}+0];
// CHECK-DAG: ld.global.f32 {{%f[0-9]+}}, [{{%rd[0-9]+}}+0];
// CHECK: fma.rn.f32
// CHECK: st.global.f32
