//===- RtlDevice.h - The "rtl" device: the Verilated SIMT core -*- C++ -*-===//
//
// Pairs device memory (sim/iss/DeviceMemory.h, shared with iss) with the
// harness around the Verilated core (sim/rtl/harness). Private to the
// runtime library; reached through openDevice("rtl").
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tandem/Runtime.h"

#include <memory>

namespace tandem {

/// Opens the RTL device with a model of the configuration's build parameters
/// (built on first use and cached if they are not the default's:
/// sim/rtl/harness/ModelCache.h); fails if that model cannot be built.
llvm::Expected<std::unique_ptr<Device>>
openRtlDevice(const DeviceOptions &Opts);

} // namespace tandem
