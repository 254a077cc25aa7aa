// softmax_rows: out[r][c] = exp(in[r][c] - max_r) / sum_c exp(in[r][c] - max_r),
// one block per row. Launch with a power-of-two block size (at most 256)
// and blockDim.x * 4 bytes of dynamic shared memory. Exercises dynamic
// (extern) shared memory, two tree reductions (max, then sum) with barriers,
// fmaxf, expf and fp32 division.
extern "C" __global__ void softmax_rows(const float *in, float *out, int cols) {
  extern __shared__ float scratch[];
  const float *rowIn = in + blockIdx.x * cols;
  float *rowOut = out + blockIdx.x * cols;
  unsigned tid = threadIdx.x;

  float m = -3.402823466e+38f; // -FLT_MAX: below every finite input
  for (int c = tid; c < cols; c += blockDim.x)
    m = fmaxf(m, rowIn[c]);
  scratch[tid] = m;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      scratch[tid] = fmaxf(scratch[tid], scratch[tid + s]);
    __syncthreads();
  }
  float rowMax = scratch[0];
  __syncthreads(); // everyone has read the max before scratch is reused

  float sum = 0.0f;
  for (int c = tid; c < cols; c += blockDim.x)
    sum += expf(rowIn[c] - rowMax);
  scratch[tid] = sum;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      scratch[tid] += scratch[tid + s];
    __syncthreads();
  }
  float total = scratch[0];

  for (int c = tid; c < cols; c += blockDim.x)
    rowOut[c] = expf(rowIn[c] - rowMax) / total;
}
