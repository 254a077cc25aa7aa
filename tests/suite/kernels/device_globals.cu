// Writable __device__ variables (docs/Compiler.md, "Globals"): a grid-wide
// atomic counter that finds the last block, an accumulator, and an
// initialized weight table that the last block updates. The variables live
// once per loaded image and keep their values between launches, so a second
// launch uses the weights the first one left, and read_state (another kernel
// of the same image) sees what weighted_sum wrote. Checked on iss and rtl by
// tests/suite/DeviceGlobalsTest.cpp and tests/lit/run/device-globals.test.

__device__ unsigned int blocks_done; // no initializer: zero at load
__device__ int total;
__device__ int weight[8] = {3, -1, 4, 1, -5, 9, 2, -6};

// out[i] = in[i] * weight[i % 8]; every product is added to total. The last
// block of each launch adds 1 to every weight and stores total and
// blocks_done (both counted over every launch since load) in result[0..1].
__global__ void weighted_sum(const int *in, int *out, int *result, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int v = in[i] * weight[i & 7];
    out[i] = v;
    atomicAdd(&total, v);
  }
  __shared__ int last;
  __syncthreads();
  if (threadIdx.x == 0)
    last = (atomicAdd(&blocks_done, 1u) + 1) % gridDim.x == 0;
  __syncthreads();
  if (last && threadIdx.x < 8) {
    weight[threadIdx.x] += 1;
    if (threadIdx.x == 0) {
      result[0] = atomicAdd(&total, 0);
      result[1] = blocks_done;
    }
  }
}

// state[0..7] = weight, state[8] = total, state[9] = blocks_done.
__global__ void read_state(int *state) {
  int t = threadIdx.x;
  if (t < 8)
    state[t] = weight[t];
  else if (t == 8)
    state[t] = total;
  else if (t == 9)
    state[t] = (int)blocks_done;
}
