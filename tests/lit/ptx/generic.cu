// Pointers whose address space preparation cannot infer (here: loaded from
// memory) are generic: ptx accesses them with plain ld/st/atom, the
// hardware resolving the window; simt has no generic addresses and keeps
// its error naming the kernel and the line.
// RUN: tandem compile %s --target ptx -o - | FileCheck %s
// RUN: %if ptxas %{ tandem compile %s --target ptx -o %t.ptx && %ptxas %t.ptx %}
// RUN: not tandem compile %s --target simt -o %t.img 2>&1 | FileCheck %s --check-prefix=SIMT

extern "C" __global__ void gather(float **ptrs, float *out) {
  int i = threadIdx.x;
  float *p = ptrs[i & 1];
  out[i] = p[i];
  p[i + 32] = 2.0f;
  atomicAdd(p + 64, 1.0f);
  unsigned *c = (unsigned *)ptrs[2];
  atomicCAS(c, 0u, 1u);
}

// CHECK-LABEL: .visible .entry gather(
// The pointer itself comes from global memory...
// CHECK: ld.global.u64 [[P:%rd[0-9]+]], [{{%rd[0-9]+}}+0];
// CHECK: add.s64 [[PI:%rd[0-9]+]], [[P]], {{%rd[0-9]+}};
// ...and what it points to is read, written and updated generically.
// CHECK-NEXT: ld.f32 [[V:%f[0-9]+]], [[[PI]]+0];
// CHECK: st.global.f32 [{{%rd[0-9]+}}+0], [[V]];
// CHECK: st.f32 [[[PI]]+128], {{%f[0-9]+}};
// CHECK: atom.add.f32 {{%f[0-9]+}}, [[[P]]+256], {{%f[0-9]+}};
// CHECK: ld.global.u64 [[C:%rd[0-9]+]], [{{%rd[0-9]+}}+16];
// CHECK: atom.cas.b32 {{%r[0-9]+}}, [[[C]]+0], {{%r[0-9]+}}, {{%r[0-9]+}};

// SIMT: kernel 'gather' at {{.*}}generic.cu:12:{{[0-9]+}}: memory access through a generic pointer whose address space is unknown
