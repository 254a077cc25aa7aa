// A loop LLVM must not unroll (`#pragma unroll 1`), or has unrolled already
// (the remainder loop of a runtime unrolling), carries
// llvm.loop.unroll.disable; its header starts with `.pragma "nounroll"`, as
// NVPTX writes it, or ptxas unrolls it on its own. Loops without that
// metadata get no pragma. The sed joins each label with its first line, so
// a check can say "this label starts with the pragma".
// RUN: tandem compile %s --target ptx -O3 -o - | sed '/^\$L__BB/{N;s/\n[ \t]*/ /}' | FileCheck %s
// RUN: tandem compile %s --target ptx -O0 -o - | FileCheck %s --check-prefix=O0
// RUN: %if ptxas %{ tandem compile %s --target ptx -O3 -o %t.ptx && %ptxas %t.ptx %}

extern "C" __global__ void rowsum(const int *rowPtr, const float *vals, float *out, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  float s = 0.0f;
#pragma unroll 1
  for (int j = rowPtr[r]; j < rowPtr[r + 1]; ++j)
    s += vals[j];
  out[r] = s;
}

// The same loop without the pragma: -O3 unrolls it by 4 at run time and
// marks the remainder loop only (-O1 marks it as one it will not unroll);
// -O0 runs no loop pass and leaves it unmarked.
extern "C" __global__ void plainsum(const int *rowPtr, const float *vals, float *out, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  float s = 0.0f;
  for (int j = rowPtr[r]; j < rowPtr[r + 1]; ++j)
    s += vals[j];
  out[r] = s;
}

// CHECK-LABEL: .visible .entry rowsum(
// CHECK: $L__BB0_[[HEAD:[0-9]+]]: .pragma "nounroll";
// CHECK-NOT: .pragma
// CHECK: ld.global.f32
// CHECK: bra{{(.uni)?}} $L__BB0_[[HEAD]];

// CHECK-LABEL: .visible .entry plainsum(
// CHECK: $L__BB1_[[REM:[0-9]+]]: .pragma "nounroll";
// CHECK: bra{{(.uni)?}} $L__BB1_[[REM]];
// CHECK-NOT: .pragma
// CHECK: ret;

// O0-LABEL: .visible .entry rowsum(
// O0: .pragma "nounroll";
// O0-LABEL: .visible .entry plainsum(
// O0-NOT: .pragma
// O0: ret;
