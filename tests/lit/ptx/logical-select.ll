; `select i1 c, x, false` (c && x) is one and.pred and `select i1 c, true, x`
; (c || x) one or.pred; other i1 selects keep the general
; not/and/and/or.pred form.
; RUN: tandem compile %s --target ptx -o - | FileCheck %s
; RUN: %if ptxas %{ tandem compile %s --target ptx -o %t.ptx && %ptxas %t.ptx %}

target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; CHECK-LABEL: .visible .entry both(
; CHECK: setp.gt.s32 [[X:%p[0-9]+]], {{%r[0-9]+}}, 0;
; CHECK-NEXT: setp.lt.s32 [[Y:%p[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}};
; CHECK-NEXT: and.pred [[AND:%p[0-9]+]], [[X]], [[Y]];
; CHECK-NOT: .pred
; CHECK: selp.b32 {{%r[0-9]+}}, 1, 0, [[AND]];
define void @both(i32 %x, i32 %y, i32 %n, ptr addrspace(1) %out) {
  %cx = icmp sgt i32 %x, 0
  %cy = icmp slt i32 %y, %n
  %c = select i1 %cx, i1 %cy, i1 false
  %v = zext i1 %c to i32
  store i32 %v, ptr addrspace(1) %out
  ret void
}

; CHECK-LABEL: .visible .entry either(
; CHECK: setp.gt.s32 [[X:%p[0-9]+]], {{%r[0-9]+}}, 0;
; CHECK-NEXT: setp.lt.s32 [[Y:%p[0-9]+]], {{%r[0-9]+}}, {{%r[0-9]+}};
; CHECK-NEXT: or.pred [[OR:%p[0-9]+]], [[X]], [[Y]];
; CHECK-NOT: .pred
; CHECK: selp.b32 {{%r[0-9]+}}, 1, 0, [[OR]];
define void @either(i32 %x, i32 %y, i32 %n, ptr addrspace(1) %out) {
  %cx = icmp sgt i32 %x, 0
  %cy = icmp slt i32 %y, %n
  %c = select i1 %cx, i1 true, i1 %cy
  %v = zext i1 %c to i32
  store i32 %v, ptr addrspace(1) %out
  ret void
}

; CHECK-LABEL: .visible .entry general(
; CHECK: not.pred [[NOTC:%p[0-9]+]], [[C:%p[0-9]+]];
; CHECK-NEXT: and.pred [[A:%p[0-9]+]], [[C]], {{%p[0-9]+}};
; CHECK-NEXT: and.pred [[B:%p[0-9]+]], [[NOTC]], {{%p[0-9]+}};
; CHECK-NEXT: or.pred {{%p[0-9]+}}, [[A]], [[B]];
define void @general(i32 %x, i32 %y, i32 %n, ptr addrspace(1) %out) {
  %cx = icmp sgt i32 %x, 0
  %cy = icmp slt i32 %y, %n
  %cn = icmp eq i32 %n, 0
  %c = select i1 %cn, i1 %cx, i1 %cy
  %v = zext i1 %c to i32
  store i32 %v, ptr addrspace(1) %out
  ret void
}

!nvvm.annotations = !{!0, !1, !2}
!0 = !{ptr @both, !"kernel", i32 1}
!1 = !{ptr @either, !"kernel", i32 1}
!2 = !{ptr @general, !"kernel", i32 1}
