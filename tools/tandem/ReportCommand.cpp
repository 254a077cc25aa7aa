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
// A workload's iss run (then its static estimate) and its rtl run are
// independent: they run TANDEM_JOBS at a time (runJobs); both devices are
// deterministic and rows are made in workload order, so the report does not
// depend on TANDEM_JOBS. The rtl is nearly all the work (docs/Report.md,
// "Run time"); the time per phase is printed at the end.
//
// Progress goes to stderr; the last stdout line is the accuracy summary.
// Exit status: 0 when the report was written and every workload computed
// the right result, 1 otherwise (the report is still written), 2 for a
// usage error. gpu rows come from the GPU runner's results (--gpu-results,
// ReportGpu.h): the lent GPU machine has no LLVM to run this command.
//
//===----------------------------------------------------------------------===//

#include "Args.h"
#include "Commands.h"

#include "DeviceProfile.h"
#include "Profile.h"
#include "ReportGpu.h"
#include "Report.h"
#include "SimtModel.h"
#include "StaticEstimate.h"
#include "StaticInputs.h"
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
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <ctime>
#include <map>
#include <mutex>
#include <optional>
#include <random>
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
/// Columns of the dense B (and C) in the SpMM rows on matrices.
constexpr uint32_t SpmmColumns = suite::ReportSpmmColumns;
/// --quick runs these suite cases only.
constexpr StringRef QuickCases[] = {"vadd", "saxpy", "block_reduce", "transpose",
                                    "spmv_vector", "hash64"};

struct Options {
  bool Rtl = true, Iss = false, Gpu = false, Quick = false, Fit = false;
  /// --no-schedule: the kernels compiled without the list scheduler (an
  /// A/B of what it gives, row by row against a default report).
  bool Schedule = true;
  /// --no-coalesce: the kernels compiled without lane-aware copy coalescing
  /// (the same kind of A/B).
  bool Coalesce = true;
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
  /// SpMM (C = A x B, B with SpmmColumns columns) runs on each matrix's
  /// first rows holding at most this many nonzeros: a nonzero costs a warp
  /// iteration there, against 1/32 of one in warp-per-row SpMV.
  uint64_t SpmmMaxNnz = 4000;
  unsigned MaxMatrices = 100;
  /// How many iss/rtl runs go at once: TANDEM_JOBS, else the hardware
  /// threads. The runs are deterministic, so the report is the same for any.
  unsigned Jobs = 1;
  /// --model-rounds on|off: ModelParams::CostInRounds; unset, its default.
  std::optional<bool> ModelRounds;
  std::string Command;
};

void printHelp(raw_ostream &OS) {
  OS << "OVERVIEW: run the kernel suite and SpMV and SpMM on matrices, predict each launch with "
        "the simt model and compare with the device\n\n"
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
        "  --matrices DIR        Matrix Market files (*.mtx) to run SpMV and SpMM on (default: "
     << TANDEM_SHARED_MATRICES_DIR
     << ")\n"
        "  --max-nnz N           cut larger matrices to their first rows holding at most N "
        "nonzeros (default: 100000: every shared matrix whole)\n"
        "  --spmm-max-nnz N      SpMM (C = A x B, B dense with "
     << SpmmColumns
     << " columns) on each matrix's first rows holding at most N nonzeros (default: 4000; "
        "--quick: 400); 0: no SpMM rows\n"
        "  --config FILE         accelerator configuration (default: configs/default.json)\n"
        "  --out DIR             output folder (default: report)\n"
        "  --quick               a few kernels, two small matrices, one generated input "
        "(under 2 minutes)\n"
        "  --no-schedule         compile every kernel without the list scheduler (compare "
        "with a default report to see what it gives)\n"
        "  --no-coalesce         compile every kernel without lane-aware copy coalescing (the "
        "same kind of comparison)\n"
        "  --fit                 grid-search the model's two fitted constants on the "
        "calibration kernels and print them\n"
        "  --profile quick|none|FILE  where the model's DRAM/ALU/FPU latencies come from: "
        "the quick microbenchmark profile run on rtl first (default), the configuration "
        "alone, or a `tandem profile -o` file\n"
        "  --model-rounds on|off cost blocks by simulating their rounds between memory "
        "instructions (ModelParams::CostInRounds) or by windows (default: "
     << (ModelParams().CostInRounds ? "on" : "off")
     << "; docs/Report.md)\n"
        "  -h, --help            print this help\n\n"
        "ENVIRONMENT:\n"
        "  TANDEM_JOBS=N         iss/rtl runs at once (default: the hardware threads); the "
        "report is the same for any N\n"
        "  TANDEM_REPORT_COMPARE=1  also print each rtl row's prediction costed by windows "
        "(when costing in rounds, the default)\n";
}

int usageError(const Twine &Msg) {
  errs() << "tandem report: error: " << Msg << "\nRun 'tandem report --help' for usage.\n";
  return 2;
}

std::optional<int> parseArgs(int Argc, char **Argv, Options &O) {
  O.Command = "tandem report";
  for (int I = 1; I < Argc; ++I)
    O.Command += std::string(" ") + Argv[I];
  ArgReader Args(Argc, Argv);
  while (Args.next()) {
    StringRef Arg = Args.arg();
    if (Args.flag("--help") || Args.flag("-h")) {
      printHelp(outs());
      return 0;
    }
    if (Args.flag("--quick")) {
      O.Quick = true;
      continue;
    }
    if (Args.flag("--fit")) {
      O.Fit = true;
      continue;
    }
    if (Args.flag("--no-schedule")) {
      O.Schedule = false;
      continue;
    }
    if (Args.flag("--no-coalesce")) {
      O.Coalesce = false;
      continue;
    }
    StringRef Name = Args.name();
    static constexpr StringRef WithValue[] = {"--device", "--matrices", "--config", "--out",
                                              "--max-nnz", "--spmm-max-nnz", "--profile",
                                              "--gpu-results",
                                              "--gpu-bundle", "--gpu-profile",
                                              "--model-rounds"};
    if (!is_contained(WithValue, Name))
      return usageError("unknown argument '" + Arg + "'");
    std::optional<StringRef> Given = Args.value();
    if (!Given)
      return usageError(Name + " needs a value");
    StringRef Value = *Given;
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
    } else if (Name == "--model-rounds") {
      if (Value != "on" && Value != "off")
        return usageError("--model-rounds must be on or off, not '" + Value + "'");
      O.ModelRounds = Value == "on";
    } else if (Name == "--max-nnz") {
      if (Value.getAsInteger(0, O.MaxNnz) || O.MaxNnz == 0)
        return usageError("--max-nnz needs a positive integer, not '" + Value + "'");
    } else if (Name == "--spmm-max-nnz") {
      if (Value.getAsInteger(0, O.SpmmMaxNnz))
        return usageError("--spmm-max-nnz needs a non-negative integer, not '" + Value + "'");
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
    O.SpmmMaxNnz = std::min<uint64_t>(O.SpmmMaxNnz, 400);
    O.MaxMatrices = 2;
  }
  StringRef Jobs = getenv("TANDEM_JOBS") ? getenv("TANDEM_JOBS") : "";
  if (Jobs.empty())
    O.Jobs = hardware_concurrency().compute_thread_count();
  else if (Jobs.getAsInteger(10, O.Jobs) || O.Jobs == 0)
    return usageError("TANDEM_JOBS must be a positive integer, not '" + Jobs + "'");
  // The debug dump is printed by the runs themselves: one at a time.
  if (getenv("TANDEM_REPORT_DEBUG"))
    O.Jobs = 1;
  return std::nullopt;
}

//===--- Measuring and predicting one workload --------------------------------===//

/// What the model costs with: the configuration with the profile's DRAM
/// latency, and the profile's ALU/FPU latencies (DeviceProfile.h).
struct ModelSetup {
  AcceleratorConfig Config;
  std::optional<ModelLatencies> Latencies;
  /// ModelParams::CostInRounds: the iss profile then collects rounds.
  bool Rounds = ModelParams().CostInRounds;
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

/// Runs \p P on a fresh \p DeviceName device opened with \p Opts.
Error runOnDevice(StringRef DeviceName, const DeviceOptions &Opts, const KernelImage &Img,
                  const suite::Problem &P, StringRef Name, suite::SuiteResult &Result) {
  Expected<std::unique_ptr<Device>> D = openDevice(DeviceName, Opts);
  if (!D)
    return D.takeError();
  if (Error E = (*D)->loadImage(Img))
    return E;
  suite::RunOptions RO;
  RO.Limit = suite::Limits::of(Opts.Config);
  return suite::runProblem(**D, P, Name, Result, RO);
}

/// The iss run with its trace on: the model's "iss-assisted" input. What it
/// has to say goes to \p Messages (runs may be on other threads).
Error runIss(const AcceleratorConfig &Config, const ModelSetup &Model, const KernelImage &Img,
             const suite::Problem &P, StringRef Name, Outcome &Out, std::string &Messages) {
  TraceProfiler Profiler(Model.Config, Model.latencies(), Model.Rounds);
  DeviceOptions IssOpts;
  IssOpts.Config = Config;
  IssOpts.Trace = &Profiler;
  suite::SuiteResult IssResult;
  if (Error E = runOnDevice("iss", IssOpts, Img, P, Name, IssResult))
    return E;
  Profiler.finish();
  if (Profiler.malformedLines())
    Messages += formatv("tandem report: {0}: {1} iss trace lines the model could not read "
                        "were left out\n",
                        Name, Profiler.malformedLines());
  if (!IssResult.Passed) {
    Out.Passed = false;
    Out.Failure = "iss: " + IssResult.Message;
  }
  Out.Profiles = std::move(Profiler.launches());
  if (getenv("TANDEM_REPORT_DEBUG")) // (then one run at a time: Options::Jobs)
    for (const LaunchProfile &L : Out.Profiles)
      debugProfile(L, "iss-assisted");
  return Error::success();
}

/// The rtl run: the measurement, counters summed over the launches; a wrong
/// result is described in \p Failure.
Error runRtl(const AcceleratorConfig &Config, const KernelImage &Img, const suite::Problem &P,
             StringRef Name, std::optional<Counters> &Measured, std::string &Failure) {
  DeviceOptions RtlOpts;
  RtlOpts.Config = Config;
  suite::SuiteResult RtlResult;
  if (Error E = runOnDevice("rtl", RtlOpts, Img, P, Name, RtlResult))
    return E;
  if (!RtlResult.Passed)
    Failure = RtlResult.Message;
  Measured = sumCounters(RtlResult.PerLaunch);
  return Error::success();
}

//===--- Where the time goes ------------------------------------------------===//

using Clock = std::chrono::steady_clock;

/// The report's phases. Their times are wall seconds summed over the runs
/// in each, however many ran at once: they say where the work is; the total
/// wall time says how well the runs overlapped.
enum class Phase : unsigned { Profile, Compile, Inputs, Iss, Static, Rtl, Predict, Write };
constexpr const char *PhaseNames[] = {"profile", "compile", "inputs", "iss",
                                      "static",  "rtl",     "predict", "write"};

/// Seconds per phase; safe to add to from several threads.
class PhaseTimes {
public:
  /// Adds the time since \p Begin to \p P; returns it.
  double add(Phase P, Clock::time_point Begin) {
    double S = std::chrono::duration<double>(Clock::now() - Begin).count();
    std::lock_guard<std::mutex> Lock(M);
    Seconds[unsigned(P)] += S;
    return S;
  }
  /// "profile 2.9 s, compile 0.8 s, ..."
  std::string summary() const {
    std::lock_guard<std::mutex> Lock(M);
    std::string Out;
    for (unsigned I = 0; I < Seconds.size(); ++I)
      Out += formatv("{0}{1} {2:F1} s", I ? ", " : "", PhaseNames[I], Seconds[I]).str();
    return Out;
  }

private:
  mutable std::mutex M;
  std::array<double, std::size(PhaseNames)> Seconds{};
};

//===--- Jobs: a workload's iss and rtl runs, in parallel -------------------===//

/// One workload (a suite case, or an SpMV variant on a matrix): what runs,
/// how its rows are labelled, and what its two tasks found. The iss task
/// (traced run, then the static estimate) and the rtl task (the
/// measurement) only read the image and the problem and each writes its own
/// fields, so they run concurrently with each other and with other jobs'.
struct Job {
  std::string Workload, Input, Group;
  bool TunedOn = false;
  const KernelImage *Img = nullptr;
  suite::Problem Problem;

  // The iss task's.
  Outcome Iss; ///< the profiles; Passed and Failure of the iss run
  std::vector<LaunchProfile> Static;
  std::string StaticReason, IssError, Messages;
  double IssSeconds = 0;
  // The rtl task's.
  std::optional<Counters> Measured;
  std::string RtlFailure, RtlError;
  double RtlSeconds = 0;
};

/// Runs every job's iss task and (with \p MeasureRtl) rtl task on
/// \p Threads threads (1: in order on this one) and hands each job to
/// \p Done once it and every job before it have finished: in job order and
/// one at a time, so the progress display and the rows come out as from one
/// thread.
void runJobs(MutableArrayRef<Job> Jobs, unsigned Threads, bool MeasureRtl,
             function_ref<void(Job &)> IssTask, function_ref<void(Job &)> RtlTask,
             function_ref<void(Job &)> Done) {
  if (Threads <= 1) {
    for (Job &J : Jobs) {
      IssTask(J);
      if (MeasureRtl)
        RtlTask(J);
      Done(J);
    }
    return;
  }
  std::mutex M;
  std::vector<unsigned> TasksLeft(Jobs.size(), MeasureRtl ? 2 : 1);
  size_t NextDone = 0;
  auto Finished = [&](size_t I) {
    std::lock_guard<std::mutex> Lock(M);
    if (--TasksLeft[I] > 0)
      return;
    while (NextDone < Jobs.size() && TasksLeft[NextDone] == 0)
      Done(Jobs[NextDone++]);
  };
  DefaultThreadPool Pool(hardware_concurrency(Threads));
  for (size_t I = 0; I < Jobs.size(); ++I) {
    Pool.async([&, I] {
      IssTask(Jobs[I]);
      Finished(I);
    });
    if (MeasureRtl)
      Pool.async([&, I] {
        RtlTask(Jobs[I]);
        Finished(I);
      });
  }
  Pool.wait();
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

/// Where the runtime puts a problem's memory on a simulated device.
struct DeviceLayout {
  std::vector<uint32_t> Buffers; ///< each buffer's address, in buffer order
  uint32_t LocalBase = 0;        ///< the next allocation: a launch's local memory (RtlSim.cpp)
};

/// The device addresses the runtime gives the problem's buffers: allocated
/// in order, first fit from 1 MiB, 256-byte aligned, outputs with their
/// guard words (microbench/Suite.cpp, sim/iss/DeviceMemory.cpp). Only the
/// addresses' low bits matter to the model (L1 sets, DRAM channels).
DeviceLayout deviceLayout(const suite::Problem &P) {
  DeviceLayout Out;
  uint64_t Next = 0x00100000;
  for (const suite::Buffer &B : P.Buffers) {
    Out.Buffers.push_back(uint32_t(Next));
    uint64_t Words = B.Data.size() + (B.R != suite::Role::In ? suite::GuardWords : 0);
    Next += alignTo(std::max<uint64_t>(4, Words * 4), 256);
  }
  Out.LocalBase = uint32_t(Next);
  return Out;
}

/// The static estimate of every launch of \p P, or why there is none; the
/// input data it may read are \p Workload's (models/StaticInputs.h).
Error staticProfiles(const ModelSetup &Model, const KernelImage &Img,
                     const suite::Problem &P, StringRef Workload,
                     std::vector<LaunchProfile> &Out) {
  DeviceLayout Layout = deviceLayout(P);
  const std::vector<uint32_t> &Addr = Layout.Buffers;
  std::vector<StaticLaunch> Launches;
  for (const suite::Launch &La : P.Launches) {
    StaticLaunch S;
    S.Kernel = La.Kernel;
    S.LocalBase = Layout.LocalBase;
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
    Launches.push_back(std::move(S));
  }
  std::vector<HostBuffer> Buffers;
  for (size_t I = 0; I < P.Buffers.size(); ++I)
    Buffers.push_back({P.Buffers[I].Name, Addr[I], P.Buffers[I].Data});
  InputModel Inputs = workloadInputs(Workload, Buffers, Launches);
  for (const StaticLaunch &S : Launches) {
    Expected<LaunchProfile> L =
        estimateLaunch(Img, S, Model.Config, Inputs, Model.latencies(), Model.Rounds);
    if (!L)
      return L.takeError();
    if (getenv("TANDEM_REPORT_DEBUG"))
      debugProfile(*L, "static");
    Out.push_back(std::move(*L));
  }
  return Error::success();
}

void predictStatic(Pending &P, const ModelParams &Params);

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
    Sum += L.Memory;
    Row.FpuLaneOps += double(L.FpuThreadInstructions);
  }
  Row.ModelMemory = Sum;
  if (Out.Measured) {
    Row.Measured = double(Out.Measured->get("cycles"));
    for (StringRef K : {"cycles", "stall_dependency", "stall_unit_busy", "stall_memory",
                        "stall_barrier", "stall_no_ready_warp", "l1_hits", "l1_misses",
                        "l1_writebacks", "dram_requests", "dram_read_bytes", "dram_write_bytes",
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

void progress(size_t I, const Pending &P, double IssSeconds, double RtlSeconds) {
  errs() << formatv("[{0,3}] {1,-14} {2,-48} predicted {3,10:N}", I, P.Row.Workload,
                    P.Row.Group == "matrix" ? sys::path::filename(P.Row.Input).str()
                                            : P.Row.Input.substr(0, 48),
                    uint64_t(std::llround(P.Row.Predicted)));
  if (P.Row.Measured)
    errs() << formatv("  measured {0,10:N}  error {1,6:F1}%", uint64_t(std::llround(*P.Row.Measured)),
                      *P.Row.errorPct());
  if (std::optional<double> E = P.Row.staticErrorPct())
    errs() << formatv("  static {0,6:F1}%", *E);
  else if (!P.Row.StaticReason.empty())
    errs() << "  static: none";
  errs() << formatv("  (iss {0:F1} s", IssSeconds);
  if (P.Row.Measured)
    errs() << formatv(", rtl {0:F1} s", RtlSeconds);
  errs() << ")\n";
}

/// How the report compiles a suite case for \p Config: the configuration's
/// options with the command's --no-schedule and --no-coalesce.
compiler::CompileOptions reportCompileOptions(const Options &O, const AcceleratorConfig &Config) {
  compiler::CompileOptions CO = compiler::optionsFor(Config);
  CO.Schedule = O.Schedule;
  CO.CoalesceLaneCopies = O.Coalesce;
  return CO;
}

/// What suite case \p Case's kernel does on iss under \p Config (compiled as
/// the report compiles it, on the case's own inputs): the gpu model's issue
/// term (ReportGpu.h).
Expected<IssKernelCounts> issCountsOf(StringRef Case, const Options &O,
                                      const AcceleratorConfig &Config) {
  const suite::SuiteCase *C = suite::findCase(Case);
  if (!C)
    return createStringError(inconvertibleErrorCode(), "no suite case '" + Case + "'");
  Expected<compiler::CompileResult> Compiled =
      suite::compileCase(*C, reportCompileOptions(O, Config));
  if (!Compiled)
    return Compiled.takeError();
  suite::Problem P = C->makeProblem({});
  if (!Compiled->Image || P.Launches.empty())
    return createStringError(inconvertibleErrorCode(), Case + ": no image or no launch");
  DeviceOptions Opts;
  Opts.Config = Config;
  suite::SuiteResult Result;
  if (Error E = runOnDevice("iss", Opts, *Compiled->Image, P, C->Name, Result))
    return E;
  if (!Result.Passed)
    return createStringError(inconvertibleErrorCode(), Case + " on iss: " + Result.Message);
  IssKernelCounts K;
  K.WarpInstructions = double(Result.Total.get("warp_instructions"));
  K.Warps = double(Result.Total.get("warps_launched"));
  for (const compiler::KernelReport &KR : Compiled->Kernels)
    if (KR.Name == P.Launches.front().Kernel)
      K.StaticInstructions = KR.Instructions;
  return K;
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
  IssCountsFn Iss = [&](StringRef Case) { return issCountsOf(Case, O, R.Config); };
  Expected<GpuReportRows> Gpu = gpuReportRows(O.GpuResults, O.GpuBundle, *Profile, Iss);
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
                    "statistics (model_inputs static), and for the kernels whose work a warp "
                    "does not grow with the problem also from the warp instructions of an iss "
                    "run of the suite case (iss-assisted)");
  return true;
}

int reportCommand(int Argc, char **Argv) {
  Options O;
  if (std::optional<int> Stop = parseArgs(Argc, Argv, O))
    return *Stop;
  auto Start = Clock::now();
  PhaseTimes Times;
  Expected<AcceleratorConfig> Config =
      loadConfig(O.ConfigPath.empty() ? defaultConfigPath() : O.ConfigPath);
  if (!Config) {
    errs() << "tandem report: error: " << toString(Config.takeError()) << '\n';
    return 1;
  }
  Report R;
  R.Date = today();
  R.Command = O.Command;
  R.Config = *Config;
  ModelSetup Model{*Config, std::nullopt};
  R.Params = ModelParams::forConfig(*Config);
  if (O.ModelRounds)
    R.Params.CostInRounds = Model.Rounds = *O.ModelRounds;
  {
    Expected<std::optional<ModelLatencies>> L = loadProfile(O, *Config);
    Times.add(Phase::Profile, Start);
    if (!L) {
      errs() << "tandem report: error: the device profile: " << toString(L.takeError())
             << '\n';
      return 1;
    }
    if (*L) {
      Model.Latencies = **L;
      Model.Config = withProfileLatencies(*Config, **L);
      auto unitLatency = [](StringRef Unit, double Cycles) {
        return Cycles > 0 ? formatv("{0} {1:F2} cycles per dependent op", Unit, Cycles).str()
                          : (Unit + " from the generated tables (its probe spilled)").str();
      };
      R.Profile = formatv("{0}: DRAM latency {1:F1} cycles (configuration: {2}), {3}, {4}",
                          (*L)->Source, (*L)->DramLatencyCycles, Config->Dram.LatencyCycles,
                          unitLatency("ALU", (*L)->AluReadyCycles),
                          unitLatency("FPU", (*L)->FpuReadyCycles));
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

  // Each suite case compiled once: the SpMV jobs reuse the suite's
  // spmv_scalar and spmv_balanced images.
  std::map<std::string, KernelImage> Images;
  auto ImageOf = [&](const suite::SuiteCase &C) -> Expected<const KernelImage *> {
    auto It = Images.find(C.Name);
    if (It != Images.end())
      return &It->second;
    auto Begin = Clock::now();
    Expected<compiler::CompileResult> Compiled =
        suite::compileCase(C, reportCompileOptions(O, *Config));
    Times.add(Phase::Compile, Begin);
    if (!Compiled)
      return Compiled.takeError();
    if (!Compiled->Image)
      return createStringError(inconvertibleErrorCode(), "no image");
    return &(Images[C.Name] = std::move(*Compiled->Image));
  };
  std::vector<Job> Jobs;
  // A job whose block does not fit this configuration cannot run on it: a
  // sweep over warps_per_core still gets every row that can, and the report
  // says which it left out and why (not a failure). True if \p J is left out.
  auto skipIfItDoesNotFit = [&](const Job &J, StringRef What) {
    std::optional<std::string> Why = suite::doesNotFit(J.Problem, SuiteOpts.Limit);
    if (!Why)
      return false;
    std::string Note = formatv("skipped {0}: {1} (configuration '{2}', warps_per_core {3})",
                               What, *Why, Config->Name, Config->WarpsPerCore);
    errs() << "tandem report: " << Note << '\n';
    R.Notes.push_back(std::move(Note));
    return true;
  };

  // The kernel suite.
  for (const suite::SuiteCase &C : suite::suiteCases()) {
    if (Devices.empty())
      break; // gpu only: its rows come from the runner's results below
    if (O.Quick && !is_contained(QuickCases, C.Name))
      continue;
    Expected<const KernelImage *> Img = ImageOf(C);
    if (!Img) {
      errs() << "tandem report: " << C.Name << ": " << toString(Img.takeError()) << '\n';
      Ok = false;
      continue;
    }
    auto Begin = Clock::now();
    Job J;
    J.Workload = C.Name;
    J.Group = "suite";
    J.TunedOn = is_contained(CalibrationCases, C.Name);
    J.Img = *Img;
    J.Problem = C.makeProblem(SuiteOpts);
    J.Input = J.Problem.describe();
    Times.add(Phase::Inputs, Begin);
    if (!skipIfItDoesNotFit(J, C.Name))
      Jobs.push_back(std::move(J));
  }

  // SpMV on matrices: three variants each.
  std::vector<NamedMatrix> Matrices;
  if (!Devices.empty()) {
    auto Begin = Clock::now();
    Matrices = loadMatrices(O, R, Ok);
    Times.add(Phase::Inputs, Begin);
  }
  const suite::SuiteCase *Spmv = suite::findCase("spmv_scalar");
  const suite::SuiteCase *Merge = suite::findCase("spmv_balanced");
  const KernelImage *SpmvImg = nullptr, *MergeImg = nullptr;
  if (Spmv && Merge && !Matrices.empty()) {
    Expected<const KernelImage *> A = ImageOf(*Spmv);
    Expected<const KernelImage *> B = ImageOf(*Merge);
    if (A && B) {
      SpmvImg = *A;
      MergeImg = *B;
    } else {
      errs() << "tandem report: compiling the SpMV kernels: "
             << (A ? toString(B.takeError()) : toString(A.takeError())) << '\n';
      if (!B)
        consumeError(B.takeError());
      Ok = false;
    }
  }
  for (const NamedMatrix &M : SpmvImg && MergeImg ? Matrices : std::vector<NamedMatrix>{}) {
    for (StringRef Variant : SpmvVariants) {
      auto Begin = Clock::now();
      Job J;
      J.Workload = Variant.str();
      J.Input = M.Input;
      J.Group = M.Group;
      J.Img = Variant == "spmv_merge" ? MergeImg : SpmvImg;
      J.Problem = spmvProblem(M.A, Variant, SuiteOpts.Limit, 7);
      Times.add(Phase::Inputs, Begin);
      if (!skipIfItDoesNotFit(J, J.Workload + " on " + displayInput(J.Group, J.Input)))
        Jobs.push_back(std::move(J));
    }
  }

  // SpMM on matrices: C = A x B on the first rows of A (--spmm-max-nnz).
  const suite::SuiteCase *Spmm = suite::findCase("spmm");
  const KernelImage *SpmmImg = nullptr;
  if (Spmm && !Matrices.empty() && O.SpmmMaxNnz > 0) {
    if (Expected<const KernelImage *> Img = ImageOf(*Spmm)) {
      SpmmImg = *Img;
    } else {
      errs() << "tandem report: compiling the SpMM kernel: " << toString(Img.takeError())
             << '\n';
      Ok = false;
    }
  }
  std::string SpmmCuts;
  for (const NamedMatrix &M : SpmmImg ? Matrices : std::vector<NamedMatrix>{}) {
    auto Begin = Clock::now();
    Job J;
    J.Workload = "spmm";
    J.Input = M.Input;
    J.Group = M.Group;
    J.Img = SpmmImg;
    const bool Cut = M.A.nnz() > O.SpmmMaxNnz;
    sparse::CsrMatrix A = Cut ? firstRows(M.A, O.SpmmMaxNnz) : M.A;
    if (Cut)
      SpmmCuts += formatv("{0}{1} {2} of {3} rows", SpmmCuts.empty() ? "" : ", ",
                          displayInput(M.Group, M.Input),
                          A.Rows, M.A.Rows);
    std::mt19937 Rng(7);
    J.Problem = suite::spmmProblem(A, SpmmColumns, Rng);
    Times.add(Phase::Inputs, Begin);
    if (!skipIfItDoesNotFit(J, J.Workload + " on " + displayInput(J.Group, J.Input)))
      Jobs.push_back(std::move(J));
  }
  if (SpmmImg)
    R.Notes.push_back(formatv("spmm rows: C = A x B, B dense with {0} columns of random values "
                              "in [-1, 1), A the matrix's first rows holding at most {1} "
                              "nonzeros (--spmm-max-nnz){2}{3}",
                              SpmmColumns, O.SpmmMaxNnz, SpmmCuts.empty() ? "" : ": ",
                              SpmmCuts));

  // Every job's iss run (then its static estimate) and rtl run, O.Jobs at a
  // time; the rows are made in job order as the jobs finish.
  errs() << formatv("tandem report: {0} workloads, {1} run{2} at a time (TANDEM_JOBS)\n",
                    Jobs.size(), O.Jobs, O.Jobs == 1 ? "" : "s");
  auto IssTask = [&](Job &J) {
    auto Begin = Clock::now();
    if (Error E = runIss(*Config, Model, *J.Img, J.Problem, J.Workload, J.Iss, J.Messages))
      J.IssError = toString(std::move(E));
    J.IssSeconds = Times.add(Phase::Iss, Begin);
    if (!J.IssError.empty())
      return;
    Begin = Clock::now();
    if (Error E = staticProfiles(Model, *J.Img, J.Problem, J.Workload, J.Static))
      J.StaticReason = toString(std::move(E));
    Times.add(Phase::Static, Begin);
  };
  auto RtlTask = [&](Job &J) {
    auto Begin = Clock::now();
    if (Error E = runRtl(*Config, *J.Img, J.Problem, J.Workload, J.Measured, J.RtlFailure))
      J.RtlError = toString(std::move(E));
    J.RtlSeconds = Times.add(Phase::Rtl, Begin);
  };
  auto Done = [&](Job &J) {
    errs() << J.Messages;
    std::string Where = J.Group == "suite" ? J.Workload : J.Workload + " on " + J.Input;
    if (!J.IssError.empty() || !J.RtlError.empty()) {
      errs() << "tandem report: " << Where << ": "
             << (J.IssError.empty() ? J.RtlError : J.IssError) << '\n';
      Ok = false;
      J = Job(); // what it held is no longer needed
      return;
    }
    Outcome Out = std::move(J.Iss);
    Out.Measured = std::move(J.Measured);
    if (!J.RtlFailure.empty()) {
      Out.Passed = false;
      Out.Failure += "rtl: " + J.RtlFailure;
    }
    if (!Out.Passed) {
      errs() << "tandem report: " << Where << ": wrong result: " << Out.Failure << '\n';
      Ok = false;
    }
    auto Begin = Clock::now();
    for (const std::string &D : Devices) {
      Pending Row;
      Row.StaticProfiles = J.Static;
      Row.Row.StaticReason = J.StaticReason;
      Row.Row.Device = D;
      Row.Row.Workload = J.Workload;
      Row.Row.Input = J.Input;
      Row.Row.Group = J.Group;
      Row.Row.TunedOn = J.TunedOn;
      if (D == "rtl")
        fillRow(Row.Row, Out, *Config);
      else
        fillRow(Row.Row, Outcome{Out.Profiles, {}, std::nullopt, true, ""}, *Config);
      Row.Profiles = Out.Profiles;
      predictRow(Row, R.Params);
      progress(Rows.size() + 1, Row, J.IssSeconds, J.RtlSeconds);
      if (getenv("TANDEM_REPORT_COMPARE") && R.Params.CostInRounds && Row.Row.Measured) {
        // The windows' costing of the same profiles, for comparing the two
        // without measuring twice (the windows need no rounds; the rounds
        // are not collected under --model-rounds off).
        ModelParams Windows = R.Params;
        Windows.CostInRounds = false;
        double Cycles = predictAll(Row.Profiles, Windows).Cycles;
        errs() << formatv("      windows costing: predicted {0,10:N}  error {1,6:F1}%\n",
                          uint64_t(std::llround(Cycles)),
                          (Cycles - *Row.Row.Measured) / *Row.Row.Measured * 100);
      }
      Rows.push_back(std::move(Row));
    }
    Times.add(Phase::Predict, Begin);
    J = Job();
  };
  runJobs(Jobs, O.Jobs, O.Rtl, IssTask, RtlTask, Done);

  if (O.Fit) {
    auto Begin = Clock::now();
    fitConstants(Rows, R.Params);
    for (Pending &P : Rows)
      predictRow(P, R.Params);
    Times.add(Phase::Predict, Begin);
  }

  R.Notes.push_back("model_inputs 'iss-assisted': the model reads the iss instruction trace "
                    "of the same launch (per-warp instruction mix, memory addresses)");
  R.Notes.push_back("static_predicted: the same model on a purely static profile "
                    "(models/StaticEstimate.h): the machine code walked per warp with the "
                    "values the launch determines and the integer input data the host "
                    "holds (below); other data-dependent branches run both sides; no iss "
                    "run. Rows without one say why (static_reason)");
  for (const std::string &Note : staticInputNotes())
    R.Notes.push_back(Note);
  R.Notes.push_back(formatv("calibration kernels (the two fitted constants): {0}; all other "
                            "rows are not tuned on",
                            join(std::begin(CalibrationCases), std::end(CalibrationCases), ", ")));
  if (!O.Schedule)
    R.Notes.push_back("--no-schedule: every kernel was compiled without the list scheduler "
                      "(code in selection order)");
  if (!O.Coalesce)
    R.Notes.push_back("--no-coalesce: every kernel was compiled without lane-aware copy "
                      "coalescing");
  for (Pending &P : Rows)
    R.Rows.push_back(std::move(P.Row));
  if (O.Gpu && !addGpuRows(O, R))
    Ok = false;
  R.Picks = spmvPicks(R.Rows);
  auto WriteBegin = Clock::now();
  if (Error E = writeReportFiles(R, O.OutDir)) {
    errs() << "tandem report: error: " << toString(std::move(E)) << '\n';
    return 1;
  }
  Times.add(Phase::Write, WriteBegin);
  double Seconds = std::chrono::duration<double>(Clock::now() - Start).count();
  errs() << formatv("tandem report: wrote {0}/report.json, report.md, report.html ({1} rows, "
                    "{2:F0} s)\n",
                    O.OutDir, R.Rows.size(), Seconds);
  errs() << formatv("tandem report: time by phase, summed over the runs ({0} at a time): {1}\n",
                    O.Jobs, Times.summary());
  outs() << R.summaryLine() << '\n';
  return Ok ? 0 : 1;
}

} // namespace tandem::cli
