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

/// Opens the RTL device; fails if the configuration's build parameters differ
/// from the Verilated model's.
llvm::Expected<std::unique_ptr<Device>>
openRtlDevice(const DeviceOptions &Opts);

} // namespace tandem
