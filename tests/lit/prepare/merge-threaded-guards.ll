; tandem-merge-threaded-guards (isel/Prepare.cpp, ptx only): a guard `c`
; whose false edge SimplifyCFG threaded to the end (J: br c, L, E; L: br d,
; T, M; M: br c', .., E with c' false when c is) becomes one branch on
; `select c, d, false`, L's code hoisted into J. Where the !c path would
; then run M's store, or L's load, the shape stays. The -O0 pipeline's
; SimplifyCFG has already joined the second guard of each (`%or.cond`).
; RUN: tandem compile %s --target ptx -O0 --print-after tandem-merge-threaded-guards -o /dev/null 2>&1 | FileCheck %s
; RUN: %if ptxas %{ tandem compile %s --target ptx -O0 -o %t.ptx && %ptxas %t.ptx %}

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; The threaded shape: merged.
; CHECK-LABEL: define ptx_kernel void @merged(
; CHECK: entry:
; CHECK: %y1 = add i32 %y, 8
; CHECK: %c.and = select i1 %c, i1 %d1, i1 false
; CHECK-NEXT: br i1 %c.and, label %t1, label %m1
; CHECK-NOT: {{^}}l1:
; CHECK: {{^}}end:
define ptx_kernel void @merged(ptr addrspace(1) %p, i32 %x, i32 %y) {
entry:
  %c = icmp slt i32 %x, 100
  br i1 %c, label %l1, label %end
l1:
  %y1 = add i32 %y, 8
  %d1 = icmp slt i32 %y1, 50
  br i1 %d1, label %t1, label %m1
t1:
  store i32 1, ptr addrspace(1) %p
  br label %m1
m1:
  br i1 %c, label %l2, label %end
l2:
  %y2 = add i32 %y, 16
  %d2 = icmp slt i32 %y2, 50
  br i1 %d2, label %t2, label %end
t2:
  %q = getelementptr i32, ptr addrspace(1) %p, i64 1
  store i32 2, ptr addrspace(1) %q
  br label %end
end:
  ret void
}

; M does more than branch (a store the !c path must not run): kept.
; CHECK-LABEL: define ptx_kernel void @m_has_work(
; CHECK: br i1 %c, label %l1, label %end
; CHECK: {{^}}l1:
define ptx_kernel void @m_has_work(ptr addrspace(1) %p, i32 %x, i32 %y) {
entry:
  %c = icmp slt i32 %x, 100
  br i1 %c, label %l1, label %end
l1:
  %d1 = icmp slt i32 %y, 50
  br i1 %d1, label %t1, label %m1
t1:
  store i32 1, ptr addrspace(1) %p
  br label %m1
m1:
  %q = getelementptr i32, ptr addrspace(1) %p, i64 2
  store i32 3, ptr addrspace(1) %q
  br i1 %c, label %l2, label %end
l2:
  %d2 = icmp slt i32 %y, 60
  br i1 %d2, label %t2, label %end
t2:
  store i32 2, ptr addrspace(1) %p
  br label %end
end:
  ret void
}

; L reads memory (not speculated onto the !c path): kept.
; CHECK-LABEL: define ptx_kernel void @l_loads(
; CHECK: br i1 %c, label %l1, label %end
; CHECK: {{^}}l1:
; CHECK-NEXT: %v = load i32
define ptx_kernel void @l_loads(ptr addrspace(1) %p, i32 %x) {
entry:
  %c = icmp slt i32 %x, 100
  br i1 %c, label %l1, label %end
l1:
  %v = load i32, ptr addrspace(1) %p
  %d1 = icmp slt i32 %v, 50
  br i1 %d1, label %t1, label %end
t1:
  store i32 1, ptr addrspace(1) %p
  br label %end
end:
  ret void
}

; M is J itself (a loop on an invariant c): rewritten, !c would go round
; the loop again instead of out to %end. Kept.
; CHECK-LABEL: define ptx_kernel void @m_is_j(
; CHECK: {{^}}j:
; CHECK-NEXT: br i1 %c, label %l, label %end
; CHECK: {{^}}l:
define ptx_kernel void @m_is_j(ptr addrspace(1) %p, i32 %x, i32 %y) {
entry:
  %c = icmp slt i32 %x, 100
  br label %j
j:
  br i1 %c, label %l, label %end
l:
  %d = icmp slt i32 %y, 50
  br i1 %d, label %t, label %j
t:
  store volatile i32 1, ptr addrspace(1) %p
  br label %j
end:
  ret void
}
