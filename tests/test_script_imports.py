"""Every ``from smartvector_core... import name`` in the scripts, pages and the engine resolves.

Scripts run outside CI (benchmarks, tuning), so a module moved by a refactor breaks them
silently: ``scripts/bench/million.py`` still imported ``scaleout.indexing`` after the store
split. This reads each file's imports (no script is run) and resolves each module and name.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted(p for folder in ("scripts", "pages", "smartvector_core") for p in (ROOT / folder).rglob("*.py"))


def unresolved(path: Path) -> list[str]:
    """The ``smartvector_core`` imports of ``path`` that name no module or no attribute."""
    missing = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
                and node.module.split(".")[0] == "smartvector_core"):
            continue
        if importlib.util.find_spec(node.module) is None:
            missing.append(f"line {node.lineno}: no module {node.module}")
            continue
        module = importlib.import_module(node.module)
        missing += [f"line {node.lineno}: {node.module} has no {alias.name}" for alias in node.names
                    if not hasattr(module, alias.name) and not (
                        hasattr(module, "__path__") and importlib.util.find_spec(f"{node.module}.{alias.name}"))]
    return missing


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_engine_imports_resolve(path: Path) -> None:
    assert unresolved(path) == []


def test_a_moved_module_is_reported(tmp_path: Path) -> None:
    script = tmp_path / "old.py"
    script.write_text("from smartvector_core.scaleout.indexing import ivf_hnsw_partitions\n"
                      "from smartvector_core.store.indexes import no_such_name\n")
    assert unresolved(script) == ["line 1: no module smartvector_core.scaleout.indexing",
                                  "line 2: smartvector_core.store.indexes has no no_such_name"]
