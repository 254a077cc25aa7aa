// Address offsets in loops (Prepare's SplitAddressOffsetsPass): LLVM
// runtime-unrolls this CSR row loop, and the copies' `vals[j + k]` and
// `colIdx[j + k]` share one base per array with the byte offset k * 4 in
// the access, as in nvcc's PTX: [base+0], [base+4], [base+8], [base+12]
// instead of an add, a scaling and an address per copy. ptx's main loop
// (4 copies, after the remainder loop's pragma) and simt's (8 copies).
// RUN: tandem compile %s --target ptx -O3 -o - | FileCheck %s
// RUN: tandem compile %s --target simt -O3 --emit asm -o - | FileCheck %s --check-prefix=SIMT
// RUN: %if ptxas %{ tandem compile %s --target ptx -O3 -o %t.ptx && %ptxas %t.ptx %}

extern "C" __global__ void rowdot(const int *rowPtr, const int *colIdx, const float *vals,
                                  const float *x, float *y, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  float s = 0.0f;
  for (int j = rowPtr[r]; j < rowPtr[r + 1]; ++j)
    s += vals[j] * x[colIdx[j]];
  y[r] = s;
}

// CHECK-LABEL: .visible .entry rowdot(
// CHECK: .pragma "nounroll";
// CHECK: ld.global.f32 %f{{[0-9]+}}, [%rd[[VALS:[0-9]+]]+4];
// CHECK: ld.global.u32 %r{{[0-9]+}}, [%rd[[COLS:[0-9]+]]+4];
// CHECK: ld.global.f32 %f{{[0-9]+}}, [%rd[[VALS]]+8];
// CHECK: ld.global.u32 %r{{[0-9]+}}, [%rd[[COLS]]+8];
// CHECK: ld.global.f32 %f{{[0-9]+}}, [%rd[[VALS]]+12];
// CHECK: ld.global.u32 %r{{[0-9]+}}, [%rd[[COLS]]+12];

// SIMT-LABEL: rowdot:
// SIMT: .LBB{{[0-9]+}}_for.body:
// SIMT: ld.global.u32 r{{[0-9]+}}, [r[[B:[0-9]+]] + 0]
// SIMT-NEXT: ld.global.u32 r{{[0-9]+}}, [r[[B]] + 4]
// SIMT-NEXT: ld.global.u32 r{{[0-9]+}}, [r[[B]] + 8]
// SIMT-NEXT: ld.global.u32 r{{[0-9]+}}, [r[[B]] + 12]
// SIMT-NEXT: ld.global.u32 r{{[0-9]+}}, [r[[B]] + 16]
// SIMT-NEXT: ld.global.u32 r{{[0-9]+}}, [r[[B]] + 20]
// SIMT-NEXT: ld.global.u32 r{{[0-9]+}}, [r[[B]] + 24]
// SIMT-NEXT: ld.global.u32 r{{[0-9]+}}, [r[[B]] + 28]
