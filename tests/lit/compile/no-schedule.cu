// The list scheduler (-O1 and above) batches a block's global loads ahead
// of the arithmetic between them (loads count the configuration's DRAM
// latency); --no-schedule leaves the code in selection order, so what the
// scheduler gives can be measured (`tandem report --no-schedule`,
// docs/Compiler.md). -O0 never schedules.
// RUN: tandem compile %s --emit asm -o - | FileCheck %s --check-prefix=SCHED
// RUN: tandem compile %s --emit asm --no-schedule -o - | FileCheck %s --check-prefix=ORDER
// RUN: tandem compile %s --emit asm -O0 -o - | FileCheck %s --check-prefix=ORDER
// RUN: not tandem compile %s --no-schedule=yes 2>&1 | FileCheck %s --check-prefix=BAD
//
// SCHED-LABEL: .kernel saxpy
// SCHED: ld.global.u32
// SCHED-NEXT: ld.global.u32
// SCHED-NEXT: ffma
//
// ORDER-LABEL: .kernel saxpy
// ORDER: ld.global.u32
// ORDER-NEXT: add
// ORDER-NEXT: ld.global.u32
//
// BAD: tandem compile: error: unknown option '--no-schedule=yes'
extern "C" __global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}
