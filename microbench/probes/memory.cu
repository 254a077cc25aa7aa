// memory.cu - streaming and access-pattern probes over global memory.
#include "probe_common.h"

// Streaming read: a grid-stride sum over n words; each thread stores its sum.
extern "C" __global__ void stream_read(const unsigned *a, int n, unsigned *out) {
  unsigned sum = 0;
  unsigned step = blockDim.x * gridDim.x;
#pragma unroll 1
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < (unsigned)n; i += step)
    sum += a[i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// Streaming write of n words.
extern "C" __global__ void stream_write(unsigned *b, int n, unsigned v) {
  unsigned step = blockDim.x * gridDim.x;
#pragma unroll 1
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < (unsigned)n; i += step)
    b[i] = v + i;
}

// Streaming copy of n words.
extern "C" __global__ void stream_copy(const unsigned *a, unsigned *b, int n) {
  unsigned step = blockDim.x * gridDim.x;
#pragma unroll 1
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < (unsigned)n; i += step)
    b[i] = a[i];
}

// Coalescing sweep: one warp; in trip i lane L reads word (32*i + L)*stride,
// so a warp load touches min(32, 32*stride*4/line) distinct lines, all new.
extern "C" __global__ void global_stride(const unsigned *a, int stride, int n, unsigned *out) {
  unsigned lane = threadIdx.x % 32;
  unsigned sum = 0;
#pragma unroll 1
  for (int i = 0; i < n; ++i)
    sum += a[(32u * (unsigned)i + lane) * (unsigned)stride];
  out[threadIdx.x] = sum;
}
