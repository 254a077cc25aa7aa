//===- math-exhaustive.cpp - a math function on every positive float -------===//
//
// A one-off accuracy check too slow for the test suite (about 14 s per
// function): runs cuda/math/tandem_math.cu's logf or log2f, compiled as
// host C++ (as MathLibTest does), on every positive float from the
// smallest subnormal to FLT_MAX, and counts the results that are not the
// correctly rounded value (double precision rounded to float), with the
// worst distance in ulp. Build and run with scripts/math-exhaustive.sh.
//
//===----------------------------------------------------------------------===//

#define TANDEM_MATH_HOST_TEST
#include "cuda/math/tandem_math.cu"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

int64_t orderedBits(float X) {
  int32_t Bits = std::bit_cast<int32_t>(X);
  return Bits < 0 ? -static_cast<int64_t>(Bits & 0x7fffffff) : Bits;
}

} // namespace

int main(int Argc, char **Argv) {
  bool Log2 = Argc > 1 && !std::strcmp(Argv[1], "log2f");
  if (Argc > 1 && !Log2 && std::strcmp(Argv[1], "logf")) {
    std::fprintf(stderr, "usage: %s [logf|log2f]\n", Argv[0]);
    return 2;
  }
  uint64_t Wrong = 0, Total = 0, Worst = 0;
  float WorstX = 0;
  for (uint32_t Bits = 1; Bits < 0x7f800000u; ++Bits, ++Total) {
    float X = std::bit_cast<float>(Bits);
    float Got = Log2 ? __tandem_log2f(X) : __tandem_logf(X);
    float Want = static_cast<float>(Log2 ? std::log2(static_cast<double>(X))
                                         : std::log(static_cast<double>(X)));
    uint64_t Ulp = static_cast<uint64_t>(std::llabs(orderedBits(Got) - orderedBits(Want)));
    if (Ulp != 0) {
      ++Wrong;
      if (Ulp > Worst) {
        Worst = Ulp;
        WorstX = X;
      }
    }
  }
  std::printf("%s: %llu of %llu positive floats not correctly rounded (%.3f%%), worst %llu ulp "
              "(x = %.9g)\n",
              Log2 ? "log2f" : "logf", static_cast<unsigned long long>(Wrong),
              static_cast<unsigned long long>(Total), 100.0 * double(Wrong) / double(Total),
              static_cast<unsigned long long>(Worst), WorstX);
  return 0;
}
