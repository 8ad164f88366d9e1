"""scripts/dev/mutation.py (issue 20): every site is one token of one line, every mutant parses and
changes the program, and the never-mutated parts stay untouched."""

from __future__ import annotations

import ast
import importlib.util
import sys

from .conftest import REPO

SOURCE = '''"""Module docstring 1 + 1."""
LIMIT = 3


def f(x: int = 2, *, flag: bool = True) -> float:
    """Docstring 0 < 1."""
    if x < LIMIT and not flag:
        raise ValueError(f"bad {x + 1}")
    assert x >= 0, "never negative"
    y = -x + max(x, 1) * 2.5   # comment: a - b
    y += (x) - (1)
    return y if y != 0 else min(x, 0)
'''


def _tool():
    spec = importlib.util.spec_from_file_location("mutation_tool", REPO / "scripts" / "dev" / "mutation.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["mutation_tool"] = module
    spec.loader.exec_module(module)
    return module


def test_sites_are_single_tokens_that_parse_and_change_the_program(tmp_path):
    tool = _tool()
    (tmp_path / "m.py").write_text(SOURCE, encoding="utf-8")
    sites = tool.module_sites(tmp_path, "m.py")
    base = ast.dump(ast.parse(SOURCE))
    ops = [(m.line, m.op) for m in sites]
    assert (2, "3 -> 4") in ops and (7, "< -> <=") in ops and (7, "and -> or") in ops and (7, "drop not") in ops
    assert (10, "drop -") in ops and (10, "max -> min") in ops and (10, "2.5 -> 3.5") in ops and (10, "* -> /") in ops
    assert (11, "+= -> -=") in ops and (11, "- -> +") in ops and (12, "!= -> ==") in ops and (12, "min -> max") in ops
    # never mutated: docstrings, annotations/defaults are allowed but raise/assert/f-strings are not
    assert not [m for m in sites if m.line in (1, 6, 8, 9)]
    source = SOURCE.encode()
    for m in sites:
        mutated = (source[:m.start] + m.new.encode() + source[m.end:]).decode()
        assert ast.dump(ast.parse(mutated)) != base, m.op
        assert mutated.splitlines()[:m.line - 1] == SOURCE.splitlines()[:m.line - 1]
        assert mutated.splitlines()[m.line:] == SOURCE.splitlines()[m.line:], m.op


def test_equivalent_list_keys_match_the_reported_keys(tmp_path):
    tool = _tool()
    (tmp_path / "m.py").write_text(SOURCE, encoding="utf-8")
    mutant = next(m for m in tool.module_sites(tmp_path, "m.py") if m.op == "2.5 -> 3.5")
    mutant.status = "survived"
    assert mutant.key == "m.py | y = -x + max(x, 1) * 2.5   # comment: a - b | 2.5 -> 3.5"
    report, md = tool.summarise([mutant], {mutant.key: "reason"}, {
        "sampled": 1, "sites": 1, "seed": 0, "tests_dir": "t", "minutes": 0.0, "workers": 1})
    assert report["by_package"]["all"]["score"] is None and "reason" in md
