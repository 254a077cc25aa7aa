#!/usr/bin/env bash
# ctest ptx-compare-table-complete: runs scripts/ptx-compare.sh and checks,
# independently of the script's own check, that every __global__ kernel of
# microbench/kernels/*.cu has a table row and a JSON entry with every number
# (SASS instructions, registers, spill bytes, PTX counts) for ours, nvcc and
# llc, and that the ratios are the SASS counts' quotients.
#   check.sh TANDEM OUT.json       exit 0 pass, 1 fail, 77 skipped
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TANDEM=$1 OUT=$2
TABLE=${OUT%.json}.table.txt
rm -f "$OUT"
bash "$ROOT/scripts/ptx-compare.sh" --tandem "$TANDEM" --out "$OUT" >"$TABLE"
rc=$?
cat "$TABLE"
[[ $rc == 77 ]] && exit 77 # the script printed SKIPPED and why
[[ $rc == 0 ]] || { echo "FAIL: ptx-compare.sh exited $rc"; exit 1; }
for f in "$ROOT"/microbench/kernels/*.cu; do
  sed -n 's/.*__global__[^(]*[ *]\([A-Za-z_][A-Za-z0-9_]*\)(.*/\1/p' "$f"
done >"$OUT.kernels"
python3 - "$OUT" "$OUT.kernels" "$TABLE" <<'PY'
import json, re, sys
doc = json.load(open(sys.argv[1]))
want = open(sys.argv[2]).read().split()
table = open(sys.argv[3]).read().splitlines()
rows = {k["kernel"]: k for k in doc["kernels"]}
bad = []
if len(want) < 17:
    bad.append(f"only {len(want)} kernels found in microbench/kernels")
for k in want:
    r = rows.get(k)
    if not r:
        bad.append(f"{k}: no JSON entry"); continue
    for v in ("ours", "nvcc", "llc"):
        for field in ("sass_instructions", "registers", "spill_bytes", "ptx_instructions",
                      "ld_global", "ld_global_nc", "cvt"):
            x = r.get(v, {}).get(field)
            if not isinstance(x, (int, float)) or x < 0:
                bad.append(f"{k} {v}: {field} is {x!r}")
        if not r.get(v, {}).get("sass_instructions"):
            bad.append(f"{k} {v}: no SASS")
    if all(isinstance(r.get(v, {}).get("sass_instructions"), (int, float)) for v in ("ours", "nvcc")):
        q = r["ours"]["sass_instructions"] / r["nvcc"]["sass_instructions"]
        if abs(q - r["ours_over_nvcc_sass"]) > 1e-3:
            bad.append(f"{k}: ours_over_nvcc_sass {r['ours_over_nvcc_sass']} is not {q:.4f}")
    line = [l for l in table if l.split()[:1] == [k]]
    if len(line) != 1 or not all(re.fullmatch(r"\d+", c) for c in line[0].split()[2:5]):
        bad.append(f"{k}: no complete table row")
if not isinstance(doc.get("geomean_ours_over_nvcc_sass"), (int, float)):
    bad.append("no geomean_ours_over_nvcc_sass")
for b in bad:
    print("FAIL:", b)
print("PASS" if not bad else f"{len(bad)} problems", f"({len(want)} kernels)")
sys.exit(1 if bad else 0)
PY
