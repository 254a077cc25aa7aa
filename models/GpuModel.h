//===- GpuModel.h - Analytic time model of a kernel on an NVIDIA GPU -*- C++ -*-===//
//
// Predicts a kernel's time on the `gpu` device (an H200 by default) from a
// device profile (GpuProfile: the numbers the microbenchmark probes and the
// GPU runner measure, or profiles/h200-reference.json) and a description of
// the work (GpuWorkload: bytes, flops, threads, each thread's dependent
// chain, atomics). For SpMV and SpMM the workload is derived from the matrix
// statistics (sparse/Stats.h) by spmvWorkload() and spmmWorkload(). docs/GPU.md ("The gpu
// model") explains it; in short, a launch costs
//
//   launch latency + next launch x (launches - 1)
//     (a one-launch row's own measured host submit time in place of the
//     latency probe's host part, where both were measured)
//   + max(compute, memory bandwidth, memory latency, blocks)  -- these overlap
//   + load imbalance (the longest single thread's or warp's chain beyond
//     that max: a critical path no other warp can hide)
//   + synchronization (same-address atomics, serialized at the L2)
//
//   compute          max(flops / fp32 throughput, warp shared accesses /
//                        (SMs x shared accesses per SM cycle))
//   memory bandwidth max(DRAM bytes / peak + threads x cost per thread,
//                        (DRAM + L2-only bytes) / L2 bandwidth)
//                    (a thread's bytes stream only after its accesses
//                    waited a latency, shared with the threads resident
//                    beside it: GpuProfile::dramStream, from two copy
//                    probes with 8 and 32 bytes a thread)
//   memory latency   waves x one thread's dependent chain, where a wave is
//                    as many warps as the GPU holds at once (SMs x warps
//                    per SM) and the chain is the latencies it waits for in
//                    order (dependent loads at their level, FMAs, shuffles)
//                    (when it is the largest, its load part is reported
//                    as memory latency, its FMA/shuffle part as compute)
//   blocks           (blocks an SM - 1) x cta_cycles_per_block_touch: the
//                    SMs start a launch's blocks one after another (the
//                    launch latency paid for the first); reported as launch
//                    time when it is the largest
//
// A workload whose buffers fit the L2 (FootprintBytes <= l2_bytes) is
// predicted with its DRAM traffic and DRAM chain steps moved to the L2: the
// runner's repetitions find the data there.
//
// Input invariants: every count and byte figure is non-negative; the
// profile's rates and clock are positive (parseGpuProfile checks).
// Guarantees: Prediction::Cycles and the Breakdown's parts are cycles of the
// profile's clock (ClockHz; Prediction::seconds(P.ClockHz) is the time), the
// parts sum to Cycles; Bound names the largest part. Parts that
// overlap are reported as exposed time: the largest of compute, bandwidth,
// latency and blocks carries the overlapped time, the ones it hides are 0.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "SimtModel.h"

#include "microbench/SpmmShape.h"
#include "sparse/Stats.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace tandem::models {

/// The numbers the model reads about a GPU. Field names match the JSON keys
/// of profiles/*.json and of the runner's "profile" object (docs/GPU.md).
struct GpuProfile {
  std::string Name;   ///< "name": the card
  std::string Source; ///< "source": where the numbers come from
  double SmCount = 0;          ///< "sm_count"
  double ClockHz = 0;          ///< "clock_mhz" x 1e6 (the clock the latencies are in)
  double MaxWarpsPerSm = 64;   ///< "max_warps_per_sm"
  double L1LatencyCycles = 0;  ///< "l1_latency_cycles" (pointer chase)
  double L2LatencyCycles = 0;  ///< "l2_latency_cycles" (near: a footprint in half the L2)
  /// "l2_far_latency_cycles": a line in the far partition of the L2 (0:
  /// not known; the near latency is used). See l2GatherLatency().
  double L2FarLatencyCycles = 0;
  double DramLatencyCycles = 0; ///< "dram_latency_cycles"
  double SharedLatencyCycles = 0; ///< "shared_latency_cycles" (also a warp shuffle)
  double FmaLatencyCycles = 0; ///< "fma_latency_cycles" (dependent fp32 FMA)
  double DramBytesPerSec = 0;  ///< "dram_gb_per_s" x 1e9: bytes read + written
  /// "dram_copy_scalar_gb_per_s" and "dram_copy_vector_gb_per_s" x 1e9: the
  /// runner's copies with 4 and 16 bytes per thread (0 when not measured).
  /// Together they split a streaming kernel's DRAM time into bytes at a
  /// peak rate and a cost per thread (dramStream()).
  double DramCopyScalarBytesPerSec = 0, DramCopyVectorBytesPerSec = 0;
  double L2BytesPerSec = 0;    ///< "l2_gb_per_s" x 1e9: L2 <-> SM bytes
  double Fp32FlopsPerSec = 0;  ///< "fp32_tflop_per_s" x 1e12 (an FMA is 2 flops)
  double LaunchOverheadSec = 0; ///< "launch_overhead_us" x 1e-6, back to back
  /// "launch_latency_us" x 1e-6: one launch of a kernel that touches
  /// memory, timed alone between two events as the runner times every row
  /// (0: not measured). The first launch of a row costs this.
  double LaunchLatencySec = 0;
  /// "launch_next_us" x 1e-6: what a second such launch back to back adds
  /// (0: not measured). Each launch of a row after the first.
  double LaunchNextSec = 0;
  /// "launch_latency_5_buffers_us" x 1e-6: the launch-latency probe with
  /// four more buffers, each loaded once a thread (0: not measured). Its
  /// excess over LaunchLatencySec, a quarter a buffer, is what each buffer
  /// beyond the first adds to a small launch (launchPerBufferSec()).
  double LaunchLatency5BuffersSec = 0;
  /// "launch_host_us" x 1e-6: the host's time inside the launch-latency
  /// probe's timed call, submitting the launch (0: not measured). The GPU
  /// waits for it: it is the host's part of LaunchLatencySec.
  double LaunchHostSec = 0;
  /// "shared_warp_accesses_per_sm_cycle": conflict-free warp-wide shared
  /// memory instructions an SM completes per cycle (0: not measured).
  double SharedWarpAccessesPerSmCycle = 0;
  /// "shared_v4_broadcast_warp_accesses_per_sm_cycle": the same for 16-byte
  /// loads (LDS.128) that half a warp shares, 2 addresses a warp, as a
  /// tiled GEMM reads its A row (0: not measured). On the H200, 0.49: half
  /// the scalar rate, though each moves four words a lane.
  double SharedV4BroadcastWarpAccessesPerSmCycle = 0;
  /// "cta_cycles_per_block_touch": what each further thread block costs an
  /// SM, blocks whose threads load and store a word, 256 an SM against one
  /// (0: not measured, no block term). The rate at which an SM starts and
  /// retires blocks: on the H200, 160 cycles a block, whatever it does.
  double CtaCyclesPerBlock = 0;
  double L1Bytes = 0;          ///< "l1_bytes" per SM (L1 + shared carve-out max)
  double L2Bytes = 0;          ///< "l2_bytes"
  /// Same-address atomics the L2 completes per second ("atomics_per_s";
  /// default one per clock when absent).
  double SameAddressAtomicsPerSec = 0;

  /// The numbers above with their defaults where not measured: a launch
  /// then costs the back-to-back overhead, and an SM one warp access a cycle
  /// (32 banks of 4 bytes).
  double launchLatencySec() const {
    return LaunchLatencySec > 0 ? LaunchLatencySec : LaunchOverheadSec;
  }
  double launchNextSec() const { return LaunchNextSec > 0 ? LaunchNextSec : LaunchOverheadSec; }
  /// 0 unless both launch-latency probes were measured (and 5 buffers cost
  /// more than one).
  double launchPerBufferSec() const {
    if (LaunchLatencySec <= 0 || LaunchLatency5BuffersSec <= 0)
      return 0;
    return std::max(0.0, (LaunchLatency5BuffersSec - LaunchLatencySec) / 4);
  }
  double sharedWarpAccessesPerSmCycle() const {
    return SharedWarpAccessesPerSmCycle > 0 ? SharedWarpAccessesPerSmCycle : 1;
  }
  /// The broadcast LDS.128 rate; unmeasured, the scalar one.
  double sharedV4BroadcastWarpAccessesPerSmCycle() const {
    return SharedV4BroadcastWarpAccessesPerSmCycle > 0 ? SharedV4BroadcastWarpAccessesPerSmCycle
                                                       : sharedWarpAccessesPerSmCycle();
  }
  /// Warp instructions the GPU issues a second: the FMA-throughput probe's
  /// rate (fp32_tflop_per_s over 64 flops a warp FMA), taken for every
  /// one-cycle instruction: the SMs' schedulers issue one a cycle each,
  /// whatever it is.
  double warpInstructionsPerSec() const { return Fp32FlopsPerSec / 64; }
  /// Warps resident on the whole GPU at once.
  double residentWarps() const { return SmCount * MaxWarpsPerSm; }
  /// DRAM time of a kernel moving B bytes over T threads, each of which
  /// issues its accesses and ends: B / PeakBytesPerSec + T x SecondsPerThread.
  /// The per-thread part is the latency a thread's accesses wait before its
  /// bytes stream, shared by the threads resident with it. From the two copy
  /// probes (8 and 32 bytes a thread), where measured; else the peak is
  /// dram_gb_per_s and a thread costs a DRAM latency over the resident
  /// threads.
  struct DramStream {
    double PeakBytesPerSec, SecondsPerThread;
  };
  DramStream dramStream() const;
  /// The DRAM latency a dependent load waits in a kernel of \p Threads
  /// threads. The copy probes ran with every thread slot of the GPU holding
  /// one load in flight: each slot then waited dramStream()'s wait per
  /// thread times the resident threads (Little's law), the loaded latency
  /// (806 cycles on the H200, where the idle chase gives 661). A kernel that
  /// fills the GPU waits that long; a smaller one less, in proportion to the
  /// slots it fills, down to the idle latency. Without the copy probes, the
  /// idle latency.
  double loadedDramLatencyCycles(double Threads) const;
  /// The L2 latency of gathers over \p FootprintBytes: the near latency
  /// while the footprint fits half the L2 (each partition then holds a
  /// copy of what its SMs read), else the mean of near and far (half the
  /// lines are in the other partition).
  double l2GatherLatency(double FootprintBytes) const;
  /// The latency of a load that misses the L1 in a workload of \p
  /// FootprintBytes timed by repetition: DRAM's, or the L2's where the
  /// footprint fits the L2 (the repetitions find it there).
  double missLatency(double FootprintBytes) const;
};

/// Reads a profile from the JSON object \p O (see GpuProfile for the keys).
/// Keys missing from \p O take their value from \p Defaults where given (a
/// measured profile with some numbers not measured, over the reference);
/// without Defaults, or where the result is not positive, a required number
/// is an error naming \p Name and the key.
llvm::Expected<GpuProfile> gpuProfileFromJson(const llvm::json::Object &O, llvm::StringRef Name,
                                              const GpuProfile *Defaults = nullptr);
/// Parses profile JSON text; \p Name names the input in errors.
llvm::Expected<GpuProfile> parseGpuProfile(llvm::StringRef JsonText, llvm::StringRef Name,
                                           const GpuProfile *Defaults = nullptr);
/// Reads and parses the file at \p Path.
llvm::Expected<GpuProfile> loadGpuProfile(llvm::StringRef Path);
/// Writes \p P in the same schema parseGpuProfile reads.
void writeGpuProfile(const GpuProfile &P, llvm::raw_ostream &OS);

/// What a kernel launch (or a sequence of identical launches) asks of the GPU.
struct GpuWorkload {
  std::string Kernel;
  double Launches = 1;
  /// Distinct buffers the first launch's threads load or store (the probe
  /// behind launch_latency_us touches one): each further one costs
  /// GpuProfile::launchPerBufferSec().
  double Buffers = 1;
  double Threads = 0;          ///< threads launched, all launches together
  double DramBytes = 0;        ///< bytes read from and written to DRAM
  double L2OnlyBytes = 0;      ///< L2 <-> SM bytes that hit in the L2 (beyond DramBytes)
  double Flops = 0;            ///< fp32 flops, all threads
  /// Bytes of every buffer the launches touch (0: unknown). The runner
  /// times a row by repeating it on the same buffers, so where they fit the
  /// L2 they are found there: DRAM bytes and DRAM steps of the chain are
  /// then L2 ones.
  double FootprintBytes = 0;
  /// Warp-wide shared-memory instructions (loads and stores, each one
  /// conflict-free access), all warps: with flops, the compute term.
  double SharedWarpAccesses = 0;
  /// Of SharedWarpAccesses, the 16-byte loads half a warp shares (LDS.128
  /// broadcasts): they go at their own, slower rate.
  double SharedV4BroadcastWarpAccesses = 0;
  /// Threads a block as the runner launches the kernel (0: unknown, no
  /// block term): each SM starts and retires its share of the blocks at
  /// GpuProfile::CtaCyclesPerBlock each, a fourth bound beside compute,
  /// bandwidth and latency (a warp-per-row SpMV on 4M rows is 8,000
  /// blocks an SM).
  double ThreadsPerBlock = 0;
  /// The host's time submitting this row's one launch, as the runner
  /// measured it beside the row (0: unknown). Where the profile has the
  /// probe's own (LaunchHostSec), it replaces that host part of the launch
  /// latency: the host's speed moves from run to run by more than the GPU's
  /// (H200 runs 6 and 8: 5.0 and 7.8 us for the same small launches).
  double HostSubmitSec = 0;
  /// Warp instructions issued, all warps (0: not known). Where known, from
  /// an iss run (ReportGpu.cpp); issued at the FMA-throughput probe's rate
  /// (GpuProfile::warpInstructionsPerSec), they are a third compute bound
  /// beside flops and shared accesses: what a branchy integer kernel with
  /// few flops is bound by.
  double WarpInstructions = 0;
  /// One thread's dependent chain (what it waits for in order), per warp:
  /// counts of dependent steps at each latency. Threads of a warp run
  /// together, so this is also a warp's chain.
  double ChainFma = 0, ChainShared = 0, ChainL1 = 0, ChainL2 = 0, ChainDram = 0;
  /// The longest single warp's chain, in cycles, where warps differ (0 when
  /// every warp does the same work): a tail no other warp's work can hide.
  double LongestWarpCycles = 0;
  /// Cycles one thread spends after the body while the others are done (a
  /// later launch's serial part: merge path's fixup adding up a long row's
  /// carries); load imbalance, added whole.
  double SerialTailCycles = 0;
  double SameAddressAtomics = 0; ///< atomics that serialize on one address
};

/// One warp's chain in cycles under \p P.
double chainCycles(const GpuWorkload &W, const GpuProfile &P);

/// The prediction, in cycles of P.ClockHz.
Prediction predictGpu(const GpuWorkload &W, const GpuProfile &P);

/// Our CSR SpMV kernels (microbench/kernels/spmv.cu, spmv_balanced.cu).
enum class SpmvVariant { Scalar, Vector, Merge };
llvm::StringRef spmvVariantName(SpmvVariant V); ///< "spmv_scalar", ...

/// Loads per thread the compiler keeps in flight in a loop of independent
/// loads (nvcc -O3 unrolls such loops 4 times): a thread's chain of
/// loop-carried gathers is divided by it. An assumption, not a measurement.
constexpr double AssumedLoopLoadsInFlight = 4;

/// The SpMV workload of \p Variant on a matrix with statistics \p S, which
/// must have been computed with a cache of the GPU's L2 (cacheShapeForL2),
/// so that S.XMisses are the x gathers that go to DRAM.
///  * DRAM: row pointers, column indices and values once, y once, x misses.
///  * L2-only: x gathers (distinct sectors per 32-row window, the L1 keeping
///    a window's lines), and for thread-per-row and merge path the
///    column/value sectors when the lines of one step of every resident
///    warp (columns, values, x) overflow the L1: then every element load is
///    a sector of its own.
///  * chains: scalar, a row's length of (column load -> x gather) divided by
///    AssumedLoopLoadsInFlight; vector, ceil(len / 32) of them plus a
///    5-step shuffle reduction; the longest warp from RowLengthMax. Merge
///    path: a binary search, then its 32 items one at a time (each
///    nonzero's column and gather, each row end's pointer: its loads wait
///    on the row end last loaded); it gives every thread the same share,
///    so no imbalance but its fixup's serial tail on a long row.
GpuWorkload spmvWorkload(const sparse::MatrixStats &S, SpmvVariant Variant,
                         const GpuProfile &P);

/// The cache shape of \p P's L2 for computeStats (32-byte sectors).
sparse::CacheShape cacheShapeForL2(const GpuProfile &P);

/// Rows of A one block of spmm_csr covers (microbench/SpmmShape.h: the
/// suite and the GPU runner launch it so).
constexpr double SpmmBlockRows = spmm::BlockRows;

/// The cache shape of \p P's L2 for SpMM's gathers of B: an "element" of the
/// gather stream is a whole row of B (\p Columns x 4 bytes, one line: the
/// warp's lanes read it together), windows are a block's rows.
sparse::CacheShape cacheShapeForSpmm(const GpuProfile &P, unsigned Columns);

/// The workload of spmm_csr (C = A x B, B dense with \p Columns columns,
/// row-major) on a matrix with statistics \p S computed with
/// cacheShapeForSpmm(P, Columns). A thread per element of C; a warp's lanes
/// share a row of A (its column and value loads are broadcasts) and read 32
/// consecutive columns of a row of B.
///  * DRAM: row pointers, columns and values once per warp column
///    (ceil(Columns / 32) warps read each row of A; the first from DRAM,
///    the rest from the L2), C once, B's L2 misses (whole rows).
///  * L2-only: the B rows a block's warps gather (distinct rows per window
///    of SpmmBlockRows rows: the L1 keeps what a block shares) beyond the
///    DRAM ones, and the repeated reads of A.
///  * chain: a row's (column load -> B gather) steps divided by
///    AssumedLoopLoadsInFlight, each an L1 hit then an L2 gather; a warp is
///    a row, so the longest row is the longest warp.
GpuWorkload spmmWorkload(const sparse::MatrixStats &S, unsigned Columns, const GpuProfile &P);

} // namespace tandem::models
