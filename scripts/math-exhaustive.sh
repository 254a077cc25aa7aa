#!/usr/bin/env bash
# Every positive float through the math library's logf and log2f on the
# host (scripts/math-exhaustive.cpp; docs/NOTES.md records the results).
# Usage: bash scripts/math-exhaustive.sh [LIBRARY_DIR]
#   LIBRARY_DIR: a directory holding another cuda/math/tandem_math.cu to
#   measure (default: this checkout's), e.g. an older version to compare.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
lib=${1:-$root}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# -ffp-contract=off: the library spells out every fma, as on the device.
g++ -std=c++20 -O2 -ffp-contract=off -I"$lib" "$root/scripts/math-exhaustive.cpp" \
  -o "$work/math-exhaustive"
"$work/math-exhaustive" logf &
"$work/math-exhaustive" log2f
wait
