#!/usr/bin/env python3
"""torch.kthvalue and torch.topk timed the way kselect-stream-ordered-bench times
kselect's select_async: float32 uniform keys of 2^10 to 2^28 elements, each call
run in the stream and captured once in a CUDA graph (torch.cuda.graph) and
replayed; CUDA events, warm-up, median of runs; calls that take under 0.5 ms
are timed 100 per event pair (the time per call being the pair's time / 100),
as kselect-stream-ordered-bench does below 50 MB.

Usage: python3 compare_graph_torch.py [--json FILE] [--reps N] [--max-log2 N]
"""
import argparse
import json
import sys

from compare_torch_cupy import time_ms  # CUDA-event timing (this directory is on sys.path)

BATCH = 100


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--max-log2", type=int, default=28)
    args = ap.parse_args()
    import torch
    rows = []
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    print(f"{'op':22s} {'n':6s} {'stream_ms':>10s} {'graph_ms':>10s}")
    for lg in range(10, args.max_log2 + 1, 2):
        n = 1 << lg
        x = torch.rand(n, device="cuda", dtype=torch.float32)
        ops = {
            "kthvalue(k=n/2)": lambda: torch.kthvalue(x, n // 2 + 1),
            "topk(k=1024)": lambda: torch.topk(x, min(1024, n), largest=False, sorted=False),
        }
        for name, fn in ops.items():
            row = {"library": "torch", "op": name, "n": n}
            try:
                once = time_ms(fn, 1, warmup=3)
                per_pair = BATCH if once < 0.5 else 1
                reps = args.reps if once < 20 else 3
                row["stream_ms"] = time_ms(fn, reps, warmup=3, per_pair=per_pair)
                s = torch.cuda.Stream()
                s.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(s):
                    for _ in range(3):
                        fn()  # warm-up before capture, as torch.cuda.graph's docs ask
                torch.cuda.current_stream().wait_stream(s)
                g = torch.cuda.CUDAGraph()
                with torch.cuda.graph(g):
                    fn()
                row["graph_ms"] = time_ms(g.replay, reps, warmup=3, per_pair=per_pair)
            except Exception as e:  # report a refusal as such
                row["error"] = str(e).splitlines()[0][:160]
            rows.append(row)
            print(f"{name:22s} 2^{lg:<4d} " + (f"{row['stream_ms']:10.4f} {row['graph_ms']:10.4f}"
                                               if "error" not in row else "refused: " + row["error"]), flush=True)
        del x
        torch.cuda.empty_cache()
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "batch_below_50MB": BATCH,
                       "results": rows}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
