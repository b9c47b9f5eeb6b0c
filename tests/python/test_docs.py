"""The documentation runs: every public function's docstring example (doctest, NumPy
inputs on the CPU), and the typing promises hold (annotations, py.typed, the generated
stub of the extension). The example scripts: test_examples.py."""
import doctest
import inspect
import typing
from pathlib import Path

import numpy as np
import pytest

import kselect
from kselect import _kselect, _typing

PUBLIC_FUNCTIONS = [name for name in kselect.__all__ if callable(getattr(kselect, name))]


def test_public_functions_are_listed():
    # A function added to __all__ is covered by the tests below; this guards the list itself.
    assert {"quantile", "nanpercentile", "kth", "topk", "filter", "count", "cuda_available"} <= set(PUBLIC_FUNCTIONS)


def _doctests(obj, name):
    finder = doctest.DocTestFinder(recurse=False)
    return finder.find(obj, name, globs={"np": np, "kselect": kselect})


@pytest.mark.skipif(np.lib.NumpyVersion(np.__version__) < "2.0.0",
                    reason="the docstrings show NumPy 2's scalar reprs (np.float64(2.5))")
@pytest.mark.parametrize("name", ["kselect"] + PUBLIC_FUNCTIONS)
def test_docstring_examples_run(name):
    obj = kselect if name == "kselect" else getattr(kselect, name)
    tests = [t for t in _doctests(obj, name) if t.examples]
    assert tests, f"{name} has no example in its docstring"
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    for t in tests:
        runner.run(t)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} docstring examples of {name} failed (output above)"


@pytest.mark.parametrize("name", PUBLIC_FUNCTIONS)
def test_public_functions_are_annotated(name):
    sig = inspect.signature(getattr(kselect, name))
    missing = [p.name for p in sig.parameters.values() if p.annotation is inspect.Parameter.empty]
    assert not missing, f"{name}: parameters without annotations: {missing}"
    assert sig.return_annotation is not inspect.Signature.empty, f"{name}: no return annotation"
    # The annotations resolve (a typo in a name would only show in a type checker otherwise).
    typing.get_type_hints(getattr(kselect, name))


def test_method_literal_matches_the_methods():
    assert typing.get_args(_typing.QuantileMethod) == kselect.quantile_methods


def test_py_typed_and_generated_stub_are_installed():
    package = Path(kselect.__file__).parent
    assert (package / "py.typed").is_file(), f"no py.typed marker in {package}"
    stub = package / "_kselect.pyi"
    assert stub.is_file(), f"no generated stub {stub} next to the extension"
    text = stub.read_text()
    functions = [n for n, f in vars(_kselect).items() if callable(f) and not n.startswith("__")]
    assert functions
    for n in functions:
        assert f"def {n}(" in text, f"the stub lacks _kselect.{n}: stale or not generated from this module"

