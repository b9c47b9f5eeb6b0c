"""NumPy's quantile recipe on order statistics that kselect selects.

numpy.quantile sorts (partitions) the data, reads the values at two neighbouring
ranks per q, and interpolates. kselect selects exactly those ranks instead of
sorting; the rest (which ranks a method needs, the interpolation weight, the
interpolation itself and the dtypes of the result) is done here with the same NumPy
operations NumPy uses (numpy/lib/_function_base_impl.py: _QuantileMethods,
_get_indexes, _get_gamma, _lerp), so that results are identical to NumPy's, bit for
bit and dtype for dtype, for all thirteen methods. The C++ library has the same
recipe in src/core/quantile_math.hpp; here NumPy's own type promotion decides the
result types (float32 input with a Python-scalar q stays float32, with an array of
q becomes float64), which C++ cannot express.

Everything is vectorised over a batch of m slices (rows) that may have different
lengths n (nanquantile along an axis drops each row's NaNs): virtual indexes have
the shape q.shape + (m,).
"""
from __future__ import annotations

import typing

import numpy as np

from ._typing import QuantileMethod

# numpy.quantile's thirteen methods, in NumPy's order: the names of _typing.QuantileMethod.
METHODS = typing.get_args(QuantileMethod)


def _hyndman_fan(n, q, alpha, beta):
    return n * q + (alpha + q * (1 - alpha - beta)) - 1


def _discrete(index, take_previous):
    previous = np.floor(index)
    chosen = np.where(take_previous(index - previous, index), previous, previous + 1).astype(np.intp)
    chosen[chosen < 0] = 0
    return chosen


def _virtual_index(method, n, q):
    """NumPy's get_virtual_index of each method (n broadcasts against q)."""
    if method == "linear":
        return (n - 1) * q
    if method == "lower":
        return np.floor((n - 1) * q).astype(np.intp)
    if method == "higher":
        return np.ceil((n - 1) * q).astype(np.intp)
    if method == "nearest":
        return np.around((n - 1) * q).astype(np.intp)
    if method == "midpoint":
        return 0.5 * (np.floor((n - 1) * q) + np.ceil((n - 1) * q))
    if method == "inverted_cdf":
        return _discrete(n * q - 1, lambda gamma, _: gamma == 0)
    if method == "closest_observation":
        return _discrete(n * q - 1 - 0.5, lambda gamma, index: (gamma == 0) & (np.floor(index) % 2 == 1))
    if method == "averaged_inverted_cdf":
        return n * q - 1
    alpha_beta = {
        "interpolated_inverted_cdf": (0, 1),
        "hazen": (0.5, 0.5),
        "weibull": (0, 0),
        "median_unbiased": (1 / 3.0, 1 / 3.0),
        "normal_unbiased": (3 / 8.0, 3 / 8.0),
    }
    return _hyndman_fan(n, q, *alpha_beta[method])


def _fixed_gamma(method, gamma, virtual):
    if method == "averaged_inverted_cdf":
        out = np.full(gamma.shape, 1.0)
        np.copyto(out, 0.5, where=gamma == 0, casting="unsafe")
        return out
    if method == "midpoint":
        out = np.full(gamma.shape, 0.5)
        np.copyto(out, 0.0, where=virtual % 1 == 0, casting="unsafe")
        return out
    return gamma


def _is_discrete(method, virtual):
    if method in ("inverted_cdf", "closest_observation", "lower", "higher", "nearest"):
        return True
    return method == "linear" and np.issubdtype(virtual.dtype, np.integer)


def check_method(method):
    if method not in METHODS:
        raise ValueError(f"kselect: unknown quantile method {method!r}; one of {', '.join(METHODS)}")


def check_q(q, percent=False):
    """q as NumPy makes it (percentiles divided by 100 first, as numpy.percentile does),
    and whether it was a Python scalar (NumPy's weak_q)."""
    weak = type(q) in (int, float)
    q = np.asanyarray(np.true_divide(q, 100) if percent else q)
    if q.dtype.kind not in "biuf":
        raise TypeError(f"kselect: q must be real numbers, not {q.dtype}")
    if q.size and not (q.min() >= 0 and q.max() <= 1):  # NaN fails both
        what = "percentiles must be in the range [0, 100]" if percent else "quantiles must be in the range [0, 1]"
        raise ValueError(f"kselect: {what}")
    return q, weak


def quantile_of_slices(n, q, method, weak_q, dtype, fetch):
    """The quantiles q of m slices of lengths n (int64 array, all >= 1), shape q.shape + (m,).

    fetch(ranks) takes an intp array of shape (s, m), rank ranks[j, i] of slice i,
    and returns the values there, an array of `dtype` of the same shape. Slices of
    a NaN-aware dtype are assumed NaN-free here (see the callers).
    """
    m = n.shape[0]
    n_b = n.reshape((1,) * q.ndim + (m,))
    q_b = q[..., np.newaxis]
    if q.dtype.kind == "f":
        n_b = n_b.astype(q.dtype)  # NumPy has n as a Python int: weak, it takes q's type
    virtual = np.asanyarray(_virtual_index(method, n_b, q_b))
    if virtual.shape != q.shape + (m,):
        virtual = np.broadcast_to(virtual, q.shape + (m,)).copy()
    if _is_discrete(method, virtual):
        ranks = virtual.astype(np.intp).reshape(-1, m)
        return fetch(ranks).reshape(q.shape + (m,))
    previous = np.floor(virtual)
    following = previous + 1
    above = virtual >= n_b - 1
    previous[above] = -1
    following[above] = -1
    below = virtual < 0
    previous[below] = 0
    following[below] = 0
    gamma = np.asanyarray(_fixed_gamma(method, np.asanyarray(virtual - previous), virtual), dtype=virtual.dtype)
    last = np.broadcast_to(n_b - 1, virtual.shape)
    prev_rank = np.where(previous < 0, last, previous).astype(np.intp)
    next_rank = np.where(following < 0, last, following).astype(np.intp)
    both = fetch(np.concatenate([prev_rank.reshape(-1, m), next_rank.reshape(-1, m)]))
    half = both.shape[0] // 2
    a = both[:half].reshape(virtual.shape)
    b = both[half:].reshape(virtual.shape)
    return lerp(a, b, gamma, weak_q)


def lerp(a, b, t, weak_t):
    """NumPy's _lerp. weak_t: t came from a Python float q, which NumPy passes to the
    arithmetic as a Python float (the array's dtype wins: float32 stays float32)."""
    diff_b_a = b - a
    if weak_t:
        # Per element what NumPy does per slice with float(t), a Python float: with a
        # floating array the products are in the array's type (`1 - t` and `t >= 0.5`
        # in double first); with an integer array in float64.
        t = t.astype(np.float64)
        if a.dtype.kind == "f":
            t_low, one_minus = t.astype(a.dtype), (1 - t).astype(a.dtype)
        else:
            t_low, one_minus = t, 1 - t
    else:
        t_low, one_minus = t, 1 - t
    result = np.add(a, diff_b_a * t_low)
    np.subtract(b, diff_b_a * one_minus, out=result, where=t >= 0.5, casting="unsafe", dtype=type(result.dtype))
    return result
