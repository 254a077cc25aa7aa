//===- DeviceProfile.cpp - Model latencies from a measured profile --------===//
//
// See DeviceProfile.h.
//
//===----------------------------------------------------------------------===//

#include "DeviceProfile.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace llvm;

namespace tandem::models {

namespace {

Expected<double> probeValue(const json::Object &Probes, StringRef Name, StringRef Source) {
  const json::Object *P = Probes.getObject(Name);
  std::optional<double> V = P ? P->getNumber("value") : std::nullopt;
  if (!V || !std::isfinite(*V) || *V <= 0)
    return createStringError(inconvertibleErrorCode(),
                             "profile '" + Source + "': probe '" + Name +
                                 "' is missing or not a positive number");
  return *V;
}

} // namespace

Expected<ModelLatencies> latenciesFromProfile(const json::Object &Profile, StringRef Source) {
  std::optional<StringRef> Metric = Profile.getString("metric");
  if (!Metric || *Metric != "cycles")
    return createStringError(inconvertibleErrorCode(),
                             "profile '" + Source + "': metric is '" +
                                 (Metric ? *Metric : StringRef("missing")) +
                                 "', not 'cycles' (an iss profile counts instructions, "
                                 "it has no latencies)");
  const json::Object *Probes = Profile.getObject("probes");
  if (!Probes)
    return createStringError(inconvertibleErrorCode(),
                             "profile '" + Source + "': no \"probes\" object");
  ModelLatencies L;
  L.Source = Source.str();
  Expected<double> Dram = probeValue(*Probes, "chase_dram", Source);
  Expected<double> L1 = probeValue(*Probes, "chase_l1", Source);
  Expected<double> Alu = probeValue(*Probes, "iadd_lat", Source);
  Expected<double> Fpu = probeValue(*Probes, "fma_lat", Source);
  for (Expected<double> *E : {&Dram, &L1, &Alu, &Fpu})
    if (!*E)
      return E->takeError();
  L.DramLatencyCycles = *Dram - *L1 - MissOverHitCycles;
  if (L.DramLatencyCycles < 1)
    return createStringError(inconvertibleErrorCode(),
                             formatv("profile '{0}': chase_dram {1} - chase_l1 {2} leaves no "
                                     "DRAM latency",
                                     Source, *Dram, *L1)
                                 .str());
  // A chain whose code spilled waited on local memory too: not the unit's
  // latency (the compiled probe needs more registers than a small
  // configuration has), so the tables serve instead.
  auto spilled = [&](StringRef Name) {
    const json::Object *P = Probes->getObject(Name);
    const json::Object *Delta = P ? P->getObject("delta") : nullptr;
    if (!Delta)
      return false;
    return Delta->getNumber("local_load_bytes").value_or(0) > 0 ||
           Delta->getNumber("local_store_bytes").value_or(0) > 0;
  };
  L.AluReadyCycles = spilled("iadd_lat") ? 0 : *Alu;
  L.FpuReadyCycles = spilled("fma_lat") ? 0 : *Fpu;
  return L;
}

AcceleratorConfig withProfileLatencies(AcceleratorConfig C, const ModelLatencies &L) {
  C.Dram.LatencyCycles = uint32_t(std::lround(L.DramLatencyCycles));
  return C;
}

} // namespace tandem::models
