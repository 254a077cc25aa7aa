//===- Profile.cpp - Run the probe kernels, build the device profile ------===//
//
// One Prober per measurement: it compiles each probe file once, keeps the
// device's image in step with the probe being run, and turns each probe
// into one "differential" measurement (n trips, then 2n trips, subtract the
// counters). The probes themselves are short functions at the end, one per
// quantity, each saying what it launches and how it divides the delta.
//
// Sizes are chosen so that the full profile runs in a few seconds on rtl
// (about 300k simulated cycles/s): each probe's 2n launch is at most a few
// tens of thousands of cycles. Nothing here prints.
//
//===----------------------------------------------------------------------===//

#include "Profile.h"

#include "compiler/Compiler.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <numeric>
#include <optional>
#include <random>

#ifndef TANDEM_PROBES_DIR
#error "TANDEM_PROBES_DIR must name the folder of the probe .cu files"
#endif
#ifndef TANDEM_INSTALL_PROBES_DIR
#error "TANDEM_INSTALL_PROBES_DIR must name the installed probe folder"
#endif

using namespace llvm;

namespace tandem::profile {

namespace {

/// Steps in the body of a probe loop (REP64 in probe_common.h).
constexpr uint32_t Body = 64;

const ProbeInfo Infos[] = {
    {"launch_empty", "cycles/launch", "an empty kernel, one block of one warp, start to end", true},
    {"launch_per_block", "cycles/block", "each further block of an empty kernel (8 vs 16 blocks)", true},
    {"chase_l1", "cycles/load", "pointer chase, ring cached in L1 (one line per element)", true},
    {"chase_dram", "cycles/load", "pointer chase, ring 4x the L1 size: every load misses to DRAM", true},
    {"chase_shared", "cycles/load", "pointer chase in shared memory (broadcast, no conflict)", true},
    {"stream_read", "bytes/cycle", "grid-stride read of 4-byte words, one full block", true},
    {"stream_write", "bytes/cycle", "grid-stride write, one full block", false},
    {"stream_copy", "bytes/cycle", "grid-stride copy, bytes read plus written", false},
    {"stream_read_cores", "bytes/cycle",
     "grid-stride read, one full block per core: the cores together (stream_read on 1 core)",
     false},
    {"fma_lat", "cycles/op", "dependent fp32 fma chain, one warp", true},
    {"fma_tput", "thread_ops/cycle", "4 independent fma chains per thread, full block", true},
    {"iadd_lat", "cycles/op", "dependent integer add/xor chain, one warp", true},
    {"iadd_tput", "thread_ops/cycle", "4 independent add/xor chains per thread, full block", false},
    {"imul_lat", "cycles/op", "dependent mul (step mul+xor, less one iadd_lat)", false},
    {"idiv_lat", "cycles/op", "dependent unsigned divide chain (divisor 1)", true},
    {"fdiv_lat", "cycles/op", "dependent fp32 divide chain (divisor 1.0)", false},
    {"sqrt_lat", "cycles/op", "dependent sqrtf (step sqrtf+fadd, less one fma_lat)", false},
    {"expf_call", "cycles/call", "dependent expf(-x) calls (math library, inlined)", false},
    {"sinf_call", "cycles/call", "dependent sinf(x)+b calls (math library, inlined)", false},
    {"barrier", "cycles/barrier", "__syncthreads in a loop, full block", true},
    {"atomic_global_contended", "atomics/cycle", "one warp, every lane atomicAdd on one word", false},
    {"atomic_global_uncontended", "atomics/cycle", "one warp, each lane its own word", true},
    {"atomic_shared_contended", "atomics/cycle", "shared memory, every lane on one word", false},
    {"atomic_shared_uncontended", "atomics/cycle", "shared memory, each lane its own word", true},
    {"shfl_lat", "cycles/op", "dependent shfl.xor (step shfl+add, less one iadd_lat)", true},
    {"divergence", "x", "time of an if/else both sides run (odd/even lanes) over one side", true},
    {"shared_bank_stride", "cycles/load", "sweep: lane L loads shared word L*stride, stride 1..banks", true},
    {"global_stride", "cycles/load", "sweep: lane L loads global word L*stride, new lines each time", true},
};

Error probeError(StringRef Probe, StringRef Dev, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(),
                           "profile probe '" + Probe + "' on " + Dev + ": " + Msg);
}

/// Counters of the 2n launch minus those of the n launch.
using Delta = std::map<std::string, double>;

/// Frees every buffer it handed out when it goes away.
class Buffers {
public:
  explicit Buffers(Device &D) : D(D) {}
  ~Buffers() {
    for (DevicePtr P : Owned)
      consumeError(D.free(P));
  }
  Expected<DevicePtr> words(ArrayRef<uint32_t> Init) {
    Expected<DevicePtr> P = D.alloc(std::max<size_t>(Init.size(), 1) * 4);
    if (!P)
      return P.takeError();
    Owned.push_back(*P);
    if (Error E = D.write(*P, Init))
      return E;
    return *P;
  }
  Expected<DevicePtr> zeros(size_t Words) { return words(std::vector<uint32_t>(Words, 0)); }

private:
  Device &D;
  std::vector<DevicePtr> Owned;
};

class Prober {
public:
  Prober(Device &D, const AcceleratorConfig &C, const ProfileOptions &Opts)
      : D(D), C(C), Quick(Opts.Quick), Only(Opts.Only), Timed(D.counters().has("cycles")) {}

  Expected<json::Object> run();

private:
  Device &D;
  const AcceleratorConfig &C;
  bool Quick;
  std::vector<std::string> Only;
  bool Timed; ///< the device counts cycles (else warp instructions)
  std::map<std::string, KernelImage> Images;
  std::string Loaded;
  json::Object Probes, Sweeps;

  uint32_t fullBlock() const { return C.maxThreadsPerBlock(); }
  StringRef metricName() const { return Timed ? "cycles" : "warp_instructions"; }
  /// The unit as written for a timed device, in the metric actually used.
  std::string unit(StringRef U) const {
    if (Timed)
      return U.str();
    std::string S = U.str();
    for (auto [From, To] : {std::pair<StringRef, StringRef>{"cycles", "warp_instructions"},
                            {"cycle", "warp_instruction"}})
      if (size_t Pos = S.find(From.str()); Pos != std::string::npos) {
        S.replace(Pos, From.size(), To.str());
        break;
      }
    return S;
  }

  Error use(StringRef Probe, StringRef File);
  Expected<Counters> launch(StringRef Probe, StringRef Kernel, uint32_t Grid, uint32_t Block,
                            std::vector<uint32_t> Args);
  /// Runs Make(N) and Make(2N) and subtracts their counters.
  Expected<Delta> differential(StringRef Probe, StringRef Kernel, uint32_t Grid, uint32_t Block,
                               uint32_t N, const std::function<std::vector<uint32_t>(uint32_t)> &Args);
  double metric(const Delta &Dl) const {
    auto It = Dl.find(metricName().str());
    return It == Dl.end() ? 0 : It->second;
  }
  json::Object &record(StringRef Name, double Value, double Ops, const Delta &Dl);
  const ProbeInfo &info(StringRef Name) const;
  double valueOf(StringRef Name) const {
    if (const json::Object *P = Probes.getObject(Name))
      return P->getNumber("value").value_or(0);
    return 0;
  }
  bool wanted(StringRef Name) const {
    return (!Quick || info(Name).Quick) && (Only.empty() || is_contained(Only, Name));
  }

  // The probes, each one quantity (docs/Profile.md).
  Error launchOverhead();
  Error chaseGlobal(StringRef Name, bool Cached);
  Error chaseShared();
  Error streams();
  Error latencyChain(StringRef Name, StringRef File, StringRef Kernel, uint32_t N, uint32_t StepsPerTrip,
                     std::vector<uint32_t> Params, double Subtract = 0);
  Error throughput(StringRef Name, StringRef Kernel, uint32_t N, uint32_t OpsPerStep);
  Error barrier();
  Error atomics();
  Error divergence();
  Error bankSweep();
  Error strideSweep();
};

const ProbeInfo &Prober::info(StringRef Name) const {
  for (const ProbeInfo &I : Infos)
    if (Name == I.Name)
      return I;
  llvm_unreachable("a probe without a ProbeInfo entry");
}

uint32_t f32(float F) { return bit_cast<uint32_t>(F); }

Error Prober::use(StringRef Probe, StringRef File) {
  auto It = Images.find(File.str());
  if (It == Images.end()) {
    compiler::CompileOptions O = compiler::optionsFor(C);
    SmallString<256> Path(probesDir());
    sys::path::append(Path, File);
    Expected<compiler::CompileResult> R = compiler::compileFile(Path, O);
    if (!R)
      return probeError(Probe, D.name(), "compiling " + Path + ": " + toString(R.takeError()));
    if (!R->Image)
      return probeError(Probe, D.name(), "compiling " + Path + " gave no kernel image");
    It = Images.emplace(File.str(), std::move(*R->Image)).first;
  }
  if (Loaded == File)
    return Error::success();
  if (Error E = D.loadImage(It->second))
    return probeError(Probe, D.name(), "loading " + File + ": " + toString(std::move(E)));
  Loaded = File.str();
  return Error::success();
}

Expected<Counters> Prober::launch(StringRef Probe, StringRef Kernel, uint32_t Grid,
                                  uint32_t Block, std::vector<uint32_t> Args) {
  LaunchParams P;
  P.Kernel = Kernel.str();
  P.Grid = {Grid, 1, 1};
  P.Block = {Block, 1, 1};
  for (uint32_t A : Args)
    P.Args.push_back(KernelArg::u32(A));
  if (Error E = D.launch(P))
    return probeError(Probe, D.name(),
                      formatv("{0}<<<{1}, {2}>>>: {3}", Kernel, Grid, Block, toString(std::move(E))));
  return D.counters();
}

Expected<Delta> Prober::differential(StringRef Probe, StringRef Kernel, uint32_t Grid,
                                     uint32_t Block, uint32_t N,
                                     const std::function<std::vector<uint32_t>(uint32_t)> &Args) {
  Expected<Counters> Once = launch(Probe, Kernel, Grid, Block, Args(N));
  if (!Once)
    return Once.takeError();
  Counters First = *Once;
  Expected<Counters> Twice = launch(Probe, Kernel, Grid, Block, Args(2 * N));
  if (!Twice)
    return Twice.takeError();
  Delta Dl;
  for (const auto &[Name, V] : Twice->Values)
    if (Name != "active_lane_pct_x100")
      if (double Diff = double(V) - double(First.get(Name)); Diff != 0)
        Dl[Name] = Diff;
  return Dl;
}

json::Object &Prober::record(StringRef Name, double Value, double Ops, const Delta &Dl) {
  json::Object Counts;
  for (const auto &[K, V] : Dl)
    Counts[K] = V;
  const ProbeInfo &I = info(Name);
  Probes[Name] = json::Object{{"value", Value}, {"unit", unit(I.Unit)}, {"what", I.What},
                              {"ops", Ops}, {"delta", std::move(Counts)}};
  return *Probes.getObject(Name);
}

//===--- The probes -------------------------------------------------------===//

Error Prober::launchOverhead() {
  if (!wanted("launch_empty") && !wanted("launch_per_block"))
    return Error::success();
  if (Error E = use("launch_empty", "sync.cu"))
    return E;
  Expected<Counters> One = launch("launch_empty", "empty", 1, 32, {});
  if (!One)
    return One.takeError();
  Delta Abs;
  for (const auto &[K, V] : One->Values)
    if (V && K != "active_lane_pct_x100")
      Abs[K] = double(V);
  if (wanted("launch_empty"))
    record("launch_empty", metric(Abs), 1, Abs)["absolute"] = true;
  if (!wanted("launch_per_block"))
    return Error::success();
  // The "n" of this probe is the grid: 8 blocks, then 16.
  const uint32_t Blocks = 8;
  Expected<Counters> A = launch("launch_per_block", "empty", Blocks, 32, {});
  if (!A)
    return A.takeError();
  Counters First = *A;
  Expected<Counters> B = launch("launch_per_block", "empty", 2 * Blocks, 32, {});
  if (!B)
    return B.takeError();
  Delta Dl;
  for (const auto &[K, V] : B->Values)
    if (double Diff = double(V) - double(First.get(K)); Diff != 0 && K != "active_lane_pct_x100")
      Dl[K] = Diff;
  record("launch_per_block", metric(Dl) / Blocks, Blocks, Dl);
  return Error::success();
}

// A ring of Len elements, one per line, visited in a seeded random order (a
// GPU's prefetcher cannot follow it; the rtl has none), each holding the
// device address of the next.
Error Prober::chaseGlobal(StringRef Name, bool Cached) {
  if (!wanted(Name))
    return Error::success();
  if (Error E = use(Name, "latency.cu"))
    return E;
  const uint32_t Line = C.L1.LineBytes, L1Lines = C.L1.SizeBytes / Line;
  const uint32_t N = Quick ? 1 : 2;
  // Cached: half the L1, so no set overflows. Missing: 4x the L1, so that
  // round-robin replacement evicts every line before its next use; and more
  // elements than the 2n run visits, so no line is seen twice anyway.
  uint32_t Len = Cached ? std::clamp<uint32_t>(L1Lines / 2, 2, 64)
                        : std::max(4 * L1Lines, 2 * N * Body + 1);
  std::vector<uint32_t> Order(Len);
  std::iota(Order.begin(), Order.end(), 0);
  std::mt19937 Rng(1);
  std::shuffle(Order.begin() + 1, Order.end(), Rng);
  Buffers Bufs(D);
  Expected<DevicePtr> Ring = Bufs.zeros(size_t(Len) * Line / 4);
  Expected<DevicePtr> Out = Ring ? Bufs.zeros(32) : Ring.takeError();
  if (!Out)
    return probeError(Name, D.name(), toString(Out.takeError()));
  std::vector<uint32_t> Words(size_t(Len) * Line / 4, 0);
  for (uint32_t K = 0; K < Len; ++K)
    Words[size_t(Order[K]) * Line / 4] = *Ring + Order[(K + 1) % Len] * Line;
  if (Error E = D.write(*Ring, ArrayRef(Words)))
    return probeError(Name, D.name(), toString(std::move(E)));
  uint32_t Warm = Cached ? Len : 0;
  Expected<Delta> Dl = differential(Name, "chase_global", 1, 32, N, [&](uint32_t Trips) {
    return std::vector<uint32_t>{*Ring, Warm, Trips, *Out};
  });
  if (!Dl)
    return Dl.takeError();
  double Loads = double(N) * Body;
  json::Object &P = record(Name, metric(*Dl) / Loads, Loads, *Dl);
  P["ring_elements"] = Len;
  P["ring_bytes"] = uint64_t(Len) * Line;
  return Error::success();
}

Error Prober::chaseShared() {
  if (!wanted("chase_shared"))
    return Error::success();
  if (Error E = use("chase_shared", "latency.cu"))
    return E;
  Buffers Bufs(D);
  Expected<DevicePtr> Out = Bufs.zeros(32);
  if (!Out)
    return probeError("chase_shared", D.name(), toString(Out.takeError()));
  const uint32_t N = 2;
  Expected<Delta> Dl = differential("chase_shared", "chase_shared", 1, 32, N, [&](uint32_t Trips) {
    return std::vector<uint32_t>{Trips, *Out};
  });
  if (!Dl)
    return Dl.takeError();
  double Loads = double(N) * Body;
  record("chase_shared", metric(*Dl) / Loads, Loads, *Dl);
  return Error::success();
}

Error Prober::streams() {
  if (!wanted("stream_read") && !wanted("stream_write") && !wanted("stream_copy") &&
      !wanted("stream_read_cores"))
    return Error::success();
  if (Error E = use("stream_read", "memory.cu"))
    return E;
  // stream_read_cores gives each core (a block each) as many words as the
  // one block of the others.
  const uint32_t Cores = std::max(1u, unsigned(C.Cores));
  const uint32_t Words = Quick ? 2048 : 4096, B = fullBlock();
  Buffers Bufs(D);
  std::vector<uint32_t> Init(2 * Words * Cores);
  std::iota(Init.begin(), Init.end(), 1u);
  Expected<DevicePtr> Src = Bufs.words(Init);
  Expected<DevicePtr> Dst = Src ? Bufs.zeros(2 * Words) : Src.takeError();
  Expected<DevicePtr> Out = Dst ? Bufs.zeros(B * Cores) : Dst.takeError();
  if (!Out)
    return probeError("stream_read", D.name(), toString(Out.takeError()));
  struct Stream {
    const char *Name, *Kernel;
    unsigned BytesPerWord;
    uint32_t Blocks;
  };
  for (Stream S :
       {Stream{"stream_read", "stream_read", 4, 1}, Stream{"stream_write", "stream_write", 4, 1},
        Stream{"stream_copy", "stream_copy", 8, 1},
        Stream{"stream_read_cores", "stream_read", 4, Cores}}) {
    if (!wanted(S.Name))
      continue;
    uint32_t StreamWords = Words * S.Blocks;
    Expected<Delta> Dl = differential(S.Name, S.Kernel, S.Blocks, B, StreamWords, [&](uint32_t N) {
      StringRef K = S.Kernel;
      if (K == "stream_read")
        return std::vector<uint32_t>{*Src, N, *Out};
      if (K == "stream_write")
        return std::vector<uint32_t>{*Dst, N, 7u};
      return std::vector<uint32_t>{*Src, *Dst, N};
    });
    if (!Dl)
      return Dl.takeError();
    double Bytes = double(StreamWords) * S.BytesPerWord;
    record(S.Name, Bytes / metric(*Dl), Bytes, *Dl);
  }
  return Error::success();
}

// One warp runs a dependent chain of StepsPerTrip steps a trip; the value is
// the time per step, less \p Subtract (the latency of a helper operation in
// each step, measured by another probe).
Error Prober::latencyChain(StringRef Name, StringRef File, StringRef Kernel, uint32_t N,
                           uint32_t StepsPerTrip, std::vector<uint32_t> Params, double Subtract) {
  if (!wanted(Name))
    return Error::success();
  if (Error E = use(Name, File))
    return E;
  Buffers Bufs(D);
  Expected<DevicePtr> Out = Bufs.zeros(32);
  if (!Out)
    return probeError(Name, D.name(), toString(Out.takeError()));
  Expected<Delta> Dl = differential(Name, Kernel, 1, 32, N, [&](uint32_t Trips) {
    std::vector<uint32_t> A = Params;
    A.push_back(Trips);
    A.push_back(*Out);
    return A;
  });
  if (!Dl)
    return Dl.takeError();
  double Steps = double(N) * StepsPerTrip;
  double PerStep = metric(*Dl) / Steps;
  json::Object &P = record(Name, PerStep - Subtract, Steps, *Dl);
  if (Subtract != 0) {
    P["per_step"] = PerStep;
    P["subtracted"] = Subtract;
  }
  return Error::success();
}

Error Prober::throughput(StringRef Name, StringRef Kernel, uint32_t N, uint32_t OpsPerStep) {
  if (!wanted(Name))
    return Error::success();
  if (Error E = use(Name, "compute.cu"))
    return E;
  const uint32_t B = fullBlock();
  Buffers Bufs(D);
  Expected<DevicePtr> Out = Bufs.zeros(B);
  if (!Out)
    return probeError(Name, D.name(), toString(Out.takeError()));
  Expected<Delta> Dl = differential(Name, Kernel, 1, B, N, [&](uint32_t Trips) {
    return std::vector<uint32_t>{f32(0.5f), f32(1.0f), Trips, *Out};
  });
  if (!Dl)
    return Dl.takeError();
  // 4 chains of Body steps a trip, in every thread.
  double Ops = double(N) * Body * 4 * OpsPerStep * B;
  record(Name, Ops / metric(*Dl), Ops, *Dl)["threads"] = B;
  return Error::success();
}

Error Prober::barrier() {
  if (!wanted("barrier"))
    return Error::success();
  if (Error E = use("barrier", "sync.cu"))
    return E;
  const uint32_t B = fullBlock(), N = 2;
  Buffers Bufs(D);
  Expected<DevicePtr> Out = Bufs.zeros(B);
  if (!Out)
    return probeError("barrier", D.name(), toString(Out.takeError()));
  Expected<Delta> Dl = differential("barrier", "barrier", 1, B, N, [&](uint32_t Trips) {
    return std::vector<uint32_t>{Trips, *Out};
  });
  if (!Dl)
    return Dl.takeError();
  double Barriers = double(N) * Body;
  record("barrier", metric(*Dl) / Barriers, Barriers, *Dl)["threads"] = B;
  return Error::success();
}

Error Prober::atomics() {
  if (none_of(ArrayRef<const char *>({"atomic_global_contended", "atomic_global_uncontended",
                                      "atomic_shared_contended", "atomic_shared_uncontended"}),
              [&](const char *N) { return wanted(N); }))
    return Error::success();
  if (Error E = use("atomic_global_uncontended", "sync.cu"))
    return E;
  Buffers Bufs(D);
  Expected<DevicePtr> Words = Bufs.zeros(1024);
  if (!Words)
    return probeError("atomic_global_uncontended", D.name(), toString(Words.takeError()));
  // 4 atomics a trip in each of the 32 lanes of one warp.
  struct Case {
    const char *Name;
    bool Shared, Contended;
  };
  for (Case K : {Case{"atomic_global_contended", false, true},
                 Case{"atomic_global_uncontended", false, false},
                 Case{"atomic_shared_contended", true, true},
                 Case{"atomic_shared_uncontended", true, false}}) {
    if (!wanted(K.Name))
      continue;
    // A global atomic lane is a DRAM round trip on rtl: few trips.
    const uint32_t N = K.Shared ? 8 : 2;
    Expected<Delta> Dl = differential(
        K.Name, K.Shared ? "atomic_shared" : "atomic_global", 1, 32, N, [&](uint32_t Trips) {
          if (K.Shared)
            return std::vector<uint32_t>{K.Contended, Trips, *Words};
          return std::vector<uint32_t>{*Words, K.Contended, Trips};
        });
    if (!Dl)
      return Dl.takeError();
    double Ops = double(N) * 4 * 32;
    record(K.Name, Ops / metric(*Dl), Ops, *Dl);
  }
  return Error::success();
}

Error Prober::divergence() {
  if (!wanted("divergence"))
    return Error::success();
  if (Error E = use("divergence", "sync.cu"))
    return E;
  Buffers Bufs(D);
  Expected<DevicePtr> Out = Bufs.zeros(32);
  if (!Out)
    return probeError("divergence", D.name(), toString(Out.takeError()));
  const uint32_t N = 8;
  double PerTrip[2] = {0, 0};
  Delta Last;
  for (uint32_t Mask : {0u, 1u}) {
    Expected<Delta> Dl = differential("divergence", "diverge", 1, 32, N, [&](uint32_t Trips) {
      return std::vector<uint32_t>{f32(0.5f), f32(0.25f), Mask, Trips, *Out};
    });
    if (!Dl)
      return Dl.takeError();
    PerTrip[Mask] = metric(*Dl) / N;
    Last = *Dl;
  }
  json::Object &P = record("divergence", PerTrip[1] / PerTrip[0], N, Last);
  P["uniform_per_trip"] = PerTrip[0];
  P["divergent_per_trip"] = PerTrip[1];
  return Error::success();
}

Error Prober::bankSweep() {
  if (!wanted("shared_bank_stride"))
    return Error::success();
  if (Error E = use("shared_bank_stride", "latency.cu"))
    return E;
  Buffers Bufs(D);
  Expected<DevicePtr> Out = Bufs.zeros(32);
  if (!Out)
    return probeError("shared_bank_stride", D.name(), toString(Out.takeError()));
  const uint32_t Banks = C.Shared.Banks, N = 1;
  std::vector<uint32_t> Strides;
  for (uint32_t S = 1; S <= Banks; ++S)
    if (!Quick || S == 1 || S == 2 || S == Banks)
      Strides.push_back(S);
  json::Array Rows;
  for (uint32_t S : Strides) {
    Expected<Delta> Dl = differential("shared_bank_stride", "shared_stride", 1, 32, N,
                                      [&](uint32_t Trips) {
                                        return std::vector<uint32_t>{S, Trips, *Out};
                                      });
    if (!Dl)
      return Dl.takeError();
    double Loads = double(N) * Body;
    json::Object Row{{"stride", S},
                     {"ways", std::gcd(S, Banks)},
                     {"value", metric(*Dl) / Loads},
                     {"unit", unit("cycles/load")}};
    if (Timed)
      Row["conflict_cycles_per_load"] = (*Dl)["shared_bank_conflict_cycles"] / Loads;
    Rows.push_back(std::move(Row));
  }
  Sweeps["shared_bank_stride"] = std::move(Rows);
  return Error::success();
}

Error Prober::strideSweep() {
  if (!wanted("global_stride"))
    return Error::success();
  if (Error E = use("global_stride", "memory.cu"))
    return E;
  const uint32_t N = Quick ? 4 : 8;
  std::vector<uint32_t> Strides = Quick ? std::vector<uint32_t>{1, 2}
                                        : std::vector<uint32_t>{1, 2, 4, 8, 16, 32};
  Buffers Bufs(D);
  Expected<DevicePtr> Array = Bufs.zeros(size_t(32) * (2 * N + 1) * Strides.back());
  Expected<DevicePtr> Out = Array ? Bufs.zeros(32) : Array.takeError();
  if (!Out)
    return probeError("global_stride", D.name(), toString(Out.takeError()));
  json::Array Rows;
  for (uint32_t S : Strides) {
    Expected<Delta> Dl = differential("global_stride", "global_stride", 1, 32, N,
                                      [&](uint32_t Trips) {
                                        return std::vector<uint32_t>{*Array, S, Trips, *Out};
                                      });
    if (!Dl)
      return Dl.takeError();
    json::Object Row{{"stride", S}, {"value", metric(*Dl) / N}, {"unit", unit("cycles/load")}};
    if (Timed)
      Row["requests_per_load"] = ((*Dl)["l1_hits"] + (*Dl)["l1_misses"]) / N;
    Rows.push_back(std::move(Row));
  }
  Sweeps["global_stride"] = std::move(Rows);
  return Error::success();
}

Expected<json::Object> Prober::run() {
  if (C.maxThreadsPerBlock() < 64)
    return probeError("all", D.name(), "the probes need blocks of 64 threads; the configuration "
                                       "allows " + Twine(C.maxThreadsPerBlock()));
  auto Steps = [](std::initializer_list<std::function<Error()>> Fs) -> Error {
    for (const auto &F : Fs)
      if (Error E = F())
        return E;
    return Error::success();
  };
  uint32_t Half = f32(0.5f), One = f32(1.0f);
  Error E = Steps({
      [&] { return launchOverhead(); },
      [&] { return chaseGlobal("chase_l1", true); },
      [&] { return chaseGlobal("chase_dram", false); },
      [&] { return chaseShared(); },
      [&] { return streams(); },
      [&] { return latencyChain("fma_lat", "compute.cu", "fma_lat", 2, Body, {Half, One}); },
      [&] { return throughput("fma_tput", "fma_tput", 1, 1); },
      [&] { return latencyChain("iadd_lat", "compute.cu", "iadd_lat", 2, 2 * Body, {12345, 0x5a5a}); },
      [&] { return throughput("iadd_tput", "iadd_tput", 1, 2); },
      [&] {
        return latencyChain("imul_lat", "compute.cu", "imul_lat", 2, Body, {0x9e3779b1u, 0x5a5a},
                            valueOf("iadd_lat"));
      },
      [&] { return latencyChain("idiv_lat", "compute.cu", "idiv_lat", 1, Body, {1}); },
      [&] { return latencyChain("fdiv_lat", "compute.cu", "fdiv_lat", 1, Body, {One}); },
      [&] {
        return latencyChain("sqrt_lat", "compute.cu", "sqrt_lat", 1, Body, {Half}, valueOf("fma_lat"));
      },
      [&] { return latencyChain("expf_call", "compute.cu", "expf_lat", 2, 4, {}); },
      [&] { return latencyChain("sinf_call", "compute.cu", "sinf_lat", 2, 4, {One}); },
      [&] { return barrier(); },
      [&] { return atomics(); },
      [&] { return latencyChain("shfl_lat", "sync.cu", "shfl_lat", 2, Body, {}, valueOf("iadd_lat")); },
      [&] { return divergence(); },
      [&] { return bankSweep(); },
      [&] { return strideSweep(); },
  });
  if (E)
    return E;
  Expected<json::Value> Config = json::parse(configToJson(C));
  if (!Config)
    return Config.takeError();
  return json::Object{{"version", ProfileVersion},
                      {"device", D.name()},
                      {"metric", metricName()},
                      {"quick", Quick},
                      {"method", "differential: each probe runs n and 2n trips; values are "
                                 "(counter(2n) - counter(n)) / ops"},
                      {"config", std::move(*Config)},
                      {"probes", std::move(Probes)},
                      {"sweeps", std::move(Sweeps)}};
}

} // namespace

ArrayRef<ProbeInfo> probeInfos() { return Infos; }

std::string probesDir() {
  if (const char *Env = std::getenv("TANDEM_PROBES_DIR"))
    return Env;
  if (sys::fs::is_directory(TANDEM_PROBES_DIR))
    return TANDEM_PROBES_DIR;
  return TANDEM_INSTALL_PROBES_DIR;
}

Expected<json::Object> measureProfile(Device &D, const AcceleratorConfig &C,
                                      const ProfileOptions &Opts) {
  for (const std::string &Name : Opts.Only)
    if (none_of(Infos, [&](const ProbeInfo &I) { return Name == I.Name; }))
      return createStringError(inconvertibleErrorCode(),
                               "profile: no probe named '" + Name +
                                   "' ('tandem profile --list' lists them)");
  Prober P(D, C, Opts);
  return P.run();
}

Expected<json::Object> measureProfile(Device &D, const AcceleratorConfig &C, bool Quick) {
  ProfileOptions Opts;
  Opts.Quick = Quick;
  return measureProfile(D, C, Opts);
}

} // namespace tandem::profile
