// stencil5: a 2-D 5-point stencil on a width x height grid (row-major).
// Interior points: out = c * in + e * (north + south + west + east);
// boundary points are copied. Launch with 2-D blocks covering the grid.
// Exercises 2-D indexing, neighbour loads with row-pitch offsets, and a
// divergent boundary test.
extern "C" __global__ void stencil5(const float *in, float *out, int width, int height,
                                    float center, float edge) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height)
    return;
  int i = y * width + x;
  if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
    out[i] = in[i];
    return;
  }
  float neighbours = in[i - width] + in[i + width] + in[i - 1] + in[i + 1];
  out[i] = center * in[i] + edge * neighbours;
}
