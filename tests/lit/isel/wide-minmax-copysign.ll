; 64-bit min/max intrinsics and copysign.f32 are selected (compfuzz findings
; 4 and 5, docs/CompilerFuzzing.md): min/max as the 64-bit compare and one
; sel per word, copysign as and/or on the sign bit.
; RUN: tandem compile %s --emit mir -o - --print-after isel 2>&1 >/dev/null | FileCheck %s

target datalayout = "e-p:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx-nvidia-cuda"

; umin: a < b unsigned on the high words, or equal high words and a.lo < b.lo.
; CHECK-LABEL: function umin64 {
; CHECK: [[HILT:%v[0-9]+]] = setltu [[AHI:%v[0-9]+]], [[BHI:%v[0-9]+]]
; CHECK-NEXT: [[HIEQ:%v[0-9]+]] = seteq [[AHI]], [[BHI]]
; CHECK-NEXT: [[LOLT:%v[0-9]+]] = setltu [[ALO:%v[0-9]+]], [[BLO:%v[0-9]+]]
; CHECK-NEXT: [[TIE:%v[0-9]+]] = and [[HIEQ]], [[LOLT]]
; CHECK-NEXT: [[PICK:%v[0-9]+]] = or [[HILT]], [[TIE]]
; CHECK-NEXT: {{%v[0-9]+}} = sel [[PICK]], [[ALO]], [[BLO]]
; CHECK-NEXT: {{%v[0-9]+}} = sel [[PICK]], [[AHI]], [[BHI]]
define void @umin64(ptr addrspace(1) %p) {
  %q = getelementptr i64, ptr addrspace(1) %p, i32 1
  %a = load i64, ptr addrspace(1) %p
  %b = load i64, ptr addrspace(1) %q
  %r = call i64 @llvm.umin.i64(i64 %a, i64 %b)
  store i64 %r, ptr addrspace(1) %p
  ret void
}

; smax: b < a signed (operands swapped), then a where it holds.
; CHECK-LABEL: function smax64 {
; CHECK: [[HILT:%v[0-9]+]] = setlt [[BHI:%v[0-9]+]], [[AHI:%v[0-9]+]]
; CHECK: [[PICK:%v[0-9]+]] = or [[HILT]],
; CHECK-NEXT: {{%v[0-9]+}} = sel [[PICK]], {{%v[0-9]+}}, {{%v[0-9]+}}
; CHECK-NEXT: {{%v[0-9]+}} = sel [[PICK]], [[AHI]], [[BHI]]
define void @smax64(ptr addrspace(1) %p) {
  %q = getelementptr i64, ptr addrspace(1) %p, i32 1
  %a = load i64, ptr addrspace(1) %p
  %b = load i64, ptr addrspace(1) %q
  %r = call i64 @llvm.smax.i64(i64 %a, i64 %b)
  store i64 %r, ptr addrspace(1) %p
  ret void
}

; CHECK-LABEL: function copysign {
; CHECK: [[MASK:%v[0-9]+]] = LI 2147483647
; CHECK-NEXT: [[MAG:%v[0-9]+]] = and [[M:%v[0-9]+]], [[MASK]]
; CHECK-NEXT: [[SIGNBIT:%v[0-9]+]] = LI -2147483648
; CHECK-NEXT: [[SIGN:%v[0-9]+]] = and [[S:%v[0-9]+]], [[SIGNBIT]]
; CHECK-NEXT: {{%v[0-9]+}} = or [[MAG]], [[SIGN]]
define void @copysign(ptr addrspace(1) %p, float %m, float %s) {
  %r = call float @llvm.copysign.f32(float %m, float %s)
  store float %r, ptr addrspace(1) %p
  ret void
}

declare i64 @llvm.umin.i64(i64, i64)
declare i64 @llvm.smax.i64(i64, i64)
declare float @llvm.copysign.f32(float, float)

!nvvm.annotations = !{!0, !1, !2}
!0 = !{ptr @umin64, !"kernel", i32 1}
!1 = !{ptr @smax64, !"kernel", i32 1}
!2 = !{ptr @copysign, !"kernel", i32 1}
