// Writable __device__ variables on simt: the listing's .data section (the
// variables' initial bytes, laid out like __constant__ ones) and the
// .data_base word of the .const section that receives the data section's
// device address at load; kernels load that word once and address the
// variables from it as global memory. The compiler's image and the
// assembled listing are byte-identical, and so is objdump --source.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tandem compile %s --emit asm -o %t/dg.s
// RUN: FileCheck %s --check-prefix=ASM < %t/dg.s
// RUN: tandem compile %s -o %t/dg.img
// RUN: tandem as %t/dg.s -o %t/as.img && cmp %t/dg.img %t/as.img
// RUN: tandem objdump --source %t/dg.img > %t/src.s
// RUN: tandem as %t/src.s -o %t/src.img && cmp %t/dg.img %t/src.img
// RUN: tandem objdump %t/dg.img | FileCheck %s --check-prefix=IMG
// RUN: tandem compile %s --emit mir -o - --print-after isel 2>&1 >/dev/null \
// RUN:   | FileCheck %s --check-prefix=MIR

__device__ unsigned int hits;                 // zero-initialized
__device__ short lut[3] = {-2, 300, 7};       // padded to whole words
__device__ float scale = 0.5f;
__constant__ int unrelated = 11;              // the const section comes first

__global__ void touch(int *out) {
  unsigned t = threadIdx.x;
  out[t] = lut[t % 3] * scale + atomicAdd(&hits, 1u) * 0 + unrelated;
  lut[t % 3] = (short)t;
}

// The constants keep offsets from 0; the slot follows them.
// ASM:      # const section: 8 bytes, read with ld.const.u32
// ASM-NEXT: #   offset  size  symbol
// ASM-NEXT: #        0     4  unrelated
// ASM-NEXT: #        4     4  (the data section's address, written at load)
// ASM-NEXT: .const
// ASM:      unrelated:  # unrelated, 4 bytes
// ASM-NEXT:   .word 0x0000000b
// ASM-NEXT:   .size unrelated, 4  # a symbol of the image
// ASM-NEXT:   .align 4
// ASM-NEXT:   .data_base  # the data section's device address, written at load
// ASM:      # data section: 16 bytes, copied to global memory at load (one instance per loaded image); its address is the const word at offset 4
// ASM-NEXT: #   offset  size  symbol
// ASM-NEXT: #        0     4  hits
// ASM-NEXT: #        4     6  lut
// ASM-NEXT: #       12     4  scale
// ASM-NEXT: .data
// ASM-NEXT:   .align 4
// ASM-NEXT: hits:  # hits, 4 bytes
// ASM-NEXT:   .word 0x00000000
// ASM-NEXT:   .size hits, 4  # a symbol of the image
// ASM-NEXT:   .align 4
// ASM-NEXT: lut:  # lut, 6 bytes
// ASM-NEXT:   .word 0x012cfffe
// ASM-NEXT:   .byte 0x07, 0x00
// ASM-NEXT:   .size lut, 6  # a symbol of the image
// ASM-NEXT:   .align 4
// ASM-NEXT: scale:  # scale, 4 bytes
// ASM-NEXT:   .word 0x3f000000
// ASM-NEXT:   .size scale, 4  # a symbol of the image
// ASM-NEXT:   .align 4

// IMG: file format tandem-simt-image (version 3)
// IMG: 1 kernel, {{[0-9]+}} code words ({{[0-9]+}} bytes), 8 const bytes, 16 data bytes (their device address goes into the const word at offset 4 at load)
// Every variable is a symbol of the image, for the host to find by name.
// IMG:      Symbols:
// IMG-NEXT:   section    offset       size  name
// IMG-NEXT:   const           0          4  unrelated
// IMG-NEXT:   data            0          4  hits
// IMG-NEXT:   data            4          6  lut
// IMG-NEXT:   data           12          4  scale
// objdump names what a const load at [r0 + imm] reads:
// IMG:      ld.const.u32 r{{[0-9]+}}, [r0 + 4]  # <the data section's address>
// IMG:      ld.const.u32 r{{[0-9]+}}, [r0 + 0]  # <unrelated>
// IMG:      Contents of section .const (8 bytes):
// IMG-NEXT:   0000  0b000000 00000000
// IMG:      Contents of section .data (16 bytes):
// IMG-NEXT:   0000  00000000 feff2c01 07000000 0000003f

// The base is loaded once, in the entry block, then used as a global address:
// lut's address (base + 4, indexed by t % 3), scale at base + 12 and the
// atomic on hits (offset 0).
// MIR-LABEL: function touch {
// MIR:       [[BASE:%v[0-9]+]] = ld.const.u32 r0, 4
// MIR-NOT:   ld.const.u32 r0, 4
// MIR-DAG:   addi [[BASE]], 4
// MIR-DAG:   ld.global.u32 [[BASE]], 12
// MIR-DAG:   atom.global.add [[BASE]], {{%v[0-9]+}}
