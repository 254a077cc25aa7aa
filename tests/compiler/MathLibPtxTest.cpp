//===- MathLibPtxTest.cpp - the math library's ptx variant on the host ----===//
//
// On ptx, expf and exp2f are nvcc's sequences around the GPU's ex2.approx,
// and powf and tanhf take reciprocals with rcp.approx
// (cuda/math/tandem_math.cu under TANDEM_MATH_PTX). This test compiles that
// variant as host C++ with the five PTX operations emulated: cvt.sat and
// fma.rm exactly as the PTX ISA defines them, ex2.approx as the correctly
// rounded 2^x (with .ftz's flushing), rcp.approx as the correctly rounded
// 1/x and, since the ISA promises only 1 ulp, also one ulp above and one
// below. So it checks everything but the hardware approximations: the
// range reduction, the exponent trick, the corrections, the overflow,
// underflow, NaN and subnormal cases. The GPU's own ex2 error (NVIDIA
// documents expf and exp2f within 2 ulp) can only be measured on a GPU:
// scripts/gpu-check.sh.
//
//===----------------------------------------------------------------------===//

#include <cfloat>
#include <cmath>

namespace {

/// cvt.sat.f32.f32: clamped to [0, 1], NaN to +0.
float __nvvm_saturate_f(float X) { return X != X ? 0.0f : std::fmin(std::fmax(X, 0.0f), 1.0f); }

/// fma.rm.f32: A * B + C rounded once, toward minus infinity. The product
/// is exact in double; TwoSum gives the double sum S and its error E
/// exactly; the float nearest S is moved down one step when it lies above
/// S + E (R - S is exact: R is within half a float ulp of S).
float __nvvm_fma_rm_f(float A, float B, float C) {
  double P = static_cast<double>(A) * B;
  double S = P + C;
  double Bv = S - P;
  double E = (P - (S - Bv)) + (C - Bv);
  float R = static_cast<float>(S);
  if (static_cast<double>(R) - S > E)
    R = std::nextafter(R, -INFINITY);
  return R;
}

/// ex2.approx.f32 as the exact 2^x, rounded to float.
float __nvvm_ex2_approx_f(float X) { return static_cast<float>(std::exp2(static_cast<double>(X))); }

/// ex2.approx.ftz.f32: subnormal inputs and results flushed to +0.
float __nvvm_ex2_approx_ftz_f(float X) {
  float In = std::fabs(X) < FLT_MIN ? 0.0f : X;
  float R = __nvvm_ex2_approx_f(In);
  return std::fabs(R) < FLT_MIN ? 0.0f : R;
}

/// What rcp.approx's emulation adds to the correctly rounded 1/x, in ulp
/// (-1, 0 or 1): the tests run powf and tanhf under each.
int RcpErrorUlp = 0;

/// rcp.approx.ftz.f32: 1/x within 1 ulp; subnormal inputs and results
/// flushed to +-0 (so +-inf for a subnormal input).
float __nvvm_rcp_approx_ftz_f(float X) {
  float In = std::fabs(X) < FLT_MIN ? std::copysign(0.0f, X) : X;
  float R = 1.0f / In;
  if (RcpErrorUlp != 0 && std::isfinite(R) && R != 0.0f)
    R = std::nextafter(R, RcpErrorUlp > 0 ? INFINITY : -INFINITY);
  return std::fabs(R) < FLT_MIN ? std::copysign(0.0f, R) : R;
}

} // namespace

#define TANDEM_MATH_HOST_TEST
#define TANDEM_MATH_PTX
#include "cuda/math/tandem_math.cu"

#include "MathLibTestSupport.h"

#include <gtest/gtest.h>

using namespace tandem::mathtest;

namespace {

double refExp(double X) { return std::exp(X); }
double refExp2(double X) { return std::exp2(X); }
double refTanh(double X) { return std::tanh(X); }

/// Runs \p Check with rcp.approx exact, one ulp up and one ulp down.
template <typename F> void underEachRcpError(F Check) {
  for (int Error : {0, 1, -1}) {
    RcpErrorUlp = Error;
    SCOPED_TRACE("rcp.approx error " + std::to_string(Error) + " ulp");
    Check();
  }
  RcpErrorUlp = 0;
}

TEST(MathLibPtx, FmaRoundingDownIsEmulatedExactly) {
  // 1.5 * 2^23 + 1 has ulp 1: fma.rm floors what is added to it.
  EXPECT_EQ(__nvvm_fma_rm_f(0.999f, 1.0f, 12582913.0f), 12582913.0f);
  EXPECT_EQ(__nvvm_fma_rm_f(1.0f, 252.0f, 12582913.0f), 12583165.0f);
  EXPECT_EQ(__nvvm_fma_rm_f(-1e-30f, 1.0f, 1.0f), std::nextafter(1.0f, 0.0f));
  EXPECT_EQ(__nvvm_fma_rm_f(1e-30f, 1.0f, 1.0f), 1.0f);
  EXPECT_EQ(__nvvm_fma_rm_f(1.0f, 1.0f, -1.0f), 0.0f);
}

TEST(MathLibPtx, ExpfWithin2UlpAroundAnExactEx2) {
  Worst W = checkUnary("expf ptx", __tandem_expf, refExp, -104.0f, 89.0f,
                       {88.7228394f, 88.7228317f, -87.3365479f, -103.972084f, -103.278931f,
                        87.3365479f, -87.0f, 126.0f * 0.693147f});
  EXPECT_LE(W.Ulp, 2);
}

TEST(MathLibPtx, Exp2fIsEx2Approx) {
  // One instruction, as nvcc's exp2f: its accuracy is the GPU's. Here the
  // emulation's: this checks the library calls it and nothing else.
  Worst W = checkUnary("exp2f ptx", __tandem_exp2f, refExp2, -151.0f, 129.0f,
                       {128.0f, 127.999992f, -126.0f, -149.0f, -149.5f, -150.0f});
  EXPECT_LE(W.Ulp, 1);
}

TEST(MathLibPtx, PowfWithin2UlpWhateverRcpApproxRounds) {
  underEachRcpError([] { EXPECT_LE(checkPow("powf ptx", __tandem_powf).Ulp, 2); });
}

TEST(MathLibPtx, TanhfWithin2UlpWhateverRcpApproxRounds) {
  underEachRcpError([] {
    EXPECT_LE(checkUnary("tanhf ptx", __tandem_tanhf, refTanh, -10.0f, 10.0f,
                         {2.44140625e-4f, 9.1f, 0.55f})
                  .Ulp,
              2);
  });
}

TEST(MathLibPtx, PowfAndTanhfSpecialValues) {
  EXPECT_EQ(__tandem_powf(0.0f, -1.0f), INFINITY);
  EXPECT_EQ(__tandem_powf(-0.0f, -3.0f), -INFINITY);
  EXPECT_EQ(__tandem_powf(2.0f, 128.0f), INFINITY);
  EXPECT_EQ(__tandem_powf(2.0f, -150.0f), 0.0f);
  EXPECT_EQ(__tandem_powf(-2.0f, 3.0f), -8.0f);
  EXPECT_TRUE(std::isnan(__tandem_powf(-2.0f, 0.5f)));
  EXPECT_EQ(__tandem_powf(NAN, 0.0f), 1.0f);
  EXPECT_EQ(__tandem_tanhf(INFINITY), 1.0f);
  EXPECT_EQ(__tandem_tanhf(-INFINITY), -1.0f);
  EXPECT_TRUE(std::signbit(__tandem_tanhf(-0.0f)));
  EXPECT_TRUE(std::isnan(__tandem_tanhf(NAN)));
}

TEST(MathLibPtx, ExpfSpecialValues) {
  EXPECT_EQ(__tandem_expf(-INFINITY), 0.0f);
  EXPECT_EQ(__tandem_expf(INFINITY), INFINITY);
  EXPECT_TRUE(std::isnan(__tandem_expf(NAN)));
  EXPECT_EQ(__tandem_expf(0.0f), 1.0f);
  EXPECT_EQ(__tandem_expf(-0.0f), 1.0f);
  EXPECT_EQ(__tandem_expf(89.0f), INFINITY);
  EXPECT_EQ(__tandem_expf(-104.0f), 0.0f);
  // A subnormal result, rounded once in the last multiply.
  float Tiny = __tandem_expf(-100.0f);
  EXPECT_GT(Tiny, 0.0f);
  EXPECT_LT(Tiny, FLT_MIN);
}

} // namespace
