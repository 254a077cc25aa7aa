// Address arithmetic outside loops (Prepare's SplitAddressOffsetsPass):
// tile[ty + 8 * j][tx] for j = 0..3, each access under its own condition,
// shares one base &tile[ty][tx], computed once where it dominates all four
// stores, and each store folds its row into the immediate: [base+0],
// [base+1056], [base+2112], [base+3168] (8 rows of 33 floats = 1056 bytes).
// Also: a signed division by a power of two is shifts, not div.s32 (ptxas
// keeps div.s32 x, 2 as a division).
// RUN: tandem compile %s --target ptx -O2 -o - | FileCheck %s
// RUN: %if ptxas %{ tandem compile %s --target ptx -O2 -o %t.ptx && %ptxas %t.ptx %}

extern "C" __global__ void rows(const float *in, float *out, int n) {
  __shared__ float tile[32][33];
  for (int j = 0; j < 32; j += 8)
    if (threadIdx.y + j < n)
      tile[threadIdx.y + j][threadIdx.x] = in[j];
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}

// CHECK-LABEL: .visible .entry rows(
// The base once, before the first store's condition is decided.
// CHECK: mul.wide.u32 {{%rd[0-9]+}}, {{%r[0-9]+}}, 132;
// CHECK-NOT: mul.wide.u32 {{%rd[0-9]+}}, {{%r[0-9]+}}, 132;
// CHECK: st.shared.f32 [[[BASE:%rd[0-9]+]]+0],
// CHECK-NOT: mul.wide.u32 {{%rd[0-9]+}}, {{%r[0-9]+}}, 132;
// CHECK: st.shared.f32 [[[BASE]]+1056],
// CHECK: st.shared.f32 [[[BASE]]+2112],
// CHECK: st.shared.f32 [[[BASE]]+3168],
// CHECK: bar.sync 0;

// On ptx the base is hoisted above accesses under unrelated conditions
// too (ptxas places the code; the hoisted base is the smaller SASS:
// scan_blocks 80 instructions, 88 with a base per block). simt does not
// (tests/lit/isel/address-offsets.cu).
extern "C" __global__ void rare(const float *in, float *out, int n, int row) {
  __shared__ float tile[32][17];
  int tx = threadIdx.x;
  if (tx < n)
    tile[row][tx] = in[0];
  if (tx == n - 1)
    tile[row + 1][tx] = in[1];
  __syncthreads();
  out[tx] = tile[tx][row];
}

// CHECK-LABEL: .visible .entry rare(
// CHECK: mul.wide.s32 {{%rd[0-9]+}}, {{%r[0-9]+}}, 68;
// CHECK: bra
// CHECK-NOT: mul.wide.s32 {{%rd[0-9]+}}, {{%r[0-9]+}}, 68;
// CHECK: st.shared.f32 [[[BASE:%rd[0-9]+]]+0],
// CHECK-NOT: mul.wide.s32 {{%rd[0-9]+}}, {{%r[0-9]+}}, 68;
// CHECK: st.shared.f32 [[[BASE]]+68],
// CHECK: bar.sync 0;

extern "C" __global__ void halve(int *x, long long *y) {
  int t = threadIdx.x;
  x[t] = x[t] / 8;
  y[t] = y[t] / 2;
}

// sdiv x, 8 = (x + (x < 0 ? 7 : 0)) >> 3, the 7 from the sign bits.
// CHECK-LABEL: .visible .entry halve(
// CHECK-NOT: div.s
// CHECK: ld.global.u32 [[X:%r[0-9]+]],
// CHECK-NEXT: shr.s32 [[SIGN:%r[0-9]+]], [[X]], 2;
// CHECK-NEXT: shr.u32 [[BIAS:%r[0-9]+]], [[SIGN]], 29;
// CHECK-NEXT: add.s32 [[SUM:%r[0-9]+]], [[X]], [[BIAS]];
// CHECK-NEXT: shr.s32 {{%r[0-9]+}}, [[SUM]], 3;
// CHECK-NOT: div.s
// CHECK: ld.global.u64 [[Y:%rd[0-9]+]],
// CHECK-NEXT: shr.u64 [[BIAS64:%rd[0-9]+]], [[Y]], 63;
// CHECK-NEXT: add.s64 [[SUM64:%rd[0-9]+]], [[Y]], [[BIAS64]];
// CHECK-NEXT: shr.s64 {{%rd[0-9]+}}, [[SUM64]], 1;
// CHECK-NOT: div.s
// CHECK: ret;
