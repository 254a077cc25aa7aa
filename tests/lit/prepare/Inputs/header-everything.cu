// Uses everything tandem_cuda.h provides; compiles under nvcc without it.
__device__ __forceinline__ float sq(float x) { return x * x; }
__global__ void everything(const float *__restrict__ in, float *__restrict__ out, int *ci,
                           unsigned *cu, float *cf, float4 *v4, float2 *v2, int4 *i4, int n) {
  __shared__ float tile[64];
  extern __shared__ float dyn[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % warpSize;
  tile[threadIdx.x % 64] = in[i % n];
  dyn[threadIdx.x] = 1.0f;
  __syncthreads();
  float x = tile[(threadIdx.x + 1) % 64] + dyn[0] + gridDim.x + blockDim.y + threadIdx.z;
  atomicAdd(ci, 1); atomicAdd(cu, 2u); atomicAdd(cf, 1.5f);
  atomicMin(ci, i); atomicMax(ci, i); atomicMin(cu, 3u); atomicMax(cu, 4u);
  atomicExch(ci, 5); atomicExch(cu, 6u); atomicCAS(ci, 1, 2); atomicCAS(cu, 1u, 2u);
  x += __shfl_sync(0xffffffff, x, 0) + __shfl_up_sync(0xffffffff, x, 1) +
       __shfl_down_sync(0xffffffff, x, 2) + __shfl_xor_sync(0xffffffff, x, 4);
  int iv = __shfl_sync(0xffffffff, i, 3) + __shfl_xor_sync(0xffffffffu, lane, 1, 16);
  unsigned uv = __shfl_down_sync(0xffffffff, (unsigned)i, 1);
  unsigned b = __ballot_sync(0xffffffff, x > 0.0f);
  iv += __any_sync(0xffffffff, iv > 3) + __all_sync(0xffffffff, iv > 0);
  iv += __popc(b) + __clz(iv) + __ffs(iv) + min(iv, 3) + max(iv, 4) + (int)min(uv, 5u) + (int)max(uv, 6u);
  x += min(x, 1.0f) + max(x, 2.0f);
  float4 a = v4[i]; a.x += a.w; v4[i] = make_float4(a.x, a.y, a.z, x);
  float2 c = v2[i]; v2[i] = make_float2(c.y, c.x);
  int4 d = i4[i]; i4[i] = make_int4(d.w, d.z, d.y, iv);
  int2 e = make_int2(1, 2); float3 f = make_float3(1, 2, 3); iv += e.y + (int)f.z;
  x = sqrtf(x) + rsqrtf(x) + expf(x) + exp2f(x) + logf(x) + log2f(x) + sinf(x) + cosf(x) +
      powf(x, 2.5f) + tanhf(x) + fabsf(x) + fminf(x, 1.0f) + fmaxf(x, 2.0f) + floorf(x) +
      ceilf(x) + sq(x);
  out[i] = x + iv + uv;
}
