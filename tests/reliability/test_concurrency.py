"""Concurrent writers: feedback from 8 processes, overlapping ingests from 3 processes."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from smartvector_core.config import DEFAULT_CONFIDENCE
from smartvector_core.embedding import HashingEmbedder
from smartvector_core.service import SmartVector
from smartvector_core.settings import load_settings

from .helpers import REPO, subprocess_env

pytestmark = pytest.mark.slow
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)

# each worker runs the CLI in-process ``len(verdicts)`` times (one process start, many commands)
WORKER = """
import sys
from smartvector_core.cli import main
store, doc, verdicts, worker = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
for n, verdict in enumerate(verdicts.split(",")):
    code = main(["--store", store, "feedback", doc, verdict, "--query-id", f"w{worker}-{n}", "--json"])
    assert code == 0, code
"""

INGESTER = """
import sys
from smartvector_core.cli import main
sys.exit(main(["--store", sys.argv[1], "ingest", sys.argv[2], "--json"]))
"""


def _app(store) -> SmartVector:
    return SmartVector(load_settings(str(store), env={}), embedder=HashingEmbedder())


def test_8_processes_x_25_feedback_events(tmp_path):
    store = tmp_path / "store"
    app = _app(store)
    app.ingest_records([{"id": "target", "text": "The rate limit is 100 requests per minute.", "authority": 0.5,
                         "created_at": "2026-11-01", "kind": "STATIC", "doc_type": "reference"}], now=NOW)
    # 146 accepts and 54 corrections: +4.38 - 4.32 = +0.06, so the sum stays inside [floor, ceiling]
    plans = [["accept"] * 18 + ["correct"] * 7] * 6 + [["accept"] * 19 + ["correct"] * 6] * 2
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, str(store), "target", ",".join(plan), str(w)],
                              cwd=REPO, env=subprocess_env(), stderr=subprocess.PIPE, text=True)
             for w, plan in enumerate(plans)]
    for p in procs:
        assert p.wait(timeout=900) == 0, p.stderr.read()
    app = _app(store)
    events = app.store.events().to_pandas()
    feedback = events[events["event_type"].str.startswith("FEEDBACK")]
    assert len(feedback) == 200 and feedback["event_id"].is_unique
    assert sorted(feedback["query_id"]) == sorted(f"w{w}-{n}" for w in range(8) for n in range(25))
    assert (feedback["event_type"] == "FEEDBACK_ACCEPT").sum() == 146
    assert set(feedback["actor"]) == {"cli"}
    # as if applied in sequence: trust = clamp(C0 + sum of deltas) (memory/confidence.py)
    as_of = datetime.now(UTC) + timedelta(minutes=5)
    live = app.trust_of(["target"], as_of=as_of)["target"]
    no_feedback = _app(tmp_path / "baseline")
    no_feedback.ingest_records([{"id": "target", "text": "The rate limit is 100 requests per minute.",
                                 "authority": 0.5, "created_at": "2026-11-01", "kind": "STATIC",
                                 "doc_type": "reference"}], now=NOW)
    base = no_feedback.trust_of(["target"], as_of=as_of)["target"]
    total = 146 * DEFAULT_CONFIDENCE.accept_delta + 54 * DEFAULT_CONFIDENCE.correct_delta
    expected = float(np.clip(base + total, DEFAULT_CONFIDENCE.floor, DEFAULT_CONFIDENCE.ceiling))
    assert live == pytest.approx(expected, abs=1e-9)


def test_overlapping_ingests_from_3_processes_leave_no_duplicate_rows(tmp_path):
    store = tmp_path / "store"
    assert _app(store).store.count_chunks() == 0  # create the tables once
    files = []
    for w in range(3):  # ids 0..59 in every file, plus 20 of each process's own; same texts for shared ids
        rows = [{"id": f"shared{i}", "text": f"Shared document {i}.\n\nIt has a second paragraph number {i}.",
                 "created_at": "2025-01-01"} for i in range(60)]
        rows += [{"id": f"own{w}_{i}", "text": f"Own document {w} {i}.", "created_at": "2025-01-01"}
                 for i in range(20)]
        path = tmp_path / f"c{w}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        files.append(path)
    procs = [subprocess.Popen([sys.executable, "-c", INGESTER, str(store), str(f)], cwd=REPO,
                              env=subprocess_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for f in files]
    for p in procs:
        assert p.wait(timeout=900) == 0, p.stderr.read()
    app = _app(store)
    rows = app.store.chunks_for_docs([f"shared{i}" for i in range(60)] + [f"own{w}_{i}" for w in range(3)
                                                                          for i in range(20)], current_only=False)
    chunk_ids = rows.column("chunk_id").to_pylist()
    from smartvector_core.ingest.chunking import chunk_document

    texts = {r["id"]: r["text"] for f in files for r in map(json.loads, f.read_text().splitlines())}
    expected = sorted(c.chunk_id for d, t in texts.items() for c in chunk_document(d, t))
    assert sorted(chunk_ids) == expected and len(chunk_ids) == len(set(chunk_ids))
    assert app.store.count_chunks(current_only=False) == len(expected)
    assert app.stats()["documents"] == 120
    ingests = app.store.events().to_pandas()
    ingests = ingests[ingests["event_type"] == "INGEST"]
    assert ingests["doc_id"].is_unique  # each shared id was new to exactly one writer


PRINTER = """
import sys
from smartvector_core.cli import main
store, doc, verdicts, worker = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
for n, verdict in enumerate(verdicts.split(",")):
    assert main(["--store", store, "feedback", doc, verdict, "--query-id", f"p{worker}-{n}", "--json"]) == 0
"""


def test_concurrent_feedback_before_and_after_are_atomic_with_the_write(tmp_path):
    """Each command's "before -> after" is the change its own event made: the (before, after)
    pairs of 4 processes x 8 commands chain into one sequence from the initial trust to the final
    one (every "before" is the initial value or another command's "after"), each step one delta
    (clamped). Without the lock two commands read one "before" and one reports both deltas."""
    store = tmp_path / "store"
    app = _app(store)
    app.ingest_records([{"id": "target", "text": "The rate limit is 100 requests per minute.", "authority": 0.5,
                         "created_at": "2026-11-01", "kind": "STATIC", "doc_type": "reference"}], now=NOW)
    initial = app.trust_of(["target"], as_of=datetime.now(UTC))["target"]
    plans = [["accept", "accept", "correct", "accept"] * 2] * 4
    procs = [subprocess.Popen([sys.executable, "-c", PRINTER, str(store), "target", ",".join(plan), str(w)],
                              cwd=REPO, env=subprocess_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for w, plan in enumerate(plans)]
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=900)
        assert p.returncode == 0, err
        outs += [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert len(outs) == 32
    final = _app(store).trust_of(["target"], as_of=datetime.now(UTC))["target"]
    befores = Counter(round(o["trust_before"], 9) for o in outs)
    afters = Counter(round(o["trust_after"], 9) for o in outs)
    # one chain: every "before" is another command's "after", except the first command's
    assert befores - afters == Counter({round(initial, 9): 1}) and afters - befores == Counter({round(final, 9): 1})
    for o in outs:
        delta = DEFAULT_CONFIDENCE.accept_delta if o["verdict"] == "accept" else DEFAULT_CONFIDENCE.correct_delta
        expected = float(np.clip(o["trust_before"] + delta, DEFAULT_CONFIDENCE.floor, DEFAULT_CONFIDENCE.ceiling))
        assert o["trust_after"] == pytest.approx(expected, abs=1e-9)  # its own event, nobody else's
