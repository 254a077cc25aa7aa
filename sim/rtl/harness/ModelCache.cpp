//===- ModelCache.cpp - Verilate a configuration once, load it ever after -===//
//
// Implements ModelCache.h. A model for a non-default configuration is built
// in a private temporary directory next to its final place, in two steps
// whose output goes to build.log: Verilator (--cc --build, the same options
// as the default model's build in sim/rtl/CMakeLists.txt, warnings not
// fatal), then the compiler links CoreModelAdapter.cpp, the model and
// Verilator's runtime into libsimt_core.so (-Bsymbolic and hidden
// visibility: the library's Verilator runtime and model never bind to the
// copies linked into the process). The directory is renamed into place only
// when complete, under a lock file, so a reader never loads half a build and
// two processes never build the same model at once.
//
// The paths of the sources, the tools and Verilator's runtime are fixed at
// build time (TANDEM_RTL_* definitions from sim/rtl/CMakeLists.txt).
//
//===----------------------------------------------------------------------===//

#include "ModelCache.h"
#include "RtlSim.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <atomic>
#include <map>
#include <mutex>

using namespace llvm;

namespace tandem::rtl {

namespace {

std::atomic<unsigned> BuildsRun{0};

/// The Verilog parameters of \p C's model.
ModelParams paramsFor(const AcceleratorConfig &C) {
  return {C.Lanes,        C.WarpsPerCore,     C.Registers,    C.L1.SizeBytes, C.L1.Ways,
          C.L1.LineBytes, C.Shared.SizeBytes, C.Shared.Banks, C.ImemWords,    C.Lsu.MaxInFlight};
}

std::vector<std::string> verilogParams(const ModelParams &P) {
  return {formatv("-GLANES={0}", P.Lanes).str(),
          formatv("-GWARPS={0}", P.Warps).str(),
          formatv("-GREGS={0}", P.Regs).str(),
          formatv("-GL1_BYTES={0}", P.L1Bytes).str(),
          formatv("-GL1_WAYS={0}", P.L1Ways).str(),
          formatv("-GLINE_BYTES={0}", P.LineBytes).str(),
          formatv("-GSHARED_BYTES={0}", P.SharedBytes).str(),
          formatv("-GSHARED_BANKS={0}", P.SharedBanks).str(),
          formatv("-GIMEM_WORDS={0}", P.ImemWords).str(),
          formatv("-GLSU_SLOTS={0}", P.LsuSlots).str()};
}

/// The same values as compiler definitions for CoreModelAdapter.cpp.
std::vector<std::string> adapterDefines(const ModelParams &P) {
  return {formatv("-DTANDEM_RTL_LANES={0}", P.Lanes).str(),
          formatv("-DTANDEM_RTL_WARPS={0}", P.Warps).str(),
          formatv("-DTANDEM_RTL_REGS={0}", P.Regs).str(),
          formatv("-DTANDEM_RTL_L1_BYTES={0}", P.L1Bytes).str(),
          formatv("-DTANDEM_RTL_L1_WAYS={0}", P.L1Ways).str(),
          formatv("-DTANDEM_RTL_LINE_BYTES={0}", P.LineBytes).str(),
          formatv("-DTANDEM_RTL_SHARED_BYTES={0}", P.SharedBytes).str(),
          formatv("-DTANDEM_RTL_SHARED_BANKS={0}", P.SharedBanks).str(),
          formatv("-DTANDEM_RTL_IMEM_WORDS={0}", P.ImemWords).str(),
          formatv("-DTANDEM_RTL_LSU_SLOTS={0}", P.LsuSlots).str(),
          "-DTANDEM_RTL_MODEL_LIBRARY"};
}

/// Verilator's options besides the parameters and sources; the default
/// model's build uses the same (sim/rtl/CMakeLists.txt) but with -Wall
/// fatal: an unusual configuration may trip a width warning that the
/// default does not, and the user asked for a model, not a lint.
std::vector<std::string> verilatorOptions() {
  // One option (and its value) per group.
  // clang-format off
  std::vector<std::string> O = {"--cc", "--build", "-j", "2",
                                "--top-module", "simt_core",
                                "--prefix", "Vsimt_core", "-O3",
                                "-CFLAGS", "-fPIC",
                                "-CFLAGS", "-fvisibility=hidden",
                                "--x-assign", "fast", "--x-initial", "fast",
                                "--trace", "--unroll-stmts", "1000000",
                                "-Wno-fatal"};
  // clang-format on
  if (TANDEM_RTL_THREADS > 1) {
    O.push_back("--threads");
    O.push_back(std::to_string(TANDEM_RTL_THREADS));
  }
  return O;
}

std::vector<std::string> split(StringRef List) {
  SmallVector<StringRef, 16> Parts;
  List.split(Parts, '|', -1, false);
  return {Parts.begin(), Parts.end()};
}

/// Everything the library's bytes depend on, hashed.
Expected<std::string> modelHash(const ModelParams &P) {
  std::string Key = formatv("abi {0}\n", CoreModelAbiVersion).str();
  for (const std::string &S : verilogParams(P))
    Key += S + "\n";
  for (const std::string &S : verilatorOptions())
    Key += S + "\n";
  Key += TANDEM_RTL_CXX "\n" TANDEM_RTL_VERILATOR "\n";
  std::vector<std::string> Files = split(TANDEM_RTL_SV_SOURCES);
  Files.push_back(TANDEM_RTL_HARNESS_DIR "/CoreModelAdapter.cpp");
  Files.push_back(TANDEM_RTL_HARNESS_DIR "/CoreModel.h");
  for (const std::string &F : Files) {
    auto Buf = MemoryBuffer::getFile(F);
    if (!Buf)
      return createStringError(
          Buf.getError(),
          "device 'rtl': cannot read the RTL source '%s' to build a model "
          "for this configuration: %s (models of non-default configurations "
          "are built from the source and build trees tandem was built in)",
          F.c_str(), Buf.getError().message().c_str());
    Key += F + "\n";
    Key += (*Buf)->getBuffer().str();
  }
  return formatv("{0:x-16}", xxh3_64bits(Key)).str();
}

/// Runs \p Args (Args[0] is the program) with output appended to \p Log.
Error runStep(StringRef What, const std::vector<std::string> &Args,
              StringRef Log) {
  {
    std::error_code EC;
    raw_fd_ostream OS(Log, EC, sys::fs::OF_Append);
    if (!EC) {
      OS << "$";
      for (const std::string &A : Args)
        OS << ' ' << A;
      OS << "\n";
    }
  }
  std::vector<StringRef> Refs(Args.begin(), Args.end());
  std::string Err;
  // Output appended: stdout and stderr both go to the log.
  std::optional<StringRef> Redirects[] = {StringRef(""), Log, Log};
  int RC = sys::ExecuteAndWait(Args[0], Refs, std::nullopt, Redirects, 0, 0,
                               &Err);
  if (RC == 0)
    return Error::success();
  std::string Tail;
  if (auto Buf = MemoryBuffer::getFile(Log)) {
    StringRef Text = (*Buf)->getBuffer();
    SmallVector<StringRef, 0> Lines;
    Text.split(Lines, '\n', -1, false);
    size_t From = Lines.size() > 15 ? Lines.size() - 15 : 0;
    for (size_t I = From; I < Lines.size(); ++I)
      Tail += "\n  " + Lines[I].str();
  }
  return createStringError(
      inconvertibleErrorCode(),
      formatv("device 'rtl': building the model failed at {0} ({1}); the "
              "full log is '{2}'; its end:{3}",
              What, Err.empty() ? formatv("exit status {0}", RC).str() : Err,
              Log, Tail));
}

/// Builds the library into \p Dir (created here).
Error buildModel(const ModelParams &P, StringRef Dir) {
  if (std::error_code EC = sys::fs::create_directories(Dir))
    return createStringError(EC, "device 'rtl': cannot create '%s': %s",
                             Dir.str().c_str(), EC.message().c_str());
  SmallString<256> Log(Dir), Obj(Dir), Lib(Dir);
  sys::path::append(Log, "build.log");
  sys::path::append(Obj, "obj");
  sys::path::append(Lib, "libsimt_core.so");

  std::vector<std::string> Verilate = {TANDEM_RTL_VERILATOR, "--Mdir",
                                       std::string(Obj)};
  for (const std::string &S : verilatorOptions())
    Verilate.push_back(S);
  for (const std::string &S : verilogParams(P))
    Verilate.push_back(S);
  for (const std::string &S : split(TANDEM_RTL_SV_SOURCES))
    Verilate.push_back(S);
  if (Error E = runStep("Verilator", Verilate, Log))
    return E;

  std::string Inc = TANDEM_RTL_VERILATOR_ROOT "/include";
  std::vector<std::string> Link = {
      TANDEM_RTL_CXX, "-std=c++20", "-O2", "-fPIC", "-shared",
      "-fvisibility=hidden", "-I" + std::string(Obj),
      "-I" TANDEM_RTL_HARNESS_DIR, "-isystem", Inc, "-isystem",
      Inc + "/vltstd"};
  for (const std::string &S : adapterDefines(P))
    Link.push_back(S);
  Link.push_back(TANDEM_RTL_HARNESS_DIR "/CoreModelAdapter.cpp");
  for (const char *Rt : {"verilated.cpp", "verilated_threads.cpp",
                         "verilated_vcd_c.cpp"})
    Link.push_back(Inc + "/" + Rt);
  Link.push_back(std::string(Obj) + "/Vsimt_core__ALL.a");
  for (const char *F : {"-Wl,-Bsymbolic", "-pthread", "-o"})
    Link.push_back(F);
  Link.push_back(std::string(Lib));
  if (Error E = runStep("the compiler", Link, Log))
    return E;
  // The intermediate files are large and no longer needed.
  (void)sys::fs::remove_directories(Obj);
  return Error::success();
}

/// Loads the library in \p Dir and makes a model.
Expected<std::unique_ptr<CoreModel>>
loadModel(StringRef Dir, const ModelParams &Want, bool AllowTracing) {
  SmallString<256> Lib(Dir);
  sys::path::append(Lib, "libsimt_core.so");
  std::string Err;
  // Loaded libraries stay loaded (the process may open the device again).
  sys::DynamicLibrary DL =
      sys::DynamicLibrary::getPermanentLibrary(Lib.c_str(), &Err);
  if (!DL.isValid())
    return createStringError(inconvertibleErrorCode(),
                             "device 'rtl': cannot load the model '%s': %s "
                             "(delete its directory to rebuild it)",
                             Lib.c_str(), Err.c_str());
  auto *Abi = reinterpret_cast<unsigned (*)()>(
      DL.getAddressOfSymbol("tandem_rtl_model_abi_version"));
  auto *New = reinterpret_cast<CoreModel *(*)(bool)>(
      DL.getAddressOfSymbol("tandem_rtl_new_model"));
  if (!Abi || !New || Abi() != CoreModelAbiVersion)
    return createStringError(inconvertibleErrorCode(),
                             "device 'rtl': '%s' is not a model library of "
                             "this tandem (ABI %u); delete its directory to "
                             "rebuild it",
                             Lib.c_str(), CoreModelAbiVersion);
  std::unique_ptr<CoreModel> M(New(AllowTracing));
  if (M->params() != Want)
    return createStringError(inconvertibleErrorCode(),
                             "device 'rtl': the model '%s' was built with "
                             "other parameters than its hash says; delete its "
                             "directory to rebuild it",
                             Lib.c_str());
  return M;
}

/// Serializes the threads of this process on one model: the lock file's
/// lock is a POSIX record lock, which every thread of the process holds at
/// once (and which one thread's close releases for all), so it keeps other
/// processes out but not a second job of the same `tandem report`. Without
/// this, two jobs of a configuration not built yet both built it into the
/// same temporary folder (named by the process id) and one failed.
std::mutex &modelMutex(StringRef Hash) {
  static std::mutex Guard;
  static std::map<std::string, std::mutex> PerModel; // nodes never move
  std::lock_guard<std::mutex> L(Guard);
  return PerModel[Hash.str()];
}

/// Holds an exclusive lock on a file while alive.
class FileLock {
public:
  static Expected<FileLock> acquire(StringRef Path) {
    int FD;
    if (std::error_code EC = sys::fs::openFileForReadWrite(
            Path, FD, sys::fs::CD_OpenAlways, sys::fs::OF_None))
      return createStringError(EC, "device 'rtl': cannot open the lock '%s': %s",
                               Path.str().c_str(), EC.message().c_str());
    if (std::error_code EC = sys::fs::lockFile(FD)) {
      sys::Process::SafelyCloseFileDescriptor(FD);
      return createStringError(EC, "device 'rtl': cannot lock '%s': %s",
                               Path.str().c_str(), EC.message().c_str());
    }
    return FileLock(FD);
  }
  FileLock(FileLock &&O) : FD(O.FD) { O.FD = -1; }
  ~FileLock() {
    if (FD >= 0) {
      (void)sys::fs::unlockFile(FD);
      sys::Process::SafelyCloseFileDescriptor(FD);
    }
  }

private:
  explicit FileLock(int FD) : FD(FD) {}
  int FD;
};

} // namespace

std::string modelBuildKey(const AcceleratorConfig &C) {
  ModelParams P = paramsFor(C);
  return formatv("lanes {0}, warps_per_core {1}, registers {2}, l1 {3} B "
                 "{4}-way {5} B lines, shared {6} B in {7} banks, imem_words {8}, "
                 "lsu max_in_flight {9}",
                 P.Lanes, P.Warps, P.Regs, P.L1Bytes, P.L1Ways, P.LineBytes, P.SharedBytes,
                 P.SharedBanks, P.ImemWords, P.LsuSlots)
      .str();
}

std::string modelCacheDir() {
  SmallString<256> Dir;
  if (auto Env = sys::Process::GetEnv("TANDEM_RTL_CACHE"); Env && !Env->empty())
    return *Env;
  if (auto Xdg = sys::Process::GetEnv("XDG_CACHE_HOME"); Xdg && !Xdg->empty())
    Dir = *Xdg;
  else if (!sys::path::home_directory(Dir))
    sys::path::system_temp_directory(/*ErasedOnReboot=*/false, Dir);
  else
    sys::path::append(Dir, ".cache");
  sys::path::append(Dir, "tandem", "rtl");
  return std::string(Dir);
}

std::string modelDirFor(const AcceleratorConfig &C) {
  Expected<std::string> H = modelHash(paramsFor(C));
  if (!H) {
    consumeError(H.takeError());
    return "";
  }
  SmallString<256> Dir(modelCacheDir());
  sys::path::append(Dir, *H);
  return std::string(Dir);
}

unsigned modelBuildsRun() { return BuildsRun; }

Expected<std::unique_ptr<CoreModel>> openCoreModel(const AcceleratorConfig &C,
                                                   bool AllowTracing) {
  ModelParams Want = paramsFor(C);
  if (paramsFor(builtConfig()) == Want) // the linked-in model's
    return newDefaultCoreModel(AllowTracing);

  Expected<std::string> Hash = modelHash(Want);
  if (!Hash)
    return Hash.takeError();
  SmallString<256> Cache(modelCacheDir()), Dir, LockPath;
  if (std::error_code EC = sys::fs::create_directories(Cache))
    return createStringError(EC,
                             "device 'rtl': cannot create the model cache "
                             "'%s': %s (set TANDEM_RTL_CACHE to another "
                             "directory)",
                             Cache.c_str(), EC.message().c_str());
  Dir = Cache;
  sys::path::append(Dir, *Hash);
  LockPath = Dir;
  LockPath += ".lock";
  // One lock per model: other configurations build in parallel. The
  // threads of this process first, then the processes (modelMutex).
  std::lock_guard<std::mutex> ThreadsOfThisProcess(modelMutex(*Hash));
  Expected<FileLock> Lock = FileLock::acquire(LockPath);
  if (!Lock)
    return Lock.takeError();
  SmallString<256> Lib(Dir);
  sys::path::append(Lib, "libsimt_core.so");
  if (!sys::fs::exists(Lib)) {
    if (!sys::fs::can_execute(TANDEM_RTL_VERILATOR))
      return createStringError(
          inconvertibleErrorCode(),
          "device 'rtl': configuration '%s' needs its own model (%s), but "
          "Verilator ('%s') is not there to build it; install Verilator 5 "
          "(Debian: apt-get install verilator) or use a configuration with "
          "the default's build parameters",
          C.Name.c_str(), modelBuildKey(C).c_str(),
          static_cast<const char *>(TANDEM_RTL_VERILATOR));
    errs() << "tandem: building the rtl model for configuration '" << C.Name
           << "' (" << modelBuildKey(C) << "; hash " << *Hash
           << "), once: later runs load it from " << Dir << "\n";
    SmallString<256> Temp(Dir);
    Temp += formatv(".build-{0}", sys::Process::getProcessId()).str();
    (void)sys::fs::remove_directories(Temp);
    if (Error E = buildModel(Want, Temp))
      return E; // the temporary directory keeps the log for the user
    SmallString<256> Params(Temp);
    sys::path::append(Params, "params.txt");
    {
      std::error_code EC;
      raw_fd_ostream OS(Params, EC);
      OS << modelBuildKey(C) << "\n";
    }
    if (std::error_code EC = sys::fs::rename(Temp, Dir))
      return createStringError(EC, "device 'rtl': cannot move '%s' to '%s': %s",
                               Temp.c_str(), Dir.c_str(),
                               EC.message().c_str());
    ++BuildsRun;
  }
  return loadModel(Dir, Want, AllowTracing);
}

} // namespace tandem::rtl
