#!/usr/bin/env python3
"""The kselect tool against NumPy itself, bit for bit.

Usage: numpy_compat_test.py KSELECT [--seed S]

Runs `kselect select` and `kselect quantile` on random float64 and float32 arrays
made of signed zeros, +-1, NaNs of either sign and ordinary values, and compares
every printed answer with NumPy's, bit for bit (the sign of zero and of NaN
included):

* Where NumPy's answer does not depend on how its partition orders equal elements
  (every zero of the array has one sign, every NaN the same bits), the tool must
  print np.partition(a, k)[k] and np.quantile(a, [q], method=m) exactly (float32
  input: NumPy's float64 result rounded once to float32, as documented).
* Where it does (zeros of both signs, NaNs of both signs), NumPy's partition picks
  one of the equal elements by its algorithm (np.partition and np.sort(kind='stable')
  disagree about half the time). The tool's rule is the element at that position of
  the stable sort; the test checks that rule through NumPy's own quantile code
  applied to the stable sort, and prints how often np.quantile itself agreed.

Exit status: 0 pass, 1 mismatch, 77 NumPy missing (CTest reports the test skipped).
"""
import os
import subprocess
import sys
import tempfile

from numpy_test_util import import_numpy, report, tool_and_rng

np, fb = import_numpy("numpy_compat_test", "numpy.lib._function_base_impl")

METHODS = ["linear", "lower", "higher", "nearest", "midpoint", "inverted_cdf", "averaged_inverted_cdf",
           "closest_observation", "interpolated_inverted_cdf", "hazen", "weibull", "median_unbiased",
           "normal_unbiased"]


def parse(text, dtype):
    """The tool's text for one value (nan, -nan, inf, shortest decimal) as dtype."""
    v = float(text)  # Python keeps the sign of "-nan"
    return dtype(v) if dtype == np.float64 else np.float32(v)


def same_bits(a, b, dtype):
    return np.array([a], dtype=dtype).tobytes() == np.array([b], dtype=dtype).tobytes()


def stable_quantile(a, q, method):
    """np.quantile's own code path (numpy/lib/_function_base_impl.py, _quantile) with
    the stable sort in place of its partition."""
    arr = np.sort(a, kind="stable")
    n = arr.shape[0]
    props = fb._QuantileMethods[method]
    quantiles = np.asarray([q])
    virtual = np.asanyarray(props["get_virtual_index"](n, quantiles))
    if np.isnan(arr[-1]):
        return arr[-1]
    if props["fix_gamma"] is None:
        return arr[virtual.astype(np.intp)][0]
    prev, nxt = fb._get_indexes(arr, virtual, n)
    gamma = fb._get_gamma(virtual, prev, props)
    return fb._lerp(arr[prev], arr[nxt], gamma)[0]


def numpy_partition(a, k):
    return np.partition(a, k)[k]


def numpy_quantile(a, q, method):
    return np.quantile(a, np.asarray([q]), method=method)[0]


class Runner:
    def __init__(self, tool, workdir):
        self.tool = tool
        self.workdir = workdir
        self.count = 0

    def run(self, args, array):
        path = os.path.join(self.workdir, f"a{self.count}.npy")
        self.count += 1
        np.save(path, array)
        r = subprocess.run([self.tool, "--device", "cpu", *args, path], capture_output=True, text=True)
        os.remove(path)
        if r.returncode != 0:
            raise RuntimeError(f"kselect {' '.join(args)} failed ({r.returncode}): {r.stderr.strip()}")
        return r.stdout.split()


def make_array(rng, kind, n, dtype):
    neg_nan = -np.float64(np.nan)
    if kind == "negative_zeros":
        pool = [-0.0, -0.0, -1.0, 1.0]
    elif kind == "positive_zeros":
        pool = [0.0, 0.0, -1.0, 1.0]
    elif kind == "mixed_zeros":  # the issue's {+-0, +-1}
        pool = [-0.0, 0.0, -1.0, 1.0]
    elif kind == "negative_nans":
        pool = [neg_nan, -0.0, 0.5, 2.0]
    elif kind == "positive_nans":
        pool = [np.nan, 0.0, 0.5, -2.0]
    elif kind == "mixed_nans":
        pool = [np.nan, neg_nan, -0.0, 0.0, 1.0]
    else:
        raise ValueError(kind)
    return np.array([pool[i] for i in rng.integers(0, len(pool), n)], dtype=np.float64).astype(dtype)


def determined(kind):
    return kind in ("negative_zeros", "positive_zeros", "negative_nans", "positive_nans")


def main():
    tool_path, rng = tool_and_rng(np, 19)
    failures = []
    agree = {"total": 0, "same": 0}
    with tempfile.TemporaryDirectory() as tmp:
        runner = Runner(tool_path, tmp)
        for dtype in (np.float64, np.float32):
            for kind in ("negative_zeros", "positive_zeros", "negative_nans", "positive_nans", "mixed_zeros",
                         "mixed_nans"):
                for trial in range(25):
                    n = int(rng.choice([1, 2, 3, 5, 31, 32, 33, 100, 1000, 100003]))
                    a = make_array(rng, kind, n, dtype)
                    ks = sorted({0, n // 2, n - 1, int(rng.integers(0, n))})
                    got = runner.run(["select", "-k", ",".join(map(str, ks))], a)
                    stable = np.sort(a, kind="stable")
                    for k, text in zip(ks, got):
                        value = parse(text, dtype)
                        want = numpy_partition(a, k) if determined(kind) else stable[k]
                        if not same_bits(value, want, dtype):
                            failures.append(f"{dtype.__name__} {kind} n={n} select -k {k}: {text}, want {want!r}")
                    qs = [0.0, float(rng.random()), 0.5, 0.6, 1.0]
                    for method in METHODS:
                        got = runner.run(["quantile", "--method", method, "-q", ",".join(repr(q) for q in qs)], a)
                        for q, text in zip(qs, got):
                            value = parse(text, dtype)
                            npq = numpy_quantile(a, q, method)
                            want = npq if determined(kind) else stable_quantile(a, q, method)
                            if dtype == np.float32:
                                want = np.float32(want)  # kselect rounds NumPy's float64 result once
                                npq = np.float32(npq)
                            if not same_bits(value, want, dtype):
                                failures.append(f"{dtype.__name__} {kind} n={n} quantile {method} q={q!r}: "
                                                f"{text}, want {want!r}")
                            if not determined(kind):
                                agree["total"] += 1
                                agree["same"] += same_bits(value, npq, dtype)
    print(f"numpy_compat_test: NumPy {np.__version__}, {runner.count} tool runs")
    print(f"arrays whose zeros or NaNs differ in sign: np.quantile itself gave the same bits in "
          f"{agree['same']} of {agree['total']} answers (its partition decides which equal element it takes)")
    return report("numpy_compat_test", failures,
                  "every answer has NumPy's bits (stable-sort rule where NumPy's partition decides)")


if __name__ == "__main__":
    sys.exit(main())
