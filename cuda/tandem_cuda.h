//===- tandem_cuda.h - the CUDA device API for clang-19, without the SDK --===//
//
// The front end force-includes this header (`clang -include tandem_cuda.h`)
// for every .cu it compiles; kernels never #include it, so the same source
// also compiles unchanged under nvcc, whose own headers provide all of this.
// clang-19 cannot use CUDA 13's headers (its wrapper wants files CUDA 13 no
// longer ships), hence this small replacement: it is compiled with
// -nocudainc -nocudalib, device side only.
//
// Everything lowers to plain LLVM IR or NVVM intrinsics that the back end
// selects: generic-pointer atomics become `atomicrmw`/`cmpxchg` (their
// address space is inferred later), shuffles and votes the
// llvm.nvvm.{shfl,vote}.sync intrinsics, the simple math functions LLVM
// intrinsics (llvm.sqrt, llvm.fabs, ...). The other math functions call the
// device math library (cuda/math/tandem_math.cu, linked in as LLVM IR);
// their names there are extern "C" __tandem_<name>, which clang does not
// know as library builtins, so it never turns them into intrinsics (such as
// llvm.exp.f32) that no SIMT instruction implements.
//
// No double precision: the SIMT target has no f64.
//
//===----------------------------------------------------------------------===//
#ifndef TANDEM_CUDA_H
#define TANDEM_CUDA_H

#if !defined(__clang__) || !defined(__CUDA__)
#error "tandem_cuda.h is for clang's CUDA mode; nvcc uses its own headers"
#endif

// ---- Declaration specifiers --------------------------------------------------
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
// __restrict__ is a keyword in clang already.

#define TANDEM_DEVICE_INLINE static __device__ __inline__ __attribute__((always_inline))

// ---- Vector types (sizes and alignments as CUDA's vector_types.h) ------------
struct __attribute__((aligned(8))) int2 { int x, y; };
struct int3 { int x, y, z; };
struct __attribute__((aligned(16))) int4 { int x, y, z, w; };
struct __attribute__((aligned(8))) uint2 { unsigned int x, y; };
struct uint3 { unsigned int x, y, z; };
struct __attribute__((aligned(16))) uint4 { unsigned int x, y, z, w; };
struct __attribute__((aligned(8))) float2 { float x, y; };
struct float3 { float x, y, z; };
struct __attribute__((aligned(16))) float4 { float x, y, z, w; };

struct dim3 {
  unsigned int x, y, z;
  __host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1,
                                     unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
};

TANDEM_DEVICE_INLINE int2 make_int2(int x, int y) { return int2{x, y}; }
TANDEM_DEVICE_INLINE int3 make_int3(int x, int y, int z) { return int3{x, y, z}; }
TANDEM_DEVICE_INLINE int4 make_int4(int x, int y, int z, int w) { return int4{x, y, z, w}; }
TANDEM_DEVICE_INLINE uint2 make_uint2(unsigned int x, unsigned int y) { return uint2{x, y}; }
TANDEM_DEVICE_INLINE uint3 make_uint3(unsigned int x, unsigned int y, unsigned int z) {
  return uint3{x, y, z};
}
TANDEM_DEVICE_INLINE uint4 make_uint4(unsigned int x, unsigned int y, unsigned int z,
                                      unsigned int w) {
  return uint4{x, y, z, w};
}
TANDEM_DEVICE_INLINE float2 make_float2(float x, float y) { return float2{x, y}; }
TANDEM_DEVICE_INLINE float3 make_float3(float x, float y, float z) { return float3{x, y, z}; }
TANDEM_DEVICE_INLINE float4 make_float4(float x, float y, float z, float w) {
  return float4{x, y, z, w};
}

// ---- threadIdx, blockIdx, blockDim, gridDim, warpSize ------------------------
// clang's own header: each field read is a call to an always-inline getter
// around llvm.nvvm.read.ptx.sreg.*. It forward-declares uint3 and dim3 and
// leaves their conversion operators for us to define.
#include <__clang_cuda_builtin_vars.h>

#define TANDEM_BUILTIN_VAR_CONVERSIONS(Type)                                   \
  __device__ inline Type::operator dim3() const { return dim3(x, y, z); }     \
  __device__ inline Type::operator uint3() const { return uint3{x, y, z}; }
TANDEM_BUILTIN_VAR_CONVERSIONS(__cuda_builtin_threadIdx_t)
TANDEM_BUILTIN_VAR_CONVERSIONS(__cuda_builtin_blockIdx_t)
TANDEM_BUILTIN_VAR_CONVERSIONS(__cuda_builtin_blockDim_t)
TANDEM_BUILTIN_VAR_CONVERSIONS(__cuda_builtin_gridDim_t)
#undef TANDEM_BUILTIN_VAR_CONVERSIONS

// ---- Synchronization ---------------------------------------------------------
// __syncthreads is a clang builtin (llvm.nvvm.barrier0).
TANDEM_DEVICE_INLINE void __threadfence_block(void) { __nvvm_membar_cta(); }
TANDEM_DEVICE_INLINE void __threadfence(void) { __nvvm_membar_gl(); }

// ---- Atomics (relaxed, device scope; return the old value) -------------------
TANDEM_DEVICE_INLINE int atomicAdd(int *p, int v) { return __nvvm_atom_add_gen_i(p, v); }
TANDEM_DEVICE_INLINE unsigned int atomicAdd(unsigned int *p, unsigned int v) {
  return (unsigned int)__nvvm_atom_add_gen_i((int *)p, (int)v);
}
TANDEM_DEVICE_INLINE float atomicAdd(float *p, float v) { return __nvvm_atom_add_gen_f(p, v); }
TANDEM_DEVICE_INLINE int atomicSub(int *p, int v) { return __nvvm_atom_add_gen_i(p, -v); }
TANDEM_DEVICE_INLINE unsigned int atomicSub(unsigned int *p, unsigned int v) {
  return (unsigned int)__nvvm_atom_add_gen_i((int *)p, -(int)v);
}
TANDEM_DEVICE_INLINE int atomicMin(int *p, int v) { return __nvvm_atom_min_gen_i(p, v); }
TANDEM_DEVICE_INLINE unsigned int atomicMin(unsigned int *p, unsigned int v) {
  return __nvvm_atom_min_gen_ui(p, v);
}
TANDEM_DEVICE_INLINE int atomicMax(int *p, int v) { return __nvvm_atom_max_gen_i(p, v); }
TANDEM_DEVICE_INLINE unsigned int atomicMax(unsigned int *p, unsigned int v) {
  return __nvvm_atom_max_gen_ui(p, v);
}
TANDEM_DEVICE_INLINE int atomicExch(int *p, int v) { return __nvvm_atom_xchg_gen_i(p, v); }
TANDEM_DEVICE_INLINE unsigned int atomicExch(unsigned int *p, unsigned int v) {
  return (unsigned int)__nvvm_atom_xchg_gen_i((int *)p, (int)v);
}
TANDEM_DEVICE_INLINE float atomicExch(float *p, float v) {
  return __builtin_bit_cast(float, __nvvm_atom_xchg_gen_i((int *)p,
                                                          __builtin_bit_cast(int, v)));
}
TANDEM_DEVICE_INLINE int atomicCAS(int *p, int compare, int v) {
  return __nvvm_atom_cas_gen_i(p, compare, v);
}
TANDEM_DEVICE_INLINE unsigned int atomicCAS(unsigned int *p, unsigned int compare,
                                            unsigned int v) {
  return (unsigned int)__nvvm_atom_cas_gen_i((int *)p, (int)compare, (int)v);
}
TANDEM_DEVICE_INLINE int atomicAnd(int *p, int v) { return __nvvm_atom_and_gen_i(p, v); }
TANDEM_DEVICE_INLINE unsigned int atomicAnd(unsigned int *p, unsigned int v) {
  return (unsigned int)__nvvm_atom_and_gen_i((int *)p, (int)v);
}
TANDEM_DEVICE_INLINE int atomicOr(int *p, int v) { return __nvvm_atom_or_gen_i(p, v); }
TANDEM_DEVICE_INLINE unsigned int atomicOr(unsigned int *p, unsigned int v) {
  return (unsigned int)__nvvm_atom_or_gen_i((int *)p, (int)v);
}
TANDEM_DEVICE_INLINE int atomicXor(int *p, int v) { return __nvvm_atom_xor_gen_i(p, v); }
TANDEM_DEVICE_INLINE unsigned int atomicXor(unsigned int *p, unsigned int v) {
  return (unsigned int)__nvvm_atom_xor_gen_i((int *)p, (int)v);
}

// ---- Warp shuffles and votes ---------------------------------------------------
// The last operand packs CUDA's width as PTX does: ((32 - width) << 8) | clamp,
// clamp 31 (0 for shfl.up, which clamps at the bottom of the segment).
#define TANDEM_SHUFFLE(Name, Kind, Clamp, OffsetType)                                   \
  TANDEM_DEVICE_INLINE int Name(unsigned int mask, int v, OffsetType o, int width = 32) { \
    return __nvvm_shfl_sync_##Kind##_i32(mask, v, (int)o, ((32 - width) << 8) | Clamp);  \
  }                                                                                       \
  TANDEM_DEVICE_INLINE unsigned int Name(unsigned int mask, unsigned int v, OffsetType o, \
                                         int width = 32) {                                \
    return (unsigned int)__nvvm_shfl_sync_##Kind##_i32(mask, (int)v, (int)o,              \
                                                       ((32 - width) << 8) | Clamp);      \
  }                                                                                       \
  TANDEM_DEVICE_INLINE float Name(unsigned int mask, float v, OffsetType o, int width = 32) { \
    return __nvvm_shfl_sync_##Kind##_f32(mask, v, (int)o, ((32 - width) << 8) | Clamp);      \
  }
TANDEM_SHUFFLE(__shfl_sync, idx, 0x1f, int)
TANDEM_SHUFFLE(__shfl_up_sync, up, 0, unsigned int)
TANDEM_SHUFFLE(__shfl_down_sync, down, 0x1f, unsigned int)
TANDEM_SHUFFLE(__shfl_xor_sync, bfly, 0x1f, int)
#undef TANDEM_SHUFFLE

TANDEM_DEVICE_INLINE unsigned int __ballot_sync(unsigned int mask, int pred) {
  return __nvvm_vote_ballot_sync(mask, pred);
}
TANDEM_DEVICE_INLINE int __any_sync(unsigned int mask, int pred) {
  return __nvvm_vote_any_sync(mask, pred);
}
TANDEM_DEVICE_INLINE int __all_sync(unsigned int mask, int pred) {
  return __nvvm_vote_all_sync(mask, pred);
}
TANDEM_DEVICE_INLINE void __syncwarp(unsigned int mask = 0xffffffffu) {
  __nvvm_bar_warp_sync(mask);
}

// ---- Integer intrinsics ----------------------------------------------------------
TANDEM_DEVICE_INLINE int __popc(unsigned int x) { return __builtin_popcount(x); }
// __builtin_clz(0) is undefined; CUDA's __clz(0) is 32 (as the clz instruction).
TANDEM_DEVICE_INLINE int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned int)x); }
TANDEM_DEVICE_INLINE int __ffs(int x) { return __builtin_ffs(x); }
TANDEM_DEVICE_INLINE unsigned int __brev(unsigned int x) { return __builtin_bitreverse32(x); }
TANDEM_DEVICE_INLINE int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
TANDEM_DEVICE_INLINE unsigned int __float_as_uint(float x) {
  return __builtin_bit_cast(unsigned int, x);
}
TANDEM_DEVICE_INLINE float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
TANDEM_DEVICE_INLINE float __uint_as_float(unsigned int x) {
  return __builtin_bit_cast(float, x);
}

// ---- min / max overloads (what nvcc's headers provide) ---------------------------
TANDEM_DEVICE_INLINE int min(int a, int b) { return a < b ? a : b; }
TANDEM_DEVICE_INLINE int max(int a, int b) { return a > b ? a : b; }
TANDEM_DEVICE_INLINE unsigned int min(unsigned int a, unsigned int b) { return a < b ? a : b; }
TANDEM_DEVICE_INLINE unsigned int max(unsigned int a, unsigned int b) { return a > b ? a : b; }
TANDEM_DEVICE_INLINE unsigned int min(int a, unsigned int b) { return min((unsigned int)a, b); }
TANDEM_DEVICE_INLINE unsigned int min(unsigned int a, int b) { return min(a, (unsigned int)b); }
TANDEM_DEVICE_INLINE unsigned int max(int a, unsigned int b) { return max((unsigned int)a, b); }
TANDEM_DEVICE_INLINE unsigned int max(unsigned int a, int b) { return max(a, (unsigned int)b); }
TANDEM_DEVICE_INLINE float min(float a, float b) { return __builtin_fminf(a, b); }
TANDEM_DEVICE_INLINE float max(float a, float b) { return __builtin_fmaxf(a, b); }

// ---- Math ------------------------------------------------------------------------
// The device math library (cuda/math/tandem_math.cu); each within 2 ulp of the
// correctly rounded result, f32 only.
extern "C" {
__device__ float __tandem_rsqrtf(float);
__device__ float __tandem_expf(float);
__device__ float __tandem_exp2f(float);
__device__ float __tandem_logf(float);
__device__ float __tandem_log2f(float);
__device__ float __tandem_sinf(float);
__device__ float __tandem_cosf(float);
__device__ float __tandem_powf(float, float);
__device__ float __tandem_tanhf(float);
}

// These are C++ (mangled) functions, not the C library's names, so clang
// sees no library builtin here and keeps the calls as written.
// One hardware instruction each (llvm.sqrt, llvm.fabs, llvm.minnum, ...):
TANDEM_DEVICE_INLINE float sqrtf(float x) { return __builtin_sqrtf(x); }
TANDEM_DEVICE_INLINE float fabsf(float x) { return __builtin_fabsf(x); }
TANDEM_DEVICE_INLINE float fminf(float a, float b) { return __builtin_fminf(a, b); }
TANDEM_DEVICE_INLINE float fmaxf(float a, float b) { return __builtin_fmaxf(a, b); }
TANDEM_DEVICE_INLINE float floorf(float x) { return __builtin_floorf(x); }
TANDEM_DEVICE_INLINE float ceilf(float x) { return __builtin_ceilf(x); }
TANDEM_DEVICE_INLINE float truncf(float x) { return __builtin_truncf(x); }
TANDEM_DEVICE_INLINE float rintf(float x) { return __builtin_rintf(x); }
TANDEM_DEVICE_INLINE float fmaf(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
// The library:
TANDEM_DEVICE_INLINE float rsqrtf(float x) { return __tandem_rsqrtf(x); }
TANDEM_DEVICE_INLINE float expf(float x) { return __tandem_expf(x); }
TANDEM_DEVICE_INLINE float exp2f(float x) { return __tandem_exp2f(x); }
TANDEM_DEVICE_INLINE float logf(float x) { return __tandem_logf(x); }
TANDEM_DEVICE_INLINE float log2f(float x) { return __tandem_log2f(x); }
TANDEM_DEVICE_INLINE float sinf(float x) { return __tandem_sinf(x); }
TANDEM_DEVICE_INLINE float cosf(float x) { return __tandem_cosf(x); }
TANDEM_DEVICE_INLINE float powf(float x, float y) { return __tandem_powf(x, y); }
TANDEM_DEVICE_INLINE float tanhf(float x) { return __tandem_tanhf(x); }
// CUDA's fast variants; here the same accurate functions.
TANDEM_DEVICE_INLINE float __expf(float x) { return __tandem_expf(x); }
TANDEM_DEVICE_INLINE float __logf(float x) { return __tandem_logf(x); }
TANDEM_DEVICE_INLINE float __sinf(float x) { return __tandem_sinf(x); }
TANDEM_DEVICE_INLINE float __cosf(float x) { return __tandem_cosf(x); }
TANDEM_DEVICE_INLINE float __powf(float x, float y) { return __tandem_powf(x, y); }
TANDEM_DEVICE_INLINE float __fdividef(float a, float b) { return a / b; }
TANDEM_DEVICE_INLINE float __saturatef(float x) {
  return __builtin_fminf(__builtin_fmaxf(x, 0.0f), 1.0f);
}

// C++ float overloads, as CUDA provides them (sqrt(x) on a float).
TANDEM_DEVICE_INLINE float sqrt(float x) { return sqrtf(x); }
TANDEM_DEVICE_INLINE float rsqrt(float x) { return rsqrtf(x); }
TANDEM_DEVICE_INLINE float fabs(float x) { return fabsf(x); }
TANDEM_DEVICE_INLINE float fmin(float a, float b) { return fminf(a, b); }
TANDEM_DEVICE_INLINE float fmax(float a, float b) { return fmaxf(a, b); }
TANDEM_DEVICE_INLINE float floor(float x) { return floorf(x); }
TANDEM_DEVICE_INLINE float ceil(float x) { return ceilf(x); }
TANDEM_DEVICE_INLINE float exp(float x) { return expf(x); }
TANDEM_DEVICE_INLINE float exp2(float x) { return exp2f(x); }
TANDEM_DEVICE_INLINE float log(float x) { return logf(x); }
TANDEM_DEVICE_INLINE float log2(float x) { return log2f(x); }
TANDEM_DEVICE_INLINE float sin(float x) { return sinf(x); }
TANDEM_DEVICE_INLINE float cos(float x) { return cosf(x); }
TANDEM_DEVICE_INLINE float pow(float x, float y) { return powf(x, y); }
TANDEM_DEVICE_INLINE float tanh(float x) { return tanhf(x); }

#undef TANDEM_DEVICE_INLINE
#endif // TANDEM_CUDA_H
