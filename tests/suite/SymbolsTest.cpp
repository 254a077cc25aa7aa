//===- SymbolsTest.cpp - An image's variables by name on iss and rtl ------===//
//
// tests/suite/kernels/symbols.cu compiled for simt and run on iss and rtl
// against a CPU reference, its variables reached from the host by name
// (Device::findSymbol, copyToSymbol, copyFromSymbol; docs/Compiler.md): the
// initializers are there after load; coefficients written to __constant__
// memory and a bias written through a __device__ variable's address are what
// the next launches compute with; the counter the kernels update reads back
// and resets; its address works as a kernel's pointer argument; loading the
// image again starts over; bad names and ranges are errors that say what is
// there. Inputs are random, outputs poisoned before every launch.
//
//===----------------------------------------------------------------------===//

#include "SuiteTestSupport.h"

#include "tandem/Config.h"
#include "tandem/Runtime.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <random>

using namespace tandem;
using namespace llvm;

namespace {

constexpr float Poison = -7.77e33f;

const KernelImage *image(const AcceleratorConfig &Config) {
  return testing_support::compiledOnce(TANDEM_SYMBOLS_CU, Config.Registers);
}

template <typename T> ArrayRef<uint8_t> bytesOf(ArrayRef<T> V) {
  return {reinterpret_cast<const uint8_t *>(V.data()), V.size() * sizeof(T)};
}
template <typename T> MutableArrayRef<uint8_t> bytesOf(MutableArrayRef<T> V) {
  return {reinterpret_cast<uint8_t *>(V.data()), V.size() * sizeof(T)};
}

std::string errorText(Error E) { return E ? toString(std::move(E)) : "<no error>"; }

class SuiteSymbols : public testing::TestWithParam<const char *> {
protected:
  void SetUp() override {
    Expected<testing_support::DefaultDevice> D = testing_support::openOnDefaultConfig(GetParam());
    ASSERT_TRUE(bool(D)) << toString(D.takeError());
    Dev = std::move(D->Dev);
    Img = image(D->Config);
    ASSERT_NE(Img, nullptr);
  }

  template <typename T> std::vector<T> symbol(StringRef Name, size_t N) {
    std::vector<T> V(N);
    Error E = Dev->copyFromSymbol(bytesOf(MutableArrayRef<T>(V)), Name);
    EXPECT_FALSE(bool(E)) << toString(std::move(E));
    return V;
  }
  template <typename T> DevicePtr buffer(const std::vector<T> &Values) {
    Expected<DevicePtr> P = Dev->alloc(Values.size() * sizeof(T));
    EXPECT_TRUE(bool(P)) << toString(P.takeError());
    EXPECT_FALSE(bool(Dev->write(*P, ArrayRef<T>(Values))));
    return *P;
  }
  void launch(StringRef Kernel, uint32_t Grid, uint32_t Block, std::vector<KernelArg> Args) {
    testing_support::launch1D(*Dev, Kernel, Grid, Block, std::move(Args));
  }
  /// Runs poly on \p X and checks y against the CPU with \p C and \p Bias.
  void expectPoly(const std::vector<float> &X, const std::array<float, 4> &C, float Bias) {
    DevicePtr XBuf = buffer(X);
    DevicePtr YBuf = buffer(std::vector<float>(X.size() + 1, Poison));
    uint32_t N = uint32_t(X.size());
    launch("poly", (N + 63) / 64, 64,
           {KernelArg::ptr(XBuf), KernelArg::ptr(YBuf), KernelArg::s32(int32_t(N))});
    std::vector<float> Y(N + 1);
    ASSERT_FALSE(bool(Dev->read(MutableArrayRef<float>(Y), YBuf)));
    for (uint32_t I = 0; I < N; ++I) {
      float V = X[I];
      // The kernel's expression; contraction into fma may differ in the
      // last bits, so compare with a relative tolerance.
      float Want = ((C[3] * V + C[2]) * V + C[1]) * V + C[0] + Bias;
      ASSERT_NEAR(Y[I], Want, 1e-5f * (1 + std::fabs(Want))) << "y[" << I << "]";
    }
    EXPECT_EQ(Y[N], Poison) << "poly wrote past n";
  }

  std::unique_ptr<Device> Dev;
  const KernelImage *Img = nullptr;
};

TEST_P(SuiteSymbols, HostReadsAndWritesVariablesByName) {
  ASSERT_FALSE(bool(Dev->loadImage(*Img)));
  std::mt19937 R(20261202);
  std::uniform_real_distribution<float> U(-2.0f, 2.0f);
  std::vector<float> X(300);
  for (float &V : X)
    V = U(R);

  // What the image says about each variable.
  Expected<SymbolInfo> Coeffs = Dev->findSymbol("coeffs");
  ASSERT_TRUE(bool(Coeffs)) << toString(Coeffs.takeError());
  EXPECT_EQ(Coeffs->Section, SymbolSection::Const);
  EXPECT_EQ(Coeffs->Bytes, 16u);
  EXPECT_EQ(Coeffs->Address, 0u) << "the const space has no global address on simt";
  Expected<SymbolInfo> Bias = Dev->findSymbol("bias");
  ASSERT_TRUE(bool(Bias)) << toString(Bias.takeError());
  EXPECT_EQ(Bias->Section, SymbolSection::Data);
  EXPECT_NE(Bias->Address, 0u);

  // The initializers, read back by name and used by a launch.
  EXPECT_EQ(symbol<float>("coeffs", 4), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(symbol<float>("bias", 1), std::vector<float>{0.5f});
  EXPECT_EQ(symbol<int32_t>("evaluated", 1), std::vector<int32_t>{0});
  expectPoly(X, {1, 2, 3, 4}, 0.5f);
  EXPECT_EQ(symbol<int32_t>("evaluated", 1), std::vector<int32_t>{300});

  // New coefficients by name, a new bias through the variable's address,
  // the counter reset: the next launch computes with them.
  std::array<float, 4> C;
  for (float &V : C)
    V = U(R);
  ASSERT_FALSE(bool(Dev->copyToSymbol("coeffs", bytesOf(ArrayRef<float>(C)))));
  float NewBias = U(R);
  ASSERT_FALSE(bool(Dev->write(Bias->Address, ArrayRef<float>(NewBias))));
  int32_t Zero = 0;
  ASSERT_FALSE(bool(Dev->copyToSymbol("evaluated", bytesOf(ArrayRef<int32_t>(Zero)))));
  EXPECT_EQ(symbol<float>("coeffs", 4), std::vector<float>(C.begin(), C.end()));
  expectPoly(X, C, NewBias);
  // One coefficient, written at an offset inside the variable.
  C[2] = U(R);
  ASSERT_FALSE(bool(Dev->copyToSymbol("coeffs", bytesOf(ArrayRef<float>(C[2])), 8)));
  expectPoly(X, C, NewBias);
  EXPECT_EQ(symbol<int32_t>("evaluated", 1), std::vector<int32_t>{600});

  // The counter's address as a kernel's pointer argument.
  Expected<SymbolInfo> Evaluated = Dev->findSymbol("evaluated");
  ASSERT_TRUE(bool(Evaluated)) << toString(Evaluated.takeError());
  launch("add_each", 2, 32, {KernelArg::ptr(Evaluated->Address), KernelArg::s32(-3)});
  EXPECT_EQ(symbol<int32_t>("evaluated", 1), std::vector<int32_t>{600 - 3 * 64});

  // Loading the image again starts from the initializers.
  ASSERT_FALSE(bool(Dev->loadImage(*Img)));
  EXPECT_EQ(symbol<float>("coeffs", 4), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(symbol<int32_t>("evaluated", 1), std::vector<int32_t>{0});
  expectPoly(X, {1, 2, 3, 4}, 0.5f);
}

TEST_P(SuiteSymbols, BadNamesAndRangesAreClearErrors) {
  std::string Why = errorText(Dev->findSymbol("coeffs").takeError());
  EXPECT_NE(Why.find("no kernel image is loaded"), std::string::npos) << Why;
  ASSERT_FALSE(bool(Dev->loadImage(*Img)));
  Why = errorText(Dev->findSymbol("coef").takeError());
  EXPECT_NE(Why.find("symbol 'coef' is not in the loaded kernel image (its symbols: coeffs, "
                     "bias, evaluated)"),
            std::string::npos)
      << Why;
  std::vector<uint8_t> Five(5);
  Why = errorText(Dev->copyToSymbol("bias", Five));
  EXPECT_NE(Why.find("copy to symbol 'bias': bytes [0, 5) are outside the variable (4 bytes)"),
            std::string::npos)
      << Why;
  Why = errorText(Dev->copyFromSymbol(MutableArrayRef<uint8_t>(Five).take_front(4), "coeffs", 13));
  EXPECT_NE(Why.find("copy from symbol 'coeffs': bytes [13, 17) are outside"), std::string::npos)
      << Why;
  // A failed write changes nothing.
  EXPECT_EQ(symbol<float>("bias", 1), std::vector<float>{0.5f});
}

INSTANTIATE_TEST_SUITE_P(IssAndRtl, SuiteSymbols, testing::Values("iss", "rtl"),
                         [](const testing::TestParamInfo<const char *> &I) {
                           return std::string(I.param);
                         });

} // namespace
