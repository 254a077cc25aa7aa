//===- DivergenceCheckTest.cpp - our conservative divergence analysis -----===//
//
// isel/DivergenceCheck on small IR functions: each source of divergence, data
// and sync propagation, loops with divergent and uniform exits, and the
// shape of llvm-project issue 137277 (a phi joining the multi-block sides of
// a divergent if). Values are looked up by name; every test also checks the
// uniform counterpart, so a check that called everything divergent fails.
//
//===----------------------------------------------------------------------===//

#include "Issue137277Source.h"
#include "isel/DivergenceCheck.h"
#include "isel/Prepare.h"

#include "frontend/Frontend.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace llvm;
using tandem::isel::DivergenceCheck;

namespace {

const char *Header = R"(
target datalayout = "e-p:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.laneid()
declare i32 @llvm.nvvm.read.ptx.sreg.lanemask.lt()
declare float @llvm.nvvm.shfl.sync.down.f32(i32, float, i32, i32)
declare i32 @llvm.nvvm.vote.ballot.sync(i32, i1)
declare i32 @opaque(i32)
)";

struct Parsed {
  std::unique_ptr<LLVMContext> Ctx = std::make_unique<LLVMContext>();
  std::unique_ptr<Module> M;
  Function *F = nullptr;

  const Value &value(StringRef Name) const {
    for (Instruction &I : instructions(*F))
      if (I.getName() == Name)
        return I;
    for (Argument &A : F->args())
      if (A.getName() == Name)
        return A;
    ADD_FAILURE() << "no value %" << Name.str();
    return *F->getArg(0);
  }
  const BasicBlock &block(StringRef Name) const {
    for (BasicBlock &BB : *F)
      if (BB.getName() == Name)
        return BB;
    ADD_FAILURE() << "no block " << Name.str();
    return F->getEntryBlock();
  }
};

/// Parses \p Body (one function @k) after the common declarations.
Parsed parse(StringRef Body) {
  Parsed P;
  SMDiagnostic Diag;
  P.M = parseAssemblyString(std::string(Header) + Body.str(), Diag, *P.Ctx);
  if (!P.M) {
    std::string Text;
    raw_string_ostream OS(Text);
    Diag.print("test", OS);
    ADD_FAILURE() << Text;
    return P;
  }
  EXPECT_FALSE(verifyModule(*P.M, &errs()));
  P.F = P.M->getFunction("k");
  EXPECT_NE(P.F, nullptr);
  return P;
}

TEST(DivergenceCheck, SourcesOfDivergence) {
  Parsed P = parse(R"(
define void @k(ptr addrspace(1) %g, ptr addrspace(3) %s, i32 %n) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %lane = call i32 @llvm.nvvm.read.ptx.sreg.laneid()
  %mask = call i32 @llvm.nvvm.read.ptx.sreg.lanemask.lt()
  %local = alloca i32, align 4, addrspace(5)
  store i32 %n, ptr addrspace(5) %local, align 4
  %lload = load i32, ptr addrspace(5) %local, align 4
  %gload = load i32, ptr addrspace(1) %g, align 4
  %sload = load i32, ptr addrspace(3) %s, align 4
  %atom = atomicrmw add ptr addrspace(1) %g, i32 1 monotonic
  %cas = cmpxchg ptr addrspace(1) %g, i32 0, i32 1 monotonic monotonic
  %fn = sitofp i32 %n to float
  %shfl = call float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float %fn, i32 1, i32 31)
  %shflc = call float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float 1.0, i32 1, i32 31)
  %call = call i32 @opaque(i32 %n)
  %cond = icmp slt i32 %tid, 5
  %vote = call i32 @llvm.nvvm.vote.ballot.sync(i32 -1, i1 %cond)
  %uni = add i32 %ctaid, %n
  ret void
}
)");
  ASSERT_TRUE(P.F);
  DivergenceCheck C(*P.F);
  for (StringRef Divergent : {"tid", "lane", "mask", "lload", "atom", "cas", "shfl", "call"})
    EXPECT_TRUE(C.isDivergent(P.value(Divergent))) << Divergent.str();
  for (StringRef Uniform :
       {"n", "ctaid", "local", "gload", "sload", "fn", "shflc", "vote", "uni"})
    EXPECT_FALSE(C.isDivergent(P.value(Uniform))) << Uniform.str();
}

TEST(DivergenceCheck, DataDependenceAndAddresses) {
  Parsed P = parse(R"(
define void @k(ptr addrspace(1) %g, i32 %n) {
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %a = add i32 %tid, %n
  %p = getelementptr inbounds i32, ptr addrspace(1) %g, i32 %a
  %v = load i32, ptr addrspace(1) %p, align 4
  %q = getelementptr inbounds i32, ptr addrspace(1) %g, i32 %n
  %w = load i32, ptr addrspace(1) %q, align 4
  %sel = select i1 true, i32 %w, i32 %n
  %mixed = select i1 true, i32 %w, i32 %v
  ret void
}
)");
  ASSERT_TRUE(P.F);
  DivergenceCheck C(*P.F);
  for (StringRef Divergent : {"a", "p", "v", "mixed"})
    EXPECT_TRUE(C.isDivergent(P.value(Divergent))) << Divergent.str();
  for (StringRef Uniform : {"q", "w", "sel"})
    EXPECT_FALSE(C.isDivergent(P.value(Uniform))) << Uniform.str();
}

/// A divergent if-else and a uniform one: the join's phi and a branch on it
/// follow the branch.
TEST(DivergenceCheck, PhisAtTheJoinOfADivergentBranch) {
  Parsed P = parse(R"(
define void @k(ptr addrspace(1) %g, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %c = icmp slt i32 %tid, 5
  br i1 %c, label %then, label %else
then:
  br label %join
else:
  br label %join
join:
  %x = phi i32 [ 1, %then ], [ 2, %else ]
  %cx = icmp eq i32 %x, 1
  br i1 %cx, label %a, label %b
a:
  br label %u
b:
  br label %u
u:
  %cu = icmp slt i32 %n, 3
  br i1 %cu, label %ut, label %ue
ut:
  br label %uj
ue:
  br label %uj
uj:
  %y = phi i32 [ 1, %ut ], [ 2, %ue ]
  %cy = icmp eq i32 %y, 1
  br i1 %cy, label %end, label %end
end:
  ret void
}
)");
  ASSERT_TRUE(P.F);
  DivergenceCheck C(*P.F);
  EXPECT_TRUE(C.hasDivergentTerminator(P.block("entry")));
  EXPECT_TRUE(C.isDivergent(P.value("x")));
  EXPECT_TRUE(C.hasDivergentTerminator(P.block("join")));
  EXPECT_FALSE(C.hasDivergentTerminator(P.block("u")));
  EXPECT_FALSE(C.isDivergent(P.value("y")));
  EXPECT_FALSE(C.hasDivergentTerminator(P.block("uj")));
  EXPECT_EQ(C.numDivergentBranches(), 2u);
}

/// The shape of llvm-project issue 137277 (compfuzz finding 6): each side
/// of a divergent if has several blocks, and the phi where they meet feeds
/// the branch of a later if. LLVM 19's analysis called such a phi uniform.
TEST(DivergenceCheck, PhiJoiningMultiBlockSidesIsDivergent) {
  Parsed P = parse(R"(
define void @k(ptr addrspace(1) %g, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr inbounds i32, ptr addrspace(1) %g, i32 %tid
  %v = load i32, ptr addrspace(1) %p, align 4
  %c = icmp ne i32 %v, 0
  br i1 %c, label %then1, label %else1
then1:
  %u = icmp slt i32 %n, 7
  br i1 %u, label %then2, label %then3
then2:
  br label %then3
then3:
  br label %join
else1:
  %w = icmp sgt i32 %n, 9
  br i1 %w, label %else2, label %else3
else2:
  br label %else3
else3:
  br label %join
join:
  %v8 = phi i32 [ 1, %then3 ], [ 0, %else3 ]
  %c8 = icmp ne i32 %v8, 0
  br i1 %c8, label %if, label %loop
if:
  br label %loop
loop:
  %v8.loop = phi i32 [ %v8, %join ], [ %v8, %if ], [ %v8.next, %latch ]
  %k = phi i32 [ 0, %join ], [ 0, %if ], [ %k1, %latch ]
  %cl = icmp eq i32 %v8.loop, 0
  br i1 %cl, label %else4, label %then4
then4:
  br label %latch
else4:
  br label %latch
latch:
  %v8.next = phi i32 [ 1, %then4 ], [ %v8.loop, %else4 ]
  %k1 = add i32 %k, 1
  %more = icmp slt i32 %k1, %n
  br i1 %more, label %loop, label %end
end:
  ret void
}
)");
  ASSERT_TRUE(P.F);
  DivergenceCheck C(*P.F);
  EXPECT_TRUE(C.isDivergent(P.value("v")));
  EXPECT_TRUE(C.hasDivergentTerminator(P.block("entry")));
  EXPECT_TRUE(C.isDivergent(P.value("v8")));
  EXPECT_TRUE(C.hasDivergentTerminator(P.block("join")));
  // As in the fuzzer's kernel (after LLVM peeled the first iteration): the
  // loop's copy of v8 starts from the joined phi, so the if inside the loop
  // is divergent too; the loop counter and its exit are not.
  EXPECT_TRUE(C.isDivergent(P.value("v8.loop")));
  EXPECT_TRUE(C.hasDivergentTerminator(P.block("loop")));
  EXPECT_TRUE(C.isDivergent(P.value("v8.next")));
  EXPECT_FALSE(C.isDivergent(P.value("k")));
  EXPECT_FALSE(C.hasDivergentTerminator(P.block("latch")));
  // The branches inside the sides test a kernel argument.
  EXPECT_FALSE(C.hasDivergentTerminator(P.block("then1")));
  EXPECT_FALSE(C.hasDivergentTerminator(P.block("else1")));
}

/// Lanes leave a loop with a divergent exit in different iterations: a value
/// defined in the loop and used after it differs per lane, although it is
/// the same in all lanes still iterating. With a uniform exit it stays
/// uniform.
TEST(DivergenceCheck, LoopsWithDivergentExitsMakeLiveOutsDivergent) {
  Parsed P = parse(R"(
define void @k(ptr addrspace(1) %g, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %dloop
dloop:
  %i = phi i32 [ 0, %entry ], [ %i1, %dloop ]
  %i1 = add i32 %i, 1
  %dexit = icmp sge i32 %i1, %tid
  br i1 %dexit, label %after, label %dloop
after:
  %live = add i32 %i1, 0
  %cl = icmp eq i32 %live, 3
  br label %uloop
uloop:
  %j = phi i32 [ 0, %after ], [ %j1, %uloop ]
  %j1 = add i32 %j, 1
  %uexit = icmp sge i32 %j1, %n
  br i1 %uexit, label %end, label %uloop
end:
  %ulive = add i32 %j1, 0
  ret void
}
)");
  ASSERT_TRUE(P.F);
  DivergenceCheck C(*P.F);
  EXPECT_TRUE(C.hasDivergentTerminator(P.block("dloop")));
  EXPECT_TRUE(C.isDivergent(P.value("live")));
  EXPECT_TRUE(C.isDivergent(P.value("cl")));
  // The lanes still iterating entered together and agree on the counter.
  EXPECT_FALSE(C.isDivergent(P.value("i")));
  EXPECT_FALSE(C.isDivergent(P.value("j")));
  EXPECT_FALSE(C.isDivergent(P.value("j1")));
  EXPECT_FALSE(C.hasDivergentTerminator(P.block("uloop")));
  EXPECT_FALSE(C.isDivergent(P.value("ulive")));
}

/// A break on a divergent condition in a loop whose latch test is uniform:
/// the loop exits divergently, so its live-outs are divergent too.
TEST(DivergenceCheck, DivergentBreakMakesLiveOutsDivergent) {
  Parsed P = parse(R"(
define void @k(ptr addrspace(1) %g, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %latch ]
  %brk = icmp eq i32 %i, %tid
  br i1 %brk, label %exit, label %latch
latch:
  %i1 = add i32 %i, 1
  %more = icmp slt i32 %i1, %n
  br i1 %more, label %loop, label %exit
exit:
  %out = phi i32 [ %i, %loop ], [ %n, %latch ]
  ret void
}
)");
  ASSERT_TRUE(P.F);
  DivergenceCheck C(*P.F);
  EXPECT_TRUE(C.hasDivergentTerminator(P.block("loop")));
  EXPECT_TRUE(C.isDivergent(P.value("out")));
  EXPECT_FALSE(C.isDivergent(P.value("i")));
  EXPECT_FALSE(C.hasDivergentTerminator(P.block("latch")));
}

/// The compfuzz finding-6 kernel (PrepareTest's
/// RegionSkippedOnAWrongUniformityIsStructurized) prepared at -O2: on the
/// final IR our check finds the per-lane loops and ifs divergent (at least
/// the peeled if, the loop's if and the loop exit) and no more branches than
/// there are.
TEST(DivergenceCheck, FlagsTheBranchesOfThePreparedReproducerOfIssue137277) {
  const char *Source = tandem::testing::Issue137277Source;
  SmallString<128> Path;
  ASSERT_FALSE(sys::fs::createTemporaryFile("divergence-check", "cu", Path));
  {
    std::error_code EC;
    raw_fd_ostream OS(Path, EC);
    OS << Source;
  }
  LLVMContext Ctx;
  tandem::frontend::FrontendOptions FE;
  FE.OptLevel = 2;
  auto M = tandem::frontend::loadKernelSource(Path, Ctx, FE);
  sys::fs::remove(Path);
  ASSERT_TRUE(!!M) << toString(M.takeError());
  tandem::isel::PrepareOptions Opts;
  Opts.OptLevel = 2;
  ASSERT_FALSE(!!tandem::isel::prepareModule(**M, Opts));
  Function *K = nullptr;
  for (Function &F : **M)
    if (!F.isDeclaration())
      K = &F;
  ASSERT_NE(K, nullptr);
  DivergenceCheck C(*K);
  // Every lane's loop trip count and v8 come from per-thread loads: the
  // loop branches and the if on v8 are divergent.
  unsigned Conditional = 0;
  for (BasicBlock &BB : *K)
    if (auto *Br = dyn_cast<BranchInst>(BB.getTerminator()); Br && Br->isConditional())
      ++Conditional;
  EXPECT_GE(C.numDivergentBranches(), 3u);
  EXPECT_LE(C.numDivergentBranches(), Conditional);
}

} // namespace
