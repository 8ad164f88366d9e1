"""The reranker's demotions (``retrieval/rerank.py``), through the service: a result that relies
on a replaced version is flagged, in the profile that demotes it and only there (the note is the
demotion's explanation, never written with a ×1.0 demotion)."""

from __future__ import annotations

from dataclasses import replace

from smartvector_core.retrieval.profiles import PROFILES

from ..conftest import NOW

NOTE = "relies on a document that a newer version has replaced"
RECORDS = [
    {"id": "sdk_v1", "title": "SDK install", "kind": "VERSIONED", "doc_type": "reference",
     "created_at": "2026-01-01T00:00:00Z", "text": "Install the SDK with pip install larkspur==1.0."},
    {"id": "sdk_v2", "title": "SDK install", "kind": "VERSIONED", "doc_type": "reference",
     "created_at": "2026-06-01T00:00:00Z", "supersedes": ["sdk_v1"],
     "text": "Install the SDK with pip install larkspur==2.0."},
    {"id": "quickstart", "title": "Quickstart", "kind": "STATIC", "doc_type": "reference",
     "created_at": "2026-02-01T00:00:00Z", "depends_on": ["sdk_v1"],
     "text": "Quickstart: install the SDK, then call the search endpoint with your key."},
]
QUESTION = "Quickstart: install the SDK, then call the search endpoint with your key."


def _quickstart(app, profile):
    resp = app.query(QUESTION, as_of=NOW, profile=profile, log=False)
    return next(r for r in resp.results if r.id == "quickstart")


def test_flagged_and_demoted_in_the_default_profile(fake_app):
    fake_app.ingest_records(RECORDS, now=NOW)
    assert PROFILES["default"].stale_dependency_demotion < 1.0
    r = _quickstart(fake_app, "default")
    assert any(NOTE in reason for reason in r.reasons), r.reasons


def test_no_note_when_the_demotion_is_off(fake_app):
    """The default scorer with the demotion set to ×1.0 (a tuning a store may choose): the
    quickstart keeps its score and gets no note; the note is the demotion's explanation."""
    fake_app.ingest_records(RECORDS, now=NOW)
    off = replace(PROFILES["default"], stale_dependency_demotion=1.0)
    flagged = _quickstart(fake_app, "default")
    plain = _quickstart(fake_app, off)
    assert not any(NOTE in reason for reason in plain.reasons), plain.reasons
    assert plain.score >= flagged.score
