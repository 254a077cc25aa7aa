// Symbol names in the image are the IR's (and the PTX's), even where the
// listing cannot use them as labels: `r1` and `r2` read as registers, so the
// listing labels them r1_ and r2_ and names the symbols with `.size`'s third
// operand; a namespaced variable keeps its mangled name. The compiled image,
// the assembled listing and the reassembled objdump --source are
// byte-identical.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tandem compile %s --emit asm -o %t/s.s
// RUN: FileCheck %s --check-prefix=ASM < %t/s.s
// RUN: tandem compile %s -o %t/s.img
// RUN: tandem as %t/s.s -o %t/as.img && cmp %t/s.img %t/as.img
// RUN: tandem objdump --source %t/s.img > %t/src.s
// RUN: tandem as %t/src.s -o %t/src.img && cmp %t/s.img %t/src.img
// RUN: tandem objdump %t/s.img | FileCheck %s --check-prefix=IMG

__device__ int r1;
__constant__ float r2[2] = {1.0f, 2.0f};
namespace ns {
__device__ int hidden = 7;
}

__global__ void k(float *o) {
  o[threadIdx.x] = r2[threadIdx.x & 1] + atomicAdd(&r1, 1) + ns::hidden;
}

// ASM:      r2_:  # r2, 8 bytes
// ASM-NEXT:   .word 0x3f800000, 0x40000000
// ASM-NEXT:   .size r2_, 8, r2  # a symbol of the image
// ASM:      r1_:  # r1, 4 bytes
// ASM-NEXT:   .word 0x00000000
// ASM-NEXT:   .size r1_, 4, r1  # a symbol of the image
// ASM:      _ZN2ns6hiddenE:  # ns::hidden, 4 bytes
// ASM-NEXT:   .word 0x00000007
// ASM-NEXT:   .size _ZN2ns6hiddenE, 4  # a symbol of the image

// IMG:      Symbols:
// IMG-NEXT:   section    offset       size  name
// IMG-NEXT:   const           0          8  r2
// IMG-NEXT:   data            0          4  r1
// IMG-NEXT:   data            4          4  _ZN2ns6hiddenE
