//===- Iss.h - The functional simulator of the SIMT accelerator -*- C++ -*-===//
//
// `iss` executes kernel images instruction by instruction, exactly as the
// descriptions in target/simt/SimtInstrInfo.td say, and is the reference the
// RTL is compared against. It knows nothing about timing: CLOCK reads the
// number of warp instructions issued so far in the launch.
//
// Execution order (deterministic, documented in docs/ISS.md): blocks one
// after another in linear order (x fastest, then y, then z); within a block,
// each warp in warp order runs until it reaches a barrier or finishes, then
// the next warp runs; when every unfinished warp waits at a barrier they are
// all released and the round starts again from warp 0.
//
// Input invariants: none on the image or the launch; loadImage() and
// launch() validate everything and return errors that name the kernel and
// what is wrong. Guarantees: a fault stops the launch with an error naming
// kernel, block, warp, lane (where one lane is at fault), pc, the
// disassembled instruction and the address; counters cover every warp
// instruction executed before the fault.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "DeviceMemory.h"

#include "tandem/KernelImage.h"
#include "tandem/Runtime.h"

#include "llvm/Support/Error.h"

#include <memory>

namespace tandem::iss {

/// Where byte \p Addr of lane \p Lane's local memory lives in its warp's
/// local buffer: the ISA interleaves the lanes word by word (word W of lane
/// L at (W * 32 + L) * 4), so one local address accessed by a whole warp is
/// one contiguous 128-byte line. The RTL uses the same layout.
constexpr uint64_t localWarpOffset(uint32_t Addr, unsigned Lane) {
  return ((uint64_t(Addr >> 2) << 5) + Lane) * 4 + (Addr & 3);
}

class Simulator {
public:
  /// \p Mem is the device's global memory; it must outlive the simulator.
  Simulator(const DeviceOptions &Opts, DeviceMemory &Mem);
  ~Simulator();

  /// Checks every kernel's code range, parameters and sizes, then keeps a
  /// copy of \p Img (replacing any earlier image).
  llvm::Error loadImage(const KernelImage &Img);
  /// Runs one launch to completion or to its first fault. \p Out is reset and
  /// then holds the counters of this launch (see docs/Counters.md), also
  /// when the launch faults.
  llvm::Error launch(const LaunchParams &P, Counters &Out);
  /// Fills \p Out with every counter name the simulator reports, all zero.
  static void zeroCounters(Counters &Out);

private:
  DeviceOptions Opts;
  DeviceMemory &Mem;
  std::unique_ptr<KernelImage> Image;
};

} // namespace tandem::iss
