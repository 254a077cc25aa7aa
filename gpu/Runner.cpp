//===- Runner.cpp - The suite on a real GPU: ours, nvcc and LLVM's PTX ----===//
//
//   tandem-gpu-runner BUNDLE --nvcc-dir DIR --out RESULTS.json [--reps N]
//                     [--only CASE]... [--skip-timing] [--budget-s SECONDS]
//                     [--counters]
//   tandem-gpu-runner --summarize RESULTS.json
//   tandem-gpu-runner --write-probe-ptx DIR   the profile probes' PTX, for
//                     ptxas where no GPU is (tests/gpu-runner/check.sh)
//
// Runs on the lent GPU machine, which has CUDA but no LLVM: plain C++17, the
// driver API through runtime/CudaDriverApi.h (the gpu device's own loader),
// .entry signatures and packing through runtime/PtxEntry.h. BUNDLE is what
// `tandem suite-export` wrote (manifest.json, per case ours.ptx, llc.ptx and
// the inputs and references); DIR/CASE/nvcc.ptx is nvcc's PTX of the same
// source, compiled there by scripts/gpu-check.sh.
//
//  1. correctness: every case's launches, from each PTX variant, on the
//     exported inputs (and the variables the case writes by name, through
//     cuModuleGetGlobal, before its launches); outputs poisoned (and followed by poisoned guard
//     words) before, checked against the exported CPU reference after, with
//     the case's tolerance;
//  2. timing: each variant on the same inputs and launches, CUDA events
//     around all of a case's launches, warm-up, median of --reps (>= 20):
//     on the small suite problem, and on the large problems of the
//     manifest's timing specs (generated here; outputs of ours and llc's
//     compared with nvcc's);
//  3. SpMV: our CSR kernels (scalar, vector, merge-path) and cuSPARSE's
//     cusparseSpMV (CSR_ALG1, CSR_ALG2) on the bundle's .mtx matrices and on
//     the synthetic ones of the csr timing specs; SpMM (spmm_csr, B with the
//     manifest's spmm_columns) and cusparseSpMM (CSR_ALG1..3) on each of
//     them that fits one launch (the rest are listed in "skipped");
//  4. the GPU's name, driver, clocks (nvidia-smi) before and after, and the
//     touch probe's launch timed again before each timing phase and at the
//     end ("launch_checks").
//
// Everything goes to RESULTS.json, written whole after every entry
// (Results.h: a run stopped from outside leaves what it measured, marked
// "complete": false); a short table is printed last. --budget-s stops
// starting timing problems (phases 2 and 3) once that many seconds have
// passed and lists the rest in "skipped"; phase 1's correctness always runs
// to the end. --summarize prints the table of a results file, finished or
// not. --counters is for a run under Nsight Compute (ncu --profile-from-start
// off; scripts/gpu-counters.sh): after each timing, one more launch of the
// same problem, warm as the timed ones were, inside cuProfilerStart/Stop, so
// ncu profiles that launch alone; the results say which profiled launches
// (ncu's result IDs, in order) belong to which variant and problem. It skips
// the profile probes, cuSPARSE and LLVM's PTX (llc), whose numbers the plain
// run gives: ours against nvcc's is what the counters are for.
// Exit status: 0 all correct, 1 a wrong result or a failed case (with
// --summarize: or an incomplete file), 3 no driver or no GPU (nothing
// measured), 2 a usage error.
//
//===----------------------------------------------------------------------===//

#include "Json.h"
#include "Results.h"
#include "Sparse.h"
#include "Summary.h"

#include "../runtime/CudaDriverApi.h"
#include "../runtime/PtxEntry.h"
#include "../microbench/SpmmShape.h"

#if TANDEM_HAVE_CUSPARSE
#include <cuda_runtime_api.h>
#include <cusparse.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace tandem;
using namespace tandem::cuda;
using namespace tandem::gpu;

namespace {

//===--- The GPU ------------------------------------------------------------===//

/// The driver, the primary context (which cuSPARSE shares) and two events.
class Gpu {
public:
  bool open(std::string &Why) {
    if (!loadDriverApi(driverLibraryName(), Api, Why))
      return false;
    int Count = 0;
    if (Api.cuInit(0) || Api.cuDeviceGetCount(&Count) || Count == 0) {
      Why = "the CUDA driver loaded but sees no GPU";
      return false;
    }
    check(Api.cuDeviceGet(&Dev, 0), "cuDeviceGet", "GPU 0");
    check(Api.cuDevicePrimaryCtxRetain(&Ctx, Dev), "cuDevicePrimaryCtxRetain", "GPU 0");
    check(Api.cuCtxSetCurrent(Ctx), "cuCtxSetCurrent", "GPU 0");
    check(Api.cuEventCreate(&Start, CU_EVENT_DEFAULT), "cuEventCreate", "timer");
    check(Api.cuEventCreate(&Stop, CU_EVENT_DEFAULT), "cuEventCreate", "timer");
    return true;
  }

  /// Called after any failure: whether the context survived it. A fault in
  /// a kernel (an illegal address, say) is "sticky": the context stays
  /// unusable and every later call fails with the same error, so one bad
  /// kernel would fail every case after it. Then the primary context is
  /// reset (which destroys every allocation, module and event made in it)
  /// and taken again, and the next case starts on a fresh one. Returns what
  /// happened, for the results; empty where the context was fine.
  std::string recoverAfterFailure() {
    CUresult R = Api.cuCtxSynchronize();
    if (R == CUDA_SUCCESS)
      return "";
    std::string Note =
        "the context was reset after a sticky error (" + describeResult(Api, R) + ")";
    ++Generation; // the owners of what the reset destroyed must not free it
    CUresult Reset = Api.cuDevicePrimaryCtxReset(Dev);
    if (Reset)
      Note += "; cuDevicePrimaryCtxReset failed: " + describeResult(Api, Reset);
    check(Api.cuDevicePrimaryCtxRetain(&Ctx, Dev), "cuDevicePrimaryCtxRetain",
          "GPU 0 (after a reset)");
    check(Api.cuCtxSetCurrent(Ctx), "cuCtxSetCurrent", "GPU 0 (after a reset)");
    check(Api.cuEventCreate(&Start, CU_EVENT_DEFAULT), "cuEventCreate", "timer (after a reset)");
    check(Api.cuEventCreate(&Stop, CU_EVENT_DEFAULT), "cuEventCreate", "timer (after a reset)");
    std::cerr << "gpu: " << Note << "\n";
    return Note;
  }

  void check(CUresult R, const std::string &Call, const std::string &What) const {
    if (R)
      throw std::runtime_error(Call + " failed for " + What + ": " + describeResult(Api, R));
  }

  std::string infoJson() const {
    char Name[256] = {};
    Api.cuDeviceGetName(Name, sizeof(Name) - 1, Dev);
    int Driver = 0, Sm = 0, Mem = 0, Sms = 0, L2 = 0, Major = 0, Minor = 0;
    Api.cuDriverGetVersion(&Driver);
    Api.cuDeviceGetAttribute(&Sm, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, Dev);
    Api.cuDeviceGetAttribute(&Mem, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, Dev);
    Api.cuDeviceGetAttribute(&Sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, Dev);
    Api.cuDeviceGetAttribute(&L2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, Dev);
    Api.cuDeviceGetAttribute(&Major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, Dev);
    Api.cuDeviceGetAttribute(&Minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, Dev);
    std::ostringstream S;
    S << "{\"name\":" << quote(Name) << ",\"driver_api_version\":" << Driver
      << ",\"compute_capability\":\"" << Major << "." << Minor << "\",\"multiprocessors\":" << Sms
      << ",\"max_sm_clock_khz\":" << Sm << ",\"max_memory_clock_khz\":" << Mem
      << ",\"l2_bytes\":" << L2 << "}";
    return S.str();
  }

  DriverApi Api;
  CUdevice Dev = 0;
  CUcontext Ctx = nullptr;
  CUevent Start = nullptr, Stop = nullptr;
  /// Counts context resets: memory and modules of an earlier generation
  /// were destroyed with their context.
  unsigned Generation = 0;
};

/// Device memory freed with its owner.
class DeviceBuffer {
public:
  DeviceBuffer(Gpu &G, size_t Bytes, const std::string &What)
      : G(&G), Bytes(Bytes), Generation(G.Generation) {
    G.check(G.Api.cuMemAlloc(&Ptr, std::max<size_t>(Bytes, 4)), "cuMemAlloc",
            What + " (" + std::to_string(Bytes) + " bytes)");
  }
  DeviceBuffer(DeviceBuffer &&O) noexcept
      : G(O.G), Ptr(O.Ptr), Bytes(O.Bytes), Generation(O.Generation) {
    O.Ptr = 0;
  }
  DeviceBuffer(const DeviceBuffer &) = delete;
  ~DeviceBuffer() {
    if (Ptr && alive())
      G->Api.cuMemFree(Ptr);
  }
  /// False once a context reset destroyed it.
  bool alive() const { return Generation == G->Generation; }
  void upload(const void *Src, size_t N) const {
    G->check(G->Api.cuMemcpyHtoD(Ptr, Src, N), "cuMemcpyHtoD", "a buffer");
  }
  void download(void *Dst, size_t N) const {
    G->check(G->Api.cuMemcpyDtoH(Dst, Ptr, N), "cuMemcpyDtoH", "a buffer");
  }

  Gpu *G;
  CUdeviceptr Ptr = 0;
  size_t Bytes;
  unsigned Generation;
};

/// A loaded PTX module and its .entry signatures.
class PtxModule {
public:
  PtxModule(Gpu &G, const std::string &Ptx, const std::string &Name)
      : G(G), Name(Name), Generation(G.Generation) {
    std::string Why;
    if (!ptx::parsePtxEntries(Ptx, Entries, Why))
      throw std::runtime_error(Name + ": " + Why);
    std::string ErrorLog(16384, '\0'), InfoLog(16384, '\0');
    CUjit_option Options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                              CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    void *Values[] = {&ErrorLog[0], reinterpret_cast<void *>(size_t(16383)), &InfoLog[0],
                      reinterpret_cast<void *>(size_t(16383))};
    if (CUresult R = G.Api.cuModuleLoadDataEx(&M, Ptx.c_str(), 4, Options, Values))
      throw std::runtime_error("cuModuleLoadDataEx failed for " + Name + ": " +
                               describeResult(G.Api, R) + "\nJIT error log:\n" +
                               ErrorLog.c_str());
  }
  PtxModule(const PtxModule &) = delete;
  ~PtxModule() {
    if (M && Generation == G.Generation) // else a context reset unloaded it
      G.Api.cuModuleUnload(M);
  }

  /// Writes \p Words into the module's variable \p Symbol from its first
  /// byte (cudaMemcpyToSymbol): a __constant__ or __device__ variable.
  void writeSymbol(const std::string &Symbol, const std::vector<uint32_t> &Words) {
    CUdeviceptr Ptr = 0;
    size_t Bytes = 0;
    std::string What = "variable '" + Symbol + "' of " + Name;
    G.check(G.Api.cuModuleGetGlobal(&Ptr, &Bytes, M, Symbol.c_str()), "cuModuleGetGlobal", What);
    if (Words.size() * 4 > Bytes)
      throw std::runtime_error(What + ": " + std::to_string(Words.size() * 4) +
                               " bytes do not fit its " + std::to_string(Bytes));
    G.check(G.Api.cuMemcpyHtoD(Ptr, Words.data(), Words.size() * 4), "cuMemcpyHtoD", What);
  }

  /// Launches \p Kernel with one value per parameter (pointers as addresses).
  void launch(const std::string &Kernel, const unsigned Grid[3], const unsigned Block[3],
              unsigned Shared, const std::vector<uint64_t> &Values) {
    std::string What = "kernel '" + Kernel + "' of " + Name + " (grid " +
                       std::to_string(Grid[0]) + "," + std::to_string(Grid[1]) + "," +
                       std::to_string(Grid[2]) + ", block " + std::to_string(Block[0]) + "," +
                       std::to_string(Block[1]) + "," + std::to_string(Block[2]) + ")";
    const ptx::PtxEntry *E = ptx::findEntry(Entries, Kernel);
    if (!E)
      throw std::runtime_error(What + ": no such .entry");
    // Looked up once: timed loops should spend no host time between launches.
    CUfunction &Fn = Functions[Kernel];
    if (!Fn)
      G.check(G.Api.cuModuleGetFunction(&Fn, M, Kernel.c_str()), "cuModuleGetFunction", What);
    ptx::PackedParams P;
    std::string Why;
    if (!ptx::packParams(*E, Values, P, Why))
      throw std::runtime_error(Why);
    if (Shared > 48 * 1024)
      G.check(G.Api.cuFuncSetAttribute(Fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                        int(Shared)),
              "cuFuncSetAttribute", What);
    G.check(G.Api.cuLaunchKernel(Fn, Grid[0], Grid[1], Grid[2], Block[0], Block[1], Block[2],
                                 Shared, nullptr, P.pointers(), nullptr),
            "cuLaunchKernel", What);
  }

private:
  Gpu &G;
  std::string Name;
  CUmodule M = nullptr;
  unsigned Generation;
  std::vector<ptx::PtxEntry> Entries;
  std::map<std::string, CUfunction> Functions;
};

//===--- Problems -------------------------------------------------------------===//

struct Buffer {
  std::string Name, Role = "in", Type = "u32";
  std::vector<uint32_t> Data; ///< in/inout: the initial words; out: empty
  size_t Words = 0;
};
struct Arg {
  bool IsBuffer = false;
  unsigned Buffer = 0;
  uint64_t Value = 0;
};
struct Launch {
  std::string Kernel;
  unsigned Grid[3] = {1, 1, 1}, Block[3] = {1, 1, 1};
  unsigned Shared = 0;
  std::vector<Arg> Args;
};
struct Check {
  unsigned Buffer = 0;
  std::vector<uint32_t> Want;
  std::vector<float> Magnitude;
  double RelTol = 0;
};
struct Problem {
  std::string Name, Size;
  std::vector<Buffer> Buffers;
  /// Variables written by name after the module is loaded, before the
  /// launches: (name, words).
  std::vector<std::pair<std::string, std::vector<uint32_t>>> Symbols;
  std::vector<Launch> Launches;
  std::vector<Check> Checks;
};

constexpr uint32_t Poison = 0xDEADBEEF;
constexpr size_t GuardWords = 16;

uint32_t floatBits(float F) {
  uint32_t W;
  std::memcpy(&W, &F, 4);
  return W;
}
float bitsFloat(uint32_t W) {
  float F;
  std::memcpy(&F, &W, 4);
  return F;
}

/// The problem's buffers on the device: inputs copied, outputs poisoned.
class DeviceProblem {
public:
  DeviceProblem(Gpu &G, const Problem &P) : P(P) {
    for (const Buffer &B : P.Buffers) {
      Buffers.emplace_back(G, (B.Words + GuardWords) * 4, P.Name + " buffer " + B.Name);
      reset(Buffers.size() - 1);
    }
  }
  /// Restores buffer \p I to its state before the first launch.
  void reset(size_t I) {
    const Buffer &B = P.Buffers[I];
    std::vector<uint32_t> Words(B.Words + GuardWords, Poison);
    if (!B.Data.empty())
      std::copy(B.Data.begin(), B.Data.end(), Words.begin());
    Buffers[I].upload(Words.data(), Words.size() * 4);
  }
  void resetAll() {
    for (size_t I = 0; I < Buffers.size(); ++I)
      reset(I);
  }
  void launchAll(PtxModule &M) {
    for (const Launch &L : P.Launches) {
      std::vector<uint64_t> Values;
      for (const Arg &A : L.Args)
        Values.push_back(A.IsBuffer ? Buffers[A.Buffer].Ptr : A.Value);
      M.launch(L.Kernel, L.Grid, L.Block, L.Shared, Values);
    }
  }
  std::vector<uint32_t> read(size_t I, bool WithGuard) const {
    std::vector<uint32_t> W(P.Buffers[I].Words + (WithGuard ? GuardWords : 0));
    Buffers[I].download(W.data(), W.size() * 4);
    return W;
  }

  /// False once a context reset destroyed its buffers.
  bool alive() const {
    return std::all_of(Buffers.begin(), Buffers.end(),
                       [](const DeviceBuffer &B) { return B.alive(); });
  }

  const Problem &P;
  std::vector<DeviceBuffer> Buffers;
};

/// `,"context_reset":"..."` where a failure left the context unusable and
/// it was reset (Gpu::recoverAfterFailure), else nothing.
std::string recoverJson(Gpu &G) {
  std::string Note = G.recoverAfterFailure();
  return Note.empty() ? "" : ",\"context_reset\":" + quote(Note);
}

struct CheckResult {
  bool Passed = true;
  uint64_t Mismatches = 0;
  double MaxRelError = 0;
  std::string Message;
};

/// Suite semantics: bit-exact, or |got - want| <= tol * magnitude with got
/// finite; guard words must still be poison.
CheckResult checkOutputs(const DeviceProblem &D, const Problem &P) {
  CheckResult R;
  auto Mismatch = [&](const std::string &What) {
    R.Passed = false;
    if (R.Mismatches++ < 4)
      R.Message += (R.Message.empty() ? "" : "; ") + What;
  };
  for (const Check &C : P.Checks) {
    const Buffer &B = P.Buffers[C.Buffer];
    std::vector<uint32_t> Got = D.read(C.Buffer, true);
    for (size_t I = 0; I < C.Want.size(); ++I) {
      uint32_t G = Got[I], W = C.Want[I];
      bool Ok = G == W;
      if (!Ok && C.RelTol > 0 && B.Type == "f32") {
        double Mag = C.Magnitude.empty() ? std::fabs(bitsFloat(W)) : C.Magnitude[I];
        double Err = std::fabs(double(bitsFloat(G)) - double(bitsFloat(W)));
        Ok = std::isfinite(bitsFloat(G)) && Err <= C.RelTol * Mag;
        if (Mag > 0 && std::isfinite(Err))
          R.MaxRelError = std::max(R.MaxRelError, Err / Mag);
      }
      if (!Ok) {
        char Buf[160];
        std::snprintf(Buf, sizeof(Buf), "%s[%zu] = 0x%08x (%g), want 0x%08x (%g)",
                      B.Name.c_str(), I, G, double(bitsFloat(G)), W, double(bitsFloat(W)));
        Mismatch(Buf);
      }
    }
    for (size_t I = B.Words; I < Got.size(); ++I)
      if (Got[I] != Poison)
        Mismatch(B.Name + ": guard word " + std::to_string(I - B.Words) + " written");
  }
  return R;
}

//===--- Files ----------------------------------------------------------------===//

std::string readFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    throw std::runtime_error("cannot read '" + Path + "'");
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

bool fileExists(const std::string &Path) { return bool(std::ifstream(Path)); }

/// The words of a 4-byte-element .npy file (what suite-export writes).
std::vector<uint32_t> readNpyWords(const std::string &Path) {
  std::string B = readFile(Path);
  if (B.size() < 10 || B.compare(0, 6, "\x93NUMPY") != 0)
    throw std::runtime_error(Path + ": not a .npy file");
  size_t HeaderLen, Start;
  if (B[6] == 1) {
    HeaderLen = uint8_t(B[8]) | size_t(uint8_t(B[9])) << 8;
    Start = 10;
  } else {
    HeaderLen = uint8_t(B[8]) | size_t(uint8_t(B[9])) << 8 | size_t(uint8_t(B[10])) << 16 |
                size_t(uint8_t(B[11])) << 24;
    Start = 12;
  }
  std::string Header = B.substr(Start, HeaderLen);
  if (Header.find("<f4") == std::string::npos && Header.find("<i4") == std::string::npos &&
      Header.find("<u4") == std::string::npos)
    throw std::runtime_error(Path + ": expected 4-byte elements");
  size_t Data = Start + HeaderLen;
  std::vector<uint32_t> W((B.size() - Data) / 4);
  std::memcpy(W.data(), B.data() + Data, W.size() * 4);
  return W;
}

Problem problemFromManifest(const Json &C, const std::string &Bundle) {
  Problem P;
  P.Name = C["name"].S;
  P.Size = C["size"].S;
  for (const Json &B : C["buffers"].A) {
    Buffer Buf;
    Buf.Name = B["name"].S;
    Buf.Role = B["role"].S;
    Buf.Type = B["type"].S;
    Buf.Words = size_t(B["words"].integer());
    if (B.has("file"))
      Buf.Data = readNpyWords(Bundle + "/" + B["file"].S);
    P.Buffers.push_back(std::move(Buf));
  }
  if (C.has("symbols"))
    for (const Json &S : C["symbols"].A)
      P.Symbols.emplace_back(S["name"].S, readNpyWords(Bundle + "/" + S["file"].S));
  for (const Json &L : C["launches"].A) {
    Launch La;
    La.Kernel = L["kernel"].S;
    for (int I = 0; I < 3; ++I) {
      La.Grid[I] = unsigned(L["grid"].A[I].integer());
      La.Block[I] = unsigned(L["block"].A[I].integer());
    }
    La.Shared = unsigned(L["shared"].integer());
    for (const Json &A : L["args"].A) {
      Arg Ar;
      Ar.IsBuffer = A.has("buffer");
      if (Ar.IsBuffer)
        Ar.Buffer = unsigned(A["buffer"].integer());
      else
        Ar.Value = uint64_t(A["value"].integer());
      La.Args.push_back(Ar);
    }
    P.Launches.push_back(std::move(La));
  }
  for (const Json &K : C["checks"].A) {
    Check Ch;
    Ch.Buffer = unsigned(K["buffer"].integer());
    Ch.Want = readNpyWords(Bundle + "/" + K["want"].S);
    Ch.RelTol = K["rel_tol"].N;
    if (K.has("magnitude"))
      for (uint32_t W : readNpyWords(Bundle + "/" + K["magnitude"].S))
        Ch.Magnitude.push_back(bitsFloat(W));
    P.Checks.push_back(std::move(Ch));
  }
  return P;
}

//===--- Large problems for timing ----------------------------------------------===//

unsigned ceilDiv(uint64_t A, uint64_t B) { return unsigned((A + B - 1) / B); }

Buffer randomBuffer(const std::string &Name, const std::string &Type, size_t Words,
                    Rng &R, float Lo = -1, float Hi = 1) {
  Buffer B{Name, "in", Type, std::vector<uint32_t>(Words), Words};
  for (uint32_t &W : B.Data)
    W = Type == "f32" ? floatBits(Lo + (Hi - Lo) * R.unit()) : uint32_t(R.next());
  return B;
}

Buffer outBuffer(const std::string &Name, const std::string &Type, size_t Words) {
  return Buffer{Name, "out", Type, {}, Words};
}

Launch launch1D(const std::string &K, unsigned Blocks, unsigned Threads, std::vector<Arg> Args,
                unsigned Shared = 0) {
  Launch L;
  L.Kernel = K;
  L.Grid[0] = Blocks;
  L.Block[0] = Threads;
  L.Shared = Shared;
  L.Args = std::move(Args);
  return L;
}

Arg buf(unsigned I) { return Arg{true, I, 0}; }
Arg val(uint64_t V) { return Arg{false, 0, V}; }

/// The CSR arrays of \p A as buffers 0, 1, 2: rowPtr, colIdx, vals.
void addCsrBuffers(Problem &P, const Csr &A) {
  P.Buffers.push_back(Buffer{"rowPtr", "in", "s32", {A.RowPtr.begin(), A.RowPtr.end()},
                             A.RowPtr.size()});
  P.Buffers.push_back(Buffer{"colIdx", "in", "s32", {A.Col.begin(), A.Col.end()}, A.Col.size()});
  std::vector<uint32_t> Vals(A.Val.size());
  for (size_t I = 0; I < Vals.size(); ++I)
    Vals[I] = floatBits(A.Val[I]);
  P.Buffers.push_back(Buffer{"vals", "in", "f32", std::move(Vals), A.Val.size()});
}

/// Our CSR kernels' launches over a matrix (buffers rowPtr, colIdx, vals, x,
/// y, and for merge-path carryRow, carryVal).
Problem spmvProblem(const std::string &Kernel, const Csr &A, Rng &R) {
  Problem P;
  addCsrBuffers(P, A);
  P.Buffers.push_back(randomBuffer("x", "f32", A.Cols, R));
  P.Buffers.push_back(outBuffer("y", "f32", A.Rows));
  uint64_t Rows = A.Rows, Nnz = A.Col.size();
  if (Kernel == "spmv_scalar") {
    P.Launches.push_back(launch1D(Kernel, ceilDiv(Rows, 256), 256,
                                  {val(Rows), buf(0), buf(1), buf(2), buf(3), buf(4)}));
  } else if (Kernel == "spmv_vector") {
    P.Launches.push_back(launch1D(Kernel, ceilDiv(Rows * 32, 128), 128,
                                  {val(Rows), buf(0), buf(1), buf(2), buf(3), buf(4)}));
  } else { // spmv_merge + fixup: a fixed number of merge items per thread
    const unsigned Items = 32, B = 128;
    uint64_t Threads = uint64_t(ceilDiv(Rows + Nnz, Items * B)) * B;
    P.Buffers.push_back(outBuffer("carryRow", "s32", Threads));
    P.Buffers.push_back(outBuffer("carryVal", "f32", Threads));
    P.Launches.push_back(launch1D("spmv_merge", unsigned(Threads / B), B,
                                  {val(Rows), val(Nnz), buf(0), buf(1), buf(2), buf(3), buf(4),
                                   val(Items), buf(5), buf(6)}));
    P.Launches.push_back(launch1D("spmv_merge_fixup", ceilDiv(Threads, B), B,
                                  {val(Rows), val(Threads), buf(5), buf(6), buf(4)}));
  }
  return P;
}

/// C = A x B with B a random dense Cols x \p N matrix (row-major), on
/// buffers rowPtr, colIdx, vals, B, C (what cusparseSpmmJson expects).
Problem spmmProblem(const Csr &A, unsigned N, Rng &R) {
  if (std::string Why = spmm::unfit(A.Rows, A.Cols, N); !Why.empty())
    throw std::runtime_error("spmm_csr: " + Why);
  Problem P;
  P.Name = SpmmKernel;
  addCsrBuffers(P, A);
  P.Buffers.push_back(randomBuffer("B", "f32", size_t(A.Cols) * N, R));
  P.Buffers.push_back(outBuffer("C", "f32", size_t(A.Rows) * N));
  Launch L;
  L.Kernel = SpmmKernel;
  L.Grid[0] = unsigned(spmm::gridX(A.Rows));
  L.Grid[1] = unsigned(spmm::gridY(N));
  L.Block[0] = spmm::BlockColumns;
  L.Block[1] = spmm::BlockRows;
  L.Args = {val(A.Rows), val(N), buf(0), buf(1), buf(2), buf(3), buf(4)};
  P.Launches = {L};
  return P;
}

/// The large problem of one timing spec (the manifest's "timing" list).
Problem timingProblem(const Json &S, Rng &R, std::string &Label) {
  const std::string Case = S["case"].S, Gen = S["generator"].S;
  Problem P;
  P.Name = Case;
  auto Num = [&](const char *K) { return uint64_t(S[K].integer()); };
  if (Gen == "vector") {
    uint64_t N = Num("n");
    Label = "n=" + std::to_string(N);
    unsigned Grid = ceilDiv(N, 256), Persistent = 132 * 8;
    if (Case == "vadd") {
      P.Buffers = {randomBuffer("a", "f32", N, R), randomBuffer("b", "f32", N, R),
                   outBuffer("c", "f32", N)};
      P.Launches = {launch1D(Case, Grid, 256, {buf(0), buf(1), buf(2), val(N)})};
    } else if (Case == "saxpy") {
      P.Buffers = {randomBuffer("x", "f32", N, R), randomBuffer("y", "f32", N, R)};
      P.Buffers[1].Role = "inout";
      P.Launches = {launch1D(Case, Grid, 256, {val(N), val(floatBits(2.5f)), buf(0), buf(1)})};
    } else if (Case == "block_reduce") {
      P.Buffers = {randomBuffer("in", "f32", N, R), outBuffer("partial", "f32", Persistent)};
      P.Launches = {launch1D(Case, Persistent, 256, {buf(0), buf(1), val(N)})};
    } else if (Case == "warp_reduce") {
      P.Buffers = {randomBuffer("in", "u32", N, R), randomBuffer("total", "u32", 1, R)};
      P.Buffers[1].Role = "inout";
      P.Launches = {launch1D(Case, Persistent, 256, {buf(0), buf(1), val(N)})};
    } else if (Case == "histogram") {
      P.Buffers = {randomBuffer("in", "u32", N, R), randomBuffer("bins", "u32", 256, R)};
      P.Buffers[1].Role = "inout";
      P.Launches = {launch1D(Case, Persistent, 256, {buf(0), buf(1), val(N)})};
    } else if (Case == "hash64") {
      // N 64-bit keys and results, each a (low, high) pair of words.
      P.Buffers = {randomBuffer("keys", "u32", 2 * N, R), outBuffer("out", "u32", 2 * N)};
      P.Launches = {launch1D(Case, Grid, 256, {buf(0), buf(1), val(N), val(0x9e3779b9u),
                                               val(0x7f4a7c15u)})};
    } else if (Case == "divergent") {
      P.Buffers = {randomBuffer("in", "u32", N, R), outBuffer("out", "u32", N)};
      P.Launches = {launch1D(Case, ceilDiv(N, 128), 128, {buf(0), buf(1), val(N)})};
    } else if (Case == "math_functions") {
      // x, p and y in the suite's ranges (microbench/kernels/math.cu); ten
      // results per input, one slice per function.
      P.Buffers = {randomBuffer("x", "f32", N, R, -80, 80),
                   randomBuffer("p", "f32", N, R, 1e-3f, 80), randomBuffer("y", "f32", N, R, -4, 4),
                   outBuffer("out", "f32", 10 * N)};
      P.Launches = {launch1D(Case, ceilDiv(N, 128), 128, {buf(0), buf(1), buf(2), buf(3), val(N)})};
    } else {
      throw std::runtime_error("timing spec: generator 'vector' does not know case '" + Case +
                               "'");
    }
  } else if (Gen == "grid2d") {
    uint64_t W = Num("width"), H = Num("height");
    Label = std::to_string(W) + "x" + std::to_string(H);
    P.Buffers = {randomBuffer("in", "f32", W * H, R), outBuffer("out", "f32", W * H)};
    Launch L;
    L.Kernel = Case;
    L.Block[0] = 32;
    L.Block[1] = 8;
    if (Case == "stencil5") {
      L.Grid[0] = ceilDiv(W, 32);
      L.Grid[1] = ceilDiv(H, 8);
      L.Args = {buf(0), buf(1), val(W), val(H), val(floatBits(0.5f)), val(floatBits(0.125f))};
    } else if (Case == "transpose") { // rows = H, cols = W
      L.Grid[0] = ceilDiv(W, 32);
      L.Grid[1] = ceilDiv(H, 32);
      L.Args = {buf(0), buf(1), val(H), val(W)};
    } else {
      throw std::runtime_error("timing spec: generator 'grid2d' does not know '" + Case + "'");
    }
    P.Launches = {L};
  } else if (Gen == "gemm") {
    uint64_t M = Num("m"), N = Num("n"), K = Num("k");
    Label = std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
    P.Buffers = {randomBuffer("A", "f32", M * K, R), randomBuffer("B", "f32", K * N, R),
                 outBuffer("C", "f32", M * N)};
    Launch L;
    L.Kernel = Case;
    L.Grid[0] = ceilDiv(N, 16);
    L.Grid[1] = ceilDiv(M, 16);
    L.Block[0] = L.Block[1] = 16;
    L.Args = {buf(0), buf(1), buf(2), val(M), val(N), val(K)};
    P.Launches = {L};
  } else if (Gen == "rows") {
    uint64_t Rows = Num("rows"), Cols = Num("cols");
    Label = std::to_string(Rows) + "x" + std::to_string(Cols);
    P.Buffers = {randomBuffer("in", "f32", Rows * Cols, R, -8, 8),
                 outBuffer("out", "f32", Rows * Cols)};
    P.Launches = {launch1D(Case, unsigned(Rows), 128, {buf(0), buf(1), val(Cols)}, 128 * 4)};
  } else {
    throw std::runtime_error("timing spec: unknown generator '" + Gen + "'");
  }
  return P;
}

/// The synthetic matrix of a "csr" timing spec.
/// Rows, columns, nonzeros and the longest row: what the gpu model's
/// imbalance term needs even where the matrix is not at hand.
std::string matrixShapeJson(const Csr &A) {
  int64_t Longest = 0;
  for (size_t I = 0; I + 1 < A.RowPtr.size(); ++I)
    Longest = std::max<int64_t>(Longest, A.RowPtr[I + 1] - A.RowPtr[I]);
  return "{\"rows\":" + std::to_string(A.Rows) + ",\"cols\":" + std::to_string(A.Cols) +
         ",\"nnz\":" + std::to_string(A.Col.size()) +
         ",\"max_row_length\":" + std::to_string(Longest) + "}";
}

//===--- Timing ---------------------------------------------------------------===//

struct Timing {
  double MedianMs = 0, MinMs = 0, MaxMs = 0;
  /// The host's time in Body, between the two event records (median): a
  /// launch the GPU waits for shows in MedianMs as long as the host takes
  /// to submit it.
  double HostMedianMs = 0;
  int Reps = 0;
};

std::string timingJson(const Timing &T) {
  return "{\"median_ms\":" + number(T.MedianMs) + ",\"min_ms\":" + number(T.MinMs) +
         ",\"max_ms\":" + number(T.MaxMs) + ",\"host_median_ms\":" + number(T.HostMedianMs) +
         ",\"reps\":" + std::to_string(T.Reps) + "}";
}

double median(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  size_t N = V.size();
  return N % 2 ? V[N / 2] : 0.5 * (V[N / 2 - 1] + V[N / 2]);
}

/// Median over \p Reps of \p Body's GPU time between two events, after
/// three warm-up calls.
template <typename Fn> Timing timeIt(Gpu &G, int Reps, Fn Body) {
  for (int I = 0; I < 3; ++I)
    Body();
  G.check(G.Api.cuCtxSynchronize(), "cuCtxSynchronize", "warm-up");
  std::vector<double> Ms, HostMs;
  for (int I = 0; I < Reps; ++I) {
    G.check(G.Api.cuEventRecord(G.Start, nullptr), "cuEventRecord", "timer");
    auto HostStart = std::chrono::steady_clock::now();
    Body();
    auto HostEnd = std::chrono::steady_clock::now();
    G.check(G.Api.cuEventRecord(G.Stop, nullptr), "cuEventRecord", "timer");
    G.check(G.Api.cuEventSynchronize(G.Stop), "cuEventSynchronize", "a timed run");
    float T = 0;
    G.check(G.Api.cuEventElapsedTime(&T, G.Start, G.Stop), "cuEventElapsedTime", "timer");
    Ms.push_back(T);
    HostMs.push_back(std::chrono::duration<double, std::milli>(HostEnd - HostStart).count());
  }
  Timing T;
  T.Reps = Reps;
  T.MinMs = *std::min_element(Ms.begin(), Ms.end());
  T.MaxMs = *std::max_element(Ms.begin(), Ms.end());
  T.MedianMs = median(Ms);
  T.HostMedianMs = median(HostMs);
  return T;
}

/// Largest |a - b| / max(|b|, 1e-3) over the f32 outputs of two runs: the
/// large problems have no CPU reference, so ours and llc's are held to
/// nvcc's.
double maxRelDifference(const std::vector<uint32_t> &A, const std::vector<uint32_t> &B,
                        bool Float) {
  double Worst = 0;
  for (size_t I = 0; I < A.size() && I < B.size(); ++I) {
    if (!Float) {
      Worst = std::max(Worst, A[I] == B[I] ? 0.0 : 1.0);
      continue;
    }
    double X = bitsFloat(A[I]), Y = bitsFloat(B[I]);
    double D = std::fabs(X - Y) / std::max(std::fabs(Y), 1e-3);
    Worst = std::max(Worst, std::isfinite(D) ? D : 1e30);
  }
  return Worst;
}

//===--- The gpu profile: numbers the gpu model reads, measured here ------===//
//
// Tiny PTX kernels written for this (no nvcc needed): an empty kernel
// (launch overhead, back to back), a copy (DRAM bandwidth, bytes read +
// written), one-thread pointer chases timed on the SM's own %clock64 (L1
// with ld.ca over 16 KiB, L2 with ld.cg over 4 MiB, DRAM over 512 MiB; lines
// visited in a random cycle so no prefetcher helps), and one thread's chain
// of dependent FMAs. The object has profiles/h200-reference.json's schema;
// numbers not measured here (fp32 throughput, L2 bandwidth, shared latency,
// L1 size, warps per SM) are listed in "not_measured" and the report takes
// them from the reference profile.

/// PTX putting the thread's index in the grid, ctaid.x x ntid.x + tid.x,
/// in %r<R+3> (%r<R>..%r<R+2> hold the three parts: %r<R+1> is ntid.x).
std::string globalThreadIndexPtx(int R) {
  auto Reg = [&](int I) { return "%r" + std::to_string(R + I); };
  return "\tmov.u32 " + Reg(0) + ", %ctaid.x;\n\tmov.u32 " + Reg(1) + ", %ntid.x;\n\tmov.u32 " +
         Reg(2) + ", %tid.x;\n\tmad.lo.s32 " + Reg(3) + ", " + Reg(0) + ", " + Reg(1) + ", " +
         Reg(2) + ";\n";
}

std::string probePtx() {
  std::string P = ".version 7.8\n.target sm_90\n.address_size 64\n\n"
                  ".visible .entry tandem_probe_empty()\n{\n\tret;\n}\n\n"
                  ".visible .entry tandem_probe_copy(.param .u64 tandem_probe_copy_param_0, "
                  ".param .u64 tandem_probe_copy_param_1, .param .u32 tandem_probe_copy_param_2)\n"
                  "{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<6>;\n\t.reg .f32 %f<2>;\n"
                  "\t.reg .b64 %rd<8>;\n"
                  "\tld.param.u64 %rd1, [tandem_probe_copy_param_0];\n"
                  "\tld.param.u64 %rd2, [tandem_probe_copy_param_1];\n"
                  "\tld.param.u32 %r1, [tandem_probe_copy_param_2];\n" +
                  globalThreadIndexPtx(2) +
                  "\tsetp.ge.u32 %p1, %r5, %r1;\n"
                  "\t@%p1 bra $COPY_DONE;\n"
                  "\tcvta.to.global.u64 %rd3, %rd1;\n\tcvta.to.global.u64 %rd4, %rd2;\n"
                  "\tmul.wide.u32 %rd5, %r5, 4;\n\tadd.s64 %rd6, %rd3, %rd5;\n"
                  "\tld.global.f32 %f1, [%rd6];\n\tadd.s64 %rd7, %rd4, %rd5;\n"
                  "\tst.global.f32 [%rd7], %f1;\n$COPY_DONE:\n\tret;\n}\n";
  // Pointer chases: param 0 the first pointer, 1 the steps, 2 where to put
  // the cycles and the last pointer (which keeps the chain live).
  for (const char *Cache : {"ca", "cg"}) {
    std::string K = std::string("tandem_probe_chase_") + Cache;
    P += "\n.visible .entry " + K + "(.param .u64 " + K + "_param_0, .param .u32 " + K +
         "_param_1, .param .u64 " + K + "_param_2)\n{\n\t.reg .pred %p<2>;\n"
         "\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<8>;\n"
         "\tld.param.u64 %rd1, [" + K + "_param_0];\n\tld.param.u32 %r1, [" + K +
         "_param_1];\n\tld.param.u64 %rd2, [" + K + "_param_2];\n"
         "\tmov.u32 %r2, 0;\n\tmov.u64 %rd3, %clock64;\n$" + K + "_LOOP:\n"
         "\tld.global." + Cache + ".u64 %rd1, [%rd1];\n\tadd.s32 %r2, %r2, 1;\n"
         "\tsetp.lt.u32 %p1, %r2, %r1;\n\t@%p1 bra $" + K + "_LOOP;\n"
         "\tmov.u64 %rd4, %clock64;\n\tsub.s64 %rd5, %rd4, %rd3;\n"
         "\tcvta.to.global.u64 %rd6, %rd2;\n\tst.global.u64 [%rd6], %rd5;\n"
         "\tst.global.u64 [%rd6+8], %rd1;\n\tret;\n}\n";
  }
  // A dependent FMA chain: param 0 the iterations of 32 FMAs, 1 the output.
  P += "\n.visible .entry tandem_probe_fma(.param .u32 tandem_probe_fma_param_0, .param .u64 "
       "tandem_probe_fma_param_1)\n{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<3>;\n"
       "\t.reg .f32 %f<4>;\n\t.reg .b64 %rd<6>;\n"
       "\tld.param.u32 %r1, [tandem_probe_fma_param_0];\n"
       "\tld.param.u64 %rd1, [tandem_probe_fma_param_1];\n"
       "\tcvt.rn.f32.u32 %f1, %r1;\n\tmov.f32 %f2, 0f3F7FFFFE;\n\tmov.f32 %f3, 0f3A83126F;\n"
       "\tmov.u32 %r2, 0;\n\tmov.u64 %rd2, %clock64;\n$FMA_LOOP:\n";
  for (int I = 0; I < 32; ++I)
    P += "\tfma.rn.f32 %f1, %f1, %f2, %f3;\n";
  P += "\tadd.s32 %r2, %r2, 1;\n\tsetp.lt.u32 %p1, %r2, %r1;\n\t@%p1 bra $FMA_LOOP;\n"
       "\tmov.u64 %rd3, %clock64;\n\tsub.s64 %rd4, %rd3, %rd2;\n"
       "\tcvta.to.global.u64 %rd5, %rd1;\n\tst.global.u64 [%rd5], %rd4;\n"
       "\tst.global.f32 [%rd5+8], %f1;\n\tret;\n}\n";
  return P;
}

/// The end of a throughput probe: %f1..%f8 (its accumulators) summed into
/// %f<Sum> and stored to the thread's float (index %r5) of the output whose
/// address is in %rd1, so no accumulator's work is dead.
std::string storeSumOfAccumulators(int Sum) {
  std::string F = "%f" + std::to_string(Sum);
  std::string P = "\tadd.f32 " + F + ", %f1, %f2;\n";
  for (int I = 3; I <= 8; ++I)
    P += "\tadd.f32 " + F + ", " + F + ", %f" + std::to_string(I) + ";\n";
  return P + "\tcvta.to.global.u64 %rd2, %rd1;\n\tmul.wide.u32 %rd3, %r5, 4;\n"
             "\tadd.s64 %rd4, %rd2, %rd3;\n\tst.global.f32 [%rd4], " + F + ";\n\tret;\n}\n";
}

/// A kernel \p K that loads a word from each of buffers 0..Loads-1 (its
/// first Loads parameters) and stores their sum to buffer Loads, at the
/// thread's index. Chained: each load's index is the word the one before
/// loaded (so the buffers must hold i at i: the loads wait on each other,
/// as a SpMV's row pointers, columns and x do); else every load is at the
/// thread's index. Their difference is what a launch's chain of first
/// touches costs, against the small rows' gap over the touch probe
/// (docs/NOTES.md).
std::string bufferLoadsProbePtx(const std::string &K, int Loads, bool Chained) {
  auto Num = [](int I) { return std::to_string(I); };
  std::string P = "\n.visible .entry " + K + "(";
  for (int I = 0; I <= Loads; ++I)
    P += (I ? ", .param .u64 " : ".param .u64 ") + K + "_param_" + Num(I);
  P += ")\n{\n\t.reg .b32 %r<" + Num(2 * Loads + 4) + ">;\n\t.reg .b64 %rd<20>;\n" +
       globalThreadIndexPtx(1);
  for (int I = 0; I <= Loads; ++I) // the buffers' addresses: %rd1..%rd<Loads+1>
    P += "\tld.param.u64 %rd" + Num(1 + I) + ", [" + K + "_param_" + Num(I) + "];\n" +
         "\tcvta.to.global.u64 %rd" + Num(1 + I) + ", %rd" + Num(1 + I) + ";\n";
  // Load I reads buffer I at index %r<4+I> (chained) or %r4 into %r<5+I>.
  for (int I = 0; I < Loads; ++I) {
    std::string Off = Num(Loads + 2 + 2 * I), Addr = Num(Loads + 3 + 2 * I);
    P += "\tmul.wide.u32 %rd" + Off + ", %r" + Num(Chained ? 4 + I : 4) + ", 4;\n" +
         "\tadd.s64 %rd" + Addr + ", %rd" + Num(1 + I) + ", %rd" + Off + ";\n" +
         "\tld.global.u32 %r" + Num(5 + I) + ", [%rd" + Addr + "];\n";
  }
  // The sum: %r<5+Loads> = %r5 + %r6, then each next load added.
  for (int I = 1; I < Loads; ++I)
    P += "\tadd.s32 %r" + Num(4 + Loads + I) + ", %r" + Num(I == 1 ? 5 : 3 + Loads + I) + ", %r" +
         Num(5 + I) + ";\n";
  std::string Off = Num(3 * Loads + 2), Addr = Num(3 * Loads + 3);
  return P + "\tmul.wide.u32 %rd" + Off + ", %r4, 4;\n\tadd.s64 %rd" + Addr + ", %rd" +
         Num(Loads + 1) + ", %rd" + Off + ";\n\tst.global.u32 [%rd" + Addr + "], %r" +
         Num(3 + 2 * Loads) + ";\n\tret;\n}\n";
}

/// How each lane of the shared-memory throughput probe reads.
enum class SharedAccess {
  Word,          ///< ld.shared.f32, 32 consecutive words a warp (conflict-free)
  Vec4,          ///< ld.volatile.shared.v4.f32, 32 consecutive 16-byte vectors
  Vec4Broadcast, ///< the same, lanes 0-15 one vector, 16-31 the next (sgemm's A row)
};

/// Shared-memory throughput kernel \p K over the module's 4 KiB
/// tandem_probe_ring: param 0 the iterations of 8 loads, 1 one float per
/// thread. The 8 offsets differ by multiples of 512 bytes, and the base
/// moves 128 bytes an iteration so no load is hoisted; each load adds its
/// first float to an accumulator (one FADD: the vector loads are volatile
/// so ptxas keeps all 16 bytes, LDS.128).
std::string sharedThroughputProbePtx(const std::string &K, SharedAccess A) {
  const bool Vec = A != SharedAccess::Word;
  std::string L = "$" + K + "_LOOP";
  std::string P = "\n.visible .entry " + K + "(.param .u32 " + K + "_param_0, .param .u64 " + K +
                  "_param_1)\n{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<17>;\n"
                  "\t.reg .f32 %f<" + std::string(Vec ? "41" : "18") + ">;\n"
                  "\t.reg .b64 %rd<5>;\n\tld.param.u32 %r1, [" + K + "_param_0];\n"
                  "\tld.param.u64 %rd1, [" + K + "_param_1];\n" + globalThreadIndexPtx(2) +
                  "\tmov.u32 %r6, tandem_probe_ring;\n";
  // %r7: the lane's byte offset in the ring.
  if (A == SharedAccess::Word)
    P += "\tand.b32 %r7, %r4, 31;\n\tshl.b32 %r7, %r7, 2;\n";
  else if (A == SharedAccess::Vec4)
    P += "\tand.b32 %r7, %r4, 31;\n\tshl.b32 %r7, %r7, 4;\n";
  else
    P += "\tshr.u32 %r7, %r4, 4;\n\tand.b32 %r7, %r7, 1;\n\tshl.b32 %r7, %r7, 4;\n";
  P += "\tmov.u32 %r8, 0;\n";
  for (int I = 1; I <= 8; ++I)
    P += "\tmov.f32 %f" + std::to_string(I) + ", 0f00000000;\n";
  P += L + ":\n\tand.b32 %r9, %r7, 4095;\n";
  for (int I = 0; I < 8; ++I) {
    std::string Off = std::to_string(512 * I), Reg = std::to_string(9 + I);
    std::string F = std::to_string(9 + I), Acc = std::to_string(1 + I);
    if (I > 0)
      P += "\txor.b32 %r" + Reg + ", %r9, " + Off + ";\n";
    P += "\tadd.s32 %r" + Reg + ", %r" + Reg + ", %r6;\n";
    if (Vec) {
      std::string V = std::to_string(17 + 3 * I);
      P += "\tld.volatile.shared.v4.f32 {%f" + F + ", %f" + V + ", %f" + std::to_string(18 + 3 * I) +
           ", %f" + std::to_string(19 + 3 * I) + "}, [%r" + Reg + "];\n";
    } else {
      P += "\tld.shared.f32 %f" + F + ", [%r" + Reg + "];\n";
    }
    P += "\tadd.f32 %f" + Acc + ", %f" + Acc + ", %f" + F + ";\n";
    if (I == 0) // %r9 is the ring offset again for the xors
      P += "\tsub.s32 %r9, %r9, %r6;\n";
  }
  return P + "\tadd.s32 %r7, %r7, 128;\n\tadd.s32 %r8, %r8, 1;\n"
             "\tsetp.lt.u32 %p1, %r8, %r1;\n\t@%p1 bra " + L + ";\n" +
         storeSumOfAccumulators(17);
}

/// Rounds of 8 independent FMAs in an iteration of the FMA-throughput probe.
/// 4 in the lent runs of 2026-12-04 (56.7 TFLOP/s where the guide has
/// 65.1: the loop's own three instructions were 9% of the 35 issued).
constexpr int FmaTputRounds = 16;

/// Probes added after the first lent run, in a module of their own so that
/// should one not load, the probes above still give their numbers: a copy
/// with 16-byte accesses (what bulk copies reach), fp32 FMA throughput (8
/// independent chains per thread), a one-thread chase through shared memory,
/// and L2 read bandwidth (16-byte ld.cg over a buffer that fits the L2).
std::string extraProbePtx() {
  std::string P = ".version 7.8\n.target sm_90\n.address_size 64\n\n"
                  ".shared .align 4 .b32 tandem_probe_ring[1024];\n\n";
  // Copy: param 0 source, 1 destination, 2 the float4s.
  P += ".visible .entry tandem_probe_copy4(.param .u64 tandem_probe_copy4_param_0, "
       ".param .u64 tandem_probe_copy4_param_1, .param .u32 tandem_probe_copy4_param_2)\n"
       "{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<6>;\n\t.reg .f32 %f<5>;\n\t.reg .b64 %rd<8>;\n"
       "\tld.param.u64 %rd1, [tandem_probe_copy4_param_0];\n"
       "\tld.param.u64 %rd2, [tandem_probe_copy4_param_1];\n"
       "\tld.param.u32 %r1, [tandem_probe_copy4_param_2];\n" +
       globalThreadIndexPtx(2) +
       "\tsetp.ge.u32 %p1, %r5, %r1;\n"
       "\t@%p1 bra $COPY4_DONE;\n"
       "\tcvta.to.global.u64 %rd3, %rd1;\n\tcvta.to.global.u64 %rd4, %rd2;\n"
       "\tmul.wide.u32 %rd5, %r5, 16;\n\tadd.s64 %rd6, %rd3, %rd5;\n"
       "\tld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd6];\n\tadd.s64 %rd7, %rd4, %rd5;\n"
       "\tst.global.v4.f32 [%rd7], {%f1, %f2, %f3, %f4};\n$COPY4_DONE:\n\tret;\n}\n";
  // FMA throughput: param 0 the iterations of FmaTputRounds x 8 FMAs (the
  // loop's add, compare and branch under 3% of what it issues), 1 one float per
  // thread (the chains' sum, which keeps them live).
  P += "\n.visible .entry tandem_probe_fma_tput(.param .u32 tandem_probe_fma_tput_param_0, "
       ".param .u64 tandem_probe_fma_tput_param_1)\n{\n\t.reg .pred %p<2>;\n"
       "\t.reg .b32 %r<7>;\n\t.reg .f32 %f<12>;\n\t.reg .b64 %rd<5>;\n"
       "\tld.param.u32 %r1, [tandem_probe_fma_tput_param_0];\n"
       "\tld.param.u64 %rd1, [tandem_probe_fma_tput_param_1];\n" +
       globalThreadIndexPtx(2) + "\tcvt.rn.f32.u32 %f1, %r5;\n";
  for (int I = 2; I <= 8; ++I)
    P += "\tadd.f32 %f" + std::to_string(I) + ", %f" + std::to_string(I - 1) + ", 0f3F800000;\n";
  P += "\tmov.f32 %f9, 0f3F7FFFFE;\n\tmov.f32 %f10, 0f3A83126F;\n\tmov.u32 %r6, 0;\n"
       "$FMAT_LOOP:\n";
  for (int Round = 0; Round < FmaTputRounds; ++Round)
    for (int I = 1; I <= 8; ++I)
      P += "\tfma.rn.f32 %f" + std::to_string(I) + ", %f" + std::to_string(I) + ", %f9, %f10;\n";
  P += "\tadd.s32 %r6, %r6, 1;\n\tsetp.lt.u32 %p1, %r6, %r1;\n\t@%p1 bra $FMAT_LOOP;\n" +
       storeSumOfAccumulators(11);
  // Shared-memory chase, one thread: the ring's 1024 words each hold the
  // address of the word 33 further on (33 is odd, so the cycle visits all);
  // param 0 the steps, 1 where to put the cycles and the last address.
  P += "\n.visible .entry tandem_probe_shared_chase(.param .u32 "
       "tandem_probe_shared_chase_param_0, .param .u64 tandem_probe_shared_chase_param_1)\n"
       "{\n\t.reg .pred %p<3>;\n\t.reg .b32 %r<10>;\n\t.reg .b64 %rd<6>;\n"
       "\tld.param.u32 %r1, [tandem_probe_shared_chase_param_0];\n"
       "\tld.param.u64 %rd1, [tandem_probe_shared_chase_param_1];\n"
       "\tmov.u32 %r2, tandem_probe_ring;\n\tmov.u32 %r3, 0;\n$SH_INIT:\n"
       "\tadd.s32 %r4, %r3, 33;\n\tand.b32 %r4, %r4, 1023;\n\tshl.b32 %r5, %r4, 2;\n"
       "\tadd.s32 %r5, %r5, %r2;\n\tshl.b32 %r6, %r3, 2;\n\tadd.s32 %r6, %r6, %r2;\n"
       "\tst.shared.u32 [%r6], %r5;\n\tadd.s32 %r3, %r3, 1;\n"
       "\tsetp.lt.u32 %p1, %r3, 1024;\n\t@%p1 bra $SH_INIT;\n"
       "\tmov.u32 %r7, %r2;\n\tmov.u32 %r8, 0;\n\tmov.u64 %rd2, %clock64;\n$SH_LOOP:\n"
       "\tld.shared.u32 %r7, [%r7];\n\tadd.s32 %r8, %r8, 1;\n"
       "\tsetp.lt.u32 %p2, %r8, %r1;\n\t@%p2 bra $SH_LOOP;\n"
       "\tmov.u64 %rd3, %clock64;\n\tsub.s64 %rd4, %rd3, %rd2;\n"
       "\tcvta.to.global.u64 %rd5, %rd1;\n\tst.global.u64 [%rd5], %rd4;\n"
       "\tst.global.u32 [%rd5+8], %r7;\n\tret;\n}\n";
  // A launch that touches memory, as every row's kernel does: each thread
  // adds 1 to its word of param 0 (32 blocks of 256 threads over 32 KiB,
  // in the L2 after the warm-up). One launch alone between two events is
  // the launch latency the rows see; two back to back, minus one, what a
  // second dependent launch adds.
  P += "\n.visible .entry tandem_probe_touch(.param .u64 tandem_probe_touch_param_0)\n{\n"
       "\t.reg .b32 %r<7>;\n\t.reg .b64 %rd<5>;\n"
       "\tld.param.u64 %rd1, [tandem_probe_touch_param_0];\n"
       "\tcvta.to.global.u64 %rd2, %rd1;\n" +
       globalThreadIndexPtx(1) +
       "\tmul.wide.u32 %rd3, %r4, 4;\n"
       "\tadd.s64 %rd4, %rd2, %rd3;\n\tld.global.u32 %r5, [%rd4];\n"
       "\tadd.s32 %r6, %r5, 1;\n\tst.global.u32 [%rd4], %r6;\n\tret;\n}\n";
  // Variants of it that ask what else a small launch pays for: the same
  // work from more buffers (bufferLoadsProbePtx: 5, a SpMV's arrays; and
  // 3 loads chained or not), and the same work after 512 more instructions
  // (8 KiB of code run once: 8 independent multiply-add chains on the loaded
  // word, so nothing folds).
  P += bufferLoadsProbePtx("tandem_probe_touch5", 4, /*Chained=*/false);
  P += bufferLoadsProbePtx("tandem_probe_chain3", 3, /*Chained=*/true);
  P += bufferLoadsProbePtx("tandem_probe_parallel3", 3, /*Chained=*/false);
  P += "\n.visible .entry tandem_probe_touch_code(.param .u64 tandem_probe_touch_code_param_0)\n"
       "{\n\t.reg .b32 %r<24>;\n\t.reg .b64 %rd<5>;\n"
       "\tld.param.u64 %rd1, [tandem_probe_touch_code_param_0];\n"
       "\tcvta.to.global.u64 %rd2, %rd1;\n" +
       globalThreadIndexPtx(1) +
       "\tmul.wide.u32 %rd3, %r4, 4;\n"
       "\tadd.s64 %rd4, %rd2, %rd3;\n\tld.global.u32 %r5, [%rd4];\n"
       "\tor.b32 %r6, %r5, 1;\n";
  for (int C = 0; C < 8; ++C)
    P += "\tadd.s32 %r" + std::to_string(7 + C) + ", %r5, " + std::to_string(C + 1) + ";\n";
  for (int Round = 0; Round < 64; ++Round)
    for (int C = 0; C < 8; ++C) {
      std::string R = std::to_string(7 + C);
      P += "\tmad.lo.s32 %r" + R + ", %r" + R + ", %r6, " + std::to_string(2 * Round + C + 3) +
           ";\n";
    }
  P += "\txor.b32 %r15, %r7, %r8;\n\txor.b32 %r16, %r9, %r10;\n\txor.b32 %r17, %r11, %r12;\n"
       "\txor.b32 %r18, %r13, %r14;\n\txor.b32 %r19, %r15, %r16;\n\txor.b32 %r20, %r17, %r18;\n"
       "\txor.b32 %r21, %r19, %r20;\n\tst.global.u32 [%rd4], %r21;\n\tret;\n}\n";
  P += sharedThroughputProbePtx("tandem_probe_shared_tput", SharedAccess::Word);
  // L2 read: param 0 the buffer, 1 its float4s, 2 the passes over it, 3 one
  // float per thread (the sum, which keeps the loads live). Grid-stride.
  P += "\n.visible .entry tandem_probe_l2_read(.param .u64 tandem_probe_l2_read_param_0, "
       ".param .u32 tandem_probe_l2_read_param_1, .param .u32 tandem_probe_l2_read_param_2, "
       ".param .u64 tandem_probe_l2_read_param_3)\n{\n\t.reg .pred %p<3>;\n"
       "\t.reg .b32 %r<11>;\n\t.reg .f32 %f<6>;\n\t.reg .b64 %rd<9>;\n"
       "\tld.param.u64 %rd1, [tandem_probe_l2_read_param_0];\n"
       "\tld.param.u32 %r1, [tandem_probe_l2_read_param_1];\n"
       "\tld.param.u32 %r2, [tandem_probe_l2_read_param_2];\n"
       "\tld.param.u64 %rd2, [tandem_probe_l2_read_param_3];\n"
       "\tcvta.to.global.u64 %rd3, %rd1;\n" +
       globalThreadIndexPtx(3) +
       "\tmov.u32 %r7, %nctaid.x;\n"
       "\tmul.lo.s32 %r8, %r7, %r4;\n\tmov.f32 %f1, 0f00000000;\n\tmov.u32 %r9, 0;\n"
       "$L2_PASS:\n\tmov.u32 %r10, %r6;\n\tsetp.ge.u32 %p1, %r10, %r1;\n"
       "\t@%p1 bra $L2_NEXT;\n$L2_LOOP:\n"
       "\tmul.wide.u32 %rd4, %r10, 16;\n\tadd.s64 %rd5, %rd3, %rd4;\n"
       "\tld.global.cg.v4.f32 {%f2, %f3, %f4, %f5}, [%rd5];\n"
       "\tadd.f32 %f1, %f1, %f2;\n\tadd.f32 %f1, %f1, %f3;\n"
       "\tadd.f32 %f1, %f1, %f4;\n\tadd.f32 %f1, %f1, %f5;\n"
       "\tadd.s32 %r10, %r10, %r8;\n\tsetp.lt.u32 %p1, %r10, %r1;\n"
       "\t@%p1 bra $L2_LOOP;\n$L2_NEXT:\n\tadd.s32 %r9, %r9, 1;\n"
       "\tsetp.lt.u32 %p2, %r9, %r2;\n\t@%p2 bra $L2_PASS;\n"
       "\tcvta.to.global.u64 %rd6, %rd2;\n\tmul.wide.u32 %rd7, %r6, 4;\n"
       "\tadd.s64 %rd8, %rd6, %rd7;\n\tst.global.f32 [%rd8], %f1;\n\tret;\n}\n";
  return P;
}

/// A kernel \p K (params: buffers a and b, output, items) in which each
/// thread sums `items` floats of a and as many of b at the same indices (as
/// spmv_merge reads a nonzero's column and value) and stores the sum to its
/// float of the output. Lane walk: thread t reads indices t x items ..
/// t x items + items - 1 one after another, so the lanes of a warp are
/// `items` words apart: at 32, every warp load touches 32 lines, and the
/// resident threads keep two 128-byte lines each in use (69 MB on the H200,
/// more than its L2). Else coalesced: thread t reads t, t + threads, ...
/// (the same bytes, 32 consecutive words a warp load).
std::string walkProbePtx(const std::string &K, bool LaneWalk) {
  std::string L = "$" + K + "_LOOP";
  return "\n.visible .entry " + K + "(.param .u64 " + K + "_param_0, .param .u64 " + K +
         "_param_1, .param .u64 " + K + "_param_2, .param .u32 " + K +
         "_param_3)\n{\n\t.reg .pred %p<2>;\n"
         "\t.reg .b32 %r<11>;\n\t.reg .f32 %f<4>;\n\t.reg .b64 %rd<12>;\n"
         "\tld.param.u64 %rd1, [" + K + "_param_0];\n\tld.param.u64 %rd8, [" + K +
         "_param_1];\n\tld.param.u64 %rd2, [" + K + "_param_2];\n\tld.param.u32 %r1, [" + K +
         "_param_3];\n" + globalThreadIndexPtx(2) +
         "\tmov.u32 %r6, %nctaid.x;\n\tmul.lo.s32 %r7, %r6, %r3;\n"
         "\tcvta.to.global.u64 %rd3, %rd1;\n\tcvta.to.global.u64 %rd9, %rd8;\n" +
         (LaneWalk ? "\tmul.lo.s32 %r8, %r5, %r1;\n\tmov.u32 %r9, 1;\n"
                   : "\tmov.u32 %r8, %r5;\n\tmov.u32 %r9, %r7;\n") +
         "\tmov.f32 %f1, 0f00000000;\n\tmov.u32 %r10, 0;\n" + L + ":\n"
         "\tmul.wide.u32 %rd4, %r8, 4;\n\tadd.s64 %rd5, %rd3, %rd4;\n"
         "\tadd.s64 %rd10, %rd9, %rd4;\n\tld.global.f32 %f2, [%rd5];\n"
         "\tld.global.f32 %f3, [%rd10];\n\tadd.f32 %f1, %f1, %f2;\n\tadd.f32 %f1, %f1, %f3;\n"
         "\tadd.s32 %r8, %r8, %r9;\n\tadd.s32 %r10, %r10, 1;\n"
         "\tsetp.lt.u32 %p1, %r10, %r1;\n\t@%p1 bra " + L + ";\n"
         "\tcvta.to.global.u64 %rd6, %rd2;\n\tmul.wide.u32 %rd7, %r5, 4;\n"
         "\tadd.s64 %rd6, %rd6, %rd7;\n\tst.global.f32 [%rd6], %f1;\n\tret;\n}\n";
}

/// Probes added after the second lent run (a module of their own, as the
/// extra ones), asking where a small launch's time goes and what a
/// launch of many short blocks costs (docs/NOTES.md: the small matrices'
/// rows are 2-5 us over the touch probe; warp-per-row SpMV takes about
/// 185 cycles a 128-thread block on each SM, whatever its size):
///   tandem_probe_nop          an empty kernel, launched with many blocks;
///   tandem_probe_touch_steps  each thread follows `steps` dependent ld.cg
///                             through a 32 KiB ring (word i holds i + 33,
///                             mod 8192: a new line each step) and stores
///                             where it ended (and _b, the same kernel
///                             under another name);
///   tandem_probe_lane_walk / tandem_probe_coalesced_walk  (walkProbePtx);
///   tandem_probe_shared_v4_tput / _v4_broadcast_tput  16-byte shared loads,
///                             what sgemm's LDS.128 of A's row cost against
///                             the word loads of shared_tput.
std::string launchProbePtx() {
  std::string P = ".version 7.8\n.target sm_90\n.address_size 64\n\n"
                  ".shared .align 16 .b32 tandem_probe_ring[1024];\n\n"
                  ".visible .entry tandem_probe_nop()\n{\n\tret;\n}\n";
  // Twice, under two names: a launch after one of the same kernel against
  // one after another kernel (spmv_merge's fixup, scan's second kernel).
  for (const std::string K : {"tandem_probe_touch_steps", "tandem_probe_touch_steps_b"})
    P += "\n.visible .entry " + K + "(.param .u64 " + K + "_param_0, .param .u64 " + K +
         "_param_1, .param .u32 " + K + "_param_2)\n{\n\t.reg .pred %p<2>;\n"
         "\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n"
         "\tld.param.u64 %rd1, [" + K + "_param_0];\n\tld.param.u64 %rd2, [" + K +
         "_param_1];\n\tld.param.u32 %r1, [" + K + "_param_2];\n" + globalThreadIndexPtx(2) +
         "\tcvta.to.global.u64 %rd3, %rd1;\n\tand.b32 %r6, %r5, 8191;\n\tmov.u32 %r7, 0;\n"
         "$TS_LOOP:\n\tmul.wide.u32 %rd4, %r6, 4;\n\tadd.s64 %rd5, %rd3, %rd4;\n"
         "\tld.global.cg.u32 %r6, [%rd5];\n\tadd.s32 %r7, %r7, 1;\n"
         "\tsetp.lt.u32 %p1, %r7, %r1;\n\t@%p1 bra $TS_LOOP;\n"
         "\tcvta.to.global.u64 %rd6, %rd2;\n\tmul.wide.u32 %rd7, %r5, 4;\n"
         "\tadd.s64 %rd6, %rd6, %rd7;\n\tst.global.u32 [%rd6], %r6;\n\tret;\n}\n";
  P += walkProbePtx("tandem_probe_lane_walk", /*LaneWalk=*/true);
  P += walkProbePtx("tandem_probe_coalesced_walk", /*LaneWalk=*/false);
  P += sharedThroughputProbePtx("tandem_probe_shared_v4_tput", SharedAccess::Vec4);
  P += sharedThroughputProbePtx("tandem_probe_shared_v4_broadcast_tput",
                                SharedAccess::Vec4Broadcast);
  return P;
}

/// Cycles per load of a one-thread pointer chase over \p Footprint bytes.
double chaseCycles(Gpu &G, PtxModule &M, const char *Kernel, size_t Footprint, unsigned Steps,
                   Rng &R) {
  const size_t Stride = 128, Lines = Footprint / Stride, WordsPerLine = Stride / 8;
  DeviceBuffer Ring(G, Footprint, "pointer chase ring");
  DeviceBuffer Out(G, 16, "pointer chase result");
  std::vector<uint64_t> Order(Lines);
  std::iota(Order.begin(), Order.end(), 0);
  for (size_t I = Lines - 1; I > 0; --I) // a random cycle through every line
    std::swap(Order[I], Order[R.below(I + 1)]);
  std::vector<uint64_t> Words(Lines * WordsPerLine, 0);
  for (size_t I = 0; I < Lines; ++I)
    Words[Order[I] * WordsPerLine] = Ring.Ptr + Order[(I + 1) % Lines] * Stride;
  Ring.upload(Words.data(), Words.size() * 8);
  unsigned Grid[3] = {1, 1, 1}, Block[3] = {1, 1, 1};
  uint64_t Result[2];
  auto Chase = [&](uint64_t From, uint64_t Count) {
    M.launch(Kernel, Grid, Block, 0, {From, Count, Out.Ptr});
    G.check(G.Api.cuCtxSynchronize(), "cuCtxSynchronize", Kernel);
    Out.download(Result, 16);
  };
  // Warm: a lap (or Steps loads) from the start. A cache-sized ring is then
  // resident and the lap ends where it began; a DRAM-sized one is not, and
  // the timed chase goes on from where the warm one stopped, over lines it
  // has not touched (from the start again it would find the warm chase's
  // lines in the L2: the first lent run measured 285 cycles so, the L2's).
  Chase(Ring.Ptr + Order[0] * Stride, std::min<uint64_t>(Lines, Steps));
  Chase(Result[1], Steps);
  return double(Result[0]) / Steps;
}

/// Runs one thread of \p Kernel, a probe with parameters (count, result),
/// and returns the cycles it leaves in the result's first 8 bytes.
uint64_t oneThreadCycles(Gpu &G, PtxModule &M, const char *Kernel, uint32_t Count) {
  DeviceBuffer Out(G, 16, std::string(Kernel) + " result");
  unsigned One[3] = {1, 1, 1};
  M.launch(Kernel, One, One, 0, {Count, Out.Ptr});
  G.check(G.Api.cuCtxSynchronize(), "cuCtxSynchronize", Kernel);
  uint64_t Cycles = 0;
  Out.download(&Cycles, 8);
  return Cycles;
}

/// Warp-wide shared loads an SM completes a cycle in \p Kernel, a
/// sharedThroughputProbePtx kernel of \p M: 1024 threads an SM, 4096
/// iterations of 8 loads, at the driver's maximum clock (the clock the SMs
/// ran at here).
double sharedWarpAccessesPerSmCycle(Gpu &G, PtxModule &M, const char *Kernel, int Reps, int Sms,
                                    int ClockKhz) {
  unsigned Grid[3] = {unsigned(Sms) * 4, 1, 1}, Block[3] = {256, 1, 1};
  const uint32_t Iterations = 4096;
  DeviceBuffer Sums(G, size_t(Grid[0]) * 256 * 4, std::string(Kernel) + " sums");
  Timing T = timeIt(G, Reps, [&] { M.launch(Kernel, Grid, Block, 0, {Iterations, Sums.Ptr}); });
  double WarpAccesses = double(Grid[0]) * (256 / 32) * Iterations * 8;
  return WarpAccesses / Sms / (T.MedianMs * 1e-3 * ClockKhz * 1e3);
}

/// What the extra probes measured; 0 where one did not run.
struct ExtraProbes {
  double Copy4GbPerS = 0, Fp32TflopPerS = 0, SharedCycles = 0, L2ReadGbPerS = 0;
  double SharedWarpAccessesPerSmCycle = 0;
  double TouchLaunchUs = 0, TouchNextLaunchUs = 0, Touch5BuffersUs = 0, TouchLongCodeUs = 0;
  double Chain3Us = 0, Parallel3Us = 0;
  double TouchHostUs = 0; ///< the host's time in the touch probe's launch call
};

/// The touch probes' launch: 32 blocks of 256 threads (one an SM at most).
constexpr unsigned TouchGrid[3] = {32, 1, 1}, TouchBlock[3] = {256, 1, 1};

/// \p Count buffers of a word per touch-probe thread, every word 1.
std::vector<DeviceBuffer> touchBuffers(Gpu &G, int Count, const std::string &What) {
  std::vector<DeviceBuffer> Buffers;
  for (int I = 0; I < Count; ++I) {
    Buffers.emplace_back(G, 32 * 256 * 4, What);
    G.check(G.Api.cuMemsetD32(Buffers.back().Ptr, 1, 32 * 256), "cuMemsetD32", What);
  }
  return Buffers;
}

/// One launch of the five-buffer touch probe over \p Five.
void launchTouch5(PtxModule &M, const std::vector<DeviceBuffer> &Five) {
  M.launch("tandem_probe_touch5", TouchGrid, TouchBlock, 0,
           {Five[0].Ptr, Five[1].Ptr, Five[2].Ptr, Five[3].Ptr, Five[4].Ptr});
}

/// Runs extraProbePtx's probes on a GPU of \p Sms multiprocessors at \p
/// ClockKhz: the copy over \p Src and \p Dst (\p N floats each). A failure
/// loses these numbers only (and is printed).
ExtraProbes measureExtraProbes(Gpu &G, int Reps, int Sms, int ClockKhz, const DeviceBuffer &Src,
                               const DeviceBuffer &Dst, uint32_t N) {
  ExtraProbes X;
  try {
    PtxModule M(G, extraProbePtx(), "the extra profile probes");
    unsigned Block[3] = {256, 1, 1};

    DeviceBuffer Touched(G, 32 * 256 * 4, "touch probe words");
    G.check(G.Api.cuMemsetD32(Touched.Ptr, 0, 32 * 256), "cuMemsetD32", "touch probe words");
    auto Touch = [&] { M.launch("tandem_probe_touch", TouchGrid, Block, 0, {Touched.Ptr}); };
    Timing Touch1 = timeIt(G, Reps, Touch);
    Timing Touch2 = timeIt(G, Reps, [&] {
      Touch();
      Touch();
    });
    X.TouchLaunchUs = Touch1.MedianMs * 1000;
    X.TouchHostUs = Touch1.HostMedianMs * 1000;
    X.TouchNextLaunchUs = (Touch2.MedianMs - Touch1.MedianMs) * 1000;
    {
      std::vector<DeviceBuffer> Five = touchBuffers(G, 5, "touch5 probe words");
      Timing T5 = timeIt(G, Reps, [&] { launchTouch5(M, Five); });
      X.Touch5BuffersUs = T5.MedianMs * 1000;
      // Buffers 0..2 hold i at i, so a chained load stays at its index.
      std::vector<uint32_t> Identity(32 * 256);
      std::iota(Identity.begin(), Identity.end(), 0u);
      for (int I = 0; I < 3; ++I)
        Five[I].upload(Identity.data(), Identity.size() * 4);
      for (bool Chained : {true, false}) {
        Timing T = timeIt(G, Reps, [&] {
          M.launch(Chained ? "tandem_probe_chain3" : "tandem_probe_parallel3", TouchGrid, Block,
                   0, {Five[0].Ptr, Five[1].Ptr, Five[2].Ptr, Five[3].Ptr});
        });
        (Chained ? X.Chain3Us : X.Parallel3Us) = T.MedianMs * 1000;
      }
      Timing Code = timeIt(G, Reps, [&] {
        M.launch("tandem_probe_touch_code", TouchGrid, Block, 0, {Touched.Ptr});
      });
      X.TouchLongCodeUs = Code.MedianMs * 1000;
    }

    unsigned CopyGrid[3] = {N / 4 / 256, 1, 1};
    Timing Copy4 = timeIt(G, Reps, [&] {
      M.launch("tandem_probe_copy4", CopyGrid, Block, 0, {Src.Ptr, Dst.Ptr, N / 4});
    });
    X.Copy4GbPerS = 2.0 * N * 4 / (Copy4.MedianMs * 1e-3) / 1e9;

    // 1024 threads per SM, 8 chains each: enough to hide the FMA latency.
    unsigned FmaGrid[3] = {unsigned(Sms) * 4, 1, 1};
    const uint32_t Iterations = 32768 / FmaTputRounds;
    DeviceBuffer Sums(G, size_t(FmaGrid[0]) * 256 * 4, "fma throughput sums");
    Timing Fma = timeIt(G, Reps, [&] {
      M.launch("tandem_probe_fma_tput", FmaGrid, Block, 0, {Iterations, Sums.Ptr});
    });
    double Flops = double(FmaGrid[0]) * 256 * Iterations * (FmaTputRounds * 8) * 2;
    X.Fp32TflopPerS = Flops / (Fma.MedianMs * 1e-3) / 1e12;

    const uint32_t Steps = 100000;
    X.SharedCycles = double(oneThreadCycles(G, M, "tandem_probe_shared_chase", Steps)) / Steps;

    X.SharedWarpAccessesPerSmCycle =
        sharedWarpAccessesPerSmCycle(G, M, "tandem_probe_shared_tput", Reps, Sms, ClockKhz);

    // 16 MiB, in the L2 after timeIt's warm-up; 64 passes a launch.
    const uint32_t Vec4s = (16u << 20) / 16, Passes = 64;
    DeviceBuffer Resident(G, size_t(Vec4s) * 16, "L2 read buffer");
    G.check(G.Api.cuMemsetD32(Resident.Ptr, 0x3f800000u, size_t(Vec4s) * 4), "cuMemsetD32",
            "L2 read buffer");
    unsigned ReadGrid[3] = {unsigned(Sms) * 8, 1, 1};
    DeviceBuffer ReadSums(G, size_t(ReadGrid[0]) * 256 * 4, "L2 read sums");
    Timing Read = timeIt(G, Reps, [&] {
      M.launch("tandem_probe_l2_read", ReadGrid, Block, 0,
               {Resident.Ptr, Vec4s, Passes, ReadSums.Ptr});
    });
    X.L2ReadGbPerS = double(Vec4s) * 16 * Passes / (Read.MedianMs * 1e-3) / 1e9;
  } catch (const std::exception &E) {
    std::cerr << "extra profile probes: " << E.what() << "\n";
    G.recoverAfterFailure();
  }
  return X;
}

/// What launchProbePtx's probes measured; 0 where one did not run.
struct LaunchProbes {
  /// Cycles a dependent L2 load adds to a small launch (32 blocks of 256
  /// threads), to set beside the one-thread chase's L2 latency.
  double SmallLaunchL2StepCycles = 0;
  /// Cycles each SM spends a 128-thread block, over 256 blocks an SM:
  /// empty blocks, and blocks whose threads each load and store a word.
  double CtaCyclesPerBlockEmpty = 0, CtaCyclesPerBlockTouch = 0;
  /// Bytes a second the lane walks (32 and 16 items a lane) and the
  /// coalesced twin read.
  double LaneWalkGbPerS = 0, LaneWalk16GbPerS = 0, CoalescedWalkGbPerS = 0;
  /// What a second launch back to back adds: of the same kernel, of another.
  double NextSameKernelUs = 0, NextOtherKernelUs = 0;
  /// 16-byte warp-wide shared loads an SM completes a cycle: distinct
  /// vectors, and two (a half-warp each).
  double SharedV4WarpAccessesPerSmCycle = 0, SharedV4BroadcastWarpAccessesPerSmCycle = 0;
};

/// Runs launchProbePtx's probes on a GPU of \p Sms multiprocessors at \p
/// ClockKhz; the walks read \p Src and \p Dst (\p N floats each) side by
/// side. A failure loses these numbers only (and is printed).
LaunchProbes measureLaunchProbes(Gpu &G, int Reps, int Sms, int ClockKhz, const DeviceBuffer &Src,
                                 const DeviceBuffer &Dst, uint32_t N) {
  LaunchProbes X;
  const double CyclesPerMs = ClockKhz;
  try {
    PtxModule M(G, launchProbePtx(), "the launch probes");
    // The ring: word i holds i + 33 (mod 8192), 32 KiB, in the L2 after
    // timeIt's warm-up.
    std::vector<uint32_t> Ring(8192);
    for (uint32_t I = 0; I < Ring.size(); ++I)
      Ring[I] = (I + 33) % 8192;
    DeviceBuffer RingBuf(G, Ring.size() * 4, "touch steps ring");
    RingBuf.upload(Ring.data(), Ring.size() * 4);
    const unsigned BlocksPerSm = 256;
    const size_t ManyThreads = size_t(Sms) * BlocksPerSm * 128;
    DeviceBuffer Ends(G, ManyThreads * 4, "touch steps ends");

    auto Steps = [&](unsigned Blocks, unsigned Threads, uint32_t Count) {
      unsigned Grid[3] = {Blocks, 1, 1}, Block[3] = {Threads, 1, 1};
      return timeIt(G, Reps, [&] {
        M.launch("tandem_probe_touch_steps", Grid, Block, 0, {RingBuf.Ptr, Ends.Ptr, Count});
      });
    };
    Timing One = Steps(32, 256, 1), Seventeen = Steps(32, 256, 17);
    X.SmallLaunchL2StepCycles = (Seventeen.MedianMs - One.MedianMs) / 16 * CyclesPerMs;

    // A second launch back to back: of the same kernel, and of another.
    unsigned SmallGrid[3] = {32, 1, 1}, SmallBlock[3] = {256, 1, 1};
    for (bool Other : {false, true}) {
      Timing Two = timeIt(G, Reps, [&] {
        M.launch("tandem_probe_touch_steps", SmallGrid, SmallBlock, 0,
                 {RingBuf.Ptr, Ends.Ptr, uint32_t(1)});
        M.launch(Other ? "tandem_probe_touch_steps_b" : "tandem_probe_touch_steps", SmallGrid,
                 SmallBlock, 0, {RingBuf.Ptr, Ends.Ptr, uint32_t(1)});
      });
      (Other ? X.NextOtherKernelUs : X.NextSameKernelUs) = (Two.MedianMs - One.MedianMs) * 1000;
    }

    // Many blocks against a few (one a SM): what each further block costs.
    auto Nop = [&](unsigned Blocks) {
      unsigned Grid[3] = {Blocks, 1, 1}, Block[3] = {128, 1, 1};
      return timeIt(G, Reps, [&] { M.launch("tandem_probe_nop", Grid, Block, 0, {}); });
    };
    const unsigned Many = unsigned(Sms) * BlocksPerSm;
    Timing NopFew = Nop(unsigned(Sms)), NopMany = Nop(Many);
    X.CtaCyclesPerBlockEmpty =
        (NopMany.MedianMs - NopFew.MedianMs) * CyclesPerMs / (BlocksPerSm - 1);
    Timing TouchFew = Steps(unsigned(Sms), 128, 1), TouchMany = Steps(Many, 128, 1);
    X.CtaCyclesPerBlockTouch =
        (TouchMany.MedianMs - TouchFew.MedianMs) * CyclesPerMs / (BlocksPerSm - 1);

    X.SharedV4WarpAccessesPerSmCycle =
        sharedWarpAccessesPerSmCycle(G, M, "tandem_probe_shared_v4_tput", Reps, Sms, ClockKhz);
    X.SharedV4BroadcastWarpAccessesPerSmCycle = sharedWarpAccessesPerSmCycle(
        G, M, "tandem_probe_shared_v4_broadcast_tput", Reps, Sms, ClockKhz);

    // The source and destination read side by side, \p Items floats of
    // each a thread (N / Items threads), the sums to a buffer of their own.
    DeviceBuffer WalkSums(G, size_t(N) / 16 * 4, "walk sums");
    auto Walk = [&](const char *Kernel, uint32_t Items) {
      unsigned WalkGrid[3] = {N / Items / 256, 1, 1}, Block[3] = {256, 1, 1};
      Timing T = timeIt(G, Reps, [&] {
        M.launch(Kernel, WalkGrid, Block, 0, {Src.Ptr, Dst.Ptr, WalkSums.Ptr, Items});
      });
      return 2.0 * N * 4 / (T.MedianMs * 1e-3) / 1e9;
    };
    X.LaneWalkGbPerS = Walk("tandem_probe_lane_walk", 32);
    X.LaneWalk16GbPerS = Walk("tandem_probe_lane_walk", 16);
    X.CoalescedWalkGbPerS = Walk("tandem_probe_coalesced_walk", 32);
  } catch (const std::exception &E) {
    std::cerr << "launch probes: " << E.what() << "\n";
    G.recoverAfterFailure();
  }
  return X;
}

/// A launch-latency check between the run's phases: the touch probe's
/// single launch and its five-buffer form, timed again (the profile's
/// `launch_latency_us` and `launch_latency_5_buffers_us`), so a drift of
/// the small launches over the run shows in the results (the 2026-12-04
/// run 5 timed its small matrices about 1.3 us slower a launch than run 6,
/// while its profile, measured first, was not). Recorded, not read by the
/// model (docs/GPU.md). {"at": \p At, "error": ...} if it failed.
std::string launchCheckJson(Gpu &G, int Reps, const std::string &At) {
  std::string J = "{\"at\":" + quote(At);
  try {
    PtxModule M(G, extraProbePtx(), "the launch check");
    std::vector<DeviceBuffer> Five = touchBuffers(G, 5, "launch check words");
    Timing One = timeIt(
        G, Reps, [&] { M.launch("tandem_probe_touch", TouchGrid, TouchBlock, 0, {Five[0].Ptr}); });
    Timing T5 = timeIt(G, Reps, [&] { launchTouch5(M, Five); });
    J += ",\"launch_latency_us\":" + number(One.MedianMs * 1000) +
         ",\"launch_latency_5_buffers_us\":" + number(T5.MedianMs * 1000) +
         ",\"launch_host_us\":" + number(One.HostMedianMs * 1000);
  } catch (const std::exception &E) {
    std::cerr << "launch check (" << At << "): " << E.what() << "\n";
    J += ",\"error\":" + quote(E.what()) + recoverJson(G);
  }
  return J + "}";
}

/// The "profile" object of the results; {"error": ...} if a probe failed.
std::string measureProfile(Gpu &G, int Reps) {
  try {
    int Sms = 0, ClockKhz = 0, L2 = 0;
    G.Api.cuDeviceGetAttribute(&Sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, G.Dev);
    G.Api.cuDeviceGetAttribute(&ClockKhz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, G.Dev);
    G.Api.cuDeviceGetAttribute(&L2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, G.Dev);
    char Name[256] = {};
    G.Api.cuDeviceGetName(Name, sizeof(Name) - 1, G.Dev);
    PtxModule M(G, probePtx(), "the profile probes");
    unsigned One[3] = {1, 1, 1};

    // Launch overhead: 100 empty launches back to back.
    Timing Empty = timeIt(G, Reps, [&] {
      for (int I = 0; I < 100; ++I)
        M.launch("tandem_probe_empty", One, One, 0, {});
    });
    // Launch latency: one empty launch alone between two events, as every
    // row of the results is timed.
    Timing Single = timeIt(G, Reps, [&] { M.launch("tandem_probe_empty", One, One, 0, {}); });
    // DRAM bandwidth: copying 64M floats reads and writes 256 MiB each.
    const uint32_t N = 64u << 20;
    DeviceBuffer Src(G, size_t(N) * 4, "copy probe source"), Dst(G, size_t(N) * 4, "copy probe");
    unsigned Grid[3] = {N / 256, 1, 1}, Block[3] = {256, 1, 1};
    Timing Copy = timeIt(G, Reps, [&] {
      M.launch("tandem_probe_copy", Grid, Block, 0, {Src.Ptr, Dst.Ptr, N});
    });
    Rng R(0x70f11e);
    double L1 = chaseCycles(G, M, "tandem_probe_chase_ca", 16 << 10, 100000, R);
    double L2Near = chaseCycles(G, M, "tandem_probe_chase_cg", 4 << 20, 100000, R);
    double Dram = chaseCycles(G, M, "tandem_probe_chase_cg", size_t(512) << 20, 20000, R);
    const unsigned Iterations = 4096;
    uint64_t FmaCycles = oneThreadCycles(G, M, "tandem_probe_fma", Iterations);
    ExtraProbes Extra = measureExtraProbes(G, Reps, Sms, ClockKhz, Src, Dst, N);
    LaunchProbes Launches = measureLaunchProbes(G, Reps, Sms, ClockKhz, Src, Dst, N);
    const double CopyScalarGbPerS = 2.0 * N * 4 / (Copy.MedianMs * 1e-3) / 1e9;

    // A probe that gave no usable number (0, NaN) is left out and listed
    // as not measured: the report then uses the reference's number.
    std::vector<std::pair<std::string, double>> Numbers = {
        {"sm_count", Sms},
        {"clock_mhz", ClockKhz / 1000.0},
        {"l2_bytes", L2},
        {"launch_overhead_us", Empty.MedianMs * 1000 / 100},
        // The 16-byte copy where it ran (bulk copies reach it), else the
        // 4-byte one; both are recorded.
        {"dram_gb_per_s", Extra.Copy4GbPerS > 0 ? Extra.Copy4GbPerS : CopyScalarGbPerS},
        {"dram_copy_scalar_gb_per_s", CopyScalarGbPerS},
        {"dram_copy_vector_gb_per_s", Extra.Copy4GbPerS},
        {"fp32_tflop_per_s", Extra.Fp32TflopPerS},
        {"shared_latency_cycles", Extra.SharedCycles},
        {"l2_read_gb_per_s", Extra.L2ReadGbPerS},
        {"shared_warp_accesses_per_sm_cycle", Extra.SharedWarpAccessesPerSmCycle},
        // One launch of a kernel that touches memory, and what a second one
        // back to back adds (what the model charges a row's launches); an
        // empty launch alone is recorded beside them.
        {"launch_latency_us", Extra.TouchLaunchUs},
        {"launch_next_us", Extra.TouchNextLaunchUs},
        {"launch_latency_empty_us", Single.MedianMs * 1000},
        {"launch_latency_5_buffers_us", Extra.Touch5BuffersUs},
        {"launch_latency_8k_code_us", Extra.TouchLongCodeUs},
        {"launch_latency_chain3_us", Extra.Chain3Us},
        {"launch_latency_parallel3_us", Extra.Parallel3Us},
        // Where a small launch's time goes (launchProbePtx): the host's
        // share, a dependent L2 load inside it, and each further block.
        {"launch_host_us", Extra.TouchHostUs},
        {"small_launch_l2_step_cycles", Launches.SmallLaunchL2StepCycles},
        {"cta_cycles_per_block_empty", Launches.CtaCyclesPerBlockEmpty},
        {"cta_cycles_per_block_touch", Launches.CtaCyclesPerBlockTouch},
        // Two arrays read side by side, 32 floats of each a lane, lanes 128
        // bytes apart (spmv_merge's columns and values); 16 floats (lanes
        // 64 bytes apart: half the lines in use); the same bytes coalesced.
        {"lane_walk_gb_per_s", Launches.LaneWalkGbPerS},
        {"lane_walk_16_gb_per_s", Launches.LaneWalk16GbPerS},
        {"coalesced_walk_gb_per_s", Launches.CoalescedWalkGbPerS},
        // A second launch after one of the same kernel (as launch_next_us)
        // and after another kernel (the two-kernel rows run so).
        {"launch_next_same_kernel_us", Launches.NextSameKernelUs},
        {"launch_next_other_kernel_us", Launches.NextOtherKernelUs},
        // 16-byte shared loads, beside shared_warp_accesses_per_sm_cycle's
        // 4-byte ones: distinct vectors, and a half-warp each (sgemm's).
        {"shared_v4_warp_accesses_per_sm_cycle", Launches.SharedV4WarpAccessesPerSmCycle},
        {"shared_v4_broadcast_warp_accesses_per_sm_cycle",
         Launches.SharedV4BroadcastWarpAccessesPerSmCycle},
        {"l1_latency_cycles", L1},
        {"l2_latency_cycles", L2Near},
        {"dram_latency_cycles", Dram},
        {"fma_latency_cycles", double(FmaCycles) / (Iterations * 32.0)}};
    // l2_gb_per_s is the model's effective L2 bandwidth for gathers (tuned
    // on a SpMV, docs/GPU.md); l2_read_gb_per_s, streaming 16-byte reads, is
    // recorded beside it, not in its place.
    std::vector<std::string> NotMeasured = {"l2_gb_per_s", "l1_bytes", "max_warps_per_sm"};
    std::ostringstream S;
    S << "{\"name\":" << quote(std::string(Name) + " (measured by tandem-gpu-runner)")
      << ",\"source\":\"tandem-gpu-runner probes (gpu/Runner.cpp, measureProfile); latencies "
         "from %clock64, clock_mhz is the driver's maximum SM clock\"";
    for (const auto &[Key, Value] : Numbers) {
      if (std::isfinite(Value) && Value > 0)
        S << ",\"" << Key << "\":" << number(Value);
      else
        NotMeasured.push_back(Key);
    }
    S << ",\"not_measured\":[";
    for (size_t I = 0; I < NotMeasured.size(); ++I)
      S << (I ? "," : "") << quote(NotMeasured[I]);
    S << "]}";
    return S.str();
  } catch (const std::exception &E) {
    std::cerr << "profile probes: " << E.what() << "\n";
    return "{\"error\":" + quote(E.what()) + recoverJson(G) + "}";
  }
}

//===--- cuSPARSE -------------------------------------------------------------===//

#if TANDEM_HAVE_CUSPARSE
/// cuSPARSE's view of \p A on the device: buffers 0, 1, 2 of \p D (rowPtr,
/// colIdx, vals, as addCsrBuffers lays them out); 32-bit indices, base 0.
cusparseSpMatDescr_t csrDescriptor(const Csr &A, DeviceProblem &D) {
  cusparseSpMatDescr_t M = nullptr;
  cusparseCreateCsr(&M, int64_t(A.Rows), int64_t(A.Cols), int64_t(A.Col.size()),
                    reinterpret_cast<void *>(D.Buffers[0].Ptr),
                    reinterpret_cast<void *>(D.Buffers[1].Ptr),
                    reinterpret_cast<void *>(D.Buffers[2].Ptr), CUSPARSE_INDEX_32I,
                    CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F);
  return M;
}

/// cusparseSpMV with CSR_ALG1 and CSR_ALG2 on \p A (already on the device in
/// \p D: rowPtr, colIdx, vals, x, y = buffers 0..4).
std::string cusparseJson(Gpu &G, const Csr &A, DeviceProblem &D, int Reps) {
  cusparseHandle_t H = nullptr;
  if (cusparseCreate(&H) != CUSPARSE_STATUS_SUCCESS)
    return "{\"error\":\"cusparseCreate failed\"}";
  cusparseSpMatDescr_t M = csrDescriptor(A, D);
  cusparseDnVecDescr_t X = nullptr, Y = nullptr;
  cusparseCreateDnVec(&X, int64_t(A.Cols), reinterpret_cast<void *>(D.Buffers[3].Ptr),
                      CUDA_R_32F);
  cusparseCreateDnVec(&Y, int64_t(A.Rows), reinterpret_cast<void *>(D.Buffers[4].Ptr),
                      CUDA_R_32F);
  float Alpha = 1, Beta = 0;
  std::string Out = "{";
  const std::pair<cusparseSpMVAlg_t, const char *> Algs[] = {{CUSPARSE_SPMV_CSR_ALG1, "csr_alg1"},
                                                             {CUSPARSE_SPMV_CSR_ALG2, "csr_alg2"}};
  for (const auto &[Alg, Name] : Algs) {
    size_t Bytes = 0;
    cusparseSpMV_bufferSize(H, CUSPARSE_OPERATION_NON_TRANSPOSE, &Alpha, M, X, &Beta, Y,
                            CUDA_R_32F, Alg, &Bytes);
    DeviceBuffer Work(G, std::max<size_t>(Bytes, 4), "cuSPARSE workspace");
    void *W = reinterpret_cast<void *>(Work.Ptr);
    cusparseStatus_t St = CUSPARSE_STATUS_SUCCESS;
    Timing T = timeIt(G, Reps, [&] {
      St = cusparseSpMV(H, CUSPARSE_OPERATION_NON_TRANSPOSE, &Alpha, M, X, &Beta, Y, CUDA_R_32F,
                        Alg, W);
    });
    Out += std::string(Out.size() > 1 ? "," : "") + "\"" + Name + "\":" +
           (St == CUSPARSE_STATUS_SUCCESS ? timingJson(T)
                                          : "{\"error\":" + quote(cusparseGetErrorString(St)) +
                                                "}");
  }
  cusparseDestroyDnVec(X);
  cusparseDestroyDnVec(Y);
  cusparseDestroySpMat(M);
  cusparseDestroy(H);
  return Out + "}";
}

/// cusparseSpMM with CSR_ALG1, CSR_ALG2 and CSR_ALG3 on \p A times the
/// row-major Cols x \p N matrix B (on the device in \p D: rowPtr, colIdx,
/// vals, B, C = buffers 0..4, as spmmProblem lays them out). An algorithm
/// that refuses the layout records its error; the others are still timed.
std::string cusparseSpmmJson(Gpu &G, const Csr &A, unsigned N, DeviceProblem &D, int Reps) {
  cusparseHandle_t H = nullptr;
  if (cusparseCreate(&H) != CUSPARSE_STATUS_SUCCESS)
    return "{\"error\":\"cusparseCreate failed\"}";
  cusparseSpMatDescr_t M = csrDescriptor(A, D);
  cusparseDnMatDescr_t B = nullptr, C = nullptr;
  cusparseCreateDnMat(&B, int64_t(A.Cols), int64_t(N), int64_t(N),
                      reinterpret_cast<void *>(D.Buffers[3].Ptr), CUDA_R_32F, CUSPARSE_ORDER_ROW);
  cusparseCreateDnMat(&C, int64_t(A.Rows), int64_t(N), int64_t(N),
                      reinterpret_cast<void *>(D.Buffers[4].Ptr), CUDA_R_32F, CUSPARSE_ORDER_ROW);
  float Alpha = 1, Beta = 0;
  std::string Out = "{";
  const std::pair<cusparseSpMMAlg_t, const char *> Algs[] = {{CUSPARSE_SPMM_CSR_ALG1, "csr_alg1"},
                                                             {CUSPARSE_SPMM_CSR_ALG2, "csr_alg2"},
                                                             {CUSPARSE_SPMM_CSR_ALG3, "csr_alg3"}};
  const cusparseOperation_t Op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  for (const auto &[Alg, Name] : Algs) {
    size_t Bytes = 0;
    cusparseStatus_t St =
        cusparseSpMM_bufferSize(H, Op, Op, &Alpha, M, B, &Beta, C, CUDA_R_32F, Alg, &Bytes);
    std::string Entry;
    if (St == CUSPARSE_STATUS_SUCCESS) {
      DeviceBuffer Work(G, std::max<size_t>(Bytes, 4), "cuSPARSE workspace");
      void *W = reinterpret_cast<void *>(Work.Ptr);
      Timing T = timeIt(G, Reps, [&] {
        cusparseStatus_t Run = cusparseSpMM(H, Op, Op, &Alpha, M, B, &Beta, C, CUDA_R_32F, Alg, W);
        if (Run != CUSPARSE_STATUS_SUCCESS)
          St = Run;
      });
      if (St == CUSPARSE_STATUS_SUCCESS)
        Entry = timingJson(T);
    }
    if (Entry.empty())
      Entry = "{\"error\":" + quote(cusparseGetErrorString(St)) + "}";
    Out += std::string(Out.size() > 1 ? "," : "") + "\"" + Name + "\":" + Entry;
  }
  cusparseDestroyDnMat(B);
  cusparseDestroyDnMat(C);
  cusparseDestroySpMat(M);
  cusparseDestroy(H);
  return Out + "}";
}
#endif

//===--- The run --------------------------------------------------------------===//

struct Options {
  std::string Bundle, NvccDir, Out;
  int Reps = 25;
  std::vector<std::string> Only;
  bool Timing = true;
  double BudgetS = 0; ///< > 0: start no timing problem after this many seconds
  bool Counters = false; ///< one profiled launch after each timing (--counters)
};

/// --counters: the launches a profiler started with --profile-from-start off
/// sees, marked with the driver's cuProfilerStart/cuProfilerStop (in the
/// driver library, though not in CudaDriverApi.h: only this mode needs
/// them). Counts them, since ncu numbers its results in that order.
class ProfiledLaunches {
public:
  explicit ProfiledLaunches(Gpu &G) : G(G) {
    Start = reinterpret_cast<RangeFn>(dlsym(G.Api.Library, "cuProfilerStart"));
    Stop = reinterpret_cast<RangeFn>(dlsym(G.Api.Library, "cuProfilerStop"));
    if (!Start || !Stop)
      throw std::runtime_error("--counters: the driver library '" + G.Api.LibraryName +
                               "' exports no cuProfilerStart/cuProfilerStop");
  }
  /// Runs \p D's launches once inside a profiler range; returns where
  /// their results are: {"first_id": ncu's ID of the first, "kernels": how
  /// many, "kernel_names": [...]}.
  std::string record(DeviceProblem &D, PtxModule &M, const Problem &P) {
    G.check(G.Api.cuCtxSynchronize(), "cuCtxSynchronize", "before a profiled launch");
    const size_t First = Next;
    // Counted before they run: should one fail, ncu may still hold results
    // for some of them, and the IDs after must not slide (the kernel names
    // are there to check the pairing).
    Next += P.Launches.size();
    G.check(Start(), "cuProfilerStart", P.Name);
    try {
      D.launchAll(M);
      G.check(G.Api.cuCtxSynchronize(), "cuCtxSynchronize", "a profiled launch");
    } catch (...) {
      Stop();
      throw;
    }
    G.check(Stop(), "cuProfilerStop", P.Name);
    std::string Names;
    for (const Launch &L : P.Launches)
      Names += (Names.empty() ? "" : ",") + quote(L.Kernel);
    return "{\"first_id\":" + std::to_string(First) +
           ",\"kernels\":" + std::to_string(P.Launches.size()) + ",\"kernel_names\":[" + Names +
           "]}";
  }

private:
  using RangeFn = CUresult (*)();
  Gpu &G;
  RangeFn Start = nullptr, Stop = nullptr;
  size_t Next = 0;
};

const char *const VariantNames[] = {"ours", "nvcc", "llc"};

std::string nvidiaSmi() {
  std::string Text;
  if (FILE *P = popen("nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,"
                      "clocks.max.sm,temperature.gpu,power.draw,pstate --format=csv,noheader "
                      "2>/dev/null",
                      "r")) {
    char Buf[512];
    while (fgets(Buf, sizeof(Buf), P))
      Text += Buf;
    pclose(P);
  }
  while (!Text.empty() && (Text.back() == '\n' || Text.back() == '\r'))
    Text.pop_back();
  return Text.empty() ? "nvidia-smi not available" : Text;
}

/// Each variant's PTX text for \p Case (empty where the file is missing).
std::vector<std::string> variantPtx(const Options &O, const Json &C) {
  std::vector<std::string> Ptx(3);
  const Json &V = C["variants"];
  Ptx[0] = readFile(O.Bundle + "/" + V["ours"].S);
  std::string Nvcc = O.NvccDir + "/" + C["name"].S + "/nvcc.ptx";
  if (!O.NvccDir.empty() && fileExists(Nvcc))
    Ptx[1] = readFile(Nvcc);
  if (V.has("llc"))
    Ptx[2] = readFile(O.Bundle + "/" + V["llc"].S);
  return Ptx;
}

/// Seconds since the runner started, for --budget-s.
class Stopwatch {
public:
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  }

private:
  std::chrono::steady_clock::time_point Start = std::chrono::steady_clock::now();
};

int run(const Options &O) {
  Stopwatch Clock;
  Json Manifest = JsonParser(readFile(O.Bundle + "/manifest.json")).parse();
  Gpu G;
  std::string Why;
  if (!G.open(Why)) {
    std::cerr << "tandem-gpu-runner: no GPU: " << Why << "\n";
    return 3;
  }
  std::ostringstream Header;
  Header << "\"gpu\":" << G.infoJson() << ",\"nvidia_smi_before\":" << quote(nvidiaSmi())
         << ",\"reps\":" << O.Reps;
  if (O.BudgetS > 0)
    Header << ",\"budget_s\":" << number(O.BudgetS);
  std::unique_ptr<ProfiledLaunches> Profiled;
  if (O.Counters) {
    Profiled = std::make_unique<ProfiledLaunches>(G);
    Header << ",\"counters_run\":true";
  } else if (O.Timing) {
    Header << ",\"profile\":" << measureProfile(G, O.Reps);
  }
  ResultsFile Results(O.Out, Header.str());
  bool AllCorrect = true;
  auto Wanted = [&](const std::string &Name) {
    return O.Only.empty() || std::find(O.Only.begin(), O.Only.end(), Name) != O.Only.end();
  };
  // The budget bounds the timing of phases 2 (large) and 3 only: every
  // case's correctness is always checked, it is what the check is for.
  auto OverBudget = [&] { return O.BudgetS > 0 && Clock.seconds() > O.BudgetS; };
  auto BudgetNote = [&](const std::string &What) {
    char Spent[64];
    std::snprintf(Spent, sizeof Spent, "%.0f s of the %.0f s budget", Clock.seconds(), O.BudgetS);
    Results.addSkipped(What + ": not run: " + Spent + " were spent (--budget-s)");
    std::cerr << "skipped " << What << ": over the time budget\n";
  };

  // 1 + 2: every case's own problem, each variant checked and timed.
  for (const Json &C : Manifest["cases"].A) {
    const std::string Name = C["name"].S;
    if (!Wanted(Name))
      continue;
    Results.writeProgress("case " + Name);
    std::ostringstream J;
    J << "{\"name\":" << quote(Name);
    try {
      Problem P = problemFromManifest(C, O.Bundle);
      std::vector<std::string> Ptx = variantPtx(O, C);
      J << ",\"size\":" << quote(P.Size) << ",\"variants\":{";
      bool FirstVariant = true;
      for (int V = 0; V < 3; ++V) {
        if (Ptx[V].empty() || (Profiled && V == 2))
          continue;
        J << (FirstVariant ? "" : ",") << "\"" << VariantNames[V] << "\":{";
        FirstVariant = false;
        try {
          PtxModule M(G, Ptx[V], Name + "/" + VariantNames[V]);
          for (const auto &[Symbol, Words] : P.Symbols)
            M.writeSymbol(Symbol, Words);
          DeviceProblem D(G, P);
          D.launchAll(M);
          G.check(G.Api.cuCtxSynchronize(), "cuCtxSynchronize", Name + " " + VariantNames[V]);
          CheckResult CR = checkOutputs(D, P);
          if (V == 0 && !CR.Passed)
            AllCorrect = false;
          J << "\"correct\":" << (CR.Passed ? "true" : "false")
            << ",\"mismatches\":" << CR.Mismatches << ",\"max_rel_error\":"
            << number(CR.MaxRelError) << ",\"message\":" << quote(CR.Message);
          if (O.Timing) {
            Timing T = timeIt(G, O.Reps, [&] { D.launchAll(M); });
            J << ",\"time\":" << timingJson(T);
            if (Profiled)
              J << ",\"counters\":" << Profiled->record(D, M, P);
          }
        } catch (const std::exception &E) {
          if (V == 0)
            AllCorrect = false;
          std::cerr << Name << " (" << VariantNames[V] << "): " << E.what() << "\n";
          J << "\"correct\":false,\"error\":" << quote(E.what()) << recoverJson(G);
        }
        J << "}";
      }
      J << "}";
    } catch (const std::exception &E) {
      AllCorrect = false;
      std::cerr << Name << ": " << E.what() << "\n";
      J << ",\"error\":" << quote(E.what()) << recoverJson(G);
    }
    J << "}";
    Results.addCase(J.str());
  }

  // 2 (large) + 3: the timing specs and the matrices.
  Rng Random(0x5eed);
  const unsigned SpmmColumns =
      Manifest.has("spmm_columns") ? unsigned(Manifest["spmm_columns"].integer()) : 0;
  auto TimeProblem = [&](const Problem &P, const Json &Case, const std::string &Label,
                         const Csr *Matrix, const std::string &MatrixName) {
    std::string What = P.Name + " " + Label;
    if (OverBudget())
      return BudgetNote(What);
    Results.writeProgress("timing " + What);
    std::ostringstream J;
    J << "{\"case\":" << quote(P.Name) << ",\"size\":" << quote(Label);
    if (Matrix)
      J << ",\"matrix\":" << quote(MatrixName) << ",\"matrix_shape\":" << matrixShapeJson(*Matrix);
    if (P.Name == SpmmKernel)
      J << ",\"dense_columns\":" << SpmmColumns;
    std::vector<std::string> Ptx = variantPtx(O, Case);
    std::vector<std::vector<uint32_t>> Outputs(3);
    size_t OutIndex = 0;
    for (size_t I = 0; I < P.Buffers.size(); ++I)
      if (P.Buffers[I].Role != "in") {
        OutIndex = I;
        break;
      }
    bool FloatOut = P.Buffers[OutIndex].Type == "f32";
    J << ",\"variants\":{";
    bool FirstVariant = true;
    std::unique_ptr<DeviceProblem> Keep; // for cuSPARSE, on the same buffers
    for (int V : {1, 0, 2}) { // nvcc first: the others are compared with it
      if (Ptx[V].empty() || (Profiled && V == 2))
        continue;
      J << (FirstVariant ? "" : ",") << "\"" << VariantNames[V] << "\":";
      FirstVariant = false;
      try {
        PtxModule M(G, Ptx[V], P.Name + "/" + VariantNames[V]);
        auto D = std::make_unique<DeviceProblem>(G, P);
        D->launchAll(M);
        G.check(G.Api.cuCtxSynchronize(), "cuCtxSynchronize", P.Name);
        Outputs[V] = D->read(OutIndex, false);
        Timing T = timeIt(G, O.Reps, [&] { D->launchAll(M); });
        J << "{\"time\":" << timingJson(T);
        if (Profiled)
          J << ",\"counters\":" << Profiled->record(*D, M, P);
        if (V != 1 && !Outputs[1].empty())
          J << ",\"max_rel_diff_vs_nvcc\":"
            << number(maxRelDifference(Outputs[V], Outputs[1], FloatOut));
        J << "}";
        if (V == 0)
          Keep = std::move(D);
      } catch (const std::exception &E) {
        std::cerr << P.Name << " " << Label << " (" << VariantNames[V] << "): " << E.what()
                  << "\n";
        J << "{\"error\":" << quote(E.what()) << recoverJson(G) << "}";
      }
    }
    J << "}";
#if TANDEM_HAVE_CUSPARSE
    // On our kernel's buffers, unless a later variant's fault reset the
    // context and took them with it.
    bool Sparse = Matrix && (P.Name == "spmv_scalar" || P.Name == SpmmKernel) && !Profiled;
    if (Sparse && Keep && Keep->alive()) {
      try {
        J << ",\"cusparse\":"
          << (P.Name == SpmmKernel ? cusparseSpmmJson(G, *Matrix, SpmmColumns, *Keep, O.Reps)
                                   : cusparseJson(G, *Matrix, *Keep, O.Reps));
      } catch (const std::exception &E) {
        std::cerr << P.Name << " " << Label << " (cuSPARSE): " << E.what() << "\n";
        J << ",\"cusparse\":{\"error\":" << quote(E.what()) << recoverJson(G) << "}";
      }
    } else if (Sparse) {
      J << ",\"cusparse\":{\"error\":\"not run: our kernel's buffers are gone (it failed, or a "
           "later variant's fault reset the context)\"}";
    }
#else
    (void)Matrix;
    if (Matrix)
      J << ",\"cusparse\":\"not built (no cuSPARSE where the runner was built)\"";
#endif
    J << "}";
    Results.addTiming(J.str());
  };
  auto CaseJson = [&](const std::string &Name) -> const Json * {
    for (const Json &C : Manifest["cases"].A)
      if (C["name"].S == Name)
        return &C;
    return nullptr;
  };
  // Our three CSR SpMV kernels, and cuSPARSE (on spmv_scalar's buffers), on
  // one matrix, then SpMM against cuSPARSE's SpMM where the bundle names its
  // columns and the matrix fits one launch: the summary compares them per
  // matrix.
  auto TimeSparse = [&](const Csr &A, const std::string &MatrixName, const std::string &Kind) {
    std::string Label =
        Kind + " " + std::to_string(A.Rows) + "r " + std::to_string(A.Col.size()) + "nz";
    for (const char *K : SpmvKernels) {
      const char *CaseName = std::string(K) == "spmv_merge" ? "spmv_balanced" : K;
      const Json *C = CaseJson(CaseName);
      if (!C || !Wanted(CaseName))
        continue;
      Problem P = spmvProblem(K, A, Random);
      P.Name = K;
      TimeProblem(P, *C, Label, &A, MatrixName);
    }
    const Json *C = CaseJson(SpmmCase);
    if (!C || !Wanted(SpmmCase))
      return;
    std::string Why = SpmmColumns ? spmm::unfit(A.Rows, A.Cols, SpmmColumns)
                                  : "the bundle names no spmm_columns (exported before SpMM "
                                    "timings: export it again)";
    if (!Why.empty()) {
      Results.addSkipped(std::string(SpmmKernel) + " on '" + MatrixName + "': not run: " + Why);
      std::cerr << SpmmKernel << " on '" << MatrixName << "': not run: " << Why << "\n";
      return;
    }
    TimeProblem(spmmProblem(A, SpmmColumns, Random), *C, Label, &A, MatrixName);
  };
  // Cheapest first, so a budget spends itself on the costliest: the large
  // dense problems (the ours/nvcc table), the real matrices (small), then
  // the synthetic matrices (a 4M-row one takes seconds to generate and
  // copy).
  auto TimeSpecs = [&](bool Synthetic) {
    std::vector<std::string> SyntheticDone;
    for (const Json &S : Manifest["timing"].A) {
      const Json *C = CaseJson(S["case"].S);
      if (!C || !Wanted(S["case"].S) || (S["generator"].S == "csr") != Synthetic)
        continue;
      try {
        if (Synthetic) { // each distinct matrix once, every kernel
          std::string Name = syntheticName(S);
          if (std::find(SyntheticDone.begin(), SyntheticDone.end(), Name) != SyntheticDone.end())
            continue;
          SyntheticDone.push_back(Name);
          if (OverBudget()) { // before generating it
            BudgetNote("every kernel on '" + Name + "'");
            continue;
          }
          Results.writeProgress("generating '" + Name + "'");
          Csr A = syntheticMatrix(S);
          TimeSparse(A, Name, S["matrix"].S);
          continue;
        }
        std::string Label;
        Problem P = timingProblem(S, Random, Label);
        TimeProblem(P, *C, Label, nullptr, "");
      } catch (const std::exception &E) {
        std::cerr << "timing " << S["case"].S << ": " << E.what() << "\n";
        G.recoverAfterFailure();
      }
    }
  };
  auto TimeRealMatrices = [&] {
    for (const Json &F : Manifest["matrices"].A) {
      std::string Base = F.S.substr(F.S.find_last_of('/') + 1);
      if (OverBudget()) {
        BudgetNote("every kernel on '" + Base + "'");
        continue;
      }
      try {
        Results.writeProgress("reading '" + Base + "'");
        Csr A = readMatrixMarket(O.Bundle + "/" + F.S);
        TimeSparse(A, Base, Base);
      } catch (const std::exception &E) {
        std::cerr << F.S << ": " << E.what() << "\n";
        G.recoverAfterFailure();
      }
    }
  };
  if (O.Timing) {
    // The launch checks (not in a counters run: ncu's overhead is in its
    // times) before each phase and after the last.
    auto Check = [&](const char *At) {
      if (!Profiled)
        Results.addLaunchCheck(launchCheckJson(G, O.Reps, At));
    };
    Check("before the large problems");
    TimeSpecs(/*Synthetic=*/false);
    Check("before the matrices");
    TimeRealMatrices();
    Check("before the synthetic matrices");
    TimeSpecs(/*Synthetic=*/true);
    Check("at the end");
  }
  RunSummary Summary = Results.writeFinal(nvidiaSmi(), AllCorrect);
  std::cout << "results: " << O.Out << "\n";
  std::fflush(stdout);
  printSummary(Summary, stdout);
  std::printf("correctness (ours, every suite case): %s\n", AllCorrect ? "PASS" : "FAIL");
  return AllCorrect ? 0 : 1;
}

/// --summarize: the table of a results file, finished or not (a run
/// stopped from outside leaves one with "complete": false).
int summarize(const std::string &Path) {
  Json R = JsonParser(readFile(Path)).parse();
  printSummary(summarizeResults(R), stdout);
  if (R.has("complete") && R["complete"].K == Json::Kind::Bool && !R["complete"].B) {
    std::printf("incomplete: the run was stopped at %s\n",
                R.has("stopped_at") ? R["stopped_at"].S.c_str() : "an unknown point");
    return 1;
  }
  bool AllCorrect =
      R.has("all_correct") && R["all_correct"].K == Json::Kind::Bool && R["all_correct"].B;
  std::printf("correctness (ours, every suite case): %s\n", AllCorrect ? "PASS" : "FAIL");
  return AllCorrect ? 0 : 1;
}

const char *const Usage =
    "usage: tandem-gpu-runner BUNDLE --out RESULTS.json [--nvcc-dir DIR] [--reps N] "
    "[--only CASE]... [--skip-timing] [--budget-s SECONDS] [--counters]\n"
    "       tandem-gpu-runner --summarize RESULTS.json\n"
    "       tandem-gpu-runner --write-probe-ptx DIR\n";

} // namespace

int main(int Argc, char **Argv) {
  Options O;
  std::string Summarize;
  for (int I = 1; I < Argc; ++I) {
    std::string A = Argv[I];
    auto Next = [&]() -> std::string {
      if (I + 1 >= Argc)
        throw std::runtime_error(A + " needs a value");
      return Argv[++I];
    };
    try {
      if (A == "--nvcc-dir")
        O.NvccDir = Next();
      else if (A == "--out")
        O.Out = Next();
      else if (A == "--reps")
        O.Reps = std::max(20, std::stoi(Next()));
      else if (A == "--only")
        O.Only.push_back(Next());
      else if (A == "--skip-timing")
        O.Timing = false;
      else if (A == "--counters")
        O.Counters = true;
      else if (A == "--budget-s") {
        std::string V = Next();
        char *End = nullptr;
        O.BudgetS = std::strtod(V.c_str(), &End);
        if (V.empty() || *End != '\0' || !(O.BudgetS >= 0))
          throw std::runtime_error("--budget-s wants seconds >= 0, not '" + V + "'");
      } else if (A == "--summarize")
        Summarize = Next();
      else if (A == "--write-probe-ptx") {
        std::string Dir = Next();
        std::ofstream(Dir + "/probes.ptx") << probePtx();
        std::ofstream(Dir + "/extra-probes.ptx") << extraProbePtx();
        std::ofstream(Dir + "/launch-probes.ptx") << launchProbePtx();
        return std::ifstream(Dir + "/launch-probes.ptx") ? 0 : 1;
      }
      else if (A.rfind("-", 0) == 0 || !O.Bundle.empty())
        throw std::runtime_error("unexpected argument '" + A + "'");
      else
        O.Bundle = A;
    } catch (const std::exception &E) {
      std::cerr << "tandem-gpu-runner: " << E.what() << "\n" << Usage;
      return 2;
    }
  }
  try {
    if (!Summarize.empty())
      return summarize(Summarize);
    if (O.Bundle.empty() || O.Out.empty()) {
      std::cerr << Usage;
      return 2;
    }
    return run(O);
  } catch (const std::exception &E) {
    std::cerr << "tandem-gpu-runner: " << E.what() << "\n";
    return 1;
  }
}
