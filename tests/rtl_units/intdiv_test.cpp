//===- intdiv_test.cpp - The RTL integer divide lane agrees with the ISS --===//
//
// Drives the Verilated sfu_int_lane (sim/rtl/units/sfu_int_lane.sv) with
// div, divu, rem and remu on (a) every pair of an edge-case set (0, +-1,
// INT_MIN, INT_MAX, -1 = UINT_MAX, powers of two and neighbours, so x/0 and
// INT_MIN/-1 are all there) and (b) random pairs whose magnitudes span every
// width (random bit patterns shifted right by a random amount, random signs,
// divisors near the dividend, exact multiples). Every result must equal the
// ISS's sem::sdiv/udiv/srem/urem bit for bit.
//
// Usage: tandem-rtl-intdiv-test [--count=N] [--seed=S]
// (or TANDEM_RTL_UNIT_OPERANDS=N): N random pairs per opcode, default 200000.
// Prints the first mismatches and "N passed, M failed"; exits non-zero on any
// mismatch.
//
//===----------------------------------------------------------------------===//

#include "AgreementCheck.h"
#include "ISA.h"
#include "Semantics.h"
#include "Vsfu_int_lane.h"

#include <random>

using namespace tandem;
using namespace tandem::iss;
using tandem::simt::Opcode;

namespace {

struct OpSpec {
  Opcode Op;
  uint32_t (*Iss)(uint32_t, uint32_t);
};

const OpSpec Ops[] = {{Opcode::DIV, sem::sdiv},
                      {Opcode::DIVU, sem::udiv},
                      {Opcode::REM, sem::srem},
                      {Opcode::REMU, sem::urem}};

const uint32_t EdgeCases[] = {
    0,          1,          2,          3,          7,          0xffffffff,
    0xfffffffe, 0xfffffffd, 0x80000000, 0x80000001, 0x7fffffff, 0x7ffffffe,
    0x40000000, 0xc0000000, 0x00010000, 0xffff0000, 0x0000ffff, 0x12345678,
    0xedcba988, 0x55555555, 0xaaaaaaab,
};

class OperandSource {
public:
  explicit OperandSource(uint64_t Seed) : Rng(Seed) {}

  void draw(uint32_t &A, uint32_t &B) {
    A = any();
    switch (pick(6)) {
    case 0: // raw patterns
      B = uint32_t(Rng());
      return;
    case 1: // an exact multiple: remainder 0
      B = any() >> pick(16) | 1;
      A = B * (uint32_t(Rng()) >> pick(32));
      return;
    case 2: // divisor close to the dividend: quotient 0, 1 or -1
      B = A + uint32_t(int(pick(5)) - 2);
      if (pick(2))
        B = -B;
      return;
    case 3: // an edge-case divisor
      B = EdgeCases[pick(std::size(EdgeCases))];
      return;
    default:
      B = any();
      return;
    }
  }

private:
  uint32_t pick(uint32_t N) { return uint32_t(Rng() % N); }
  // A random magnitude of random width with a random sign.
  uint32_t any() {
    uint32_t V = uint32_t(Rng()) >> pick(32);
    return pick(2) ? -V : V;
  }
  std::mt19937_64 Rng;
};

} // namespace

int main(int Argc, char **Argv) {
  llvm::Expected<rtltest::Options> O =
      rtltest::parseOptions(Argc, Argv, 200000);
  if (!O) {
    llvm::errs() << "tandem-rtl-intdiv-test: " << llvm::toString(O.takeError())
                 << "\n";
    return 2;
  }
  Vsfu_int_lane Dut;
  rtltest::Tally T;
  auto Check = [&](const OpSpec &S, uint32_t A, uint32_t B) {
    Dut.opcode = simt::getDesc(S.Op).Encoding;
    Dut.a = A;
    Dut.b = B;
    Dut.eval();
    T.check(simt::getDesc(S.Op).Mnemonic, "iss", A, B, 0, 2, S.Iss(A, B),
            Dut.result);
  };
  llvm::outs() << "sfu_int_lane vs iss: " << std::size(Ops)
               << " opcodes, edge cases + " << O->RandomPerOpcode
               << " random pairs each, seed " << O->Seed << "\n";
  for (const OpSpec &S : Ops) {
    for (uint32_t A : EdgeCases)
      for (uint32_t B : EdgeCases)
        Check(S, A, B);
    OperandSource Source(O->Seed + unsigned(S.Op));
    for (uint64_t I = 0; I < O->RandomPerOpcode; ++I) {
      uint32_t A, B;
      Source.draw(A, B);
      Check(S, A, B);
    }
  }
  Dut.final();
  return T.finish();
}
