//===- ReportCommand.cpp - `tandem report` ---------------------------------===//
//
// The README's main job (issue 6): runs the kernel suite and the three CSR
// SpMV variants on real and generated matrices, predicts every launch with
// the simt model (models/SimtModel.h) from an iss run of the same launch
// (its instruction trace: "iss-assisted"), measures it on rtl, and writes
// report.json, report.md and report.html into --out (models/Report.h).
//
//   first: the device profile (`tandem profile --quick` on rtl, or
//   --profile FILE) -> the model's DRAM/ALU/FPU latencies (DeviceProfile.h)
//   for each workload (suite case, or SpMV variant x matrix):
//     iss  run with the trace -> TraceProfiler -> LaunchProfiles -> predict
//     machine code + launch + input statistics -> StaticEstimate
//                             -> LaunchProfiles -> static_predicted
//     rtl  run                -> cycles and stall counters     -> measured
//   SpMV: per matrix, the variant with the least predicted cycles is the
//   model's pick; the report says how often it is within 10% of the
//   fastest measured.
//
// Progress goes to stderr; the last stdout line is the accuracy summary.
// Exit status: 0 when the report was written and every workload computed
// the right result, 1 otherwise (the report is still written), 2 for a
// usage error. gpu rows come from the GPU runner's results (--gpu-results,
// ReportGpu.h): the lent GPU machine has no LLVM to run this command.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "DeviceProfile.h"
#include "Profile.h"
#include "ReportGpu.h"
#include "Report.h"
#include "SimtModel.h"
#include "StaticEstimate.h"
#include "Suite.h"
#include "TraceProfile.h"
#include "sparse/Csr.h"
#include "sparse/Generators.h"
#include "sparse/Stats.h"
#include "tandem/Config.h"
#include "tandem/Runtime.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

#ifndef TANDEM_SHARED_MATRICES_DIR
#define TANDEM_SHARED_MATRICES_DIR "../shared/matrices"
#endif

using namespace llvm;
using namespace tandem;
using namespace tandem::models;

namespace tandem::cli {
namespace {

//===--- Options ------------------------------------------------------------===//

/// The suite kernels the model's two fitted constants were fitted on; every
/// other kernel and every matrix is "not tuned on".
constexpr StringRef CalibrationCases[] = {"vadd", "block_reduce", "sgemm_tiled", "divergent"};
/// --quick runs these suite cases only.
constexpr StringRef QuickCases[] = {"vadd", "saxpy", "block_reduce", "transpose",
                                    "spmv_vector", "hash64"};

struct Options {
  bool Rtl = true, Iss = false, Gpu = false, Quick = false, Fit = false;
  bool DeviceGiven = false;
  /// gpu rows come from the runner's results (docs/GPU.md): the lent GPU
  /// machine has no LLVM, so `tandem report` cannot run there itself.
  std::string GpuResults, GpuBundle = "build-gpu-bundle", GpuProfile;
  std::string MatricesDir, ConfigPath, OutDir = "report";
  /// The device profile the model takes its latencies from: "quick" (run
  /// `tandem profile --quick` on rtl first), "none" (the configuration's),
  /// or a profile JSON file.
  std::string Profile = "quick";
  bool MatricesGiven = false;
  /// Matrices with more nonzeros are cut to their first rows (see Notes).
  uint64_t MaxNnz = 100000;
  unsigned MaxMatrices = 100;
  std::string Command;
};

void printHelp(raw_ostream &OS) {
  OS << "OVERVIEW: run the kernel suite and SpMV on matrices, predict each launch with the "
        "simt model and compare with the device\n\n"
        "USAGE: tandem report [options]\n\n"
        "OPTIONS:\n"
        "  --device rtl|iss|all  device to measure (default: rtl; iss has no clock: its rows "
        "have predictions only); gpu: rows from --gpu-results (all: rtl, iss and, with "
        "--gpu-results, gpu)\n"
        "  --gpu-results FILE    the runner's gpu-results.json (scripts/gpu-check.sh on the "
        "lent GPU machine, docs/GPU.md): adds gpu rows, measured there, predicted by the gpu "
        "model\n"
        "  --gpu-bundle DIR      the bundle those results were measured from (default: "
        "build-gpu-bundle)\n"
        "  --gpu-profile FILE    gpu profile for the model (default: the results' measured "
        "profile over profiles/h200-reference.json)\n"
        "  --matrices DIR        Matrix Market files (*.mtx) to run SpMV on (default: "
     << TANDEM_SHARED_MATRICES_DIR
     << ")\n"
        "  --max-nnz N           cut larger matrices to their first rows holding at most N "
        "nonzeros (default: 100000: every shared matrix whole)\n"
        "  --config FILE         accelerator configuration (default: configs/default.json)\n"
        "  --out DIR             output folder (default: report)\n"
        "  --quick               a few kernels, two small matrices, one generated input "
        "(under 2 minutes)\n"
        "  --fit                 grid-search the model's two fitted constants on the "
        "calibration kernels and print them\n"
        "  --profile quick|none|FILE  where the model's DRAM/ALU/FPU latencies come from: "
        "the quick microbenchmark profile run on rtl first (default), the configuration "
        "alone, or a `tandem profile -o` file\n"
        "  -h, --help            print this help\n";
}

int usageError(const Twine &Msg) {
  errs() << "tandem report: error: " << Msg << "\nRun 'tandem report --help' for usage.\n";
  return 2;
}

std::optional<int> parseArgs(int Argc, char **Argv, Options &O) {
  O.Command = "tandem report";
  for (int I = 1; I < Argc; ++I)
    O.Command += std::string(" ") + Argv[I];
  for (int I = 1; I < Argc; ++I) {
    StringRef Arg = Argv[I];
    if (Arg == "--help" || Arg == "-h") {
      printHelp(outs());
      return 0;
    }
    if (Arg == "--quick") {
      O.Quick = true;
      continue;
    }
    if (Arg == "--fit") {
      O.Fit = true;
      continue;
    }
    auto [Name, Inline] = Arg.split('=');
    static constexpr StringRef WithValue[] = {"--device", "--matrices", "--config", "--out",
                                              "--max-nnz", "--profile", "--gpu-results",
                                              "--gpu-bundle", "--gpu-profile"};
    if (!is_contained(WithValue, Name))
      return usageError("unknown argument '" + Arg + "'");
    StringRef Value = Inline;
    if (!Arg.contains('=')) {
      if (I + 1 == Argc)
        return usageError(Name + " needs a value");
      Value = Argv[++I];
    }
    if (Name == "--device") {
      if (Value != "rtl" && Value != "iss" && Value != "gpu" && Value != "all")
        return usageError("--device must be rtl, iss, gpu or all, not '" + Value + "'");
      O.DeviceGiven = true;
      O.Rtl = Value == "rtl" || Value == "all";
      O.Iss = Value == "iss" || Value == "all";
      O.Gpu = Value == "gpu" || Value == "all";
    } else if (Name == "--gpu-results") {
      O.GpuResults = Value.str();
    } else if (Name == "--gpu-bundle") {
      O.GpuBundle = Value.str();
    } else if (Name == "--gpu-profile") {
      O.GpuProfile = Value.str();
    } else if (Name == "--matrices") {
      O.MatricesDir = Value.str();
      O.MatricesGiven = true;
    } else if (Name == "--config") {
      O.ConfigPath = Value.str();
    } else if (Name == "--out") {
      O.OutDir = Value.str();
    } else if (Name == "--profile") {
      if (Value.empty())
        return usageError("--profile needs quick, none or a file");
      O.Profile = Value.str();
    } else if (Name == "--max-nnz") {
      if (Value.getAsInteger(0, O.MaxNnz) || O.MaxNnz == 0)
        return usageError("--max-nnz needs a positive integer, not '" + Value + "'");
    }
  }
  // gpu rows need the runner's results; with the default device they are
  // added to rtl's, and `--device all` adds them only when given.
  if (!O.GpuResults.empty() && !O.DeviceGiven)
    O.Gpu = true;
  if (O.Gpu && O.GpuResults.empty()) {
    if (O.Rtl || O.Iss) {
      O.Gpu = false;
    } else {
      errs() << "tandem report: --device gpu needs --gpu-results FILE: the gpu is measured by "
                "the runner of scripts/gpu-check.sh on the lent GPU machine (no LLVM there, so "
                "tandem cannot run on it); give its gpu-results.json (docs/GPU.md)\n";
      return 2;
    }
  }
  if (!O.Rtl && !O.Iss)
    O.Profile = "none"; // the rtl profile only serves the simt model
  if (O.MatricesDir.empty())
    O.MatricesDir = TANDEM_SHARED_MATRICES_DIR;
  if (O.Quick) {
    O.MaxNnz = std::min<uint64_t>(O.MaxNnz, 3000);
    O.MaxMatrices = 2;
  }
  return std::nullopt;
}

//===--- Measuring and predicting one workload --------------------------------===//

/// What the model costs with: the configuration with the profile's DRAM
/// latency, and the profile's ALU/FPU latencies (DeviceProfile.h).
struct ModelSetup {
  AcceleratorConfig Config;
  std::optional<ModelLatencies> Latencies;
  const ModelLatencies *latencies() const { return Latencies ? &*Latencies : nullptr; }
};

/// The profile \p O names, measured or read; nullopt for "none".
Expected<std::optional<ModelLatencies>> loadProfile(const Options &O,
                                                    const AcceleratorConfig &C) {
  if (O.Profile == "none")
    return std::nullopt;
  if (O.Profile == "quick") {
    DeviceOptions Opts;
    Opts.Config = C;
    Expected<std::unique_ptr<Device>> Rtl = openDevice("rtl", Opts);
    if (!Rtl)
      return Rtl.takeError();
    Expected<json::Object> P = profile::measureProfile(**Rtl, C, /*Quick=*/true);
    if (!P)
      return P.takeError();
    Expected<ModelLatencies> L = latenciesFromProfile(*P, "tandem profile --quick on rtl");
    if (!L)
      return L.takeError();
    return std::optional<ModelLatencies>(*L);
  }
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(O.Profile);
  if (!Buf)
    return createStringError(Buf.getError(), "--profile: cannot read '" + O.Profile +
                                                 "': " + Buf.getError().message());
  Expected<json::Value> V = json::parse((*Buf)->getBuffer());
  if (!V)
    return createStringError(inconvertibleErrorCode(), "--profile: '" + O.Profile +
                                                           "' is not JSON: " +
                                                           toString(V.takeError()));
  if (!V->getAsObject())
    return createStringError(inconvertibleErrorCode(),
                             "--profile: '" + O.Profile + "' is not a JSON object");
  Expected<ModelLatencies> L = latenciesFromProfile(*V->getAsObject(), O.Profile);
  if (!L)
    return L.takeError();
  return std::optional<ModelLatencies>(*L);
}

/// One workload's launches, predicted (per launch) and measured.
struct Outcome {
  std::vector<LaunchProfile> Profiles;
  Prediction Predicted;
  std::optional<Counters> Measured; ///< rtl, summed over the launches
  bool Passed = true;
  std::string Failure;
};

Prediction predictAll(ArrayRef<LaunchProfile> Profiles, const ModelParams &P) {
  Prediction Sum;
  for (const LaunchProfile &L : Profiles)
    Sum.Parts += predictLaunch(L, P).Parts;
  Sum.Cycles = Sum.Parts.total();
  Sum.Bound = Sum.Parts.dominant();
  return Sum;
}

Counters sumCounters(ArrayRef<Counters> Per) {
  Counters Sum;
  for (const Counters &C : Per)
    for (const auto &[Name, V] : C.Values)
      Sum.add(Name, V);
  return Sum;
}

/// TANDEM_REPORT_DEBUG=1: a launch's total demands on standard error.
void debugProfile(const LaunchProfile &L, StringRef Inputs) {
  double Dp = 0, Ls = 0, Dep = 0, Iss = 0;
  for (const BlockProfile &B : L.Blocks)
    for (const SegmentProfile &S : B.Segments)
      for (const WarpDemand &W : S.Warps) {
        Dp += W.Service[Datapath];
        Ls += W.Service[Lsu];
        Dep += W.DependencyCycles;
        Iss += W.IssueCycles;
      }
  errs() << formatv("  {0} ({1}): blocks {2} warp instructions {3} datapath {4} lsu {5} "
                    "dependency {6} issue {7}; l1 hits {8} misses {9} dram requests {10}\n",
                    L.Kernel, Inputs, L.Blocks.size(), L.WarpInstructions, Dp, Ls, Dep, Iss,
                    L.Memory.L1Hits, L.Memory.L1Misses, L.Memory.DramRequests);
}

Error runWorkload(const AcceleratorConfig &Config, const ModelSetup &Model,
                  const KernelImage &Img, const suite::Problem &P, StringRef Name,
                  bool MeasureRtl, Outcome &Out) {
  // iss with the trace: the model's input.
  TraceProfiler Profiler(Model.Config, Model.latencies());
  DeviceOptions IssOpts;
  IssOpts.Config = Config;
  IssOpts.Trace = &Profiler;
  Expected<std::unique_ptr<Device>> Iss = openDevice("iss", IssOpts);
  if (!Iss)
    return Iss.takeError();
  if (Error E = (*Iss)->loadImage(Img))
    return E;
  suite::SuiteResult IssResult;
  suite::RunOptions RO;
  RO.Limit = suite::Limits::of(Config);
  if (Error E = suite::runProblem(**Iss, P, Name, IssResult, RO))
    return E;
  Profiler.finish();
  if (Profiler.malformedLines())
    errs() << "tandem report: " << Name << ": " << Profiler.malformedLines()
           << " iss trace lines the model could not read were left out\n";
  if (!IssResult.Passed) {
    Out.Passed = false;
    Out.Failure = "iss: " + IssResult.Message;
  }
  Out.Profiles = std::move(Profiler.launches());
  if (getenv("TANDEM_REPORT_DEBUG"))
    for (const LaunchProfile &L : Out.Profiles)
      debugProfile(L, "iss-assisted");
  if (!MeasureRtl)
    return Error::success();

  DeviceOptions RtlOpts;
  RtlOpts.Config = Config;
  Expected<std::unique_ptr<Device>> Rtl = openDevice("rtl", RtlOpts);
  if (!Rtl)
    return Rtl.takeError();
  if (Error E = (*Rtl)->loadImage(Img))
    return E;
  suite::SuiteResult RtlResult;
  if (Error E = suite::runProblem(**Rtl, P, Name, RtlResult, RO))
    return E;
  if (!RtlResult.Passed) {
    Out.Passed = false;
    Out.Failure += "rtl: " + RtlResult.Message;
  }
  Out.Measured = sumCounters(RtlResult.PerLaunch);
  return Error::success();
}

//===--- Workloads ----------------------------------------------------------===//

/// A row waiting for its prediction (kept so --fit can predict again).
struct Pending {
  ReportRow Row;
  std::vector<LaunchProfile> Profiles;
  /// The purely static profiles (StaticEstimate.h); empty with a reason in
  /// Row.StaticReason when the launch could not be estimated statically.
  std::vector<LaunchProfile> StaticProfiles;
};

//===--- The static estimate ------------------------------------------------===//

/// The device addresses the runtime gives the problem's buffers: allocated
/// in order, first fit from 1 MiB, 256-byte aligned, outputs with their
/// guard words (microbench/Suite.cpp, sim/iss/DeviceMemory.cpp). Only the
/// addresses' low bits matter to the model (L1 sets, DRAM channels).
std::vector<uint32_t> bufferAddresses(const suite::Problem &P) {
  std::vector<uint32_t> Out;
  uint64_t Next = 0x00100000;
  for (const suite::Buffer &B : P.Buffers) {
    Out.push_back(uint32_t(Next));
    uint64_t Words = B.Data.size() + (B.R != suite::Role::In ? suite::GuardWords : 0);
    Next += alignTo(std::max<uint64_t>(4, Words * 4), 256);
  }
  return Out;
}

/// The static estimate of every launch of \p P, or why there is none.
Error staticProfiles(const ModelSetup &Model, const KernelImage &Img,
                     const suite::Problem &P, const InputModel &Inputs,
                     std::vector<LaunchProfile> &Out) {
  std::vector<uint32_t> Addr = bufferAddresses(P);
  for (const suite::Launch &La : P.Launches) {
    StaticLaunch S;
    S.Kernel = La.Kernel;
    S.Grid = {La.Grid.X, La.Grid.Y, La.Grid.Z};
    S.Block = {La.Block.X, La.Block.Y, La.Block.Z};
    const KernelInfo *K = nullptr;
    for (const KernelInfo &Info : Img.Kernels)
      if (Info.Name == La.Kernel)
        K = &Info;
    if (!K)
      return createStringError(inconvertibleErrorCode(), "no kernel " + La.Kernel);
    S.ParamWords.assign(K->paramBytes() / 4, 0);
    for (size_t I = 0; I < La.Args.size() && I < K->Params.size(); ++I) {
      const suite::Arg &A = La.Args[I];
      uint32_t Word = K->Params[I].Offset / 4;
      if (Word < S.ParamWords.size())
        S.ParamWords[Word] =
            A.K == suite::Arg::Kind::Buffer ? Addr[A.BufferIndex] : A.Bits;
    }
    Expected<LaunchProfile> L =
        estimateLaunch(Img, S, Model.Config, Inputs, Model.latencies());
    if (!L)
      return L.takeError();
    if (getenv("TANDEM_REPORT_DEBUG"))
      debugProfile(*L, "static");
    Out.push_back(std::move(*L));
  }
  return Error::success();
}

/// What thread-per-row and warp-per-row CSR SpMV need to know about the
/// matrix that the code cannot show (StaticEstimate.h, InputModel): the row
/// lengths (the row loop's trip count, per thread) and, for the gathers,
/// where the nonzeros of a row lie. The colIdx/vals streams of a row are
/// contiguous from the row's start; the row's x columns are spread in order
/// over a window around its diagonal as wide as the mean row span
/// (sparse::MatrixStats), each moved by a hashed offset within its share.
/// No column index is read.
InputModel spmvInputs(const sparse::CsrMatrix &A, StringRef Variant,
                      const AcceleratorConfig &C, uint32_t BlockThreads) {
  struct Shared {
    std::vector<uint32_t> RowStart, RowLength;
    uint32_t Rows = 0, Cols = 0, Block = 128;
    double WindowColumns = 1;
    bool Vector = false;
  };
  auto S = std::make_shared<Shared>();
  S->Rows = A.Rows;
  S->Cols = A.Cols;
  S->Block = BlockThreads;
  S->Vector = Variant == "spmv_vector";
  for (uint32_t R = 0; R < A.Rows; ++R) {
    S->RowStart.push_back(A.RowPtr[R]);
    S->RowLength.push_back(A.rowLength(R));
  }
  sparse::CacheShape Shape;
  Shape.LineBytes = C.L1.LineBytes;
  Shape.CapacityBytes = C.L1.SizeBytes;
  sparse::MatrixStats St = sparse::computeStats(A, Shape);
  S->WindowColumns = std::max(1.0, St.MeanRowSpan);
  InputModel M;
  M.LoopRange = [S](unsigned Loop, uint32_t Block, uint32_t Thread) -> std::optional<uint64_t> {
    if (Loop != 0)
      return std::nullopt;
    uint64_t Global = uint64_t(Block) * S->Block + Thread;
    uint64_t Row = S->Vector ? Global / 32 : Global;
    if (Row >= S->Rows)
      return std::nullopt;
    uint64_t Len = S->RowLength[Row];
    if (!S->Vector)
      return Len;
    uint32_t Lane = Thread % 32;
    return Len > Lane ? Len - Lane : 0;
  };
  // Params: rows, rowPtr, colIdx, vals, x, y (words 0..5).
  M.Address = [S](const DataAccess &D) -> std::optional<uint32_t> {
    uint64_t Global = uint64_t(D.BlockLinear) * S->Block + D.Thread;
    uint64_t Row = S->Vector ? Global / 32 : Global;
    if (Row >= S->Rows || (D.Param != 2 && D.Param != 3 && D.Param != 4))
      return std::nullopt;
    uint32_t Lane = D.Thread % 32;
    uint64_t InRow = S->Vector ? Lane + D.Iteration * D.Step + 32ull * D.Ordinal
                               : D.Iteration * D.Step + D.Ordinal;
    uint64_t Element = S->RowStart[Row] + InRow;
    // Synthetic regions far apart; the real bases are only needed mod the
    // L1 sets and DRAM channels, which the synthetic ones also spread.
    if (D.Param == 2 || D.Param == 3)
      return uint32_t(0x10000000u * uint32_t(D.Param) + Element * 4);
    // x: a row's columns in CSR order, spread evenly over a window as wide
    // as the mean row span (first to last column) centred on the row's
    // diagonal, each moved by a hashed offset within its share of the span
    // (columns are sorted in a row, not evenly spaced).
    double Center = double(Row) * S->Cols / std::max(1u, S->Rows);
    double Width = S->WindowColumns;
    double Len = std::max<double>(1, S->RowLength[Row]);
    uint64_t H = (Element + 1) * 0x9E3779B97F4A7C15ull;
    H ^= H >> 29;
    double Pick = double(H % 1000003) / 1000003.0;
    double Col = std::clamp(Center - Width / 2 + (double(InRow) + Pick) * Width / Len, 0.0,
                            double(S->Cols - 1));
    return uint32_t(0x40000000u + uint64_t(Col) * 4);
  };
  return M;
}

/// The input statistics of a suite case the static estimator needs them
/// for: the suite's own CSR SpMV cases (their generated matrix). Others:
/// none (their rows say what was unknown).
InputModel suiteInputs(StringRef Case, const suite::Problem &P, const AcceleratorConfig &C) {
  if ((Case != "spmv_scalar" && Case != "spmv_vector") || P.Launches.empty())
    return {};
  sparse::CsrMatrix A;
  A.Rows = P.size("rows");
  A.Cols = P.size("cols");
  A.RowPtr = P.buffer("rowPtr").Data;
  A.ColIdx = P.buffer("colIdx").Data;
  A.Values.assign(A.ColIdx.size(), 1.0f);
  return spmvInputs(A, Case, C, P.Launches.front().Block.X);
}

void predictStatic(Pending &P, const ModelParams &Params);

const char *const SpmvVariants[] = {"spmv_scalar", "spmv_vector", "spmv_merge"};

/// The merge-path carries (docs/Sparse.md) replayed on the host: the merge
/// is walked once across all slices (a row end comes before a nonzero at
/// the same position), and each slice's stopping row and partial sum kept.
void addCarryChecks(suite::Problem &P, const sparse::CsrMatrix &A, ArrayRef<float> X) {
  const suite::Launch &Merge = P.Launches.front();
  const uint32_t Threads = uint32_t(Merge.Grid.X * Merge.Block.X);
  const uint32_t PerThread = Merge.Args[7].Bits;
  const uint64_t Total = A.Rows + A.nnz();
  suite::Check Rows, Vals;
  Rows.BufferIndex = Merge.Args[8].BufferIndex;
  Vals.BufferIndex = Merge.Args[9].BufferIndex;
  uint32_t Row = 0, Nz = 0;
  for (uint32_t T = 0; T < Threads; ++T) {
    uint64_t End = std::min<uint64_t>(uint64_t(T + 1) * PerThread, Total);
    double Sum = 0, Mag = 0;
    for (uint64_t Item = std::min<uint64_t>(uint64_t(T) * PerThread, Total); Item < End;
         ++Item) {
      if (Row < A.Rows && Nz < A.RowPtr[Row + 1]) {
        double Term = double(A.Values[Nz]) * X[A.ColIdx[Nz]];
        Sum += Term;
        Mag += std::fabs(Term);
        ++Nz;
      } else {
        Sum = Mag = 0;
        ++Row;
      }
    }
    Rows.Want.push_back(Row);
    Vals.Want.push_back(bit_cast<uint32_t>(float(Sum)));
    Vals.Magnitude.push_back(Mag);
  }
  Vals.RelTol = 1e-5;
  P.Checks.push_back(std::move(Rows));
  P.Checks.push_back(std::move(Vals));
}

/// A CSR SpMV problem for one variant, with a host reference for y.
suite::Problem spmvProblem(const sparse::CsrMatrix &A, StringRef Variant,
                          const suite::Limits &L, uint64_t Seed) {
  using namespace suite;
  Problem P;
  P.Sizes["rows"] = A.Rows;
  P.Sizes["cols"] = A.Cols;
  P.Sizes["nnz"] = uint32_t(A.nnz());
  std::vector<uint32_t> Vals(A.Values.size()), X(A.Cols);
  for (size_t I = 0; I < Vals.size(); ++I)
    Vals[I] = bit_cast<uint32_t>(A.Values[I]);
  uint64_t S = Seed * 0x9E3779B97F4A7C15ull + 1;
  std::vector<float> Xf(A.Cols);
  for (uint32_t I = 0; I < A.Cols; ++I) { // never 0, in [-1, 1)
    S = S * 6364136223846793005ull + 1442695040888963407ull;
    Xf[I] = float(double(S >> 40) / double(1ull << 24)) * 2.0f - 1.0f;
    if (Xf[I] == 0)
      Xf[I] = 0.5f;
    X[I] = bit_cast<uint32_t>(Xf[I]);
  }
  unsigned RowPtr = P.addBuffer("rowPtr", Role::In, Elem::S32, A.RowPtr);
  unsigned ColIdx = P.addBuffer("colIdx", Role::In, Elem::S32, A.ColIdx);
  unsigned ValsB = P.addBuffer("vals", Role::In, Elem::F32, std::move(Vals));
  unsigned XB = P.addBuffer("x", Role::In, Elem::F32, std::move(X));
  unsigned Y = P.addOutput("y", Elem::F32, A.Rows);
  const uint32_t B = std::min<uint32_t>(128, L.MaxThreadsPerBlock);
  auto Launch1D = [&](StringRef Kernel, uint32_t Blocks, std::vector<Arg> Args) {
    Launch La;
    La.Kernel = Kernel.str();
    La.Grid.X = std::max<uint32_t>(1, Blocks);
    La.Block.X = B;
    La.Args = std::move(Args);
    P.Launches.push_back(std::move(La));
  };
  std::vector<Arg> Common = {Arg::s32(int32_t(A.Rows)), Arg::buffer(RowPtr), Arg::buffer(ColIdx),
                             Arg::buffer(ValsB),        Arg::buffer(XB),     Arg::buffer(Y)};
  if (Variant == "spmv_scalar") {
    Launch1D(Variant, (A.Rows + B - 1) / B, Common);
  } else if (Variant == "spmv_vector") {
    Launch1D(Variant, uint32_t((uint64_t(A.Rows) * 32 + B - 1) / B), Common);
  } else {
    // ~32 merge items per thread: every lane of a warp does the same work.
    uint64_t Items = A.Rows + A.nnz();
    uint32_t Blocks = uint32_t(std::max<uint64_t>(1, (Items + 32 * B - 1) / (32 * B)));
    uint32_t Threads = Blocks * B;
    uint32_t PerThread = uint32_t((Items + Threads - 1) / Threads);
    unsigned CarryRow = P.addOutput("carryRow", Elem::S32, Threads);
    unsigned CarryVal = P.addOutput("carryVal", Elem::F32, Threads);
    Launch1D("spmv_merge", Blocks,
             {Arg::s32(int32_t(A.Rows)), Arg::s32(int32_t(A.nnz())), Arg::buffer(RowPtr),
              Arg::buffer(ColIdx), Arg::buffer(ValsB), Arg::buffer(XB), Arg::buffer(Y),
              Arg::s32(int32_t(PerThread)), Arg::buffer(CarryRow), Arg::buffer(CarryVal)});
    Launch1D("spmv_merge_fixup", Blocks,
             {Arg::s32(int32_t(A.Rows)), Arg::s32(int32_t(Threads)), Arg::buffer(CarryRow),
              Arg::buffer(CarryVal), Arg::buffer(Y)});
  }
  // Reference: within a rounding bound that grows with the longest row.
  Check C;
  C.BufferIndex = Y;
  uint32_t Longest = 0;
  for (uint32_t R = 0; R < A.Rows; ++R) {
    double Want = 0, Mag = 0;
    for (uint32_t J = A.RowPtr[R]; J < A.RowPtr[R + 1]; ++J) {
      double T = double(A.Values[J]) * Xf[A.ColIdx[J]];
      Want += T;
      Mag += std::fabs(T);
    }
    Longest = std::max(Longest, A.rowLength(R));
    C.Want.push_back(bit_cast<uint32_t>(float(Want)));
    C.Magnitude.push_back(Mag);
  }
  C.RelTol = std::max(1e-5, 4.0 * (Longest + 1) * 6e-8);
  P.Checks.push_back(std::move(C));
  if (Variant == "spmv_merge")
    addCarryChecks(P, A, Xf);
  return P;
}

/// The first rows of \p A that hold at most \p MaxNnz nonzeros (at least one
/// row), all columns kept.
sparse::CsrMatrix firstRows(const sparse::CsrMatrix &A, uint64_t MaxNnz) {
  uint32_t Rows = 1;
  while (Rows < A.Rows && A.RowPtr[Rows + 1] <= MaxNnz)
    ++Rows;
  sparse::CsrMatrix Cut;
  Cut.Rows = Rows;
  Cut.Cols = A.Cols;
  Cut.RowPtr.assign(A.RowPtr.begin(), A.RowPtr.begin() + Rows + 1);
  Cut.ColIdx.assign(A.ColIdx.begin(), A.ColIdx.begin() + Cut.RowPtr.back());
  Cut.Values.assign(A.Values.begin(), A.Values.begin() + Cut.RowPtr.back());
  return Cut;
}

struct NamedMatrix {
  std::string Input, Group;
  sparse::CsrMatrix A;
};

std::vector<NamedMatrix> loadMatrices(const Options &O, Report &R, bool &Ok) {
  std::vector<NamedMatrix> Out;
  std::vector<std::string> Files;
  std::error_code EC;
  for (sys::fs::directory_iterator It(O.MatricesDir, EC), End; It != End && !EC;
       It.increment(EC))
    if (StringRef(It->path()).ends_with(".mtx"))
      Files.push_back(It->path());
  if (EC || Files.empty()) {
    std::string Why = "no .mtx files in '" + O.MatricesDir + "'" +
                      (EC ? " (" + EC.message() + ")" : "");
    if (O.MatricesGiven) {
      errs() << "tandem report: error: --matrices: " << Why << '\n';
      Ok = false;
    } else {
      R.Notes.push_back(Why + ": only generated matrices were run");
    }
  }
  std::sort(Files.begin(), Files.end());
  if (Files.size() > O.MaxMatrices) {
    // --quick: the two smallest files.
    std::sort(Files.begin(), Files.end(), [](const std::string &A, const std::string &B) {
      uint64_t SA = 0, SB = 0;
      sys::fs::file_size(A, SA);
      sys::fs::file_size(B, SB);
      return SA < SB;
    });
    Files.resize(O.MaxMatrices);
  }
  for (const std::string &F : Files) {
    Expected<sparse::CsrMatrix> A = sparse::loadCsr(F);
    if (!A) {
      errs() << "tandem report: skipping " << F << ": " << toString(A.takeError()) << '\n';
      R.Notes.push_back("skipped " + F + " (does not load)");
      continue;
    }
    if (A->nnz() > O.MaxNnz) {
      sparse::CsrMatrix Cut = firstRows(*A, O.MaxNnz);
      R.Notes.push_back(formatv("{0}: first {1} of {2} rows ({3} of {4} nonzeros, --max-nnz "
                                "{5}), all {6} columns",
                                sys::path::filename(F), Cut.Rows, A->Rows, Cut.nnz(), A->nnz(),
                                O.MaxNnz, A->Cols));
      *A = std::move(Cut);
    }
    Out.push_back({F, "matrix", std::move(*A)});
  }
  // Generated inputs: one of each shape (seeded, so every report sees the same).
  struct Gen {
    const char *Name;
    Expected<sparse::CsrMatrix> (*Make)();
  };
  const Gen Gens[] = {
      {"uniform 1500x1500, 8/row", [] { return sparse::generateUniform(11, 1500, 1500, 8); }},
      {"power-law 1500x1500, a=1.4, 0..400",
       [] { return sparse::generatePowerLaw(12, 1500, 1500, 1.4, 0, 400); }},
      {"banded 2000, half bandwidth 2", [] { return sparse::generateBanded(13, 2000, 2); }},
      {"block-diagonal 1600, 32x32 blocks, density 0.2",
       [] { return sparse::generateBlockDiagonal(14, 1600, 32, 0.2); }}};
  for (const Gen &G : Gens) {
    if (O.Quick && Out.size() >= 3)
      break;
    Expected<sparse::CsrMatrix> A = G.Make();
    if (!A) {
      errs() << "tandem report: generator '" << G.Name << "': " << toString(A.takeError())
             << '\n';
      Ok = false;
      continue;
    }
    if (O.Quick)
      *A = firstRows(*A, O.MaxNnz);
    Out.push_back({G.Name, "generated", std::move(*A)});
  }
  return Out;
}

//===--- Calibration (--fit) --------------------------------------------------===//

void fitConstants(std::vector<Pending> &Rows, ModelParams &P) {
  double BestErr = INFINITY;
  size_t Tuned = 0;
  ModelParams Best = P;
  for (double Q = 0; Q <= 1.0001; Q += 0.05)
    for (double D = 0; D <= 1.0001; D += 0.05) {
      ModelParams Try = P;
      Try.QueueingWeight = Q;
      Try.DependencyExposure = D;
      std::vector<double> Errors;
      Tuned = 0;
      for (const Pending &R : Rows)
        if (R.Row.TunedOn && R.Row.Measured && ++Tuned)
          Errors.push_back(std::fabs(predictAll(R.Profiles, Try).Cycles - *R.Row.Measured) /
                           *R.Row.Measured);
      double Err = 0;
      for (double E : Errors)
        Err += E * E;
      if (Err < BestErr) {
        BestErr = Err;
        Best = Try;
      }
    }
  outs() << formatv("fit on the calibration kernels: queueing_weight {0:F2}, "
                    "dependency_exposure {1:F2} (rms relative error {2:F3})\n",
                    Best.QueueingWeight, Best.DependencyExposure,
                    std::sqrt(BestErr / std::max<size_t>(1, Tuned)));
  P = Best;
}

//===--- The command ----------------------------------------------------------===//

std::string today() {
  std::time_t T = std::time(nullptr);
  char Buf[32];
  std::strftime(Buf, sizeof Buf, "%Y-%m-%d %H:%M UTC", std::gmtime(&T));
  return Buf;
}

void fillRow(ReportRow &Row, const Outcome &Out, const AcceleratorConfig &C) {
  MemoryEstimate Sum;
  for (const LaunchProfile &L : Out.Profiles) {
    Sum.L1Hits += L.Memory.L1Hits;
    Sum.L1Misses += L.Memory.L1Misses;
    Sum.DramRequests += L.Memory.DramRequests;
    Sum.DramReadBytes += L.Memory.DramReadBytes;
    Sum.DramWriteBytes += L.Memory.DramWriteBytes;
    Row.FpuLaneOps += double(L.FpuThreadInstructions);
  }
  Row.ModelMemory = Sum;
  if (Out.Measured) {
    Row.Measured = double(Out.Measured->get("cycles"));
    for (StringRef K : {"cycles", "stall_dependency", "stall_unit_busy", "stall_memory",
                        "stall_barrier", "stall_no_ready_warp", "l1_hits", "l1_misses",
                        "dram_requests", "dram_read_bytes", "dram_write_bytes",
                        "warp_instructions"})
      Row.Counters[K.str()] = Out.Measured->get(K);
    Row.Counters["peak_lane_ops_per_cycle"] = C.Lanes;
    Row.Counters["peak_dram_bytes_per_cycle"] = uint64_t(C.Dram.BytesPerCycle) * C.Dram.Channels;
  }
}

void predictRow(Pending &P, const ModelParams &Params) {
  Prediction Pr = predictAll(P.Profiles, Params);
  P.Row.Predicted = Pr.Cycles;
  P.Row.Parts = Pr.Parts;
  P.Row.Bound = Pr.Bound;
  predictStatic(P, Params);
}

void predictStatic(Pending &P, const ModelParams &Params) {
  if (P.StaticProfiles.empty() || !P.Row.StaticReason.empty())
    return;
  P.Row.StaticPredicted = predictAll(P.StaticProfiles, Params).Cycles;
}

void progress(size_t I, const Pending &P) {
  errs() << formatv("[{0,3}] {1,-14} {2,-48} predicted {3,10:N}", I, P.Row.Workload,
                    P.Row.Group == "matrix" ? sys::path::filename(P.Row.Input).str()
                                            : P.Row.Input.substr(0, 48),
                    uint64_t(P.Row.Predicted));
  if (P.Row.Measured)
    errs() << formatv("  measured {0,10:N}  error {1,6:F1}%", uint64_t(*P.Row.Measured),
                      *P.Row.errorPct());
  if (std::optional<double> E = P.Row.staticErrorPct())
    errs() << formatv("  static {0,6:F1}%", *E);
  else if (!P.Row.StaticReason.empty())
    errs() << "  static: none";
  errs() << '\n';
}

} // namespace

/// Appends the gpu rows of O.GpuResults (measured by the runner, predicted by
/// the gpu model) and their notes; false, with the error printed, if they
/// cannot be read.
bool addGpuRows(const Options &O, Report &R) {
  Expected<models::GpuProfile> Profile =
      gpuProfileForReport(O.GpuResults, O.GpuProfile, referenceGpuProfilePath());
  if (!Profile) {
    errs() << "tandem report: error: the gpu profile: " << toString(Profile.takeError()) << '\n';
    return false;
  }
  Expected<GpuReportRows> Gpu = gpuReportRows(O.GpuResults, O.GpuBundle, *Profile);
  if (!Gpu) {
    errs() << "tandem report: error: gpu rows: " << toString(Gpu.takeError()) << '\n';
    return false;
  }
  for (models::ReportRow &Row : Gpu->Rows) {
    errs() << formatv("tandem report: gpu {0} {1}: predicted {2:F4} ms, measured {3}\n",
                      Row.Workload, Row.Input, Row.Predicted,
                      Row.Measured ? formatv("{0:F4} ms", *Row.Measured).str() : "-");
    R.Rows.push_back(std::move(Row));
  }
  for (std::string &N : Gpu->Notes)
    R.Notes.push_back("gpu: " + N);
  R.Notes.push_back("gpu rows: measured by the runner (" + O.GpuResults +
                    "), predicted by the gpu model (models/GpuModel.h) from sizes and matrix "
                    "statistics only (model_inputs static)");
  return true;
}

int reportCommand(int Argc, char **Argv) {
  Options O;
  if (std::optional<int> Stop = parseArgs(Argc, Argv, O))
    return *Stop;
  auto Start = std::chrono::steady_clock::now();
  Expected<AcceleratorConfig> Config =
      loadConfig(O.ConfigPath.empty() ? defaultConfigPath() : O.ConfigPath);
  if (!Config) {
    errs() << "tandem report: error: " << toString(Config.takeError()) << '\n';
    return 1;
  }
  Report R;
  R.Date = today();
  R.Command = O.Command;
  R.ConfigName = Config->Name;
  ModelSetup Model{*Config, std::nullopt};
  {
    Expected<std::optional<ModelLatencies>> L = loadProfile(O, *Config);
    if (!L) {
      errs() << "tandem report: error: the device profile: " << toString(L.takeError())
             << '\n';
      return 1;
    }
    if (*L) {
      Model.Latencies = **L;
      Model.Config = withProfileLatencies(*Config, **L);
      R.Profile = formatv("{0}: DRAM latency {1:F1} cycles (configuration: {2}), ALU {3:F2}, "
                          "FPU {4:F2} cycles per dependent op",
                          (*L)->Source, (*L)->DramLatencyCycles, Config->Dram.LatencyCycles,
                          (*L)->AluReadyCycles, (*L)->FpuReadyCycles);
    } else {
      R.Profile = "none: latencies from the configuration and the generated tables";
    }
    errs() << "tandem report: model latencies from " << R.Profile << '\n';
  }
  bool Ok = true;
  std::vector<std::string> Devices;
  if (O.Rtl)
    Devices.push_back("rtl");
  if (O.Iss)
    Devices.push_back("iss");

  std::vector<Pending> Rows;
  suite::RunOptions SuiteOpts;
  SuiteOpts.Limit = suite::Limits::of(*Config);

  // The kernel suite.
  for (const suite::SuiteCase &C : suite::suiteCases()) {
    if (Devices.empty())
      break; // gpu only: its rows come from the runner's results below
    if (O.Quick && !is_contained(QuickCases, C.Name))
      continue;
    Expected<compiler::CompileResult> Compiled = suite::compileCase(C, Config->Registers);
    if (!Compiled || !Compiled->Image) {
      errs() << "tandem report: " << C.Name << ": "
             << (Compiled ? "no image" : toString(Compiled.takeError())) << '\n';
      Ok = false;
      continue;
    }
    suite::Problem P = C.makeProblem(SuiteOpts);
    Outcome Out;
    if (Error E = runWorkload(*Config, Model, *Compiled->Image, P, C.Name, O.Rtl, Out)) {
      errs() << "tandem report: " << C.Name << ": " << toString(std::move(E)) << '\n';
      Ok = false;
      continue;
    }
    if (!Out.Passed) {
      errs() << "tandem report: " << C.Name << ": wrong result: " << Out.Failure << '\n';
      Ok = false;
    }
    std::vector<LaunchProfile> Static;
    std::string StaticReason;
    if (Error E = staticProfiles(Model, *Compiled->Image, P, suiteInputs(C.Name, P, *Config),
                                 Static))
      StaticReason = toString(std::move(E));
    for (const std::string &D : Devices) {
      Pending Row;
      Row.StaticProfiles = Static;
      Row.Row.StaticReason = StaticReason;
      Row.Row.Device = D;
      Row.Row.Workload = C.Name;
      Row.Row.Input = P.describe();
      Row.Row.Group = "suite";
      Row.Row.TunedOn = is_contained(CalibrationCases, C.Name);
      if (D == "rtl")
        fillRow(Row.Row, Out, *Config);
      else
        fillRow(Row.Row, Outcome{Out.Profiles, {}, std::nullopt, true, ""}, *Config);
      Row.Profiles = Out.Profiles;
      predictRow(Row, R.Params);
      progress(Rows.size() + 1, Row);
      Rows.push_back(std::move(Row));
    }
  }

  // SpMV on matrices: three variants each.
  std::vector<NamedMatrix> Matrices;
  if (!Devices.empty())
    Matrices = loadMatrices(O, R, Ok);
  const suite::SuiteCase *Spmv = suite::findCase("spmv_scalar");
  const suite::SuiteCase *Merge = suite::findCase("spmv_balanced");
  std::optional<KernelImage> SpmvImg, MergeImg;
  if (Spmv && Merge && !Matrices.empty()) {
    Expected<compiler::CompileResult> A = suite::compileCase(*Spmv, Config->Registers);
    Expected<compiler::CompileResult> B = suite::compileCase(*Merge, Config->Registers);
    if (A && B) {
      SpmvImg = std::move(A->Image);
      MergeImg = std::move(B->Image);
    } else {
      errs() << "tandem report: compiling the SpMV kernels: "
             << (A ? toString(B.takeError()) : toString(A.takeError())) << '\n';
      if (!B)
        consumeError(B.takeError());
      Ok = false;
    }
  }
  for (const NamedMatrix &M : SpmvImg && MergeImg ? Matrices : std::vector<NamedMatrix>{}) {
    for (const char *Variant : SpmvVariants) {
      suite::Problem P = spmvProblem(M.A, Variant, SuiteOpts.Limit, 7);
      const KernelImage &Img = StringRef(Variant) == "spmv_merge" ? *MergeImg : *SpmvImg;
      Outcome Out;
      if (Error E = runWorkload(*Config, Model, Img, P, Variant, O.Rtl, Out)) {
        errs() << "tandem report: " << Variant << " on " << M.Input << ": "
               << toString(std::move(E)) << '\n';
        Ok = false;
        continue;
      }
      if (!Out.Passed) {
        errs() << "tandem report: " << Variant << " on " << M.Input
               << ": wrong result: " << Out.Failure << '\n';
        Ok = false;
      }
      std::vector<LaunchProfile> Static;
      std::string StaticReason;
      if (Error E = staticProfiles(Model, Img, P,
                                     spmvInputs(M.A, Variant, *Config,
                                                P.Launches.front().Block.X),
                                     Static))
        StaticReason = toString(std::move(E));
      for (const std::string &D : Devices) {
        Pending Row;
        Row.StaticProfiles = Static;
        Row.Row.StaticReason = StaticReason;
        Row.Row.Device = D;
        Row.Row.Workload = Variant;
        Row.Row.Input = M.Input;
        Row.Row.Group = M.Group;
        if (D == "rtl")
          fillRow(Row.Row, Out, *Config);
        else
          fillRow(Row.Row, Outcome{Out.Profiles, {}, std::nullopt, true, ""}, *Config);
        Row.Profiles = Out.Profiles;
        predictRow(Row, R.Params);
        progress(Rows.size() + 1, Row);
        Rows.push_back(std::move(Row));
      }
    }
  }

  if (O.Fit) {
    fitConstants(Rows, R.Params);
    for (Pending &P : Rows)
      predictRow(P, R.Params);
  }

  // The model's SpMV pick per matrix (rtl rows).
  for (const NamedMatrix &M : Matrices) {
    const ReportRow *Picked = nullptr, *Fastest = nullptr;
    for (const Pending &P : Rows) {
      const ReportRow &Row = P.Row;
      if (Row.Device != "rtl" || Row.Input != M.Input || !Row.Measured)
        continue;
      if (!Picked || Row.Predicted < Picked->Predicted)
        Picked = &Row;
      if (!Fastest || *Row.Measured < *Fastest->Measured)
        Fastest = &Row;
    }
    if (Picked && Fastest)
      R.Picks.push_back({M.Input, Picked->Workload, Fastest->Workload, *Picked->Measured,
                         *Fastest->Measured});
  }

  R.Notes.push_back("model_inputs 'iss-assisted': the model reads the iss instruction trace "
                    "of the same launch (per-warp instruction mix, memory addresses)");
  R.Notes.push_back("static_predicted: the same model on a purely static profile "
                    "(models/StaticEstimate.h): the machine code walked per warp with the "
                    "values the launch determines; data-dependent branches run both sides; "
                    "SpMV row loops take their trip counts from the row lengths and the x "
                    "gathers their addresses from matrix statistics; no iss run. Rows "
                    "without one say why (static_reason)");
  R.Notes.push_back(formatv("calibration kernels (the two fitted constants): {0}; all other "
                            "rows are not tuned on",
                            join(std::begin(CalibrationCases), std::end(CalibrationCases), ", ")));
  for (Pending &P : Rows)
    R.Rows.push_back(std::move(P.Row));
  if (O.Gpu && !addGpuRows(O, R))
    Ok = false;
  if (Error E = writeReportFiles(R, O.OutDir)) {
    errs() << "tandem report: error: " << toString(std::move(E)) << '\n';
    return 1;
  }
  double Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  errs() << formatv("tandem report: wrote {0}/report.json, report.md, report.html ({1} rows, "
                    "{2:F0} s)\n",
                    O.OutDir, R.Rows.size(), Seconds);
  outs() << R.summaryLine() << '\n';
  return Ok ? 0 : 1;
}

} // namespace tandem::cli
