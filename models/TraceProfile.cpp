//===- TraceProfile.cpp - Launch profiles from an iss instruction trace ---===//
//
// See TraceProfile.h. Cycle counts below follow simt_lsu.sv's states:
// the issue cycle, 32/LANES cycles of address generation (S_AGU), one cycle
// of protection check (S_CHECK), the space's path, one write-back cycle
// (S_WB). An instruction's cost runs from its issue cycle to the cycle the
// LSU can take the next one.
//
// Times of memory requests (checked against the rtl's --timeline, vadd,
// latency 100, 8 lanes): the LSU registers a request in cycle T (the first
// is T = issue + 6), the harness accepts it in cycle T + 1
// (RequestPathCycles), starts it when its channel is free and makes it
// ready Occupy + Latency cycles later; in the ready cycle it presents the
// response (one a cycle, oldest first) and frees the request's slot, and
// the LSU takes the response at that cycle's edge. So "ready" below is the
// harness's ReadyAt: a one-line miss costs 6 + 1 + 4 + 100 + 1 (write-back)
// + 1 = 113 cycles issue to issue, a two-line miss 117 (the second line
// waits for the channel), as the rtl's timeline shows.
//
// With lsu.in_flight above 1 a load whose requests are all out moves to a
// slot when one is free and no response takes that cycle (leaveLines), and
// the LSU takes the next instruction the cycle after; the slot writes back
// the cycle after its last response unless another write-back has that
// cycle (slotWriteBack), and each of its responses takes the L1 for its
// cycle, holding up the front end's line work (afterSlotResponses). Where
// the model is not the rtl: it costs an instruction once, when it issues,
// so a later front-end write-back that takes a slot's write-back cycle on
// the rtl (the front end's goes first) is not seen, and responses are
// given presentation cycles in the order they are asked for, which is the
// rtl's oldest-ready-first order only while ready times grow with it.
//
//===----------------------------------------------------------------------===//

#include "TraceProfile.h"

#include "ISA.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

#include <algorithm>
#include <array>
#include <bitset>
#include <cassert>
#include <cmath>
#include <deque>
#include <optional>

using namespace llvm;

namespace tandem::models {

/// Cycles from the LSU registering a memory request to the harness
/// accepting it (the harness reads the core's outputs after each edge).
constexpr double RequestPathCycles = 1;
/// Cycles from the harness accepting a param/const request to its response
/// (RtlSim.cpp, acceptRequest: on-core constant memory).
constexpr double OnCoreCycles = 2;
/// Cycles the harness spends starting a block (RtlSim.cpp, runBlock: the
/// edge that raises `start`) that the rtl's `cycles` counter does not count
/// (no warp is running yet) but the DRAM model does: the previous block's
/// requests still in flight drain one cycle more than the counted gap.
constexpr double BlockStartCycles = 1;

//===--- LsuCostModel -------------------------------------------------------===//

LsuCostModel::LsuCostModel(const AcceleratorConfig &C)
    : Config(C), Cpw(C.cyclesPerWarpInstr()),
      Sets(std::max(1u, C.L1.SizeBytes / (C.L1.LineBytes * C.L1.Ways))),
      Tags(size_t(Sets) * C.L1.Ways, ~0u), Dirty(Tags.size(), false), Victim(Sets, 0),
      ChannelFree(std::max(1u, C.Dram.Channels), 0.0), Reserved(Tags.size()) {}

void LsuCostModel::startBlock() {
  std::fill(Tags.begin(), Tags.end(), ~0u);
  // Dirty local lines are dropped, not written: local memory dies with its
  // block (the rtl zeroes it for the next).
  std::fill(Dirty.begin(), Dirty.end(), false);
  std::fill(Victim.begin(), Victim.end(), 0u);
  Fills.clear();
  std::fill(Reserved.begin(), Reserved.end(), WayFill());
}

std::optional<unsigned> LsuCostModel::lookup(uint32_t Line) const {
  unsigned Set = (Line / Config.L1.LineBytes) % Sets;
  for (unsigned W = 0; W < Config.L1.Ways; ++W)
    if (Tags[Set * Config.L1.Ways + W] == Line)
      return Set * Config.L1.Ways + W;
  return std::nullopt;
}

unsigned LsuCostModel::victim(uint32_t Line) const {
  unsigned Set = (Line / Config.L1.LineBytes) % Sets;
  return Set * Config.L1.Ways + Victim[Set];
}

unsigned LsuCostModel::reserveWay(uint32_t Line) {
  unsigned Set = (Line / Config.L1.LineBytes) % Sets;
  unsigned Way = Set * Config.L1.Ways + Victim[Set];
  Victim[Set] = (Victim[Set] + 1) % Config.L1.Ways;
  return Way;
}

void LsuCostModel::fill(uint32_t Line, bool MakeDirty) {
  unsigned Way = reserveWay(Line);
  Tags[Way] = Line;
  Dirty[Way] = MakeDirty;
}

void LsuCostModel::completeFills(double T) {
  if (Fills.empty()) // every line of a hit or a store: nothing in flight
    return;
  std::stable_sort(Fills.begin(), Fills.end(), [](const PendingFill &A, const PendingFill &B) {
    return A.PresentAt < B.PresentAt;
  });
  size_t Done = 0;
  // The L1 is written at the edge of the response's cycle: a check in a
  // later cycle sees the new line.
  for (; Done < Fills.size() && Fills[Done].PresentAt < T; ++Done) {
    const PendingFill &F = Fills[Done];
    if (Reserved[F.Way].Reservation != F.Reservation)
      continue; // cancelled, or the way was reserved again since
    Tags[F.Way] = F.Line;
    Dirty[F.Way] = false;
    Reserved[F.Way].Reservation = 0;
  }
  Fills.erase(Fills.begin(), Fills.begin() + Done);
}

std::optional<unsigned> LsuCostModel::fillingWay(uint32_t Line) const {
  unsigned Set = (Line / Config.L1.LineBytes) % Sets;
  for (unsigned W = 0; W < Config.L1.Ways; ++W) {
    unsigned Way = Set * Config.L1.Ways + W;
    if (Reserved[Way].Reservation && Reserved[Way].Line == Line)
      return Way;
  }
  return std::nullopt;
}

void LsuCostModel::reserveFill(uint32_t Line, double PresentAt) {
  assert(!fillingWay(Line) && "a load of a line being filled merges onto it");
  unsigned Way = reserveWay(Line);
  Reserved[Way] = {NextReservation++, Line, PresentAt};
  Fills.push_back({PresentAt, Way, Line, Reserved[Way].Reservation});
}

void LsuCostModel::cancelFillOf(uint32_t Line) {
  if (std::optional<unsigned> Way = fillingWay(Line))
    Reserved[*Way].Reservation = 0;
}

double LsuCostModel::present(double Ready) {
  double C = Ready;
  while (PresentCycles.count(C))
    C += 1;
  PresentCycles.insert(C);
  return C;
}

double LsuCostModel::afterSlotResponses(double T) const {
  while (SlotPresentCycles.count(T))
    T += 1;
  return T;
}

unsigned LsuCostModel::busySlots(double T) const {
  unsigned N = 0;
  for (const Slot &S : Slots)
    N += S.From <= T && T <= S.To;
  return N;
}

double LsuCostModel::slotWriteBack(double LastPresented) {
  double W = LastPresented + 1;
  while (WriteBackCycles.count(W))
    W += 1;
  WriteBackCycles.insert(W);
  return W;
}

double LsuCostModel::leaveLines(double T, ArrayRef<double> Presented, double Last, bool &HandsOff) {
  HandsOff = false;
  for (double C = T;; C += 1) {
    if (SlotPresentCycles.count(C))
      continue; // the slot's response has the L1: the front end waits
    if (Last <= C)
      return C + 1; // the last response is in: write-back next cycle
    if (!llvm::is_contained(Presented, C) && busySlots(C) + 1 < Config.Lsu.InFlight) {
      HandsOff = true;
      return C;
    }
  }
}

void LsuCostModel::invalidate(uint32_t Line) {
  unsigned Set = (Line / Config.L1.LineBytes) % Sets;
  for (unsigned W = 0; W < Config.L1.Ways; ++W)
    if (Tags[Set * Config.L1.Ways + W] == Line) {
      Tags[Set * Config.L1.Ways + W] = ~0u;
      Dirty[Set * Config.L1.Ways + W] = false;
    }
}

double LsuCostModel::waitForRoom(double T) {
  for (;;) {
    llvm::erase_if(Outstanding, [&](const InFlight &F) { return F.FreeAt <= T; });
    std::vector<unsigned> PerChannel(ChannelFree.size(), 0);
    for (const InFlight &F : Outstanding)
      ++PerChannel[F.Channel];
    if (*std::max_element(PerChannel.begin(), PerChannel.end()) < Config.Dram.MaxOutstanding)
      return T;
    double Earliest = Outstanding.front().FreeAt;
    for (const InFlight &F : Outstanding)
      Earliest = std::min(Earliest, F.FreeAt);
    T = std::ceil(Earliest);
  }
}

double LsuCostModel::send(double T, uint32_t Line, unsigned Bytes, double &ChannelCycles) {
  const DramConfig &D = Config.Dram;
  unsigned Channel = (Line / Config.L1.LineBytes) % ChannelFree.size();
  double Occupy = std::ceil(double(Bytes) / D.BytesPerCycle);
  double Begin = std::max(T + RequestPathCycles, ChannelFree[Channel]);
  ChannelFree[Channel] = Begin + Occupy;
  ChannelCycles += Occupy;
  double Ready = Begin + Occupy + D.LatencyCycles;
  // The harness frees the slot in the ready cycle (a read's when it
  // presents the response, which is then, unless responses queue) and
  // raises mem_req_ready in the same cycle: a request registered in that
  // cycle goes. So a slot is free for T >= Ready (waitForRoom).
  Outstanding.push_back({Channel, Ready});
  ++Mem.DramRequests;
  return Ready;
}

LsuCost LsuCostModel::lines(LinePath Path, bool Store, ArrayRef<uint32_t> Lines,
                            ArrayRef<uint32_t> StoreBytes) {
  LsuCost Cost;
  forgetPast();
  double T = Now + 1 + Cpw + 1; // issue, address generation, check
  std::vector<double> Presented; // this instruction's responses
  double Last = -1;              // ... and the last it waits for, merged fills' included
  bool Cached = Path != LinePath::OnCore;
  bool WriteBack = Path == LinePath::Local && Config.L1.LocalWrites == LocalWritePolicy::WriteBack;
  for (size_t I = 0; I < Lines.size(); ++I) {
    uint32_t Line = Lines[I];
    uint32_t Bytes = I < StoreBytes.size() ? StoreBytes[I] : 0;
    T = afterSlotResponses(T);
    completeFills(T);
    std::optional<unsigned> Hit = Cached ? lookup(Line) : std::nullopt;
    if (Hit && (!Store || WriteBack)) {
      // A load hit, or a write-back store hit (the line becomes dirty, so
      // a fill reserved for its way must not replace it).
      if (Store) {
        Dirty[*Hit] = true;
        Reserved[*Hit].Reservation = 0;
      } else {
        ++Mem.L1Hits;
      }
      T += 1;
      continue;
    }
    if (Path == LinePath::OnCore) {
      // param/const: the harness answers two cycles later, but the request
      // goes out only while every DRAM channel has room, like any other
      // (mem_req_ready; before 2026-12-02 the model let it through, and a
      // block's parameter loads behind the last block's stores came out
      // 150 cycles early at a 300-cycle DRAM latency).
      T = sendCycle(T);
      Presented.push_back(present(T + RequestPathCycles + OnCoreCycles));
      T += 1;
      continue;
    }
    if (std::optional<unsigned> Way = Store ? std::nullopt : fillingWay(Line)) {
      // A load miss on a line on its way for another instruction merges
      // onto that fill: no request, its lanes take the fill's response.
      ++Mem.L1Misses;
      Last = std::max(Last, Reserved[*Way].PresentAt);
      T += 1;
      continue;
    }
    // A miss that takes its set's next way writes back a dirty line there
    // first, in a cycle of its own.
    bool Allocates = !Store || (WriteBack && Bytes == Config.L1.LineBytes);
    unsigned Way = victim(Line);
    if (Allocates && Dirty[Way]) {
      T = sendCycle(T);
      send(T, Tags[Way], Config.L1.LineBytes, Cost.DramChannelCycles);
      Mem.DramWriteBytes += Config.L1.LineBytes;
      ++Mem.L1Writebacks;
      Dirty[Way] = false;
      T += 1;
      T = afterSlotResponses(T);
    }
    if (Allocates && Store) { // the whole line is written: nothing to read
      cancelFillOf(Line);     // a fill in flight is older than these bytes
      Reserved[Way].Reservation = 0; // the way's reservation, if any, is overwritten
      fill(Line, /*MakeDirty=*/true);
      T += 1;
      continue;
    }
    T = sendCycle(T);
    if (Store) {
      // Write-through: the line is updated if cached, never allocated; a
      // fill of it in flight predates the store.
      send(T, Line, Config.L1.LineBytes, Cost.DramChannelCycles);
      Mem.DramWriteBytes += Bytes;
      cancelFillOf(Line);
    } else {
      // Responses reach the core one per cycle, oldest ready first, and
      // are taken at the edge of their cycle.
      Presented.push_back(present(send(T, Line, Config.L1.LineBytes, Cost.DramChannelCycles)));
      Mem.DramReadBytes += Config.L1.LineBytes;
      ++Mem.L1Misses;
      // The way is reserved now (the set's victim moves on), the line
      // written when the response comes (before 2026-12-02 at once: a later
      // line of the instruction that hit the way's old line on the rtl
      // missed here, and spmv_balanced's gathers came out 10% over in
      // misses and 4% in cycles).
      reserveFill(Line, Presented.back());
    }
    T += 1;
  }
  // T: the first cycle S_LINES sees every request out (it checks q_pending
  // as registered). The front end writes back, or hands the load to a slot.
  bool HandsOff = false;
  for (double P : Presented)
    Last = std::max(Last, P);
  double Leave = leaveLines(T, Presented, Last, HandsOff);
  if (!HandsOff) {
    WriteBackCycles.insert(Leave);
    double End = Leave + 1; // the LSU is idle again, the warp may issue
    Cost.Cycles = Cost.DoneCycles = End - Now;
    Now = End;
    return Cost;
  }
  for (double P : Presented)
    if (P > Leave)
      SlotPresentCycles.insert(P);
  double SlotWriteBack = slotWriteBack(Last);
  Slots.push_back({Leave + 1, SlotWriteBack});
  Cost.Cycles = Leave + 1 - Now;
  Cost.DoneCycles = SlotWriteBack + 1 - Now;
  Now = Leave + 1;
  return Cost;
}

LsuCost LsuCostModel::globalAtomic(ArrayRef<uint32_t> Addrs) {
  LsuCost Cost;
  forgetPast();
  double T = Now + 1 + Cpw + 1;
  double Last = -1; // the last lane's response
  for (uint32_t A : Addrs) {
    uint32_t Line = A & ~(Config.L1.LineBytes - 1);
    T = sendCycle(T);
    completeFills(T);
    // The word changes at the memory side: the cached line goes, and a
    // fill of it in flight is older than the atomic.
    invalidate(Line);
    cancelFillOf(Line);
    Last = std::max(Last, present(send(T, Line, 4, Cost.DramChannelCycles)));
    Mem.DramReadBytes += 4;
    Mem.DramWriteBytes += 4;
    T += 1; // the next lane goes the next cycle, its response not awaited
  }
  // S_GATOM sees the last response at that cycle's edge: write-back next.
  T = std::max(T, Last + 1);
  WriteBackCycles.insert(T);
  double End = T + 1;
  Cost.Cycles = Cost.DoneCycles = End - Now;
  Now = End;
  return Cost;
}

LsuCost LsuCostModel::local(double PathCycles, bool HasAddressStage) {
  LsuCost Cost;
  forgetPast();
  double Stages = HasAddressStage ? 1 + Cpw + 1 : 1;
  Cost.Cycles = Cost.DoneCycles = Stages + PathCycles + 1;
  Now += Cost.Cycles;
  WriteBackCycles.insert(Now - 1);
  return Cost;
}

double LsuCostModel::sendCycle(double T) {
  for (;;) {
    double U = waitForRoom(afterSlotResponses(T));
    if (U == T)
      return T;
    T = U;
  }
}

void LsuCostModel::forgetPast() {
  auto Drop = [&](std::set<double> &S) { S.erase(S.begin(), S.lower_bound(Now)); };
  Drop(PresentCycles);
  Drop(SlotPresentCycles);
  Drop(WriteBackCycles);
  llvm::erase_if(Slots, [&](const Slot &S) { return S.To < Now; });
}

unsigned sharedRounds(ArrayRef<uint32_t> LaneAddrs, uint32_t Mask, unsigned Lanes, unsigned Banks,
                      bool Atomic) {
  unsigned Total = 0;
  size_t Next = 0; // LaneAddrs holds the active lanes only, in lane order
  for (unsigned Sub = 0; Sub < 32 / Lanes; ++Sub) {
    SmallVector<SmallVector<uint32_t, 4>, 32> Words(Banks);
    unsigned Rounds = 1;
    for (unsigned L = Sub * Lanes; L < (Sub + 1) * Lanes; ++L) {
      if (!((Mask >> L) & 1) || Next >= LaneAddrs.size())
        continue;
      uint32_t Word = LaneAddrs[Next++] / 4;
      auto &Bank = Words[Word % Banks];
      if (Atomic || !llvm::is_contained(Bank, Word))
        Bank.push_back(Word);
      Rounds = std::max<unsigned>(Rounds, Bank.size());
    }
    Total += Rounds;
  }
  return Total;
}

//===--- TraceProfiler ------------------------------------------------------===//

/// One warp memory instruction, waiting for its block's round-robin replay.
struct TraceProfiler::MemRecord {
  enum class Kind : uint8_t { Lines, GlobalAtomic, Fixed } K = Kind::Fixed;
  LinePath Path = LinePath::Global; ///< Kind::Lines
  bool Store = false, AddressStage = true;
  double PathCycles = 0;            ///< Kind::Fixed
  unsigned Window = 0;              ///< the warp's window in its segment
  unsigned Step = 0;                ///< the warp's round in its segment
  /// The warp's previous instruction in the segment was a memory
  /// instruction too: replayRoundRobin serves the two back to back.
  bool FollowsMemory = false;
  SmallVector<uint32_t, 4> Lines;   ///< line addresses, or lane addresses (atomics)
  SmallVector<uint32_t, 4> StoreBytes;
};

struct TraceProfiler::WarpState {
  std::vector<WarpDemand> Segments{1};
  /// Per segment, the warp's windows of WindowInstructions instructions.
  std::vector<std::vector<WarpDemand>> Windows{1};
  std::vector<std::deque<MemRecord>> Memory{1};
  /// Per segment, the warp's rounds (WarpStep): the last one is open,
  /// collecting the compute before the next memory instruction.
  std::vector<std::vector<WarpStep>> Steps{std::vector<WarpStep>(1)};
  unsigned InSegment = 0; ///< warp instructions so far in this segment
  bool LastWasMemory = false; ///< the warp's last instruction was a memory one
  /// The warp's own scoreboard, in cycles of the warp running alone: when
  /// its datapath slot is next free, when it may next issue to the LSU,
  /// and when each register is ready. The rtl issues a warp's memory
  /// instruction the cycle after its datapath instruction when the two are
  /// independent (a warp is ready when its operands are and its unit is
  /// free; simt_core.sv), so MemClock runs ahead of Clock after a datapath
  /// issue.
  double Clock = 0;
  double MemClock = 0;
  std::array<double, 64> Ready{};

  /// Nothing in flight any more (after a memory instruction or a barrier).
  void settle() {
    for (double R : Ready)
      Clock = std::max(Clock, R);
    Ready.fill(Clock);
    MemClock = Clock;
  }

  /// The demand of the current window (opened as instructions arrive).
  WarpDemand &window() {
    unsigned K = InSegment / WindowInstructions;
    if (Windows.back().size() <= K)
      Windows.back().resize(K + 1);
    return Windows.back()[K];
  }
};

TraceProfiler::TraceProfiler(const AcceleratorConfig &C, const ModelLatencies *Lat,
                             bool CollectRounds)
    : Config(C), Params(ModelParams::forConfig(C)), CollectRounds(CollectRounds),
      LsuModel(std::make_unique<LsuCostModel>(C)) {
  // A dependent chain's step is ready max(latency, Cpw + 1) after its
  // issue (the datapath streams Cpw cycles; see instruction()). The probes
  // chain add/xor (ALU) and ffma (FPU). Before 2026-12-02 the measured
  // step replaced the latency of every instruction of the unit: at 32
  // lanes imul's 4 became iadd's 2, and spmm came out 175 cycles short.
  const double Cpw = C.cyclesPerWarpInstr();
  auto Shift = [&](double Measured, simt::Opcode Probe) {
    if (Measured <= 0)
      return 0.0; // not measured: the tables
    double Table = simt::getSchedClassDesc(simt::getDesc(Probe).Sched).Latency;
    return std::round(Measured) - std::max(Table, Cpw + 1);
  };
  if (Lat) {
    AluReadyShift = Shift(Lat->AluReadyCycles, simt::Opcode::ADD);
    FpuReadyShift = Shift(Lat->FpuReadyCycles, simt::Opcode::FFMA);
  }
  SetUnbuffered();
}

TraceProfiler::~TraceProfiler() = default;

void TraceProfiler::write_impl(const char *Ptr, size_t Size) {
  Pos += Size;
  StringRef Chunk(Ptr, Size);
  while (!Chunk.empty()) {
    size_t Nl = Chunk.find('\n');
    if (Nl == StringRef::npos) {
      Partial.append(Chunk.data(), Chunk.size());
      return;
    }
    Partial.append(Chunk.data(), Nl);
    consumeLine(Partial);
    Partial.clear();
    Chunk = Chunk.drop_front(Nl + 1);
  }
}

void TraceProfiler::consumeLine(StringRef Line) {
  if (Line.starts_with("# launch"))
    return startLaunch(Line);
  if (Line.starts_with("#") || Line.trim().empty())
    return;
  if (Launches.empty() || !Line.starts_with("b=")) {
    ++Malformed;
    return;
  }
  instruction(Line);
}

void TraceProfiler::startLaunch(StringRef Line) {
  size_t At = Line.find("kernel=");
  StringRef Rest = At == StringRef::npos ? StringRef() : Line.substr(At + 7);
  // " local=BYTES local_base=0xADDR": unreadable or missing, 0 (unknown).
  auto field = [&](StringRef Key, unsigned Radix) {
    uint32_t V = 0;
    size_t KeyAt = Line.find(Key);
    if (KeyAt == StringRef::npos ||
        Line.substr(KeyAt + Key.size()).split(' ').first.getAsInteger(Radix, V))
      return uint32_t(0);
    return V;
  };
  beginLaunch(Rest.split(' ').first, field(" local=", 10), field(" local_base=", 0));
}

void TraceProfiler::finish() { finishBlock(); }

namespace {

std::optional<uint64_t> fieldValue(StringRef Token, StringRef Key, unsigned Radix) {
  if (!Token.consume_front(Key))
    return std::nullopt;
  if (Radix == 16)
    Token.consume_front("0x");
  uint64_t V;
  if (Token.getAsInteger(Radix, V))
    return std::nullopt;
  return V;
}

/// The words of "a=[...]" in the effects part, or nothing.
SmallVector<uint32_t, 32> laneAddresses(StringRef Effects) {
  SmallVector<uint32_t, 32> Out;
  size_t At = Effects.find("a=[");
  if (At == StringRef::npos)
    return Out;
  StringRef List = Effects.substr(At + 3);
  List = List.take_until([](char C) { return C == ']'; });
  SmallVector<StringRef, 32> Words;
  List.split(Words, ' ', -1, false);
  for (StringRef W : Words) {
    uint32_t V;
    if (!W.getAsInteger(16, V))
      Out.push_back(V);
  }
  return Out;
}

/// Distinct lines in first-touch order: the coalescer takes the lowest
/// pending lane's line each cycle. \p Bytes: per line, the distinct bytes
/// the accesses cover (the byte enables of a store's request; lanes
/// storing to one address enable its bytes once).
void coalesce(ArrayRef<uint32_t> Addrs, uint32_t LineBytes, unsigned AccessBytes,
              SmallVectorImpl<uint32_t> &Lines, SmallVectorImpl<uint32_t> &Bytes) {
  assert(Lines.empty() && Bytes.empty() && LineBytes <= 256 && "see Config.cpp");
  SmallVector<std::bitset<256>, 4> Enabled;
  for (uint32_t A : Addrs) {
    uint32_t Line = A & ~(LineBytes - 1);
    auto It = llvm::find(Lines, Line);
    size_t I = It - Lines.begin();
    if (It == Lines.end()) {
      Lines.push_back(Line);
      Enabled.emplace_back();
    }
    for (unsigned K = 0; K < AccessBytes && (A - Line) + K < LineBytes; ++K)
      Enabled[I].set((A - Line) + K);
  }
  for (const std::bitset<256> &E : Enabled)
    Bytes.push_back(uint32_t(E.count()));
}

} // namespace

SmallVector<std::pair<uint8_t, bool>, 4> namedRegisters(const simt::DecodedInst &I) {
  SmallVector<std::pair<uint8_t, bool>, 4> Out;
  const simt::InstrDesc &D = simt::getDesc(I.Op);
  for (unsigned K = 0; K < D.NumOperands; ++K) {
    const simt::OperandInfo &O = D.Operands[K];
    if (O.Kind != simt::OperandKind::GPR)
      continue;
    uint8_t R = 0;
    switch (O.Where) {
    case simt::Field::Rd: R = I.Rd; break;
    case simt::Field::Rs1: R = I.Rs1; break;
    case simt::Field::Rs2: R = I.Rs2; break;
    case simt::Field::Rs3: R = I.Rs3; break;
    case simt::Field::Imm: continue;
    }
    if (R != 0)
      Out.push_back({R, O.IsDef});
  }
  return Out;
}

void TraceProfiler::instruction(StringRef Line) {
  auto [Head, Effects] = Line.split(" | ");
  SmallVector<StringRef, 8> Tok;
  Head.split(Tok, ' ', 5, false);
  if (Tok.size() < 5) {
    ++Malformed;
    return;
  }
  auto Block = fieldValue(Tok[0], "b=", 10);
  auto Warp = fieldValue(Tok[1], "w=", 10);
  auto Mask = fieldValue(Tok[3], "mask=", 16);
  std::optional<simt::Opcode> Op = simt::lookupMnemonic(Tok[4]);
  if (!Block || !Warp || !Mask || !Op || *Warp >= 64) {
    ++Malformed;
    return;
  }
  WarpInstruction I;
  I.Block = uint32_t(*Block);
  I.Warp = uint32_t(*Warp);
  I.Mask = uint32_t(*Mask);
  I.Op = *Op;
  // The operands' registers ("r12") in assembly order are the descriptor's
  // GPR operands in order.
  const simt::InstrDesc &D = simt::getDesc(*Op);
  SmallVector<bool, 4> IsDef;
  for (unsigned K = 0; K < D.NumOperands; ++K)
    if (D.Operands[K].Kind == simt::OperandKind::GPR)
      IsDef.push_back(D.Operands[K].IsDef);
  if (Tok.size() > 5) {
    SmallVector<StringRef, 6> Words;
    Tok[5].split(Words, ' ', -1, false);
    unsigned Next = 0;
    for (StringRef W : Words) {
      W = W.trim(",[]+");
      unsigned R;
      if (!W.consume_front("r") || W.getAsInteger(10, R) || R >= 64)
        continue;
      bool Def = Next < IsDef.size() && IsDef[Next];
      ++Next;
      if (R != 0)
        I.Regs.push_back({uint8_t(R), Def});
    }
  }
  SmallVector<uint32_t, 32> Addrs = laneAddresses(Effects);
  I.LaneAddrs = Addrs;
  addInstruction(I);
}

namespace {
/// The registers an instruction names, read or written, as the rtl's
/// scoreboard checks them before it issues (rs1, rs2, rs3 and rd), and the
/// one it writes (the first def).
WarpStep::Issue scoreboardEntry(ArrayRef<std::pair<uint8_t, bool>> Regs) {
  WarpStep::Issue E;
  for (auto [R, Def] : Regs) {
    E.Regs |= uint64_t(1) << R;
    if (Def && !E.Def)
      E.Def = R;
  }
  return E;
}
} // namespace

void TraceProfiler::beginLaunch(StringRef Kernel, uint32_t LocalBytes, uint32_t Base) {
  finishBlock();
  LocalWarpStride = uint32_t(alignTo(LocalBytes, 4) * 32);
  LocalBase = Base;
  Launches.emplace_back();
  Launches.back().Kernel = Kernel.str();
  LsuModel = std::make_unique<LsuCostModel>(Config);
}

void TraceProfiler::addInstruction(const WarpInstruction &I) {
  if (Launches.empty() || I.Warp >= 64) {
    ++Malformed;
    return;
  }
  if (int64_t(I.Block) != CurrentBlock) {
    finishBlock();
    CurrentBlock = int64_t(I.Block);
  }
  if (Warps.size() <= I.Warp)
    Warps.resize(I.Warp + 1);
  if (!Warps[I.Warp])
    Warps[I.Warp] = std::make_unique<WarpState>();
  WarpState &W = *Warps[I.Warp];
  LaunchProfile &L = Launches.back();
  ++L.WarpInstructions;
  unsigned Active = llvm::popcount(I.Mask);
  L.ThreadInstructions += Active;

  const simt::InstrDesc &D = simt::getDesc(I.Op);
  const simt::SchedClassDesc &S = simt::getSchedClassDesc(D.Sched);
  const unsigned Cpw = Config.cyclesPerWarpInstr();
  bool IsLsu = S.Unit == simt::FuncUnit::LSU;
  // The scoreboard: the warp issues once every register it names is ready.
  const double Earliest = IsLsu ? W.MemClock : W.Clock;
  double Issue = Earliest;
  for (auto [R, Def] : I.Regs)
    Issue = std::max(Issue, W.Ready[R]);
  double Stall = Issue - Earliest;
  if (!IsLsu) {
    StringRef Unit = simt::getFuncUnitName(S.Unit);
    bool Iterative = Unit.equals_insensitive("sfu");
    double Shift = Unit.equals_insensitive("alu")   ? AluReadyShift
                   : Unit.equals_insensitive("fpu") ? FpuReadyShift
                                                    : 0;
    double Ready = std::max<double>(std::max<double>(S.Latency, Cpw + 1) + Shift, Cpw + 1);
    WarpDemand Add;
    Add.Service[Datapath] = Cpw;
    if (Iterative) {
      Add.Service[IterativeUnit] = double(S.IssueCycles) * Cpw;
      Ready += double(S.IssueCycles) * (Cpw - 1);
    }
    Add.DependencyCycles = Stall;
    W.Clock = Issue + Cpw;
    W.MemClock = Issue + 1;
    for (auto [R, Def] : I.Regs)
      if (Def)
        W.Ready[R] = Issue + Ready;
    for (WarpDemand *To : {&W.Segments.back(), &W.window()}) {
      for (unsigned K = 0; K < NumStations; ++K)
        To->Service[K] += Add.Service[K];
      To->DependencyCycles += Add.DependencyCycles;
    }
    if (CollectRounds) {
      WarpStep &Round = W.Steps.back().back();
      Round.Datapath += Add.Service[Datapath];
      Round.Iterative += Add.Service[IterativeUnit];
      Round.Dependency += Add.DependencyCycles;
      Round.Stalls.push_back(float(Add.DependencyCycles));
      WarpStep::Issue Entry = scoreboardEntry(I.Regs);
      // Whole cycles, at most a few thousand (an iterative instruction at 32
      // cycles per warp instruction).
      Entry.Latency = uint16_t(std::min(std::lround(Ready), 65535l));
      Entry.Iterative = uint16_t(std::min(std::lround(Add.Service[IterativeUnit]), 65535l));
      Round.Issues.push_back(Entry);
      ++Round.Instructions;
    }
    ++W.InSegment;
    W.LastWasMemory = false;
    if (StringRef(simt::getFuncUnitName(S.Unit)).equals_insensitive("fpu"))
      L.FpuThreadInstructions += Active;
    if (D.has(simt::IsBarrier)) { // the warp's next instructions are the next segment
      W.Segments.emplace_back();
      W.Windows.emplace_back();
      W.Memory.emplace_back();
      if (CollectRounds)
        W.Steps.emplace_back(1);
      W.InSegment = 0;
      W.settle();
    }
    return;
  }

  // A memory instruction. Under the `instruction` memory wait the warp
  // waits for it, so every result in flight is ready by the time it issues
  // again; under `register` the walk (roundsCycles) tracks the register
  // it writes, and this profiler's own clocks stay an estimate.
  W.window().DependencyCycles += Stall;
  W.Segments.back().DependencyCycles += Stall;
  if (CollectRounds) {
    WarpStep &Round = W.Steps.back().back();
    Round.Dependency += Stall;
    Round.Stalls.push_back(float(Stall));
    // Its result is readable when the LSU writes it back, which only the
    // walk knows (Latency stays 0).
    Round.Issues.push_back(scoreboardEntry(I.Regs));
    Round.HasMemory = true;
  }
  W.Clock = Issue;
  W.settle();
  MemRecord R;
  R.FollowsMemory = W.LastWasMemory;
  W.LastWasMemory = true;
  SmallVector<uint32_t, 32> Addrs(I.LaneAddrs.begin(), I.LaneAddrs.end());
  if (I.Mask == 0) {
    R.PathCycles = 0;
  } else if (D.Space == simt::MemSpace::None) { // shuffle: the row streams
    R.AddressStage = false;
    R.PathCycles = Cpw;
  } else if (D.Space == simt::MemSpace::Shared) {
    R.PathCycles =
        sharedRounds(Addrs, I.Mask, Config.Lanes, Config.Shared.Banks, D.has(simt::IsAtomic));
  } else if (D.has(simt::IsAtomic)) {
    R.K = MemRecord::Kind::GlobalAtomic;
    R.Lines.assign(Addrs.begin(), Addrs.end());
  } else {
    R.K = MemRecord::Kind::Lines;
    R.Store = D.has(simt::IsStore);
    R.Path = D.Space == simt::MemSpace::Local    ? LinePath::Local
             : D.Space == simt::MemSpace::Global ? LinePath::Global
                                                 : LinePath::OnCore; // param, const
    if (D.Space == simt::MemSpace::Local) {
      // The rtl interleaves local words across lanes and gives each warp
      // LocalWarpStride bytes from one allocation (docs/RTL.md). The stride
      // decides which warps' slots share L1 sets, so it is the rtl's when
      // the launch says (a 1 MiB stride put every warp's slot in one set:
      // conflict misses the rtl does not have); the base decides which
      // global lines they share sets with, so it is the rtl's when the
      // launch says (a made-up one, 256-aligned like the real one, cost
      // many_live 77 L1 hits the rtl does not have and -4% before
      // 2026-12-02). The all-lanes spill code lists all 32 lanes in the
      // trace, whatever the exec mask.
      uint32_t Stride = LocalWarpStride ? LocalWarpStride : 0x100000u;
      uint32_t Base = LocalBase ? LocalBase : 0xC0000000u;
      uint32_t Lanes = D.has(simt::AllLanes) ? ~0u : I.Mask;
      SmallVector<uint32_t, 32> Translated;
      size_t Next = 0;
      for (unsigned Lane = 0; Lane < 32 && Next < Addrs.size(); ++Lane)
        if ((Lanes >> Lane) & 1) {
          uint32_t A = Addrs[Next++];
          Translated.push_back(Base + I.Warp * Stride +
                               (((A >> 2) << 5) + Lane) * 4 + (A & 3));
        }
      Addrs = Translated;
    }
    coalesce(Addrs, Config.L1.LineBytes, D.AccessBytes, R.Lines, R.StoreBytes);
  }
  W.window(); // the window exists even if it holds only this instruction
  R.Window = W.InSegment / WindowInstructions;
  if (CollectRounds) {
    R.Step = unsigned(W.Steps.back().size() - 1);
    W.Steps.back().emplace_back(); // the next round opens
  }
  ++W.InSegment;
  W.Memory.back().push_back(std::move(R));
}

/// Costs one of \p W's memory instructions of segment \p S on the LSU
/// model, in the order finishBlock replays them, and charges the warp's
/// segment and window (its round is charged by replayInIssueOrder).
LsuCost TraceProfiler::replayMemory(WarpState &W, size_t S, const MemRecord &R) {
  LsuCost C;
  switch (R.K) {
  case MemRecord::Kind::Lines:
    C = LsuModel->lines(R.Path, R.Store, R.Lines, R.StoreBytes);
    break;
  case MemRecord::Kind::GlobalAtomic:
    C = LsuModel->globalAtomic(R.Lines);
    break;
  case MemRecord::Kind::Fixed:
    C = LsuModel->local(R.PathCycles, R.AddressStage);
    break;
  }
  for (WarpDemand *To : {&W.Segments[S], &W.Windows[S][R.Window]}) {
    To->Service[Lsu] += C.Cycles;
    To->DramChannelCycles += C.DramChannelCycles;
    To->IssueCycles += 1; // the commit-to-next-issue cycle
  }
  return C;
}

void TraceProfiler::replayRoundRobin(size_t S) {
  bool Any = true;
  while (Any) {
    Any = false;
    for (auto &W : Warps) {
      std::deque<MemRecord> *Queue =
          W && S < W->Memory.size() && !W->Memory[S].empty() ? &W->Memory[S] : nullptr;
      if (!Queue)
        continue;
      Any = true;
      do {
        MemRecord R = std::move(Queue->front());
        Queue->pop_front();
        replayMemory(*W, S, R);
      } while (!Queue->empty() && Queue->front().FollowsMemory);
    }
  }
}

std::vector<unsigned> TraceProfiler::slotsIn(size_t S) const {
  std::vector<unsigned> Slots;
  for (size_t Slot = 0; Slot < Warps.size(); ++Slot)
    if (Warps[Slot] && S < Warps[Slot]->Segments.size())
      Slots.push_back(unsigned(Slot));
  return Slots;
}

void TraceProfiler::replayInIssueOrder(size_t S, ArrayRef<unsigned> Slots, bool EndsAtBarrier,
                                       SegmentCarry &Carry) {
  std::vector<WarpState *> Live;
  std::vector<std::vector<WarpStep>> Rounds; // the warps' rounds, moved here and back
  for (unsigned Slot : Slots) {
    Live.push_back(Warps[Slot].get());
    Rounds.push_back(std::move(Live.back()->Steps[S])); // memory costs: filled as they issue
  }
  // The walk's cycle 0 is the LSU's clock now. Without the issue cycles
  // the LSU model ran on its own clock, which only its busy time moves:
  // an idle stretch did not drain the DRAM queues, and a store after one
  // waited for slots long free (a store that cost the rtl 20 cycles cost
  // 100; spmv_merge under gto came out 5% over).
  // Under the `register` memory wait the LSU may still be busy from the
  // last segment when this one starts (Carry.LsuBusy); its clock is then
  // that much past the segment's start.
  const double Start = LsuModel->now() - Carry.LsuBusy;
  RoundsResult Walk = roundsCycles(Rounds, Params, [&](size_t I, size_t Step, double IssueCycle) {
    LsuModel->idleUntil(Start + IssueCycle);
    WarpState &W = *Live[I];
    // Every memory round has its record, queued in program order.
    assert(!W.Memory[S].empty() && W.Memory[S].front().Step == Step);
    MemRecord R = std::move(W.Memory[S].front());
    W.Memory[S].pop_front();
    LsuCost C = replayMemory(W, S, R);
    WarpStep &Round = Rounds[I][Step];
    Round.Lsu += C.Cycles;
    Round.LsuDone += C.DoneCycles;
    Round.Dram += C.DramChannelCycles;
    return MemoryIssueCost(C.Cycles, C.DoneCycles);
  }, Carry.walkStart(Slots, Live.size(), Params));
  SegmentEnd End = segmentEnd(Walk, EndsAtBarrier);
  LsuModel->idleUntil(Start + End.Cycles);
  Carry.advance(Walk, End, Slots);
  for (size_t I = 0; I < Live.size(); ++I)
    Live[I]->Steps[S] = std::move(Rounds[I]);
}

void TraceProfiler::finishBlock() {
  if (CurrentBlock < 0 || Launches.empty()) {
    Warps.clear();
    CurrentBlock = -1;
    return;
  }
  LaunchProfile &L = Launches.back();
  BlockProfile B;
  size_t NumSegments = 0;
  for (auto &W : Warps)
    if (W)
      NumSegments = std::max(NumSegments, W->Segments.size());
  B.Segments.resize(NumSegments);
  B.Barriers = unsigned(NumSegments - 1);
  LsuModel->startBlock();
  SegmentCarry Carry; // the scheduler's last issuer, the datapath: reset per block
  for (size_t S = 0; S < NumSegments; ++S) {
    // The order the memory instructions meet the L1 decides which of two
    // warps sharing a line takes the miss (one instruction's misses
    // overlap, two instructions' do not) and whether a line survives until
    // its warp comes back for it. With rounds, they are replayed in the
    // order the model's scheduler issues them (roundsCycles under the
    // configuration's policy, each cost known as it issues): on spmv_merge
    // the L1 hits are then the rtl's under rr (789, where the fixed order
    // below gave 2,020 once it was tried with rounds) and within 2% under
    // gto, where a warp runs ahead and finds its own lines again (the
    // fixed order: 789 against the rtl's 6,793, and a prediction 75%
    // over). Without rounds: round-robin across warps, a warp's
    // back-to-back memory instructions together.
    SegmentProfile &Seg = B.Segments[S];
    Seg.Slots = slotsIn(S);
    if (CollectRounds)
      replayInIssueOrder(S, Seg.Slots, S + 1 < NumSegments, Carry);
    else
      replayRoundRobin(S);
    for (unsigned Slot : Seg.Slots) {
      WarpState *W = Warps[Slot].get();
      Seg.Warps.push_back(W->Segments[S]);
      if (CollectRounds) {
        std::vector<WarpStep> Rounds = std::move(W->Steps[S]); // Warps is cleared below
        const WarpStep &Last = Rounds.back();
        if (!Last.HasMemory && Last.Datapath + Last.Iterative + Last.Dependency == 0)
          Rounds.pop_back(); // nothing after the last memory instruction
        Seg.Steps.push_back(std::move(Rounds));
      }
      const std::vector<WarpDemand> &Wins = W->Windows[S];
      if (Seg.Windows.size() < Wins.size())
        Seg.Windows.resize(Wins.size());
      for (size_t K = 0; K < Wins.size(); ++K)
        Seg.Windows[K].push_back(Wins[K]);
    }
  }
  // The next block starts after the block overhead and the harness's start
  // edge: requests still in flight (the last warps' stores) drain during
  // both (before 2026-12-02 only the overhead: a block whose first
  // parameter loads waited for DRAM room behind those stores came out one
  // cycle late, 19 cycles of vadd's 113,396 at a 300-cycle DRAM latency).
  LsuModel->idleUntil(LsuModel->now() + Params.BlockOverheadCycles + BlockStartCycles);
  L.Blocks.push_back(std::move(B));
  L.Memory = LsuModel->memory();
  Warps.clear();
  CurrentBlock = -1;
}

} // namespace tandem::models
