// hash64: a 64-bit hash of 64-bit keys: splitmix64, then the murmur3 fmix64
// finalizer. Keys and results are stored as (low word, high word) pairs.
// Exercises 64-bit integer arithmetic on a 32-bit machine: multiply, add,
// subtract, xor, shifts by constants across the word boundary, and an
// unsigned 64-bit compare.
typedef unsigned long long u64;

static __device__ u64 splitmix64(u64 z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static __device__ u64 fmix64(u64 k) {
  k ^= k >> 33;
  k *= 0xFF51AFD7ED558CCDull;
  k ^= k >> 33;
  k *= 0xC4CEB9FE1A85EC53ull;
  k ^= k >> 33;
  return k;
}

extern "C" __global__ void hash64(const unsigned *keys, unsigned *out, int n,
                                  unsigned seedLo, unsigned seedHi) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  u64 key = ((u64)keys[2 * i + 1] << 32) | keys[2 * i];
  u64 seed = ((u64)seedHi << 32) | seedLo;
  u64 h = fmix64(splitmix64(key ^ seed) + (key << 7) - (seed >> 3));
  if (h < seed)
    h = ~h;
  out[2 * i] = (unsigned)h;
  out[2 * i + 1] = (unsigned)(h >> 32);
}
