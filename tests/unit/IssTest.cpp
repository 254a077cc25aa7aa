//===- IssTest.cpp - Directed tests of the functional simulator -----------===//
//
// Every instruction's semantics checked on the iss device against a host
// reference written from the .td descriptions: integer ops on random values
// and edge cases (INT_MIN/-1, /0, shift counts >= 32), fp ops on random and
// special values (+-0, +-inf, NaN -> canonical, subnormals, rounding ties,
// ffma's single rounding), conversions, compiler-managed divergence, shuffles
// and votes under partial masks, atomics in lane order, local memory, barriers
// across warps, special registers, and the trace format.
//
// Kernels are built with KernelBuilder (simt::encode), not the assembler, so
// these tests depend on the generated ISA tables only. Inputs are random with
// fixed seeds; outputs are poisoned before every run.
//
//===----------------------------------------------------------------------===//

#include "Iss.h"
#include "KernelBuilder.h"

#include "tandem/Runtime.h"

#include "llvm/ADT/bit.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <bit>
#include <climits>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>

using namespace tandem;
using namespace tandem::iss;
using simt::Opcode;
using simt::SpecialReg;

namespace {

constexpr uint32_t Poison = 0xDEADBEEFu;
constexpr uint32_t CanonNaN = 0x7fc00000u;

uint32_t bitsOf(float F) { return llvm::bit_cast<uint32_t>(F); }
float floatOf(uint32_t U) { return llvm::bit_cast<float>(U); }
int64_t sr(SpecialReg R) { return int64_t(R); }

bool ok(llvm::Error E) {
  if (E) {
    ADD_FAILURE() << llvm::toString(std::move(E));
    return false;
  }
  return true;
}

std::string hex(uint32_t V) {
  char Buf[16];
  snprintf(Buf, sizeof(Buf), "0x%08x", V);
  return Buf;
}

/// r1 = global thread index (ctaid.x * ntid.x + tid.x), r2 = 4 * r1.
void indexPrologue(KernelBuilder &K) {
  K.emit(Opcode::S2R, {1, sr(SpecialReg::TID_X)})
      .emit(Opcode::S2R, {2, sr(SpecialReg::CTAID_X)})
      .emit(Opcode::S2R, {3, sr(SpecialReg::NTID_X)})
      .emit(Opcode::MUL, {2, 2, 3})
      .emit(Opcode::ADD, {1, 1, 2})
      .emit(Opcode::SHLI, {2, 1, 2});
}

/// rD = (pointer parameter number P) + r2, i.e. &param[P][i].
void elementAddress(KernelBuilder &K, int64_t Rd, unsigned P) {
  K.emit(Opcode::PARAM_LD_U32, {Rd, 0, 4 * int64_t(P)})
      .emit(Opcode::ADD, {Rd, Rd, 2});
}

class IssTest : public ::testing::Test {
protected:
  void SetUp() override { Dev = open(Opts); }

  static std::unique_ptr<Device> open(const DeviceOptions &O) {
    auto D = openDevice("iss", O);
    if (!D) {
      ADD_FAILURE() << llvm::toString(D.takeError());
      return nullptr;
    }
    return std::move(*D);
  }

  DevicePtr upload(const std::vector<uint32_t> &V) {
    auto P = Dev->alloc(V.size() * 4);
    if (!P) {
      ADD_FAILURE() << llvm::toString(P.takeError());
      return 0;
    }
    ok(Dev->write<uint32_t>(*P, V));
    return *P;
  }
  DevicePtr poisoned(size_t N) {
    return upload(std::vector<uint32_t>(N, Poison));
  }
  std::vector<uint32_t> download(DevicePtr P, size_t N) {
    std::vector<uint32_t> V(N, 0);
    ok(Dev->read<uint32_t>(V, P));
    return V;
  }
  bool launch(const KernelBuilder &K, Dim3 Grid, Dim3 Block,
              std::vector<KernelArg> Args, uint32_t DynShared = 0,
              const std::vector<uint8_t> &Const = {}) {
    auto Img = K.build();
    if (!Img)
      return ok(Img.takeError());
    Img->Const = Const;
    if (!ok(Dev->loadImage(*Img)))
      return false;
    LaunchParams P;
    P.Kernel = Img->Kernels[0].Name;
    P.Grid = Grid;
    P.Block = Block;
    P.DynamicSharedBytes = DynShared;
    P.Args = std::move(Args);
    return ok(Dev->launch(P));
  }

  /// out[i] = f(a[i], b[i], c[i]); \p Body reads r6, r7, r9 and writes r8.
  std::vector<uint32_t>
  elementwise(const std::function<void(KernelBuilder &)> &Body,
              const std::vector<uint32_t> &A, const std::vector<uint32_t> &B,
              const std::vector<uint32_t> &C) {
    size_t N = A.size();
    EXPECT_EQ(N % 128, 0u);
    KernelBuilder K("elementwise");
    K.param("a", ParamKind::Pointer)
        .param("b", ParamKind::Pointer)
        .param("c", ParamKind::Pointer)
        .param("out", ParamKind::Pointer);
    indexPrologue(K);
    elementAddress(K, 3, 0);
    elementAddress(K, 4, 1);
    elementAddress(K, 10, 2);
    elementAddress(K, 5, 3);
    K.emit(Opcode::GLOBAL_LD_U32, {6, 3, 0})
        .emit(Opcode::GLOBAL_LD_U32, {7, 4, 0})
        .emit(Opcode::GLOBAL_LD_U32, {9, 10, 0});
    Body(K);
    K.emit(Opcode::GLOBAL_ST_U32, {5, 0, 8}).emit(Opcode::EXIT);
    DevicePtr PA = upload(A), PB = upload(B), PC = upload(C), Out = poisoned(N);
    if (!launch(K, {uint32_t(N / 128), 1, 1}, {128, 1, 1},
                {KernelArg::ptr(PA), KernelArg::ptr(PB), KernelArg::ptr(PC),
                 KernelArg::ptr(Out)}))
      return {};
    auto R = download(Out, N);
    for (DevicePtr P : {PA, PB, PC, Out})
      ok(Dev->free(P));
    return R;
  }

  DeviceOptions Opts;
  std::unique_ptr<Device> Dev;
  std::mt19937 Rng{20261130};
};

//===----------------------------------------------------------------------===//
// Integer operations
//===----------------------------------------------------------------------===//

const std::vector<uint32_t> IntEdges = {
    0,          1,          2,          3,          31,         32,
    33,         63,         64,         0x7fffffff, 0x80000000, 0x80000001,
    0xffffffff, 0xfffffffe, 0x55555555, 0xaaaaaaaa, 0x0000ffff, 0xffff0000};

/// Operand pairs: every pair of edge values, then random values (some small,
/// so shift counts and divisors near 0 and 32 are common).
void intOperands(std::mt19937 &Rng, std::vector<uint32_t> &A,
                 std::vector<uint32_t> &B) {
  for (uint32_t X : IntEdges)
    for (uint32_t Y : IntEdges) {
      A.push_back(X);
      B.push_back(Y);
    }
  while (A.size() % 128 || A.size() < 1024) {
    auto Pick = [&]() -> uint32_t {
      switch (Rng() % 4) {
      case 0:
        return Rng() % 40;
      case 1:
        return uint32_t(-int32_t(Rng() % 40));
      default:
        return uint32_t(Rng());
      }
    };
    A.push_back(Pick());
    B.push_back(Pick());
  }
}

struct IntBinCase {
  Opcode Op;
  const char *Name;
  std::function<uint32_t(uint32_t, uint32_t)> Ref;
};

int32_t s(uint32_t V) { return int32_t(V); }

std::vector<IntBinCase> intBinaryCases() {
  return {
      {Opcode::ADD, "add", [](uint32_t A, uint32_t B) { return A + B; }},
      {Opcode::SUB, "sub", [](uint32_t A, uint32_t B) { return A - B; }},
      {Opcode::MUL, "mul",
       [](uint32_t A, uint32_t B) { return uint32_t(uint64_t(A) * B); }},
      {Opcode::MULHI, "mulhi",
       [](uint32_t A, uint32_t B) {
         return uint32_t((int64_t(s(A)) * s(B)) >> 32);
       }},
      {Opcode::MULHIU, "mulhiu",
       [](uint32_t A, uint32_t B) {
         return uint32_t((uint64_t(A) * B) >> 32);
       }},
      {Opcode::AND, "and", [](uint32_t A, uint32_t B) { return A & B; }},
      {Opcode::OR, "or", [](uint32_t A, uint32_t B) { return A | B; }},
      {Opcode::XOR, "xor", [](uint32_t A, uint32_t B) { return A ^ B; }},
      {Opcode::SHL, "shl",
       [](uint32_t A, uint32_t B) { return B < 32 ? A << B : 0u; }},
      {Opcode::SHR, "shr",
       [](uint32_t A, uint32_t B) { return B < 32 ? A >> B : 0u; }},
      {Opcode::SRA, "sra",
       [](uint32_t A, uint32_t B) {
         if (B < 32)
           return uint32_t(s(A) >> B);
         return s(A) < 0 ? 0xffffffffu : 0u;
       }},
      {Opcode::MIN, "min",
       [](uint32_t A, uint32_t B) { return s(A) < s(B) ? A : B; }},
      {Opcode::MAX, "max",
       [](uint32_t A, uint32_t B) { return s(A) > s(B) ? A : B; }},
      {Opcode::MINU, "minu",
       [](uint32_t A, uint32_t B) { return std::min(A, B); }},
      {Opcode::MAXU, "maxu",
       [](uint32_t A, uint32_t B) { return std::max(A, B); }},
      {Opcode::SETEQ, "seteq",
       [](uint32_t A, uint32_t B) { return uint32_t(A == B); }},
      {Opcode::SETNE, "setne",
       [](uint32_t A, uint32_t B) { return uint32_t(A != B); }},
      {Opcode::SETLT, "setlt",
       [](uint32_t A, uint32_t B) { return uint32_t(s(A) < s(B)); }},
      {Opcode::SETLE, "setle",
       [](uint32_t A, uint32_t B) { return uint32_t(s(A) <= s(B)); }},
      {Opcode::SETLTU, "setltu",
       [](uint32_t A, uint32_t B) { return uint32_t(A < B); }},
      {Opcode::SETLEU, "setleu",
       [](uint32_t A, uint32_t B) { return uint32_t(A <= B); }},
      {Opcode::DIV, "div",
       [](uint32_t A, uint32_t B) -> uint32_t {
         if (B == 0)
           return 0xffffffffu;
         if (A == 0x80000000u && B == 0xffffffffu)
           return 0x80000000u;
         return uint32_t(s(A) / s(B));
       }},
      {Opcode::DIVU, "divu",
       [](uint32_t A, uint32_t B) { return B ? A / B : 0xffffffffu; }},
      {Opcode::REM, "rem",
       [](uint32_t A, uint32_t B) -> uint32_t {
         if (B == 0)
           return A;
         if (A == 0x80000000u && B == 0xffffffffu)
           return 0;
         return uint32_t(s(A) % s(B));
       }},
      {Opcode::REMU, "remu",
       [](uint32_t A, uint32_t B) { return B ? A % B : A; }},
  };
}

void expectAll(const char *Name, const std::vector<uint32_t> &Got,
               const std::vector<uint32_t> &Want,
               const std::vector<uint32_t> &A, const std::vector<uint32_t> &B) {
  ASSERT_EQ(Got.size(), Want.size()) << Name;
  unsigned Bad = 0;
  for (size_t I = 0; I < Got.size() && Bad < 5; ++I)
    if (Got[I] != Want[I]) {
      ++Bad;
      ADD_FAILURE() << Name << "(" << hex(A[I]) << ", " << hex(B[I])
                    << ") = " << hex(Got[I]) << ", want " << hex(Want[I]);
    }
}

TEST_F(IssTest, IntegerBinaryOpsMatchHostReference) {
  std::vector<uint32_t> A, B;
  intOperands(Rng, A, B);
  std::vector<uint32_t> C(A.size(), 0);
  for (const IntBinCase &Case : intBinaryCases()) {
    SCOPED_TRACE(Case.Name);
    auto Got = elementwise(
        [&](KernelBuilder &K) {
          K.emit(Case.Op, {8, 6, 7});
        },
        A, B, C);
    std::vector<uint32_t> Want;
    for (size_t I = 0; I < A.size(); ++I)
      Want.push_back(Case.Ref(A[I], B[I]));
    expectAll(Case.Name, Got, Want, A, B);
  }
}

TEST_F(IssTest, DivisionEdgeCasesFollowTheTd) {
  // INT_MIN / -1, x / 0 and x % 0 spelled out, independent of the table above.
  std::vector<uint32_t> A = {0x80000000u, 7,           0xfffffff9u,
                             5,           0x80000000u, 12345};
  std::vector<uint32_t> B = {0xffffffffu, 0, 0, 0, 0xffffffffu, 0};
  A.resize(128, 1);
  B.resize(128, 1);
  std::vector<uint32_t> C(128, 0);
  auto Div = elementwise(
      [](KernelBuilder &K) {
        K.emit(Opcode::DIV, {8, 6, 7});
      },
      A, B, C);
  auto Rem = elementwise(
      [](KernelBuilder &K) {
        K.emit(Opcode::REM, {8, 6, 7});
      },
      A, B, C);
  auto Divu = elementwise(
      [](KernelBuilder &K) {
        K.emit(Opcode::DIVU, {8, 6, 7});
      },
      A, B, C);
  auto Remu = elementwise(
      [](KernelBuilder &K) {
        K.emit(Opcode::REMU, {8, 6, 7});
      },
      A, B, C);
  ASSERT_EQ(Div.size(), 128u);
  EXPECT_EQ(Div[0], 0x80000000u); // INT_MIN / -1 = INT_MIN
  EXPECT_EQ(Rem[0], 0u);          // INT_MIN % -1 = 0
  EXPECT_EQ(Div[1], 0xffffffffu); // x / 0 = -1
  EXPECT_EQ(Div[2], 0xffffffffu);
  EXPECT_EQ(Rem[1], 7u); // x % 0 = x
  EXPECT_EQ(Rem[2], 0xfffffff9u);
  EXPECT_EQ(Divu[3], 0xffffffffu);
  EXPECT_EQ(Remu[3], 5u);
  EXPECT_EQ(Divu[4], 0u); // 0x80000000 / 0xffffffff unsigned
  EXPECT_EQ(Remu[4], 0x80000000u);
  EXPECT_EQ(Rem[5], 12345u);
}

TEST_F(IssTest, ShiftCountsOf32OrMore) {
  std::vector<uint32_t> A = {0x80000001u, 0x80000001u, 0x80000001u, 0x7fffffffu,
                             0xf0f0f0f0u};
  std::vector<uint32_t> B = {31, 32, 0xffffffffu, 40, 32};
  A.resize(128, 3);
  B.resize(128, 1);
  std::vector<uint32_t> C(128, 0);
  auto Shl = elementwise(
      [](KernelBuilder &K) {
        K.emit(Opcode::SHL, {8, 6, 7});
      },
      A, B, C);
  auto Shr = elementwise(
      [](KernelBuilder &K) {
        K.emit(Opcode::SHR, {8, 6, 7});
      },
      A, B, C);
  auto Sra = elementwise(
      [](KernelBuilder &K) {
        K.emit(Opcode::SRA, {8, 6, 7});
      },
      A, B, C);
  ASSERT_EQ(Shl.size(), 128u);
  EXPECT_EQ(Shl[0], 0x80000000u);
  EXPECT_EQ(Shl[1], 0u);
  EXPECT_EQ(Shl[2], 0u);
  EXPECT_EQ(Shr[0], 1u);
  EXPECT_EQ(Shr[1], 0u);
  EXPECT_EQ(Sra[0], 0xffffffffu);
  EXPECT_EQ(Sra[1], 0xffffffffu); // the sign in every bit
  EXPECT_EQ(Sra[2], 0xffffffffu);
  EXPECT_EQ(Sra[3], 0u);
  EXPECT_EQ(Sra[4], 0xffffffffu);
}

TEST_F(IssTest, IntegerUnaryOpsAndSelect) {
  std::vector<uint32_t> A, B;
  intOperands(Rng, A, B);
  std::vector<uint32_t> C;
  for (size_t I = 0; I < A.size(); ++I)
    C.push_back(I % 3 == 0 ? 0 : uint32_t(Rng()));
  auto Brev = [](uint32_t V) {
    uint32_t R = 0;
    for (int I = 0; I < 32; ++I)
      R |= ((V >> I) & 1u) << (31 - I);
    return R;
  };
  struct Case {
    Opcode Op;
    const char *Name;
    std::function<uint32_t(uint32_t)> Ref;
  };
  for (const Case &U : std::vector<Case>{
           {Opcode::MOV, "mov", [](uint32_t V) { return V; }},
           {Opcode::POPC, "popc",
            [](uint32_t V) { return uint32_t(std::popcount(V)); }},
           {Opcode::CLZ, "clz",
            [](uint32_t V) { return uint32_t(std::countl_zero(V)); }},
           {Opcode::BREV, "brev", Brev},
           {Opcode::FNEG, "fneg", [](uint32_t V) { return V ^ 0x80000000u; }},
           {Opcode::FABS, "fabs", [](uint32_t V) { return V & 0x7fffffffu; }},
       }) {
    SCOPED_TRACE(U.Name);
    auto Got = elementwise(
        [&](KernelBuilder &K) {
          K.emit(U.Op, {8, 6});
        },
        A, B, C);
    std::vector<uint32_t> Want;
    for (uint32_t V : A)
      Want.push_back(U.Ref(V));
    expectAll(U.Name, Got, Want, A, B);
  }
  // sel rd, cond, t, f: cond from c, t from a, f from b.
  auto Sel = elementwise(
      [](KernelBuilder &K) {
        K.emit(Opcode::SEL, {8, 9, 6, 7});
      },
      A, B, C);
  std::vector<uint32_t> Want;
  for (size_t I = 0; I < A.size(); ++I)
    Want.push_back(C[I] != 0 ? A[I] : B[I]);
  expectAll("sel", Sel, Want, C, A);
}

TEST_F(IssTest, ImmediateOpsSignExtendAndMaskShiftCounts) {
  std::vector<uint32_t> A, B;
  intOperands(Rng, A, B);
  std::vector<uint32_t> C(A.size(), 0);
  struct Case {
    Opcode Op;
    const char *Name;
    std::function<uint32_t(uint32_t, int32_t)> Ref;
  };
  std::vector<Case> Cases = {
      {Opcode::ADDI, "addi",
       [](uint32_t A, int32_t I) { return A + uint32_t(I); }},
      {Opcode::ANDI, "andi",
       [](uint32_t A, int32_t I) { return A & uint32_t(I); }},
      {Opcode::ORI, "ori",
       [](uint32_t A, int32_t I) { return A | uint32_t(I); }},
      {Opcode::XORI, "xori",
       [](uint32_t A, int32_t I) { return A ^ uint32_t(I); }},
      {Opcode::SHLI, "shli",
       [](uint32_t A, int32_t I) { return A << (I & 31); }},
      {Opcode::SHRI, "shri",
       [](uint32_t A, int32_t I) { return A >> (I & 31); }},
      {Opcode::SRAI, "srai",
       [](uint32_t A, int32_t I) { return uint32_t(s(A) >> (I & 31)); }},
      {Opcode::SETEQI, "seteqi",
       [](uint32_t A, int32_t I) { return uint32_t(s(A) == I); }},
      {Opcode::SETNEI, "setnei",
       [](uint32_t A, int32_t I) { return uint32_t(s(A) != I); }},
      {Opcode::SETLTI, "setlti",
       [](uint32_t A, int32_t I) { return uint32_t(s(A) < I); }},
      {Opcode::SETLTUI, "setltui",
       [](uint32_t A, int32_t I) { return uint32_t(A < uint32_t(I)); }},
      {Opcode::SETGTI, "setgti",
       [](uint32_t A, int32_t I) { return uint32_t(s(A) > I); }},
      {Opcode::SETGTUI, "setgtui",
       [](uint32_t A, int32_t I) { return uint32_t(A > uint32_t(I)); }},
      {Opcode::MULI, "muli",
       [](uint32_t A, int32_t I) { return A * uint32_t(I); }},
  };
  std::vector<int32_t> Imms = {
      -2048, -1, 0, 1, 31, 32, 33, 2047, int32_t(Rng() % 4096) - 2048};
  for (const Case &Cs : Cases)
    for (int32_t Imm : Imms) {
      SCOPED_TRACE(std::string(Cs.Name) + " imm " + std::to_string(Imm));
      auto Got = elementwise(
          [&](KernelBuilder &K) {
            K.emit(Cs.Op, {8, 6, Imm});
          },
          A, B, C);
      std::vector<uint32_t> Want;
      for (uint32_t V : A)
        Want.push_back(Cs.Ref(V, Imm));
      expectAll(Cs.Name, Got, Want, A,
                std::vector<uint32_t>(A.size(), uint32_t(Imm)));
    }
}

TEST_F(IssTest, MoviSignExtendsAndMovtKeepsTheLowHalf) {
  std::vector<uint32_t> A(128, 0), C(128, 0);
  std::vector<uint32_t> B;
  for (int I = 0; I < 128; ++I)
    B.push_back(uint32_t(Rng()));
  for (int32_t Imm : {-131072, 131071, -1, 0, 12345}) {
    auto Got = elementwise(
        [&](KernelBuilder &K) {
          K.emit(Opcode::MOVI, {8, Imm});
        },
        A, B, C);
    ASSERT_EQ(Got.size(), 128u);
    EXPECT_EQ(Got[17], uint32_t(Imm)) << Imm;
  }
  // movt on r7 (random per lane) keeps each lane's low half.
  auto Got = elementwise(
      [](KernelBuilder &K) {
        K.emit(Opcode::MOV, {8, 7}).emit(Opcode::MOVT, {8, 0xbeef});
      },
      A, B, C);
  for (size_t I = 0; I < 128; ++I)
    EXPECT_EQ(Got[I], 0xbeef0000u | (B[I] & 0xffff)) << I;
  // The li expansion: movi lo16 then movt hi16 builds any constant.
  uint32_t V = uint32_t(Rng()) | 0x80000000u;
  Got = elementwise(
      [&](KernelBuilder &K) {
        K.emit(Opcode::MOVI, {8, V & 0xffff}).emit(Opcode::MOVT, {8, V >> 16});
      },
      A, B, C);
  EXPECT_EQ(Got[5], V);
}

TEST_F(IssTest, RegisterZeroReadsZeroAndIgnoresWrites) {
  std::vector<uint32_t> A, B, C(128, 0);
  for (int I = 0; I < 128; ++I) {
    A.push_back(uint32_t(Rng()) | 1);
    B.push_back(uint32_t(Rng()) | 1);
  }
  auto Got = elementwise(
      [](KernelBuilder &K) {
        K.emit(Opcode::ADD, {0, 6, 7})
            .emit(Opcode::MOVI, {0, 77})
            .emit(Opcode::S2R, {0, sr(SpecialReg::LANEID)})
            .emit(Opcode::ADD, {8, 0, 0})
            .emit(Opcode::OR, {8, 8, 0});
      },
      A, B, C);
  for (uint32_t V : Got)
    ASSERT_EQ(V, 0u);
}

//===----------------------------------------------------------------------===//
// Floating point
//===----------------------------------------------------------------------===//

const std::vector<uint32_t> FloatSpecials = {
    0x00000000, 0x80000000,             // +-0
    0x7f800000, 0xff800000,             // +-inf
    0x7fc00000, 0x7fa00001, 0xffc00123, // quiet, signaling, negative NaN
    0x3f800000, 0xbf800000, 0x3f000000,
    0x3fc00000, 0x40200000,             // 1 -1 .5 1.5 2.5
    0x7f7fffff, 0xff7fffff,             // +-FLT_MAX
    0x00800000, 0x80800000,             // +-FLT_MIN
    0x00000001, 0x007fffff, 0x80000003, // subnormals
    0x4b800000, 0x4b800001,             // 2^24, 2^24 + 2
    0x3f800001, 0x33800000,             // 1 + ulp, 2^-24
};

uint32_t randomFloat(std::mt19937 &Rng) {
  switch (Rng() % 4) {
  case 0:
    return uint32_t(Rng()); // anything, NaNs included
  case 1:                   // moderate magnitudes
    return (Rng() & 0x807fffffu) | ((100 + Rng() % 55) << 23);
  case 2: // subnormal or tiny
    return (Rng() & 0x807fffffu) | ((Rng() % 3) << 23);
  default: // small integers and halves
    return bitsOf(float(int(Rng() % 64) - 32) / 2.0f);
  }
}

void floatOperands(std::mt19937 &Rng, std::vector<uint32_t> &A,
                   std::vector<uint32_t> &B, std::vector<uint32_t> &C) {
  for (uint32_t X : FloatSpecials)
    for (uint32_t Y : FloatSpecials) {
      A.push_back(X);
      B.push_back(Y);
      C.push_back(FloatSpecials[(A.size() * 7) % FloatSpecials.size()]);
    }
  while (A.size() % 128 || A.size() < 2048) {
    A.push_back(randomFloat(Rng));
    B.push_back(randomFloat(Rng));
    C.push_back(randomFloat(Rng));
  }
}

/// The bits of a correctly rounded float from a double result: double has
/// more than 2 * 24 + 2 bits, so rounding a double +, -, *, / or sqrt of
/// floats to float again is the same as rounding once.
uint32_t viaDouble(double D) {
  float F = float(D);
  return F != F ? CanonNaN : bitsOf(F);
}

TEST_F(IssTest, FloatArithmeticIsCorrectlyRoundedWithCanonicalNaN) {
  std::vector<uint32_t> A, B, C;
  floatOperands(Rng, A, B, C);
  struct Case {
    Opcode Op;
    const char *Name;
    std::function<uint32_t(double, double)> Ref;
  };
  for (const Case &Cs : std::vector<Case>{
           {Opcode::FADD, "fadd",
            [](double X, double Y) { return viaDouble(X + Y); }},
           {Opcode::FSUB, "fsub",
            [](double X, double Y) { return viaDouble(X - Y); }},
           {Opcode::FMUL, "fmul",
            [](double X, double Y) { return viaDouble(X * Y); }},
           {Opcode::FDIV, "fdiv",
            [](double X, double Y) { return viaDouble(X / Y); }},
       }) {
    SCOPED_TRACE(Cs.Name);
    auto Got = elementwise(
        [&](KernelBuilder &K) {
          K.emit(Cs.Op, {8, 6, 7});
        },
        A, B, C);
    std::vector<uint32_t> Want;
    for (size_t I = 0; I < A.size(); ++I)
      Want.push_back(Cs.Ref(double(floatOf(A[I])), double(floatOf(B[I]))));
    expectAll(Cs.Name, Got, Want, A, B);
  }
  auto Sqrt = elementwise(
      [](KernelBuilder &K) {
        K.emit(Opcode::FSQRT, {8, 6});
      },
      A, B, C);
  std::vector<uint32_t> Want;
  for (uint32_t V : A)
    Want.push_back(viaDouble(std::sqrt(double(floatOf(V)))));
  expectAll("fsqrt", Sqrt, Want, A, A);
}

TEST_F(IssTest, FfmaRoundsOnceLikeFmaf) {
  std::vector<uint32_t> A, B, C;
  floatOperands(Rng, A, B, C);
  // (1 + 2^-23)^2 - (1 + 2^-22) is 2^-46 fused, 0 when the product is rounded.
  A[0] = B[0] = 0x3f800001u;
  C[0] = bitsOf(-floatOf(0x3f800002u));
  auto Got = elementwise(
      [](KernelBuilder &K) {
        K.emit(Opcode::FFMA, {8, 6, 7, 9});
      },
      A, B, C);
  ASSERT_EQ(Got.size(), A.size());
  EXPECT_EQ(Got[0], bitsOf(std::ldexp(1.0f, -46)));
  std::vector<uint32_t> Want;
  for (size_t I = 0; I < A.size(); ++I) {
    float R = std::fmaf(floatOf(A[I]), floatOf(B[I]), floatOf(C[I]));
    Want.push_back(R != R ? CanonNaN : bitsOf(R));
  }
  expectAll("ffma", Got, Want, A, B);
}

TEST_F(IssTest, NaNResultsAreCanonicalAndSubnormalsAreKept) {
  float Inf = std::numeric_limits<float>::infinity();
  // a op b for: inf-inf, 0*inf, 0/0, sNaN+1, -NaN*2, FLT_MIN*0.5,
  // minsub+minsub, 1+2^-24 tie
  std::vector<uint32_t> A = {bitsOf(Inf), 0,           0,
                             0x7fa00001u, 0xffc00123u, 0x00800000u,
                             1,           0x3f800000u, 0x3f800001u};
  std::vector<uint32_t> B = {bitsOf(Inf),  bitsOf(Inf),  0, bitsOf(1.0f),
                             bitsOf(2.0f), bitsOf(0.5f), 1, 0x33800000u,
                             0x33800000u};
  std::vector<Opcode> Ops = {Opcode::FSUB, Opcode::FMUL, Opcode::FDIV,
                             Opcode::FADD, Opcode::FMUL, Opcode::FMUL,
                             Opcode::FADD, Opcode::FADD, Opcode::FADD};
  std::vector<uint32_t> Want = {
      CanonNaN,    CanonNaN, CanonNaN, CanonNaN, CanonNaN,
      0x00400000u,  // subnormal product, not flushed
      0x00000002u,  // subnormal sum
      0x3f800000u,  // 1 + 2^-24: tie, to even (down)
      0x3f800002u}; // (1 + 2^-23) + 2^-24: tie, to even (up)
  for (size_t I = 0; I < Ops.size(); ++I) {
    std::vector<uint32_t> VA(128, A[I]), VB(128, B[I]), VC(128, 0);
    auto Got = elementwise(
        [&](KernelBuilder &K) {
          K.emit(Ops[I], {8, 6, 7});
        },
        VA, VB, VC);
    ASSERT_EQ(Got.size(), 128u);
    EXPECT_EQ(Got[3], Want[I]) << "case " << I;
  }
  // fsqrt: negative -> NaN (canonical), -0 -> -0.
  std::vector<uint32_t> SA = {bitsOf(-4.0f), 0x80000000u, 0xffc00001u,
                              0x00000001u};
  SA.resize(128, bitsOf(9.0f));
  std::vector<uint32_t> Z(128, 0);
  auto Sq = elementwise(
      [](KernelBuilder &K) {
        K.emit(Opcode::FSQRT, {8, 6});
      },
      SA, Z, Z);
  ASSERT_EQ(Sq.size(), 128u);
  EXPECT_EQ(Sq[0], CanonNaN);
  EXPECT_EQ(Sq[1], 0x80000000u);
  EXPECT_EQ(Sq[2], CanonNaN);
  EXPECT_EQ(Sq[3],
            bitsOf(std::sqrt(floatOf(1)))); // sqrt of the smallest subnormal
  EXPECT_EQ(Sq[4], bitsOf(3.0f));
}

uint32_t refFMin(uint32_t A, uint32_t B) {
  bool NA = std::isnan(floatOf(A)), NB = std::isnan(floatOf(B));
  if (NA && NB)
    return CanonNaN;
  if (NA)
    return B;
  if (NB)
    return A;
  if (floatOf(A) < floatOf(B))
    return A;
  if (floatOf(B) < floatOf(A))
    return B;
  return (A >> 31) ? A : B; // equal: -0 is the smaller zero
}
uint32_t refFMax(uint32_t A, uint32_t B) {
  bool NA = std::isnan(floatOf(A)), NB = std::isnan(floatOf(B));
  if (NA && NB)
    return CanonNaN;
  if (NA)
    return B;
  if (NB)
    return A;
  if (floatOf(A) > floatOf(B))
    return A;
  if (floatOf(B) > floatOf(A))
    return B;
  return (A >> 31) ? B : A;
}

TEST_F(IssTest, FminFmaxPreferNumbersAndOrderSignedZeros) {
  std::vector<uint32_t> A, B, C;
  floatOperands(Rng, A, B, C);
  auto Min = elementwise(
      [](KernelBuilder &K) {
        K.emit(Opcode::FMIN, {8, 6, 7});
      },
      A, B, C);
  auto Max = elementwise(
      [](KernelBuilder &K) {
        K.emit(Opcode::FMAX, {8, 6, 7});
      },
      A, B, C);
  std::vector<uint32_t> WMin, WMax;
  for (size_t I = 0; I < A.size(); ++I) {
    WMin.push_back(refFMin(A[I], B[I]));
    WMax.push_back(refFMax(A[I], B[I]));
  }
  expectAll("fmin", Min, WMin, A, B);
  expectAll("fmax", Max, WMax, A, B);
  // Spelled out: fmin(+0, -0) = -0, fmax(-0, +0) = +0, fmin(NaN, 3) = 3.
  std::vector<uint32_t> ZA = {0, 0x80000000u, 0x7fc00000u};
  std::vector<uint32_t> ZB = {0x80000000u, 0, bitsOf(3.0f)};
  ZA.resize(128, 0);
  ZB.resize(128, 0);
  std::vector<uint32_t> Z(128, 0);
  auto M1 = elementwise(
      [](KernelBuilder &K) {
        K.emit(Opcode::FMIN, {8, 6, 7});
      },
      ZA, ZB, Z);
  auto M2 = elementwise(
      [](KernelBuilder &K) {
        K.emit(Opcode::FMAX, {8, 6, 7});
      },
      ZA, ZB, Z);
  ASSERT_EQ(M1.size(), 128u);
  EXPECT_EQ(M1[0], 0x80000000u);
  EXPECT_EQ(M2[1], 0u);
  EXPECT_EQ(M1[2], bitsOf(3.0f));
}

TEST_F(IssTest, FloatComparisonsAreOrdered) {
  std::vector<uint32_t> A, B, C;
  floatOperands(Rng, A, B, C);
  struct Case {
    Opcode Op;
    const char *Name;
    std::function<bool(double, double)> Ref;
  };
  for (const Case &Cs : std::vector<Case>{
           {Opcode::FSETEQ, "fseteq",
            [](double X, double Y) { return X == Y; }},
           {Opcode::FSETNE, "fsetne",
            [](double X, double Y) { return X < Y || X > Y; }},
           {Opcode::FSETLT, "fsetlt", [](double X, double Y) { return X < Y; }},
           {Opcode::FSETLE, "fsetle",
            [](double X, double Y) { return X <= Y; }},
           {Opcode::FSETNAN, "fsetnan",
            [](double X, double Y) { return std::isnan(X) || std::isnan(Y); }},
       }) {
    SCOPED_TRACE(Cs.Name);
    auto Got = elementwise(
        [&](KernelBuilder &K) {
          K.emit(Cs.Op, {8, 6, 7});
        },
        A, B, C);
    std::vector<uint32_t> Want;
    for (size_t I = 0; I < A.size(); ++I)
      Want.push_back(Cs.Ref(floatOf(A[I]), floatOf(B[I])));
    expectAll(Cs.Name, Got, Want, A, B);
  }
}

uint32_t refCvtS32(uint32_t U) {
  double D = floatOf(U);
  if (std::isnan(D))
    return 0;
  D = std::trunc(D);
  if (D > 2147483647.0)
    return 0x7fffffffu;
  if (D < -2147483648.0)
    return 0x80000000u;
  return uint32_t(int32_t(D));
}
uint32_t refCvtU32(uint32_t U) {
  double D = floatOf(U);
  if (std::isnan(D))
    return 0;
  D = std::trunc(D);
  if (D > 4294967295.0)
    return 0xffffffffu;
  if (D < 0)
    return 0;
  return uint32_t(D);
}

TEST_F(IssTest, ConversionsTruncateSaturateAndRoundToNearestEven) {
  std::vector<uint32_t> A, B, C;
  floatOperands(Rng, A, B, C);
  std::vector<uint32_t> Fl = {bitsOf(2147483648.0f),  bitsOf(-2147483648.0f),
                              bitsOf(-2147483904.0f), bitsOf(1.9f),
                              bitsOf(-1.9f),          bitsOf(-0.75f),
                              bitsOf(4294967296.0f),  bitsOf(4294967040.0f)};
  std::copy(Fl.begin(), Fl.end(), A.begin());
  auto S = elementwise(
      [](KernelBuilder &K) {
        K.emit(Opcode::CVT_S32_F32, {8, 6});
      },
      A, B, C);
  auto U = elementwise(
      [](KernelBuilder &K) {
        K.emit(Opcode::CVT_U32_F32, {8, 6});
      },
      A, B, C);
  std::vector<uint32_t> WS, WU;
  for (uint32_t V : A) {
    WS.push_back(refCvtS32(V));
    WU.push_back(refCvtU32(V));
  }
  expectAll("cvt.s32.f32", S, WS, A, A);
  expectAll("cvt.u32.f32", U, WU, A, A);
  ASSERT_EQ(S.size(), A.size());
  EXPECT_EQ(S[0], 0x7fffffffu);
  EXPECT_EQ(S[1], 0x80000000u);
  EXPECT_EQ(S[2], 0x80000000u);
  EXPECT_EQ(S[3], 1u);
  EXPECT_EQ(S[4], uint32_t(-1));
  EXPECT_EQ(U[5], 0u);
  EXPECT_EQ(U[6], 0xffffffffu);
  EXPECT_EQ(U[7], 4294967040u);

  std::vector<uint32_t> I, J, Z;
  intOperands(Rng, I, J);
  std::copy_n(
      std::vector<uint32_t>{16777217u, 16777219u, 0xffffffffu, 0x80000000u}
          .begin(),
      4, I.begin());
  Z.assign(I.size(), 0);
  auto FS = elementwise(
      [](KernelBuilder &K) {
        K.emit(Opcode::CVT_F32_S32, {8, 6});
      },
      I, J, Z);
  auto FU = elementwise(
      [](KernelBuilder &K) {
        K.emit(Opcode::CVT_F32_U32, {8, 6});
      },
      I, J, Z);
  std::vector<uint32_t> WFS, WFU;
  for (uint32_t V : I) {
    WFS.push_back(bitsOf(float(double(int32_t(V)))));
    WFU.push_back(bitsOf(float(double(V))));
  }
  expectAll("cvt.f32.s32", FS, WFS, I, I);
  expectAll("cvt.f32.u32", FU, WFU, I, I);
  ASSERT_EQ(FS.size(), I.size());
  EXPECT_EQ(FS[0], bitsOf(16777216.0f)); // tie to even (down)
  EXPECT_EQ(FS[1], bitsOf(16777220.0f)); // tie to even (up)
  EXPECT_EQ(FU[2], bitsOf(4294967296.0f));
  EXPECT_EQ(FS[3], bitsOf(-2147483648.0f));
}

TEST_F(IssTest, RoundingToIntegralFloats) {
  std::vector<uint32_t> A, B, C;
  floatOperands(Rng, A, B, C);
  struct Case {
    Opcode Op;
    const char *Name;
    std::function<double(double)> Ref;
  };
  for (const Case &Cs : std::vector<Case>{
           {Opcode::FFLOOR, "ffloor", [](double X) { return std::floor(X); }},
           {Opcode::FCEIL, "fceil", [](double X) { return std::ceil(X); }},
           {Opcode::FTRUNC, "ftrunc", [](double X) { return std::trunc(X); }},
           {Opcode::FRINT, "frint", [](double X) { return std::nearbyint(X); }},
       }) {
    SCOPED_TRACE(Cs.Name);
    auto Got = elementwise(
        [&](KernelBuilder &K) {
          K.emit(Cs.Op, {8, 6});
        },
        A, B, C);
    std::vector<uint32_t> Want;
    for (uint32_t V : A)
      Want.push_back(viaDouble(Cs.Ref(floatOf(V))));
    expectAll(Cs.Name, Got, Want, A, A);
  }
  std::vector<uint32_t> T = {bitsOf(2.5f), bitsOf(3.5f), bitsOf(-2.5f),
                             bitsOf(-0.4f)};
  T.resize(128, 0);
  std::vector<uint32_t> Z(128, 0);
  auto R = elementwise(
      [](KernelBuilder &K) {
        K.emit(Opcode::FRINT, {8, 6});
      },
      T, Z, Z);
  ASSERT_EQ(R.size(), 128u);
  EXPECT_EQ(R[0], bitsOf(2.0f));
  EXPECT_EQ(R[1], bitsOf(4.0f));
  EXPECT_EQ(R[2], bitsOf(-2.0f));
  EXPECT_EQ(R[3], 0x80000000u); // -0.4 rounds to -0
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

TEST_F(IssTest, SubWordLoadsExtendAndStoresTouchOnlyTheirBytes) {
  // Thread i loads u8/s8/u16/s16 at byte offset (i * 3) % 256 and stores
  // byte and halfword copies into a poisoned buffer.
  constexpr unsigned N = 128;
  std::vector<uint32_t> In(64);
  for (uint32_t &V : In)
    V = uint32_t(Rng()) | 0x80800000u; // sign bits set in some bytes
  KernelBuilder K("subword");
  K.param("in", ParamKind::Pointer)
      .param("out", ParamKind::Pointer)
      .param("bytes", ParamKind::Pointer);
  indexPrologue(K);
  K.emit(Opcode::MULI, {3, 1, 3})
      .emit(Opcode::ANDI, {3, 3, 254}) // even offset, so u16 is aligned
      .emit(Opcode::PARAM_LD_U32, {4, 0, 0})
      .emit(Opcode::ADD, {4, 4, 3}) // &in_bytes[off]
      .emit(Opcode::GLOBAL_LD_U8, {10, 4, 1})
      .emit(Opcode::GLOBAL_LD_S8, {11, 4, 1})
      .emit(Opcode::GLOBAL_LD_U16, {12, 4, 0})
      .emit(Opcode::GLOBAL_LD_S16, {13, 4, 0})
      .emit(Opcode::SHLI, {5, 1, 4}) // 16 bytes of output per thread
      .emit(Opcode::PARAM_LD_U32, {6, 0, 4})
      .emit(Opcode::ADD, {6, 6, 5})
      .emit(Opcode::GLOBAL_ST_U32, {6, 0, 10})
      .emit(Opcode::GLOBAL_ST_U32, {6, 4, 11})
      .emit(Opcode::GLOBAL_ST_U32, {6, 8, 12})
      .emit(Opcode::GLOBAL_ST_U32, {6, 12, 13})
      .emit(Opcode::PARAM_LD_U32,
            {7, 0, 8}) // bytes[4 * i + 1] = u8, bytes[4i+2..3] = u16
      .emit(Opcode::ADD, {7, 7, 2})
      .emit(Opcode::GLOBAL_ST_U8, {7, 1, 11})
      .emit(Opcode::GLOBAL_ST_U16, {7, 2, 13})
      .emit(Opcode::EXIT);
  DevicePtr PIn = upload(In), Out = poisoned(N * 4), Bytes = poisoned(N);
  ASSERT_TRUE(launch(
      K, {1, 1, 1}, {N, 1, 1},
      {KernelArg::ptr(PIn), KernelArg::ptr(Out), KernelArg::ptr(Bytes)}));
  auto O = download(Out, N * 4), By = download(Bytes, N);
  const uint8_t *InB = reinterpret_cast<const uint8_t *>(In.data());
  for (unsigned I = 0; I < N; ++I) {
    unsigned Off = (I * 3) & 254;
    uint8_t B1 = InB[Off + 1];
    uint16_t H = uint16_t(InB[Off] | (InB[Off + 1] << 8));
    ASSERT_EQ(O[4 * I + 0], B1) << I;
    ASSERT_EQ(O[4 * I + 1], uint32_t(int32_t(int8_t(B1)))) << I;
    ASSERT_EQ(O[4 * I + 2], H) << I;
    ASSERT_EQ(O[4 * I + 3], uint32_t(int32_t(int16_t(H)))) << I;
    uint32_t WantWord =
        (Poison & 0xffu) | (uint32_t(B1) << 8) | (uint32_t(H) << 16);
    ASSERT_EQ(By[I], WantWord) << I;
  }
}

TEST_F(IssTest, StoresOfOneWarpToOneAddressResolveInLaneOrder) {
  KernelBuilder K("laststore");
  K.param("out", ParamKind::Pointer).param("mask");
  K.emit(Opcode::EMASK_GET, {20})
      .emit(Opcode::S2R, {1, sr(SpecialReg::LANEID)})
      .emit(Opcode::PARAM_LD_U32, {3, 0, 0})
      .emit(Opcode::PARAM_LD_U32, {4, 0, 4})
      .emit(Opcode::EMASK_SET, {4})
      .emit(Opcode::ADDI, {5, 1, 100})
      .emit(Opcode::GLOBAL_ST_U32, {3, 0, 5})
      .emit(Opcode::EMASK_SET, {20})
      .emit(Opcode::EXIT);
  for (uint32_t Mask : {0xffffffffu, 0x7ffffff0u, uint32_t(Rng()) | 1u}) {
    DevicePtr Out = poisoned(1);
    ASSERT_TRUE(launch(K, {1, 1, 1}, {32, 1, 1},
                       {KernelArg::ptr(Out), KernelArg::u32(Mask)}));
    EXPECT_EQ(download(Out, 1)[0], 100u + (31 - std::countl_zero(Mask)))
        << hex(Mask);
  }
}

TEST_F(IssTest, ParamAndConstLoads) {
  std::vector<uint8_t> Const(512);
  for (uint8_t &B : Const)
    B = uint8_t(Rng());
  KernelBuilder K("consts");
  K.param("out", ParamKind::Pointer).param("k", ParamKind::U32);
  indexPrologue(K);
  K.emit(Opcode::CONST_LD_U32, {6, 2, 0})
      .emit(Opcode::PARAM_LD_U32, {7, 0, 4})
      .emit(Opcode::ADD, {6, 6, 7});
  elementAddress(K, 5, 0);
  K.emit(Opcode::GLOBAL_ST_U32, {5, 0, 6}).emit(Opcode::EXIT);
  uint32_t KVal = uint32_t(Rng());
  DevicePtr Out = poisoned(128);
  ASSERT_TRUE(launch(K, {1, 1, 1}, {128, 1, 1},
                     {KernelArg::ptr(Out), KernelArg::u32(KVal)}, 0, Const));
  auto O = download(Out, 128);
  for (unsigned I = 0; I < 128; ++I) {
    uint32_t W;
    std::memcpy(&W, Const.data() + 4 * I, 4);
    ASSERT_EQ(O[I], W + KVal) << I;
  }
}

TEST_F(IssTest, LocalMemoryIsPrivatePerThreadAndInterleavedPerWarp) {
  // The layout the ISA fixes: word W of lane L at (W * 32 + L) * 4.
  EXPECT_EQ(localWarpOffset(0, 0), 0u);
  EXPECT_EQ(localWarpOffset(0, 1), 4u);
  EXPECT_EQ(localWarpOffset(4, 0), 128u);
  EXPECT_EQ(localWarpOffset(5, 3), (1u * 32 + 3) * 4 + 1);
  EXPECT_EQ(localWarpOffset(62, 31), (15u * 32 + 31) * 4 + 2);

  // Every thread writes its own values at the same local addresses (words,
  // a byte and a halfword inside one word) and reads them back.
  KernelBuilder K("local");
  K.param("out", ParamKind::Pointer).local(64);
  indexPrologue(K);
  K.emit(Opcode::MULI, {3, 1, 7})
      .emit(Opcode::LOCAL_ST_U32, {0, 0, 1})
      .emit(Opcode::LOCAL_ST_U32, {0, 60, 3})
      .emit(Opcode::LOCAL_ST_U32, {0, 8, 3})
      .emit(Opcode::LOCAL_ST_U8, {0, 9, 1})   // byte 1 of word 2
      .emit(Opcode::LOCAL_ST_U16, {0, 10, 1}) // high half of word 2
      .emit(Opcode::LOCAL_LD_U32, {10, 0, 0})
      .emit(Opcode::LOCAL_LD_U32, {11, 0, 60})
      .emit(Opcode::LOCAL_LD_U32, {12, 0, 8})
      .emit(Opcode::LOCAL_LD_S8, {13, 0, 9})
      .emit(Opcode::SHLI, {5, 1, 4})
      .emit(Opcode::PARAM_LD_U32, {6, 0, 0})
      .emit(Opcode::ADD, {6, 6, 5})
      .emit(Opcode::GLOBAL_ST_U32, {6, 0, 10})
      .emit(Opcode::GLOBAL_ST_U32, {6, 4, 11})
      .emit(Opcode::GLOBAL_ST_U32, {6, 8, 12})
      .emit(Opcode::GLOBAL_ST_U32, {6, 12, 13})
      .emit(Opcode::EXIT);
  constexpr unsigned N =
      200; // 2 blocks of 100: the last warp of each is partial
  DevicePtr Out = poisoned(N * 4);
  ASSERT_TRUE(launch(K, {2, 1, 1}, {100, 1, 1}, {KernelArg::ptr(Out)}));
  auto O = download(Out, N * 4);
  for (uint32_t I = 0; I < N; ++I) {
    uint32_t Word2 =
        ((I * 7) & 0xffu) | ((I & 0xffu) << 8) | ((I & 0xffffu) << 16);
    ASSERT_EQ(O[4 * I], I);
    ASSERT_EQ(O[4 * I + 1], I * 7);
    ASSERT_EQ(O[4 * I + 2], Word2) << I;
    ASSERT_EQ(O[4 * I + 3], uint32_t(int32_t(int8_t(I & 0xff))));
  }
  EXPECT_EQ(Dev->counters().get("local_store_bytes"), N * (4 + 4 + 4 + 1 + 2));
  EXPECT_EQ(Dev->counters().get("local_load_bytes"), N * (4 + 4 + 4 + 1));
}

//===----------------------------------------------------------------------===//
// Divergence
//===----------------------------------------------------------------------===//

TEST_F(IssTest, IfElseThroughExecMasks) {
  // out[i] = (in[i] odd) ? in[i] * 3 : in[i] + 1000, both sides under masks.
  KernelBuilder K("ifelse");
  K.param("in", ParamKind::Pointer).param("out", ParamKind::Pointer);
  auto Else = K.newLabel(), Join = K.newLabel();
  indexPrologue(K);
  elementAddress(K, 3, 0);
  elementAddress(K, 5, 1);
  K.emit(Opcode::GLOBAL_LD_U32, {6, 3, 0})
      .emit(Opcode::EMASK_GET, {20})
      .emit(Opcode::ANDI, {7, 6, 1})
      .emit(Opcode::EMASK_AND, {7})
      .branch(Opcode::BNONE, Else)
      .emit(Opcode::MULI, {8, 6, 3})
      .bind(Else)
      .emit(Opcode::EMASK_SET, {20})
      .emit(Opcode::EMASK_ANDN, {7})
      .branch(Opcode::BNONE, Join)
      .emit(Opcode::ADDI, {8, 6, 1000})
      .bind(Join)
      .emit(Opcode::EMASK_SET, {20})
      .emit(Opcode::GLOBAL_ST_U32, {5, 0, 8})
      .emit(Opcode::EXIT);
  std::vector<uint32_t> In(256);
  for (uint32_t &V : In)
    V = uint32_t(Rng());
  for (int I = 0; I < 32;
       ++I) // one warp entirely even: its then-side is skipped
    In[64 + I] &= ~1u;
  DevicePtr PIn = upload(In), Out = poisoned(256);
  ASSERT_TRUE(launch(K, {2, 1, 1}, {128, 1, 1},
                     {KernelArg::ptr(PIn), KernelArg::ptr(Out)}));
  auto O = download(Out, 256);
  for (int I = 0; I < 256; ++I)
    ASSERT_EQ(O[I], (In[I] & 1) ? In[I] * 3 : In[I] + 1000) << I;
  // Every warp but the all-even one ran both sides; active lanes < 100%.
  EXPECT_LT(Dev->counters().get("active_lane_pct_x100"), 10000u);
  EXPECT_GT(Dev->counters().get("branches_taken"), 0u);
}

TEST_F(IssTest, LoopWithDivergentExits) {
  // Thread i sums 1..n[i] (n[i] in 0..40): lanes leave the loop at different
  // trips through emask.and; the warp leaves when no lane is left.
  KernelBuilder K("loop");
  K.param("n", ParamKind::Pointer).param("out", ParamKind::Pointer);
  auto Loop = K.newLabel(), Done = K.newLabel();
  indexPrologue(K);
  elementAddress(K, 3, 0);
  elementAddress(K, 5, 1);
  K.emit(Opcode::GLOBAL_LD_U32, {6, 3, 0})
      .emit(Opcode::EMASK_GET, {20})
      .emit(Opcode::MOVI, {7, 0}) // k
      .emit(Opcode::MOVI, {8, 0}) // sum
      .bind(Loop)
      .emit(Opcode::SETLTU, {9, 7, 6})
      .emit(Opcode::EMASK_AND, {9})
      .branch(Opcode::BNONE, Done)
      .emit(Opcode::ADDI, {7, 7, 1})
      .emit(Opcode::ADD, {8, 8, 7})
      .branch(Opcode::BRA, Loop)
      .bind(Done)
      .emit(Opcode::EMASK_SET, {20})
      .emit(Opcode::GLOBAL_ST_U32, {5, 0, 8})
      .emit(Opcode::EXIT);
  std::vector<uint32_t> N(128);
  for (uint32_t &V : N)
    V = Rng() % 41;
  DevicePtr PN = upload(N), Out = poisoned(128);
  ASSERT_TRUE(launch(K, {1, 1, 1}, {128, 1, 1},
                     {KernelArg::ptr(PN), KernelArg::ptr(Out)}));
  auto O = download(Out, 128);
  for (int I = 0; I < 128; ++I)
    ASSERT_EQ(O[I], N[I] * (N[I] + 1) / 2) << I;
}

TEST_F(IssTest, ExitOfSomeLanesKeepsTheOthersRunning) {
  // Odd threads exit first; even threads then write out[i] = 2 * i.
  KernelBuilder K("partialexit");
  K.param("out", ParamKind::Pointer);
  indexPrologue(K);
  elementAddress(K, 5, 0);
  K.emit(Opcode::EMASK_GET, {20})
      .emit(Opcode::ANDI, {7, 1, 1})
      .emit(Opcode::EMASK_AND, {7})
      .emit(Opcode::EXIT)
      .emit(Opcode::EMASK_SET, {20}) // exec = saved & alive: the even lanes
      .emit(Opcode::ADD, {8, 1, 1})
      .emit(Opcode::GLOBAL_ST_U32, {5, 0, 8})
      .emit(Opcode::EXIT);
  DevicePtr Out = poisoned(96);
  ASSERT_TRUE(launch(K, {1, 1, 1}, {96, 1, 1}, {KernelArg::ptr(Out)}));
  auto O = download(Out, 96);
  for (uint32_t I = 0; I < 96; ++I)
    ASSERT_EQ(O[I], (I & 1) ? Poison : 2 * I) << I;
}

TEST_F(IssTest, ConditionalBranchesAndDivergenceCounter) {
  // bnz branches if any active lane is nonzero, bz only if all are zero.
  KernelBuilder K("branches");
  K.param("out", ParamKind::Pointer);
  auto A = K.newLabel(), B = K.newLabel(), C = K.newLabel();
  indexPrologue(K);
  elementAddress(K, 5, 0);
  K.emit(Opcode::MOVI, {8, 0})
      .emit(Opcode::SETLTUI, {7, 1, 10}) // non-uniform: lanes 0..9
      .branch(Opcode::BNZ, {7}, A)       // taken (some lane set), divergent
      .emit(Opcode::ORI, {8, 8, 1})      // skipped
      .bind(A)
      .branch(Opcode::BZ, {7}, B) // not taken (some lane set), divergent
      .emit(Opcode::ORI, {8, 8, 2})
      .bind(B)
      .branch(Opcode::BZ, {0}, C) // taken, uniform
      .emit(Opcode::ORI, {8, 8, 4})
      .bind(C)
      .branch(Opcode::BNZ, {0}, A) // not taken, uniform
      .emit(Opcode::GLOBAL_ST_U32, {5, 0, 8})
      .emit(Opcode::EXIT);
  DevicePtr Out = poisoned(32);
  ASSERT_TRUE(launch(K, {1, 1, 1}, {32, 1, 1}, {KernelArg::ptr(Out)}));
  for (uint32_t V : download(Out, 32))
    ASSERT_EQ(V, 2u);
  EXPECT_EQ(Dev->counters().get("divergent_branches"), 2u);
  EXPECT_EQ(Dev->counters().get("branches_taken"), 2u);
}

TEST(IssBranchTest, BanyAndBnoneFollowTheExecMask) {
  // With exec = 0 (emask.and of r0), bnone branches and bany falls through;
  // with lanes restored, bany branches. out = 1 + 2 + 4 marks each outcome.
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  DeviceOptions O;
  O.Trace = &OS;
  auto D = openDevice("iss", O);
  ASSERT_TRUE(bool(D)) << llvm::toString(D.takeError());
  KernelBuilder K("bany");
  K.param("out", ParamKind::Pointer);
  auto NoneTaken = K.newLabel(), AnyTaken = K.newLabel(), End = K.newLabel();
  K.emit(Opcode::EMASK_GET, {20})
      .emit(Opcode::MOVI, {8, 0})
      .emit(Opcode::EMASK_AND, {0}) // exec = 0
      .branch(Opcode::BANY, End)    // not taken
      .branch(Opcode::BNONE, NoneTaken)
      .branch(Opcode::BRA, End)
      .bind(NoneTaken)
      .emit(Opcode::EMASK_SET, {20})
      .emit(Opcode::ORI, {8, 8, 1})
      .branch(Opcode::BNONE, End) // not taken: lanes are back
      .emit(Opcode::ORI, {8, 8, 2})
      .branch(Opcode::BANY, AnyTaken)
      .emit(Opcode::ORI, {8, 8, 64}) // skipped
      .bind(AnyTaken)
      .emit(Opcode::ORI, {8, 8, 4})
      .bind(End)
      .emit(Opcode::EMASK_SET, {20})
      .emit(Opcode::PARAM_LD_U32, {3, 0, 0})
      .emit(Opcode::GLOBAL_ST_U32, {3, 0, 8})
      .emit(Opcode::EXIT);
  auto Img = K.build();
  ASSERT_TRUE(bool(Img)) << llvm::toString(Img.takeError());
  ASSERT_FALSE(bool((*D)->loadImage(*Img)));
  auto Out = (*D)->alloc(4);
  ASSERT_TRUE(bool(Out));
  ASSERT_FALSE(
      bool((*D)->write<uint32_t>(*Out, std::vector<uint32_t>{Poison})));
  LaunchParams P;
  P.Kernel = "bany";
  P.Block = {32, 1, 1};
  P.Args = {KernelArg::ptr(*Out)};
  ASSERT_FALSE(bool((*D)->launch(P)));
  std::vector<uint32_t> V(1);
  ASSERT_FALSE(bool((*D)->read<uint32_t>(V, *Out)));
  EXPECT_EQ(V[0], 7u);
  EXPECT_EQ((*D)->counters().get("branches_taken"), 2u);
  EXPECT_NE(Text.find("pc=0x000c mask=00000000 bany 0x34 | not-taken"),
            std::string::npos)
      << Text;
  EXPECT_NE(Text.find("pc=0x0010 mask=00000000 bnone 0x18 | taken->0x0018"),
            std::string::npos)
      << Text;
}

//===----------------------------------------------------------------------===//
// Warp operations
//===----------------------------------------------------------------------===//

/// One warp: exec = mask; out[lane] = OP(in[lane], sel[lane]) in active lanes.
KernelBuilder warpOpKernel(Opcode Op, bool Unary) {
  KernelBuilder K("warpop");
  K.param("in", ParamKind::Pointer)
      .param("sel", ParamKind::Pointer)
      .param("out", ParamKind::Pointer)
      .param("mask");
  indexPrologue(K);
  elementAddress(K, 3, 0);
  elementAddress(K, 4, 1);
  elementAddress(K, 5, 2);
  K.emit(Opcode::GLOBAL_LD_U32, {6, 3, 0})
      .emit(Opcode::GLOBAL_LD_U32, {7, 4, 0})
      .emit(Opcode::EMASK_GET, {20})
      .emit(Opcode::PARAM_LD_U32, {21, 0, 12})
      .emit(Opcode::EMASK_SET, {21});
  if (Unary)
    K.emit(Op, {8, 6});
  else
    K.emit(Op, {8, 6, 7});
  K.emit(Opcode::GLOBAL_ST_U32, {5, 0, 8})
      .emit(Opcode::EMASK_SET, {20})
      .emit(Opcode::EXIT);
  return K;
}

TEST_F(IssTest, ShufflesReadOnlyActiveLanes) {
  struct Case {
    Opcode Op;
    const char *Name;
    std::function<int(unsigned, uint32_t)> Src; // -1: out of range
  };
  std::vector<Case> Cases = {
      {Opcode::SHFL_IDX, "shfl.idx",
       [](unsigned, uint32_t S) { return int(S & 31); }},
      {Opcode::SHFL_UP, "shfl.up",
       [](unsigned L, uint32_t S) { return S <= L ? int(L - S) : -1; }},
      {Opcode::SHFL_DOWN, "shfl.down",
       [](unsigned L, uint32_t S) {
         return uint64_t(L) + S <= 31 ? int(L + S) : -1;
       }},
      {Opcode::SHFL_XOR, "shfl.xor",
       [](unsigned L, uint32_t S) { return int(L ^ (S & 31)); }},
  };
  for (const Case &Cs : Cases)
    for (uint32_t Mask : {0xffffffffu, uint32_t(Rng()), 0x0000ff0fu}) {
      SCOPED_TRACE(std::string(Cs.Name) + " mask " + hex(Mask));
      std::vector<uint32_t> In(32), Sel(32);
      for (unsigned L = 0; L < 32; ++L) {
        In[L] = uint32_t(Rng());
        Sel[L] = Rng() % 3 == 0 ? uint32_t(Rng()) : Rng() % 40;
      }
      DevicePtr PIn = upload(In), PSel = upload(Sel), Out = poisoned(32);
      ASSERT_TRUE(launch(warpOpKernel(Cs.Op, false), {1, 1, 1}, {32, 1, 1},
                         {KernelArg::ptr(PIn), KernelArg::ptr(PSel),
                          KernelArg::ptr(Out), KernelArg::u32(Mask)}));
      auto O = download(Out, 32);
      for (unsigned L = 0; L < 32; ++L) {
        uint32_t Want = Poison;
        if ((Mask >> L) & 1) {
          int S = Cs.Src(L, Sel[L]);
          Want = (S >= 0 && ((Mask >> S) & 1)) ? In[S] : In[L];
        }
        ASSERT_EQ(O[L], Want) << "lane " << L << " sel " << Sel[L];
      }
    }
}

TEST_F(IssTest, VotesSeeOnlyActiveLanes) {
  for (uint32_t Mask : {0xffffffffu, uint32_t(Rng()), 0x00010000u})
    for (int Density : {0, 1, 2}) {
      std::vector<uint32_t> In(32), Sel(32, 0);
      for (unsigned L = 0; L < 32; ++L)
        In[L] = Density == 0   ? 0
                : Density == 2 ? uint32_t(Rng()) | 1
                               : (Rng() % 2) * uint32_t(Rng() | 4);
      uint32_t Ballot = 0;
      for (unsigned L = 0; L < 32; ++L)
        if (((Mask >> L) & 1) && In[L])
          Ballot |= 1u << L;
      for (auto [Op, Want] :
           {std::pair{Opcode::VOTE_ANY, uint32_t(Ballot != 0)},
            std::pair{Opcode::VOTE_ALL, uint32_t(Ballot == Mask)},
            std::pair{Opcode::VOTE_BALLOT, Ballot}}) {
        DevicePtr PIn = upload(In), PSel = upload(Sel), Out = poisoned(32);
        ASSERT_TRUE(launch(warpOpKernel(Op, true), {1, 1, 1}, {32, 1, 1},
                           {KernelArg::ptr(PIn), KernelArg::ptr(PSel),
                            KernelArg::ptr(Out), KernelArg::u32(Mask)}));
        auto O = download(Out, 32);
        for (unsigned L = 0; L < 32; ++L)
          ASSERT_EQ(O[L], ((Mask >> L) & 1) ? Want : Poison)
              << simt::getDesc(Op).Mnemonic << " mask " << hex(Mask) << " lane "
              << L;
      }
    }
}

TEST_F(IssTest, EmaskGetWritesEveryLaneAndSetRespectsAlive) {
  // 40 threads: warp 1 has 8 alive lanes. emask.set with all ones must not
  // revive the dead lanes: exec = rs1 of lane 0 & alive.
  KernelBuilder K("emask");
  K.param("out", ParamKind::Pointer).param("mask");
  indexPrologue(K);
  elementAddress(K, 5, 0);
  K.emit(Opcode::PARAM_LD_U32, {21, 0, 4})
      .emit(Opcode::EMASK_SET, {21})
      .emit(Opcode::EMASK_GET, {8})
      .emit(Opcode::MOVI, {9, -1})
      .emit(Opcode::EMASK_SET, {9})
      .emit(Opcode::EMASK_GET, {10})
      .emit(Opcode::ADD, {8, 8, 10})
      .emit(Opcode::GLOBAL_ST_U32, {5, 0, 8})
      .emit(Opcode::EXIT);
  uint32_t Mask = 0x0000f00fu;
  DevicePtr Out = poisoned(64);
  ASSERT_TRUE(launch(K, {1, 1, 1}, {40, 1, 1},
                     {KernelArg::ptr(Out), KernelArg::u32(Mask)}));
  auto O = download(Out, 64);
  for (unsigned I = 0; I < 64; ++I) {
    uint32_t Alive = I < 32 ? 0xffffffffu : 0xffu;
    ASSERT_EQ(O[I], I < 40 ? (Mask & Alive) + Alive : Poison) << I;
  }
}

//===----------------------------------------------------------------------===//
// Atomics
//===----------------------------------------------------------------------===//

/// One warp, mask from a parameter: out[lane] = atom(mem[0], v[lane], w[lane]);
/// finally out[32] = mem[0]. Shared atomics copy through shared memory.
KernelBuilder atomicKernel(Opcode Op, bool Shared) {
  KernelBuilder K("atomics");
  K.param("v", ParamKind::Pointer)
      .param("w", ParamKind::Pointer)
      .param("out", ParamKind::Pointer)
      .param("mask")
      .param("mem", ParamKind::Pointer)
      .param("init")
      .shared(64);
  indexPrologue(K);
  elementAddress(K, 3, 0);
  elementAddress(K, 4, 1);
  elementAddress(K, 5, 2);
  K.emit(Opcode::GLOBAL_LD_U32, {6, 3, 0})
      .emit(Opcode::GLOBAL_LD_U32, {7, 4, 0});
  if (Shared)
    K.emit(Opcode::PARAM_LD_U32, {11, 0, 20})
        .emit(Opcode::MOVI, {12, 16})
        .emit(Opcode::SHARED_ST_U32, {12, 0, 11});
  else
    K.emit(Opcode::PARAM_LD_U32, {12, 0, 16});
  K.emit(Opcode::EMASK_GET, {20})
      .emit(Opcode::PARAM_LD_U32, {21, 0, 12})
      .emit(Opcode::EMASK_SET, {21});
  if (simt::getDesc(Op).Fmt == simt::Format::R4)
    K.emit(Op, {8, 12, 6, 7});
  else
    K.emit(Op, {8, 12, 6});
  K.emit(Opcode::GLOBAL_ST_U32, {5, 0, 8}).emit(Opcode::EMASK_SET, {20});
  K.emit(Opcode::PARAM_LD_U32, {13, 0, 8});
  if (Shared)
    K.emit(Opcode::SHARED_LD_U32, {14, 12, 0});
  else
    K.emit(Opcode::GLOBAL_LD_U32, {14, 12, 0});
  K.emit(Opcode::GLOBAL_ST_U32, {13, 128, 14}).emit(Opcode::EXIT);
  return K;
}

TEST_F(IssTest, AtomicsOfOneWarpApplyInLaneOrder) {
  struct Case {
    Opcode G, S;
    std::function<uint32_t(uint32_t, uint32_t, uint32_t)>
        Ref; // old, v, w -> new
  };
  std::vector<Case> Cases = {
      {Opcode::ATOM_GLOBAL_ADD, Opcode::ATOM_SHARED_ADD,
       [](uint32_t O, uint32_t V, uint32_t) { return O + V; }},
      {Opcode::ATOM_GLOBAL_FADD, Opcode::ATOM_SHARED_FADD,
       [](uint32_t O, uint32_t V, uint32_t) {
         float R = floatOf(O) + floatOf(V);
         return R != R ? CanonNaN : bitsOf(R);
       }},
      {Opcode::ATOM_GLOBAL_MIN, Opcode::ATOM_SHARED_MIN,
       [](uint32_t O, uint32_t V, uint32_t) { return s(O) < s(V) ? O : V; }},
      {Opcode::ATOM_GLOBAL_MAX, Opcode::ATOM_SHARED_MAX,
       [](uint32_t O, uint32_t V, uint32_t) { return s(O) > s(V) ? O : V; }},
      {Opcode::ATOM_GLOBAL_MINU, Opcode::ATOM_SHARED_MINU,
       [](uint32_t O, uint32_t V, uint32_t) { return std::min(O, V); }},
      {Opcode::ATOM_GLOBAL_MAXU, Opcode::ATOM_SHARED_MAXU,
       [](uint32_t O, uint32_t V, uint32_t) { return std::max(O, V); }},
      {Opcode::ATOM_GLOBAL_EXCH, Opcode::ATOM_SHARED_EXCH,
       [](uint32_t, uint32_t V, uint32_t) { return V; }},
      {Opcode::ATOM_GLOBAL_CAS, Opcode::ATOM_SHARED_CAS,
       [](uint32_t O, uint32_t V, uint32_t W) { return O == V ? W : O; }},
  };
  for (const Case &Cs : Cases)
    for (bool Shared : {false, true})
      for (uint32_t Mask : {0xffffffffu, uint32_t(Rng()) | 0x10u}) {
        Opcode Op = Shared ? Cs.S : Cs.G;
        SCOPED_TRACE(std::string(simt::getDesc(Op).Mnemonic) + " mask " +
                     hex(Mask));
        bool IsFloat =
            Op == Opcode::ATOM_GLOBAL_FADD || Op == Opcode::ATOM_SHARED_FADD;
        bool IsCas =
            Op == Opcode::ATOM_GLOBAL_CAS || Op == Opcode::ATOM_SHARED_CAS;
        uint32_t Init = IsFloat ? bitsOf(1.5f) : uint32_t(Rng());
        std::vector<uint32_t> V(32), W(32);
        for (unsigned L = 0; L < 32; ++L) {
          V[L] = IsFloat ? bitsOf(float(int(Rng() % 2000) - 1000) / 8.0f)
                         : uint32_t(Rng());
          W[L] = uint32_t(Rng());
        }
        if (IsCas) { // a chain: each lane expects the previous lane's value
          V[0] = Init;
          for (unsigned L = 1; L < 32; ++L)
            V[L] = W[L - 1];
        }
        if (IsFloat) // inf + -inf in lane 9 -> canonical NaN from then on
          V[4] = bitsOf(std::numeric_limits<float>::infinity()),
          V[9] = bitsOf(-std::numeric_limits<float>::infinity());
        DevicePtr PV = upload(V), PW = upload(W), Out = poisoned(64),
                  Mem = upload({Init});
        ASSERT_TRUE(launch(atomicKernel(Op, Shared), {1, 1, 1}, {32, 1, 1},
                           {KernelArg::ptr(PV), KernelArg::ptr(PW),
                            KernelArg::ptr(Out), KernelArg::u32(Mask),
                            KernelArg::ptr(Mem), KernelArg::u32(Init)}));
        auto O = download(Out, 64);
        uint32_t Cur = Init;
        for (unsigned L = 0; L < 32; ++L) {
          if (!((Mask >> L) & 1)) {
            ASSERT_EQ(O[L], Poison) << L;
            continue;
          }
          ASSERT_EQ(O[L], Cur) << "lane " << L;
          Cur = Cs.Ref(Cur, V[L], W[L]);
        }
        EXPECT_EQ(O[32], Cur);
        if (IsFloat && (Mask >> 4 & 1) && (Mask >> 9 & 1)) {
          EXPECT_EQ(Cur, CanonNaN);
        }
        const char *Counter = Shared ? "atomics_shared" : "atomics_global";
        EXPECT_EQ(Dev->counters().get(Counter), uint64_t(std::popcount(Mask)));
      }
}

TEST_F(IssTest, HistogramWithGlobalAtomicsAcrossBlocks) {
  constexpr unsigned N = 1024, Bins = 16;
  KernelBuilder K("histogram");
  K.param("in", ParamKind::Pointer).param("bins", ParamKind::Pointer);
  indexPrologue(K);
  elementAddress(K, 3, 0);
  K.emit(Opcode::GLOBAL_LD_U32, {6, 3, 0})
      .emit(Opcode::ANDI, {6, 6, Bins - 1})
      .emit(Opcode::SHLI, {6, 6, 2})
      .emit(Opcode::PARAM_LD_U32, {7, 0, 4})
      .emit(Opcode::ADD, {7, 7, 6})
      .emit(Opcode::MOVI, {8, 1})
      .emit(Opcode::ATOM_GLOBAL_ADD, {0, 7, 8})
      .emit(Opcode::EXIT);
  std::vector<uint32_t> In(N), Want(Bins, 0);
  for (uint32_t &V : In) {
    V = uint32_t(Rng());
    ++Want[V % Bins];
  }
  DevicePtr PIn = upload(In), PB = upload(std::vector<uint32_t>(Bins, 0));
  ASSERT_TRUE(launch(K, {N / 256, 1, 1}, {256, 1, 1},
                     {KernelArg::ptr(PIn), KernelArg::ptr(PB)}));
  EXPECT_EQ(download(PB, Bins), Want);
  EXPECT_EQ(Dev->counters().get("atomics_global"), N);
}

//===----------------------------------------------------------------------===//
// Barriers, special registers, determinism
//===----------------------------------------------------------------------===//

TEST_F(IssTest, BarriersOrderSharedMemoryAcrossWarps) {
  // Phase 1: s[t] = in[t]; bar; a = s[(t + 32) % 256] (another warp's slot).
  // Phase 2: s[t] = a + 1; bar; out[t] = s[(t + 64) % 256].
  constexpr unsigned T = 256;
  KernelBuilder K("barrier");
  K.param("in", ParamKind::Pointer)
      .param("out", ParamKind::Pointer)
      .shared(T * 4);
  indexPrologue(K);
  elementAddress(K, 3, 0);
  elementAddress(K, 5, 1);
  K.emit(Opcode::S2R, {10, sr(SpecialReg::TID_X)})
      .emit(Opcode::SHLI, {11, 10, 2})
      .emit(Opcode::GLOBAL_LD_U32, {6, 3, 0})
      .emit(Opcode::SHARED_ST_U32, {11, 0, 6})
      .emit(Opcode::BAR)
      .emit(Opcode::ADDI, {12, 10, 32})
      .emit(Opcode::ANDI, {12, 12, T - 1})
      .emit(Opcode::SHLI, {12, 12, 2})
      .emit(Opcode::SHARED_LD_U32, {7, 12, 0})
      .emit(Opcode::ADDI, {7, 7, 1})
      .emit(Opcode::BAR) // everyone has read phase 1 before anyone overwrites
      .emit(Opcode::SHARED_ST_U32, {11, 0, 7})
      .emit(Opcode::BAR)
      .emit(Opcode::ADDI, {12, 10, 64})
      .emit(Opcode::ANDI, {12, 12, T - 1})
      .emit(Opcode::SHLI, {12, 12, 2})
      .emit(Opcode::SHARED_LD_U32, {8, 12, 0})
      .emit(Opcode::GLOBAL_ST_U32, {5, 0, 8})
      .emit(Opcode::EXIT);
  std::vector<uint32_t> In(2 * T);
  for (uint32_t &V : In)
    V = uint32_t(Rng());
  DevicePtr PIn = upload(In), Out = poisoned(2 * T);
  ASSERT_TRUE(launch(K, {2, 1, 1}, {T, 1, 1},
                     {KernelArg::ptr(PIn), KernelArg::ptr(Out)}));
  auto O = download(Out, 2 * T);
  for (unsigned B = 0; B < 2; ++B)
    for (unsigned t = 0; t < T; ++t) {
      unsigned Mid = (t + 64) % T; // out[t] = s2[Mid] = s1[(Mid + 32) % T] + 1
      ASSERT_EQ(O[B * T + t], In[B * T + (Mid + 32) % T] + 1) << B << " " << t;
    }
  EXPECT_EQ(Dev->counters().get("barriers"), 2u * 8 * 3);
  EXPECT_EQ(Dev->counters().get("shared_store_bytes"), 2u * T * 8);
}

TEST_F(IssTest, SpecialRegistersDescribeThreadBlockAndGrid) {
  // Block (4,5,2) = 40 threads = 2 warps (the second with 8 lanes); grid
  // (3,2,2). Thread g writes special registers 0..14 at out[g * 16 + k].
  Dim3 Grid{3, 2, 2}, Blk{4, 5, 2};
  KernelBuilder K("sregs");
  K.param("out", ParamKind::Pointer);
  // g = blockLinear * 64 + warpid * 32 + laneid (64 = 2 warps of 32 slots)
  K.emit(Opcode::S2R, {1, sr(SpecialReg::CTAID_Z)})
      .emit(Opcode::S2R, {2, sr(SpecialReg::NCTAID_Y)})
      .emit(Opcode::MUL, {1, 1, 2})
      .emit(Opcode::S2R, {2, sr(SpecialReg::CTAID_Y)})
      .emit(Opcode::ADD, {1, 1, 2})
      .emit(Opcode::S2R, {2, sr(SpecialReg::NCTAID_X)})
      .emit(Opcode::MUL, {1, 1, 2})
      .emit(Opcode::S2R, {2, sr(SpecialReg::CTAID_X)})
      .emit(Opcode::ADD, {1, 1, 2})
      .emit(Opcode::SHLI, {1, 1, 6})
      .emit(Opcode::S2R, {2, sr(SpecialReg::WARPID)})
      .emit(Opcode::SHLI, {2, 2, 5})
      .emit(Opcode::ADD, {1, 1, 2})
      .emit(Opcode::S2R, {2, sr(SpecialReg::LANEID)})
      .emit(Opcode::ADD, {1, 1, 2})
      .emit(Opcode::SHLI, {1, 1, 6}) // 16 words per thread
      .emit(Opcode::PARAM_LD_U32, {3, 0, 0})
      .emit(Opcode::ADD, {3, 3, 1});
  for (int R = 0; R < 15; ++R)
    K.emit(Opcode::S2R, {4, R}).emit(Opcode::GLOBAL_ST_U32, {3, 4 * R, 4});
  K.emit(Opcode::EXIT);
  unsigned Slots = unsigned(Grid.count()) * 64;
  DevicePtr Out = poisoned(Slots * 16);
  ASSERT_TRUE(launch(K, Grid, Blk, {KernelArg::ptr(Out)}));
  auto O = download(Out, Slots * 16);
  for (uint32_t BZ = 0; BZ < Grid.Z; ++BZ)
    for (uint32_t BY = 0; BY < Grid.Y; ++BY)
      for (uint32_t BX = 0; BX < Grid.X; ++BX)
        for (uint32_t T = 0; T < 64; ++T) {
          uint32_t G = ((BZ * Grid.Y + BY) * Grid.X + BX) * 64 + T;
          const uint32_t *V = &O[G * 16];
          if (T >= 40) {
            ASSERT_EQ(V[0], Poison) << "thread " << T << " does not exist";
            continue;
          }
          std::vector<uint32_t> Want = {T % 4, (T / 4) % 5, T / 20, 4,      5,
                                        2,     BX,          BY,     BZ,     3,
                                        2,     2,           T % 32, T / 32, 2};
          for (int R = 0; R < 15; ++R)
            ASSERT_EQ(V[R], Want[R]) << "sreg " << R << " block " << BX << BY
                                     << BZ << " thread " << T;
        }
}

TEST_F(IssTest, ClockCountsWarpInstructionsIssued) {
  KernelBuilder K("clock");
  K.param("out", ParamKind::Pointer);
  K.emit(Opcode::S2R, {1, sr(SpecialReg::CLOCK)})
      .emit(Opcode::NOP)
      .emit(Opcode::NOP)
      .emit(Opcode::S2R, {2, sr(SpecialReg::CLOCK)})
      .emit(Opcode::SUB, {3, 2, 1})
      .emit(Opcode::PARAM_LD_U32, {4, 0, 0})
      .emit(Opcode::GLOBAL_ST_U32, {4, 0, 3})
      .emit(Opcode::EXIT);
  DevicePtr Out = poisoned(1);
  ASSERT_TRUE(launch(K, {1, 1, 1}, {32, 1, 1}, {KernelArg::ptr(Out)}));
  EXPECT_EQ(download(Out, 1)[0], 3u);
}

TEST_F(IssTest, RunsAreDeterministic) {
  KernelBuilder K("racy");
  K.param("out", ParamKind::Pointer);
  indexPrologue(K);
  K.emit(Opcode::PARAM_LD_U32, {3, 0, 0})
      .emit(Opcode::ATOM_GLOBAL_EXCH,
            {4, 3, 1}) // who comes last depends on order
      .emit(Opcode::S2R, {5, sr(SpecialReg::CLOCK)})
      .emit(Opcode::ADD, {4, 4, 5})
      .emit(Opcode::GLOBAL_ST_U32, {3, 4, 4})
      .emit(Opcode::EXIT);
  std::vector<uint32_t> First;
  Counters FirstCounters;
  for (int Run = 0; Run < 2; ++Run) {
    DevicePtr Out = poisoned(2);
    ASSERT_TRUE(launch(K, {4, 1, 1}, {96, 1, 1}, {KernelArg::ptr(Out)}));
    auto O = download(Out, 2);
    if (Run == 0) {
      First = O;
      FirstCounters = Dev->counters();
    } else {
      EXPECT_EQ(O, First);
      EXPECT_EQ(Dev->counters().Values, FirstCounters.Values);
    }
  }
}

//===----------------------------------------------------------------------===//
// Trace
//===----------------------------------------------------------------------===//

TEST(IssTraceTest, OneLinePerWarpInstructionWithWrittenValues) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  DeviceOptions O;
  O.Trace = &OS;
  auto D = openDevice("iss", O);
  ASSERT_TRUE(bool(D)) << llvm::toString(D.takeError());
  Device &Dev = **D;
  KernelBuilder K("tr");
  K.param("out", ParamKind::Pointer);
  auto Skip = K.newLabel();
  K.emit(Opcode::S2R, {1, sr(SpecialReg::TID_X)}) // 0x00
      .emit(Opcode::SHLI, {2, 1, 2})              // 0x04
      .emit(Opcode::PARAM_LD_U32, {3, 0, 0})      // 0x08
      .emit(Opcode::ADD, {3, 3, 2})               // 0x0c
      .emit(Opcode::EMASK_GET, {5})               // 0x10
      .emit(Opcode::SETLTUI, {4, 1, 2})           // 0x14
      .emit(Opcode::EMASK_AND, {4})               // 0x18
      .branch(Opcode::BNONE, Skip)                // 0x1c
      .emit(Opcode::GLOBAL_ST_U32, {3, 0, 1})     // 0x20
      .bind(Skip)
      .emit(Opcode::EMASK_SET, {5}) // 0x24
      .emit(Opcode::BAR)            // 0x28
      .emit(Opcode::EXIT);          // 0x2c
  auto Img = K.build();
  ASSERT_TRUE(bool(Img)) << llvm::toString(Img.takeError());
  ASSERT_FALSE(bool(Dev.loadImage(*Img)));
  auto Out = Dev.alloc(16);
  ASSERT_TRUE(bool(Out));
  LaunchParams P;
  P.Kernel = "tr";
  P.Block = {3, 1, 1};
  P.Args = {KernelArg::ptr(*Out)};
  ASSERT_FALSE(bool(Dev.launch(P)));
  std::string A = llvm::formatv("{0:x-8}", *Out).str();
  std::string A4 = llvm::formatv("{0:x-8}", *Out + 4).str();
  std::string A8 = llvm::formatv("{0:x-8}", *Out + 8).str();
  std::string AllSeven = "00000007";
  for (int I = 1; I < 32; ++I)
    AllSeven += " 00000007";
  std::string Want =
      "# launch kernel=tr grid=1,1,1 block=3,1,1\n"
      "b=0 w=0 pc=0x0000 mask=00000007 s2r r1, %tid.x | r1=[00000000 00000001 "
      "00000002]\n"
      "b=0 w=0 pc=0x0004 mask=00000007 shli r2, r1, 2 | r2=[00000000 00000004 "
      "00000008]\n"
      "b=0 w=0 pc=0x0008 mask=00000007 ld.param.u32 r3, [r0 + 0] | r3=[" +
      A + " " + A + " " + A +
      "] a=[00000000 00000000 00000000]\n"
      "b=0 w=0 pc=0x000c mask=00000007 add r3, r3, r2 | r3=[" +
      A + " " + A4 + " " + A8 +
      "]\n"
      "b=0 w=0 pc=0x0010 mask=00000007 emask.get r5 | r5=[" +
      AllSeven +
      "]\n"
      "b=0 w=0 pc=0x0014 mask=00000007 setltui r4, r1, 2 | r4=[00000001 "
      "00000001 00000000]\n"
      "b=0 w=0 pc=0x0018 mask=00000007 emask.and r4 | exec=00000003\n"
      "b=0 w=0 pc=0x001c mask=00000003 bnone 0x24 | not-taken\n"
      "b=0 w=0 pc=0x0020 mask=00000003 st.global.u32 [r3 + 0], r1 | a=[" +
      A + " " + A4 +
      "] v=[00000000 00000001]\n"
      "b=0 w=0 pc=0x0024 mask=00000003 emask.set r5 | exec=00000007\n"
      "b=0 w=0 pc=0x0028 mask=00000007 bar | wait\n"
      "b=0 w=0 pc=0x002c mask=00000007 exit | exec=00000000 alive=00000000\n";
  EXPECT_EQ(Text, Want);
}

} // namespace
