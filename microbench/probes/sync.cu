// sync.cu - synchronisation, atomics, shuffles, divergence and launch probes.
#include "probe_common.h"

// Nothing: what a launch costs by itself (the host varies the grid).
extern "C" __global__ void empty() {}

// n trips of 64 barriers; every warp of the block takes part.
extern "C" __global__ void barrier(int n, unsigned *out) {
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    REP64(__syncthreads();)
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = n;
}

// Global atomics. Contended: every lane adds to word 0. Uncontended: lane L
// of warp W adds to its own word. 4 per trip; the result is unused (the
// memory side keeps it).
extern "C" __global__ void atomic_global(unsigned *c, int contended, int n) {
  unsigned *p = contended ? c : c + blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    REP4(atomicAdd(p, 1u);)
  }
}

// The same on shared memory; the block's total is stored at the end.
extern "C" __global__ void atomic_shared(int contended, int n, unsigned *out) {
  __shared__ unsigned cnt[1024];
  unsigned t = threadIdx.x;
  unsigned *p = contended ? cnt : cnt + t % 1024;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    REP4(atomicAdd(p, 1u);)
  }
  __syncthreads();
  out[blockIdx.x * blockDim.x + t] = *p;
}

// Shuffle chain: each lane takes its neighbour's value, 64 times a trip.
extern "C" __global__ void shfl_lat(int n, unsigned *out) {
  unsigned x = threadIdx.x;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    REP64(x = __shfl_xor_sync(0xffffffffu, x, 1) + 1u;)
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

// Divergence: lanes with (lane & mask) != 0 run a 16-fma chain, the others an
// 8-step max/multiply chain (16 operations too) (different operations, so LLVM cannot merge the
// two sides into one with selected operands). mask = 0: the warp agrees (one side runs); mask = 1: odd and even
// lanes split, so both sides run one after the other.
extern "C" __global__ void diverge(float a, float b, unsigned mask, int n, float *out) {
  float x = threadIdx.x;
  unsigned lane = threadIdx.x % 32;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    if (lane & mask) {
      REP4(x = fmaf(x, a, b); x = fmaf(x, b, a); x = fmaf(x, a, a); x = fmaf(x, b, b);)
    } else {
      REP4(x = fmaxf(x, a) * b; x = fmaxf(x, b) * a;)
    }
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}
