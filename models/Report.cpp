//===- Report.cpp - The model-versus-device report: data and writers ------===//

#include "Report.h"

#include "Svg.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <set>

using namespace llvm;

namespace tandem::models {

std::optional<double> ReportRow::errorPct() const {
  if (!Measured || *Measured <= 0)
    return std::nullopt;
  return (Predicted - *Measured) / *Measured * 100.0;
}

std::optional<double> ReportRow::staticErrorPct() const {
  if (!Measured || *Measured <= 0 || !StaticPredicted)
    return std::nullopt;
  return (*StaticPredicted - *Measured) / *Measured * 100.0;
}

std::string displayInput(StringRef Group, StringRef Input) {
  return (Group == "matrix" ? sys::path::filename(Input) : Input).str();
}

std::string displayAmount(StringRef Unit, std::optional<double> V) {
  if (!V)
    return "-";
  if (Unit == "cycles")
    return formatv("{0:N}", uint64_t(std::llround(*V))).str();
  return formatv("{0:F4} {1}", *V, Unit).str();
}

double percentile(std::vector<double> V, double P) {
  if (V.empty())
    return 0;
  std::sort(V.begin(), V.end());
  size_t Rank = size_t(std::ceil(P / 100.0 * V.size()));
  return V[std::clamp<size_t>(Rank, 1, V.size()) - 1];
}

std::vector<SpmvPick> spmvPicks(ArrayRef<ReportRow> Rows) {
  // (device, input) in the order the rows first name them.
  std::vector<std::pair<std::string, std::string>> Keys;
  for (const ReportRow &Row : Rows)
    if (Row.Measured && is_contained(SpmvVariants, Row.Workload) &&
        !is_contained(Keys, std::make_pair(Row.Device, Row.Input)))
      Keys.emplace_back(Row.Device, Row.Input);
  std::vector<SpmvPick> Out;
  for (const auto &[Device, Input] : Keys) {
    const ReportRow *Picked = nullptr, *Fastest = nullptr;
    unsigned Variants = 0;
    for (const ReportRow &Row : Rows) {
      if (Row.Device != Device || Row.Input != Input || !Row.Measured ||
          !is_contained(SpmvVariants, Row.Workload))
        continue;
      ++Variants;
      if (!Picked || Row.Predicted < Picked->Predicted)
        Picked = &Row;
      if (!Fastest || *Row.Measured < *Fastest->Measured)
        Fastest = &Row;
    }
    if (Variants >= 2)
      Out.push_back({Device, Input, Picked->Unit, Picked->Workload, Fastest->Workload,
                     *Picked->Measured, *Fastest->Measured});
  }
  return Out;
}

namespace {

std::vector<Accuracy> accuracyOf(const std::vector<ReportRow> &Rows,
                                 bool (*Filter)(const ReportRow &),
                                 std::optional<double> (ReportRow::*Error)() const) {
  std::vector<Accuracy> Out;
  std::vector<std::string> Devices;
  for (const ReportRow &Row : Rows)
    if (!llvm::is_contained(Devices, Row.Device))
      Devices.push_back(Row.Device);
  for (const std::string &D : Devices) {
    std::vector<double> Errors;
    for (const ReportRow &Row : Rows)
      if (Row.Device == D && (!Filter || Filter(Row)))
        if (std::optional<double> E = (Row.*Error)())
          Errors.push_back(std::fabs(*E));
    Accuracy A;
    A.Device = D;
    A.Rows = Errors.size();
    A.MedianAbsErrorPct = percentile(Errors, 50);
    A.P90AbsErrorPct = percentile(Errors, 90);
    Out.push_back(A);
  }
  return Out;
}

} // namespace

std::vector<Accuracy> Report::accuracy(bool (*Filter)(const ReportRow &)) const {
  return accuracyOf(Rows, Filter, &ReportRow::errorPct);
}

std::vector<Accuracy> Report::staticAccuracy(bool (*Filter)(const ReportRow &)) const {
  return accuracyOf(Rows, Filter, &ReportRow::staticErrorPct);
}

std::string Report::summaryLine() const {
  std::string S = "report:";
  raw_string_ostream OS(S);
  bool First = true;
  for (const Accuracy &A : accuracy()) {
    OS << (First ? " " : "; ") << A.Device;
    if (A.Rows == 0)
      OS << " no measured time (" << A.Device << " has no clock)";
    else
      OS << formatv(" median |error| {0:F1}%, p90 {1:F1}% ({2} rows)", A.MedianAbsErrorPct,
                    A.P90AbsErrorPct, A.Rows);
    First = false;
  }
  if (First)
    OS << " no rows";
  for (const Accuracy &A : staticAccuracy()) {
    if (A.Rows == 0)
      continue;
    size_t Measured = 0;
    for (const ReportRow &Row : Rows)
      Measured += Row.Device == A.Device && Row.errorPct().has_value();
    OS << formatv("; {0} static median |error| {1:F1}%, p90 {2:F1}% ({3} of {4} rows)",
                  A.Device, A.MedianAbsErrorPct, A.P90AbsErrorPct, A.Rows, Measured);
  }
  return S;
}

//===--- JSON ---------------------------------------------------------------===//

json::Object breakdownJson(const Breakdown &B) {
  return json::Object{{"compute", B.Compute},
                      {"memory_bandwidth", B.MemoryBandwidth},
                      {"memory_latency", B.MemoryLatency},
                      {"synchronization", B.Synchronization},
                      {"load_imbalance", B.LoadImbalance},
                      {"launch", B.Launch}};
}

json::Object memoryJson(const MemoryEstimate &M) {
  return json::Object{{"l1_hits", int64_t(M.L1Hits)},
                      {"l1_misses", int64_t(M.L1Misses)},
                      {"l1_writebacks", int64_t(M.L1Writebacks)},
                      {"dram_requests", int64_t(M.DramRequests)},
                      {"dram_read_bytes", int64_t(M.DramReadBytes)},
                      {"dram_write_bytes", int64_t(M.DramWriteBytes)}};
}

namespace {

json::Value optional(std::optional<double> V) {
  return V ? json::Value(*V) : json::Value(nullptr);
}

bool isTuned(const ReportRow &R) { return R.TunedOn; }
bool isNotTunedSuite(const ReportRow &R) { return !R.TunedOn && R.Group == "suite"; }
bool isSparseInput(const ReportRow &R) { return R.Group != "suite"; }

} // namespace

namespace {
/// The prediction in seconds: cycles at the report's assumed clock (the
/// rtl has none of its own); a gpu row is already in ms.
double predictedSeconds(const Report &R, const ReportRow &Row) {
  return Row.Unit == "ms" ? Row.Predicted / 1e3 : Row.Predicted / R.ClockHz;
}

} // namespace

namespace {
/// The whole configuration, as its file holds it (configToJson's text is
/// valid JSON by construction).
json::Value configurationJson(const AcceleratorConfig &C) {
  Expected<json::Value> V = json::parse(configToJson(C));
  if (!V) {
    consumeError(V.takeError());
    return nullptr;
  }
  return std::move(*V);
}
} // namespace

void writeJson(const Report &R, raw_ostream &OS) {
  json::Array Rows;
  for (const ReportRow &Row : R.Rows) {
    json::Object Counters;
    for (const auto &[K, V] : Row.Counters)
      Counters[K] = int64_t(V);
    Rows.push_back(json::Object{
        {"device", Row.Device},
        {"workload", Row.Workload},
        {"input", Row.Input},
        {"group", Row.Group},
        {"predicted", Row.Predicted},
        {"measured", optional(Row.Measured)},
        {"unit", Row.Unit},
        {"error_pct", optional(Row.errorPct())},
        {"bound", Row.Bound},
        {"breakdown", breakdownJson(Row.Parts)},
        {"model_inputs", Row.ModelInputs},
        {"host_submit_us", optional(Row.HostSubmitUs)},
        {"predicted_probe_launch", optional(Row.ProbeLaunchPredicted)},
        {"static_predicted", optional(Row.StaticPredicted)},
        {"static_error_pct", optional(Row.staticErrorPct())},
        {"static_reason",
         Row.StaticReason.empty() ? json::Value(nullptr) : json::Value(Row.StaticReason)},
        {"tuned_on", Row.TunedOn},
        {"predicted_seconds", predictedSeconds(R, Row)},
        {"counters", std::move(Counters)},
        {"model_memory", memoryJson(Row.ModelMemory)},
    });
  }
  json::Array Summary;
  for (const Accuracy &A : R.accuracy())
    Summary.push_back(json::Object{{"device", A.Device},
                                   {"rows", int64_t(A.Rows)},
                                   {"median_abs_error_pct", A.MedianAbsErrorPct},
                                   {"p90_abs_error_pct", A.P90AbsErrorPct}});
  json::Array StaticSummary;
  for (const Accuracy &A : R.staticAccuracy())
    StaticSummary.push_back(json::Object{{"device", A.Device},
                                         {"rows", int64_t(A.Rows)},
                                         {"median_abs_error_pct", A.MedianAbsErrorPct},
                                         {"p90_abs_error_pct", A.P90AbsErrorPct}});
  json::Array Picks;
  size_t Within = 0;
  for (const SpmvPick &P : R.Picks) {
    Within += P.within10();
    Picks.push_back(json::Object{{"device", P.Device},
                                 {"input", P.Input},
                                 {"picked", P.Picked},
                                 {"fastest", P.Fastest},
                                 {"picked_measured", P.PickedMeasured},
                                 {"fastest_measured", P.FastestMeasured},
                                 {"within_10pct", P.within10()}});
  }
  json::Array Notes;
  for (const std::string &N : R.Notes)
    Notes.push_back(N);
  json::Object Top{
      {"schema_version", 1},
      {"date", R.Date},
      {"command", R.Command},
      {"config", R.Config.Name},
      {"configuration", configurationJson(R.Config)},
      {"profile", R.Profile},
      {"clock_hz", R.ClockHz},
      {"model_params", json::Object{{"queueing_weight", R.Params.QueueingWeight},
                                    {"dependency_exposure", R.Params.DependencyExposure},
                                    {"block_overhead_cycles", R.Params.BlockOverheadCycles},
                                    {"barrier_cycles", R.Params.BarrierCycles},
                                    {"launch_overhead_cycles", R.Params.LaunchOverheadCycles},
                                    {"cost_in_rounds", R.Params.CostInRounds}}},
      {"summary", std::move(Summary)},
      {"static_summary", std::move(StaticSummary)},
      {"spmv_picks", std::move(Picks)},
      {"spmv_picks_within_10pct", json::Object{{"count", int64_t(Within)},
                                               {"of", int64_t(R.Picks.size())}}},
      {"notes", std::move(Notes)},
      {"rows", std::move(Rows)},
  };
  OS << formatv("{0:2}", json::Value(std::move(Top))) << '\n';
}

//===--- Markdown -----------------------------------------------------------===//

namespace {

std::string pct(std::optional<double> V) {
  return V ? formatv("{0:+0.0;-0.0}%", *V).str() : "-";
}


void accuracyTable(const Report &R, raw_ostream &OS) {
  OS << "| rows | device | n | median \\|error\\| | p90 \\|error\\| |\n|---|---|---:|---:|---:|\n";
  struct Sel {
    const char *Name;
    bool (*Filter)(const ReportRow &);
  };
  const Sel Sels[] = {{"all", nullptr},
                      {"calibration kernels (tuned on)", isTuned},
                      {"other suite kernels (not tuned on)", isNotTunedSuite},
                      {"matrices and generated inputs (not tuned on)", isSparseInput}};
  for (const Sel &S : Sels)
    for (const Accuracy &A : R.accuracy(S.Filter))
      if (A.Rows)
        OS << formatv("| {0} | {1} | {2} | {3:F1}% | {4:F1}% |\n", S.Name, A.Device, A.Rows,
                      A.MedianAbsErrorPct, A.P90AbsErrorPct);
  for (const Sel &S : Sels)
    for (const Accuracy &A : R.staticAccuracy(S.Filter))
      if (A.Rows)
        OS << formatv("| {0}, static estimate | {1} static | {2} | {3:F1}% | {4:F1}% |\n",
                      S.Name, A.Device, A.Rows, A.MedianAbsErrorPct, A.P90AbsErrorPct);
  // Where the error is: the measured rows of each device by the bound the
  // model named (a goal missed on launch-bound rows reads differently from
  // one missed on bandwidth-bound ones).
  std::vector<std::pair<std::string, std::string>> DeviceBounds;
  for (const ReportRow &Row : R.Rows)
    if (Row.errorPct() && !is_contained(DeviceBounds, std::make_pair(Row.Device, Row.Bound)))
      DeviceBounds.emplace_back(Row.Device, Row.Bound);
  llvm::sort(DeviceBounds);
  for (const auto &[Device, Bound] : DeviceBounds) {
    std::vector<double> Errors;
    for (const ReportRow &Row : R.Rows)
      if (Row.Device == Device && Row.Bound == Bound)
        if (std::optional<double> E = Row.errorPct())
          Errors.push_back(std::fabs(*E));
    OS << formatv("| bound by {0} | {1} | {2} | {3:F1}% | {4:F1}% |\n", Bound, Device,
                  Errors.size(), percentile(Errors, 50), percentile(Errors, 90));
  }
}

} // namespace

void writeMarkdown(const Report &R, raw_ostream &OS) {
  OS << "# Tandem report\n\n"
     << "Generated " << R.Date << " by `" << R.Command << "`, configuration `" << R.Config.Name
     << "` (" << describeConfig(R.Config) << "). Cycles become seconds at an assumed " << R.ClockHz / 1e6
     << " MHz. Model latencies: " << R.Profile << ". How to read this: docs/Report.md.\n\n"
     << "**" << R.summaryLine() << "**\n\n## Accuracy\n\n";
  accuracyTable(R, OS);
  OS << "\n## Rows\n\n| device | workload | input | predicted | measured | error | bound | "
        "compute | mem bw | mem lat | sync | imbalance | launch | inputs | static | static "
        "error |\n"
     << "|---|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---|---:|---:|\n";
  for (const ReportRow &Row : R.Rows)
    OS << "| " << Row.Device << " | " << Row.Workload << (Row.TunedOn ? " (tuned on)" : "")
       << " | " << Row.Input << " | " << displayAmount(Row.Unit, Row.Predicted) << " | " << displayAmount(Row.Unit, Row.Measured)
       << " | " << pct(Row.errorPct()) << " | " << Row.Bound << " | "
       << displayAmount(Row.Unit, Row.Parts.Compute) << " | " << displayAmount(Row.Unit, Row.Parts.MemoryBandwidth) << " | "
       << displayAmount(Row.Unit, Row.Parts.MemoryLatency) << " | " << displayAmount(Row.Unit, Row.Parts.Synchronization)
       << " | " << displayAmount(Row.Unit, Row.Parts.LoadImbalance) << " | " << displayAmount(Row.Unit, Row.Parts.Launch)
       << " | " << Row.ModelInputs << " | " << displayAmount(Row.Unit, Row.StaticPredicted) << " | "
       << pct(Row.staticErrorPct()) << " |\n";
  bool AnyReason = llvm::any_of(R.Rows, [](const ReportRow &Row) {
    return !Row.StaticReason.empty();
  });
  if (AnyReason) {
    OS << "\n## Rows without a static estimate\n\n| device | workload | input | why |\n"
          "|---|---|---|---|\n";
    for (const ReportRow &Row : R.Rows)
      if (!Row.StaticReason.empty())
        OS << "| " << Row.Device << " | " << Row.Workload << " | " << Row.Input << " | "
           << Row.StaticReason << " |\n";
  }
  if (!R.Picks.empty()) {
    OS << "\n## SpMV variant picks\n\n";
    std::vector<std::string> Devices;
    for (const SpmvPick &P : R.Picks)
      if (!is_contained(Devices, P.Device))
        Devices.push_back(P.Device);
    for (const std::string &D : Devices) {
      size_t Within = 0, Of = 0;
      for (const SpmvPick &P : R.Picks)
        if (P.Device == D) {
          Within += P.within10();
          ++Of;
        }
      OS << D << ": the model's pick was within 10% of the fastest measured variant on "
         << Within << " of " << Of << " inputs.\n\n";
    }
    OS << "| device | input | picked | fastest | picked, measured | fastest, measured | "
          "within 10% |\n|---|---|---|---|---:|---:|---|\n";
    for (const SpmvPick &P : R.Picks)
      OS << "| " << P.Device << " | " << P.Input << " | " << P.Picked << " | " << P.Fastest
         << " | " << displayAmount(P.Unit, P.PickedMeasured) << " | "
         << displayAmount(P.Unit, P.FastestMeasured) << " | " << (P.within10() ? "yes" : "no")
         << " |\n";
  }
  if (!R.Notes.empty()) {
    OS << "\n## Notes\n\n";
    for (const std::string &N : R.Notes)
      OS << "- " << N << '\n';
  }
}

//===--- HTML ---------------------------------------------------------------===//

namespace {

std::string shortInput(const ReportRow &Row) { return displayInput(Row.Group, Row.Input); }

std::string rowLabel(const ReportRow &Row) {
  return Row.Workload + (Row.Group == "suite" ? "" : " " + shortInput(Row));
}

} // namespace

void writeHtml(const Report &R, raw_ostream &OS) {
  OS << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Tandem report</title>\n"
        "<style>body{font-family:sans-serif;max-width:1000px;margin:auto}"
        "table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;"
        "padding:2px 6px;text-align:right}td:nth-child(-n+3){text-align:left}</style>"
        "</head><body>\n<h1>Tandem report</h1>\n<p>"
     << svg::escape(R.Date + " - " + R.Command + " - configuration " + R.Config.Name + " (" +
                    describeConfig(R.Config) + ")")
     << "</p>\n<p><b>" << svg::escape(R.summaryLine()) << "</b></p>\n<p>Model latencies: "
     << svg::escape(R.Profile) << "</p>\n";

  // Predicted against measured, one series per group.
  std::vector<std::string> Groups;
  std::vector<svg::Point> Scatter, Roof;
  for (const ReportRow &Row : R.Rows) {
    if (!Row.Measured || Row.Unit != "cycles")
      continue;
    auto It = llvm::find(Groups, Row.Group);
    if (It == Groups.end())
      It = Groups.insert(Groups.end(), Row.Group);
    unsigned Series = unsigned(It - Groups.begin());
    Scatter.push_back({*Row.Measured, Row.Predicted,
                       rowLabel(Row) + ": " + pct(Row.errorPct()), Series});
    double Bytes = double(Row.Counters.count("dram_read_bytes") ? Row.Counters.at("dram_read_bytes") : 0) +
                   double(Row.Counters.count("dram_write_bytes") ? Row.Counters.at("dram_write_bytes") : 0);
    if (Bytes > 0 && Row.FpuLaneOps > 0)
      Roof.push_back({Row.FpuLaneOps / Bytes, Row.FpuLaneOps / *Row.Measured, rowLabel(Row),
                      Series});
  }
  // The static estimates: one more marker series.
  bool AnyStatic = false;
  for (const ReportRow &Row : R.Rows)
    if (Row.Measured && Row.StaticPredicted && Row.Unit == "cycles") {
      if (!AnyStatic)
        Groups.push_back("static estimate (all groups)");
      AnyStatic = true;
      Scatter.push_back({*Row.Measured, *Row.StaticPredicted,
                         rowLabel(Row) + " (static): " + pct(Row.staticErrorPct()),
                         unsigned(Groups.size() - 1)});
    }
  OS << "<h2>Predicted against measured</h2>\n"
     << svg::scatterLogLog("simt model vs rtl (cycles; band: +-10%)", "measured cycles (rtl)",
                           "predicted cycles (model)", Scatter, Groups);
  // gpu rows (ms, from the runner's results): their own plot.
  std::vector<std::string> GpuGroups;
  std::vector<svg::Point> GpuScatter;
  for (const ReportRow &Row : R.Rows) {
    if (!Row.Measured || Row.Unit != "ms")
      continue;
    auto It = llvm::find(GpuGroups, Row.Group);
    if (It == GpuGroups.end())
      It = GpuGroups.insert(GpuGroups.end(), Row.Group);
    GpuScatter.push_back({*Row.Measured, Row.Predicted,
                          rowLabel(Row) + ": " + pct(Row.errorPct()),
                          unsigned(It - GpuGroups.begin())});
  }
  if (!GpuScatter.empty())
    OS << svg::scatterLogLog("gpu model vs the GPU (ms; band: +-10%)", "measured ms (gpu)",
                             "predicted ms (gpu model)", GpuScatter, GpuGroups);

  // Per-matrix errors.
  std::vector<std::string> Labels;
  std::vector<double> Errors;
  for (const ReportRow &Row : R.Rows)
    if (Row.Group != "suite" && Row.errorPct()) {
      Labels.push_back(rowLabel(Row));
      Errors.push_back(*Row.errorPct());
    }
  if (!Labels.empty())
    OS << "<h2>Error per matrix and variant</h2>\n"
       << svg::bars("model error per input (dashed: +-10%)", Labels, Errors, "error %", 10);

  // Roofline of the measured points.
  if (!Roof.empty()) {
    double Lanes = 0, Bw = 0;
    for (const ReportRow &Row : R.Rows)
      if (Row.Counters.count("peak_lane_ops_per_cycle")) {
        Lanes = double(Row.Counters.at("peak_lane_ops_per_cycle"));
        Bw = double(Row.Counters.at("peak_dram_bytes_per_cycle"));
        break;
      }
    if (Lanes > 0 && Bw > 0)
      OS << "<h2>Roofline (rtl, measured cycles and DRAM bytes)</h2>\n"
         << svg::roofline("roofline: fp32 lane ops per cycle", Roof, Lanes, Bw);
  }

  // Stall breakdown from the rtl counters.
  const std::vector<std::string> Stalls = {"issue", "stall_dependency", "stall_unit_busy",
                                           "stall_memory", "stall_barrier",
                                           "stall_no_ready_warp"};
  std::vector<std::string> StallLabels;
  std::vector<std::vector<double>> StallValues;
  for (const ReportRow &Row : R.Rows) {
    if (!Row.Counters.count("cycles"))
      continue;
    std::vector<double> V;
    double Stalled = 0;
    for (size_t I = 1; I < Stalls.size(); ++I) {
      double S = Row.Counters.count(Stalls[I]) ? double(Row.Counters.at(Stalls[I])) : 0;
      Stalled += S;
      V.push_back(S);
    }
    V.insert(V.begin(), std::max(0.0, double(Row.Counters.at("cycles")) - Stalled));
    StallLabels.push_back(rowLabel(Row));
    StallValues.push_back(std::move(V));
  }
  if (!StallLabels.empty())
    OS << "<h2>Where the rtl's cycles went (counters)</h2>\n"
       << svg::stackedBars("rtl cycles by cause (share of the row's cycles)", StallLabels,
                           Stalls, StallValues);

  // The tables, as in report.md.
  OS << "<h2>Rows</h2>\n<table><tr><th>device</th><th>workload</th><th>input</th>"
        "<th>predicted</th><th>measured</th><th>error</th><th>bound</th><th>inputs</th>"
        "<th>static</th><th>static error</th></tr>\n";
  for (const ReportRow &Row : R.Rows)
    OS << "<tr><td>" << svg::escape(Row.Device) << "</td><td>"
       << svg::escape(Row.Workload + (Row.TunedOn ? " (tuned on)" : "")) << "</td><td>"
       << svg::escape(shortInput(Row)) << "</td><td>" << displayAmount(Row.Unit, Row.Predicted) << "</td><td>"
       << displayAmount(Row.Unit, Row.Measured) << "</td><td>" << pct(Row.errorPct()) << "</td><td>"
       << svg::escape(Row.Bound) << "</td><td>" << svg::escape(Row.ModelInputs) << "</td><td>"
       << displayAmount(Row.Unit, Row.StaticPredicted) << "</td><td>" << pct(Row.staticErrorPct())
       << "</td></tr>\n";
  OS << "</table>\n";
  if (!R.Picks.empty()) {
    OS << "<h2>SpMV variant picks</h2>\n<table><tr><th>device</th><th>input</th><th>picked</th>"
          "<th>fastest</th><th>within 10%</th></tr>\n";
    for (const SpmvPick &P : R.Picks)
      OS << "<tr><td>" << svg::escape(P.Device) << "</td><td>"
         << svg::escape(sys::path::filename(P.Input).str()) << "</td><td>"
         << svg::escape(P.Picked) << "</td><td>" << svg::escape(P.Fastest) << "</td><td>"
         << (P.within10() ? "yes" : "no") << "</td></tr>\n";
    OS << "</table>\n";
  }
  if (!R.Notes.empty()) {
    OS << "<h2>Notes</h2>\n<ul>\n";
    for (const std::string &N : R.Notes)
      OS << "<li>" << svg::escape(N) << "</li>\n";
    OS << "</ul>\n";
  }
  OS << "</body></html>\n";
}

Error writeReportFiles(const Report &R, StringRef Dir) {
  if (std::error_code EC = sys::fs::create_directories(Dir))
    return createStringError(EC, "cannot create the output folder '" + Dir + "': " +
                                     EC.message());
  struct File {
    const char *Name;
    void (*Write)(const Report &, raw_ostream &);
  };
  for (const File &F : {File{"report.json", writeJson}, File{"report.md", writeMarkdown},
                        File{"report.html", writeHtml}}) {
    SmallString<256> Path(Dir);
    sys::path::append(Path, F.Name);
    if (Error E = writeToOutput(Path, [&](raw_ostream &OS) {
          F.Write(R, OS);
          return Error::success();
        }))
      return createStringError(inconvertibleErrorCode(),
                               "cannot write '" + Path + "': " + toString(std::move(E)));
  }
  return Error::success();
}

} // namespace tandem::models
