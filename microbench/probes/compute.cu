// compute.cu - arithmetic probes. The *_lat kernels run one dependent chain
// (each operation needs the previous result): time per operation is the
// latency. The *_tput kernels run four independent chains per thread in
// every warp of a full block: the unit's issue rate. Operands come from
// kernel parameters so nothing folds at compile time.
#include "probe_common.h"

extern "C" __global__ void fma_lat(float a, float b, int n, float *out) {
  float x = threadIdx.x;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    REP64(x = fmaf(x, a, b);)
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

extern "C" __global__ void fma_tput(float a, float b, int n, float *out) {
  float x0 = threadIdx.x, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    REP64(x0 = fmaf(x0, a, b); x1 = fmaf(x1, a, b); x2 = fmaf(x2, a, b); x3 = fmaf(x3, a, b);)
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x0 + x1 + x2 + x3;
}

// Integer add chain: alternate add and xor so no pass can merge the adds.
extern "C" __global__ void iadd_lat(unsigned a, unsigned b, int n, unsigned *out) {
  unsigned x = threadIdx.x;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    REP64(x = (x + a) ^ b;)
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

extern "C" __global__ void iadd_tput(unsigned a, unsigned b, int n, unsigned *out) {
  unsigned x0 = threadIdx.x, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    REP64(x0 = (x0 + a) ^ b; x1 = (x1 + a) ^ b; x2 = (x2 + a) ^ b; x3 = (x3 + a) ^ b;)
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x0 + x1 + x2 + x3;
}

// Integer multiply chain (x*a ^ b: a multiply and an ALU op per step).
extern "C" __global__ void imul_lat(unsigned a, unsigned b, int n, unsigned *out) {
  unsigned x = threadIdx.x;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    REP64(x = (x * a) ^ b;)
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

// Divide and square root: the host passes d = 1, so x stays put and the
// iterative unit sees the same operands every time.
extern "C" __global__ void idiv_lat(unsigned d, int n, unsigned *out) {
  unsigned x = threadIdx.x + 1000;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    REP64(x = x / d;)
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

extern "C" __global__ void fdiv_lat(float d, int n, float *out) {
  float x = threadIdx.x + 1000.0f;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    REP64(x = x / d;)
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

extern "C" __global__ void sqrt_lat(float b, int n, float *out) {
  float x = threadIdx.x + 1.0f;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    REP64(x = sqrtf(x) + b;)
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

// Math library calls (cuda/math, inlined): 4 calls a trip (16 inlined copies
// would spill), each with one fp op that keeps the argument in range.
extern "C" __global__ void expf_lat(int n, float *out) {
  float x = (threadIdx.x % 32) * 0.03f;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    REP4(x = expf(-x);)
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

extern "C" __global__ void sinf_lat(float b, int n, float *out) {
  float x = (threadIdx.x % 32) * 0.03f;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    REP4(x = sinf(x) + b;)
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}
