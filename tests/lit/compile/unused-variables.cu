// __constant__ and __device__ variables that no kernel reads stay in the
// image and in the PTX module, as nvcc keeps them, so the host can write and
// read them by name (docs/Compiler.md, "Host access by name"). Internal
// ones (static) no kernel reads are dropped on both targets.
// RUN: tandem compile %s --target simt -o %t.img
// RUN: tandem objdump %t.img | FileCheck %s --check-prefix=IMAGE
// RUN: tandem compile %s --target simt -O0 -o %t0.img
// RUN: tandem objdump %t0.img | FileCheck %s --check-prefix=IMAGE
// RUN: tandem compile %s --target ptx -o - | FileCheck %s --check-prefix=PTX
// RUN: tandem compile %s --target ptx -O0 -o - | FileCheck %s --check-prefix=PTX
// RUN: tandem run %t.img --kernel k --device iss --grid 1 --block 4 \
// RUN:   --arg buf:f32:4:poison --set unused_counter=s32:42 \
// RUN:   --get unused_counter:s32 --get unused_coeffs:f32 | FileCheck %s --check-prefix=HOST

// IMAGE:      Symbols:
// IMAGE-NEXT:   section    offset       size  name
// IMAGE-NEXT:   const           0         16  unused_coeffs
// IMAGE-NEXT:   const          16          4  used_gain
// IMAGE-NEXT:   data            0          4  unused_counter
// IMAGE-NOT:  hidden

// PTX:     .visible .const .align 4 .b8 unused_coeffs[16] = {0, 0, 128, 63,
// PTX-NEXT: .visible .global .align 4 .b8 unused_counter[4];
// PTX-NEXT: .visible .const .align 4 .b8 used_gain[4] = {0, 0, 0, 64};
// PTX-NOT: hidden

// HOST:      symbol unused_counter, 1 elements:
// HOST-NEXT: 42
// HOST:      symbol unused_coeffs, 4 elements:
// HOST-NEXT: 1 2 3 4

__constant__ float unused_coeffs[4] = {1, 2, 3, 4};
__device__ int unused_counter;
__constant__ float used_gain = 2;
static __device__ int hidden;

extern "C" __global__ void k(float *out) { out[threadIdx.x] = used_gain; }
