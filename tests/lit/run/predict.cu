// tandem run --predict: the simt model's prediction of the same launch (a
// traced iss run of it, docs/Report.md), printed after the counters; on
// rtl with the error against the measured cycles, on iss without (no
// clock). The breakdown's parts sum to the predicted cycles, and the
// prediction is of this launch: within 25% of the rtl's cycles (a wiring
// check, far wider than the model's error; accuracy is the report's job).
// The model's memory traffic follows, beside the rtl's counters: the L1
// lookups are the launch's, so hits plus misses are the rtl's.
// RUN: rm -rf %t && mkdir -p %t
// RUN: tandem run %s --grid 8 --block 128 --arg buf:f32:4000 --arg buf:f32:4000 \
// RUN:   --arg i32:4000 --predict | FileCheck %s --check-prefix=ISS
// ISS: kernel 'scale_sum' on iss: grid 8,1,1 block 128,1,1
// ISS: model: {{[0-9,]+}} cycles predicted ({{[0-9.]+}} us at 500 MHz), bound: {{[a-z ]+$}}
// ISS-NEXT: compute {{[0-9]+}}, memory bandwidth {{[0-9]+}}, memory latency {{[0-9]+}}, synchronization {{[0-9]+}}, load imbalance {{[0-9]+}}, launch {{[0-9]+}}
// ISS-NEXT: memory: l1_hits {{[0-9,]+}}, l1_misses {{[0-9,]+}}, l1_writebacks {{[0-9,]+}}, dram_requests {{[0-9,]+$}}
// ISS-NEXT: (iss has no clock: run with --device rtl to compare)
// RUN: tandem run %s --grid 8 --block 128 --arg buf:f32:4000 --arg buf:f32:4000 \
// RUN:   --arg i32:4000 --predict --device rtl | FileCheck %s --check-prefix=RTL
// RTL: model: {{[0-9,]+}} cycles predicted
// RTL: memory: l1_hits {{[0-9,]+}} (rtl {{[0-9,]+}}), l1_misses {{[0-9,]+}} (rtl {{[0-9,]+}}), l1_writebacks {{[0-9,]+}} (rtl {{[0-9,]+}}), dram_requests {{[0-9,]+}} (rtl {{[0-9,]+}})
// RTL: measured on rtl: {{[0-9,]+}} cycles; error {{[-+][0-9]+\.[0-9]}}%
// RUN: tandem run %s --grid 8 --block 128 --arg buf:f32:4000 --arg buf:f32:4000 \
// RUN:   --arg i32:4000 --predict --device rtl --json > %t/rtl.json
// RUN: python3 -c "import json; d = json.load(open('%t/rtl.json')); p = d['prediction']; \
// RUN:   assert abs(sum(p['breakdown'].values()) - p['cycles']) < 1e-6 * p['cycles'], p; \
// RUN:   assert abs(p['cycles'] / d['counters']['cycles'] - 1) < 0.25, (p, d['counters']['cycles']); \
// RUN:   assert abs(p['error_pct'] - 100 * (p['cycles'] / d['counters']['cycles'] - 1)) < 1e-6; \
// RUN:   m = p['memory']; c = d['counters']; \
// RUN:   assert sorted(m) == ['dram_read_bytes', 'dram_requests', 'dram_write_bytes', 'l1_hits', 'l1_misses', 'l1_writebacks'], m; \
// RUN:   assert m['l1_hits'] + m['l1_misses'] == c['l1_hits'] + c['l1_misses'] > 0, (m, c)"
// Without --predict there is no prediction; on iss no error.
// RUN: tandem run %s --grid 8 --block 128 --arg buf:f32:4000 --arg buf:f32:4000 \
// RUN:   --arg i32:4000 --json | FileCheck %s --check-prefix=PLAIN
// PLAIN-NOT: "prediction"
// RUN: tandem run %s --grid 8 --block 128 --arg buf:f32:4000 --arg buf:f32:4000 \
// RUN:   --arg i32:4000 --json --predict | FileCheck %s --check-prefix=ISSJSON
// ISSJSON: "prediction":{"bound":"{{[a-z ]+}}","breakdown":{
// ISSJSON-NOT: error_pct
// The gpu has its own model: a usage error before anything runs.
// RUN: tandem run %s --grid 8 --block 128 --arg buf:f32:4000 --arg buf:f32:4000 \
// RUN:   --arg i32:4000 --predict --device gpu 2> %t/gpu.err; test $? -eq 2
// RUN: FileCheck %s --check-prefix=GPU --input-file=%t/gpu.err
// GPU: --predict: the simt model predicts iss and rtl runs

extern "C" __global__ void scale_sum(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
  for (int k = i; k < n; k += gridDim.x * blockDim.x)
    s += 2.0f * in[k];
  if (i < n)
    out[i] = s;
}
