#!/usr/bin/env bash
# The README's test command: sets everything up and runs every test.
#
#   1. installs the dependencies (scripts/install-deps.sh; root on a fresh
#      Debian 12 machine, a no-op when all is there);
#   2. build/: configures and builds everything (RelWithDebInfo with line
#      tables only, TANDEM_DEBUG_INFO=lines, -Werror) and
#      runs ctest: unit, compiler, kernel suite (iss and rtl), golden-file
#      (lit), Verilator and install tests;
#   3. build-asan/: builds only the unit tests (ours, the compiler's and the
#      differ's) under AddressSanitizer and UndefinedBehaviorSanitizer (at
#      -Og, which the sanitizers compile ~3x faster than -O2) and runs them.
#
# Works from any directory. TANDEM_JOBS sets the parallelism (default 2, the
# CI machine's cores). .ci/run runs exactly this script.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
jobs=${TANDEM_JOBS:-2}

step() { printf '\n== %s (%ds)\n' "$1" "$SECONDS"; }

step "dependencies"
bash scripts/install-deps.sh

step "build/: configure and build everything"
cmake -G Ninja -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTANDEM_DEBUG_INFO=lines
ninja -C build -j "$jobs"

step "build/: all tests"
ctest --test-dir build --output-on-failure -j "$jobs"

# The sanitizer build compiles only the unit tests, the compiler's unit tests,
# the differ's tests and what they link; the benchmarks and the tools are covered by build/ already.
step "build-asan/: configure and build the unit tests"
cmake -G Ninja -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTANDEM_DEBUG_INFO=lines -DTANDEM_SANITIZE=ON -DTANDEM_BUILD_BENCHMARKS=OFF
ninja -C build-asan -j "$jobs" tandem-unittests tandem-compiler-tests tandem-diff-tests

step "build-asan/: unit tests under ASan and UBSan"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
build-asan/tests/unit/tandem-unittests --gtest_brief=1
build-asan/tests/compiler/tandem-compiler-tests --gtest_brief=1
build-asan/tests/diff/tandem-diff-tests --gtest_brief=1

step "all tests passed"
