// tandem-merge-threaded-guards (isel/Prepare.cpp, ptx): the four copies of
// an unrolled `if (x < cols && y + j < rows)` each get their own branch on
// both conditions (`and.pred`), as in nvcc's PTX, instead of the -O
// pipeline's one `x < cols` test over the last three (SimplifyCFG threads
// its false edge to the end). ptxas if-converts the flat shape into one run
// of four loads (scripts/ptx-compare.sh: transpose's LDG run 3 -> 4).
// RUN: tandem compile %s --target ptx -O3 -o - | FileCheck %s
// RUN: tandem compile %s --target ptx -O3 --print-after tandem-merge-threaded-guards -o /dev/null 2>&1 | FileCheck %s --check-prefix=IR
// RUN: tandem compile %s --target simt -O3 --print-after tandem-merge-threaded-guards -o /dev/null 2>&1 | FileCheck %s --check-prefix=SIMT --allow-empty
// RUN: %if ptxas %{ tandem compile %s --target ptx -O3 -o %t.ptx && %ptxas %t.ptx %}

extern "C" __global__ void rows(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[32][33];
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    if (x < cols && y + j < rows)
      tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  __syncthreads();
  out[threadIdx.y * 32 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}

// One `x < cols` test, combined with each row's; each load under its own
// branch, and no branch on `x < cols` alone.
// CHECK-LABEL: .visible .entry rows(
// CHECK: setp.lt.s32 %p[[COLS:[0-9]+]],
// CHECK: and.pred %p[[AND0:[0-9]+]], %p[[COLS]], %p{{[0-9]+}};
// CHECK: @%p[[AND0]] bra $L__BB0_[[T0:[0-9]+]];
// CHECK: $L__BB0_[[T0]]:
// CHECK-NOT: bra
// CHECK: ld.global.f32
// CHECK: and.pred %p[[AND1:[0-9]+]], %p[[COLS]], %p{{[0-9]+}};
// CHECK: @%p[[AND1]] bra $L__BB0_[[T1:[0-9]+]];
// CHECK: $L__BB0_[[T1]]:
// CHECK-NOT: bra
// CHECK: ld.global.f32
// CHECK: and.pred %p[[AND2:[0-9]+]], %p[[COLS]], %p{{[0-9]+}};
// CHECK: @%p[[AND2]] bra $L__BB0_[[T2:[0-9]+]];
// CHECK: $L__BB0_[[T2]]:
// CHECK-NOT: bra
// CHECK: ld.global.f32
// CHECK: and.pred %p[[AND3:[0-9]+]], %p[[COLS]], %p{{[0-9]+}};
// CHECK: @%p[[AND3]] bra $L__BB0_[[T3:[0-9]+]];
// CHECK: $L__BB0_[[T3]]:
// CHECK-NOT: bra
// CHECK: ld.global.f32
// CHECK-NOT: @%p[[COLS]] bra
// CHECK: bar.sync 0;

// simt keeps the -O pipeline's shape (one divergent `x < cols` region).
// SIMT-NOT: IR Dump After tandem-merge-threaded-guards

// The first copy's branch is SimplifyCFG's own (`%or.cond`); the pass
// gives the three others theirs.
// IR: *** IR Dump After tandem-merge-threaded-guards ***
// IR: br i1 %or.cond, label %if.then, label %for.inc
// IR-COUNT-3: br i1 %{{.*}}.and{{[0-9]*}}, label %if.then.{{[0-9]}}, label %for.inc
// IR-NOT: land.lhs.true
