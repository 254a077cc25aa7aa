//===- ReportCompareTest.cpp - Two reports row by row ---------------------===//

#include "ReportCompare.h"

#include <gtest/gtest.h>

using namespace llvm;
using namespace tandem::models;

namespace {

ReportRowKey row(StringRef Device, StringRef Workload, StringRef Input, StringRef Group,
                 double Predicted, std::optional<double> Measured) {
  return {Device.str(), Workload.str(), Input.str(), Group.str(), "cycles", Predicted, Measured};
}

} // namespace

TEST(ReportCompare, PairsRowsAndTakesGeometricMeans) {
  // B halves one suite row and doubles another (geomean 1); the model saw
  // the first only. A matrix row only in A, a new one only in B.
  std::vector<ReportRowKey> A = {row("rtl", "vadd", "n=10", "suite", 100, 100),
                                 row("rtl", "saxpy", "n=10", "suite", 100, 100),
                                 row("rtl", "spmv_scalar", "/m/a.mtx", "matrix", 50, 40),
                                 row("iss", "vadd", "n=10", "suite", 100, std::nullopt)};
  std::vector<ReportRowKey> B = {row("rtl", "saxpy", "n=10", "suite", 100, 200),
                                 row("rtl", "vadd", "n=10", "suite", 50, 50),
                                 row("rtl", "spmm", "/m/a.mtx", "matrix", 70, 60),
                                 row("iss", "vadd", "n=10", "suite", 80, std::nullopt)};
  Comparison C = compareReports("a.json", A, "b.json", B);
  ASSERT_EQ(C.Rows.size(), 3u);
  EXPECT_EQ(C.Rows[0].A.Workload, "vadd"); // A's order
  EXPECT_DOUBLE_EQ(*C.Rows[0].measuredRatio(), 0.5);
  EXPECT_DOUBLE_EQ(*C.Rows[1].measuredRatio(), 2.0);
  EXPECT_DOUBLE_EQ(C.Rows[1].predictedRatio(), 1.0);
  EXPECT_FALSE(C.Rows[2].measuredRatio()); // iss: nothing measured
  ASSERT_EQ(C.OnlyA.size(), 1u);
  EXPECT_EQ(C.OnlyA[0].Workload, "spmv_scalar");
  ASSERT_EQ(C.OnlyB.size(), 1u);
  EXPECT_EQ(C.OnlyB[0].Workload, "spmm");

  std::vector<ComparedGroup> G = C.groups();
  ASSERT_EQ(G.size(), 4u); // rtl suite, rtl all, iss suite, iss all
  EXPECT_EQ(G[0].Device, "rtl");
  EXPECT_EQ(G[0].Group, "suite");
  EXPECT_EQ(G[0].MeasuredRows, 2u);
  EXPECT_NEAR(G[0].MeasuredRatio, 1.0, 1e-12);
  EXPECT_NEAR(G[0].PredictedRatio, std::sqrt(0.5), 1e-12);
  EXPECT_EQ(G[1].Group, "all");
  EXPECT_EQ(G[2].Device, "iss");
  EXPECT_EQ(G[2].MeasuredRows, 0u);
  EXPECT_NEAR(G[2].PredictedRatio, 0.8, 1e-12); // the model alone

  std::string Text;
  raw_string_ostream OS(Text);
  printComparison(C, OS);
  EXPECT_NE(Text.find("only in A: 1 row"), std::string::npos) << Text;
  EXPECT_NE(Text.find("rtl    suite         2 rows: measured 1.0000, model 0.7071"),
            std::string::npos)
      << Text;
  json::Value J = comparisonJson(C);
  EXPECT_EQ(J.getAsObject()->getArray("rows")->size(), 3u);
  EXPECT_EQ((*J.getAsObject()->getArray("rows"))[2].getAsObject()->get("measured_ratio")->kind(),
            json::Value::Null);
}

TEST(ReportCompare, BadRowsNameTheFileAndTheRow) {
  auto Why = [](StringRef Text) {
    Expected<json::Value> V = json::parse(Text);
    EXPECT_TRUE(bool(V));
    Expected<std::vector<ReportRowKey>> R = readReportRows(*V, "r.json");
    return R ? std::string("accepted") : toString(R.takeError());
  };
  EXPECT_EQ(Why(R"({"summary": []})"), "'r.json': not a report.json: no top-level \"rows\" list");
  EXPECT_EQ(Why(R"({"rows": [{"device": "rtl", "workload": "vadd", "input": "n", "group": "suite",
                             "unit": "cycles", "predicted": 5, "measured": null}, 3]})"),
            "'r.json': rows[1] is not an object");
  EXPECT_EQ(Why(R"({"rows": [{"device": "rtl", "workload": "vadd", "input": "n", "group": "suite",
                             "unit": "cycles", "predicted": 0, "measured": 4}]})"),
            "'r.json': rows[0].predicted is not a positive number");
  EXPECT_EQ(Why(R"({"rows": [{"device": "rtl", "workload": "vadd", "input": "n", "group": "suite",
                             "unit": "cycles", "predicted": 5, "measured": "4"}]})"),
            "'r.json': rows[0].measured is neither a positive number nor null");
  EXPECT_EQ(Why(R"({"rows": [{"device": "rtl", "input": "n", "group": "suite",
                             "unit": "cycles", "predicted": 5, "measured": 4}]})"),
            "'r.json': rows[0].workload is not a string");
}
