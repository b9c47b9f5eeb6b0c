"""The package against NumPy on the CPU backend: generated inputs (Hypothesis) of every
key type, shape and method, with NaN, infinities, -0.0, denormals and duplicates."""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import kselect

TYPES = [np.float32, np.float64, np.int32, np.int64, np.uint32, np.uint64]
FLOATS = [np.float16, np.float32, np.float64]


def same(got, expected):
    """Equal values (NaN where NumPy has NaN; -0.0 == +0.0), the same dtype, and a NumPy
    scalar exactly where NumPy returns one."""
    assert type(got) is type(expected) or (
        isinstance(got, np.ndarray) and isinstance(expected, np.ndarray)
    ), (type(got), type(expected))
    g, e = np.asarray(got), np.asarray(expected)
    assert g.dtype == e.dtype, (g.dtype, e.dtype)
    assert g.shape == e.shape, (g.shape, e.shape)
    assert np.array_equal(g, e, equal_nan=g.dtype.kind == "f"), (g, e)


def values_of(dtype):
    if np.dtype(dtype).kind == "f":
        special = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-40 if dtype != np.float16 else 1e-7, 1.0, -1.0]
        return st.one_of(
            st.sampled_from(special),
            st.floats(width=np.dtype(dtype).itemsize * 8, allow_nan=True, allow_infinity=True),
            st.integers(-3, 3).map(float),  # duplicates
        )
    info = np.iinfo(dtype)
    return st.one_of(st.integers(int(info.min), int(info.max)), st.integers(-3, 3).filter(lambda v: v >= info.min))


@st.composite
def arrays(draw, dtypes=TYPES, max_dims=3, min_size=1):
    dtype = draw(st.sampled_from(dtypes))
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=max_dims, min_side=min_size, max_side=9))
    return draw(hnp.arrays(dtype, shape, elements=values_of(dtype)))


def q_values():
    qs = st.floats(0, 1, allow_nan=False) | st.sampled_from([0.0, 0.5, 1.0, 1 / 3])
    return st.one_of(qs, st.lists(qs, min_size=1, max_size=5), st.sampled_from([0, 1]))


def axes(a):
    return st.one_of(st.none(), st.integers(-a.ndim, a.ndim - 1))


def quietly(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return f(*args, **kwargs)


@settings(max_examples=300, deadline=None)
@given(data=st.data(), method=st.sampled_from(kselect.quantile_methods))
def test_quantile_matches_numpy(data, method):
    a = data.draw(arrays(TYPES + [np.float16]))
    q = data.draw(q_values())
    axis = data.draw(axes(a))
    keepdims = data.draw(st.booleans())
    if a.dtype == np.float16 and axis is None:
        axis = -1 if a.ndim == 1 else axis  # float16: the batched calls (a 1-D array is one row)
    expected = quietly(np.quantile, a, q, axis=axis, method=method, keepdims=keepdims)
    same(kselect.quantile(a, q, axis=axis, method=method, keepdims=keepdims), expected)


@settings(max_examples=200, deadline=None)
@given(data=st.data(), method=st.sampled_from(kselect.quantile_methods))
def test_nanquantile_matches_numpy(data, method):
    a = data.draw(arrays(FLOATS[1:]))
    q = data.draw(q_values())
    axis = data.draw(axes(a))
    expected = quietly(np.nanquantile, a, q, axis=axis, method=method)
    same(quietly(kselect.nanquantile, a, q, axis=axis, method=method), expected)


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_percentiles_and_median_match_numpy(data):
    a = data.draw(arrays())
    axis = data.draw(axes(a))
    p = data.draw(st.one_of(st.floats(0, 100), st.lists(st.floats(0, 100), min_size=1, max_size=4)))
    same(kselect.percentile(a, p, axis=axis), quietly(np.percentile, a, p, axis=axis))
    same(kselect.median(a, axis=axis), quietly(np.median, a, axis=axis))
    if a.dtype.kind == "f":
        same(quietly(kselect.nanpercentile, a, p, axis=axis), quietly(np.nanpercentile, a, p, axis=axis))


def sorted_copy(a, axis):
    return np.sort(a, axis=axis)  # NumPy's sort: NaN last


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_select_and_multiselect_match_sort(data):
    a = data.draw(arrays(TYPES + [np.float16]))
    flat = a.reshape(-1)
    if a.dtype != np.float16:
        k = data.draw(st.integers(-flat.size, flat.size - 1))
        got = kselect.select(a, k)
        want = np.sort(flat)[k]
        assert got == want or (np.isnan(want) and np.isnan(got))
        assert type(got) is type(want)
        ks = data.draw(st.lists(st.integers(0, flat.size - 1), min_size=1, max_size=6))
        same(kselect.multiselect(a, ks), np.sort(flat)[ks])
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    k = data.draw(st.integers(0, a.shape[axis] - 1))
    want = np.take(sorted_copy(a, axis), k, axis=axis)
    same(kselect.select(a, k, axis=axis), want)


def check_topk(a, k, largest, values, indices, axis):
    a_sorted = np.sort(a, axis=axis)
    expected = np.take(a_sorted, range(a.shape[axis] - k, a.shape[axis]), axis=axis) if largest else np.take(
        a_sorted, range(k), axis=axis
    )
    assert values.shape == expected.shape and indices.shape == expected.shape
    # the same multiset of values per slice, and each index points at its value, no repeats
    got_sorted = np.sort(values, axis=axis)
    assert np.array_equal(got_sorted, np.sort(expected, axis=axis), equal_nan=a.dtype.kind == "f")
    assert np.array_equal(np.take_along_axis(a, indices, axis=axis), values, equal_nan=a.dtype.kind == "f")
    if k:
        moved = np.moveaxis(indices, axis, -1).reshape(-1, k)
        assert all(len(set(row)) == k for row in moved.tolist())


@settings(max_examples=200, deadline=None)
@given(data=st.data(), largest=st.booleans(), sort=st.booleans(), deterministic=st.booleans())
def test_topk(data, largest, sort, deterministic):
    a = data.draw(arrays(TYPES + [np.float16]))
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    k = data.draw(st.integers(0, a.shape[axis]))
    values, indices = kselect.topk(a, k, axis=axis, largest=largest, sorted=sort, deterministic=deterministic)
    assert values.dtype == a.dtype and indices.dtype == np.int64
    check_topk(a, k, largest, values, indices, axis)
    if sort and k:
        ordered = np.sort(values, axis=axis)
        if largest:
            ordered = np.flip(ordered, axis=axis)
        assert np.array_equal(values, ordered, equal_nan=a.dtype.kind == "f")


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_rank_range_approx_filter_count(data):
    a = data.draw(arrays(TYPES, max_dims=1))
    n = a.size
    lo = data.draw(st.integers(0, n))
    hi = data.draw(st.integers(lo, n))
    values, indices = kselect.rank_range(a, lo, hi, sorted=True)
    order = np.argsort(a, kind="stable")
    assert np.array_equal(indices, order[lo:hi])
    assert np.array_equal(values, a[order[lo:hi]], equal_nan=a.dtype.kind == "f")
    k = data.draw(st.integers(0, n - 1))
    err = data.draw(st.integers(0, 5))
    v, r = kselect.approx_select(a, [k], err)
    assert abs(int(r[0]) - k) <= err
    s = np.sort(a)
    assert v[0] == s[int(r[0])] or (np.isnan(v[0]) and np.isnan(s[int(r[0])]))
    if a.dtype.kind == "f":
        c_lo, c_hi = sorted(data.draw(st.tuples(st.floats(-5, 5), st.floats(-5, 5))))
    else:
        info = np.iinfo(a.dtype)
        c_lo, c_hi = sorted(data.draw(st.tuples(*[st.integers(int(info.min), int(info.max))] * 2)))
    mask = (a >= c_lo) & (a < c_hi)
    got, where = kselect.filter(a, lo=c_lo, hi=c_hi, return_indices=True)
    assert np.array_equal(got, a[mask]) and np.array_equal(where, np.flatnonzero(mask))
    assert kselect.count(a, lo=c_lo, hi=c_hi) == int(mask.sum())
    assert kselect.count(a, op="ne", value=c_lo) == int((a != a.dtype.type(c_lo)).sum())


def test_scalars_where_numpy_gives_scalars():
    a = np.arange(10.0)
    assert isinstance(kselect.quantile(a, 0.5), np.float64)
    assert isinstance(kselect.median(a), np.float64)
    assert isinstance(kselect.quantile(a.astype(np.float32), 0.5), np.float32)
    assert kselect.quantile(a.astype(np.float32), [0.5]).dtype == np.float64  # NumPy's promotion
    assert isinstance(kselect.select(a, 3), np.float64)
    assert isinstance(kselect.count(a, lo=2), int)


def test_non_contiguous_input_is_copied_once_and_answers():
    a = np.arange(40.0).reshape(4, 10)[:, ::2]
    same(kselect.quantile(a, 0.3, axis=1), np.quantile(a, 0.3, axis=1))
    same(kselect.median(a.T), np.median(a.T))


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda: kselect.quantile(np.array([], np.float32), 0.5), ValueError),
        (lambda: kselect.quantile(np.arange(3.0), 1.5), ValueError),
        (lambda: kselect.quantile(np.arange(3.0), [0.5, np.nan]), ValueError),
        (lambda: kselect.percentile(np.arange(3.0), 101), ValueError),
        (lambda: kselect.quantile(np.arange(3.0), 0.5, method="linearish"), ValueError),
        (lambda: kselect.quantile(np.arange(3.0), 0.5, axis=1), ValueError),
        (lambda: kselect.quantile(np.arange(3.0), 0.5, axis=0.5), TypeError),
        (lambda: kselect.select(np.arange(3), 3), ValueError),
        (lambda: kselect.select(np.arange(3), 1.0), TypeError),
        (lambda: kselect.select(np.array([True, False]), 0), TypeError),
        (lambda: kselect.select(np.array([1 + 2j]), 0), TypeError),
        (lambda: kselect.select(np.array(["a"]), 0), TypeError),
        (lambda: kselect.topk(np.arange(3.0), 4), ValueError),
        (lambda: kselect.topk(np.arange(3.0), -1), ValueError),
        (lambda: kselect.rank_range(np.arange(3.0), 2, 1), ValueError),
        (lambda: kselect.approx_select(np.arange(3.0), [1], -1), ValueError),
        (lambda: kselect.filter(np.arange(3)), ValueError),
        (lambda: kselect.filter(np.arange(3), op="between", value=1), ValueError),
        (lambda: kselect.filter(np.arange(3, dtype=np.int32), lo=2**40), ValueError),
        (lambda: kselect.filter(np.arange(3, dtype=np.float16), lo=1), TypeError),
        (lambda: kselect.multiselect(np.arange(3.0), [0.5]), TypeError),
    ],
)
def test_bad_input_raises(call, error):
    with pytest.raises(error, match="kselect"):
        call()
