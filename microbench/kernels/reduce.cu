// block_reduce: each block sums a grid-stride slice of `in` into partial[b].
// Exercises static shared memory, __syncthreads in a loop with a uniform trip
// count, and a tree whose active lanes halve each step (divergence inside a
// warp once the stride drops below 32). blockDim.x must be a power of two,
// at most 256.
#define REDUCE_MAX_BLOCK 256

extern "C" __global__ void block_reduce(const float *in, float *partial, int n) {
  __shared__ float sums[REDUCE_MAX_BLOCK];
  unsigned tid = threadIdx.x;
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + tid; i < n; i += gridDim.x * blockDim.x)
    acc += in[i];
  sums[tid] = acc;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride)
      sums[tid] += sums[tid + stride];
    __syncthreads();
  }
  if (tid == 0)
    partial[blockIdx.x] = sums[0];
}
