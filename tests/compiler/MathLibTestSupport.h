//===- MathLibTestSupport.h - Measuring the math library in ulp -*- C++ -*-===//
//
// What MathLibTest (the simt variant of cuda/math/tandem_math.cu) and
// MathLibPtxTest (the ptx variant) share: inputs over every binade plus
// edge cases, the distance in ulp to a double-precision reference, and the
// worst case found.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

namespace tandem::mathtest {

constexpr int InputsPerFunction = 1 << 20;
constexpr float Infinity = std::numeric_limits<float>::infinity();

/// Floats in order as integers, so the difference of two is their distance
/// in ulp (-0 and +0 are the same point).
inline int64_t orderedBits(float X) {
  int32_t Bits = std::bit_cast<int32_t>(X);
  return Bits < 0 ? -static_cast<int64_t>(Bits & 0x7fffffff) : Bits;
}

/// Distance in ulp between \p Got and the correctly rounded \p Want. NaNs
/// must match NaNs; an infinity where a finite value belongs counts as far.
inline double ulpDistance(float Got, double Want) {
  float WantF = static_cast<float>(Want);
  if (std::isnan(WantF) || std::isnan(Got))
    return std::isnan(WantF) && std::isnan(Got) ? 0.0 : 1e9;
  return std::fabs(static_cast<double>(orderedBits(Got) - orderedBits(WantF)));
}

struct Worst {
  double Ulp = 0;
  float X = 0, Y = 0;
  float Got = 0;
  double Want = 0;
};

inline void record(Worst &W, float X, float Y, float Got, double Want) {
  double U = ulpDistance(Got, Want);
  if (U > W.Ulp)
    W = {U, X, Y, Got, Want};
}

inline void report(const char *Name, const Worst &W) {
  std::printf("  %-8s max error %.0f ulp (x=%.9g y=%.9g got %.9g want %.9g)\n", Name, W.Ulp, W.X,
              W.Y, W.Got, W.Want);
}

/// Random floats: uniform bit patterns (every binade, subnormals, both
/// signs) half the time, uniform in [Lo, Hi] the other half, plus \p Edges.
inline std::vector<float> inputs(float Lo, float Hi, std::vector<float> Edges, uint32_t Seed) {
  std::mt19937 Rng(Seed);
  std::uniform_real_distribution<float> Uniform(Lo, Hi);
  std::vector<float> Xs = std::move(Edges);
  for (float E : std::vector<float>(Xs)) {
    Xs.push_back(std::nextafter(E, Infinity));
    Xs.push_back(std::nextafter(E, -Infinity));
  }
  while (Xs.size() < static_cast<size_t>(InputsPerFunction)) {
    float X = std::bit_cast<float>(static_cast<uint32_t>(Rng()));
    Xs.push_back((Xs.size() & 1) ? X : Uniform(Rng));
  }
  return Xs;
}

inline std::vector<float> commonEdges() {
  return {0.0f,
          -0.0f,
          1.0f,
          -1.0f,
          0.5f,
          2.0f,
          Infinity,
          -Infinity,
          std::numeric_limits<float>::quiet_NaN(),
          std::numeric_limits<float>::denorm_min(),
          -std::numeric_limits<float>::denorm_min(),
          std::numeric_limits<float>::min(),
          std::numeric_limits<float>::max(),
          -std::numeric_limits<float>::max()};
}

/// powf's special operands: the edge cases and integers odd and even,
/// small and beyond 2^24, non-integers; every pair is a case C99 defines.
inline std::vector<float> powSpecialOperands() {
  std::vector<float> Specials = commonEdges();
  for (float V : {3.0f, -3.0f, 0.25f, -2.5f, 1e9f, -1e9f, 16777216.0f, 16777217.0f})
    Specials.push_back(V);
  return Specials;
}

inline Worst checkUnary(const char *Name, float (*Fn)(float), double (*Ref)(double), float Lo,
                        float Hi, std::vector<float> Extra = {}) {
  std::vector<float> Edges = commonEdges();
  Edges.insert(Edges.end(), Extra.begin(), Extra.end());
  Worst W;
  for (float X : inputs(Lo, Hi, Edges, 1234)) {
    if (std::isnan(X) && !std::isnan(Fn(X)))
      W = {1e9, X, 0, Fn(X), Ref(X)};
    record(W, X, 0, Fn(X), Ref(X));
  }
  report(Name, W);
  return W;
}

/// powf on every special-case pair C99 defines, then on random pairs:
/// results over the whole float range, x near 1 with large y (where the
/// logarithm must carry extra bits), negative x with integer y.
inline Worst checkPow(const char *Name, float (*Pow)(float, float)) {
  std::mt19937 Rng(7);
  std::uniform_real_distribution<float> Exponent(-160.0f, 160.0f);
  std::uniform_real_distribution<float> Small(-30.0f, 30.0f);
  std::vector<float> Specials = powSpecialOperands();
  Worst W;
  auto Check = [&](float X, float Y) { record(W, X, Y, Pow(X, Y), std::pow(X, Y)); };
  for (float X : Specials)
    for (float Y : Specials)
      Check(X, Y);
  for (int I = 0; I < InputsPerFunction; ++I) {
    float X = std::bit_cast<float>(static_cast<uint32_t>(Rng()) & 0x7fffffffu);
    if (!std::isfinite(X) || X == 0.0f)
      continue;
    float Y;
    switch (I % 4) {
    case 0: // results spread over the whole float range
      Y = static_cast<float>(Exponent(Rng) / std::log2(static_cast<double>(X)));
      break;
    case 1: // x near 1, large y
      X = 1.0f + Small(Rng) * 1e-5f;
      Y = static_cast<float>(Exponent(Rng) / std::log2(static_cast<double>(X)));
      break;
    case 2: // negative x, integer y
      X = -(1.0f + std::fabs(Small(Rng)));
      Y = std::rint(Small(Rng));
      break;
    default:
      Y = Small(Rng);
      break;
    }
    Check(X, Y);
  }
  report(Name, W);
  return W;
}

} // namespace tandem::mathtest
