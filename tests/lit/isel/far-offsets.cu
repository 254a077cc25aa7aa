// simt: accesses beyond the [rs1 + simm12] reach (-2048..2047 bytes) of one
// base share one computed second base, base + K, and keep the rest in
// their offset fields (farAddress in isel/SelectMemory.cpp), instead of an
// li + add each. K just past the field is addi's largest step (2047, one
// instruction); further away, a multiple of the field's span (4096) in a
// register, li + add once for all of them.
// RUN: tandem compile %s -O2 --emit asm -o - | FileCheck %s

// transpose's tile: rows 16 and 24 of 33 floats are 2112 and 3168 bytes.
extern "C" __global__ void rows(const float *in, float *out) {
  __shared__ float tile[32][33];
  int tx = threadIdx.x, ty = threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    tile[ty + j][tx] = in[j];
  __syncthreads();
  out[tx] = tile[tx][ty];
}

// CHECK-LABEL: .kernel rows
// CHECK-NOT: li {{r[0-9]+}}, 2112
// CHECK-NOT: li {{r[0-9]+}}, 3168
// CHECK: addi [[FAR:r[0-9]+]], [[BASE:r[0-9]+]], 2047
// CHECK-NOT: addi {{r[0-9]+}}, [[BASE]], 2047
// CHECK: st.shared.u32 [[[BASE]] + 0],
// CHECK-NEXT: st.shared.u32 [[[BASE]] + 1056],
// CHECK-NEXT: st.shared.u32 [[[FAR]] + 65],
// CHECK-NEXT: st.shared.u32 [[[FAR]] + 1121],
// CHECK: bar

// 12000 and 12400 bytes past the same base: one li 12288 and one add, the
// rests -288 and 112; -2800 bytes is one addi -2048 and -752.
extern "C" __global__ void words(float *p) {
  int t = threadIdx.x;
  p[t + 3000] = 1.0f;
  p[t + 3100] = 2.0f;
  p[t - 700] = 3.0f;
}

// CHECK-LABEL: .kernel words
// CHECK: li [[K:r[0-9]+]], 12288
// CHECK-NOT: li {{r[0-9]+}}, 12288
// CHECK: add [[FAR:r[0-9]+]], {{r[0-9]+}}, [[K]]
// CHECK-NOT: add {{r[0-9]+}}, {{r[0-9]+}}, [[K]]
// CHECK: st.global.u32 [[[FAR]] - 288],
// CHECK: addi [[NEAR:r[0-9]+]], {{r[0-9]+}}, -2048
// CHECK: st.global.u32 [[[FAR]] + 112],
// CHECK: st.global.u32 [[[NEAR]] - 752],
// CHECK: exit
