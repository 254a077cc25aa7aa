//===- RtlSim.cpp - Harness around the Verilated SIMT core ----------------===//
//
// Implements RtlSim.h. One cycle is one rising edge of every core's clock;
// after each edge the harness services the cores' ports in this order:
// each core's fault, address check and memory request (performed
// functionally at once, core 0 first, its response timed by the DRAM
// model), then each core's response and commit ports (trace), then the
// DRAM grant (mem_req_ready), then done. Inputs set after an edge are
// seen by the cores at the next edge. With one core this is the
// single-core harness it replaced, cycle for cycle.
//
// DRAM model: Channels channels, a line maps to channel (line / LINE) %
// Channels; a request occupies its channel ceil(bytes / BytesPerCycle)
// cycles and completes LatencyCycles later; the core may send a request
// only while every channel has fewer than MaxOutstanding requests in
// flight; with several cores, as many cores may send in a cycle as every
// channel has free slots, granted round-robin.
// Param and const requests are served by the harness's parameter/constant
// memory in 2 cycles and are not DRAM traffic.
//
// Seeing inside (DeviceOptions::WaveformPath, TimelinePath): the model is
// always compiled with VCD tracing, switched on only when a waveform is asked
// for (an FST is that VCD rewritten, VcdToFst.h); the timeline samples the core's per-warp status
// ports after every edge. Both files are written to a temporary name and renamed when the launch
// ends, faulted or not (a fault is when one wants to look).
//
//===----------------------------------------------------------------------===//

#include "RtlSim.h"

#include "ISA.h"
#include "IssInternal.h"
#include "Semantics.h"

#include "CoreModel.h"
#include "ModelCache.h"
#include "VcdToFst.h"

#include "tandem/DeviceError.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <array>
#include <bitset>
#include <deque>
#include <vector>

using namespace llvm;

namespace tandem::rtl {

namespace {
/// The widest line a configuration may have (config/Config.cpp's limit).
constexpr unsigned MaxLineBytes = 256;
/// Cycles without any commit after which a launch is declared hung.
constexpr uint64_t HangCycles = 2'000'000;

using iss::detail::barrierDeadlockText;
using iss::detail::dimText;
using iss::detail::globalBoundsDetail;
using iss::detail::hex8;
using iss::detail::paramBufferBytes;
using iss::detail::pcHex;
using iss::detail::pcOutsideCodeText;
using iss::detail::Program;
using iss::detail::spaceName;
using iss::detail::waitingWarpText;

/// What a warp did in one cycle, as the timeline shows it. The stall causes
/// are the counters' (docs/RTL.md), here per warp: a warp that could issue
/// but lost the scheduler's pick to another warp is NotPicked.
enum class WarpActivity : uint8_t {
  None, ///< not running (not launched, or finished)
  Issue,
  Dependency,
  UnitBusy,
  Memory,
  Barrier,
  NotPicked,
};

const char *activityName(WarpActivity A) {
  switch (A) {
  case WarpActivity::Issue:
    return "issue";
  case WarpActivity::Dependency:
    return "stall: dependency";
  case WarpActivity::UnitBusy:
    return "stall: unit busy";
  case WarpActivity::Memory:
    return "stall: memory";
  case WarpActivity::Barrier:
    return "stall: barrier";
  case WarpActivity::NotPicked:
    return "ready, not picked";
  case WarpActivity::None:
    break;
  }
  return "none";
}

/// One interval of one warp's track.
struct TimelineEvent {
  uint64_t Start, Cycles;
  uint64_t Block;
  uint32_t Pc;
  uint8_t Warp;
  uint8_t Core; ///< the core that ran the block (configurations have at most 64)
  WarpActivity What;
};

/// The index of the block \p Linear blocks into grid \p G (x fastest, the
/// ISS's order).
Dim3 blockIndexOf(uint64_t Linear, const Dim3 &G) {
  return {uint32_t(Linear % G.X), uint32_t(Linear / G.X % G.Y), uint32_t(Linear / G.X / G.Y)};
}

/// Writes through a temporary file renamed over \p Path at the end, so a
/// reader never sees half a file.
Error writeAtomically(StringRef Path, function_ref<void(raw_ostream &)> Write) {
  std::string Temp =
      (Path + ".tmp" + Twine(sys::Process::getProcessId())).str();
  std::error_code EC;
  {
    raw_fd_ostream OS(Temp, EC, sys::fs::OF_None);
    if (!EC) {
      Write(OS);
      OS.close();
      EC = OS.error();
    }
  }
  if (!EC)
    EC = sys::fs::rename(Temp, Path);
  if (EC) {
    sys::fs::remove(Temp);
    return createStringError(EC,
                             "cannot write '" + Path + "': " + EC.message());
  }
  return Error::success();
}

} // namespace

AcceleratorConfig builtConfig() {
  AcceleratorConfig C;
  C.Lanes = TANDEM_RTL_LANES;
  C.WarpsPerCore = TANDEM_RTL_WARPS;
  C.Registers = TANDEM_RTL_REGS;
  C.ImemWords = TANDEM_RTL_IMEM_WORDS;
  C.Lsu.MaxInFlight = TANDEM_RTL_LSU_SLOTS;
  C.L1.SizeBytes = TANDEM_RTL_L1_BYTES;
  C.L1.Ways = TANDEM_RTL_L1_WAYS;
  C.L1.LineBytes = TANDEM_RTL_LINE_BYTES;
  C.Shared.SizeBytes = TANDEM_RTL_SHARED_BYTES;
  C.Shared.Banks = TANDEM_RTL_SHARED_BANKS;
  return C;
}

struct Simulator::Impl {
  /// With a trace: one issued instruction of a warp not yet printed
  /// (Core::TraceOrder).
  struct PendingLine {
    bool Lsu = false; ///< the LSU commits it (else the datapath)
    uint32_t Pc = 0;
    bool Done = false; ///< committed: Line holds its trace line
    std::string Line;
  };

  /// One core: its Verilated model and the block it runs. Every core is
  /// its own instance of the same model; they share the DRAM model, the
  /// device memory and the clock.
  struct Core {
    std::unique_ptr<CoreModel> Model;
    CorePorts *Pt = nullptr;
    unsigned Index = 0;
    /// Idle: no block (the grid is done for it). Starting: a block's
    /// inputs are set and `start` rises at the next edge. Running: between
    /// that edge and `done`.
    enum class State { Idle, Starting, Running } St = State::Idle;
    Dim3 BlockIdx;
    uint64_t BlockLinear = 0;
    unsigned BlockWarps = 0; ///< warps the current block launched
    uint32_t LocalBase = 0;  ///< this core's share of the launch's local memory
    /// Per warp, the pc of its last issued instruction (0 before the
    /// first): a fault for a pc outside the code names where the warp came
    /// from, as the ISS's does.
    std::vector<uint32_t> LastIssuedPc;
    /// With a trace: per warp, its issued instructions not yet printed, in
    /// issue (program) order. The datapath and the LSU commit in program
    /// order each, but under the `register` memory wait a warp's datapath
    /// instructions after a load may commit before it; their lines wait
    /// here so the trace stays in program order, as the ISS writes it. With
    /// lsu.in_flight above 1 a warp's loads may also commit out of order (a
    /// later one's response can come first), so a commit is matched by pc.
    std::vector<std::deque<PendingLine>> TraceOrder;
    /// Timeline: per warp, the open interval (its activity, first cycle
    /// and pc).
    std::vector<TimelineEvent> OpenInterval;
  };

  DeviceOptions Opts;
  iss::DeviceMemory &Mem;
  std::unique_ptr<KernelImage> Image;
  std::vector<Core> Cores;
  // The model's build parameters the harness needs.
  const unsigned Warps, LineBytes, ImemWords;
  /// What the instruction memories hold (every core loads the same): nothing,
  /// the whole image (when it fits), or one kernel's code (when the image
  /// does not fit).
  enum class CodeState { None, WholeImage, OneKernel } Code = CodeState::None;
  const KernelInfo *CodeKernel = nullptr; ///< OneKernel: whose

  // Per launch.
  const KernelInfo *Kernel = nullptr;
  const LaunchParams *Params = nullptr;
  Program Prog;
  std::vector<uint8_t> ParamBuffer;
  uint32_t SharedBytes = 0;
  uint32_t LocalAlloc = 0; ///< the launch's local memory (every core's share)
  uint32_t LocalStride = 0;
  uint64_t Cycle = 0;
  uint64_t LastCommit = 0;
  uint64_t Blocks = 0, WarpsLaunched = 0;

  // DRAM model, shared by the cores.
  struct Response {
    uint64_t ReadyAt;
    uint64_t Seq;
    unsigned Channel;
    unsigned Core; ///< whose request: its response goes back there
    bool Reply; ///< reads and atomics answer; writes only occupy the channel
    uint32_t Addr;
    unsigned Tag; ///< the LSU's slot of the request, echoed with the response
    std::array<uint8_t, MaxLineBytes> Data;
  };
  std::deque<Response> InFlight;
  std::vector<uint64_t> ChannelFree;
  std::vector<unsigned> ChannelOutstanding;
  uint64_t Seq = 0;
  uint64_t DramRequests = 0, DramReadBytes = 0, DramWriteBytes = 0;
  unsigned GrantNext = 0; ///< the core the DRAM grant starts at next (grantRequests)

  // Whether a waveform of the current launch is being written to VcdTemp
  // (one core only: create refuses a waveform with several).
  bool Vcd = false;
  std::string VcdTemp;
  // Timeline of the current launch: closed intervals.
  std::vector<TimelineEvent> Timeline;

  Impl(const DeviceOptions &O, iss::DeviceMemory &M, std::vector<std::unique_ptr<CoreModel>> Models)
      : Opts(O), Mem(M), Warps(Models[0]->params().Warps), LineBytes(Models[0]->params().LineBytes),
        ImemWords(Models[0]->params().ImemWords) {
    for (unsigned I = 0; I < Models.size(); ++I) {
      Core C;
      C.Pt = &Models[I]->ports();
      C.Model = std::move(Models[I]);
      C.Index = I;
      C.OpenInterval.resize(Warps);
      Cores.push_back(std::move(C));
    }
  }

  /// One rising edge of every core's clock. A VCD time unit is half a
  /// cycle: the clock's low and high phases.
  void tick() {
    for (Core &C : Cores) {
      C.Pt->clk.set(0);
      C.Model->eval();
    }
    if (Vcd)
      Cores[0].Model->dumpWaveform(2 * Cycle);
    for (Core &C : Cores) {
      C.Pt->clk.set(1);
      C.Model->eval();
    }
    if (Vcd)
      Cores[0].Model->dumpWaveform(2 * Cycle + 1);
    ++Cycle;
  }
  /// Sets port \p P of every core (reset, the instruction memory writes).
  void setAll(Port CorePorts::*P, uint64_t V) {
    for (Core &C : Cores)
      (C.Pt->*P).set(V);
  }

  Error openWaveform();
  Error closeWaveform();
  void sampleTimeline(Core &C);
  void closeTimelineIntervals(Core &C);
  Error writeTimeline(const Counters &Out);

  Error loadCode();
  Error run(const LaunchParams &P, Counters &Out);
  Error runGrid();
  Error startBlock(Core &C, uint64_t Linear);
  Error serviceRequests(Core &C);
  void serviceResponseAndCommits(Core &C);
  Error checkLimits();
  Error checkAccess(Core &C);
  void acceptRequest(Core &C);
  void retireWrites();
  void presentResponse(Core &C);
  void grantRequests(ArrayRef<Core *> Serviced);
  void readLine(uint32_t Addr, uint8_t *Out);
  void writeLine(uint32_t Addr, const uint8_t *Data,
                 const std::bitset<MaxLineBytes> &Be);
  uint32_t atomic(uint8_t Op, uint32_t Addr, uint32_t B, uint32_t C);
  Error fault(const Core &C, unsigned Warp, int Lane, uint32_t Pc, const Twine &Msg) const;
  std::string warpStates(const Core &C) const;
  void traceCommit(Core &C, unsigned Warp, uint32_t Pc, uint32_t Exec, bool FromLsu);
  void traceIssue(Core &C, unsigned Warp, uint32_t Pc);
  void fillCounters(Counters &Out) const;
};

Simulator::Simulator(std::unique_ptr<Impl> I) : I(std::move(I)) {}
Simulator::~Simulator() = default;

Expected<std::unique_ptr<Simulator>>
Simulator::create(const DeviceOptions &Opts, iss::DeviceMemory &Mem) {
  const AcceleratorConfig &C = Opts.Config;
  if (C.Dram.Channels == 0 || C.Dram.BytesPerCycle == 0 ||
      C.Dram.MaxOutstanding == 0)
    return createStringError(inconvertibleErrorCode(),
                             "device 'rtl': dram.channels, "
                             "dram.bytes_per_cycle and dram.max_outstanding "
                             "must be at least 1");
  if (std::string Problem = lsuInFlightProblem(C.Lsu); !Problem.empty())
    return createStringError(inconvertibleErrorCode(), "device 'rtl': lsu.in_flight: " + Problem);
  if (C.Cores > 1 && !Opts.WaveformPath.empty())
    return createStringError(
        inconvertibleErrorCode(),
        "device 'rtl': a waveform of configuration '%s' with %u cores is not built yet "
        "(each core is its own Verilated model and writes its own VCD); the timeline and "
        "the trace cover every core, or use a 1-core configuration for the waveform",
        C.Name.c_str(), unsigned(C.Cores));
  // Every core is an instance of the same model. With no waveform asked
  // for, the compiled-in tracing stays idle.
  std::vector<std::unique_ptr<CoreModel>> Models;
  for (unsigned I = 0; I < std::max(1u, unsigned(C.Cores)); ++I) {
    Expected<std::unique_ptr<CoreModel>> Model =
        openCoreModel(C, /*AllowTracing=*/!Opts.WaveformPath.empty());
    if (!Model)
      return Model.takeError();
    Models.push_back(std::move(*Model));
  }
  return std::unique_ptr<Simulator>(
      new Simulator(std::make_unique<Impl>(Opts, Mem, std::move(Models))));
}

void Simulator::zeroCounters(Counters &Out) {
  Out.Values.clear();
  for (const char *N :
       {"warp_instructions", "thread_instructions", "active_lane_pct_x100"})
    Out.Values.emplace_back(N, 0);
  for (const char *U : {"alu", "fpu", "sfu", "lsu", "ctrl"})
    Out.Values.emplace_back(std::string("warp_instructions.") + U, 0);
  for (const char *N : {"global_load_bytes",
                        "global_store_bytes",
                        "shared_load_bytes",
                        "shared_store_bytes",
                        "local_load_bytes",
                        "local_store_bytes",
                        "param_load_bytes",
                        "const_load_bytes",
                        "atomics_global",
                        "atomics_shared",
                        "barriers",
                        "branches_taken",
                        "divergent_branches",
                        "blocks",
                        "warps_launched",
                        "cycles",
                        "stall_dependency",
                        "stall_memory",
                        "stall_unit_busy",
                        "stall_barrier",
                        "stall_no_ready_warp",
                        "l1_hits",
                        "l1_misses",
                        "l1_writebacks",
                        "shared_bank_conflict_cycles",
                        "dram_requests",
                        "dram_read_bytes",
                        "dram_write_bytes"})
    Out.Values.emplace_back(N, 0);
}

Error Simulator::loadImage(const KernelImage &Img) {
  // An image larger than the instruction memory is loaded one kernel at a
  // time (loadCode); each kernel must fit on its own.
  unsigned ImemWords = I->ImemWords;
  for (const KernelInfo &K : Img.Kernels)
    if (K.CodeBytes / 4 > ImemWords)
      return make_error<CapacityError>(
          formatv("device 'rtl': kernel '{0}' has {1} instruction words but the "
                  "core's instruction memory holds {2} (a higher -O level, or more "
                  "registers if it spills, makes the code smaller; the configuration's "
                  "imem_words sizes the memory)",
                  K.Name, K.CodeBytes / 4, ImemWords)
              .str());
  if (Error E = iss::detail::checkImage(Img))
    return E;
  I->Image = std::make_unique<KernelImage>(Img);
  I->Code = Impl::CodeState::None;
  I->CodeKernel = nullptr;
  return Error::success();
}

Error Simulator::launch(const LaunchParams &P, Counters &Out) {
  zeroCounters(Out);
  return I->run(P, Out);
}

Error Simulator::Impl::loadCode() {
  setAll(&CorePorts::rst, 1);
  tick();
  tick();
  setAll(&CorePorts::rst, 0);
  // The core fetches imem[pc / 4 mod IMEM_WORDS] (the pc's low bits), so
  // code placed at its image word index modulo the memory's size runs at
  // its image pcs: traces, faults and counters read as on iss. The whole
  // image is loaded once when it fits; otherwise each launch loads its
  // kernel's words, unless they are already there. Other kernels' words may
  // then be stale, but the core faults on a pc outside [code_base,
  // code_base + code_bytes), so they are never executed.
  bool Fits = Image->Code.size() <= ImemWords;
  if (Code == CodeState::WholeImage || (Code == CodeState::OneKernel && CodeKernel == Kernel))
    return Error::success();
  size_t Begin = Fits ? 0 : Kernel->EntryOffset / 4;
  size_t End = Fits ? Image->Code.size() : Begin + Kernel->CodeBytes / 4;
  for (size_t W = Begin; W < End; ++W) {
    setAll(&CorePorts::imem_we, 1);
    setAll(&CorePorts::imem_addr, uint32_t(W & (ImemWords - 1)));
    setAll(&CorePorts::imem_wdata, Image->Code[W]);
    tick();
  }
  setAll(&CorePorts::imem_we, 0);
  Code = Fits ? CodeState::WholeImage : CodeState::OneKernel;
  CodeKernel = Fits ? nullptr : Kernel;
  return Error::success();
}

Error Simulator::Impl::run(const LaunchParams &P, Counters &Out) {
  Expected<const KernelInfo *> Found =
      iss::detail::findLaunchKernel(Image.get(), P.Kernel);
  if (!Found)
    return Found.takeError();
  const KernelInfo *K = *Found;
  if (Error E = iss::detail::checkLaunch(*K, P, Opts))
    return E;
  Kernel = K;
  Params = &P;
  Prog = iss::detail::predecode(*Image, *K, /*WithAsm=*/true);
  ParamBuffer.assign(paramBufferBytes(*K), 0);
  for (size_t A = 0; A < K->Params.size(); ++A)
    support::endian::write32le(ParamBuffer.data() + K->Params[A].Offset,
                               P.Args[A].Bits);
  SharedBytes = K->SharedBytes + P.DynamicSharedBytes;
  unsigned NumWarps = unsigned((P.Block.count() + 31) / 32);
  LocalStride = uint32_t(alignTo(K->LocalBytes, 4) * 32);
  // Each core's blocks get their own local memory: core I's share starts
  // I shares after the first (local addresses are per-thread offsets, so
  // the trace does not show which share).
  LocalAlloc = 0;
  uint64_t LocalShare = uint64_t(LocalStride) * NumWarps;
  if (LocalStride) {
    auto L = Mem.alloc(LocalShare * Cores.size());
    if (!L)
      return createStringError(inconvertibleErrorCode(),
                               "kernel '" + K->Name +
                                   "': cannot launch: no device memory for "
                                   "its local memory: " +
                                   toString(L.takeError()));
    LocalAlloc = *L;
  }
  for (Core &C : Cores)
    C.LocalBase = uint32_t(LocalAlloc + LocalShare * C.Index);
  Timeline.clear();
  if (Error E = openWaveform())
    return E;
  if (Error E = loadCode()) {
    consumeError(closeWaveform());
    return E;
  }
  InFlight.clear();
  ChannelFree.assign(Opts.Config.Dram.Channels, 0);
  ChannelOutstanding.assign(Opts.Config.Dram.Channels, 0);
  DramRequests = DramReadBytes = DramWriteBytes = 0;
  GrantNext = 0;
  Blocks = WarpsLaunched = 0;
  setAll(&CorePorts::clear_counters, 1);
  tick();
  setAll(&CorePorts::clear_counters, 0);
  if (Opts.Trace) {
    *Opts.Trace << "# launch kernel=" << K->Name << " grid=" << P.Grid.X << ','
                << P.Grid.Y << ',' << P.Grid.Z << " block=" << P.Block.X << ','
                << P.Block.Y << ',' << P.Block.Z;
    // Per-thread local bytes and where they live: the model lays out spill
    // slots as the rtl does (the iss prints the same, docs/Trace.md).
    if (K->LocalBytes)
      *Opts.Trace << " local=" << K->LocalBytes << " local_base=" << format_hex(LocalAlloc, 10);
    *Opts.Trace << '\n';
  }

  Error Result = runGrid();
  fillCounters(Out);
  if (LocalStride)
    consumeError(Mem.free(LocalAlloc));
  for (Core &C : Cores)
    closeTimelineIntervals(C);
  Result = joinErrors(std::move(Result), closeWaveform());
  if (!Opts.TimelinePath.empty())
    Result = joinErrors(std::move(Result), writeTimeline(Out));
  return Result;
}

Error Simulator::Impl::openWaveform() {
  if (Opts.WaveformPath.empty())
    return Error::success();
  VcdTemp =
      Opts.WaveformPath + ".tmp" + std::to_string(sys::Process::getProcessId());
  Vcd = Cores[0].Model->openWaveform(VcdTemp.c_str());
  if (!Vcd) {
    return createStringError(inconvertibleErrorCode(),
                             "cannot write the waveform '" + Opts.WaveformPath +
                                 "' (temporary file '" + VcdTemp +
                                 "' cannot be created)");
  }
  return Error::success();
}

Error Simulator::Impl::closeWaveform() {
  if (!Vcd)
    return Error::success();
  Cores[0].Model->closeWaveform();
  Vcd = false;
  if (Opts.WaveformAsFst) {
    Error Converted = convertVcdToFst(VcdTemp, Opts.WaveformPath);
    sys::fs::remove(VcdTemp);
    return Converted;
  }
  if (std::error_code EC = sys::fs::rename(VcdTemp, Opts.WaveformPath)) {
    sys::fs::remove(VcdTemp);
    return createStringError(EC, "cannot write the waveform '" +
                                     Opts.WaveformPath + "': " + EC.message());
  }
  return Error::success();
}

// The core's status ports after an edge describe the cycle up to the next
// edge, which cnt_cycles (the counted cycles so far) names: each core's
// events are on its own counted cycles. A state sampled
// in a cycle the core does not count lasts zero cycles and is dropped when
// the next sample replaces it.
void Simulator::Impl::sampleTimeline(Core &C) {
  const CorePorts *Pt = C.Pt;
  uint64_t Now = Pt->cnt_cycles.get();
  for (unsigned W = 0; W < Warps; ++W) {
    WarpActivity A = WarpActivity::None;
    if (!Pt->warp_finished.bit(W) && uint32_t(Pt->warp_alive.at(W)) != 0) {
      if (Pt->issue_valid.get() && Pt->issue_warp.get() == W)
        A = WarpActivity::Issue;
      else if (Pt->warp_blocked_dep.bit(W))
        A = WarpActivity::Dependency;
      else if (Pt->warp_blocked_unit.bit(W))
        A = WarpActivity::UnitBusy;
      else if (Pt->warp_mem_wait.bit(W))
        A = WarpActivity::Memory;
      else if (Pt->warp_at_bar.bit(W))
        A = WarpActivity::Barrier;
      else
        A = WarpActivity::NotPicked;
    }
    TimelineEvent &Open = C.OpenInterval[W];
    // Every issue is its own interval, so each names its instruction.
    if (A == Open.What && A != WarpActivity::Issue)
      continue;
    if (Open.What != WarpActivity::None && Now > Open.Start) {
      Open.Cycles = Now - Open.Start;
      Timeline.push_back(Open);
    }
    Open = {Now, 0, C.BlockLinear, uint32_t(Pt->warp_pc.at(W)), uint8_t(W), uint8_t(C.Index), A};
  }
}

void Simulator::Impl::closeTimelineIntervals(Core &C) {
  uint64_t Now = C.Pt->cnt_cycles.get();
  for (TimelineEvent &Open : C.OpenInterval) {
    if (Open.What != WarpActivity::None && Now > Open.Start) {
      Open.Cycles = Now - Open.Start;
      Timeline.push_back(Open);
    }
    Open.What = WarpActivity::None;
  }
}

// Trace Event Format (the JSON Perfetto and chrome://tracing read): one
// process per block, one thread per warp, complete ("X") events; one
// microsecond of the viewer's time axis is one core cycle.
Error Simulator::Impl::writeTimeline(const Counters &Out) {
  llvm::stable_sort(Timeline,
                    [](const TimelineEvent &A, const TimelineEvent &B) {
                      return std::tie(A.Start, A.Block, A.Warp) <
                             std::tie(B.Start, B.Block, B.Warp);
                    });
  const Dim3 &G = Params->Grid;
  unsigned NumWarps = unsigned((Params->Block.count() + 31) / 32);
  uint64_t NumBlocks = uint64_t(Out.get("blocks"));
  // With several cores, each block's process names the core that ran it.
  std::vector<int> CoreOf(NumBlocks, -1);
  for (const TimelineEvent &E : Timeline)
    if (E.Block < NumBlocks)
      CoreOf[E.Block] = E.Core;
  return writeAtomically(Opts.TimelinePath, [&](raw_ostream &OS) {
    json::OStream J(OS);
    J.object([&] {
      J.attribute("displayTimeUnit", "ns");
      J.attributeObject("otherData", [&] {
        J.attribute("kernel", Kernel->Name);
        J.attribute("grid", dimText(G));
        J.attribute("block", dimText(Params->Block));
        J.attribute("cycles", int64_t(Out.get("cycles")));
        J.attribute("time_unit", "1 us = 1 core cycle");
      });
      J.attributeArray("traceEvents", [&] {
        for (uint64_t B = 0; B < NumBlocks; ++B) {
          Dim3 Idx = blockIndexOf(B, G);
          J.object([&] {
            J.attribute("name", "process_name");
            J.attribute("ph", "M");
            J.attribute("pid", int64_t(B));
            J.attributeObject("args", [&] {
              std::string Name = "block " + dimText(Idx);
              if (Cores.size() > 1 && CoreOf[B] >= 0)
                Name += " on core " + std::to_string(CoreOf[B]);
              J.attribute("name", Name);
            });
          });
          for (unsigned W = 0; W < NumWarps; ++W)
            J.object([&] {
              J.attribute("name", "thread_name");
              J.attribute("ph", "M");
              J.attribute("pid", int64_t(B));
              J.attribute("tid", int64_t(W));
              J.attributeObject("args", [&] {
                J.attribute("name", "warp " + std::to_string(W));
              });
            });
        }
        for (const TimelineEvent &E : Timeline)
          J.object([&] {
            J.attribute("name", activityName(E.What));
            J.attribute("cat",
                        E.What == WarpActivity::Issue ? "issue" : "stall");
            J.attribute("ph", "X");
            J.attribute("ts", int64_t(E.Start));
            J.attribute("dur", int64_t(E.Cycles));
            J.attribute("pid", int64_t(E.Block));
            J.attribute("tid", int64_t(E.Warp));
            J.attributeObject("args", [&] {
              J.attribute("pc", pcHex(E.Pc));
              uint32_t Offset = E.Pc - Prog.Entry;
              if (E.What == WarpActivity::Issue && Offset < Prog.CodeBytes)
                J.attribute("inst", Prog.asmAt(Offset / 4));
            });
          });
      });
    });
  });
}

// Blocks go to the cores in linear order: at launch one to each core, then
// the next to whichever core is done first (the lowest-numbered of those
// done in the same cycle). Every cycle: one edge of every core, then each
// core's address check and memory request (so memory order is core order
// within a cycle), then the responses and commits, then the DRAM grant.
Error Simulator::Impl::runGrid() {
  const Dim3 &G = Params->Grid;
  uint64_t NumBlocks = uint64_t(G.X) * G.Y * G.Z, Next = 0;
  for (Core &C : Cores) {
    C.St = Core::State::Idle;
    if (Next < NumBlocks)
      if (Error E = startBlock(C, Next++))
        return E;
  }
  bool Sample = !Opts.TimelinePath.empty();
  for (;;) {
    bool Busy = false;
    for (Core &C : Cores)
      Busy |= C.St != Core::State::Idle;
    if (!Busy)
      return Error::success();
    tick();
    // A core whose block started at this edge is not serviced until the
    // next: its inputs stay as startBlock set them.
    SmallVector<Core *, 8> Serviced;
    for (Core &C : Cores) {
      if (C.St == Core::State::Starting) {
        C.Pt->start.set(0);
        C.St = Core::State::Running;
        ++Blocks;
        WarpsLaunched += C.BlockWarps;
        LastCommit = Cycle;
        if (Sample)
          sampleTimeline(C);
      } else if (C.St == Core::State::Running) {
        Serviced.push_back(&C);
      }
    }
    for (Core *C : Serviced) {
      if (Sample)
        sampleTimeline(*C);
      if (Error E = serviceRequests(*C))
        return E;
    }
    retireWrites();
    for (Core *C : Serviced)
      serviceResponseAndCommits(*C);
    grantRequests(Serviced);
    if (Error E = checkLimits())
      return E;
    for (Core *C : Serviced) {
      if (!C->Pt->done.get())
        continue;
      if (Sample)
        closeTimelineIntervals(*C);
      C->St = Core::State::Idle;
      if (Next < NumBlocks)
        if (Error E = startBlock(*C, Next++))
          return E;
    }
  }
}

// Sets core C's launch inputs for block \p Linear; `start` rises at the next
// edge.
Error Simulator::Impl::startBlock(Core &C, uint64_t Linear) {
  const LaunchParams &P = *Params;
  const Dim3 &G = P.Grid;
  C.BlockLinear = Linear;
  C.BlockIdx = blockIndexOf(Linear, G);
  uint64_t Threads = P.Block.count();
  unsigned NumWarps = unsigned((Threads + 31) / 32);
  if (LocalStride) {
    std::vector<uint8_t> Zero(size_t(LocalStride) * NumWarps, 0);
    if (Error E = Mem.copyIn(C.LocalBase, Zero))
      return E;
  }
  CorePorts *Pt = C.Pt;
  Pt->code_base.set(Kernel->EntryOffset);
  Pt->code_bytes.set(Kernel->CodeBytes);
  Pt->regs_used.set(Kernel->RegistersUsed);
  for (unsigned W = 0; W < Warps; ++W) {
    uint64_t L = W < NumWarps ? std::min<uint64_t>(32, Threads - W * 32ull) : 0;
    uint32_t Mask = L == 32 ? 0xffffffffu : uint32_t((1ull << L) - 1);
    Pt->warp_lanes.setWord(W, Mask);
  }
  Pt->ntid_x.set(P.Block.X);
  Pt->ntid_y.set(P.Block.Y);
  Pt->ntid_z.set(P.Block.Z);
  Pt->ctaid_x.set(C.BlockIdx.X);
  Pt->ctaid_y.set(C.BlockIdx.Y);
  Pt->ctaid_z.set(C.BlockIdx.Z);
  Pt->nctaid_x.set(G.X);
  Pt->nctaid_y.set(G.Y);
  Pt->nctaid_z.set(G.Z);
  Pt->nwarps.set(NumWarps);
  Pt->local_base.set(C.LocalBase);
  Pt->local_warp_stride.set(LocalStride);
  Pt->sched_gto.set(
      Opts.Config.Scheduler == WarpScheduler::GreedyThenOldest ? 1 : 0);
  Pt->local_write_back.set(
      Opts.Config.L1.LocalWrites == LocalWritePolicy::WriteBack ? 1 : 0);
  Pt->mem_wait_register.set(Opts.Config.MemWait == MemoryWait::Register ? 1 : 0);
  Pt->lsu_in_flight.set(Opts.Config.Lsu.InFlight);
  C.LastIssuedPc.assign(Warps, 0);
  C.TraceOrder.assign(Warps, {});
  C.BlockWarps = NumWarps;
  Pt->chk_ok.set(0);
  Pt->mem_resp_valid.set(0);
  Pt->mem_req_ready.set(1);
  Pt->start.set(1);
  C.St = Core::State::Starting;
  return Error::success();
}

Error Simulator::Impl::fault(const Core &C, unsigned Warp, int Lane, uint32_t Pc,
                             const Twine &Msg) const {
  std::string S;
  raw_string_ostream OS(S);
  OS << "kernel '" << Kernel->Name << "': block (" << C.BlockIdx.X << ',' << C.BlockIdx.Y << ','
     << C.BlockIdx.Z << ")";
  if (Cores.size() > 1)
    OS << " on core " << C.Index;
  OS << " warp " << Warp;
  if (Lane >= 0)
    OS << " lane " << Lane;
  OS << " pc " << pcHex(Pc);
  uint32_t Offset = Pc - Prog.Entry;
  if (Offset < Prog.CodeBytes) {
    unsigned Index = Offset / 4;
    if (Prog.Decoded[Index].Op != simt::Opcode::INVALID)
      OS << " (" << simt::formatInst(Prog.Decoded[Index], Pc) << ')';
    else
      OS << " (word " << hex8(Prog.Words[Index]) << ')';
  }
  OS << ": " << Msg;
  return createStringError(inconvertibleErrorCode(), S);
}

std::string Simulator::Impl::warpStates(const Core &C) const {
  const CorePorts *Pt = C.Pt;
  std::string S;
  raw_string_ostream OS(S);
  for (unsigned W = 0; W < Warps; ++W) {
    if (!uint32_t(Pt->warp_alive.at(W)) && !Pt->warp_finished.bit(W))
      continue;
    OS << "\n  warp " << W << ": pc " << pcHex(uint32_t(Pt->warp_pc.at(W))) << " exec "
       << format_hex_no_prefix(uint32_t(Pt->warp_exec.at(W)), 8) << " alive "
       << format_hex_no_prefix(uint32_t(Pt->warp_alive.at(W)), 8) << ' ';
    if (Pt->warp_finished.bit(W))
      OS << "finished";
    else if (Pt->warp_at_bar.bit(W))
      OS << "waiting at the barrier (bar at pc " << pcHex(uint32_t(Pt->warp_pc.at(W)) - 4)
         << ')';
    else if (Pt->warp_mem_wait.bit(W))
      OS << "waiting for the memory system";
    else
      OS << "ready or waiting on a register";
  }
  return S;
}

// After an edge: core C's fault, its last issued pc, its address check and
// its memory request.
Error Simulator::Impl::serviceRequests(Core &C) {
  CorePorts *Pt = C.Pt;
  if (Pt->fault.get()) {
    unsigned W = Pt->fault_warp.get();
    switch (Pt->fault_cause.get()) {
    case 1: {
      uint32_t Pc = Pt->fault_pc.get();
      unsigned Index = (Pc - Prog.Entry) / 4;
      return fault(C, W, -1, Pc,
                   "illegal instruction: " +
                       (Index < Prog.IllegalWhy.size() && !Prog.IllegalWhy[Index].empty()
                            ? Prog.IllegalWhy[Index]
                            : std::string("the word does not decode")));
    }
    case 2:
      return fault(C, W, -1, Pt->fault_pc.get(),
                   pcOutsideCodeText(Kernel->Name, Prog.Entry, Prog.CodeBytes, C.LastIssuedPc[W]));
    default: {
      // The ISS's words: who waits (and at which bar), who has finished.
      std::string Waiting, Finished;
      for (unsigned X = 0; X < Warps; ++X) {
        if (Pt->warp_at_bar.bit(X))
          Waiting +=
              (Waiting.empty() ? "" : ", ") + waitingWarpText(X, uint32_t(Pt->warp_pc.at(X)) - 4);
        else if (Pt->warp_finished.bit(X) && X < C.BlockWarps)
          Finished += (Finished.empty() ? "" : ", ") + std::to_string(X);
      }
      return fault(C, W, -1, uint32_t(Pt->warp_pc.at(W)) - 4,
                   barrierDeadlockText(Waiting, Finished) + "; warp states:" + warpStates(C));
    }
    }
  }
  // An issue of a pc outside the code is the fault itself (reported on the
  // next edge): it is not where the warp came from.
  if (Pt->issue_valid.get()) {
    unsigned W = Pt->issue_warp.get();
    uint32_t Pc = uint32_t(Pt->warp_pc.at(W));
    if (Pc - Prog.Entry < Prog.CodeBytes)
      C.LastIssuedPc[W] = Pc;
  }
  // Inputs consumed at the last edge are withdrawn.
  Pt->mem_resp_valid.set(0);
  Pt->chk_ok.set(0);
  if (Pt->chk_valid.get())
    if (Error E = checkAccess(C))
      return E;
  if (Pt->mem_req_valid.get())
    acceptRequest(C);
  return Error::success();
}

// After every core's requests: core C's response for the next edge, and the
// trace of what it committed and issued at this one.
void Simulator::Impl::serviceResponseAndCommits(Core &C) {
  CorePorts *Pt = C.Pt;
  presentResponse(C);
  if (Pt->dp_commit.get()) {
    LastCommit = Cycle;
    if (Opts.Trace)
      traceCommit(C, Pt->dp_commit_warp.get(), Pt->dp_commit_pc.get(), Pt->dp_commit_exec.get(),
                  false);
  }
  if (Pt->lsu_commit.get()) {
    LastCommit = Cycle;
    if (Opts.Trace)
      traceCommit(C, Pt->lsu_commit_warp.get(), Pt->lsu_commit_pc.get(), Pt->lsu_commit_exec.get(),
                  true);
  }
  // After the commits: an instruction committing now was issued before the
  // one issuing now.
  if (Opts.Trace && Pt->issue_valid.get())
    traceIssue(C, Pt->issue_warp.get(), uint32_t(Pt->warp_pc.at(Pt->issue_warp.get())));
}

// The step limit (over every core) and the hang check (no core committed).
Error Simulator::Impl::checkLimits() {
  const Core *Busy = &Cores[0];
  for (const Core &C : Cores)
    if (C.St == Core::State::Running) {
      Busy = &C;
      break;
    }
  if ((Cycle & 1023) == 0 && Opts.StepLimit) {
    uint64_t Steps = 0;
    for (const Core &C : Cores)
      for (unsigned O = 0; O < 256; ++O)
        Steps += C.Pt->cnt_op_warp.at(O);
    if (Steps > Opts.StepLimit)
      return fault(*Busy, 0, -1, uint32_t(Busy->Pt->warp_pc.at(0)),
                   formatv("step limit exceeded: {0} warp instructions "
                           "executed in this launch (an endless loop? raise "
                           "DeviceOptions::StepLimit or --step-limit); warp "
                           "states:{1}",
                           Opts.StepLimit, warpStates(*Busy)));
  }
  if (Cycle - LastCommit > HangCycles)
    return createStringError(
        inconvertibleErrorCode(),
        formatv("kernel '{0}': block {1}{2}: hang: no instruction committed in "
                "{3} cycles (cycle {4}); warp states:{5}",
                Kernel->Name, dimText(Busy->BlockIdx),
                Cores.size() > 1 ? " on core " + std::to_string(Busy->Index) : std::string(),
                HangCycles, Cycle, warpStates(*Busy)));
  return Error::success();
}

// The protection check the ISS does per lane, in lane order, with its
// messages. The local allocation the harness made is not user memory: local
// accesses are checked against the kernel's local bytes, not allocations.
Error Simulator::Impl::checkAccess(Core &C) {
  CorePorts *Pt = C.Pt;
  unsigned W = Pt->chk_warp.get();
  uint32_t Pc = Pt->chk_pc.get();
  uint32_t Mask = Pt->chk_mask.get();
  unsigned Index = (Pc - Prog.Entry) / 4;
  const simt::InstrDesc &D = simt::getDesc(Prog.Decoded[Index].Op);
  unsigned Bytes = D.AccessBytes;
  const char *Kind = D.has(simt::IsAtomic)  ? "atomic"
                     : D.has(simt::IsStore) ? "store"
                                            : "load";
  for (unsigned Lane = 0; Lane < 32; ++Lane) {
    if (!((Mask >> Lane) & 1))
      continue;
    uint32_t Addr = Pt->chk_addr.word(Lane);
    auto Msg = [&](StringRef Prefix, const Twine &Why) {
      return fault(C, W, int(Lane), Pc,
                   Prefix + spaceName(D.Space) + " " + Kind + " of " + Twine(Bytes) + " bytes at " +
                       hex8(Addr) + " (" + Why + ")");
    };
    if (Addr & (Bytes - 1))
      return Msg("misaligned ",
                 Twine("must be ") + Twine(Bytes) + "-byte aligned");
    auto Inside = [&](uint64_t Limit) {
      return Addr < Limit && Limit - Addr >= Bytes;
    };
    switch (D.Space) {
    case simt::MemSpace::Global: {
      const iss::Allocation *A = Mem.find(Addr);
      if (A && A->Base != LocalAlloc && A->Size - (Addr - A->Base) >= Bytes)
        continue;
      if (A && A->Base == LocalAlloc && LocalStride)
        return Msg("out-of-bounds ", "nearest allocation is not user memory");
      return Msg("out-of-bounds ", globalBoundsDetail(Mem, Addr, Bytes));
    }
    case simt::MemSpace::Shared:
      if (Inside(SharedBytes))
        continue;
      return Msg("out-of-bounds ",
                 formatv("the block has {0} bytes of shared memory: {1} "
                         "static + {2} dynamic",
                         SharedBytes, Kernel->SharedBytes,
                         SharedBytes - Kernel->SharedBytes));
    case simt::MemSpace::Local:
      if (Inside(Kernel->LocalBytes))
        continue;
      return Msg("out-of-bounds ",
                 formatv("the kernel has {0} bytes of local memory per thread",
                         Kernel->LocalBytes));
    case simt::MemSpace::Param:
      if (Inside(ParamBuffer.size()))
        continue;
      return Msg("out-of-bounds ", formatv("the parameter buffer is {0} bytes",
                                           ParamBuffer.size()));
    case simt::MemSpace::Const:
      if (Inside(Image->Const.size()))
        continue;
      return Msg("out-of-bounds ",
                 formatv("the image has {0} bytes of constant data",
                         Image->Const.size()));
    case simt::MemSpace::None:
      break;
    }
  }
  Pt->chk_ok.set(1);
  return Error::success();
}

void Simulator::Impl::readLine(uint32_t Addr, uint8_t *Out) {
  std::fill(Out, Out + LineBytes, 0);
  // Allocations are 256-byte aligned and lines at most 256 bytes, so a line
  // overlaps at most one allocation, starting at or before the line.
  const iss::Allocation *A = Mem.find(Addr);
  if (!A)
    return;
  uint64_t End = std::min<uint64_t>(uint64_t(Addr) + LineBytes,
                                    uint64_t(A->Base) + A->Size);
  std::copy(A->Data.get() + (Addr - A->Base), A->Data.get() + (End - A->Base),
            Out);
}

void Simulator::Impl::writeLine(uint32_t Addr, const uint8_t *Data,
                                const std::bitset<MaxLineBytes> &Be) {
  const iss::Allocation *A = Mem.find(Addr);
  if (!A)
    return; // every enabled byte passed the check, so none is lost here
  for (unsigned B = 0; B < LineBytes; ++B)
    if (Be[B] && Addr + B - A->Base < A->Size)
      A->Data[Addr + B - A->Base] = Data[B];
}

uint32_t Simulator::Impl::atomic(uint8_t Op, uint32_t Addr, uint32_t B,
                                 uint32_t C) {
  const iss::Allocation *A = Mem.find(Addr);
  if (!A)
    return 0;
  uint8_t *P = A->Data.get() + (Addr - A->Base);
  uint32_t Old = support::endian::read32le(P), New = Old;
  auto Dec = simt::decode(uint32_t(Op) << 24);
  simt::Opcode O = Dec ? Dec->Op : simt::Opcode::INVALID;
  namespace sem = iss::sem;
  switch (O) {
  case simt::Opcode::ATOM_GLOBAL_ADD:
    New = Old + B;
    break;
  case simt::Opcode::ATOM_GLOBAL_FADD:
    New = sem::fadd(Old, B);
    break;
  case simt::Opcode::ATOM_GLOBAL_MIN:
    New = sem::smin(Old, B);
    break;
  case simt::Opcode::ATOM_GLOBAL_MAX:
    New = sem::smax(Old, B);
    break;
  case simt::Opcode::ATOM_GLOBAL_MINU:
    New = sem::umin(Old, B);
    break;
  case simt::Opcode::ATOM_GLOBAL_MAXU:
    New = sem::umax(Old, B);
    break;
  case simt::Opcode::ATOM_GLOBAL_EXCH:
    New = B;
    break;
  case simt::Opcode::ATOM_GLOBAL_CAS:
    New = Old == B ? C : Old;
    break;
  default:
    break;
  }
  support::endian::write32le(P, New);
  return Old;
}

// Performs the request now (so memory order is request order) and schedules
// its completion on its channel.
void Simulator::Impl::acceptRequest(Core &C) {
  const CorePorts *Pt = C.Pt;
  Response R{};
  R.Seq = Seq++;
  R.Core = C.Index;
  R.Addr = Pt->mem_req_addr.get();
  R.Tag = unsigned(Pt->mem_req_tag.get());
  unsigned Kind = Pt->mem_req_kind.get(), Space = Pt->mem_req_space.get();
  const DramConfig &D = Opts.Config.Dram;
  if (Space != 0) { // param (1) or const (2): on-core constant memory
    const std::vector<uint8_t> &Src = Space == 1 ? ParamBuffer : Image->Const;
    for (unsigned B = 0; B < LineBytes; ++B)
      R.Data[B] = uint64_t(R.Addr) + B < Src.size() ? Src[R.Addr + B] : 0;
    R.Reply = true;
    R.ReadyAt = Cycle + 2;
    R.Channel = ~0u;
    InFlight.push_back(R);
    return;
  }
  unsigned Bytes = LineBytes;
  if (Kind == 0) {
    readLine(R.Addr, R.Data.data());
    R.Reply = true;
    DramReadBytes += LineBytes;
  } else if (Kind == 1) {
    uint8_t Data[MaxLineBytes];
    std::bitset<MaxLineBytes> Be;
    for (unsigned Wd = 0; Wd < LineBytes / 4; ++Wd)
      support::endian::write32le(Data + 4 * Wd, Pt->mem_req_wdata.word(Wd));
    for (unsigned B = 0; B < LineBytes; ++B)
      Be[B] = Pt->mem_req_be.bit(B);
    writeLine(R.Addr, Data, Be);
    R.Reply = false;
    DramWriteBytes += Be.count();
  } else {
    uint32_t Old =
        atomic(Pt->mem_req_op.get(), R.Addr, Pt->mem_req_b.get(), Pt->mem_req_c.get());
    support::endian::write32le(R.Data.data(), Old);
    R.Reply = true;
    Bytes = 4;
    DramReadBytes += 4;
    DramWriteBytes += 4;
  }
  ++DramRequests;
  R.Channel = (R.Addr / LineBytes) % D.Channels;
  uint64_t Occupy = (Bytes + D.BytesPerCycle - 1) / D.BytesPerCycle;
  uint64_t Begin = std::max(Cycle, ChannelFree[R.Channel]);
  ChannelFree[R.Channel] = Begin + Occupy;
  R.ReadyAt = Begin + Occupy + D.LatencyCycles;
  ++ChannelOutstanding[R.Channel];
  InFlight.push_back(R);
}

// A completed write only frees its channel slot.
void Simulator::Impl::retireWrites() {
  for (auto It = InFlight.begin(); It != InFlight.end();) {
    if (!It->Reply && It->ReadyAt <= Cycle) {
      --ChannelOutstanding[It->Channel];
      It = InFlight.erase(It);
    } else {
      ++It;
    }
  }
}

// One completed request per cycle goes back to core C (oldest first).
void Simulator::Impl::presentResponse(Core &C) {
  auto Best = InFlight.end();
  for (auto It = InFlight.begin(); It != InFlight.end(); ++It)
    if (It->Core == C.Index && It->Reply && It->ReadyAt <= Cycle &&
        (Best == InFlight.end() || It->ReadyAt < Best->ReadyAt ||
         (It->ReadyAt == Best->ReadyAt && It->Seq < Best->Seq)))
      Best = It;
  if (Best == InFlight.end())
    return;
  CorePorts *Pt = C.Pt;
  Pt->mem_resp_valid.set(1);
  Pt->mem_resp_addr.set(Best->Addr);
  Pt->mem_resp_tag.set(Best->Tag);
  for (unsigned Wd = 0; Wd < LineBytes / 4; ++Wd)
    Pt->mem_resp_data.setWord(Wd,
            support::endian::read32le(Best->Data.data() + 4 * Wd));
  if (Best->Channel != ~0u)
    --ChannelOutstanding[Best->Channel];
  InFlight.erase(Best);
}

// Raises mem_req_ready for the cores that may send a request at the next
// edge: as many as every channel has free slots, since any request may go to
// any channel, taken in round-robin order starting one core further each
// cycle, so every core gets a turn. A core granted with nothing to send
// leaves its slot unused for that cycle. With one core: ready while every
// channel is below max_outstanding.
void Simulator::Impl::grantRequests(ArrayRef<Core *> Serviced) {
  const unsigned Max = Opts.Config.Dram.MaxOutstanding;
  unsigned Free = Max;
  for (unsigned N : ChannelOutstanding)
    Free = std::min(Free, N < Max ? Max - N : 0u);
  // Serviced is in core order: start at the first core at or after GrantNext.
  size_t First = llvm::find_if(Serviced, [&](const Core *C) { return C->Index >= GrantNext; }) -
                 Serviced.begin();
  unsigned Granted = 0;
  for (size_t K = 0; K < Serviced.size(); ++K) {
    Core *C = Serviced[(First + K) % Serviced.size()];
    C->Pt->mem_req_ready.set(Granted < Free);
    Granted += Granted < Free;
  }
  GrantNext = (GrantNext + 1) % Cores.size();
}

namespace {
void appendLanes(raw_ostream &OS, const uint32_t *V, uint32_t Mask) {
  OS << '[';
  bool First = true;
  for (unsigned Lane = 0; Lane < 32; ++Lane) {
    if (!((Mask >> Lane) & 1))
      continue;
    if (!First)
      OS << ' ';
    OS << format_hex_no_prefix(V[Lane], 8);
    First = false;
  }
  OS << ']';
}
} // namespace

// Notes an issue in its warp's TraceOrder: whether the LSU will commit it.
void Simulator::Impl::traceIssue(Core &C, unsigned Warp, uint32_t Pc) {
  if (Pc - Prog.Entry >= Prog.CodeBytes || Warp >= C.TraceOrder.size())
    return; // a fault, reported at the next edge
  const simt::InstrDesc &D = simt::getDesc(Prog.Decoded[(Pc - Prog.Entry) / 4].Op);
  bool Lsu = simt::getSchedClassDesc(D.Sched).Unit == simt::FuncUnit::LSU;
  C.TraceOrder[Warp].push_back({Lsu, Pc, false, {}});
}

// The ISS's trace line (docs/Trace.md) for a committed warp instruction,
// printed in its warp's program order (TraceOrder).
void Simulator::Impl::traceCommit(Core &C, unsigned Warp, uint32_t Pc, uint32_t Exec,
                                  bool FromLsu) {
  CorePorts *Pt = C.Pt;
  std::string Line;
  raw_string_ostream OS(Line);
  unsigned Index = (Pc - Prog.Entry) / 4;
  const iss::detail::PInst &PI = Prog.Insts[Index];
  const simt::DecodedInst &DI = Prog.Decoded[Index];
  const simt::InstrDesc &D = simt::getDesc(DI.Op);
  OS << "b=" << C.BlockLinear << " w=" << Warp << " pc=" << pcHex(Pc)
     << " mask=" << format_hex_no_prefix(Exec, 8) << ' ' << Prog.asmAt(Index);
  std::string Effects;
  raw_string_ostream ES(Effects);
  bool WritesRd = D.NumOperands > 0 && D.Operands[0].IsDef &&
                  D.Operands[0].Where == simt::Field::Rd;
  uint32_t Row[32];
  if (WritesRd && DI.Rd != 0) {
    Pt->dbg_warp.set(Warp);
    Pt->dbg_reg.set(DI.Rd);
    C.Model->eval();
    for (unsigned L = 0; L < 32; ++L)
      Row[L] = Pt->dbg_row.word(L);
    ES << " r" << unsigned(DI.Rd) << '=';
    appendLanes(ES, Row, D.has(simt::WritesAllLanes) ? 0xffffffffu : Exec);
  }
  (void)PI;
  if (FromLsu &&
      (D.has(simt::IsLoad) || D.has(simt::IsStore) || D.has(simt::IsAtomic))) {
    uint32_t A[32], V[32];
    for (unsigned L = 0; L < 32; ++L) {
      A[L] = Pt->lsu_commit_addr.word(L);
      V[L] = Pt->lsu_commit_stval.word(L);
    }
    ES << " a=";
    appendLanes(ES, A, Exec);
    if (D.has(simt::IsStore)) {
      ES << " v=";
      appendLanes(ES, V, Exec);
    }
  }
  if (D.has(simt::IsBranch) || D.has(simt::IsJump)) {
    if (Pt->dp_commit_taken.get())
      ES << " taken->" << pcHex(Pc + uint32_t(DI.Imm) * 4);
    else
      ES << " not-taken";
  } else if (D.has(simt::IsMaskOp) && !WritesRd) {
    ES << " exec=" << format_hex_no_prefix(Pt->dp_commit_exec_after.get(), 8);
    if (D.has(simt::IsExit))
      ES << " alive=" << format_hex_no_prefix(Pt->dp_commit_alive_after.get(), 8);
  }
  if (D.has(simt::IsBarrier))
    ES << " wait";
  if (!Effects.empty())
    OS << " |" << Effects;
  OS << '\n';
  // Print it, and the later lines of its warp that waited for it, once
  // every instruction its warp issued before it has been printed.
  std::deque<PendingLine> *Q = Warp < C.TraceOrder.size() ? &C.TraceOrder[Warp] : nullptr;
  auto Mine =
      Q ? llvm::find_if(
              *Q, [&](const PendingLine &P) { return P.Lsu == FromLsu && P.Pc == Pc && !P.Done; })
        : std::deque<PendingLine>::iterator();
  if (!Q || Mine == Q->end()) {
    *Opts.Trace << Line; // not seen issuing (cannot happen): print at once
    return;
  }
  Mine->Done = true;
  Mine->Line = std::move(Line);
  for (; !Q->empty() && Q->front().Done; Q->pop_front())
    *Opts.Trace << Q->front().Line;
}

// The ISS's counters from the cores' per-opcode counts (same derivation as
// sim/iss/Iss.cpp), then the cores' timing counters and the DRAM model's.
// With several cores the counts are sums over the cores (the stall counters
// count core-cycles), except `cycles`: the launch's, the longest core's
// (every core starts at the launch and takes its next block the cycle after
// its last, docs/Counters.md).
void Simulator::Impl::fillCounters(Counters &Out) const {
  auto Sum = [&](Port CorePorts::*P) {
    uint64_t V = 0;
    for (const Core &C : Cores)
      V += (C.Pt->*P).get();
    return V;
  };
  auto SumAt = [&](ArrayPort CorePorts::*P, unsigned I) {
    uint64_t V = 0;
    for (const Core &C : Cores)
      V += (C.Pt->*P).at(I);
    return V;
  };
  uint64_t Cycles = 0;
  for (const Core &C : Cores)
    Cycles = std::max<uint64_t>(Cycles, C.Pt->cnt_cycles.get());
  uint64_t Warp = 0, Thread = 0, Barriers = 0;
  SmallVector<uint64_t, 8> PerUnit(5, 0);
  uint64_t LoadBytes[6] = {}, StoreBytes[6] = {}, Atomics[6] = {};
  for (unsigned I = 0, E = simt::numOpcodes(); I < E; ++I) {
    const simt::InstrDesc &D = simt::getDesc(simt::opcodeAt(I));
    uint64_t WI = SumAt(&CorePorts::cnt_op_warp, D.Encoding);
    uint64_t TI = SumAt(&CorePorts::cnt_op_thread, D.Encoding);
    Warp += WI;
    Thread += TI;
    unsigned Unit = unsigned(simt::getSchedClassDesc(D.Sched).Unit);
    if (PerUnit.size() <= Unit)
      PerUnit.resize(Unit + 1);
    PerUnit[Unit] += WI;
    unsigned Space = unsigned(D.Space);
    if (D.has(simt::IsLoad))
      LoadBytes[Space] += TI * D.AccessBytes;
    if (D.has(simt::IsStore))
      StoreBytes[Space] += TI * D.AccessBytes;
    if (D.has(simt::IsAtomic))
      Atomics[Space] += TI;
    if (D.has(simt::IsBarrier))
      Barriers += WI;
  }
  auto Put = [&](StringRef Name, uint64_t V) { Out.set(Name, V); };
  auto Ix = [](simt::MemSpace M) { return unsigned(M); };
  Put("warp_instructions", Warp);
  Put("thread_instructions", Thread);
  Put("active_lane_pct_x100", Warp ? Thread * 10000 / (32 * Warp) : 0);
  for (unsigned U = 0; U < PerUnit.size(); ++U)
    Put("warp_instructions." +
            StringRef(simt::getFuncUnitName(simt::FuncUnit(U))).lower(),
        PerUnit[U]);
  Put("global_load_bytes", LoadBytes[Ix(simt::MemSpace::Global)]);
  Put("global_store_bytes", StoreBytes[Ix(simt::MemSpace::Global)]);
  Put("shared_load_bytes", LoadBytes[Ix(simt::MemSpace::Shared)]);
  Put("shared_store_bytes", StoreBytes[Ix(simt::MemSpace::Shared)]);
  Put("local_load_bytes", LoadBytes[Ix(simt::MemSpace::Local)]);
  Put("local_store_bytes", StoreBytes[Ix(simt::MemSpace::Local)]);
  Put("param_load_bytes", LoadBytes[Ix(simt::MemSpace::Param)]);
  Put("const_load_bytes", LoadBytes[Ix(simt::MemSpace::Const)]);
  Put("atomics_global", Atomics[Ix(simt::MemSpace::Global)]);
  Put("atomics_shared", Atomics[Ix(simt::MemSpace::Shared)]);
  Put("barriers", Barriers);
  Put("branches_taken", Sum(&CorePorts::cnt_branches_taken));
  Put("divergent_branches", Sum(&CorePorts::cnt_divergent_branches));
  Put("blocks", Blocks);
  Put("warps_launched", WarpsLaunched);
  Put("cycles", Cycles);
  Put("stall_dependency", Sum(&CorePorts::cnt_stall_dependency));
  Put("stall_memory", Sum(&CorePorts::cnt_stall_memory));
  Put("stall_unit_busy", Sum(&CorePorts::cnt_stall_unit_busy));
  Put("stall_barrier", Sum(&CorePorts::cnt_stall_barrier));
  Put("stall_no_ready_warp", Sum(&CorePorts::cnt_stall_no_ready_warp));
  Put("l1_hits", Sum(&CorePorts::cnt_l1_hits));
  Put("l1_misses", Sum(&CorePorts::cnt_l1_misses));
  Put("l1_writebacks", Sum(&CorePorts::cnt_l1_writebacks));
  Put("shared_bank_conflict_cycles", Sum(&CorePorts::cnt_shared_bank_conflict_cycles));
  Put("dram_requests", DramRequests);
  Put("dram_read_bytes", DramReadBytes);
  Put("dram_write_bytes", DramWriteBytes);
}

} // namespace tandem::rtl
