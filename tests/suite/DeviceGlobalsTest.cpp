//===- DeviceGlobalsTest.cpp - __device__ variables on iss and rtl --------===//
//
// tests/suite/kernels/device_globals.cu compiled for simt and run on iss and
// rtl against a CPU reference: the data section is initialized at load (an
// initialized table, zeroed counters), atomics from every block reach one
// counter, a second launch sees the first launch's writes, another kernel
// of the image sees them too, and loading the image again starts over.
// Inputs are random, outputs poisoned before every launch.
//
//===----------------------------------------------------------------------===//

#include "SuiteTestSupport.h"

#include "tandem/Config.h"
#include "tandem/Runtime.h"

#include "llvm/Support/FormatVariadic.h"

#include <gtest/gtest.h>

#include <array>
#include <random>

using namespace tandem;
using namespace llvm;

namespace {

constexpr std::array<int32_t, 8> InitialWeights = {3, -1, 4, 1, -5, 9, 2, -6};
constexpr int32_t Poison = int32_t(0xDEADBEEF);

const KernelImage *image(const AcceleratorConfig &Config) {
  return testing_support::compiledOnce(TANDEM_DEVICE_GLOBALS_CU, Config.Registers);
}

/// Host-side model of the image's __device__ variables.
struct State {
  std::array<int32_t, 8> Weights = InitialWeights;
  int32_t Total = 0;
  uint32_t BlocksDone = 0;
};

class SuiteDeviceGlobals : public testing::TestWithParam<const char *> {
protected:
  void SetUp() override {
    Expected<testing_support::DefaultDevice> D = testing_support::openOnDefaultConfig(GetParam());
    ASSERT_TRUE(bool(D)) << toString(D.takeError());
    Config = D->Config;
    Dev = std::move(D->Dev);
    Img = image(Config);
    ASSERT_NE(Img, nullptr);
    ASSERT_FALSE(Img->Data.empty()) << "the compiler emitted no data section";
  }

  DevicePtr buffer(ArrayRef<int32_t> Values) {
    Expected<DevicePtr> P = Dev->alloc(Values.size() * 4);
    EXPECT_TRUE(bool(P)) << toString(P.takeError());
    EXPECT_FALSE(bool(Dev->write(*P, Values)));
    return *P;
  }
  std::vector<int32_t> read(DevicePtr P, size_t N) {
    std::vector<int32_t> V(N);
    Error E = Dev->read(MutableArrayRef<int32_t>(V), P);
    EXPECT_FALSE(bool(E)) << toString(std::move(E));
    return V;
  }
  void launch(StringRef Kernel, uint32_t Grid, uint32_t Block, std::vector<KernelArg> Args) {
    testing_support::launch1D(*Dev, Kernel, Grid, Block, std::move(Args));
  }

  /// read_state's view of the variables must equal the model's.
  void expectState(const State &Want, StringRef When) {
    SCOPED_TRACE(When.str());
    DevicePtr Out = buffer(std::vector<int32_t>(16, Poison));
    launch("read_state", 1, 32, {KernelArg::ptr(Out)});
    std::vector<int32_t> Got = read(Out, 16);
    for (unsigned I = 0; I < 8; ++I)
      EXPECT_EQ(Got[I], Want.Weights[I]) << "weight[" << I << "]";
    EXPECT_EQ(Got[8], Want.Total) << "total";
    EXPECT_EQ(uint32_t(Got[9]), Want.BlocksDone) << "blocks_done";
    EXPECT_EQ(Got[10], Poison) << "read_state wrote past its outputs";
  }

  AcceleratorConfig Config;
  std::unique_ptr<Device> Dev;
  const KernelImage *Img = nullptr;
};

TEST_P(SuiteDeviceGlobals, PersistAcrossLaunchesAndResetOnLoad) {
  constexpr uint32_t Blocks = 6, Threads = 64, N = Blocks * Threads - 37;
  std::mt19937 R(20261201);
  std::uniform_int_distribution<int32_t> Value(-1000, 1000);
  std::vector<int32_t> In(N);
  for (int32_t &V : In)
    V = Value(R);

  ASSERT_FALSE(bool(Dev->loadImage(*Img)));
  State Model;
  expectState(Model, "after load: initializers and zeros");

  DevicePtr InBuf = buffer(In);
  for (unsigned Launch = 1; Launch <= 2; ++Launch) {
    SCOPED_TRACE(formatv("launch {0} of weighted_sum", Launch).str());
    DevicePtr Out = buffer(std::vector<int32_t>(N, Poison));
    DevicePtr Result = buffer({Poison, Poison});
    launch("weighted_sum", Blocks, Threads,
           {KernelArg::ptr(InBuf), KernelArg::ptr(Out), KernelArg::ptr(Result),
            KernelArg::s32(int32_t(N))});
    // CPU reference, with the weights this launch starts from.
    std::vector<int32_t> Want(N);
    for (uint32_t I = 0; I < N; ++I) {
      Want[I] = In[I] * Model.Weights[I % 8];
      Model.Total += Want[I];
    }
    Model.BlocksDone += Blocks;
    for (int32_t &W : Model.Weights)
      W += 1;
    EXPECT_EQ(read(Out, N), Want);
    std::vector<int32_t> Res = read(Result, 2);
    EXPECT_EQ(Res[0], Model.Total) << "total over every launch since load";
    EXPECT_EQ(uint32_t(Res[1]), Model.BlocksDone) << "every block's atomicAdd counted";
    expectState(Model, "read by another kernel of the image");
  }

  // A new load is a new instance, initialized again.
  ASSERT_FALSE(bool(Dev->loadImage(*Img)));
  expectState(State(), "after loading the image again");
}

INSTANTIATE_TEST_SUITE_P(IssAndRtl, SuiteDeviceGlobals, testing::Values("iss", "rtl"),
                         [](const testing::TestParamInfo<const char *> &I) {
                           return std::string(I.param);
                         });

} // namespace
