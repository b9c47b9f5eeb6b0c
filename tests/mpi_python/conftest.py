"""pytest under mpirun: every process of the job runs this whole suite, the same tests
in the same order, and each test's distributed calls are collective over
MPI.COMM_WORLD. Run as

    mpirun -np 4 python -m pytest -q tests/mpi_python

(`make python-test` runs it with 1, 2, 3 and 4 processes; so does ctest in a CMake build
with -DKSELECT_BUILD_PYTHON=ON, tests/mpi_python/CMakeLists.txt).

- Without mpi4py, or with a kselect built without MPI, the tests are skipped with the
  reason, unless KSELECT_REQUIRE_MPI=1 (CI: `make python-test` sets it when it built
  the package with MPI), which fails the run instead.
- A hang fails: each test has KSELECT_MPI_TEST_TIMEOUT seconds (default 120); past them
  the process prints every thread's stack and exits, and mpirun ends the job.
- The `gpu` marker's tests run where a CUDA device, kselect's CUDA backend and torch or
  cupy are all present (tests/python's rule).
"""
import faulthandler
import os
import sys

import pytest

REQUIRED = os.environ.get("KSELECT_REQUIRE_MPI") == "1"
TIMEOUT = float(os.environ.get("KSELECT_MPI_TEST_TIMEOUT", "120"))


def _why_not_available():
    try:
        import kselect
    except ImportError as e:
        return f"kselect cannot be imported: {e}"
    if not kselect.mpi_available():
        return "kselect was built without MPI (no kselect._kselect_mpi)"
    try:
        from mpi4py import MPI  # noqa: F401  (initializes MPI)
    except ImportError as e:
        return f"mpi4py cannot be imported ({e}): pip install mpi4py"
    return None


WHY_NOT = _why_not_available()


_stderr = []  # the real standard error, for the watchdog (pytest captures fd 2 during tests)


def pytest_configure(config):
    # NumPy's and kselect's interpolation between infinities warns alike (inf - inf).
    config.addinivalue_line("filterwarnings", "ignore::RuntimeWarning")
    # Outside the tests pytest's capture is suspended: fd 2 is still the terminal or log.
    _stderr.append(open(os.dup(2), "w"))
    if WHY_NOT and REQUIRED:
        raise pytest.UsageError(f"KSELECT_REQUIRE_MPI=1 but the distributed tests cannot run: {WHY_NOT}")
    if not WHY_NOT:
        from mpi4py import MPI

        if MPI.COMM_WORLD.Get_rank() > 0:
            config.option.verbose = min(config.option.verbose, -1)  # one progress line per process is enough


def _gpu_ready():
    import kselect

    if not kselect.cuda_available():
        return False
    try:
        import torch

        if torch.cuda.is_available():
            return True
    except ImportError:
        pass
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


def pytest_collection_modifyitems(config, items):
    if WHY_NOT:
        skip = pytest.mark.skip(reason=f"distributed tests need MPI: {WHY_NOT}")
        for item in items:
            item.add_marker(skip)
        return
    if not _gpu_ready():
        skip = pytest.mark.skip(reason="needs a CUDA device, kselect's CUDA backend and torch or cupy")
        for item in items:
            if "gpu" in item.keywords:
                item.add_marker(skip)


@pytest.fixture(autouse=True)
def _watchdog():
    """A test that hangs (a process left waiting in a collective) ends the process."""
    # faulthandler prints "Timeout (h:mm:ss)!" and every thread's stack, then exits.
    faulthandler.dump_traceback_later(TIMEOUT, exit=True, file=_stderr[0] if _stderr else sys.stderr)
    yield
    faulthandler.cancel_dump_traceback_later()


@pytest.fixture
def comm():
    from mpi4py import MPI

    return MPI.COMM_WORLD
