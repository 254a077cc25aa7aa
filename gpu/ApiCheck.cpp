//===- ApiCheck.cpp - Our driver declarations against the real <cuda.h> ---===//
//
// runtime/CudaDriverApi.h declares the CUDA driver API by hand so that
// nothing needs CUDA to build. This file compiles only where <cuda.h> exists
// (the runner's build, with the CUDA Toolkit): every constant must equal
// cuda.h's and every function pointer must have the type of the versioned
// function we bind, or the build fails. Nothing here runs.
//
//===----------------------------------------------------------------------===//

#include "../runtime/CudaDriverApi.h"

#include <type_traits>

// <cuda.h> #defines cuMemAlloc to cuMemAlloc_v2 and so on, which would rename
// our members too: take their types before including it.
#define OUR_TYPE(Member) using Our_##Member = decltype(tandem::cuda::DriverFunctions::Member);
OUR_TYPE(cuInit)
OUR_TYPE(cuDriverGetVersion)
OUR_TYPE(cuDeviceGet)
OUR_TYPE(cuDeviceGetCount)
OUR_TYPE(cuDeviceGetName)
OUR_TYPE(cuDeviceGetAttribute)
OUR_TYPE(cuDevicePrimaryCtxRetain)
OUR_TYPE(cuDevicePrimaryCtxRelease)
OUR_TYPE(cuDevicePrimaryCtxReset)
OUR_TYPE(cuCtxSetCurrent)
OUR_TYPE(cuCtxSynchronize)
OUR_TYPE(cuModuleLoadDataEx)
OUR_TYPE(cuModuleUnload)
OUR_TYPE(cuModuleGetFunction)
OUR_TYPE(cuModuleGetGlobal)
OUR_TYPE(cuFuncSetAttribute)
OUR_TYPE(cuMemAlloc)
OUR_TYPE(cuMemFree)
OUR_TYPE(cuMemcpyHtoD)
OUR_TYPE(cuMemcpyDtoH)
OUR_TYPE(cuMemsetD32)
OUR_TYPE(cuLaunchKernel)
OUR_TYPE(cuEventCreate)
OUR_TYPE(cuEventDestroy)
OUR_TYPE(cuEventRecord)
OUR_TYPE(cuEventSynchronize)
OUR_TYPE(cuEventElapsedTime)
OUR_TYPE(cuGetErrorName)
OUR_TYPE(cuGetErrorString)

#include <cuda.h>

namespace api = tandem::cuda;

#define SAME_VALUE(Name) static_assert(int(api::Name) == int(::Name), #Name " differs from cuda.h")
SAME_VALUE(CUDA_SUCCESS);
SAME_VALUE(CUDA_ERROR_INVALID_VALUE);
SAME_VALUE(CUDA_ERROR_NOT_FOUND);
SAME_VALUE(CU_JIT_INFO_LOG_BUFFER);
SAME_VALUE(CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES);
SAME_VALUE(CU_JIT_ERROR_LOG_BUFFER);
SAME_VALUE(CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
SAME_VALUE(CU_JIT_LOG_VERBOSE);
SAME_VALUE(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
SAME_VALUE(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
SAME_VALUE(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
SAME_VALUE(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
SAME_VALUE(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
SAME_VALUE(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
SAME_VALUE(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
SAME_VALUE(CU_EVENT_DEFAULT);

static_assert(sizeof(api::CUdeviceptr) == sizeof(::CUdeviceptr));
static_assert(sizeof(api::CUresult) == sizeof(::CUresult));
static_assert(sizeof(api::CUdevice) == sizeof(::CUdevice));

// Same parameter and result types, modulo our opaque handle and enum types,
// which have the same size and representation as cuda.h's.
template <typename Ours, typename Theirs> struct SameShape : std::false_type {};
template <typename R1, typename... A1, typename R2, typename... A2>
struct SameShape<R1 (*)(A1...), R2 (*)(A2...)>
    : std::bool_constant<sizeof...(A1) == sizeof...(A2) && sizeof(R1) == sizeof(R2) &&
                         ((sizeof(A1) == sizeof(A2)) && ...)> {};

#define SAME_SHAPE(Member, Real)                                                             \
  static_assert(SameShape<Our_##Member, decltype(&::Real)>::value, \
                #Member " does not match " #Real " in cuda.h")
SAME_SHAPE(cuInit, cuInit);
SAME_SHAPE(cuDriverGetVersion, cuDriverGetVersion);
SAME_SHAPE(cuDeviceGet, cuDeviceGet);
SAME_SHAPE(cuDeviceGetCount, cuDeviceGetCount);
SAME_SHAPE(cuDeviceGetName, cuDeviceGetName);
SAME_SHAPE(cuDeviceGetAttribute, cuDeviceGetAttribute);
SAME_SHAPE(cuDevicePrimaryCtxRetain, cuDevicePrimaryCtxRetain);
SAME_SHAPE(cuDevicePrimaryCtxRelease, cuDevicePrimaryCtxRelease_v2);
SAME_SHAPE(cuDevicePrimaryCtxReset, cuDevicePrimaryCtxReset_v2);
SAME_SHAPE(cuCtxSetCurrent, cuCtxSetCurrent);
SAME_SHAPE(cuCtxSynchronize, cuCtxSynchronize);
SAME_SHAPE(cuModuleLoadDataEx, cuModuleLoadDataEx);
SAME_SHAPE(cuModuleUnload, cuModuleUnload);
SAME_SHAPE(cuModuleGetFunction, cuModuleGetFunction);
SAME_SHAPE(cuModuleGetGlobal, cuModuleGetGlobal_v2);
SAME_SHAPE(cuFuncSetAttribute, cuFuncSetAttribute);
SAME_SHAPE(cuMemAlloc, cuMemAlloc_v2);
SAME_SHAPE(cuMemFree, cuMemFree_v2);
SAME_SHAPE(cuMemcpyHtoD, cuMemcpyHtoD_v2);
SAME_SHAPE(cuMemcpyDtoH, cuMemcpyDtoH_v2);
SAME_SHAPE(cuMemsetD32, cuMemsetD32_v2);
SAME_SHAPE(cuLaunchKernel, cuLaunchKernel);
SAME_SHAPE(cuEventCreate, cuEventCreate);
SAME_SHAPE(cuEventDestroy, cuEventDestroy_v2);
SAME_SHAPE(cuEventRecord, cuEventRecord);
SAME_SHAPE(cuEventSynchronize, cuEventSynchronize);
SAME_SHAPE(cuEventElapsedTime, cuEventElapsedTime_v2);
SAME_SHAPE(cuGetErrorName, cuGetErrorName);
SAME_SHAPE(cuGetErrorString, cuGetErrorString);
