//===- CudaDriverApi.h - The CUDA driver API, loaded at run time -*- C++ -*-===//
//
// The few CUDA driver types, constants and functions Tandem uses, declared
// here rather than taken from <cuda.h>, and bound with dlopen/dlsym, so that
// every binary builds with no CUDA Toolkit and runs with no driver (it then
// reports what it looked for instead of failing to start).
//
// Shared, unchanged, by the `gpu` device (runtime/GpuDevice.cpp, linked into
// tandem) and by the standalone runner of the lent GPU machine (gpu/), which
// has no LLVM: so this header is plain C++17 and header-only. gpu/ApiCheck.cpp
// compares every constant and signature here with the real <cuda.h> where a
// toolkit exists (scripts/gpu-check.sh builds it), so the two cannot drift.
//
// Contexts: both users take the device's primary context
// (cuDevicePrimaryCtxRetain) rather than cuCtxCreate: the runner times
// cuSPARSE, which runs in the CUDA runtime's context, that is, the primary
// one, on the same buffers; and CUDA 13's <cuda.h> maps cuCtxCreate to
// cuCtxCreate_v4 with a parameter struct, a signature older drivers lack.
//
// Versioned symbols: <cuda.h> maps cuMemAlloc to cuMemAlloc_v2 and so on; we
// look up those exported names (the ABI the driver keeps), falling back to
// the unversioned name where older drivers export only that.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <dlfcn.h>

#include <cstddef>
#include <cstdlib>
#include <initializer_list>
#include <string>

namespace tandem::cuda {

// Types (ABI-compatible with <cuda.h> on 64-bit Linux).
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;
using CUjit_option = int;
using CUdevice_attribute = int;
using CUfunction_attribute = int;

// Constants (values from <cuda.h>; gpu/ApiCheck.cpp checks them).
constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_INVALID_VALUE = 1;
constexpr CUresult CUDA_ERROR_NOT_FOUND = 500;
constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER = 3;
constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
constexpr CUjit_option CU_JIT_LOG_VERBOSE = 12;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13;          // kHz
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36;   // kHz
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38;       // bytes
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr CUfunction_attribute CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
constexpr unsigned CU_EVENT_DEFAULT = 0;

/// The library the driver lives in, and the environment variable that
/// replaces it (a driver outside the loader's path, or a fake one in tests).
constexpr const char *DefaultDriverLibrary = "libcuda.so.1";
constexpr const char *DriverLibraryEnvVar = "TANDEM_CUDA_LIBRARY";

/// The driver's functions, bound by loadDriverApi. The member names are the
/// API's names without the version suffix.
struct DriverFunctions {
  CUresult (*cuInit)(unsigned Flags) = nullptr;
  CUresult (*cuDriverGetVersion)(int *Version) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice *Dev, int Ordinal) = nullptr;
  CUresult (*cuDeviceGetCount)(int *Count) = nullptr;
  CUresult (*cuDeviceGetName)(char *Name, int Len, CUdevice Dev) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int *Value, CUdevice_attribute Attr,
                                   CUdevice Dev) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *Ctx, CUdevice Dev) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice Dev) = nullptr;        // _v2
  CUresult (*cuDevicePrimaryCtxReset)(CUdevice Dev) = nullptr;          // _v2
  CUresult (*cuCtxSetCurrent)(CUcontext Ctx) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuModuleLoadDataEx)(CUmodule *Module, const void *Image,
                                 unsigned NumOptions, CUjit_option *Options,
                                 void **OptionValues) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule Module) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction *Fn, CUmodule Module,
                                  const char *Name) = nullptr;
  CUresult (*cuModuleGetGlobal)(CUdeviceptr *Ptr, size_t *Bytes, CUmodule Module,
                                const char *Name) = nullptr;    // _v2
  CUresult (*cuFuncSetAttribute)(CUfunction Fn, CUfunction_attribute Attr,
                                 int Value) = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr *Ptr, size_t Bytes) = nullptr;     // _v2
  CUresult (*cuMemFree)(CUdeviceptr Ptr) = nullptr;                     // _v2
  CUresult (*cuMemcpyHtoD)(CUdeviceptr Dst, const void *Src,
                           size_t Bytes) = nullptr;                     // _v2
  CUresult (*cuMemcpyDtoH)(void *Dst, CUdeviceptr Src,
                           size_t Bytes) = nullptr;                     // _v2
  CUresult (*cuMemsetD32)(CUdeviceptr Dst, unsigned Value,
                          size_t Words) = nullptr;                      // _v2
  CUresult (*cuLaunchKernel)(CUfunction Fn, unsigned GridX, unsigned GridY,
                             unsigned GridZ, unsigned BlockX, unsigned BlockY,
                             unsigned BlockZ, unsigned SharedBytes,
                             CUstream Stream, void **Params,
                             void **Extra) = nullptr;
  CUresult (*cuEventCreate)(CUevent *Event, unsigned Flags) = nullptr;
  CUresult (*cuEventDestroy)(CUevent Event) = nullptr;                  // _v2
  CUresult (*cuEventRecord)(CUevent Event, CUstream Stream) = nullptr;
  CUresult (*cuEventSynchronize)(CUevent Event) = nullptr;
  CUresult (*cuEventElapsedTime)(float *Ms, CUevent Start,
                                 CUevent End) = nullptr;                // _v2
  CUresult (*cuGetErrorName)(CUresult Result, const char **Name) = nullptr;
  CUresult (*cuGetErrorString)(CUresult Result, const char **Text) = nullptr;
};

/// The loaded library and its functions; closes the library when destroyed.
struct DriverApi : DriverFunctions {
  void *Library = nullptr;
  std::string LibraryName;

  DriverApi() = default;
  DriverApi(const DriverApi &) = delete;
  DriverApi &operator=(const DriverApi &) = delete;
  ~DriverApi() {
    if (Library)
      dlclose(Library);
  }
};

namespace detail {
/// Binds \p Slot to the first of \p Names the library exports.
template <typename Fn>
bool bindSymbol(void *Library, Fn &Slot, std::initializer_list<const char *> Names,
                std::string &Missing) {
  for (const char *Name : Names)
    if (void *Sym = dlsym(Library, Name)) {
      Slot = reinterpret_cast<Fn>(Sym);
      return true;
    }
  Missing = *Names.begin();
  return false;
}
} // namespace detail

/// The library loadDriverApi opens when none is named: $TANDEM_CUDA_LIBRARY
/// if set and not empty, else libcuda.so.1.
inline std::string driverLibraryName() {
  const char *Env = std::getenv(DriverLibraryEnvVar);
  return Env && *Env ? std::string(Env) : std::string(DefaultDriverLibrary);
}

/// Opens \p LibraryName and binds every function of DriverApi. On failure,
/// returns false and sets \p Error to a message naming the library, the
/// loader's reason and what to do; \p Api is left unloaded.
inline bool loadDriverApi(const std::string &LibraryName, DriverApi &Api,
                          std::string &Error) {
  void *Library = dlopen(LibraryName.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!Library) {
    const char *Why = dlerror();
    Error = "cannot load the CUDA driver library '" + LibraryName +
            "': " + (Why ? Why : "unknown dlopen error") +
            ". The gpu device needs an NVIDIA GPU with its driver installed "
            "(libcuda.so.1 comes with the driver, not with the CUDA "
            "Toolkit); on a machine without one, use --device iss or rtl, "
            "or set " + DriverLibraryEnvVar +
            " to the driver library's full path if it is installed "
            "elsewhere";
    return false;
  }
  std::string Missing;
  bool Ok =
      detail::bindSymbol(Library, Api.cuInit, {"cuInit"}, Missing) &&
      detail::bindSymbol(Library, Api.cuDriverGetVersion, {"cuDriverGetVersion"}, Missing) &&
      detail::bindSymbol(Library, Api.cuDeviceGet, {"cuDeviceGet"}, Missing) &&
      detail::bindSymbol(Library, Api.cuDeviceGetCount, {"cuDeviceGetCount"}, Missing) &&
      detail::bindSymbol(Library, Api.cuDeviceGetName, {"cuDeviceGetName"}, Missing) &&
      detail::bindSymbol(Library, Api.cuDeviceGetAttribute, {"cuDeviceGetAttribute"}, Missing) &&
      detail::bindSymbol(Library, Api.cuDevicePrimaryCtxRetain, {"cuDevicePrimaryCtxRetain"},
                         Missing) &&
      detail::bindSymbol(Library, Api.cuDevicePrimaryCtxRelease,
                         {"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"}, Missing) &&
      detail::bindSymbol(Library, Api.cuDevicePrimaryCtxReset,
                         {"cuDevicePrimaryCtxReset_v2", "cuDevicePrimaryCtxReset"}, Missing) &&
      detail::bindSymbol(Library, Api.cuCtxSetCurrent, {"cuCtxSetCurrent"}, Missing) &&
      detail::bindSymbol(Library, Api.cuCtxSynchronize, {"cuCtxSynchronize"}, Missing) &&
      detail::bindSymbol(Library, Api.cuModuleLoadDataEx, {"cuModuleLoadDataEx"}, Missing) &&
      detail::bindSymbol(Library, Api.cuModuleUnload, {"cuModuleUnload"}, Missing) &&
      detail::bindSymbol(Library, Api.cuModuleGetFunction, {"cuModuleGetFunction"}, Missing) &&
      detail::bindSymbol(Library, Api.cuModuleGetGlobal, {"cuModuleGetGlobal_v2"}, Missing) &&
      detail::bindSymbol(Library, Api.cuFuncSetAttribute, {"cuFuncSetAttribute"}, Missing) &&
      detail::bindSymbol(Library, Api.cuMemAlloc, {"cuMemAlloc_v2"}, Missing) &&
      detail::bindSymbol(Library, Api.cuMemFree, {"cuMemFree_v2"}, Missing) &&
      detail::bindSymbol(Library, Api.cuMemcpyHtoD, {"cuMemcpyHtoD_v2"}, Missing) &&
      detail::bindSymbol(Library, Api.cuMemcpyDtoH, {"cuMemcpyDtoH_v2"}, Missing) &&
      detail::bindSymbol(Library, Api.cuMemsetD32, {"cuMemsetD32_v2"}, Missing) &&
      detail::bindSymbol(Library, Api.cuLaunchKernel, {"cuLaunchKernel"}, Missing) &&
      detail::bindSymbol(Library, Api.cuEventCreate, {"cuEventCreate"}, Missing) &&
      detail::bindSymbol(Library, Api.cuEventDestroy, {"cuEventDestroy_v2", "cuEventDestroy"},
                         Missing) &&
      detail::bindSymbol(Library, Api.cuEventRecord, {"cuEventRecord"}, Missing) &&
      detail::bindSymbol(Library, Api.cuEventSynchronize, {"cuEventSynchronize"}, Missing) &&
      detail::bindSymbol(Library, Api.cuEventElapsedTime,
                         {"cuEventElapsedTime_v2", "cuEventElapsedTime"}, Missing) &&
      detail::bindSymbol(Library, Api.cuGetErrorName, {"cuGetErrorName"}, Missing) &&
      detail::bindSymbol(Library, Api.cuGetErrorString, {"cuGetErrorString"}, Missing);
  if (!Ok) {
    dlclose(Library);
    static_cast<DriverFunctions &>(Api) = DriverFunctions{};
    Error = "the CUDA driver library '" + LibraryName + "' has no '" + Missing +
            "': it is not a CUDA driver, or one older than CUDA 11; update "
            "the NVIDIA driver";
    return false;
  }
  Api.Library = Library;
  Api.LibraryName = LibraryName;
  return true;
}

/// "CUDA_ERROR_INVALID_PTX (a PTX JIT compilation failed)": the driver's name
/// and text for \p R, or the number where the driver does not know it.
inline std::string describeResult(const DriverApi &Api, CUresult R) {
  const char *Name = nullptr, *Text = nullptr;
  if (Api.cuGetErrorName)
    Api.cuGetErrorName(R, &Name);
  if (Api.cuGetErrorString)
    Api.cuGetErrorString(R, &Text);
  std::string S = Name ? Name : "CUDA error " + std::to_string(R);
  if (Text)
    S += std::string(" (") + Text + ")";
  return S;
}

} // namespace tandem::cuda
