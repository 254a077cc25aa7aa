// __constant__ variables are module-scope .const declarations with their
// initializers (bytes, little-endian), read with ld.const; __device__
// variables are .global declarations, read, written and updated atomically
// with ld/st/atom.global; a pointer to either that escapes as a generic
// pointer goes through cvta.
// RUN: tandem compile %s --target ptx -o - | FileCheck %s
// RUN: %if ptxas %{ tandem compile %s --target ptx -o %t.ptx && %ptxas %t.ptx %}

struct Pair {
  float scale;
  int shift;
};

__constant__ float weights[4] = {1.0f, 0.5f, 0.25f, 2.0f};
__constant__ Pair pair = {3.0f, -2};
__constant__ unsigned char bytes[3] = {7, 8, 9};
__device__ int counter = 5;
__device__ float zeros[8];

extern "C" __global__ void readconst(const int *idx, float *out) {
  int i = threadIdx.x;
  out[i] = weights[idx[i] & 3] * pair.scale + pair.shift + bytes[i % 3];
}

extern "C" __global__ void devicevars(float *out) {
  int i = threadIdx.x;
  int before = atomicAdd(&counter, 1);
  zeros[i & 7] = out[i];
  out[i] = zeros[(i + 1) & 7] + before;
}

// Addresses that escape are generic: cvta from their space.
extern "C" __global__ void escape(unsigned long long *out) {
  out[0] = (unsigned long long)&weights[1];
  out[1] = (unsigned long long)&counter;
}

// CHECK: .visible .const .align 4 .b8 weights[16] = {0, 0, 128, 63, 0, 0, 0, 63, 0, 0, 128, 62, 0, 0, 0, 64};
// CHECK: .visible .const .align 4 .b8 pair[8] = {0, 0, 64, 64, 254, 255, 255, 255};
// CHECK: .visible .const .align 1 .b8 bytes[3] = {7, 8, 9};
// CHECK: .visible .global .align 4 .b8 counter[4] = {5, 0, 0, 0};
// CHECK: .visible .global .align 4 .b8 zeros[32];
// CHECK-NOT: .shared

// CHECK-LABEL: .visible .entry readconst(
// CHECK: mov.u64 [[W:%rd[0-9]+]], weights;
// CHECK: add.s64 [[WI:%rd[0-9]+]], [[W]], {{%rd[0-9]+}};
// CHECK-NEXT: ld.const.f32 {{%f[0-9]+}}, [[[WI]]+0];
// CHECK-NEXT: mov.u64 [[P:%rd[0-9]+]], pair;
// CHECK-NEXT: ld.const.f32 {{%f[0-9]+}}, [[[P]]+0];
// CHECK-NEXT: ld.const.u32 {{%r[0-9]+}}, [[[P]]+4];
// CHECK: mov.u64 {{%rd[0-9]+}}, bytes;
// CHECK: ld.const.u8

// CHECK-LABEL: .visible .entry devicevars(
// CHECK: mov.u64 [[C:%rd[0-9]+]], counter;
// CHECK: atom.global.add.u32 {{%r[0-9]+}}, [[[C]]+0], {{%r[0-9]+}};
// CHECK: mov.u64 [[Z:%rd[0-9]+]], zeros;
// CHECK: add.s64 [[ZI:%rd[0-9]+]], [[Z]], {{%rd[0-9]+}};
// CHECK-NEXT: st.global.f32 [[[ZI]]+0], {{%f[0-9]+}};
// CHECK: ld.global.f32

// CHECK-LABEL: .visible .entry escape(
// CHECK: mov.u64 [[W2:%rd[0-9]+]], weights;
// CHECK-NEXT: cvta.const.u64 [[G:%rd[0-9]+]], [[W2]];
// CHECK-NEXT: add.s64 [[G4:%rd[0-9]+]], [[G]], 4;
// CHECK-NEXT: st.global.u64 [%rd{{[0-9]+}}+0], [[G4]];
// CHECK: mov.u64 [[C2:%rd[0-9]+]], counter;
// CHECK-NEXT: cvta.global.u64 [[GC:%rd[0-9]+]], [[C2]];
// CHECK-NEXT: st.global.u64 [%rd{{[0-9]+}}+8], [[GC]];
