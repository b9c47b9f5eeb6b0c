#!/usr/bin/env python3
"""The Python package against what a Python user has instead, in one run (issue 22).

GPU (torch CUDA tensors, and CuPy arrays where CuPy is installed), n = 2^10, 2^12, ...,
2^28 uniform float32 (torch.rand; never all zeros), and n = 1000:
  kselect  select(x, n // 2), median(x), percentile(x, np.linspace(0, 100, 101)),
           topk(x, 1024) (largest, sorted, with indices), on torch and on cupy input
  torch    kthvalue(x, n // 2 + 1), median(x), quantile(x, 101 q) (it refuses more
           than 2^24 elements: recorded as refused, with its message), topk(x, 1024), sort(x)
  cupy     partition(x, n // 2), median(x), percentile(x, 101 q),
           argpartition(x, n - 1024)[n - 1024:] then the 1024 sorted (CuPy has no top-k)
  floor    x.sum() (torch's, else cupy's): one read of the input
CUDA events on the current stream around each call (torch's events, or CuPy's without
torch), as bench/python/compare_torch_cupy.py; also the wall-clock time from before the
call until its work has finished on the GPU (perf_counter around the call and the stop
event's synchronize). The package's GPU calls return only after the C++ owning call
has synchronised its stream and the results have come back as a tensor, so for them
both figures include the whole call; torch's and CuPy's calls return before their
kernels finish, and their event time is the stream's time from the start event to the
stop event, which includes their launch overhead when the GPU waits for the host
(small inputs).

CPU (NumPy arrays, the package's CPU backend with all its threads), n = 2^10 ... 2^26 and
1000: kselect select / median / percentile / topk against np.partition(a, n // 2),
np.median, np.percentile(a, 101 q), np.argpartition(a, n - 1024)[n - 1024:] then sorted,
np.sort; floor: kselect.count(a, op="ge", value=2.0) (one parallel read through the
package). Wall-clock (time.perf_counter).

Every figure: warm-up runs (--warmup; 1 for calls over 0.1 s, 2 on the GPU, where a
library's first call may compile kernels), then the median of --reps timed runs
(--reps-slow for calls over 0.1 s; at least 10 either way); inputs under
200 MB rotate among copies (at most 64), as kselect-gpu-bench does, so that the timed
calls do not find them in L2. A call whose first run takes over --max-call-s is not
timed (recorded as skipped, with that first time).

--owning-bench PATH runs kselect-owning-bench (bench/cuda/owning_bench.cu: the C++ owning
calls the package makes, with the cub::DeviceReduce read floor) first, at 1000 and the
largest GPU size, puts its rows in the same JSON (library "c++"), checks that the
package asks the C++ API for the same ranks, and prints the issue's target checks:
package / C++ for select, 101 percentiles and top-1024 at 2^28 (target <= 1.05), and at
n = 1000 kselect.median against np.median (NumPy input) and torch.median (CUDA tensor)
(target <= 1.00).

Degrades: without torch no torch rows (CuPy arrays for the GPU rows), without CuPy no
cupy rows, without a GPU (or a CPU-only build of the package) the CPU rows only.

usage: package_bench.py [--json FILE] [--commit SHA] [--owning-bench PATH]
                        [--min-log2n 10] [--max-log2n 28] [--cpu-max-log2n 26] [--step 2]
                        [--reps 15] [--reps-slow 10] [--warmup 3] [--max-call-s 5]
                        [--quick] [--no-gpu] [--no-cpu] [--no-torch] [--no-cupy]
--quick: sizes 2^10, 2^16, 2^22 and the largest (GPU and CPU), 10 runs.
Plot: bench/python/plot_package.py FILE.json --out PNG.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import kselect

K_TOP = 1024
PERCENTS = np.linspace(0, 100, 101)
SLOW_S = 0.1  # calls slower than this get one warm-up and --reps-slow runs
COPY_BYTES = 200 << 20  # inputs under this rotate among copies
MAX_COPIES = 64


def log2_label(n):
    return f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else str(n)


# ---- timing ----------------------------------------------------------------------------------


class Timer:
    """Runs a call `reps` times after warm-up and reports the medians. GPU: events on the
    current stream of the framework given (torch or cupy); CPU (fw None): wall-clock."""

    def __init__(self, args, fw=None, fw_name=None):
        self.args = args
        self.fw = fw
        self.fw_name = fw_name

    def _sync(self):
        if self.fw_name == "torch":
            self.fw.cuda.synchronize()
        elif self.fw_name == "cupy":
            self.fw.cuda.get_current_stream().synchronize()

    def _events(self):
        if self.fw_name == "torch":
            return self.fw.cuda.Event(enable_timing=True), self.fw.cuda.Event(enable_timing=True)
        return self.fw.cuda.Event(), self.fw.cuda.Event()

    def _elapsed_ms(self, start, stop):
        if self.fw_name == "torch":
            return start.elapsed_time(stop)
        return self.fw.cuda.get_elapsed_time(start, stop)

    def _once(self, fn):
        t0 = time.perf_counter()
        fn(0)
        self._sync()
        return time.perf_counter() - t0

    def run(self, fn, copies):
        """fn(c) runs the call on copy c. Returns the timing fields of a row."""
        a = self.args
        first = self._once(fn)
        done = 1
        if first > SLOW_S and self.fw is not None:
            # A GPU library's first call may include compiling its kernels (CuPy) or
            # initialising itself: judge by a second one.
            first = min(first, self._once(fn))
            done = 2
        if first > a.max_call_s:
            return {"skipped": f"one call took {first:.1f} s (over --max-call-s {a.max_call_s})",
                    "first_s": round(first, 3)}
        slow = first > SLOW_S
        warmup = max(done, 1 if slow else a.warmup)
        reps = max(10, a.reps_slow if slow else a.reps)
        for i in range(done, warmup):
            fn(i % copies)
        self._sync()
        ms, wall = [], []
        for r in range(reps):
            c = (warmup + r) % copies
            if self.fw is None:
                t0 = time.perf_counter()
                fn(c)
                wall.append((time.perf_counter() - t0) * 1e3)
                continue
            start, stop = self._events()
            t0 = time.perf_counter()
            start.record()
            fn(c)
            stop.record()
            stop.synchronize()
            wall.append((time.perf_counter() - t0) * 1e3)
            ms.append(self._elapsed_ms(start, stop))
        if self.fw is None:
            return {"ms": statistics.median(wall), "min_ms": min(wall), "max_ms": max(wall), "reps": reps,
                    "warmup": warmup, "copies": copies}
        return {"ms": statistics.median(ms), "wall_ms": statistics.median(wall), "min_ms": min(ms),
                "max_ms": max(ms), "reps": reps, "warmup": warmup, "copies": copies}


def copies_for(n):
    return max(1, min(MAX_COPIES, -(-COPY_BYTES // (4 * n))))


class Rows:
    def __init__(self):
        self.rows = []

    def add(self, timer, side, library, input_kind, op, label, call, n, fn, copies):
        row = {"side": side, "library": library, "input": input_kind, "op": op, "label": label, "call": call,
               "n": n}
        try:
            row.update(timer.run(fn, copies))
        except Exception as e:  # a refusal (torch.quantile's size limit), out of memory: recorded as such
            row["ms"] = None
            row["error"] = (str(e).splitlines() or [type(e).__name__])[0][:160]
        self.rows.append(row)
        if row.get("ms") is not None:
            figure = f"{row['ms']:11.4f} ms"
            if "wall_ms" in row:
                figure += f"  wall {row['wall_ms']:11.4f} ms"
        elif "skipped" in row:
            figure = "    skipped: " + row["skipped"]
        else:
            figure = "    refused: " + row["error"]
        print(f"{side} {log2_label(n):>5s} {label:26s} {input_kind:6s} {figure}", flush=True)
        return row

    def find(self, **want):
        for r in self.rows:
            if all(r.get(k) == v for k, v in want.items()):
                return r
        return None


# ---- the GPU -------------------------------------------------------------------------------


def gpu_data(n, copies, torch, cupy, seed):
    """(torch tensors or None, cupy arrays or None): `copies` uniform float32 arrays of n."""
    if torch is not None:
        g = torch.Generator(device="cuda")
        g.manual_seed(seed)
        ts = [torch.rand(n, device="cuda", dtype=torch.float32, generator=g) for _ in range(copies)]
        cs = [cupy.asarray(t) for t in ts] if cupy is not None else None  # the same memory
        return ts, cs
    rng = cupy.random.default_rng(seed)
    return None, [rng.random(n, dtype=cupy.float32) for _ in range(copies)]


def kselect_calls(n):
    """(op, label, call text, fn(x)) of the package calls timed, as the issue lists them."""
    calls = [("select", "kselect.select", "kselect.select(x, n // 2)", lambda x: kselect.select(x, n // 2)),
             ("median", "kselect.median", "kselect.median(x)", lambda x: kselect.median(x)),
             ("percentiles", "kselect.percentile", "kselect.percentile(x, np.linspace(0, 100, 101))",
              lambda x: kselect.percentile(x, PERCENTS))]
    if n >= K_TOP:
        calls.append(("topk", "kselect.topk", f"kselect.topk(x, {K_TOP})", lambda x: kselect.topk(x, K_TOP)))
    return calls


def run_gpu_size(n, args, rows, torch, cupy):
    copies = copies_for(n)
    ts, cs = gpu_data(n, copies, torch, cupy, seed=n)
    fw, fw_name = (torch, "torch") if torch is not None else (cupy, "cupy")
    timer = Timer(args, fw, fw_name)
    if ts is not None:
        rows.add(timer, "gpu", "floor", "torch", "read", "floor: torch.sum", "x.sum()", n,
                 lambda c: ts[c].sum(), copies)
    else:
        rows.add(timer, "gpu", "floor", "cupy", "read", "floor: cupy.sum", "x.sum()", n,
                 lambda c: cs[c].sum(), copies)
    for inputs, kind in ((ts, "torch"), (cs, "cupy")):
        if inputs is None:
            continue
        for op, label, call, f in kselect_calls(n):
            rows.add(timer, "gpu", "kselect", kind, op, label, call, n, lambda c, f=f, x=inputs: f(x[c]), copies)
    k = n // 2
    if ts is not None:
        qs = torch.linspace(0, 1, 101, device="cuda", dtype=torch.float32)
        rows.add(timer, "gpu", "torch", "torch", "select", "torch.kthvalue", "torch.kthvalue(x, n // 2 + 1)", n,
                 lambda c: torch.kthvalue(ts[c], k + 1), copies)
        rows.add(timer, "gpu", "torch", "torch", "median", "torch.median", "torch.median(x)", n,
                 lambda c: torch.median(ts[c]), copies)
        rows.add(timer, "gpu", "torch", "torch", "percentiles", "torch.quantile",
                 "torch.quantile(x, torch.linspace(0, 1, 101))", n, lambda c: torch.quantile(ts[c], qs), copies)
        if n >= K_TOP:
            rows.add(timer, "gpu", "torch", "torch", "topk", "torch.topk", f"torch.topk(x, {K_TOP})", n,
                     lambda c: torch.topk(ts[c], K_TOP), copies)
        rows.add(timer, "gpu", "torch", "torch", "sort", "torch.sort", "torch.sort(x)", n,
                 lambda c: torch.sort(ts[c]), copies)
    if cs is not None:
        pc = cupy.linspace(0, 100, 101)
        rows.add(timer, "gpu", "cupy", "cupy", "select", "cupy.partition", "cupy.partition(x, n // 2)", n,
                 lambda c: cupy.partition(cs[c], k), copies)
        rows.add(timer, "gpu", "cupy", "cupy", "median", "cupy.median", "cupy.median(x)", n,
                 lambda c: cupy.median(cs[c]), copies)
        rows.add(timer, "gpu", "cupy", "cupy", "percentiles", "cupy.percentile",
                 "cupy.percentile(x, cupy.linspace(0, 100, 101))", n, lambda c: cupy.percentile(cs[c], pc), copies)
        if n >= K_TOP:
            rows.add(timer, "gpu", "cupy", "cupy", "topk", "cupy.argpartition+sort",
                     f"i = cupy.argpartition(x, n - {K_TOP})[n - {K_TOP}:]; i[cupy.argsort(-x[i])]", n,
                     lambda c: top_by_argpartition(cupy, cs[c], K_TOP), copies)


def top_by_argpartition(xp, x, k):
    """What a NumPy or CuPy user writes for top-k: the k largest, sorted, with indices."""
    n = x.shape[0]
    i = xp.argpartition(x, n - k)[n - k:]
    i = i[xp.argsort(-x[i])]
    return x[i], i


# ---- the CPU -------------------------------------------------------------------------------


def run_cpu_size(n, args, rows):
    copies = copies_for(n)
    rng = np.random.default_rng(n)
    xs = [rng.random(n, dtype=np.float32) for _ in range(copies)]
    timer = Timer(args)
    rows.add(timer, "cpu", "floor", "numpy", "read", "floor: kselect.count",
             'kselect.count(a, op="ge", value=2.0)', n, lambda c: kselect.count(xs[c], op="ge", value=2.0), copies)
    for op, label, call, f in kselect_calls(n):
        rows.add(timer, "cpu", "kselect", "numpy", op, label, call, n, lambda c, f=f: f(xs[c]), copies)
    k = n // 2
    rows.add(timer, "cpu", "numpy", "numpy", "select", "np.partition", "np.partition(a, n // 2)", n,
             lambda c: np.partition(xs[c], k), copies)
    rows.add(timer, "cpu", "numpy", "numpy", "median", "np.median", "np.median(a)", n,
             lambda c: np.median(xs[c]), copies)
    rows.add(timer, "cpu", "numpy", "numpy", "percentiles", "np.percentile",
             "np.percentile(a, np.linspace(0, 100, 101))", n, lambda c: np.percentile(xs[c], PERCENTS), copies)
    if n >= K_TOP:
        rows.add(timer, "cpu", "numpy", "numpy", "topk", "np.argpartition+sort",
                 f"i = np.argpartition(a, n - {K_TOP})[n - {K_TOP}:]; i[np.argsort(-a[i])]", n,
                 lambda c: top_by_argpartition(np, xs[c], K_TOP), copies)
    rows.add(timer, "cpu", "numpy", "numpy", "sort", "np.sort", "np.sort(a)", n, lambda c: np.sort(xs[c]), copies)


# ---- the C++ owning calls, and what the package asks of them --------------------------------


def run_owning_bench(path, sizes, args):
    """kselect-owning-bench's JSON at these sizes, or None (after a message) if it fails."""
    with tempfile.TemporaryDirectory(prefix="kselect-owning-") as tmp:
        out = os.path.join(tmp, "owning.json")
        cmd = [path, "--json", out, "--reps", str(max(10, args.reps)), "--sizes", ",".join(str(n) for n in sizes)]
        print("$ " + " ".join(cmd), flush=True)
        done = subprocess.run(cmd)
        if done.returncode != 0 or not os.path.exists(out):
            print(f"package_bench.py: {path} failed (exit status {done.returncode}); no C++ rows", file=sys.stderr)
            return None
        with open(out) as f:
            return json.load(f)


OWNING_OPS = {"select k=n/2": "select", "median": "median", "101 percentiles": "percentiles",
              "topk k=1024": "topk"}


def owning_rows(owning):
    rows = []
    for r in owning["results"]:
        op = OWNING_OPS.get(r["case"])
        device = r.get("api") == "device"
        rows.append({"side": "gpu", "library": "c++", "input": "device API" if device else "owning API", "op": op,
                     "label": f"C++ {'device API' if device else 'owning'} {r['case']}", "call": r["call"],
                     "n": r["n"], "ms": r["ours_ms"], "reps": owning.get("reps"), "correct": r["correct"]})
    for n in sorted({r["n"] for r in owning["results"]}):
        floor = next(r["floor_ms"] for r in owning["results"] if r["n"] == n)
        rows.append({"side": "gpu", "library": "c++", "input": "device pointer", "op": "read",
                     "label": "floor: cub (C++)", "call": "cub::DeviceReduce::Sum", "n": n,
                     "ms": floor, "reps": owning.get("reps")})
    return rows


def package_requests(x, n):
    """What the package hands the extension for each call on x: {case: ranks or top-k's
    arguments}, recorded by wrapping kselect._kselect's functions for one untimed call each."""
    ext = kselect._kselect
    seen = []
    # The host-result calls, and the device-API calls that CUDA inputs use (called
    # twice, as CUB's: recorded when they run, not when they ask for workspace).
    names = [n for n in ("multiselect", "topk", "device_multiselect", "device_rows_multiselect", "device_topk",
                         "device_rows_median") if hasattr(ext, n)]
    original = {name: getattr(ext, name) for name in names}

    def ranks_call(name):
        def call(a, ranks, *rest, **kw):
            if kw.get("ws", 0) is not None:
                seen.append({"ranks": [int(r) for r in np.asarray(ranks)]})
            return original[name](a, ranks, *rest, **kw)
        return call

    def topk_call(name):
        def call(a, k, largest, sorted_, deterministic, *rest, **kw):
            if kw.get("ws", 0) is not None:
                seen.append({"k": int(k), "largest": bool(largest), "sorted": bool(sorted_),
                             "deterministic": bool(deterministic)})
            return original[name](a, k, largest, sorted_, deterministic, *rest, **kw)
        return call

    def median_call(name):
        def call(a, *rest, **kw):
            if kw.get("ws", 0) is not None:
                seen.append({"median of rows": list(a.shape)})
            return original[name](a, *rest, **kw)
        return call

    wrapped = {name: (topk_call(name) if name.endswith("topk") else median_call(name) if name.endswith("median")
                      else ranks_call(name)) for name in names}

    cases = {"select k=n/2": lambda: kselect.select(x, n // 2), "median": lambda: kselect.median(x),
             "101 percentiles": lambda: kselect.percentile(x, PERCENTS)}
    if n >= K_TOP:
        cases["topk k=1024"] = lambda: kselect.topk(x, K_TOP)
    got = {}
    for name in names:
        setattr(ext, name, wrapped[name])
    try:
        for name, call in cases.items():
            seen.clear()
            call()
            got[name] = list(seen)
    finally:
        for name in names:
            setattr(ext, name, original[name])
    return got


def compare_requests(owning, x, n):
    """Whether the package's calls on x (n elements) ask for what kselect-owning-bench timed."""
    ours = package_requests(x, n)
    lines, same = [], True
    for req in owning.get("requests", []):
        if req["n"] != n or req["case"] not in ours:
            continue
        calls = ours[req["case"]]
        if req["k"]:
            want = [{"k": req["k"], "largest": True, "sorted": True, "deterministic": False}]
        else:
            want = [{"ranks": req["ranks"]}]
        ok = calls == want
        what = f"k = {req['k']}" if req["k"] else f"{len(req['ranks'])} ranks"
        if calls == [{"median of rows": [1, n]}]:  # kselect.median of at most 16384 keys on the GPU
            lines.append(f"  {req['case']:16s} n = {log2_label(n):>5s}: {what:10s} not this call: the package makes "
                         "one batched median call (device_rows_median) instead")
            continue
        same = same and ok
        lines.append(f"  {req['case']:16s} n = {log2_label(n):>5s}: {what:10s} "
                     + ("same call" if ok else f"DIFFERENT: the package made {calls}"))
    return same, lines


# ---- target checks and the summary ----------------------------------------------------------


def targets(rows, big):
    """The issue's checks that this run's rows allow: (lines, list of dicts)."""
    out, checks = [], []

    def check(name, ours, theirs, limit, metric):
        if not ours or not theirs or ours.get(metric) is None or theirs.get(metric) is None:
            return None
        ratio = ours[metric] / theirs[metric]
        c = {"target": name, "metric": metric, "ours_ms": ours[metric], "reference_ms": theirs[metric],
             "ratio": ratio, "limit": limit, "met": ratio <= limit}
        checks.append(c)
        out.append(f"  {name:56s} {metric:7s} {ours[metric]:10.4f} / {theirs[metric]:10.4f} ms = {ratio:5.3f}"
                   f"  (<= {limit:.2f}) {'met' if c['met'] else 'MISSED'}")
        return c

    cases = (("select", "select k=n/2"), ("percentiles", "101 percentiles"), ("topk", "topk k=1024"),
             ("median", "median"))
    for op, case in cases if big is not None else ():
        for api in ("owning API", "device API"):
            cpp = rows.find(side="gpu", library="c++", input=api, op=op, n=big)
            for kind in ("torch", "cupy"):
                pkg = rows.find(side="gpu", library="kselect", input=kind, op=op, n=big)
                suffix = "" if op != "median" else " (not an issue target)"
                check(f"{case} {log2_label(big)}: package ({kind}) / C++ {api.split()[0]}{suffix}", pkg, cpp, 1.05,
                      "ms")
    small = 1000
    check("median n=1000: kselect (NumPy input) / np.median",
          rows.find(side="cpu", library="kselect", op="median", n=small),
          rows.find(side="cpu", library="numpy", op="median", n=small), 1.0, "ms")
    for metric in ("ms", "wall_ms"):
        check("median n=1000: kselect (torch CUDA) / torch.median",
              rows.find(side="gpu", library="kselect", input="torch", op="median", n=small),
              rows.find(side="gpu", library="torch", op="median", n=small), 1.0, metric)
    return out, checks


def summary(rows):
    """Per side and question, one line per n: kselect's ms, the other libraries' for the
    same question, the C++ call, a sort and the floor, and the fastest other library's
    time over kselect's."""
    lines = []
    for side in ("gpu", "cpu"):
        for op, title in (("select", "select k = n/2"), ("median", "median"), ("percentiles", "101 percentiles"),
                          ("topk", "top-1024 (sorted, with indices)")):
            cols = []  # (library, label, input of kselect's rows, op)
            for r in rows.rows:
                if r["side"] == side and r["op"] in (op, "sort", "read"):
                    key = (r["library"], r["label"], r["input"] if r["library"] == "kselect" else None, r["op"])
                    if key not in cols:
                        cols.append(key)
            order = ("kselect", "torch", "cupy", "numpy", "c++", "floor")
            cols.sort(key=lambda c: (c[3] != op, order.index(c[0]) if c[0] in order else len(order)))
            ours = [c for c in cols if c[0] == "kselect"]
            if not ours:
                continue
            names = [f"kselect({c[2]})" if c[0] == "kselect" else ("C++ device" if "device API" in c[1] else "C++ owning") if c[0] == "c++" and c[3] == op
                     else c[1] for c in cols]
            widths = [max(10, len(x)) for x in names]
            unit = "ms, CUDA events" if side == "gpu" else "ms, wall-clock"
            lines.append(f"{side.upper()} {title} ({unit}); last column: the fastest other library / "
                         f"kselect({ours[0][2]})")
            lines.append("  " + f"{'n':>9s} " + " ".join(f"{x:>{w}s}" for x, w in zip(names, widths)) + "   other/ks")
            for n in sorted({r["n"] for r in rows.rows if r["side"] == side and r["op"] == op}):
                cells, mine, other = [], None, None
                for (library, label, kind, row_op), w in zip(cols, widths):
                    want = {"side": side, "library": library, "label": label, "op": row_op, "n": n}
                    if kind:
                        want["input"] = kind
                    r = rows.find(**want)
                    ms = r.get("ms") if r else None
                    cells.append(f"{ms:>{w}.4f}" if ms is not None else f"{('refused' if r else '-'):>{w}s}")
                    if ms is None or row_op != op:
                        continue
                    if library == "kselect" and kind == ours[0][2]:
                        mine = ms
                    elif library in ("torch", "cupy", "numpy"):
                        other = ms if other is None else min(other, ms)
                speed = f"{other / mine:9.2f}x" if mine and other else f"{'-':>10s}"
                lines.append("  " + f"{n:>9d} " + " ".join(cells) + " " + speed)
            lines.append("")
    return lines


# ---- main ------------------------------------------------------------------------------------


def try_import(name):
    try:
        return __import__(name)
    except Exception as e:  # not installed, or no driver (cupy)
        print(f"package_bench.py: no {name} ({type(e).__name__}: {str(e)[:100]}); its rows are skipped",
              file=sys.stderr)
        return None


def git_commit():
    try:
        here = os.path.dirname(os.path.abspath(__file__))
        return subprocess.run(["git", "-C", here, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except Exception:
        return ""


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--json", help="write every row here")
    p.add_argument("--commit", default="", help="the commit measured (default: git rev-parse of this tree)")
    p.add_argument("--owning-bench", help="path of kselect-owning-bench (the C++ calls; GPU only)")
    p.add_argument("--min-log2n", type=int, default=10)
    p.add_argument("--max-log2n", type=int, default=28, help="largest GPU size")
    p.add_argument("--cpu-max-log2n", type=int, default=26, help="largest CPU size")
    p.add_argument("--step", type=int, default=2, help="log2 step between sizes")
    p.add_argument("--reps", type=int, default=15, help="timed runs (at least 10)")
    p.add_argument("--reps-slow", type=int, default=10, help="timed runs of calls over 0.1 s (at least 10)")
    p.add_argument("--warmup", type=int, default=3, help="warm-up runs (calls over 0.1 s: 1, on the GPU 2)")
    p.add_argument("--max-call-s", type=float, default=5.0, help="calls slower than this are not timed")
    p.add_argument("--quick", action="store_true", help="2^10, 2^16, 2^22 and the largest size; 10 runs")
    p.add_argument("--no-gpu", action="store_true")
    p.add_argument("--no-cpu", action="store_true")
    p.add_argument("--no-torch", action="store_true")
    p.add_argument("--no-cupy", action="store_true")
    args = p.parse_args()
    began = time.perf_counter()
    if args.quick:
        args.reps = args.reps_slow = 10

    def sizes(top):
        if args.quick:
            got = [1 << lg for lg in (10, 16, 22) if args.min_log2n <= lg < top] + [1 << top]
        else:
            got = [1 << lg for lg in range(args.min_log2n, top + 1, args.step)]
            if got[-1] != 1 << top:
                got.append(1 << top)
        return [1000] + got

    torch = None if args.no_torch or args.no_gpu else try_import("torch")
    cupy = None if args.no_cupy or args.no_gpu else try_import("cupy")
    gpu, device, why = False, None, ""
    if args.no_gpu:
        why = "--no-gpu"
    elif not kselect.cuda_available():
        why = "the package has no CUDA backend or sees no GPU"
    elif torch is not None and torch.cuda.is_available():
        gpu, device = True, torch.cuda.get_device_name(0)
    elif cupy is not None:
        try:
            gpu = cupy.cuda.runtime.getDeviceCount() > 0
            device = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode() if gpu else None
            torch = None
        except Exception as e:
            why = f"cupy sees no GPU ({e})"
    else:
        why = "neither torch nor cupy can reach a GPU"
    if not gpu:
        torch = cupy = None
        print(f"package_bench.py: GPU rows skipped: {why}", file=sys.stderr)

    versions = {"python": platform.python_version(), "numpy": np.__version__,
                "kselect": getattr(kselect, "__version__", "")}
    for name, mod in (("torch", torch), ("cupy", cupy)):
        if mod is not None:
            versions[name] = mod.__version__
    print(f"package_bench.py: GPU {device or 'none'}; CPU {cpu_name()}, {os.cpu_count()} logical CPUs "
          f"(OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}); "
          + ", ".join(f"{k} {v}" for k, v in versions.items()), flush=True)

    rows = Rows()
    gpu_sizes = sizes(args.max_log2n) if gpu else []
    cpu_sizes = [] if args.no_cpu else sizes(args.cpu_max_log2n)
    owning = None
    if gpu and args.owning_bench:
        owning = run_owning_bench(args.owning_bench, [1000, gpu_sizes[-1]], args)  # before this process's data
        if owning:
            rows.rows += owning_rows(owning)
    elif args.owning_bench:
        print("package_bench.py: --owning-bench needs the GPU rows; not run", file=sys.stderr)

    request_lines, requests_same = [], None
    for n in gpu_sizes:
        if owning and n in (1000, gpu_sizes[-1]):
            ts, cs = gpu_data(n, 1, torch, cupy, seed=1)
            same, lines = compare_requests(owning, ts[0] if ts is not None else cs[0], n)
            requests_same = same if requests_same is None else requests_same and same
            request_lines += lines
            del ts, cs
        run_gpu_size(n, args, rows, torch, cupy)
        if torch is not None:
            torch.cuda.empty_cache()
        if cupy is not None:
            cupy.get_default_memory_pool().free_all_blocks()
    for n in cpu_sizes:
        run_cpu_size(n, args, rows)

    print()
    for line in summary(rows):
        print(line)
    if request_lines:
        print("The package's calls against kselect-owning-bench's (what the extension is handed):")
        for line in request_lines:
            print(line)
    big = gpu_sizes[-1] if gpu_sizes else None
    target_lines, checks = targets(rows, big)
    if target_lines:
        print("Targets (issue 22): ours / reference, median ms")
        for line in target_lines:
            print(line)
    if args.json:
        out = {"tool": "package_bench.py", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               "commit": args.commit or git_commit(), "device": device, "cpu": cpu_name(),
               "cpu_threads": os.cpu_count(), "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
               "versions": versions, "kselect_cuda": bool(kselect.cuda_available()),
               "settings": {k: getattr(args, k) for k in ("reps", "reps_slow", "warmup", "max_call_s", "quick")},
               "timing": {"gpu": "CUDA events on the current stream around each call (ms), and wall-clock from "
                                 "before the call to the stop event's completion (wall_ms); median after warm-up",
                          "cpu": "wall-clock (time.perf_counter) around each call; median after warm-up"},
               "results": rows.rows, "targets": checks, "requests_match_cpp": requests_same,
               "owning_bench": owning}
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
            f.write("\n")
        print(f"wrote {args.json}")
    print(f"package_bench.py: {time.perf_counter() - began:.1f} s in all")


if __name__ == "__main__":
    main()
