// A remainder (the iterative unit: its result is readable 130 cycles
// after issue at 8 lanes) whose use comes after a memory instruction.
extern "C" __global__ void rem_across_load(const unsigned *in, unsigned *out, unsigned d,
                                           unsigned e) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned r = in[i] % d;
  out[i] = r + in[i + 1] + e;
}
