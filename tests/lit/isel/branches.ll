; Instruction selection: uniform vs divergent branches, PHIs, i64 pairs.
; RUN: tandem compile %s --emit mir -o - --print-after isel 2>&1 >/dev/null | FileCheck %s
; To regenerate after an intended change: run the RUN line without FileCheck
; and update the CHECK lines by hand (register numbers are matched loosely).

target datalayout = "e-p:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx-nvidia-cuda"

; CHECK-LABEL: function sum {
; CHECK: bb.entry:
; CHECK: [[N:%v[0-9]+]] = ld.param.u32 r0, 4
; CHECK: [[TID:%v[0-9]+]] = s2r 0
; CHECK: [[C:%v[0-9]+]] = setlt [[TID]], [[N]]
; CHECK: [[ZERO:%v[0-9]+]] = LI 0
; CHECK: BRCOND [[C]], %bb.loop, %bb.done ; divergent
; CHECK: bb.loop: ; loop depth 1
; CHECK-NEXT: [[I:%v[0-9]+]] = PHI {{%v[0-9]+}}, %bb.loop, [[TID]], %bb.entry
; CHECK-NEXT: [[LO:%v[0-9]+]] = PHI {{%v[0-9]+}}, %bb.loop, [[ZERO]], %bb.entry
; CHECK-NEXT: [[HI:%v[0-9]+]] = PHI {{%v[0-9]+}}, %bb.loop, [[ZERO]], %bb.entry
; i64 add of a zero-extended word: carry from setltu into the high word.
; CHECK: [[SLO:%v[0-9]+]] = add [[LO]], [[I]]
; CHECK-NEXT: [[CARRY:%v[0-9]+]] = setltu [[SLO]], [[LO]]
; CHECK: add {{%v[0-9]+}}, [[CARRY]]
; CHECK: [[NEXT:%v[0-9]+]] = addi [[I]], 32
; StructurizeCFG turns the loop exit into a Flow block.
; CHECK: BRCOND {{%v[0-9]+}}, %bb.Flow, %bb.loop ; divergent
; CHECK: bb.done:
; The block index is uniform, so this branch is not divergent; `== 0`
; branches on the value itself with the targets swapped.
; CHECK: [[B:%v[0-9]+]] = s2r 6
; CHECK-NEXT: BRCOND [[B]], %bb.exit, %bb.first
; CHECK-NOT: divergent
; CHECK: bb.first:
; CHECK: st.global.u32 {{%v[0-9]+}}, 0,
; CHECK: st.global.u32 {{%v[0-9]+}}, 4,
; CHECK: bb.exit:
; CHECK-NEXT: RET
define void @sum(ptr addrspace(1) %out, i32 %n) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %c = icmp slt i32 %t, %n
  br i1 %c, label %loop, label %done
loop:
  %i = phi i32 [ %i.next, %loop ], [ %t, %entry ]
  %acc = phi i64 [ %acc.next, %loop ], [ 0, %entry ]
  %w = zext i32 %i to i64
  %acc.next = add i64 %acc, %w
  %i.next = add i32 %i, 32
  %more = icmp slt i32 %i.next, %n
  br i1 %more, label %loop, label %done
done:
  %r = phi i64 [ 0, %entry ], [ %acc.next, %loop ]
  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %isfirst = icmp eq i32 %b, 0
  br i1 %isfirst, label %first, label %exit
first:
  store i64 %r, ptr addrspace(1) %out, align 8
  br label %exit
exit:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()

!nvvm.annotations = !{!0}
!0 = !{ptr @sum, !"kernel", i32 1}
