#!/usr/bin/env bash
# The README's main command: sets everything up, builds the `tandem` tool and
# runs the main job. Until the model-vs-device report exists, the main job
# assembles the sample programs, runs them on the iss device against their
# CPU references and prints their counters (`tandem samples`). Extra
# arguments go to `tandem samples`.
#
# Works from any directory; root on a fresh Debian 12 machine. TANDEM_JOBS
# sets the parallelism (default 2).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
jobs=${TANDEM_JOBS:-2}

bash scripts/install-deps.sh
cmake -G Ninja -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C build -j "$jobs" tandem
build/tools/tandem/tandem samples --device iss "$@"
echo
# The same programs on the Verilated RTL: same results and instruction
# counts, plus cycle-level counters.
build/tools/tandem/tandem samples --device rtl "$@"
