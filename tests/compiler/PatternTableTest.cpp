//===- PatternTableTest.cpp - every selection pattern, driven by the tables ===//
//
// For every pattern of each target's table (SimtPatterns.td, PtxPatterns.td
// as generated), build a one-operation kernel with the pattern's node and
// operand types, select it with that target's selector and check that the
// instruction the pattern names comes out with the pattern's immediates and
// fixed values in the operands the pattern says. A new .td pattern is
// covered without a new test; a pattern that can never be selected (shadowed
// by an earlier one, or a node the selector never asks for) fails here.
//
// Operands: a register operand is a kernel parameter (an i1 is a compare of
// one), an immediate operand a random constant the immediate takes, an
// address a pointer parameter in the node's space (global_nc: a noalias
// readonly one, as `const T *__restrict__`). The result is stored, so
// nothing is dead; a load's value too (a sextload's after its sext).
//
//===----------------------------------------------------------------------===//

#include "isel/MIR.h"
#include "isel/SelectPtx.h"
#include "isel/SelectSimt.h"

#include "ISA.h"
#include "PTX.h"
#include "SelectionPattern.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"

#include <gtest/gtest.h>

#include <random>

using namespace llvm;
using namespace tandem;

namespace {

enum class Target { Simt, Ptx };

/// The IR type of pattern operand \p Class (or the result) on \p T. simt
/// has one class for every scalar, so the node says int or float there.
Type *typeOf(LLVMContext &Ctx, Target T, int Class, bool FloatNode) {
  if (T == Target::Simt)
    return FloatNode ? Type::getFloatTy(Ctx) : Type::getInt32Ty(Ctx);
  switch (ptx::RegClass(Class)) {
  case ptx::RegClass::Pred: return Type::getInt1Ty(Ctx);
  case ptx::RegClass::B32: return Type::getInt32Ty(Ctx);
  case ptx::RegClass::B64: return Type::getInt64Ty(Ctx);
  case ptx::RegClass::F32: return Type::getFloatTy(Ctx);
  case ptx::RegClass::F64: return Type::getDoubleTy(Ctx);
  }
  return nullptr;
}

/// simt: the nodes whose operands are floats (their result too, except
/// compares and fp->int conversions).
bool floatOperands(StringRef Node) {
  return Node.starts_with("fcmp.") || Node.starts_with("f") ||
         is_contained({"llvm.fabs", "llvm.sqrt", "llvm.minnum", "llvm.maxnum", "llvm.floor",
                       "llvm.ceil", "llvm.trunc", "llvm.rint", "llvm.fma"},
                      Node);
}

/// A load or store node: "load.<space>.<bits>", "sextload.<space>.<bits>",
/// "store.<space>.<bits>" (target/common/IRNodes.td).
struct MemoryNode {
  StringRef Kind, Space;
  unsigned Bits = 0;
};
std::optional<MemoryNode> memoryNode(StringRef Node) {
  auto [Kind, Rest] = Node.split('.');
  if (!is_contained({"load", "sextload", "store"}, Kind))
    return std::nullopt;
  auto [Space, BitsText] = Rest.rsplit('.');
  MemoryNode M{Kind, Space};
  if (BitsText.getAsInteger(10, M.Bits))
    return std::nullopt;
  return M;
}

/// The address space number of a node's space (global_nc: global).
unsigned addressSpaceOf(StringRef Space) {
  return StringSwitch<unsigned>(Space)
      .Cases("global", "global_nc", 1)
      .Case("shared", 3)
      .Case("const", 4)
      .Case("local", 5)
      .Default(0);
}

/// The IR type a load or store of \p Bits moves, its value in \p Class
/// (ptx: B32 u32 or F32 f32, ...; simt: integers).
Type *memoryType(LLVMContext &Ctx, Target T, unsigned Bits, int Class) {
  if (T == Target::Ptx && ptx::RegClass(Class) == ptx::RegClass::F32)
    return Type::getFloatTy(Ctx);
  if (T == Target::Ptx && ptx::RegClass(Class) == ptx::RegClass::F64)
    return Type::getDoubleTy(Ctx);
  return Type::getIntNTy(Ctx, Bits);
}

/// One kernel `k` for pattern \p P, and the constants it used per operand.
struct PatternKernel {
  std::unique_ptr<Module> M;
  std::vector<std::optional<int64_t>> Imms;
  std::string Problem; ///< why no kernel could be built (a test failure)
};

PatternKernel buildKernel(LLVMContext &Ctx, Target T, const target::PatternDesc &P,
                          std::mt19937 &Rng) {
  PatternKernel K;
  K.M = std::make_unique<Module>("pattern", Ctx);
  if (T == Target::Simt) {
    K.M->setDataLayout("e-p:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64");
    K.M->setTargetTriple("nvptx-nvidia-cuda");
  } else {
    K.M->setDataLayout("e-i64:64-i128:128-v16:16-v32:32-n16:32:64");
    K.M->setTargetTriple("nvptx64-nvidia-cuda");
  }
  StringRef Node = P.IRName;
  bool Simt = T == Target::Simt;
  // Operand and result types.
  std::vector<Type *> ArgTys;
  for (unsigned A = 0; A < P.NumArgs; ++A) {
    bool Float = Simt && floatOperands(Node) && !Node.starts_with("fpto");
    Type *Ty = typeOf(Ctx, T, P.Args[A].Class, Float || (Simt && Node.starts_with("fpto")));
    if (Simt && ((Node == "select" && A == 0) || (Node.starts_with("vote.") && A == 0)))
      Ty = Type::getInt1Ty(Ctx);
    ArgTys.push_back(Ty);
  }
  Type *ResultTy = Type::getVoidTy(Ctx);
  if (P.ResultClass != target::NoResultClass) {
    bool Float = Simt && ((floatOperands(Node) && !Node.starts_with("fcmp.") &&
                           !Node.starts_with("fpto")) ||
                          Node == "sitofp" || Node == "uitofp");
    ResultTy = typeOf(Ctx, T, P.ResultClass, Float);
    if (Simt && (Node.starts_with("icmp.") || Node.starts_with("fcmp.") ||
                 Node == "vote.any" || Node == "vote.all"))
      ResultTy = Type::getInt1Ty(Ctx);
    if (Simt && Node == "select")
      ResultTy = ArgTys[1];
  }
  // IR shifts take their amount in the value's type (ptx narrows it).
  if (is_contained({"shl", "lshr", "ashr"}, Node))
    ArgTys[1] = ResultTy;
  // atomicrmw.<op>.<space>(pointer, value): the old value has the value's
  // type; the pointer is in the space.
  unsigned AtomicSpace = 0;
  if (Node.starts_with("atomicrmw.")) {
    StringRef Space = Node.rsplit('.').second;
    AtomicSpace = Space == "global" ? 1 : Space == "shared" ? 3 : 0;
    if (Simt && Node.contains(".fadd."))
      ArgTys[1] = Type::getFloatTy(Ctx);
    ArgTys[0] = PointerType::get(Ctx, AtomicSpace);
    ResultTy = ArgTys[1];
  }
  // Loads and stores: a pointer parameter in the node's space; the value
  // has the node's width (a narrow store value is a truncated i32).
  std::optional<MemoryNode> Mem = memoryNode(Node);
  if (Mem) {
    ArgTys[0] = PointerType::get(Ctx, addressSpaceOf(Mem->Space));
    if (Mem->Kind == "store")
      ArgTys[1] = memoryType(Ctx, T, Mem->Bits, P.Args[1].Class);
    else
      ResultTy = memoryType(Ctx, T, Mem->Bits, P.ResultClass);
  }

  // Parameters: the output pointer, then one per register operand (an i1
  // is made by comparing an i32 parameter).
  std::vector<Type *> Params{PointerType::get(Ctx, 1)};
  for (unsigned A = 0; A < P.NumArgs; ++A)
    if (P.Args[A].Kind != target::PatOperandKind::Imm)
      Params.push_back(ArgTys[A]->isIntegerTy(1) || ArgTys[A]->isIntegerTy(8) ||
                               ArgTys[A]->isIntegerTy(16)
                           ? Type::getInt32Ty(Ctx)
                           : ArgTys[A]);
  // A shared pointer parameter is not a thing CUDA has; the tests select it
  // all the same (the selectors take the space from the pointer type).
  Function *F = Function::Create(FunctionType::get(Type::getVoidTy(Ctx), Params, false),
                                 Function::ExternalLinkage, "k", *K.M);
  IRBuilder<> B(BasicBlock::Create(Ctx, "entry", F));
  if (Mem && Mem->Space == "global_nc") { // read-only data: a restrict const pointer
    F->getArg(1)->addAttr(Attribute::NoAlias);
    F->getArg(1)->addAttr(Attribute::ReadOnly);
  }
  std::vector<Value *> Args;
  unsigned NextParam = 1;
  for (unsigned A = 0; A < P.NumArgs; ++A) {
    const target::PatOperandDesc &D = P.Args[A];
    if (D.Kind == target::PatOperandKind::Imm) {
      // Small, non-zero, random: a valid shift amount and compare constant.
      int64_t Lo = std::max<int64_t>(D.ImmMin, 1), Hi = std::min<int64_t>(D.ImmMax, 31);
      int64_t V = std::uniform_int_distribution<int64_t>(Lo, Hi)(Rng);
      K.Imms.push_back(V);
      Args.push_back(ConstantInt::get(ArgTys[A], V));
      continue;
    }
    K.Imms.push_back(std::nullopt);
    Value *V = F->getArg(NextParam++);
    if (ArgTys[A]->isIntegerTy(1))
      V = B.CreateICmpSLT(V, B.getInt32(std::uniform_int_distribution<int>(1, 99)(Rng)));
    else if (ArgTys[A]->isIntegerTy(8) || ArgTys[A]->isIntegerTy(16))
      V = B.CreateTrunc(V, ArgTys[A]);
    Args.push_back(V);
  }

  Value *R = nullptr;
  auto CallIntrinsic = [&](StringRef Name, ArrayRef<Value *> CallArgs,
                           ArrayRef<Type *> Overload) -> Value * {
    Intrinsic::ID ID = Function::lookupIntrinsicID(Name);
    if (ID == Intrinsic::not_intrinsic) {
      // A name of our own in the llvm.nvvm space (%nwarps): a plain
      // declaration, as the CUDA header makes it.
      std::vector<Type *> Tys;
      for (Value *V : CallArgs)
        Tys.push_back(V->getType());
      return B.CreateCall(K.M->getOrInsertFunction(Name, FunctionType::get(ResultTy, Tys, false)),
                          CallArgs);
    }
    Function *Decl = Intrinsic::getDeclaration(
        K.M.get(), ID, Intrinsic::isOverloaded(ID) ? Overload : ArrayRef<Type *>());
    std::vector<Value *> All(CallArgs.begin(), CallArgs.end());
    // ctlz / abs take a poison flag the pattern does not list.
    while (All.size() < Decl->arg_size())
      All.push_back(B.getFalse());
    return B.CreateCall(Decl, All);
  };
  unsigned Opc = 0;
  for (unsigned O = Instruction::BinaryOpsBegin; O < Instruction::CastOpsEnd; ++O)
    if (Node == Instruction::getOpcodeName(O))
      Opc = O;
  if (Opc && Instruction::isBinaryOp(Opc)) {
    R = B.CreateBinOp(Instruction::BinaryOps(Opc), Args[0], Args[1]);
  } else if (Opc && Instruction::isCast(Opc)) {
    R = B.CreateCast(Instruction::CastOps(Opc), Args[0], ResultTy);
  } else if (Mem && Mem->Kind == "store") {
    B.CreateStore(Args[1], Args[0]);
  } else if (Mem) {
    // sextload: a narrow load whose only user sign-extends it.
    R = B.CreateLoad(ResultTy, Args[0]);
    if (Mem->Kind == "sextload")
      R = B.CreateSExt(R, B.getInt32Ty());
  } else if (Node == "fneg") {
    R = B.CreateFNeg(Args[0]);
  } else if (Node == "select") {
    R = B.CreateSelect(Args[0], Args[1], Args[2]);
  } else if (Node.starts_with("icmp.") || Node.starts_with("fcmp.")) {
    for (unsigned Pred = CmpInst::FIRST_FCMP_PREDICATE; Pred <= CmpInst::LAST_ICMP_PREDICATE;
         ++Pred)
      if (Node.drop_front(5) == CmpInst::getPredicateName(CmpInst::Predicate(Pred)) &&
          CmpInst::isIntPredicate(CmpInst::Predicate(Pred)) == Node.starts_with("icmp."))
        R = B.CreateCmp(CmpInst::Predicate(Pred), Args[0], Args[1]);
  } else if (Node.consume_front("shfl.")) {
    // llvm.nvvm.shfl.sync.MODE.T(mask, value, lane, clamp); simt passes
    // (value, lane) and needs the full-warp clamp, ptx all four.
    std::string Name = ("llvm.nvvm.shfl.sync." + Node + "." +
                        (ResultTy->isFloatTy() ? "f32" : "i32")).str();
    if (Simt)
      R = CallIntrinsic(Name, {B.getInt32(-1), Args[0], Args[1], B.getInt32(Node == "up" ? 0 : 31)},
                        {});
    else
      R = CallIntrinsic(Name, {Args[3], Args[0], Args[1], Args[2]}, {});
  } else if (Node.consume_front("vote.")) {
    Value *Mask = Simt ? B.getInt32(-1) : Args[1];
    R = CallIntrinsic(("llvm.nvvm.vote." + Node + ".sync").str(), {Mask, Args[0]}, {});
  } else if (Node.consume_front("atomicrmw.")) {
    StringRef Op = Node.split('.').first;
    std::optional<AtomicRMWInst::BinOp> Bin;
    for (unsigned O = AtomicRMWInst::FIRST_BINOP; O <= AtomicRMWInst::LAST_BINOP; ++O)
      if (Op == AtomicRMWInst::getOperationName(AtomicRMWInst::BinOp(O)))
        Bin = AtomicRMWInst::BinOp(O);
    if (Bin)
      R = B.CreateAtomicRMW(*Bin, Args[0], Args[1], MaybeAlign(),
                            AtomicOrdering::SequentiallyConsistent);
  } else if (Node.starts_with("llvm.")) {
    R = CallIntrinsic(Node, Args, {ResultTy});
  } else {
    K.Problem = ("the test cannot build IR for node " + Node).str();
  }
  if (!R && K.Problem.empty() && !(Mem && Mem->Kind == "store"))
    K.Problem = ("no IR for node " + Node).str();
  if (R && !R->getType()->isVoidTy()) {
    if (R->getType()->isIntegerTy(1))
      R = B.CreateZExt(R, B.getInt32Ty());
    B.CreateStore(R, F->getArg(0));
  }
  B.CreateRetVoid();
  std::string Broken;
  raw_string_ostream OS(Broken);
  if (K.Problem.empty() && verifyModule(*K.M, &OS))
    K.Problem = "invalid test IR: " + Broken;
  return K;
}

/// Why \p Fn lacks an instruction that \p P yields, or "" when it has one.
std::string findPatternInstruction(const mir::Function &Fn, const target::PatternDesc &P,
                                   const std::vector<std::optional<int64_t>> &Imms) {
  for (const auto &Blk : Fn.Blocks)
    for (const mir::Inst &I : Blk->Insts) {
      if (I.Opcode != P.Opcode || I.Ops.size() != P.NumInstOperands)
        continue;
      bool Fits = true;
      for (unsigned A = 0; A < P.NumArgs; ++A) {
        const mir::Operand &O = I.Ops[P.Args[A].InstOperand];
        Fits &= Imms[A] ? (!O.isReg() && O.Imm == *Imms[A]) : O.isReg();
        if (P.Args[A].Kind == target::PatOperandKind::Addr) // [base + 0]
          Fits &= !I.Ops[P.Args[A].InstOperand + 1].isReg() &&
                  I.Ops[P.Args[A].InstOperand + 1].Imm == 0;
      }
      for (unsigned X = 0; X < P.NumFixed; ++X) {
        const mir::Operand &O = I.Ops[P.Fixed[X].InstOperand];
        Fits &= !O.isReg() && O.Imm == P.Fixed[X].Value;
      }
      if (Fits)
        return "";
    }
  return "no instruction with the pattern's opcode and operands";
}

std::string describe(Target T, const target::PatternDesc &P) {
  const char *Inst = T == Target::Simt ? simt::getDesc(simt::Opcode(P.Opcode)).Name
                                       : ptx::getDesc(P.Opcode).Name;
  return std::string(T == Target::Simt ? "simt" : "ptx") + " pattern " + P.IRName + " -> " +
         Inst;
}

void checkEveryPattern(Target T, ArrayRef<target::PatternDesc> Table) {
  ASSERT_FALSE(Table.empty());
  unsigned Seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(Seed));
  std::mt19937 Rng(Seed);
  for (const target::PatternDesc &P : Table) {
    SCOPED_TRACE(describe(T, P));
    LLVMContext Ctx;
    PatternKernel K = buildKernel(Ctx, T, P, Rng);
    ASSERT_EQ(K.Problem, "");
    std::string Text;
    raw_string_ostream OS(Text);
    if (T == Target::Simt) {
      Expected<std::unique_ptr<mir::Function>> Fn =
          isel::selectSimt(*K.M->getFunction("k"), "k");
      ASSERT_TRUE(bool(Fn)) << toString(Fn.takeError());
      mir::print(OS, **Fn, mir::TargetKind::Simt);
      EXPECT_EQ(findPatternInstruction(**Fn, P, K.Imms), "") << Text;
    } else {
      Expected<isel::PtxSelection> Sel = isel::selectPtx(*K.M->getFunction("k"), "k");
      ASSERT_TRUE(bool(Sel)) << toString(Sel.takeError());
      mir::print(OS, *Sel->Fn, mir::TargetKind::Ptx);
      EXPECT_EQ(findPatternInstruction(*Sel->Fn, P, K.Imms), "") << Text;
    }
  }
}

TEST(PatternTable, EverySimtPatternSelectsItsInstruction) {
  checkEveryPattern(Target::Simt, simt::selectionPatterns());
}

TEST(PatternTable, EveryPtxPatternSelectsItsInstruction) {
  checkEveryPattern(Target::Ptx, ptx::selectionPatterns());
}

/// The table reaches the compares, special registers, barrier and warp
/// operations on both targets (issue 4), not only arithmetic.
TEST(PatternTable, TablesCoverComparesSpecialRegistersBarriersAndWarpOps) {
  for (auto Table : {simt::selectionPatterns(), ptx::selectionPatterns()})
    for (const char *Node : {"llvm.nvvm.read.ptx.sreg.tid.x", "llvm.nvvm.barrier0",
                             "shfl.idx", "vote.ballot"})
      EXPECT_TRUE(any_of(Table, [&](const target::PatternDesc &P) {
        return StringRef(P.IRName) == Node;
      })) << Node;
  EXPECT_TRUE(any_of(simt::selectionPatterns(), [](const target::PatternDesc &P) {
    return StringRef(P.IRName) == "icmp.slt";
  }));
}

/// Loads and stores come from the tables on both targets (issue 4),
/// including ptx's read-only path.
TEST(PatternTable, TablesCoverLoadsAndStores) {
  for (auto Table : {simt::selectionPatterns(), ptx::selectionPatterns()})
    for (const char *Node : {"load.global.32", "store.global.32", "load.shared.8",
                             "store.local.16", "load.const.32"})
      EXPECT_TRUE(any_of(Table, [&](const target::PatternDesc &P) {
        return StringRef(P.IRName) == Node;
      })) << Node;
  EXPECT_TRUE(any_of(simt::selectionPatterns(), [](const target::PatternDesc &P) {
    return StringRef(P.IRName) == "sextload.global.16";
  }));
  EXPECT_TRUE(any_of(ptx::selectionPatterns(), [](const target::PatternDesc &P) {
    return StringRef(P.IRName) == "load.global_nc.64";
  }));
}

} // namespace
