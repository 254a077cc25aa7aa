// transpose: out (cols x rows) = transpose of in (rows x cols), through a
// 32 x 33 shared tile (the padding column puts a tile column in distinct
// banks). Launch with 32 x 8 blocks and a grid of ceil(cols/32) x
// ceil(rows/32); each thread moves 4 elements. Exercises 2-D indexing,
// partial tiles on both edges, and shared memory with a non-power-of-two
// row pitch.
#define TILE_DIM 32
#define BLOCK_ROWS 8

extern "C" __global__ void transpose(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < cols && y + j < rows)
      tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x; // a column of `out` = a row of `in`
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < rows && y + j < cols)
      out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}
