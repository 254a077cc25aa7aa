#!/usr/bin/env bash
# Usage: tests/install/run.sh BUILD_DIR
#
# Installs the Tandem build in BUILD_DIR into a temporary prefix, then
# configures, builds and runs tests/install/consumer against that prefix
# only: proves that find_package(Tandem) and Tandem::runtime work for a
# project outside this tree. Registered as the ctest test
# `install-find-package` (tests/install/CMakeLists.txt).
set -euo pipefail

if [ $# -ne 1 ] || [ ! -f "$1/CMakeCache.txt" ]; then
  echo "usage: $0 BUILD_DIR (a configured Tandem build directory)" >&2
  exit 2
fi
build_dir=$(cd "$1" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/tandem-install-test.XXXXXX")
trap 'rm -rf "$work"' EXIT

cache_value() { sed -n "s/^$1:[A-Z]*=//p" "$build_dir/CMakeCache.txt"; }

# Build what gets installed (nothing to do after a full build), so a tree
# where only some targets were built still installs completely.
cmake --build "$build_dir" --target tandem-install-inputs

cmake --install "$build_dir" --prefix "$work/prefix" >"$work/install.log" ||
  { cat "$work/install.log" >&2; exit 1; }

# Same compiler as the build: a sanitized Tandem needs that compiler's
# sanitizer runtime at link time.
generator_args=()
if command -v ninja >/dev/null; then generator_args=(-G Ninja); fi
cmake -S "$here/consumer" -B "$work/build" "${generator_args[@]}" \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_COMPILER="$(cache_value CMAKE_CXX_COMPILER)" \
  -DCMAKE_PREFIX_PATH="$work/prefix" >"$work/configure.log" ||
  { cat "$work/configure.log" >&2; exit 1; }
cmake --build "$work/build"

output=$("$work/build/tandem-consumer")
echo "$output"
if [ "$output" != "device: iss" ]; then
  echo "install test: expected 'device: iss' from the consumer" >&2
  exit 1
fi
echo "install test: find_package(Tandem) from $work/prefix works"
