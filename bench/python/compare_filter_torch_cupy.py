#!/usr/bin/env python3
"""What a Python user gets today for kselect-filter-bench's question (issue 4:
order-preserving filtering, x[x < t]), timed on the GPU the same way (CUDA events,
3 warm-ups, median of runs): torch.masked_select(x, x < t) and x[x < t] in PyTorch,
x[x < t] and cupy.extract(x < t, x) in CuPy, for 2^28 float32 keys uniform in
(0, 1) and t for selectivities 0, 0.1, 1, 50, 99 and 100 %.

The keys are k * 2^-24 with k uniform in [1, 2^24), the values kselect-filter-bench
generates (the same distribution, not the same sequence), so t = 0 and t = 1 select
exactly none and all. Each timed call is the whole expression a user writes: the
mask, the output's allocation (caching allocators, warm after the warm-ups) and the
device-to-host read of the count that sizes the output, which synchronises.
Every result is compared with torch.masked_select's (same length, same values).

Usage: python3 compare_filter_torch_cupy.py [--json FILE] [--reps N] [--log2n K] [--commit SHA]
"""
import argparse
import json
import statistics
import sys
import time

SELECTIVITIES = (("0%", 0.0), ("0.1%", 0.001), ("1%", 0.01), ("50%", 0.5), ("99%", 0.99), ("100%", 1.0))


def time_ms(fn, reps, warmup, timer):
    """Median ms of fn() over reps runs after warmup ones; timer: (new event, elapsed ms of two events)."""
    new_event, elapsed_ms = timer
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        start, stop = new_event(), new_event()
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(elapsed_ms(start, stop))
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--log2n", type=int, default=28)
    ap.add_argument("--commit", default="unknown")
    args = ap.parse_args()
    import torch

    n = 1 << args.log2n
    x = (torch.randint(1, 1 << 24, (n,), device="cuda", dtype=torch.int32).to(torch.float32) * 2.0**-24)
    torch.cuda.synchronize()
    try:
        import cupy as cp
        xc = cp.asarray(x)  # zero-copy view of the same device memory
        cupy_version = cp.__version__
    except ImportError:
        cp, xc, cupy_version = None, None, None
        print("cupy not available", file=sys.stderr)

    device = torch.cuda.get_device_name(0)
    date = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    print(f"{device}, {date}, commit {args.commit}; torch {torch.__version__}, cupy {cupy_version}")
    print(f"filter x < t, float32 2^{args.log2n}; median of {args.reps} runs after {args.warmup} warm-ups")
    print(f"{'library':7s} {'sel':>5s} {'op':30s} {'selected':>11s} {'ms':>9s} {'GB/s':>7s}  check")
    in_bytes = n * 4
    rows = []
    all_ok = True
    torch_timer = (lambda: torch.cuda.Event(enable_timing=True), lambda a, b: a.elapsed_time(b))
    cupy_timer = (cp.cuda.Event, cp.cuda.get_elapsed_time) if cp is not None else None
    for label, t in SELECTIVITIES:
        # The float32 threshold the C++ side uses; exact in float32, so the libraries
        # select the same keys whether they compare in float32 or float64.
        t32 = float(torch.tensor(t, dtype=torch.float32))
        ref = torch.masked_select(x, x < t32)
        ops = [("torch", "masked_select(x, x < t)", lambda: torch.masked_select(x, x < t32), torch_timer),
               ("torch", "x[x < t]", lambda: x[x < t32], torch_timer)]
        if cp is not None:
            ops += [("cupy", "x[x < t]", lambda: xc[xc < t32], cupy_timer),
                    ("cupy", "extract(x < t, x)", lambda: cp.extract(xc < t32, xc), cupy_timer)]
        for lib, op, fn, timer in ops:
            row = {"library": lib, "op": op, "n": n, "selectivity": label, "threshold": t32}
            try:
                row["ms"] = time_ms(fn, args.reps, args.warmup, timer)
                out = torch.as_tensor(fn(), device="cuda")
                row["selected"] = out.numel()
                row["correct"] = bool(out.numel() == ref.numel() and torch.equal(out, ref))
                # Input + output bytes, kselect-filter-bench's basis.
                row["gbps"] = (in_bytes + 4 * row["selected"]) / row["ms"] * 1e-6
            except Exception as e:  # report a failure (out of memory, say) as such and go on
                row.update({"ms": None, "correct": False, "error": str(e).splitlines()[0][:120]})
            all_ok = all_ok and row["correct"]
            rows.append(row)
            if row["ms"] is None:
                print(f"{lib:7s} {label:>5s} {op:30s}   failed: {row['error']}", flush=True)
            else:
                print(f"{lib:7s} {label:>5s} {op:30s} {row['selected']:11d} {row['ms']:9.3f} {row['gbps']:7.0f}  "
                      f"{'ok' if row['correct'] else 'MISMATCH'}", flush=True)
        del ref
        torch.cuda.empty_cache()
        if cp is not None:
            cp.get_default_memory_pool().free_all_blocks()
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": device, "date": date, "commit": args.commit, "torch": torch.__version__,
                       "cupy": cupy_version, "n": n, "reps": args.reps, "warmup": args.warmup,
                       "timing": "CUDA events around the whole expression, median after warm-up",
                       "all_match": all_ok, "results": rows}, f, indent=2)
    print("every result matches torch.masked_select" if all_ok else "MISMATCH")
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
