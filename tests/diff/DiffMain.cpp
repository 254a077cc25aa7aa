//===- DiffMain.cpp - tandem-diff: random programs on two devices ---------===//
//
//   tandem-diff [--seeds N] [--first S] [--seed S] [--a iss] [--b rtl]
//               [--config FILE] [--size N] [--no-reduce] [--budget N]
//               [--print] [--save DIR]
//
// Generates one random program per seed, runs it on devices A (the
// reference, default iss) and B, and reports every mismatch (docs/
// Differential.md). Prints one line per seed that fails and closes with
// "N passed, M failed". Exit status: 0 all agree, 1 a mismatch or a
// generator bug, 2 usage or setup error (for example a device that does not
// open).
//
//===----------------------------------------------------------------------===//

#include "Differ.h"
#include "InjectedBugs.h"
#include "RandomProgram.h"

#include "tandem/Config.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <optional>
#include <string>

using namespace llvm;
using namespace tandem;
using namespace tandem::diff;

namespace {

void usage(raw_ostream &OS) {
  OS << "USAGE: tandem-diff [options]\n\n"
        "Runs random SIMT programs on two devices and compares memory and "
        "dynamic instruction counts.\n\n"
        "OPTIONS:\n"
        "  --seeds N      programs to run (default 20), seeds FIRST..FIRST+N-1\n"
        "  --first S      first seed (default 1)\n"
        "  --seed S       run only seed S (same as --first S --seeds 1)\n"
        "  --a NAME       reference device (default iss)\n"
        "  --b NAME       device under test (default iss; rtl once built);\n"
        "                 iss+xor-bug, iss+count-bug, iss+byte-bug are iss with\n"
        "                 one injected bug, to see what a mismatch report shows\n"
        "  --config FILE  accelerator configuration (default: the built-in "
        "default)\n"
        "  --size N       regions at the top level of each program (default 24)\n"
        "  --no-reduce    report mismatches without reducing the program\n"
        "  --budget N     reduction candidates tried per mismatch (default 400)\n"
        "  -v, --verbose  one line per seed: launch, size, instruction counts\n"
        "  --print        print each program's assembly instead of running it\n"
        "  --save DIR     write each reduced program to DIR/seed-S.s\n";
}

std::optional<uint64_t> number(StringRef S) {
  uint64_t V;
  if (S.getAsInteger(0, V))
    return std::nullopt;
  return V;
}

} // namespace

int main(int Argc, char **Argv) {
  uint64_t First = 1, Count = 20;
  GenOptions Gen;
  DiffOptions Opts;
  std::string ConfigPath, SaveDir;
  bool Print = false, Verbose = false;
  for (int I = 1; I < Argc; ++I) {
    StringRef A = Argv[I];
    if (A == "-h" || A == "--help") {
      usage(outs());
      return 0;
    }
    if (A == "--no-reduce") {
      Opts.Reduce = false;
      continue;
    }
    if (A == "--verbose" || A == "-v") {
      Verbose = true;
      continue;
    }
    if (A == "--print") {
      Print = true;
      continue;
    }
    if (I + 1 >= Argc) {
      errs() << "tandem-diff: error: option '" << A
             << "' is unknown or needs a value; see --help\n";
      return 2;
    }
    StringRef V = Argv[++I];
    std::optional<uint64_t> N = number(V);
    auto needNumber = [&]() {
      if (!N)
        errs() << "tandem-diff: error: " << A << " expects a number, got '" << V
               << "'\n";
      return N.has_value();
    };
    if (A == "--seeds") {
      if (!needNumber())
        return 2;
      Count = *N;
    } else if (A == "--first") {
      if (!needNumber())
        return 2;
      First = *N;
    } else if (A == "--seed") {
      if (!needNumber())
        return 2;
      First = *N;
      Count = 1;
    } else if (A == "--size") {
      if (!needNumber() || *N == 0 || *N > 1000) {
        errs() << "tandem-diff: error: --size must be in [1, 1000]\n";
        return 2;
      }
      Gen.TopLevelNodes = unsigned(*N);
    } else if (A == "--budget") {
      if (!needNumber())
        return 2;
      Opts.ReduceBudget = unsigned(*N);
    } else if (A == "--a") {
      Opts.NameA = V.str();
    } else if (A == "--b") {
      Opts.NameB = V.str();
    } else if (A == "--config") {
      ConfigPath = V.str();
    } else if (A == "--save") {
      SaveDir = V.str();
    } else {
      errs() << "tandem-diff: error: unknown option '" << A << "'; see --help\n";
      return 2;
    }
  }

  if (Print) {
    for (uint64_t S = First; S < First + Count; ++S)
      outs() << printAssembly(generateProgram(S, Gen));
    return 0;
  }
  if (!ConfigPath.empty()) {
    Expected<AcceleratorConfig> C = loadConfig(ConfigPath);
    if (!C) {
      errs() << "tandem-diff: error: " << toString(C.takeError()) << "\n";
      return 2;
    }
    Opts.Config = *C;
  }
  // A device that does not open is a setup error, not a pass.
  for (auto [Name, Factory] : {std::pair{&Opts.NameA, &Opts.OpenA},
                               std::pair{&Opts.NameB, &Opts.OpenB}}) {
    std::optional<DeviceFactory> Bugged = injectedBugDevice(*Name);
    *Factory = Bugged ? *Bugged : namedDevice(*Name);
    DeviceOptions DO;
    DO.Config = Opts.Config;
    Expected<std::unique_ptr<Device>> D = (*Factory)(DO);
    if (!D) {
      errs() << "tandem-diff: error: device '" << *Name
             << "' does not open: " << toString(D.takeError()) << "\n";
      return 2;
    }
  }
  outs() << formatv("tandem-diff: {0} vs {1}, seeds {2}..{3}{4}\n", Opts.NameA,
                    Opts.NameB, First, First + Count - 1,
                    Opts.NameA == Opts.NameB
                        ? " (same device on both sides: this checks the "
                          "generator and the differ, not a device)"
                        : "");
  outs().flush();

  unsigned Passed = 0, Failed = 0;
  auto Start = std::chrono::steady_clock::now();
  for (uint64_t S = First; S < First + Count; ++S) {
    RandomProgram P = generateProgram(S, Gen);
    Expected<DiffOutcome> R = diffProgram(P, Opts);
    if (!R) {
      errs() << "tandem-diff: error: seed " << S << ": "
             << toString(R.takeError()) << "\n";
      return 2;
    }
    if (Verbose)
      outs() << formatv("seed {0}: {1}, grid {2}x{3} block {4}x{5}, {6} "
                        "regions, {7} warp / {8} thread instructions\n",
                        S, R->Agree ? "agree" : "MISMATCH", P.Grid.X, P.Grid.Y,
                        P.Block.X, P.Block.Y, countNodes(P.Body),
                        R->WarpInstructions, R->ThreadInstructions);
    if (R->Agree) {
      ++Passed;
      continue;
    }
    ++Failed;
    outs() << R->Report;
    if (!SaveDir.empty() && R->Reduced) {
      SmallString<128> Path(SaveDir);
      sys::path::append(Path, formatv("seed-{0}.s", S).str());
      // writeToOutput writes a temporary file and renames it: atomic.
      Error E = errorCodeToError(sys::fs::create_directories(SaveDir));
      if (!E)
        E = writeToOutput(Path, [&](raw_ostream &OS) {
          OS << printAssembly(*R->Reduced);
          return Error::success();
        });
      if (E)
        errs() << "tandem-diff: warning: cannot write " << Path << ": "
               << toString(std::move(E)) << "\n";
      else
        outs() << "reduced program written to " << Path << "\n";
    }
    outs().flush();
  }
  double Secs = std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                              Start)
                    .count();
  outs() << formatv("{0} passed, {1} failed ({2} vs {3}, {4:f1} s)\n", Passed,
                    Failed, Opts.NameA, Opts.NameB, Secs);
  return Failed ? 1 : 0;
}
