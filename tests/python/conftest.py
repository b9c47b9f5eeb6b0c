"""pytest setup: the `gpu` marker's tests run only where a CUDA device, the package's
CUDA backend and torch or cupy are all present."""
import pytest


def _gpu_ready():
    try:
        import kselect
    except ImportError:
        return False
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
    if _gpu_ready():
        return
    skip = pytest.mark.skip(reason="needs a CUDA device, kselect's CUDA backend and torch or cupy")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
