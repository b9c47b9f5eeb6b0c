#!/usr/bin/env python3
"""What a Python user gets today for the same questions kselect answers, timed on
the GPU the same way as kselect-gpu-bench (CUDA events, warm-up, median of runs):
median / k-th value, 101 percentiles and top-k (k = 1024, 2^20, n/2) of 2^28
uniform float32 (and 2^24, where torch.quantile refuses larger inputs). Writes JSON; prints a table.

Usage: python3 compare_torch_cupy.py [--json FILE] [--reps N]
"""
import argparse
import json
import math
import statistics
import sys
import time


def time_ms(fn, reps, warmup=2, per_pair=1):
    """Median over reps of the CUDA-event time of per_pair calls of fn, per call."""
    import torch
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(per_pair):
            fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / per_pair)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--reps", type=int, default=10)
    args = ap.parse_args()
    import torch
    rows = []

    def add(lib, op, n, fn, reps=args.reps):
        try:
            ms = time_ms(fn, reps)
            rows.append({"library": lib, "op": op, "n": n, "ms": ms})
        except Exception as e:  # report refusals (torch.quantile's size limit) as such
            rows.append({"library": lib, "op": op, "n": n, "ms": None, "error": str(e).splitlines()[0][:120]})
        r = rows[-1]
        print(f"{lib:6s} {op:34s} 2^{int(math.log2(n)):<3d} " +
              (f"{r['ms']:10.3f} ms" if r["ms"] is not None else "   refused: " + r["error"]), flush=True)

    qs = torch.linspace(0, 1, 101, device="cuda")
    for lg in (24, 28):
        n = 1 << lg
        x = torch.rand(n, device="cuda", dtype=torch.float32)
        k = n // 2
        add("torch", "median", n, lambda: torch.median(x))
        add("torch", "kthvalue(k=n/2)", n, lambda: torch.kthvalue(x, k + 1), reps=3 if lg == 28 else args.reps)
        add("torch", "topk(k=n/2)", n, lambda: torch.topk(x, k, largest=False, sorted=False))
        add("torch", "sort", n, lambda: torch.sort(x))
        add("torch", "quantile(101)", n, lambda: torch.quantile(x, qs))
        # Top-k with indices (kselect-gpu-bench's topk rows are the same questions).
        for kk, kname in ((1024, "1024"), (1 << 20, "2^20"), (n // 2, "n/2")):
            add("torch", f"topk(k={kname}) unsorted", n, lambda kk=kk: torch.topk(x, kk, largest=False, sorted=False))
            add("torch", f"topk(k={kname}) sorted", n, lambda kk=kk: torch.topk(x, kk, largest=False, sorted=True))
        try:
            import cupy as cp
            xc = cp.asarray(x)
            add("cupy", "median", n, lambda: cp.median(xc))
            add("cupy", "percentile(101)", n, lambda: cp.percentile(xc, cp.arange(101)))
            # CuPy has no top-k: argpartition is what a CuPy user would call.
            add("cupy", "argpartition(k=1024)", n, lambda: cp.argpartition(xc, 1024))
        except ImportError:
            print("cupy not available", file=sys.stderr)
        del x
        torch.cuda.empty_cache()
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(0),
                       "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                       "torch": torch.__version__, "results": rows}, f, indent=2)


if __name__ == "__main__":
    main()
