"""The example scripts run and pass their own checks (each asserts its answers against
NumPy or torch and prints "all checks passed" only at the end):

- examples/python/numpy_quickstart.py: always (CPU).
- examples/hubble_topk/hubble_topk.py on the CPU: always; the Hubble image with
  scikit-image, else its generated star field. With the command-line tool too, where
  one is found (KSELECT_CLI, or apps/kselect/kselect under the working directory, the
  build directory that `make python-test` runs pytest in).
- examples/python/torch_quickstart.py and the Hubble example on a torch CUDA tensor:
  marker gpu (skipped without a GPU, kselect's CUDA backend and torch).

Each runs in a child Python (the scripts are programs: they print and exit) that
imports the same kselect as this test.
"""
import os
import site
import subprocess
import sys
from pathlib import Path

import pytest

import kselect

ROOT = Path(__file__).resolve().parents[2]
HUBBLE = ROOT / "examples" / "hubble_topk" / "hubble_topk.py"


def _child_env():
    """This environment, with kselect's folder on PYTHONPATH unless the child finds it
    anyway (site-packages: put first on the path it could shadow the standard library)."""
    package_parent = str(Path(kselect.__file__).resolve().parents[1])
    sites = {str(Path(p).resolve()) for p in site.getsitepackages() + [site.getusersitepackages()]}
    if package_parent in sites:
        return dict(os.environ)
    return dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (package_parent, os.environ.get("PYTHONPATH")) if p))


def run_script(script, *args, timeout=300):
    res = subprocess.run([sys.executable, str(script), *map(str, args)], capture_output=True, text=True,
                         env=_child_env(), timeout=timeout)
    assert res.returncode == 0, f"{script.name} {' '.join(map(str, args))} failed ({res.returncode}):\n" \
                                f"{res.stdout[-4000:]}\n{res.stderr[-4000:]}"
    assert "all checks passed" in res.stdout, res.stdout[-4000:]
    return res.stdout


def test_numpy_quickstart():
    run_script(ROOT / "examples" / "python" / "numpy_quickstart.py")


def test_hubble_topk_cpu():
    # k = 100000: the k-th brightest value of both images is tied, so deterministic=True is tested.
    out = run_script(HUBBLE, "--device", "cpu", "--k", 100000)
    assert "on a NumPy array (CPU backend)" in out
    assert "deterministic=True: values and indices equal" in out


def _cli():
    for candidate in (os.environ.get("KSELECT_CLI"), Path.cwd() / "apps" / "kselect" / "kselect"):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    pytest.skip("no kselect command-line tool (set KSELECT_CLI, or run pytest in the build directory)")


def test_hubble_topk_with_the_tool():
    out = run_script(HUBBLE, "--kselect", _cli(), "--device", "cpu", "--k", 100000)
    assert "kselect topk -k 100000 --deterministic on" in out


@pytest.mark.gpu
def test_torch_quickstart():
    pytest.importorskip("torch")
    out = run_script(ROOT / "examples" / "python" / "torch_quickstart.py")
    assert "torch.quantile" in out


@pytest.mark.gpu
def test_hubble_topk_on_a_torch_cuda_tensor():
    pytest.importorskip("torch")
    out = run_script(HUBBLE, "--device", "cuda", "--k", 100000)
    assert "on a torch CUDA tensor" in out and "torch.topk: the same values" in out
