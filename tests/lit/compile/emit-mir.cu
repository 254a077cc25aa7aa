// --emit mir writes the machine IR where the back end stops for it: simt
// after register allocation (physical registers, each with the vreg it
// stands for in parentheses; no listing, no image), ptx after out-of-SSA
// (virtual registers; no PTX text).
// RUN: tandem compile %s --emit mir -o - | FileCheck %s --check-prefix=SIMT
// RUN: tandem compile %s --emit mir -O0 -o - | FileCheck %s --check-prefix=SIMT
// RUN: tandem compile %s --target ptx --emit mir -o - | FileCheck %s --check-prefix=PTX
//
// SIMT-NOT: .kernel
// SIMT-LABEL: function scale {
// SIMT-NEXT: ; param out at 0
// SIMT-NEXT: ; param k at 4
// SIMT-NEXT: ; param n at 8
// SIMT-NEXT: bb.entry:
// SIMT-DAG: r{{[0-9]+}}(%v{{[0-9]+}}) = s2r {{[0-9]+}}
// SIMT-DAG: r{{[0-9]+}}(%v{{[0-9]+}}) = ld.param.u32 r0, 8
// SIMT: r{{[0-9]+}}(%v{{[0-9]+}}) = emask.get
// SIMT: ld.const.u32
// SIMT: st.global.u32 r{{[0-9]+}}(%v{{[0-9]+}}), 0, r{{[0-9]+}}(%v{{[0-9]+}})
// SIMT: emask.set r{{[0-9]+}}(%v{{[0-9]+}})
// SIMT: exit
// SIMT-NEXT: }
// Every def is allocated: no virtual register is left.
// SIMT-NOT: {{^ +%v[0-9]+ =}}
// SIMT-NOT: .kernel
//
// PTX-NOT: .version
// PTX-LABEL: function scale {
// PTX-NEXT: ; param out at 0
// PTX-NEXT: ; param k at 1
// PTX-NEXT: ; param n at 2
// PTX-NEXT: bb.entry:
// PTX-NEXT: [[OUT:%v[0-9]+]] = LD_PARAM_U64 0
// PTX-NEXT: {{%v[0-9]+}} = LD_PARAM_F32 1
// PTX-NEXT: [[N:%v[0-9]+]] = LD_PARAM_U32 2
// PTX: {{%v[0-9]+}} = CVTA_TO_global [[OUT]]
// PTX: [[C:%v[0-9]+]] = SETP_S32 {{[0-9]+}}, {{%v[0-9]+}}, [[N]]
// PTX: BRCOND [[C]], %bb.if.then, %bb.if.end
// PTX: GLOBAL_ST_F32
// PTX-NOT: .version

__constant__ float bias[4];

extern "C" __global__ void scale(float *out, float k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = k * bias[i & 3];
}
