"""Feedback is idempotent per (query, document, actor) and undone by an appended reversing event;
the query log can be written in the background without losing a row (real LanceDB, hashing model)."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest

from smartvector_core.errors import InputError
from smartvector_core.service import SmartVector
from smartvector_core.settings import load_settings
from tests.conftest import NOW
from tests.ui.conftest import seed_store


@pytest.fixture
def sv(tmp_path) -> SmartVector:
    return seed_store(tmp_path / "store")


def _events(sv: SmartVector, doc_id: str, etype: str) -> int:
    events = sv.events_frame(doc_id)
    return int((events["event_type"] == etype).sum()) if len(events) else 0


def _with_dependents(sv: SmartVector) -> tuple[str, list[str]]:
    """A document with dependents, all well above the confidence floor (so a penalty shows)."""
    docs = sv.documents_frame(as_of=NOW)
    conf = dict(zip(docs["id"], docs["trust"], strict=True))
    for doc in sorted(conf, key=lambda d: (-conf[d], d)):
        dependents = [step["doc_id"] for step in sv.ripple_preview(doc)]
        if dependents and min(conf[d] for d in [doc, *dependents]) > 0.2:
            return doc, dependents
    raise AssertionError("the demo corpus has a document with dependents")


def test_the_same_verdict_twice_is_recorded_once(sv):
    first = sv.feedback("policy_v2", "accept", now=NOW, query_id="q1", actor="dashboard")
    again = sv.feedback("policy_v2", "accept", now=NOW + timedelta(seconds=5), query_id="q1", actor="dashboard")
    assert first["recorded"] and not again["recorded"]
    assert again["trust_after"] == pytest.approx(first["trust_after"])
    assert _events(sv, "policy_v2", "FEEDBACK_ACCEPT") == 1
    # another query or another operator is another verdict
    assert sv.feedback("policy_v2", "accept", now=NOW, query_id="q2", actor="dashboard")["recorded"]
    assert sv.feedback("policy_v2", "accept", now=NOW, query_id="q1", actor="cli")["recorded"]
    assert _events(sv, "policy_v2", "FEEDBACK_ACCEPT") == 3
    assert sv.standing_verdicts("q1", "dashboard") == {"policy_v2": "accept"}


def test_undo_of_a_correction_reverses_it_and_its_ripple_by_appending(sv):
    doc, dependents = _with_dependents(sv)
    later = NOW + timedelta(minutes=1)
    before = sv.trust_of([doc, *dependents], as_of=later)
    events_before = len(sv.events_frame())
    out = sv.feedback(doc, "correct", now=NOW, query_id="q1", actor="dashboard")
    assert out["rippled"]
    hit = sv.trust_of([doc, *dependents], as_of=later)
    assert hit[doc] < before[doc] and all(hit[d] < before[d] for d in dependents)
    undo = sv.feedback_undo(doc, now=later, query_id="q1", actor="dashboard")
    assert undo["undone"] == "correct" and undo["ripple_reversed"] == len(dependents)
    after = sv.trust_of([doc, *dependents], as_of=later)
    assert after == pytest.approx(before)
    # nothing deleted: the verdict, its ripple and their reversals are all in the history
    assert len(sv.events_frame()) == events_before + 2 * (1 + len(dependents))
    assert _events(sv, doc, "FEEDBACK_CORRECT") == 1 and _events(sv, doc, "FEEDBACK_UNDO") == 1
    # the past is reproduced: between the correction and its undo the penalty stood
    assert sv.trust_of([doc], as_of=NOW + timedelta(seconds=30))[doc] == pytest.approx(
        hit[doc], abs=1e-6)
    assert sv.standing_verdicts("q1", "dashboard") == {}
    with pytest.raises(InputError, match="to undo"):
        sv.feedback_undo(doc, now=later, query_id="q1", actor="dashboard")
    # after an undo the same verdict may be given again
    assert sv.feedback(doc, "correct", now=later, query_id="q1", actor="dashboard")["recorded"]


def test_a_changed_mind_undoes_the_standing_verdict_first(sv):
    base = sv.trust_of(["policy_v2"], as_of=NOW)["policy_v2"]
    sv.feedback("policy_v2", "accept", now=NOW, query_id="q1", actor="dashboard")
    out = sv.feedback("policy_v2", "correct", now=NOW, query_id="q1", actor="dashboard")
    assert out["recorded"] and out["replaced"] == "accept"
    assert sv.standing_verdicts("q1", "dashboard") == {"policy_v2": "correct"}
    assert _events(sv, "policy_v2", "FEEDBACK_UNDO") == 1          # the accept was reversed, not deleted
    assert out["trust_after"] < base
    sv.feedback_undo("policy_v2", now=NOW, query_id="q1", actor="dashboard")
    assert sv.trust_of(["policy_v2"], as_of=NOW)["policy_v2"] == pytest.approx(base, abs=1e-9)


def test_undone_verdicts_leave_the_calibration_data(sv):
    response = sv.query("API rate limits", as_of=NOW, asked_at=NOW)
    top = response.results[0].id
    sv.feedback(top, "accept", now=NOW, query_id=response.query_id, actor="dashboard")
    assert sv.feedback_reliability()["n"] == 1
    sv.feedback_undo(top, now=NOW, query_id=response.query_id, actor="dashboard")
    assert sv.feedback_reliability()["n"] == 0


def test_background_log_loses_no_query(tmp_path):
    store = tmp_path / "store"
    seed_store(store)
    sv = SmartVector(load_settings(str(store), env={"SMARTVECTOR_MODEL": "hashing"}))
    sv.write_log_in_background(delay_s=0.2)
    ids = [sv.query(f"API rate limits {i}", as_of=NOW, asked_at=NOW).query_id for i in range(5)]
    assert set(ids) <= set(sv.query_log()["query_id"])          # a read settles what is pending
    ids += [sv.query("refund window", as_of=NOW, asked_at=NOW).query_id]
    deadline = time.monotonic() + 10
    other = SmartVector(load_settings(str(store), env={"SMARTVECTOR_MODEL": "hashing"}))
    while time.monotonic() < deadline and ids[-1] not in set(other.store.queries()["query_id"].to_pylist()):
        time.sleep(0.05)
    logged = other.store.queries().column("query_id").to_pylist()
    assert sorted(set(ids) & set(logged)) == sorted(ids) and len(logged) == len(set(logged))
    access = other.events_frame()
    assert set(access.loc[access["event_type"] == "ACCESS", "query_id"]) >= set(ids)


def _blocking_log_write(sv: SmartVector, monkeypatch) -> tuple:
    """The store's query-log write, held until ``release`` is set; ``entered`` is set once a
    flush is inside it."""
    import threading

    entered, release = threading.Event(), threading.Event()
    write = sv.store.log_queries

    def held(rows):
        entered.set()
        assert release.wait(20)
        return write(rows)
    monkeypatch.setattr(sv.store, "log_queries", held)
    return entered, release


def test_a_query_does_not_wait_for_the_log_being_written(tmp_path, monkeypatch):
    """A flush writes outside the log's lock: while LanceDB commits the log (here: held), a
    query still appends its row and returns, and the rows of both reach the store."""
    import threading

    sv = seed_store(tmp_path / "store")
    sv.write_log_in_background(delay_s=0.0)
    entered, release = _blocking_log_write(sv, monkeypatch)
    first = sv.query("API rate limits", as_of=NOW, asked_at=NOW).query_id
    assert entered.wait(20)                                  # the writer thread is inside the commit
    done = threading.Event()
    second: list[str] = []
    asker = threading.Thread(target=lambda: (second.append(sv.query("refund window", as_of=NOW, asked_at=NOW).query_id),
                                             done.set()))
    asker.start()
    answered_while_held = done.wait(20)
    release.set()
    asker.join(20)
    assert answered_while_held
    assert {first, *second} <= set(sv.query_log()["query_id"])


def test_rows_of_a_failed_log_write_stay_first_in_line(tmp_path, monkeypatch):
    sv = seed_store(tmp_path / "store")
    sv.write_log_in_background(delay_s=60.0)                # the writer thread does not flush here
    ids = [sv.query(f"API rate limits {i}", as_of=NOW, asked_at=NOW).query_id for i in range(2)]
    monkeypatch.setattr(sv.store, "log_queries", lambda rows: (_ for _ in ()).throw(OSError("disk full")))
    with pytest.raises(OSError):
        sv.log.flush()
    later = sv.query("refund window", as_of=NOW, asked_at=NOW).query_id
    assert [r["query_id"] for r in sv.log.pending_queries] == [*ids, later]
    assert sv.pending_log_rows() >= 3
    monkeypatch.undo()
    sv.log.flush()
    assert sv.store.queries().column("query_id").to_pylist() == [*ids, later]
