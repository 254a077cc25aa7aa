//===- ReportCompare.h - Two reports side by side, row by row --*- C++ -*-===//
//
// `tandem compare A B` (docs/Report.md, "Comparing two reports"): the
// codesign question a single report cannot answer. Two reports of the same
// workloads under a change (a configuration key, a compiler option such as
// `tandem report --no-schedule`) are paired row by row on (device,
// workload, input); for each pair the measured ratio B/A says what the
// change did, the predicted ratio B/A what the model said it would do.
// Per device and group (suite, matrix, generated) the geometric means of
// both, so "did the change help, and did the model see it" is one line.
//
// Input invariants: each input is a report.json as `tandem report` writes
// it (docs/Report.md): a top-level "rows" list of objects with string
// device, workload, input, group, unit, a positive number predicted, and
// measured a positive number or null. Anything else is an error naming the
// file and the row.
// Guarantees: pairs in A's row order; rows present in one report only are
// listed, never paired with another row; a ratio is given only where both
// sides have the number.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace tandem::models {

/// One row of a report, as the comparison reads it.
struct ReportRowKey {
  std::string Device, Workload, Input, Group, Unit;
  double Predicted = 0;
  std::optional<double> Measured;
};

struct ComparedRow {
  ReportRowKey A, B;
  /// B / A; absent where either side has no measurement.
  std::optional<double> measuredRatio() const;
  double predictedRatio() const { return B.Predicted / A.Predicted; }
};

/// Geometric means over one device and group (or "all" groups).
struct ComparedGroup {
  std::string Device, Group;
  size_t Rows = 0;          ///< pairs in the group
  size_t MeasuredRows = 0;  ///< pairs with both measurements
  double MeasuredRatio = 1; ///< geomean B/A over MeasuredRows (1 if none)
  double PredictedRatio = 1; ///< geomean B/A of the predictions over the same rows
                             ///< (over all Rows when none is measured)
};

struct Comparison {
  std::string NameA, NameB;
  std::vector<ComparedRow> Rows;
  std::vector<ReportRowKey> OnlyA, OnlyB;
  /// Per device: each group in first-seen order, then "all".
  std::vector<ComparedGroup> groups() const;
};

/// The rows of a parsed report.json; \p Name labels errors.
llvm::Expected<std::vector<ReportRowKey>> readReportRows(const llvm::json::Value &Report,
                                                         llvm::StringRef Name);

/// The rows of the report at \p Path: a report.json, or the folder `tandem
/// report --out` wrote it into. \p File receives the file's path (errors
/// name it too): missing, not JSON, or not a report.
llvm::Expected<std::vector<ReportRowKey>> loadReportRows(llvm::StringRef Path,
                                                         std::string &File);

/// Pairs the rows of \p A and \p B on (device, workload, input).
Comparison compareReports(llvm::StringRef NameA, std::vector<ReportRowKey> A,
                          llvm::StringRef NameB, std::vector<ReportRowKey> B);

/// The table (a row per pair), the geomeans and the unpaired rows.
void printComparison(const Comparison &C, llvm::raw_ostream &OS);
/// The same as JSON: "a", "b", "rows", "groups", "only_a", "only_b".
llvm::json::Value comparisonJson(const Comparison &C);

} // namespace tandem::models
