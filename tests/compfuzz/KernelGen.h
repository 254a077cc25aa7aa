//===- KernelGen.h - Random CUDA C kernels with a host reference --*- C++ -*-===//
//
// generateKernel(Seed) builds a random CUDA C kernel as a small typed AST
// (statements and expressions over int, unsigned, float and unsigned long
// long), printKernel() turns it into .cu text for the compiler, and
// evaluateKernel() runs the same AST on the host, one block at a time with
// all its threads in lock step, giving the words every thread must write.
// The compiled kernel on a device must produce exactly those words.
//
// Guarantees, for every seed and for every tree the reducer derives from it
// (deleting statements, replacing an if by one of its branches, replacing an
// expression by a constant or by one of its operands of the same type):
//  - the kernel is valid C++ with no undefined behaviour: signed arithmetic
//    wraps through unsigned helpers, shift amounts are masked, divisions are
//    guarded (by zero and INT_MIN / -1), float -> int conversions are
//    clamped into range first, every index is masked into its array; the
//    masks and guards are in the printer, not in the tree, so no edit can
//    remove them;
//  - every loop is bounded (trip count <= 8), so every kernel terminates;
//  - __syncthreads, shared-memory exchanges, shuffles and votes appear only
//    where every thread of the block is active and converged (uniform
//    control flow, before any divergent early return, blocks a multiple of
//    32 threads for warp operations);
//  - the result does not depend on thread order: contended global counters
//    get only commutative atomics (one operation per counter), returned old
//    values are never used;
//  - float operations are the same IEEE operations in the same order on the
//    host and the device (kernels are compiled with -ffp-contract=off);
//    NaN payloads are not compared (any NaN equals any NaN), see Words.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tandem::compfuzz {

enum class Ty : uint8_t { I32, U32, F32, U64 };

enum class Op : uint8_t {
  // Leaves.
  Const, Var, Tid, Lane, Bid, Param, LoopVar, LocalLoad, GlobalLoadI, GlobalLoadF,
  // Unary (Kids[0]).
  Neg, Not, FNeg, FAbs, Popc, Clz, Brev,
  CvtI2F, CvtU2F, CvtF2I, CvtF2U, BitI2U, BitU2I, Trunc64, Hi64, Zext64, Sext64,
  // Binary (Kids[0], Kids[1]).
  Add, Sub, Mul, And, Or, Xor, Shl, Shr, Div, Rem, Min, Max,
  FAdd, FSub, FMul, FDiv, FMin, FMax,
  // Comparisons: int 0/1 (Kids[0], Kids[1] of one type, CmpTy).
  Lt, Le, Gt, Ge, Eq, Ne,
  // Kids[0] ? Kids[1] : Kids[2]; Kids[0] is an int used as a truth value.
  Select,
};

struct Expr {
  Op O = Op::Const;
  Ty T = Ty::I32;
  Ty CmpTy = Ty::I32; ///< comparisons: the operands' type
  uint64_t Bits = 0;  ///< Const: the value's bits; Var/LoopVar: the index
  std::vector<Expr> Kids;
};

enum class StmtKind : uint8_t {
  Assign,         ///< var[Var] = E
  If,             ///< if (Cond) Then else Else
  Loop,           ///< for (k = 0; k < trip(E); ++k) Then      (Loop id in Var)
  Break,          ///< break (inside a loop with per-thread trip counts)
  Continue,       ///< continue (same)
  Return,         ///< store the outputs and return (top level only)
  LocalStore,     ///< la[Cond & 7] = E
  GlobalAtomic,   ///< atomicOp(&gc[Var], E), the counter's operation
  SharedExchange, ///< sh[tid.x] = E; sync; var = sh[(tid.x + K) % bdim]; sync
  SharedAtomic,   ///< block-wide sum of E over threads where Cond, into var
  Shuffle,        ///< var = __shfl_*_sync(full, E, ...)
  Vote,           ///< var = ballot/any/all(Cond)
  Sync,           ///< __syncthreads()
};

enum class ShuffleKind : uint8_t { Idx, Up, Down, Xor };
enum class VoteKind : uint8_t { Ballot, Any, All };

struct Stmt {
  StmtKind K = StmtKind::Assign;
  unsigned Var = 0;  ///< assigned variable, loop id or counter index
  unsigned Aux = 0;  ///< shuffle/vote kind, exchange distance, shuffle delta
  bool Uniform = false; ///< If/Loop: the condition/trip count is block-uniform
  Expr E, Cond;         ///< Loop: E is the trip count (printed & 7 or & 3 + 1)
  std::vector<Stmt> Then, Else;
};

/// What the generator may use. A feature our compiler rejects is switched
/// off here (and noted in docs/CompilerFuzzing.md) rather than dropped.
struct GenFeatures {
  bool Int64 = true;
  bool Int64DivRem = true;  ///< u64 division and remainder (the target expands them)
  bool Float = true;
  bool BitOps = true;       ///< __popc, __clz, __brev
  bool Loops = true;
  bool EarlyReturn = true;
  bool LocalArray = true;
  bool Shared = true;       ///< exchanges and shared atomics
  bool Shuffles = true;     ///< __shfl_*_sync (full warps only)
  bool Votes = true;        ///< __ballot_sync, __any_sync, __all_sync
  /// `c ? la[i] : in[j]`: LLVM turns it into a load through a select of a
  /// local and a global pointer, which the simt back end rejects (finding 2
  /// in docs/CompilerFuzzing.md). Off: no local-array loads inside selects.
  bool LocalLoadsInSelects = true;
  bool GlobalAtomics = true;
  unsigned TopLevelStmts = 14;
  unsigned MaxDepth = 3;
};

/// Global counters: one commutative operation each, so the final value does
/// not depend on the order in which threads apply them.
enum class CounterOp : uint8_t { Add, MaxU, MinS, Or, And, Xor };
constexpr unsigned NumCounters = 6;
CounterOp counterOp(unsigned Counter);
/// The value the host writes to counter \p Counter before the launch.
uint32_t counterInit(unsigned Counter);

constexpr unsigned InputWords = 1024;  ///< `in`, ints (index masked & 1023)
constexpr unsigned FloatInputs = 256;  ///< `fin`, floats (& 255)
constexpr unsigned LocalWords = 8;     ///< `la`, the per-thread local array
constexpr uint32_t Poison = 0xdeadbeef;

struct Kernel {
  uint64_t Seed = 0;
  unsigned Blocks = 1, BlockDim = 32;
  int32_t Param = 0;          ///< the scalar parameter `p` (block-uniform)
  std::vector<Ty> Vars;       ///< the thread's variables v0, v1, ...
  unsigned NumLoops = 0;      ///< loop ids 0..NumLoops-1 (k0, k1, ...)
  std::vector<Stmt> Body;

  unsigned totalThreads() const { return Blocks * BlockDim; }
  /// Output words per thread: every variable (u64: two words), then la[].
  unsigned wordsPerThread() const;
};

/// The type of output word \p W of a thread (F32 words compare NaN-equal).
Ty wordType(const Kernel &K, unsigned W);
/// "v3 (float)", "v2 high word (u64)", "la[5]": what output word \p W holds.
std::string wordName(const Kernel &K, unsigned W);

Kernel generateKernel(uint64_t Seed, const GenFeatures &F = {});

/// The .cu text of \p K (kernel name `fuzz`, signature
/// `(const int *in, const float *fin, unsigned *out, unsigned *gc, int p)`).
std::string printKernel(const Kernel &K);

/// Random inputs for \p K, from its seed: InputWords ints, FloatInputs floats.
struct Inputs {
  std::vector<int32_t> In;
  std::vector<float> FIn;
};
Inputs makeInputs(const Kernel &K);

/// The words the kernel must leave behind.
struct Reference {
  std::vector<uint32_t> Out;      ///< totalThreads() * wordsPerThread()
  std::vector<uint32_t> Counters; ///< NumCounters
};
Reference evaluateKernel(const Kernel &K, const Inputs &In);

/// Statement and expression counts (the size the reducer shrinks).
unsigned countStmts(const std::vector<Stmt> &Body);
unsigned countExprNodes(const Kernel &K);

} // namespace tandem::compfuzz
