// Warp shuffles and votes: shfl.sync with the clamp and member mask in
// PTX's operand order, vote.sync.ballot and .any on predicates.
// RUN: tandem compile %s --target ptx -o - | FileCheck %s
// RUN: %if ptxas %{ tandem compile %s --target ptx -o %t.ptx && %ptxas %t.ptx %}

extern "C" __global__ void warp(float *v, unsigned *ballots, int *any) {
  float x = v[threadIdx.x];
  for (int o = 16; o > 0; o >>= 1)
    x += __shfl_down_sync(0xffffffffu, x, o);
  int up = __shfl_up_sync(0xffffffffu, (int)threadIdx.x, 1);
  int idx = __shfl_sync(0xffffffffu, up, 0);
  int bf = __shfl_xor_sync(0xffffffffu, idx, 3);
  ballots[threadIdx.x] = __ballot_sync(0xffffffffu, x > 0.0f);
  any[threadIdx.x] = __any_sync(0xffffffffu, bf > 2) + __all_sync(0xffffffffu, up > 0);
  v[threadIdx.x] = x;
}

// CHECK-LABEL: .visible .entry warp(
// CHECK-DAG: shfl.sync.down.b32 {{%f[0-9]+}}, {{%f[0-9]+}}, {{%r[0-9]+|[0-9]+}}, 31, -1;
// CHECK-DAG: shfl.sync.up.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 1, 0, -1;
// CHECK-DAG: shfl.sync.idx.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 0, 31, -1;
// CHECK-DAG: shfl.sync.bfly.b32 {{%r[0-9]+}}, {{%r[0-9]+}}, 3, 31, -1;
// CHECK-DAG: vote.sync.ballot.b32 {{%r[0-9]+}}, {{%p[0-9]+}}, -1;
// CHECK-DAG: vote.sync.any.pred {{%p[0-9]+}}, {{%p[0-9]+}}, -1;
// CHECK-DAG: vote.sync.all.pred {{%p[0-9]+}}, {{%p[0-9]+}}, -1;
