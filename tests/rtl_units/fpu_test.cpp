//===- fpu_test.cpp - The RTL fp32 lane computes exactly what the ISS does
//-===//
//
// Drives the Verilated fpu_lane (sim/rtl/units/fpu_lane.sv) with, for every
// fp opcode of the ISA:
//   (a) every pair (every triple for ffma) of an edge-case set: signed zeros,
//       infinities, quiet and signalling NaNs with payloads, the extreme
//       subnormals and normals, 1.0 and its neighbours, ties, overflow and
//       underflow operands, integer-conversion boundaries;
//   (b) random operands from several generators that together cover every
//       exponent: raw bit patterns, operands with nearby exponents (massive
//       cancellation in add and fma, addends aligned with the product),
//       perturbed edge cases, small integers and values near integers for
//       the conversions and rounding opcodes.
// Each result must equal the ISS's sem:: function bit for bit; fadd, fsub,
// fmul, fdiv, ffma and fsqrt are also compared with the host's float
// arithmetic and std::fmaf/std::sqrt (NaNs canonicalized). Operands an
// opcode does not read are random, so a lane that reads them would differ.
//
// Usage: tandem-rtl-fpu-test [--count=N] [--seed=S]
// (or TANDEM_RTL_UNIT_OPERANDS=N): N random tuples per opcode, default
// 200000. Prints the first mismatches and "N passed, M failed"; exits
// non-zero on any mismatch.
//
//===----------------------------------------------------------------------===//

#include "AgreementCheck.h"
#include "ISA.h"
#include "Semantics.h"
#include "Vfpu_lane.h"

#include "llvm/ADT/ArrayRef.h"

#include <cmath>
#include <random>

using namespace tandem;
using namespace tandem::iss;
using tandem::simt::Opcode;

namespace {

using Fn3 = uint32_t (*)(uint32_t, uint32_t, uint32_t);

struct OpSpec {
  Opcode Op;
  unsigned Arity; ///< how many of a, b, c the opcode reads
  Fn3 Iss;        ///< the ISS's semantics
  Fn3 Host;       ///< the host's IEEE arithmetic, where it has the operation
  /// Which random operands suit the opcode best besides raw bit patterns.
  enum Shape { Arith, Convert, IntSource } Kind;
};

float f(uint32_t U) { return sem::toFloat(U); }

// Wraps the ISS's unary/binary/ternary functions into one signature.
template <uint32_t (*F)(uint32_t)>
uint32_t unary(uint32_t A, uint32_t, uint32_t) {
  return F(A);
}
template <uint32_t (*F)(uint32_t, uint32_t)>
uint32_t binary(uint32_t A, uint32_t B, uint32_t) {
  return F(A, B);
}
// The executor does fneg/fabs inline as bit operations (Semantics.h says so).
uint32_t fneg(uint32_t A) { return A ^ sem::SignBit; }
uint32_t fabs(uint32_t A) { return A & ~sem::SignBit; }
uint32_t issFfma(uint32_t A, uint32_t B, uint32_t C) {
  return sem::ffma(A, B, C);
}

// The host's IEEE arithmetic; this file is compiled with -ffp-contract=off.
uint32_t hostAdd(uint32_t A, uint32_t B, uint32_t) {
  return sem::canonical(f(A) + f(B));
}
uint32_t hostSub(uint32_t A, uint32_t B, uint32_t) {
  return sem::canonical(f(A) - f(B));
}
uint32_t hostMul(uint32_t A, uint32_t B, uint32_t) {
  return sem::canonical(f(A) * f(B));
}
uint32_t hostDiv(uint32_t A, uint32_t B, uint32_t) {
  return sem::canonical(f(A) / f(B));
}
uint32_t hostFma(uint32_t A, uint32_t B, uint32_t C) {
  return sem::canonical(std::fmaf(f(A), f(B), f(C)));
}
uint32_t hostSqrt(uint32_t A, uint32_t, uint32_t) {
  return sem::canonical(std::sqrt(f(A)));
}

const OpSpec Ops[] = {
    {Opcode::FADD, 2, binary<sem::fadd>, hostAdd, OpSpec::Arith},
    {Opcode::FSUB, 2, binary<sem::fsub>, hostSub, OpSpec::Arith},
    {Opcode::FMUL, 2, binary<sem::fmul>, hostMul, OpSpec::Arith},
    {Opcode::FFMA, 3, issFfma, hostFma, OpSpec::Arith},
    {Opcode::FMIN, 2, binary<sem::fmin>, nullptr, OpSpec::Arith},
    {Opcode::FMAX, 2, binary<sem::fmax>, nullptr, OpSpec::Arith},
    {Opcode::FNEG, 1, unary<fneg>, nullptr, OpSpec::Arith},
    {Opcode::FABS, 1, unary<fabs>, nullptr, OpSpec::Arith},
    {Opcode::FSETEQ, 2, binary<sem::fseteq>, nullptr, OpSpec::Arith},
    {Opcode::FSETNE, 2, binary<sem::fsetne>, nullptr, OpSpec::Arith},
    {Opcode::FSETLT, 2, binary<sem::fsetlt>, nullptr, OpSpec::Arith},
    {Opcode::FSETLE, 2, binary<sem::fsetle>, nullptr, OpSpec::Arith},
    {Opcode::FSETNAN, 2, binary<sem::fsetnan>, nullptr, OpSpec::Arith},
    {Opcode::FDIV, 2, binary<sem::fdiv>, hostDiv, OpSpec::Arith},
    {Opcode::FSQRT, 1, unary<sem::fsqrt>, hostSqrt, OpSpec::Arith},
    {Opcode::CVT_F32_S32, 1, unary<sem::cvtF32S32>, nullptr, OpSpec::IntSource},
    {Opcode::CVT_F32_U32, 1, unary<sem::cvtF32U32>, nullptr, OpSpec::IntSource},
    {Opcode::CVT_S32_F32, 1, unary<sem::cvtS32F32>, nullptr, OpSpec::Convert},
    {Opcode::CVT_U32_F32, 1, unary<sem::cvtU32F32>, nullptr, OpSpec::Convert},
    {Opcode::FFLOOR, 1, unary<sem::ffloor>, nullptr, OpSpec::Convert},
    {Opcode::FCEIL, 1, unary<sem::fceil>, nullptr, OpSpec::Convert},
    {Opcode::FTRUNC, 1, unary<sem::ftrunc>, nullptr, OpSpec::Convert},
    {Opcode::FRINT, 1, unary<sem::frint>, nullptr, OpSpec::Convert},
};

// Bit patterns, read as floats and (for the int->fp conversions) as integers.
const uint32_t EdgeCases[] = {
    0x00000000,      0x80000000, // +0, -0
    0x7f800000,      0xff800000, // +inf, -inf
    0x7fc00000,      0xffc00000,
    0x7fc12345, // quiet NaNs, one with a payload
    0x7f800001,      0xff812345,
    0x7fbfffff,                  // signalling NaNs with payloads
    0x00000001,      0x80000001, // smallest subnormal
    0x00000002,      0x00400000, // 2^-148, 2^-127
    0x007fffff,      0x807fffff, // largest subnormal
    0x00800000,      0x80800000,
    0x00800001, // smallest normal and neighbour
    0x7f7fffff,      0xff7fffff,
    0x7f7ffffe, // largest normal and neighbour
    0x7f000000,      0x3f000000,
    0xbf000000,                  // 2^127, 0.5, -0.5
    0x3f800000,      0xbf800000, // 1, -1
    0x3f800001,      0x3f7fffff,
    0xbf800001, // 1 + ulp, 1 - ulp/2, -(1 + ulp)
    0x33800000,      0x33c00000,
    0x34000000, // 2^-24 (a tie with 1), 1.5*2^-24, 2^-23
    0x3fc00000,      0x40200000,
    0x40600000, // 1.5, 2.5, 3.5 (rint ties)
    0xc0200000,      0x40400000,
    0x3eaaaaab, // -2.5, 3, 1/3
    0x4b000000,      0x4b000001,
    0x4affffff, // 2^23, 2^23 + 1, 2^23 - 0.5
    0x4b800000,      0x4b7fffff,
    0x4b800001, // 2^24, 2^24 - 1, 2^24 + 2
    0x4f000000,      0xcf000000,
    0x4effffff, // 2^31, -2^31, below 2^31
    0xcf000001,      0x4f800000,
    0x4f7fffff, // below -2^31, 2^32, below 2^32
    0x5f000000,      0x1f800000,
    0x20000000, // 2^63, 2^-64, 2^-63 (squares over/underflow)
    0x00000003,      0x00ffffff,
    0x01000001, // small ints; 2^24 +- 1 as integers
    0x01000003,      0x7fffffff,
    0x80000000u + 1, // rounding ties as ints; INT_MAX, INT_MIN + 1
    0xffffffff,      0xfffffffe,
    0x7fffffc0, // -1, -2, rounds up to 2^31
};

/// Operand tuples from a mix of generators chosen per draw.
class OperandSource {
public:
  explicit OperandSource(uint64_t Seed) : Rng(Seed) {}

  void draw(const OpSpec &S, uint32_t &A, uint32_t &B, uint32_t &C) {
    A = Rng(), B = Rng(), C = Rng();
    switch (pick(8)) {
    case 0: // raw bit patterns: every exponent, NaNs and infinities included
      return;
    case 1: // edge cases on one or more operands
      A = edgeNear(A);
      if (pick(2))
        B = edgeNear(B);
      if (pick(2))
        C = edgeNear(C);
      return;
    default:
      break;
    }
    if (S.Kind == OpSpec::IntSource) {
      A = uint32_t(Rng()) >> pick(32); // every magnitude
      if (pick(2))
        A = -A;
      return;
    }
    if (S.Kind == OpSpec::Convert) {
      A = nearInteger();
      return;
    }
    // Arithmetic: finite operands whose exponents are close, so sums cancel
    // and addends land inside the product's bits.
    A = withExponent(A, 1 + pick(254));
    B = withExponent(B, clampExp(expOf(A) + spread()));
    if (S.Op == Opcode::FFMA) {
      int ProductExp = int(expOf(A)) + int(expOf(B)) - 127;
      C = withExponent(C, clampExp(ProductExp + spread()));
      if (pick(4) ==
          0) // c = -(a*b) within a few ulps: cancellation to a few bits
        C = (sem::fmul(A, B) ^ sem::SignBit) + uint32_t(int(pick(9)) - 4);
    } else if (pick(4) == 0) {
      // b within a few ulps of +-a: the difference is exact and tiny.
      B = (A ^ (pick(2) ? sem::SignBit : 0)) + uint32_t(int(pick(9)) - 4);
    }
  }

private:
  uint32_t pick(uint32_t N) { return uint32_t(Rng() % N); }
  static uint32_t expOf(uint32_t X) { return (X >> 23) & 0xff; }
  static uint32_t withExponent(uint32_t X, uint32_t E) {
    return (X & 0x807fffffu) | (E << 23);
  }
  static uint32_t clampExp(int E) {
    return uint32_t(E < 0 ? 0 : E > 254 ? 254 : E);
  }
  // Mostly a few binades apart, sometimes the width of the datapath or more.
  int spread() { return pick(2) ? int(pick(7)) - 3 : int(pick(121)) - 60; }
  uint32_t edgeNear(uint32_t Random) {
    uint32_t E = EdgeCases[pick(std::size(EdgeCases))];
    return pick(2) ? E : E + (Random % 7) - 3;
  }
  // A float near an integer or a half-integer, or a random one in the
  // exponent range where integral rounding and conversions are interesting.
  uint32_t nearInteger() {
    float Int = float(int64_t(Rng() >> pick(40)) * (pick(2) ? 1 : -1));
    uint32_t Bits = sem::toBits(pick(2) ? Int + 0.5f : Int);
    switch (pick(3)) {
    case 0:
      return Bits;
    case 1:
      return Bits + uint32_t(int(pick(5)) - 2);
    default:
      return withExponent(uint32_t(Rng()), 100 + pick(70));
    }
  }

  std::mt19937_64 Rng;
};

class FpuUnderTest {
public:
  uint32_t eval(const OpSpec &S, uint32_t A, uint32_t B, uint32_t C) {
    Dut.opcode = simt::getDesc(S.Op).Encoding;
    Dut.a = A;
    Dut.b = B;
    Dut.c = C;
    Dut.eval();
    return Dut.result;
  }
  ~FpuUnderTest() { Dut.final(); }

private:
  Vfpu_lane Dut;
};

void checkOne(FpuUnderTest &Fpu, rtltest::Tally &T, const OpSpec &S, uint32_t A,
              uint32_t B, uint32_t C) {
  uint32_t Got = Fpu.eval(S, A, B, C);
  llvm::StringRef Name = simt::getDesc(S.Op).Mnemonic;
  T.check(Name, "iss", A, B, C, S.Arity, S.Iss(A, B, C), Got);
  if (S.Host)
    T.check(Name, "host", A, B, C, S.Arity, S.Host(A, B, C), Got);
}

void checkEdgeCases(FpuUnderTest &Fpu, rtltest::Tally &T, const OpSpec &S,
                    std::mt19937_64 &Rng) {
  llvm::ArrayRef<uint32_t> E = EdgeCases;
  for (uint32_t A : E) {
    if (S.Arity == 1) {
      checkOne(Fpu, T, S, A, uint32_t(Rng()), uint32_t(Rng()));
      continue;
    }
    for (uint32_t B : E) {
      if (S.Arity == 2) {
        checkOne(Fpu, T, S, A, B, uint32_t(Rng()));
        continue;
      }
      for (uint32_t C : E)
        checkOne(Fpu, T, S, A, B, C);
    }
  }
}

} // namespace

int main(int Argc, char **Argv) {
  llvm::Expected<rtltest::Options> O =
      rtltest::parseOptions(Argc, Argv, 200000);
  if (!O) {
    llvm::errs() << "tandem-rtl-fpu-test: " << llvm::toString(O.takeError())
                 << "\n";
    return 2;
  }
  FpuUnderTest Fpu;
  rtltest::Tally T;
  std::mt19937_64 Unread(O->Seed ^ 0x5555);
  llvm::outs() << "fpu_lane vs iss: " << std::size(Ops)
               << " opcodes, edge cases + " << O->RandomPerOpcode
               << " random operand tuples each, seed " << O->Seed << "\n";
  // An opcode the lane does not implement must give 0, not a stale value.
  T.check("add (not an fp opcode)", "fpu_lane contract", 0x3f800000, 0x3f800000,
          0, 2, 0,
          Fpu.eval({Opcode::ADD, 2, nullptr, nullptr, OpSpec::Arith},
                   0x3f800000, 0x3f800000, 0x12345678));
  for (const OpSpec &S : Ops) {
    checkEdgeCases(Fpu, T, S, Unread);
    OperandSource Source(O->Seed + unsigned(S.Op));
    for (uint64_t I = 0; I < O->RandomPerOpcode; ++I) {
      uint32_t A, B, C;
      Source.draw(S, A, B, C);
      checkOne(Fpu, T, S, A, B, C);
    }
  }
  return T.finish();
}
