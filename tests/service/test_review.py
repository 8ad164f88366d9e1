"""The review queue: both sides shown, no silent accept, undo of a resolution (hashing model)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from smartvector_core.config.consolidation import DEFAULT_CONSOLIDATION
from tests.conftest import NOW

MINUTE = timedelta(minutes=1)


@pytest.fixture
def contested(fake_app):
    fake_app.ingest_records([
        {"id": "kb_a", "text": "Password resets are allowed for contractors.", "source": "wiki", "authority": 0.4,
         "created_at": "2026-11-01T00:00:00Z", "doc_type": "reference", "kind": "STATIC", "title": "Wiki"},
        {"id": "kb_b", "text": "Password resets are not allowed for contractors.", "source": "security",
         "authority": 0.9, "created_at": "2026-11-02T00:00:00Z", "doc_type": "reference", "kind": "STATIC",
         "title": "Security policy"},
    ], now=NOW)
    queue = fake_app.review_queue()
    assert len(queue) == 1
    return fake_app, queue.iloc[0]


def test_both_sides_with_text_source_trust_and_dates(contested):
    app, edge = contested
    sides = app.contradiction_sides(edge["edge_id"], as_of=NOW)
    assert [s["id"] for s in sides] == [edge["src"], edge["dst"]]
    by_id = {s["id"]: s for s in sides}
    assert by_id["kb_a"]["text"] == "Password resets are allowed for contractors."
    assert by_id["kb_a"]["source"] == "wiki" and by_id["kb_b"]["created_at"].startswith("2026-11-02")
    assert by_id["kb_a"]["trust"] == pytest.approx(app.trust_of(["kb_a"], as_of=NOW)["kb_a"])


def test_keeping_one_corrects_the_other_and_accepts_nothing_unless_asked(contested):
    app, edge = contested
    keep = "keep_src" if edge["src"] == "kb_b" else "keep_dst"
    before = app.trust_of(["kb_a", "kb_b"], as_of=NOW)
    out = app.resolve_contradiction(edge["edge_id"], keep, now=NOW + MINUTE, actor="ana")
    assert out["corrected"]["id"] == "kb_a" and "accepted" not in out
    assert app.trust_of(["kb_b"], as_of=NOW + MINUTE)["kb_b"] == pytest.approx(before["kb_b"])
    assert not app.review_queue().shape[0]


def test_a_resolution_is_undone_and_can_be_made_again(contested):
    app, edge = contested
    keep = "keep_src" if edge["src"] == "kb_b" else "keep_dst"
    penalised, official = app.trust_of(["kb_a", "kb_b"], as_of=NOW).values()
    app.resolve_contradiction(edge["edge_id"], keep, now=NOW + MINUTE, actor="ana", confirm_kept=True)
    assert app.trust_of(["kb_b"], as_of=NOW + MINUTE)["kb_b"] > official   # the explicit accept
    out = app.reopen_contradiction(edge["edge_id"], now=NOW + 2 * MINUTE, actor="ana")
    assert out["reopened"] == keep and len(out["undone"]) == 2
    back = app.trust_of(["kb_a", "kb_b"], as_of=NOW + 2 * MINUTE)
    assert back["kb_a"] == pytest.approx(penalised) and back["kb_b"] == pytest.approx(official)
    assert list(app.review_queue()["edge_id"]) == [edge["edge_id"]]
    # resolved again: settled again (the reopened penalty is reversed too)
    app.resolve_contradiction(edge["edge_id"], "keep_both", now=NOW + 3 * MINUTE, actor="ana")
    assert app.trust_of(["kb_a"], as_of=NOW + 3 * MINUTE)["kb_a"] == pytest.approx(
        penalised + abs(DEFAULT_CONSOLIDATION.contradiction_delta))
    app.resolve_contradiction(edge["edge_id"], "supersede_dst", now=NOW + 4 * MINUTE)
    with pytest.raises(ValueError, match="expected a contradiction resolved by"):
        app.reopen_contradiction(edge["edge_id"], now=NOW + 5 * MINUTE)
