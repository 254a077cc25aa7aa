//===- StaticEstimate.h - The simt model's purely static input -*- C++ -*-===//
//
// A LaunchProfile (SimtModel.h) built without running the launch: from the
// compiled kernel's machine code, the launch (grid, block, parameter
// words), the configuration and, where the code's behaviour depends on
// memory contents, statistics or integer data of the input that the
// workload supplies (InputModel; StaticInputs.h says which). The profile then goes through the same TraceProfiler
// costing and predictLaunch as the iss-assisted one, so the two estimates
// differ only in where the instruction counts and addresses come from.
//
// How the counts are found: every warp's path through the machine code is
// followed with the values the launch determines (thread and block
// indices, special registers, scalar parameters, the buffers' device
// addresses, constant data), the input regions and the thread's own spill
// slots (below), and nothing else: any other value loaded from global,
// shared or local memory, a float result, a shuffle is "unknown". So
//   * a loop whose exit depends only on the launch (a counted loop, a
//     grid-stride loop) runs exactly its trip count per lane: the machine
//     loop's exit condition evaluated on the launch's arguments;
//   * a branch on an unknown value inside a warp is divergent: both sides
//     run, under the warp's mask (an if counts its then and else side);
//   * a loop whose exit is unknown (a CSR row loop) takes its trip count
//     per lane from InputModel::LoopRange (the distance the induction
//     variable travels, e.g. the row length), divided by the induction
//     step the machine loop shows (the unroll factor); without it the
//     estimate fails and says which loop;
//   * an address that depends on memory contents (a gather x[col[j]])
//     comes from InputModel::Address (e.g. synthesized from the matrix's
//     row lengths and x-locality statistics); without it the estimate
//     fails and says which instruction;
//   * a global load from one of InputModel::Regions (integer input data
//     the host holds before the launch: a CSR matrix's rowPtr and colIdx,
//     a histogram's input words, merge-path results the host computed from
//     rowPtr) yields the host's word, so loops, branches and addresses that
//     depend only on that data are followed exactly (StaticInputs.h says
//     which workload gives what);
//   * local memory the thread itself wrote with a known value (a spilled
//     register) reads back known.
// No device memory is read and nothing runs on a device: the estimate never
// sees a value a kernel computed on a device, nor any float data.
//
// Input invariants: the image holds the kernel; the parameter words are the
// launch's (pointers: the buffers' device addresses). Guarantees: either a
// complete profile, or an error naming the kernel and the instruction (pc)
// that could not be estimated, never a partial guess.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "DeviceProfile.h"
#include "SimtModel.h"

#include "tandem/Config.h"
#include "tandem/KernelImage.h"

#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tandem::models {

struct StaticLaunch {
  std::string Kernel;
  std::array<uint32_t, 3> Grid{1, 1, 1}, Block{1, 1, 1};
  /// The parameter buffer as 4-byte words, in parameter-offset order.
  std::vector<uint32_t> ParamWords;
  /// Where the rtl puts the launch's local memory (TraceProfiler's
  /// LocalBase); 0 if unknown.
  uint32_t LocalBase = 0;
};

/// A memory access whose address depends on memory contents.
struct DataAccess {
  /// The parameter word the address derives from (a pointer parameter's
  /// index in ParamWords), or -1 when the walk cannot tell.
  int Param = -1;
  uint32_t BlockLinear = 0, Thread = 0; ///< thread: linear index in the block
  /// The iteration of the innermost loop around the access (0 outside
  /// loops), that loop's induction step, and how many data-dependent
  /// accesses through the same parameter came earlier in this iteration.
  uint64_t Iteration = 0;
  unsigned Step = 1, Ordinal = 0;
  uint32_t Pc = 0;
  bool Store = false;
};

/// Integer input data the host holds, which the walk may read: a global
/// load of [Base, Base + 4 * Words.size()) yields the host's bytes. It must
/// hold what the launch would read there (the workload's inputs, or what an
/// earlier launch writes, computed on the host from the inputs); stores do
/// not change it.
struct InputRegion {
  std::string Name; ///< what it is, for messages and the report's notes
  uint32_t Base = 0;
  std::shared_ptr<const std::vector<uint32_t>> Words;
};

/// What the workload knows about its input that the code cannot show.
struct InputModel {
  /// Integer input data the walk may read (see InputRegion).
  std::vector<InputRegion> Regions;
  /// For the \p LoopOrdinal-th machine loop (by header address), the
  /// distance its induction variable travels for one thread, when the exit
  /// depends on memory contents; nullopt: not known.
  std::function<std::optional<uint64_t>(unsigned LoopOrdinal, uint32_t BlockLinear,
                                        uint32_t Thread)>
      LoopRange;
  /// The address of a data-dependent access; nullopt: not known.
  std::function<std::optional<uint32_t>(const DataAccess &)> Address;
};

/// One machine loop: a backward branch at Latch to Header.
struct MachineLoop {
  uint32_t Header = 0, Latch = 0; ///< byte addresses
  /// The induction variable's increment (the `addi` feeding the loop's exit
  /// compare), 1 if none is found; more than the source's step when the
  /// loop was unrolled.
  unsigned Step = 1;
  /// `andi x, step-1` of a `sub` (the range) before the loop: a remainder
  /// is peeled off, so the
  /// unrolled loop runs floor(range / step) times rather than ceil.
  bool PeeledRemainder = false;
};

/// The kernel's loops in header order (what LoopRange's ordinal counts).
llvm::Expected<std::vector<MachineLoop>> findLoops(const KernelImage &Img,
                                                   llvm::StringRef Kernel);

/// The static profile of one launch (see the file comment). Fails, naming
/// the kernel and the pc, where the launch cannot be estimated statically,
/// or when the walk passes \p MaxWarpInstructions. \p Latencies and
/// \p CollectRounds as for TraceProfiler (pass the costing's
/// ModelParams::CostInRounds: off, no rounds are built).
llvm::Expected<LaunchProfile> estimateLaunch(const KernelImage &Img, const StaticLaunch &L,
                                             const AcceleratorConfig &C,
                                             const InputModel &Inputs = {},
                                             const ModelLatencies *Latencies = nullptr,
                                             bool CollectRounds = ModelParams().CostInRounds,
                                             uint64_t MaxWarpInstructions = 100'000'000);

} // namespace tandem::models
