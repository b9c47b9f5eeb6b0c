#!/usr/bin/env python3
"""Rows for bench/results/gpu-history.csv from GPU benchmark JSON files.

usage: bench/gpu_history.py --header
       bench/gpu_history.py FILE.json... >> bench/results/gpu-history.csv

Reads the JSON of kselect-gpu-bench, kselect-filter-bench, kselect-approx-bench,
kselect-mpi-bench and bench/python/compare_*.py (their list of rows: "results", "rows", or "topk" for
kselect-gpu-bench --topk) and writes
one CSV row per run and case: the date, machine, commit and benchmark, the case
(its non-timing fields, key=value joined by ';') and its timings in ms (the
fields named ms or *_ms, likewise joined). The commit is the file's own field, or
taken from a name <device>-<date>-<commit>[-<bench>].json.
"""
import csv
import json
import os
import re
import sys

HEADER = ["date", "machine", "commit", "bench", "case", "timings_ms"]
NAME = re.compile(r"^(?P<machine>[a-z0-9]+)-(?P<date>\d{4}-\d\d-\d\d)-(?P<commit>[0-9a-f]{7})(?:-(?P<bench>.+))?\.json$")
# Fields that vary with the measurement rather than name the case.
MEASURED = {"correct", "check", "gbps", "copy_gbps", "pct_copy", "vs_cub", "ideal_ms", "selected", "candidates",
            "max_error_fraction", "bytes", "status",
            # kselect-mpi-bench: the call's report and its description
            "call", "runs", "rounds", "rounds_min", "collectives", "bytes_sent_max", "bytes_sent_mean",
            "bytes_sent_per_process", "candidates_after_round", "gathered_keys", "per_process_median_ms",
            # kselect-host-stream-bench: rates derived from ms and the same run's copy bandwidth
            "gbs", "of_pinned", "pinned_h2d_gbs"}


def rows_of(path):
    d = json.load(open(path))
    m = NAME.match(os.path.basename(path))
    date = (d.get("date") or (m and m["date"]) or "")[:10]
    commit = d.get("commit") or (m and m["commit"]) or ""
    machine = (m and m["machine"]) or ""
    bench = (m and m["bench"]) or "select"
    for r in d.get("results") or d.get("rows") or d.get("topk") or []:
        timings = {k: v for k, v in r.items() if (k == "ms" or k.endswith("_ms")) and isinstance(v, (int, float))}
        case = {k: v for k, v in r.items() if k not in timings and k not in MEASURED and v is not None}
        yield [date, machine, commit, bench,
               ";".join(f"{k}={v}" for k, v in sorted(case.items())),
               ";".join(f"{k}={v:.4f}" for k, v in sorted(timings.items()))]


def main():
    w = csv.writer(sys.stdout, lineterminator="\n")
    if sys.argv[1:] == ["--header"]:
        w.writerow(HEADER)
        return
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        for row in rows_of(path):
            w.writerow(row)


if __name__ == "__main__":
    main()
