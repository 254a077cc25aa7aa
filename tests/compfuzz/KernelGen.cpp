//===- KernelGen.cpp - Random CUDA C kernels: generate, print, evaluate ---===//
//
// Three views of one tree (KernelGen.h): the generator decides what may
// appear where (uniform-only constructs, loop-only statements), the printer
// adds every guard and mask that keeps the C free of undefined behaviour,
// and the evaluator gives each construct the meaning the printed C has (and
// the SIMT ISA implements: docs/ISA.md). Keeping the guards in the printer
// is what lets the reducer edit the tree freely.
//
//===----------------------------------------------------------------------===//

#include "KernelGen.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <sstream>

namespace tandem::compfuzz {

namespace {

// ---- Random numbers: splitmix64, so a seed means the same on every host ----
class Rng {
public:
  explicit Rng(uint64_t Seed) : State(Seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull) {}
  uint64_t next() {
    uint64_t Z = (State += 0x9e3779b97f4a7c15ull);
    Z = (Z ^ (Z >> 30)) * 0xbf58476d1ce4e5b9ull;
    Z = (Z ^ (Z >> 27)) * 0x94d049bb133111ebull;
    return Z ^ (Z >> 31);
  }
  unsigned below(unsigned N) { return unsigned(next() % N); }
  bool chance(unsigned Percent) { return below(100) < Percent; }
  template <typename T> const T &pick(const std::vector<T> &V) { return V[below(unsigned(V.size()))]; }

private:
  uint64_t State;
};

uint32_t floatBits(float F) { return std::bit_cast<uint32_t>(F); }
float bitsFloat(uint32_t B) { return std::bit_cast<float>(B); }

constexpr uint32_t CanonicalNaN = 0x7fc00000;


const char *typeName(Ty T) {
  switch (T) {
  case Ty::I32: return "int";
  case Ty::U32: return "unsigned";
  case Ty::F32: return "float";
  case Ty::U64: return "unsigned long long";
  }
  return "?";
}

Expr leafConst(Ty T, uint64_t Bits) {
  Expr E;
  E.O = Op::Const;
  E.T = T;
  E.Bits = Bits;
  return E;
}

Expr node(Op O, Ty T, std::vector<Expr> Kids) {
  Expr E;
  E.O = O;
  E.T = T;
  E.Kids = std::move(Kids);
  return E;
}


// ---- The generator ---------------------------------------------------------

/// Where a statement or expression is generated.
struct Ctx {
  bool Uniform = true;      ///< every thread of the block is here, converged
  bool InDivLoop = false;   ///< break/continue allowed
  bool TopLevel = true;     ///< early return allowed
  unsigned Depth = 0;       ///< statement nesting
  std::vector<unsigned> Loops; ///< loop ids whose k is in scope
};

class Generator {
public:
  Generator(uint64_t Seed, const GenFeatures &F) : R(Seed), F(F) { K.Seed = Seed; }

  Kernel run() {
    static const std::vector<unsigned> FullDims = {32, 32, 64, 64, 96, 128, 256};
    static const std::vector<unsigned> PartialDims = {1, 7, 33, 48, 100};
    bool Partial = R.chance(15);
    K.BlockDim = Partial ? R.pick(PartialDims) : R.pick(FullDims);
    K.Blocks = 1 + R.below(4);
    K.Param = int32_t(R.below(64)) - 16;
    WarpOpsOk = (F.Shuffles || F.Votes) && K.BlockDim % 32 == 0;
    addVars(Ty::I32, 2 + R.below(3));
    addVars(Ty::U32, 1 + R.below(3));
    if (F.Float)
      addVars(Ty::F32, 1 + R.below(3));
    if (F.Int64)
      addVars(Ty::U64, 1 + R.below(2));
    Ctx C;
    unsigned N = F.TopLevelStmts / 2 + R.below(F.TopLevelStmts);
    for (unsigned I = 0; I < N; ++I)
      K.Body.push_back(stmt(C));
    return K;
  }

private:
  Rng R;
  const GenFeatures &F;
  Kernel K;
  bool WarpOpsOk = false;
  bool InSelectArm = false; ///< generating an arm of a select (see GenFeatures)

  void addVars(Ty T, unsigned N) {
    for (unsigned I = 0; I < N; ++I)
      K.Vars.push_back(T);
  }

  std::vector<unsigned> varsOf(Ty T) const {
    std::vector<unsigned> V;
    for (unsigned I = 0; I < K.Vars.size(); ++I)
      if (K.Vars[I] == T)
        V.push_back(I);
    return V;
  }

  bool has(Ty T) const { return !varsOf(T).empty(); }

  // -- expressions --

  Expr constant(Ty T) {
    switch (T) {
    case Ty::I32: {
      static const std::vector<uint32_t> Edge = {0, 1, 0xffffffff, 2, 3, 7, 31, 32, 0x80000000,
                                                 0x7fffffff, 0xfffffff8, 100, 255};
      if (R.chance(50))
        return leafConst(T, R.pick(Edge));
      return leafConst(T, R.chance(60) ? uint32_t(int32_t(R.below(201)) - 100) : uint32_t(R.next()));
    }
    case Ty::U32: {
      static const std::vector<uint32_t> Edge = {0, 1, 0xffffffff, 2, 5, 16, 31, 0x80000000, 0xffff};
      if (R.chance(50))
        return leafConst(T, R.pick(Edge));
      return leafConst(T, R.chance(60) ? R.below(300) : uint32_t(R.next()));
    }
    case Ty::F32: {
      static const std::vector<float> Edge = {
          0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 3.0f, -2.5f, 1e-40f, -1e-42f, 1e30f,
          std::numeric_limits<float>::max(), std::numeric_limits<float>::infinity(),
          -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
          1.17549435e-38f, 16777217.0f, 0.1f};
      if (R.chance(50))
        return leafConst(T, floatBits(R.pick(Edge)));
      if (R.chance(60))
        return leafConst(T, floatBits(float(int32_t(R.below(2001)) - 1000) / 8.0f));
      uint32_t B = uint32_t(R.next());
      if (std::isnan(bitsFloat(B)))
        B = 0x3f800000;
      return leafConst(T, B);
    }
    case Ty::U64: {
      static const std::vector<uint64_t> Edge = {0, 1, ~0ull, 1ull << 63, 0xffffffffull,
                                                 0x100000000ull, 3, 63};
      if (R.chance(50))
        return leafConst(T, R.pick(Edge));
      return leafConst(T, R.chance(50) ? R.below(1000) : R.next());
    }
    }
    return leafConst(T, 0);
  }

  Expr var(Ty T) {
    Expr E;
    E.O = Op::Var;
    E.T = T;
    E.Bits = R.pick(varsOf(T));
    return E;
  }

  Expr leaf(Ty T, const Ctx &C, bool UniformOnly) {
    if (UniformOnly) {
      if (T == Ty::I32) {
        switch (R.below(4)) {
        case 0: return constant(T);
        case 1: return node(Op::Bid, T, {});
        default: return node(Op::Param, T, {});
        }
      }
      if (R.chance(50))
        return constant(T);
      return convertFrom(T, leaf(Ty::I32, C, true));
    }
    switch (T) {
    case Ty::I32:
      switch (R.below(11)) {
      case 0: case 1: return constant(T);
      case 2: case 3: case 4: return var(T);
      case 5: return node(Op::Tid, T, {});
      case 6: return node(Op::Lane, T, {});
      case 7: return R.chance(50) ? node(Op::Bid, T, {}) : node(Op::Param, T, {});
      case 8:
        if (!C.Loops.empty()) {
          Expr E = node(Op::LoopVar, T, {});
          E.Bits = R.pick(C.Loops);
          return E;
        }
        return var(T);
      case 9:
        if (F.LocalArray && !InSelectArm)
          return node(Op::LocalLoad, T, {leaf(Ty::I32, C, false)});
        return var(T);
      default: return node(Op::GlobalLoadI, T, {leaf(Ty::I32, C, false)});
      }
    case Ty::F32:
      switch (R.below(5)) {
      case 0: return constant(T);
      case 1: return node(Op::GlobalLoadF, T, {leaf(Ty::I32, C, false)});
      default: return var(T);
      }
    case Ty::U32:
    case Ty::U64:
      switch (R.below(5)) {
      case 0: return constant(T);
      case 1: return convertFrom(T, leaf(Ty::I32, C, false));
      default: return var(T);
      }
    }
    return constant(T);
  }

  /// An expression of type \p T made from the int \p E.
  Expr convertFrom(Ty T, Expr E) {
    switch (T) {
    case Ty::I32: return E;
    case Ty::U32: return node(Op::BitI2U, T, {std::move(E)});
    case Ty::F32: return node(Op::CvtI2F, T, {std::move(E)});
    case Ty::U64: return node(Op::Sext64, T, {std::move(E)});
    }
    return E;
  }

  Ty anyType() {
    std::vector<Ty> Ts = {Ty::I32, Ty::I32, Ty::U32};
    if (F.Float)
      Ts.push_back(Ty::F32);
    if (F.Int64)
      Ts.push_back(Ty::U64);
    return R.pick(Ts);
  }

  Expr comparison(unsigned Depth, const Ctx &C, bool UniformOnly) {
    Ty T = UniformOnly ? Ty::I32 : anyType();
    static const std::vector<Op> Cmps = {Op::Lt, Op::Le, Op::Gt, Op::Ge, Op::Eq, Op::Ne};
    Expr E = node(R.pick(Cmps), Ty::I32,
                  {expr(T, Depth, C, UniformOnly), expr(T, Depth, C, UniformOnly)});
    E.CmpTy = T;
    return E;
  }

  /// A truth value: a comparison most of the time, else any int (non-zero).
  Expr condition(unsigned Depth, const Ctx &C, bool UniformOnly) {
    if (R.chance(75))
      return comparison(Depth, C, UniformOnly);
    Expr E = expr(Ty::I32, Depth, C, UniformOnly);
    // Lane-dependent bits make divergence likely.
    return node(Op::And, Ty::I32, {std::move(E), leafConst(Ty::I32, 1u << R.below(6))});
  }

  Expr expr(Ty T, unsigned Depth, const Ctx &C, bool UniformOnly = false) {
    if (Depth == 0 || R.chance(25))
      return leaf(T, C, UniformOnly);
    unsigned D = Depth - 1;
    auto bin = [&](Op O) { return node(O, T, {expr(T, D, C, UniformOnly), expr(T, D, C, UniformOnly)}); };
    auto un = [&](Op O, Ty From) { return node(O, T, {expr(From, D, C, UniformOnly)}); };
    if (R.chance(8)) {
      Expr Cond = condition(D, C, UniformOnly);
      bool Saved = InSelectArm;
      InSelectArm = Saved || !F.LocalLoadsInSelects;
      Expr A = expr(T, D, C, UniformOnly), B = expr(T, D, C, UniformOnly);
      InSelectArm = Saved;
      return node(Op::Select, T, {std::move(Cond), std::move(A), std::move(B)});
    }
    switch (T) {
    case Ty::I32: {
      std::vector<std::function<Expr()>> Choices = {
          [&] { return bin(Op::Add); }, [&] { return bin(Op::Sub); }, [&] { return bin(Op::Mul); },
          [&] { return bin(Op::And); }, [&] { return bin(Op::Or); }, [&] { return bin(Op::Xor); },
          [&] { return bin(Op::Shl); }, [&] { return bin(Op::Shr); }, [&] { return bin(Op::Div); },
          [&] { return bin(Op::Rem); }, [&] { return bin(Op::Min); }, [&] { return bin(Op::Max); },
          [&] { return un(Op::Neg, Ty::I32); }, [&] { return un(Op::Not, Ty::I32); },
          [&] { return un(Op::BitU2I, Ty::U32); },
          [&] { return comparison(D, C, UniformOnly); }};
      if (F.Float && !UniformOnly)
        Choices.push_back([&] { return un(Op::CvtF2I, Ty::F32); });
      if (F.BitOps) {
        Choices.push_back([&] { return un(Op::Popc, Ty::U32); });
        Choices.push_back([&] { return un(Op::Clz, Ty::U32); });
      }
      return R.pick(Choices)();
    }
    case Ty::U32: {
      std::vector<std::function<Expr()>> Choices = {
          [&] { return bin(Op::Add); }, [&] { return bin(Op::Sub); }, [&] { return bin(Op::Mul); },
          [&] { return bin(Op::And); }, [&] { return bin(Op::Or); }, [&] { return bin(Op::Xor); },
          [&] { return bin(Op::Shl); }, [&] { return bin(Op::Shr); }, [&] { return bin(Op::Div); },
          [&] { return bin(Op::Rem); }, [&] { return bin(Op::Min); }, [&] { return bin(Op::Max); },
          [&] { return un(Op::Neg, Ty::U32); }, [&] { return un(Op::Not, Ty::U32); },
          [&] { return un(Op::BitI2U, Ty::I32); }};
      if (F.Float && !UniformOnly)
        Choices.push_back([&] { return un(Op::CvtF2U, Ty::F32); });
      if (F.Int64 && !UniformOnly) {
        Choices.push_back([&] { return un(Op::Trunc64, Ty::U64); });
        Choices.push_back([&] { return un(Op::Hi64, Ty::U64); });
      }
      if (F.BitOps)
        Choices.push_back([&] { return un(Op::Brev, Ty::U32); });
      return R.pick(Choices)();
    }
    case Ty::F32: {
      std::vector<std::function<Expr()>> Choices = {
          [&] { return bin(Op::FAdd); }, [&] { return bin(Op::FSub); }, [&] { return bin(Op::FMul); },
          [&] { return bin(Op::FDiv); }, [&] { return bin(Op::FMin); }, [&] { return bin(Op::FMax); },
          [&] { return un(Op::FNeg, Ty::F32); }, [&] { return un(Op::FAbs, Ty::F32); },
          [&] { return un(Op::CvtI2F, Ty::I32); }, [&] { return un(Op::CvtU2F, Ty::U32); }};
      return R.pick(Choices)();
    }
    case Ty::U64: {
      std::vector<std::function<Expr()>> Choices = {
          [&] { return bin(Op::Add); }, [&] { return bin(Op::Sub); }, [&] { return bin(Op::Mul); },
          [&] { return bin(Op::And); }, [&] { return bin(Op::Or); }, [&] { return bin(Op::Xor); },
          [&] { return bin(Op::Shl); }, [&] { return bin(Op::Shr); },
          [&] { return un(Op::Zext64, Ty::U32); }, [&] { return un(Op::Sext64, Ty::I32); }};
      if (F.Int64DivRem) {
        Choices.push_back([&] { return bin(Op::Div); });
        Choices.push_back([&] { return bin(Op::Rem); });
      }
      return R.pick(Choices)();
    }
    }
    return leaf(T, C, UniformOnly);
  }

  // -- statements --

  Stmt assign(const Ctx &C) {
    Stmt S;
    S.K = StmtKind::Assign;
    S.Var = unsigned(R.below(unsigned(K.Vars.size())));
    S.E = expr(K.Vars[S.Var], 3, C);
    return S;
  }

  Stmt ifStmt(const Ctx &C, bool Uniform) {
    Stmt S;
    S.K = StmtKind::If;
    S.Uniform = Uniform;
    S.Cond = condition(2, C, Uniform);
    Ctx Inner = C;
    Inner.Uniform = C.Uniform && Uniform;
    Inner.TopLevel = false;
    Inner.Depth = C.Depth + 1;
    S.Then = block(Inner, 1 + R.below(4));
    if (R.chance(50))
      S.Else = block(Inner, 1 + R.below(3));
    return S;
  }

  Stmt loop(const Ctx &C, bool Uniform) {
    Stmt S;
    S.K = StmtKind::Loop;
    S.Uniform = Uniform;
    S.Var = K.NumLoops++;
    S.E = expr(Ty::I32, 2, C, Uniform);
    Ctx Inner = C;
    Inner.Uniform = C.Uniform && Uniform;
    Inner.InDivLoop = !Uniform;
    Inner.TopLevel = false;
    Inner.Depth = C.Depth + 1;
    Inner.Loops.push_back(S.Var);
    S.Then = block(Inner, 1 + R.below(4));
    return S;
  }

  /// `if (cond) break;` (or continue, or return): the exit is conditional.
  Stmt conditionalExit(const Ctx &C, StmtKind Exit) {
    Stmt S;
    S.K = StmtKind::If;
    S.Cond = condition(2, C, false);
    Stmt X;
    X.K = Exit;
    S.Then.push_back(X);
    return S;
  }

  std::vector<Stmt> block(const Ctx &C, unsigned N) {
    std::vector<Stmt> B;
    Ctx Local = C;
    for (unsigned I = 0; I < N; ++I)
      B.push_back(stmt(Local));
    return B;
  }

  Stmt stmt(Ctx &C) {
    bool CanNest = C.Depth < F.MaxDepth;
    for (;;) {
      switch (R.below(20)) {
      case 0: case 1: case 2: case 3: case 4: case 5: case 6:
        return assign(C);
      case 7: case 8:
        if (CanNest)
          return ifStmt(C, false);
        break;
      case 9:
        if (CanNest)
          return ifStmt(C, true);
        break;
      case 10:
        if (CanNest && F.Loops)
          return loop(C, R.chance(30));
        break;
      case 11:
        if (C.InDivLoop)
          return conditionalExit(C, R.chance(50) ? StmtKind::Break : StmtKind::Continue);
        break;
      case 12:
        if (C.TopLevel && F.EarlyReturn && R.chance(40)) {
          Stmt S = conditionalExit(C, StmtKind::Return);
          C.Uniform = false; // some threads are gone: no more barriers
          return S;
        }
        break;
      case 13:
        if (F.LocalArray) {
          Stmt S;
          S.K = StmtKind::LocalStore;
          S.Cond = expr(Ty::I32, 1, C);
          S.E = expr(Ty::I32, 2, C);
          return S;
        }
        break;
      case 14:
        if (F.GlobalAtomics) {
          Stmt S;
          S.K = StmtKind::GlobalAtomic;
          S.Var = R.below(NumCounters);
          S.E = expr(counterOp(S.Var) == CounterOp::MinS ? Ty::I32 : Ty::U32, 2, C);
          return S;
        }
        break;
      case 15:
        if (C.Uniform && F.Shared) {
          Stmt S;
          S.K = R.chance(50) ? StmtKind::SharedExchange : StmtKind::SharedAtomic;
          S.Var = R.pick(R.chance(60) ? varsOf(Ty::I32) : varsOf(Ty::U32));
          S.Aux = 1 + R.below(40);
          S.E = expr(S.K == StmtKind::SharedExchange ? Ty::I32 : Ty::U32, 2, C);
          S.Cond = condition(1, C, false);
          return S;
        }
        break;
      case 16: case 17:
        if (C.Uniform && WarpOpsOk) {
          Stmt S;
          if (F.Shuffles && (!F.Votes || R.chance(65))) {
            S.K = StmtKind::Shuffle;
            std::vector<Ty> Ts = {Ty::I32, Ty::U32};
            if (F.Float)
              Ts.push_back(Ty::F32);
            Ty T = R.pick(Ts);
            S.Var = R.pick(varsOf(T));
            S.Aux = R.below(4);
            S.E = expr(T, 2, C);
            S.Cond = expr(Ty::I32, 1, C); // the source lane of shfl.idx
            S.Uniform = false;
            // Aux: kind in the low 2 bits, delta above.
            S.Aux |= (1 + R.below(S.Aux == unsigned(ShuffleKind::Xor) ? 31 : 16)) << 2;
          } else {
            S.K = StmtKind::Vote;
            S.Aux = R.below(3);
            S.Var = R.pick(varsOf(S.Aux == unsigned(VoteKind::Ballot) ? Ty::U32 : Ty::I32));
            S.Cond = condition(2, C, false);
          }
          return S;
        }
        break;
      case 18:
        if (C.Uniform && F.Shared) {
          Stmt S;
          S.K = StmtKind::Sync;
          return S;
        }
        break;
      default:
        return assign(C);
      }
    }
  }
};

// ---- The printer -----------------------------------------------------------

const char *Prelude = R"(#define FZ_INT_MIN (-2147483647 - 1)
// Signed arithmetic wraps (through unsigned), divisions are guarded, float
// to int conversions are clamped into range: no undefined behaviour.
static __device__ __forceinline__ int addi(int a, int b) { return (int)((unsigned)a + (unsigned)b); }
static __device__ __forceinline__ int subi(int a, int b) { return (int)((unsigned)a - (unsigned)b); }
static __device__ __forceinline__ int muli(int a, int b) { return (int)((unsigned)a * (unsigned)b); }
static __device__ __forceinline__ int negi(int a) { return (int)(0u - (unsigned)a); }
static __device__ __forceinline__ int shli(int a, int b) { return (int)((unsigned)a << (b & 31)); }
static __device__ __forceinline__ int divi(int a, int b) { return (b == 0 || (a == FZ_INT_MIN && b == -1)) ? a : a / b; }
static __device__ __forceinline__ int remi(int a, int b) { return b == 0 ? a : b == -1 ? 0 : a % b; }
static __device__ __forceinline__ unsigned divu(unsigned a, unsigned b) { return b == 0 ? a : a / b; }
static __device__ __forceinline__ unsigned remu(unsigned a, unsigned b) { return b == 0 ? a : a % b; }
static __device__ __forceinline__ unsigned long long divu64(unsigned long long a, unsigned long long b) { return b == 0 ? a : a / b; }
static __device__ __forceinline__ unsigned long long remu64(unsigned long long a, unsigned long long b) { return b == 0 ? a : a % b; }
static __device__ __forceinline__ int f2i(float x) { return (int)fminf(fmaxf(x, -2147483520.0f), 2147483520.0f); }
static __device__ __forceinline__ unsigned f2u(float x) { return (unsigned)fminf(fmaxf(x, 0.0f), 4294967040.0f); }
)";

std::string floatLiteral(uint32_t Bits) {
  float F = bitsFloat(Bits);
  if (!std::isfinite(F)) {
    char Buf[48];
    snprintf(Buf, sizeof Buf, "__uint_as_float(0x%08xu)", Bits);
    return Buf;
  }
  char Buf[64];
  snprintf(Buf, sizeof Buf, "%af", double(F)); // exact
  return std::string(F < 0 || (F == 0 && std::signbit(F)) ? "(" : "") + Buf +
         (F < 0 || (F == 0 && std::signbit(F)) ? ")" : "");
}

std::string constText(const Expr &E) {
  char Buf[64];
  switch (E.T) {
  case Ty::I32: {
    int32_t V = int32_t(uint32_t(E.Bits));
    if (V == std::numeric_limits<int32_t>::min())
      return "FZ_INT_MIN";
    snprintf(Buf, sizeof Buf, V < 0 ? "(%d)" : "%d", V);
    return Buf;
  }
  case Ty::U32:
    snprintf(Buf, sizeof Buf, "%uu", uint32_t(E.Bits));
    return Buf;
  case Ty::F32: return floatLiteral(uint32_t(E.Bits));
  case Ty::U64:
    snprintf(Buf, sizeof Buf, "0x%llxull", (unsigned long long)E.Bits);
    return Buf;
  }
  return "0";
}

std::string print(const Expr &E);

std::string call(const char *Fn, const Expr &E) {
  std::string S = std::string(Fn) + "(";
  for (size_t I = 0; I < E.Kids.size(); ++I)
    S += (I ? ", " : "") + print(E.Kids[I]);
  return S + ")";
}

std::string infix(const char *Sym, const Expr &E) {
  return "(" + print(E.Kids[0]) + " " + Sym + " " + print(E.Kids[1]) + ")";
}

std::string print(const Expr &E) {
  const bool I32 = E.T == Ty::I32, U64 = E.T == Ty::U64;
  switch (E.O) {
  case Op::Const: return constText(E);
  case Op::Var: return "v" + std::to_string(E.Bits);
  case Op::Tid: return "tid";
  case Op::Lane: return "lane";
  case Op::Bid: return "bid";
  case Op::Param: return "p";
  case Op::LoopVar: return "k" + std::to_string(E.Bits);
  case Op::LocalLoad: return "la[" + print(E.Kids[0]) + " & 7]";
  case Op::GlobalLoadI: return "in[" + print(E.Kids[0]) + " & 1023]";
  case Op::GlobalLoadF: return "fin[" + print(E.Kids[0]) + " & 255]";
  case Op::Neg: return I32 ? call("negi", E) : "(0u - " + print(E.Kids[0]) + ")";
  case Op::Not: return "(~" + print(E.Kids[0]) + ")";
  case Op::FNeg: return "(-" + print(E.Kids[0]) + ")";
  case Op::FAbs: return call("fabsf", E);
  case Op::Popc: return call("__popc", E);
  case Op::Clz: return "__clz((int)" + print(E.Kids[0]) + ")";
  case Op::Brev: return call("__brev", E);
  case Op::CvtI2F:
  case Op::CvtU2F: return "(float)" + print(E.Kids[0]);
  case Op::CvtF2I: return call("f2i", E);
  case Op::CvtF2U: return call("f2u", E);
  case Op::BitI2U: return "(unsigned)" + print(E.Kids[0]);
  case Op::BitU2I: return "(int)" + print(E.Kids[0]);
  case Op::Trunc64: return "(unsigned)" + print(E.Kids[0]);
  case Op::Hi64: return "(unsigned)(" + print(E.Kids[0]) + " >> 32)";
  case Op::Zext64: return "(unsigned long long)" + print(E.Kids[0]);
  case Op::Sext64: return "(unsigned long long)(long long)" + print(E.Kids[0]);
  case Op::Add: return I32 ? call("addi", E) : infix("+", E);
  case Op::Sub: return I32 ? call("subi", E) : infix("-", E);
  case Op::Mul: return I32 ? call("muli", E) : infix("*", E);
  case Op::And: return infix("&", E);
  case Op::Or: return infix("|", E);
  case Op::Xor: return infix("^", E);
  case Op::Shl:
    if (I32)
      return call("shli", E);
    return "(" + print(E.Kids[0]) + " << (" + print(E.Kids[1]) + (U64 ? " & 63))" : " & 31))");
  case Op::Shr:
    return "(" + print(E.Kids[0]) + " >> (" + print(E.Kids[1]) + (U64 ? " & 63))" : " & 31))");
  case Op::Div: return call(I32 ? "divi" : U64 ? "divu64" : "divu", E);
  case Op::Rem: return call(I32 ? "remi" : U64 ? "remu64" : "remu", E);
  case Op::Min: return call("min", E);
  case Op::Max: return call("max", E);
  case Op::FAdd: return infix("+", E);
  case Op::FSub: return infix("-", E);
  case Op::FMul: return infix("*", E);
  case Op::FDiv: return infix("/", E);
  case Op::FMin: return call("fminf", E);
  case Op::FMax: return call("fmaxf", E);
  case Op::Lt: return "(int)" + infix("<", E);
  case Op::Le: return "(int)" + infix("<=", E);
  case Op::Gt: return "(int)" + infix(">", E);
  case Op::Ge: return "(int)" + infix(">=", E);
  case Op::Eq: return "(int)" + infix("==", E);
  case Op::Ne: return "(int)" + infix("!=", E);
  case Op::Select:
    return "(" + print(E.Kids[0]) + " ? " + print(E.Kids[1]) + " : " + print(E.Kids[2]) + ")";
  }
  return "0";
}

const char *counterCall(CounterOp O) {
  switch (O) {
  case CounterOp::Add: return "atomicAdd(&gc[";
  case CounterOp::MaxU: return "atomicMax(&gc[";
  case CounterOp::MinS: return "atomicMin((int *)&gc[";
  case CounterOp::Or: return "atomicOr(&gc[";
  case CounterOp::And: return "atomicAnd(&gc[";
  case CounterOp::Xor: return "atomicXor(&gc[";
  }
  return "";
}

class Printer {
public:
  explicit Printer(const Kernel &K) : K(K) {}

  std::string run() {
    OS << "// tandem-compfuzz kernel, seed " << K.Seed << ": grid " << K.Blocks << ", block "
       << K.BlockDim << ", p = " << K.Param << ".\n"
       << "// Parameters: in = " << InputWords << " ints, fin = " << FloatInputs
       << " floats, out = " << K.wordsPerThread() << " words per thread, gc = "
       << NumCounters << " counters.\n"
       << Prelude << "\n"
       << "__global__ void fuzz(const int *in, const float *fin, unsigned *out, unsigned *gc, "
          "int p) {\n"
       << "  __shared__ int sh[256];\n"
       << "  __shared__ unsigned sc[4];\n"
       << "  const int tid = (int)(blockIdx.x * blockDim.x + threadIdx.x);\n"
       << "  const int lane = (int)(threadIdx.x & 31u);\n"
       << "  const int bid = (int)blockIdx.x;\n"
       << "  unsigned *o = out + tid * " << K.wordsPerThread() << ";\n";
    for (unsigned V = 0; V < K.Vars.size(); ++V) {
      OS << "  " << typeName(K.Vars[V]) << " v" << V << " = ";
      std::string Idx = "(tid * 7 + " + std::to_string(V * 131) + ")";
      switch (K.Vars[V]) {
      case Ty::I32: OS << "in[" << Idx << " & 1023];\n"; break;
      case Ty::U32: OS << "(unsigned)in[" << Idx << " & 1023];\n"; break;
      case Ty::F32: OS << "fin[" << Idx << " & 255];\n"; break;
      case Ty::U64:
        OS << "((unsigned long long)(unsigned)in[" << Idx << " & 1023] << 32) | (unsigned)in[("
           << Idx << " + 1) & 1023];\n";
        break;
      }
    }
    OS << "  int la[8];\n"
       << "  for (int i = 0; i < 8; ++i)\n"
       << "    la[i] = in[(tid + 97 * i) & 1023];\n"
       << "#define FZ_STORE() do { \\\n";
    unsigned W = 0;
    for (unsigned V = 0; V < K.Vars.size(); ++V) {
      std::string N = "v" + std::to_string(V);
      switch (K.Vars[V]) {
      case Ty::I32:
      case Ty::U32: OS << "    o[" << W++ << "] = (unsigned)" << N << "; \\\n"; break;
      case Ty::F32: OS << "    o[" << W++ << "] = __float_as_uint(" << N << "); \\\n"; break;
      case Ty::U64:
        OS << "    o[" << W++ << "] = (unsigned)" << N << "; \\\n";
        OS << "    o[" << W++ << "] = (unsigned)(" << N << " >> 32); \\\n";
        break;
      }
    }
    OS << "    for (int i = 0; i < 8; ++i) o[" << W << " + i] = (unsigned)la[i]; \\\n"
       << "  } while (0)\n";
    stmts(K.Body, 1);
    OS << "  FZ_STORE();\n}\n";
    return OS.str();
  }

private:
  const Kernel &K;
  std::ostringstream OS;

  void indent(unsigned N) { OS << std::string(2 * N, ' '); }

  void stmts(const std::vector<Stmt> &B, unsigned In) {
    for (const Stmt &S : B)
      stmt(S, In);
  }

  void stmt(const Stmt &S, unsigned In) {
    indent(In);
    std::string V = "v" + std::to_string(S.Var);
    switch (S.K) {
    case StmtKind::Assign: OS << V << " = " << print(S.E) << ";\n"; return;
    case StmtKind::If:
      OS << "if (" << print(S.Cond) << ") {" << (S.Uniform ? "  // uniform" : "") << "\n";
      stmts(S.Then, In + 1);
      if (!S.Else.empty()) {
        indent(In);
        OS << "} else {\n";
        stmts(S.Else, In + 1);
      }
      indent(In);
      OS << "}\n";
      return;
    case StmtKind::Loop: {
      std::string T = "t" + std::to_string(S.Var), Kv = "k" + std::to_string(S.Var);
      OS << "for (int " << Kv << " = 0, " << T << " = "
         << (S.Uniform ? "(" + print(S.E) + " & 3) + 1" : print(S.E) + " & 7") << "; " << Kv
         << " < " << T << "; ++" << Kv << ") {" << (S.Uniform ? "  // uniform" : "") << "\n";
      stmts(S.Then, In + 1);
      indent(In);
      OS << "}\n";
      return;
    }
    case StmtKind::Break: OS << "break;\n"; return;
    case StmtKind::Continue: OS << "continue;\n"; return;
    case StmtKind::Return: OS << "FZ_STORE();\n"; indent(In); OS << "return;\n"; return;
    case StmtKind::LocalStore:
      OS << "la[" << print(S.Cond) << " & 7] = " << print(S.E) << ";\n";
      return;
    case StmtKind::GlobalAtomic:
      OS << counterCall(counterOp(S.Var)) << S.Var << "], " << print(S.E) << ");\n";
      return;
    case StmtKind::SharedExchange:
      OS << "sh[threadIdx.x] = " << print(S.E) << ";\n";
      indent(In);
      OS << "__syncthreads();\n";
      indent(In);
      OS << V << " = (" << typeName(K.Vars[S.Var]) << ")sh[(threadIdx.x + " << S.Aux
         << "u) % blockDim.x];\n";
      indent(In);
      OS << "__syncthreads();\n";
      return;
    case StmtKind::SharedAtomic: {
      std::string C = "sc[" + std::to_string(S.Aux & 3) + "]";
      OS << "if (threadIdx.x == 0) " << C << " = 0u;\n";
      indent(In);
      OS << "__syncthreads();\n";
      indent(In);
      OS << "if (" << print(S.Cond) << ") atomicAdd(&" << C << ", " << print(S.E) << ");\n";
      indent(In);
      OS << "__syncthreads();\n";
      indent(In);
      OS << V << " = (" << typeName(K.Vars[S.Var]) << ")" << C << ";\n";
      indent(In);
      OS << "__syncthreads();\n";
      return;
    }
    case StmtKind::Shuffle: {
      unsigned Delta = S.Aux >> 2;
      OS << V << " = ";
      switch (ShuffleKind(S.Aux & 3)) {
      case ShuffleKind::Idx:
        OS << "__shfl_sync(0xffffffffu, " << print(S.E) << ", " << print(S.Cond) << " & 31);\n";
        return;
      case ShuffleKind::Up: OS << "__shfl_up_sync(0xffffffffu, "; break;
      case ShuffleKind::Down: OS << "__shfl_down_sync(0xffffffffu, "; break;
      case ShuffleKind::Xor: OS << "__shfl_xor_sync(0xffffffffu, "; break;
      }
      OS << print(S.E) << ", " << Delta << (S.Aux % 4 == unsigned(ShuffleKind::Xor) ? ");\n" : "u);\n");
      return;
    }
    case StmtKind::Vote:
      OS << V << " = "
         << (VoteKind(S.Aux) == VoteKind::Ballot ? "__ballot_sync"
             : VoteKind(S.Aux) == VoteKind::Any  ? "__any_sync"
                                                 : "__all_sync")
         << "(0xffffffffu, " << print(S.Cond) << ");\n";
      return;
    case StmtKind::Sync: OS << "__syncthreads();\n"; return;
    }
  }
};

// ---- The evaluator ---------------------------------------------------------

uint32_t canon(float F) { return std::isnan(F) ? CanonicalNaN : floatBits(F); }

/// fmin/fmax as the ISA defines them: a NaN operand yields the other one,
/// -0 is below +0.
uint32_t fminmax(uint32_t A, uint32_t B, bool IsMax) {
  float X = bitsFloat(A), Y = bitsFloat(B);
  if (std::isnan(X) && std::isnan(Y))
    return CanonicalNaN;
  if (std::isnan(X))
    return B;
  if (std::isnan(Y))
    return A;
  if (X == Y) {
    // Equal, maybe zeros of different sign: min prefers the negative one.
    bool XNeg = std::signbit(X);
    return (IsMax ? !XNeg : XNeg) ? A : B;
  }
  return (IsMax ? X > Y : X < Y) ? A : B;
}

float clampf(float X, float Lo, float Hi) {
  return bitsFloat(fminmax(fminmax(floatBits(X), floatBits(Lo), true), floatBits(Hi), false));
}

struct Thread {
  unsigned Tid = 0, Tidx = 0;
  std::vector<uint64_t> Vars;
  std::vector<int32_t> Loop; ///< k of each loop
  int32_t La[LocalWords] = {};
  bool Returned = false, Broke = false, Continued = false;
  std::vector<uint32_t> Out; ///< filled at return or at the end
};

class Evaluator {
public:
  Evaluator(const Kernel &K, const Inputs &In) : K(K), In(In) {
    Ref.Out.assign(size_t(K.totalThreads()) * K.wordsPerThread(), Poison);
    for (unsigned C = 0; C < NumCounters; ++C)
      Ref.Counters.push_back(counterInit(C));
  }

  Reference run() {
    for (unsigned B = 0; B < K.Blocks; ++B)
      runBlock(B);
    return std::move(Ref);
  }

private:
  const Kernel &K;
  const Inputs &In;
  Reference Ref;
  unsigned Bid = 0;
  std::vector<Thread> T;
  std::vector<int32_t> Sh;
  uint32_t Sc[4] = {};

  using Mask = std::vector<char>;

  void runBlock(unsigned B) {
    Bid = B;
    T.assign(K.BlockDim, Thread());
    Sh.assign(256, 0);
    for (unsigned I = 0; I < K.BlockDim; ++I) {
      Thread &Th = T[I];
      Th.Tidx = I;
      Th.Tid = B * K.BlockDim + I;
      Th.Loop.assign(K.NumLoops, 0);
      for (unsigned V = 0; V < K.Vars.size(); ++V) {
        uint32_t Idx = Th.Tid * 7 + V * 131;
        switch (K.Vars[V]) {
        case Ty::I32:
        case Ty::U32: Th.Vars.push_back(uint32_t(In.In[Idx & 1023])); break;
        case Ty::F32: Th.Vars.push_back(floatBits(In.FIn[Idx & 255])); break;
        case Ty::U64:
          Th.Vars.push_back(uint64_t(uint32_t(In.In[Idx & 1023])) << 32 |
                            uint32_t(In.In[(Idx + 1) & 1023]));
          break;
        }
      }
      for (unsigned L = 0; L < LocalWords; ++L)
        Th.La[L] = In.In[(Th.Tid + 97 * L) & 1023];
    }
    exec(K.Body, Mask(K.BlockDim, 1));
    for (Thread &Th : T)
      if (!Th.Returned)
        store(Th);
  }

  void store(Thread &Th) {
    uint32_t *O = &Ref.Out[size_t(Th.Tid) * K.wordsPerThread()];
    unsigned W = 0;
    for (unsigned V = 0; V < K.Vars.size(); ++V) {
      O[W++] = uint32_t(Th.Vars[V]);
      if (K.Vars[V] == Ty::U64)
        O[W++] = uint32_t(Th.Vars[V] >> 32);
    }
    for (unsigned L = 0; L < LocalWords; ++L)
      O[W++] = uint32_t(Th.La[L]);
  }

  bool live(const Thread &Th) const { return !Th.Returned && !Th.Broke && !Th.Continued; }

  void exec(const std::vector<Stmt> &B, const Mask &M) {
    for (const Stmt &S : B) {
      Mask A(M.size(), 0);
      bool Any = false;
      for (unsigned I = 0; I < M.size(); ++I)
        Any |= (A[I] = M[I] && live(T[I]));
      if (Any)
        exec(S, A);
    }
  }

  void exec(const Stmt &S, const Mask &M) {
    auto each = [&](auto Fn) {
      for (unsigned I = 0; I < M.size(); ++I)
        if (M[I])
          Fn(T[I]);
    };
    switch (S.K) {
    case StmtKind::Assign:
      each([&](Thread &Th) { Th.Vars[S.Var] = eval(S.E, Th); });
      return;
    case StmtKind::If: {
      Mask Then(M.size(), 0), Else(M.size(), 0);
      for (unsigned I = 0; I < M.size(); ++I)
        if (M[I])
          (uint32_t(eval(S.Cond, T[I])) ? Then : Else)[I] = 1;
      exec(S.Then, Then);
      exec(S.Else, Else);
      return;
    }
    case StmtKind::Loop: return loop(S, M);
    case StmtKind::Break: each([](Thread &Th) { Th.Broke = true; }); return;
    case StmtKind::Continue: each([](Thread &Th) { Th.Continued = true; }); return;
    case StmtKind::Return:
      each([&](Thread &Th) {
        store(Th);
        Th.Returned = true;
      });
      return;
    case StmtKind::LocalStore:
      each([&](Thread &Th) {
        uint32_t Idx = uint32_t(eval(S.Cond, Th)) & 7;
        Th.La[Idx] = int32_t(uint32_t(eval(S.E, Th)));
      });
      return;
    case StmtKind::GlobalAtomic:
      each([&](Thread &Th) { applyCounter(S.Var, uint32_t(eval(S.E, Th))); });
      return;
    case StmtKind::SharedExchange: {
      each([&](Thread &Th) { Sh[Th.Tidx] = int32_t(uint32_t(eval(S.E, Th))); });
      each([&](Thread &Th) { Th.Vars[S.Var] = uint32_t(Sh[(Th.Tidx + S.Aux) % K.BlockDim]); });
      return;
    }
    case StmtKind::SharedAtomic: {
      uint32_t &C = Sc[S.Aux & 3];
      C = 0;
      each([&](Thread &Th) {
        if (uint32_t(eval(S.Cond, Th)))
          C += uint32_t(eval(S.E, Th));
      });
      each([&](Thread &Th) { Th.Vars[S.Var] = C; });
      return;
    }
    case StmtKind::Shuffle: return shuffle(S, M);
    case StmtKind::Vote: return vote(S, M);
    case StmtKind::Sync: return;
    }
  }

  void loop(const Stmt &S, const Mask &M) {
    std::vector<int32_t> Trip(M.size(), 0);
    Mask Live = M;
    for (unsigned I = 0; I < M.size(); ++I)
      if (M[I]) {
        int32_t E = int32_t(uint32_t(eval(S.E, T[I])));
        Trip[I] = S.Uniform ? (E & 3) + 1 : E & 7;
        T[I].Loop[S.Var] = 0;
      }
    for (;;) {
      bool Any = false;
      for (unsigned I = 0; I < M.size(); ++I) {
        Live[I] = Live[I] && T[I].Loop[S.Var] < Trip[I];
        Any |= Live[I];
      }
      if (!Any)
        return;
      exec(S.Then, Live);
      for (unsigned I = 0; I < M.size(); ++I) {
        if (!Live[I])
          continue;
        Thread &Th = T[I];
        Th.Continued = false;
        if (Th.Broke || Th.Returned) {
          Th.Broke = false;
          Live[I] = 0;
          continue;
        }
        ++Th.Loop[S.Var];
      }
    }
  }

  void shuffle(const Stmt &S, const Mask &M) {
    unsigned Delta = S.Aux >> 2;
    std::vector<uint32_t> V(M.size()), Src(M.size());
    for (unsigned I = 0; I < M.size(); ++I)
      if (M[I]) {
        V[I] = uint32_t(eval(S.E, T[I]));
        Src[I] = uint32_t(eval(S.Cond, T[I])) & 31;
      }
    std::vector<uint32_t> Result(M.size());
    for (unsigned I = 0; I < M.size(); ++I) {
      if (!M[I])
        continue;
      unsigned Base = I & ~31u, Lane = I & 31;
      unsigned From = Lane;
      switch (ShuffleKind(S.Aux & 3)) {
      case ShuffleKind::Idx: From = Src[I]; break;
      case ShuffleKind::Up: From = Lane >= Delta ? Lane - Delta : Lane; break;
      case ShuffleKind::Down: From = Lane + Delta <= 31 ? Lane + Delta : Lane; break;
      case ShuffleKind::Xor: From = Lane ^ (Delta & 31); break;
      }
      Result[I] = V[Base + From];
    }
    for (unsigned I = 0; I < M.size(); ++I)
      if (M[I])
        T[I].Vars[S.Var] = Result[I];
  }

  void vote(const Stmt &S, const Mask &M) {
    std::vector<uint32_t> Ballot((M.size() + 31) / 32, 0);
    for (unsigned I = 0; I < M.size(); ++I)
      if (M[I] && uint32_t(eval(S.Cond, T[I])))
        Ballot[I / 32] |= 1u << (I & 31);
    for (unsigned I = 0; I < M.size(); ++I) {
      if (!M[I])
        continue;
      uint32_t B = Ballot[I / 32];
      switch (VoteKind(S.Aux)) {
      case VoteKind::Ballot: T[I].Vars[S.Var] = B; break;
      case VoteKind::Any: T[I].Vars[S.Var] = B != 0; break;
      case VoteKind::All: T[I].Vars[S.Var] = B == 0xffffffffu; break;
      }
    }
  }

  void applyCounter(unsigned C, uint32_t V) {
    uint32_t &X = Ref.Counters[C];
    switch (counterOp(C)) {
    case CounterOp::Add: X += V; break;
    case CounterOp::MaxU: X = std::max(X, V); break;
    case CounterOp::MinS: X = uint32_t(std::min(int32_t(X), int32_t(V))); break;
    case CounterOp::Or: X |= V; break;
    case CounterOp::And: X &= V; break;
    case CounterOp::Xor: X ^= V; break;
    }
  }

  uint64_t eval(const Expr &E, const Thread &Th) {
    auto k = [&](unsigned I) { return eval(E.Kids[I], Th); };
    auto s = [&](unsigned I) { return int32_t(uint32_t(k(I))); };
    auto u = [&](unsigned I) { return uint32_t(k(I)); };
    auto f = [&](unsigned I) { return bitsFloat(uint32_t(k(I))); };
    auto I32 = [](int32_t V) -> uint64_t { return uint32_t(V); };
    const bool IsI = E.T == Ty::I32, IsU64 = E.T == Ty::U64;
    // Width-aware helpers for the integer ops shared by u32 and u64.
    auto wrap = [&](uint64_t V) { return IsU64 ? V : uint64_t(uint32_t(V)); };
    switch (E.O) {
    case Op::Const: return E.Bits;
    case Op::Var: return Th.Vars[E.Bits];
    case Op::Tid: return Th.Tid;
    case Op::Lane: return Th.Tidx & 31;
    case Op::Bid: return Bid;
    case Op::Param: return I32(K.Param);
    case Op::LoopVar: return I32(Th.Loop[E.Bits]);
    case Op::LocalLoad: return I32(Th.La[u(0) & 7]);
    case Op::GlobalLoadI: return I32(In.In[u(0) & 1023]);
    case Op::GlobalLoadF: return floatBits(In.FIn[u(0) & 255]);
    case Op::Neg: return wrap(0 - k(0));
    case Op::Not: return wrap(~k(0));
    case Op::FNeg: return u(0) ^ 0x80000000u;
    case Op::FAbs: return u(0) & 0x7fffffffu;
    case Op::Popc: return uint32_t(std::popcount(u(0)));
    case Op::Clz: return uint32_t(std::countl_zero(u(0)));
    case Op::Brev: {
      uint32_t X = u(0), Y = 0;
      for (int B = 0; B < 32; ++B)
        Y |= ((X >> B) & 1) << (31 - B);
      return Y;
    }
    case Op::CvtI2F: return canon(float(s(0)));
    case Op::CvtU2F: return canon(float(u(0)));
    case Op::CvtF2I: return I32(int32_t(clampf(f(0), -2147483520.0f, 2147483520.0f)));
    case Op::CvtF2U: return uint32_t(clampf(f(0), 0.0f, 4294967040.0f));
    case Op::BitI2U:
    case Op::BitU2I: return u(0);
    case Op::Trunc64: return uint32_t(k(0));
    case Op::Hi64: return uint32_t(k(0) >> 32);
    case Op::Zext64: return u(0);
    case Op::Sext64: return uint64_t(int64_t(s(0)));
    case Op::Add: return wrap(k(0) + k(1));
    case Op::Sub: return wrap(k(0) - k(1));
    case Op::Mul: return wrap(k(0) * k(1));
    case Op::And: return k(0) & k(1);
    case Op::Or: return k(0) | k(1);
    case Op::Xor: return k(0) ^ k(1);
    case Op::Shl: return wrap(k(0) << (k(1) & (IsU64 ? 63 : 31)));
    case Op::Shr:
      if (IsI)
        return I32(s(0) >> (u(1) & 31));
      return k(0) >> (k(1) & (IsU64 ? 63 : 31));
    case Op::Div:
    case Op::Rem: return divRem(E, k(0), k(1));
    case Op::Min: return IsI ? I32(std::min(s(0), s(1))) : std::min(k(0), k(1));
    case Op::Max: return IsI ? I32(std::max(s(0), s(1))) : std::max(k(0), k(1));
    case Op::FAdd: return canon(f(0) + f(1));
    case Op::FSub: return canon(f(0) - f(1));
    case Op::FMul: return canon(f(0) * f(1));
    case Op::FDiv: return canon(f(0) / f(1));
    case Op::FMin: return fminmax(u(0), u(1), false);
    case Op::FMax: return fminmax(u(0), u(1), true);
    case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::Eq: case Op::Ne:
      return compare(E, k(0), k(1));
    case Op::Select: return u(0) ? k(1) : k(2);
    }
    return 0;
  }

  static uint64_t divRem(const Expr &E, uint64_t A, uint64_t B) {
    bool Div = E.O == Op::Div;
    if (E.T == Ty::I32) {
      int32_t X = int32_t(uint32_t(A)), Y = int32_t(uint32_t(B));
      if (Div)
        return uint32_t((Y == 0 || (X == std::numeric_limits<int32_t>::min() && Y == -1)) ? X : X / Y);
      return uint32_t(Y == 0 ? X : Y == -1 ? 0 : X % Y);
    }
    if (B == 0)
      return A;
    return Div ? A / B : A % B;
  }

  static uint64_t compare(const Expr &E, uint64_t A, uint64_t B) {
    auto cmp = [&](auto X, auto Y) -> uint64_t {
      switch (E.O) {
      case Op::Lt: return X < Y;
      case Op::Le: return X <= Y;
      case Op::Gt: return X > Y;
      case Op::Ge: return X >= Y;
      case Op::Eq: return X == Y;
      default: return X != Y; // for floats: unordered, true on NaN (C's !=)
      }
    };
    switch (E.CmpTy) {
    case Ty::I32: return cmp(int32_t(uint32_t(A)), int32_t(uint32_t(B)));
    case Ty::U32: return cmp(uint32_t(A), uint32_t(B));
    case Ty::F32: return cmp(bitsFloat(uint32_t(A)), bitsFloat(uint32_t(B)));
    case Ty::U64: return cmp(A, B);
    }
    return 0;
  }
};

unsigned countExprs(const Expr &E) {
  unsigned N = 1;
  for (const Expr &K : E.Kids)
    N += countExprs(K);
  return N;
}

unsigned countExprsIn(const std::vector<Stmt> &B) {
  unsigned N = 0;
  for (const Stmt &S : B)
    N += countExprs(S.E) + countExprs(S.Cond) + countExprsIn(S.Then) + countExprsIn(S.Else);
  return N;
}

} // namespace

CounterOp counterOp(unsigned Counter) { return CounterOp(Counter % NumCounters); }

uint32_t counterInit(unsigned Counter) {
  switch (counterOp(Counter)) {
  case CounterOp::MinS: return 0x7fffffff;
  case CounterOp::And: return 0xffffffff;
  default: return 0;
  }
}

unsigned Kernel::wordsPerThread() const {
  unsigned W = LocalWords;
  for (Ty T : Vars)
    W += T == Ty::U64 ? 2 : 1;
  return W;
}

Ty wordType(const Kernel &K, unsigned W) {
  for (Ty T : K.Vars) {
    unsigned N = T == Ty::U64 ? 2 : 1;
    if (W < N)
      return T;
    W -= N;
  }
  return Ty::I32;
}

std::string wordName(const Kernel &K, unsigned W) {
  for (unsigned V = 0; V < K.Vars.size(); ++V) {
    unsigned N = K.Vars[V] == Ty::U64 ? 2 : 1;
    if (W < N)
      return "v" + std::to_string(V) + " (" + typeName(K.Vars[V]) + ")" +
             (N == 2 ? (W ? " high word" : " low word") : "");
    W -= N;
  }
  return "la[" + std::to_string(W) + "]";
}

Kernel generateKernel(uint64_t Seed, const GenFeatures &F) { return Generator(Seed, F).run(); }

std::string printKernel(const Kernel &K) { return Printer(K).run(); }

Inputs makeInputs(const Kernel &K) {
  Rng R(K.Seed ^ 0x5eed1f0cull);
  Inputs I;
  for (unsigned W = 0; W < InputWords; ++W) {
    switch (R.below(4)) {
    case 0: I.In.push_back(int32_t(R.below(64)) - 32); break;
    case 1: {
      static const std::vector<int32_t> Edge = {0, 1, -1, std::numeric_limits<int32_t>::min(),
                                                std::numeric_limits<int32_t>::max(), 31, 32, 8};
      I.In.push_back(R.pick(Edge));
      break;
    }
    default: I.In.push_back(int32_t(uint32_t(R.next()))); break;
    }
  }
  static const std::vector<float> Edge = {0.0f, -0.0f, 1.0f, -1.0f,
                                          std::numeric_limits<float>::infinity(),
                                          -std::numeric_limits<float>::infinity(),
                                          std::numeric_limits<float>::quiet_NaN(),
                                          1e-45f, -3e-39f, 3e38f, 2147483648.0f, -2147483904.0f,
                                          4294967296.0f, 0.5f, -0.5f, 1.5f};
  for (unsigned W = 0; W < FloatInputs; ++W) {
    switch (R.below(5)) {
    case 0: I.FIn.push_back(R.pick(Edge)); break;
    case 1: I.FIn.push_back(bitsFloat(uint32_t(R.next()))); break;
    default: I.FIn.push_back(float(int32_t(R.below(20001)) - 10000) / 64.0f); break;
    }
  }
  return I;
}

Reference evaluateKernel(const Kernel &K, const Inputs &In) { return Evaluator(K, In).run(); }

unsigned countStmts(const std::vector<Stmt> &Body) {
  unsigned N = 0;
  for (const Stmt &S : Body)
    N += 1 + countStmts(S.Then) + countStmts(S.Else);
  return N;
}

unsigned countExprNodes(const Kernel &K) { return countExprsIn(K.Body); }

} // namespace tandem::compfuzz
