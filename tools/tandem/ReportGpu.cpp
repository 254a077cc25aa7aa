//===- ReportGpu.cpp - gpu rows of `tandem report` from the runner's results ===//
//
// See ReportGpu.h. The workload of each non-SpMV timing kernel is described
// here from its size (bytes, flops, chains); the assumptions are written
// next to each kernel (microbench/kernels/*.cu has the code).
//
//===----------------------------------------------------------------------===//

#include "ReportGpu.h"

#include "../../gpu/Json.h"
#include "../../gpu/Sparse.h"
#include "../../gpu/Summary.h"
#include "../../runtime/PtxEntry.h"

#include "sparse/Csr.h"
#include "sparse/Stats.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <map>

using namespace llvm;
using namespace tandem::models;

namespace tandem::cli {

sparse::CsrMatrix toSparseCsr(const gpu::Csr &A) {
  sparse::CsrMatrix M;
  M.Rows = uint32_t(A.Rows);
  M.Cols = uint32_t(A.Cols);
  M.RowPtr.assign(A.RowPtr.begin(), A.RowPtr.end());
  M.ColIdx.assign(A.Col.begin(), A.Col.end());
  M.Values = A.Val;
  return M;
}

namespace {

Error failure(const Twine &Msg) { return createStringError(inconvertibleErrorCode(), Msg); }

Expected<std::string> readText(StringRef Path, StringRef What) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> B = MemoryBuffer::getFile(Path);
  if (!B)
    return createStringError(B.getError(), "cannot read " + What + " '" + Path +
                                               "': " + B.getError().message());
  return (*B)->getBuffer().str();
}

/// A persistent grid: what the runner launches for the reductions (132 SMs x
/// 8 blocks of 256 threads).
constexpr double PersistentThreads = 132 * 8 * 256;

/// The workload of a non-SpMV timing spec; false if the kernel is unknown.
bool describeKernel(const gpu::Json &Spec, GpuWorkload &W) {
  const std::string Case = Spec["case"].S, Gen = Spec["generator"].S;
  auto Num = [&](const char *K) { return double(Spec[K].integer()); };
  W.Kernel = Case;
  // Blocks of 256 threads unless said otherwise below, as the runner
  // launches them (gpu/Runner.cpp, timingProblem).
  W.ThreadsPerBlock = 256;
  if (Gen == "vector") {
    double N = Num("n");
    if (Case == "vadd" || Case == "saxpy") { // 2 loads, 1 store per element
      W.Threads = N;
      W.Buffers = Case == "vadd" ? 3 : 2; // saxpy: y in place
      W.DramBytes = W.FootprintBytes = 12 * N;
      W.Flops = Case == "vadd" ? N : 2 * N;
      W.ChainDram = 1;
      return true;
    }
    if (Case == "block_reduce" || Case == "warp_reduce" || Case == "histogram") {
      // Grid-stride loops: N / threads loads per thread, then the combine.
      // One load in flight at a time: neither ptxas nor the front ends
      // unroll a loop whose stride is gridDim x blockDim (the SASS of ours,
      // nvcc's and LLVM's: one LDG per iteration, 2026-12-04).
      W.Threads = PersistentThreads;
      W.Buffers = 2; // the input, and the sum or the bins
      W.DramBytes = W.FootprintBytes = 4 * N;
      W.Flops = N;
      W.ChainDram = 1 + N / PersistentThreads;
      if (Case == "block_reduce")
        W.ChainShared = 8; // a shared-memory tree over 256 threads
      if (Case == "warp_reduce") {
        W.ChainShared = 5;                         // shuffles
        W.SameAddressAtomics = PersistentThreads / 32; // one atomicAdd per warp
      }
      // histogram: per-element atomics to 256 bins; treated as throughput
      // (spread over bins), not serialized: an assumption.
      return true;
    }
    if (Case == "hash64") { // a 64-bit key in, a 64-bit hash out; mixing not modelled
      W.Threads = N;
      W.Buffers = 2;
      W.DramBytes = W.FootprintBytes = 16 * N;
      W.ChainDram = 1;
      W.ChainFma = 20; // about 20 dependent integer ops at FMA latency
      return true;
    }
    if (Case == "math_functions") {
      W.ThreadsPerBlock = 128;
      // Three loads, ten stores (a slice of the output per function) per
      // element; the functions are independent, the longest (powf) about
      // 40 dependent operations: an estimate. Its instructions, not its
      // flops, bound it: the iss-assisted issue term (below).
      W.Threads = N;
      W.Buffers = 4;
      W.DramBytes = W.FootprintBytes = 52 * N;
      W.ChainDram = 1;
      W.ChainFma = 40;
      return true;
    }
    if (Case == "divergent") {
      W.Threads = N;
      W.ThreadsPerBlock = 128;
      W.Buffers = 2;
      W.DramBytes = W.FootprintBytes = 8 * N;
      W.ChainDram = 1;
      W.ChainFma = 32; // both sides of the branch, serialized
      return true;
    }
    return false;
  }
  if (Gen == "grid2d") { // one read (neighbours from cache), one write per point
    double P = Num("width") * Num("height");
    // stencil5: a thread a point; transpose: 32 x 8 threads a 32 x 32 tile.
    W.Threads = Case == "transpose" ? P / 4 : P;
    W.Buffers = 2;
    W.DramBytes = W.FootprintBytes = 8 * P;
    W.Flops = Case == "stencil5" ? 6 * P : 0;
    W.ChainDram = 1;
    W.ChainShared = Case == "transpose" ? 1 : 0;
    if (Case == "transpose") // each element once into the tile, once out
      W.SharedWarpAccesses = 2 * P / 32;
    return Case == "stencil5" || Case == "transpose";
  }
  if (Gen == "gemm" && Case == "sgemm_tiled") {
    // 16x16 tiles through shared memory: A and B once from DRAM (they fit
    // the L2), each re-read N/16 resp. M/16 times from the L2.
    double M = Num("m"), N = Num("n"), K = Num("k");
    W.Threads = M * N;
    W.Buffers = 3;
    W.Flops = 2 * M * N * K;
    W.DramBytes = W.FootprintBytes = 4 * (M * K + K * N + M * N);
    W.L2OnlyBytes = 4 * (M * K * (N / 16) + K * N * (M / 16));
    W.ChainL2 = K / 16;
    W.ChainFma = K;
    W.ChainShared = K / 16 * 2; // tile loads and the barrier around them
    // Per warp and tile: 16 LDS of B's column, 4 LDS.128 of A's row (a
    // broadcast), 2 STS filling the tiles (the SASS of ours and nvcc's).
    W.SharedWarpAccesses = M * N / 32 * (K / 16) * 22;
    W.SharedV4BroadcastWarpAccesses = M * N / 32 * (K / 16) * 4;
    return true;
  }
  if (Gen == "rows" && Case == "softmax_rows") {
    // A block of 128 threads per row (the runner's launch): max, sum of
    // exp, scale: three passes over the row, the first from DRAM, the
    // others from L1/L2; ~8 flops per element.
    double R = Num("rows"), C = Num("cols");
    W.Threads = R * 128;
    W.ThreadsPerBlock = 128;
    W.Buffers = 2;
    W.DramBytes = W.FootprintBytes = 8 * R * C;
    W.Flops = 8 * R * C;
    // Each pass is a blockDim-strided loop, not unrolled (one LDG per pass
    // in the SASS of ours and nvcc's): one load in flight.
    W.ChainDram = 1 + C / 128;
    W.ChainL2 = 2 * C / 128;
    W.ChainShared = 2 * 8; // two block reductions
    return true;
  }
  return false;
}

/// Our PTX's static instruction count of \p Case's kernel in the bundle.
Expected<double> ptxInstructions(const gpu::Json &Manifest, StringRef BundleDir, StringRef Case) {
  if (!Manifest.has("cases"))
    return failure("bundle manifest in '" + BundleDir + "': no cases");
  for (const gpu::Json &C : Manifest["cases"].A) {
    if (!C.has("name") || C["name"].S != Case)
      continue;
    if (!C.has("variants") || !C["variants"].has("ours") || !C.has("launches") ||
        C["launches"].A.empty() || !C["launches"].A[0].has("kernel"))
      return failure("bundle manifest in '" + BundleDir + "': case '" + Case +
                     "' has no PTX of ours or no launch");
    SmallString<256> Path(BundleDir);
    sys::path::append(Path, C["variants"]["ours"].S);
    Expected<std::string> Ptx = readText(Path, "our PTX of " + Case.str());
    if (!Ptx)
      return Ptx.takeError();
    const std::string Kernel = C["launches"].A[0]["kernel"].S;
    unsigned Count = 0;
    std::string Why;
    if (!ptx::countEntryInstructions(*Ptx, Kernel, Count, Why))
      return failure("'" + Path + "': " + Why);
    return double(Count);
  }
  return failure("bundle manifest in '" + BundleDir + "': no case '" + Case + "'");
}

/// \p W's warp instructions from an iss run of its case: the run's a warp,
/// scaled from our simt code to our PTX by their static sizes (ptxas makes
/// about as many SASS instructions as the PTX has; the simt ISA is
/// sparser, with no three-input logic or wide multiply-add), times the
/// GPU's warps.
Error addIssueCounts(GpuWorkload &W, const IssCountsFn &Iss, const gpu::Json &Manifest,
                     StringRef BundleDir) {
  Expected<IssKernelCounts> Counts = Iss(W.Kernel);
  if (!Counts)
    return Counts.takeError();
  Expected<double> Ptx = ptxInstructions(Manifest, BundleDir, W.Kernel);
  if (!Ptx)
    return Ptx.takeError();
  if (!(Counts->Warps > 0 && Counts->StaticInstructions > 0 && *Ptx > 0))
    return failure("iss counts of " + W.Kernel + ": no warps or no instructions");
  double PerWarp = Counts->WarpInstructions / Counts->Warps * (*Ptx / Counts->StaticInstructions);
  W.WarpInstructions = std::ceil(W.Threads / 32) * PerWarp;
  return Error::success();
}

/// The number \p Key of our PTX's timing in a results entry, if timed.
std::optional<double> oursTime(const gpu::Json &Entry, const char *Key) {
  if (!Entry.has("variants") || !Entry["variants"].has("ours"))
    return std::nullopt;
  const gpu::Json &V = Entry["variants"]["ours"];
  if (!V.has("time") || !V["time"].has(Key) || V["time"][Key].K != gpu::Json::Kind::Number)
    return std::nullopt;
  return V["time"][Key].N;
}

/// The median ms of our PTX in a results entry, if timed.
std::optional<double> oursMs(const gpu::Json &Entry) { return oursTime(Entry, "median_ms"); }

/// The host's time in our PTX's timed calls, in ms (the runner's
/// host_median_ms), where recorded and positive.
std::optional<double> oursHostMs(const gpu::Json &Entry) {
  std::optional<double> Ms = oursTime(Entry, "host_median_ms");
  return Ms && *Ms > 0 ? Ms : std::nullopt;
}

/// \p Described's row. A one-launch row whose host submit time the runner
/// recorded (\p HostMs) is predicted with it in place of the launch probe's
/// (GpuWorkload::HostSubmitSec), the probe-only prediction kept beside it;
/// a row of several launches is not (the later launches are submitted while
/// the earlier run, so the host's time is not the GPU's wait).
ReportRow rowFrom(const GpuWorkload &Described, const GpuProfile &P, const std::string &Input,
                  const std::string &Group, std::optional<double> Measured,
                  std::optional<double> HostMs) {
  const double MsPerCycle = 1e3 / P.ClockHz;
  GpuWorkload W = Described;
  std::optional<double> HostSubmitUs, ProbeLaunchPredicted;
  if (HostMs && W.Launches == 1 && P.LaunchHostSec > 0) {
    ProbeLaunchPredicted = predictGpu(W, P).Cycles * MsPerCycle;
    W.HostSubmitSec = *HostMs * 1e-3;
    HostSubmitUs = *HostMs * 1e3;
  }
  Prediction R = predictGpu(W, P);
  ReportRow Row;
  Row.Device = "gpu";
  Row.Workload = W.Kernel;
  Row.Input = Input;
  Row.Group = Group;
  Row.Unit = "ms";
  Row.Predicted = R.Cycles * MsPerCycle;
  Row.Measured = Measured;
  Row.Bound = R.Bound;
  Breakdown &B = Row.Parts;
  B.Compute = R.Parts.Compute * MsPerCycle;
  B.MemoryBandwidth = R.Parts.MemoryBandwidth * MsPerCycle;
  B.MemoryLatency = R.Parts.MemoryLatency * MsPerCycle;
  B.Synchronization = R.Parts.Synchronization * MsPerCycle;
  B.LoadImbalance = R.Parts.LoadImbalance * MsPerCycle;
  B.Launch = R.Parts.Launch * MsPerCycle;
  Row.ModelInputs = "static";
  Row.HostSubmitUs = HostSubmitUs;
  Row.ProbeLaunchPredicted = ProbeLaunchPredicted;
  Row.FpuLaneOps = W.Flops;
  return Row;
}

} // namespace

StringRef referenceGpuProfilePath() { return TANDEM_GPU_REFERENCE_PROFILE; }

bool perWarpWorkIsSizeFree(StringRef Case) {
  // Not the grid-stride reductions (a thread's loop grows with n), sgemm
  // (with k), softmax (with the columns), nor the SpMV kernels (with the
  // matrix; their chains come from its statistics). These seven have no
  // loop ptxas unrolls, so their PTX's static size stands for their SASS's
  // (spmv_scalar's 91 PTX instructions become 296 SASS slots).
  static constexpr StringRef SizeFree[] = {"vadd",           "saxpy",    "hash64",   "divergent",
                                           "math_functions", "stencil5", "transpose"};
  return is_contained(SizeFree, Case);
}

Expected<GpuProfile> gpuProfileForReport(StringRef ResultsPath, StringRef ProfilePath,
                                         StringRef ReferencePath) {
  if (!ProfilePath.empty())
    return loadGpuProfile(ProfilePath);
  Expected<GpuProfile> Reference = loadGpuProfile(ReferencePath);
  if (!Reference || ResultsPath.empty())
    return Reference;
  Expected<std::string> Text = readText(ResultsPath, "gpu results");
  if (!Text)
    return Text.takeError();
  Expected<json::Value> V = json::parse(*Text);
  if (!V)
    return failure("gpu results '" + ResultsPath + "': not JSON: " + toString(V.takeError()));
  const json::Object *O = V->getAsObject();
  const json::Object *Measured = O ? O->getObject("profile") : nullptr;
  if (!Measured)
    return Reference; // an older runner: no measured profile
  return gpuProfileFromJson(*Measured, (ResultsPath + " (profile)").str(), &*Reference);
}

Expected<GpuReportRows> gpuReportRowsFromText(StringRef ResultsText, StringRef ResultsName,
                                              StringRef ManifestText, StringRef BundleDir,
                                              const GpuProfile &Profile, const IssCountsFn &Iss) {
  GpuReportRows Out;
  gpu::Json Results, Manifest;
  try {
    Results = gpu::JsonParser(ResultsText.str()).parse();
  } catch (const std::exception &E) {
    return failure("gpu results '" + ResultsName + "': " + E.what());
  }
  try {
    Manifest = gpu::JsonParser(ManifestText.str()).parse();
  } catch (const std::exception &E) {
    return failure("bundle manifest in '" + BundleDir + "': " + E.what());
  }
  // A matrix named in the results: a synthetic spec's (regenerated) or a
  // bundle .mtx file's. Not kept: its statistics are, once per cache shape
  // (SpMV's x gathers and SpMM's B rows differ), and a 4M-row matrix is
  // half a gigabyte.
  std::map<std::pair<std::string, uint32_t>, sparse::MatrixStats> StatsByMatrix;
  auto Matrix = [&](const std::string &Name) -> Expected<sparse::CsrMatrix> {
    for (const gpu::Json &S : Manifest["timing"].A)
      if (S["generator"].S == "csr" && gpu::syntheticName(S) == Name)
        return toSparseCsr(gpu::syntheticMatrix(S));
    if (Manifest.has("matrices"))
      for (const gpu::Json &F : Manifest["matrices"].A)
        if (sys::path::filename(F.S) == Name) {
          SmallString<256> Path(BundleDir);
          sys::path::append(Path, F.S);
          return sparse::loadCsr(Path);
        }
    return failure("gpu results '" + ResultsName + "': matrix '" + Name +
                   "' is neither a csr timing spec nor a matrix of the bundle");
  };
  auto MatrixStats = [&](const std::string &Name,
                         const sparse::CacheShape &Cache) -> Expected<const sparse::MatrixStats *> {
    auto Key = std::make_pair(Name, Cache.LineBytes);
    auto It = StatsByMatrix.find(Key);
    if (It != StatsByMatrix.end())
      return &It->second;
    Expected<sparse::CsrMatrix> A = Matrix(Name);
    if (!A)
      return A.takeError();
    return &(StatsByMatrix[Key] = sparse::computeStats(*A, Cache));
  };

  try {
    size_t SuiteCases = Results.has("cases") ? Results["cases"].A.size() : 0;
    if (SuiteCases)
      Out.Notes.push_back(std::to_string(SuiteCases) +
                          " suite-size gpu cases left out: microseconds, launch-bound; the "
                          "gpu rows are the large timing problems and the SpMV/SpMM matrices");
    // A run stopped from outside leaves its file whole but unfinished
    // (gpu/Results.h): its rows are real measurements, the later ones missing.
    if (Results.has("complete") && Results["complete"].K == gpu::Json::Kind::Bool &&
        !Results["complete"].B)
      Out.Notes.push_back(
          "gpu runner was stopped before it finished" +
          (Results.has("stopped_at") ? " (at " + Results["stopped_at"].S + ")" : std::string()) +
          ": the gpu rows are what it measured until then");
    if (Results.has("skipped"))
      for (const gpu::Json &Why : Results["skipped"].A)
        Out.Notes.push_back("gpu runner skipped " + Why.S);
    for (const gpu::Json &T : Results["timing"].A) {
      const std::string Case = T["case"].S, Size = T["size"].S;
      std::optional<double> Measured = oursMs(T), HostMs = oursHostMs(T);
      if (T.has("matrix") && Case == gpu::SpmmKernel) {
        const std::string Name = T["matrix"].S;
        if (!T.has("dense_columns") || T["dense_columns"].K != gpu::Json::Kind::Number ||
            !(T["dense_columns"].N >= 1))
          return failure("gpu results '" + ResultsName + "': the " + Case + " entry on '" + Name +
                         "' has no positive dense_columns");
        unsigned Columns = unsigned(T["dense_columns"].N);
        Expected<const sparse::MatrixStats *> S =
            MatrixStats(Name, cacheShapeForSpmm(Profile, Columns));
        if (!S)
          return S.takeError();
        bool Synthetic = Name.find(".mtx") == std::string::npos;
        Out.Rows.push_back(rowFrom(spmmWorkload(**S, Columns, Profile), Profile, Name,
                                   Synthetic ? "generated" : "matrix", Measured, HostMs));
        continue;
      }
      if (T.has("matrix")) {
        const std::string Matrix = T["matrix"].S;
        Expected<const sparse::MatrixStats *> S = MatrixStats(Matrix, cacheShapeForL2(Profile));
        if (!S)
          return S.takeError();
        SpmvVariant V = Case == "spmv_scalar"   ? SpmvVariant::Scalar
                        : Case == "spmv_vector" ? SpmvVariant::Vector
                                                : SpmvVariant::Merge;
        bool Synthetic = Matrix.find(".mtx") == std::string::npos;
        ReportRow Row = rowFrom(spmvWorkload(**S, V, Profile), Profile, Matrix,
                                Synthetic ? "generated" : "matrix", Measured, HostMs);
        // L2 bandwidth of the reference profile was fitted on this one.
        Row.TunedOn = V == SpmvVariant::Scalar && Matrix.rfind("uniform 4194304 rows, 16", 0) == 0;
        Out.Rows.push_back(std::move(Row));
        continue;
      }
      const gpu::Json *Spec = nullptr;
      for (const gpu::Json &S : Manifest["timing"].A)
        if (S["case"].S == Case && S["generator"].S != "csr")
          Spec = &S;
      GpuWorkload W;
      if (!Spec || !describeKernel(*Spec, W)) {
        Out.Notes.push_back("gpu " + Case + " " + Size +
                            ": no workload description for this kernel; no row");
        continue;
      }
      bool IssAssisted = false;
      if (Iss && perWarpWorkIsSizeFree(Case)) {
        if (Error E = addIssueCounts(W, Iss, Manifest, BundleDir))
          Out.Notes.push_back("gpu " + Case + ": no issue term (" + toString(std::move(E)) +
                              "); the row is static");
        else
          IssAssisted = true;
      }
      ReportRow Row = rowFrom(W, Profile, Size, "generated", Measured, HostMs);
      if (IssAssisted)
        Row.ModelInputs = "iss-assisted";
      Out.Rows.push_back(std::move(Row));
    }
  } catch (const std::exception &E) {
    return failure("gpu results '" + ResultsName + "' or its manifest: " + E.what());
  }
  size_t HostTimed = 0;
  for (const ReportRow &Row : Out.Rows)
    HostTimed += Row.HostSubmitUs.has_value();
  if (HostTimed)
    Out.Notes.push_back(
        std::to_string(HostTimed) +
        " one-launch gpu rows take the host's measured submit time (host_submit_us) in place "
        "of the launch probe's; predicted_probe_launch is each one's prediction with the "
        "probe's");
  return Out;
}

Expected<GpuReportRows> gpuReportRows(StringRef ResultsPath, StringRef BundleDir,
                                      const GpuProfile &Profile, const IssCountsFn &Iss) {
  Expected<std::string> Results = readText(ResultsPath, "gpu results");
  if (!Results)
    return Results.takeError();
  SmallString<256> ManifestPath(BundleDir);
  sys::path::append(ManifestPath, "manifest.json");
  Expected<std::string> Manifest = readText(ManifestPath, "bundle manifest");
  if (!Manifest)
    return Manifest.takeError();
  return gpuReportRowsFromText(*Results, ResultsPath, *Manifest, BundleDir, Profile, Iss);
}

} // namespace tandem::cli
