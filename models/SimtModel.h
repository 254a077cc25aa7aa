//===- SimtModel.h - Analytic cycle model of the rtl SIMT core ---*- C++ -*-===//
//
// Predicts the cycles one launch takes on the `rtl` device (docs/RTL.md)
// from the configuration, the generated latency/unit tables
// (target/simt/SimtSchedule.td) and a per-warp profile of the launch
// (LaunchProfile, built from an iss run by TraceProfile.h, without running
// anything by StaticEstimate.h, or by hand in tests). docs/Report.md explains the model; in short,
// what the RTL does and how each part is modelled:
//
//   * Blocks go to the cores in order, each to the core free first; a core
//     runs its blocks one after another: a launch is its busiest core's
//     blocks plus a fixed cost per block and per launch. Cores share the
//     DRAM channels and their outstanding slots, a queueing station for
//     which the cores contend (sharedDramCycles).
//   * Inside a block, warps share two servers: the lane datapath (every
//     non-memory warp instruction streams 32/LANES cycles over it; divides
//     and square roots additionally hold the iterative unit) and the LSU,
//     which serves ONE warp memory instruction at a time from address
//     generation to the last response (so DRAM latency is hidden only by
//     other warps' datapath work, never by other loads). A warp waits for
//     its own memory instruction (config `memory_wait` "instruction"; under
//     "register" the rounds walk lets it go on and holds only the register
//     the instruction writes). That is a closed queueing network with one
//     customer per warp: solved by exact mean value analysis (MVA), blended
//     with the bottleneck bound by one fitted constant because the real
//     service times are deterministic rather than exponential.
//   * When the profile cuts each warp at its memory instructions
//     (SegmentProfile::Steps, the trace profiler's), a segment is costed by
//     issuing those rounds' instructions as the rtl's round-robin scheduler
//     does (roundsCycles): warps that reach the LSU together are served in
//     turn while the datapath idles, and warps the LSU let go early compute
//     while the rest wait. Only with ModelParams::CostInRounds (see there
//     for its default); otherwise, and for hand-made profiles:
//   * Warps with unequal work: a block is cut into windows of
//     WindowInstructions per warp; a late window holds only the warps that
//     got that far (the tail where long warps run alone). Inside a window
//     the warps are walked in phases as they finish (fewer customers, less
//     overlap); the excess over a balanced window is the load imbalance.
//     Barriers cut a block into segments.
//
// Input invariants: demands are non-negative cycles; a LaunchProfile's
// blocks hold at least one warp each. Guarantees: the breakdown's parts sum
// to Cycles (to rounding), Bound names the largest part.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tandem/Config.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tandem::models {

/// The model's service stations, in MVA order.
enum Station : unsigned { Datapath = 0, IterativeUnit = 1, Lsu = 2, NumStations = 3 };

/// What one warp asks of the core in one barrier segment, in cycles.
struct WarpDemand {
  /// Service demand per station: datapath (CPW per non-memory warp
  /// instruction), iterative unit, LSU (the LSU cost model's cycles).
  std::array<double, NumStations> Service{};
  /// Cycles this warp cannot issue for reasons no other warp causes:
  /// scoreboard latency beyond the datapath's streaming time, the issue
  /// cycle of memory instructions. Scaled by ModelParams::DependencyExposure
  /// for the datapath part (not every next instruction depends on the last).
  double DependencyCycles = 0;
  double IssueCycles = 0;
  /// Of Service[Lsu]: cycles a DRAM channel was busy (bandwidth) for this
  /// warp's requests.
  double DramChannelCycles = 0;

  double work() const;
};

/// One warp's work from just after one memory instruction up to and
/// including the next (a "round"): the grain at which a block is costed
/// when the profile has it (SegmentProfile::Steps). The last step of a
/// segment may hold compute only (HasMemory false).
struct WarpStep {
  double Datapath = 0, Iterative = 0; ///< service cycles before the memory op
  /// The non-memory warp instructions that make up Datapath, each holding
  /// the datapath Datapath / Instructions cycles. 0 with Datapath > 0 (a
  /// hand-made step): one instruction of Datapath cycles.
  unsigned Instructions = 0;
  /// The warp's own stall cycles before the memory op (scaled by
  /// ModelParams::DependencyExposure).
  double Dependency = 0;
  /// Where those stalls fall: the stall before each issue of the step, its
  /// Instructions datapath instructions and then (HasMemory) the memory
  /// instruction; they sum to Dependency. Empty (hand-made steps, mean
  /// warps): Dependency spread evenly over the issues.
  std::vector<float> Stalls;
  /// The rtl's scoreboard for each issue of the step, in the order of
  /// Stalls: what roundsCycles uses instead of Stalls when it is there.
  /// A stall measured with the warp running alone is wrong wherever the
  /// producer's latency outlasts a memory instruction between it and its
  /// consumer (a 130-cycle remainder, a parameter load, the use: the LSU's
  /// cost is only known in the walk), so the walk keeps each warp's
  /// register-ready cycles itself.
  /// (16 bytes: one per dynamic warp instruction of the launch.)
  struct Issue {
    uint64_t Regs = 0;      ///< bit r: the instruction names register r
    uint16_t Latency = 0;   ///< cycles from its issue until Def is readable
    uint16_t Iterative = 0; ///< cycles it holds the iterative unit
    /// The register the instruction writes (0: none). A memory
    /// instruction's (a load's, an atomic's, a shuffle's) matters only
    /// under MemoryWait::Register: it is readable when the LSU writes it
    /// back, which the walk learns at issue.
    uint8_t Def = 0;
  };
  std::vector<Issue> Issues;
  bool HasMemory = false;
  /// The memory instruction's LSU cycles, from its issue to the cycle the
  /// LSU takes the next memory instruction, which is also the cycle its
  /// warp may issue again (the commit-to-next-issue cycle included) unless
  /// LsuDone says later.
  double Lsu = 0;
  /// From its issue to the cycle its warp may issue again, when that is
  /// after Lsu: a load that waited for its responses in an LSU slot
  /// (lsu.in_flight above 1) while the LSU took other instructions. At
  /// most Lsu (0 in hand-made steps): Lsu.
  double LsuDone = 0;
  double Dram = 0; ///< of which a DRAM channel was busy
};

/// The warps of one block between two barriers.
struct SegmentProfile {
  std::vector<WarpDemand> Warps;
  /// The same demands cut by instruction count: Windows[K][I] is a warp's
  /// K-th window of WindowInstructions warp instructions (warps run nearly
  /// in step under the rtl's schedulers). A block's start is LSU-bound
  /// (every warp loads its parameters) while its middle may be
  /// datapath-bound; averaging the two would hide the start. Empty: one
  /// window, the whole segment.
  std::vector<std::vector<WarpDemand>> Windows;
  /// The same demands cut at memory instructions: Steps[I] is the I-th
  /// warp's rounds, in program order. Not empty and
  /// ModelParams::CostInRounds: the segment is costed by simulating the
  /// rounds (roundsCycles), and Windows is not used.
  std::vector<std::vector<WarpStep>> Steps;
  /// The block's warp slot of each entry of Warps and Steps, ascending
  /// (a warp that exited before the segment has none). Empty: 0, 1, 2...
  std::vector<unsigned> Slots;
};

/// Warp instructions per window (SegmentProfile::Windows). Chosen among 16,
/// 32 and 64 by the calibration kernels' error after refitting (2026-12-01:
/// rms relative error 1.0%, 0.5%, 1.0%).
constexpr unsigned WindowInstructions = 32;

struct BlockProfile {
  std::vector<SegmentProfile> Segments;
  /// Barrier releases in the block (segments - 1 when every warp reaches
  /// every barrier).
  unsigned Barriers = 0;
};

/// Memory-system figures the profile predicts (compared with the rtl's
/// counters in the report).
struct MemoryEstimate {
  uint64_t L1Hits = 0, L1Misses = 0;
  uint64_t L1Writebacks = 0; ///< dirty local lines written to memory
  uint64_t DramRequests = 0, DramReadBytes = 0, DramWriteBytes = 0;

  /// Adds another launch's figures (a report row sums its launches).
  MemoryEstimate &operator+=(const MemoryEstimate &O) {
    L1Hits += O.L1Hits;
    L1Misses += O.L1Misses;
    L1Writebacks += O.L1Writebacks;
    DramRequests += O.DramRequests;
    DramReadBytes += O.DramReadBytes;
    DramWriteBytes += O.DramWriteBytes;
    return *this;
  }
};

struct LaunchProfile {
  std::string Kernel;
  std::vector<BlockProfile> Blocks;
  MemoryEstimate Memory;
  uint64_t WarpInstructions = 0;
  uint64_t ThreadInstructions = 0;
  uint64_t FpuThreadInstructions = 0; ///< for the roofline (flops ~ fpu lane ops)
};

/// The model's constants. Defaults are derived from the RTL (docs/RTL.md);
/// the two marked "fitted" were fitted on the calibration kernels listed in
/// docs/Report.md and are then frozen for every other kernel and matrix.
struct ModelParams {
  /// Weight between the bottleneck bound (0) and exponential MVA (1): the
  /// real service times are deterministic, queues shorter. Fitted
  /// (`tandem report --fit`, 2026-12-01): 0, the bound, once the windows
  /// (SegmentProfile::Windows) separate the phases of a block.
  double QueueingWeight = 0.0;
  /// Fraction of the datapath's scoreboard latency a warp exposes (the next
  /// instruction depends on the last). Fitted (same run): 1, every
  /// instruction waits for the one before; compiled code is mostly chains.
  double DependencyExposure = 1.0;
  /// Per block, beyond its last warp's exit streaming through the datapath
  /// (the segment's end): the rtl's next block issues one cycle later
  /// (`--timeline`: an exit at 345, the next block's first issue at 350).
  /// 8 until 2026-12-02: every block came out 7 cycles over.
  double BlockOverheadCycles = 1;
  /// Per barrier, beyond its last arrival's `bar` streaming through the
  /// datapath (the segment's end): none. The rtl releases the warps two
  /// cycles after that issue, within the bar's datapath slot, and the next
  /// datapath instruction issues when the slot ends (a memory instruction
  /// first after the release could go two cycles sooner). 2 until
  /// 2026-12-02.
  double BarrierCycles = 0;
  /// Per launch, beyond its blocks.
  double LaunchOverheadCycles = 0;
  /// Cost segments that have rounds (SegmentProfile::Steps) by simulating
  /// them (roundsCycles) instead of by windows. On since 2026-12-01: on all
  /// 75 rows of the default report median |error| 3.5% -> 2.7%, p90 9.1% ->
  /// 4.9%, no row worse by more than 5 points (docs/NOTES.md). `tandem
  /// report --model-rounds on|off` overrides it.
  bool CostInRounds = true;
  /// The warp scheduler roundsCycles issues with (config `scheduler`), and
  /// the core's warp slots (config `warps_per_core`): the rtl's last-issuer
  /// register starts at the last slot, which under gto decides the first
  /// warp to issue. forConfig sets both.
  WarpScheduler Scheduler = WarpScheduler::RoundRobin;
  unsigned CoreWarps = 8;
  /// What a warp waits for after a memory instruction (config
  /// `memory_wait`). Under Register the walk lets the warp go on at once
  /// and holds only the register the instruction writes (WarpStep::Issue::
  /// Def) until the LSU is done; a step without Issues (hand-made, static
  /// estimates) still waits for the whole instruction, an upper bound.
  MemoryWait MemWait = MemoryWait::Instruction;
  /// The cores blocks are spread over (config `cores`), and the DRAM they
  /// share (`dram.channels`, `latency_cycles`, `max_outstanding`): see
  /// sharedDramCycles.
  unsigned Cores = 1;
  unsigned DramChannels = 1;
  double DramLatencyCycles = 100;
  unsigned DramMaxOutstanding = 16;

  /// The defaults with the scheduler, warp slots, memory wait, cores and
  /// DRAM channels of \p C.
  static ModelParams forConfig(const AcceleratorConfig &C);
};

/// The six parts of a prediction, in cycles; they sum to Prediction::Cycles.
struct Breakdown {
  double Compute = 0;          ///< datapath and iterative unit busy
  double MemoryBandwidth = 0;  ///< DRAM channel busy
  double MemoryLatency = 0;    ///< LSU time beyond bandwidth, not hidden
  /// Warps waiting at a barrier for the slowest: what a segment that ends
  /// at a barrier costs beyond the same block with equal warps (plus
  /// barrier_cycles per barrier).
  double Synchronization = 0;
  /// The same excess in a block's last segment: warps that exited early.
  double LoadImbalance = 0;
  double Launch = 0;           ///< per-block and per-launch fixed costs

  double total() const;
  Breakdown &operator+=(const Breakdown &O);
  /// The largest part's name: "compute", "memory bandwidth", "memory
  /// latency", "synchronization", "load imbalance", "launch".
  std::string dominant() const;
};

struct Prediction {
  double Cycles = 0;
  Breakdown Parts;
  std::string Bound;
  /// Cycles at the given clock.
  double seconds(double ClockHz) const { return Cycles / ClockHz; }
};

/// The clock the report assumes to turn cycles into seconds (the RTL has
/// no clock of its own; 500 MHz is a plausible FPGA/ASIC figure).
constexpr double AssumedClockHz = 500e6;

/// Cycles of a launch whose blocks, \p Work cycles in all when each runs
/// with the DRAM to itself, run on \p Cores cores sharing the DRAM: their
/// requests occupy the channels \p ChannelCycles and hold outstanding slots
/// \p SlotCycles in all (each its occupancy plus the latency). The slots
/// are one queueing station shared by the cores (max_outstanding x
/// channels slot-cycles a cycle), the rest of the work is each core's own
/// delay: exact MVA with one customer per core, each doing its share; at
/// least the occupancy spread over the channels. With in_flight 1 the
/// slots, not the bandwidth, bound a streaming kernel: whitaker3's merge
/// SpMV (1.66M cycles on one core, 118k requests of 104 slot-cycles)
/// comes out 1,012k on 2 cores against 1,024k measured and 791k on 4
/// against 836k; the slot station's demand alone, a bound, says 769k for
/// both (docs/NOTES.md).
double sharedDramCycles(double Work, double ChannelCycles, double SlotCycles, unsigned Cores,
                        const ModelParams &P);

/// Exact MVA of a closed network: \p Customers warps, each asking
/// \p Demand cycles of every queueing station per job and \p Delay cycles
/// at a delay (no queue) station. Returns the response time of one job
/// (all customers start together, so the time for all of them).
double mvaResponseTime(unsigned Customers, llvm::ArrayRef<double> Demand, double Delay);

/// Cycles for \p Customers identical warps each asking \p Demand/\p Delay,
/// blended between the bottleneck bound and MVA by \p QueueingWeight.
double concurrentCycles(unsigned Customers, llvm::ArrayRef<double> Demand, double Delay,
                        double QueueingWeight);

/// What simulating a segment's rounds found (roundsCycles).
struct RoundsResult {
  double Cycles = 0;
  /// When each warp's last instruction completed.
  std::vector<double> WarpEnd;
  /// The warp that issued last (its index in the walk; the walk's size if
  /// none did): the scheduler's last-issuer register when the segment ends.
  size_t LastIssued = 0;
  /// The cycle of the walk's last issue, and whether it went to the
  /// datapath (a segment of a real block ends with its last `bar`).
  double LastIssueAt = 0;
  bool LastIssueWasDatapath = false;
  /// When the last datapath instruction has streamed, and when the LSU is
  /// free (both 0 if none issued). Under MemoryWait::Register the LSU may
  /// still serve a store when the segment's barrier releases.
  double DatapathEnd = 0, LsuFree = 0;
  /// When the last memory instruction is done (LsuFree, unless a load
  /// still waits in an LSU slot after its front end is free).
  double LsuDone = 0;
  /// Under MemoryWait::Register: the loads each warp (an index of the
  /// walk) still had to write back at the walk's last issue, as (register,
  /// cycle readable); a later datapath write of the register drops it.
  std::vector<std::vector<std::pair<uint8_t, double>>> PendingLoads;
};

/// Where a walk starts: the scheduler's last-issuer register
/// (initialLastIssued; none: as at a block start), and the cycle from
/// which the datapath is free (a barrier's last `bar` may still stream
/// when the release lets the warps go: SegmentEnd).
struct WalkStart {
  std::optional<size_t> LastIssued;
  double DatapathFree = 0;
  /// Under MemoryWait::Register: the cycle the LSU is free, and per warp
  /// of the walk the loads still in flight (register, cycle readable).
  double LsuFree = 0;
  std::vector<std::vector<std::pair<uint8_t, double>>> PendingLoads;
};

/// When a walked segment ends for the next one. At a barrier that is the
/// rtl's release, two cycles after the last arrival's `bar` issued (the
/// arrival is registered at that edge, the release at the next), while
/// that `bar` may still hold the datapath for DatapathBusy more cycles: a
/// memory instruction first after the release goes at once, a datapath
/// one waits (before 2026-12-02 every segment ended when its `bar` had
/// streamed: sgemm_tiled's shared loads after each barrier 2 cycles late).
/// Otherwise, or if the walk did not end with a datapath instruction (a
/// hand-made profile), when the last instruction has completed.
struct SegmentEnd {
  double Cycles = 0;
  double DatapathBusy = 0;
};
SegmentEnd segmentEnd(const RoundsResult &Walk, bool AtBarrier);

/// What one segment's walk hands the next of its block (predictSegment):
/// the warp slot that issued last (empty at a block start) and the cycles
/// the last `bar` still holds the datapath.
struct SegmentCarry {
  std::optional<unsigned> LastSlot;
  double DatapathBusy = 0;
  /// Under MemoryWait::Register: the cycles the LSU is still busy after the
  /// release, and the loads in flight then, per warp slot (register,
  /// cycles until readable). Always empty under Instruction: every warp
  /// waited for its memory instructions before it reached the barrier.
  double LsuBusy = 0;
  struct PendingLoad {
    unsigned Slot;
    uint8_t Reg;
    double ReadyAfter;
  };
  std::vector<PendingLoad> PendingLoads;

  /// Where the walk of a segment whose N warps sit in \p Slots
  /// (SegmentProfile::Slots; empty: 0..N-1) starts from this carry.
  WalkStart walkStart(llvm::ArrayRef<unsigned> Slots, size_t N, const ModelParams &P) const;
  /// Takes what that walk, ended at \p End, leaves for the next segment.
  void advance(const RoundsResult &Walk, const SegmentEnd &End, llvm::ArrayRef<unsigned> Slots);
};

/// Where the scheduler's last-issuer register stands when a segment whose
/// warps sit in \p Slots (SegmentProfile::Slots; empty: 0..N-1) starts, as
/// an index into its N warps for roundsCycles: after a barrier, the warp
/// slot \p LastSlot that issued last before it (its last arrival); at a
/// block start (no \p LastSlot) the core's last slot, where the rtl resets
/// the register. Round-robin then looks first at the warp after it, gto at
/// it, if it is in the segment (else the index is N: none, the oldest
/// goes). Before 2026-12-02 every segment started at the reset value, so
/// after each of block_reduce's barriers the model let warp 0 issue first
/// where the rtl goes on from the last arrival (12 cycles a barrier).
size_t initialLastIssued(llvm::ArrayRef<unsigned> Slots, size_t N,
                         std::optional<unsigned> LastSlot, const ModelParams &P);

/// What one memory instruction costs from its issue cycle: when the LSU
/// takes the next memory instruction, and when the instruction has written
/// back (its warp issues again, its register is readable). The two are
/// equal unless the LSU holds several memory instructions at once
/// (lsu.in_flight above 1): a load waiting for its responses in a slot
/// frees the LSU's front end before it is done.
struct MemoryIssueCost {
  double LsuCycles = 0;
  double DoneCycles = 0;
  MemoryIssueCost() = default;
  /// One instruction at a time: the LSU is free when the instruction is done.
  MemoryIssueCost(double Cycles) : LsuCycles(Cycles), DoneCycles(Cycles) {}
  MemoryIssueCost(double Lsu, double Done) : LsuCycles(Lsu), DoneCycles(Done) {}
};

/// The LSU cycles (WarpStep::Lsu) of warp \p Warp's memory instruction
/// that ends its round \p Step, asked for when it issues, in cycle
/// \p IssueCycle of the walk (roundsCycles' CostAtIssue).
using MemoryIssueCoster =
    llvm::function_ref<MemoryIssueCost(size_t Warp, size_t Step, double IssueCycle)>;

/// Costs warps given as rounds (SegmentProfile::Steps), all starting
/// together, by issuing their instructions as the rtl's scheduler does
/// (docs/RTL.md, "Warp scheduler"; ModelParams::Scheduler): one warp
/// instruction a cycle; round-robin picks the first ready warp after the
/// one that issued last, whatever unit the last issue went to, gto the
/// last issuer while it is ready, else the lowest-numbered ready warp. A
/// datapath instruction holds the datapath for its cycles (Datapath /
/// Instructions), the first of a step with iterative work also the
/// iterative unit for Iterative cycles; a memory instruction holds the LSU
/// for Lsu cycles, and its warp issues again when the LSU is free again
/// (with a coster, when the instruction is done: MemoryIssueCost). A
/// warp waits its own stall cycles (x DependencyExposure) before each
/// issue, where WarpStep::Stalls puts them, else spread evenly over its
/// step's issues. What the fluid sharing used before
/// 2026-12-01 missed (measured on the rtl's timelines of stencil5,
/// transpose, hash64 and spmv_merge; docs/NOTES.md): every issue, a memory
/// one included, moves the round-robin pointer, so
///   * while the LSU serves short loads the datapath goes to the warps
///     just after the LSU's warp in ring order, not to every computing warp
///     in turn: warps leave a phase of parameter or L1-hit loads one at a
///     time, which keeps the LSU and the datapath both busy (fluid sharing
///     had them all finish computing together and then queue);
///   * a warp with a second load ready when its first is done gets the LSU
///     again only if another warp's issue has moved the pointer past the
///     warps waiting for it (until 2026-12-01 the model let such a warp
///     keep the LSU always, and charged its warp a cycle more than the
///     LSU: on spmv_merge that issued the loads out of the rtl's order).
/// The segment ends when its last instruction completes.
///
/// \p CostAtIssue, when given, is asked for each memory instruction's LSU
/// cycles at the moment it issues, in issue order, and its answer replaces
/// the step's Lsu: the trace profiler replays the L1 and the DRAM queues
/// in the order and at the cycles the scheduler reaches them
/// (TraceProfile.h).
///
/// \p Start: the scheduler's last issuer and the datapath's state when the
/// walk begins.
RoundsResult roundsCycles(llvm::ArrayRef<std::vector<WarpStep>> Warps, const ModelParams &P,
                          MemoryIssueCoster CostAtIssue = nullptr, WalkStart Start = {});

/// Predicts one segment: its cycles and their breakdown. \p Carry, when
/// given, carries the scheduler's last issuer and the datapath across the
/// block's segments: on entry what the segment before left (empty at a
/// block start), on return what this one leaves. \p EndsAtBarrier: a
/// barrier follows (SegmentEnd).
Prediction predictSegment(const SegmentProfile &S, const ModelParams &P,
                          SegmentCarry *Carry = nullptr, bool EndsAtBarrier = false);

/// Predicts one launch.
Prediction predictLaunch(const LaunchProfile &L, const ModelParams &P = {});

} // namespace tandem::models
