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

// PASS: *** IR Dump After tandem-hint-runtime-unroll ***

// SIMT-LABEL: .kernel rowsum_warp
// SIMT: .LBB{{[0-9]+}}_for.body:
// SIMT-COUNT-2: ld.global.u32 {{.*}}unroll-hints.cu:22
// SIMT-NOT: ld.global
// SIMT: bany .LBB{{[0-9]+}}_for.body
