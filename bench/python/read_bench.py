#!/usr/bin/env python3
"""Reading a .npy file: np.load against the kselect tool's own "read" time
(`kselect --json --device cpu select -k 0 FILE`, time_ms.read: open to array in
memory), measured in the same run, interleaved, the file in the page cache.

np.load is timed in this process around the call alone (a fresh array each time;
NumPy frees and reallocates it). kselect's figure excludes process start-up and
the selection. Prints the median and range of each over --reps runs.

Usage: python3 read_bench.py --kselect BIN [--kselect BIN2 ...] [--log2n 24]
                             [--dtype float32] [--reps 7] [--dir DIR]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kselect", action="append", required=True, help="kselect binary (repeatable)")
    ap.add_argument("--log2n", type=int, default=24)
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--dir", default=None, help="where to write the file (default: a temporary directory)")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        path = os.path.join(tmp, "read_bench.npy")
        a = np.random.default_rng(1).random(1 << args.log2n).astype(args.dtype)
        np.save(path, a)
        del a
        size = os.path.getsize(path)
        with open(path, "rb") as f:  # into the page cache
            while f.read(1 << 24):
                pass

        times = {"np.load": []}
        times.update({k: [] for k in args.kselect})
        for rep in range(args.reps + 1):  # the first round warms up and is dropped
            t0 = time.perf_counter()
            b = np.load(path)
            ms = (time.perf_counter() - t0) * 1e3
            del b
            if rep:
                times["np.load"].append(ms)
            for k in args.kselect:
                out = subprocess.run([k, "--json", "--device", "cpu", "select", "-k", "0", path],
                                     check=True, capture_output=True, text=True).stdout
                if rep:
                    times[k].append(json.loads(out)["time_ms"]["read"])

    print(f"{size / 2**20:.1f} MiB .npy ({args.dtype}, 2^{args.log2n} values), page cache, "
          f"{os.cpu_count()} CPUs, medians of {args.reps}")
    for name, t in times.items():
        print(f"  {name:40s} {statistics.median(t):8.2f} ms  (min {min(t):.2f}, max {max(t):.2f})")


if __name__ == "__main__":
    sys.exit(main())
