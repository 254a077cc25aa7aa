; LLVM IR with global pointers goes through the whole simt back end: the
; listing names the parameters, reassembles to the same image, and the
; kernel runs on iss and rtl with .npy buffers, giving the same output.
; RUN: rm -rf %t && mkdir -p %t
; RUN: tandem compile %s --emit asm -o - | FileCheck %s --check-prefix=ASM
; ASM: # kernel vadd: {{[0-9]+}} registers used, 0 spill bytes per thread, {{[0-9]+}} instructions
; ASM-NEXT: .kernel vadd
; ASM-NEXT: .param a ptr
; ASM-NEXT: .param b ptr
; ASM-NEXT: .param c ptr
; ASM-NEXT: .param n s32
; ASM-DAG: ld.param.u32 r{{[0-9]+}}, [r0 + @n]
; ASM-DAG: s2r r{{[0-9]+}}, %tid.x
; ASM: {{(bnone|bany|bz|bnz|bra) .*}}.LBB{{[0-9]+}}_end
; ASM: fadd
; ASM: st.global.u32
; ASM: .LBB{{[0-9]+}}_end:
; ASM: exit
; RUN: tandem compile %s -o %t/k.img
; RUN: tandem compile %s --emit asm -o %t/k.s
; RUN: tandem as %t/k.s -o %t/k2.img
; RUN: cmp %t/k.img %t/k2.img
; RUN: python3 %S/Inputs/npy.py iota %t/a.npy '<f4' 40 1
; RUN: python3 %S/Inputs/npy.py iota %t/b.npy '<f4' 40 0.5
; RUN: tandem run %s --grid 1 --block 40 --arg in:%t/a.npy --arg in:%t/b.npy \
; RUN:   --arg out:%t/c.npy:f32:40 --arg i32:36 --json | FileCheck %s --check-prefix=JSON
; JSON: {"block":[40,1,1],"compile":{"instructions":{{[0-9]+}},"registers_used":{{[0-9]+}},"spill_bytes":0},"counters":{
; JSON-SAME: "global_store_bytes":144
; JSON-SAME: "kernel":"vadd"}
; RUN: python3 %S/Inputs/npy.py print %t/c.npy | FileCheck %s --check-prefix=C
; C: <f4 (40,): 0 1.5 3 4.5 6 7.5 9 10.5 12 13.5 15 16.5 18 19.5 21 22.5 24 25.5 27 28.5 30 31.5 33 34.5 36 37.5 39 40.5 42 43.5 45 46.5 48 49.5 51 52.5 -6.25985e+18 -6.25985e+18 -6.25985e+18 -6.25985e+18
; RUN: tandem run %t/k.img --device rtl --grid 1 --block 40 --arg in:%t/a.npy \
; RUN:   --arg in:%t/b.npy --arg out:%t/c-rtl.npy:f32:40 --arg i32:36 > /dev/null
; RUN: cmp %t/c.npy %t/c-rtl.npy

target datalayout = "e-p:32:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx-nvidia-cuda"

define ptx_kernel void @vadd(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %c, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %m = mul i32 %ctaid, %ntid
  %i = add i32 %m, %tid
  %cmp = icmp slt i32 %i, %n
  br i1 %cmp, label %then, label %end
then:
  %pa = getelementptr float, ptr addrspace(1) %a, i32 %i
  %pb = getelementptr float, ptr addrspace(1) %b, i32 %i
  %pc = getelementptr float, ptr addrspace(1) %c, i32 %i
  %va = load float, ptr addrspace(1) %pa
  %vb = load float, ptr addrspace(1) %pb
  %s = fadd float %va, %vb
  store float %s, ptr addrspace(1) %pc
  br label %end
end:
  ret void
}
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
