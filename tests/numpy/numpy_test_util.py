"""What the tool's NumPy tests share: NumPy, or the exit CTest reads as "skipped"
(77, its SKIP_RETURN_CODE; a failure instead when KSELECT_REQUIRE_NUMPY=1, as CI
sets), and the closing report.
"""
import argparse
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


def report(test_name, failures, passed):
    """Prints the first 40 failures and their count, or `passed`; returns the exit status."""
    for f in failures[:40]:
        print("MISMATCH", f)
    if failures:
        print(f"{test_name}: {len(failures)} mismatches")
        return 1
    print(f"{test_name}: {passed}")
    return 0


def tool_and_rng(np, default_seed):
    """The command line every NumPy test takes, KSELECT [--seed S]: the tool's path and a generator."""
    ap = argparse.ArgumentParser()
    ap.add_argument("tool")
    ap.add_argument("--seed", type=int, default=default_seed)
    args = ap.parse_args()
    return args.tool, np.random.default_rng(args.seed)
