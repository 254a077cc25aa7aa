; A branch LLVM's uniformity analysis calls uniform and our conservative
; DivergenceCheck calls divergent is treated as divergent: prepare
; structurizes the kernel again without skipping uniform regions, marks it
; with "tandem-divergence-check-branches" (the count), and the selector
; lowers the branch with exec masks.
; Here %p joins a divergent if and takes %x from one side and undef from the
; other: LLVM ignores the undef and calls %p uniform (a legal reading), ours
; counts undef as a value of its own (conservative).
; RUN: tandem compile %s -O0 --emit ll -o - | FileCheck %s --check-prefix=IR
; RUN: tandem compile %s -O0 --emit mir -o - --print-after isel 2>&1 >/dev/null | FileCheck %s --check-prefix=MIR
; --stats says how many branches the check made divergent:
; RUN: tandem compile %s -O0 --stats -o %t.img 2>&1 | FileCheck %s --check-prefix=STATS
; STATS: k: 1 branch(es) LLVM's uniformity analysis called uniform were found divergent by the divergence check

target datalayout = "e-p:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx-nvidia-cuda"

; The region on %cp was structurized (a Flow block) after all:
; IR: br i1 %cp, label %b, label %Flow
; IR: attributes #{{[0-9]+}} = { {{.*}}"tandem-divergence-check-branches"="1"
; MIR: BRCOND {{%v[0-9]+}}, %bb.b, %bb.Flow  ; divergent
define void @k(ptr addrspace(1) %out, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %slot = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %tid
  %c = icmp slt i32 %tid, 5
  br i1 %c, label %then, label %join
then:
  %x = add i32 %n, 1
  store i32 0, ptr addrspace(1) %slot, align 4
  br label %join
join:
  %p = phi i32 [ %x, %then ], [ undef, %entry ]
  %cp = icmp eq i32 %p, 5
  br i1 %cp, label %a, label %b
a:
  store i32 1, ptr addrspace(1) %slot, align 4
  br label %end
b:
  store i32 2, ptr addrspace(1) %slot, align 4
  br label %end
end:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
