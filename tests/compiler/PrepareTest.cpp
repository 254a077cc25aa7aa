//===- PrepareTest.cpp - the guarantees of isel/Prepare -------------------===//
//
// Each test compiles a small CUDA kernel through the front end, prepares it
// and checks one guarantee of Prepare.h on the resulting IR.
//
//===----------------------------------------------------------------------===//

#include "Issue137277Source.h"
#include "Iss.h"
#include "compiler/Compiler.h"
#include "frontend/Frontend.h"
#include "isel/Prepare.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>

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

std::string printed(const Value &V) {
  std::string Text;
  raw_string_ostream OS(Text);
  V.print(OS);
  return Text;
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

TEST(Prepare, FlowPhisOfOneValueAndUndefAreThatValue) {
  // spmv_merge's loop: StructurizeCFG gives the Flow block between the two
  // sides phis like [%nz, %if.else], [undef, %for.body]; %nz dominates the
  // Flow block, so the phi is %nz (no copy inside the region on simt).
  auto P = prepare(R"(
__global__ void k(const int *rowEnd, const float *v, float *y, int begin, int end, int row, int nz) {
  float sum = 0.0f;
  for (int item = begin + threadIdx.x; item < end; ++item) {
    if (nz < rowEnd[row]) { sum += v[nz]; ++nz; }
    else { y[row] = sum; sum = 0.0f; ++row; }
  }
  y[threadIdx.x] = sum + row;
})");
  ASSERT_EQ(P->Error, "");
  Function &F = onlyKernel(*P);
  ASSERT_TRUE(hasFlowBlock(F));
  DominatorTree DT(F);
  LoopInfo LI(DT);
  for (BasicBlock &B : F)
    for (PHINode &Phi : B.phis()) {
      SmallPtrSet<Value *, 2> Values;
      bool Undef = false;
      for (Value *In : Phi.incoming_values())
        isa<UndefValue>(In) ? void(Undef = true) : void(Values.insert(In));
      if (!Undef || Values.size() != 1)
        continue;
      Value *X = *Values.begin();
      auto *I = dyn_cast<Instruction>(X);
      bool Foldable = !I || (DT.dominates(I, &Phi) && (!LI.getLoopFor(I->getParent()) ||
                                                       LI.getLoopFor(I->getParent())->contains(&B)));
      EXPECT_FALSE(Foldable) << "left: " << printed(Phi);
    }
}

TEST(Prepare, FlowPhisAgreeingWithASiblingOrOfOneValueAreFolded) {
  // divergent's loop: StructurizeCFG gives a Flow block
  // `%a = phi [%or, %then], [undef, %body]` beside
  // `%b = phi [%or, %then], [%acc, %body]`, and the next Flow block a phi of
  // %a and %b; %a is %b wherever it is defined, and the next phi then
  // merges %b alone. Both are folded (simt: fewer copies, one register).
  auto P = prepare(R"(
__global__ void k(const unsigned *in, unsigned *out) {
  unsigned x = in[threadIdx.x], acc = 1, trips = (x >> 3) & 31;
  for (unsigned k = 0; k < trips; ++k) {
    if ((acc ^ k) & 4) acc += k * x; else acc -= k;
    if ((acc & 0xff) == 0x42) continue;
    acc = (acc << 1) | (acc >> 31);
    if (acc > 0xF0000000u) break;
  }
  out[threadIdx.x] = acc;
})");
  ASSERT_EQ(P->Error, "");
  Function &F = onlyKernel(*P);
  ASSERT_TRUE(hasFlowBlock(F));
  auto Agrees = [](PHINode &A, PHINode &B) { // A is B wherever A is defined
    bool Undef = false;
    for (unsigned I = 0; I < A.getNumIncomingValues(); ++I) {
      Value *In = A.getIncomingValue(I);
      if (isa<UndefValue>(In))
        Undef = true;
      else if (In != B.getIncomingValueForBlock(A.getIncomingBlock(I)))
        return false;
    }
    return Undef;
  };
  DominatorTree DT(F);
  LoopInfo LI(DT);
  for (BasicBlock &B : F)
    for (PHINode &Phi : B.phis()) {
      for (PHINode &Other : B.phis())
        EXPECT_FALSE(&Other != &Phi && Agrees(Phi, Other))
            << "left: " << printed(Phi) << " beside " << printed(Other);
      // One value (undef aside) that dominates the phi, from no loop the
      // phi is outside of (LCSSA phis stay).
      SmallPtrSet<Value *, 2> Values;
      for (Value *In : Phi.incoming_values())
        if (!isa<UndefValue>(In))
          Values.insert(In);
      auto *I = Values.size() == 1 ? dyn_cast<Instruction>(*Values.begin()) : nullptr;
      Loop *DefLoop = I ? LI.getLoopFor(I->getParent()) : nullptr;
      EXPECT_FALSE(I && DT.dominates(I, &Phi) && (!DefLoop || DefLoop->contains(&B)))
          << "left: " << printed(Phi);
    }
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

TEST(Prepare, WritableDeviceGlobalsAreAcceptedOnBothTargets) {
  // simt places them in the image's data section (ConstLayout.h), ptx in
  // .global; loads, stores and atomics all reach them as global memory.
  const char *Source =
      "__device__ unsigned counter;\n"
      "__device__ int table[4] = {1, 2, 3, 4};\n"
      "__global__ void k(int *o) {\n"
      "  unsigned slot = atomicAdd(&counter, 1u);\n"
      "  table[threadIdx.x % 4] += 1;\n"
      "  o[threadIdx.x] = table[slot % 4];\n"
      "}\n";
  for (isel::PrepTarget T : {isel::PrepTarget::Simt, isel::PrepTarget::Ptx}) {
    isel::PrepareOptions Opts;
    Opts.Target = T;
    auto P = prepare(Source, 2, Opts);
    EXPECT_EQ(P->Error, "");
    ASSERT_TRUE(P->M);
    for (const char *Name : {"counter", "table"}) {
      const GlobalVariable *G = P->M->getNamedGlobal(Name);
      ASSERT_NE(G, nullptr) << Name;
      EXPECT_EQ(G->getAddressSpace(), 1u) << Name;
      // Every access names the variable's address space, none is generic.
      for (const User *U : G->users()) {
        if (const auto *L = dyn_cast<LoadInst>(U)) {
          EXPECT_EQ(L->getPointerAddressSpace(), 1u) << Name;
        }
      }
    }
  }
}

TEST(Prepare, ConstantGlobalsAreAcceptedOnBothTargets) {
  const char *Source =
      "__constant__ int table[4] = {1, 2, 3, 4};\n"
      "__global__ void k(int *o) { o[threadIdx.x] = table[threadIdx.x % 4]; }\n";
  for (isel::PrepTarget T : {isel::PrepTarget::Simt, isel::PrepTarget::Ptx}) {
    isel::PrepareOptions Opts;
    Opts.Target = T;
    auto P = prepare(Source, 2, Opts);
    EXPECT_EQ(P->Error, "");
    ASSERT_TRUE(P->M);
    const GlobalVariable *G = P->M->getNamedGlobal("table");
    ASSERT_NE(G, nullptr);
    EXPECT_EQ(G->getAddressSpace(), 4u);
  }
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

//===----------------------------------------------------------------------===//
// simt expansions, checked by running the compiled kernel on iss against
// the host: out[i] = f(a[i], b[i]) over 64-bit (or float) operands chosen to
// hit the edges (zero, one, signs, 32-bit boundaries, extremes) and at random.
//===----------------------------------------------------------------------===//

/// Compiles \p Source (one kernel k(out, a, b) over 64-bit words) and runs it
/// on iss with one thread per element; returns out, or fails the test.
std::vector<uint64_t> runOnIss(StringRef Source, const std::vector<uint64_t> &A,
                               const std::vector<uint64_t> &B,
                               const compiler::CompileOptions &Opts = {}) {
  SmallString<128> Path;
  EXPECT_FALSE(sys::fs::createTemporaryFile("prepare-run", "cu", Path));
  {
    std::error_code EC;
    raw_fd_ostream OS(Path, EC);
    OS << Source;
  }
  auto R = compiler::compileFile(Path, Opts);
  sys::fs::remove(Path);
  if (!R) {
    ADD_FAILURE() << toString(R.takeError());
    return {};
  }
  auto Mem = iss::DeviceMemory::create(1 << 20);
  if (!Mem) {
    ADD_FAILURE() << toString(Mem.takeError());
    return {};
  }
  DeviceOptions DevOpts;
  iss::Simulator Sim(DevOpts, **Mem);
  if (Error E = Sim.loadImage(*R->Image)) {
    ADD_FAILURE() << toString(std::move(E));
    return {};
  }
  size_t Bytes = A.size() * 8;
  auto Upload = [&](const std::vector<uint64_t> &V) -> uint32_t {
    Expected<uint32_t> P = (*Mem)->alloc(Bytes);
    if (!P) {
      ADD_FAILURE() << toString(P.takeError());
      return 0;
    }
    EXPECT_FALSE(bool((*Mem)->copyIn(*P, ArrayRef(reinterpret_cast<const uint8_t *>(V.data()), Bytes))));
    return *P;
  };
  std::vector<uint64_t> Out(A.size(), 0xdeadbeefdeadbeefull);
  uint32_t POut = Upload(Out), PA = Upload(A), PB = Upload(B);
  LaunchParams L;
  L.Kernel = "k";
  L.Grid = {uint32_t((A.size() + 63) / 64), 1, 1};
  L.Block = {64, 1, 1};
  L.Args = {KernelArg::ptr(POut), KernelArg::ptr(PA), KernelArg::ptr(PB),
            KernelArg::u32(uint32_t(A.size()))};
  Counters C;
  if (Error E = Sim.launch(L, C)) {
    ADD_FAILURE() << toString(std::move(E));
    return {};
  }
  EXPECT_FALSE(bool((*Mem)->copyOut(MutableArrayRef(reinterpret_cast<uint8_t *>(Out.data()), Bytes), POut)));
  return Out;
}

/// Pairs of 64-bit operands: every pair of edge values, then random ones of
/// random widths (so both the 32-bit fast path and the loop run, and lanes
/// of one warp diverge between them).
void operandPairs(std::vector<uint64_t> &A, std::vector<uint64_t> &B) {
  const uint64_t Edges[] = {0, 1, 2, 3, 7, 0xffffffffull, 0x100000000ull, 0x100000001ull,
                            0x7fffffffffffffffull, 0x8000000000000000ull, ~0ull, ~0ull - 1,
                            0x123456789abcdef0ull, 0xfffffffe00000000ull};
  for (uint64_t X : Edges)
    for (uint64_t Y : Edges) {
      A.push_back(X);
      B.push_back(Y);
    }
  std::mt19937_64 Rng(20261201);
  for (int K = 0; K < 636; ++K) { // 832 pairs in all: 13 full blocks of 64
    auto Draw = [&] { return Rng() >> (Rng() % 64); };
    A.push_back(K % 3 ? Draw() : ~Draw());
    B.push_back(K % 5 ? Draw() : ~Draw());
  }
}

/// Runs \p Source's kernel `k` on the iss over the operand pairs (A, B)
/// and expects each output word to be Want(a, b), naming the first five
/// that are not; pairs \p Undefined accepts (C leaves their result
/// undefined) are not checked.
void expectIssWords(const std::string &Source, const std::vector<uint64_t> &A,
                    const std::vector<uint64_t> &B,
                    function_ref<uint64_t(uint64_t, uint64_t)> Want,
                    function_ref<bool(uint64_t, uint64_t)> Undefined = nullptr) {
  std::vector<uint64_t> Out = runOnIss(Source, A, B);
  ASSERT_EQ(Out.size(), A.size());
  unsigned Wrong = 0;
  for (size_t K = 0; K < A.size(); ++K) {
    if (Undefined && Undefined(A[K], B[K]))
      continue;
    uint64_t W = Want(A[K], B[K]);
    if (Out[K] != W && ++Wrong <= 5)
      ADD_FAILURE() << std::hex << A[K] << ", " << B[K] << ": got " << Out[K] << ", want " << W;
  }
  EXPECT_EQ(Wrong, 0u);
}

TEST(Prepare, Division64IsExpandedAndComputesCsResults) {
  auto P = prepare(R"(
__global__ void k(unsigned long long *o, unsigned long long *a, unsigned long long *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) o[i] = a[i] / b[i];
})");
  ASSERT_EQ(P->Error, "");
  for (Instruction &I : instructions(onlyKernel(*P)))
    EXPECT_FALSE(I.getOpcode() == Instruction::UDiv && I.getType()->isIntegerTy(64)) << printed(I);

  std::vector<uint64_t> A, B;
  operandPairs(A, B);
  struct Case {
    const char *Type, *Op;
    uint64_t (*Ref)(uint64_t, uint64_t);
  };
  const Case Cases[] = {
      {"unsigned long long", "/", [](uint64_t X, uint64_t Y) { return X / Y; }},
      {"unsigned long long", "%", [](uint64_t X, uint64_t Y) { return X % Y; }},
      {"long long", "/", [](uint64_t X, uint64_t Y) { return uint64_t(int64_t(X) / int64_t(Y)); }},
      {"long long", "%", [](uint64_t X, uint64_t Y) { return uint64_t(int64_t(X) % int64_t(Y)); }},
  };
  for (const Case &C : Cases) {
    SCOPED_TRACE(std::string(C.Type) + " " + C.Op);
    std::string T = C.Type;
    std::string Source = "__global__ void k(" + T + " *o, " + T + " *a, " + T + " *b, int n) {\n"
                         "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                         "  if (i < n) o[i] = a[i] " + C.Op + " b[i];\n}\n";
    expectIssWords(Source, A, B, C.Ref, [&](uint64_t X, uint64_t Y) {
      return Y == 0 || (T == "long long" && X == 0x8000000000000000ull && Y == ~0ull);
    });
  }
}

TEST(Prepare, SignedDivisionByAPowerOfTwoIsShiftsThatRoundTowardZero) {
  // No sdiv by 2^k is left for either target; on the iss the shifts give
  // C's quotients (rounded toward zero) on every edge value, at 32 and 64
  // bits, for small and large k, and `exact` divisions are plain shifts.
  for (isel::PrepTarget T : {isel::PrepTarget::Simt, isel::PrepTarget::Ptx}) {
    isel::PrepareOptions Opts;
    Opts.Target = T;
    auto P = prepare(R"(
__global__ void k(long long *o, long long *a, int *b) {
  int i = threadIdx.x;
  o[i] = a[i] / 8 + b[i] / 2 + b[i] / (1 << 30);
})", 2, Opts);
    ASSERT_EQ(P->Error, "");
    for (Instruction &I : instructions(onlyKernel(*P)))
      EXPECT_NE(I.getOpcode(), Instruction::SDiv) << printed(I);
  }
  std::vector<uint64_t> A, B;
  operandPairs(A, B);
  struct Case {
    const char *Expr;
    uint64_t (*Ref)(uint64_t);
  };
  const Case Cases[] = {
      {"(int)a[i] / 2", [](uint64_t X) { return uint64_t(int64_t(int32_t(X) / 2)); }},
      {"(int)a[i] / 16", [](uint64_t X) { return uint64_t(int64_t(int32_t(X) / 16)); }},
      {"(int)a[i] / (1 << 30)",
       [](uint64_t X) { return uint64_t(int64_t(int32_t(X) / (1 << 30))); }},
      {"a[i] / 2", [](uint64_t X) { return uint64_t(int64_t(X) / 2); }},
      {"a[i] / 1024", [](uint64_t X) { return uint64_t(int64_t(X) / 1024); }},
      {"a[i] / (1ll << 40)", [](uint64_t X) { return uint64_t(int64_t(X) / (1ll << 40)); }},
      {"a[i] / (1ll << 62)", [](uint64_t X) { return uint64_t(int64_t(X) / (1ll << 62)); }},
      // A multiple of 8 divided by 8: InstCombine marks it exact.
      {"(a[i] << 3) / 8", [](uint64_t X) { return uint64_t(int64_t(X << 3) / 8); }},
  };
  for (const Case &C : Cases) {
    SCOPED_TRACE(C.Expr);
    std::string Source = std::string("__global__ void k(long long *o, long long *a, long long *b, "
                                     "int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                     "  if (i < n) o[i] = ") +
                         C.Expr + ";\n}\n";
    expectIssWords(Source, A, B, [&](uint64_t X, uint64_t) { return C.Ref(X); });
  }
}

/// A kernel `k` for expectIssWords whose word i is \p Expr, after \p Decl
/// (which declares what Expr reads from a[i]).
std::string wordKernel(const std::string &Decl, const std::string &Expr) {
  return "__global__ void k(unsigned long long *o, unsigned long long *a, "
         "unsigned long long *b, int n) {\n"
         "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  " +
         Decl + "\n  if (i < n) o[i] = " + Expr + ";\n}\n";
}

/// Dividends for division by the constants of the tests below: for each
/// divisor d, multiples of it and their neighbours up to the largest below
/// 2^32, signed ones around 0 and the extremes, and random words.
std::vector<uint64_t> dividendsFor(ArrayRef<int64_t> Divisors) {
  std::vector<uint64_t> A = {0, 1, 2, 0x7fffffff, 0x80000000, 0x80000001, 0xfffffffe, 0xffffffff};
  for (int64_t D : Divisors) {
    uint64_t Abs = uint64_t(D < 0 ? -D : D), Top = 0xffffffffull / Abs;
    for (uint64_t K : {uint64_t(1), uint64_t(2), uint64_t(3), uint64_t(77), Top / 2, Top - 1, Top})
      for (uint64_t M : {K * Abs - 1, K * Abs, K * Abs + 1}) {
        A.push_back(M & 0xffffffff);
        A.push_back(uint32_t(0u - uint32_t(M))); // its negation as a 32-bit word
      }
  }
  std::mt19937_64 Rng(20261202);
  while (A.size() % 64 || A.size() < 1024)
    A.push_back(Rng() >> (Rng() % 64));
  return A;
}

TEST(Prepare, DivisionByAConstantIsAMultiplyHighOnSimtAndMatchesC) {
  // simt has no i32 udiv/urem/sdiv/srem by a constant left (multiply-high
  // and shifts instead of the SFU's 34-cycle divide); ptx keeps them (ptxas
  // expands them). On the iss every quotient and remainder is C's, for
  // divisors that need the 33-bit magic (7, 7919), a pre-shift (14), large
  // ones, and negative ones.
  auto Divisions = [](Prepared &P) {
    unsigned N = 0;
    for (Instruction &I : instructions(onlyKernel(P)))
      N += (I.getOpcode() == Instruction::UDiv || I.getOpcode() == Instruction::URem ||
            I.getOpcode() == Instruction::SDiv || I.getOpcode() == Instruction::SRem) &&
           isa<ConstantInt>(I.getOperand(1));
    return N;
  };
  const char *Both = R"(
__global__ void k(unsigned *o, unsigned *a, int *b) {
  int i = threadIdx.x;
  o[i] = a[i] / 7 + a[i] % 10 + b[i] / 3 + b[i] % -641;
})";
  for (isel::PrepTarget T : {isel::PrepTarget::Simt, isel::PrepTarget::Ptx}) {
    isel::PrepareOptions Opts;
    Opts.Target = T;
    auto P = prepare(Both, 2, Opts);
    ASSERT_EQ(P->Error, "");
    EXPECT_EQ(Divisions(*P), T == isel::PrepTarget::Simt ? 0u : 4u);
  }

  const int64_t Unsigned[] = {3,  6,   7,    10,   11,         13,         14,
                              25, 641, 1000, 7919, 0x7fffffff, 0x12345678, 0x80000001};
  const int64_t Signed[] = {3, -3, 6, -6, 7, -7, 10, 125, 641, -641, 0x7fffffff, -0x7fffffff};
  std::vector<int64_t> All(std::begin(Unsigned), std::end(Unsigned));
  All.insert(All.end(), std::begin(Signed), std::end(Signed));
  std::vector<uint64_t> A = dividendsFor(All), B(A.size(), 0);
  for (int64_t D : Unsigned) {
    SCOPED_TRACE("unsigned / and % " + std::to_string(D));
    std::string C = std::to_string(D) + "u";
    // Quotient in the high word, remainder in the low one.
    std::string Source =
        wordKernel("unsigned x = (unsigned)a[i];",
                   "((unsigned long long)(x / " + C + ") << 32) | (x % " + C + ")");
    expectIssWords(Source, A, B, [&](uint64_t X, uint64_t) {
      uint32_t V = uint32_t(X), U = uint32_t(D);
      return (uint64_t(V / U) << 32) | (V % U);
    });
  }
  // InstCombine narrows `(unsigned short)x % 9` to an i16 urem (const_conv's
  // `% 9`), and char/short divisions to i8/i16 ones: divided as i32.
  struct Narrow {
    const char *Expr;
    uint64_t (*Ref)(uint32_t);
  };
  const Narrow Narrows[] = {
      {"(unsigned short)x % 9", [](uint32_t V) { return uint64_t(uint16_t(V) % 9); }},
      {"(unsigned short)x / 7", [](uint32_t V) { return uint64_t(uint16_t(V) / 7); }},
      {"(unsigned char)x / 3", [](uint32_t V) { return uint64_t(uint8_t(V) / 3); }},
      {"(unsigned)((short)x / 5)", [](uint32_t V) { return uint64_t(uint32_t(int16_t(V) / 5)); }},
      {"(unsigned)((signed char)x % -3)",
       [](uint32_t V) { return uint64_t(uint32_t(int8_t(V) % -3)); }},
  };
  for (const Narrow &C : Narrows) {
    SCOPED_TRACE(C.Expr);
    std::string Source = wordKernel("unsigned x = (unsigned)a[i];", C.Expr);
    expectIssWords(Source, A, B, [&](uint64_t X, uint64_t) { return C.Ref(uint32_t(X)); });
  }
  for (int64_t D : Signed) {
    SCOPED_TRACE("signed / and % " + std::to_string(D));
    std::string C = "(" + std::to_string(D) + ")";
    std::string Source =
        wordKernel("int x = (int)a[i];", "((unsigned long long)(unsigned)(x / " + C +
                                             ") << 32) | (unsigned)(x % " + C + ")");
    expectIssWords(Source, A, B, [&](uint64_t X, uint64_t) {
      int32_t V = int32_t(uint32_t(X)), S = int32_t(D);
      return (uint64_t(uint32_t(V / S)) << 32) | uint32_t(V % S);
    });
  }
}

TEST(Prepare, DivisibilityTestsAreAMultiplyAndACompare) {
  // `x % C == 0` (C odd or even, not a power of two) is folded on both
  // targets when nothing else reads the remainder: no urem is left. On the
  // iss each test agrees with C's, on multiples, their neighbours and
  // random words, at 32 and 64 bits, for == and !=.
  for (isel::PrepTarget T : {isel::PrepTarget::Simt, isel::PrepTarget::Ptx}) {
    isel::PrepareOptions Opts;
    Opts.Target = T;
    auto P = prepare(R"(
__global__ void k(unsigned *o, unsigned *a, unsigned long long *b) {
  int i = threadIdx.x;
  o[i] = (a[i] % 11 == 0) + (a[i] % 24 != 0) + (b[i] % 1000000007ull == 0);
})",
                     2, Opts);
    ASSERT_EQ(P->Error, "");
    for (Instruction &I : instructions(onlyKernel(*P)))
      EXPECT_NE(I.getOpcode(), Instruction::URem) << printed(I);
  }
  // A remainder that is also stored stays (the fold would not save it; on
  // ptx, where divisions by constants are ptxas's, it is still a urem).
  {
    isel::PrepareOptions Opts;
    Opts.Target = isel::PrepTarget::Ptx;
    auto P = prepare(R"(
__global__ void k(unsigned *o, unsigned *a) {
  int i = threadIdx.x;
  unsigned r = a[i] % 11;
  o[i] = r == 0 ? 5 : r;
})",
                     2, Opts);
    ASSERT_EQ(P->Error, "");
    unsigned Rems = 0;
    for (Instruction &I : instructions(onlyKernel(*P)))
      Rems += I.getOpcode() == Instruction::URem;
    EXPECT_EQ(Rems, 1u);
  }

  const int64_t Divisors32[] = {3, 6, 11, 24, 641, 1000, 0x7fffffff, 0x12345678};
  std::vector<uint64_t> A = dividendsFor(Divisors32), B(A.size(), 0);
  std::string Bits32, Bits64;
  for (size_t K = 0; K < std::size(Divisors32); ++K) {
    std::string C = std::to_string(Divisors32[K]) + "u";
    Bits32 += " | ((unsigned long long)(x % " + C + " == 0) << " + std::to_string(2 * K) + ")";
    Bits32 += " | ((unsigned long long)(x % " + C + " != 0) << " + std::to_string(2 * K + 1) + ")";
  }
  // 64 bits: multiples of 12 and of a large odd divisor among the words.
  const uint64_t Divisors64[] = {12, 1000000007ull, 0x123456789ull};
  for (uint64_t D : Divisors64)
    for (uint64_t K : {uint64_t(1), uint64_t(5), uint64_t(123456789), uint64_t(~0ull / D)})
      for (uint64_t M : {K * D - 1, K * D, K * D + 1})
        A.push_back(M);
  while (A.size() % 64)
    A.push_back(A.size() * 0x9e3779b97f4a7c15ull);
  B.resize(A.size(), 0);
  for (size_t K = 0; K < std::size(Divisors64); ++K)
    Bits64 += " | ((unsigned long long)(a[i] % " + std::to_string(Divisors64[K]) + "ull == 0) << " +
              std::to_string(32 + K) + ")";
  std::string Source = wordKernel("unsigned x = (unsigned)a[i];", "0" + Bits32 + Bits64);
  expectIssWords(Source, A, B, [&](uint64_t X, uint64_t) {
    uint64_t W = 0;
    uint32_t V = uint32_t(X);
    for (size_t K = 0; K < std::size(Divisors32); ++K) {
      W |= uint64_t(V % uint32_t(Divisors32[K]) == 0) << (2 * K);
      W |= uint64_t(V % uint32_t(Divisors32[K]) != 0) << (2 * K + 1);
    }
    for (size_t K = 0; K < std::size(Divisors64); ++K)
      W |= uint64_t(X % Divisors64[K] == 0) << (32 + K);
    return W;
  });
}

TEST(Prepare, AddressesShareRowsAndReuseADominatingElement) {
  // block_reduce's `s[t + st]` beside `s[t]`: `&s[t] + st`, the add gone;
  // scan_blocks' `buf[src][t]` and `buf[src][t - off]`: one `&buf[src]`
  // for both, and no GEP left with two variable indices. Both targets (the
  // suite runs both kernels against their references on iss and rtl).
  const char *Source = R"(
__global__ void reduce(float *o) {
  __shared__ float s[256];
  unsigned t = threadIdx.x;
  s[t] = o[t];
  __syncthreads();
  for (unsigned st = blockDim.x / 2; st > 0; st >>= 1) {
    if (t < st)
      s[t] += s[t + st];
    __syncthreads();
  }
  o[t] = s[t];
}
__global__ void scan(unsigned *o) {
  __shared__ unsigned buf[2][256];
  unsigned t = threadIdx.x;
  int src = 0;
  buf[0][t] = o[t];
  __syncthreads();
  for (unsigned off = 1; off < blockDim.x; off <<= 1) {
    unsigned v = buf[src][t];
    if (t >= off)
      v += buf[src][t - off];
    buf[1 - src][t] = v;
    src = 1 - src;
    __syncthreads();
  }
  o[t] = buf[src][t];
})";
  for (isel::PrepTarget T : {isel::PrepTarget::Simt, isel::PrepTarget::Ptx}) {
    SCOPED_TRACE(T == isel::PrepTarget::Simt ? "simt" : "ptx");
    isel::PrepareOptions Opts;
    Opts.Target = T;
    auto P = prepare(Source, 2, Opts);
    ASSERT_EQ(P->Error, "");
    for (Function &F : P->M->functions()) {
      if (F.isDeclaration())
        continue;
      unsigned GepOfGep = 0, SharedPrefixes = 0;
      for (Instruction &I : instructions(F)) {
        auto *G = dyn_cast<GetElementPtrInst>(&I);
        if (!G)
          continue;
        unsigned Variable = 0;
        for (Value *Idx : G->indices())
          Variable += !isa<Constant>(Idx);
        EXPECT_LT(Variable, 2u) << printed(*G);
        GepOfGep += isa<GetElementPtrInst>(G->getPointerOperand());
        unsigned GepUsers = 0;
        for (User *U : G->users())
          GepUsers += isa<GetElementPtrInst>(U);
        SharedPrefixes += GepUsers >= 2;
      }
      if (F.getName().contains("reduce")) {
        EXPECT_GE(GepOfGep, 1u) << "s[t + st] is not &s[t] + st";
        for (Instruction &I : instructions(F)) {
          auto *Add = dyn_cast<BinaryOperator>(&I);
          if (!Add || Add->getOpcode() != Instruction::Add)
            continue;
          for (User *U : Add->users())
            EXPECT_FALSE(isa<GetElementPtrInst>(U) || isa<CastInst>(U)) << printed(*Add);
        }
      } else {
        EXPECT_GE(SharedPrefixes, 1u) << "buf[src][t] and buf[src][t - off] do not share &buf[src]";
      }
    }
  }
}

TEST(Prepare, SaturatingArithmeticIsExpandedAndClampsAsC) {
  // C's clamping idioms become llvm.{u,s}{add,sub}.sat in InstCombine;
  // preparation expands them for both targets (no pattern selects them),
  // and on the iss the expansion clamps as the C source does, at 8, 32 and
  // 64 bits, on every edge value.
  const char *Idioms = R"(
__global__ void k(unsigned *o, const unsigned *a, const unsigned *b, int *s, const int *x,
                  const int *y) {
  int i = threadIdx.x;
  o[i] = a[i] > b[i] ? a[i] - b[i] : 0;
  unsigned t = a[i] + b[i];
  o[i + 64] = t < a[i] ? 0xffffffffu : t;
  long long w = (long long)x[i] + y[i];
  s[i] = w > 2147483647 ? 2147483647 : w < -2147483648ll ? (int)-2147483648ll : (int)w;
})";
  for (isel::PrepTarget T : {isel::PrepTarget::Simt, isel::PrepTarget::Ptx}) {
    std::string Optimized;
    raw_string_ostream OS(Optimized);
    isel::PrepareOptions Opts;
    Opts.Target = T;
    Opts.PrintAfter = {"instcombine"};
    Opts.PrintStream = &OS;
    auto P = prepare(Idioms, 2, Opts);
    ASSERT_EQ(P->Error, "");
    for (const char *Name : {"llvm.usub.sat", "llvm.uadd.sat", "llvm.sadd.sat"})
      EXPECT_NE(Optimized.find(Name), std::string::npos) << Name << " was not formed";
    for (Instruction &I : instructions(onlyKernel(*P))) {
      if (auto *II = dyn_cast<IntrinsicInst>(&I)) {
        EXPECT_EQ(II->getCalledFunction()->getName().find(".sat."), StringRef::npos)
            << printed(I);
      }
    }
  }
  std::vector<uint64_t> A, B;
  operandPairs(A, B);
  const int64_t IntMax = 2147483647, IntMin = -IntMax - 1;
  auto Clamp32 = [&](int64_t W) { return uint64_t(W > IntMax ? IntMax : W < IntMin ? IntMin : W); };
  struct Case {
    const char *Intrinsic; ///< what InstCombine makes of Expr (null: no claim)
    const char *Expr;
    std::function<uint64_t(uint64_t, uint64_t)> Ref;
  };
  const Case Cases[] = {
      {"llvm.usub.sat.i32", "({ unsigned x = (unsigned)a[i], y = (unsigned)b[i]; x > y ? x - y : 0u; })",
       [](uint64_t X, uint64_t Y) { return uint64_t(uint32_t(X) > uint32_t(Y) ? uint32_t(X) - uint32_t(Y) : 0u); }},
      {"llvm.uadd.sat.i32",
       "({ unsigned t = (unsigned)a[i] + (unsigned)b[i]; t < (unsigned)a[i] ? 0xffffffffu : t; })",
       [](uint64_t X, uint64_t Y) {
         uint32_t T = uint32_t(X) + uint32_t(Y);
         return uint64_t(T < uint32_t(X) ? 0xffffffffu : T);
       }},
      {"llvm.usub.sat.i64",
       "(unsigned long long)a[i] > (unsigned long long)b[i] ? (unsigned long long)a[i] - "
       "(unsigned long long)b[i] : 0ull",
       [](uint64_t X, uint64_t Y) { return X > Y ? X - Y : 0; }},
      // (i8: InstCombine keeps this one a compare and select at -O2.)
      {nullptr,
       "({ unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i]; "
       "x > y ? (unsigned char)(x - y) : 0; })",
       [](uint64_t X, uint64_t Y) {
         return uint64_t(uint8_t(X) > uint8_t(Y) ? uint8_t(uint8_t(X) - uint8_t(Y)) : 0);
       }},
      {"llvm.sadd.sat.i32",
       "({ int x = (int)a[i], y = (int)b[i]; long long w = (long long)x + y; "
       "w > 2147483647 ? 2147483647 : w < -2147483648ll ? (int)-2147483648ll : (int)w; })",
       [&](uint64_t X, uint64_t Y) {
         return uint64_t(int64_t(int32_t(Clamp32(int64_t(int32_t(X)) + int64_t(int32_t(Y))))));
       }},
      {"llvm.ssub.sat.i32",
       "({ int x = (int)a[i], y = (int)b[i]; long long w = (long long)x - y; "
       "w > 2147483647 ? 2147483647 : w < -2147483648ll ? (int)-2147483648ll : (int)w; })",
       [&](uint64_t X, uint64_t Y) {
         return uint64_t(int64_t(int32_t(Clamp32(int64_t(int32_t(X)) - int64_t(int32_t(Y))))));
       }},
  };
  for (const Case &C : Cases) {
    SCOPED_TRACE(C.Expr);
    std::string Source = std::string("__global__ void k(long long *o, long long *a, long long *b, "
                                     "int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                     "  if (i < n) o[i] = ") +
                         C.Expr + ";\n}\n";
    {
      std::string Optimized;
      raw_string_ostream OS(Optimized);
      isel::PrepareOptions Opts;
      Opts.PrintAfter = {"instcombine"};
      Opts.PrintStream = &OS;
      ASSERT_EQ(prepare(Source, 2, Opts)->Error, "");
      if (C.Intrinsic) {
        EXPECT_NE(Optimized.find(C.Intrinsic), std::string::npos)
            << C.Intrinsic << " was not formed";
      }
    }
    expectIssWords(Source, A, B, C.Ref);
  }
}

float floatOf(uint64_t Bits) {
  uint32_t W = uint32_t(Bits);
  float F;
  std::memcpy(&F, &W, 4);
  return F;
}

TEST(Prepare, Conversions64AreExpandedAndRoundAsC) {
  std::vector<uint64_t> A, B;
  operandPairs(A, B);
  // Integer -> float: a[i] is the integer; the float's bits come back.
  struct ToFloat {
    const char *Type;
    float (*Ref)(uint64_t);
  };
  for (const ToFloat &C : {ToFloat{"unsigned long long", [](uint64_t X) { return float(X); }},
                           ToFloat{"long long", [](uint64_t X) { return float(int64_t(X)); }}}) {
    SCOPED_TRACE(std::string(C.Type) + " -> float");
    std::string Source = std::string("__global__ void k(unsigned long long *o, ") + C.Type +
                         " *a, unsigned long long *b, int n) {\n"
                         "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                         "  if (i < n) o[i] = __float_as_uint((float)a[i]);\n}\n";
    std::vector<uint64_t> Out = runOnIss(Source, A, B);
    ASSERT_EQ(Out.size(), A.size());
    unsigned Wrong = 0;
    for (size_t K = 0; K < A.size(); ++K)
      if (floatOf(Out[K]) != C.Ref(A[K]) && ++Wrong <= 5)
        ADD_FAILURE() << std::hex << A[K] << ": got " << floatOf(Out[K]) << ", want " << C.Ref(A[K]);
    EXPECT_EQ(Wrong, 0u);
  }
  // Float -> integer: in-range floats (C leaves the rest undefined).
  std::vector<uint64_t> F;
  std::mt19937 Rng(7);
  for (size_t K = 0; K < A.size(); ++K) {
    float X = std::ldexp(float(Rng() % 0x1000000) / 0x1000000, int(Rng() % 66) - 2);
    if (K % 2)
      X = -X;
    uint32_t W;
    std::memcpy(&W, &X, 4);
    F.push_back(W);
  }
  struct FromFloat {
    const char *Type;
    uint64_t (*Ref)(float);
  };
  for (const FromFloat &C : {FromFloat{"unsigned long long", [](float X) { return uint64_t(std::fabs(X)); }},
                             FromFloat{"long long", [](float X) { return uint64_t(int64_t(X)); }}}) {
    SCOPED_TRACE(std::string("float -> ") + C.Type);
    bool Unsigned = std::string(C.Type) == "unsigned long long";
    std::string Source = std::string("__global__ void k(") + C.Type +
                         " *o, unsigned *a, unsigned long long *b, int n) {\n"
                         "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                         "  float x = __uint_as_float(a[2 * i]);\n"
                         "  if (i < n) o[i] = (" + C.Type + ")(" + (Unsigned ? "fabsf(x)" : "x") + ");\n}\n";
    std::vector<uint64_t> Out = runOnIss(Source, F, B);
    ASSERT_EQ(Out.size(), F.size());
    unsigned Wrong = 0;
    for (size_t K = 0; K < F.size(); ++K) {
      float X = floatOf(F[K]);
      if (!Unsigned && std::fabs(X) >= 0x1p63f)
        continue; // out of range for long long
      if (Out[K] != C.Ref(X) && ++Wrong <= 5)
        ADD_FAILURE() << X << ": got " << std::hex << Out[K] << ", want " << C.Ref(X);
    }
    EXPECT_EQ(Wrong, 0u);
  }
}

TEST(Prepare, AtomicsWithoutAnInstructionBecomeCasLoops) {
  auto P = prepare(R"(
__global__ void k(unsigned *o, unsigned *a) {
  atomicOr(o, a[threadIdx.x]);
  atomicAnd(o + 1, a[threadIdx.x]);
  atomicXor(o + 2, a[threadIdx.x]);
  atomicAdd(o + 3, a[threadIdx.x]);
})");
  ASSERT_EQ(P->Error, "");
  unsigned Cas = 0, Rmw = 0;
  for (Instruction &I : instructions(onlyKernel(*P))) {
    Cas += isa<AtomicCmpXchgInst>(I);
    if (auto *A = dyn_cast<AtomicRMWInst>(&I)) {
      ++Rmw;
      EXPECT_EQ(A->getOperation(), AtomicRMWInst::Add) << printed(I);
    }
  }
  EXPECT_EQ(Cas, 3u);
  EXPECT_EQ(Rmw, 1u);

  // Every thread of two blocks sets, clears and flips bits of shared words:
  // the results are order-independent, so exact.
  std::vector<uint64_t> A, B;
  operandPairs(A, B);
  std::string Source = R"(
__global__ void k(unsigned *o, unsigned *a, unsigned *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; // n is a multiple of 64
  unsigned x = a[2 * i];
  atomicOr(&o[0], x);
  atomicAnd(&o[1], x | (1u << (i % 32)));
  atomicXor(&o[2], x);
  __shared__ unsigned s;
  if (threadIdx.x == 0) s = 0;
  __syncthreads();
  atomicOr(&s, 1u << (threadIdx.x % 32));
  __syncthreads();
  if (threadIdx.x == 0) atomicXor(&o[3], s + blockIdx.x);
})";
  // o starts as 0xdeadbeef... (runOnIss poisons it); compute the reference
  // from that.
  std::vector<uint64_t> Out = runOnIss(Source, A, B);
  ASSERT_EQ(Out.size(), A.size());
  uint32_t Or = 0xdeadbeef, And = 0xdeadbeef, Xor = 0xdeadbeef, Blocks = 0xdeadbeef;
  for (size_t I = 0; I < A.size(); ++I) {
    uint32_t X = uint32_t(A[I]);
    Or |= X;
    And &= X | (1u << (I % 32));
    Xor ^= X;
  }
  for (uint32_t Blk = 0; Blk < (A.size() + 63) / 64; ++Blk)
    Blocks ^= 0xffffffffu + Blk; // all 32 bits set in every block of 64
  EXPECT_EQ(uint32_t(Out[0]), Or);
  EXPECT_EQ(uint32_t(Out[0] >> 32), And);
  EXPECT_EQ(uint32_t(Out[1]), Xor);
  EXPECT_EQ(uint32_t(Out[1] >> 32), Blocks);
}

//===----------------------------------------------------------------------===//
// Findings of the compiler fuzzer (docs/CompilerFuzzing.md), each compiled
// and run on iss against a host reference.
//===----------------------------------------------------------------------===//

compiler::CompileOptions atLevel(unsigned OptLevel, unsigned Registers = 32) {
  compiler::CompileOptions Opts;
  Opts.OptLevel = OptLevel;
  Opts.NumRegisters = Registers;
  return Opts;
}

/// Finding 1: the width operand the header builds is a constant at -O0 too.
TEST(PrepareFuzzFindings, ShufflesCompileAndRunAtO0) {
  std::vector<uint64_t> A, B;
  operandPairs(A, B);
  const char *Source = R"(
__global__ void k(unsigned long long *o, unsigned long long *a, unsigned long long *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; // n is a multiple of 64
  int x = (int)a[i];
  int y = __shfl_xor_sync(0xffffffffu, x, 1) + __shfl_sync(0xffffffffu, x, 5);
  float f = __shfl_down_sync(0xffffffffu, (float)(x & 0xffff), 2);
  unsigned u = __shfl_up_sync(0xffffffffu, (unsigned)x, 1);
  o[i] = ((unsigned long long)(unsigned)(y + (int)f) << 32) | u;
})";
  for (unsigned O : {0u, 2u}) {
    std::vector<uint64_t> Out = runOnIss(Source, A, B, atLevel(O));
    ASSERT_EQ(Out.size(), A.size()) << "-O" << O;
    unsigned Wrong = 0;
    for (size_t I = 0; I < A.size(); ++I) {
      size_t Warp = I & ~size_t(31), Lane = I & 31;
      auto X = [&](size_t L) { return uint32_t(A[Warp + L]); };
      uint32_t Y = X(Lane ^ 1) + X(5);
      uint32_t F = Lane + 2 < 32 ? (X(Lane + 2) & 0xffff) : (X(Lane) & 0xffff);
      uint32_t U = Lane >= 1 ? X(Lane - 1) : X(Lane);
      uint64_t Want = (uint64_t(Y + F) << 32) | U;
      if (Out[I] != Want && ++Wrong <= 5)
        ADD_FAILURE() << "-O" << O << " thread " << I << ": got " << std::hex << Out[I]
                      << ", want " << Want;
    }
    EXPECT_EQ(Wrong, 0u) << "-O" << O;
  }
}

/// Finding 2: `c ? local[..] : global[..]` became one load through a select
/// (or, with SimplifyCFG's sinking, a phi) of a local and a global pointer;
/// prepare splits it into two loads.
TEST(PrepareFuzzFindings, LoadThroughASelectOfLocalAndGlobalPointersIsSplit) {
  const char *Source = R"(
__global__ void k(unsigned long long *o, unsigned long long *a, unsigned long long *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int *in = (const int *)b;
  int la[8];
  for (int j = 0; j < 8; ++j) la[j] = in[(i + 3 * j) & 1023];
  unsigned x = (unsigned)a[i];
  int v = (x & 1) ? in[la[x & 7] & 1023] : in[in[0] & 1023];
  int w = (x & 4) ? in[0] : la[in[0] & 7]; // a load through a phi (seed 1091)
  if (x & 2) la[x & 7] = v; else ((int *)b)[1024 + (i & 511)] = v; // a store like it
  o[i] = (unsigned)(v ^ w) | ((unsigned long long)(unsigned)la[(x >> 3) & 7] << 32);
})";
  auto P = prepare(Source);
  ASSERT_EQ(P->Error, "");
  for (Instruction &I : instructions(onlyKernel(*P))) {
    if (auto *L = dyn_cast<LoadInst>(&I)) {
      EXPECT_NE(L->getPointerAddressSpace(), 0u) << printed(I);
    }
  }

  std::vector<uint64_t> A, B;
  operandPairs(A, B);
  std::vector<uint64_t> Out = runOnIss(Source, A, B);
  ASSERT_EQ(Out.size(), A.size());
  // b as 32-bit words, as the kernel reads it (the stores land in words
  // 1024 and up, which the reads of in[.. & 1023] never reach).
  auto In = [&](size_t W) { return uint32_t(B[W / 2] >> (32 * (W % 2))); };
  unsigned Wrong = 0;
  for (size_t I = 0; I < A.size(); ++I) {
    uint32_t La[8];
    for (unsigned J = 0; J < 8; ++J)
      La[J] = In((I + 3 * J) & 1023);
    uint32_t X = uint32_t(A[I]);
    uint32_t V = (X & 1) ? In(La[X & 7] & 1023) : In(In(0) & 1023);
    uint32_t W = (X & 4) ? In(0) : La[In(0) & 7];
    if (X & 2)
      La[X & 7] = V;
    uint64_t Want = (V ^ W) | (uint64_t(La[(X >> 3) & 7]) << 32);
    if (Out[I] != Want && ++Wrong <= 5)
      ADD_FAILURE() << "thread " << I << ": got " << std::hex << Out[I] << ", want " << Want;
  }
  EXPECT_EQ(Wrong, 0u);
}

/// Finding 14: LICM sinks the loop's last `(i & 1) ? la[..] : in[..]` past
/// the exit as one load through the loop's phi of a local and a global
/// address, a block away from the phi; prepare splits it on a phi of the
/// space (simt), at -O1 to -O3.
TEST(PrepareFuzzFindings, LoadSunkPastALoopThroughAPhiOfLocalAndGlobalPointersIsSplit) {
  const char *Source = R"(
__global__ void k(unsigned long long *o, unsigned long long *a, unsigned long long *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int *in = (const int *)b;
  int la[8];
  for (int j = 0; j < 8; ++j) la[j] = in[(i + 3 * j) & 1023];
  unsigned x = (unsigned)a[i];
  int v = -1;
  for (int k = 0, t = x & 7; k < t; ++k)
    v = (i & 1) ? la[la[x & 7] & 7] : in[x & 1023];
  o[i] = (unsigned)v | ((unsigned long long)(unsigned)la[(x >> 3) & 7] << 32);
})";
  std::vector<uint64_t> A, B;
  operandPairs(A, B);
  auto In = [&](size_t W) { return uint32_t(B[W / 2] >> (32 * (W % 2))); };
  for (unsigned O : {1u, 2u, 3u}) {
    std::vector<uint64_t> Out = runOnIss(Source, A, B, atLevel(O));
    ASSERT_EQ(Out.size(), A.size()) << "-O" << O;
    unsigned Wrong = 0;
    for (size_t I = 0; I < A.size(); ++I) {
      uint32_t La[8];
      for (unsigned J = 0; J < 8; ++J)
        La[J] = In((I + 3 * J) & 1023);
      uint32_t X = uint32_t(A[I]);
      uint32_t V = ~0u;
      if (X & 7)
        V = (I & 1) ? La[La[X & 7] & 7] : In(X & 1023);
      uint64_t Want = V | (uint64_t(La[(X >> 3) & 7]) << 32);
      if (Out[I] != Want && ++Wrong <= 5)
        ADD_FAILURE() << "-O" << O << " thread " << I << ": got " << std::hex << Out[I] << ", want "
                      << Want;
    }
    EXPECT_EQ(Wrong, 0u) << "-O" << O;
  }
}

/// Findings 4 and 5: 64-bit min/max intrinsics and copysign are selected.
TEST(PrepareFuzzFindings, MinMax64AndCopysignAreSelected) {
  const char *Source = R"(
__global__ void k(unsigned long long *o, unsigned long long *a, unsigned long long *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long x = a[i], y = b[i];
  long long sx = (long long)x, sy = (long long)y;
  unsigned long long r;
  switch (i & 3) {
  case 0: r = x < y ? x : y; break;
  case 1: r = x > y ? x : y; break;
  case 2: r = (unsigned long long)(sx < sy ? sx : sy); break;
  default: r = (unsigned long long)(sx > sy ? sx : sy); break;
  }
  float z = (float)(int)x * 0.0f; // copysign(0.0, (float)x)
  o[i] = r ^ __float_as_uint(z);
})";
  std::vector<uint64_t> A, B;
  operandPairs(A, B);
  for (unsigned O : {1u, 2u}) {
    std::vector<uint64_t> Out = runOnIss(Source, A, B, atLevel(O));
    ASSERT_EQ(Out.size(), A.size()) << "-O" << O;
    unsigned Wrong = 0;
    for (size_t I = 0; I < A.size(); ++I) {
      uint64_t X = A[I], Y = B[I];
      int64_t SX = int64_t(X), SY = int64_t(Y);
      uint64_t R = (I & 3) == 0   ? std::min(X, Y)
                   : (I & 3) == 1 ? std::max(X, Y)
                   : (I & 3) == 2 ? uint64_t(std::min(SX, SY))
                                  : uint64_t(std::max(SX, SY));
      uint64_t Want = R ^ (int32_t(X) < 0 ? 0x80000000u : 0u);
      if (Out[I] != Want && ++Wrong <= 5)
        ADD_FAILURE() << "-O" << O << " thread " << I << ": got " << std::hex << Out[I]
                      << ", want " << Want;
    }
    EXPECT_EQ(Wrong, 0u) << "-O" << O;
  }
}

/// Finding 6: in this loop (seed 1919, reduced) LLVM 19's uniformity
/// analysis calls the peeled iteration's `v8` uniform, StructurizeCFG skips
/// the region built on it, and the divergent branch reached the control
/// flow lowering unstructurized.
TEST(PrepareFuzzFindings, RegionSkippedOnAWrongUniformityIsStructurized) {
  const char *Source = tandem::testing::Issue137277Source;
  std::vector<uint64_t> A, B;
  operandPairs(A, B);
  for (size_t I = 0; I < A.size(); I += 3)
    A[I] = 0; // v8 == 0 in some lanes: both sides of the if run
  auto Word = [](const std::vector<uint64_t> &V, size_t W) {
    return uint32_t(V[W / 2] >> (32 * (W % 2)));
  };
  auto Bits = [](float F) {
    uint32_t U;
    std::memcpy(&U, &F, 4);
    return U;
  };
  auto Float = [](uint32_t U) {
    float F;
    std::memcpy(&F, &U, 4);
    return F;
  };
  for (unsigned O : {0u, 2u}) {
    std::vector<uint64_t> Out = runOnIss(Source, A, B, atLevel(O));
    ASSERT_EQ(Out.size(), A.size()) << "-O" << O;
    auto In = [&](size_t W) { return Word(A, W); };
    unsigned Wrong = 0;
    for (size_t I = 0; I < A.size(); ++I) {
      uint32_t V2 = In((I * 7 + 262) & 1023), V3 = In((I * 7 + 393) & 1023);
      uint32_t V4 = In((I * 7 + 524) & 1023);
      float V5 = Float(Word(B, (I * 7 + 655) & 255)), V7 = Float(Word(B, (I * 7 + 917) & 255));
      uint64_t V8 = (uint64_t(In((I * 7 + 1048) & 1023)) << 32) | In((I * 7 + 1049) & 1023);
      for (int K = 0, T = int(V2 & 7); K < T; ++K) {
        if (V8 != 0) {
          V7 = In(0) >> 31 == 0 ? -V5 : Float(Word(B, 0));
          V8 = 1;
          V7 = 0.0f - V7;
        } else {
          V3 = (V3 == 0 ? V4 : V4 / V3) + 1u;
        }
        V5 = 0.0f;
      }
      uint32_t Lo = V3 ^ Bits(V5) ^ uint32_t(V8) ^ uint32_t(V8 >> 32), Hi = Bits(V7);
      uint32_t GotLo = uint32_t(Out[I]), GotHi = uint32_t(Out[I] >> 32);
      bool HiOk = GotHi == Hi || (std::isnan(V7) && std::isnan(Float(GotHi)));
      if ((GotLo != Lo || !HiOk) && ++Wrong <= 5)
        ADD_FAILURE() << "-O" << O << " thread " << I << ": got " << std::hex << Out[I]
                      << ", want " << ((uint64_t(Hi) << 32) | Lo);
    }
    EXPECT_EQ(Wrong, 0u) << "-O" << O;
  }
}

} // namespace
