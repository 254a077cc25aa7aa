#!/usr/bin/env bash
# counters-table.sh: scripts/gpu-counters-table.py on the counters run kept
# from the lent H200 (profiles/h200-counters-*): every profiled problem of
# ours pairs with its ncu results by ID and kernel name (none unmatched),
# merge path's two kernels are summed, and the plain run's median is beside
# them. Then a CSV whose kernel names do not match is refused row by row.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
csv=$root/profiles/h200-counters-2026-12-04.csv.gz
res=$root/profiles/h200-counters-results-2026-12-04.json
plain=$root/profiles/h200-gpu-results-2026-12-04-run6.json
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$root/scripts/gpu-counters-table.py" "$csv" "$res" --results "$plain" > "$work/t.txt" ||
  { echo "the table of the kept counters run failed:"; cat "$work/t.txt"; exit 1; }
python3 - "$work/t.txt" "$res" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
r = json.load(open(sys.argv[2]))
ours = sum(1 for c in r["cases"] if "counters" in c["variants"].get("ours", {}))
ours += sum(1 for t in r["timing"] if "counters" in t["variants"].get("ours", {}))
rows = [l for l in lines[1:] if not l.startswith("unmatched")]
assert len(rows) == ours, (len(rows), ours)
assert not any(l.startswith("unmatched") for l in lines), lines
# Merge path on the 4M-row uniform matrix: both kernels (about 3.3 ms
# together, the main one 99% of it), the plain run's median beside them.
merge = [l for l in rows if l.startswith("spmv_merge") and "uniform 4194304" in l]
assert len(merge) == 1, merge
# Past the fixed-width case, input and variant columns: kernel us, event us.
kernel_us, event_us = map(float, merge[0][65:].split()[:2])
assert 3000 < kernel_us < 3600 and kernel_us < event_us < kernel_us + 100, merge[0]
PY
# Kernel names that do not match the IDs: listed as unmatched, status 1.
zcat "$csv" | sed 's/"spmv_merge_fixup"/"renamed_kernel"/' > "$work/bad.csv"
if python3 "$root/scripts/gpu-counters-table.py" "$work/bad.csv" "$res" > "$work/b.txt"; then
  echo "a CSV with other kernel names was accepted"; exit 1
fi
grep -q "^unmatched: spmv_merge .*renamed_kernel" "$work/b.txt" ||
  { echo "the mismatch is not named:"; tail -3 "$work/b.txt"; exit 1; }
echo "counters table: $(( $(wc -l < "$work/t.txt") - 1 )) problems of ours paired with their ncu results; mismatched kernel names are refused"
