//===- MathOnDeviceTest.cpp - the device math library as the device runs it -===//
//
// MathLibTest checks cuda/math/tandem_math.cu compiled for the host against
// double precision. This test checks that the device computes exactly those
// bits: the suite's microbench/kernels/math.cu, compiled by our back end for
// simt (the front end links the library's bitcode, Prepare inlines it, then
// selection, scheduling and allocation), runs every library function on
// iss and rtl, and each result must equal the host library's bit for bit
// (any NaN matches any NaN). It catches a pattern that selects the wrong
// instruction (fmin's NaN rule, a rounding mode), a fold that changes a
// rounding, and an ISS or FPU that differs from IEEE on these operations.
//
// Inputs: the edge cases (zeros, infinities, NaN, subnormals, the limits of
// each function's range), every pair of powf's special operands, and random
// bit patterns over every binade; powf's second operand mixes small
// integers, halves and random floats. Outputs are poisoned before the
// launch.
//
//===----------------------------------------------------------------------===//

#define TANDEM_MATH_HOST_TEST
#include "cuda/math/tandem_math.cu"

#include "SuiteTestSupport.h"
#include "tests/compiler/MathLibTestSupport.h"

#include "tandem/Config.h"
#include "tandem/Runtime.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

using namespace tandem;
using namespace llvm;

namespace {

using tandem::mathtest::Infinity;
constexpr uint32_t PoisonBits = 0x7f8dead5u; // a signalling NaN no function returns

/// The host library, in math.cu's order of output slices.
struct HostFunction {
  const char *Name;
  float (*Unary)(float);
};

float hostSqrt(float X) { return std::sqrt(X); }

constexpr HostFunction UnaryFunctions[] = {
    {"expf", __tandem_expf},   {"exp2f", __tandem_exp2f},   {"logf", __tandem_logf},
    {"log2f", __tandem_log2f}, {"sinf", __tandem_sinf},     {"cosf", __tandem_cosf},
    {"tanhf", __tandem_tanhf}, {"rsqrtf", __tandem_rsqrtf}, {"sqrtf", hostSqrt}};
constexpr unsigned PowSlice = std::size(UnaryFunctions); // powf(x, y) comes last

/// The math tests' edge cases, the limits of each function's range, and
/// the floats next to each.
std::vector<float> edgeCases() {
  std::vector<float> E = mathtest::commonEdges();
  for (float V : {// exp's clamps and overflow/underflow limits
                  88.72f, -87.33f, -103.97f, 104.0f, -104.0f, 128.0f, -149.0f, 160.0f, -160.0f,
                  // tanh's cut-offs, sin/cos's reduction limit
                  9.1f, 10.0f, 2.44140625e-4f, 105615.0f, 1e30f})
    E.push_back(V);
  for (float V : std::vector<float>(E)) {
    E.push_back(std::nextafter(V, Infinity));
    E.push_back(std::nextafter(V, -Infinity));
  }
  return E;
}

/// x: the edge cases, then every pair of powf's special operands (x, y),
/// then random floats (bit patterns over every binade and both signs,
/// alternating with uniform ones in [-120, 120]). y elsewhere: small
/// integers and halves (powf's integer-exponent rules), edge cases, and
/// random floats in [-30, 30].
void makeInputs(size_t N, std::vector<float> &X, std::vector<float> &Y) {
  std::mt19937 Rng(20261203);
  std::uniform_real_distribution<float> Moderate(-120.0f, 120.0f);
  std::uniform_real_distribution<float> Exponent(-30.0f, 30.0f);
  std::vector<float> Edges = edgeCases();
  X.assign(Edges.begin(), Edges.end());
  Y.resize(X.size());
  for (size_t I = 0; I < Y.size(); ++I) {
    switch (I % 4) {
    case 0:
      Y[I] = static_cast<float>(static_cast<int>(Rng() % 9) - 4); // -4 .. 4
      break;
    case 1:
      Y[I] = static_cast<float>(static_cast<int>(Rng() % 9) - 4) + 0.5f;
      break;
    case 2:
      Y[I] = Edges[Rng() % Edges.size()];
      break;
    default:
      Y[I] = Exponent(Rng);
      break;
    }
  }
  const std::vector<float> PowSpecials = mathtest::powSpecialOperands();
  for (float PX : PowSpecials)
    for (float PY : PowSpecials) {
      X.push_back(PX);
      Y.push_back(PY);
    }
  while (X.size() < N) {
    X.push_back((X.size() & 1) ? std::bit_cast<float>(static_cast<uint32_t>(Rng()))
                               : Moderate(Rng));
    Y.push_back(X.size() % 3 ? Exponent(Rng) : static_cast<float>(Rng() % 9) - 4.0f);
  }
  X.resize(N);
  Y.resize(N);
}

bool sameResult(float Got, float Want) {
  if (std::isnan(Want))
    return std::isnan(Got) && std::bit_cast<uint32_t>(Got) != PoisonBits;
  return std::bit_cast<uint32_t>(Got) == std::bit_cast<uint32_t>(Want);
}

class MathOnDevice : public testing::TestWithParam<const char *> {};

TEST_P(MathOnDevice, EveryFunctionMatchesTheHostLibraryBitForBit) {
  Expected<testing_support::DefaultDevice> D = testing_support::openOnDefaultConfig(GetParam());
  ASSERT_TRUE(bool(D)) << toString(D.takeError());
  Device &Dev = *D->Dev;
  const KernelImage *Img =
      testing_support::compiledOnce(TANDEM_MATH_FUNCTIONS_CU, D->Config.Registers);
  ASSERT_NE(Img, nullptr);
  {
    Error E = Dev.loadImage(*Img);
    ASSERT_FALSE(bool(E)) << toString(std::move(E));
  }

  // The rtl clocks every cycle of the core, so it gets fewer inputs: the
  // edge cases and some random ones.
  const size_t N = std::string(GetParam()) == "iss" ? 1 << 16 : 2048;
  std::vector<float> X, Y;
  makeInputs(N, X, Y);
  const unsigned Slices = PowSlice + 1;
  std::vector<float> Out(Slices * N, std::bit_cast<float>(PoisonBits));

  auto Buffer = [&](ArrayRef<float> Values) -> DevicePtr {
    Expected<DevicePtr> P = Dev.alloc(Values.size() * 4);
    EXPECT_TRUE(bool(P)) << toString(P.takeError());
    Error E = Dev.write(*P, Values);
    EXPECT_FALSE(bool(E)) << toString(std::move(E));
    return *P;
  };
  DevicePtr DX = Buffer(X), DY = Buffer(Y), DOut = Buffer(Out);
  ASSERT_FALSE(HasFailure());
  const uint32_t Block = 128;
  testing_support::launch1D(Dev, "math_functions", (N + Block - 1) / Block, Block,
                            {KernelArg::ptr(DX), KernelArg::ptr(DX), KernelArg::ptr(DY),
                             KernelArg::ptr(DOut), KernelArg::s32(static_cast<int32_t>(N))});
  ASSERT_FALSE(HasFatalFailure());
  Error E = Dev.read(MutableArrayRef<float>(Out), DOut);
  ASSERT_FALSE(bool(E)) << toString(std::move(E));

  // At most a few mismatches reported per function, with their inputs.
  for (unsigned F = 0; F < Slices; ++F) {
    const char *Name = F == PowSlice ? "powf" : UnaryFunctions[F].Name;
    unsigned Mismatches = 0;
    for (size_t I = 0; I < N; ++I) {
      float Want = F == PowSlice ? __tandem_powf(X[I], Y[I]) : UnaryFunctions[F].Unary(X[I]);
      float Got = Out[F * N + I];
      if (sameResult(Got, Want))
        continue;
      if (++Mismatches <= 3)
        ADD_FAILURE() << Name << "(" << X[I] << (F == PowSlice ? ", " + std::to_string(Y[I]) : "")
                      << ") on " << GetParam() << ": got " << Got << " (0x" << std::hex
                      << std::bit_cast<uint32_t>(Got) << "), host library " << Want << " (0x"
                      << std::bit_cast<uint32_t>(Want) << std::dec << ")";
    }
    EXPECT_EQ(Mismatches, 0u) << Name << ": results differing from the host library's";
  }
}

INSTANTIATE_TEST_SUITE_P(Devices, MathOnDevice, testing::Values("iss", "rtl"),
                         [](const testing::TestParamInfo<const char *> &P) {
                           return std::string(P.param);
                         });

} // namespace
