#!/usr/bin/env python3
"""The table of a counters run (scripts/gpu-counters.sh): each profiled
problem's kernels as Nsight Compute measured them, beside the plain run's
event-timed median.

    python3 scripts/gpu-counters-table.py COUNTERS.csv[.gz] COUNTERS-RESULTS.json
                                          [--results GPU-RESULTS.json]
                                          [--variant ours|nvcc|all]

COUNTERS.csv is ncu's raw page (--csv --page raw); COUNTERS-RESULTS.json the
runner's --counters results, whose timed variants name their ncu result IDs
("counters": first_id, kernels, kernel_names). With --results (the plain
run's gpu-results.json, timed without a profiler: the counters run's own
event times include ncu's overhead), each row also gets that run's median
and its gap over the kernels' own time: what the launch costs beyond the
kernels, as the gpu model's launch term must account for it.

Columns: kernels' gpu__time_duration (us, summed over the problem's
launches), the plain run's median and the gap (us), DRAM read+write (MB),
warp instructions (M), the first kernel's L2 hit rate (%) and its three
largest warp stall reasons (warps stalled per issue,
smsp__average_warps_issue_stalled_*). Rows whose IDs or kernel names do not
match the CSV are listed as unmatched, never paired by guess.
"""
import argparse
import csv
import gzip
import json
import sys

STALL_PREFIX = "smsp__average_warps_issue_stalled_"


def number(text):
    """ncu's numbers come with thousands separators ('1,856')."""
    try:
        return float(text.replace(",", ""))
    except (AttributeError, ValueError):
        return None


def read_ncu(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", newline="") as f:
        rows = list(csv.reader(f))
    if len(rows) < 2 or "ID" not in rows[0]:
        sys.exit(f"{path}: not ncu's raw CSV page (no header row with 'ID')")
    header = rows[0]
    by_id = {}
    for line, row in enumerate(rows[2:], start=3):  # row 2: the units
        if len(row) != len(header):
            sys.exit(f"{path}:{line}: {len(row)} fields, the header has {len(header)}")
        fields = dict(zip(header, row))
        by_id[int(fields["ID"])] = fields
    return by_id


def plain_medians(path):
    """(case, size, variant) -> median ms of the plain run."""
    with open(path) as f:
        results = json.load(f)
    medians = {}
    for case in results.get("cases", []):
        for variant, v in case.get("variants", {}).items():
            if "time" in v:
                medians[(case["name"], case["size"], variant)] = v["time"]["median_ms"]
    for timing in results.get("timing", []):
        for variant, v in timing.get("variants", {}).items():
            if "time" in v:
                medians[(timing["case"], timing["size"], variant)] = v["time"]["median_ms"]
    return medians


def problems(results):
    """(case, size, label, variant, counters) of every profiled launch set."""
    for case in results.get("cases", []):
        for variant, v in case.get("variants", {}).items():
            if "counters" in v:
                yield case["name"], case["size"], "suite size", variant, v["counters"]
    for timing in results.get("timing", []):
        label = timing.get("matrix") or timing["size"]
        for variant, v in timing.get("variants", {}).items():
            if "counters" in v:
                yield timing["case"], timing["size"], label, variant, v["counters"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("counters_csv")
    ap.add_argument("counters_results")
    ap.add_argument("--results", help="the plain run's gpu-results.json")
    ap.add_argument("--variant", default="ours", choices=["ours", "nvcc", "all"])
    args = ap.parse_args()

    by_id = read_ncu(args.counters_csv)
    with open(args.counters_results) as f:
        results = json.load(f)
    if not results.get("counters_run"):
        sys.exit(f"{args.counters_results}: not a --counters run's results")
    medians = plain_medians(args.results) if args.results else {}

    print(f"{'case':15s} {'input':40s} {'variant':7s} {'kernel us':>10s} {'event us':>9s} "
          f"{'gap us':>7s} {'DRAM MB':>9s} {'warp inst M':>11s} {'L2 hit%':>7s}  stalls")
    unmatched = []
    for case, size, label, variant, counters in problems(results):
        if args.variant != "all" and variant != args.variant:
            continue
        ids = range(counters["first_id"], counters["first_id"] + counters["kernels"])
        kernels = [by_id.get(i) for i in ids]
        names = [k["Kernel Name"] if k else None for k in kernels]
        if names != counters["kernel_names"]:
            unmatched.append(f"{case} {label} ({variant}): IDs {list(ids)} hold {names}, "
                             f"the run launched {counters['kernel_names']}")
            continue

        def total(metric):
            values = [number(k.get(metric, "")) for k in kernels]
            return sum(v for v in values if v is not None)

        kernel_us = total("gpu__time_duration.sum") / 1e3
        event = medians.get((case, size, variant))
        event_text = f"{event * 1e3:9.2f}" if event is not None else f"{'-':>9s}"
        gap_text = f"{event * 1e3 - kernel_us:7.2f}" if event is not None else f"{'-':>7s}"
        dram_mb = (total("dram__bytes_read.sum") + total("dram__bytes_write.sum")) / 1e6
        first = kernels[0]
        stalls = sorted(((m[len(STALL_PREFIX):].split("_per_")[0], number(v) or 0)
                         for m, v in first.items() if m.startswith(STALL_PREFIX)),
                        key=lambda kv: -kv[1])
        stall_text = ", ".join(f"{name} {value:.1f}" for name, value in stalls[:3])
        hit = number(first.get("lts__t_sector_hit_rate.pct", ""))
        print(f"{case:15s} {label[-40:]:40s} {variant:7s} {kernel_us:10.2f} {event_text} "
              f"{gap_text} {dram_mb:9.1f} {total('smsp__inst_executed.sum') / 1e6:11.2f} "
              f"{hit if hit is not None else float('nan'):7.1f}  {stall_text}")
    for line in unmatched:
        print(f"unmatched: {line}")
    return 1 if unmatched else 0


if __name__ == "__main__":
    sys.exit(main())
