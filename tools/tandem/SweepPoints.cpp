//===- SweepPoints.cpp - The configurations of `tandem sweep` -------------===//
//
// See SweepPoints.h.
//
//===----------------------------------------------------------------------===//

#include "SweepPoints.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace tandem::cli {
namespace {

Error failure(const Twine &Msg) { return createStringError(inconvertibleErrorCode(), Msg); }

/// The longest configuration name parseConfig accepts (configs/README.md).
constexpr size_t MaxConfigName = 64;

std::string folderFor(StringRef Name, size_t Index) {
  std::string F;
  for (char C : Name)
    F += isAlnum(C) || C == '.' || C == '_' || C == '-' ? C : C == ' ' ? '_' : '-';
  if (F.empty() || F.size() > MaxConfigName)
    return "sweep-" + std::to_string(Index + 1);
  return F;
}

} // namespace

Expected<SweepAxis> parseSetOption(StringRef Spec) {
  auto [Key, List] = Spec.split('=');
  Key = Key.trim();
  if (Key.empty() || !Spec.contains('='))
    return failure("--set '" + Spec + "': expected KEY=VALUE[,VALUE...], e.g. lanes=8,16");
  SweepAxis A;
  A.Key = Key.str();
  SmallVector<StringRef, 8> Values;
  List.split(Values, ',');
  for (StringRef V : Values) {
    V = V.trim();
    if (V.empty())
      return failure("--set '" + Spec + "': an empty value");
    if (is_contained(A.Values, V))
      return failure("--set '" + Spec + "': '" + V + "' twice");
    A.Values.push_back(V.str());
  }
  return A;
}

json::Value sweepValue(StringRef Text) {
  int64_t I;
  if (!Text.getAsInteger(10, I))
    return I;
  double D;
  if (!Text.getAsDouble(D))
    return D;
  if (Text == "true" || Text == "false")
    return Text == "true";
  return Text.str();
}

Error setDottedKey(json::Object &Root, StringRef Key, json::Value V) {
  auto [Head, Rest] = Key.split('.');
  if (Rest.empty()) {
    Root[Head] = std::move(V);
    return Error::success();
  }
  json::Value *Section = Root.get(Head);
  if (!Section)
    Section = &(Root[Head] = json::Object());
  json::Object *Inner = Section->getAsObject();
  if (!Inner)
    return failure("'" + Head + "' is a value, not a section: '" + Key +
                   "' names nothing in the configuration");
  return setDottedKey(*Inner, Rest, std::move(V));
}

Expected<std::vector<SweepPoint>> expandSweep(const AcceleratorConfig &Base,
                                              ArrayRef<SweepAxis> Axes, size_t MaxPoints) {
  size_t Count = 1;
  for (size_t I = 0; I < Axes.size(); ++I) {
    for (size_t J = 0; J < I; ++J)
      if (Axes[J].Key == Axes[I].Key)
        return failure("--set " + Axes[I].Key + " given twice: list all its values in one");
    Count *= Axes[I].Values.size();
    if (Count > MaxPoints)
      return failure(formatv("the sweep has more than {0} configurations: give fewer values",
                             MaxPoints));
  }
  Expected<json::Value> BaseJson = json::parse(configToJson(Base));
  if (!BaseJson)
    return BaseJson.takeError();
  std::vector<SweepPoint> Points;
  for (size_t N = 0; N < Count; ++N) {
    // Point N's value index on each axis, the last axis fastest.
    SweepPoint P;
    json::Value Doc = *BaseJson;
    size_t Rest = N;
    std::vector<size_t> Pick(Axes.size());
    for (size_t I = Axes.size(); I-- > 0;) {
      Pick[I] = Rest % Axes[I].Values.size();
      Rest /= Axes[I].Values.size();
    }
    for (size_t I = 0; I < Axes.size(); ++I) {
      const std::string &Value = Axes[I].Values[Pick[I]];
      P.Set.emplace_back(Axes[I].Key, Value);
      P.Name += (I ? " " : "") + Axes[I].Key + "=" + Value;
      if (Error E = setDottedKey(*Doc.getAsObject(), Axes[I].Key, sweepValue(Value)))
        return failure("--set " + Axes[I].Key + ": " + toString(std::move(E)));
    }
    P.Folder = folderFor(P.Name, N);
    (*Doc.getAsObject())["name"] = P.Folder;
    std::string Text;
    raw_string_ostream(Text) << Doc;
    Expected<AcceleratorConfig> C = parseConfig(Text, "--set " + P.Name);
    if (!C)
      return C.takeError();
    P.Config = std::move(*C);
    Points.push_back(std::move(P));
  }
  return Points;
}

std::string problemOf(StringRef Input) {
  auto [Sizes, Launches] = Input.split("; ");
  if (Launches.contains("<<<") && !Sizes.contains("<<<"))
    return Sizes.str();
  return Input.str();
}

} // namespace tandem::cli
