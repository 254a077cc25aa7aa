//===- RtlDevice.cpp - The "rtl" device -----------------------------------===//
//
// Implements RtlDevice.h: the same Device API as iss, over the cycle-level
// simulation of the RTL. Guarantees: counters() always holds every counter
// name the device reports (zeros before the first launch).
//
//===----------------------------------------------------------------------===//

#include "RtlDevice.h"

#include "DeviceMemory.h"
#include "LoadedImage.h"
#include "RtlSim.h"

using namespace llvm;

namespace tandem {

namespace {

class RtlDevice final : public SimulatedDevice {
public:
  RtlDevice(std::unique_ptr<iss::DeviceMemory> Mem, std::unique_ptr<rtl::Simulator> Sim)
      : SimulatedDevice(std::move(Mem)), Sim(std::move(Sim)) {
    rtl::Simulator::zeroCounters(Last);
  }

  StringRef name() const override { return "rtl"; }
  Error launch(const LaunchParams &P) override { return Sim->launch(P, Last); }

private:
  Error loadIntoSimulator(const KernelImage &Img) override { return Sim->loadImage(Img); }

  std::unique_ptr<rtl::Simulator> Sim;
};

} // namespace

Expected<std::unique_ptr<Device>> openRtlDevice(const DeviceOptions &Opts) {
  auto Mem = iss::DeviceMemory::create(Opts.MemoryBytes);
  if (!Mem)
    return createStringError(inconvertibleErrorCode(),
                             "cannot open device 'rtl': " +
                                 toString(Mem.takeError()));
  // The simulator keeps a reference to the memory: create it against the
  // memory's final address.
  std::unique_ptr<iss::DeviceMemory> Owned = std::move(*Mem);
  auto Sim = rtl::Simulator::create(Opts, *Owned);
  if (!Sim)
    return Sim.takeError();
  return std::make_unique<RtlDevice>(std::move(Owned), std::move(*Sim));
}

} // namespace tandem
