// tandem compile turns CUDA C into SIMT assembly and kernel images; the
// listing is what `tandem as` reads.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tandem compile %s --emit asm -o - | FileCheck %s --check-prefix=ASM
// ASM: .kernel vadd
// ASM-NEXT: .param a ptr
// ASM-NEXT: .param b ptr
// ASM-NEXT: .param c ptr
// ASM-NEXT: .param n s32
// ASM-DAG: s2r r{{[0-9]+}}, %tid.x
// ASM-DAG: s2r r{{[0-9]+}}, %ctaid.x
// ASM-DAG: s2r r{{[0-9]+}}, %ntid.x
// ASM-DAG: ld.param.u32 r{{[0-9]+}}, [r0 + @n]
// ASM: ld.global.u32
// ASM: fadd
// ASM: st.global.u32
// ASM: exit
//
// The default output is an image next to the input name; -o chooses one.
// RUN: tandem compile %s -o %t/vadd.img --stats 2> %t/stats
// RUN: tandem objdump %t/vadd.img | FileCheck %s --check-prefix=OBJ
// OBJ: vadd {{.*}} a:ptr@0 b:ptr@4 c:ptr@8 n:s32@12
// RUN: FileCheck %s --check-prefix=STATS --input-file=%t/stats
// STATS: kernel  registers  spill-bytes  instructions
// STATS-NEXT: vadd {{ *[0-9]+ +0 +[0-9]+}}
//
// The same listing assembled by `tandem as` gives the same image.
// RUN: tandem compile %s --emit asm -o %t/vadd.s
// RUN: tandem as %t/vadd.s -o %t/vadd2.img
// RUN: cmp %t/vadd.img %t/vadd2.img
//
// --emit mir and --emit ll give text; --print-after shows a stage on stderr.
// RUN: tandem compile %s --emit mir -o - | FileCheck %s --check-prefix=MIR
// MIR: function vadd {
// RUN: tandem compile %s --emit ll -o - | FileCheck %s --check-prefix=LL
// LL: define {{.*}}vadd
// RUN: tandem compile %s -o %t/p.img --print-after regalloc 2>&1 >/dev/null | FileCheck %s --check-prefix=PRINT
// PRINT: # *** MIR after regalloc (vadd) ***

extern "C" __global__ void vadd(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}
