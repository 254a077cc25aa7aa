//===- FakeCudaDriver.cpp - A fake libcuda for the gpu device's tests -----===//
//
// A shared library exporting the cu* functions runtime/CudaDriverApi.h binds,
// with canned behaviour, so GpuDeviceTest exercises the gpu device's whole
// call sequence and its error paths on a machine with no GPU:
//
//  - "device memory" is host memory (malloc), so copies are memcpy and the
//    test can check that handles were translated to real addresses;
//  - a module is the PTX text itself: its .entry signatures are parsed with
//    the same PtxEntry.h the device uses, which gives each parameter's size;
//  - kernels named vadd (a, b, c, n) really run, on the host, so packing,
//    pointer translation and the copies are checked end to end;
//  - PTX containing FAKE_JIT_ERROR fails to load with a canned JIT log; a
//    kernel named fail_launch fails at cuLaunchKernel, fault_async at
//    cuEventSynchronize (as a real fault does, after the launch returned);
//  - a kernel named fault_sticky faults as a real illegal address does: the
//    context is unusable until cuDevicePrimaryCtxReset, every launch, load,
//    allocation, copy and synchronization failing with the fault;
//  - module-scope .global/.const variables get zeroed host memory of the
//    declared size (`.TYPE NAME[N]` or `.TYPE NAME`) from cuModuleGetGlobal,
//    freed with the module; a kernel named bump_counter (no parameters)
//    adds 1 to the 4-byte variable 'counter';
//  - cuProfilerStart/cuProfilerStop (the runner's --counters) refuse to
//    nest, and a range with no launch in it fails at its stop: the runner
//    must wrap exactly its profiled launches;
//  - fake_cuda_* functions let the test set the device count and read the
//    last launch back.
//
//===----------------------------------------------------------------------===//

#include "../../runtime/PtxEntry.h"

#include <cstdlib>
#include <deque>
#include <map>
#include <regex>
#include <cstring>
#include <string>
#include <vector>

namespace {

using CUresult = int;
constexpr CUresult Ok = 0, InvalidValue = 1, NotInitialized = 3, InvalidPtx = 218,
                   NotFound = 500, IllegalAddress = 700, LaunchFailed = 719;

struct Module;
struct Function {
  Module *M;
  const tandem::ptx::PtxEntry *Entry;
};
// As in the real driver, a module owns its function handles: they die with
// cuModuleUnload.
struct Module {
  std::string Ptx;
  std::vector<tandem::ptx::PtxEntry> Entries;
  std::deque<Function> Functions;
  std::map<std::string, std::vector<unsigned char>> Globals; ///< made on first lookup
};

/// The bytes the declaration of \p Name in \p Ptx says: element size x count.
size_t declaredBytes(const std::string &Ptx, const std::string &Name) {
  std::smatch M;
  std::regex Decl("\\.(global|const)[^;=]*\\.([busf])(8|16|32|64)\\s+" + Name +
                  "(\\[(\\d+)\\])?\\s*[;=]");
  if (!std::regex_search(Ptx, M, Decl))
    return 0;
  size_t Elem = std::stoul(M[3]) / 8;
  return M[5].matched ? Elem * std::stoul(M[5]) : Elem;
}
Module *LastModule = nullptr; ///< for bump_counter

struct State {
  bool Initialized = false;
  int DeviceCount = 1;
  int Launches = 0;
  unsigned LastDims[6] = {};
  unsigned LastShared = 0;
  std::vector<unsigned char> LastParams; // each parameter's bytes, in order
  CUresult PendingFault = Ok;
  CUresult Sticky = Ok; ///< set by fault_sticky, cleared by a context reset
  int Resets = 0;
  int LiveAllocations = 0;
  bool Profiling = false;   ///< inside cuProfilerStart/cuProfilerStop
  int ProfiledLaunches = 0; ///< launches in the open range
} S;

void runVadd(const std::vector<unsigned long long> &P, unsigned long long Threads) {
  auto *A = reinterpret_cast<const float *>(P[0]);
  auto *B = reinterpret_cast<const float *>(P[1]);
  auto *C = reinterpret_cast<float *>(P[2]);
  unsigned long long N = P[3];
  for (unsigned long long I = 0; I < N && I < Threads; ++I)
    C[I] = A[I] + B[I];
}

} // namespace

extern "C" {

// The test's controls.
void fake_cuda_set_device_count(int N) { S.DeviceCount = N; }
int fake_cuda_launches() { return S.Launches; }
int fake_cuda_live_allocations() { return S.LiveAllocations; }
int fake_cuda_resets() { return S.Resets; }
void fake_cuda_last_launch(unsigned Dims[6], unsigned *Shared, unsigned char *Params,
                           size_t *ParamBytes) {
  std::memcpy(Dims, S.LastDims, sizeof(S.LastDims));
  *Shared = S.LastShared;
  std::memcpy(Params, S.LastParams.data(), S.LastParams.size());
  *ParamBytes = S.LastParams.size();
}

CUresult cuInit(unsigned) {
  S.Initialized = true;
  return Ok;
}
CUresult cuDriverGetVersion(int *V) {
  *V = 13000;
  return Ok;
}
CUresult cuDeviceGetCount(int *N) {
  *N = S.DeviceCount;
  return S.Initialized ? Ok : NotInitialized;
}
CUresult cuDeviceGet(int *Dev, int Ordinal) {
  if (Ordinal >= S.DeviceCount)
    return InvalidValue;
  *Dev = Ordinal;
  return Ok;
}
CUresult cuDeviceGetName(char *Name, int Len, int) {
  std::strncpy(Name, "Fake H200", size_t(Len));
  return Ok;
}
CUresult cuDeviceGetAttribute(int *V, int Attr, int) {
  *V = Attr == 13 ? 1980000 : Attr == 16 ? 132 : Attr == 75 ? 9 : 1;
  return Ok;
}
CUresult cuDevicePrimaryCtxRetain(void **Ctx, int) {
  static int Context;
  *Ctx = &Context;
  return Ok;
}
CUresult cuDevicePrimaryCtxRelease_v2(int) { return Ok; }
CUresult cuDevicePrimaryCtxReset_v2(int) {
  S.Sticky = Ok; // what the context held is gone (the fake leaks it)
  ++S.Resets;
  return Ok;
}
CUresult cuCtxSetCurrent(void *) { return Ok; }
CUresult cuCtxSynchronize() { return S.Sticky; }

CUresult cuModuleLoadDataEx(void **Out, const void *Image, unsigned NumOptions, int *Options,
                            void **Values) {
  if (S.Sticky)
    return S.Sticky;
  std::string Ptx = static_cast<const char *>(Image);
  if (Ptx.find("FAKE_JIT_ERROR") != std::string::npos) {
    for (unsigned I = 0; I < NumOptions; ++I) {
      const char *Log = Options[I] == 5   ? "ptxas application ptx input, line 7; error   : "
                                            "Unknown symbol 'FAKE_JIT_ERROR'"
                        : Options[I] == 3 ? "ptxas info    : 0 bytes gmem"
                                          : nullptr;
      if (Log)
        std::strncpy(static_cast<char *>(Values[I]), Log,
                     reinterpret_cast<size_t>(Values[I + 1]));
    }
    return InvalidPtx;
  }
  auto *M = new Module{Ptx, {}, {}, {}};
  std::string Why;
  if (!tandem::ptx::parsePtxEntries(Ptx, M->Entries, Why)) {
    delete M;
    return InvalidPtx;
  }
  *Out = M;
  LastModule = M;
  return Ok;
}
CUresult cuModuleUnload(void *M) {
  if (LastModule == M)
    LastModule = nullptr;
  delete static_cast<Module *>(M);
  return Ok;
}
CUresult cuModuleGetGlobal_v2(unsigned long long *Ptr, size_t *Bytes, void *Mod,
                              const char *Name) {
  auto *M = static_cast<Module *>(Mod);
  auto It = M->Globals.find(Name);
  if (It == M->Globals.end()) {
    size_t N = declaredBytes(M->Ptx, Name);
    if (N == 0)
      return NotFound;
    It = M->Globals.emplace(Name, std::vector<unsigned char>(N, 0)).first;
  }
  *Ptr = reinterpret_cast<unsigned long long>(It->second.data());
  *Bytes = It->second.size();
  return Ok;
}
CUresult cuModuleGetFunction(void **Fn, void *Mod, const char *Name) {
  auto *M = static_cast<Module *>(Mod);
  const tandem::ptx::PtxEntry *E = tandem::ptx::findEntry(M->Entries, Name);
  if (!E)
    return NotFound;
  *Fn = &M->Functions.emplace_back(Function{M, E});
  return Ok;
}
CUresult cuFuncSetAttribute(void *, int, int) { return Ok; }

CUresult cuMemAlloc_v2(unsigned long long *P, size_t Bytes) {
  if (S.Sticky)
    return S.Sticky;
  *P = reinterpret_cast<unsigned long long>(std::calloc(Bytes, 1));
  ++S.LiveAllocations;
  return *P ? Ok : InvalidValue;
}
CUresult cuMemFree_v2(unsigned long long P) {
  std::free(reinterpret_cast<void *>(P));
  --S.LiveAllocations;
  return Ok;
}
CUresult cuMemcpyHtoD_v2(unsigned long long Dst, const void *Src, size_t Bytes) {
  if (S.Sticky)
    return S.Sticky;
  std::memcpy(reinterpret_cast<void *>(Dst), Src, Bytes);
  return Ok;
}
CUresult cuMemcpyDtoH_v2(void *Dst, unsigned long long Src, size_t Bytes) {
  if (S.Sticky)
    return S.Sticky;
  std::memcpy(Dst, reinterpret_cast<const void *>(Src), Bytes);
  return Ok;
}
CUresult cuMemsetD32_v2(unsigned long long Dst, unsigned V, size_t Words) {
  for (size_t I = 0; I < Words; ++I)
    std::memcpy(reinterpret_cast<char *>(Dst) + 4 * I, &V, 4);
  return Ok;
}

CUresult cuLaunchKernel(void *Fn, unsigned Gx, unsigned Gy, unsigned Gz, unsigned Bx,
                        unsigned By, unsigned Bz, unsigned Shared, void *, void **Params,
                        void **) {
  auto *F = static_cast<Function *>(Fn);
  if (S.Sticky)
    return S.Sticky;
  if (F->Entry->Name == "fail_launch")
    return LaunchFailed;
  if (F->Entry->Name == "fault_sticky") {
    S.Sticky = IllegalAddress;
    return Ok; // as a real launch does: the fault shows at the next call
  }
  ++S.Launches;
  if (S.Profiling)
    ++S.ProfiledLaunches;
  unsigned Dims[6] = {Gx, Gy, Gz, Bx, By, Bz};
  std::memcpy(S.LastDims, Dims, sizeof(Dims));
  S.LastShared = Shared;
  S.LastParams.clear();
  std::vector<unsigned long long> Values;
  for (size_t I = 0; I < F->Entry->Params.size(); ++I) {
    unsigned Bytes = F->Entry->Params[I].bytes();
    auto *P = static_cast<const unsigned char *>(Params[I]);
    S.LastParams.insert(S.LastParams.end(), P, P + Bytes);
    unsigned long long V = 0;
    std::memcpy(&V, P, Bytes < 8 ? Bytes : 8);
    Values.push_back(V);
  }
  if (F->Entry->Name == "vadd" && Values.size() == 4)
    runVadd(Values, (unsigned long long)Gx * Gy * Gz * Bx * By * Bz);
  if (F->Entry->Name == "bump_counter" && LastModule) {
    auto It = LastModule->Globals.find("counter");
    if (It != LastModule->Globals.end() && It->second.size() == 4) {
      unsigned V;
      std::memcpy(&V, It->second.data(), 4);
      ++V;
      std::memcpy(It->second.data(), &V, 4);
    }
  }
  if (F->Entry->Name == "fault_async")
    S.PendingFault = IllegalAddress;
  return Ok;
}

CUresult cuEventCreate(void **E, unsigned) {
  *E = std::malloc(1);
  return Ok;
}
CUresult cuEventDestroy_v2(void *E) {
  std::free(E);
  return Ok;
}
CUresult cuEventRecord(void *, void *) { return Ok; }
CUresult cuEventSynchronize(void *) {
  if (S.Sticky)
    return S.Sticky;
  CUresult R = S.PendingFault;
  S.PendingFault = Ok;
  return R;
}
CUresult cuEventElapsedTime_v2(float *Ms, void *, void *) {
  *Ms = 1.25f;
  return Ok;
}

CUresult cuProfilerStart() {
  if (S.Profiling)
    return InvalidValue;
  S.Profiling = true;
  S.ProfiledLaunches = 0;
  return Ok;
}
CUresult cuProfilerStop() {
  bool WasOpen = S.Profiling;
  S.Profiling = false;
  return WasOpen && S.ProfiledLaunches > 0 ? Ok : InvalidValue;
}

CUresult cuGetErrorName(CUresult R, const char **Name) {
  switch (R) {
  case InvalidPtx: *Name = "CUDA_ERROR_INVALID_PTX"; return Ok;
  case IllegalAddress: *Name = "CUDA_ERROR_ILLEGAL_ADDRESS"; return Ok;
  case LaunchFailed: *Name = "CUDA_ERROR_LAUNCH_FAILED"; return Ok;
  case NotFound: *Name = "CUDA_ERROR_NOT_FOUND"; return Ok;
  default: *Name = nullptr; return InvalidValue;
  }
}
CUresult cuGetErrorString(CUresult R, const char **Text) {
  switch (R) {
  case InvalidPtx: *Text = "a PTX JIT compilation failed"; return Ok;
  case IllegalAddress: *Text = "an illegal memory access was encountered"; return Ok;
  case LaunchFailed: *Text = "unspecified launch failure"; return Ok;
  case NotFound: *Text = "named symbol not found"; return Ok;
  default: *Text = nullptr; return InvalidValue;
  }
}

} // extern "C"
