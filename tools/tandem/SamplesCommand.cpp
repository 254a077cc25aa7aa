//===- SamplesCommand.cpp - `tandem samples` ------------------------------===//
//
// Assembles the sample programs (samples/asm/*.s), runs each on a device
// against its CPU reference (samples/Samples.h), and prints one table line
// per sample: PASS/FAIL/ERROR and the launch's counters (warp and thread
// instructions, active-lane percentage, warp instructions per functional
// unit, bytes by memory space, atomics, barriers, launch time). Failures are
// explained under the table; the last line is "samples: N passed, M failed".
//
// A sample that faults or does not assemble is reported as ERROR and the
// others still run. Exit status: 0 when every sample passed, 1 when one
// failed or erred (or the device cannot be opened), 2 for a usage error.
//
//===----------------------------------------------------------------------===//

#include "Args.h"
#include "Commands.h"

#include "ISA.h"
#include "Samples.h"
#include "tandem/Config.h"
#include "tandem/Runtime.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

using namespace llvm;
using namespace tandem;

namespace tandem::cli {
namespace {

void printSamplesHelp(raw_ostream &OS) {
  OS << "OVERVIEW: assemble the sample SIMT programs, run them against CPU "
        "references and print their counters\n\n"
        "USAGE: tandem samples [options]\n\n"
        "OPTIONS:\n"
        "  --device NAME       device to run on (default: iss)\n"
        "  --config FILE       accelerator configuration (default: "
        "configs/default.json)\n"
        "  --seed N            seed of the random inputs (default: 1)\n"
        "  --scale N           multiply the problem sizes by N, 1.."
     << samples::MaxScale
     << " (default: 1)\n"
        "  --only NAME[,NAME]  run only these samples (repeatable)\n"
        "  --list              list the samples and exit\n"
        "  --counters          after the table, print every counter of every "
        "sample\n"
        "  --trace             print one line per warp instruction (to "
        "standard output)\n"
        "  --samples-dir DIR   folder holding the .s files (default: "
     << samples::defaultSamplesDir()
     << ")\n"
        "  -h, --help          print this help\n";
}

int usageError(const Twine &Msg) {
  errs() << "tandem samples: error: " << Msg
         << "\nRun 'tandem samples --help' for usage.\n";
  return 2;
}

struct Args {
  std::string Device = "iss";
  std::string ConfigPath;
  samples::SampleOptions Opts;
  bool List = false;
  bool AllCounters = false;
  bool Trace = false;
};

std::optional<uint64_t> parseNumber(StringRef S) {
  uint64_t V;
  if (S.getAsInteger(0, V))
    return std::nullopt;
  return V;
}

/// Parses argv; returns an exit status if the command should stop here.
std::optional<int> parseArgs(int Argc, char **Argv, Args &A) {
  ArgReader Reader(Argc, Argv);
  while (Reader.next()) {
    StringRef Arg = Reader.arg();
    if (Reader.flag("--help") || Reader.flag("-h")) {
      printSamplesHelp(outs());
      return 0;
    }
    if (Reader.flag("--list")) {
      A.List = true;
      continue;
    }
    if (Reader.flag("--trace")) {
      A.Trace = true;
      continue;
    }
    if (Reader.flag("--counters")) {
      A.AllCounters = true;
      continue;
    }
    StringRef Name = Reader.name();
    static constexpr StringRef WithValue[] = {
        "--device", "--config", "--seed", "--scale", "--only", "--samples-dir"};
    if (!is_contained(WithValue, Name))
      return usageError("unknown argument '" + Arg + "'");
    std::optional<StringRef> Given = Reader.value();
    if (!Given)
      return usageError(Name + " needs a value");
    StringRef Value = *Given;
    if (Name == "--device") {
      A.Device = Value.str();
    } else if (Name == "--config") {
      A.ConfigPath = Value.str();
    } else if (Name == "--samples-dir") {
      A.Opts.Dir = Value.str();
    } else if (Name == "--only") {
      SmallVector<StringRef, 4> Names;
      Value.split(Names, ',', -1, /*KeepEmpty=*/false);
      if (Names.empty())
        return usageError("--only needs one or more sample names");
      for (StringRef N : Names)
        A.Opts.Only.push_back(N.trim().str());
    } else if (Name == "--seed") {
      std::optional<uint64_t> N = parseNumber(Value);
      if (!N)
        return usageError("--seed needs an unsigned integer, not '" + Value +
                          "'");
      A.Opts.Seed = *N;
    } else if (Name == "--scale") {
      std::optional<uint64_t> N = parseNumber(Value);
      if (!N || *N < 1 || *N > samples::MaxScale)
        return usageError("--scale needs an integer in 1.." +
                          Twine(samples::MaxScale) + ", not '" + Value + "'");
      A.Opts.Scale = unsigned(*N);
    }
  }
  if (Error E = samples::checkOptions(A.Opts))
    return usageError(toString(std::move(E)));
  return std::nullopt;
}

/// One sample's line: a result, or the error that stopped it.
struct Outcome {
  std::string Name;
  std::optional<samples::SampleResult> Result;
  std::string Error; ///< set when Result is empty
};

/// A counter column of the table: its header and how to get the value.
struct Column {
  std::string Header;
  std::string Counter; ///< empty: computed (see cell())
};

/// The functional units of the ISA in enum order: every unit some
/// instruction's scheduling class uses.
std::vector<simt::FuncUnit> functionalUnits() {
  std::vector<simt::FuncUnit> Units;
  for (unsigned I = 0, E = simt::numOpcodes(); I < E; ++I) {
    const simt::InstrDesc &D = simt::getDesc(simt::opcodeAt(I));
    simt::FuncUnit U = simt::getSchedClassDesc(D.Sched).Unit;
    if (!is_contained(Units, U))
      Units.push_back(U);
  }
  sort(Units);
  return Units;
}

std::vector<Column> counterColumns() {
  std::vector<Column> Cols = {{"warp-ins", "warp_instructions"},
                              {"thread-ins", "thread_instructions"},
                              {"active", ""}};
  // Warp instructions per functional unit (docs/Counters.md names them
  // warp_instructions.<unit>).
  for (simt::FuncUnit U : functionalUnits()) {
    std::string Unit = StringRef(simt::getFuncUnitName(U)).lower();
    Cols.push_back({Unit, "warp_instructions." + Unit});
  }
  const Column Rest[] = {{"glob-ld-B", "global_load_bytes"},
                         {"glob-st-B", "global_store_bytes"},
                         {"shr-ld-B", "shared_load_bytes"},
                         {"shr-st-B", "shared_store_bytes"},
                         {"atom-g", "atomics_global"},
                         {"atom-s", "atomics_shared"},
                         {"bars", "barriers"},
                         {"ms", ""}};
  Cols.insert(Cols.end(), std::begin(Rest), std::end(Rest));
  return Cols;
}

std::string cell(const Column &C, const samples::SampleResult &R) {
  if (C.Header == "active") {
    uint64_t Warp = R.Counters.get("warp_instructions");
    uint64_t Thread = R.Counters.get("thread_instructions");
    if (Warp == 0)
      return "-";
    return formatv("{0:F1}%", 100.0 * double(Thread) / (32.0 * double(Warp)))
        .str();
  }
  if (C.Header == "ms")
    return formatv("{0:F1}", R.Seconds * 1e3).str();
  if (!R.Counters.has(C.Counter))
    return "-";
  return std::to_string(R.Counters.get(C.Counter));
}

void printTable(raw_ostream &OS, ArrayRef<Outcome> Outcomes) {
  std::vector<Column> Cols = counterColumns();
  // Cells first, so each column is as wide as its widest entry.
  std::vector<std::vector<std::string>> Rows;
  for (const Outcome &O : Outcomes) {
    std::vector<std::string> Row = {O.Name};
    if (!O.Result) {
      Row.push_back("ERROR");
    } else {
      Row.push_back(O.Result->Passed ? "PASS" : "FAIL");
      for (const Column &C : Cols)
        Row.push_back(cell(C, *O.Result));
    }
    Rows.push_back(std::move(Row));
  }
  std::vector<std::string> Header = {"sample", "result"};
  for (const Column &C : Cols)
    Header.push_back(C.Header);
  std::vector<size_t> Width;
  for (const std::string &H : Header)
    Width.push_back(H.size());
  for (const std::vector<std::string> &Row : Rows)
    for (size_t I = 0; I < Row.size(); ++I)
      Width[I] = std::max(Width[I], Row[I].size());

  auto PrintRow = [&](ArrayRef<std::string> Row) {
    // Name and result to the left, numbers to the right.
    OS << left_justify(Row[0], Width[0]) << "  "
       << left_justify(Row[1], Width[1]);
    for (size_t I = 2; I < Row.size(); ++I)
      OS << "  " << right_justify(Row[I], Width[I]);
    OS << "\n";
  };
  PrintRow(Header);
  for (const std::vector<std::string> &Row : Rows)
    PrintRow(Row);
}

void printDetails(raw_ostream &OS, ArrayRef<Outcome> Outcomes) {
  for (const Outcome &O : Outcomes) {
    if (!O.Result)
      OS << "ERROR " << O.Name << ": " << O.Error << "\n";
    else if (!O.Result->Passed)
      OS << "FAIL " << O.Name << ": " << O.Result->Message << "\n";
  }
}

void printAllCounters(raw_ostream &OS, ArrayRef<Outcome> Outcomes) {
  for (const Outcome &O : Outcomes) {
    if (!O.Result)
      continue;
    OS << "\n" << O.Name << " (" << O.Result->Message << "):\n";
    for (const auto &[Name, V] : O.Result->Counters.Values)
      OS << "  " << left_justify(Name, 28) << " " << V << "\n";
  }
}

int listSamples() {
  for (const samples::SampleInfo &S : samples::sampleTable())
    outs() << left_justify(S.Name, 18) << " " << left_justify(S.File, 18) << " "
           << S.Summary << "\n";
  return 0;
}

Expected<std::unique_ptr<Device>> openFromArgs(Args &A) {
  std::string Path = A.ConfigPath.empty() ? defaultConfigPath() : A.ConfigPath;
  Expected<AcceleratorConfig> Config = loadConfig(Path);
  if (!Config)
    return Config.takeError();
  // Blocks must fit the configuration; the samples shrink theirs to fit.
  A.Opts.MaxThreadsPerBlock = Config->maxThreadsPerBlock();
  DeviceOptions DO;
  DO.Config = *Config;
  DO.Trace = A.Trace ? &outs() : nullptr;
  return openDevice(A.Device, DO);
}

} // namespace

int samplesCommand(int Argc, char **Argv) {
  Args A;
  if (std::optional<int> Status = parseArgs(Argc, Argv, A))
    return *Status;
  if (A.List)
    return listSamples();
  if (A.Trace)
    A.Opts.Trace = &outs();

  Expected<std::unique_ptr<Device>> Dev = openFromArgs(A);
  if (!Dev) {
    errs() << "tandem samples: error: " << toString(Dev.takeError()) << "\n";
    return 1;
  }

  std::vector<Outcome> Outcomes;
  for (const samples::SampleInfo &S : samples::sampleTable()) {
    if (!A.Opts.Only.empty() && !is_contained(A.Opts.Only, S.Name))
      continue;
    Outcome O;
    O.Name = S.Name;
    Expected<samples::SampleResult> R =
        samples::runSample(**Dev, S.Name, A.Opts);
    if (R)
      O.Result = std::move(*R);
    else
      O.Error = toString(R.takeError());
    Outcomes.push_back(std::move(O));
  }

  outs() << "device " << (*Dev)->name() << ", seed " << A.Opts.Seed
         << ", scale " << A.Opts.Scale << "\n";
  printTable(outs(), Outcomes);
  printDetails(outs(), Outcomes);
  if (A.AllCounters)
    printAllCounters(outs(), Outcomes);
  unsigned Passed = count_if(
      Outcomes, [](const Outcome &O) { return O.Result && O.Result->Passed; });
  unsigned Failed = Outcomes.size() - Passed;
  outs() << "samples: " << Passed << " passed, " << Failed << " failed\n";
  return Failed ? 1 : 0;
}

} // namespace tandem::cli
