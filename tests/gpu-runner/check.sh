#!/usr/bin/env bash
# check.sh GPU_SOURCE_DIR BUILD_DIR FAKE_LIBCUDA TANDEM: builds the
# standalone GPU runner (cmake + ninja, as scripts/gpu-check.sh does on the
# lent machine), then runs it against the fake driver (see CMakeLists.txt).
set -euo pipefail
src=$1 build=$2 fake=$3 tandem=$4
cmake -G Ninja -S "$src" -B "$build" > "$build.configure.log" 2>&1 ||
  { cat "$build.configure.log"; exit 1; }
ninja -C "$build" > "$build.build.log" 2>&1 || { cat "$build.build.log"; exit 1; }
runner=$build/tandem-gpu-runner
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$tandem" suite-export "$work/bundle" --case vadd --case const_conv --no-llc > /dev/null

# expect_status WHAT STATUS TEXT CMD...: CMD exits with STATUS and prints
# TEXT (stdout and stderr together), else the check fails naming WHAT.
expect_status() {
  local what=$1 want=$2 text=$3 status
  shift 3
  set +e
  "$@" > "$work/out.txt" 2>&1
  status=$?
  set -e
  if [ "$status" -ne "$want" ] || ! grep -q "$text" "$work/out.txt"; then
    echo "$what: expected status $want and '$text', got $status:"
    cat "$work/out.txt"
    exit 1
  fi
}

expect_status "without a driver" 3 "no GPU: cannot load the CUDA driver library" \
  env TANDEM_CUDA_LIBRARY=/nonexistent/libcuda.so.1 "$runner" "$work/bundle" --out "$work/r.json"

TANDEM_CUDA_LIBRARY=$fake "$runner" "$work/bundle" --out "$work/r.json" --only vadd --skip-timing \
  > "$work/out.txt" 2>&1 || { echo "vadd through the fake driver failed:"; cat "$work/out.txt"; exit 1; }
grep -q "correctness (ours, every suite case): PASS" "$work/out.txt" ||
  { echo "vadd did not pass:"; cat "$work/out.txt"; exit 1; }
grep -q '"Fake H200"' "$work/r.json" || { echo "results without the fake GPU's name:"; cat "$work/r.json"; exit 1; }

# A time budget already spent: vadd is still checked (correctness always
# runs to the end), its large timing problems are listed as skipped, the
# file is complete, and --summarize prints the same verdict from it. A file
# a stopped run left (complete: false) summarizes as incomplete, status 1.
TANDEM_CUDA_LIBRARY=$fake "$runner" "$work/bundle" --out "$work/b.json" --only vadd \
  --reps 20 --budget-s 0.000001 > "$work/out.txt" 2>&1 ||
  { echo "vadd with a spent budget failed:"; cat "$work/out.txt"; exit 1; }
python3 - "$work/b.json" <<'PY' || { cat "$work/out.txt"; exit 1; }
import json, sys
r = json.load(open(sys.argv[1]))
assert r["complete"] is True and r["all_correct"] is True, r
assert [c["name"] for c in r["cases"]] == ["vadd"], r["cases"]
assert r["timing"] == [], ("timed past the budget", r["timing"])
assert r["skipped"] and all(s.startswith("vadd ") and "(--budget-s)" in s for s in r["skipped"]), r["skipped"]
PY
"$runner" --summarize "$work/b.json" > "$work/sum.txt" ||
  { echo "--summarize of a complete, correct file failed:"; cat "$work/sum.txt"; exit 1; }
grep -q "correctness (ours, every suite case): PASS" "$work/sum.txt" &&
  grep -q "^skipped: vadd .*(--budget-s)" "$work/sum.txt" ||
  { echo "--summarize did not print the verdict and the skipped runs:"; cat "$work/sum.txt"; exit 1; }
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
for k in ("nvidia_smi_after", "all_correct"): del r[k]
r["complete"] = False; r["stopped_at"] = "timing vadd n=64M"
json.dump(r, open(sys.argv[2], "w"))' "$work/b.json" "$work/stopped.json"
expect_status "--summarize of a stopped run" 1 "incomplete: the run was stopped at timing vadd n=64M" \
  "$runner" --summarize "$work/stopped.json"

# The profile probes are PTX written by hand in the runner: ptxas must
# accept them (a wrong register count once cost a lent run its numbers).
"$runner" --write-probe-ptx "$work" || { echo "--write-probe-ptx failed"; exit 1; }
ptxas=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
if [ -x "$ptxas" ]; then
  for f in probes extra-probes launch-probes; do
    "$ptxas" -arch=sm_90 "$work/$f.ptx" -o "$work/$f.cubin" ||
      { echo "ptxas rejects the runner's $f.ptx"; exit 1; }
  done
  probes="the profile probes pass ptxas"
else
  echo "SKIPPED: ptxas of the profile probes (no ptxas: the CUDA toolkit is not installed)"
  probes="the profile probes SKIPPED (no ptxas)"
fi

# The results of the lent H200 run kept in the repository summarize as a
# complete, correct run.
"$runner" --summarize "$(dirname "$0")/../../profiles/h200-gpu-results-2026-12-04.json" \
  > "$work/h200.txt" || { echo "the kept H200 results do not summarize as complete and correct:"; cat "$work/h200.txt"; exit 1; }
grep -q "correctness (ours, every suite case): PASS" "$work/h200.txt" ||
  { echo "the kept H200 results are not all correct:"; cat "$work/h200.txt"; exit 1; }

# A kernel that faults with an illegal address leaves the context unusable
# (a sticky error: every later call fails). The runner resets it and goes on:
# the case after the faulting one still passes, and the faulting one's entry
# says the context was reset. (The first lent H200 run lost every timing
# after one such fault.)
python3 - "$work/bundle" <<'PY'
import copy, json, os, sys
bundle = sys.argv[1]
m = json.load(open(os.path.join(bundle, "manifest.json")))
vadd = next(c for c in m["cases"] if c["name"] == "vadd")
sticky = copy.deepcopy(vadd)
sticky["name"] = "sticky"
for l in sticky["launches"]:
    l["kernel"] = "fault_sticky"
os.makedirs(os.path.join(bundle, "sticky"), exist_ok=True)
ptx = open(os.path.join(bundle, vadd["variants"]["ours"])).read()
assert ".entry vadd(" in ptx, "no vadd entry to rename"
open(os.path.join(bundle, "sticky", "ours.ptx"), "w").write(
    ptx.replace(".entry vadd(", ".entry fault_sticky(").replace("vadd_param_", "fault_sticky_param_"))
sticky["variants"] = {"ours": "sticky/ours.ptx"}
m["cases"].insert(0, sticky)
json.dump(m, open(os.path.join(bundle, "manifest.json"), "w"))
PY
expect_status "a sticky fault" 1 "context was reset after a sticky error" \
  env TANDEM_CUDA_LIBRARY=$fake "$runner" "$work/bundle" --out "$work/f.json" --only sticky \
  --only vadd --skip-timing
python3 - "$work/f.json" <<'PY' || { cat "$work/out.txt"; exit 1; }
import json, sys
r = json.load(open(sys.argv[1]))
cases = {c["name"]: c["variants"]["ours"] for c in r["cases"]}
assert list(cases) == ["sticky", "vadd"], cases
assert cases["sticky"]["correct"] is False and "ILLEGAL_ADDRESS" in cases["sticky"]["context_reset"], cases["sticky"]
assert cases["vadd"]["correct"] is True, ("vadd after the fault", cases["vadd"])
assert r["all_correct"] is False, r["all_correct"]
PY

# The fake does not compute const_conv (its outputs stay poisoned), but the
# variable writes before the launch must not fail.
TANDEM_CUDA_LIBRARY=$fake "$runner" "$work/bundle" --out "$work/r.json" --only const_conv \
  --skip-timing > "$work/out.txt" 2>&1 || true
if grep -q '"error"' "$work/r.json" || ! grep -q '"mismatches"' "$work/r.json"; then
  echo "const_conv's variable writes failed:"
  cat "$work/out.txt" "$work/r.json"
  exit 1
fi
# SpMM timings (the fake runs no spmm_csr, so only the plumbing is checked):
# the bundle's matrix and the synthetic SpMM matrices each get a spmm_csr
# entry with the bundle's dense columns and a launch that did not fail; the
# 4M-row SpMV matrices are not SpMM's (--only spmm leaves them out).
mkdir -p "$work/mtx"
cp "$(dirname "$0")/../data/gpu-bundle-fixture/matrices/banded.mtx" "$work/mtx/"
"$tandem" suite-export "$work/spmm-bundle" --case spmm --no-llc --matrices "$work/mtx" > /dev/null
TANDEM_CUDA_LIBRARY=$fake "$runner" "$work/spmm-bundle" --out "$work/s.json" --only spmm \
  --reps 20 > "$work/out.txt" 2>&1 || true
python3 - "$work/s.json" <<'PY' || { cat "$work/out.txt"; exit 1; }
import json, sys
r = json.load(open(sys.argv[1]))
spmm = [t for t in r["timing"] if t["case"] == "spmm_csr"]
names = sorted(t["matrix"] for t in spmm)
want = ["banded.mtx", "powerlaw 131072 rows, 12 per row, exponent 1.2", "uniform 131072 rows, 16 per row"]
assert names == want, ("spmm_csr entries", names)
for t in spmm:
    assert t["dense_columns"] == 32, t
    assert "time" in t["variants"]["ours"], ("our spmm_csr was not timed", t)
assert [m["matrix"] for m in r["summary"]["spmm"]] == [t["matrix"] for t in spmm], r["summary"]
PY
# Every timing spec names a case the runner can build: math_functions's
# large problem (the fake computes nothing, so only the plumbing).
"$tandem" suite-export "$work/math-bundle" --case math_functions --no-llc > /dev/null
TANDEM_CUDA_LIBRARY=$fake "$runner" "$work/math-bundle" --out "$work/m.json" \
  --only math_functions --reps 20 > "$work/out.txt" 2>&1 || true
python3 - "$work/m.json" <<'PY' || { cat "$work/out.txt"; exit 1; }
import json, sys
r = json.load(open(sys.argv[1]))
math = [t for t in r["timing"] if t["case"] == "math_functions"]
assert [t["size"] for t in math] == ["n=4194304"], ("math_functions timing entries", r["timing"])
assert "time" in math[0]["variants"]["ours"], ("our math_functions was not timed", math[0])
# Every timing records the host's time in the timed calls beside the GPU's.
assert math[0]["variants"]["ours"]["time"]["host_median_ms"] > 0, math[0]
# The launch probes' module loaded and ran: the fake's walks give a rate,
# and each of their numbers is either measured or listed as not.
p = r["profile"]
assert p["lane_walk_gb_per_s"] > 0 and p["lane_walk_16_gb_per_s"] > 0, p
assert p["coalesced_walk_gb_per_s"] > 0, p
for k in ("launch_host_us", "small_launch_l2_step_cycles", "cta_cycles_per_block_empty",
          "cta_cycles_per_block_touch", "launch_next_same_kernel_us",
          "launch_next_other_kernel_us", "shared_v4_warp_accesses_per_sm_cycle",
          "shared_v4_broadcast_warp_accesses_per_sm_cycle"):
    assert k in p or k in p["not_measured"], (k, p)
# The launch latency is timed again before each phase and at the end.
checks = r["launch_checks"]
assert [c["at"] for c in checks] == ["before the large problems", "before the matrices",
                                     "before the synthetic matrices", "at the end"], checks
assert all(c["launch_latency_us"] > 0 and c["launch_latency_5_buffers_us"] > 0 for c in checks), checks
PY
! grep -q "launch probes:" "$work/out.txt" || { echo "the launch probes failed:"; cat "$work/out.txt"; exit 1; }

# --counters (a run under ncu, scripts/gpu-counters.sh): no profile probes,
# and after each timing one more launch inside a profiler range (the fake
# fails a range that nests or holds no launch), numbered in order.
TANDEM_CUDA_LIBRARY=$fake "$runner" "$work/bundle" --out "$work/c.json" --only vadd \
  --reps 20 --counters > "$work/out.txt" 2>&1 ||
  { echo "vadd with --counters failed:"; cat "$work/out.txt"; exit 1; }
python3 - "$work/c.json" <<'PY' || { cat "$work/out.txt"; exit 1; }
import json, sys
r = json.load(open(sys.argv[1]))
assert r["counters_run"] is True and "profile" not in r and "launch_checks" not in r, sorted(r)
ranges = [r["cases"][0]["variants"]["ours"]["counters"]]
ranges += [t["variants"]["ours"]["counters"] for t in r["timing"]]
assert len(ranges) >= 2, ranges
assert [c["first_id"] for c in ranges] == list(range(len(ranges))), ranges
assert all(c["kernels"] == 1 and c["kernel_names"] == ["vadd"] for c in ranges), ranges
PY
echo "gpu runner: built; no driver: status 3; vadd passes, also with its time budget spent (timings skipped, --summarize agrees; a stopped file is incomplete), and after a case whose sticky fault reset the context; const_conv's variables are written through the fake driver; SpMM is timed on the bundle's and the synthetic matrices; math_functions's large problem is built and timed (host time recorded, the launch probes run, the launch checked before each phase); --counters wraps one launch per timing in a profiler range; $probes"
