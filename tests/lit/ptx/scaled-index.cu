// Accesses to several arrays at one index share its scaled byte offset
// within a block: vals[j] and colIdx[j] use one `mul.wide.s32 ..., 4`, as
// llc's DAG does. The loop is then small enough that ptxas unrolls it and
// batches its loads as it does nvcc's (scripts/ptx-compare.sh, spmm_csr's
// "LDG run" 12 -> 48). A different element size is a different offset.
// RUN: tandem compile %s --target ptx -O0 -o - | FileCheck %s
// RUN: %if ptxas %{ tandem compile %s --target ptx -O3 -o %t.ptx && %ptxas %t.ptx %}

extern "C" __global__ void gather(const int *colIdx, const float *vals, const double *w,
                                  const float *x, float *out, int j) {
  out[threadIdx.x] = vals[j] * x[colIdx[j]] + (float)w[j];
}

// CHECK-LABEL: .visible .entry gather(
// CHECK: mul.wide.s32 [[OFF4:%rd[0-9]+]], [[J:%r[0-9]+]], 4;
// CHECK-NOT: mul.wide.s32 {{%rd[0-9]+}}, [[J]], 4;
// CHECK: add.s64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[OFF4]];
// CHECK: add.s64 {{%rd[0-9]+}}, {{%rd[0-9]+}}, [[OFF4]];
// CHECK: mul.wide.s32 {{%rd[0-9]+}}, [[J]], 8;
// CHECK: ret;
