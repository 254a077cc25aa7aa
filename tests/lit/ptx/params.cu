// Parameters: .param declarations in order, ld.param per type, and a pointer
// parameter converted to a global address before use.
// RUN: tandem compile %s --target ptx -o - | FileCheck %s
// RUN: %if ptxas %{ tandem compile %s --target ptx -o %t.ptx && %ptxas %t.ptx %}

extern "C" __global__ void scale(float *out, float k, int n, long long stride) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i * stride] = k;
}

// CHECK: .version 8.0
// CHECK-NEXT: .target sm_90
// CHECK-NEXT: .address_size 64
// CHECK-LABEL: .visible .entry scale(
// CHECK-NEXT: .param .u64 scale_param_0,
// CHECK-NEXT: .param .f32 scale_param_1,
// CHECK-NEXT: .param .u32 scale_param_2,
// CHECK-NEXT: .param .u64 scale_param_3
// CHECK-NEXT: )
// CHECK-DAG: ld.param.u64 [[P:%rd[0-9]+]], [scale_param_0];
// CHECK-DAG: ld.param.f32 {{%f[0-9]+}}, [scale_param_1];
// CHECK-DAG: ld.param.u32 {{%r[0-9]+}}, [scale_param_2];
// CHECK-DAG: ld.param.u64 {{%rd[0-9]+}}, [scale_param_3];
// CHECK-DAG: cvta.to.global.u64 {{%rd[0-9]+}}, [[P]];
// CHECK-DAG: mov.u32 {{%r[0-9]+}}, %tid.x;
// CHECK: st.global.f32 [{{%rd[0-9]+}}+0], {{%f[0-9]+}};
// CHECK: ret;
