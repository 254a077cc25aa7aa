//===- ReportCompare.cpp - Two reports side by side, row by row ----------===//
//
// See ReportCompare.h.
//
//===----------------------------------------------------------------------===//

#include "ReportCompare.h"

#include "Report.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <map>
#include <tuple>

using namespace llvm;

namespace tandem::models {

std::optional<double> ComparedRow::measuredRatio() const {
  if (!A.Measured || !B.Measured)
    return std::nullopt;
  return *B.Measured / *A.Measured;
}

Expected<std::vector<ReportRowKey>> readReportRows(const json::Value &Report, StringRef Name) {
  auto Bad = [&](const Twine &Why) {
    return createStringError(inconvertibleErrorCode(), "'" + Name + "': " + Why);
  };
  const json::Object *Top = Report.getAsObject();
  const json::Array *Rows = Top ? Top->getArray("rows") : nullptr;
  if (!Rows)
    return Bad("not a report.json: no top-level \"rows\" list");
  std::vector<ReportRowKey> Out;
  for (size_t I = 0; I < Rows->size(); ++I) {
    std::string At = "rows[" + std::to_string(I) + "]";
    const json::Object *R = (*Rows)[I].getAsObject();
    if (!R)
      return Bad(At + " is not an object");
    ReportRowKey K;
    for (auto [Key, To] : {std::pair<StringRef, std::string *>{"device", &K.Device},
                           {"workload", &K.Workload},
                           {"input", &K.Input},
                           {"group", &K.Group},
                           {"unit", &K.Unit}}) {
      std::optional<StringRef> S = R->getString(Key);
      if (!S)
        return Bad(At + "." + Key + " is not a string");
      *To = S->str();
    }
    std::optional<double> P = R->getNumber("predicted");
    if (!P || !(*P > 0))
      return Bad(At + ".predicted is not a positive number");
    K.Predicted = *P;
    const json::Value *M = R->get("measured");
    if (M && M->kind() != json::Value::Null) {
      std::optional<double> V = M->getAsNumber();
      if (!V || !(*V > 0))
        return Bad(At + ".measured is neither a positive number nor null");
      K.Measured = *V;
    }
    Out.push_back(std::move(K));
  }
  return Out;
}

namespace {

using Key = std::tuple<std::string, std::string, std::string>;
Key keyOf(const ReportRowKey &R) { return {R.Device, R.Workload, R.Input}; }

double geomean(ArrayRef<double> V) {
  if (V.empty())
    return 1;
  double Sum = 0;
  for (double X : V)
    Sum += std::log(X);
  return std::exp(Sum / double(V.size()));
}

std::string ratio(std::optional<double> R) {
  return R ? formatv("{0:F4}", *R).str() : std::string("-");
}

} // namespace

Expected<std::vector<ReportRowKey>> loadReportRows(StringRef Path, std::string &File) {
  SmallString<256> P(Path);
  if (sys::fs::is_directory(P))
    sys::path::append(P, "report.json");
  File = P.str().str();
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(P);
  if (!Buf)
    return createStringError(Buf.getError(), "cannot read '" + File +
                                                 "': " + Buf.getError().message());
  Expected<json::Value> Doc = json::parse((*Buf)->getBuffer());
  if (!Doc)
    return createStringError(inconvertibleErrorCode(),
                             "'" + File + "': not JSON: " + toString(Doc.takeError()));
  return readReportRows(*Doc, File);
}

Comparison compareReports(StringRef NameA, std::vector<ReportRowKey> A, StringRef NameB,
                          std::vector<ReportRowKey> B) {
  Comparison C;
  C.NameA = NameA.str();
  C.NameB = NameB.str();
  std::map<Key, size_t> InB;
  for (size_t I = 0; I < B.size(); ++I)
    InB.try_emplace(keyOf(B[I]), I);
  std::vector<bool> Paired(B.size(), false);
  for (ReportRowKey &R : A) {
    auto It = InB.find(keyOf(R));
    if (It == InB.end() || Paired[It->second]) {
      C.OnlyA.push_back(std::move(R));
      continue;
    }
    Paired[It->second] = true;
    C.Rows.push_back({std::move(R), B[It->second]});
  }
  for (size_t I = 0; I < B.size(); ++I)
    if (!Paired[I])
      C.OnlyB.push_back(std::move(B[I]));
  return C;
}

std::vector<ComparedGroup> Comparison::groups() const {
  std::vector<std::string> Devices;
  for (const ComparedRow &R : Rows)
    if (!is_contained(Devices, R.A.Device))
      Devices.push_back(R.A.Device);
  std::vector<ComparedGroup> Out;
  for (const std::string &D : Devices) {
    std::vector<std::string> Groups;
    for (const ComparedRow &R : Rows)
      if (R.A.Device == D && !is_contained(Groups, R.A.Group))
        Groups.push_back(R.A.Group);
    Groups.push_back("all");
    for (const std::string &G : Groups) {
      ComparedGroup Sum;
      Sum.Device = D;
      Sum.Group = G;
      std::vector<double> Measured, PredictedOfMeasured, Predicted;
      for (const ComparedRow &R : Rows) {
        if (R.A.Device != D || (G != "all" && R.A.Group != G))
          continue;
        ++Sum.Rows;
        Predicted.push_back(R.predictedRatio());
        if (std::optional<double> M = R.measuredRatio()) {
          Measured.push_back(*M);
          PredictedOfMeasured.push_back(R.predictedRatio());
        }
      }
      Sum.MeasuredRows = Measured.size();
      Sum.MeasuredRatio = geomean(Measured);
      // Side by side over the same rows; iss rows (no measurement) still
      // say what the model expects.
      Sum.PredictedRatio = geomean(Measured.empty() ? Predicted : PredictedOfMeasured);
      Out.push_back(std::move(Sum));
    }
  }
  return Out;
}

void printComparison(const Comparison &C, raw_ostream &OS) {
  OS << "A: " << C.NameA << "\nB: " << C.NameB << "\n\n";
  OS << formatv("{0,-6} {1,-14} {2,-34} {3,14} {4,14} {5,10} {6,10}\n", "device", "workload",
                "input", "measured A", "measured B", "B/A", "model B/A");
  for (const ComparedRow &R : C.Rows)
    OS << formatv("{0,-6} {1,-14} {2,-34} {3,14} {4,14} {5,10} {6,10}\n", R.A.Device,
                  R.A.Workload, StringRef(displayInput(R.A.Group, R.A.Input)).take_front(34),
                  displayAmount(R.A.Unit, R.A.Measured), displayAmount(R.B.Unit, R.B.Measured),
                  ratio(R.measuredRatio()), ratio(R.predictedRatio()));
  OS << "\ngeometric mean of B/A (measured; the model's over the same rows):\n";
  for (const ComparedGroup &G : C.groups())
    OS << formatv("  {0,-6} {1,-10} {2,4} rows: measured {3}, model {4}\n", G.Device, G.Group,
                  G.Rows, G.MeasuredRows ? formatv("{0:F4}", G.MeasuredRatio).str() : "-",
                  formatv("{0:F4}", G.PredictedRatio).str());
  auto Unpaired = [&](ArrayRef<ReportRowKey> Rows, StringRef Side) {
    if (Rows.empty())
      return;
    OS << "\nonly in " << Side << ": " << Rows.size() << " row" << (Rows.size() == 1 ? "" : "s")
       << '\n';
    for (const ReportRowKey &R : Rows)
      OS << "  " << R.Device << ' ' << R.Workload << ' ' << displayInput(R.Group, R.Input) << '\n';
  };
  Unpaired(C.OnlyA, "A");
  Unpaired(C.OnlyB, "B");
}

json::Value comparisonJson(const Comparison &C) {
  auto Num = [](std::optional<double> V) -> json::Value {
    return V ? json::Value(*V) : json::Value(nullptr);
  };
  json::Array Rows;
  for (const ComparedRow &R : C.Rows)
    Rows.push_back(json::Object{{"device", R.A.Device},
                                {"workload", R.A.Workload},
                                {"input", R.A.Input},
                                {"group", R.A.Group},
                                {"unit", R.A.Unit},
                                {"measured_a", Num(R.A.Measured)},
                                {"measured_b", Num(R.B.Measured)},
                                {"measured_ratio", Num(R.measuredRatio())},
                                {"predicted_a", R.A.Predicted},
                                {"predicted_b", R.B.Predicted},
                                {"predicted_ratio", R.predictedRatio()}});
  json::Array Groups;
  for (const ComparedGroup &G : C.groups())
    Groups.push_back(json::Object{{"device", G.Device},
                                  {"group", G.Group},
                                  {"rows", int64_t(G.Rows)},
                                  {"measured_rows", int64_t(G.MeasuredRows)},
                                  {"measured_ratio", G.MeasuredRows
                                                         ? json::Value(G.MeasuredRatio)
                                                         : json::Value(nullptr)},
                                  {"predicted_ratio", G.PredictedRatio}});
  auto Keys = [](ArrayRef<ReportRowKey> Rows) {
    json::Array Out;
    for (const ReportRowKey &R : Rows)
      Out.push_back(json::Object{
          {"device", R.Device}, {"workload", R.Workload}, {"input", R.Input}});
    return Out;
  };
  return json::Object{{"a", C.NameA},           {"b", C.NameB},
                      {"rows", std::move(Rows)}, {"groups", std::move(Groups)},
                      {"only_a", Keys(C.OnlyA)}, {"only_b", Keys(C.OnlyB)}};
}

} // namespace tandem::models
