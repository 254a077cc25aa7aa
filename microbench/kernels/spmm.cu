// CSR sparse matrix times dense matrix, C = A * B: A is rows x k in CSR,
// B is k x n and C is rows x n, both dense row-major. One thread per
// element of C: threadIdx.x/blockIdx.y pick the column, threadIdx.y/
// blockIdx.x the row. Rows go on x, whose grid limit is 2^31 - 1 blocks, so
// any matrix fits one launch (microbench/SpmmShape.h). The lanes of a warp
// share a row of A (the same rowPtr, colIdx and vals loads: broadcasts) and
// read consecutive columns of B (coalesced), so the gathers of SpMV become
// row-wise streams of B. Launch with blockDim.x a multiple of 32 (a warp on
// one row).
extern "C" __global__ void spmm_csr(int rows, int n, const int *rowPtr, const int *colIdx,
                                    const float *vals, const float *B, float *C) {
  int col = blockIdx.y * blockDim.x + threadIdx.x;
  int row = blockIdx.x * blockDim.y + threadIdx.y;
  if (row >= rows || col >= n)
    return;
  float sum = 0.0f;
  for (int j = rowPtr[row]; j < rowPtr[row + 1]; ++j)
    sum += vals[j] * B[colIdx[j] * n + col];
  C[row * n + col] = sum;
}
