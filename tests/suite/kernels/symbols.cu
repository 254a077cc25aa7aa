// Host access to an image's variables by name (docs/Compiler.md, "Host
// access by name"):
// the host overwrites __constant__ coefficients and a __device__ bias
// before a launch, reads the __device__ counter the kernels update, and
// hands the counter's address to a kernel as a plain pointer. Checked on
// iss and rtl by tests/suite/SymbolsTest.cpp and on the command line by
// tests/lit/run/symbols.test. The same source compiles under nvcc, where
// the host would use cudaMemcpyToSymbol / cudaMemcpyFromSymbol /
// cudaGetSymbolAddress.

__constant__ float coeffs[4] = {1.0f, 2.0f, 3.0f, 4.0f}; // c0 + c1 x + c2 x^2 + c3 x^3
__device__ float bias = 0.5f;
__device__ int evaluated; // how many y[i] were written, over every launch

__global__ void poly(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    y[i] = ((coeffs[3] * v + coeffs[2]) * v + coeffs[1]) * v + coeffs[0] + bias;
    atomicAdd(&evaluated, 1);
  }
}

// *p += v once per thread: given the address of a __device__ variable, it
// updates the variable like any global buffer.
__global__ void add_each(int *p, int v) { atomicAdd(p, v); }
