//===- GpuDevice.h - The gpu device: PTX on an NVIDIA GPU -------*- C++ -*-===//
//
// The "gpu" device of include/tandem/Runtime.h runs PTX (Device::loadPtx)
// through the CUDA driver API, which it loads at run time
// (runtime/CudaDriverApi.h): nothing links against libcuda, so a machine with
// no GPU gets an error from openDevice("gpu") that names the library looked
// for and why it did not load, never a crash. docs/GPU.md describes it.
//
// Addresses: the API's DevicePtr is 32 bits (the SIMT machine's), a GPU's
// 64. The device hands out 32-bit handles, 256-byte aligned, one range per
// allocation, and translates a handle (plus an offset inside its
// allocation) to the real device address in copies and in pointer arguments.
// All allocations together may span at most 4 GiB of handles.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tandem/KernelImage.h"
#include "tandem/Runtime.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace tandem {

/// Opens the gpu device through the driver library \p DriverLibrary (a name
/// for dlopen's search, or a path). openDevice("gpu") passes
/// cuda::driverLibraryName() ($TANDEM_CUDA_LIBRARY, else libcuda.so.1); tests
/// pass a fake driver or a name that does not exist.
llvm::Expected<std::unique_ptr<Device>> openGpuDevice(const DeviceOptions &Opts,
                                                      const std::string &DriverLibrary);

/// What the driver says about the GPU the device opened (the first one).
struct GpuInfo {
  std::string Name;
  int DriverVersion = 0; ///< e.g. 13000 for CUDA 13.0
  int ComputeMajor = 0, ComputeMinor = 0;
  int Multiprocessors = 0;
  int SmClockKHz = 0, MemoryClockKHz = 0;
  int L2Bytes = 0;
};

/// The GpuInfo of \p D, which must be a device openGpuDevice returned
/// (error otherwise).
llvm::Expected<GpuInfo> gpuInfo(const Device &D);

/// The kernels of a PTX module as kernel-table entries (name and parameter
/// kinds; no code), so a caller that checks arguments against an image's
/// kernel table (tandem run) can check them against PTX the same way. A
/// 64-bit integer parameter is a pointer, .f32 is F32, .s32 S32, the other
/// 32-bit ones U32; any other width is an error naming the kernel and the
/// parameter (the API passes 32-bit scalars and pointers).
llvm::Expected<std::vector<KernelInfo>> ptxKernelTable(llvm::StringRef Ptx,
                                                       llvm::StringRef SourceName);

/// The message of a failed cuModuleLoadDataEx: the module, the driver's
/// result, then the JIT's error log and info log (the lines ptxas wrote).
std::string formatModuleLoadError(llvm::StringRef SourceName, llvm::StringRef Result,
                                  llvm::StringRef ErrorLog, llvm::StringRef InfoLog);

} // namespace tandem
