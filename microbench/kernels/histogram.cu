// histogram: 256 bins of the low byte of each input word. Each block counts
// into shared bins with shared atomics, then adds its non-zero bins to the
// global bins (which start with the caller's counts) with global atomics.
// Exercises shared atomics under heavy lane collisions, barriers, and a
// grid-stride loop.
#define HIST_BINS 256

extern "C" __global__ void histogram(const unsigned *in, unsigned *bins, int n) {
  __shared__ unsigned local[HIST_BINS];
  for (unsigned b = threadIdx.x; b < HIST_BINS; b += blockDim.x)
    local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[in[i] & 0xffu], 1u);
  __syncthreads();
  for (unsigned b = threadIdx.x; b < HIST_BINS; b += blockDim.x)
    if (local[b] != 0)
      atomicAdd(&bins[b], local[b]);
}
