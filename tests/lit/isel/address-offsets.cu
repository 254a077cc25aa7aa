// simt: address arithmetic outside loops (Prepare's SplitAddressOffsetsPass)
// and signed division by a power of two. tile[ty + 8 * j][tx], each store
// under its own condition, shares one base address computed once, and
// each store folds its row into the [rs1 + imm] field: 0, 544, 1088, 1632
// (8 rows of 17 floats = 544 bytes; imm is 12 bits, so a larger offset
// needs a second base: far-offsets.cu). x / 8 is srai/shri/add/srai, not the
// SFU's 34-cycle div.
// RUN: tandem compile %s -O2 --emit asm -o - | FileCheck %s

extern "C" __global__ void rows(const float *in, float *out, int n) {
  __shared__ float tile[32][17];
  for (int j = 0; j < 32; j += 8)
    if (threadIdx.y + j < n)
      tile[threadIdx.y + j][threadIdx.x] = in[j];
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}

// CHECK-LABEL: rows:
// The row scaling (muli by 68 bytes) once for the four stores, once for the load.
// CHECK: muli {{r[0-9]+}}, {{r[0-9]+}}, 68
// CHECK-NOT: muli {{r[0-9]+}}, {{r[0-9]+}}, 68
// CHECK: st.shared.u32 [[[BASE:r[0-9]+]] + 0],
// CHECK-NOT: muli {{r[0-9]+}}, {{r[0-9]+}}, 68
// CHECK: st.shared.u32 [[[BASE]] + 544],
// CHECK-NOT: muli {{r[0-9]+}}, {{r[0-9]+}}, 68
// CHECK: st.shared.u32 [[[BASE]] + 1088],
// CHECK-NOT: muli {{r[0-9]+}}, {{r[0-9]+}}, 68
// CHECK: st.shared.u32 [[[BASE]] + 1632],
// CHECK: muli {{r[0-9]+}}, {{r[0-9]+}}, 68
// CHECK: ld.shared.u32

// A base is hoisted above its accesses only where that saves work on simt
// (every instruction a warp reaches is executed): two accesses under
// unrelated conditions, the second rarely true (scan_blocks's block total),
// each compute their own base; an if/else, where every path has an access
// (stencil5), shares one computed before the branch.
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

// CHECK-LABEL: .kernel rare
// CHECK-NOT: muli {{r[0-9]+}}, {{r[0-9]+}}, 68
// CHECK: bnone
// CHECK: muli {{r[0-9]+}}, {{r[0-9]+}}, 68
// CHECK: st.shared.u32 [{{r[0-9]+}} + 0],
// CHECK: bnone
// CHECK: muli {{r[0-9]+}}, {{r[0-9]+}}, 68
// CHECK: st.shared.u32 [{{r[0-9]+}} + 68],
// CHECK: bar

extern "C" __global__ void either(const float *in, float *out, int n, int row) {
  __shared__ float tile[32][17];
  int tx = threadIdx.x;
  if (tx < n) {
    tile[row][tx] = in[0];
  } else {
    tile[row + 1][tx] = in[1];
    out[row] = 1.0f;
  }
  __syncthreads();
  out[tx] = tile[tx][row];
}

// CHECK-LABEL: .kernel either
// CHECK: muli {{r[0-9]+}}, {{r[0-9]+}}, 68
// CHECK: bnone
// CHECK-NOT: muli {{r[0-9]+}}, {{r[0-9]+}}, 68
// CHECK: st.shared.u32 [[[BASE:r[0-9]+]] + 68],
// CHECK-NOT: muli {{r[0-9]+}}, {{r[0-9]+}}, 68
// CHECK: st.shared.u32 [[[BASE]] + 0],
// CHECK: bar

extern "C" __global__ void eighth(int *x) {
  int t = threadIdx.x;
  x[t] = x[t] / 8;
}

// sdiv x, 8 = (x + (x < 0 ? 7 : 0)) >> 3, the 7 from the sign bits.
// CHECK-LABEL: eighth:
// CHECK-NOT: div
// CHECK: ld.global.u32 [[X:r[0-9]+]],
// CHECK-NEXT: srai [[SIGN:r[0-9]+]], [[X]], 2
// CHECK-NEXT: shri [[BIAS:r[0-9]+]], [[SIGN]], 29
// CHECK-NEXT: add [[SUM:r[0-9]+]], [[X]], [[BIAS]]
// CHECK-NEXT: srai {{r[0-9]+}}, [[SUM]], 3
// CHECK-NOT: div
// CHECK: exit
