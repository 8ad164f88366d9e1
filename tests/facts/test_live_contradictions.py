"""End to end with the real model: different services' policies never contradict each other;
a true same-subject contradiction is queued, only its less trusted side pays, and a supersession
settles it by an appended reversal (issue 13 item 3; DESIGN.md "Trust model")."""

from __future__ import annotations

from datetime import timedelta

import pytest

from ..conftest import NOW

DAY = timedelta(days=1)
SERVICES = [("orders", "Orders API", 5000), ("mail", "Mail Gateway", 1000), ("search", "Search API", 2000),
            ("billing", "Billing API", 300), ("auth", "Auth Service", 800)]


def policy(key: str, name: str, calls: int) -> dict:
    return {"id": f"{key}_limits", "title": f"{name} rate limits", "kind": "VERSIONED", "doc_type": "policy",
            "source": "official", "authority": 0.9, "created_at": (NOW - 30 * DAY).isoformat(),
            "text": f"The {name} accepts {calls} calls a minute per client. Clients above the limit receive "
                    f"HTTP 429 and should retry after 60 seconds."}


def synthetic(i: int) -> dict:
    return {"id": f"doc_{i}", "title": f"Document {i}", "created_at": (NOW - 10 * DAY).isoformat(),
            "text": f"Document number {i} about topic {20 + i % 3} with words alpha beta gamma delta."}


def edges_of(app, edge_type: str = "CONTRADICTS"):
    edges = app.edges_frame()
    return edges[edges["edge_type"] == edge_type] if len(edges) else edges


@pytest.mark.slow
def test_no_contradiction_across_subjects_and_a_true_one_is_found_and_settled(real_app):
    rumour = {"id": "forum_orders", "title": "Forum: Orders API limits", "kind": "VERSIONED", "doc_type": "policy",
              "source": "forum", "authority": 0.4, "created_at": (NOW - 2 * DAY).isoformat(),
              "text": "Heads up from the forum: the Orders API only accepts 500 calls a minute per client."}
    records = [policy(*s) for s in SERVICES] + [synthetic(i) for i in range(1, 18)] + [rumour]
    real_app.ingest_records(records, now=NOW - DAY, consolidate=False)
    before = real_app.trust_of(["orders_limits", "forum_orders"], as_of=NOW)
    real_app.consolidate(now=NOW)

    found = edges_of(real_app)
    pairs = {frozenset((s, d)) for s, d in zip(found["src"], found["dst"], strict=True)}
    assert pairs == {frozenset({"orders_limits", "forum_orders"})}, found[["src", "dst", "evidence"]]
    assert "5000 calls a minute" in found["evidence"].iloc[0] and "500 calls a minute" in found["evidence"].iloc[0]
    after = real_app.trust_of(["orders_limits", "forum_orders"], as_of=NOW)
    assert after["orders_limits"] == pytest.approx(before["orders_limits"])          # the trusted side keeps it
    assert after["forum_orders"] == pytest.approx(before["forum_orders"] - 0.05)

    # a newer forum post replaces the rumour: the supersession settles the pair
    correction = {**rumour, "id": "forum_orders_v2", "supersedes": "forum_orders", "created_at": NOW.isoformat(),
                  "text": "Correction from the forum: the Orders API accepts 5000 calls a minute per client."}
    real_app.ingest_records([correction], now=NOW + DAY, consolidate=False)
    real_app.consolidate(now=NOW + DAY)
    edge = edges_of(real_app)
    assert edge["status"].tolist() == ["settled:superseded"] and len(real_app.review_queue()) == 0
    settled = real_app.events_frame().query("event_type == 'CONTRADICTION_SETTLED'")
    assert settled["doc_id"].tolist() == ["forum_orders"] and settled["delta"].tolist() == [0.05]
    contradiction = real_app.events_frame().query("event_type == 'CONTRADICTION'")
    assert len(contradiction) == 1                                                     # appended, never deleted
