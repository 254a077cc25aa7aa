// divergent: per-element work chosen by the data. Nested if/else on bits of
// the input, a loop whose trip count depends on the element (so lanes of a
// warp leave it at different iterations), a divergent break and continue
// inside it, and an early return. Unsigned arithmetic throughout, so every
// result is defined (wrapping) and exact.
extern "C" __global__ void divergent(const unsigned *in, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  unsigned x = in[i];
  if (x % 11 == 0) { // early return for about one lane in eleven
    out[i] = 0xA5A5A5A5u;
    return;
  }
  unsigned acc;
  if (x & 1) {
    if (x % 3 == 0)
      acc = x * 5;
    else if (x > 500000)
      acc = ~x + 77;
    else
      acc = x ^ 0x1234u;
  } else if ((x & 6) == 2) {
    acc = x >> 2;
  } else {
    acc = 1;
    unsigned trips = (x >> 3) & 31; // 0..31 iterations, per lane
    for (unsigned k = 0; k < trips; ++k) {
      if ((acc ^ k) & 4)
        acc += k * x;
      else
        acc -= k;
      if ((acc & 0xff) == 0x42)
        continue;
      acc = (acc << 1) | (acc >> 31);
      if (acc > 0xF0000000u)
        break;
    }
  }
  // A second data-dependent loop after the branches reconverge: a capped
  // Collatz walk.
  unsigned y = (x & 0xffff) | 1, steps = 0;
  while (y != 1 && steps < 64) {
    y = (y & 1) ? 3 * y + 1 : y >> 1;
    ++steps;
  }
  out[i] = acc + steps;
}
