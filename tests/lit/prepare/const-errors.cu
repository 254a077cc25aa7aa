// simt reads __constant__ memory with ld.const only: a store to it, or a
// pointer into it that escapes (stored, converted to an integer), is an
// error naming the kernel, the source line and the way out. Writable
// __device__ variables work on simt (the image's data section), but their
// initial values, like __constant__ ones, must be numbers: an address in an
// initializer is an error naming the kernel and the variable.
// At -O1 and above clang's own optimizer deletes a store to __constant__
// memory before the back end sees it (LLVM's NVPTX alias analysis says
// constant memory is never written), so the store is reported at -O0 only.
// RUN: not tandem compile %s -O0 -o /dev/null 2>&1 | FileCheck %s
// RUN: not tandem compile %s -o /dev/null 2>&1 | FileCheck %s --check-prefix=O2
// RUN: not tandem compile %s -DDEVICE_GLOBAL -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEV

__constant__ int table[4] = {1, 2, 3, 4};

#ifndef DEVICE_GLOBAL
// CHECK-DAG: kernel 'writes({{.*}}const-errors.cu:[[@LINE+2]]{{.*}}store to __constant__ variable 'table'{{.*}}read-only on the device
__global__ void writes(int *o) {
  table[threadIdx.x % 4] = o[threadIdx.x];
}

// O2-NOT: writes
// O2-DAG: kernel 'leaks({{.*}}is stored to memory
// O2-DAG: kernel 'converts({{.*}}is converted to an integer
// CHECK-DAG: kernel 'leaks({{.*}}const-errors.cu:[[@LINE+2]]{{.*}}a pointer into __constant__ variable 'table' is stored to memory
__global__ void leaks(const int **o) {
  o[threadIdx.x] = &table[threadIdx.x % 4];
}

// CHECK-DAG: kernel 'converts({{.*}}const-errors.cu:[[@LINE+2]]{{.*}}a pointer into __constant__ variable 'table' is converted to an integer
__global__ void converts(unsigned long long *o) {
  o[threadIdx.x] = (unsigned long long)&table[threadIdx.x % 4];
}
#else
__device__ int counter;
__device__ int *where = &counter;
// DEV: kernel reads: __device__ variable 'where': its initializer contains `ptr addrspacecast (ptr addrspace(1) @counter to ptr)`, which is not plain data; simt's data section holds numbers only
__global__ void reads(int *o) { o[threadIdx.x] = counter + table[1] + (where != 0); }
#endif
