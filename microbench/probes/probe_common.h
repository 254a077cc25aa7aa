// probe_common.h - shared by the probe kernels (microbench/probes/*.cu).
//
// Every probe loop runs `n` trips of a body repeated 64 times (16 where the
// body is long); the host runs it with n and 2n trips and subtracts
// (docs/Profile.md), so the launch, the prologue and the epilogue cancel and
// what is left is 64n bodies plus n trips of loop control (4 or 5
// instructions, about 15 cycles on rtl: under 0.25 cycles per body).
// `#pragma unroll 1` keeps LLVM from unrolling the loop further, so the
// listing is the same whatever n is. Every result is stored, so nothing is
// deleted as dead code.
#pragma once

// Pointer-chase elements hold device addresses: 4 bytes on simt, 8 on a GPU.
typedef __UINTPTR_TYPE__ uptr;

// simt has no generic addressing: a pointer loaded from memory must say its
// space. nvcc has generic pointers and does not need (or accept) this.
#ifdef __NVCC__
#define PROBE_GLOBAL
#define PROBE_SHARED
#else
#define PROBE_GLOBAL __attribute__((address_space(1)))
#define PROBE_SHARED __attribute__((address_space(3)))
#endif

#define REP4(S) S S S S
#define REP16(S) REP4(S) REP4(S) REP4(S) REP4(S)
#define REP64(S) REP16(S) REP16(S) REP16(S) REP16(S)
