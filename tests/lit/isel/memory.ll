; Instruction selection: memory spaces, folded offsets, shared layout.
; RUN: tandem compile %s --emit mir -o - --print-after isel 2>&1 >/dev/null | FileCheck %s
; To regenerate after an intended change: run the RUN line without FileCheck
; and update the CHECK lines by hand (register numbers are matched loosely).

target datalayout = "e-p:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx-nvidia-cuda"

@tile = internal addrspace(3) global [64 x float] undef, align 4
@dyn = external addrspace(3) global [0 x float], align 4

; CHECK-LABEL: function copy {
; CHECK: ; param out at 0
; CHECK: ; param in at 4
; CHECK: ; shared 256 bytes
; CHECK: [[OUT:%v[0-9]+]] = ld.param.u32 r0, 0
; CHECK: [[IN:%v[0-9]+]] = ld.param.u32 r0, 4
; CHECK: [[TID:%v[0-9]+]] = s2r 0
; CHECK: [[OFF:%v[0-9]+]] = shli [[TID]], 2
; CHECK: [[ADDR:%v[0-9]+]] = add [[IN]], [[OFF]]
; CHECK: [[V:%v[0-9]+]] = ld.global.u32 [[ADDR]], 8
; The shared GEP reuses tid << 2 (one computation per block); @tile is at 0.
; CHECK-NEXT: st.shared.u32 [[OFF]], 0, [[V]]
; CHECK-NEXT: bar
; CHECK-NEXT: [[S:%v[0-9]+]] = ld.shared.u32 r0, 4
; Dynamic shared memory starts after the 256 static bytes; the offset folds.
; CHECK-NEXT: [[D:%v[0-9]+]] = ld.shared.u32 [[OFF]], 256
; CHECK-NEXT: [[SUM:%v[0-9]+]] = fadd [[S]], [[D]]
; CHECK-NEXT: st.global.u32 [[OUT]], 0, [[SUM]]
; CHECK: RET
define void @copy(ptr addrspace(1) %out, ptr addrspace(1) %in) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %g = getelementptr inbounds float, ptr addrspace(1) %in, i32 %t
  %g2 = getelementptr inbounds i8, ptr addrspace(1) %g, i32 8
  %v = load float, ptr addrspace(1) %g2, align 4
  %s = getelementptr inbounds [64 x float], ptr addrspace(3) @tile, i32 0, i32 %t
  store float %v, ptr addrspace(3) %s, align 4
  call void @llvm.nvvm.barrier0()
  %s1 = getelementptr inbounds [64 x float], ptr addrspace(3) @tile, i32 0, i32 1
  %a = load float, ptr addrspace(3) %s1, align 4
  %d = getelementptr inbounds [0 x float], ptr addrspace(3) @dyn, i32 0, i32 %t
  %b = load float, ptr addrspace(3) %d, align 4
  %sum = fadd float %a, %b
  store float %sum, ptr addrspace(1) %out, align 4
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier0()

!nvvm.annotations = !{!0}
!0 = !{ptr @copy, !"kernel", i32 1}
