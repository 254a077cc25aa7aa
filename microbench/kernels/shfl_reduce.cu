// warp_reduce: each thread sums a grid-stride slice of `in`; each warp adds
// its lanes with __shfl_down_sync, and lane 0 adds the warp's sum to *total
// with one atomicAdd. Integer (wrapping) sums, so the result is exact
// whatever order the warps' atomics land in.
extern "C" __global__ void warp_reduce(const unsigned *in, unsigned *total, int n) {
  unsigned acc = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    acc += in[i];
  for (int offset = 16; offset > 0; offset >>= 1)
    acc += __shfl_down_sync(0xffffffffu, acc, offset);
  if ((threadIdx.x & 31) == 0)
    atomicAdd(total, acc);
}
