"""Archive and unarchive through the command line, on a real LanceDB store in a temp dir."""

from __future__ import annotations

import json

import pytest

from smartvector_core.clock import parse_time
from smartvector_core.models import Lifecycle
from tests.conftest import write_jsonl

CORPUS = [
    {"id": "refunds", "title": "Refund policy", "text": "Customers may request a refund within 30 days.",
     "created_at": "2026-01-01T00:00:00Z", "kind": "VERSIONED", "doc_type": "policy", "source": "official"},
    {"id": "refund_faq", "title": "Refund FAQ", "text": "A refund request within 30 days is granted.",
     "created_at": "2026-02-01T00:00:00Z", "doc_type": "reference", "source": "faq"},
    {"id": "limits_v1", "title": "Rate limits", "text": "API calls are limited to 100 requests per minute.",
     "created_at": "2026-03-01T00:00:00Z", "kind": "VERSIONED", "doc_type": "policy"},
    {"id": "limits_v2", "title": "Rate limits", "text": "API calls are limited to 300 requests per minute.",
     "created_at": "2026-04-01T00:00:00Z", "kind": "VERSIONED", "doc_type": "policy", "supersedes": "limits_v1"},
]


BEFORE_ARCHIVE = "2026-06-01T00:00:00Z"   # after the corpus was written, before the test runs


@pytest.fixture
def loaded(cli, tmp_path):
    code, _, err = cli("ingest", str(write_jsonl(tmp_path / "c.jsonl", CORPUS)))
    assert code == 0, err
    return cli


def _answer_ids(cli, question: str, *extra: str) -> tuple[list[str], dict]:
    code, out, err = cli("query", question, "--json", "--k", "5", *extra)
    assert code == 0, err
    line = json.loads(out)
    return [r["id"] for r in line["results"]], line


def test_archive_takes_a_document_out_of_answers_and_unarchive_brings_it_back(loaded):
    before, _ = _answer_ids(loaded, "refund within 30 days")
    assert "refunds" in before
    code, out, err = loaded("archive", "refunds", "--reason", "replaced by the FAQ", "--json")
    assert code == 0, err
    moved = json.loads(out)
    assert moved["from"] in (Lifecycle.ACTIVE, Lifecycle.DORMANT) and moved["lifecycle"] == "ARCHIVED"
    assert moved["actor"] == "cli"
    after, line = _answer_ids(loaded, "refund within 30 days")
    assert "refunds" not in after and "refund_faq" in after
    assert [r["rank"] for r in line["results"]] == list(range(1, len(after) + 1))
    archived = [r for r in line["rejections"] if r["id"] == "refunds"]
    assert archived and archived[0]["code"] == "ARCHIVED" and "replaced by the FAQ" in archived[0]["reason"]
    assert archived[0]["reason"].startswith("archived by cli on ")
    assert line["rejections"][0]["id"] == "refunds"          # an operator's archive is listed first
    # the rerank gate holds under every profile, cosine only too
    plain, plain_line = _answer_ids(loaded, "refund within 30 days", "--profile", "naive")
    assert "refunds" not in plain and "refunds" in {r["id"] for r in plain_line["rejections"]}
    assert json.loads(loaded("stats", "--json")[1])["by_lifecycle"]["ARCHIVED"] >= 1

    # a question about a moment before the archive still sees it (time is a parameter)
    assert parse_time(moved["at"]) > parse_time(BEFORE_ARCHIVE)
    earlier, _ = _answer_ids(loaded, "refund within 30 days", "--as-of", BEFORE_ARCHIVE)
    assert "refunds" in earlier

    code, out, err = loaded("unarchive", "refunds")
    assert code == 0 and "ARCHIVED -> ACTIVE" in out, err
    again, _ = _answer_ids(loaded, "refund within 30 days")
    assert "refunds" in again


def test_archive_and_unarchive_are_appended_events_with_their_actor(loaded, fake_app):
    assert loaded("archive", "refund_faq")[0] == 0
    assert loaded("unarchive", "refund_faq")[0] == 0
    events = fake_app.events_frame("refund_faq")
    moves = events[events["event_type"] == "LIFECYCLE"].sort_values("at")
    operator = moves[[json.loads(d).get("operator") is True for d in moves["detail"]]]
    assert [json.loads(d)["to"] for d in operator["detail"]] == ["ARCHIVED", "ACTIVE"]
    assert list(operator["actor"]) == ["cli", "cli"]
    assert fake_app.store.chunks_for_docs(["refund_faq"]).num_rows   # nothing deleted


@pytest.mark.parametrize("args, expected", [
    (("archive", "nope"), "no document with id 'nope'"),
    (("unarchive", "refunds"), "is not archived"),
    (("unarchive", "limits_v1"), "superseded"),
])
def test_bad_archive_requests_exit_2_with_one_line(loaded, args, expected):
    if args[1] == "limits_v1":
        assert loaded("consolidate")[0] == 0
        state = json.loads(loaded("stats", "--json")[1])["by_lifecycle"]
        assert state.get("ARCHIVED")   # consolidation archived the superseded version
    code, out, err = loaded(*args)
    assert code == 2 and expected in err and len(err.strip().splitlines()) == 1 and not out


def test_archiving_twice_is_refused(loaded):
    assert loaded("archive", "refunds")[0] == 0
    code, _, err = loaded("archive", "refunds")
    assert code == 2 and "archived already" in err


def test_archived_at_reads_the_latest_operator_move_at_each_moment():
    import pandas as pd

    from smartvector_core.memory.archive import archived_at, operator_moves

    events = pd.DataFrame({
        "doc_id": ["a", "a", "b", "c"], "event_type": ["LIFECYCLE"] * 4, "at_us": [10, 20, 15, 5],
        "actor": ["ana", "ana", "bo", "consolidation"], "query_id": [""] * 4, "delta": [0.0] * 4,
        "detail": ['{"from": "ACTIVE", "operator": true, "reason": "old", "to": "ARCHIVED"}',
                   '{"from": "ARCHIVED", "operator": true, "reason": "back", "to": "ACTIVE"}',
                   '{"from": "ACTIVE", "operator": true, "reason": "", "to": "ARCHIVED"}',
                   '{"from": "ACTIVE", "reason": "superseded by a newer version", "to": "ARCHIVED"}']})
    moves = operator_moves(events)
    assert set(archived_at(moves, 12)) == {"a"} and archived_at(moves, 12)["a"].reason == "old"
    assert set(archived_at(moves, 25)) == {"b"}              # a was unarchived at 20; c is supersession's
    assert archived_at(moves, 9) == {}
    # appended out of order (a tail scanned later): the moment decides, not the row order
    assert set(archived_at(pd.concat([moves.iloc[1:], moves.iloc[:1]], ignore_index=True), 25)) == {"b"}
