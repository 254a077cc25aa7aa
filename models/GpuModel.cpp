//===- GpuModel.cpp - Analytic time model of a kernel on an NVIDIA GPU ----===//
//
// See GpuModel.h for the model and its invariants; docs/GPU.md ("The gpu
// model") for how it was checked.
//
//===----------------------------------------------------------------------===//

#include "GpuModel.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cmath>

using namespace llvm;

namespace tandem::models {

namespace {

/// One number of the profile: JSON key, the scale from the file's unit to
/// the struct's, the field, and whether it must be present and positive.
struct ProfileKey {
  const char *Key;
  double Scale;
  double GpuProfile::*Field;
  bool Required;
};

const ProfileKey ProfileKeys[] = {
    {"sm_count", 1, &GpuProfile::SmCount, true},
    {"clock_mhz", 1e6, &GpuProfile::ClockHz, true},
    {"max_warps_per_sm", 1, &GpuProfile::MaxWarpsPerSm, false}, // default 64 (sm_90)
    {"l1_latency_cycles", 1, &GpuProfile::L1LatencyCycles, true},
    {"l2_latency_cycles", 1, &GpuProfile::L2LatencyCycles, true},
    {"l2_far_latency_cycles", 1, &GpuProfile::L2FarLatencyCycles, false},
    {"dram_latency_cycles", 1, &GpuProfile::DramLatencyCycles, true},
    {"shared_latency_cycles", 1, &GpuProfile::SharedLatencyCycles, true},
    {"fma_latency_cycles", 1, &GpuProfile::FmaLatencyCycles, true},
    {"dram_gb_per_s", 1e9, &GpuProfile::DramBytesPerSec, true},
    {"l2_gb_per_s", 1e9, &GpuProfile::L2BytesPerSec, true},
    {"fp32_tflop_per_s", 1e12, &GpuProfile::Fp32FlopsPerSec, true},
    {"launch_overhead_us", 1e-6, &GpuProfile::LaunchOverheadSec, true},
    {"l1_bytes", 1, &GpuProfile::L1Bytes, true},
    {"l2_bytes", 1, &GpuProfile::L2Bytes, true},
    {"atomics_per_s", 1, &GpuProfile::SameAddressAtomicsPerSec, false},
    {"dram_copy_scalar_gb_per_s", 1e9, &GpuProfile::DramCopyScalarBytesPerSec, false},
    {"dram_copy_vector_gb_per_s", 1e9, &GpuProfile::DramCopyVectorBytesPerSec, false},
    {"launch_latency_us", 1e-6, &GpuProfile::LaunchLatencySec, false},
    {"launch_next_us", 1e-6, &GpuProfile::LaunchNextSec, false},
    {"launch_latency_5_buffers_us", 1e-6, &GpuProfile::LaunchLatency5BuffersSec, false},
    {"shared_warp_accesses_per_sm_cycle", 1, &GpuProfile::SharedWarpAccessesPerSmCycle, false},
    {"shared_v4_broadcast_warp_accesses_per_sm_cycle", 1,
     &GpuProfile::SharedV4BroadcastWarpAccessesPerSmCycle, false},
    {"cta_cycles_per_block_touch", 1, &GpuProfile::CtaCyclesPerBlock, false},
    {"launch_host_us", 1e-6, &GpuProfile::LaunchHostSec, false},
};

Error profileError(StringRef Name, const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), "gpu profile '" + Name + "': " + Msg);
}

} // namespace

Expected<GpuProfile> gpuProfileFromJson(const json::Object &O, StringRef Name,
                                        const GpuProfile *Defaults) {
  GpuProfile P = Defaults ? *Defaults : GpuProfile{};
  if (std::optional<StringRef> S = O.getString("name"))
    P.Name = S->str();
  if (std::optional<StringRef> S = O.getString("source"))
    P.Source = S->str();
  for (const ProfileKey &K : ProfileKeys) {
    const json::Value *V = O.get(K.Key);
    if (V) {
      std::optional<double> D = V->getAsNumber();
      if (!D)
        return profileError(Name, Twine("'") + K.Key + "' is not a number");
      P.*K.Field = *D * K.Scale;
    } else if (!Defaults && K.Required) {
      return profileError(Name, Twine("missing '") + K.Key + "'");
    }
    bool Absent = !K.Required && !V && !(P.*K.Field > 0);
    if (!Absent && !(P.*K.Field > 0 && std::isfinite(P.*K.Field)))
      return profileError(Name, Twine("'") + K.Key + "' must be a positive number");
  }
  // The optional numbers' defaults.
  if (P.SameAddressAtomicsPerSec <= 0)
    P.SameAddressAtomicsPerSec = P.ClockHz; // one per L2 clock: an assumption
  return P;
}

Expected<GpuProfile> parseGpuProfile(StringRef JsonText, StringRef Name,
                                     const GpuProfile *Defaults) {
  Expected<json::Value> V = json::parse(JsonText);
  if (!V)
    return profileError(Name, "not JSON: " + toString(V.takeError()));
  const json::Object *O = V->getAsObject();
  if (!O)
    return profileError(Name, "not a JSON object");
  return gpuProfileFromJson(*O, Name, Defaults);
}

Expected<GpuProfile> loadGpuProfile(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return createStringError(Buf.getError(), "cannot read gpu profile '" + Path +
                                                 "': " + Buf.getError().message());
  return parseGpuProfile((*Buf)->getBuffer(), Path);
}

void writeGpuProfile(const GpuProfile &P, raw_ostream &OS) {
  json::Object O{{"name", P.Name}, {"source", P.Source}};
  for (const ProfileKey &K : ProfileKeys)
    if (K.Required || P.*K.Field > 0) // an optional number not known stays out
      O[K.Key] = P.*K.Field / K.Scale;
  OS << formatv("{0:2}", json::Value(std::move(O))) << "\n";
}

GpuProfile::DramStream GpuProfile::dramStream() const {
  // Per thread: 8 / Scalar = 8 / Peak + T and 32 / Vector = 32 / Peak + T.
  const double S = DramCopyScalarBytesPerSec, V = DramCopyVectorBytesPerSec;
  if (S > 0 && V > S) {
    double Peak = 24 / (32 / V - 8 / S);
    double PerThread = 8 / S - 8 / Peak;
    if (Peak > 0 && PerThread > 0)
      return {Peak, PerThread};
  }
  return {DramBytesPerSec, DramLatencyCycles / ClockHz / (residentWarps() * 32)};
}

double GpuProfile::loadedDramLatencyCycles(double Threads) const {
  const double Slots = residentWarps() * 32;
  if (Slots <= 0)
    return DramLatencyCycles;
  // Without the copy probes dramStream()'s wait is a DRAM latency over the
  // slots, so Loaded is the idle latency again.
  double Loaded = dramStream().SecondsPerThread * Slots * ClockHz;
  double Fill = std::clamp(Threads / Slots, 0.0, 1.0);
  return DramLatencyCycles + std::max(0.0, Loaded - DramLatencyCycles) * Fill;
}

double GpuProfile::l2GatherLatency(double FootprintBytes) const {
  if (L2FarLatencyCycles <= 0 || FootprintBytes <= L2Bytes / 2)
    return L2LatencyCycles;
  return (L2LatencyCycles + L2FarLatencyCycles) / 2;
}

double GpuProfile::missLatency(double FootprintBytes) const {
  return FootprintBytes > 0 && FootprintBytes <= L2Bytes ? l2GatherLatency(FootprintBytes)
                                                         : DramLatencyCycles;
}

double chainCycles(const GpuWorkload &W, const GpuProfile &P) {
  return W.ChainFma * P.FmaLatencyCycles + W.ChainShared * P.SharedLatencyCycles +
         W.ChainL1 * P.L1LatencyCycles + W.ChainL2 * P.L2LatencyCycles +
         W.ChainDram * P.DramLatencyCycles;
}

Prediction predictGpu(const GpuWorkload &Described, const GpuProfile &Measured) {
  // The chain's L2 steps at the latency of the workload's footprint, its
  // DRAM steps at the latency loaded by as many threads as it has.
  GpuProfile P = Measured;
  P.L2LatencyCycles = Measured.l2GatherLatency(Described.FootprintBytes);
  P.DramLatencyCycles = Measured.loadedDramLatencyCycles(Described.Threads);
  const double Hz = P.ClockHz;
  GpuWorkload W = Described;
  if (W.FootprintBytes > 0 && W.FootprintBytes <= P.L2Bytes) { // warm in the L2
    W.L2OnlyBytes += W.DramBytes;
    W.DramBytes = 0;
    W.ChainL2 += W.ChainDram;
    W.ChainDram = 0;
  }
  const double V4Broadcasts =
      std::clamp(W.SharedV4BroadcastWarpAccesses, 0.0, W.SharedWarpAccesses);
  const double SharedCycles =
      ((W.SharedWarpAccesses - V4Broadcasts) / P.sharedWarpAccessesPerSmCycle() +
       V4Broadcasts / P.sharedV4BroadcastWarpAccessesPerSmCycle()) /
      P.SmCount;
  double ComputeCycles = std::max({W.Flops / P.Fp32FlopsPerSec * Hz, SharedCycles,
                                   W.WarpInstructions / P.warpInstructionsPerSec() * Hz});
  // Warps run in waves of what the GPU holds at once; each wave waits for
  // one warp's chain (the others run beside it).
  double Warps = std::ceil(W.Threads / 32);
  double Waves = Warps > 0 ? std::ceil(Warps / P.residentWarps()) : 0;
  double LatencyCycles = Waves * chainCycles(W, P);
  // The bytes at the peak rate, and each thread's wait before its bytes
  // stream (GpuProfile::dramStream).
  GpuProfile::DramStream Stream = Measured.dramStream();
  double DramCycles =
      W.DramBytes > 0
          ? (W.DramBytes / Stream.PeakBytesPerSec + W.Threads * Stream.SecondsPerThread) * Hz
          : 0;
  double L2Cycles = (W.DramBytes + W.L2OnlyBytes) / P.L2BytesPerSec * Hz;
  double BandwidthCycles = std::max(DramCycles, L2Cycles);
  // Each SM starts and retires its share of the blocks one after another;
  // the launch-latency probe already paid for the first (its 32 blocks are
  // one an SM at most), so the blocks beyond it.
  double BlockCycles = 0;
  if (W.ThreadsPerBlock > 0 && P.CtaCyclesPerBlock > 0 && W.Threads > 0) {
    double BlocksPerSm = std::ceil(std::ceil(W.Threads / W.ThreadsPerBlock) / P.SmCount);
    BlockCycles = (BlocksPerSm - 1) * P.CtaCyclesPerBlock;
  }

  Breakdown B;
  // A row is timed between two events: the first launch costs the latency
  // of one launch alone (more for each buffer beyond the probe's one), the
  // others follow it back to back.
  double FirstLaunchSec =
      P.launchLatencySec() + std::max(0.0, W.Buffers - 1) * P.launchPerBufferSec();
  // The row's own host submit time in place of the probe's (both measured,
  // the probe's no larger than its latency).
  if (W.HostSubmitSec > 0 && P.LaunchHostSec > 0 && P.LaunchHostSec <= P.launchLatencySec())
    FirstLaunchSec += W.HostSubmitSec - P.LaunchHostSec;
  B.Launch = W.Launches > 0 ? (FirstLaunchSec + (W.Launches - 1) * P.launchNextSec()) * Hz : 0;
  // The four overlap: the largest is exposed, it hides the others. Blocks
  // that come faster than the SMs can start them are launch time.
  const double WorkCycles = std::max({ComputeCycles, BandwidthCycles, LatencyCycles});
  const double Body = std::max(WorkCycles, BlockCycles);
  if (BlockCycles > WorkCycles) {
    B.Launch += Body;
  } else if (Body == LatencyCycles && LatencyCycles > 0) {
    // A chain of loads is memory latency; of FMAs and shuffles, compute
    // (latency-bound compute: the issue rate is not the limit).
    double Memory = W.ChainL1 * P.L1LatencyCycles + W.ChainL2 * P.L2LatencyCycles +
                    W.ChainDram * P.DramLatencyCycles;
    B.MemoryLatency = Body * Memory / chainCycles(W, P);
    B.Compute = Body - B.MemoryLatency;
  } else if (Body == BandwidthCycles && BandwidthCycles > 0)
    B.MemoryBandwidth = Body;
  else
    B.Compute = Body;
  B.LoadImbalance = std::max(0.0, W.LongestWarpCycles - Body) + W.SerialTailCycles;
  B.Synchronization = W.SameAddressAtomics / P.SameAddressAtomicsPerSec * Hz;

  Prediction R;
  R.Parts = B;
  R.Cycles = B.total();
  R.Bound = B.dominant();
  return R;
}

StringRef spmvVariantName(SpmvVariant V) {
  switch (V) {
  case SpmvVariant::Scalar:
    return "spmv_scalar";
  case SpmvVariant::Vector:
    return "spmv_vector";
  case SpmvVariant::Merge:
    return "spmv_merge";
  }
  llvm_unreachable("unknown SpMV variant");
}

sparse::CacheShape cacheShapeForL2(const GpuProfile &P) {
  sparse::CacheShape C;
  C.LineBytes = 32;
  C.CapacityBytes = uint64_t(P.L2Bytes);
  C.ElementBytes = 4;
  C.RowWindow = 32;
  return C;
}

sparse::CacheShape cacheShapeForSpmm(const GpuProfile &P, unsigned Columns) {
  sparse::CacheShape C;
  C.ElementBytes = 4 * std::max(1u, Columns);
  C.LineBytes = C.ElementBytes;
  C.CapacityBytes = uint64_t(P.L2Bytes);
  C.RowWindow = uint32_t(SpmmBlockRows);
  return C;
}

namespace {

/// The share of a SpMV's x gathers (a SpMM's B rows) that miss the L2: the
/// statistics' misses of an L2-sized cache over the gathers, one a nonzero.
/// These wait a DRAM latency in the chains, the others an L2 one.
double gatherMissShare(const sparse::MatrixStats &S) {
  return std::clamp(S.XMissRate, 0.0, 1.0);
}

/// One gather's latency, hits and misses in their shares (for the longest
/// warp, which runs as the GPU empties: the idle latencies).
double gatherLatency(const sparse::MatrixStats &S, const GpuProfile &P, double FootprintBytes) {
  const double Miss = gatherMissShare(S);
  return (1 - Miss) * P.l2GatherLatency(FootprintBytes) + Miss * P.missLatency(FootprintBytes);
}

} // namespace

GpuWorkload spmmWorkload(const sparse::MatrixStats &S, unsigned Columns, const GpuProfile &P) {
  constexpr double Word = 4;
  const double Rows = S.Rows, Nnz = double(S.Nnz), N = Columns;
  const double WarpColumns = std::ceil(N / 32);
  const double BRowBytes = N * Word; // one gather of a warp column: its 32 lanes' words
  GpuWorkload W;
  W.Kernel = "spmm_csr";
  W.Buffers = 5; // rowPtr, colIdx, vals, B, C
  W.ThreadsPerBlock = spmm::BlockColumns * spmm::BlockRows;
  W.Threads = Rows * WarpColumns * 32;
  W.Flops = 2 * Nnz * N;
  const double ABytes = (Rows + 1) * Word + 2 * Nnz * Word;
  const double BDram = double(S.XMisses) * S.Cache.LineBytes;
  W.DramBytes = ABytes + Rows * N * Word + BDram;
  W.FootprintBytes = ABytes + (double(S.Cols) + Rows) * N * Word; // A, B, C
  const double Windows = std::ceil(Rows / SpmmBlockRows);
  const double BL2 = std::max(0.0, Windows * S.LinesPerWindow * BRowBytes - BDram);
  W.L2OnlyBytes = BL2 + (WarpColumns - 1) * ABytes;
  // A warp is one row: its column loads hit the line the first brought to
  // the L1, its B gathers go to the L2; the loop keeps
  // AssumedLoopLoadsInFlight of them in flight.
  // A row of any length waits at least one round of gathers.
  const double Steps = std::max(1.0, S.RowLengthMean / AssumedLoopLoadsInFlight);
  const double Miss = gatherMissShare(S);
  W.ChainDram = 1 + Steps * Miss; // the row pointers and the first column line
  W.ChainL1 = Steps;
  W.ChainL2 = Steps * (1 - Miss);
  W.ChainFma = S.RowLengthMean;
  W.LongestWarpCycles = P.missLatency(W.FootprintBytes) +
                        std::max(1.0, S.RowLengthMax / AssumedLoopLoadsInFlight) *
                            (P.L1LatencyCycles + gatherLatency(S, P, W.FootprintBytes));
  return W;
}

GpuWorkload spmvWorkload(const sparse::MatrixStats &S, SpmvVariant Variant,
                         const GpuProfile &P) {
  constexpr double Sector = 32, Line = 128, Word = 4;
  const double Rows = S.Rows, Nnz = double(S.Nnz);
  const double Windows = std::ceil(Rows / 32);
  GpuWorkload W;
  W.Kernel = spmvVariantName(Variant).str();
  W.Buffers = 5; // rowPtr, colIdx, vals, x, y (merge path adds its carries)
  const double Miss = gatherMissShare(S);
  W.Flops = 2 * Nnz;
  // Row pointers, columns and values, y: each once. x: the L2's misses.
  double XDram = double(S.XMisses) * S.Cache.LineBytes;
  W.DramBytes = (Rows + 1) * Word + 2 * Nnz * Word + Rows * Word + XDram;
  // A, x, y (merge path adds its carries below).
  W.FootprintBytes = (Rows + 1 + 2 * Nnz + double(S.Cols) + Rows) * Word;
  // x gathers served by the L2: a window's distinct sectors (the L1 keeps
  // the lines a warp's rows share while it works on them).
  double XL2 = std::max(0.0, Windows * S.LinesPerWindow * S.Cache.LineBytes - XDram);
  W.L2OnlyBytes = XL2;
  // Thread-per-row: the lanes of a warp read columns/values a row apart, so
  // one warp step touches 2 x ceil(32 x row length x 4 B / 128 B) lines, and
  // its x gathers about LinesPerWindow / row length sectors (a 128-byte L1
  // line each). The next step reuses the column/value lines only if the L1
  // holds every resident warp's step: otherwise each element load is a
  // sector fetched from the L2 of its own.
  auto L1HoldsWarpSteps = [&](double ElementsApart) {
    double RowLines = 2 * std::ceil(32 * ElementsApart * Word / Line);
    double XLines = std::max(1.0, S.LinesPerWindow / std::max(1.0, ElementsApart));
    return P.MaxWarpsPerSm * (RowLines + XLines) * Line <= P.L1Bytes;
  };

  switch (Variant) {
  case SpmvVariant::Scalar: {
    W.Threads = Rows;
    W.ThreadsPerBlock = 256;
    if (S.RowLengthMean > 1 && !L1HoldsWarpSteps(S.RowLengthMean))
      W.L2OnlyBytes += 2 * Nnz * (Sector - Word);
    // A row of any length waits at least one round of gathers.
    double StepsPerRow = std::max(1.0, S.RowLengthMean / AssumedLoopLoadsInFlight);
    // One warp waits for its longest lane: the window imbalance.
    double MeanWarpSteps = StepsPerRow * std::max(1.0, S.WindowImbalance);
    // A step: the column load hits the line its first load brought to the
    // L1 (one L1 latency), then the x gather goes to the L2.
    W.ChainDram = 1 + MeanWarpSteps * Miss; // the row pointers and the first column line
    W.ChainL1 = MeanWarpSteps;
    W.ChainL2 = MeanWarpSteps * (1 - Miss);
    W.ChainFma = S.RowLengthMean;
    double LongestSteps = std::max(1.0, S.RowLengthMax / AssumedLoopLoadsInFlight);
    W.LongestWarpCycles = P.missLatency(W.FootprintBytes) +
                          LongestSteps * (P.L1LatencyCycles + gatherLatency(S, P, W.FootprintBytes));
    break;
  }
  case SpmvVariant::Vector: {
    W.Threads = Rows * 32;
    W.ThreadsPerBlock = 128;
    // Each row: ceil(len / 32) strided steps, at least one. A warp's chain
    // is estimated from the mean non-empty row (the longest row is the
    // imbalance term below).
    double NonEmpty = Rows - S.EmptyRows;
    double Steps = NonEmpty > 0 ? std::max(1.0, (Nnz / NonEmpty) / 32) : 0;
    // Rounds of (column line, x gather), up to AssumedLoopLoadsInFlight
    // steps a round; a row waits at least one.
    double Rounds = NonEmpty > 0 ? std::max(1.0, Steps / AssumedLoopLoadsInFlight) : 0;
    W.ChainDram = 1 + Rounds * (1 + Miss); // the row pointers, then the column lines
    W.ChainL2 = Rounds * (1 - Miss);
    W.ChainShared = 5; // the shuffle reduction
    W.ChainFma = Steps + 5;
    double LongestSteps =
        std::max(1.0, std::ceil(S.RowLengthMax / 32.0) / AssumedLoopLoadsInFlight);
    W.LongestWarpCycles =
        P.missLatency(W.FootprintBytes) +
        LongestSteps * (P.missLatency(W.FootprintBytes) + gatherLatency(S, P, W.FootprintBytes)) +
        5 * P.SharedLatencyCycles;
    break;
  }
  case SpmvVariant::Merge: {
    // microbench/kernels/spmv_balanced.cu as the runner launches it: 32
    // merge items (rows + nonzeros) per thread, a binary search for the
    // start, then the items; a fixup launch adds the carries.
    const double Items = 32;
    W.Launches = 2;
    W.Buffers = 7;
    W.Threads = std::ceil((Rows + Nnz) / Items); // the fixup's work: the tail below
    W.ThreadsPerBlock = 128;
    if (!L1HoldsWarpSteps(Items)) // lanes 32 items apart
      W.L2OnlyBytes += 2 * Nnz * (Sector - Word);
    double SearchSteps = std::ceil(std::log2(std::max(2.0, Rows + Nnz)));
    double NnzPerThread = Items * Nnz / std::max(1.0, Rows + Nnz);
    double RowEndsPerThread = Items - NnzPerThread;
    // One item at a time: whether an item is a nonzero or a row end depends
    // on the row end last loaded, so the loop's loads are predicated on it
    // and the next item's wait for this one's (the SASS of both compilers,
    // docs/GPU.md; AssumedLoopLoadsInFlight does not apply). A nonzero: its
    // column (an L1 hit on the lane's line) then its x gather; a row end:
    // the next row pointer (an L1 hit).
    W.ChainL2 = SearchSteps + NnzPerThread * (1 - Miss);
    W.ChainL1 = NnzPerThread + RowEndsPerThread;
    W.ChainDram = 1 + NnzPerThread * Miss;
    W.ChainFma = NnzPerThread;
    W.LongestWarpCycles = 0; // equal shares by construction
    // The fixup: the first slice of a row that spans several adds up the
    // carries of the others, one after another (the loop's exit waits on
    // each carryRow load: an L1 hit but for one L2 access a 32-word line).
    // The longest row's slices are the tail.
    double LongRowSlices = std::ceil((S.RowLengthMax + 1) / Items);
    if (LongRowSlices > 1)
      W.SerialTailCycles =
          (LongRowSlices - 1) * (P.L1LatencyCycles +
                                 (P.l2GatherLatency(W.FootprintBytes) - P.L1LatencyCycles) / 32);
    W.FootprintBytes += 2 * W.Threads * Word; // the carries
    break;
  }
  }
  return W;
}

} // namespace tandem::models
