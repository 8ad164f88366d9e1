"""Crash-point sweep: the process is ended (``os._exit``, as ``kill -9`` would) at each commit point
of store creation, ingest, consolidation, feedback and restore, through the test hook
``SMARTVECTOR_CRASH_AT=<point>`` (``Store.crash_point``), not by timing. After each crash the next
command works, and re-running the interrupted command converges to the uninterrupted result:
same documents, chunks, edges and lifecycle states, and the same audit (no event lost, none
doubled). Only the crashing command runs in a subprocess; the others run in-process (fast)."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest

from smartvector_core.cli import main
from smartvector_core.embedding import HashingEmbedder
from smartvector_core.service import SmartVector
from smartvector_core.settings import load_settings

from .helpers import run_cli, store_state

CRASHED = 137   # Store.crash_point's exit status

CREATE_POINTS = [f"store:create:{t}" for t in ("chunks", "edges", "events", "queries")]
INGEST_POINTS = ["ingest:after:edges", "ingest:after:chunks", "ingest:after:events"]
CONSOLIDATE_POINTS = ["consolidate:after:edges", "consolidate:after:events", "lifecycle:after:events"]
RESTORE_POINTS = ["restore:after:chunks", "restore:after:edges"]
FEEDBACK_POINTS = ["feedback:after:events"]
ALL_POINTS = CREATE_POINTS + INGEST_POINTS + CONSOLIDATE_POINTS + RESTORE_POINTS + FEEDBACK_POINTS


def corpus(path: Path, *, edit: bool = False) -> Path:
    """12 documents: two version chains (declared supersedes), dependencies, two that disagree.
    ``edit``: the same ids with three texts changed and one more document (an update run)."""
    rows = []
    for i in range(8):
        rows.append({"id": f"note{i}", "title": f"Note {i}", "created_at": f"2025-0{1 + i % 6}-01",
                     "text": f"Note {i} describes topic {i}. " + " ".join(f"word{(i * 5 + w) % 31}" for w in range(25))
                     + (" Edited paragraph." if edit and i < 3 else "")})
    rows.append({"id": "rules_v1", "title": "Rate rules", "text": "The API allows 100 requests per minute.",
                 "created_at": "2025-01-01", "kind": "VERSIONED", "doc_type": "policy"})
    rows.append({"id": "rules_v2", "title": "Rate rules", "text": "The API allows 200 requests per minute.",
                 "created_at": "2025-06-01", "kind": "VERSIONED", "doc_type": "policy", "supersedes": "rules_v1"})
    rows.append({"id": "guide", "title": "Client guide", "text": "Clients follow the rate rules of the API.",
                 "created_at": "2025-07-01", "depends_on": ["rules_v2"]})
    rows.append({"id": "blog", "title": "Blog", "text": "The API allows 50 requests per minute, says a blog.",
                 "created_at": "2025-07-02", "authority": 0.3})
    if edit:
        rows.append({"id": "extra", "text": "A document added by the update run.", "created_at": "2025-08-01"})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def open_app(store: Path) -> SmartVector:
    return SmartVector(load_settings(str(store), env={}), embedder=HashingEmbedder())


def audit(store: Path) -> Counter:
    """The audit trail as a multiset: (event type, document, what) for every event but ACCESS."""
    events = open_app(store).store.events().to_pylist()
    out: Counter = Counter()
    for e in events:
        if e["event_type"] == "ACCESS":
            continue
        detail = json.loads(e["detail"] or "{}")
        what = (detail.get("from"), detail.get("to")) if e["event_type"] == "LIFECYCLE" else detail.get("verdict")
        out[(e["event_type"], e["doc_id"], what)] += 1
    return out


def crash(store: Path, point: str, *args: str) -> None:
    proc = run_cli(store, *args, SMARTVECTOR_CRASH_AT=point)
    assert proc.returncode == CRASHED, f"{point} not reached by {args}: rc {proc.returncode} {proc.stderr[-500:]}"


def ok(store: Path, *args: str) -> str:
    """The command in this process (hashing model, no crash point); its stdout."""
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as mp, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        mp.setenv("SMARTVECTOR_MODEL", "hashing")
        mp.delenv("SMARTVECTOR_CRASH_AT", raising=False)
        code = main(["--store", str(store), *args])
    assert code == 0, (args, err.getvalue()[-2000:])
    return out.getvalue()


def assert_converged(store: Path, reference: Path) -> None:
    state, ref = store_state(open_app(store)), store_state(open_app(reference))
    for key in ("docs", "chunks", "edges", "lifecycle"):
        assert state[key] == ref[key], key
    assert all(s != "UNCONSOLIDATED" for _, s in state["lifecycle"])
    got, want = audit(store), audit(reference)
    assert got == want, {"missing": want - got, "extra": got - want}


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("crashpoints")
    return {"v1": corpus(root / "v1.jsonl"), "v2": corpus(root / "v2.jsonl", edit=True), "root": root}


@pytest.fixture(scope="module")
def references(files) -> dict[str, Path]:
    """Uninterrupted runs: ingest v1; then ingest v2 over it; then feedback; then a restore."""
    root = files["root"]
    first = root / "ref-ingest"
    ok(first, "ingest", str(files["v1"]))
    update = root / "ref-update"
    shutil.copytree(first, update)
    ok(update, "ingest", str(files["v2"]))
    feedback = root / "ref-feedback"
    shutil.copytree(first, feedback)
    ok(feedback, "feedback", "rules_v2", "correct", "--query-id", "q-crash")
    restore_base = root / "restore-base"
    shutil.copytree(first, restore_base)
    ok(restore_base, "tag", "before-update")
    ok(restore_base, "ingest", str(files["v2"]))
    ok(restore_base, "feedback", "extra", "accept", "--query-id", "q-after-tag")
    ok(restore_base, "query", "rate rules", "--json")
    restored = root / "ref-restore"
    shutil.copytree(restore_base, restored)
    ok(restored, "restore", "--tag", "before-update")
    return {"ingest": first, "update": update, "feedback": feedback, "restore-base": restore_base,
            "restore": restored}


@pytest.mark.parametrize("point", CREATE_POINTS + INGEST_POINTS + CONSOLIDATE_POINTS)
def test_crash_in_first_ingest_then_next_commands_work_and_rerun_converges(files, references, tmp_path, point):
    store = tmp_path / "store"
    crash(store, point, "ingest", str(files["v1"]))
    stats = json.loads(ok(store, "stats", "--json"))  # the store opens: no "Table 'events' was not found"
    assert stats["documents"] in (0, 12)  # each document whole or absent (one batch)
    ok(store, "ingest", str(files["v1"]))
    assert_converged(store, references["ingest"])


@pytest.mark.parametrize("point", INGEST_POINTS + CONSOLIDATE_POINTS)
def test_crash_in_update_ingest_then_rerun_converges_with_update_events(files, references, tmp_path, point):
    store = tmp_path / "store"
    shutil.copytree(references["ingest"], store)
    crash(store, point, "ingest", str(files["v2"]))
    ok(store, "ingest", str(files["v2"]))
    assert_converged(store, references["update"])


@pytest.mark.parametrize("point", CONSOLIDATE_POINTS)
def test_crash_in_consolidate_command_then_rerun_converges(files, tmp_path, point):
    base = tmp_path / "base"
    app = open_app(base)
    from smartvector_core.ingest import read_records

    app.ingest_records(read_records(files["v1"]), now=datetime.now(UTC), consolidate=False)
    reference = tmp_path / "reference"
    shutil.copytree(base, reference)
    ok(reference, "consolidate", "--json")
    crash(base, point, "consolidate", "--json")
    ok(base, "consolidate", "--json")
    assert_converged(base, reference)


def test_crash_in_feedback_then_rerun_records_the_verdict_once(references, tmp_path):
    store = tmp_path / "store"
    shutil.copytree(references["ingest"], store)
    crash(store, "feedback:after:events", "feedback", "rules_v2", "correct", "--query-id", "q-crash")
    ok(store, "feedback", "rules_v2", "correct", "--query-id", "q-crash")
    assert_converged(store, references["feedback"])


@pytest.mark.parametrize("point", RESTORE_POINTS)
def test_crash_in_restore_then_rerun_converges_and_keeps_history(references, tmp_path, point):
    store = tmp_path / "store"
    shutil.copytree(references["restore-base"], store)
    before = audit(store)
    crash(store, point, "restore", "--tag", "before-update")
    ok(store, "stats", "--json")
    ok(store, "restore", "--tag", "before-update")
    assert_converged(store, references["restore"])
    after = audit(store)
    assert after - before == Counter({("RESTORE", "", None): 1})  # nothing lost, the restore recorded once
    assert after[("FEEDBACK_ACCEPT", "extra", "accept")] == 1  # feedback given after the tag survives
    assert open_app(store).store.count_rows("queries") == 1  # so does the query log


def test_every_crash_point_is_swept():
    """The sweep names each hook in the code (a new commit point gets a test, or this fails)."""
    import re

    from .helpers import REPO

    code = "\n".join(p.read_text(encoding="utf-8") for p in (REPO / "smartvector_core").rglob("*.py"))
    found = set(re.findall(r'crash_point\(f?"([a-z:]+)(?:\{[a-z]+\})?"\)', code))
    swept = set(ALL_POINTS) | {"store:create:", "restore:after:"}   # the f-string points, swept per table
    assert found <= swept, found - swept
    assert {"ingest:after:chunks", "consolidate:after:edges", "feedback:after:events"} <= found
