//===- LoadedImageTest.cpp - __device__ data placed at image load --------===//
//
// The runtime's iss device with hand-written images (docs/Assembly.md's
// .data / .data_base): the data section is copied into device memory at
// load, its address patched into the const slot, kept across launches and
// replaced by the next load; a load that fails keeps the previous image and
// its data; an in-memory image with a bad slot is refused with a message.
// The compiled end-to-end cases (iss and rtl) are tests/suite/DeviceGlobalsTest
// and tests/suite/SymbolsTest (variables by name).
//
//===----------------------------------------------------------------------===//

#include "Assembler.h"

#include "tandem/Runtime.h"

#include <gtest/gtest.h>

using namespace tandem;
using namespace llvm;

namespace {

/// count += Step; out[0] = count; out[1] = the data section's address.
std::string bumpSource(int Initial, int Step) {
  return R"(.kernel bump
  .param out ptr
  ld.param.u32 r5, [r0 + @out]
  ld.const.u32 r1, [r0 + base]
  ld.global.u32 r2, [r1 + count]
  addi r2, r2, )" +
         std::to_string(Step) + R"(
  st.global.u32 [r1 + count], r2
  st.global.u32 [r5 + 0], r2
  st.global.u32 [r5 + 4], r1
  exit
.const
  .word 0x12345678
base: .data_base
.data
  .word 7
count: .word )" +
         std::to_string(Initial) + "\n";
}

KernelImage assembled(const std::string &Src) {
  Expected<KernelImage> Img = assemble(Src, "bump.s");
  EXPECT_TRUE(bool(Img)) << toString(Img.takeError());
  return Img ? *Img : KernelImage();
}

class LoadedImageOnIss : public testing::Test {
protected:
  void SetUp() override {
    Expected<std::unique_ptr<Device>> D = openDevice("iss", DeviceOptions());
    ASSERT_TRUE(bool(D)) << toString(D.takeError());
    Dev = std::move(*D);
    Expected<DevicePtr> P = Dev->alloc(8);
    ASSERT_TRUE(bool(P));
    Out = *P;
  }
  /// One launch of bump: {count after it, data address}.
  std::pair<int32_t, uint32_t> bump() {
    const int32_t Poison = int32_t(0xDEADBEEF);
    EXPECT_FALSE(bool(Dev->write(Out, ArrayRef<int32_t>{Poison, Poison})));
    LaunchParams L;
    L.Kernel = "bump";
    L.Args = {KernelArg::ptr(Out)};
    if (Error E = Dev->launch(L)) {
      ADD_FAILURE() << toString(std::move(E));
      return {0, 0};
    }
    int32_t V[2];
    EXPECT_FALSE(bool(Dev->read(MutableArrayRef<int32_t>(V), Out)));
    return {V[0], uint32_t(V[1])};
  }

  std::unique_ptr<Device> Dev;
  DevicePtr Out = 0;
};

TEST_F(LoadedImageOnIss, IsInitializedAtLoadAndPersistsAcrossLaunches) {
  KernelImage Img = assembled(bumpSource(41, 3));
  ASSERT_FALSE(bool(Dev->loadImage(Img)));
  auto [First, Base] = bump();
  EXPECT_EQ(First, 44);
  EXPECT_NE(Base, 0u);
  EXPECT_EQ(Base % 256, 0u) << "allocated like cudaMalloc";
  auto [Second, SameBase] = bump();
  EXPECT_EQ(Second, 47) << "the second launch saw the first one's write";
  EXPECT_EQ(SameBase, Base);
  // The data is ordinary device memory: the host can read it at its address.
  int32_t Words[2];
  ASSERT_FALSE(bool(Dev->read(MutableArrayRef<int32_t>(Words), Base)));
  EXPECT_EQ(Words[0], 7);
  EXPECT_EQ(Words[1], 47);
  // The caller's image is not modified: its slot stays 0.
  EXPECT_EQ(Img.Const[4], 0);

  // Loading again gives a fresh instance with the initial values; the old
  // segment is freed.
  ASSERT_FALSE(bool(Dev->loadImage(Img)));
  EXPECT_EQ(bump().first, 44);
  int32_t Gone[2];
  Error Freed = Dev->read(MutableArrayRef<int32_t>(Gone), Base);
  EXPECT_TRUE(bool(Freed)) << "the first instance's memory is still allocated";
  consumeError(std::move(Freed));
}

TEST_F(LoadedImageOnIss, AFailedLoadKeepsThePreviousImageAndItsData) {
  ASSERT_FALSE(bool(Dev->loadImage(assembled(bumpSource(10, 1)))));
  EXPECT_EQ(bump().first, 11);
  KernelImage Broken = assembled(bumpSource(500, 1));
  Broken.Kernels[0].CodeBytes = 4 * uint32_t(Broken.Code.size() + 1); // past the code
  Error E = Dev->loadImage(Broken);
  ASSERT_TRUE(bool(E));
  consumeError(std::move(E));
  EXPECT_EQ(bump().first, 12) << "the previous image and its data stay loaded";
}

TEST_F(LoadedImageOnIss, ABadSlotInAnInMemoryImageIsRefused) {
  KernelImage Img = assembled(bumpSource(1, 1));
  Img.DataBaseSlot = 8; // the const section is 8 bytes
  Error E = Dev->loadImage(Img);
  ASSERT_TRUE(bool(E));
  EXPECT_NE(toString(std::move(E)).find("data_base_slot 8 is not a 4-aligned word inside the "
                                        "const section (8 bytes)"),
            std::string::npos);
}

TEST_F(LoadedImageOnIss, ASymbolOutsideItsSectionInAnInMemoryImageIsRefused) {
  // readImage() would refuse it; an image built in memory reaches the device
  // unchecked, and a write through the symbol must not run off the section.
  KernelImage Img = assembled(bumpSource(1, 1));
  Img.Symbols = {{"wide", SymbolSection::Const, 4, 16}}; // the const section is 8 bytes
  ASSERT_FALSE(bool(Dev->loadImage(Img)));
  std::vector<uint8_t> Bytes(4, 0xab);
  Error E = Dev->copyToSymbol("wide", Bytes, 0);
  ASSERT_TRUE(bool(E));
  EXPECT_NE(toString(std::move(E)).find("symbol 'wide' [4, 20) lies outside its const section "
                                        "(8 bytes)"),
            std::string::npos);
}

} // namespace
