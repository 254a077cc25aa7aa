//===- RtlSim.h - The Verilated SIMT core and its harness ------*- C++ -*-===//
//
// Runs kernel images on the Verilated RTL of the SIMT core (sim/rtl/*.sv),
// one instance per configured core (`cores`, read at open time): loads the
// code into each core's instruction memory, hands the blocks to the cores
// in order (each next block to the core free first), serves the cores'
// memory ports from device memory through one shared DRAM model (latency,
// bytes per cycle, channels, outstanding requests: read from the
// configuration at open time, no rebuild), answers the cores'
// address checks (the harness owns the allocations, so it reports faults with
// the ISS's messages), writes the commit trace (docs/Trace.md), the VCD
// waveform and the per-warp timeline when asked (docs/RTL.md, "Seeing
// inside") and reads the core's counters (docs/Counters.md).
//
// Input invariants: none; every launch is validated first. The Verilated
// model has the configuration's build parameters (lanes, warps, registers,
// L1, shared memory, LSU slots): the default's is linked in, any other is built on
// first use and cached (ModelCache.h). The harness reaches the model only
// through CoreModel.h, so one harness serves every configuration.
// Guarantees: faults and hangs come back as llvm::Error naming the kernel,
// block, warp, lane, pc and instruction; counters describe everything
// executed up to the fault.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "DeviceMemory.h"

#include "tandem/KernelImage.h"
#include "tandem/Runtime.h"

#include "llvm/Support/Error.h"

#include <memory>

namespace tandem::rtl {

/// The build parameters of the model linked into this build (the default
/// configuration's); other configurations' models are built on demand.
AcceleratorConfig builtConfig();

class Simulator {
public:
  /// Opens the model of \p Opts.Config (building it first if it is neither
  /// the linked-in one nor cached); fails if it cannot be built or loaded.
  static llvm::Expected<std::unique_ptr<Simulator>>
  create(const DeviceOptions &Opts, iss::DeviceMemory &Mem);
  ~Simulator();

  llvm::Error loadImage(const KernelImage &Img);
  llvm::Error launch(const LaunchParams &P, Counters &Out);
  static void zeroCounters(Counters &Out);

  struct Impl;

private:
  explicit Simulator(std::unique_ptr<Impl> I);
  std::unique_ptr<Impl> I;
};

} // namespace tandem::rtl
