// tandem run --no-coalesce compiles a source without lane-aware copy
// coalescing (as tandem compile --no-coalesce and tandem report
// --no-coalesce do): the same results, more instructions (the divergent
// loop's phi copies stay; tests/lit/regalloc/lane-coalesce.cu shows them).
// RUN: rm -rf %t && mkdir -p %t
// RUN: python3 %S/Inputs/npy.py iota %t/in.npy '<u4' 64 977
// RUN: tandem run %s --grid 1 --block 64 --arg in:%t/in.npy --arg out:%t/a.npy:u32:64 --json > %t/a.json
// RUN: tandem run %s --grid 1 --block 64 --arg in:%t/in.npy --arg out:%t/b.npy:u32:64 --json --no-coalesce > %t/b.json
// RUN: python3 %S/Inputs/npy.py print %t/a.npy > %t/a.txt
// RUN: python3 %S/Inputs/npy.py print %t/b.npy > %t/b.txt
// RUN: diff %t/a.txt %t/b.txt
// RUN: python3 -c "import json, sys; a, b = (json.load(open(f))['compile']['instructions'] for f in sys.argv[1:]); assert b > a, (a, b); print('instructions', a, '<', b)" %t/a.json %t/b.json | FileCheck %s
// CHECK: instructions {{[0-9]+}} < {{[0-9]+}}
extern "C" __global__ void rotate_until(const unsigned *in, unsigned *out) {
  unsigned t = threadIdx.x, x = in[t], acc = 1;
  for (unsigned k = 0; k < ((x >> 3) & 31); ++k) {
    if ((acc ^ k) & 4)
      acc += k * x;
    else
      acc -= k;
    if ((acc & 0xff) == 0x42)
      continue;
    acc = (acc << 1) | (acc >> 31);
    if (acc > 0xF0000000u)
      break;
  }
  out[t] = acc;
}
