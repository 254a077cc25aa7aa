// The warp-per-row loop (`j += 32`) is one LLVM's own cost model does not
// runtime-unroll: its trip count costs more to expand than SCEVExpander's
// budget. On ptx, tandem-hint-runtime-unroll (isel/UnrollHints.cpp) asks for
// 4x, as nvcc's NVVM gives: the main loop holds four colIdx loads, each
// followed by its gather, and its header has no `.pragma "nounroll"`, so
// ptxas may batch the copies further; only the remainder loop carries the
// pragma. simt keeps the one-copy loop (its LSU serves one warp instruction
// at a time). The sed joins each label with its first line.
// RUN: tandem compile %s --target ptx -O3 -o - | sed '/^\$L__BB/{N;s/\n[ \t]*/ /}' | FileCheck %s
// RUN: tandem compile %s --target ptx -O3 --print-after tandem-hint-runtime-unroll -o /dev/null 2>&1 | FileCheck %s --check-prefix=PASS
// RUN: tandem compile %s --target simt -O3 --emit asm -o - | FileCheck %s --check-prefix=SIMT
// RUN: %if ptxas %{ tandem compile %s --target ptx -O3 -o %t.ptx && %ptxas %t.ptx %}

extern "C" __global__ void rowsum_warp(const int *rowPtr, const int *colIdx, const float *x,
                                       float *out, int rows) {
  int lane = threadIdx.x & 31;
  int r = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  if (r >= rows)
    return;
  float s = 0.0f;
  for (int j = rowPtr[r] + lane; j < rowPtr[r + 1]; j += 32)
    s += x[colIdx[j]];
  out[r * 32 + lane] = s;
}

// The remainder loop: one colIdx load, the pragma at its header.
// CHECK-LABEL: .visible .entry rowsum_warp(
// CHECK: $L__BB0_[[REM:[0-9]+]]: .pragma "nounroll";
// CHECK: ld.global.u32
// CHECK: ld.global.f32
// CHECK-NOT: ld.global
// CHECK: bra{{(.uni)?}} $L__BB0_[[REM]];
// The main loop: four loads of colIdx (a warp's stride, 128 bytes, apart)
// and four gathers, no pragma.
// CHECK-NOT: .pragma
// CHECK: ld.global.u32 {{%r[0-9]+}}, [{{%rd[0-9]+}}+0];
// CHECK: ld.global.f32
// CHECK: ld.global.u32 {{%r[0-9]+}}, [{{%rd[0-9]+}}+128];
// CHECK: ld.global.f32
// CHECK: ld.global.u32 {{%r[0-9]+}}, [{{%rd[0-9]+}}+256];
// CHECK: ld.global.f32
// CHECK: ld.global.u32 {{%r[0-9]+}}, [{{%rd[0-9]+}}+384];
// CHECK: ld.global.f32
// CHECK-NOT: .pragma
// CHECK: ret;

// An if/else in the loop: one iteration runs one arm, so the loop is
// measured along its longer arm and is unrolled 4x like a one-block loop
// (spmv_merge's merge loop is of this shape). LLVM's own cost model
// declines this strided loop, as the one above.
// CHECK-LABEL: .visible .entry gather_or_reset(
// CHECK: .pragma "nounroll";
// CHECK: ld.global.u32
// CHECK-NOT: ld.global
// CHECK: ld.global.f32
// CHECK-NOT: .pragma
// CHECK-COUNT-4: ld.global.u32 {{.*}}
// CHECK-NOT: ld.global.u32
// CHECK: }
extern "C" __global__ void gather_or_reset(const int *idx, const float *x, float *out, int begin,
                                           int end) {
  float s = 0.0f;
  for (int i = begin + (threadIdx.x & 31); i < end; i += 32) {
    int k = idx[i];
    if (k >= 0)
      s += x[k];
    else
      s = 0.0f;
  }
  out[threadIdx.x] = s;
}

// A loop that reads only shared memory is left to LLVM's cost model: the
// `__shared__` array is reached through an addrspacecast of its
// addrspace(3) global, which the hint sees through. One shared load, one
// atomic, no remainder loop and so no pragma.
// CHECK-LABEL: .visible .entry flush_shared(
// CHECK: bar.sync 0;
// CHECK-NOT: .pragma
// CHECK: ld.shared.u32
// CHECK-NOT: ld.shared
// CHECK: atom.global.add.u32
// CHECK-NOT: atom.
// CHECK: }
extern "C" __global__ void flush_shared(int *bins, int n) {
  __shared__ int local[256];
  for (int b = threadIdx.x; b < 256; b += 32)
    local[b] = b;
  __syncthreads();
  for (int b = threadIdx.x; b < n; b += 32)
    if (local[b & 255] != 0)
      atomicAdd(&bins[b], local[b & 255]);
}

// PASS: *** IR Dump After tandem-hint-runtime-unroll ***

// SIMT-LABEL: .kernel rowsum_warp
// SIMT: .LBB{{[0-9]+}}_for.body:
// SIMT-COUNT-2: ld.global.u32 {{.*}}unroll-hints.cu:22
// SIMT-NOT: ld.global
// SIMT: bany .LBB{{[0-9]+}}_for.body
