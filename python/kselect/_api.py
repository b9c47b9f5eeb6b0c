"""The package's functions: NumPy's and PyTorch's conventions over the extension."""
from __future__ import annotations

import math
from typing import Literal, Optional, Union, overload

import numpy as np
import numpy.typing as npt

from . import _kselect
from ._arrays import Input, _torch, device_results, host_keys, normalize_axis, signed_twin
from ._quantile import check_method, check_q, quantile_of_slices
from ._typing import (Algorithm, ArrayInput, Communicator, Integer, Op, QuantileMethod, Report, Result, Scalar,
                      Transport)

_FLOATING = ("float16", "bfloat16", "float32", "float64")
_MAX_BATCHED_RANKS = 256  # kselect::device::max_segmented_ranks
# A whole array of at most this many keys goes to the GPU as one batched row: up to
# 16384 keys the batched call finishes a row in one kernel that reads it once and
# never waits for the host (docs/algorithms.md, "Segmented selection": the block
# tiers), where the single-array call waits for the host at least once
# (kselect/device.hpp). Longer arrays take the single-array call, and so do calls for
# more than _ONE_ROW_MAX_RANKS ranks: the batched call's warp tiers answer a short
# row's ranks two at a time, so 203 ranks of 1000 keys took 2.3 ms there against
# 0.04 ms in the single-array call (H100; docs/performance.md, "Issue 22").
_ONE_ROW_MAX = 16384
_ONE_ROW_MAX_RANKS = 4


def _int64s(values):
    return np.ascontiguousarray(values, dtype=np.int64).reshape(-1)


def _rank(k, n, what="k"):
    """k as an index into n sorted values; negative k counts from the end (as NumPy's kth)."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"kselect: {what} must be an integer, not {type(k).__name__}")
    k = int(k)
    if not -n <= k < n:
        raise ValueError(f"kselect: {what} = {k} is out of range for {n} elements")
    return k % n


def _ranks(ks, n):
    """ks (any shape of integers, negative counting from the end) as ranks: the shape
    and a flat int64 array."""
    ks_arr = np.asarray(ks)
    if ks_arr.dtype.kind not in "iu" and ks_arr.size:
        raise TypeError(f"kselect: ks must be integers, not {ks_arr.dtype}")
    flat = np.array([_rank(int(k), n, "ks") for k in ks_arr.reshape(-1)], dtype=np.int64)
    return ks_arr.shape, flat


def _nonempty(x, what):
    if x.size == 0:
        raise ValueError(f"kselect: {what} of an empty array")


def _distributed():
    """kselect._mpi, the calls with comm= (imported on their first use)."""
    from . import _mpi

    return _mpi


def _local_only(algorithm, transport, report, root=None):
    """Refuses the distributed calls' own arguments in a call without comm= (their
    defaults pass)."""
    if algorithm != "dibms" or transport != "mpi" or report is not None or root is not None:
        raise ValueError(
            "kselect: algorithm=, transport=, report= and root= are for distributed calls: pass comm= as well")


# ---- order statistics of slices -------------------------------------------------------------


class _Slices:
    """The slices a call works on: the whole array (axis=None) or each 1-D slice along
    `axis`, as a contiguous (m, n) array; fetches the values at given ranks."""

    def __init__(self, x, axis):
        self.x = x
        self.axis_given = axis is not None
        halves = x.dtype_name in ("float16", "bfloat16")
        x.check_dtype(halves=True)
        if axis is None:
            self.n = x.size
            self.rest = ()
            self.axis = None
            # The single-array calls take the six key types; 16-bit keys are one row.
            self.single = not halves
            self.table = x.flat() if self.single else x.flat().reshape(1, -1)
        else:
            if x.ndim == 0:
                raise ValueError("kselect: axis given for a 0-d array")
            self.table, self.rest, self.axis = x.rows(axis)
            self.n = x.shape[self.axis]
            self.single = False
        self.m = 1 if self.axis is None else math.prod(self.rest)

    def values_at(self, ranks):
        """Values at sorted unique ranks (1-D), the same in every slice: (m, len(ranks)),
        on the host. A CUDA input is selected by the device API into an array of its
        framework (its caching allocator holds the workspace, which the owning call
        would allocate and free on every call) and only the answers are copied back."""
        x = self.x
        if device_results(x):
            got = self.device_values_at(ranks)
            if got is not None:
                return host_keys(x.to_host(got), x.dtype_name).reshape(-1, len(ranks))
        if self.single:
            got = _kselect.multiselect(self.table, _int64s(ranks), x.stream)
            return host_keys(got, x.dtype_name).reshape(1, -1)
        got = _kselect.rows_multiselect(self.table, _int64s(ranks), x.stream)
        return host_keys(got, x.dtype_name)

    def device_values_at(self, ranks):
        """values_at on the caller's GPU, in the input's dtype, without passing through
        the host: (m, len(ranks)); None where the batched call takes fewer ranks."""
        x = self.x
        ranks = _int64s(ranks)
        batched = len(ranks) <= _MAX_BATCHED_RANKS
        if self.single and not (len(ranks) <= _ONE_ROW_MAX_RANKS and self.n <= _ONE_ROW_MAX):
            out = x.empty((len(ranks),))
            x.run_device(_kselect.device_multiselect, self.table, ranks, out)
            return out.reshape(1, -1)
        if not batched:
            return None
        out = x.empty((self.m, len(ranks)))
        table = self.table.reshape(1, -1) if self.single else self.table
        x.run_device(_kselect.device_rows_multiselect, table, ranks, out)
        return out

    def non_nan_counts(self):
        """How many non-NaN values each slice holds: (m,) int64 on the host."""
        return _non_nan_counts(self.x, self)

    def values_each(self, ks):
        """Value at rank ks[i] of slice i: (m,)."""
        got = _kselect.rows_select_each(self.table, _int64s(ks), self.x.stream)
        return host_keys(got, self.x.dtype_name)

    def fetch_same(self, extra=()):
        """A fetch for quantile_of_slices when every slice has the same length; the
        values at the `extra` ranks are kept in self.extra_values ((m, len(extra)))."""

        def fetch(ranks):  # (s, m), equal along m
            wanted = np.concatenate([ranks[:, 0], np.asarray(extra, dtype=np.intp)])
            unique, inverse = np.unique(wanted, return_inverse=True)
            values = self.values_at(unique)  # (m, u)
            picked = values[:, inverse]  # (m, s + len(extra))
            s = ranks.shape[0]
            self.extra_values = picked[:, s:]
            return np.ascontiguousarray(picked[:, :s].T)

        return fetch

    def fetch_each(self):
        """A fetch for slices of different lengths: one batched call per distinct row of ranks."""
        if self.m == 1:
            return self.fetch_same()

        def fetch(ranks):
            out = None
            seen = {}
            for j in range(ranks.shape[0]):
                key = ranks[j].tobytes()
                if key not in seen:
                    seen[key] = self.values_each(ranks[j])
                row = seen[key]
                if out is None:
                    out = np.empty((ranks.shape[0],) + row.shape, dtype=row.dtype)
                out[j] = row
            return out

        return fetch

    def shape_out(self, lead, keepdims):
        """The result's shape: lead (q's shape) + the other axes (axis=None: none), with
        keepdims the reduced axes kept as 1."""
        if not keepdims:
            return tuple(lead) + tuple(self.rest)
        if self.axis is None:
            return tuple(lead) + (1,) * self.x.ndim
        shape = list(self.x.shape)
        shape[self.axis] = 1
        return tuple(lead) + tuple(shape)


def _finish(x, result, shape):
    """A result of shape `shape` back to the caller: a NumPy scalar where NumPy gives one
    (0-d NumPy result), else an array of the caller's kind."""
    result = np.asarray(result).reshape(shape)
    if x.kind == "numpy" and result.ndim == 0:
        return result[()]
    return x.wrap(result)


# ---- quantiles ------------------------------------------------------------------------------


def _quantile(a, q, axis, method, keepdims, nan, weak=None):
    check_method(method)
    if weak is None:
        q, weak = check_q(q)
    x = Input(a)
    return _quantile_of(x, _Slices(x, axis), q, method, keepdims, nan, weak)


def _quantile_of(x, s, q, method, keepdims, nan, weak):
    """The quantiles q of the slices s of x (NumPy's recipe on the order statistics
    that s selects): a local _Slices, or the distributed calls' _mpi._Shards."""
    if s.n == 0 or s.m == 0:
        if nan:
            # numpy.nanquantile of an empty array is np.nanmean(a, axis, keepdims=keepdims):
            # NaN in the mean's dtype (float64 for integers), whatever q's shape.
            shape = s.shape_out((), keepdims)
            mean_dtype = np.float64 if x.dtype_name not in _FLOATING else np.float32 if x.dtype_name == "bfloat16" else x.dtype_name
            return _finish(x, np.full(shape, np.nan, dtype=mean_dtype), shape)
        raise ValueError("kselect: quantile of an empty array")
    floating = x.dtype_name in _FLOATING
    dtype = np.float32 if x.dtype_name == "bfloat16" else np.dtype(x.dtype_name)
    valid = None
    if nan and floating:
        valid = s.non_nan_counts()
        if (valid == s.n).all():
            valid = None
    if valid is None:
        n = np.full(s.m, s.n, dtype=np.int64)
        fetch = s.fetch_same(extra=(s.n - 1,) if floating else ())
        result = quantile_of_slices(n, q, method, weak, dtype, fetch)
        if floating:
            has_nan = np.isnan(s.extra_values[:, 0].astype(np.float64))  # the largest key is NaN
            if has_nan.any():
                if result.ndim == 0 or (q.ndim == 0 and s.axis is None):
                    result = s.extra_values[0, 0]  # NumPy: arr[-1], a NaN of the input's dtype
                else:
                    np.copyto(result, np.array(np.nan, dtype=s.extra_values.dtype), where=has_nan)
    else:
        empty = valid == 0
        n = np.where(empty, 1, valid)
        result = quantile_of_slices(n, q, method, weak, dtype, s.fetch_each())
        if empty.any():
            nan_value = np.array(np.nan, dtype=dtype)
            if empty[0]:  # NumPy's apply_along_axis takes its dtype from the first slice's result
                result = result.astype(dtype)
            np.copyto(result, nan_value, where=empty)
    return _finish(x, result, s.shape_out(q.shape, keepdims))


def _non_nan_counts(x, s):
    """How many non-NaN values each slice holds: (m,) int64 on the host."""
    if s.single:
        return np.array([_kselect.count(s.table, "le", float("inf"), None, x.stream)], dtype=np.int64)
    table = s.table
    if x.kind == "torch":
        import torch

        return (~torch.isnan(table)).sum(dim=1).cpu().numpy().astype(np.int64)
    if x.kind == "cupy":
        import cupy

        return cupy.asnumpy((~cupy.isnan(table)).sum(axis=1)).astype(np.int64)
    return (~np.isnan(table)).sum(axis=1).astype(np.int64)


def quantile(
    a: ArrayInput,
    q: npt.ArrayLike,
    axis: Optional[int] = None,
    method: QuantileMethod = "linear",
    keepdims: bool = False,
    *,
    comm: Optional[Communicator] = None,
    algorithm: Algorithm = "dibms",
    transport: Transport = "mpi",
    report: Optional[Report] = None,
) -> Result:
    """numpy.quantile(a, q, axis, method=method, keepdims=keepdims), by selection.

    Same results and result dtypes as NumPy for every method; NumPy, PyTorch and CuPy
    arrays (GPU arrays run on the GPU, on the current stream). axis: None (the
    flattened array) or one int. Any NaN in a slice makes its quantiles NaN.

    >>> import numpy as np, kselect
    >>> kselect.quantile(np.array([4.0, 1.0, 3.0, 2.0]), [0.25, 0.5])
    array([1.75, 2.5 ])

    Distributed (MPI): with comm= (an mpi4py communicator), `a` is this process's
    shard (read flattened; it may be empty) and every process gets the quantiles of
    the concatenation of all processes' shards in rank order, NumPy's bit for bit,
    without gathering the data. The call is collective: every process passes the same
    q, method and dtype; axis must be None; keepdims keeps the concatenation's one
    axis. algorithm= picks the distributed algorithm ("dibms", the default;
    "distributed_bms"; "sort_and_choose"); transport= how the bucket counts travel
    ("mpi", the default, on host buffers; "nccl", on the GPUs: every process's shard
    on its own GPU, and a kselect built with NCCL); report=, a dict, is filled with what the
    call did (rounds, collectives, bytes_sent, ...). A mistake on any process raises
    the same exception on every process. The same arguments are taken by
    nanquantile, percentile, nanpercentile, median, select, kth and multiselect, and
    with root= by topk. Under mpirun -np 2 (two processes: not run as a doctest; the
    distributed tests run it, tests/mpi_python):

        from mpi4py import MPI
        comm = MPI.COMM_WORLD
        shard = np.arange(5.0) + 5 * comm.rank              # 0..4 on process 0, 5..9 on 1
        kselect.quantile(shard, [0.1, 0.5], comm=comm)      # array([0.9, 4.5]) on both
    """
    if comm is not None:
        return _distributed().quantile(a, q, axis, method, keepdims, False, False, comm, algorithm, transport,
                                       report)
    _local_only(algorithm, transport, report)
    return _quantile(a, q, axis, method, keepdims, nan=False)


def nanquantile(
    a: ArrayInput,
    q: npt.ArrayLike,
    axis: Optional[int] = None,
    method: QuantileMethod = "linear",
    keepdims: bool = False,
    *,
    comm: Optional[Communicator] = None,
    algorithm: Algorithm = "dibms",
    transport: Transport = "mpi",
    report: Optional[Report] = None,
) -> Result:
    """numpy.nanquantile: as quantile, ignoring NaNs; an all-NaN slice gives NaN.

    >>> kselect.nanquantile(np.array([1.0, np.nan, 3.0]), 0.5)
    np.float64(2.0)

    comm=, algorithm=, report=: distributed over MPI, as in quantile.
    """
    if comm is not None:
        return _distributed().quantile(a, q, axis, method, keepdims, True, False, comm, algorithm, transport,
                                       report)
    _local_only(algorithm, transport, report)
    return _quantile(a, q, axis, method, keepdims, nan=True)


def percentile(
    a: ArrayInput,
    q: npt.ArrayLike,
    axis: Optional[int] = None,
    method: QuantileMethod = "linear",
    keepdims: bool = False,
    *,
    comm: Optional[Communicator] = None,
    algorithm: Algorithm = "dibms",
    transport: Transport = "mpi",
    report: Optional[Report] = None,
) -> Result:
    """numpy.percentile: quantile with q in [0, 100].

    >>> kselect.percentile(np.arange(101.0), [1, 50, 99])
    array([ 1., 50., 99.])

    comm=, algorithm=, report=: distributed over MPI, as in quantile.
    """
    if comm is not None:
        return _distributed().quantile(a, q, axis, method, keepdims, False, True, comm, algorithm, transport,
                                       report)
    _local_only(algorithm, transport, report)
    q, weak = check_q(q, percent=True)
    return _quantile(a, q, axis, method, keepdims, nan=False, weak=weak)


def nanpercentile(
    a: ArrayInput,
    q: npt.ArrayLike,
    axis: Optional[int] = None,
    method: QuantileMethod = "linear",
    keepdims: bool = False,
    *,
    comm: Optional[Communicator] = None,
    algorithm: Algorithm = "dibms",
    transport: Transport = "mpi",
    report: Optional[Report] = None,
) -> Result:
    """numpy.nanpercentile: nanquantile with q in [0, 100].

    >>> kselect.nanpercentile(np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]]), 50, axis=1)
    array([2., 5.])

    comm=, algorithm=, report=: distributed over MPI, as in quantile.
    """
    if comm is not None:
        return _distributed().quantile(a, q, axis, method, keepdims, True, True, comm, algorithm, transport,
                                       report)
    _local_only(algorithm, transport, report)
    q, weak = check_q(q, percent=True)
    return _quantile(a, q, axis, method, keepdims, nan=True, weak=weak)


def median(
    a: ArrayInput,
    axis: Optional[int] = None,
    keepdims: bool = False,
    *,
    comm: Optional[Communicator] = None,
    algorithm: Algorithm = "dibms",
    transport: Transport = "mpi",
    report: Optional[Report] = None,
) -> Result:
    """numpy.median: the middle value, or the mean of the two middle values (as NumPy
    computes it); NaN if the slice holds a NaN.

    >>> kselect.median(np.array([3, 1, 2, 10]))
    np.float64(2.5)

    comm=, algorithm=, report=: distributed over MPI, as in quantile.
    """
    if comm is not None:
        return _distributed().median(a, axis, keepdims, comm, algorithm, transport, report)
    _local_only(algorithm, transport, report)
    x = Input(a)
    s = _Slices(x, axis)
    if s.n == 0 or s.m == 0:
        raise ValueError("kselect: median of an empty array")
    shape = s.shape_out((), keepdims)
    if device_results(x) and (not s.single or s.n <= _ONE_ROW_MAX):
        # One batched call computes NumPy's median of every row on the GPU (a 1-D
        # array is one row), straight into an array of the result's shape.
        out = x.empty(shape, _median_dtype(x.dtype_name))
        x.run_device(_kselect.device_rows_median, s.table, False, out)
        return _as_float16(x, out)
    half = s.n // 2
    middle = [half - 1, half] if s.n % 2 == 0 else [half]
    floating = x.dtype_name in _FLOATING
    ranks = sorted(set(middle + ([s.n - 1] if floating else [])))  # the largest: is there a NaN?
    cols = [ranks.index(r) for r in middle]
    if device_results(x):
        # torch has no arithmetic on its unsigned types: their medians go through the host.
        if not (x.kind == "torch" and x.dtype_name in ("uint32", "uint64")):
            return _device_median(x, s.device_values_at(ranks), cols, floating).reshape(shape)
    if s.single and x.kind == "numpy" and not shape:  # NumPy's scalar, without array overhead
        got = _kselect.multiselect(s.table, np.array(ranks, dtype=np.int64), x.stream)
        return _median_scalar(host_keys(got, x.dtype_name), cols, floating)
    values = s.values_at(ranks)  # (m, len(ranks))
    result = _mean_of_columns(values, cols)
    if floating:
        nans = np.isnan(values[:, -1])
        if nans.any():
            result = np.where(nans, values[:, -1], result).astype(result.dtype)
    return _finish(x, result, shape)


def _mean_of_columns(values, cols):
    """np.mean(values[:, cols], axis=1) for one or two columns, as NumPy computes it
    (integers in float64, float16 in float32 then rounded back), without its overhead."""
    dtype = values.dtype
    acc = np.dtype(np.float64) if dtype.kind in "iub" else np.dtype(np.float32) if dtype == np.float16 else dtype
    total = values[:, cols[0]].astype(acc)
    if len(cols) == 2:
        total = total + values[:, cols[1]].astype(acc)
    result = np.true_divide(total, len(cols))
    return result.astype(dtype) if dtype == np.float16 else result


def _median_scalar(values, cols, floating):
    """_mean_of_columns and the NaN rule for one slice, in NumPy scalars (the same
    arithmetic: NumPy's scalar operations round as its array operations do)."""
    dtype = values.dtype
    if floating and math.isnan(values[-1]):
        return values[-1]
    acc = np.float64 if dtype.kind in "iub" else np.float32 if dtype == np.float16 else dtype.type
    total = acc(values[cols[0]])
    if len(cols) == 2:
        total = total + acc(values[cols[1]])
    result = total / len(cols)
    return dtype.type(result) if dtype == np.float16 else acc(result)


def _median_dtype(name):
    """The dtype device_rows_median writes: float64 for integers, float32 for 16-bit
    keys (float16's is rounded to float16 afterwards, as NumPy's mean rounds it)."""
    if name in ("float32", "float64"):
        return name
    return "float32" if name in ("float16", "bfloat16") else "float64"


def _as_float16(x, result):
    """A float16 input's median in float16 (NumPy's); other results as they are."""
    if x.dtype_name != "float16":
        return result
    if x.kind == "torch":
        return result.to(_torch().float16)
    return result.astype("float16")


def _device_median(x, values, cols, floating):
    """_mean_of_columns and the NaN rule on the caller's GPU (torch or CuPy), with the
    same arithmetic: one IEEE addition and a division by 1 or 2 in the same type."""
    name = x.dtype_name
    acc = "float64" if not floating else "float32" if name in ("float16", "bfloat16") else name
    if x.kind == "torch":
        import torch as xp

        def cast(v, dtype):
            return v.to(getattr(xp, dtype))
    else:
        import cupy as xp

        def cast(v, dtype):
            return v.astype(dtype)

    total = cast(values[:, cols[0]], acc)
    if len(cols) == 2:
        total = total + cast(values[:, cols[1]], acc)
    result = total / len(cols)
    if floating:
        last = cast(values[:, -1], acc)
        result = xp.where(xp.isnan(last), last, result)
    return cast(result, "float16") if name == "float16" else result


# ---- selection ------------------------------------------------------------------------------


def select(
    a: ArrayInput,
    k: Integer,
    axis: Optional[int] = None,
    *,
    comm: Optional[Communicator] = None,
    algorithm: Algorithm = "dibms",
    transport: Transport = "mpi",
    report: Optional[Report] = None,
) -> Result:
    """The k-th smallest value (0-based, as NumPy's `kth`; negative k counts from the
    end), of the flattened array or along `axis`. NaN sorts last, -0.0 equals +0.0.

    >>> kselect.select(np.array([5, 1, 4, 2]), 1)
    np.int64(2)

    comm=, algorithm=, report=: distributed over MPI, as in quantile (k is a rank of
    the concatenation of all processes' shards; every process gets the value).
    """
    if comm is not None:
        return _distributed().select(a, k, axis, comm, algorithm, transport, report)
    _local_only(algorithm, transport, report)
    x = Input(a)
    s = _Slices(x, axis)
    _nonempty(x, "select")
    k = _rank(k, s.n)
    if device_results(x) and s.m > 0:
        return s.device_values_at([k]).reshape(s.shape_out((), False))
    values = s.values_at(np.array([k]))[:, 0]
    return _keys_back(x, values, s.shape_out((), False))


def kth(
    a: ArrayInput,
    k: Integer,
    axis: Optional[int] = None,
    *,
    comm: Optional[Communicator] = None,
    algorithm: Algorithm = "dibms",
    transport: Transport = "mpi",
    report: Optional[Report] = None,
) -> Result:
    """select under NumPy's name for the rank (np.partition(a, kth)): the k-th smallest,
    0-based. (torch.kthvalue's k is 1-based: its k is kselect's k + 1.)

    >>> a = np.array([[5, 1, 4], [2, 9, 7]])
    >>> kselect.kth(a, 0, axis=1)
    array([1, 2])
    >>> np.array_equal(kselect.kth(a, -1, axis=1), np.partition(a, -1, axis=1)[:, -1])
    True
    """
    return select(a, k, axis, comm=comm, algorithm=algorithm, transport=transport, report=report)


def multiselect(
    a: ArrayInput,
    ks: npt.ArrayLike,
    axis: Optional[int] = None,
    *,
    comm: Optional[Communicator] = None,
    algorithm: Algorithm = "dibms",
    transport: Transport = "mpi",
    report: Optional[Report] = None,
) -> Result:
    """The values at ranks ks (any order, repeats allowed): shape ks.shape, or
    ks.shape + the other axes with axis=.

    >>> kselect.multiselect(np.array([5.0, 1.0, 4.0, 2.0]), [0, 3])
    array([1., 5.])

    comm=, algorithm=, report=: distributed over MPI, as in quantile (ks are ranks of
    the concatenation of all processes' shards; every process gets the values).
    """
    if comm is not None:
        return _distributed().multiselect(a, ks, axis, comm, algorithm, transport, report)
    _local_only(algorithm, transport, report)
    x = Input(a)
    s = _Slices(x, axis)
    _nonempty(x, "multiselect")
    shape, flat = _ranks(ks, s.n)
    unique, inverse = np.unique(flat, return_inverse=True)
    if device_results(x) and s.m > 0 and flat.size > 0:
        values = s.device_values_at(unique)  # (m, u) on the GPU
        if values is not None:
            if len(unique) != len(flat) or (unique != flat).any():
                values = _gather_columns(x, values, inverse.tolist())
            return values.T.reshape(shape + tuple(s.rest))
    values = s.values_at(unique)[:, inverse].T  # (len(ks), m)
    return _keys_back(x, values, shape + tuple(s.rest))


def _gather_columns(x, values, cols):
    """values[:, cols] on the GPU. torch's unsigned types have no indexing kernels:
    they are gathered through the signed type of the same width (the same bits)."""
    signed = signed_twin(_torch(), values.dtype) if x.kind == "torch" else None
    if signed is not None:
        return values.view(signed)[:, cols].view(values.dtype)
    return values[:, cols]


def _keys_back(x, values, shape):
    """Selected keys (as _Slices gives them) back to the caller in the input's dtype."""
    if x.dtype_name == "bfloat16":
        return x.wrap_keys(_bits(values).reshape(shape))
    return _finish(x, values, shape)


def _bits(float32_values):
    """bfloat16 keys widened to float32 back to their bits (exact: widening kept them)."""
    return (np.ascontiguousarray(float32_values, dtype=np.float32).view(np.uint32) >> 16).astype(np.uint16)


def topk(
    a: ArrayInput,
    k: Integer,
    axis: Optional[int] = -1,
    largest: bool = True,
    sorted: bool = True,
    deterministic: bool = False,
    *,
    comm: Optional[Communicator] = None,
    root: Optional[int] = None,
    algorithm: Algorithm = "dibms",
    transport: Transport = "mpi",
    report: Optional[Report] = None,
) -> tuple[Result, Result]:
    """(values, indices) of the k largest (or smallest) elements along axis, as
    torch.topk(a, k, dim=axis, largest, sorted); axis=None: of the flattened array.
    NaN counts as the largest value. Ties at the k-th value: any of the tied elements,
    or with deterministic=True those of smaller index. indices are int64.

    >>> v, i = kselect.topk(np.array([1.0, 9.0, 3.0, 7.0]), 2)
    >>> v, i
    (array([9., 7.]), array([1, 3]))
    >>> kselect.topk(np.array([3, 7, 7, 1, 7]), 2, deterministic=True)  # ties: smaller index first
    (array([7, 7]), array([1, 2]))

    Distributed (MPI): with comm= (see quantile), k is global: the k largest (or
    smallest) of the concatenation of all processes' shards (each read flattened;
    axis None, or the default -1 of a 1-D shard), ties at the k-th value going to the
    lowest global indices (deterministic, whatever deterministic= says). With root=None
    each process gets its own part of the answer: its elements among the k, values bit
    for bit and indices global (into the concatenation), in the answer's order
    (sorted=True) or in index order. With root=r process r gets the whole answer (in
    index order unless sorted) and the others empty arrays. Under mpirun -np 2 (not
    run as a doctest):

        shard = np.array([3.0, 9.0]) if comm.rank == 0 else np.array([7.0, 1.0, 8.0])
        kselect.topk(shard, 3, comm=comm)          # process 0: (array([9.]), array([1]))
                                                   # process 1: (array([8., 7.]), array([4, 2]))
        kselect.topk(shard, 3, comm=comm, root=0)  # process 0: (array([9., 8., 7.]), array([1, 4, 2]))
                                                   # process 1: empty arrays
    """
    if comm is not None:
        return _distributed().topk(a, k, axis, largest, sorted, comm, root, algorithm, transport, report)
    _local_only(algorithm, transport, report, root)
    x = Input(a)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"kselect: k must be an integer, not {type(k).__name__}")
    k = int(k)
    if x.ndim <= 1 and axis is not None:
        normalize_axis(axis, max(x.ndim, 1))
        axis = None
    if axis is None:
        n = x.size
        if not 0 <= k <= n:
            raise ValueError(f"kselect: k = {k} is out of range for {n} elements")
        if device_results(x):
            x.check_dtype(halves=True)
            return _device_topk(x, x.flat().reshape(1, -1), k, largest, sorted, deterministic, (), None)
        if x.dtype_name in ("float16", "bfloat16"):
            values, indices = _kselect.rows_topk(x.flat().reshape(1, -1), k, largest, sorted, deterministic, x.stream)
            values, indices = values[0], indices[0]
        else:
            x.check_dtype(halves=False)
            values, indices = _kselect.topk(x.flat(), k, largest, sorted, deterministic, x.stream)
        return x.wrap_keys(values), x.wrap(indices)
    x.check_dtype(halves=True)
    table, rest, ax = x.rows(axis)
    n = x.shape[ax]
    if not 0 <= k <= n:
        raise ValueError(f"kselect: k = {k} is out of range for axis {ax} of length {n}")
    if device_results(x):
        return _device_topk(x, table, k, largest, sorted, deterministic, tuple(rest), ax)
    values, indices = _kselect.rows_topk(table, k, largest, sorted, deterministic, x.stream)
    # (m, k) back to the input's layout with k at `axis`
    values = np.moveaxis(values.reshape(tuple(rest) + (k,)), -1, ax)
    indices = np.moveaxis(indices.reshape(tuple(rest) + (k,)), -1, ax)
    return x.wrap_keys(np.ascontiguousarray(values)), x.wrap(np.ascontiguousarray(indices))


def _device_topk(x, table, k, largest, sorted, deterministic, rest, axis):
    """topk of a CUDA input with the results made on its GPU. table: (m, n), one row
    for axis=None (the six key types by the single-array call, 16-bit keys as one
    batched row); the result: rest + (k,), then k moved to `axis` (None: (k,))."""
    m = table.shape[0]
    values = x.empty((m, k))
    indices = x.empty((m, k), "int64")
    if m > 0 and k > 0:
        if axis is None and x.dtype_name not in ("float16", "bfloat16"):
            x.run_device(_kselect.device_topk, table.reshape(-1), k, largest, sorted, deterministic,
                         values.reshape(-1), indices.reshape(-1))
        else:
            # The batched call is always deterministic (ties by smaller index).
            x.run_device(_kselect.device_rows_topk, table, k, largest, sorted, values, indices)
    if axis is None:
        return values.reshape(k), indices.reshape(k)
    values = values.reshape(rest + (k,))
    indices = indices.reshape(rest + (k,))
    if axis != len(rest):
        if x.kind == "torch":
            values, indices = values.movedim(-1, axis).contiguous(), indices.movedim(-1, axis).contiguous()
        else:
            import cupy

            values = cupy.ascontiguousarray(cupy.moveaxis(values, -1, axis))
            indices = cupy.ascontiguousarray(cupy.moveaxis(indices, -1, axis))
    return values, indices


def rank_range(
    a: ArrayInput, lo: Integer, hi: Integer, sorted: bool = False, deterministic: bool = False
) -> tuple[Result, Result]:
    """(values, indices) of the elements at positions [lo, hi) of the flattened array's
    stable ascending sort (NaN last, ties by index); unsorted unless sorted=True.

    >>> kselect.rank_range(np.array([5, 1, 4, 2, 3]), 1, 3, sorted=True)
    (array([2, 3]), array([3, 4]))
    """
    x = Input(a)
    x.check_dtype(halves=False)
    n = x.size
    for name, v in (("lo", lo), ("hi", hi)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"kselect: {name} must be an integer")
    if not 0 <= lo <= hi <= n:
        raise ValueError(f"kselect: need 0 <= lo <= hi <= n, got lo = {lo}, hi = {hi}, n = {n}")
    values, indices = _kselect.rank_range(x.flat(), int(lo), int(hi), sorted, deterministic, x.stream)
    return x.wrap(values), x.wrap(indices)


def approx_select(a: ArrayInput, ks: npt.ArrayLike, max_rank_error: Integer) -> tuple[Result, Result]:
    """For each rank in ks, an element whose exact rank is within max_rank_error of it:
    (values, exact_ranks), each of ks's shape. max_rank_error = 0 is exact selection.

    >>> v, r = kselect.approx_select(np.arange(1000.0), [500], 10)
    >>> abs(int(r[0]) - 500) <= 10
    True
    """
    x = Input(a)
    x.check_dtype(halves=False)
    _nonempty(x, "approx_select")
    shape, flat = _ranks(ks, x.size)
    if isinstance(max_rank_error, bool) or not isinstance(max_rank_error, (int, np.integer)) or max_rank_error < 0:
        raise ValueError("kselect: max_rank_error must be a non-negative integer")
    values, ranks = _kselect.approx_multiselect(x.flat(), flat, int(max_rank_error), x.stream)
    return x.wrap(values.reshape(shape)), x.wrap(ranks.reshape(shape))


# ---- filters --------------------------------------------------------------------------------

_OPS = ("lt", "le", "gt", "ge", "eq", "ne")


def _constant(x, value, what):
    """A predicate's constant in the array's type, or a ValueError if it does not fit."""
    dtype = np.dtype(x.dtype_name)
    if dtype.kind == "f":
        return float(value)
    if isinstance(value, (float, np.floating)) and not float(value).is_integer():
        raise ValueError(f"kselect: {what} = {value} is not an integer, and the array holds {dtype}")
    v = int(value)
    info = np.iinfo(dtype)
    if not info.min <= v <= info.max:
        raise ValueError(f"kselect: {what} = {v} does not fit the array's {dtype}")
    return v


def _predicate(x, lo, hi, op, value):
    if op is not None:
        if lo is not None or hi is not None:
            raise ValueError("kselect: give either lo/hi or op/value, not both")
        if op not in _OPS:
            raise ValueError(f"kselect: unknown op {op!r}; one of {', '.join(_OPS)}")
        if value is None:
            raise ValueError(f"kselect: op {op!r} needs a value")
        return op, _constant(x, value, "value"), None
    if lo is not None and hi is not None:
        return "range", _constant(x, lo, "lo"), _constant(x, hi, "hi")
    if lo is not None:
        return "ge", _constant(x, lo, "lo"), None
    if hi is not None:
        return "lt", _constant(x, hi, "hi"), None
    raise ValueError("kselect: filter needs lo, hi, or op and value")


@overload
def filter(
    a: ArrayInput,
    lo: Optional[Scalar] = None,
    hi: Optional[Scalar] = None,
    *,
    op: Optional[Op] = None,
    value: Optional[Scalar] = None,
    return_indices: Literal[False] = False,
) -> Result: ...


@overload
def filter(
    a: ArrayInput,
    lo: Optional[Scalar] = None,
    hi: Optional[Scalar] = None,
    *,
    op: Optional[Op] = None,
    value: Optional[Scalar] = None,
    return_indices: Literal[True],
) -> tuple[Result, Result]: ...


def filter(
    a: ArrayInput,
    lo: Optional[Scalar] = None,
    hi: Optional[Scalar] = None,
    *,
    op: Optional[Op] = None,
    value: Optional[Scalar] = None,
    return_indices: bool = False,
) -> Union[Result, tuple[Result, Result]]:
    """The elements of the flattened array with lo <= x < hi (either bound may be
    omitted), or with `x op value` (op: lt, le, gt, ge, eq, ne), in input order, as
    a[(lo <= a) & (a < hi)] gives them; with return_indices=True also their positions.
    IEEE comparisons: NaN satisfies only ne.

    >>> kselect.filter(np.array([5, 1, 4, 2]), lo=2, hi=5)
    array([4, 2])
    >>> kselect.filter(np.array([5.0, 1.0, 4.0, 2.0]), op="gt", value=3, return_indices=True)
    (array([5., 4.]), array([0, 2]))
    """
    x = Input(a)
    x.check_dtype(halves=False)
    op_name, c, c_hi = _predicate(x, lo, hi, op, value)
    values, indices = _kselect.filter(x.flat(), op_name, c, c_hi, bool(return_indices), x.stream)
    if return_indices:
        return x.wrap(values), x.wrap(indices)
    return x.wrap(values)


def count(
    a: ArrayInput,
    lo: Optional[Scalar] = None,
    hi: Optional[Scalar] = None,
    *,
    op: Optional[Op] = None,
    value: Optional[Scalar] = None,
) -> int:
    """How many elements filter() would return (a Python int).

    >>> kselect.count(np.array([5, 1, 4, 2]), op="gt", value=1)
    3
    """
    x = Input(a)
    x.check_dtype(halves=False)
    op_name, c, c_hi = _predicate(x, lo, hi, op, value)
    return int(_kselect.count(x.flat(), op_name, c, c_hi, x.stream))
