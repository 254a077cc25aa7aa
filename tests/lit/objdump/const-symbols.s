# objdump names what a const load at [r0 + imm] reads, as llvm-objdump
# symbolizes operands: the symbol covering the byte (+ the offset into it),
# or the data base slot; loads through another base register or outside
# every symbol get no name.
# RUN: tandem as %s -o %t.img
# RUN: tandem objdump %t.img | FileCheck %s

# CHECK:      ld.const.u32 r1, [r0 + 0]  # <table>
# CHECK-NEXT: ld.const.u32 r2, [r0 + 8]  # <table+8>
# CHECK-NEXT: ld.const.u32 r3, [r0 + 12]  # <the data section's address>
# CHECK-NEXT: ld.const.u32 r4, [r0 + 16]{{$}}
# CHECK-NEXT: ld.const.u32 r5, [r1 + 0]{{$}}
.kernel k
  ld.const.u32 r1, [r0 + 0]
  ld.const.u32 r2, [r0 + 8]
  ld.const.u32 r3, [r0 + 12]
  ld.const.u32 r4, [r0 + 16]
  ld.const.u32 r5, [r1 + 0]
  exit
.const
table: .word 1, 2, 3
  .size table, 12
base: .data_base
  .word 9
.data
count: .word 0
  .size count, 4
