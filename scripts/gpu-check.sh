#!/usr/bin/env bash
# The GPU check (docs/GPU.md, issue 5): the kernel suite on a real NVIDIA GPU,
# our PTX against nvcc's and LLVM NVPTX's, and SpMV against cuSPARSE.
#
#   bash scripts/gpu-check.sh --prepare [TANDEM]   here (LLVM 19, no GPU):
#       write the bundle (tandem suite-export) to build-gpu-bundle/, with
#       tandem-gpu-device-smoke (the runtime's gpu device, built beside
#       TANDEM) in it, and build the runner with g++ to prove it compiles.
#       TANDEM is the tandem binary (default build/tools/tandem/tandem).
#   bash scripts/gpu-check.sh                      on the lent GPU machine
#       (CUDA, CMake, no LLVM): the runtime's gpu device's smoke checks,
#       nvcc's PTX of every case, the runner built, run (under 5 minutes:
#       no new timing after 240 s, stopped at 290 s), results in
#       $OUT/gpu-results.json and device-smoke.txt (or build-gpu-results/
#       without $OUT; whole after every entry, so a stopped run keeps what
#       it measured), the table printed last.
#
# Exit status: 0 every suite case correct from our PTX and the runtime's gpu
# device passed its smoke checks; 1 a wrong result or a failure; 3 no GPU or
# no driver here (nothing measured); 2 usage; 124 the runner was stopped at
# 290 s (the table is of what it measured until then).
# Never changes the GPU's clocks or settings.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUNDLE=${TANDEM_GPU_BUNDLE:-$ROOT/build-gpu-bundle}
WORK=${TMPDIR:-/tmp}/tandem-gpu-check
RESULTS=${OUT:-$ROOT/build-gpu-results}
JOBS=${TANDEM_JOBS:-8}

say() { echo "gpu-check: $*" >&2; }

cmake_runner() { # $1: build folder, $2: ON|OFF (cuSPARSE)
  cmake -G Ninja -S "$ROOT/gpu" -B "$1" -DCMAKE_BUILD_TYPE=Release -DTANDEM_GPU_CUSPARSE="$2" \
    >"$1.configure.log" 2>&1 || { cat "$1.configure.log" >&2; return 1; }
  ninja -C "$1" >"$1.build.log" 2>&1 || { cat "$1.build.log" >&2; return 1; }
}

build_runner() { # $1: build folder
  if command -v cmake >/dev/null && command -v ninja >/dev/null; then
    cmake_runner "$1" ON && return 0
    # The cuSPARSE part compiles against the development container's CUDA
    # 13.0 but has never run: should another toolkit refuse it, build
    # without it rather than lose the whole check.
    say "the runner does not build with cuSPARSE (log above): building it without"
    rm -rf "$1"
    cmake_runner "$1" OFF
  else # no CMake: the runner alone, without cuSPARSE
    mkdir -p "$1"
    g++ -std=c++17 -O2 -Wall -Wextra -Werror -DTANDEM_HAVE_CUSPARSE=0 "$ROOT/gpu/Runner.cpp" \
      -o "$1/tandem-gpu-runner" -ldl || return 1
  fi
}

prepare() {
  local tandem=${1:-$ROOT/build/tools/tandem/tandem}
  [[ -x $tandem ]] || { say "no tandem binary at '$tandem' (build it, or pass its path)"; exit 2; }
  local matrices=$ROOT/../shared/matrices
  rm -rf "$BUNDLE"
  "$tandem" suite-export "$BUNDLE" ${matrices:+--matrices "$matrices"} || exit 1
  # The runtime's own gpu device, carried as a program that needs no LLVM
  # (tools/gpu-device-smoke): the check runs it first.
  local smoke; smoke=$(dirname "$tandem")/../gpu-device-smoke/tandem-gpu-device-smoke
  if [[ -x $smoke ]]; then
    cp "$smoke" "$BUNDLE/"
  else
    say "no tandem-gpu-device-smoke beside '$tandem' (ninja tandem-gpu-device-smoke): the check will skip it"
  fi
  local kib; kib=$(du -sk "$BUNDLE" | cut -f1)
  say "bundle: $BUNDLE ($((kib / 1024)) MiB; the device tool carries at most 64 MiB in all)"
  (( kib < 60 * 1024 )) || { say "the bundle is too large to carry"; exit 1; }
  rm -rf "$WORK/runner"
  mkdir -p "$WORK"
  build_runner "$WORK/runner" || { say "the runner does not build"; exit 1; }
  say "runner builds: $WORK/runner/tandem-gpu-runner"
  say "next: device run, carry [\"build-gpu-bundle\"], command 'bash scripts/gpu-check.sh'"
}

nvcc_ptx() { # nvcc -O3 -arch=sm_90 -ptx of each case's source, in parallel
  local nvcc; nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  if [[ ! -x $nvcc ]]; then
    say "no nvcc here: the nvcc column stays empty"
    return 0
  fi
  "$nvcc" --version | tail -1 >&2
  local src
  for src in "$BUNDLE"/*/*.cu; do
    local case; case=$(basename "$(dirname "$src")")
    mkdir -p "$WORK/nvcc/$case"
    echo "$src $WORK/nvcc/$case/nvcc.ptx"
  done | xargs -P "$JOBS" -n 2 sh -c '"$0" -O3 -arch=sm_90 -ptx "$1" -o "$2" || echo "nvcc failed on $1" >&2' "$nvcc"
}

check() {
  [[ -f $BUNDLE/manifest.json ]] || {
    say "no bundle at $BUNDLE: run 'bash scripts/gpu-check.sh --prepare' on the development"
    say "machine and carry build-gpu-bundle with the device tool (docs/GPU.md)"
    exit 2
  }
  mkdir -p "$WORK" "$RESULTS"
  rm -rf "$WORK/nvcc"
  say "nvidia-smi: $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader 2>/dev/null || echo 'not available (no driver?)')"
  local smoke_rc=0
  if [[ -x $BUNDLE/tandem-gpu-device-smoke ]]; then
    say "the runtime's gpu device (tandem-gpu-device-smoke):"
    "$BUNDLE/tandem-gpu-device-smoke" "$BUNDLE/vadd/ours.ptx" 2>&1 | tee "$RESULTS/device-smoke.txt" >&2
    smoke_rc=${PIPESTATUS[0]}
  else
    say "SKIPPED: the runtime's gpu device (no tandem-gpu-device-smoke in the bundle)"
  fi
  nvcc_ptx
  build_runner "$WORK/runner" || { say "the runner does not build"; exit 1; }
  local table=$WORK/table.txt
  # The runner starts no timing problem after 240 s (--budget-s) and lists
  # the rest as skipped; the 290 s timeout is the backstop should one
  # problem run long. Its results file is whole after every entry, so even
  # then what was measured comes back, and its table is printed from it.
  timeout 290 "$WORK/runner/tandem-gpu-runner" "$BUNDLE" --nvcc-dir "$WORK/nvcc" \
    --out "$RESULTS/gpu-results.json" --reps 25 --budget-s 240 \
    >"$table" 2> >(tee "$RESULTS/runner-log.txt" >&2)
  local rc=$?
  case $rc in
    3) say "no GPU or no CUDA driver on this machine: the runner was built, nothing was measured"
       exit 3 ;;
    124|137)
      say "the runner ran past 290 s and was stopped; log in $RESULTS/runner-log.txt"
      if [[ -f $RESULTS/gpu-results.json ]]; then
        say "the table of what it measured before it was stopped:"
        "$WORK/runner/tandem-gpu-runner" --summarize "$RESULTS/gpu-results.json" >"$table"
      fi ;;
  esac
  cat "$table"
  if ((rc == 0 && smoke_rc != 0)); then
    say "the runtime's gpu device failed its smoke checks (status $smoke_rc; $RESULTS/device-smoke.txt)"
    rc=1
  fi
  exit $rc
}

# Sourced (scripts/ptx-compare.sh reuses nvcc_ptx): the functions only.
[[ ${BASH_SOURCE[0]} != "$0" ]] && return 0

case "${1:-}" in
  --prepare) shift; prepare "$@" ;;
  "") check ;;
  -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//' ;;
  *) say "unknown argument '$1' (use --prepare, or nothing)"; exit 2 ;;
esac
