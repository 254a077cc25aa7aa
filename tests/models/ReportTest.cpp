//===- ReportTest.cpp - report.json schema, writers and SVG sanity -------===//

#include "Report.h"
#include "Svg.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

using namespace llvm;
using namespace tandem;
using namespace tandem::models;

namespace {

/// Checks \p Doc against the report.json schema (docs/Report.md); returns
/// the first violation, or "" when it conforms.
std::string schemaViolation(const json::Value &Doc) {
  const json::Object *Top = Doc.getAsObject();
  if (!Top)
    return "top level is not an object";
  for (StringRef K : {"schema_version", "date", "command", "config", "configuration",
                      "clock_hz", "summary",
                      "static_summary", "profile", "spmv_picks", "rows", "model_params",
                      "notes"})
    if (!Top->get(K))
      return ("missing top-level key '" + K + "'").str();
  const json::Array *Picks = Top->getArray("spmv_picks");
  if (!Picks)
    return "'spmv_picks' is not a list";
  for (size_t I = 0; I < Picks->size(); ++I) {
    const json::Object *P = (*Picks)[I].getAsObject();
    std::string At = "spmv_picks[" + std::to_string(I) + "]";
    if (!P)
      return At + " is not an object";
    for (StringRef K : {"device", "input", "picked", "fastest"})
      if (!P->getString(K))
        return (At + "." + K + " is not a string").str();
  }
  const json::Array *Rows = Top->getArray("rows");
  if (!Rows)
    return "'rows' is not a list";
  for (size_t I = 0; I < Rows->size(); ++I) {
    const json::Object *R = (*Rows)[I].getAsObject();
    std::string At = "rows[" + std::to_string(I) + "]";
    if (!R)
      return At + " is not an object";
    for (StringRef K : {"device", "workload", "input", "unit", "bound", "model_inputs", "group"})
      if (!R->getString(K))
        return (At + "." + K + " is not a string").str();
    if (!R->getNumber("predicted") || *R->getNumber("predicted") <= 0)
      return At + ".predicted is not a positive number";
    for (StringRef K : {"measured", "error_pct", "static_predicted", "static_error_pct"}) {
      const json::Value *V = R->get(K);
      if (!V || (V->kind() != json::Value::Number && V->kind() != json::Value::Null))
        return (At + "." + K + " is neither a number nor null").str();
    }
    // A static estimate or the reason there is none, never both or neither.
    const json::Value *Reason = R->get("static_reason");
    if (!Reason || (Reason->kind() != json::Value::String && Reason->kind() != json::Value::Null))
      return At + ".static_reason is neither a string nor null";
    bool HasStatic = R->getNumber("static_predicted").has_value();
    if (HasStatic == (Reason->kind() == json::Value::String))
      return At + ": needs exactly one of static_predicted and static_reason";
    if (HasStatic && R->getNumber("measured") && *R->getNumber("measured") > 0) {
      double Want = (*R->getNumber("static_predicted") - *R->getNumber("measured")) /
                    *R->getNumber("measured") * 100;
      if (!R->getNumber("static_error_pct") ||
          std::abs(*R->getNumber("static_error_pct") - Want) > 1e-6)
        return At + ".static_error_pct is not (static_predicted - measured) / measured";
    }
    StringRef Inputs = *R->getString("model_inputs");
    if (Inputs != "iss-assisted" && Inputs != "static")
      return At + ".model_inputs is '" + Inputs.str() + "'";
    const json::Object *B = R->getObject("breakdown");
    if (!B)
      return At + ".breakdown is missing";
    double Sum = 0;
    for (StringRef K : {"compute", "memory_bandwidth", "memory_latency", "synchronization",
                        "load_imbalance", "launch"}) {
      if (!B->getNumber(K) || *B->getNumber(K) < -1e-6)
        return (At + ".breakdown." + K + " is not a non-negative number").str();
      Sum += *B->getNumber(K);
    }
    if (std::abs(Sum - *R->getNumber("predicted")) > 1e-6 * Sum + 1e-3)
      return At + ": the breakdown does not sum to predicted";
    if (R->getNumber("measured") && *R->getNumber("measured") > 0) {
      double Want = (*R->getNumber("predicted") - *R->getNumber("measured")) /
                    *R->getNumber("measured") * 100;
      if (!R->getNumber("error_pct") || std::abs(*R->getNumber("error_pct") - Want) > 1e-6)
        return At + ".error_pct is not (predicted - measured) / measured";
    }
  }
  return "";
}

Report sampleReport() {
  Report R;
  R.Date = "2026-12-01";
  R.Command = "tandem report";
  R.Config.Registers = 12;
  ReportRow A;
  A.Device = "rtl";
  A.Workload = "vadd";
  A.Input = "n=5037 <&>";
  A.Group = "suite";
  A.Predicted = 110;
  A.Measured = 100;
  A.Parts.Compute = 100;
  A.Parts.Launch = 10;
  A.Bound = "compute";
  A.Counters["cycles"] = 100;
  ReportRow B = A;
  B.Workload = "spmv_merge";
  B.Input = "/m/olm1000.mtx";
  B.Group = "matrix";
  B.Predicted = 80;
  B.Parts.Compute = 70;
  A.StaticPredicted = 120;
  B.StaticReason = "static estimate of kernel 'spmv_merge' at pc 0x0154: ...";
  ReportRow C = A;
  C.Device = "iss";
  C.Measured.reset();
  R.Rows = {A, B, C};
  R.Picks.push_back({"rtl", "/m/olm1000.mtx", "cycles", "spmv_merge", "spmv_vector", 105, 100});
  return R;
}

} // namespace

TEST(Report, JsonFollowsTheSchema) {
  std::string S;
  raw_string_ostream OS(S);
  writeJson(sampleReport(), OS);
  Expected<json::Value> Doc = json::parse(S);
  ASSERT_TRUE(bool(Doc)) << toString(Doc.takeError());
  EXPECT_EQ(schemaViolation(*Doc), "");
  const json::Array *Rows = Doc->getAsObject()->getArray("rows");
  EXPECT_DOUBLE_EQ(*(*Rows)[0].getAsObject()->getNumber("error_pct"), 10.0);
  EXPECT_EQ((*Rows)[2].getAsObject()->get("measured")->kind(), json::Value::Null);
}

TEST(Report, EveryFileNamesTheConfigurationsValues) {
  // Two reports of one configuration name at different register counts (or
  // write policies) must not read alike: report.json carries the whole
  // configuration, report.md and report.html its values in one line.
  Report R = sampleReport();
  R.Config.L1.LocalWrites = LocalWritePolicy::WriteThrough;
  std::string Json, Md, Html;
  raw_string_ostream JOS(Json), MOS(Md), HOS(Html);
  writeJson(R, JOS);
  writeMarkdown(R, MOS);
  writeHtml(R, HOS);
  Expected<json::Value> Doc = json::parse(Json);
  ASSERT_TRUE(bool(Doc)) << toString(Doc.takeError());
  const json::Value *C = Doc->getAsObject()->get("configuration");
  ASSERT_TRUE(C);
  std::string CText;
  raw_string_ostream COS(CText);
  COS << *C;
  Expected<AcceleratorConfig> Back = parseConfig(CText, "report.json");
  ASSERT_TRUE(bool(Back)) << toString(Back.takeError());
  EXPECT_EQ(Back->Registers, 12u);
  EXPECT_EQ(Back->L1.LocalWrites, LocalWritePolicy::WriteThrough);
  std::string Line = describeConfig(R.Config);
  EXPECT_NE(Md.find("configuration `default` (" + Line + ")"), std::string::npos);
  EXPECT_NE(Html.find("configuration default (" + Line + ")"), std::string::npos);
  EXPECT_NE(Line.find("12 registers"), std::string::npos);
  EXPECT_NE(Line.find("local stores write-through"), std::string::npos);
}

TEST(Report, SchemaCheckRejectsBrokenRows) {
  // The check itself must fail when a row breaks the schema.
  auto Violation = [](const Report &R) {
    std::string S;
    raw_string_ostream OS(S);
    writeJson(R, OS);
    return schemaViolation(cantFail(json::parse(S)));
  };
  Report R = sampleReport();
  R.Rows[0].Parts.Compute = 5; // breakdown no longer sums to predicted
  EXPECT_NE(Violation(R), "");
  Report NoReason = sampleReport();
  NoReason.Rows[1].StaticReason.clear(); // no static estimate and no reason
  EXPECT_NE(Violation(NoReason), "");
}

TEST(Report, StaticEstimatesHaveTheirOwnAccuracyAndLabel) {
  Report R = sampleReport(); // rtl: vadd static 120 against 100 measured
  R.Rows[1].StaticReason.clear();
  R.Rows[1].StaticPredicted = 90; // spmv_merge: -10%
  std::vector<Accuracy> S = R.staticAccuracy();
  ASSERT_EQ(S.size(), 2u);
  EXPECT_EQ(S[0].Rows, 2u);
  EXPECT_DOUBLE_EQ(S[0].MedianAbsErrorPct, 10.0);
  EXPECT_DOUBLE_EQ(S[0].P90AbsErrorPct, 20.0);
  std::string Line = R.summaryLine();
  // The iss-assisted figures first, then the static ones, labelled.
  EXPECT_NE(Line.find("rtl median |error| 10.0%, p90 20.0% (2 rows)"), std::string::npos)
      << Line;
  EXPECT_NE(Line.find("rtl static median |error| 10.0%, p90 20.0% (2 of 2 rows)"),
            std::string::npos)
      << Line;
  std::string Md;
  raw_string_ostream OS(Md);
  writeMarkdown(R, OS);
  EXPECT_NE(Md.find("| static | static error |"), std::string::npos);
  std::string Html;
  raw_string_ostream HS(Html);
  writeHtml(R, HS);
  EXPECT_NE(Html.find("static estimate (all groups)"), std::string::npos);
}

// report.md's accuracy table ends with each device's measured rows by the
// bound the model named: where a missed goal's error is.
TEST(Report, AccuracyByBoundSaysWhereTheErrorIs) {
  Report R = sampleReport(); // rtl, both compute-bound: +10% and -20%
  R.Rows[1].Bound = "launch";
  ReportRow D = R.Rows[0];
  D.Workload = "saxpy";
  D.Predicted = 130; // +30%, compute-bound
  D.Parts.Compute = 120;
  R.Rows.push_back(D);
  std::string Md;
  raw_string_ostream OS(Md);
  writeMarkdown(R, OS);
  EXPECT_NE(Md.find("| bound by compute | rtl | 2 | 10.0% | 30.0% |"), std::string::npos) << Md;
  EXPECT_NE(Md.find("| bound by launch | rtl | 1 | 20.0% | 20.0% |"), std::string::npos) << Md;
  EXPECT_EQ(Md.find("| bound by compute | iss |"), std::string::npos) << Md; // not measured
}

TEST(Report, SummaryIsMedianAndP90PerDevice) {
  Report R = sampleReport(); // rtl errors: +10% and -20%
  std::vector<Accuracy> A = R.accuracy();
  ASSERT_EQ(A.size(), 2u);
  EXPECT_EQ(A[0].Device, "rtl");
  EXPECT_EQ(A[0].Rows, 2u);
  EXPECT_DOUBLE_EQ(A[0].MedianAbsErrorPct, 10.0);
  EXPECT_DOUBLE_EQ(A[0].P90AbsErrorPct, 20.0);
  EXPECT_EQ(A[1].Rows, 0u);
  EXPECT_NE(R.summaryLine().find("rtl median |error| 10.0%, p90 20.0% (2 rows)"),
            std::string::npos)
      << R.summaryLine();
  EXPECT_DOUBLE_EQ(percentile({5, 1, 3, 2, 4}, 50), 3);
  EXPECT_TRUE(R.Picks[0].within10());
}

TEST(Report, SpmvPicksPerDeviceAndInput) {
  auto Row = [](StringRef Device, StringRef Workload, StringRef Input, double Predicted,
                std::optional<double> Measured) {
    ReportRow R;
    R.Device = Device.str();
    R.Workload = Workload.str();
    R.Input = Input.str();
    R.Unit = Device == "gpu" ? "ms" : "cycles";
    R.Predicted = Predicted;
    R.Measured = Measured;
    return R;
  };
  std::vector<ReportRow> Rows = {
      Row("rtl", "spmv_scalar", "a.mtx", 300, 310), Row("rtl", "spmv_vector", "a.mtx", 200, 270),
      Row("rtl", "spmv_merge", "a.mtx", 250, 240),
      // SpMM is not an SpMV variant: never picked, even when predicted least.
      Row("rtl", "spmm", "a.mtx", 10, 20),
      // The same input on the gpu is a pick of its own, in ms.
      Row("gpu", "spmv_scalar", "a.mtx", 0.5, 0.40), Row("gpu", "spmv_vector", "a.mtx", 0.3, 0.42),
      // One measured variant (the other failed there): nothing to choose.
      Row("gpu", "spmv_scalar", "b.mtx", 0.5, 0.4), Row("gpu", "spmv_merge", "b.mtx", 0.1, {}),
      // iss rows have no measurement.
      Row("iss", "spmv_scalar", "a.mtx", 300, {}), Row("iss", "spmv_vector", "a.mtx", 200, {})};
  std::vector<SpmvPick> P = spmvPicks(Rows);
  ASSERT_EQ(P.size(), 2u);
  EXPECT_EQ(P[0].Device, "rtl");
  EXPECT_EQ(P[0].Input, "a.mtx");
  EXPECT_EQ(P[0].Picked, "spmv_vector");
  EXPECT_EQ(P[0].Fastest, "spmv_merge");
  EXPECT_DOUBLE_EQ(P[0].PickedMeasured, 270);
  EXPECT_FALSE(P[0].within10()); // 270 > 1.1 x 240
  EXPECT_EQ(P[1].Device, "gpu");
  EXPECT_EQ(P[1].Unit, "ms");
  EXPECT_EQ(P[1].Picked, "spmv_vector");
  EXPECT_EQ(P[1].Fastest, "spmv_scalar");
  EXPECT_TRUE(P[1].within10()); // 0.42 <= 1.1 x 0.40
}

TEST(Report, FilesAreWrittenWhole) {
  SmallString<128> Dir;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("tandem-report-test", Dir));
  ASSERT_FALSE(bool(writeReportFiles(sampleReport(), Dir)));
  for (const char *Name : {"report.json", "report.md", "report.html"}) {
    SmallString<128> P(Dir);
    sys::path::append(P, Name);
    auto Buf = MemoryBuffer::getFile(P);
    ASSERT_TRUE(bool(Buf)) << Name;
    EXPECT_GT((*Buf)->getBufferSize(), 100u) << Name;
    sys::fs::remove(P);
  }
  sys::fs::remove(Dir);
}

TEST(Svg, ScatterDrawsPositivePointsAndEscapes) {
  std::vector<svg::Point> Pts = {{100, 110, "a<b", 0}, {1000, 900, "c&d", 1}, {-1, 5, "bad", 0}};
  std::string S = svg::scatterLogLog("t", "x", "y", Pts, {"suite", "matrix"});
  EXPECT_EQ(S.rfind("<svg", 0), 0u);
  EXPECT_NE(S.find("</svg>"), std::string::npos);
  size_t Circles = 0;
  for (size_t At = S.find("<circle"); At != std::string::npos; At = S.find("<circle", At + 1))
    ++Circles;
  EXPECT_EQ(Circles, 2u + 2u); // two points plus two legend markers
  EXPECT_NE(S.find("a&lt;b"), std::string::npos);
  EXPECT_EQ(S.find("a<b"), std::string::npos);
  EXPECT_NE(S.find("1 point(s) not positive"), std::string::npos);
  EXPECT_NE(S.find("<polygon"), std::string::npos); // the +-10% band
}

TEST(Svg, OtherPlotsAreWellFormed) {
  for (const std::string &S :
       {svg::roofline("r", {{0.5, 1.0, "k", 0}}, 8, 16),
        svg::bars("b", {"m1", "m2"}, {5.0, -20.0}, "%", 10),
        svg::stackedBars("s", {"k"}, {"issue", "stall"}, {{3.0, 1.0}})}) {
    EXPECT_EQ(S.rfind("<svg", 0), 0u);
    EXPECT_NE(S.find("</svg>"), std::string::npos);
    EXPECT_EQ(S.find("nan"), std::string::npos);
    EXPECT_EQ(S.find("inf"), std::string::npos);
  }
}

TEST(ReportSchema, QuickRunOutput) {
  const char *Path = std::getenv("TANDEM_REPORT_JSON");
  if (!Path)
    GTEST_SKIP() << "TANDEM_REPORT_JSON is not set: ctest's report-quick-schema test sets it "
                    "to the output of `tandem report --quick`";
  auto Buf = MemoryBuffer::getFile(Path);
  ASSERT_TRUE(bool(Buf)) << Path << ": " << Buf.getError().message();
  Expected<json::Value> Doc = json::parse((*Buf)->getBuffer());
  ASSERT_TRUE(bool(Doc)) << toString(Doc.takeError());
  EXPECT_EQ(schemaViolation(*Doc), "");
  const json::Array *Rows = Doc->getAsObject()->getArray("rows");
  ASSERT_TRUE(Rows);
  EXPECT_GE(Rows->size(), 6u);
  bool Measured = false, Matrix = false, SpmmOnSparse = false;
  for (const json::Value &V : *Rows) {
    const json::Object &Row = *V.getAsObject();
    Measured |= Row.getNumber("measured").has_value();
    Matrix |= *Row.getString("group") != "suite";
    // A matrix file, or a generated input where ../shared/matrices is absent.
    SpmmOnSparse |= *Row.getString("group") != "suite" && *Row.getString("workload") == "spmm" &&
                    Row.getNumber("measured").has_value();
  }
  EXPECT_TRUE(Measured) << "no rtl measurement in the quick report";
  EXPECT_TRUE(Matrix) << "no SpMV input in the quick report";
  EXPECT_TRUE(SpmmOnSparse) << "no measured SpMM row on a sparse input in the quick report";
  // The SpMV pick chooses among the SpMV variants only.
  const json::Array *Picks = Doc->getAsObject()->getArray("spmv_picks");
  ASSERT_TRUE(Picks);
  EXPECT_FALSE(Picks->empty());
  for (const json::Value &V : *Picks)
    for (StringRef Key : {"picked", "fastest"})
      EXPECT_TRUE(V.getAsObject()->getString(Key).value_or("").starts_with("spmv_"))
          << Key.str() << " of a pick: " << V.getAsObject()->getString(Key).value_or("?").str();
}

/// The rows of the report.json at the path in environment variable \p Var.
json::Array reportRows(const char *Var) {
  const char *Path = std::getenv(Var);
  auto Buf = MemoryBuffer::getFile(Path);
  if (!Buf) {
    ADD_FAILURE() << Path << ": " << Buf.getError().message();
    return {};
  }
  Expected<json::Value> Doc = json::parse((*Buf)->getBuffer());
  if (!Doc) {
    ADD_FAILURE() << Path << ": " << toString(Doc.takeError());
    return {};
  }
  const json::Array *Rows = Doc->getAsObject()->getArray("rows");
  return Rows ? *Rows : json::Array();
}

// `tandem report` runs its workloads' iss and rtl runs on TANDEM_JOBS
// threads; the runs are deterministic and the rows are made in workload
// order, so two threads must give exactly the rows one gives: same order,
// measurements, counters, predictions and breakdowns.
TEST(ReportSchema, QuickRunOnTwoThreadsEqualsOneThread) {
  if (!std::getenv("TANDEM_REPORT_JSON") || !std::getenv("TANDEM_REPORT_JSON_ONE_JOB"))
    GTEST_SKIP() << "TANDEM_REPORT_JSON and TANDEM_REPORT_JSON_ONE_JOB are not set: ctest's "
                    "report-quick-jobs test sets them to `tandem report --quick` run with "
                    "TANDEM_JOBS=2 and TANDEM_JOBS=1";
  json::Array Parallel = reportRows("TANDEM_REPORT_JSON");
  json::Array Serial = reportRows("TANDEM_REPORT_JSON_ONE_JOB");
  ASSERT_GE(Serial.size(), 6u);
  ASSERT_EQ(Parallel.size(), Serial.size());
  for (size_t I = 0; I < Serial.size(); ++I) {
    const json::Object *P = Parallel[I].getAsObject(), *S = Serial[I].getAsObject();
    ASSERT_TRUE(P && S);
    EXPECT_EQ(Parallel[I], Serial[I])
        << "row " << I << ": " << S->getString("workload").value_or("?").str() << " on "
        << S->getString("input").value_or("?").str() << " differs with two threads";
  }
}
