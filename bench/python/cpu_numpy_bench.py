#!/usr/bin/env python3
"""kselect's CPU backend against NumPy on the same data, in one run.

For each size, dtype and distribution, runs kselect-cpu-bench (bench/cpu/cpu_bench.cpp:
read floor, kselect select n/2 and 101 percentiles, std::nth_element, std::sort), which
also writes the input as a .npy; then times NumPy on that file right away:
  np.load        the .npy, in the page cache (read once untimed)
  np.partition   a, n // 2
  np.percentile  a, range(101) (method "linear": the ranks kselect-cpu-bench selects)
  np.sort        a (skipped above --sort-max-log2n)
Each NumPy figure is the median of --runs timed runs after one warm-up, as in
kselect-cpu-bench. Writes one JSON with every row (--json) and prints a table with the
ratios kselect / NumPy.

usage: cpu_numpy_bench.py [--bench PATH] [--log2n 20,24,26] [--n N,...]
                          [--dists uniform,normal,sorted,sixteen_values] [--dtypes float32]
                          [--runs 10] [--numpy-runs R] [--numpy-ops load,partition,...]
                          [--threads T] [--sort-max-log2n 26]
                          [--json FILE] [--tmp DIR]
--numpy-runs (default: --runs) lets the slow NumPy calls at 2^31 keys run fewer times.
"""
import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def find_bench(path):
    if path:
        return path
    for candidate in (os.path.join(REPO, "build-cpu-only", "bench", "kselect-cpu-bench"),
                      os.path.join(REPO, "build", "bench", "kselect-cpu-bench")):
        if os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which("kselect-cpu-bench")
    if found:
        return found
    sys.exit("cpu_numpy_bench.py: kselect-cpu-bench not found (build it: make build PRESET=cpu-only, "
             "or pass --bench PATH)")


def time_runs(runs, fn):
    """Median, min and max ms of `runs` calls after one untimed warm-up."""
    times = []
    for r in range(runs + 1):
        start = time.perf_counter()
        fn()
        ms = (time.perf_counter() - start) * 1e3
        if r > 0:
            times.append(ms)
    return {"median_ms": statistics.median(times), "min_ms": min(times), "max_ms": max(times), "runs": runs}


def numpy_rows(path, n, dtype, dist, runs, sort_max_log2n, ops):
    rows = []

    def add(op, t):
        rows.append(dict(impl="numpy", op=op, dtype=dtype, dist=dist, n=n, **t))

    np.load(path)  # into the page cache
    if "load" in ops:
        add("load", time_runs(runs, lambda: np.load(path)))
    a = np.load(path)
    if "partition" in ops:
        add("partition", time_runs(runs, lambda: np.partition(a, n // 2)))
    q = np.arange(101)
    if "percentile" in ops:
        add("percentile", time_runs(runs, lambda: np.percentile(a, q)))
    if "sort" in ops and n.bit_length() - 1 <= sort_max_log2n:
        add("sort", time_runs(min(runs, 5), lambda: np.sort(a)))
    return rows


def cell(rows, impl, op):
    for r in rows:
        if r["impl"] == impl and r["op"] == op:
            return r
    return None


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bench", help="path of kselect-cpu-bench (default: the build directories, then PATH)")
    p.add_argument("--log2n", default="20,24,26")
    p.add_argument("--n", default="", help="more sizes, comma separated")
    p.add_argument("--dists", default="uniform,normal,sorted,sixteen_values")
    p.add_argument("--dtypes", default="float32")
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--numpy-runs", type=int, default=0, help="timed NumPy runs (default: --runs)")
    p.add_argument("--numpy-ops", default="load,partition,percentile,sort",
                   help="the NumPy calls to time (np.percentile of 2^31 keys takes minutes)")
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--sort-max-log2n", type=int, default=26)
    p.add_argument("--json", help="write every row here")
    p.add_argument("--tmp", help="directory for the .npy files (default: a temporary one)")
    args = p.parse_args()

    bench = find_bench(args.bench)
    sizes = [1 << int(x) for x in args.log2n.split(",") if x] + [int(x) for x in args.n.split(",") if x]
    tmp = args.tmp or tempfile.mkdtemp(prefix="kselect-cpu-bench-")
    os.makedirs(tmp, exist_ok=True)
    all_rows, header = [], None
    try:
        for n in sizes:
            for dtype in args.dtypes.split(","):
                for dist in args.dists.split(","):
                    out = os.path.join(tmp, "kselect.json")
                    cmd = [bench, "--n", str(n), "--log2n", "", "--dtypes", dtype, "--dists", dist, "--runs",
                           str(args.runs), "--sort-max-log2n", str(args.sort_max_log2n), "--json", out,
                           "--save-npy", tmp]
                    if args.threads:
                        cmd += ["--threads", str(args.threads)]
                    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
                    with open(out) as f:
                        k = json.load(f)
                    header = header or {key: k[key] for key in ("cpu", "threads", "kernels", "runs")}
                    rows = k["results"]
                    npy = os.path.join(tmp, f"{dtype}_{dist}_{n}.npy")
                    rows += numpy_rows(npy, n, dtype, dist, args.numpy_runs or args.runs, args.sort_max_log2n,
                                       args.numpy_ops.split(","))
                    os.remove(npy)
                    report(rows)
                    all_rows += rows
    finally:
        if not args.tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"tool": "cpu_numpy_bench.py", **(header or {}), "numpy": np.__version__,
                       "python": platform.python_version(), "results": all_rows}, f, indent=1)
            f.write("\n")


def report(rows):
    """One block of the table: the case's figures and the ratios to NumPy."""
    r0 = rows[0]
    print(f"{r0['dtype']} {r0['dist']} n={r0['n']}")

    def ms(impl, op):
        r = cell(rows, impl, op)
        return r["median_ms"] if r else None

    floor = cell(rows, "floor", "read_floor")
    if floor:
        print(f"  read floor        {floor['median_ms']:9.3f} ms  ({floor.get('gb_per_s', 0):.1f} GB/s, all threads)")
    for label, ks, npop, std in (("select n/2", "select_n/2", "partition", "nth_element"),
                                 ("101 percentiles", "percentiles", "percentile", None)):
        a, b = ms("kselect", ks), ms("numpy", npop)
        line = f"  {label:16s}  kselect {a:9.3f} ms"
        if b:
            line += f"   numpy {b:9.3f} ms   kselect/numpy {a / b:5.2f}"
        s = ms("std", std) if std else None
        if s:
            line += f"   std::{std} {s:9.3f} ms"
        print(line)
    srt, nsrt, load = ms("std", "sort"), ms("numpy", "sort"), ms("numpy", "load")
    line = f"  np.load {load:9.3f} ms" if load else " "
    if nsrt:
        line += f"   np.sort {nsrt:9.3f} ms"
    if srt:
        line += f"   std::sort {srt:9.3f} ms"
    print(line)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
