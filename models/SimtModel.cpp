//===- SimtModel.cpp - Analytic cycle model of the rtl SIMT core ----------===//
//
// See SimtModel.h for what is modelled and why; docs/Report.md for how to
// read the numbers.
//
//===----------------------------------------------------------------------===//

#include "SimtModel.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/bit.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <numeric>

namespace tandem::models {

double WarpDemand::work() const {
  return std::accumulate(Service.begin(), Service.end(), 0.0) + DependencyCycles + IssueCycles;
}

ModelParams ModelParams::forConfig(const AcceleratorConfig &C) {
  ModelParams P;
  P.Scheduler = C.Scheduler;
  P.CoreWarps = C.WarpsPerCore;
  P.MemWait = C.MemWait;
  P.Cores = C.Cores;
  P.DramChannels = C.Dram.Channels;
  P.DramLatencyCycles = C.Dram.LatencyCycles;
  P.DramMaxOutstanding = C.Dram.MaxOutstanding;
  return P;
}

double Breakdown::total() const {
  return Compute + MemoryBandwidth + MemoryLatency + Synchronization + LoadImbalance + Launch;
}

Breakdown &Breakdown::operator+=(const Breakdown &O) {
  Compute += O.Compute;
  MemoryBandwidth += O.MemoryBandwidth;
  MemoryLatency += O.MemoryLatency;
  Synchronization += O.Synchronization;
  LoadImbalance += O.LoadImbalance;
  Launch += O.Launch;
  return *this;
}

std::string Breakdown::dominant() const {
  const std::pair<double, const char *> Parts[] = {
      {Compute, "compute"},
      {MemoryBandwidth, "memory bandwidth"},
      {MemoryLatency, "memory latency"},
      {Synchronization, "synchronization"},
      {LoadImbalance, "load imbalance"},
      {Launch, "launch"}};
  const auto *Best = std::max_element(std::begin(Parts), std::end(Parts),
                                      [](auto &A, auto &B) { return A.first < B.first; });
  return Best->second;
}

double mvaResponseTime(unsigned Customers, llvm::ArrayRef<double> Demand, double Delay) {
  std::vector<double> Queue(Demand.size(), 0.0), Residence(Demand.size(), 0.0);
  double Response = Delay + std::accumulate(Demand.begin(), Demand.end(), 0.0);
  for (unsigned N = 1; N <= Customers; ++N) {
    Response = Delay;
    for (size_t K = 0; K < Demand.size(); ++K) {
      Residence[K] = Demand[K] * (1.0 + Queue[K]);
      Response += Residence[K];
    }
    if (Response <= 0)
      return 0;
    double Throughput = N / Response;
    for (size_t K = 0; K < Demand.size(); ++K)
      Queue[K] = Throughput * Residence[K];
  }
  return Response;
}

double concurrentCycles(unsigned Customers, llvm::ArrayRef<double> Demand, double Delay,
                        double QueueingWeight) {
  if (Customers == 0)
    return 0;
  // Bottleneck bound: the busiest station serves every customer, or one
  // customer's own path (all stations plus its delay) if that is longer.
  double Path = Delay + std::accumulate(Demand.begin(), Demand.end(), 0.0);
  double Busiest = Demand.empty() ? 0 : *std::max_element(Demand.begin(), Demand.end());
  double Bound = std::max(Path, Customers * Busiest);
  double Mva = mvaResponseTime(Customers, Demand, Delay);
  return Bound + QueueingWeight * std::max(0.0, Mva - Bound);
}

namespace {

struct SegmentTotals {
  std::array<double, NumStations> Service{};
  double Delay = 0, Dram = 0, Work = 0;
};

double delayOf(const WarpDemand &W, const ModelParams &P) {
  return W.DependencyCycles * P.DependencyExposure + W.IssueCycles;
}

double workOf(const WarpDemand &W, const ModelParams &P) {
  return std::accumulate(W.Service.begin(), W.Service.end(), 0.0) + delayOf(W, P);
}

/// Splits \p Core cycles among compute, bandwidth and latency: the largest
/// demand is the bound and gets its whole demand (up to Core); the time
/// left is what the other parts failed to hide, shared in proportion.
void attribute(double Core, const SegmentTotals &T, Breakdown &B) {
  double Compute = T.Service[Datapath] + T.Service[IterativeUnit] + T.Delay;
  double Bandwidth = std::min(T.Dram, T.Service[Lsu]);
  double Latency = T.Service[Lsu] - Bandwidth;
  std::array<double, 3> Demand = {Compute, Bandwidth, Latency};
  std::array<double, 3> Part{};
  size_t Max = std::max_element(Demand.begin(), Demand.end()) - Demand.begin();
  Part[Max] = std::min(Core, Demand[Max]);
  double Rest = Core - Part[Max];
  double Others = 0;
  for (size_t I = 0; I < 3; ++I)
    if (I != Max)
      Others += Demand[I];
  for (size_t I = 0; I < 3; ++I)
    if (I != Max)
      Part[I] = Others > 0 ? Rest * Demand[I] / Others : 0;
  if (Others <= 0)
    Part[Max] += Rest;
  B.Compute += Part[0];
  B.MemoryBandwidth += Part[1];
  B.MemoryLatency += Part[2];
}

} // namespace

namespace {

/// The totals of \p Warps and each warp's work.
SegmentTotals totalsOf(llvm::ArrayRef<WarpDemand> Warps, const ModelParams &P,
                       std::vector<double> &Works) {
  SegmentTotals T;
  Works.clear();
  for (const WarpDemand &W : Warps) {
    for (unsigned K = 0; K < NumStations; ++K)
      T.Service[K] += W.Service[K];
    T.Delay += delayOf(W, P);
    T.Dram += W.DramChannelCycles;
    Works.push_back(workOf(W, P));
  }
  T.Work = std::accumulate(Works.begin(), Works.end(), 0.0);
  return T;
}

/// Cycles for one unit of work per warp with \p Customers warps, every warp
/// having the mix of \p T.
double cyclesPerWork(const SegmentTotals &T, unsigned Customers, const ModelParams &P) {
  std::array<double, NumStations> UnitDemand;
  for (unsigned K = 0; K < NumStations; ++K)
    UnitDemand[K] = T.Service[K] / T.Work;
  return concurrentCycles(Customers, UnitDemand, T.Delay / T.Work, P.QueueingWeight);
}

/// The block as if its warps all had the mean work.
double balancedCycles(const SegmentTotals &T, size_t Warps, const ModelParams &P) {
  if (T.Work <= 0 || Warps == 0)
    return 0;
  return (T.Work / Warps) * cyclesPerWork(T, unsigned(Warps), P);
}

/// Warps finish one by one: all run until the lightest is done, then one
/// fewer, and so on.
double phasedCycles(const SegmentTotals &T, std::vector<double> Works, const ModelParams &P) {
  if (T.Work <= 0)
    return 0;
  std::sort(Works.begin(), Works.end());
  double Phased = 0, Done = 0;
  unsigned N = unsigned(Works.size());
  for (unsigned I = 0; I < N; ++I) {
    double Step = Works[I] - Done;
    if (Step > 0)
      Phased += Step * cyclesPerWork(T, N - I, P);
    Done = Works[I];
  }
  return Phased;
}

} // namespace

namespace {

/// A warp walking its rounds in roundsCycles, one issue at a time.
struct RoundWalker {
  llvm::ArrayRef<WarpStep> Steps;
  size_t Next = 0;             ///< the step being run
  unsigned DatapathLeft = 0;   ///< its datapath instructions not issued yet
  double SlotCycles = 0;       ///< datapath cycles each of them holds
  size_t Issued = 0;           ///< issues of the step done so far
  double EvenStall = 0;        ///< without Stalls: the stall before each issue
  double ReadyAt = 0;          ///< earliest cycle of the warp's next issue
  bool IterativePending = false; ///< the step's iterative work not issued yet
  bool Done = false;
  /// With a scoreboard (WarpStep::Issues): when each register is readable.
  std::array<double, 64> RegReady{};
  /// Under MemoryWait::Register: when each register a load in flight
  /// writes is readable (0: none pending), to hand to the next segment.
  std::array<double, 64> LoadReady{};

  const WarpStep &step() const { return Steps[Next]; }
  /// The next issue is the step's memory instruction.
  bool atMemory() const { return !Done && DatapathLeft == 0 && step().HasMemory; }
  /// The next issue's scoreboard entry, when the step has them.
  const WarpStep::Issue *issue() const {
    const WarpStep &S = step();
    return Issued < S.Issues.size() ? &S.Issues[Issued] : nullptr;
  }
  /// The next issue holds the iterative unit.
  bool needsIterative() const {
    const WarpStep::Issue *I = issue();
    return I ? I->Iterative > 0 : IterativePending;
  }

  /// The earliest cycle the next issue may go, the warp being free to issue
  /// from \p Base on: its registers' ready cycles (scoreboard), else its
  /// stall where the profile put it, else the step's even share.
  double readyFrom(double Base, const ModelParams &P) const {
    if (const WarpStep::Issue *I = issue()) {
      double At = Base;
      for (uint64_t Regs = I->Regs; Regs; Regs &= Regs - 1)
        At = std::max(At, RegReady[llvm::countr_zero(Regs)]);
      return At;
    }
    const WarpStep &S = step();
    return Base + (Issued < S.Stalls.size() ? S.Stalls[Issued] * P.DependencyExposure
                                             : EvenStall);
  }

  /// Starts step Next at cycle \p Now, skipping empty steps (or finishes).
  void start(double Now, const ModelParams &P) {
    for (; Next < Steps.size(); ++Next) {
      const WarpStep &S = step();
      DatapathLeft = S.Instructions ? S.Instructions : (S.Datapath > 0 ? 1 : 0);
      SlotCycles = DatapathLeft ? S.Datapath / DatapathLeft : 0;
      unsigned Issues = DatapathLeft + (S.HasMemory ? 1 : 0);
      if (Issues == 0)
        continue;
      Issued = 0;
      EvenStall = S.Stalls.empty() ? S.Dependency * P.DependencyExposure / Issues : 0;
      IterativePending = S.Iterative > 0;
      ReadyAt = readyFrom(Now, P);
      return;
    }
    Done = true;
  }
};

} // namespace

size_t initialLastIssued(llvm::ArrayRef<unsigned> Slots, size_t N,
                         std::optional<unsigned> LastSlot, const ModelParams &P) {
  if (N == 0)
    return 0;
  const unsigned Last = LastSlot.value_or(P.CoreWarps - 1);
  auto slotOf = [&](size_t I) { return Slots.empty() ? unsigned(I) : Slots[I]; };
  if (P.Scheduler == WarpScheduler::GreedyThenOldest) {
    for (size_t I = 0; I < N; ++I)
      if (slotOf(I) == Last)
        return I;
    return N;
  }
  // Round-robin scans from the slot after Last: the segment's first warp
  // after the greatest slot not above Last (the scan wraps: the last warp).
  size_t Pos = N - 1;
  for (size_t I = 0; I < N; ++I)
    if (slotOf(I) <= Last)
      Pos = I;
  return Pos;
}

WalkStart SegmentCarry::walkStart(llvm::ArrayRef<unsigned> Slots, size_t N,
                                  const ModelParams &P) const {
  WalkStart S{initialLastIssued(Slots, N, LastSlot, P), DatapathBusy, LsuBusy, {}};
  if (!PendingLoads.empty()) {
    S.PendingLoads.resize(N);
    for (size_t I = 0; I < N; ++I) {
      unsigned Slot = Slots.empty() ? unsigned(I) : Slots[I];
      for (const PendingLoad &L : PendingLoads)
        if (L.Slot == Slot)
          S.PendingLoads[I].push_back({L.Reg, L.ReadyAfter});
    }
  }
  return S;
}

void SegmentCarry::advance(const RoundsResult &Walk, const SegmentEnd &End,
                           llvm::ArrayRef<unsigned> Slots) {
  if (Walk.LastIssued < Walk.WarpEnd.size())
    LastSlot = Slots.empty() ? unsigned(Walk.LastIssued) : Slots[Walk.LastIssued];
  DatapathBusy = End.DatapathBusy;
  LsuBusy = std::max(0.0, Walk.LsuFree - End.Cycles);
  PendingLoads.clear();
  for (size_t I = 0; I < Walk.PendingLoads.size(); ++I)
    for (auto [Reg, ReadyAt] : Walk.PendingLoads[I])
      if (ReadyAt > End.Cycles)
        PendingLoads.push_back({Slots.empty() ? unsigned(I) : Slots[I], Reg, ReadyAt - End.Cycles});
}

SegmentEnd segmentEnd(const RoundsResult &Walk, bool AtBarrier) {
  if (!AtBarrier || !Walk.LastIssueWasDatapath)
    return {Walk.Cycles, 0};
  double Release = Walk.LastIssueAt + 2;
  // The datapath's end, not the walk's: under MemoryWait::Register the LSU
  // may still be busy (SegmentCarry::LsuBusy carries that).
  return {Release, std::max(0.0, Walk.DatapathEnd - Release)};
}

RoundsResult roundsCycles(llvm::ArrayRef<std::vector<WarpStep>> Warps, const ModelParams &P,
                          MemoryIssueCoster CostAtIssue, WalkStart Start) {
  RoundsResult Out;
  const size_t N = Warps.size();
  if (N == 0)
    return Out;
  std::vector<RoundWalker> W(N);
  Out.WarpEnd.assign(N, 0.0);
  for (size_t I = 0; I < N; ++I) {
    W[I].Steps = Warps[I];
    if (I < Start.PendingLoads.size())
      for (auto [Reg, ReadyAt] : Start.PendingLoads[I])
        W[I].RegReady[Reg] = W[I].LoadReady[Reg] = ReadyAt;
    W[I].start(0, P);
  }
  const bool Gto = P.Scheduler == WarpScheduler::GreedyThenOldest;
  const bool WaitForRegister = P.MemWait == MemoryWait::Register;
  double Now = 0, DatapathFree = Start.DatapathFree, IterativeFree = 0, LsuFree = Start.LsuFree;
  double LsuDone = LsuFree;
  // N: no warp (gto then takes the oldest ready one).
  size_t LastIssued = Start.LastIssued ? *Start.LastIssued : initialLastIssued({}, N, {}, P);
  // The earliest cycle warp I could issue its next instruction.
  auto earliestIssue = [&](size_t I) {
    const RoundWalker &R = W[I];
    double At = R.ReadyAt;
    if (R.atMemory())
      return std::max(At, LsuFree);
    At = std::max(At, DatapathFree);
    return R.needsIterative() ? std::max(At, IterativeFree) : At;
  };
  for (;;) {
    std::optional<size_t> Pick;
    double Earliest = HUGE_VAL;
    auto tryPick = [&](size_t I) {
      if (Pick || W[I].Done)
        return;
      double At = earliestIssue(I);
      if (At <= Now)
        Pick = I;
      Earliest = std::min(Earliest, At);
    };
    if (Gto) {
      if (LastIssued < N)
        tryPick(LastIssued);
      for (size_t I = 0; I < N; ++I) // the oldest: all warps start together
        tryPick(I);
    } else {
      for (size_t K = 1; K <= N; ++K)
        tryPick((LastIssued + K) % N);
    }
    if (!Pick) {
      if (Earliest == HUGE_VAL)
        break; // every warp is done
      Now = Earliest;
      continue;
    }
    RoundWalker &R = W[*Pick];
    const WarpStep &S = R.step();
    LastIssued = *Pick;
    Out.LastIssueAt = Now;
    Out.LastIssueWasDatapath = !R.atMemory();
    if (R.atMemory()) {
      // The LSU cost runs to the cycle its warp may issue again (LsuCostModel:
      // a one-line miss issues again 113 cycles later), which is also when
      // the LSU takes the next instruction, from whichever warp the
      // scheduler picks: on the rtl's timelines a warp with a second load
      // ready loses the LSU to the next warp in the ring unless another
      // issue has moved the pointer past it.
      MemoryIssueCost Cost = CostAtIssue ? CostAtIssue(*Pick, R.Next, Now)
                                         : MemoryIssueCost(S.Lsu, std::max(S.Lsu, S.LsuDone));
      double DoneAt = Now + Cost.DoneCycles;
      LsuFree = Now + Cost.LsuCycles;
      LsuDone = std::max(LsuDone, DoneAt);
      Out.WarpEnd[*Pick] = std::max(Out.WarpEnd[*Pick], DoneAt);
      const WarpStep::Issue *Mem = R.issue();
      ++R.Next;
      if (WaitForRegister && Mem) {
        // The scoreboard holds only what the LSU will write; the warp's
        // next instruction may issue the next cycle (simt_core.sv).
        if (Mem->Def)
          R.RegReady[Mem->Def] = R.LoadReady[Mem->Def] = DoneAt;
        R.start(Now + 1, P);
      } else {
        R.start(DoneAt, P);
      }
    } else {
      double DoneAt = Now + R.SlotCycles;
      DatapathFree = DoneAt;
      // The rtl's busy counter is loaded at the issue's edge and the unit
      // takes the next instruction when it reads 0: one cycle after the
      // occupancy (before 2026-12-02 the model let it go a cycle early).
      if (const WarpStep::Issue *I = R.issue()) {
        if (I->Iterative > 0)
          IterativeFree = Now + I->Iterative + 1;
        if (I->Def) {
          R.RegReady[I->Def] = Now + I->Latency;
          R.LoadReady[I->Def] = 0;
        }
      } else if (R.IterativePending) {
        IterativeFree = Now + S.Iterative + 1;
        R.IterativePending = false;
      }
      Out.WarpEnd[*Pick] = std::max(Out.WarpEnd[*Pick], DoneAt);
      // The warp's memory instruction may issue the next cycle (the LSU is
      // not the datapath; TraceProfiler measures its stall from there),
      // another datapath instruction once this one has streamed.
      bool MemoryNext = R.DatapathLeft == 1 && S.HasMemory && S.Instructions > 0;
      ++R.Issued;
      R.ReadyAt = R.readyFrom(MemoryNext ? Now + 1 : DoneAt, P);
      if (--R.DatapathLeft == 0 && !S.HasMemory) {
        ++R.Next;
        R.start(DoneAt, P);
      }
    }
    Now += 1; // one issue a cycle
  }
  Out.Cycles = *std::max_element(Out.WarpEnd.begin(), Out.WarpEnd.end());
  if (WaitForRegister && LsuDone > DatapathFree) {
    // The walk ends with a memory instruction still in the LSU (a warp's
    // last store, its exit already gone). The rtl's block is done when
    // nothing is in flight: the LSU in the cycle it is idle again (LsuFree,
    // which counts the cycle its warp would issue again), the datapath a
    // cycle after it could take the next instruction; BlockOverheadCycles
    // holds that cycle for a datapath end, so an LSU end is one less.
    Out.Cycles = std::max(DatapathFree, LsuDone - 1);
  }
  Out.LastIssued = LastIssued;
  Out.DatapathEnd = DatapathFree;
  Out.LsuFree = LsuFree;
  Out.LsuDone = LsuDone;
  if (WaitForRegister) {
    Out.PendingLoads.resize(N);
    for (size_t I = 0; I < N; ++I)
      for (unsigned Reg = 0; Reg < W[I].LoadReady.size(); ++Reg)
        if (W[I].LoadReady[Reg] > 0)
          Out.PendingLoads[I].push_back({uint8_t(Reg), W[I].LoadReady[Reg]});
  }
  return Out;
}

namespace {

/// The segment's totals from its rounds.
SegmentTotals totalsOf(llvm::ArrayRef<std::vector<WarpStep>> Warps, const ModelParams &P) {
  SegmentTotals T;
  for (const std::vector<WarpStep> &Steps : Warps)
    for (const WarpStep &S : Steps) {
      T.Service[Datapath] += S.Datapath;
      T.Service[IterativeUnit] += S.Iterative;
      T.Service[Lsu] += S.Lsu;
      T.Delay += S.Dependency * P.DependencyExposure;
      T.Dram += S.Dram;
    }
  T.Work = T.Service[Datapath] + T.Service[IterativeUnit] + T.Service[Lsu] + T.Delay;
  return T;
}

/// The mean warp of \p Warps, round by round (a warp with fewer rounds
/// counts as empty ones): the block as if its warps were balanced.
std::vector<WarpStep> meanRounds(llvm::ArrayRef<std::vector<WarpStep>> Warps) {
  std::vector<WarpStep> Mean;
  for (const std::vector<WarpStep> &Steps : Warps)
    if (Mean.size() < Steps.size())
      Mean.resize(Steps.size());
  double N = double(Warps.size());
  std::vector<double> MeanInstructions(Mean.size(), 0.0);
  for (const std::vector<WarpStep> &Steps : Warps)
    for (size_t K = 0; K < Steps.size(); ++K) {
      Mean[K].Datapath += Steps[K].Datapath / N;
      MeanInstructions[K] += Steps[K].Instructions / N;
      Mean[K].Iterative += Steps[K].Iterative / N;
      Mean[K].Dependency += Steps[K].Dependency / N;
      Mean[K].Lsu += Steps[K].Lsu / N;
      Mean[K].LsuDone += std::max(Steps[K].Lsu, Steps[K].LsuDone) / N;
      Mean[K].Dram += Steps[K].Dram / N;
      Mean[K].HasMemory |= Steps[K].HasMemory;
    }
  for (size_t K = 0; K < Mean.size(); ++K)
    Mean[K].Instructions = unsigned(std::lround(MeanInstructions[K]));
  return Mean;
}

/// Charges \p Excess, what unequal warps cost beyond the balanced block, to
/// the part users look for it under: before a barrier the early warps wait
/// there for the slowest (synchronization: Nsight's "stall barrier"); at
/// the block's end they have exited and the core idles (load imbalance).
void chargeUnequalWarps(double Excess, bool EndsAtBarrier, Breakdown &Parts) {
  (EndsAtBarrier ? Parts.Synchronization : Parts.LoadImbalance) += Excess;
}

} // namespace

Prediction predictSegment(const SegmentProfile &S, const ModelParams &P, SegmentCarry *Carry,
                          bool EndsAtBarrier) {
  if (P.CostInRounds && !S.Steps.empty()) {
    // The load imbalance is what the rounds cost beyond the same block with
    // every warp the mean warp (identical warps: none), both walks started
    // where the scheduler and the datapath stand.
    Prediction Out;
    const size_t N = S.Steps.size();
    WalkStart Start = (Carry ? *Carry : SegmentCarry()).walkStart(S.Slots, N, P);
    RoundsResult Walk = roundsCycles(S.Steps, P, nullptr, Start);
    SegmentEnd End = segmentEnd(Walk, EndsAtBarrier);
    double Cycles = End.Cycles;
    if (Carry)
      Carry->advance(Walk, End, S.Slots);
    std::vector<std::vector<WarpStep>> Balanced(N, meanRounds(S.Steps));
    double BalancedCycles =
        segmentEnd(roundsCycles(Balanced, P, nullptr, Start), EndsAtBarrier).Cycles;
    double Imbalance = std::max(0.0, Cycles - BalancedCycles);
    attribute(Cycles - Imbalance, totalsOf(S.Steps, P), Out.Parts);
    chargeUnequalWarps(Imbalance, EndsAtBarrier, Out.Parts);
    Out.Cycles = Cycles;
    Out.Bound = Out.Parts.dominant();
    return Out;
  }
  Prediction Out;
  std::vector<double> Works;
  SegmentTotals T = totalsOf(S.Warps, P, Works);
  if (T.Work <= 0)
    return Out;
  double Balanced = balancedCycles(T, S.Warps.size(), P);
  double Imbalance = std::max(0.0, phasedCycles(T, Works, P) - Balanced);
  double Core = 0;
  if (S.Windows.size() > 1) {
    // Each window with its own mix and its own warps: a window late in the
    // segment holds only the warps that got that far, so the windows
    // already walk the tail where the longest warps run alone. What they
    // miss is the imbalance inside a window (warps whose 32 instructions
    // cost different times: a miss against a hit), so the load imbalance
    // is the phase walk within each window, not over the segment on top of
    // the windows (before 2026-12-01: thread-per-row SpMV on a matrix with
    // one long row had its tail charged twice and came out ~40% over).
    Imbalance = 0;
    for (const std::vector<WarpDemand> &Win : S.Windows) {
      std::vector<double> WinWorks;
      SegmentTotals WT = totalsOf(Win, P, WinWorks);
      double C = balancedCycles(WT, Win.size(), P);
      attribute(C, WT, Out.Parts);
      Core += C;
      Imbalance += std::max(0.0, phasedCycles(WT, WinWorks, P) - C);
    }
  } else {
    Core = Balanced;
    attribute(Core, T, Out.Parts);
  }
  chargeUnequalWarps(Imbalance, EndsAtBarrier, Out.Parts);
  Out.Cycles = Core + Imbalance;
  Out.Bound = Out.Parts.dominant();
  return Out;
}

double sharedDramCycles(double Work, double ChannelCycles, double SlotCycles, unsigned Cores,
                        const ModelParams &P) {
  double Channels = std::max(1u, P.DramChannels);
  double Occupancy = ChannelCycles / Channels;
  if (Cores <= 1)
    return std::max(Work, Occupancy);
  // The harness grants as many cores a request as the channels have free
  // slots (RtlSim.cpp, grantRequests), so all max_outstanding are shared:
  // one station serving slot-cycles at Slots x Channels a cycle.
  double Slots = std::max(1u, P.DramMaxOutstanding) * Channels;
  double Demand = std::min(Work, SlotCycles / Slots);
  double N = Cores;
  double Shared = mvaResponseTime(Cores, {Demand / N}, (Work - Demand) / N);
  return std::max(Shared, Occupancy);
}

Prediction predictLaunch(const LaunchProfile &L, const ModelParams &P) {
  // The rtl hands blocks out in order, each to the core that is free first
  // (the lowest-numbered on a tie; every core starts at the launch). A core
  // runs its blocks back to back, as the one core does.
  unsigned NumCores = std::max(1u, P.Cores);
  std::vector<Breakdown> CoreParts(NumCores);
  std::vector<double> CoreFree(NumCores, 0.0);
  double DramChannelCycles = 0;
  for (const BlockProfile &B : L.Blocks) {
    Breakdown Block;
    SegmentCarry Carry; // the scheduler resets at each block
    for (size_t K = 0; K < B.Segments.size(); ++K) {
      Prediction Seg = predictSegment(B.Segments[K], P, &Carry, K + 1 < B.Segments.size());
      Block += Seg.Parts;
      for (const WarpDemand &W : B.Segments[K].Warps)
        DramChannelCycles += W.DramChannelCycles;
    }
    Block.Synchronization += B.Barriers * P.BarrierCycles;
    Block.Launch += P.BlockOverheadCycles;
    unsigned Core = unsigned(std::min_element(CoreFree.begin(), CoreFree.end()) - CoreFree.begin());
    CoreFree[Core] += Block.total();
    CoreParts[Core] += Block;
  }
  // The launch ends with its busiest core; its blocks are the breakdown.
  unsigned Last = unsigned(std::max_element(CoreFree.begin(), CoreFree.end()) - CoreFree.begin());
  Prediction Out;
  Out.Parts = CoreParts[Last];
  // Each block was costed with the DRAM to itself; several cores share it
  // (the excess over the busiest core is memory bandwidth).
  if (NumCores > 1) {
    // A request holds its slot its occupancy and the latency, at least.
    double SlotCycles = double(L.Memory.DramRequests) * P.DramLatencyCycles + DramChannelCycles;
    double Work = std::accumulate(CoreFree.begin(), CoreFree.end(), 0.0);
    unsigned Busy = unsigned(std::min<size_t>(NumCores, L.Blocks.size()));
    Out.Parts.MemoryBandwidth += std::max(
        0.0, sharedDramCycles(Work, DramChannelCycles, SlotCycles, Busy, P) - CoreFree[Last]);
  }
  Out.Parts.Launch += P.LaunchOverheadCycles;
  Out.Cycles = Out.Parts.total();
  Out.Bound = Out.Parts.dominant();
  return Out;
}

} // namespace tandem::models
