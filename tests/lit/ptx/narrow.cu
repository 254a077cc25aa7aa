// i8/i16 arithmetic is promoted to 32 bits: the values live zero-extended in
// .b32 registers; add/mul/shl results are masked back to their width,
// signed operations (division, compare, arithmetic shift) sign-extend their
// operands first, and loads/stores use the .u8/.u16 forms.
// RUN: tandem compile %s --target ptx -o - | FileCheck %s
// RUN: %if ptxas %{ tandem compile %s --target ptx -o %t.ptx && %ptxas %t.ptx %}

// A byte checksum: the running sum wraps at 256.
extern "C" __global__ void bytesum(const unsigned char *in, unsigned char *out, int n) {
  unsigned char s = 0;
  for (int i = 0; i < n; ++i)
    s = (unsigned char)(s * 31 + in[i]);
  out[threadIdx.x] = s;
}

// char4-style byte manipulation (the CUDA header has no uchar4: a struct of
// four bytes): a saturating add, xor, shift and division per byte.
struct alignas(4) Bytes4 {
  unsigned char x, y, z, w;
};
extern "C" __global__ void bytes4(const Bytes4 *a, const Bytes4 *b, Bytes4 *out) {
  int i = threadIdx.x;
  Bytes4 x = a[i], y = b[i], r;
  r.x = x.x + y.x > 255 ? 255 : x.x + y.x;
  r.y = x.y ^ y.y;
  r.z = x.z << 1;
  r.w = x.w / (y.w | 1);
  out[i] = r;
}

// 16-bit signed math: division and an arithmetic shift on shorts.
extern "C" __global__ void shorts(const short *in, short *out, short d) {
  int i = threadIdx.x;
  short v = in[i];
  out[i] = (short)(v / d) + (short)(v >> 3) + (v < d ? (short)1 : (short)-1);
}

// CHECK-LABEL: .visible .entry bytesum(
// CHECK: mul.lo.s32 [[M:%r[0-9]+]], {{%r[0-9]+}}, 31;
// CHECK-NEXT: and.b32 [[MM:%r[0-9]+]], [[M]], 255;
// CHECK: ld.global.u8 [[B:%r[0-9]+]], [%rd{{[0-9]+}}+0];
// CHECK-NEXT: add.s32 [[SUM:%r[0-9]+]], [[B]], [[MM]];
// CHECK-NEXT: and.b32 {{%r[0-9]+}}, [[SUM]], 255;
// CHECK: st.global.u8 [%rd{{[0-9]+}}+0], {{%r[0-9]+}};

// CHECK-LABEL: .visible .entry bytes4(
// CHECK-DAG: ld.global.u8 [[X0:%r[0-9]+]], [[[A:%rd[0-9]+]]+0];
// CHECK-DAG: ld.global.u8 [[X1:%r[0-9]+]], [[[A]]+1];
// CHECK-DAG: ld.global.u8 [[X2:%r[0-9]+]], [[[A]]+2];
// CHECK-DAG: ld.global.u8 [[X3:%r[0-9]+]], [[[A]]+3];
// CHECK: add.s32 [[S:%r[0-9]+]], {{%r[0-9]+}}, [[X0]];
// CHECK-NEXT: min.u32 [[SAT:%r[0-9]+]], [[S]], 255;
// Logic ops on zero-extended bytes need no mask.
// CHECK: xor.b32 [[XOR:%r[0-9]+]], {{%r[0-9]+}}, [[X1]];
// CHECK-NEXT: // narrow.cu
// CHECK-NEXT: shl.b32 [[SH:%r[0-9]+]], [[X2]], 1;
// CHECK-NEXT: and.b32 [[SHM:%r[0-9]+]], [[SH]], 255;
// CHECK: div.u32 [[Q:%r[0-9]+]], [[X3]], {{%r[0-9]+}};
// CHECK: st.global.u8 [%rd{{[0-9]+}}+1], [[XOR]];
// CHECK-NEXT: st.global.u8 [%rd{{[0-9]+}}+2], [[SHM]];
// CHECK-NEXT: st.global.u8 [%rd{{[0-9]+}}+3], [[Q]];

// CHECK-LABEL: .visible .entry shorts(
// CHECK: .param .u16 shorts_param_2
// CHECK: ld.param.u16 [[D:%r[0-9]+]], [shorts_param_2];
// CHECK: ld.global.u16 [[V:%r[0-9]+]], [%rd{{[0-9]+}}+0];
// Division, the arithmetic shift and the signed compare read sign-extended
// halves.
// CHECK: shl.b32 [[VU:%r[0-9]+]], [[V]], 16;
// CHECK-NEXT: shr.s32 [[VS:%r[0-9]+]], [[VU]], 16;
// CHECK-NEXT: shl.b32 [[DU:%r[0-9]+]], [[D]], 16;
// CHECK-NEXT: shr.s32 [[DS:%r[0-9]+]], [[DU]], 16;
// CHECK-NEXT: div.s32 {{%r[0-9]+}}, [[VS]], [[DS]];
// CHECK: shr.s32 [[SHR:%r[0-9]+]], {{%r[0-9]+}}, 3;
// CHECK-NEXT: and.b32 {{%r[0-9]+}}, [[SHR]], 65535;
// The compare reads the words the division sign-extended (once per block).
// CHECK: setp.lt.s32 [[P:%p[0-9]+]], [[VS]], [[DS]];
// A short -1 is 65535 in its zero-extended register.
// CHECK-NEXT: selp.b32 {{%r[0-9]+}}, 1, 65535, [[P]];
// CHECK: and.b32 [[R:%r[0-9]+]], {{%r[0-9]+}}, 65535;
// CHECK: st.global.u16 [%rd{{[0-9]+}}+0], [[R]];
