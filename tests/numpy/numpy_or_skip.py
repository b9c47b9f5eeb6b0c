"""NumPy for the tool's NumPy tests, or the exit CTest reads as "skipped".

Without NumPy a test exits 77 (CTest's SKIP_RETURN_CODE), unless
KSELECT_REQUIRE_NUMPY=1 in the environment (CI sets it): then it fails.
"""
import importlib
import os
import sys


def import_numpy(test_name, *modules):
    """numpy, then each of `modules` (e.g. "numpy.lib._function_base_impl"), imported."""
    try:
        return [importlib.import_module(m) for m in ("numpy", *modules)]
    except ImportError as e:
        if os.environ.get("KSELECT_REQUIRE_NUMPY") == "1":
            print(f"{test_name}: FAILED, NumPy is not importable ({e}) and KSELECT_REQUIRE_NUMPY=1")
            sys.exit(1)
        print(f"{test_name}: skipped, NumPy is not importable ({e})")
        sys.exit(77)
