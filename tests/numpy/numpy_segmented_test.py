#!/usr/bin/env python3
"""The segmented kselect commands against NumPy along the last axis.

Usage: numpy_segmented_test.py KSELECT [--seed S]

Writes random 2-D arrays (float64, float32, float16, int32, int64; NaNs among the
floats) and ragged offsets, runs `kselect select|quantile|topk --axis -1` and
`--offsets` with -o, and compares the .npy results with NumPy's:

* select -k K1,K2: np.partition(a, ks, axis=-1)[..., ks], compared as values (the
  segmented calls answer a zero as +0.0 and a NaN as the canonical NaN, so only the
  value, not the sign of zero or the NaN's bits, is checked);
* quantile (every method, with and without --nan-ignore): np.quantile and
  np.nanquantile along the last axis, bit for bit where the data has no signed
  zeros; float32 results are NumPy's float64 answer (for an array of q) rounded
  once, float16 results are float32: NumPy's answer on the data widened to
  float64, rounded once (kselect/types.hpp, quantile_value_t);
* topk --sorted [--largest]: np.sort along the last axis, and the indices file
  points at the values;
* --offsets: each segment alone, an empty segment answering NaN (quantile).

Exit status: 0 pass, 1 mismatch, 77 NumPy missing (CTest reports the test skipped).
"""
import os
import subprocess
import sys
import tempfile

from numpy_test_util import import_numpy, report, tool_and_rng

(np,) = import_numpy("numpy_segmented_test")

METHODS = ["linear", "lower", "higher", "nearest", "midpoint", "inverted_cdf", "averaged_inverted_cdf",
           "closest_observation", "interpolated_inverted_cdf", "hazen", "weibull", "median_unbiased",
           "normal_unbiased"]
DTYPES = [np.float64, np.float32, np.float16, np.int32, np.int64]


class Tool:
    def __init__(self, tool, workdir):
        self.tool, self.workdir, self.runs = tool, workdir, 0

    def path(self, name):
        return os.path.join(self.workdir, name)

    def run(self, args):
        """Runs kselect with -o out.npy; returns the result array."""
        self.runs += 1
        out = self.path("out.npy")
        r = subprocess.run([self.tool, "--device", "cpu", *args, "-o", out], capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"kselect {' '.join(args)} failed ({r.returncode}): {r.stderr.strip()}")
        return np.load(out)


def make_rows(rng, dtype, m, cols):
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-50, 50, size=(m, cols)).astype(dtype)
    a = np.round(rng.normal(0, 100, size=(m, cols)), 1).astype(dtype)
    a[rng.random((m, cols)) < 0.05] = np.nan
    a[a == 0] = 1  # no signed zeros: NumPy's answers are then fixed bits
    return a


def result_type(dtype):
    """kselect's quantile dtype: the key type for float and double, float32 for float16, float64 for integers."""
    return {np.float16: np.float32, np.float32: np.float32}.get(dtype, np.float64)


def numpy_quantile(seg, qs, method, nan_ignore, dtype):
    wide = seg.astype(np.float64)
    if seg.size == 0 or (nan_ignore and np.all(np.isnan(wide))):
        return np.full(len(qs), np.nan)
    f = np.nanquantile if nan_ignore else np.quantile
    if dtype == np.float16:  # kselect: float64 arithmetic on the exact neighbours, rounded once
        return f(wide, qs, method=method)
    return f(seg, qs, method=method)  # float32: NumPy's float64 answer for an array q, rounded by the caller


def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    both_nan = np.isnan(a.astype(np.float64)) & np.isnan(b.astype(np.float64))
    return a.shape == b.shape and bool(np.all((a == b) | both_nan))


def main():
    tool_path, rng = tool_and_rng(np, 23)
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        tool = Tool(tool_path, tmp)
        for dtype in DTYPES:
            for m, cols in ((1, 1), (5, 17), (40, 100)):
                a = make_rows(rng, dtype, m, cols)
                src = tool.path("a.npy")
                np.save(src, a)
                where = f"{np.dtype(dtype).name} ({m}, {cols})"
                ks = sorted({0, cols // 2, cols - 1})
                got = tool.run(["select", "--axis", "-1", "-k", ",".join(map(str, ks)), src])
                want = np.sort(a, axis=-1)[:, ks]  # np.partition's values (NaN last)
                if len(ks) == 1:
                    want = want[:, 0]  # one k: shape (m,), as np.partition(a, k, axis=-1)[..., k]
                if not same(got, want):
                    failures.append(f"{where} select -k {ks}")
                qs = [0.0, 0.25, 0.5, float(rng.random()), 1.0]
                for method in METHODS:
                    for nan_ignore in (False, True):
                        flags = ["--nan-ignore"] if nan_ignore else []
                        got = tool.run(["quantile", "--axis", "-1", "--method", method,
                                        "-q", ",".join(repr(q) for q in qs), *flags, src])
                        want = np.stack([numpy_quantile(row, qs, method, nan_ignore, dtype) for row in a])
                        want = want.astype(result_type(dtype))
                        if got.dtype != want.dtype or not same(got, want):
                            failures.append(f"{where} quantile {method}{' --nan-ignore' if nan_ignore else ''}: "
                                            f"{got.dtype} {got.ravel()[:4]} want {want.dtype} {want.ravel()[:4]}")
                k = min(3, cols)
                for largest in (False, True):
                    idx = tool.path("idx.npy")
                    got = tool.run(["topk", "--axis", "-1", "-k", str(k), "--sorted", "--indices-output", idx,
                                    *(["--largest"] if largest else []), src])
                    s = np.sort(a, axis=-1)
                    want = s[:, ::-1][:, :k] if largest else s[:, :k]
                    points = np.take_along_axis(a, np.load(idx), axis=-1)
                    if got.dtype != a.dtype or not same(got, want) or not same(points, got):
                        failures.append(f"{where} topk{' --largest' if largest else ''}")
            # Ragged: segments of the flat values, one of them empty.
            flat = make_rows(rng, dtype, 1, 60).ravel()
            np.save(tool.path("f.npy"), flat)
            offsets = np.array([0, 7, 7, 30, 31, 60], dtype=np.int64)
            np.save(tool.path("o.npy"), offsets)
            got = tool.run(["quantile", "--offsets", tool.path("o.npy"), "-q", "0.5", tool.path("f.npy")])
            want = np.array([numpy_quantile(flat[offsets[i]:offsets[i + 1]], [0.5], "linear", False, dtype)[0]
                             for i in range(len(offsets) - 1)]).astype(result_type(dtype))
            if not same(got, want):
                failures.append(f"{np.dtype(dtype).name} ragged quantile: {got} want {want}")
    print(f"numpy_segmented_test: NumPy {np.__version__}, {tool.runs} tool runs")
    return report("numpy_segmented_test", failures, "every segmented answer is NumPy's along the last axis")


if __name__ == "__main__":
    sys.exit(main())
