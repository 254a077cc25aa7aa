//===- MathLibTest.cpp - the device math library against double precision -===//
//
// cuda/math/tandem_math.cu (its simt variant; MathLibPtxTest has the ptx
// one) compiled as host C++ (the same source the build
// turns into device bitcode; it is written so host and device compute the
// same bits: float only, explicit fmaf, no contraction). Each function runs
// on about a million inputs (random bit patterns over its whole domain plus
// edge cases) and is compared with the double-precision C library rounded
// to float; the largest error in ulp must stay within 2.
//
//===----------------------------------------------------------------------===//

#define TANDEM_MATH_HOST_TEST
#include "cuda/math/tandem_math.cu"

#include "MathLibTestSupport.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <random>
#include <vector>

using namespace tandem::mathtest;

namespace {

double refRsqrt(double X) { return 1.0 / std::sqrt(X); }
double refExp(double X) { return std::exp(X); }
double refExp2(double X) { return std::exp2(X); }
double refLog(double X) { return std::log(X); }
double refLog2(double X) { return std::log2(X); }
double refTanh(double X) { return std::tanh(X); }
double refSin(double X) { return std::sin(X); }
double refCos(double X) { return std::cos(X); }

TEST(MathLib, RsqrtfWithin2Ulp) {
  EXPECT_LE(checkUnary("rsqrtf", __tandem_rsqrtf, refRsqrt, 0.0f, 100.0f).Ulp, 2);
}

TEST(MathLib, ExpfWithin2Ulp) {
  EXPECT_LE(checkUnary("expf", __tandem_expf, refExp, -104.0f, 89.0f,
                       {88.7228394f, 88.7228317f, -87.3365479f, -103.972084f, -103.278931f})
                .Ulp,
            2);
}

TEST(MathLib, Exp2fWithin2Ulp) {
  EXPECT_LE(checkUnary("exp2f", __tandem_exp2f, refExp2, -151.0f, 129.0f,
                       {128.0f, 127.999992f, -126.0f, -149.0f, -149.5f, -150.0f})
                .Ulp,
            2);
}

TEST(MathLib, LogfWithin2Ulp) {
  EXPECT_LE(checkUnary("logf", __tandem_logf, refLog, 0.0f, 4.0f, {0.70710677f, 1.41421354f}).Ulp,
            2);
}

TEST(MathLib, Log2fWithin2Ulp) {
  EXPECT_LE(
      checkUnary("log2f", __tandem_log2f, refLog2, 0.0f, 4.0f, {0.70710677f, 1.41421354f}).Ulp,
      2);
}

/// logf and log2f reduce X to 2^E * M with M in [sqrt(1/2), sqrt(2)) and
/// evaluate a fitted polynomial on M - 1: every float of that range (E = 0)
/// covers every input the polynomial sees; E = 1 and -1 add the ranges
/// where E ln 2 and log(M) cancel most. 25 million inputs per function.
TEST(MathLib, LogfAndLog2fOnEveryFloatOfThreeReducedRanges) {
  Worst Log, Log2;
  for (float Scale : {1.0f, 2.0f, 0.5f}) {
    float Lo = 0.70710677f * Scale, Hi = 1.41421354f * Scale;
    for (float X = Lo; X < Hi; X = std::nextafter(X, Infinity)) {
      record(Log, X, 0, __tandem_logf(X), refLog(X));
      record(Log2, X, 0, __tandem_log2f(X), refLog2(X));
    }
  }
  report("logf all", Log);
  report("log2f all", Log2);
  EXPECT_LE(Log.Ulp, 1);
  EXPECT_LE(Log2.Ulp, 1);
}

TEST(MathLib, TanhfWithin2Ulp) {
  EXPECT_LE(
      checkUnary("tanhf", __tandem_tanhf, refTanh, -10.0f, 10.0f, {2.44140625e-4f, 9.1f, 0.55f})
          .Ulp,
      2);
}

/// Cody-Waite reduction is exact enough up to this magnitude (see the
/// library's header comment); beyond, only the range [-1, 1] is promised.
constexpr float TrigAccurateLimit = 105615.0f;

void checkTrig(const char *Name, float (*Fn)(float), double (*Ref)(double)) {
  Worst W;
  std::vector<float> Edges = commonEdges();
  for (float E : {1.57079637f, 3.14159274f, 4.71238899f, 6.28318548f, 0.785398185f,
                  TrigAccurateLimit, 100000.0f, 12867.9678f, 51471.0469f})
    Edges.push_back(E);
  size_t LargeOutOfRange = 0;
  for (float X : inputs(-TrigAccurateLimit, TrigAccurateLimit, Edges, 99)) {
    float Got = Fn(X);
    if (std::fabs(X) > TrigAccurateLimit && std::isfinite(X)) {
      LargeOutOfRange += !(Got >= -1.0f && Got <= 1.0f);
      continue;
    }
    record(W, X, 0, Got, Ref(X));
  }
  report(Name, W);
  EXPECT_LE(W.Ulp, 2);
  EXPECT_EQ(LargeOutOfRange, 0u) << Name << " left [-1, 1] for large arguments";
}

TEST(MathLib, SinfWithin2Ulp) { checkTrig("sinf", __tandem_sinf, refSin); }
TEST(MathLib, CosfWithin2Ulp) { checkTrig("cosf", __tandem_cosf, refCos); }

TEST(MathLib, PowfWithin2Ulp) { EXPECT_LE(checkPow("powf", __tandem_powf).Ulp, 2); }

TEST(MathLib, SpecialValuesFollowC99) {
  EXPECT_EQ(__tandem_expf(-Infinity), 0.0f);
  EXPECT_EQ(__tandem_expf(Infinity), Infinity);
  EXPECT_TRUE(std::signbit(__tandem_tanhf(-0.0f)));
  EXPECT_TRUE(std::signbit(__tandem_sinf(-0.0f)));
  EXPECT_EQ(__tandem_logf(0.0f), -Infinity);
  EXPECT_EQ(__tandem_log2f(-0.0f), -Infinity);
  EXPECT_TRUE(std::isnan(__tandem_logf(-1.0f)));
  EXPECT_TRUE(std::isnan(__tandem_sinf(Infinity)));
  EXPECT_EQ(__tandem_powf(std::numeric_limits<float>::quiet_NaN(), 0.0f), 1.0f);
  EXPECT_EQ(__tandem_powf(-2.0f, 3.0f), -8.0f);
  EXPECT_TRUE(std::isnan(__tandem_powf(-2.0f, 0.5f)));
  EXPECT_EQ(__tandem_powf(-0.0f, -3.0f), -Infinity);
  EXPECT_EQ(__tandem_rsqrtf(-0.0f), -Infinity);
}

} // namespace
