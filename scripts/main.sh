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
# Works from any directory; root on a fresh Debian 12 machine. TANDEM_JOBS
# sets the parallelism (default 2). About 10 minutes on 2 cores with a warm
# build.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
jobs=${TANDEM_JOBS:-2}

bash scripts/install-deps.sh
cmake -G Ninja -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C build -j "$jobs" tandem
build/tools/tandem/tandem report --out "$repo/report" "$@"
