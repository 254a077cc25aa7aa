// math_functions: every function of the device math library (cuda/math) on
// n inputs, each function into its own slice of out: out[F * n + i].
// x feeds the functions of any real argument, p (positive) the logarithms,
// roots and powf's base, y powf's exponent. The suite draws x in [-80, 80],
// p in [1e-3, 80] and y in [-4, 4], where every result is a normal float
// and the library is within 2 ulp; tests/suite/MathOnDeviceTest.cpp passes
// any floats (special values too) and compares bit for bit with the host.
extern "C" __global__ void math_functions(const float *x, const float *p, const float *y,
                                          float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float a = x[i], b = p[i];
  out[0 * n + i] = expf(a);
  out[1 * n + i] = exp2f(a);
  out[2 * n + i] = logf(b);
  out[3 * n + i] = log2f(b);
  out[4 * n + i] = sinf(a);
  out[5 * n + i] = cosf(a);
  out[6 * n + i] = tanhf(a);
  out[7 * n + i] = rsqrtf(b);
  out[8 * n + i] = sqrtf(b);
  out[9 * n + i] = powf(b, y[i]);
}
