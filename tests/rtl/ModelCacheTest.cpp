//===- ModelCacheTest.cpp - Models of other configurations, built once ----===//
//
// sim/rtl/harness/ModelCache.h: a configuration with the default's build
// parameters uses the linked-in model (no build, no cache directory even
// created) whatever its run-time keys; the cache's hash separates build
// parameters and nothing else; an unusable cache directory is an error
// naming it. The full cycle (Verilate a 16-lane, 4-warp core, run every
// sample on it against iss, open it again without a rebuild) takes one to
// three minutes on two cores, beyond CI's budget, so it runs only when
// TANDEM_RTL_BUILD_TESTS=1 and otherwise says SKIPPED and why.
//
//===----------------------------------------------------------------------===//

#include "ModelCache.h"
#include "Samples.h"

#include "tandem/Runtime.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <gtest/gtest.h>

#include <thread>

#include <cstdlib>

using namespace tandem;
using namespace llvm;

namespace {

/// Points TANDEM_RTL_CACHE at \p Dir for the life of the object.
class CacheDirOverride {
public:
  explicit CacheDirOverride(const std::string &Dir) {
    if (auto Old = sys::Process::GetEnv("TANDEM_RTL_CACHE"))
      Saved = *Old;
    setenv("TANDEM_RTL_CACHE", Dir.c_str(), 1);
  }
  ~CacheDirOverride() {
    if (Saved)
      setenv("TANDEM_RTL_CACHE", Saved->c_str(), 1);
    else
      unsetenv("TANDEM_RTL_CACHE");
  }

private:
  std::optional<std::string> Saved;
};

std::string freshPath(StringRef Name) {
  SmallString<128> P;
  sys::path::system_temp_directory(true, P);
  sys::path::append(P, Name + "-" + std::to_string(sys::Process::getProcessId()));
  (void)sys::fs::remove_directories(P);
  return P.str().str();
}

TEST(RtlModelCache, DefaultBuildParametersUseTheLinkedInModel) {
  std::string Cache = freshPath("tandem-rtl-cache-unused");
  CacheDirOverride Override(Cache);
  DeviceOptions O;
  O.Config.Name = "slow-dram-gto";
  O.Config.Dram = {400, 4, 2, 4};
  O.Config.Scheduler = WarpScheduler::GreedyThenOldest;
  unsigned Before = rtl::modelBuildsRun();
  auto D = openDevice("rtl", O);
  ASSERT_TRUE(bool(D)) << toString(D.takeError());
  EXPECT_EQ(rtl::modelBuildsRun(), Before);
  EXPECT_FALSE(sys::fs::exists(Cache)) << "nothing is cached for the default";
}

TEST(RtlModelCache, HashSeparatesBuildParametersOnly) {
  CacheDirOverride Override(freshPath("tandem-rtl-cache-hash"));
  AcceleratorConfig A, RunTimeOnly, Lanes, Banks, Slots;
  RunTimeOnly.Name = "other";
  RunTimeOnly.Dram.LatencyCycles = 7;
  RunTimeOnly.Scheduler = WarpScheduler::GreedyThenOldest;
  RunTimeOnly.Lsu.InFlight = 4;
  Lanes.Lanes = 16;
  Banks.Shared.Banks = 16;
  Slots.Lsu.MaxInFlight = 16;
  std::string DirA = rtl::modelDirFor(A);
  ASSERT_FALSE(DirA.empty());
  EXPECT_EQ(rtl::modelDirFor(RunTimeOnly), DirA);
  EXPECT_NE(rtl::modelDirFor(Lanes), DirA);
  EXPECT_NE(rtl::modelDirFor(Banks), DirA);
  EXPECT_NE(rtl::modelDirFor(Slots), DirA);
  EXPECT_NE(rtl::modelDirFor(Banks), rtl::modelDirFor(Lanes));
  EXPECT_EQ(rtl::modelBuildKey(Slots),
            "lanes 8, warps_per_core 8, registers 32, l1 16384 B 4-way 64 B lines, shared "
            "16384 B in 8 banks, imem_words 4096, lsu max_in_flight 16");
  EXPECT_EQ(sys::path::parent_path(DirA), rtl::modelCacheDir());
}

TEST(RtlModelCache, UnusableCacheDirectoryIsAnErrorNamingIt) {
  // A regular file where the cache directory should be.
  SmallString<128> File;
  ASSERT_FALSE(sys::fs::createTemporaryFile("tandem-rtl-cache", "file", File));
  SmallString<128> Below(File);
  sys::path::append(Below, "models");
  CacheDirOverride Override(Below.str().str());
  DeviceOptions O;
  O.Config.Lanes = 16;
  unsigned Before = rtl::modelBuildsRun();
  auto D = openDevice("rtl", O);
  ASSERT_FALSE(bool(D));
  std::string Msg = toString(D.takeError());
  EXPECT_NE(Msg.find("cannot create the model cache '" + Below.str().str()),
            std::string::npos)
      << Msg;
  EXPECT_NE(Msg.find("TANDEM_RTL_CACHE"), std::string::npos) << Msg;
  EXPECT_EQ(rtl::modelBuildsRun(), Before);
  (void)sys::fs::remove(File);
}

TEST(RtlModelCache, OtherConfigurationIsBuiltOnceAndAgreesWithIss) {
  if (!sys::Process::GetEnv("TANDEM_RTL_BUILD_TESTS"))
    GTEST_SKIP() << "Verilating a second model takes 1-3 minutes on two "
                    "cores (over CI's budget); set TANDEM_RTL_BUILD_TESTS=1 "
                    "to run it";
  std::string Cache = freshPath("tandem-rtl-cache-build");
  CacheDirOverride Override(Cache);
  DeviceOptions O;
  O.Config.Name = "wide-4warp";
  O.Config.Lanes = 16;
  O.Config.WarpsPerCore = 4;
  O.Config.Shared.Banks = 16;
  unsigned Before = rtl::modelBuildsRun();
  // Two threads of one process open it at once, as two jobs of `tandem
  // report` on a configuration not built yet do: one builds, the other
  // waits and loads what it built.
  std::string TwinError = "not opened";
  bool TwinOpened = false;
  std::thread Other([&] {
    auto Twin = openDevice("rtl", O);
    TwinOpened = bool(Twin);
    TwinError = TwinOpened ? "" : toString(Twin.takeError());
  });
  auto Rtl = openDevice("rtl", O);
  Other.join();
  ASSERT_TRUE(bool(Rtl)) << toString(Rtl.takeError());
  EXPECT_TRUE(TwinOpened) << TwinError;
  EXPECT_EQ(rtl::modelBuildsRun(), Before + 1);
  SmallString<256> Lib(rtl::modelDirFor(O.Config));
  sys::path::append(Lib, "libsimt_core.so");
  sys::fs::file_status First;
  ASSERT_FALSE(sys::fs::status(Lib, First)) << Lib.str().str();

  auto Iss = openDevice("iss", O);
  ASSERT_TRUE(bool(Iss)) << toString(Iss.takeError());
  samples::SampleOptions SO;
  SO.Seed = 3;
  SO.MaxThreadsPerBlock = O.Config.maxThreadsPerBlock();
  for (const samples::SampleInfo &S : samples::sampleTable()) {
    auto A = samples::runSample(**Iss, S.Name, SO);
    ASSERT_TRUE(bool(A)) << S.Name << ": " << toString(A.takeError());
    auto B = samples::runSample(**Rtl, S.Name, SO);
    ASSERT_TRUE(bool(B)) << S.Name << ": " << toString(B.takeError());
    EXPECT_TRUE(B->Passed) << S.Name << " on rtl: " << B->Message;
    for (const auto &[Name, V] : A->Counters.Values)
      EXPECT_EQ(B->Counters.get(Name), V) << S.Name << ": counter " << Name;
  }
  // The second open loads the cached library: no build, same file.
  auto Again = openDevice("rtl", O);
  ASSERT_TRUE(bool(Again)) << toString(Again.takeError());
  EXPECT_EQ(rtl::modelBuildsRun(), Before + 1);
  sys::fs::file_status Second;
  ASSERT_FALSE(sys::fs::status(Lib, Second));
  EXPECT_EQ(First.getLastModificationTime(), Second.getLastModificationTime());
  (void)sys::fs::remove_directories(Cache);
}

} // namespace
