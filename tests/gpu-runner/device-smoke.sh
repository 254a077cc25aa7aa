#!/usr/bin/env bash
# device-smoke.sh TANDEM SMOKE FAKE_LIBCUDA: the runtime's gpu device alone
# (tools/gpu-device-smoke, carried to the lent GPU machine) through the fake
# driver: every check passes (vadd computed, counters, the three errors);
# without a driver it says so and exits 3.
set -euo pipefail
tandem=$1 smoke=$2 fake=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$tandem" suite-export "$work/bundle" --case vadd --no-llc > /dev/null
TANDEM_CUDA_LIBRARY=$fake "$smoke" "$work/bundle/vadd/ours.ptx" > "$work/out.txt" 2>&1 ||
  { echo "the gpu device smoke failed through the fake driver:"; cat "$work/out.txt"; exit 1; }
grep -q "^PASS: the runtime's gpu device, 0 failed" "$work/out.txt" ||
  { echo "no PASS line:"; cat "$work/out.txt"; exit 1; }
grep -q "^ok    rejected PTX: .*broken.ptx" "$work/out.txt" && grep -q "^JIT error log:" "$work/out.txt" ||
  { echo "the rejected PTX's error has no JIT log:"; cat "$work/out.txt"; exit 1; }
set +e
TANDEM_CUDA_LIBRARY=/nonexistent/libcuda.so.1 "$smoke" "$work/bundle/vadd/ours.ptx" > "$work/none.txt" 2>&1
status=$?
set -e
if [ "$status" -ne 3 ] || ! grep -q "cannot load the CUDA driver library" "$work/none.txt"; then
  echo "without a driver: expected status 3 and a message, got $status:"; cat "$work/none.txt"; exit 1
fi
echo "gpu device smoke: passes through the fake driver; without a driver, status 3"
