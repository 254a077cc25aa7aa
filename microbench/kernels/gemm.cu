// sgemm_tiled: C = A * B (row-major, A is M x K, B is K x N), 16 x 16
// tiles staged through shared memory. Launch with 16 x 16 blocks and a grid
// of ceil(N/16) x ceil(M/16). M, N and K need not be multiples of 16: tile
// elements outside A or B are loaded as zero, and only threads inside C
// store. Exercises 2-D indexing, shared tiles, barriers in a loop, and FMA.
#define TILE 16

extern "C" __global__ void sgemm_tiled(const float *A, const float *B, float *C,
                                       int M, int N, int K) {
  __shared__ float tileA[TILE][TILE];
  __shared__ float tileB[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty;
  int col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int t = 0; t < K; t += TILE) {
    tileA[ty][tx] = (row < M && t + tx < K) ? A[row * K + t + tx] : 0.0f;
    tileB[ty][tx] = (t + ty < K && col < N) ? B[(t + ty) * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE; ++k)
      acc += tileA[ty][k] * tileB[k][tx];
    __syncthreads();
  }
  if (row < M && col < N)
    C[row * N + col] = acc;
}
