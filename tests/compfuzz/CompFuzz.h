//===- CompFuzz.h - Compile a random kernel, run it, compare, reduce -*- C++ -*-===//
//
// The compiler's differential fuzzer (docs/CompilerFuzzing.md): a kernel
// from KernelGen is written to a temporary .cu file, compiled by our back end
// (compiler::compileFile, -ffp-contract=off), run on a device (iss or rtl)
// with inputs drawn from its seed and outputs poisoned, and every output word
// and global counter is compared with the host evaluation of the same tree.
// A mismatch, a device fault or a compile error is a finding: the report
// names the seed, the options, the first differing word (thread, variable,
// got, want), and carries the kernel source and a reduced kernel (delta
// debugging over the tree) that still fails the same way.
//
// Input invariants: the generator's guarantees (KernelGen.h): a generated
// kernel is valid, terminating, free of undefined behaviour and of order
// dependence, so any disagreement is the compiler's (or a device's) fault.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "KernelGen.h"

#include "tandem/Runtime.h"

#include "llvm/Support/Error.h"

#include <functional>
#include <optional>
#include <string>

namespace tandem::compfuzz {

/// How one kernel is compiled and where it runs.
struct FuzzOptions {
  unsigned OptLevel = 2;
  unsigned NumRegisters = 32; ///< the allocator's budget (<32 forces spills)
  std::string Device = "iss";
  /// The options a seed gets when the user fixes none: -O0/-O1/-O2 and, for
  /// one seed in four, 12..16 registers.
  static FuzzOptions forSeed(uint64_t Seed, std::string Device = "iss");
  std::string describe() const; ///< "-O2, 32 registers, iss"
  /// Steer the generator around the compiler bugs already reported
  /// (docs/CompilerFuzzing.md, "Findings"), so runs find new ones.
  bool AvoidKnownIssues = true;
};

/// The generator features for kernels compiled with \p O.
GenFeatures featuresFor(const FuzzOptions &O);

/// TooLarge: the device cannot hold the compiled kernel (a CapacityError,
/// tandem/DeviceError.h: the rtl's instruction memory), so it did not run:
/// not a finding, but counted and reported as skipped, never as a pass.
enum class Verdict { Pass, Mismatch, DeviceFault, CompileError, TooLarge };
const char *verdictName(Verdict V);

/// What one compile-and-run gave.
struct RunOutcome {
  Verdict V = Verdict::Pass;
  std::string Detail; ///< the first difference, the fault or the error
  unsigned DifferingWords = 0;
};

/// A hook between compiling and running: tests use it to break the image
/// (or the results) on purpose and see the harness catch it.
struct Sabotage {
  std::function<void(KernelImage &)> Image;
  std::function<void(std::vector<uint32_t> &Out)> Results;
};

/// Compiles and runs \p K once. Errors are setup failures only (a temporary
/// file that cannot be written, a device that does not open).
llvm::Expected<RunOutcome> runKernel(const Kernel &K, const FuzzOptions &O,
                                     const Sabotage *S = nullptr);

/// Shrinks \p K while \p StillFails holds: drops chunks of statements at
/// every level, replaces an if by one of its branches, replaces expressions
/// by a constant or an operand, shrinks the launch. At most \p Budget calls.
Kernel reduceKernel(const Kernel &K, const std::function<bool(const Kernel &)> &StillFails,
                    unsigned Budget);

struct CaseResult {
  RunOutcome Outcome;
  std::string Report;              ///< empty on a pass
  std::optional<Kernel> Reduced;
};

/// Runs \p K and, on a finding, writes the report and reduces it (unless
/// \p ReduceBudget is 0). The reduced kernel must fail with the same verdict.
llvm::Expected<CaseResult> fuzzOne(const Kernel &K, const FuzzOptions &O,
                                   unsigned ReduceBudget = 300,
                                   const Sabotage *S = nullptr);

} // namespace tandem::compfuzz
