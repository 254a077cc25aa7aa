// latency.cu - pointer-chase probes: each load's address is the value the
// previous load returned, so loads cannot overlap and the time per hop is
// the load-to-use latency of the level the ring lives in.
#include "probe_common.h"

// One warp chases a ring in global memory whose elements hold the address
// of the next. `warm` hops first (the host passes the ring length for the L1
// probe so the ring is cached, 0 otherwise); then n trips of 64 hops.
extern "C" __global__ void chase_global(const uptr *start, int warm, int n, uptr *out) {
  uptr p = (uptr)start;
#pragma unroll 1
  for (int i = 0; i < warm; ++i)
    p = *(const PROBE_GLOBAL uptr *)p;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    REP64(p = *(const PROBE_GLOBAL uptr *)p;)
  }
  out[threadIdx.x] = p;
}

// The same in shared memory: the block builds a 64-element ring (element t
// holds the shared address of element t+1), then every lane chases it from
// element 0, so the lanes of a warp read one word (a broadcast, no bank
// conflict).
extern "C" __global__ void chase_shared(int n, uptr *out) {
  __shared__ uptr ring[64];
  PROBE_SHARED uptr *base = (PROBE_SHARED uptr *)ring;
  unsigned t = threadIdx.x;
#pragma unroll 1
  for (unsigned i = t; i < 64; i += blockDim.x)
    base[i] = (uptr)(base + ((i + 1) & 63));
  __syncthreads();
  uptr p = (uptr)base;
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    REP64(p = *(PROBE_SHARED uptr *)p;)
  }
  out[t] = p;
}

// Bank-conflict sweep: every shared word holds its own address, and lane L
// chases the word L*stride, so each load has the same address pattern: the
// lanes of a sub-warp hit gcd(stride, banks)-way conflicts (stride < banks).
extern "C" __global__ void shared_stride(int stride, int n, uptr *out) {
  __shared__ uptr words[1024];
  PROBE_SHARED uptr *base = (PROBE_SHARED uptr *)words;
  unsigned t = threadIdx.x;
#pragma unroll 1
  for (unsigned i = t; i < 1024; i += blockDim.x)
    base[i] = (uptr)(base + i);
  __syncthreads();
  uptr p = (uptr)(base + ((t % 32) * (unsigned)stride) % 1024);
#pragma unroll 1
  for (int i = 0; i < n; ++i) {
    REP64(p = *(PROBE_SHARED uptr *)p;)
  }
  out[t] = p;
}
