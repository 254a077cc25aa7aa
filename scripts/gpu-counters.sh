#!/usr/bin/env bash
# The suite's hardware counters and machine code on the lent GPU (docs/GPU.md),
# run after scripts/gpu-check.sh on the same machine (it reuses the runner
# that script built and nvcc's PTX it wrote):
#
#   bash scripts/gpu-counters.sh
#
#  1. SASS: each case's ours.ptx and nvcc.ptx through ptxas -arch=sm_90 and
#     cuobjdump -sass, into $OUT/sass.txt (what the gpu model's issue term and
#     its loads-in-flight assumption stand on; this machine has no
#     disassembler).
#  2. Counters: Nsight Compute (ncu) over the runner's --counters run, which
#     launches our and nvcc's PTX for each problem once more after its timing,
#     warm, inside cuProfilerStart/Stop; ncu profiles those launches alone
#     (--profile-from-start off), leaving clocks and caches as they are.
#     Sections SpeedOfLight, LaunchStats, Occupancy and WarpStateStats (the
#     kernel's own time, its occupancy, its stall reasons) and the warp
#     instructions, DRAM bytes and L2 hit rate. Out: $OUT/counters-results.json
#     (the runner's results: each timed variant's "counters" names its ncu
#     result IDs), $OUT/counters.csv (ncu's raw page, base units) and
#     $OUT/counters-log.txt.
#
# Each step has its own time limit (the counters' run starts no new problem
# after 140 s and is stopped at 200 s); a tool that is missing is SKIPPED
# with the reason. Exit status: 0 both steps produced their files, 1 a step
# failed, 3 neither ncu nor cuobjdump is here. Never changes the GPU's
# clocks or settings.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=gpu-check.sh
source "$ROOT/scripts/gpu-check.sh" # BUNDLE, WORK, RESULTS, say, build_runner
OUTDIR=$RESULTS

# The Nsight Compute sections and metrics (names as ncu 2025 spells them).
SECTIONS=(SpeedOfLight LaunchStats Occupancy WarpStateStats)
METRICS=smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct

find_tool() { # $1: name; the first of PATH, CUDA's bin, Nsight Compute's folder
  command -v "$1" 2>/dev/null && return 0
  local f
  for f in /usr/local/cuda/bin/"$1" /opt/nvidia/nsight-compute/*/"$1"; do
    [[ -x $f ]] && { echo "$f"; return 0; }
  done
  return 1
}

sass() {
  local ptxas cuobjdump
  ptxas=$(find_tool ptxas) || { say "SKIPPED: SASS (no ptxas)"; return 2; }
  cuobjdump=$(find_tool cuobjdump) || { say "SKIPPED: SASS (no cuobjdump)"; return 2; }
  local out=$OUTDIR/sass.txt tmp=$WORK/sass
  rm -rf "$tmp"
  mkdir -p "$tmp"
  local ptx
  for ptx in "$BUNDLE"/*/ours.ptx "$WORK"/nvcc/*/nvcc.ptx; do
    [[ -f $ptx ]] || continue
    local name variant
    name=$(basename "$(dirname "$ptx")")
    variant=$(basename "$ptx" .ptx)
    echo "$ptx $tmp/$name.$variant"
  done | xargs -P "${JOBS:-8}" -n 2 sh -c '
    ptx=$3 stem=$4
    { echo "### $(basename "$stem")"
      "$1" -arch=sm_90 "$ptx" -o "$stem.cubin" && "$2" -sass "$stem.cubin"; } >"$stem.txt" 2>&1' \
    _ "$ptxas" "$cuobjdump"
  cat "$tmp"/*.txt >"$out.tmp" 2>/dev/null && mv "$out.tmp" "$out" || return 1
  say "SASS of $(ls "$tmp"/*.cubin 2>/dev/null | wc -l) kernels' modules: $out"
}

counters() {
  local ncu
  ncu=$(find_tool ncu) || { say "SKIPPED: counters (no ncu: Nsight Compute is not installed)"; return 2; }
  local runner=$WORK/runner/tandem-gpu-runner
  [[ -x $runner ]] || build_runner "$WORK/runner" || { say "the runner does not build"; return 1; }
  local rep=$WORK/counters log=$OUTDIR/counters-log.txt
  rm -f "$rep.ncu-rep"
  local section_args=() s
  for s in "${SECTIONS[@]}"; do section_args+=(--section "$s"); done
  profile() { # $@: extra ncu arguments
    timeout 200 "$ncu" --profile-from-start off --clock-control none --cache-control none \
      "${section_args[@]}" "$@" -o "$rep" -f \
      "$runner" "$BUNDLE" --nvcc-dir "$WORK/nvcc" --out "$OUTDIR/counters-results.json" \
      --reps 20 --budget-s 140 --counters >>"$log" 2>&1
  }
  : >"$log"
  profile --metrics "$METRICS"
  local rc=$?
  if [[ ! -f $rep.ncu-rep ]]; then
    # A metric this ncu does not know fails the whole run at its start:
    # the sections alone, rather than nothing.
    say "ncu failed (status $rc) with the extra metrics; again with the sections alone"
    profile
    rc=$?
  fi
  [[ -f $rep.ncu-rep ]] || { say "ncu wrote no report (status $rc; $log)"; return 1; }
  ((rc == 0)) || say "ncu or the runner ended with status $rc (a stopped run keeps what it profiled)"
  # Base units (ns, bytes) where this ncu knows the option; else its own
  # units, which the CSV's second row names.
  "$ncu" -i "$rep.ncu-rep" --csv --page raw --print-units base >"$OUTDIR/counters.csv.tmp" \
    2>>"$log" ||
    "$ncu" -i "$rep.ncu-rep" --csv --page raw >"$OUTDIR/counters.csv.tmp" 2>>"$log" ||
    { say "ncu could not export its report ($log)"; return 1; }
  mv "$OUTDIR/counters.csv.tmp" "$OUTDIR/counters.csv"
  say "counters of $(($(wc -l <"$OUTDIR/counters.csv") - 2)) launches: $OUTDIR/counters.csv"
}

mkdir -p "$WORK" "$OUTDIR"
sass
sass_rc=$?
counters
counters_rc=$?
((sass_rc == 2 && counters_rc == 2)) && exit 3
((sass_rc == 1 || counters_rc == 1)) && exit 1
exit 0
