"""The distributed calls' surface in one process, without MPI: the comm=, algorithm=,
report= (and topk's root=) arguments exist where documented, are refused without
comm=, and comm= on a package built without MPI says so. The calls themselves run
under mpirun in tests/mpi_python (`make python-test`)."""
import inspect
import typing
import warnings

import numpy as np
import pytest

import kselect
from kselect import _mpi, _typing

DISTRIBUTED = ["quantile", "nanquantile", "percentile", "nanpercentile", "median", "select", "kth", "multiselect",
               "topk"]


@pytest.mark.parametrize("name", DISTRIBUTED)
def test_distributed_arguments_are_keyword_only(name):
    params = inspect.signature(getattr(kselect, name)).parameters
    wanted = ["comm", "algorithm", "transport", "report"] + (["root"] if name == "topk" else [])
    for p in wanted:
        assert params[p].kind is inspect.Parameter.KEYWORD_ONLY, (name, p)
    assert params["comm"].default is None and params["algorithm"].default == "dibms"
    assert params["transport"].default == "mpi"
    assert params["report"].default is None


def test_algorithm_names_are_the_librarys():
    assert typing.get_args(_typing.Algorithm) == _mpi.ALGORITHMS == ("dibms", "distributed_bms", "sort_and_choose")
    assert typing.get_args(_typing.Transport) == _mpi.TRANSPORTS == ("mpi", "nccl")


@pytest.mark.parametrize(
    "call",
    [
        lambda a: kselect.topk(a, 2, root=0),
        lambda a: kselect.median(a, report={}),
        lambda a: kselect.quantile(a, 0.5, algorithm="sort_and_choose"),
        lambda a: kselect.select(a, 0, algorithm="dibms ", report=None),
        lambda a: kselect.nanpercentile(a, 50, report={}),
        lambda a: kselect.kth(a, 1, transport="nccl"),
    ],
)
def test_distributed_arguments_need_comm(call):
    with pytest.raises(ValueError, match="pass comm= as well"):
        call(np.arange(5.0))


def test_comm_without_mpi_says_so(monkeypatch):
    # A package built without MPI has no kselect._kselect_mpi: comm= raises
    # RuntimeError naming the cause, and mpi_available() is False.
    monkeypatch.setattr(_mpi, "_loaded", [])
    real_find_spec = _mpi.importlib.util.find_spec
    monkeypatch.setattr(_mpi.importlib.util, "find_spec",
                        lambda name, *args: None if name == "kselect._kselect_mpi" else real_find_spec(name, *args))
    assert kselect.mpi_available() is False
    for call in (lambda: kselect.quantile(np.arange(3.0), 0.5, comm=object()),
                 lambda: kselect.topk(np.arange(3.0), 1, comm=object(), root=0)):
        with pytest.raises(RuntimeError, match="kselect was built without MPI"):
            call()


def test_mpi_available_matches_the_extension():
    try:
        from kselect import _kselect_mpi  # noqa: F401
    except ImportError:
        assert kselect.mpi_available() is False
    else:
        assert kselect.mpi_available() is True


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32, np.uint64])
@pytest.mark.parametrize("shape, axis, keepdims", [((0,), None, False), ((0,), None, True), ((2, 0), None, False),
                                                   ((3, 0), 1, False), ((3, 0), 1, True), ((0, 3), 1, False)])
def test_nanquantile_of_an_empty_array_is_numpys(dtype, shape, axis, keepdims):
    # numpy.nanquantile of an empty array is np.nanmean(a, axis, keepdims): NaN in the
    # mean's dtype whatever q's shape (the distributed call of an empty global input
    # takes this path too).
    a = np.zeros(shape, dtype=dtype)
    for q in (0.5, [0.25, 0.75]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            want = np.nanquantile(a, q, axis=axis, keepdims=keepdims)
            got = kselect.nanquantile(a, q, axis=axis, keepdims=keepdims)
            got_p = kselect.nanpercentile(a, np.multiply(q, 100), axis=axis, keepdims=keepdims)
        for g in (got, got_p):
            assert type(g) is type(want) and g.dtype == want.dtype and np.shape(g) == np.shape(want), (g, want)
            assert np.array_equal(g, want, equal_nan=True)


def test_generated_stub_of_the_mpi_extension():
    # Where the package has its distributed calls, their extension's stub is installed
    # next to it and lists its functions (nanobind's stubgen, as for _kselect).
    if not kselect.mpi_available():
        pytest.skip("kselect was built without MPI")
    from pathlib import Path

    from kselect import _kselect_mpi

    stub = Path(_kselect_mpi.__file__).parent / "_kselect_mpi.pyi"
    assert stub.is_file(), f"no generated stub {stub}"
    text = stub.read_text()
    functions = [n for n, f in vars(_kselect_mpi).items() if callable(f) and not n.startswith("__")]
    assert {"multiselect", "topk", "library_version"} <= set(functions)
    for n in functions:
        assert f"def {n}(" in text, f"the stub lacks _kselect_mpi.{n}"
