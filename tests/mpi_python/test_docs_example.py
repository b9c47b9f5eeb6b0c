"""The documentation's distributed examples run: the Python block of docs/api.md's
"Python: distributed (MPI)" section (it checks its own answers against NumPy), and the
examples written in the docstrings of kselect.quantile and kselect.topk, which the
single-process doctests (tests/python/test_docs.py) cannot run."""
import re
import textwrap
from pathlib import Path

import numpy as np

import kselect
from mpi_helpers import outcome

ROOT = Path(__file__).resolve().parents[2]


def _python_blocks(markdown, heading):
    section = markdown.split(heading, 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_api_md_example(comm, capsys):
    blocks = _python_blocks((ROOT / "docs" / "api.md").read_text(), "## Python: distributed (MPI)")
    assert len(blocks) == 1, "the section's example is missing"
    seen = outcome(lambda: exec(compile(blocks[0], "docs/api.md", "exec"), {"__name__": "__main__"}))
    everyone = comm.allgather(seen)
    assert all(e[0] == "ok" for e in everyone), everyone


def _indented_example(doc, after):
    """The indented (not doctest) example that follows `after` in a docstring."""
    tail = doc.split(after, 1)[1].splitlines()
    start = next(i for i, line in enumerate(tail) if line.startswith(" " * 8))
    lines = []
    for line in tail[start:]:
        if line.strip() and not line.startswith(" " * 8):
            break
        lines.append(line)
    return textwrap.dedent("\n".join(lines))


def test_docstring_examples(comm):
    # The examples run as written, and the answers their comments show are the calls'.
    if comm.Get_size() != 2:
        return  # they show two processes' answers
    quantile_code = _indented_example(kselect.quantile.__doc__, "Under mpirun -np 2")
    topk_code = _indented_example(kselect.topk.__doc__, "Under mpirun -np 2")
    env = {"np": np, "kselect": kselect}
    exec(compile(quantile_code, "kselect.quantile.__doc__", "exec"), env)  # defines comm and shard
    got_q = kselect.quantile(env["shard"], [0.1, 0.5], comm=comm)
    exec(compile(topk_code, "kselect.topk.__doc__", "exec"), env)  # redefines shard
    parts = kselect.topk(env["shard"], 3, comm=comm)
    whole = kselect.topk(env["shard"], 3, comm=comm, root=0)
    assert repr(got_q) == "array([0.9, 4.5])" and repr(got_q) in quantile_code
    if comm.Get_rank() == 0:
        assert repr(parts) == "(array([9.]), array([1]))" and repr(parts) in topk_code
        assert repr(whole) == "(array([9., 8., 7.]), array([1, 4, 2]))" and repr(whole) in topk_code
    else:
        assert repr(parts) == "(array([8., 7.]), array([4, 2]))" and repr(parts) in topk_code
        assert whole[0].size == 0 and whole[1].size == 0
