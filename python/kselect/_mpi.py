"""The distributed calls: comm= of select, kth, multiselect, quantile, nanquantile,
percentile, nanpercentile, median and topk.

With comm (an mpi4py communicator), each process of comm passes its own shard `a`
(any shape, read flattened; it may be empty) and the same other arguments, and the
call answers for the concatenation of every process's flattened shard in process-rank
order: what NumPy would answer for np.concatenate(comm.allgather(a.ravel())), without
gathering the data. The order statistics are selected over MPI by the C++ library
(kselect::mpi, include/kselect/mpi.hpp; the extension kselect._kselect_mpi), DIBMS by
default: rounds of local counting into buckets and one all-reduce of the counts, so
only counts and a few keys travel. Everything else is this package's own code, as in
a local call: NumPy's quantile recipe (_quantile.py) on the selected order statistics,
median's mean, the result dtypes. The answers are NumPy's, bit for bit.

A call is collective: every process of comm must make it, with the same arguments
(ranks, k, q, method, dtype, algorithm, transport, root). Before any work, the processes agree in
one all-gather (mpi4py's, on comm) on the arguments, on the shard sizes and NaN counts,
and on each process's own checks (dtype, axis, q, k's type): a mistake on any process
raises the same exception on every process (the lowest such process's, its message
prefixed "process r: "), never leaving the others waiting. The library then agrees
again on its own arguments and on local failures, raising std::invalid_argument as
ValueError and kselect::error (MPI or CUDA failures) as RuntimeError, the same on
every process. After an MPI failure the other processes may be left inside a
collective: a program should then call comm.Abort().

Shards on a CUDA device (torch, CuPy) are read in place by the CUDA backend on the
caller's current stream; 16-bit floats (float16, bfloat16) are widened to float32
first (exact, order-preserving) since the distributed library takes the six key types.
"""
from __future__ import annotations

import hashlib
import importlib.util
import typing
from contextlib import contextmanager

import numpy as np

from . import _api
from ._arrays import HALF_TYPES, Input, normalize_axis, plain
from ._quantile import check_method, check_q
from ._typing import Algorithm, Transport

ALGORITHMS = typing.get_args(Algorithm)
TRANSPORTS = typing.get_args(Transport)
_FLOATING = ("float16", "bfloat16", "float32", "float64")

# Exceptions re-raised on every process under their own type; others as RuntimeError.
_EXCEPTIONS = {
    cls.__name__: cls
    for cls in (TypeError, ValueError, IndexError, OverflowError, MemoryError, RuntimeError, ImportError,
                NotImplementedError)
}

_checked_libraries = set()
_loaded = []  # kselect._kselect_mpi once imported


def _extension():
    """kselect._kselect_mpi, or RuntimeError where the package was built without MPI."""
    if _loaded:
        return _loaded[0]
    spec = importlib.util.find_spec("kselect._kselect_mpi")
    if spec is None:
        raise RuntimeError(
            "kselect was built without MPI, so comm= is not available: install an MPI library with its "
            "compiler wrappers (Debian: apt-get install libopenmpi-dev openmpi-bin) and rebuild the package "
            "(pip install .; KSELECT_WITH_MPI=ON makes a build without MPI fail)"
        )
    try:
        from . import _kselect_mpi
    except ImportError as e:
        raise RuntimeError(f"kselect: the MPI extension kselect._kselect_mpi is built but cannot be loaded: {e}") from e
    _loaded.append(_kselect_mpi)
    return _kselect_mpi


def available() -> bool:
    """Whether the package was built with MPI (kselect._kselect_mpi loads)."""
    try:
        _extension()
    except RuntimeError:
        return False
    return True


def _communicator(comm):
    """(the extension, comm's Fortran handle) for an mpi4py intracommunicator."""
    ext = _extension()
    try:
        from mpi4py import MPI
    except ImportError as e:
        raise ImportError(
            f"kselect: comm= takes an mpi4py communicator, and mpi4py cannot be imported ({e}); "
            "pip install mpi4py (kselect's extra: pip install .[mpi])"
        ) from e
    if not isinstance(comm, MPI.Comm):
        raise TypeError(f"kselect: comm must be an mpi4py communicator (mpi4py.MPI.Comm), not {type(comm).__name__}")
    if not MPI.Is_initialized() or MPI.Is_finalized():
        raise RuntimeError("kselect: MPI is " + ("finalized" if MPI.Is_finalized() else "not initialized"))
    if comm == MPI.COMM_NULL:
        raise ValueError("kselect: comm is MPI.COMM_NULL")
    if comm.Is_inter():
        raise TypeError("kselect: comm must be an intracommunicator (the processes of one group)")
    theirs = MPI.Get_library_version()
    if theirs not in _checked_libraries:
        ours = ext.library_version()
        if ours.strip() != theirs.strip():
            raise RuntimeError(
                "kselect: mpi4py and kselect use different MPI libraries (mpi4py: "
                f"{theirs.strip().splitlines()[0]!r}; kselect: {ours.strip().splitlines()[0]!r}); build mpi4py "
                "against the MPI that kselect was built with (pip install --no-binary mpi4py mpi4py)"
            )
        _checked_libraries.add(theirs)
    return ext, comm.py2f()


def _digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=12).hexdigest()


def _canonical_ints(arr):
    """Integers as int64 (uint64 beyond int64's range as uint64), for the agreement."""
    if arr.dtype.kind == "u" and arr.size and int(arr.max()) > np.iinfo(np.int64).max:
        return arr.astype(np.uint64)
    return arr.astype(np.int64)


class _Call:
    """One distributed call on this process: its checks, the agreement, the extension calls.

    Usage: `with call.local(): ...` runs this process's checks (anything raised there
    is kept, not raised), call.sign(...) records the arguments that every process
    must pass alike, and call.agree(n, nans) makes the one all-gather that raises the
    same exception on every process if any process failed or the arguments differ,
    and learns the global size (call.n) and the global number of NaNs (call.nans)."""

    def __init__(self, comm, name, algorithm, transport, report):
        self.ext, self.handle = _communicator(comm)
        self.comm = comm
        self.name = name
        self.algorithm = algorithm
        self.transport = transport
        self.report = report
        self.fields = {"call": name}
        self.failure = None
        if isinstance(report, dict):
            report.clear()
        with self.local():
            if algorithm not in ALGORITHMS:
                raise ValueError(f"kselect: unknown algorithm {algorithm!r}; one of {', '.join(ALGORITHMS)}")
            if transport not in TRANSPORTS:
                raise ValueError(f"kselect: unknown transport {transport!r}; one of {', '.join(TRANSPORTS)}")
            if report is not None and not isinstance(report, dict):
                raise TypeError(f"kselect: report must be a dict (filled by the call) or None, not {type(report).__name__}")
            self.sign(algorithm=algorithm, transport=transport)

    @contextmanager
    def local(self):
        try:
            yield
        except Exception as e:  # kept (the first one), and raised on every process by agree()
            if self.failure is None:
                self.failure = e

    def sign(self, **fields):
        """Arguments every process must pass alike: small values as they are, arrays
        by their shape and a digest of their bytes."""
        for key, value in fields.items():
            if isinstance(value, np.ndarray):
                value = ("array", value.shape, _digest(value.tobytes()))
            self.fields[key] = value

    def shard(self, a, axis, topk=False):
        """This process's shard: (Input, the flat array handed to the library)."""
        x = Input(a)
        flattened = axis is None
        if not flattened and topk and x.ndim <= 1:
            normalize_axis(axis, max(x.ndim, 1))  # topk's default axis=-1 of a 1-D shard is the whole shard
            flattened = True
        if not flattened:
            raise ValueError(
                f"kselect: with comm=, each process's shard is read flattened (the data is the concatenation of "
                f"the shards): axis must be None, not {axis!r}"
            )
        x.check_dtype(halves=True)
        self.sign(dtype=x.dtype_name)
        return x, _widened(x)

    def count_nans(self, x, flat):
        """NaNs in this shard (its floating keys)."""
        if x.size == 0:  # an empty CUDA tensor may have no data pointer
            return 0
        return x.size - int(_api._kselect.count(flat, "le", float("inf"), None, x.stream))

    def agree(self, n=0, nans=0):
        failure = None
        if self.failure is not None:
            e = self.failure
            message = str(e)
            failure = (type(e).__name__, message[len("kselect: "):] if message.startswith("kselect: ") else message)
        mine = (failure, None if failure else self.fields, int(n), int(nans))
        everyone = self.comm.allgather(mine)
        rank, size = self.comm.Get_rank(), len(everyone)
        for p, (theirs, _, _, _) in enumerate(everyone):
            if theirs is None:
                continue
            if size == 1:
                raise self.failure
            kind, text = theirs
            error = _EXCEPTIONS.get(kind, RuntimeError)(f"kselect: process {p}: {text}")
            raise error from (self.failure if p == rank else None)
        first = everyone[0][1]
        for p in range(1, size):
            other = everyone[p][1]
            if other != first:
                if other["call"] != first["call"]:
                    raise ValueError(
                        f"kselect: processes 0 and {p} made different calls ({first['call']!r} on process 0, "
                        f"{other['call']!r} on process {p}); every process must make the same call"
                    )
                key = next((k for k in first if first.get(k) != other.get(k)), None) or "arguments"
                shown = ""
                if key in first and key in other and not isinstance(first[key], tuple):
                    shown = f" ({first[key]!r} on process 0, {other[key]!r} on process {p})"
                raise ValueError(
                    f"kselect: processes 0 and {p} passed different {_DESCRIPTIONS.get(key, key)}{shown} to "
                    f"{self.name}; every process must pass the same"
                )
        self.n = sum(entry[2] for entry in everyone)
        self.nans = sum(entry[3] for entry in everyone)

    # ---- the extension ----

    def multiselect(self, x, flat, ranks):
        """Values at global ranks (sorted, unique) as _Slices.values_at gives keys:
        float16 as float16, bfloat16 widened to float32."""
        got, rep = self.ext.multiselect(self.handle, flat, _api._int64s(ranks), self.algorithm, self.transport,
                                        x.stream)
        self._reported(rep)
        values = plain(got)
        return values.astype(np.float16) if x.dtype_name == "float16" else values

    def topk(self, x, flat, k, largest, sorted, root):
        """(values as the extension returns keys: 16-bit floats as their bits, global indices)."""
        values, indices, rep = self.ext.topk(self.handle, flat, k, largest, sorted, root, self.algorithm,
                                             self.transport, x.stream)
        self._reported(rep)
        values = plain(values)
        if x.dtype_name == "float16":
            values = values.astype(np.float16).view(np.uint16)
        elif x.dtype_name == "bfloat16":
            values = _api._bits(values)
        return values, plain(indices)

    def _reported(self, rep):
        if self.report is not None:
            self.report.clear()
            self.report.update(rep)


_DESCRIPTIONS = {
    "dtype": "dtypes",
    "algorithm": "algorithm=",
    "transport": "transport=",
    "q": "q",
    "method": "method=",
    "k": "k",
    "ks": "ks",
    "largest": "largest=",
    "sorted": "sorted=",
    "root": "root=",
}


def _widened(x):
    """x's data flattened, of a key type the distributed library takes: float16 and
    bfloat16 as float32 (exact, and the order is kept). A float16 NaN keeps its sign
    and payload (on the GPU a half-to-float conversion answers the canonical NaN, so
    that an answer converted back would not be the input's element)."""
    flat = x.flat()
    if x.dtype_name not in HALF_TYPES:
        return flat
    if x.kind == "torch":
        wide = flat.float()
        if x.dtype_name == "float16":
            import torch

            h = flat.view(torch.int16).to(torch.int64) & 0xFFFF
            nan_bits = ((h & 0x8000) << 16) | 0x7F800000 | ((h & 0x3FF) << 13)
            nan_bits = torch.where(nan_bits >= 2**31, nan_bits - 2**32, nan_bits).to(torch.int32)
            wide = torch.where(torch.isnan(wide), nan_bits, wide.view(torch.int32)).view(torch.float32)
        return wide
    wide = flat.astype("float32")
    if x.dtype_name == "float16" and x.kind == "cupy":
        import cupy

        h = flat.view(cupy.uint16).astype(cupy.uint32)
        nan_bits = ((h & 0x8000) << 16) | 0x7F800000 | ((h & 0x3FF) << 13)
        wide = cupy.where(cupy.isnan(wide), nan_bits, wide.view(cupy.uint32)).view(cupy.float32)
    return wide


def _check_integer(value, what):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"kselect: {what} must be an integer, not {type(value).__name__}")
    return int(value)


class _Shards(_api._Slices):
    """_Slices for the concatenation of the shards: one slice (the flattened
    concatenation) whose order statistics the distributed library selects."""

    def __init__(self, call, x, flat):
        self.call = call
        self.x = x
        self.flat = flat
        self.n = call.n
        self.m = 1
        self.rest = ()
        self.axis = None
        self.axis_given = False
        self.single = True
        self.table = None

    def values_at(self, ranks):
        return self.call.multiselect(self.x, self.flat, ranks).reshape(1, -1)

    def non_nan_counts(self):
        return np.array([self.n - self.call.nans], dtype=np.int64)

    def fetch_each(self):
        return self.fetch_same()

    def shape_out(self, lead, keepdims):
        # The data is the 1-D concatenation: keepdims keeps its one axis.
        return tuple(lead) + ((1,) if keepdims else ())


# ---- the calls (kselect._api's public functions with comm= given) ----


def quantile(a, q, axis, method, keepdims, nan, percent, comm, algorithm, transport, report):
    name = ("nan" if nan else "") + ("percentile" if percent else "quantile")
    call = _Call(comm, name, algorithm, transport, report)
    n = nans = 0
    with call.local():
        check_method(method)
        q, weak = check_q(q, percent=percent)
        x, flat = call.shard(a, axis)
        call.sign(q=np.asarray(q, dtype=np.float64), method=method)
        n = x.size
        nans = call.count_nans(x, flat) if nan and x.dtype_name in _FLOATING else 0
    call.agree(n, nans)
    return _api._quantile_of(x, _Shards(call, x, flat), q, method, keepdims, nan, weak)


def median(a, axis, keepdims, comm, algorithm, transport, report):
    call = _Call(comm, "median", algorithm, transport, report)
    n = 0
    with call.local():
        x, flat = call.shard(a, axis)
        n = x.size
    call.agree(n)
    if call.n == 0:
        raise ValueError("kselect: median of an empty array")
    n = call.n
    half = n // 2
    middle = [half - 1, half] if n % 2 == 0 else [half]
    floating = x.dtype_name in _FLOATING
    ranks = sorted(set(middle + ([n - 1] if floating else [])))  # the largest: is there a NaN?
    cols = [ranks.index(r) for r in middle]
    values = call.multiselect(x, flat, ranks).reshape(1, -1)
    shape = (1,) if keepdims else ()
    if x.kind == "numpy" and not shape:
        return _api._median_scalar(values[0], cols, floating)
    result = _api._mean_of_columns(values, cols)
    if floating:
        nans = np.isnan(values[:, -1])
        if nans.any():
            result = np.where(nans, values[:, -1], result).astype(result.dtype)
    return _api._finish(x, result, shape)


def select(a, k, axis, comm, algorithm, transport, report):
    call = _Call(comm, "select", algorithm, transport, report)
    n = 0
    with call.local():
        x, flat = call.shard(a, axis)
        call.sign(k=_check_integer(k, "k"))
        n = x.size
    call.agree(n)
    if call.n == 0:
        raise ValueError("kselect: select of an empty array (every process's shard is empty)")
    rank = _api._rank(k, call.n)
    return _api._keys_back(x, call.multiselect(x, flat, [rank]), ())


def multiselect(a, ks, axis, comm, algorithm, transport, report):
    call = _Call(comm, "multiselect", algorithm, transport, report)
    n = 0
    with call.local():
        x, flat = call.shard(a, axis)
        ks_arr = np.asarray(ks)
        if ks_arr.dtype.kind not in "iu" and ks_arr.size:
            raise TypeError(f"kselect: ks must be integers, not {ks_arr.dtype}")
        call.sign(ks=_canonical_ints(ks_arr))
        n = x.size
    call.agree(n)
    if call.n == 0:
        raise ValueError("kselect: multiselect of an empty array (every process's shard is empty)")
    shape, flat_ranks = _api._ranks(ks, call.n)
    unique, inverse = np.unique(flat_ranks, return_inverse=True)
    values = call.multiselect(x, flat, unique)[inverse.reshape(-1)]
    return _api._keys_back(x, values, shape)


def topk(a, k, axis, largest, sorted, comm, root, algorithm, transport, report):
    call = _Call(comm, "topk", algorithm, transport, report)
    n = 0
    with call.local():
        x, flat = call.shard(a, axis, topk=True)
        k = _check_integer(k, "k")
        if root is not None:
            root = _check_integer(root, "root")
            if not 0 <= root < call.comm.Get_size():
                raise ValueError(f"kselect: root = {root} is not a process of comm (0 to {call.comm.Get_size() - 1})")
        call.sign(k=k, largest=bool(largest), sorted=bool(sorted), root=root)
        n = x.size
    call.agree(n)
    if not 0 <= k <= call.n:
        raise ValueError(f"kselect: k = {k} is out of range for {call.n} elements (all processes' shards)")
    values, indices = call.topk(x, flat, k, bool(largest), bool(sorted), -1 if root is None else root)
    return x.wrap_keys(values), x.wrap(indices)
