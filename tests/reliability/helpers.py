"""Shared helpers of the reliability tests: a CLI runner and a snapshot of a store's state."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def subprocess_env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "SMARTVECTOR_MODEL": "hashing", "LANCEDB_LOG": "error", "PYTHONUNBUFFERED": "1",
           "OMP_NUM_THREADS": "1", **extra}
    env.pop("SMARTVECTOR_DEBUG", None)
    return env


def run_cli(store: Path, *args: str, timeout: float = 300, **env: str) -> subprocess.CompletedProcess:
    """``python -m smartvector_core --store STORE ARGS`` in a subprocess (hashing model)."""
    return subprocess.run([sys.executable, "-m", "smartvector_core", "--store", str(store), *args],
                          cwd=REPO, env=subprocess_env(**env), capture_output=True, text=True, timeout=timeout)


def store_state(app) -> dict:
    """What must converge: documents, current chunk ids and hashes, edges, lifecycles."""
    chunks = app.store.chunks_for_docs(
        app.store.documents().column("doc_id").to_pylist() if app.store.documents().num_rows else [])
    edges = app.store.edges()
    return {
        "docs": sorted(set(chunks.column("doc_id").to_pylist())),
        "chunks": sorted(zip(chunks.column("chunk_id").to_pylist(), chunks.column("content_hash").to_pylist(),
                             strict=True)),
        "lifecycle": sorted(set(zip(chunks.column("doc_id").to_pylist(), chunks.column("lifecycle").to_pylist(),
                                    strict=True))),
        "edges": sorted(zip(*(edges.column(c).to_pylist() for c in ("src", "edge_type", "dst", "origin", "status")),
                            strict=True)) if edges.num_rows else [],
    }


def dumps(obj) -> str:
    return json.dumps(obj, sort_keys=True, default=str)


def seed(cli, tmp_path: Path, records: list[dict]):
    """The ``cli`` fixture after ``ingest`` of ``records`` (the reliability tests' base store)."""
    base = tmp_path / "base.jsonl"
    base.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    assert cli("ingest", str(base))[0] == 0
    return cli


def cli_stats(cli) -> dict:
    """``stats --json`` as a dict (exit 0 asserted)."""
    code, out, _ = cli("stats", "--json")
    assert code == 0
    return json.loads(out)
