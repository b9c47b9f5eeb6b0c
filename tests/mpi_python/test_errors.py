"""Bad input on one process, or on all: every process raises the same exception with
the same message, and none is left waiting (the watchdog of conftest.py fails a hang;
after each case a good call must still work, so the processes are still in step)."""
import numpy as np
import pytest

import kselect
from mpi_helpers import outcome, quietly, same


def _shard(comm):
    rank = comm.Get_rank()
    return np.arange(10.0 * rank, 10.0 * rank + 10)  # 10 keys per process, 0 .. 10p - 1


def _last(comm):
    return comm.Get_rank() == comm.Get_size() - 1


# Each case: (call(comm, shard), expected exception name, the message's distinctive
# part, whether it happens with one process too). {last} is the last process's rank.
CASES = {
    "select k out of range": (lambda c, a: kselect.select(a, 10 * c.Get_size(), comm=c), "ValueError",
                              "out of range", True),
    "select k negative out of range": (lambda c, a: kselect.select(a, -10 * c.Get_size() - 1, comm=c),
                                       "ValueError", "out of range", True),
    "multiselect k out of range": (lambda c, a: kselect.multiselect(a, [0, 10 * c.Get_size()], comm=c),
                                   "ValueError", "out of range", True),
    "topk k out of range": (lambda c, a: kselect.topk(a, 10 * c.Get_size() + 1, comm=c), "ValueError",
                            "out of range", True),
    "topk k negative": (lambda c, a: kselect.topk(a, -1, comm=c), "ValueError", "out of range", True),
    "different q": (lambda c, a: kselect.quantile(a, 0.5 if c.Get_rank() == 0 else 0.6, comm=c), "ValueError",
                    "processes 0 and 1 passed different q to quantile", False),
    "different q shape": (lambda c, a: kselect.quantile(a, [0.5] if c.Get_rank() == 0 else 0.5, comm=c),
                          "ValueError", "passed different q", False),
    "different percentiles": (lambda c, a: kselect.percentile(a, [1, 99] if _last(c) else [1, 98], comm=c),
                              "ValueError", "passed different q to percentile", False),
    "different method": (lambda c, a: kselect.quantile(a, 0.5, method="hazen" if _last(c) else "linear", comm=c),
                         "ValueError", "passed different method=", False),
    "different k": (lambda c, a: kselect.select(a, c.Get_rank(), comm=c), "ValueError",
                    "processes 0 and 1 passed different k (0 on process 0, 1 on process 1) to select", False),
    "different ks": (lambda c, a: kselect.multiselect(a, [1, 2] if _last(c) else [1, 3], comm=c), "ValueError",
                     "passed different ks", False),
    "different largest": (lambda c, a: kselect.topk(a, 3, largest=_last(c), comm=c), "ValueError",
                          "passed different largest=", False),
    "different root": (lambda c, a: kselect.topk(a, 3, root=c.Get_rank(), comm=c), "ValueError",
                       "passed different root=", False),
    "different calls": (lambda c, a: kselect.median(a, comm=c) if _last(c) else kselect.select(a, 0, comm=c),
                        "ValueError", "made different calls ('select' on process 0, 'median' on process {last})",
                        False),
    "different dtypes": (lambda c, a: kselect.median(a.astype(np.float32) if _last(c) else a, comm=c), "ValueError",
                         "passed different dtypes ('float64' on process 0, 'float32' on process {last})", False),
    "different algorithms": (lambda c, a: kselect.median(a, comm=c, algorithm="dibms" if _last(c) else "sort_and_choose"),
                             "ValueError", "passed different algorithm=", False),
    "axis on one process": (lambda c, a: kselect.quantile(a, 0.5, axis=0 if _last(c) else None, comm=c),
                            "ValueError", "axis must be None, not 0", True),
    "axis on every process": (lambda c, a: kselect.median(a.reshape(2, 5), axis=1, comm=c), "ValueError",
                              "axis must be None, not 1", True),
    "topk axis of a 2-D shard": (lambda c, a: kselect.topk(a.reshape(2, 5), 2, comm=c), "ValueError",
                                 "axis must be None, not -1", True),
    "q out of range on one process": (lambda c, a: kselect.quantile(a, 1.5 if _last(c) else 0.5, comm=c),
                                      "ValueError", "quantiles must be in the range [0, 1]", True),
    "percentile out of range": (lambda c, a: kselect.percentile(a, [50, 101] if _last(c) else [50, 99], comm=c),
                                "ValueError", "percentiles must be in the range [0, 100]", True),
    "NaN q": (lambda c, a: kselect.quantile(a, [0.5, np.nan] if _last(c) else [0.5, 0.5], comm=c), "ValueError",
              "quantiles must be in the range", True),
    "unknown method": (lambda c, a: kselect.quantile(a, 0.5, method="linearish" if _last(c) else "linear", comm=c),
                       "ValueError", "unknown quantile method 'linearish'", True),
    "unsupported dtype": (lambda c, a: kselect.median(a.astype(np.complex128) if _last(c) else a, comm=c),
                          "TypeError", "unsupported dtype complex128", True),
    "bool keys": (lambda c, a: kselect.select(a > 3 if _last(c) else a, 0, comm=c), "TypeError",
                  "unsupported dtype bool", True),
    "k not an integer": (lambda c, a: kselect.select(a, 1.0 if _last(c) else 1, comm=c), "TypeError",
                         "k must be an integer, not float", True),
    "ks not integers": (lambda c, a: kselect.multiselect(a, [0.5] if _last(c) else [0], comm=c), "TypeError",
                        "ks must be integers", True),
    "unknown algorithm": (lambda c, a: kselect.select(a, 0, comm=c, algorithm="quick" if _last(c) else "dibms"),
                          "ValueError", "unknown algorithm 'quick'", True),
    "unknown transport": (lambda c, a: kselect.select(a, 0, comm=c, transport="tcp" if _last(c) else "mpi"),
                          "ValueError", "unknown transport 'tcp'", True),
    "different transports": (lambda c, a: kselect.median(a, comm=c, transport="mpi" if _last(c) else "nccl"),
                             "ValueError", "passed different transport=", False),
    "report not a dict": (lambda c, a: kselect.select(a, 0, comm=c, report=[] if _last(c) else None), "TypeError",
                          "report must be a dict", True),
    "root out of range": (lambda c, a: kselect.topk(a, 3, root=c.Get_size(), comm=c), "ValueError",
                          "is not a process of comm", True),
    "root not an integer": (lambda c, a: kselect.topk(a, 3, root="0", comm=c), "TypeError",
                            "root must be an integer", True),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_mistake_raises_the_same_error_everywhere(comm, case):
    call, kind, text, single = CASES[case]
    shard = _shard(comm)
    seen = outcome(lambda: call(comm, shard))
    everyone = comm.allgather(seen)
    still_in_step = kselect.select(shard, 3, comm=comm)  # the processes are still in step
    text = text.replace("{last}", str(comm.Get_size() - 1))
    if comm.Get_size() == 1 and not single:
        assert everyone[0][0] == "ok", everyone  # nothing to disagree with
    else:
        assert all(e == everyone[0] for e in everyone), everyone  # the same everywhere
        assert everyone[0][0] == kind and text in everyone[0][1], everyone[0]
        assert everyone[0][1].startswith("kselect: "), everyone[0]
    assert still_in_step == 3.0


def test_a_process_mistake_names_the_process(comm):
    # The lowest process that failed is named (with more than one process).
    size = comm.Get_size()
    shard = _shard(comm)
    seen = outcome(lambda: kselect.quantile(shard, 2.0 if comm.Get_rank() >= size // 2 else 0.5, comm=comm))
    everyone = comm.allgather(seen)
    prefix = f"kselect: process {size // 2}: " if size > 1 else "kselect: "
    assert all(e == everyone[0] for e in everyone) and everyone[0][1].startswith(prefix), everyone


def test_empty_global_input(comm):
    empty = np.zeros(0, dtype=np.float32)
    seen = [outcome(lambda: kselect.quantile(empty, 0.5, comm=comm)),
            outcome(lambda: kselect.median(empty, comm=comm)),
            outcome(lambda: kselect.select(empty, 0, comm=comm)),
            outcome(lambda: kselect.multiselect(empty, [0], comm=comm))]
    nan_q = quietly(kselect.nanquantile, empty, [0.5, 0.7], comm=comm)
    top = kselect.topk(empty, 0, comm=comm)
    everyone = comm.allgather(seen)
    assert all(e == everyone[0] for e in everyone)
    for kind, message in seen:
        assert kind == "ValueError" and "empty" in message, (kind, message)
    same(nan_q, quietly(np.nanquantile, empty, [0.5, 0.7]))
    assert top[0].shape == (0,) and top[1].shape == (0,)


def test_comm_must_be_a_communicator(comm):
    from mpi4py import MPI

    shard = _shard(comm)
    with pytest.raises(TypeError, match="comm must be an mpi4py communicator"):
        kselect.quantile(shard, 0.5, comm="world")
    with pytest.raises(ValueError, match="COMM_NULL"):
        kselect.median(shard, comm=MPI.COMM_NULL)
    assert kselect.select(shard, 0, comm=comm) == 0.0


def test_library_errors_map_to_python_exceptions(comm):
    # The C++ layer's own agreement, reached by calling the extension directly: ranks
    # that differ between processes are std::invalid_argument there, ValueError here,
    # with the same message on every process; a rank beyond the global size too.
    from kselect import _kselect_mpi

    size = comm.Get_size()
    shard = _shard(comm)
    ranks = np.array([comm.Get_rank() % 2], dtype=np.int64)
    different = outcome(lambda: _kselect_mpi.multiselect(comm.py2f(), shard, ranks))
    beyond = outcome(lambda: _kselect_mpi.multiselect(comm.py2f(), shard, np.array([10 * size], dtype=np.int64)))
    bad_algorithm = outcome(lambda: _kselect_mpi.topk(comm.py2f(), shard, 1, True, True, -1, "quick"))
    everyone = comm.allgather((different, beyond))
    assert all(e == everyone[0] for e in everyone), everyone
    if size > 1:
        assert different[0] == "ValueError" and "passed different arguments" in different[1], different
    assert beyond[0] == "ValueError" and "outside" in beyond[1], beyond
    assert bad_algorithm[0] == "ValueError" and "unknown distributed algorithm" in bad_algorithm[1], bad_algorithm



def test_an_mpi_failure_is_a_runtime_error(comm, monkeypatch):
    # kselect::error (an MPI or CUDA failure) comes back as RuntimeError. The library's
    # fault injection fails a process's second collective; on MPI.COMM_SELF no other
    # process is left waiting for it.
    from mpi4py import MPI

    shard = _shard(comm)
    monkeypatch.setenv("KSELECT_MPI_INJECT_FAILURE", "0")
    failed = outcome(lambda: kselect.median(shard, comm=MPI.COMM_SELF))
    monkeypatch.delenv("KSELECT_MPI_INJECT_FAILURE")
    after = kselect.median(shard, comm=MPI.COMM_SELF)
    assert failed[0] == "RuntimeError" and "injected MPI failure" in failed[1], failed
    assert after == np.median(shard)
