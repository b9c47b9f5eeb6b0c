"""The package's distributed calls (comm=) against NumPy on the concatenation of the
shards (gathered with comm.allgather): quantiles with NumPy's thirteen methods and
dtypes, NaN rules, percentiles, medians, select/multiselect and top-k parts, for
every key type and for even, uneven and empty shards; the three algorithms and the
report; sub-communicators. Run under mpirun (conftest.py)."""
import numpy as np
import pytest

import kselect
from mpi_helpers import (
    ALL_TYPES,
    FLOATS,
    LAYOUTS,
    TYPES,
    bits,
    expected_topk,
    gathered,
    make_shard,
    quietly,
    same,
)

Q_LIST = [0.0, 0.013, 0.25, 1 / 3, 0.5, 0.77, 0.999, 1.0]
type_ids = [np.dtype(t).name for t in ALL_TYPES]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL_TYPES, ids=type_ids)
def test_quantile_every_method(comm, dtype, layout):
    shard = make_shard(comm, dtype, layout, seed=1)
    full = gathered(comm, shard)
    cases = []  # (what, kselect's answer, NumPy's)
    for method in kselect.quantile_methods:
        for q in (Q_LIST, 0.3, np.float32(0.61)):
            got = kselect.quantile(shard, q, method=method, comm=comm)
            cases.append((f"{method} q={q!r}", got, np.quantile(full, q, method=method)))
    got = kselect.quantile(shard, 1, comm=comm)  # an integer q
    cases.append(("q=1", got, np.quantile(full, 1)))
    got = kselect.quantile(shard, [[0.2], [0.8]], keepdims=True, comm=comm)
    cases.append(("keepdims", got, np.quantile(full, [[0.2], [0.8]], keepdims=True)))
    got = kselect.quantile(shard.reshape(-1, 1) if shard.size else shard, [0.5], comm=comm)  # a 2-D shard, flattened
    cases.append(("2-D shard", got, np.quantile(full, [0.5])))
    for what, g, e in cases:
        same(g, e, what)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", FLOATS, ids=[np.dtype(t).name for t in FLOATS])
def test_nan_rules(comm, dtype, layout):
    rank, size = comm.Get_rank(), comm.Get_size()
    cases = []
    # NaN on some processes only (the last), NaN scattered everywhere, every key NaN.
    for label, nans in (("last", 0.2 if rank == size - 1 else 0.0), ("all over", 0.1), ("all NaN", 1.0)):
        shard = make_shard(comm, dtype, layout, seed=2, nans=nans)
        full = gathered(comm, shard)
        for method in ("linear", "inverted_cdf", "hazen", "nearest", "midpoint"):
            for q in ([0.0, 0.25, 0.5, 1.0], 0.4):
                cases.append((f"{label} quantile {method} {q}", kselect.quantile(shard, q, method=method, comm=comm),
                              quietly(np.quantile, full, q, method=method)))
                cases.append((f"{label} nanquantile {method} {q}",
                              quietly(kselect.nanquantile, shard, q, method=method, comm=comm),
                              quietly(np.nanquantile, full, q, method=method)))
        cases.append((f"{label} median", kselect.median(shard, comm=comm), quietly(np.median, full)))
        cases.append((f"{label} nanpercentile", quietly(kselect.nanpercentile, shard, [5, 50], comm=comm),
                      quietly(np.nanpercentile, full, [5, 50])))
    for what, g, e in cases:
        same(g, e, what)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL_TYPES, ids=type_ids)
def test_percentile_and_median(comm, dtype, layout):
    shard = make_shard(comm, dtype, layout, seed=3)
    full = gathered(comm, shard)
    cases = [
        ("percentile", kselect.percentile(shard, [1, 50, 99.5], comm=comm), np.percentile(full, [1, 50, 99.5])),
        ("percentile scalar", kselect.percentile(shard, 50, method="lower", comm=comm),
         np.percentile(full, 50, method="lower")),
        ("median", kselect.median(shard, comm=comm), np.median(full)),
        ("median keepdims", kselect.median(shard, keepdims=True, comm=comm), np.median(full, keepdims=True)),
    ]
    if np.dtype(dtype).kind == "f":
        cases.append(("nanpercentile", kselect.nanpercentile(shard, 25, comm=comm), np.nanpercentile(full, 25)))
        cases.append(("nanquantile", kselect.nanquantile(shard, [0.1, 0.9], method="weibull", comm=comm),
                      np.nanquantile(full, [0.1, 0.9], method="weibull")))
    # An odd global size too: one process's last key left out.
    odd = shard[:-1] if comm.Get_rank() == comm.Get_size() - 1 else shard
    full_odd = gathered(comm, odd)
    cases.append(("median, other parity", kselect.median(odd, comm=comm), np.median(full_odd)))
    for what, g, e in cases:
        same(g, e, what)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL_TYPES, ids=type_ids)
def test_select_and_multiselect(comm, dtype, layout):
    shard = make_shard(comm, dtype, layout, seed=4, nans=0.05)
    full = gathered(comm, shard)
    n = full.size
    ks = [0, n - 1, n // 2, n // 3, -1, -n, 1]
    got = [kselect.select(shard, k, comm=comm) for k in ks]
    got_kth = kselect.kth(shard, np.int32(2), comm=comm)
    many = [[n - 1, 0, 0], [n // 2, 3, n - 2]]
    got_many = kselect.multiselect(shard, many, comm=comm)
    got_none = kselect.multiselect(shard, [], comm=comm)
    ordered = np.sort(full)  # NaN last, as kselect's order
    for k, g in zip(ks, got):
        same(g, ordered[k], f"select k={k}")
    same(got_kth, ordered[2], "kth")
    same(got_many, ordered[np.array(many)], "multiselect")
    assert got_none.shape == (0,) and got_none.dtype == full.dtype


@pytest.mark.parametrize("root", [None, 0, -1], ids=["parts", "root0", "rootlast"])
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", ALL_TYPES, ids=type_ids)
def test_topk(comm, dtype, layout, root):
    rank, size = comm.Get_rank(), comm.Get_size()
    root = size - 1 if root == -1 else root
    shard = make_shard(comm, dtype, layout, seed=5, nans=0.05)
    full = gathered(comm, shard)
    n = full.size
    offsets = np.cumsum([0] + [s for s in comm.allgather(shard.size)])
    mine = (offsets[rank], offsets[rank + 1])
    calls = []
    for k in sorted({0, 1, n // 3, n // 2, n}):
        for largest in (True, False):
            for sort in (True, False):
                v, i = kselect.topk(shard, k, largest=largest, sorted=sort, comm=comm, root=root)
                calls.append((k, largest, sort, v, i))
    for k, largest, sort, v, i in calls:
        what = f"k={k} largest={largest} sorted={sort} root={root}"
        assert v.dtype == shard.dtype and i.dtype == np.int64, what
        order = expected_topk(full, k, largest)  # in the answer's order
        if root is None:
            want = order[(order >= mine[0]) & (order < mine[1])]
        else:
            want = order if rank == root else order[:0]
        if not sort:
            want = np.sort(want)
        assert np.array_equal(i, want), (what, i, want)
        assert np.array_equal(bits(v), bits(full[want])), (what, v, full[want])  # the elements, bit for bit


def test_topk_ties_go_to_the_lowest_global_indices(comm):
    rank, size = comm.Get_rank(), comm.Get_size()
    shard = np.full(3 + rank, 7, dtype=np.int32)  # every key equal
    nan_shard = np.array([np.nan, 1.0, np.nan, -0.0, 0.0], dtype=np.float64)
    n = sum(comm.allgather(shard.size))
    offset = sum(comm.allgather(shard.size)[:rank])
    k = n // 2 + 1
    v, i = kselect.topk(shard, k, comm=comm)
    v_all, i_all = kselect.topk(shard, k, comm=comm, root=0)
    nv, ni = kselect.topk(nan_shard, size + 1, comm=comm, root=0)  # NaN is the largest value
    zv, zi = kselect.topk(nan_shard, 2 * size, largest=False, comm=comm, root=0)
    want = np.arange(offset, offset + shard.size)
    want = want[want < k]
    assert np.array_equal(i, want) and (v == 7).all()
    if rank == 0:
        assert np.array_equal(i_all, np.arange(k))
        nan_indices = np.sort(np.concatenate([[5 * p, 5 * p + 2] for p in range(size)]))
        assert np.isnan(nv).all() and np.array_equal(ni, nan_indices[: size + 1])
        # the smallest: 2*size keys among 1.0 (one per process), -0.0 and +0.0 (two per process)
        # -0.0 and +0.0 tie: the lowest indices first, their own bits kept
        zeros = np.sort(np.concatenate([[5 * p + 3, 5 * p + 4] for p in range(size)]))
        assert np.array_equal(zi, zeros) and np.array_equal(np.signbit(zv), np.tile([True, False], size))
    else:
        assert i_all.size == 0 and nv.size == 0 and zv.size == 0


@pytest.mark.parametrize("algorithm", ["dibms", "distributed_bms", "sort_and_choose"])
def test_algorithms_and_report(comm, algorithm):
    size = comm.Get_size()
    shard = make_shard(comm, np.float64, "uneven", seed=6, nans=0.02)
    ints = make_shard(comm, np.int64, "holes", seed=7)
    full, full_ints = gathered(comm, shard), gathered(comm, ints)
    reports = [{} for _ in range(4)]
    q = kselect.quantile(shard, Q_LIST, method="hazen", comm=comm, algorithm=algorithm, report=reports[0])
    s = kselect.select(ints, 5, comm=comm, algorithm=algorithm, report=reports[1])
    m = kselect.median(ints, comm=comm, algorithm=algorithm, report=reports[2])
    k = min(10, full.size)
    v, i = kselect.topk(shard, k, comm=comm, root=0, algorithm=algorithm, report=reports[3])
    same(q, np.quantile(full, Q_LIST, method="hazen"))
    same(s, np.sort(full_ints)[5])
    same(m, np.median(full_ints))
    if comm.Get_rank() == 0:
        assert np.array_equal(i, expected_topk(full, k, True))
    for rep, n in zip(reports, (full.size, full_ints.size, full_ints.size, full.size)):
        assert set(rep) == {"algorithm", "transport", "rounds", "collectives", "bytes_sent", "global_size",
                            "candidates_after_round", "gathered_keys"}, rep
        assert rep["algorithm"] == algorithm and rep["transport"] == "mpi" and rep["global_size"] == n, rep
        assert rep["collectives"] >= 1 and rep["bytes_sent"] > 0, rep
        assert isinstance(rep["candidates_after_round"], list) and len(rep["candidates_after_round"]) <= rep["rounds"]
        if algorithm == "sort_and_choose":
            assert rep["gathered_keys"] == n, rep
        else:
            assert rep["rounds"] >= 1, rep
    if size > 1 and algorithm == "dibms":
        assert reports[0]["gathered_keys"] < full.size, reports[0]


def test_dibms_sends_counts_not_data(comm):
    # 200,000 float32 keys per process: DIBMS's traffic is its rounds' bucket counts
    # and a few candidates, not the data; Sort&Choose gathers every key.
    rng = np.random.default_rng([8, comm.Get_rank()])
    shard = rng.standard_normal(200_000).astype(np.float32)
    dibms, sort = {}, {}
    q = kselect.quantile(shard, [0.01, 0.5, 0.99], comm=comm, report=dibms)
    q_sort = kselect.quantile(shard, [0.01, 0.5, 0.99], comm=comm, algorithm="sort_and_choose", report=sort)
    full = gathered(comm, shard)
    same(q, np.quantile(full, [0.01, 0.5, 0.99]))
    same(q_sort, q)
    assert dibms["gathered_keys"] < full.size // 100, dibms
    assert sort["gathered_keys"] == full.size, sort
    if comm.Get_size() > 1:
        assert dibms["bytes_sent"] < shard.nbytes, dibms  # less than this process's data


def test_sub_communicators(comm):
    from mpi4py import MPI

    rank = comm.Get_rank()
    half = comm.Split(rank % 2, rank)  # two groups answering at the same time
    shard = make_shard(comm, np.uint32, "uneven", seed=9)
    try:
        full_half = gathered(half, shard)
        got = kselect.quantile(shard, [0.1, 0.9], comm=half)
        med = kselect.median(shard, comm=half)
        own = kselect.median(shard, comm=MPI.COMM_SELF)  # each process alone
    finally:
        half.Free()
    same(got, np.quantile(full_half, [0.1, 0.9]))
    same(med, np.median(full_half))
    same(own, np.median(shard))


def test_torch_cpu_tensors_every_dtype(comm):
    # torch CPU tensors, bfloat16 among them (NumPy has none): against kselect's own
    # local call on the concatenation (tests/python checks that one against NumPy).
    torch = pytest.importorskip("torch")

    def to_numpy(t):  # bfloat16 travels as its bits
        return t.view(torch.int16).numpy() if t.dtype == torch.bfloat16 else t.numpy()

    def from_numpy(a, dtype):
        return torch.from_numpy(a).view(dtype) if dtype == torch.bfloat16 else torch.from_numpy(a)

    results = []
    for dtype in (torch.float16, torch.bfloat16, torch.float32, torch.int64):
        rng = np.random.default_rng([10, comm.Get_rank()])
        shard = torch.from_numpy(rng.normal(scale=50, size=30 + comm.Get_rank()).round()).to(dtype)
        whole = torch.cat([from_numpy(a, dtype) for a in comm.allgather(to_numpy(shard))])
        results.append((dtype, "quantile", kselect.quantile(shard, [0.2, 0.5], comm=comm),
                        kselect.quantile(whole, [0.2, 0.5])))
        results.append((dtype, "median", kselect.median(shard, comm=comm), kselect.median(whole)))
        results.append((dtype, "select", kselect.select(shard, 7, comm=comm), kselect.select(whole, 7)))
        v, i = kselect.topk(shard, 5, comm=comm, root=0)
        if comm.Get_rank() == 0:
            results.append((dtype, "topk", (v, i), kselect.topk(whole, 5, deterministic=True)))
    for dtype, what, got, want in results:
        if what == "topk":
            assert torch.equal(got[1], want[1]) and torch.equal(got[0], want[0]), (dtype, got, want)
        else:
            assert isinstance(got, torch.Tensor) and got.dtype == want.dtype, (dtype, what, got, want)
            assert torch.equal(got, want), (dtype, what, got, want)


def test_many_processes_each_with_one_key(comm):
    # Every process holds one key (its rank, reversed), the smallest shards there are.
    rank, size = comm.Get_rank(), comm.Get_size()
    shard = np.array([size - 1 - rank], dtype=np.int64)
    q = kselect.quantile(shard, [0, 0.5, 1], comm=comm)
    v, i = kselect.topk(shard, 1, comm=comm, root=size - 1)
    same(q, np.quantile(np.arange(size), [0, 0.5, 1]))
    if rank == size - 1:
        assert v.tolist() == [size - 1] and i.tolist() == [0]


@pytest.mark.parametrize("dtype", TYPES, ids=[np.dtype(t).name for t in TYPES])
def test_results_are_the_same_on_every_process(comm, dtype):
    shard = make_shard(comm, dtype, "uneven", seed=11, nans=0.01)
    answers = (kselect.quantile(shard, Q_LIST, comm=comm), kselect.median(shard, comm=comm),
               kselect.multiselect(shard, [3, 1, 4, 1, 5], comm=comm))
    everyone = comm.allgather([bits(np.asarray(a)).tobytes() for a in answers])
    assert all(e == everyone[0] for e in everyone)
