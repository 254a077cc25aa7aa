// saxpy: y[i] = a * x[i] + y[i]. Exercises a float scalar parameter, an
// in-out buffer and fused multiply-add (contraction is allowed, so the
// result may be fused or not: the check tolerates either rounding).
extern "C" __global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}
