; __constant__ variables on simt: the const section's layout (alignment,
; initializers of every kind, zero-init) and their loads selected as
; ld.const.u32 (the only const load): sub-word values taken out of their
; word, i64 as two words, dynamic indices as address arithmetic.
; RUN: tandem compile %s --emit mir -o - --print-after isel 2>&1 >/dev/null | FileCheck %s --check-prefix=MIR
; RUN: tandem compile %s --emit asm -o - | FileCheck %s --check-prefix=ASM
; RUN: tandem compile %s -o %t.img && tandem objdump %t.img | FileCheck %s --check-prefix=IMG

target datalayout = "e-p:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx-nvidia-cuda"

%pair = type { i8, i32, i16 }

@words = dso_local addrspace(4) externally_initialized global [3 x i32] [i32 1, i32 -2, i32 305419896], align 4
@bytes = dso_local addrspace(4) externally_initialized global [5 x i8] c"\01\82\03\FA\07", align 1
@halves = dso_local addrspace(4) externally_initialized global [3 x i16] [i16 -5, i16 300, i16 -32000], align 2
@wide = dso_local addrspace(4) externally_initialized global i64 -81985529216486896, align 8
@st = dso_local addrspace(4) externally_initialized global %pair { i8 9, i32 1065353216, i16 -1 }, align 4
@zeros = dso_local addrspace(4) externally_initialized global [4 x float] zeroinitializer, align 4
@half = dso_local addrspace(4) externally_initialized global float 5.000000e-01, align 4
@unused = dso_local addrspace(4) externally_initialized global i32 77, align 4
@dropped = internal addrspace(4) global i32 78, align 4

; Layout: module order, each at its alignment but at least 4 (a word load of
; any byte stays inside the variable). @unused, which no kernel reads, has
; a slot all the same (nvcc keeps externally visible variables for the
; host's cudaMemcpyToSymbol); @dropped, internal and unread, has none.
; ASM:      # const section: 76 bytes, read with ld.const.u32
; ASM-NEXT: #   offset  size  symbol
; ASM-NEXT: #        0    12  words
; ASM-NEXT: #       12     5  bytes
; ASM-NEXT: #       20     6  halves
; ASM-NEXT: #       32     8  wide
; ASM-NEXT: #       40    12  st
; ASM-NEXT: #       52    16  zeros
; ASM-NEXT: #       68     4  half
; ASM-NEXT: #       72     4  unused
; ASM-NEXT: .const
; ASM-NEXT:   .align 4
; ASM-NEXT: words:  # words, 12 bytes
; ASM-NEXT:   .word 0x00000001, 0xfffffffe, 0x12345678
; ASM-NEXT:   .size words, 12  # a symbol of the image
; ASM-NEXT:   .align 4
; ASM-NEXT: bytes:  # bytes, 5 bytes
; ASM-NEXT:   .word 0xfa038201
; ASM-NEXT:   .byte 0x07
; ASM-NEXT:   .size bytes, 5  # a symbol of the image
; ASM-NEXT:   .align 4
; ASM-NEXT: halves:  # halves, 6 bytes
; ASM-NEXT:   .word 0x012cfffb
; ASM-NEXT:   .byte 0x00, 0x83
; ASM-NEXT:   .size halves, 6  # a symbol of the image
; ASM-NEXT:   .align 32
; ASM-NEXT: wide:  # wide, 8 bytes
; ASM-NEXT:   .word 0x76543210, 0xfedcba98
; ASM-NEXT:   .size wide, 8  # a symbol of the image
; ASM-NEXT:   .align 8
; Struct padding is zero: i8 9, 3 bytes of padding, i32, i16 -1, 2 bytes.
; ASM-NEXT: st:  # st, 12 bytes
; ASM-NEXT:   .word 0x00000009, 0x3f800000, 0x0000ffff
; ASM-NEXT:   .size st, 12  # a symbol of the image
; ASM-NEXT:   .align 4
; ASM-NEXT: zeros:  # zeros, 16 bytes
; ASM-NEXT:   .word 0x00000000, 0x00000000, 0x00000000, 0x00000000
; ASM-NEXT:   .size zeros, 16  # a symbol of the image
; ASM-NEXT:   .align 4
; ASM-NEXT: half:  # half, 4 bytes
; ASM-NEXT:   .word 0x3f000000
; ASM-NEXT:   .size half, 4  # a symbol of the image
; ASM-NEXT:   .align 8
; ASM-NEXT: unused:  # unused, 4 bytes
; ASM-NEXT:   .word 0x0000004d
; ASM-NEXT:   .size unused, 4  # a symbol of the image
; ASM-NEXT:   .align 4
; ASM-NOT: dropped

; The image holds the same bytes.
; IMG: Contents of section .const (76 bytes):
; IMG-NEXT: 0000  01000000 feffffff 78563412 018203fa

; MIR-LABEL: function constant_addresses {
; A word at a constant address: [r0 + offset].
; MIR: [[W:%v[0-9]+]] = ld.const.u32 r0, 8
; bytes[1] (0x82, zero-extended): the word at 12, bits 8..15.
; MIR: [[B:%v[0-9]+]] = ld.const.u32 r0, 12
; MIR-NEXT: [[BS:%v[0-9]+]] = shri [[B]], 8
; MIR-NEXT: {{%v[0-9]+}} = andi [[BS]], 255
; halves[1] is the top half of the word at 20: the shift alone extends.
; MIR: [[H:%v[0-9]+]] = ld.const.u32 r0, 20
; MIR-NEXT: {{%v[0-9]+}} = shri [[H]], 16
; The i64 as two words.
; MIR: {{%v[0-9]+}} = ld.const.u32 r0, 32
; MIR-NEXT: {{%v[0-9]+}} = ld.const.u32 r0, 36
; st.i32 at 40 + 4.
; MIR: {{%v[0-9]+}} = ld.const.u32 r0, 44
; zeros[3] at 52 + 12.
; MIR: {{%v[0-9]+}} = ld.const.u32 r0, 64
; MIR: RET
define void @constant_addresses(ptr addrspace(1) %out) {
  %w = load i32, ptr addrspace(4) getelementptr inbounds ([3 x i32], ptr addrspace(4) @words, i32 0, i32 2), align 4
  store i32 %w, ptr addrspace(1) %out, align 4
  %b = load i8, ptr addrspace(4) getelementptr inbounds ([5 x i8], ptr addrspace(4) @bytes, i32 0, i32 1), align 1
  %bz = zext i8 %b to i32
  %o1 = getelementptr inbounds i32, ptr addrspace(1) %out, i32 1
  store i32 %bz, ptr addrspace(1) %o1, align 4
  %h = load i16, ptr addrspace(4) getelementptr inbounds ([3 x i16], ptr addrspace(4) @halves, i32 0, i32 1), align 2
  %hz = zext i16 %h to i32
  %o2 = getelementptr inbounds i32, ptr addrspace(1) %out, i32 2
  store i32 %hz, ptr addrspace(1) %o2, align 4
  %q = load i64, ptr addrspace(4) @wide, align 8
  %o3 = getelementptr inbounds i64, ptr addrspace(1) %out, i32 2
  store i64 %q, ptr addrspace(1) %o3, align 8
  %s = load i32, ptr addrspace(4) getelementptr inbounds (%pair, ptr addrspace(4) @st, i32 0, i32 1), align 4
  %o4 = getelementptr inbounds i32, ptr addrspace(1) %out, i32 6
  store i32 %s, ptr addrspace(1) %o4, align 4
  %z = load float, ptr addrspace(4) getelementptr inbounds ([4 x float], ptr addrspace(4) @zeros, i32 0, i32 3), align 4
  %o5 = getelementptr inbounds float, ptr addrspace(1) %out, i32 7
  store float %z, ptr addrspace(1) %o5, align 4
  ret void
}

; MIR-LABEL: function dynamic_indices {
; words[tid % 3]: index * 4 + 0 (the remainder as x - 3 * mulhiu(x, M) >> 1;
; tid is known below 2^16, so InstCombine's i16 urem needs no masks).
; MIR: = mulhiu
; MIR: [[I:%v[0-9]+]] = sub
; MIR-NEXT: [[IO:%v[0-9]+]] = shli [[I]], 2
; MIR-NEXT: {{%v[0-9]+}} = ld.const.u32 [[IO]], 0
; bytes[tid & 7]: the word at (12 + i) & ~3 (the 12 stays in the load),
; shifted right by 8 * (i & 3), masked.
; MIR: [[J:%v[0-9]+]] = andi {{%v[0-9]+}}, 7
; MIR-NEXT: [[JA:%v[0-9]+]] = andi [[J]], -4
; MIR-NEXT: [[JB:%v[0-9]+]] = andi [[J]], 3
; MIR-NEXT: [[JS:%v[0-9]+]] = shli [[JB]], 3
; MIR-NEXT: [[JW:%v[0-9]+]] = ld.const.u32 [[JA]], 12
; MIR-NEXT: [[JR:%v[0-9]+]] = shr [[JW]], [[JS]]
; MIR-NEXT: {{%v[0-9]+}} = andi [[JR]], 255
; halves[tid & 1] at 20 + 2 * i.
; MIR: [[K:%v[0-9]+]] = shli {{%v[0-9]+}}, 1
; MIR-NEXT: [[KA:%v[0-9]+]] = andi [[K]], -4
; MIR-NEXT: [[KB:%v[0-9]+]] = andi [[K]], 3
; MIR-NEXT: [[KS:%v[0-9]+]] = shli [[KB]], 3
; MIR-NEXT: [[KW:%v[0-9]+]] = ld.const.u32 [[KA]], 20
; MIR-NEXT: [[KR:%v[0-9]+]] = shr [[KW]], [[KS]]
; MIR: RET
define void @dynamic_indices(ptr addrspace(1) %out) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %i = urem i32 %tid, 3
  %pw = getelementptr inbounds [3 x i32], ptr addrspace(4) @words, i32 0, i32 %i
  %w = load i32, ptr addrspace(4) %pw, align 4
  %j = and i32 %tid, 7
  %pb = getelementptr inbounds [5 x i8], ptr addrspace(4) @bytes, i32 0, i32 %j
  %b = load i8, ptr addrspace(4) %pb, align 1
  %bs = sext i8 %b to i32
  %k = and i32 %tid, 1
  %ph = getelementptr inbounds [3 x i16], ptr addrspace(4) @halves, i32 0, i32 %k
  %h = load i16, ptr addrspace(4) %ph, align 2
  %hs = sext i16 %h to i32
  %f = load float, ptr addrspace(4) @half, align 4
  %fi = fptosi float %f to i32
  %s1 = add i32 %w, %bs
  %s2 = add i32 %s1, %hs
  %s3 = add i32 %s2, %fi
  %o = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %tid
  store i32 %s3, ptr addrspace(1) %o, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

!nvvm.annotations = !{!0, !1}
!0 = !{ptr @constant_addresses, !"kernel", i32 1}
!1 = !{ptr @dynamic_indices, !"kernel", i32 1}
