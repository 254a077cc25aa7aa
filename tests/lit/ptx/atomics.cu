// Atomics in global and shared memory, with their PTX types; atomicSub is
// an add of the negated value; atomicCAS is atom.cas.
// RUN: tandem compile %s --target ptx -o - | FileCheck %s
// RUN: %if ptxas %{ tandem compile %s --target ptx -o %t.ptx && %ptxas %t.ptx %}

extern "C" __global__ void atomics(int *i, unsigned *u, float *f) {
  __shared__ unsigned bins[32];
  bins[threadIdx.x & 31] = 0;
  __syncthreads();
  atomicAdd(&bins[threadIdx.x & 31], 1u);
  __syncthreads();
  atomicAdd(&u[0], bins[threadIdx.x & 31]);
  atomicAdd(&f[0], 1.5f);
  atomicMin(&i[1], (int)threadIdx.x);
  atomicMax(&u[2], threadIdx.x);
  atomicExch(&i[3], 7);
  atomicSub(&i[4], 2);
  atomicCAS(&i[5], 0, (int)threadIdx.x);
}

// CHECK-LABEL: .visible .entry atomics(
// CHECK-DAG: atom.shared.add.u32 {{%r[0-9]+}}, [{{%rd[0-9]+}}+0], {{%r[0-9]+}};
// CHECK-DAG: atom.global.add.u32 {{%r[0-9]+}}, [{{%rd[0-9]+}}+0], {{%r[0-9]+}};
// CHECK-DAG: atom.global.add.f32 {{%f[0-9]+}}, [{{%rd[0-9]+}}+0], {{%f[0-9]+}};
// CHECK-DAG: atom.global.min.s32 {{%r[0-9]+}}, [{{%rd[0-9]+}}+4], {{%r[0-9]+}};
// CHECK-DAG: atom.global.max.u32 {{%r[0-9]+}}, [{{%rd[0-9]+}}+8], {{%r[0-9]+}};
// CHECK-DAG: atom.global.exch.b32 {{%r[0-9]+}}, [{{%rd[0-9]+}}+12], {{%r[0-9]+}};
// CHECK-DAG: atom.global.add.u32 {{%r[0-9]+}}, [{{%rd[0-9]+}}+16], {{%r[0-9]+}};
// CHECK-DAG: atom.global.cas.b32 {{%r[0-9]+}}, [{{%rd[0-9]+}}+20], {{%r[0-9]+}}, {{%r[0-9]+}};
