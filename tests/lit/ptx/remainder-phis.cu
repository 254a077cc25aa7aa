// A runtime-unrolled loop's remainder exits into a block with two phis of
// its running sum: one feeds the main loop (`phi [0, pre], [%s, rem]`), one
// the loop's exit (`phi [poison, pre], [%s, rem]`). They agree wherever the
// second is not poison, so tandem-fold-agreeing-phis (isel/Prepare.cpp)
// makes them one value: one register for the sum on every path, and no
// register-to-register copy of it in the PTX (there were two, on the edges
// out of the remainder).
// RUN: tandem compile %s --target ptx -O3 -o - | FileCheck %s
// RUN: tandem compile %s --target ptx -O3 --print-after tandem-fold-agreeing-phis -o /dev/null 2>&1 | FileCheck %s --check-prefix=IR
// RUN: %if ptxas %{ tandem compile %s --target ptx -O3 -o %t.ptx && %ptxas %t.ptx %}

extern "C" __global__ void rowsum(const int *rowPtr, const int *colIdx, const float *x,
                                  float *out, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows)
    return;
  float s = 0.0f;
  for (int j = rowPtr[r]; j < rowPtr[r + 1]; ++j)
    s += x[colIdx[j]];
  out[r] = s;
}

// CHECK-LABEL: .visible .entry rowsum(
// CHECK: .pragma "nounroll";
// CHECK-NOT: mov.f32 %f{{[0-9]+}}, %f
// CHECK: ret;

// The remainder's exit block keeps one phi of the sum, not a poison one.
// IR: *** IR Dump After tandem-fold-agreeing-phis ***
// IR: {{^}}for.body.prol.loopexit:
// IR: phi float [ 0.000000e+00, {{.*}} ], [ %{{.*}}, %for.body.prol ]
// IR-NOT: phi float [ poison
// IR: {{^}}for.body:
