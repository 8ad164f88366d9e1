"""One trust value everywhere: query results, the paper profile's confidence signal, the
documents frame, the feedback message and the trust history agree (DESIGN.md "Trust model")."""

from __future__ import annotations

from datetime import timedelta

import pytest

from .conftest import NOW

CORPUS = [
    {"id": "limits_v1", "title": "Rate limits", "text": "API calls are limited to 100 requests per minute.",
     "created_at": "2026-09-01T00:00:00Z", "kind": "VERSIONED", "doc_type": "policy"},
    {"id": "limits_v2", "title": "Rate limits", "text": "API calls are limited to 300 requests per minute.",
     "created_at": "2026-11-01T00:00:00Z", "kind": "VERSIONED", "doc_type": "policy", "supersedes": "limits_v1"},
    {"id": "sdk", "text": "The SDK backs off when it hits the request limit.", "created_at": "2026-11-10T00:00:00Z"},
]


def test_trust_is_one_value_wherever_it_is_shown(fake_app):
    fake_app.ingest_records(CORPUS, now=NOW, consolidate=False)
    later = NOW + timedelta(days=400)               # age alone never lowers a valid version's trust
    for profile in ("default", "smartvector", "temporal", "naive"):
        resp = fake_app.query("requests per minute limit", as_of=later, profile=profile, k=3, log=False)
        shown = fake_app.trust_of([r.id for r in resp.results], as_of=later)
        frame = fake_app.documents_frame(as_of=later).set_index("id")["trust"]
        for r in resp.results:
            if r.id != "limits_v1":                 # superseded: only the gated profiles keep it out
                assert r.trust == pytest.approx(shown[r.id]) == pytest.approx(frame[r.id])
            if profile == "smartvector":
                assert r.signals["confidence"].value == pytest.approx(r.trust)
    assert fake_app.trust_of(["limits_v2"], as_of=later)["limits_v2"] == pytest.approx(0.70)
    assert fake_app.trust_of(["limits_v1"], as_of=later)["limits_v1"] == pytest.approx(0.35)   # superseded

    out = fake_app.feedback("limits_v2", "accept", now=later)
    assert out["trust_before"] == pytest.approx(0.70) and out["trust_after"] == pytest.approx(0.73)
    history = fake_app.trust_history("limits_v2", until=later)
    assert history["trust"].iloc[-1] == pytest.approx(out["trust_after"])
    assert history["trust"].iloc[0] == pytest.approx(0.70)


def test_confidence_never_rises_down_the_result_list(fake_app):
    fake_app.ingest_records(CORPUS, now=NOW, consolidate=False)
    later = NOW + timedelta(days=400)
    for question in ("requests per minute limit", "what did the SDK do at the limit?", "rate limits in 2026"):
        for profile in ("default", "smartvector", "temporal", "naive"):
            resp = fake_app.query(question, as_of=later, profile=profile, k=3, log=False)
            shown = [r.confidence for r in resp.results]
            assert shown == sorted(shown, reverse=True), (question, profile, shown)
