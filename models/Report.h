//===- Report.h - The model-versus-device report: data and writers -*- C++ -*-===//
//
// What `tandem report` writes into its output folder (docs/Report.md):
//   report.json  top-level "rows": one row per device x workload x input
//                (device, workload, input, predicted, measured, unit,
//                error_pct, bound, breakdown, model_inputs, ...), plus the
//                SpMV variant picks and the summary per device;
//   report.md    the same as tables;
//   report.html  self-contained (inline SVG, no script): predicted against
//                measured, roofline, per-matrix errors, stall breakdowns.
// Every file is written to a temporary name and renamed (llvm::writeToOutput),
// so a reader never sees half a report.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "SimtModel.h"

#include "tandem/Config.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tandem::models {

struct ReportRow {
  std::string Device;   ///< "rtl", "iss"
  std::string Workload; ///< suite case or "spmv_scalar", "spmv_vector", "spmv_merge"
  std::string Input;    ///< matrix file path, generator description, or suite size
  std::string Group;    ///< "suite", "matrix", "generated"
  std::string Unit = "cycles";
  double Predicted = 0;
  std::optional<double> Measured;     ///< absent where the device has no clock (iss)
  std::optional<double> StaticPredicted; ///< a purely static estimate, where one exists
  /// Why there is no static estimate (StaticEstimate.h names the kernel,
  /// the pc and what it could not know); empty when there is one.
  std::string StaticReason;
  std::string Bound;
  Breakdown Parts;
  std::string ModelInputs = "iss-assisted"; ///< or "static"
  /// gpu rows: the host's measured time submitting the row's launch, in
  /// microseconds, where the model took it in place of the launch probe's
  /// (GpuWorkload::HostSubmitSec); then ProbeLaunchPredicted is the
  /// prediction with the probe's host time, in the row's unit.
  std::optional<double> HostSubmitUs;
  std::optional<double> ProbeLaunchPredicted;
  bool TunedOn = false; ///< one of the calibration kernels
  /// rtl stall counters (stall_dependency, ...) and memory counters, and the
  /// model's memory estimate, for the plots and tables.
  std::map<std::string, uint64_t> Counters;
  MemoryEstimate ModelMemory;
  double FpuLaneOps = 0; ///< fp32 lane operations (roofline)

  /// (predicted - measured) / measured * 100; absent without a measurement.
  std::optional<double> errorPct() const;
  /// The same for the static estimate; absent without both.
  std::optional<double> staticErrorPct() const;
};

/// The SpMV variants a report runs on each input, and the model picks among.
inline constexpr llvm::StringLiteral SpmvVariants[] = {"spmv_scalar", "spmv_vector",
                                                       "spmv_merge"};

/// For one device and input: the SpMV variant the model picks and the
/// fastest measured, in the rows' unit.
struct SpmvPick {
  std::string Device, Input, Unit;
  std::string Picked, Fastest;
  double PickedMeasured = 0, FastestMeasured = 0;
  bool within10() const { return PickedMeasured <= FastestMeasured * 1.10; }
};

/// Per device and input (in the rows' order), among the SpmvVariants rows
/// with a measurement: the one with the least predicted time against the
/// one with the least measured. An input with fewer than two measured
/// variants has no pick (nothing to choose between).
std::vector<SpmvPick> spmvPicks(llvm::ArrayRef<ReportRow> Rows);

struct Accuracy {
  std::string Device;
  size_t Rows = 0;
  double MedianAbsErrorPct = 0, P90AbsErrorPct = 0;
};

struct Report {
  std::string Date, Command;
  /// The accelerator the rows were measured and predicted for.
  AcceleratorConfig Config;
  /// The device profile the model's latencies came from, and what it gave.
  std::string Profile = "none";
  double ClockHz = AssumedClockHz;
  ModelParams Params;
  std::vector<ReportRow> Rows;
  std::vector<SpmvPick> Picks;
  std::vector<std::string> Notes; ///< what was skipped or cut, and why

  /// Median and 90th percentile (nearest rank) |error_pct| per device over
  /// rows with a measurement; \p Filter picks rows (null: all).
  std::vector<Accuracy> accuracy(bool (*Filter)(const ReportRow &) = nullptr) const;
  /// The same for the static estimates, over rows that have one.
  std::vector<Accuracy> staticAccuracy(bool (*Filter)(const ReportRow &) = nullptr) const;
  /// "report: rtl median |error| 3.1%, p90 9.8% (40 rows); ...; rtl static
  /// median |error| 9.0%, p90 30.1% (25 of 40 rows)" - the last line `tandem
  /// report` prints: the iss-assisted figures per device, then the static ones
  /// (labelled, with how many rows have one).
  std::string summaryLine() const;
};

/// How tables name an input: a matrix (group "matrix") by its file name,
/// anything else as it is.
std::string displayInput(llvm::StringRef Group, llvm::StringRef Input);
/// A value in its unit: cycles as whole numbers with separators, other
/// units (the gpu's ms) with four decimals and the unit; "-" if absent.
std::string displayAmount(llvm::StringRef Unit, std::optional<double> V);

/// Nearest-rank percentile \p P (0..100) of \p V (copied, sorted); 0 if empty.
double percentile(std::vector<double> V, double P);

/// A prediction's breakdown as report.json's rows give it ("compute",
/// "memory_bandwidth", ...), and the model's memory figures under the rtl
/// counters' names ("l1_hits", "l1_misses", ...): `tandem run --predict
/// --json` writes the same objects.
llvm::json::Object breakdownJson(const Breakdown &B);
llvm::json::Object memoryJson(const MemoryEstimate &M);

void writeJson(const Report &R, llvm::raw_ostream &OS);
void writeMarkdown(const Report &R, llvm::raw_ostream &OS);
void writeHtml(const Report &R, llvm::raw_ostream &OS);

/// Writes report.json, report.md and report.html into \p Dir (created if
/// missing), each atomically.
llvm::Error writeReportFiles(const Report &R, llvm::StringRef Dir);

} // namespace tandem::models
