//===- tandem_math.cu - the device math library, single precision only ----===//
//
// The math functions tandem_cuda.h declares as __tandem_<name>. The build
// compiles this file with clang-19 to LLVM bitcode (nvptx and nvptx64); the
// front end links in the functions a kernel calls and Prepare inlines them.
// The unit test (tests/compiler/MathLibTest.cpp) compiles the same source as
// host C++ and compares every function with a double-precision reference.
//
// Rules this file keeps, and why:
//  - No double: the SIMT target has no f64. Where float is not precise
//    enough (powf's logarithm), pairs of floats ("double-float") carry the
//    extra bits, using fmaf to get products exactly.
//  - No libm and no C library names: only __builtin_{fmaf,sqrtf,rintf,
//    floorf,fabsf,fminf,fmaxf}, which become single SIMT instructions.
//  - No fptosi on a value that could be NaN, inf or out of int range: LLVM
//    makes that poison. Inputs are clamped first and special cases chosen
//    with selects at the end.
//  - Compiled with -ffp-contract=off so the device computes exactly what the
//    host test checks; every fused multiply-add is written as fmaf.
//  - Branch-free: special cases are computed alongside the ordinary path
//    and chosen with a select at the end, and clamps are fminf/fmaxf. A
//    branch costs exec-mask operations on simt (and runs both sides when
//    lanes disagree), and clang makes a branch of any ?: whose arm has
//    instructions of its own, so each arm is a value computed beforehand.
//    tests/suite/MathOnDeviceTest.cpp checks that the device computes the
//    same bits.
//  - Two variants: the build compiles this file for simt (nvptx, 32-bit)
//    and, with TANDEM_MATH_PTX, for ptx (nvptx64), where expf and exp2f
//    are nvcc's sequences around the GPU's ex2.approx instead, and the
//    reciprocals powf and tanhf correct are rcp.approx (see reciprocal()).
//  - No division where a polynomial or a reciprocal serves: fdiv is 28
//    cycles of the iterative unit on simt, and div.rn.f32 a long sequence
//    with a slow path on the GPU (logf was 184 SASS instructions with one).
//  - Polynomials are truncated Taylor series on reduced ranges small enough
//    that the truncation error is far below float rounding, except logf's
//    and log2f's (log1pTail), a minimax fit that scripts/
//    fit-log-polynomial.py reproduces; MathLib.* checks every float of a
//    reduced range against double precision.
//
// Accuracy (measured by MathLibTest against double, rounded to float):
// within 2 ulp over the whole float range, except sinf/cosf for
// |x| > 105615, where Cody-Waite reduction with a three-part pi/2 loses
// accuracy (results stay in [-1, 1] but may be wrong in every bit there;
// CUDA's sinf without Payne-Hanek behaves alike).
//
//===----------------------------------------------------------------------===//

#ifndef TANDEM_MATH_HOST_TEST
#define TANDEM_MATH_FN extern "C" __attribute__((device))
#define TANDEM_MATH_HELPER static __attribute__((device)) __inline__ __attribute__((always_inline))
#else
// static: a test may include the file twice (simt and ptx variants) in one
// program.
#define TANDEM_MATH_FN [[maybe_unused]] static
#define TANDEM_MATH_HELPER static inline
#endif

namespace {

TANDEM_MATH_HELPER float asFloat(unsigned int Bits) { return __builtin_bit_cast(float, Bits); }
TANDEM_MATH_HELPER unsigned int asBits(float X) { return __builtin_bit_cast(unsigned int, X); }

constexpr float Inf = __builtin_huge_valf();
TANDEM_MATH_HELPER float quietNaN() { return asFloat(0x7fc00000u); }
TANDEM_MATH_HELPER bool isNaN(float X) { return X != X; }
TANDEM_MATH_HELPER bool isFinite(float X) { return __builtin_fabsf(X) < Inf; }

/// 2^I * R for R near 1 (0.5 .. 2) and any I in [-160, 160], rounded once:
/// two scale factors, so neither overflows or underflows on the way and a
/// subnormal result is rounded only in the last multiply.
TANDEM_MATH_HELPER float scaleByPowerOf2(float R, int I) {
  int Half = I >> 1; // floor(I / 2): one shift, where I / 2 costs three
  float S1 = asFloat(static_cast<unsigned int>(Half + 127) << 23);
  float S2 = asFloat(static_cast<unsigned int>(I - Half + 127) << 23);
  return (R * S1) * S2;
}

/// A float pair Hi + Lo with |Lo| <= ulp(Hi) / 2: about 48 significant bits.
struct DoubleFloat {
  float Hi, Lo;
};

TANDEM_MATH_HELPER DoubleFloat twoProd(float A, float B) {
  float P = A * B;
  return {P, __builtin_fmaf(A, B, -P)};
}

/// Requires |A| >= |B| (or A == 0).
TANDEM_MATH_HELPER DoubleFloat fastTwoSum(float A, float B) {
  float S = A + B;
  return {S, B - (S - A)};
}

TANDEM_MATH_HELPER DoubleFloat twoSum(float A, float B) {
  float S = A + B;
  float BB = S - A;
  float Err = (A - (S - BB)) + (B - BB);
  return {S, Err};
}

TANDEM_MATH_HELPER DoubleFloat dfAdd(DoubleFloat A, DoubleFloat B) {
  DoubleFloat S = twoSum(A.Hi, B.Hi);
  return fastTwoSum(S.Hi, S.Lo + (A.Lo + B.Lo));
}

TANDEM_MATH_HELPER DoubleFloat dfMul(DoubleFloat A, DoubleFloat B) {
  DoubleFloat P = twoProd(A.Hi, B.Hi);
  float Cross = __builtin_fmaf(A.Hi, B.Lo, A.Lo * B.Hi);
  return fastTwoSum(P.Hi, P.Lo + Cross);
}

/// 1 / X for a normal X: on simt one correctly rounded fdiv; on ptx the
/// GPU's rcp.approx.ftz (within 1 ulp), as nvcc's powf does, instead of
/// div.rn's long sequence. Callers use it for a quotient they correct with
/// an fma remainder, so either is enough; a division they would have
/// written costs the same as this reciprocal, so each saves one.
TANDEM_MATH_HELPER float reciprocal(float X) {
#ifdef TANDEM_MATH_PTX
  return __nvvm_rcp_approx_ftz_f(X);
#else
  return 1.0f / X;
#endif
}

/// N / D as a pair, for a normal D.Hi. Q = N.Hi / D.Hi is off by a few ulp
/// at most (two roundings, or rcp.approx's error and one); the remainder
/// N - Q * D, exact in its leading part thanks to fmaf, gives the rest.
TANDEM_MATH_HELPER DoubleFloat dfDiv(DoubleFloat N, DoubleFloat D) {
  float InvD = reciprocal(D.Hi);
  float Q = N.Hi * InvD;
  float R = __builtin_fmaf(-Q, D.Hi, N.Hi);
  R = R + N.Lo;
  R = __builtin_fmaf(-Q, D.Lo, R);
  return fastTwoSum(Q, R * InvD);
}

// ---- exp family -------------------------------------------------------------

/// e^F - 1 for |F| <= 0.35 (Taylor to F^8; truncation < 2^-33 relative).
TANDEM_MATH_HELPER float expm1Kernel(float F) {
  float P = 2.48015873e-5f;            // 1/8!
  P = __builtin_fmaf(P, F, 1.98412698e-4f); // 1/7!
  P = __builtin_fmaf(P, F, 1.38888889e-3f); // 1/6!
  P = __builtin_fmaf(P, F, 8.33333333e-3f); // 1/5!
  P = __builtin_fmaf(P, F, 4.16666667e-2f); // 1/4!
  P = __builtin_fmaf(P, F, 1.66666667e-1f); // 1/3!
  P = __builtin_fmaf(P, F, 0.5f);
  return __builtin_fmaf(P * F, F, F);
}

constexpr float Log2E = 1.44269502f;
// ln 2 in two parts; LnTwoHi has trailing zero bits so J * LnTwoHi is exact.
constexpr float LnTwoHi = 6.93145752e-1f;  // 0x3f317200
constexpr float LnTwoLo = 1.42860677e-6f;  // 0x35bfbe8e

/// x = J * ln2 + F with |F| <= ln2 / 2 (plus a rounding), for |X| <= 104.
TANDEM_MATH_HELPER float reduceByLn2(float X, float &J) {
  J = __builtin_rintf(X * Log2E);
  float F = __builtin_fmaf(J, -LnTwoHi, X);
  return __builtin_fmaf(J, -LnTwoLo, F);
}

} // namespace

#ifdef TANDEM_MATH_PTX

// expf and exp2f for ptx: nvcc's own sequences (libdevice's; see its PTX
// for expf), operation for operation, around the GPU's ex2.approx. NVIDIA
// documents both within 2 ulp; the host test (MathLibPtxTest) checks the
// reduction around an exact 2^x; only a GPU runs the real instruction
// (scripts/gpu-check.sh).

TANDEM_MATH_FN float __tandem_expf(float X) {
  // J = floor(X log2(e)) clamped to [-126, 126]: T maps X log2(e) in
  // [-126, 126] to [0, 1], and adding 252 T to 1.5 * 2^23 + 1, rounding
  // down, leaves J + 127 in the low bits of Biased (its ulp is 1).
  float T = __builtin_fmaf(X, 0x1.77313ap-8f, 0.5f); // (X log2(e) + 126) / 252
  float Biased = __nvvm_fma_rm_f(__nvvm_saturate_f(T), 252.0f, 0x1.800002p+23f);
  float J = Biased - 0x1.8000fep+23f; // exact
  // F = X log2(e) - J, log2(e) in two parts so the product is not rounded
  // before J is taken off.
  float F = __builtin_fmaf(X, 0x1.715476p+0f, -J);
  F = __builtin_fmaf(X, 0x1.4ae0c0p-26f, F);
  // 2^J from J + 127 shifted into the exponent field. Beyond the clamp F
  // carries the rest: 2^F overflows to inf, or is flushed to 0.
  float TwoToJ = asFloat(asBits(Biased) << 23);
  return __nvvm_ex2_approx_ftz_f(F) * TwoToJ;
}

TANDEM_MATH_FN float __tandem_exp2f(float X) { return __nvvm_ex2_approx_f(X); }

#else // simt: no ex2 instruction

namespace {

TANDEM_MATH_HELPER float clampExpArgument(float X) {
  // fmaxf returns its other operand for a NaN, so NaN becomes -104; the
  // caller selects NaN.
  return __builtin_fminf(__builtin_fmaxf(X, -104.0f), 104.0f);
}

/// The result for exp-like functions where |X| >= Limit or X is NaN.
TANDEM_MATH_HELPER float expSpecial(float X) {
  return isNaN(X) ? X + X : (X > 0 ? Inf : 0.0f);
}

} // namespace

TANDEM_MATH_FN float __tandem_expf(float X) {
  float J;
  float F = reduceByLn2(clampExpArgument(X), J);
  float R = expm1Kernel(F) + 1.0f;
  float Result = scaleByPowerOf2(R, static_cast<int>(J));
  return __builtin_fabsf(X) < 104.0f ? Result : expSpecial(X);
}

TANDEM_MATH_FN float __tandem_exp2f(float X) {
  float C = __builtin_fminf(__builtin_fmaxf(X, -160.0f), 160.0f); // NaN: -160
  float J = __builtin_rintf(C);
  float F = C - J; // exact
  // 2^F = e^(F ln2); F * ln2 as a pair so the argument carries no rounding.
  DoubleFloat T = twoProd(F, 6.93147182e-1f);
  T.Lo = __builtin_fmaf(F, -1.90465421e-9f, T.Lo); // ln2 - float(ln2)
  float E = expm1Kernel(T.Hi);
  // e^(Hi + Lo) - 1 ~= E + Lo * (1 + E)
  float R = __builtin_fmaf(T.Lo, E + 1.0f, E) + 1.0f;
  float Result = scaleByPowerOf2(R, static_cast<int>(J));
  return __builtin_fabsf(X) < 160.0f ? Result : expSpecial(X);
}

#endif // TANDEM_MATH_PTX

namespace {

/// e^U - 1, accurate for small |U| too, for |U| <= 104.
TANDEM_MATH_HELPER float expm1Reduced(float U) {
  float J;
  float F = reduceByLn2(U, J);
  float P = expm1Kernel(F);
  // 2^J * (P + 1) - 1 = 2^J * P + (2^J - 1): one rounding when 2^J - 1 is
  // exact (J <= 24); beyond, the -1 is lost in the rounding anyway. J = 0
  // needs no case of its own: fma(1, P, 0) is P (the caller never passes
  // -0, whose sign this would lose).
  int I = static_cast<int>(J);
  float TwoJ = scaleByPowerOf2(1.0f, I);
  return __builtin_fmaf(TwoJ, P, TwoJ - 1.0f);
}

} // namespace

TANDEM_MATH_FN float __tandem_tanhf(float X) {
  float A = __builtin_fabsf(X);
  // tanh(A) = (e^2A - 1) / (e^2A + 1); rounds to 1 above 9.02.
  float Clamped = __builtin_fminf(A, 10.0f); // NaN: 10
  float E = expm1Reduced(2.0f * Clamped);
  // E / (E + 2) with the denominator's rounding error and the quotient's
  // remainder fed back: only E's own error remains.
  DoubleFloat Den = twoSum(E, 2.0f);
  float InvDen = reciprocal(Den.Hi); // Den.Hi is in [2, e^20 + 1]: normal
  float T = E * InvDen;
  float Remainder = __builtin_fmaf(-T, Den.Hi, E) - T * Den.Lo;
  T = __builtin_fmaf(Remainder, InvDen, T);
  T = A < 9.1f ? T : 1.0f;
  // Below 2^-12, tanh(A) = A - A^3/3 rounds to A; also keeps -0 and
  // subnormals exact.
  T = A < 2.44140625e-4f ? A : T;
  T = isNaN(X) ? X + X : T;
  return __builtin_bit_cast(float, asBits(T) | (asBits(X) & 0x80000000u));
}

// ---- log family -------------------------------------------------------------

namespace {

/// Splits a positive finite X into 2^E * M with M in [sqrt(1/2), sqrt(2)).
/// Any other X gives some finite M and E (only bit operations, no
/// conversion that could be poison), which the callers replace.
TANDEM_MATH_HELPER float splitExponent(float X, float &E) {
  bool Subnormal = X < 1.17549435e-38f; // make it normal first
  float Normal = Subnormal ? X * 8388608.0f : X; // 2^23
  unsigned int Bits = asBits(Normal);
  // Subtracting the bits of sqrt(1/2) moves the exponent boundary there;
  // the exponent field of the difference is E, as a signed number.
  unsigned int Offset = (Bits - 0x3f3504f3u) & 0xff800000u;
  // E * 2^23 converts to float exactly, so one fma scales it and adds the
  // subnormal bias (nvcc's way; a shift would need a sign fix-up).
  E = __builtin_fmaf(static_cast<float>(static_cast<int>(Offset)), 0x1p-23f,
                     Subnormal ? -23.0f : 0.0f);
  return asFloat(Bits - Offset);
}

/// log(1 + F) - F for F = M - 1 in [sqrt(1/2) - 1, sqrt(2) - 1]: F^2 P(F),
/// P a degree-8 minimax fit to (log(1 + F) - F) / F^2 with float
/// coefficients (scripts/fit-log-polynomial.py; relative error of
/// log(1 + F) below 2^-25.9 before the float evaluation's roundings).
/// No division: the fdlibm form before it, S = F / (2 + F), cost a divide
/// per call (28 cycles of the SFU on simt; div.rn's long sequence on ptx).
TANDEM_MATH_HELPER float log1pTail(float F) {
  float P = -0x1.303264p-4f;
  P = __builtin_fmaf(P, F, 0x1.01342ep-3f);
  P = __builtin_fmaf(P, F, -0x1.0d5b76p-3f);
  P = __builtin_fmaf(P, F, 0x1.238f8ap-3f);
  P = __builtin_fmaf(P, F, -0x1.5490aap-3f);
  P = __builtin_fmaf(P, F, 0x1.9998ccp-3f);
  P = __builtin_fmaf(P, F, -0x1.000164p-2f);
  P = __builtin_fmaf(P, F, 0x1.555554p-2f);
  P = __builtin_fmaf(P, F, -0.5f);
  return (F * F) * P;
}

/// log's result where X is not positive and finite: NaN for X < 0 or NaN,
/// -inf for +-0, +inf for +inf; \p Ordinary elsewhere. X * inf + inf is
/// +inf for +inf and NaN for NaN and for every X < 0 (nvcc's way).
TANDEM_MATH_HELPER float logResult(float X, float Ordinary) {
  float Result = asBits(X) < 0x7f800000u ? Ordinary : __builtin_fmaf(X, Inf, Inf);
  return X == 0.0f ? -Inf : Result;
}

} // namespace

TANDEM_MATH_FN float __tandem_logf(float X) {
  float E;
  float M = splitExponent(X, E);
  float F = M - 1.0f; // exact
  // E ln2 + F + Tail: E * LnTwoHi is exact and, where E != 0, larger than
  // |F| (F < 0.42), so their sum is an exact pair and only the last add
  // rounds anything of size.
  DoubleFloat Lead = fastTwoSum(E * LnTwoHi, F);
  float Small = Lead.Lo + __builtin_fmaf(E, LnTwoLo, log1pTail(F));
  return logResult(X, Lead.Hi + Small);
}

namespace {

constexpr float Log2EHi = 1.44269502e+0f;  // float(1/ln2)
constexpr float Log2ELo = 1.92596299e-8f;  // 1/ln2 - Log2EHi

/// log2(X) as a pair for positive finite X; relative error about 2^-40.
TANDEM_MATH_HELPER DoubleFloat log2Extended(float X) {
  float E;
  float M = splitExponent(X, E);
  // log(M) = 2 atanh(S), S = (M - 1) / (M + 1), evaluated with S as a
  // pair and the first two series terms in pair arithmetic.
  float F = M - 1.0f; // exact
  DoubleFloat Den = fastTwoSum(2.0f, F);
  DoubleFloat S = dfDiv({F, 0.0f}, Den);
  DoubleFloat Z = dfMul(S, S);
  float Q = 1.53846154e-1f;               // 2/13
  Q = __builtin_fmaf(Q, Z.Hi, 1.81818182e-1f); // 2/11
  Q = __builtin_fmaf(Q, Z.Hi, 2.22222222e-1f); // 2/9
  Q = __builtin_fmaf(Q, Z.Hi, 2.85714286e-1f); // 2/7
  Q = __builtin_fmaf(Q, Z.Hi, 4.00000000e-1f); // 2/5
  // P = 2/3 + Z * Q as a pair (2/3 = 0.6666667f - 1.98682149e-8)
  DoubleFloat ZQ = dfMul(Z, {Q, 0.0f});
  DoubleFloat P = dfAdd({6.66666687e-1f, -1.98682149e-8f}, ZQ);
  DoubleFloat Cube = dfMul(S, Z);
  DoubleFloat Tail = dfMul(Cube, P);
  DoubleFloat LogM = dfAdd({2.0f * S.Hi, 2.0f * S.Lo}, Tail);
  DoubleFloat Log2M = dfMul(LogM, {Log2EHi, Log2ELo});
  return dfAdd({E, 0.0f}, Log2M);
}

} // namespace

TANDEM_MATH_FN float __tandem_log2f(float X) {
  float E;
  float M = splitExponent(X, E);
  float F = M - 1.0f; // exact
  // (F + Tail) / ln2 with F / ln2 as an exact pair; then E + that, E's sum
  // with the leading part exact too (|F / ln2| <= 0.6 < |E| or E == 0).
  DoubleFloat P = twoProd(F, Log2EHi);
  float Tail = __builtin_fmaf(log1pTail(F), Log2EHi, __builtin_fmaf(F, Log2ELo, P.Lo));
  DoubleFloat Lead = fastTwoSum(E, P.Hi);
  return logResult(X, Lead.Hi + (Lead.Lo + Tail));
}

TANDEM_MATH_FN float __tandem_rsqrtf(float X) { return 1.0f / __builtin_sqrtf(X); }

// ---- powf -------------------------------------------------------------------

namespace {

/// Whether Y is an integer, and an odd one, without converting Y to int
/// (Y may be huge, inf or NaN). Y / 2 is exact for every Y that is an
/// integer, and above 2^24 every float is even.
struct IntegerKind {
  bool IsInteger, IsOdd;
};
TANDEM_MATH_HELPER IntegerKind integerKind(float Y) {
  bool IsInteger = isFinite(Y) && __builtin_floorf(Y) == Y;
  float Half = Y * 0.5f;
  return {IsInteger, IsInteger && __builtin_floorf(Half) != Half};
}

/// 2^(T.Hi + T.Lo) for a pair T, |T.Hi| <= 160.
TANDEM_MATH_HELPER float exp2Extended(DoubleFloat T) {
  float J = __builtin_rintf(T.Hi);
  DoubleFloat F = fastTwoSum(T.Hi - J, T.Lo); // T.Hi - J is exact
  DoubleFloat U = twoProd(F.Hi, 6.93147182e-1f);
  U.Lo = __builtin_fmaf(F.Hi, -1.90465421e-9f, U.Lo);
  U.Lo = __builtin_fmaf(F.Lo, 6.93147182e-1f, U.Lo);
  float E = expm1Kernel(U.Hi);
  float R = __builtin_fmaf(U.Lo, E + 1.0f, E) + 1.0f;
  return scaleByPowerOf2(R, static_cast<int>(J));
}

/// pow for the cases C99 (and CUDA) define specially; Handled says whether
/// this was one. Every case's value is computed, then the rules are applied
/// from the weakest to the strongest, each a select (see "Branch-free").
TANDEM_MATH_HELPER float powSpecial(float X, float Y, IntegerKind YKind, bool &Handled) {
  float AX = __builtin_fabsf(X);
  // A negative X to a non-integer power.
  bool NegativeBase = X < 0.0f && !YKind.IsInteger;
  float Result = quietNaN();
  // 0^Y and inf^Y: magnitude 0 or inf, with X's sign for an odd integer Y.
  bool ZeroOrInfBase = X == 0.0f || !isFinite(X);
  float Magnitude = (X == 0.0f) == (Y < 0.0f) ? Inf : 0.0f;
  float SignedMagnitude = asFloat(asBits(Magnitude) | (asBits(X) & 0x80000000u));
  float ZeroOrInfPower = YKind.IsOdd ? SignedMagnitude : Magnitude;
  Result = ZeroOrInfBase ? ZeroOrInfPower : Result;
  // Y = +-inf: 1 for |X| = 1, else 0 or inf.
  float InfExponentPower = (AX < 1.0f) == (Y < 0.0f) ? Inf : 0.0f;
  InfExponentPower = AX == 1.0f ? 1.0f : InfExponentPower;
  Result = !isFinite(Y) ? InfExponentPower : Result;
  // A NaN operand (after the rules above, which NaN's "not finite" met).
  float NaNSum = X + Y;
  bool AnyNaN = isNaN(X) || isNaN(Y);
  Result = AnyNaN ? NaNSum : Result;
  // x^0 and 1^y are 1, even for NaN.
  bool One = Y == 0.0f || X == 1.0f;
  Result = One ? 1.0f : Result;
  Handled = One || AnyNaN || !isFinite(Y) || ZeroOrInfBase || NegativeBase;
  return Result;
}

} // namespace

TANDEM_MATH_FN float __tandem_powf(float X, float Y) {
  IntegerKind YKind = integerKind(Y);
  bool Handled;
  float Special = powSpecial(X, Y, YKind, Handled);
  // The ordinary path runs on every input, on stand-ins (1^0) where a
  // special case holds, so no value it converts to int is NaN or inf.
  float OrdinaryX = Handled ? 1.0f : __builtin_fabsf(X);
  float OrdinaryY = Handled ? 0.0f : Y;
  // |X|^Y = 2^(Y log2|X|), with log2 and the product carried as pairs
  // because 2^T turns an absolute error in T into a relative one.
  DoubleFloat L = log2Extended(OrdinaryX);
  DoubleFloat T = twoProd(OrdinaryY, L.Hi);
  // Decide overflow and underflow on the leading product alone: it may be
  // infinite, and then the pair arithmetic would make NaN, so the pair is
  // built from a clamped leading part and, out of range, no trailing one.
  bool Overflow = T.Hi > 150.0f;
  bool Underflow = T.Hi < -160.0f;
  float Hi = __builtin_fminf(__builtin_fmaxf(T.Hi, -160.0f), 150.0f);
  float Lo = __builtin_fmaf(OrdinaryY, L.Lo, T.Lo);
  Lo = Overflow || Underflow ? 0.0f : Lo;
  float InRange = exp2Extended(fastTwoSum(Hi, Lo));
  float OutOfRange = Overflow ? Inf : 0.0f;
  float Magnitude = Overflow || Underflow ? OutOfRange : InRange;
  float Negated = -Magnitude;
  float Result = X < 0.0f && YKind.IsOdd ? Negated : Magnitude;
  return Handled ? Special : Result;
}

// ---- sinf, cosf -------------------------------------------------------------

namespace {

/// sin(R) for |R| <= 1 (Taylor to R^11; truncation < 2^-32).
TANDEM_MATH_HELPER float sinKernel(float R) {
  float Z = R * R;
  float P = -2.50521084e-8f;              // -1/11!
  P = __builtin_fmaf(P, Z, 2.75573192e-6f);  // 1/9!
  P = __builtin_fmaf(P, Z, -1.98412698e-4f); // -1/7!
  P = __builtin_fmaf(P, Z, 8.33333333e-3f);  // 1/5!
  P = __builtin_fmaf(P, Z, -1.66666667e-1f); // -1/3!
  return __builtin_fmaf(P, R * Z, R);
}

/// cos(R) for |R| <= 1 (Taylor to R^12).
TANDEM_MATH_HELPER float cosKernel(float R) {
  float Z = R * R;
  float P = 2.08767570e-9f;               // 1/12!
  P = __builtin_fmaf(P, Z, -2.75573192e-7f); // -1/10!
  P = __builtin_fmaf(P, Z, 2.48015873e-5f);  // 1/8!
  P = __builtin_fmaf(P, Z, -1.38888889e-3f); // -1/6!
  P = __builtin_fmaf(P, Z, 4.16666667e-2f);  // 1/4!
  P = __builtin_fmaf(P, Z, -0.5f);
  return __builtin_fmaf(P, Z, 1.0f);
}

/// X = J * pi/2 + R, |R| <= pi/4 + a little (Cody-Waite, pi/2 in three parts; exact
/// enough for |X| <= 105615). Returns R; Quadrant = J mod 4.
TANDEM_MATH_HELPER float reduceByHalfPi(float X, int &Quadrant) {
  float J = __builtin_rintf(X * 6.36619747e-1f);
  float R = __builtin_fmaf(J, -1.57079601e+00f, X);
  R = __builtin_fmaf(J, -3.13916473e-07f, R);
  R = __builtin_fmaf(J, -5.39030253e-15f, R);
  // J mod 4 without converting a possibly huge J to int.
  float Mod4 = J - 4.0f * __builtin_floorf(J * 0.25f);
  Quadrant = static_cast<int>(Mod4);
  return R;
}

TANDEM_MATH_HELPER float sinOrCos(float X, int QuadrantOffset) {
  float Ordinary = isFinite(X) ? X : 0.0f;
  int Quadrant;
  float R = reduceByHalfPi(Ordinary, Quadrant);
  // Beyond the reduction's accurate range R can be far off; clamping keeps
  // the result in [-1, 1] there (and changes nothing below the limit).
  R = __builtin_fminf(__builtin_fmaxf(R, -1.0f), 1.0f);
  Quadrant = (Quadrant + QuadrantOffset) & 3;
  // Both kernels, then a select: lanes' quadrants differ, so a branch
  // would run both anyway, plus its mask operations.
  float Cos = cosKernel(R);
  float Sin = sinKernel(R);
  float V = (Quadrant & 1) ? Cos : Sin;
  V = (Quadrant & 2) ? -V : V;
  return isFinite(X) ? V : quietNaN();
}

} // namespace

// sin(-0) is -0, which the reduction (J = 0, R = -0 + -0 * C = +0) loses.
TANDEM_MATH_FN float __tandem_sinf(float X) {
  float Sin = sinOrCos(X, 0);
  return X == 0.0f ? X : Sin;
}
TANDEM_MATH_FN float __tandem_cosf(float X) { return sinOrCos(X, 1); }
