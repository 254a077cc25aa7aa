// Inclusive prefix sum (wrapping u32) over n elements in three launches:
//   scan_blocks(in, out, blockSums, n)   grid G: each block scans its
//       blockDim.x elements (Hillis-Steele, double-buffered in shared
//       memory) and writes its total to blockSums[blockIdx.x] (skipped when
//       blockSums is null);
//   scan_blocks(blockSums, blockOffsets, 0, G)   one block scans the totals;
//   add_offsets(out, blockOffsets, n)    grid G: block b > 0 adds
//       blockOffsets[b - 1].
// blockDim.x must be at most 256 and G at most blockDim.x. Exercises
// barriers inside a loop, shared double buffering, a null-pointer check.
#define SCAN_MAX_BLOCK 256

extern "C" __global__ void scan_blocks(const unsigned *in, unsigned *out,
                                       unsigned *blockSums, int n) {
  __shared__ unsigned buf[2][SCAN_MAX_BLOCK];
  unsigned tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  int src = 0;
  buf[0][tid] = i < n ? in[i] : 0u;
  __syncthreads();
  for (unsigned offset = 1; offset < blockDim.x; offset <<= 1) {
    unsigned v = buf[src][tid];
    if (tid >= offset)
      v += buf[src][tid - offset];
    buf[1 - src][tid] = v;
    src = 1 - src;
    __syncthreads();
  }
  if (i < n)
    out[i] = buf[src][tid];
  if (blockSums != 0 && tid == blockDim.x - 1)
    blockSums[blockIdx.x] = buf[src][tid];
}

extern "C" __global__ void add_offsets(unsigned *out, const unsigned *blockOffsets, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (blockIdx.x > 0 && i < n)
    out[i] += blockOffsets[blockIdx.x - 1];
}
