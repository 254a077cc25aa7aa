//===- AgreementCheck.h - Shared driver code for the RTL unit tests -------===//
//
// The command line, the operand count and the mismatch report shared by the
// tests that compare a Verilated arithmetic unit with the ISS's per-lane
// semantics (fpu_test.cpp, intdiv_test.cpp).
//
// Input invariants: argv as given to main. Guarantees: parseOptions either
// fills Options or returns an llvm::Error naming the bad argument; a
// Tally prints at most MaxReported mismatches (opcode, operands, expected,
// got, all in hex) and the closing "N passed, M failed" line.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>

namespace tandem::rtltest {

struct Options {
  /// Random operand tuples per opcode (the edge cases come on top).
  uint64_t RandomPerOpcode;
  uint64_t Seed = 0x7a4d3e11u;
};

/// --count=N and --seed=S; TANDEM_RTL_UNIT_OPERANDS=N sets the count when
/// no --count is given (so ctest's command line can stay as registered).
inline llvm::Expected<Options> parseOptions(int Argc, char **Argv,
                                            uint64_t DefaultCount) {
  Options O;
  O.RandomPerOpcode = DefaultCount;
  if (const char *Env = std::getenv("TANDEM_RTL_UNIT_OPERANDS"))
    if (llvm::StringRef(Env).getAsInteger(0, O.RandomPerOpcode))
      return llvm::createStringError(
          "TANDEM_RTL_UNIT_OPERANDS='%s' is not a number; set it to the "
          "count of random operand tuples per opcode, e.g. 5000000",
          Env);
  for (int I = 1; I < Argc; ++I) {
    llvm::StringRef Arg = Argv[I];
    uint64_t *Dest = Arg.consume_front("--count=")  ? &O.RandomPerOpcode
                     : Arg.consume_front("--seed=") ? &O.Seed
                                                    : nullptr;
    if (!Dest || Arg.getAsInteger(0, *Dest))
      return llvm::createStringError(
          "argument %d '%s' not understood; usage: %s [--count=N] [--seed=S]",
          I, Argv[I], Argv[0]);
  }
  return O;
}

/// Counts comparisons and reports the first mismatches.
class Tally {
public:
  static constexpr unsigned MaxReported = 30;

  /// Compares one result; \p Reference names what Expected came from.
  void check(llvm::StringRef Op, llvm::StringRef Reference, uint32_t A,
             uint32_t B, uint32_t C, unsigned Arity, uint32_t Expected,
             uint32_t Got) {
    if (Expected == Got) {
      ++Passed;
      return;
    }
    if (Failed++ >= MaxReported)
      return;
    llvm::errs() << "mismatch: " << Op << " a=" << hex(A);
    if (Arity > 1)
      llvm::errs() << " b=" << hex(B);
    if (Arity > 2)
      llvm::errs() << " c=" << hex(C);
    llvm::errs() << ": " << Reference << " expects " << hex(Expected)
                 << ", rtl gives " << hex(Got) << "\n";
  }

  /// Prints the closing line; the exit status of the test.
  int finish() const {
    if (Failed > MaxReported)
      llvm::errs() << "(" << (Failed - MaxReported)
                   << " more mismatches not shown)\n";
    llvm::outs() << Passed << " passed, " << Failed << " failed\n";
    return Failed == 0 ? 0 : 1;
  }

private:
  static llvm::FormattedNumber hex(uint32_t V) {
    return llvm::format_hex(V, 10);
  }
  uint64_t Passed = 0, Failed = 0;
};

} // namespace tandem::rtltest
