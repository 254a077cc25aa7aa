//===- Runtime.cpp - One device API over iss, rtl and gpu -----------------===//
//
// Implements include/tandem/Runtime.h. "iss" pairs the simulator's global
// memory (sim/iss/DeviceMemory.h) with the functional simulator; "rtl" pairs
// the same memory with the Verilated core (RtlDevice.cpp); "gpu" is PTX on an
// NVIDIA GPU through the CUDA driver loaded at run time (GpuDevice.cpp).
// iss and rtl place an image's __device__ variables in that memory when
// they load it, and find its variables by name (LoadedImage.h).
//
// Guarantees: every failure is an llvm::Error, never an abort; counters()
// always holds the full list of counter names of the last launch (zeros
// before the first one).
//
//===----------------------------------------------------------------------===//

#include "tandem/Runtime.h"

#include "CudaDriverApi.h"
#include "DeviceMemory.h"
#include "GpuDevice.h"
#include "Iss.h"
#include "LoadedImage.h"
#include "RtlDevice.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/bit.h"

using namespace llvm;

namespace tandem {

namespace {

class IssDevice final : public SimulatedDevice {
public:
  IssDevice(const DeviceOptions &Opts, std::unique_ptr<iss::DeviceMemory> Mem)
      : SimulatedDevice(std::move(Mem)), Sim(Opts, memory()) {
    iss::Simulator::zeroCounters(Last);
  }

  StringRef name() const override { return "iss"; }
  Error launch(const LaunchParams &P) override { return Sim.launch(P, Last); }

private:
  Error loadIntoSimulator(const KernelImage &Img) override { return Sim.loadImage(Img); }

  iss::Simulator Sim;
};

constexpr StringRef KnownDeviceNames[] = {"iss", "rtl", "gpu"};

} // namespace

ArrayRef<StringRef> knownDevices() { return KnownDeviceNames; }

Expected<std::unique_ptr<Device>> openDevice(StringRef Name,
                                             const DeviceOptions &Opts) {
  // Waveforms and timelines come from the RTL's signals; silently ignoring
  // them elsewhere would leave the user looking for a file never written.
  if (Name != "rtl" &&
      (!Opts.WaveformPath.empty() || !Opts.TimelinePath.empty()))
    return createStringError(
        inconvertibleErrorCode(),
        "device '" + Name + "': " +
            (!Opts.WaveformPath.empty() ? "a waveform (--vcd, --fst)" : "a timeline (--timeline)") +
            " is written only by the rtl device; use --device rtl");
  if (Name == "iss") {
    auto Mem = iss::DeviceMemory::create(Opts.MemoryBytes);
    if (!Mem)
      return createStringError(inconvertibleErrorCode(),
                               "cannot open device 'iss': " +
                                   toString(Mem.takeError()));
    return std::make_unique<IssDevice>(Opts, std::move(*Mem));
  }
  if (Name == "rtl")
    return openRtlDevice(Opts);
  if (Name == "gpu")
    return openGpuDevice(Opts, cuda::driverLibraryName());
  return createStringError(inconvertibleErrorCode(),
                           "unknown device '" + Name + "'; known devices: " +
                               join(knownDevices(), ", "));
}

} // namespace tandem
