// tandem run compiles a .cu file (simt, -O2, registers from the
// configuration) and runs it on iss with .npy inputs and output.
// RUN: rm -rf %t && mkdir -p %t
// RUN: python3 %S/Inputs/npy.py iota %t/a.npy '<f4' 40 1
// RUN: python3 %S/Inputs/npy.py iota %t/b.npy '<f4' 40 0.5
// RUN: tandem run %s --grid 1 --block 40 --arg in:%t/a.npy --arg in:%t/b.npy \
// RUN:   --arg out:%t/c.npy:f32:40 --arg i32:36 | FileCheck %s --check-prefix=TABLE
// TABLE: kernel 'vadd' on iss: grid 1,1,1 block 40,1,1
// TABLE: global_store_bytes {{ *}}144
// RUN: python3 %S/Inputs/npy.py print %t/c.npy | FileCheck %s --check-prefix=C
// C: <f4 (40,): 0 1.5 3 4.5 6 7.5 9 10.5 12 13.5 15 16.5 18 19.5 21 22.5 24 25.5 27 28.5 30 31.5 33 34.5 36 37.5 39 40.5 42 43.5 45 46.5 48 49.5 51 52.5 -6.25985e+18 -6.25985e+18 -6.25985e+18 -6.25985e+18
// With --json the compile report comes along.
// RUN: tandem run %s -O1 --grid 1 --block 40 --arg in:%t/a.npy --arg in:%t/b.npy \
// RUN:   --arg out:%t/c.npy:f32:40 --arg i32:36 --json | FileCheck %s --check-prefix=JSON
// JSON: "compile":{"instructions":{{[0-9]+}},"registers_used":{{[0-9]+}},"spill_bytes":0}
// JSON-SAME: "kernel":"vadd"

extern "C" __global__ void vadd(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}
