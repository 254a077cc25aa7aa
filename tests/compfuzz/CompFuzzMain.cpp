//===- CompFuzzMain.cpp - tandem-compfuzz: the compiler's differential fuzzer ===//
//
//   tandem-compfuzz [--seeds N] [--start S] [--seed S] [--device iss|rtl]
//                   [-O L] [--registers R] [--no-reduce] [--budget N]
//                   [--save DIR] [--print] [-v]
//
// Generates one random CUDA C kernel per seed, compiles it with our back end,
// runs it on the device and compares every output word with the host
// evaluation (docs/CompilerFuzzing.md). Prints a report per finding (a
// mismatch, a device fault, a compile error) and closes with "N passed, M
// failed", plus ", K skipped" when the device could not hold K of the
// kernels (each named with its reason as it happens). Exit status: 0 no
// finding, 1 a finding, 2 usage or setup error.
//
//===----------------------------------------------------------------------===//

#include "CompFuzz.h"
#include "KernelGen.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <optional>
#include <string>

using namespace llvm;
using namespace tandem::compfuzz;

namespace {

void usage(raw_ostream &OS) {
  OS << "USAGE: tandem-compfuzz [options]\n\n"
        "Compiles random CUDA C kernels with tandem's back end, runs them on a device and\n"
        "compares every output word with a host evaluation of the same kernel.\n\n"
        "OPTIONS:\n"
        "  --seeds N        kernels to run (default 100), seeds START..START+N-1\n"
        "  --start S        first seed (default 1)\n"
        "  --seed S         run only seed S (same as --start S --seeds 1)\n"
        "  --device NAME    iss (default) or rtl\n"
        "  -O L             optimization level 0..3 for every seed (default: by seed,\n"
        "                   -O0, -O1, -O2 in turn)\n"
        "  --registers R    register budget 8..32 for every seed (default: by seed, 32,\n"
        "                   and 12..16 for one seed in four to force spilling)\n"
        "  --no-reduce      report findings without reducing the kernel\n"
        "  --budget N       reduction candidates tried per finding (default 300)\n"
        "  --save DIR       write each finding's kernel and reduced kernel to\n"
        "                   DIR/seed-S.cu and DIR/seed-S-reduced.cu\n"
        "  --all-features   also generate what known compiler bugs reject (see\n"
        "                   docs/CompilerFuzzing.md, Findings); default: avoid them\n"
        "  --print          print each seed's kernel source instead of running it\n"
        "  -v, --verbose    one line per seed (options, launch, size)\n";
}

std::optional<uint64_t> number(StringRef S) {
  uint64_t V;
  if (S.getAsInteger(0, V))
    return std::nullopt;
  return V;
}

/// What the crash handler prints: a compiler crash is a finding too.
std::string CurrentCase;

void printCurrentCase(void *) {
  if (!CurrentCase.empty())
    errs() << "tandem-compfuzz: crashed while running " << CurrentCase
           << "; re-run it with --seed and --print to see the kernel\n";
}

void save(StringRef Dir, const std::string &Name, const std::string &Text) {
  SmallString<128> Path(Dir);
  sys::path::append(Path, Name);
  Error E = errorCodeToError(sys::fs::create_directories(Dir));
  if (!E)
    E = writeToOutput(Path, [&](raw_ostream &OS) {
      OS << Text;
      return Error::success();
    });
  if (E)
    errs() << "tandem-compfuzz: warning: cannot write " << Path << ": " << toString(std::move(E))
           << "\n";
  else
    outs() << "written: " << Path << "\n";
}

} // namespace

int main(int Argc, char **Argv) {
  sys::PrintStackTraceOnErrorSignal(Argv[0]);
  sys::AddSignalHandler(printCurrentCase, nullptr);
  uint64_t Start = 1, Count = 100;
  std::string Device = "iss", SaveDir;
  std::optional<unsigned> OptLevel, Registers;
  unsigned Budget = 300;
  bool Print = false, Verbose = false, AllFeatures = false;
  for (int I = 1; I < Argc; ++I) {
    StringRef A = Argv[I];
    if (A == "-h" || A == "--help") {
      usage(outs());
      return 0;
    }
    if (A == "--no-reduce") {
      Budget = 0;
      continue;
    }
    if (A == "-v" || A == "--verbose") {
      Verbose = true;
      continue;
    }
    if (A == "--all-features") {
      AllFeatures = true;
      continue;
    }
    if (A == "--print") {
      Print = true;
      continue;
    }
    // -O2 attached, or -O 2.
    if (A.starts_with("-O") && A.size() > 2) {
      std::optional<uint64_t> L = number(A.drop_front(2));
      if (!L || *L > 3) {
        errs() << "tandem-compfuzz: error: " << A << ": the levels are -O0 to -O3\n";
        return 2;
      }
      OptLevel = unsigned(*L);
      continue;
    }
    if (I + 1 >= Argc) {
      errs() << "tandem-compfuzz: error: option '" << A
             << "' is unknown or needs a value; see --help\n";
      return 2;
    }
    StringRef V = Argv[++I];
    std::optional<uint64_t> N = number(V);
    bool IsNumeric = A == "--seeds" || A == "--start" || A == "--seed" || A == "-O" ||
                     A == "--registers" || A == "--budget";
    if (IsNumeric && !N) {
      errs() << "tandem-compfuzz: error: " << A << " expects a number, got '" << V << "'\n";
      return 2;
    }
    if (A == "--seeds") {
      Count = *N;
    } else if (A == "--start") {
      Start = *N;
    } else if (A == "--seed") {
      Start = *N;
      Count = 1;
    } else if (A == "-O") {
      if (*N > 3) {
        errs() << "tandem-compfuzz: error: -O " << *N << ": the levels are -O0 to -O3\n";
        return 2;
      }
      OptLevel = unsigned(*N);
    } else if (A == "--registers") {
      if (*N < 8 || *N > 32) {
        errs() << "tandem-compfuzz: error: --registers must be in [8, 32]\n";
        return 2;
      }
      Registers = unsigned(*N);
    } else if (A == "--budget") {
      Budget = unsigned(*N);
    } else if (A == "--device") {
      Device = V.str();
    } else if (A == "--save") {
      SaveDir = V.str();
    } else {
      errs() << "tandem-compfuzz: error: unknown option '" << A << "'; see --help\n";
      return 2;
    }
  }
  if (Device != "iss" && Device != "rtl") {
    errs() << "tandem-compfuzz: error: --device must be iss or rtl, got '" << Device << "'\n";
    return 2;
  }

  if (Print) {
    for (uint64_t S = Start; S < Start + Count; ++S) {
      FuzzOptions O = FuzzOptions::forSeed(S, Device);
      if (OptLevel)
        O.OptLevel = *OptLevel;
      O.AvoidKnownIssues = !AllFeatures;
      outs() << printKernel(generateKernel(S, featuresFor(O)));
    }
    return 0;
  }

  outs() << formatv("tandem-compfuzz: seeds {0}..{1} on {2}\n", Start, Start + Count - 1, Device);
  outs().flush();
  unsigned Passed = 0, Failed = 0, Skipped = 0;
  auto T0 = std::chrono::steady_clock::now();
  for (uint64_t S = Start; S < Start + Count; ++S) {
    FuzzOptions O = FuzzOptions::forSeed(S, Device);
    if (OptLevel)
      O.OptLevel = *OptLevel;
    if (Registers)
      O.NumRegisters = *Registers;
    O.AvoidKnownIssues = !AllFeatures;
    Kernel K = generateKernel(S, featuresFor(O));
    CurrentCase = formatv("seed {0} ({1})", S, O.describe()).str();
    Expected<CaseResult> R = fuzzOne(K, O, Budget);
    if (!R) {
      errs() << "tandem-compfuzz: error: seed " << S << ": " << toString(R.takeError()) << "\n";
      return 2;
    }
    if (Verbose)
      outs() << formatv("seed {0}: {1} ({2}; grid {3}, block {4}, {5} statements)\n", S,
                        verdictName(R->Outcome.V), O.describe(), K.Blocks, K.BlockDim,
                        countStmts(K.Body));
    if (R->Outcome.V == Verdict::Pass) {
      ++Passed;
      continue;
    }
    if (R->Outcome.V == Verdict::TooLarge) {
      ++Skipped;
      outs() << formatv("SKIPPED seed {0} ({1}): {2}\n", S, O.describe(), R->Outcome.Detail);
      outs().flush();
      continue;
    }
    ++Failed;
    outs() << R->Report;
    if (!SaveDir.empty()) {
      save(SaveDir, formatv("seed-{0}.cu", S).str(), printKernel(K));
      if (R->Reduced)
        save(SaveDir, formatv("seed-{0}-reduced.cu", S).str(), printKernel(*R->Reduced));
    }
    outs().flush();
  }
  CurrentCase.clear();
  double Secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count();
  outs() << formatv("{0} passed, {1} failed{2} ({3}, {4:f1} s)\n", Passed, Failed,
                    Skipped ? formatv(", {0} skipped", Skipped).str() : std::string(), Device,
                    Secs);
  return Failed ? 1 : 0;
}
