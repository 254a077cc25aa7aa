#!/usr/bin/env bash
# Our PTX against nvcc's and LLVM NVPTX's, statically, without a GPU (issue 5;
# docs/PTX.md, "Comparing with nvcc and llc").
#
#   bash scripts/ptx-compare.sh [--tandem TANDEM] [--out FILE.json] [-O0..-O3]
#
# For every suite kernel (microbench/kernels/*.cu) it builds the three PTX
# files exactly as the GPU bundle does (scripts/gpu-check.sh): ours and
# LLVM's (clang-19 -> NVPTX on our front end's module) through `tandem
# suite-export`, nvcc's (-O3 -arch=sm_90 -ptx) through gpu-check.sh's
# nvcc_ptx. ptxas -arch=sm_90 -v assembles each; per kernel and variant it
# records registers, spill bytes, SASS instructions (the cubin's .text.KERNEL
# size / 16, read by scripts/sass-loads.py: ptxas pads each kernel to 128
# bytes, so counts move in steps of 8), PTX instructions, ld.global,
# ld.global.nc and cvt counts, and from the SASS itself (the same script)
# the global loads and the most of them in one straight-line run between
# branches ("LDG run": how many loads a
# warp can have in flight; nvcc's spmv_scalar has 48, llc's 12). It prints a
# table and writes FILE.json atomically (default
# build-ptx-compare/ptx-compare.json; the PTX, cubins and ptxas logs stay in
# FILE.json's folder under ptx/SOURCE/). -O sets our and LLVM's level (default
# -O3, as the GPU bundle; nvcc is always -O3).
#
# Static SASS size is a proxy for time, not a measurement.
#
# Needs: tandem, clang-19, nvcc and ptxas (PATH or /usr/local/cuda/bin),
# python3. Exit status: 0 the table is complete (every kernel, every
# variant, every number); 1 a kernel or number is missing, or a tool failed;
# 2 usage; 77 a tool is missing (prints SKIPPED and why).
set -uo pipefail

SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# gpu-check.sh, sourced, defines nvcc_ptx (and its BUNDLE/WORK/JOBS
# variables, set again below) without running anything.
source "$SCRIPTS/gpu-check.sh"
ROOT=$(cd "$SCRIPTS/.." && pwd)
VARIANTS=(ours nvcc llc)

say() { echo "ptx-compare: $*" >&2; }
skip() { echo "SKIPPED: ptx-compare: $*"; exit 77; }

TANDEM=$ROOT/build/tools/tandem/tandem
OUTFILE=$ROOT/build-ptx-compare/ptx-compare.json
OPT=3
while (($#)); do
  case $1 in
    --tandem) TANDEM=${2:?--tandem needs a path}; shift 2 ;;
    --out) OUTFILE=${2:?--out needs a file}; shift 2 ;;
    -O[0-3]) OPT=${1#-O}; shift ;;
    -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) say "unknown argument '$1' (see --help)"; exit 2 ;;
  esac
done

find_tool() { # $1: name; prints its path, or nothing
  command -v "$1" 2>/dev/null || { [[ -x /usr/local/cuda/bin/$1 ]] && echo "/usr/local/cuda/bin/$1"; }
}
PTXAS=$(find_tool ptxas)
[[ -n $PTXAS ]] || skip "no ptxas (CUDA toolkit) on PATH or in /usr/local/cuda/bin"
[[ -n $(find_tool nvcc) ]] || skip "no nvcc (CUDA toolkit) on PATH or in /usr/local/cuda/bin"
PATH=$(dirname "$PTXAS"):$PATH # nvcc_ptx looks nvcc up on PATH
command -v python3 >/dev/null || skip "no python3 to read the cubins"
command -v "${TANDEM_CLANG:-clang-19}" >/dev/null || skip "no clang-19 for LLVM's PTX"
[[ -x $TANDEM ]] || { say "no tandem binary at '$TANDEM' (build it, or pass --tandem)"; exit 2; }

mkdir -p "$(dirname "$OUTFILE")" || exit 1
OUTDIR=$(cd "$(dirname "$OUTFILE")" && pwd)
OUTFILE=$OUTDIR/$(basename "$OUTFILE")
WORK=$OUTDIR/work        # nvcc_ptx writes $WORK/nvcc/CASE/nvcc.ptx
BUNDLE=$WORK/bundle      # tandem suite-export's case folders
PTXDIR=$OUTDIR/ptx
JOBS=$(nproc 2>/dev/null || echo 2)
rm -rf "$WORK" "$PTXDIR"
mkdir -p "$WORK" "$PTXDIR"

say "our and LLVM's PTX (tandem suite-export -O$OPT)"
"$TANDEM" suite-export "$BUNDLE" "-O$OPT" >"$WORK/export.log" 2>&1 \
  || { cat "$WORK/export.log" >&2; say "tandem suite-export failed"; exit 1; }
say "nvcc's PTX"
nvcc_ptx 2>"$WORK/nvcc.log" || { cat "$WORK/nvcc.log" >&2; exit 1; }
grep -q "failed" "$WORK/nvcc.log" && { cat "$WORK/nvcc.log" >&2; exit 1; }

# One case per source file (spmv_scalar and spmv_vector share spmv.cu):
# PTX holds every kernel of its file.
declare -A CASE_OF_SOURCE
for dir in "$BUNDLE"/*/; do
  case=$(basename "$dir")
  for src in "$dir"*.cu; do
    [[ -e $src ]] || continue
    name=$(basename "$src" .cu)
    [[ -n ${CASE_OF_SOURCE[$name]:-} ]] || CASE_OF_SOURCE[$name]=$case
  done
done

# Per-kernel statistics of one PTX file, one line per kernel:
#   kernel regs spill_bytes sass_instrs ptx_instrs ld_global ld_global_nc cvt
#   sass_ldg sass_max_ldg_run
# (missing numbers are "-"; sass_instrs and the last two from
# scripts/sass-loads.py, one read of the cubin).
kernel_stats() { # $1: X.ptx (writes X.cubin and X.ptxas.log next to it)
  local ptx=$1 base=${1%.ptx}
  "$PTXAS" -arch=sm_90 -v "$ptx" -o "$base.cubin" >"$base.ptxas.log" 2>&1 \
    || { say "ptxas rejected $ptx:"; cat "$base.ptxas.log" >&2; return 1; }
  python3 "$SCRIPTS/sass-loads.py" "$base.cubin" >"$base.loads" \
    || { say "cannot read the SASS of $base.cubin"; return 1; }
  awk -v LOG="$base.ptxas.log" -v LOADS="$base.loads" '
    BEGIN {
      while ((getline l < LOG) > 0) {
        if (match(l, /entry function .[^\047]+/)) { k = substr(l, RSTART + 16, RLENGTH - 16); order[++n] = k }
        if (match(l, /[0-9]+ bytes spill stores, [0-9]+ bytes spill loads/)) {
          split(substr(l, RSTART, RLENGTH), w, " "); spill[k] = w[1] + w[5]
        }
        if (match(l, /Used [0-9]+ registers/)) { split(substr(l, RSTART, RLENGTH), w, " "); regs[k] = w[2] }
      }
      # KERNEL INSTRUCTIONS LDG STG BRANCHES MAX_LDG_RUN
      while ((getline l < LOADS) > 0) { split(l, f, " "); sass[f[1]] = f[2]; ldg[f[1]] = f[3]; ldgrun[f[1]] = f[6] }
    }
    # The PTX: instructions per .entry body (lines ending in ";" that are
    # not declarations or directives).
    match($0, /\.entry[ \t]+[A-Za-z_$%][A-Za-z0-9_$]*/) {
      cur = $0; sub(/.*\.entry[ \t]+/, "", cur); sub(/[^A-Za-z0-9_$].*/, "", cur); next
    }
    cur == "" { next }
    /^[ \t]*(\/\/|\.|\{|\}|\$|$)/ { next }
    /;[ \t]*(\/\/.*)?$/ {
      ptx[cur]++
      if ($0 ~ /ld\.global\.nc/) nc[cur]++
      else if ($0 ~ /ld\.global\./) ld[cur]++
      if ($0 ~ /(^|[ \t])cvt\./) cvt[cur]++
    }
    function v(x) { return x == "" ? "-" : x }
    END {
      for (i = 1; i <= n; i++) {
        k = order[i]
        print k, v(regs[k]), v(spill[k]), v(sass[k]), v(ptx[k]), ld[k] + 0, nc[k] + 0, cvt[k] + 0, v(ldg[k]), v(ldgrun[k])
      }
    }' "$ptx"
}

say "ptxas -arch=sm_90 -v on $(( ${#CASE_OF_SOURCE[@]} * 3 )) files"
STATS=$WORK/stats.txt # source variant kernel regs spill sass ptx ld nc cvt ldg ldgrun
: >"$STATS"
status=0
for name in $(printf '%s\n' "${!CASE_OF_SOURCE[@]}" | sort); do
  case=${CASE_OF_SOURCE[$name]}
  mkdir -p "$PTXDIR/$name"
  cp "$BUNDLE/$case/ours.ptx" "$PTXDIR/$name/ours.ptx"
  cp "$BUNDLE/$case/llc.ptx" "$PTXDIR/$name/llc.ptx"
  cp "$WORK/nvcc/$case/nvcc.ptx" "$PTXDIR/$name/nvcc.ptx" 2>/dev/null \
    || { say "$name: no nvcc PTX"; status=1; continue; }
  for variant in "${VARIANTS[@]}"; do
    kernel_stats "$PTXDIR/$name/$variant.ptx" | sed "s/^/$name $variant /" >>"$STATS" || status=1
  done
done

# Every kernel of every source file must have every number in every variant.
KERNELS=$(for f in "$ROOT"/microbench/kernels/*.cu; do
  sed -n 's/.*__global__[^(]*[ *]\([A-Za-z_][A-Za-z0-9_]*\)(.*/\1/p' "$f" | sed "s/^/$(basename "$f" .cu) /"
done)
missing=$(echo "$KERNELS" | while read -r src kernel; do
  for variant in "${VARIANTS[@]}"; do
    awk -v s="$src" -v v="$variant" -v k="$kernel" '
      $1 == s && $2 == v && $3 == k { found = 1; for (i = 4; i <= NF; i++) if ($i == "-") bad = 1 }
      END { if (!found || bad) print s ".cu " k " (" v ")" }' "$STATS"
  done
done)

# The table and the JSON (written to a temporary file, then renamed).
echo "$KERNELS" | awk -v STATS="$STATS" -v JSON="$OUTFILE.tmp" -v OPT="$OPT" '
  BEGIN {
    while ((getline l < STATS) > 0) {
      split(l, f, " "); key = f[1] SUBSEP f[3] SUBSEP f[2]
      regs[key] = f[4]; spill[key] = f[5]; sass[key] = f[6]; ptx[key] = f[7]
      ld[key] = f[8]; nc[key] = f[9]; cvt[key] = f[10]; ldg[key] = f[11]; ldgrun[key] = f[12]
    }
    nv = split("ours nvcc llc", V, " ")
    printf "%-16s %-18s %6s %6s %6s %9s %8s %14s %11s %17s %12s\n", "kernel", "source", "ours", "nvcc",
      "llc", "ours/nvcc", "ours/llc", "regs o/n/l", "spill B o/n/l", "ld.g/ld.g.nc o|n|l", "LDG run o/n/l"
    printf "{\n  \"what\": \"static SASS size (ptxas -arch=sm_90 .text / 16) and PTX counts per kernel; a proxy, not a time\",\n" > JSON
    printf "  \"opt_level\": %d,\n  \"kernels\": [", OPT > JSON
  }
  function num(x) { return (x == "" || x == "-") ? "null" : x }
  function ratio(a, b) { return (a == "" || a == "-" || b == "" || b == "-" || b == 0) ? "" : a / b }
  {
    src = $1; k = $2; o = src SUBSEP k
    r1 = ratio(sass[o SUBSEP "ours"], sass[o SUBSEP "nvcc"]); r2 = ratio(sass[o SUBSEP "ours"], sass[o SUBSEP "llc"])
    if (r1 != "") { g1 += log(r1); n1++ }
    if (r2 != "") { g2 += log(r2); n2++ }
    if (ldgrun[o SUBSEP "ours"] + 0 < ldgrun[o SUBSEP "nvcc"] + 0) fewer = fewer " " k
    printf "%-16s %-18s %6s %6s %6s %9s %8s %14s %11s %17s %12s\n", k, src ".cu",
      sass[o SUBSEP "ours"], sass[o SUBSEP "nvcc"], sass[o SUBSEP "llc"],
      r1 == "" ? "-" : sprintf("%.3f", r1), r2 == "" ? "-" : sprintf("%.3f", r2),
      regs[o SUBSEP "ours"] "/" regs[o SUBSEP "nvcc"] "/" regs[o SUBSEP "llc"],
      spill[o SUBSEP "ours"] "/" spill[o SUBSEP "nvcc"] "/" spill[o SUBSEP "llc"],
      ld[o SUBSEP "ours"] "/" nc[o SUBSEP "ours"] " " ld[o SUBSEP "nvcc"] "/" nc[o SUBSEP "nvcc"] " " ld[o SUBSEP "llc"] "/" nc[o SUBSEP "llc"],
      ldgrun[o SUBSEP "ours"] "/" ldgrun[o SUBSEP "nvcc"] "/" ldgrun[o SUBSEP "llc"]
    printf "%s\n    {\"kernel\": \"%s\", \"source\": \"%s.cu\", \"ours_over_nvcc_sass\": %s, \"ours_over_llc_sass\": %s", rows++ ? "," : "", k, src,
      r1 == "" ? "null" : sprintf("%.4f", r1), r2 == "" ? "null" : sprintf("%.4f", r2) > JSON
    for (i = 1; i <= nv; i++) {
      key = o SUBSEP V[i]
      printf ",\n     \"%s\": {\"sass_instructions\": %s, \"registers\": %s, \"spill_bytes\": %s, \"ptx_instructions\": %s, \"ld_global\": %s, \"ld_global_nc\": %s, \"cvt\": %s, \"sass_ldg\": %s, \"sass_max_ldg_run\": %s}",
        V[i], num(sass[key]), num(regs[key]), num(spill[key]), num(ptx[key]), num(ld[key]), num(nc[key]), num(cvt[key]), num(ldg[key]), num(ldgrun[key]) > JSON
    }
    printf "}" > JSON
  }
  END {
    m1 = n1 ? exp(g1 / n1) : 0; m2 = n2 ? exp(g2 / n2) : 0
    printf "geometric mean of SASS instructions: ours/nvcc %.3f over %d kernels, ours/llc %.3f over %d\n", m1, n1, m2, n2
    printf "kernels whose LDG run is shorter than nvcc\047s:%s\n", fewer == "" ? " none" : fewer
    printf "\n  ],\n  \"geomean_ours_over_nvcc_sass\": %s,\n  \"geomean_ours_over_llc_sass\": %s\n}\n",
      n1 ? sprintf("%.4f", m1) : "null", n2 ? sprintf("%.4f", m2) : "null" > JSON
  }' && mv "$OUTFILE.tmp" "$OUTFILE" || { say "cannot write $OUTFILE"; exit 1; }

say "wrote $OUTFILE (PTX, cubins and ptxas logs in $PTXDIR)"
if [[ -n $missing ]]; then
  say "the table is incomplete; missing or without every number:"
  echo "$missing" | sed 's/^/  /' >&2
  exit 1
fi
exit $status
