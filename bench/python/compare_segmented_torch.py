#!/usr/bin/env python3
"""What a Python user gets today for kselect-segmented-bench's cases (issue 21:
segmented selection along the last axis), timed the same way (CUDA events, warm-up,
median of >= 10 runs; time_ms of compare_torch_cupy.py):

  torch: kthvalue / median / quantile / topk / sort with dim=-1 (torch.quantile refuses
         inputs above 2^24 elements: reported as "refused" with its message);
  cupy (when installed): partition along the last axis, percentile, argpartition.

Keys are k * 2^-24 with k uniform in [0, 2^24), plus 2^-24: the distribution of
kselect-segmented-bench (never zero), not the same sequence. Ragged segments (cases
5 and 6) have no batched call in either library, and padding them into a matrix
would take billions of elements (lognormal lengths reach 100 times their mean; case
6 pads to 2^45): torch sorts all the values, then stably by segment id, and reads
each median off at the segment's offsets; CuPy is not run on them. Their lengths
follow the benchmark's distributions, not its sequence.

Usage: python3 compare_segmented_torch.py [--json FILE] [--reps N] [--case N] [--commit SHA]
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_torch_cupy import time_ms  # noqa: E402  (the same timing as the other comparisons)


def keys(shape, dtype=None):
    import torch
    x = (torch.randint(0, 1 << 24, shape, device="cuda", dtype=torch.int32) + 1).float() * 2.0**-24
    return x if dtype is None else x.to(dtype)


def lognormal_lengths(mean, total, seed):
    """Lengths of lognormal distribution (sigma 1) with this mean, at least 1, the last one cut to sum to total."""
    import numpy as np
    rng = np.random.default_rng(seed)
    mu = np.log(mean) - 0.5
    lengths = []
    left = total
    while left > 0:
        for x in rng.lognormal(mu, 1.0, 4096):
            length = min(left, max(1, int(round(x))))
            lengths.append(length)
            left -= length
            if left == 0:
                break
    return lengths


class Runner:
    def __init__(self, reps):
        self.reps = reps
        self.rows = []

    def add(self, case, lib, op, shape, fn):
        """Times fn; an exception (a refusal, out of memory) is recorded as the row's error."""
        row = {"case": case, "library": lib, "op": op, "shape": shape}
        try:
            row["ms"] = time_ms(fn, self.reps)
        except Exception as e:  # report refusals (torch.quantile's size limit) as such
            row["ms"] = None
            row["error"] = str(e).splitlines()[0][:160]
        self.rows.append(row)
        ms = f"{row['ms']:10.3f} ms" if row["ms"] is not None else "   refused: " + row["error"]
        print(f"{case:<4d} {lib:6s} {op:44s} {shape:22s} {ms}", flush=True)


def try_cupy():
    try:
        import cupy
        return cupy
    except ImportError:
        return None


def rows_cases(r, wanted, cp):
    """Cases 1 to 4, 7 and 8: equal rows."""
    import torch
    if wanted(1):
        x = keys((16384, 4096))
        shape = "16384 x 4096"
        r.add(1, "torch", "quantile(0.5, dim=-1)", shape, lambda: torch.quantile(x, 0.5, dim=-1))
        r.add(1, "torch", "median(dim=-1) (lower median)", shape, lambda: torch.median(x, dim=-1))
        r.add(1, "torch", "kthvalue(2048, dim=-1) (k=2047 0-based)", shape, lambda: torch.kthvalue(x, 2048, dim=-1))
        r.add(1, "torch", "sort(dim=-1)", shape, lambda: torch.sort(x, dim=-1))
        if cp is not None:
            xc = cp.asarray(x)
            r.add(1, "cupy", "median(axis=-1)", shape, lambda: cp.median(xc, axis=-1))
            r.add(1, "cupy", "partition(2047, axis=-1)", shape, lambda: cp.partition(xc, 2047, axis=-1)[:, 2047])
            del xc
        del x
    for case, m, cols, k in ((2, 65536, 256, 127), (3, 1024, 65536, 32767)):
        if not wanted(case):
            continue
        x = keys((m, cols))
        shape = f"{m} x {cols}"
        r.add(case, "torch", f"kthvalue({k + 1}, dim=-1) (k={k} 0-based)", shape,
              lambda: torch.kthvalue(x, k + 1, dim=-1))
        r.add(case, "torch", "sort(dim=-1)", shape, lambda: torch.sort(x, dim=-1))
        if cp is not None:
            xc = cp.asarray(x)
            r.add(case, "cupy", f"partition({k}, axis=-1)", shape, lambda: cp.partition(xc, k, axis=-1)[:, k])
            del xc
        del x
    if wanted(4):
        x = keys((16384, 4096))
        shape = "16384 x 4096"
        for s in (False, True):
            r.add(4, "torch", f"topk(64, dim=-1, sorted={s})", shape,
                  lambda s=s: torch.topk(x, 64, dim=-1, largest=True, sorted=s))
        if cp is not None:
            xc = cp.asarray(x)
            # CuPy has no top-k: argpartition is what a CuPy user would call.
            r.add(4, "cupy", "argpartition(-64, axis=-1)[:, -64:]", shape,
                  lambda: cp.argpartition(xc, -64, axis=-1)[:, -64:])
            del xc
        del x
    if wanted(7):
        x = keys((4096, 16384))
        shape = "4096 x 16384"
        qs = torch.linspace(0, 1, 101, device="cuda")
        r.add(7, "torch", "quantile(101 qs, dim=-1)", shape, lambda: torch.quantile(x, qs, dim=-1))
        idx = torch.round(qs.double() * (x.shape[1] - 1)).long()
        r.add(7, "torch", "sort(dim=-1) + 101 columns (nearest ranks)", shape,
              lambda: torch.sort(x, dim=-1).values[:, idx])
        if cp is not None:
            import numpy as np
            xc = cp.asarray(x)
            r.add(7, "cupy", "percentile(0..100, axis=-1)", shape,
                  lambda: cp.percentile(xc, np.arange(101), axis=-1))
            del xc
        del x
    if wanted(8):
        for dtype in (torch.float32, torch.bfloat16):
            x = keys((64, 151936), dtype)
            shape = "64 x 151936 " + ("f32" if dtype == torch.float32 else "bf16")
            for s in (False, True):
                r.add(8, "torch", f"topk(50, dim=-1, sorted={s})", shape,
                      lambda s=s: torch.topk(x, 50, dim=-1, largest=True, sorted=s))
            if cp is not None and dtype == torch.float32:
                xc = cp.asarray(x)
                r.add(8, "cupy", "argpartition(-50, axis=-1)[:, -50:]", shape,
                      lambda: cp.argpartition(xc, -50, axis=-1)[:, -50:])
                del xc
            del x
    torch.cuda.empty_cache()


def ragged_medians(lengths):
    """A timed function giving numpy's median of every segment of ragged keys: torch has
    no batched ragged call, so sort everything by value, then stably by segment id (a
    two-key sort), and read the middle elements at each segment's offsets."""
    import torch
    lens = torch.tensor(lengths, device="cuda")
    seg = torch.repeat_interleave(torch.arange(len(lengths), device="cuda", dtype=torch.int32), lens)
    starts = torch.cumsum(lens, 0) - lens
    lo, hi = starts + (lens - 1) // 2, starts + lens // 2  # the two middle values (equal for odd lengths)
    x = keys((int(lens.sum()),))

    def medians():
        v, order = torch.sort(x)
        _, by_segment = torch.sort(seg[order], stable=True)
        s = v[by_segment]
        return (s[lo] + s[hi]) * 0.5

    return medians


def ragged_cases(r, wanted):
    """Cases 5 and 6: ragged segments, by the two-key sort of ragged_medians."""
    import numpy as np
    import torch
    op = "two-key sort (value, segment id) + medians"
    if wanted(5):
        for mean in (64, 1024, 16384):
            lengths = lognormal_lengths(mean, 1 << 26, 5 + mean)
            r.add(5, "torch", op, f"{len(lengths)} segs, mean {mean}", ragged_medians(lengths))
            torch.cuda.empty_cache()
    if wanted(6):
        lengths = np.random.default_rng(6).integers(1, 33, (1 << 20) + 1)
        lengths[1 << 19] = 1 << 25
        r.add(6, "torch", op, "2^25 + 2^20 x (1..32)", ragged_medians(lengths.tolist()))
        torch.cuda.empty_cache()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--case", type=int, default=0, help="only this case (1 to 8)")
    ap.add_argument("--commit")
    args = ap.parse_args()
    import torch
    cp = try_cupy()
    if cp is None:
        print("cupy not available", file=sys.stderr)
    r = Runner(max(10, args.reps))

    def wanted(c):
        return args.case in (0, c)

    rows_cases(r, wanted, cp)
    ragged_cases(r, wanted)
    if args.json:
        out = {"device": torch.cuda.get_device_name(0),
               "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               "torch": torch.__version__, "cupy": cp.__version__ if cp is not None else None,
               "reps": r.reps, "results": r.rows}
        if args.commit:
            out["commit"] = args.commit
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)


if __name__ == "__main__":
    main()
