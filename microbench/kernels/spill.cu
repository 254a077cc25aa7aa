// many_live: 40 independent accumulators, all live around a loop whose trip
// count is a parameter, so no schedule fits them in 32 (or 16) registers:
// the register allocator must spill to local memory and reload, and the
// results must still be exact. Each thread reads in[i + t] for
// t = 0..iters-1 (the input has n + iters words).
#define FOR_40(M)                                                              \
  M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9) M(10) M(11) M(12) M(13)   \
  M(14) M(15) M(16) M(17) M(18) M(19) M(20) M(21) M(22) M(23) M(24) M(25)     \
  M(26) M(27) M(28) M(29) M(30) M(31) M(32) M(33) M(34) M(35) M(36) M(37)     \
  M(38) M(39)

#define SPILL_INIT(k) unsigned a##k = seed + (k) * 0x9E3779B9u;
#define SPILL_STEP(k) a##k = (a##k ^ (x >> ((k) & 7))) * 0x01000193u + (k);
#define SPILL_MIX(k) h = (h ^ a##k) * 31u + (h >> 7);

extern "C" __global__ void many_live(const unsigned *in, unsigned *out, int n, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  unsigned seed = in[i];
  FOR_40(SPILL_INIT)
  for (int t = 0; t < iters; ++t) {
    unsigned x = in[i + t];
    FOR_40(SPILL_STEP)
  }
  unsigned h = 0;
  FOR_40(SPILL_MIX)
  out[i] = h;
}
