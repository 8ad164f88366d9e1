"""Crash safety: ``kill -9`` at several moments of an ingest (and a consolidation) leaves a store
that opens, where every document is whole or absent, and re-running converges to the state of an
uninterrupted run."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from smartvector_core.embedding import HashingEmbedder
from smartvector_core.ingest import read_records, validate_records
from smartvector_core.ingest.chunking import chunk_document
from smartvector_core.service import SmartVector
from smartvector_core.settings import load_settings
from smartvector_core.store import edge_id

from .helpers import REPO, run_cli, store_state, subprocess_env

N_DOCS = 800
pytestmark = pytest.mark.slow


def make_corpus(path: Path, n: int = N_DOCS) -> Path:
    with path.open("w", encoding="utf-8") as f:
        for i in range(n):
            paras = [f"Document {i} part {p}. " + " ".join(f"term{(i * 7 + p * 13 + w) % 997}" for w in range(40)) + "."
                     for p in range(1 + i % 4)]
            rec = {"id": f"doc{i}", "title": f"Topic {i % 50}", "text": "\n\n".join(paras),
                   "created_at": "2025-01-01T00:00:00Z", "kind": "STATIC", "doc_type": "reference"}
            if i % 10 == 1:
                rec["depends_on"] = [f"doc{i - 1}"]
            if i % 25 == 5:
                rec["supersedes"] = f"doc{i - 3}"
            f.write(json.dumps(rec) + "\n")
    return path


def open_app(store: Path) -> SmartVector:
    return SmartVector(load_settings(str(store), env={}), embedder=HashingEmbedder())


def commits(store: Path) -> int:
    return sum(1 for _ in store.glob("*.lance/_versions/*.manifest"))


def start_and_kill(store: Path, args: list[str], *, after_commits: int | None, after_s: float = 0.0) -> int:
    """Start the CLI, wait for ``after_commits`` new table versions (or none), then ``after_s``
    more seconds, then SIGKILL. Returns the commits seen at the kill (-1: it finished first)."""
    base = commits(store) if store.exists() else 0
    proc = subprocess.Popen([sys.executable, "-m", "smartvector_core", "--store", str(store), *args],
                            cwd=REPO, env=subprocess_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 600
    while after_commits is not None and proc.poll() is None and time.monotonic() < deadline:
        if store.exists() and commits(store) - base >= after_commits:
            break
        time.sleep(0.005)
    if after_s:
        time.sleep(after_s)
    finished = proc.poll() is not None
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    return -1 if finished else commits(store) - base


def assert_whole_or_absent(app: SmartVector, docs) -> tuple[int, int]:
    """Every document in the store has exactly its chunks and its declared edges."""
    stored = app.store.documents()
    present = set(stored.column("doc_id").to_pylist()) if stored.num_rows else set()
    chunks = app.store.chunks_for_docs(sorted(present)) if present else None
    by_doc: dict[str, set[str]] = {}
    if chunks is not None:
        for d, c in zip(chunks.column("doc_id").to_pylist(), chunks.column("chunk_id").to_pylist(), strict=True):
            by_doc.setdefault(d, set()).add(c)
    edges = app.store.edges()
    edge_ids = set(edges.column("edge_id").to_pylist()) if edges.num_rows else set()
    for doc in docs:
        if doc.id not in present:
            continue
        expected = {c.chunk_id for c in chunk_document(doc.id, doc.text)}
        assert by_doc[doc.id] == expected, doc.id
        for dst in doc.supersedes:
            assert edge_id(doc.id, "SUPERSEDES", dst) in edge_ids, (doc.id, dst)
        for dst in doc.depends_on:
            assert edge_id(doc.id, "DEPENDS_ON", dst) in edge_ids, (doc.id, dst)
    return len(present), len(edge_ids)


def assert_converged(state: dict, reference: dict) -> None:
    """Same documents, chunk ids, content hashes, edges and lifecycle states; all consolidated."""
    for key in ("docs", "chunks", "edges", "lifecycle"):
        assert state[key] == reference[key], key
    assert all(s != "UNCONSOLIDATED" for _, s in state["lifecycle"])
    print(f"converged: {len(state['docs'])} docs, {len(state['chunks'])} chunks, {len(state['edges'])} edges, "
          "lifecycle equal")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    return make_corpus(tmp_path_factory.mktemp("crash") / "corpus.jsonl")


@pytest.fixture(scope="module")
def reference(corpus, tmp_path_factory) -> dict:
    store = tmp_path_factory.mktemp("ref") / "store"
    proc = run_cli(store, "ingest", str(corpus), "--json")
    assert proc.returncode == 0, proc.stderr
    return store_state(open_app(store))


# (wait for N new table versions, then sleep S): 4 are the tables being created; then edges,
# chunks, events, and the consolidation commits
KILL_POINTS = [(None, 1.0), (5, 0.0), (6, 0.0), (7, 0.0), (9, 0.0), (12, 0.0)]


@pytest.mark.parametrize(("after_commits", "after_s"), KILL_POINTS)
def test_kill_during_ingest_then_rerun_converges(corpus, reference, tmp_path, after_commits, after_s):
    docs = validate_records(read_records(corpus), ingest_time=datetime.now(UTC))
    store = tmp_path / "store"
    seen = start_and_kill(store, ["ingest", str(corpus), "--json"], after_commits=after_commits, after_s=after_s)
    app = open_app(store)  # the store opens
    present, _ = assert_whole_or_absent(app, docs)
    print(f"killed after {seen} commits: {present}/{len(docs)} documents present, all whole")
    proc = run_cli(store, "ingest", str(corpus), "--json")
    assert proc.returncode == 0, proc.stderr
    assert_converged(store_state(open_app(store)), reference)


def test_kill_during_consolidate_then_rerun_converges(corpus, tmp_path):
    base = tmp_path / "base"
    app = open_app(base)
    app.ingest_records(read_records(corpus), now=datetime.now(UTC), consolidate=False)
    ref = tmp_path / "ref"
    shutil.copytree(base, ref)
    assert run_cli(ref, "consolidate", "--json").returncode == 0
    reference = store_state(open_app(ref))
    assert any(state != "UNCONSOLIDATED" for _, state in reference["lifecycle"])
    for n, (after_commits, after_s) in enumerate([(None, 1.5), (1, 0.0), (2, 0.0), (3, 0.01)]):
        store = tmp_path / f"k{n}"
        shutil.copytree(base, store)
        start_and_kill(store, ["consolidate", "--json"], after_commits=after_commits, after_s=after_s)
        open_app(store)
        proc = run_cli(store, "consolidate", "--json")
        assert proc.returncode == 0, proc.stderr
        assert_converged(store_state(open_app(store)), reference)
