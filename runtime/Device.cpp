//===- Device.cpp - What every device shares: the base class, counters ----===//
//
// The parts of include/tandem/Runtime.h that depend on no simulator: the
// Device base class's defaults, kernel arguments and the counters. Kept apart
// from Runtime.cpp (which opens iss and rtl) so that a program can carry the
// gpu device alone: tandem-gpu-device-smoke (tools/gpu-device-smoke) links
// this, GpuDevice.cpp and LLVM's Support library statically and runs on the
// lent GPU machine, which has no LLVM.
//
//===----------------------------------------------------------------------===//

#include "tandem/Runtime.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/bit.h"

using namespace llvm;

namespace tandem {

Device::~Device() = default;

Error Device::loadPtx(StringRef, StringRef SourceName) {
  return createStringError(inconvertibleErrorCode(),
                           "device '" + name() + "' runs SIMT kernel images, not PTX ('" +
                               SourceName +
                               "'); compile for --target simt, or use --device gpu");
}

KernelArg KernelArg::f32(float V) { return {llvm::bit_cast<uint32_t>(V)}; }

uint64_t Counters::get(StringRef Name) const {
  for (const auto &[N, V] : Values)
    if (N == Name)
      return V;
  return 0;
}

bool Counters::has(StringRef Name) const {
  return llvm::any_of(Values, [&](const auto &P) { return P.first == Name; });
}

void Counters::set(StringRef Name, uint64_t V) {
  for (auto &[N, Old] : Values)
    if (N == Name) {
      Old = V;
      return;
    }
  Values.emplace_back(Name.str(), V);
}

void Counters::add(StringRef Name, uint64_t V) {
  for (auto &[N, Old] : Values)
    if (N == Name) {
      Old += V;
      return;
    }
  Values.emplace_back(Name.str(), V);
}

} // namespace tandem
