# %% [markdown]
# # kselect with NumPy: a quick start
#
# kselect answers order-statistic questions (quantiles, medians, the k-th smallest
# value, the k largest with their positions, filters) by *selection*, without
# sorting, and gives NumPy's answers bit for bit. NumPy arrays run on kselect's CPU
# backend; the same calls take PyTorch and CuPy GPU arrays (torch_quickstart.py).
#
# Run it top to bottom (`python examples/python/numpy_quickstart.py`), or cell by
# cell in an editor that knows `# %%` cells (VS Code, Spyder, PyCharm, Jupytext).
# Every cell checks its answers against NumPy with `assert`, so a clean run is a
# test (tests/python/test_docs.py runs it in CI).

# %%
import warnings

import numpy as np

import kselect

rng = np.random.default_rng(0)
x = rng.normal(size=1_000_000).astype(np.float32)
print(f"kselect {kselect.__version__}; CUDA backend usable here: {kselect.cuda_available()}")

# %% [markdown]
# ## Quantiles and percentiles
#
# `kselect.quantile` takes NumPy's arguments (`q`, `axis`, `method`, `keepdims`)
# and returns what `numpy.quantile` returns: the same values, bit for bit, and the
# same dtype (a float32 array with a list of q gives float64, as in NumPy; with one
# Python float q it stays float32). All thirteen of NumPy's methods are there:

# %%
print("methods:", ", ".join(kselect.quantile_methods))
qs = [0.001, 0.01, 0.25, 0.5, 0.75, 0.99, 0.999]
for method in ["linear", "lower", "higher", "nearest", "midpoint", "inverted_cdf", "hazen", "median_unbiased"]:
    got = kselect.quantile(x, qs, method=method)
    expected = np.quantile(x, qs, method=method)
    assert got.dtype == expected.dtype and np.array_equal(got, expected), method
    print(f"{method:>16}: {np.array2string(got[[0, 3, 6]], precision=6)}  (q = 0.001, 0.5, 0.999)")

one = kselect.quantile(x, 0.5)  # one Python float q: a NumPy scalar, float32 like x
assert type(one) is type(np.quantile(x, 0.5)) and one == np.quantile(x, 0.5)
pct = kselect.percentile(x, [1, 50, 99], method="weibull")  # percentiles: q in [0, 100]
assert np.array_equal(pct, np.percentile(x, [1, 50, 99], method="weibull"))
print("median as a quantile:", repr(one), " percentiles 1, 50, 99:", pct)

# %% [markdown]
# ## Medians and quantiles along an axis
#
# `axis=` takes one axis; each 1-D slice along it is one row of a batched call (one
# call for all rows, not a loop). `keepdims=True` keeps the reduced axis as length 1.

# %%
m = rng.integers(0, 1000, size=(500, 2001)).astype(np.int64)
assert np.array_equal(kselect.median(m, axis=1), np.median(m, axis=1))
assert np.array_equal(kselect.median(m, axis=0, keepdims=True), np.median(m, axis=0, keepdims=True))
deciles = kselect.quantile(m, np.linspace(0, 1, 11), axis=1)  # shape (11, 500): q first, as NumPy
assert deciles.shape == (11, 500) and np.array_equal(deciles, np.quantile(m, np.linspace(0, 1, 11), axis=1))
print("row medians:", kselect.median(m, axis=1)[:5], "... deciles of row 0:", deciles[:, 0])

# %% [markdown]
# ## The k-th smallest value, and many ranks at once
#
# `select(a, k)` is the value `np.sort(a)[k]` (0-based; negative k counts from the
# end), as NumPy's `np.partition(a, k)[k]`; `kth` is the same call under NumPy's
# name. `multiselect` takes many ranks in any order, repeats allowed.

# %%
ref = np.sort(x)
assert kselect.select(x, 0) == ref[0] and kselect.select(x, -1) == ref[-1]
assert kselect.kth(x, 123_456) == np.partition(x, 123_456)[123_456]
ranks = [999_999, 0, 500_000, 500_000, 10]
assert np.array_equal(kselect.multiselect(x, ranks), ref[ranks])
assert np.array_equal(kselect.select(m, 7, axis=1), np.sort(m, axis=1)[:, 7])
print("smallest, largest:", kselect.select(x, 0), kselect.select(x, -1))

# %% [markdown]
# ## Top-k with positions
#
# `topk(a, k)` returns `(values, indices)` like `torch.topk`: the k largest (or,
# with `largest=False`, smallest) along the last axis, sorted by default. Among
# values tied with the k-th, any may be taken; `deterministic=True` takes those of
# smaller index, which is what a stable sort gives. `axis=None` flattens.

# %%
values, indices = kselect.topk(x, 10, deterministic=True)
order = np.argsort(-x, kind="stable")[:10]  # descending, ties by index
assert np.array_equal(indices, order) and np.array_equal(values, x[order])
small_v, small_i = kselect.topk(x, 5, largest=False, deterministic=True)
assert np.array_equal(small_i, np.argsort(x, kind="stable")[:5])
row_v, row_i = kselect.topk(m, 3, deterministic=True)  # per row of m (axis=-1)
assert row_v.shape == (500, 3) and np.array_equal(np.take_along_axis(m, row_i, axis=1), row_v)
assert np.array_equal(row_i, np.argsort(-m, axis=1, kind="stable")[:, :3])
print("10 largest:", values.round(3), "at", indices)

# %% [markdown]
# ## Filters and counts
#
# `filter(a, lo, hi)` keeps `lo <= x < hi` in input order, as the boolean mask
# `a[(lo <= a) & (a < hi)]` does; `op=`/`value=` give the other comparisons (`lt`,
# `le`, `gt`, `ge`, `eq`, `ne`), `return_indices=True` the positions too, and
# `count` how many there are without materialising them.

# %%
band = kselect.filter(x, lo=0.5, hi=1.0)
assert np.array_equal(band, x[(0.5 <= x) & (x < 1.0)])
big, where = kselect.filter(x, op="gt", value=3.0, return_indices=True)
assert np.array_equal(where, np.flatnonzero(x > 3.0)) and np.array_equal(big, x[x > 3.0])
assert kselect.count(x, op="le", value=0.0) == np.count_nonzero(x <= 0.0)
print(f"{band.size} values in [0.5, 1.0); {big.size} above 3.0, the first at {where[:3]}")

# %% [markdown]
# ## NaN
#
# As in NumPy: NaN sorts after +inf, any NaN in a slice makes `quantile` and
# `median` of that slice NaN, and `nanquantile`/`nanpercentile` ignore NaNs (an
# all-NaN slice gives NaN; NumPy also warns there, kselect does not).

# %%
y = x.copy()
y[::1000] = np.nan
assert np.isnan(kselect.quantile(y, 0.5)) and np.isnan(kselect.median(y))
assert kselect.nanquantile(y, 0.5) == np.nanquantile(y, 0.5)
assert kselect.select(y, -1) != kselect.select(y, -1)  # the largest "value" is a NaN
rows = np.array([[1.0, np.nan, 3.0, 4.0], [np.nan, np.nan, np.nan, np.nan], [5.0, 6.0, 7.0, 8.0]])
got = kselect.nanpercentile(rows, [25, 75], axis=1)
with warnings.catch_warnings():
    warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's "All-NaN slice encountered"
    expected = np.nanpercentile(rows, [25, 75], axis=1)
assert np.array_equal(got, expected, equal_nan=True)
print("nanquantile:", kselect.nanquantile(y, 0.5), " per-row nanpercentile 25, 75:\n", got)

# %% [markdown]
# ## Errors
#
# Bad arguments raise `ValueError` (out of range, unknown method, empty input) or
# `TypeError` (wrong type, unsupported dtype), with a message that says why.

# %%
def error_of(call):
    try:
        call()
    except (ValueError, TypeError) as e:
        return e
    raise AssertionError("no error raised")


for call, kind in [
    (lambda: kselect.quantile(x, 1.5), ValueError),  # q outside [0, 1]
    (lambda: kselect.quantile(x, 0.5, method="median"), ValueError),  # not one of the 13 methods
    (lambda: kselect.select(x, x.size), ValueError),  # rank out of range
    (lambda: kselect.select(x, 2.0), TypeError),  # ranks are integers
    (lambda: kselect.quantile(np.array([]), 0.5), ValueError),  # empty input
    (lambda: kselect.median(x.astype(np.complex64)), TypeError),  # no order on complex numbers
    (lambda: kselect.filter(np.arange(10), lo=2.5), ValueError),  # 2.5 is not an int64
]:
    e = error_of(call)
    assert type(e) is kind, (e, kind)
    print(f"{type(e).__name__}: {e}")

# %%
print("numpy_quickstart: all checks passed")
