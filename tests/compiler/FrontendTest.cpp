//===- FrontendTest.cpp - .cu / .ll / .bc in, checked module out ----------===//

#include "frontend/Frontend.h"

#include "llvm/IR/Function.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace llvm;
using namespace tandem::frontend;

namespace {

const std::string HeaderKernel =
    std::string(TANDEM_SOURCE_DIR) + "/tests/lit/prepare/Inputs/header-everything.cu";

/// Writes \p Text to a new temporary file with extension \p Ext.
std::string writeTemp(StringRef Ext, StringRef Text) {
  SmallString<128> Path;
  EXPECT_FALSE(sys::fs::createTemporaryFile("fe-test", Ext, Path));
  std::error_code EC;
  raw_fd_ostream OS(Path, EC);
  OS << Text;
  return std::string(Path);
}

std::string errorOf(Expected<std::unique_ptr<Module>> M) {
  if (M)
    return "";
  return toString(M.takeError());
}

TEST(Frontend, CompilesEveryHeaderFeatureFor32BitPointers) {
  LLVMContext Ctx;
  auto M = loadKernelSource(HeaderKernel, Ctx, FrontendOptions());
  ASSERT_TRUE(!!M) << toString(M.takeError());
  EXPECT_EQ((*M)->getTargetTriple(), "nvptx-nvidia-cuda");
  EXPECT_EQ((*M)->getDataLayout().getPointerSizeInBits(0), 32u);
  std::vector<Function *> Kernels = kernelsOf(**M);
  ASSERT_EQ(Kernels.size(), 1u);
  EXPECT_EQ(kernelDisplayName(*Kernels[0]), "everything");
}

TEST(Frontend, LinksAndInternalizesTheMathFunctionsUsed) {
  LLVMContext Ctx;
  auto M = loadKernelSource(HeaderKernel, Ctx, FrontendOptions());
  ASSERT_TRUE(!!M) << toString(M.takeError());
  Function *Exp = (*M)->getFunction("__tandem_expf");
  ASSERT_NE(Exp, nullptr);
  EXPECT_FALSE(Exp->isDeclaration());
  EXPECT_TRUE(Exp->hasInternalLinkage());
  EXPECT_NE((*M)->getFunction("__tandem_powf"), nullptr);
  // Every math function the kernel calls got its definition.
  for (Function &F : **M) {
    if (F.getName().starts_with("__tandem_")) {
      EXPECT_FALSE(F.isDeclaration()) << F.getName().str();
    }
  }
}

TEST(Frontend, SixtyFourBitPointersForPtx) {
  LLVMContext Ctx;
  FrontendOptions Opts;
  Opts.Use32BitPointers = false;
  auto M = loadKernelSource(HeaderKernel, Ctx, Opts);
  ASSERT_TRUE(!!M) << toString(M.takeError());
  EXPECT_EQ((*M)->getTargetTriple(), "nvptx64-nvidia-cuda");
  EXPECT_FALSE((*M)->getFunction("__tandem_expf")->isDeclaration());
}

TEST(Frontend, ClangDiagnosticsAreInTheError) {
  LLVMContext Ctx;
  std::string Path = writeTemp("cu", "__global__ void k(int *p) { p[0] = undeclared; }\n");
  std::string Err = errorOf(loadKernelSource(Path, Ctx, FrontendOptions()));
  EXPECT_NE(Err.find("clang failed"), std::string::npos) << Err;
  EXPECT_NE(Err.find("undeclared"), std::string::npos) << Err;
  EXPECT_NE(Err.find(":1:"), std::string::npos) << Err;
  sys::fs::remove(Path);
}

TEST(Frontend, RejectsUnknownExtension) {
  LLVMContext Ctx;
  std::string Path = writeTemp("txt", "hello");
  std::string Err = errorOf(loadKernelSource(Path, Ctx, FrontendOptions()));
  EXPECT_NE(Err.find("unknown kind of input"), std::string::npos) << Err;
  EXPECT_NE(Err.find(".cu"), std::string::npos) << Err;
  sys::fs::remove(Path);
}

TEST(Frontend, IRParseErrorsHaveLineAndColumn) {
  LLVMContext Ctx;
  std::string Path = writeTemp("ll", "define void @f() {\n  bogus\n}\n");
  std::string Err = errorOf(loadKernelSource(Path, Ctx, FrontendOptions()));
  EXPECT_NE(Err.find(Path + ":2:"), std::string::npos) << Err;
  sys::fs::remove(Path);
}

TEST(Frontend, RefusesA64BitModuleForThe32BitTarget) {
  LLVMContext Ctx;
  std::string Path = writeTemp("ll", "target datalayout = \"e-i64:64-i128:128-v16:16-v32:32-n16:32:64\"\n"
                                     "target triple = \"nvptx64-nvidia-cuda\"\n"
                                     "define void @k() { ret void }\n");
  std::string Err = errorOf(loadKernelSource(Path, Ctx, FrontendOptions()));
  EXPECT_NE(Err.find("64-bit pointers"), std::string::npos) << Err;
  EXPECT_NE(Err.find("-m32"), std::string::npos) << Err;
  sys::fs::remove(Path);
}

TEST(Frontend, RefusesANonNvptxModule) {
  LLVMContext Ctx;
  std::string Path = writeTemp("ll", "target triple = \"x86_64-pc-linux-gnu\"\n"
                                     "define void @k() { ret void }\n");
  std::string Err = errorOf(loadKernelSource(Path, Ctx, FrontendOptions()));
  EXPECT_NE(Err.find("not NVPTX"), std::string::npos) << Err;
  sys::fs::remove(Path);
}

TEST(Frontend, MissingClangIsExplained) {
  LLVMContext Ctx;
  ASSERT_EQ(setenv("TANDEM_CLANG", "/nonexistent/clang", 1), 0);
  std::string Err = errorOf(loadKernelSource(HeaderKernel, Ctx, FrontendOptions()));
  unsetenv("TANDEM_CLANG");
  EXPECT_NE(Err.find("TANDEM_CLANG"), std::string::npos) << Err;
}

TEST(Frontend, OverloadedKernelsKeepTheirMangledNames) {
  LLVMContext Ctx;
  std::string Path = writeTemp("cu", "__global__ void k(int *p) { p[0] = 1; }\n"
                                     "__global__ void k(float *p) { p[0] = 1; }\n"
                                     "extern \"C\" __global__ void plain(int *p) { p[0] = 2; }\n");
  auto M = loadKernelSource(Path, Ctx, FrontendOptions());
  ASSERT_TRUE(!!M) << toString(M.takeError());
  std::vector<Function *> Kernels = kernelsOf(**M);
  ASSERT_EQ(Kernels.size(), 3u);
  EXPECT_EQ(kernelDisplayName(*Kernels[0]), "_Z1kPi");
  EXPECT_EQ(kernelDisplayName(*Kernels[1]), "_Z1kPf");
  EXPECT_EQ(kernelDisplayName(*Kernels[2]), "plain");
  sys::fs::remove(Path);
}

} // namespace
