// CSR sparse matrix times dense vector, y = A * x, two ways:
//   spmv_scalar: one thread per row (lanes of a warp walk rows of different
//       lengths: a data-dependent trip count per lane);
//   spmv_vector: one warp per row; lanes stride over the row's non-zeros
//       and the warp adds its partial sums with __shfl_down_sync. Launch
//       with a block size that is a multiple of 32.
// Exercises indirect (gathered) loads, divergent loops, and shuffles.
extern "C" __global__ void spmv_scalar(int rows, const int *rowPtr, const int *colIdx,
                                       const float *vals, const float *x, float *y) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows)
    return;
  float sum = 0.0f;
  for (int j = rowPtr[row]; j < rowPtr[row + 1]; ++j)
    sum += vals[j] * x[colIdx[j]];
  y[row] = sum;
}

extern "C" __global__ void spmv_vector(int rows, const int *rowPtr, const int *colIdx,
                                       const float *vals, const float *x, float *y) {
  int lane = threadIdx.x & 31;
  int row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  if (row >= rows) // the same for every lane of a warp: the whole warp leaves
    return;
  float sum = 0.0f;
  for (int j = rowPtr[row] + lane; j < rowPtr[row + 1]; j += 32)
    sum += vals[j] * x[colIdx[j]];
  for (int offset = 16; offset > 0; offset >>= 1)
    sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (lane == 0)
    y[row] = sum;
}
