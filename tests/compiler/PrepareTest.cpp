//===- PrepareTest.cpp - the guarantees of isel/Prepare -------------------===//
//
// Each test compiles a small CUDA kernel through the front end, prepares it
// and checks one guarantee of Prepare.h on the resulting IR.
//
//===----------------------------------------------------------------------===//

#include "frontend/Frontend.h"
#include "isel/Prepare.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace llvm;
using namespace tandem;

namespace {

struct Prepared {
  LLVMContext Ctx;
  std::unique_ptr<Module> M;
  std::string Error;
  std::string Path;
};

/// Writes \p Source to a temporary .cu, loads and prepares it.
std::unique_ptr<Prepared> prepare(StringRef Source, unsigned OptLevel = 2,
                                  isel::PrepareOptions Opts = {}) {
  auto P = std::make_unique<Prepared>();
  SmallString<128> Path;
  EXPECT_FALSE(sys::fs::createTemporaryFile("prepare-test", "cu", Path));
  {
    std::error_code EC;
    raw_fd_ostream OS(Path, EC);
    OS << Source;
  }
  P->Path = std::string(Path);
  frontend::FrontendOptions FE;
  FE.OptLevel = OptLevel;
  auto M = frontend::loadKernelSource(Path, P->Ctx, FE);
  sys::fs::remove(Path);
  if (!M) {
    P->Error = "front end: " + toString(M.takeError());
    return P;
  }
  P->M = std::move(*M);
  Opts.OptLevel = OptLevel;
  if (Error E = isel::prepareModule(*P->M, Opts))
    P->Error = toString(std::move(E));
  return P;
}

Function &onlyKernel(Prepared &P) {
  std::vector<Function *> K = frontend::kernelsOf(*P.M);
  EXPECT_EQ(K.size(), 1u);
  return *K.at(0);
}

const char *SwitchAndEarlyReturn = R"(
__global__ void sw(int *o, int n) {
  int t = threadIdx.x, acc = 0;
  switch (t & 3) { case 0: acc = 5; break; case 1: acc = o[1]; break;
                   case 2: acc = 9; break; default: acc = o[t]; }
  if (t < 5) return;
  for (int i = 0; i < t; ++i) { if (o[i] > n) return; acc += o[i]; }
  o[t] = acc;
}
)";

TEST(Prepare, OneReturnAndNoSwitchAtEveryLevel) {
  for (unsigned O = 0; O <= 3; ++O) {
    auto P = prepare(SwitchAndEarlyReturn, O);
    ASSERT_EQ(P->Error, "") << "-O" << O;
    unsigned Returns = 0, Switches = 0;
    for (Instruction &I : instructions(onlyKernel(*P))) {
      Returns += isa<ReturnInst>(I);
      Switches += isa<SwitchInst>(I);
    }
    EXPECT_EQ(Returns, 1u) << "-O" << O;
    EXPECT_EQ(Switches, 0u) << "-O" << O;
  }
}

TEST(Prepare, KernelPointersAreGlobalAndNoAccessIsGeneric) {
  auto P = prepare(R"(
__global__ void k(const float *in, float *out, int *count) {
  __shared__ float tile[32];
  float local[4];
  for (int i = 0; i < 4; ++i) local[i] = in[threadIdx.x + i];
  tile[threadIdx.x] = local[threadIdx.x & 3];
  __syncthreads();
  out[threadIdx.x] = tile[31 - threadIdx.x];
  atomicAdd(count, 1);
})");
  ASSERT_EQ(P->Error, "");
  unsigned Global = 0, Shared = 0;
  for (Instruction &I : instructions(onlyKernel(*P))) {
    unsigned AS = ~0u;
    if (auto *L = dyn_cast<LoadInst>(&I))
      AS = L->getPointerAddressSpace();
    else if (auto *S = dyn_cast<StoreInst>(&I))
      AS = S->getPointerAddressSpace();
    else if (auto *A = dyn_cast<AtomicRMWInst>(&I))
      AS = A->getPointerAddressSpace();
    else
      continue;
    EXPECT_NE(AS, 0u) << "generic access left";
    Global += AS == 1;
    Shared += AS == 3;
  }
  EXPECT_GE(Global, 3u); // in, out, the atomic
  EXPECT_GE(Shared, 2u);
}

TEST(Prepare, AllocasLiveInLocalMemoryAtO0) {
  auto P = prepare(R"(
__global__ void k(int *o, int i) { int a[8]; for (int j = 0; j < 8; ++j) a[j] = o[j]; o[0] = a[i & 7]; }
)",
                   0);
  ASSERT_EQ(P->Error, "");
  unsigned LocalAccesses = 0, Allocas = 0;
  for (Instruction &I : instructions(onlyKernel(*P))) {
    if (auto *L = dyn_cast<LoadInst>(&I))
      LocalAccesses += L->getPointerAddressSpace() == 5;
    if (auto *S = dyn_cast<StoreInst>(&I))
      LocalAccesses += S->getPointerAddressSpace() == 5;
    Allocas += isa<AllocaInst>(I);
  }
  EXPECT_EQ(Allocas, 1u) << "-O0 still promotes scalars to SSA (mem2reg)";
  EXPECT_GE(LocalAccesses, 2u);
}

bool hasFlowBlock(Function &F) {
  for (BasicBlock &B : F)
    if (B.getName().starts_with("Flow"))
      return true;
  return false;
}

TEST(Prepare, DivergentIfAndLoopAreStructurized) {
  auto P = prepare(R"(
__global__ void k(int *o, int n) {
  int t = threadIdx.x, acc = 0;
  for (int i = 0; i < t; ++i) { if (o[i] > n) break; acc += o[i]; }
  if (t & 1) acc = o[acc]; else if (t & 2) acc += 3; else acc -= o[t];
  o[t] = acc;
})");
  ASSERT_EQ(P->Error, "");
  Function &F = onlyKernel(*P);
  EXPECT_TRUE(hasFlowBlock(F));
  DominatorTree DT(F);
  LoopInfo LI(DT);
  ASSERT_FALSE(LI.empty());
  for (Loop *L : LI.getLoopsInPreorder()) {
    EXPECT_NE(L->getExitBlock(), nullptr) << "a loop with more than one exit block";
    EXPECT_NE(L->getLoopLatch(), nullptr);
  }
  // Structurized: every block has at most two successors, and a block with
  // two ends in a conditional branch.
  for (BasicBlock &B : F)
    EXPECT_LE(succ_size(&B), 2u);
}

TEST(Prepare, UniformBranchesAreNotStructurized) {
  auto P = prepare(R"(
__global__ void k(int *o, int n) {
  int acc = 0;
  if (n > 3) acc = o[n]; else if (n < -5) acc = 7;
  for (int i = 0; i < n; ++i) { if (o[i] == n) break; acc += o[i]; }
  o[threadIdx.x] = acc;
})");
  ASSERT_EQ(P->Error, "");
  EXPECT_FALSE(hasFlowBlock(onlyKernel(*P)));
}

TEST(Prepare, MathFunctionsAreInlinedLeavingOnlyIntrinsics) {
  auto P = prepare(R"(
__global__ void k(float *o) { o[threadIdx.x] = expf(o[0]) + powf(o[1], o[2]) + sinf(o[3]); }
)");
  ASSERT_EQ(P->Error, "");
  for (Instruction &I : instructions(onlyKernel(*P)))
    if (auto *Call = dyn_cast<CallBase>(&I)) {
      ASSERT_NE(Call->getCalledFunction(), nullptr);
      EXPECT_TRUE(Call->getCalledFunction()->isIntrinsic())
          << Call->getCalledFunction()->getName().str();
      EXPECT_NE(Call->getCalledFunction()->getIntrinsicID(), Intrinsic::is_fpclass);
    }
  // Only the kernel is left.
  unsigned Defined = 0;
  for (Function &F : *P->M)
    Defined += !F.isDeclaration();
  EXPECT_EQ(Defined, 1u);
}

TEST(Prepare, DoubleIsAnErrorWithFunctionAndLine) {
  auto P = prepare("__global__ void dbl(double *o, float x) {\n"
                   "  o[threadIdx.x] = x * 3.0;\n}\n");
  EXPECT_NE(P->Error.find("kernel 'dbl(double*, float)'"), std::string::npos) << P->Error;
  EXPECT_NE(P->Error.find(":2:"), std::string::npos) << P->Error;
  EXPECT_NE(P->Error.find("f64"), std::string::npos) << P->Error;
}

TEST(Prepare, RecursionIsAnErrorWithFunctionAndLine) {
  auto P = prepare("__device__ int fact(int n) {\n"
                   "  return n <= 1 ? 1 : n * fact(n - 1);\n}\n"
                   "__global__ void k(int *o) { o[threadIdx.x] = fact(threadIdx.x); }\n");
  EXPECT_NE(P->Error.find("'fact(int)'"), std::string::npos) << P->Error;
  EXPECT_NE(P->Error.find(":2:"), std::string::npos) << P->Error;
  EXPECT_NE(P->Error.find("recursi"), std::string::npos) << P->Error;
}

TEST(Prepare, DeviceGlobalsAreReported) {
  auto P = prepare("__device__ int counter;\n"
                   "__global__ void k(int *o) { o[threadIdx.x] = counter; }\n");
  EXPECT_NE(P->Error.find("counter"), std::string::npos) << P->Error;
  EXPECT_NE(P->Error.find("__shared__"), std::string::npos) << P->Error;
}

TEST(Prepare, VectorsAreScalarized) {
  auto P = prepare(R"(
__global__ void k(float4 *v, float2 *w) {
  float4 a = v[threadIdx.x]; float2 b = w[threadIdx.x];
  v[threadIdx.x] = make_float4(a.w + b.x, a.z, a.y * b.y, a.x);
})");
  ASSERT_EQ(P->Error, "");
  for (Instruction &I : instructions(onlyKernel(*P))) {
    EXPECT_FALSE(I.getType()->isVectorTy());
    for (Value *Op : I.operands())
      EXPECT_FALSE(Op->getType()->isVectorTy());
  }
}

TEST(Prepare, PrintAfterPrintsNamedPassesAndTheEnd) {
  std::string Text;
  raw_string_ostream OS(Text);
  isel::PrepareOptions Opts;
  Opts.PrintAfter = {"instcombine", "structurizecfg", "prepare"};
  Opts.PrintStream = &OS;
  auto P = prepare("__global__ void k(int *o) { o[threadIdx.x] = 1; }\n", 2, Opts);
  ASSERT_EQ(P->Error, "");
  EXPECT_NE(Text.find("IR Dump After instcombine"), std::string::npos);
  EXPECT_NE(Text.find("IR Dump After structurizecfg"), std::string::npos);
  EXPECT_NE(Text.find("IR Dump After prepare"), std::string::npos);
  EXPECT_EQ(Text.find("IR Dump After sroa"), std::string::npos);
}

} // namespace
