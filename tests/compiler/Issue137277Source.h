//===- Issue137277Source.h - the fuzzer's reproducer of llvm-project #137277 -===//
//
// A kernel the compiler fuzzer generated (docs/CompilerFuzzing.md) on which
// LLVM 19's uniformity analysis calls a phi in a peeled loop iteration
// uniform: the region StructurizeCFG skips as uniform is divergent. Shared
// by the prepare test of the workaround and the divergence check's test.
//
//===----------------------------------------------------------------------===//
#pragma once

namespace tandem::testing {

inline constexpr const char *Issue137277Source = R"(
static __device__ __forceinline__ unsigned divu(unsigned a, unsigned b) { return b == 0 ? a : a / b; }
__global__ void k(unsigned long long *o, unsigned long long *a, unsigned long long *b, int n) {
  const int *in = (const int *)a;
  const float *fin = (const float *)b;
  const int tid = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  int v2 = in[(tid * 7 + 262) & 1023];
  unsigned v3 = (unsigned)in[(tid * 7 + 393) & 1023];
  unsigned v4 = (unsigned)in[(tid * 7 + 524) & 1023];
  float v5 = fin[(tid * 7 + 655) & 255];
  float v7 = fin[(tid * 7 + 917) & 255];
  unsigned long long v8 = ((unsigned long long)(unsigned)in[(tid * 7 + 1048) & 1023] << 32) |
                          (unsigned)in[((tid * 7 + 1048) + 1) & 1023];
  for (int k0 = 0, t0 = v2 & 7; k0 < t0; ++k0) {
    if ((int)(v8 != 0x0ull)) {
      v7 = (__clz((int)(unsigned)in[0 & 1023]) ? (-v5) : fin[0 & 255]);
      v8 = 0x1ull;
      v7 = (0x0p+0f - v7);
    } else {
      v3 = (divu(v4, v3) + 1u);
    }
    v5 = 0x0p+0f;
  }
  unsigned *out = (unsigned *)o + 2 * tid;
  out[0] = v3 ^ __float_as_uint(v5) ^ (unsigned)v8 ^ (unsigned)(v8 >> 32);
  out[1] = __float_as_uint(v7);
})";

} // namespace tandem::testing
