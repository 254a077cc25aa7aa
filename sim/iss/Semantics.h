//===- Semantics.h - Per-lane semantics of SIMT ALU and FPU ops -*- C++ -*-===//
//
// One pure function per lane-local operation, written from the descriptions
// in target/simt/SimtInstrInfo.td. The executor calls them for every active
// lane; keeping them free of simulator state lets tests compare them with
// host references directly and lets the RTL's tests reuse them as golden
// values.
//
// Floating point: IEEE binary32 in the host's default environment (round to
// nearest even, no flush to zero; x86-64 SSE). This file is compiled with
// -ffp-contract=off so a*b+c is never fused behind our back; ffma is the only
// fused operation. Every NaN an fp operation produces is CanonicalNaN;
// fneg/fabs are bit operations and pass NaN payloads through.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/bit.h"

#include <cmath>
#include <cstdint>
#include <limits>

namespace tandem::iss::sem {

constexpr uint32_t CanonicalNaN = 0x7fc00000u;
constexpr uint32_t SignBit = 0x80000000u;

inline float toFloat(uint32_t U) { return llvm::bit_cast<float>(U); }
inline uint32_t toBits(float F) { return llvm::bit_cast<uint32_t>(F); }
/// The bits of an fp result, with any NaN replaced by the canonical one.
inline uint32_t canonical(float F) { return F != F ? CanonicalNaN : toBits(F); }
inline bool isNaN(uint32_t U) { return (U & 0x7fffffffu) > 0x7f800000u; }

//===--- Integer ----------------------------------------------------------===//

inline uint32_t mulhi(uint32_t A, uint32_t B) {
  int64_t P = int64_t(int32_t(A)) * int64_t(int32_t(B));
  return uint32_t(uint64_t(P) >> 32);
}
inline uint32_t mulhiu(uint32_t A, uint32_t B) {
  return uint32_t((uint64_t(A) * uint64_t(B)) >> 32);
}
inline uint32_t shl(uint32_t A, uint32_t B) { return B >= 32 ? 0 : A << B; }
inline uint32_t shr(uint32_t A, uint32_t B) { return B >= 32 ? 0 : A >> B; }
inline uint32_t sra(uint32_t A, uint32_t B) {
  return uint32_t(int32_t(A) >> (B >= 32 ? 31 : B));
}
inline uint32_t smin(uint32_t A, uint32_t B) {
  return int32_t(A) < int32_t(B) ? A : B;
}
inline uint32_t smax(uint32_t A, uint32_t B) {
  return int32_t(A) > int32_t(B) ? A : B;
}
inline uint32_t umin(uint32_t A, uint32_t B) { return A < B ? A : B; }
inline uint32_t umax(uint32_t A, uint32_t B) { return A > B ? A : B; }
inline uint32_t clz(uint32_t A) {
  return A == 0 ? 32 : uint32_t(__builtin_clz(A));
}
inline uint32_t popc(uint32_t A) { return uint32_t(__builtin_popcount(A)); }
inline uint32_t brev(uint32_t A) {
  A = ((A >> 1) & 0x55555555u) | ((A & 0x55555555u) << 1);
  A = ((A >> 2) & 0x33333333u) | ((A & 0x33333333u) << 2);
  A = ((A >> 4) & 0x0f0f0f0fu) | ((A & 0x0f0f0f0fu) << 4);
  A = ((A >> 8) & 0x00ff00ffu) | ((A & 0x00ff00ffu) << 8);
  return (A >> 16) | (A << 16);
}
inline uint32_t sdiv(uint32_t A, uint32_t B) {
  if (B == 0)
    return 0xffffffffu;
  if (A == SignBit && B == 0xffffffffu)
    return SignBit;
  return uint32_t(int32_t(A) / int32_t(B));
}
inline uint32_t udiv(uint32_t A, uint32_t B) {
  return B == 0 ? 0xffffffffu : A / B;
}
inline uint32_t srem(uint32_t A, uint32_t B) {
  if (B == 0)
    return A;
  if (A == SignBit && B == 0xffffffffu)
    return 0;
  return uint32_t(int32_t(A) % int32_t(B));
}
inline uint32_t urem(uint32_t A, uint32_t B) { return B == 0 ? A : A % B; }

//===--- Floating point ---------------------------------------------------===//

inline uint32_t fadd(uint32_t A, uint32_t B) {
  return canonical(toFloat(A) + toFloat(B));
}
inline uint32_t fsub(uint32_t A, uint32_t B) {
  return canonical(toFloat(A) - toFloat(B));
}
inline uint32_t fmul(uint32_t A, uint32_t B) {
  return canonical(toFloat(A) * toFloat(B));
}
inline uint32_t fdiv(uint32_t A, uint32_t B) {
  return canonical(toFloat(A) / toFloat(B));
}
inline uint32_t ffma(uint32_t A, uint32_t B, uint32_t C) {
  return canonical(std::fma(toFloat(A), toFloat(B), toFloat(C)));
}
inline uint32_t fsqrt(uint32_t A) { return canonical(std::sqrt(toFloat(A))); }

/// fmin/fmax: a NaN operand loses to a number; -0 orders below +0.
inline uint32_t fmin(uint32_t A, uint32_t B) {
  if (isNaN(A))
    return isNaN(B) ? CanonicalNaN : B;
  if (isNaN(B))
    return A;
  float FA = toFloat(A), FB = toFloat(B);
  if (FA == FB) // equal numbers, or -0 and +0: the one with the sign bit
    return (A & SignBit) ? A : B;
  return FA < FB ? A : B;
}
inline uint32_t fmax(uint32_t A, uint32_t B) {
  if (isNaN(A))
    return isNaN(B) ? CanonicalNaN : B;
  if (isNaN(B))
    return A;
  float FA = toFloat(A), FB = toFloat(B);
  if (FA == FB)
    return (A & SignBit) ? B : A;
  return FA > FB ? A : B;
}

inline uint32_t fseteq(uint32_t A, uint32_t B) {
  return toFloat(A) == toFloat(B);
}
inline uint32_t fsetne(uint32_t A, uint32_t B) {
  float FA = toFloat(A), FB = toFloat(B);
  return FA < FB || FA > FB;
}
inline uint32_t fsetlt(uint32_t A, uint32_t B) {
  return toFloat(A) < toFloat(B);
}
inline uint32_t fsetle(uint32_t A, uint32_t B) {
  return toFloat(A) <= toFloat(B);
}
inline uint32_t fsetnan(uint32_t A, uint32_t B) { return isNaN(A) || isNaN(B); }

inline uint32_t cvtF32S32(uint32_t A) { return toBits(float(int32_t(A))); }
inline uint32_t cvtF32U32(uint32_t A) { return toBits(float(A)); }
/// Truncates toward zero and saturates; NaN gives 0.
inline uint32_t cvtS32F32(uint32_t A) {
  float F = toFloat(A);
  if (F != F)
    return 0;
  if (F >= 2147483648.0f)
    return 0x7fffffffu;
  if (F < -2147483648.0f)
    return SignBit;
  return uint32_t(int32_t(F));
}
inline uint32_t cvtU32F32(uint32_t A) {
  float F = toFloat(A);
  if (!(F > 0.0f)) // NaN, zero or negative: -0.75 truncates to 0 as well
    return 0;
  if (F >= 4294967296.0f)
    return 0xffffffffu;
  return uint32_t(F);
}
inline uint32_t ffloor(uint32_t A) { return canonical(std::floor(toFloat(A))); }
inline uint32_t fceil(uint32_t A) { return canonical(std::ceil(toFloat(A))); }
inline uint32_t ftrunc(uint32_t A) { return canonical(std::trunc(toFloat(A))); }
/// Ties to even regardless of the host's rounding mode (nearbyint would
/// follow it, and the simulator must not depend on the caller's mode).
inline uint32_t frint(uint32_t A) {
  return canonical(__builtin_roundevenf(toFloat(A)));
}

} // namespace tandem::iss::sem
