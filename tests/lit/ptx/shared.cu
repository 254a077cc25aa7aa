// Static and dynamic shared memory: module-scope .shared declarations, the
// address of a shared variable with mov, ld/st.shared with folded offsets,
// bar.sync between the phases.
// RUN: tandem compile %s --target ptx -o - | FileCheck %s
// RUN: %if ptxas %{ tandem compile %s --target ptx -o %t.ptx && %ptxas %t.ptx %}

extern __shared__ float dyn[];

extern "C" __global__ void reverse(float *data) {
  __shared__ float tile[256];
  int t = threadIdx.x;
  tile[t] = data[t];
  dyn[t] = 2.0f * data[t];
  __syncthreads();
  data[t] = tile[255 - t] + dyn[t ^ 1];
}

// CHECK-DAG: .extern .shared .align 16 .b8 dyn[];
// CHECK-DAG: .shared .align 4 .b8 {{.*}}tile[1024];
// CHECK-LABEL: .visible .entry reverse(
// CHECK: mov.u64 {{%rd[0-9]+}}, {{.*}}tile;
// CHECK: st.shared.f32
// CHECK: bar.sync 0;
// CHECK: ld.shared.f32
