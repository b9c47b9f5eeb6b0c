"""Shards and checks shared by the distributed tests.

Each process makes its own shard from a seed that depends on its rank and on the
case, and the tests compare every answer with NumPy's on the concatenation of all
shards, gathered with comm.allgather (in rank order). Every distributed call in a test
is made on every process before any assertion, so that a failure on one process
cannot leave the others waiting in a collective.
"""
import warnings

import numpy as np

TYPES = [np.float32, np.float64, np.int32, np.int64, np.uint32, np.uint64]
ALL_TYPES = TYPES + [np.float16]
FLOATS = [np.float16, np.float32, np.float64]
LAYOUTS = ["even", "uneven", "holes", "one"]


def shard_size(layout, rank, size):
    """This process's number of keys: 40 each (even), different sizes (uneven), empty
    shards on the even ranks except the last (holes), all keys on the last process (one)."""
    if layout == "even":
        return 40
    if layout == "uneven":
        return (rank * 37 + 5) % 61 + 1
    if layout == "holes":
        return 0 if rank % 2 == 0 and rank != size - 1 else 33
    if layout == "one":
        return 101 if rank == size - 1 else 0
    raise ValueError(layout)


def values(dtype, n, rng, nans=0.0):
    """n keys of dtype: spread out, with many duplicates (ties), the type's extremes,
    and for floats infinities, -0.0, +0.0, a denormal and a fraction `nans` of NaN."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        out = rng.normal(scale=100.0, size=n)
        pick = rng.random(n)
        out[pick < 0.3] = np.round(out[pick < 0.3] / 40.0)  # duplicates
        specials = np.array([np.inf, -np.inf, -0.0, 0.0, np.finfo(dtype).smallest_subnormal, 1.0, -1.0])
        where = pick > 0.9
        out[where] = rng.choice(specials, size=int(where.sum()))
        out = out.astype(dtype)
        if nans:
            out[rng.random(n) < nans] = np.nan
        return out
    info = np.iinfo(dtype)
    out = rng.integers(info.min, info.max, size=n, dtype=dtype, endpoint=True)
    pick = rng.random(n)
    small = rng.integers(0, 5, size=n).astype(dtype)
    out[pick < 0.4] = small[pick < 0.4]  # duplicates
    out[(pick > 0.95)] = info.max
    out[(pick > 0.9) & (pick <= 0.95)] = info.min
    return out


def make_shard(comm, dtype, layout, seed, nans=0.0):
    rank, size = comm.Get_rank(), comm.Get_size()
    rng = np.random.default_rng([seed, rank, size])
    return values(dtype, shard_size(layout, rank, size), rng, nans)


def gathered(comm, shard):
    """The concatenation of every process's flattened shard, in rank order."""
    return np.concatenate([np.asarray(s).reshape(-1) for s in comm.allgather(np.asarray(shard))])


def quietly(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return f(*args, **kwargs)


def same(got, expected, what=""):
    """NumPy's answer: the same type (a NumPy scalar exactly where NumPy gives one),
    dtype and shape, and equal values, NaN where NumPy has NaN (exact comparison: only
    -0.0 and +0.0 count as equal among different bits, as kselect's order says)."""
    assert type(got) is type(expected) or (isinstance(got, np.ndarray) and isinstance(expected, np.ndarray)), (
        what, type(got), type(expected))
    g, e = np.asarray(got), np.asarray(expected)
    assert g.dtype == e.dtype, (what, g.dtype, e.dtype)
    assert g.shape == e.shape, (what, g.shape, e.shape)
    assert np.array_equal(g, e, equal_nan=g.dtype.kind == "f"), (what, g, e)


def bits(a):
    """An array's bytes as unsigned integers (bit-for-bit comparisons)."""
    a = np.ascontiguousarray(a)
    return a.view(f"u{a.dtype.itemsize}") if a.size else a


def expected_topk(full, k, largest):
    """Global indices of the top-k of `full` in the answer's order: by value (NaN
    largest, -0.0 equal to +0.0), ties by the lower index."""
    if full.size == 0 or k == 0:
        return np.zeros(0, dtype=np.int64)
    key = full.astype(np.float64) if full.dtype.kind == "f" else full
    if full.dtype.kind == "f":
        key = np.where(key == 0, 0.0, key)  # -0.0 ties with +0.0
    _, dense = np.unique(key, return_inverse=True)  # NaN last (all NaNs one value)
    dense = dense.reshape(-1).astype(np.int64)
    index = np.arange(full.size)
    order = np.lexsort((index, -dense if largest else dense))
    return order[:k]


def outcome(f):
    """(exception type name, message) of f(), or ("ok", repr of the answer)."""
    try:
        return ("ok", repr(f()))
    except Exception as e:  # the tests compare what every process saw
        return (type(e).__name__, str(e))
