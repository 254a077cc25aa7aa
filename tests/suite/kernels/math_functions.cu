// math_functions: every function of the device math library (cuda/math)
// applied to one input each, written to its own slice of out: out[F * n + i]
// is function F of x[i] (powf: of x[i] and y[i]). MathOnDeviceTest compares
// the results bit for bit with the same library compiled for the host.
extern "C" __global__ void math_functions(const float *x, const float *y, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float a = x[i];
  out[0 * n + i] = expf(a);
  out[1 * n + i] = exp2f(a);
  out[2 * n + i] = logf(a);
  out[3 * n + i] = log2f(a);
  out[4 * n + i] = sinf(a);
  out[5 * n + i] = cosf(a);
  out[6 * n + i] = tanhf(a);
  out[7 * n + i] = rsqrtf(a);
  out[8 * n + i] = sqrtf(a);
  out[9 * n + i] = powf(a, y[i]);
}
