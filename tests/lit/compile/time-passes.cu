// --time-passes, as llc's: one timer per stage, summed over kernels, in a
// table LLVM prints to standard error at exit ("Tandem compile stages").
// simt times every stage it runs (-O0 skips schedule and coalesce); ptx has
// out-of-ssa instead of the simt back end's stages. Without the flag there
// is no table.
// RUN: tandem compile %s -O2 --time-passes -o %t.img 2>&1 | FileCheck %s --check-prefix=SIMT
// RUN: tandem compile %s -O0 --time-passes -o %t.img 2>&1 | FileCheck %s --check-prefix=O0
// RUN: tandem compile %s --target ptx --time-passes -o %t.ptx 2>&1 | FileCheck %s --check-prefix=PTX
// RUN: tandem compile %s -o %t.img 2>&1 | FileCheck %s --check-prefix=NONE --allow-empty
//
// SIMT: Tandem compile stages
// SIMT-DAG: front-end
// SIMT-DAG: prepare
// SIMT-DAG: isel
// SIMT-DAG: schedule
// SIMT-DAG: lower-cfg
// SIMT-DAG: coalesce
// SIMT-DAG: regalloc
// SIMT-DAG: emit
// SIMT: Total
//
// O0: Tandem compile stages
// O0-NOT: schedule
// O0-NOT: coalesce
// O0: Total
//
// PTX: Tandem compile stages
// PTX-DAG: isel
// PTX-DAG: out-of-ssa
// PTX-DAG: emit
// PTX-NOT: regalloc
// PTX: Total
//
// NONE-NOT: Tandem compile stages

extern "C" __global__ void twice(float *x) { x[threadIdx.x] *= 2.0f; }
extern "C" __global__ void thrice(float *x) { x[threadIdx.x] *= 3.0f; }
