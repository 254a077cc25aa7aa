//===- SweepCommand.cpp - `tandem sweep`: size the accelerator with the model ===//
//
//   tandem sweep --set KEY=V1,V2 [--set KEY=...]... [--config BASE.json]
//                [--quick] [--matrices DIR] [--max-nnz N] [--spmm-max-nnz N]
//                [--rtl] [--out DIR]
//
// Predicts every workload of `tandem report` (the suite, SpMV and SpMM on
// the matrices and generated inputs) on the base configuration and on every
// combination of the --set values (SweepPoints.h), and prints, per
// configuration, the geometric mean of its predicted cycles over the base's
// (all rows, and per group). The simt model replays each launch's iss trace
// under the configuration's rules (docs/Report.md), so a point costs an iss
// run per workload and no Verilated model: a sweep over lanes or L1 sizes
// needs no RTL builds. --rtl measures every point on the rtl as well
// (Verilating each configuration not built yet, about 2.5 minutes each) and
// shows the measured ratio beside the predicted one and the model's error
// at that point: the same predictions (--profile none either way), so --rtl
// is how a sweep's numbers are checked.
//
// Each point is one `tandem report` run in a process of its own (this
// executable), so a point is exactly what `tandem report --config` would
// give: DIR/configs/NAME.json is its configuration, DIR/points/NAME/ its
// report (report.json/md/html), DIR/points/NAME.log what it printed.
// DIR/sweep.json, sweep.md and sweep.html (bar charts; with --rtl predicted
// against measured) hold the results (written atomically). A
// point whose report fails is named with its log and the sweep goes on;
// the exit status is then 1. Usage errors (a bad --set, a key or value the
// configuration rejects) exit 2 before anything runs.
//
//===----------------------------------------------------------------------===//

#include "Args.h"
#include "Commands.h"

#include "Report.h"
#include "ReportCompare.h"
#include "Svg.h"
#include "SweepPoints.h"

#include "tandem/Config.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

using namespace llvm;

namespace tandem::cli {
namespace {

struct Options {
  std::vector<SweepAxis> Axes;
  std::string ConfigPath, OutDir = "sweep", Matrices, MaxNnz, SpmmMaxNnz;
  bool Quick = false, Rtl = false;
};

void printHelp(raw_ostream &OS) {
  OS << "OVERVIEW: predict the report's workloads on configurations around a base one "
        "(no RTL builds: the simt model on the iss trace), relative to the base\n\n"
        "USAGE: tandem sweep --set KEY=V1,V2 [--set KEY=...]... [options]\n\n"
        "OPTIONS:\n"
        "  --set KEY=V1,V2,...  a configuration key (configs/README.md; sections dotted:\n"
        "                       l1.size_bytes) and its values; several --set: every\n"
        "                       combination (at most 64)\n"
        "  --config FILE        the base configuration (default: configs/default.json)\n"
        "  --quick              the report's quick workloads (a few kernels, two small\n"
        "                       matrices, one generated input)\n"
        "  --matrices DIR       Matrix Market files for SpMV and SpMM (as tandem report)\n"
        "  --max-nnz N, --spmm-max-nnz N  as tandem report\n"
        "  --rtl                also measure every configuration on the rtl (Verilates each\n"
        "                       configuration not built yet, about 2.5 minutes each) and\n"
        "                       show the model's error there\n"
        "  --out DIR            output folder (default: sweep): sweep.json, sweep.md,\n"
        "                       sweep.html, configs/, points/ (one tandem report each)\n"
        "  -h, --help           print this help\n\n"
        "EXAMPLE:\n"
        "  tandem sweep --quick --set lanes=8,16,32 --set l1.size_bytes=4096,16384\n";
}

int usageError(const Twine &Msg) {
  errs() << "tandem sweep: error: " << Msg << "\nRun 'tandem sweep --help' for usage.\n";
  return 2;
}

std::optional<int> parseArgs(int Argc, char **Argv, Options &O) {
  ArgReader Args(Argc, Argv);
  while (Args.next()) {
    StringRef Arg = Args.name();
    std::string V;
    if (Args.flag("-h") || Args.flag("--help")) {
      printHelp(outs());
      return 0;
    } else if (Args.option("--set")) {
      if (!Args.valueInto(V))
        return usageError("--set needs KEY=V1,V2,...");
      Expected<SweepAxis> A = parseSetOption(V);
      if (!A)
        return usageError(toString(A.takeError()));
      O.Axes.push_back(std::move(*A));
    } else if (Args.option("--config")) {
      if (!Args.valueInto(O.ConfigPath))
        return usageError("--config needs a file");
    } else if (Args.option("--out")) {
      if (!Args.valueInto(O.OutDir))
        return usageError("--out needs a folder");
    } else if (Args.option("--matrices")) {
      if (!Args.valueInto(O.Matrices))
        return usageError("--matrices needs a folder");
    } else if (Args.option("--max-nnz") || Args.option("--spmm-max-nnz")) {
      std::string &Out = Arg == "--max-nnz" ? O.MaxNnz : O.SpmmMaxNnz;
      uint64_t N;
      if (!Args.valueInto(Out) || StringRef(Out).getAsInteger(10, N))
        return usageError(Arg + " needs a number");
    } else if (Args.flag("--quick")) {
      O.Quick = true;
    } else if (Args.flag("--rtl")) {
      O.Rtl = true;
    } else {
      return usageError("unknown argument '" + Args.arg() + "'");
    }
  }
  if (O.Axes.empty())
    return usageError("nothing to sweep: give at least one --set KEY=V1,V2");
  return std::nullopt;
}

/// One configuration's run: the base's or a point's.
struct Run {
  std::string Name, Folder; ///< "base" for the base configuration
  std::vector<std::pair<std::string, std::string>> Set;
  std::string ConfigPath, ReportDir, LogPath;
  std::string Error; ///< why there are no rows (empty: fine)
  std::vector<models::ReportRowKey> Rows;
  double Seconds = 0;
};

Error writeText(StringRef Path, StringRef Text) {
  return writeToOutput(Path, [&](raw_ostream &OS) {
    OS << Text;
    return Error::success();
  });
}

/// Runs `tandem report` for \p R's configuration with the sweep's options
/// and reads its rows.
void runReport(const std::string &Tandem, const Options &O, Run &R) {
  std::vector<std::string> Args = {Tandem, "report", "--config", R.ConfigPath, "--out",
                                   R.ReportDir};
  // The model from the iss trace and the configuration's tables alone (no
  // profile probes on the rtl), so that --rtl checks the very predictions a
  // sweep without it makes.
  Args.insert(Args.end(), {"--device", O.Rtl ? "rtl" : "iss", "--profile", "none"});
  if (O.Quick)
    Args.push_back("--quick");
  if (!O.Matrices.empty())
    Args.insert(Args.end(), {"--matrices", O.Matrices});
  if (!O.MaxNnz.empty())
    Args.insert(Args.end(), {"--max-nnz", O.MaxNnz});
  if (!O.SpmmMaxNnz.empty())
    Args.insert(Args.end(), {"--spmm-max-nnz", O.SpmmMaxNnz});
  SmallString<256> Json(R.ReportDir);
  sys::path::append(Json, "report.json");
  sys::fs::remove(Json); // an earlier sweep's into the same --out must not be read as this one's
  std::vector<StringRef> Refs(Args.begin(), Args.end());
  std::optional<StringRef> Redirects[] = {std::nullopt, StringRef(R.LogPath),
                                          StringRef(R.LogPath)};
  auto Start = std::chrono::steady_clock::now();
  std::string ExecError;
  int Status = sys::ExecuteAndWait(Tandem, Refs, std::nullopt, Redirects, 0, 0, &ExecError);
  R.Seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  if (Status < 0) {
    R.Error = "could not run tandem report: " + ExecError;
    return;
  }
  if (!sys::fs::exists(Json)) {
    R.Error = formatv("tandem report exited {0} and wrote no report (see {1})", Status,
                      R.LogPath);
    return;
  }
  std::string File;
  Expected<std::vector<models::ReportRowKey>> Rows = models::loadReportRows(Json, File);
  if (!Rows) {
    R.Error = toString(Rows.takeError());
    return;
  }
  R.Rows = std::move(*Rows);
  for (models::ReportRowKey &K : R.Rows)
    if (K.Group == "suite")
      K.Input = problemOf(K.Input);
  if (Status != 0) // rows, but a kernel failed or gave a wrong result there
    R.Error = formatv("tandem report exited {0} (see {1})", Status, R.LogPath);
}

/// The model's median |error| over \p R's measured rows, if any: the
/// report's own median (nearest rank), so the two agree.
std::optional<double> medianAbsErrorPct(const Run &R) {
  std::vector<double> E;
  for (const models::ReportRowKey &K : R.Rows)
    if (K.Measured && *K.Measured > 0)
      E.push_back(std::fabs(K.Predicted - *K.Measured) / *K.Measured * 100);
  if (E.empty())
    return std::nullopt;
  return models::percentile(std::move(E), 50);
}

std::string ratio(double V) { return formatv("{0:F3}", V).str(); }

/// One configuration against the base: the comparison's groups for the
/// device the sweep ran ("all" first).
struct PointSummary {
  const Run *R = nullptr;
  models::Comparison Pairs; ///< the base's rows (A) beside this configuration's (B)
  std::vector<models::ComparedGroup> Groups;
  size_t OnlyBase = 0, OnlyPoint = 0; ///< rows one side lacks (a case that does not fit)
};

/// This configuration's row for the base row \p Base, if it has one.
const models::ComparedRow *pairFor(const PointSummary &S, const models::ReportRowKey &Base) {
  for (const models::ComparedRow &P : S.Pairs.Rows)
    if (P.A.Workload == Base.Workload && P.A.Input == Base.Input && P.A.Device == Base.Device)
      return &P;
  return nullptr;
}

/// Per workload and input: the base's cycles and each configuration's
/// predicted speedup ("-" where it has no such row).
void writeRowTable(const Run &Base, const std::vector<PointSummary> &S, raw_ostream &OS) {
  OS << "| workload | input | base cycles |";
  for (size_t I = 1; I < S.size(); ++I)
    OS << " " << S[I].R->Name << " |";
  OS << "\n|---|---|---:|";
  for (size_t I = 1; I < S.size(); ++I)
    OS << "---:|";
  OS << "\n";
  for (const models::ReportRowKey &K : Base.Rows) {
    OS << "| " << K.Workload << " | " << models::displayInput(K.Group, K.Input) << " | "
       << models::displayAmount(K.Unit, K.Predicted) << " |";
    for (size_t I = 1; I < S.size(); ++I) {
      const models::ComparedRow *P = pairFor(S[I], K);
      OS << " " << (P ? ratio(1 / P->predictedRatio()) : "-") << " |";
    }
    OS << "\n";
  }
}

void writeTable(const std::vector<PointSummary> &S, bool Rtl, raw_ostream &OS, bool Markdown) {
  std::vector<std::string> Groups;
  for (const PointSummary &P : S)
    for (const models::ComparedGroup &G : P.Groups)
      if (G.Group != "all" && !is_contained(Groups, G.Group))
        Groups.push_back(G.Group);
  auto Cell = [&](const PointSummary &P, StringRef Group) -> std::string {
    for (const models::ComparedGroup &G : P.Groups)
      if (G.Group == Group) {
        std::string C = ratio(1 / G.PredictedRatio);
        if (Rtl && G.MeasuredRows)
          C += " (" + ratio(1 / G.MeasuredRatio) + ")";
        return C;
      }
    return "-";
  };
  std::vector<std::string> Head = {"configuration", "rows", "speedup, all"};
  for (const std::string &G : Groups)
    Head.push_back(G);
  if (Rtl)
    Head.push_back("model |error| median");
  std::vector<std::vector<std::string>> Lines;
  for (const PointSummary &P : S) {
    std::vector<std::string> L = {P.R->Name};
    size_t Rows = 0;
    for (const models::ComparedGroup &G : P.Groups)
      if (G.Group == "all")
        Rows = G.Rows;
    L.push_back(P.R->Error.empty() || Rows ? std::to_string(Rows) : "-");
    L.push_back(P.R->Rows.empty() ? "failed" : Cell(P, "all"));
    for (const std::string &G : Groups)
      L.push_back(Cell(P, G));
    if (Rtl) {
      std::optional<double> E = medianAbsErrorPct(*P.R);
      L.push_back(E ? formatv("{0:F1}%", *E).str() : "-");
    }
    Lines.push_back(std::move(L));
  }
  if (Markdown) {
    OS << "|";
    for (const std::string &H : Head)
      OS << " " << H << " |";
    OS << "\n|";
    for (size_t I = 0; I < Head.size(); ++I)
      OS << (I == 0 ? "---|" : "---:|");
    OS << "\n";
    for (const auto &L : Lines) {
      OS << "|";
      for (const std::string &C : L)
        OS << " " << C << " |";
      OS << "\n";
    }
    return;
  }
  std::vector<size_t> Width(Head.size());
  for (size_t I = 0; I < Head.size(); ++I) {
    Width[I] = Head[I].size();
    for (const auto &L : Lines)
      Width[I] = std::max(Width[I], L[I].size());
  }
  auto Print = [&](const std::vector<std::string> &L) {
    for (size_t I = 0; I < L.size(); ++I)
      OS << (I ? "  " : "") << (I == 0 ? left_justify(L[I], Width[I])
                                       : right_justify(L[I], Width[I]));
    OS << "\n";
  };
  Print(Head);
  for (const auto &L : Lines)
    Print(L);
}

/// sweep.html: self-contained (inline SVG, no script), for a browser: one
/// bar chart of the speedup over all rows per configuration, one per group,
/// and with --rtl predicted against measured cycles over every point's rows.
std::string sweepHtml(const Options &O, const std::vector<PointSummary> &S) {
  std::string H;
  raw_string_ostream OS(H);
  OS << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>tandem sweep</title>"
        "<style>body{font-family:sans-serif;max-width:70em;margin:2em auto}</style></head>"
        "<body>\n<h1>tandem sweep</h1>\n<p>Speedup: the geometric mean of base cycles over "
        "each configuration's, "
     << (O.Rtl ? "predicted by the simt model and measured on the rtl."
               : "predicted by the simt model from the iss trace (no rtl run).")
     << "</p>\n";
  std::vector<std::string> Groups = {"all"};
  for (const PointSummary &P : S)
    for (const models::ComparedGroup &G : P.Groups)
      if (!is_contained(Groups, G.Group))
        Groups.push_back(G.Group);
  for (const std::string &Group : Groups) {
    std::vector<std::string> Labels;
    std::vector<double> Values;
    for (const PointSummary &P : S)
      for (const models::ComparedGroup &G : P.Groups)
        if (G.Group == Group) {
          Labels.push_back(P.R->Name);
          Values.push_back(1 / G.PredictedRatio);
        }
    OS << models::svg::bars("predicted speedup over the base, " + Group + " rows", Labels,
                            Values, "x")
       << "\n";
  }
  if (O.Rtl) {
    std::vector<models::svg::Point> Points;
    std::vector<std::string> Series;
    for (const PointSummary &P : S) {
      Series.push_back(P.R->Name);
      for (const models::ReportRowKey &K : P.R->Rows)
        if (K.Measured)
          Points.push_back({*K.Measured, K.Predicted, K.Workload + " " + K.Input,
                            unsigned(Series.size() - 1)});
    }
    OS << models::svg::scatterLogLog("predicted against measured cycles, every configuration",
                                     "measured cycles", "predicted cycles", Points, Series)
       << "\n";
  }
  OS << "<p>Each configuration's full report: <code>points/NAME/report.html</code>.</p>\n"
        "</body></html>\n";
  return H;
}

json::Value sweepJson(const Options &O, const Run &Base, const std::vector<PointSummary> &S) {
  json::Array Points;
  for (const PointSummary &P : S) {
    json::Object Set;
    for (const auto &[K, V] : P.R->Set)
      Set[K] = sweepValue(V);
    json::Array Groups;
    for (const models::ComparedGroup &G : P.Groups) {
      json::Object J{{"device", G.Device},
                     {"group", G.Group},
                     {"rows", int64_t(G.Rows)},
                     {"predicted_cycles_over_base", G.PredictedRatio},
                     {"predicted_speedup", 1 / G.PredictedRatio}};
      if (G.MeasuredRows) {
        J["measured_rows"] = int64_t(G.MeasuredRows);
        J["measured_cycles_over_base"] = G.MeasuredRatio;
        J["measured_speedup"] = 1 / G.MeasuredRatio;
      }
      Groups.push_back(std::move(J));
    }
    json::Object J{{"name", P.R->Name},           {"set", std::move(Set)},
                   {"config", P.R->ConfigPath},   {"report", P.R->ReportDir},
                   {"log", P.R->LogPath},         {"seconds", P.R->Seconds},
                   {"groups", std::move(Groups)}, {"rows_only_in_base", int64_t(P.OnlyBase)},
                   {"rows_only_here", int64_t(P.OnlyPoint)}};
    if (std::optional<double> E = medianAbsErrorPct(*P.R))
      J["model_median_abs_error_pct"] = *E;
    if (!P.R->Error.empty())
      J["error"] = P.R->Error;
    Points.push_back(std::move(J));
  }
  // Per base row: every configuration's predicted (and measured) cycles.
  json::Array Rows;
  for (const models::ReportRowKey &K : Base.Rows) {
    json::Object Predicted, Measured;
    for (const PointSummary &P : S)
      if (const models::ComparedRow *R = pairFor(P, K)) {
        Predicted[P.R->Name] = R->B.Predicted;
        if (R->B.Measured)
          Measured[P.R->Name] = *R->B.Measured;
      }
    json::Object J{{"device", K.Device},
                   {"workload", K.Workload},
                   {"input", K.Input},
                   {"group", K.Group},
                   {"unit", K.Unit},
                   {"predicted", std::move(Predicted)}};
    if (!Measured.empty())
      J["measured"] = std::move(Measured);
    Rows.push_back(std::move(J));
  }
  return json::Object{{"base_config", Base.ConfigPath},
                      {"mode", O.Rtl ? "rtl: measured and predicted"
                                     : "model: predicted from the iss trace and the "
                                       "configuration, no rtl"},
                      {"quick", O.Quick},
                      {"points", std::move(Points)},
                      {"rows", std::move(Rows)}};
}

} // namespace

int sweepCommand(int Argc, char **Argv) {
  Options O;
  if (std::optional<int> Stop = parseArgs(Argc, Argv, O))
    return *Stop;
  std::string BasePath = O.ConfigPath.empty() ? defaultConfigPath() : O.ConfigPath;
  Expected<AcceleratorConfig> Base = loadConfig(BasePath);
  if (!Base) {
    errs() << "tandem sweep: error: " << toString(Base.takeError()) << '\n';
    return 1;
  }
  Expected<std::vector<SweepPoint>> Points = expandSweep(*Base, O.Axes);
  if (!Points)
    return usageError(toString(Points.takeError()));
  std::string Tandem = sys::fs::getMainExecutable("tandem", (void *)&sweepCommand);
  if (Tandem.empty()) {
    errs() << "tandem sweep: error: cannot find the tandem executable to run the reports\n";
    return 1;
  }
  auto Path = [&](StringRef Sub, StringRef Name) {
    SmallString<256> P(O.OutDir);
    sys::path::append(P, Sub, Name);
    return P.str().str();
  };
  for (StringRef Sub : {"configs", "points"})
    if (std::error_code EC = sys::fs::create_directories(Path(Sub, ""))) {
      errs() << "tandem sweep: error: cannot create '" << Path(Sub, "") << "': " << EC.message()
             << '\n';
      return 1;
    }

  // The base first (every ratio is over it), then the points in order.
  std::vector<Run> Runs(1 + Points->size());
  Runs[0].Name = Runs[0].Folder = "base";
  Runs[0].ConfigPath = BasePath;
  for (size_t I = 0; I < Points->size(); ++I) {
    const SweepPoint &P = (*Points)[I];
    Run &R = Runs[I + 1];
    R.Name = P.Name;
    R.Folder = P.Folder;
    R.Set = P.Set;
    R.ConfigPath = Path("configs", P.Folder + ".json");
    if (Error E = writeText(R.ConfigPath, configToJson(P.Config) + "\n")) {
      errs() << "tandem sweep: error: cannot write '" << R.ConfigPath
             << "': " << toString(std::move(E)) << '\n';
      return 1;
    }
  }
  bool Ok = true;
  errs() << formatv("tandem sweep: {0} configurations and the base, {1}\n", Points->size(),
                    O.Rtl ? "measured on the rtl and predicted"
                          : "predicted by the simt model (no rtl)");
  for (size_t I = 0; I < Runs.size(); ++I) {
    Run &R = Runs[I];
    R.ReportDir = Path("points", R.Folder);
    R.LogPath = R.ReportDir + ".log";
    runReport(Tandem, O, R);
    errs() << formatv("[{0}/{1}] {2}: {3} rows, {4:F0} s{5}\n", I + 1, Runs.size(), R.Name,
                      R.Rows.size(), R.Seconds, R.Error.empty() ? "" : ": " + R.Error);
    Ok &= R.Error.empty();
  }
  if (Runs[0].Rows.empty()) {
    errs() << "tandem sweep: error: the base configuration gave no rows: nothing to compare "
              "with\n";
    return 1;
  }

  std::vector<PointSummary> Summary;
  const std::string Device = O.Rtl ? "rtl" : "iss";
  for (const Run &R : Runs) {
    PointSummary S;
    S.R = &R;
    S.Pairs = models::compareReports("base", Runs[0].Rows, R.Name, R.Rows);
    for (const models::ComparedGroup &G : S.Pairs.groups())
      if (G.Device == Device)
        S.Groups.push_back(G);
    // "all" first: the table's main column.
    std::stable_partition(S.Groups.begin(), S.Groups.end(),
                          [](const models::ComparedGroup &G) { return G.Group == "all"; });
    S.OnlyBase = S.Pairs.OnlyA.size();
    S.OnlyPoint = S.Pairs.OnlyB.size();
    Summary.push_back(std::move(S));
  }

  std::string Md;
  raw_string_ostream MdOS(Md);
  MdOS << "# tandem sweep\n\nBase configuration: `" << BasePath << "`. "
       << (O.Rtl ? "Each configuration measured on the rtl and predicted by the simt model; "
                   "speedups are predicted (measured in parentheses)."
                 : "Each configuration predicted by the simt model from the iss trace (no "
                   "rtl run).")
       << " Speedup: the geometric mean over the rows both runs have of base cycles / "
          "configuration cycles. Suite rows pair on their problem (sizes and data), not "
          "their launch: with fewer warps per core the same problem runs in smaller "
          "blocks.\n\n";
  writeTable(Summary, O.Rtl, MdOS, /*Markdown=*/true);
  for (const PointSummary &S : Summary) {
    if (S.OnlyBase || S.OnlyPoint)
      MdOS << "\n- " << S.R->Name << ": " << S.OnlyBase << " rows only in the base, "
           << S.OnlyPoint << " only here (a case whose block does not fit this "
              "configuration; see its report's notes)";
    if (!S.R->Error.empty())
      MdOS << "\n- " << S.R->Name << ": " << S.R->Error;
  }
  MdOS << "\n\n## Per workload\n\nPredicted speedup over the base configuration.\n\n";
  writeRowTable(Runs[0], Summary, MdOS);
  MdOS << "\nEach configuration's full report: `points/NAME/report.md`.\n";
  std::string Json, Html = sweepHtml(O, Summary);
  raw_string_ostream(Json) << formatv("{0:2}", sweepJson(O, Runs[0], Summary)) << "\n";
  for (const auto &[File, Text] : {std::pair<std::string, std::string *>{"sweep.md", &Md},
                                   std::pair<std::string, std::string *>{"sweep.json", &Json},
                                   std::pair<std::string, std::string *>{"sweep.html", &Html}}) {
    SmallString<256> P(O.OutDir);
    sys::path::append(P, File);
    if (Error E = writeText(P, *Text)) {
      errs() << "tandem sweep: error: cannot write '" << P << "': " << toString(std::move(E))
             << '\n';
      return 1;
    }
  }
  writeTable(Summary, O.Rtl, outs(), /*Markdown=*/false);
  errs() << "tandem sweep: wrote " << O.OutDir << "/sweep.json, sweep.md, sweep.html\n";
  return Ok ? 0 : 1;
}

} // namespace tandem::cli
