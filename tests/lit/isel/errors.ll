; Instruction selection errors name the kernel, the IR instruction, the
; source line and the way out.
; RUN: not tandem compile %s --emit mir -o - 2>&1 | FileCheck %s

target datalayout = "e-p:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx-nvidia-cuda"

; CHECK: kernel narrow: cannot select `%d = {{(tail )?}}call float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float %f, i32 1, i32 6175)` (narrow.cu:3): only full-warp shuffles are supported on simt (width 32: the last argument must be 31)
define void @narrow(ptr addrspace(1) %p, float %f) !dbg !5 {
  %d = call float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float %f, i32 1, i32 6175), !dbg !8
  store float %d, ptr addrspace(1) %p, align 4
  ret void
}

declare float @llvm.nvvm.shfl.sync.down.f32(i32, float, i32, i32)

!nvvm.annotations = !{!0}
!llvm.module.flags = !{!1}
!llvm.dbg.cu = !{!2}
!0 = !{ptr @narrow, !"kernel", i32 1}
!1 = !{i32 2, !"Debug Info Version", i32 3}
!2 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus, file: !3, emissionKind: LineTablesOnly)
!3 = !DIFile(filename: "narrow.cu", directory: "/tmp")
!5 = distinct !DISubprogram(name: "narrow", scope: !3, file: !3, line: 1, type: !6, scopeLine: 1, spFlags: DISPFlagDefinition, unit: !2)
!6 = !DISubroutineType(types: !7)
!7 = !{}
!8 = !DILocation(line: 3, column: 7, scope: !5)
