#!/usr/bin/env bash
# The README's main command: sets everything up, builds the `tandem` tool and
# runs the main job, the model-versus-device report (`tandem report`,
# docs/Report.md): the kernel suite and SpMV (three variants) on the shared
# matrices and generated ones, each predicted by the simt model and measured
# on the Verilated RTL. It writes report/report.json, report.md and
# report.html at the top of the repository and prints, last, the median and
# 90th-percentile |error| per device. Extra arguments go to `tandem report`
# (for example --quick, --device all, --matrices DIR).
#
# gpu rows (docs/GPU.md): TANDEM_GPU_RESULTS=FILE adds the rows of a GPU
# runner's gpu-results.json (measured on a lent GPU by scripts/gpu-check.sh,
# bundle in build-gpu-bundle/, exported again if absent);
# profiles/h200-gpu-results-2026-12-04-run6.json is the latest run on the lent H200
# (profiles/h200-gpu-results-2026-12-04.json the one before). On a machine that has both a GPU (nvidia-smi
# lists one) and this build, the script runs the GPU check itself first
# (bundle, runner, results in build-gpu-results/) and adds its rows.
#
# Works from any directory; root on a fresh Debian 12 machine. TANDEM_JOBS
# sets the parallelism (default 2). About 10 minutes on 2 cores with a warm
# build.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
jobs=${TANDEM_JOBS:-2}

bash scripts/install-deps.sh
cmake -G Ninja -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTANDEM_DEBUG_INFO=lines >/dev/null
ninja -C build -j "$jobs" tandem
gpu_args=()
matrices=$(cd "$repo/.." && pwd)/shared/matrices
[ -d "$matrices" ] || matrices=
if [ -n "${TANDEM_GPU_RESULTS:-}" ]; then
  gpu_args=(--gpu-results "$TANDEM_GPU_RESULTS")
  # The rows' matrices come from the bundle the results were measured from;
  # exported again here when absent (the same matrices, the same sizes).
  if [ ! -f build-gpu-bundle/manifest.json ]; then
    build/tools/tandem/tandem suite-export build-gpu-bundle ${matrices:+--matrices "$matrices"} >/dev/null
  fi
elif command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "main: a GPU is present: running scripts/gpu-check.sh for the gpu rows" >&2
  ninja -C build -j "$jobs" tandem-gpu-device-smoke # the check runs it first
  if bash scripts/gpu-check.sh --prepare "$repo/build/tools/tandem/tandem" &&
     OUT="$repo/build-gpu-results" bash scripts/gpu-check.sh; then :; else
    echo "main: the GPU check failed or found wrong results (see above); its rows are still" \
         "reported where it wrote them" >&2
  fi
  if [ -f "$repo/build-gpu-results/gpu-results.json" ]; then
    gpu_args=(--gpu-results "$repo/build-gpu-results/gpu-results.json")
  fi
fi
build/tools/tandem/tandem report --out "$repo/report" "${gpu_args[@]}" "$@"
