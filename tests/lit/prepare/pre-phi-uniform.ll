; GVN's PRE leaves a phi of two identical pure computations at the join of
; a divergent branch (`and i32 %p, 31` on both sides); SimplifyCFG makes a
; small such diamond a select of the two. Uniformity analysis calls either
; divergent, so a branch on it, uniform in fact, became a divergent one and
; the barrier under it an error: "__syncthreads() in divergent control
; flow" (compfuzz finding 13, seed 7768 at -O2). Prepare now computes the
; value once (RecomputeEqualIncomingValues): the branch stays uniform, no
; Flow block, and the kernel compiles and runs.
; RUN: tandem compile %s -O0 --emit ll -o - | FileCheck %s --check-prefix=IR
; RUN: tandem run %s -O0 --kernel k --grid 1 --block 64 --arg buf:s32:64:iota \
; RUN:   --arg buf:s32:64:poison --arg s32:5 --dump 64 | FileCheck %s --check-prefix=OUT

target datalayout = "e-p:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx-nvidia-cuda"

@sc = internal addrspace(3) global i32 undef, align 4

; The stores keep the first diamond a diamond (a phi); the second, with
; nothing but the computations, becomes a select at -O0.
; IR-LABEL: define void @k(
; IR:       join:
; IR-NEXT:    %m = and i32 %p, 31
; IR:         br i1 %u, label %bar, label %exit, !structurizecfg.uniform
; IR:       bar:
; IR-NOT:   select
; IR:         %n1 = and i32 %p, 7
; IR-NEXT:    %v = icmp ne i32 %n1, 0
; IR-NOT:   Flow
;
; Thread t: out = in + 1 + 7 (written by thread 0 before the barrier) for
; %p = 5 (every branch on %p & 31 is taken).
; OUT: arg 2 (buf:s32:64:poison, at 0x{{[0-9a-f]+}}), first 64 of 64:
; OUT-NEXT: 8 9 10 11 12 13 14 15
define void @k(ptr addrspace(1) %in, ptr addrspace(1) %out, i32 %p) {
entry:
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ia = getelementptr inbounds i32, ptr addrspace(1) %in, i32 %t
  %x = load i32, ptr addrspace(1) %ia, align 4
  %oa = getelementptr inbounds i32, ptr addrspace(1) %out, i32 %t
  %c = icmp eq i32 %x, %p
  br i1 %c, label %left, label %right
left:
  %m1 = and i32 %p, 31
  store i32 1, ptr addrspace(1) %oa, align 4
  br label %join
right:
  %m2 = and i32 %p, 31
  store i32 2, ptr addrspace(1) %oa, align 4
  br label %join
join:
  %m = phi i32 [ %m1, %left ], [ %m2, %right ]
  %u = icmp ne i32 %m, 31
  br i1 %u, label %bar, label %exit
bar:
  %d = icmp sgt i32 %x, 9
  br i1 %d, label %hi, label %lo
hi:
  %n1 = and i32 %p, 7
  br label %sel
lo:
  %n2 = and i32 %p, 7
  br label %sel
sel:
  %n = phi i32 [ %n1, %hi ], [ %n2, %lo ]
  %v = icmp ne i32 %n, 0
  br i1 %v, label %write, label %wait
write:
  %first = icmp eq i32 %t, 0
  br i1 %first, label %store, label %wait
store:
  store i32 7, ptr addrspace(3) @sc, align 4
  br label %wait
wait:
  call void @llvm.nvvm.barrier0()
  %s = load i32, ptr addrspace(3) @sc, align 4
  %y = add i32 %x, 1
  %ys = add i32 %y, %s
  store i32 %ys, ptr addrspace(1) %oa, align 4
  br label %exit
exit:
  ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier0()

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"kernel", i32 1}
