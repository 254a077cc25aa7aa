//===- TraceProfile.h - Launch profiles from an iss instruction trace -*- C++ -*-===//
//
// The simt model's "iss-assisted" input: the iss runs the launch with its
// instruction trace (docs/Trace.md) switched on, and TraceProfiler, a
// raw_ostream, reads that trace as it is written (nothing is stored but one
// block's memory instructions) and turns it into a LaunchProfile
// (SimtModel.h): per block, per barrier segment, per warp, the cycles the
// warp asks of the datapath, the iterative unit and the LSU.
//
//   * Non-memory instructions cost 32/LANES datapath cycles each. The
//     dependency cycles are what the warp would wait on its own scoreboard
//     running alone (docs/RTL.md, "Scoreboard"): an instruction waits until
//     every register it names is ready, a result is ready
//     max(latency, 32/LANES + 1) cycles after issue (latencies from the
//     generated SimtSchedule.td tables). Independent instructions wait for
//     nothing; before 2026-12-01 every instruction was charged its whole
//     latency, which over-predicted warps that run alone (one long CSR row).
//   * Memory instructions are costed by LsuCostModel, which follows the
//     RTL's LSU state machine (docs/RTL.md, "Load/store unit"): address
//     generation, the protection check, one coalesced line per cycle, an L1
//     (set associative, round-robin replacement, invalidated per block,
//     write-through no-allocate for global stores, write-back for local
//     ones when the configuration says so) and the harness's DRAM channel model
//     (occupancy, latency, outstanding limit), or bank-conflict rounds for
//     shared memory, lane-serial atomics, shuffles. The iss runs a warp
//     until a barrier while the RTL interleaves warps, so a block's memory
//     instructions are replayed segment by segment before they meet the
//     L1: with rounds (CollectRounds), in the order roundsCycles issues
//     them under the configuration's scheduler policy; without (the
//     windows costing), round-robin across warps, a warp's back-to-back
//     memory instructions together, the order the windows were fitted on.
//   * Each warp's demands are kept per barrier segment, per window of
//     WindowInstructions and, when asked (CollectRounds), per round
//     (WarpStep: the compute up to and including each memory instruction)
//     for ModelParams::CostInRounds.
//
// Input invariants: the trace is in the iss's format. Guarantees: a line
// that does not parse is counted in malformedLines() and skipped, never a
// crash; launches() holds one profile per `# launch` line, complete once
// finish() is called.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "DeviceProfile.h"
#include "SimtModel.h"

#include "ISA.h"

#include "tandem/Config.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tandem::models {

/// The cycles the LSU spends on one warp memory instruction.
struct LsuCost {
  /// From issue to the cycle the LSU takes the next memory instruction.
  double Cycles = 0;
  /// From issue to the cycle after its write-back (its warp may issue
  /// again): Cycles, unless the load went on waiting in a slot
  /// (lsu.in_flight above 1).
  double DoneCycles = 0;
  double DramChannelCycles = 0;
};

/// Where a line request goes: the L1 (global or local memory; local stores
/// follow the configuration's local write policy) or the core's param and
/// const memory.
enum class LinePath { Global, Local, OnCore };

/// The RTL's load/store unit, instruction by instruction, with the L1 and
/// DRAM channel state carried from one to the next (see the file comment).
class LsuCostModel {
public:
  explicit LsuCostModel(const AcceleratorConfig &C);

  /// A block starts: the L1 is invalidated (the rtl starts a block only
  /// when no memory instruction is in flight).
  void startBlock();
  /// The LSU's clock: the cycle its front end is free for the next
  /// instruction (with lsu.in_flight 1, the cycle the last one left it idle).
  double now() const { return Now; }
  /// The LSU sat idle until cycle \p T (the next instruction issues
  /// then): requests in flight meanwhile have drained that much.
  void idleUntil(double T) { Now = std::max(Now, T); }
  /// A global/local/param/const load or store touching \p Lines (line
  /// addresses in coalescer order: by lowest lane); \p StoreBytes: distinct
  /// enabled bytes per line (stores).
  LsuCost lines(LinePath Path, bool Store, llvm::ArrayRef<uint32_t> Lines,
                llvm::ArrayRef<uint32_t> StoreBytes);
  /// A global atomic: its lanes' requests one a cycle in lane order, done
  /// when the last response is in; \p Addrs: the active lanes' addresses.
  LsuCost globalAtomic(llvm::ArrayRef<uint32_t> Addrs);
  /// Shared memory, shuffles, atomics on shared memory, empty exec masks:
  /// no memory system state, \p PathCycles after address generation.
  LsuCost local(double PathCycles, bool HasAddressStage);

  const MemoryEstimate &memory() const { return Mem; }

private:
  struct InFlight {
    unsigned Channel;
    double FreeAt;
  };
  /// The way of \p Line, or nullopt on a miss.
  std::optional<unsigned> lookup(uint32_t Line) const;
  /// The way a miss on \p Line takes next (round-robin).
  unsigned victim(uint32_t Line) const;
  /// The victim way of \p Line's set, the victim moved on.
  unsigned reserveWay(uint32_t Line);
  /// Puts \p Line in its set's victim way and moves the victim on.
  void fill(uint32_t Line, bool Dirty);
  /// A load miss's line, in the way it reserved when its request went out;
  /// written when the response is presented (PresentAt), if the way is
  /// still reserved for it (Reservation). Until then the way keeps its old
  /// line, which later lines still hit, as they do on the rtl (simt_lsu.sv
  /// writes l1_tag on the response).
  struct PendingFill {
    double PresentAt;
    unsigned Way;
    uint32_t Line;
    uint64_t Reservation;
  };
  /// Writes the pending fills whose response came before cycle \p T, in
  /// arrival order.
  void completeFills(double T);
  /// Reserves \p Line's set's victim way for its fill, presented at
  /// \p PresentAt. The line is not being filled already (a load of such a
  /// line merges onto that fill: a line is never in two ways).
  void reserveFill(uint32_t Line, double PresentAt);
  /// A write to \p Line: a fill of it in flight predates the write and
  /// must not be installed.
  void cancelFillOf(uint32_t Line);
  /// The way reserved for a fill of \p Line, if any (at most one: a line
  /// is never being filled into two ways).
  std::optional<unsigned> fillingWay(uint32_t Line) const;
  /// The first cycle from \p T in which the front end can send a request:
  /// no slot's response has the L1 and every channel has room.
  double sendCycle(double T);
  /// Drops what lies before the LSU's clock (nothing later asks about it).
  void forgetPast();
  void invalidate(uint32_t Line);
  /// The cycle the harness presents a response ready at \p Ready: one a
  /// cycle, the first free one (oldest ready first: the set of cycles
  /// taken does not depend on the order they are asked for in).
  double present(double Ready);
  /// The first cycle from \p T in which no slot's response is presented:
  /// in those the L1 takes the slot's fill and the front end's line work
  /// waits (simt_lsu.sv, slot_resp).
  double afterSlotResponses(double T) const;
  /// The cycle, from \p T, at which the front end, all of its requests
  /// sent and responses \p Presented still to come, leaves S_LINES: its
  /// write-back cycle (\p HandsOff false) or the cycle it hands the load
  /// to a slot (true). \p Cached: the load fills the L1 (a slot then
  /// installs its fills).
  /// \p Last: the last response the instruction waits for, its own or
  /// one of a fill its lanes merged onto.
  double leaveLines(double T, llvm::ArrayRef<double> Presented, double Last, bool &HandsOff);
  /// Slots busy in cycle \p T (handed a load before it, not yet written
  /// back at its start).
  unsigned busySlots(double T) const;
  /// The write-back cycle of a slot whose last response is presented at
  /// \p LastPresented: the first cycle after it that no other write-back
  /// has taken.
  double slotWriteBack(double LastPresented);
  /// The earliest cycle >= \p T at which every channel has room.
  double waitForRoom(double T);
  /// Sends one DRAM request of \p Bytes, registered by the LSU in cycle
  /// \p T; returns its ready cycle (the harness presents the response then
  /// and the LSU takes it at that cycle's edge; a write's slot frees then).
  double send(double T, uint32_t Line, unsigned Bytes, double &ChannelCycles);

  AcceleratorConfig Config;
  unsigned Cpw, Sets;
  std::vector<uint32_t> Tags; ///< Sets * Ways; ~0u invalid
  std::vector<bool> Dirty;    ///< Sets * Ways; local lines written only here
  std::vector<unsigned> Victim;
  std::vector<double> ChannelFree;
  std::vector<InFlight> Outstanding;
  /// Load misses in flight, and per way the reservation it holds (0: none).
  std::vector<PendingFill> Fills;
  struct WayFill {
    uint64_t Reservation = 0; ///< 0: the way is reserved for no fill
    uint32_t Line = 0;
    double PresentAt = 0; ///< the fill's response cycle
  };
  std::vector<WayFill> Reserved; ///< per way
  uint64_t NextReservation = 1;
  /// Cycles the harness presents a response in; those of slots' responses.
  std::set<double> PresentCycles, SlotPresentCycles;
  /// Cycles the write-back port is taken.
  std::set<double> WriteBackCycles;
  /// Loads waiting in slots: the cycles each is busy, [From, To].
  struct Slot {
    double From, To;
  };
  std::vector<Slot> Slots;
  double Now = 0;
  MemoryEstimate Mem;
};

/// Shared-memory rounds of one warp instruction: per sub-warp of LANES
/// lanes, the most distinct 4-byte words one bank must deliver (at least 1);
/// for an atomic (\p Atomic), the most lanes one bank must serve, as lanes
/// on one word go one a cycle.
unsigned sharedRounds(llvm::ArrayRef<uint32_t> LaneAddrs, uint32_t Mask, unsigned Lanes,
                      unsigned Banks, bool Atomic = false);

/// One warp instruction as the profiler needs it: what the iss trace line
/// says, or what the static estimator (StaticEstimate.h) walked.
struct WarpInstruction {
  uint32_t Block = 0, Warp = 0;
  uint32_t Mask = 0; ///< exec mask when it issued
  simt::Opcode Op = simt::Opcode::INVALID;
  /// The general registers the instruction names, assembly order, with
  /// whether each is written (scoreboard). r0 is left out by the reader.
  llvm::SmallVector<std::pair<uint8_t, bool>, 4> Regs;
  /// Memory instructions: the active lanes' addresses, in lane order.
  llvm::ArrayRef<uint32_t> LaneAddrs;
};

/// The registers \p I names, as WarpInstruction::Regs wants them.
llvm::SmallVector<std::pair<uint8_t, bool>, 4> namedRegisters(const simt::DecodedInst &I);

/// Reads an iss trace as it is written and builds one LaunchProfile per
/// launch (see the file comment).
class TraceProfiler : public llvm::raw_ostream {
public:
  /// \p Latencies: ALU and FPU dependent-chain times from a measured
  /// profile (DeviceProfile.h): every instruction of the unit becomes ready
  /// that much later (or sooner) than the generated tables say, the
  /// difference the probe's own chain shows; null: the tables.
  /// (The profile's DRAM latency comes in through \p C.) \p CollectRounds:
  /// also cut each warp into rounds (SegmentProfile::Steps), which only
  /// ModelParams::CostInRounds uses; off, Steps stay empty and the profile
  /// is otherwise the same. The default follows the model's default.
  explicit TraceProfiler(const AcceleratorConfig &C,
                         const ModelLatencies *Latencies = nullptr,
                         bool CollectRounds = ModelParams().CostInRounds);
  ~TraceProfiler() override;

  /// Completes the last launch; call after the last launch returns.
  void finish();
  std::vector<LaunchProfile> &launches() { return Launches; }
  uint64_t malformedLines() const { return Malformed; }

  /// Parses one trace line (no newline); exposed for tests.
  void consumeLine(llvm::StringRef Line);

  /// The structured way in (the static estimator): a launch of \p Kernel
  /// starts; then its instructions, a block's together, each warp's in
  /// program order.
  /// \p LocalBytes: the kernel's local memory per thread (spill slots and
  /// local arrays), which fixes where each warp's local lines fall in the
  /// L1 as on the rtl; 0 if unknown. \p LocalBase: the device address of
  /// the launch's local memory on the rtl (the iss trace's `local_base=`),
  /// which fixes the sets those lines share with global ones; 0 if unknown.
  void beginLaunch(llvm::StringRef Kernel, uint32_t LocalBytes = 0, uint32_t LocalBase = 0);
  void addInstruction(const WarpInstruction &I);

private:
  void write_impl(const char *Ptr, size_t Size) override;
  uint64_t current_pos() const override { return Pos; }

  struct MemRecord;
  struct WarpState;
  void startLaunch(llvm::StringRef Line);
  void finishBlock();
  LsuCost replayMemory(WarpState &W, size_t Segment, const MemRecord &R);
  /// Costs segment \p Segment's memory instructions round-robin across the
  /// block's warps, a warp's back-to-back ones together.
  void replayRoundRobin(size_t Segment);
  /// Costs them in the order roundsCycles issues them (needs rounds), with
  /// the default model constants and the configuration's scheduler (a
  /// `tandem report --fit` refits the costing, not this order), over the
  /// warps in \p Slots, the scheduler's last issuer and the datapath
  /// carried in \p Carry from the block's previous segment to the next
  /// (predictSegment does the same).
  void replayInIssueOrder(size_t Segment, llvm::ArrayRef<unsigned> Slots, bool EndsAtBarrier,
                          SegmentCarry &Carry);
  /// The warp slots that reach segment \p Segment, ascending
  /// (SegmentProfile::Slots).
  std::vector<unsigned> slotsIn(size_t Segment) const;
  void instruction(llvm::StringRef Line);

  AcceleratorConfig Config;
  /// The default model constants for Config: the replay's scheduler and
  /// block overhead.
  ModelParams Params;
  /// Cycles the profile's chain probes add to the tables' ready time of
  /// every ALU and FPU instruction: the measured chain time less what the
  /// tables give the probe's instruction (0 on the rtl, whose tables are
  /// right; 0 without a profile or where the probe spilled).
  double AluReadyShift = 0, FpuReadyShift = 0;
  bool CollectRounds;
  std::vector<LaunchProfile> Launches;
  std::string Partial;
  uint64_t Pos = 0, Malformed = 0;
  int64_t CurrentBlock = -1;
  /// Bytes between two warps' local areas (the rtl's local_warp_stride),
  /// 0 if the launch did not say.
  uint32_t LocalWarpStride = 0;
  /// Where the launch's local memory starts (0 if the launch did not say).
  uint32_t LocalBase = 0;
  std::vector<std::unique_ptr<WarpState>> Warps;
  std::unique_ptr<LsuCostModel> LsuModel;
};

} // namespace tandem::models
