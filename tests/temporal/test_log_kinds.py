"""Logs (release notes, changelog entries, minutes, incident reports) are records of their own
moment: EVENT with a log doc type, never versions of one document (issue 14, item 2)."""

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from smartvector_core.config import decay_profile
from smartvector_core.ingest.classify import classify
from smartvector_core.models import Document
from smartvector_core.models import DocumentKind as K
from smartvector_core.temporal.kinds import (
    LOG_DOC_TYPES,
    infer_doc_type,
    infer_kind,
    is_log_record,
    log_record_type,
)

REQUESTS_ENTRY = "2.31.0 (2023-05-22)\n-------------------\n\n**Security**\n- Versions of Requests ..."
PALLETS_ENTRY = "Version 3.1.0\n-------------\n\nReleased 2024-11-13\n\n-   Drop support for Python 3.8."
ATTRS_ENTRY = "## 24.3.0 - 2024-12-16\n\n### Changes\n\n- Introduce `attrs.NothingType`."
MINUTES = "Attendees: Ana, Bo\nAgenda: budget\nAction items: Bo sends the draft"
INCIDENT = "Summary\nCheckout was down.\n\nImpact:\n12% of orders failed.\n\nRoot cause:\nAn expired certificate."


@pytest.mark.parametrize(("doc_type", "title", "text", "log_type", "evidence"), [
    ("release_notes", "", "", "release_notes", "doc type release_notes"),
    ("Changelog", "", "", "changelog", "doc type changelog"),
    ("postmortem", "", "", "incident_report", "doc type postmortem"),
    ("minutes", "", "", "meeting_minutes", "doc type minutes"),
    (None, "Release notes 3.5.5", "", "release_notes", "'Release notes' in title"),
    (None, "Node.js 20.19.0 release", "", "release_notes", "in title"),
    (None, "What's new in Python 3.13", "", "release_notes", "in title"),
    (None, "Flask changelog", "", "changelog", "'changelog' in title"),
    (None, "CHANGES.rst", "", "changelog", "in title"),
    (None, "Minutes of the board meeting, 3 March", "", "meeting_minutes", "'Minutes of' in title"),
    (None, "Weekly meeting notes", "", "meeting_minutes", "in title"),
    (None, "Incident report: checkout outage", "", "incident_report", "'Incident report' in title"),
    (None, "Post-mortem of the 2 May outage", "", "incident_report", "in title"),
    (None, "", REQUESTS_ENTRY, "release_notes", "release heading '2.31.0 (2023-05-22)' opens the text"),
    (None, "", PALLETS_ENTRY, "release_notes", "release heading 'Version 3.1.0' opens the text"),
    (None, "", ATTRS_ENTRY, "release_notes", "release heading '## 24.3.0 - 2024-12-16' opens the text"),
    (None, "Board", MINUTES, "meeting_minutes", "minutes cues"),
    (None, "Checkout", INCIDENT, "incident_report", "incident cues"),
])
def test_log_records_found_with_evidence(doc_type, title, text, log_type, evidence):
    got = log_record_type(doc_type, title, text)
    assert got is not None and got[0] == log_type
    assert evidence in got[1]
    assert is_log_record(doc_type, title, text)


@pytest.mark.parametrize(("doc_type", "title", "text"), [
    (None, "API rate limit policy", "The API allows 100 requests per minute."),
    (None, "Rate limit policy v2", "Version 2 of the policy."),
    (None, "Guide, Version 3", "How to deploy."),
    (None, "Outage report", "The API was down."),                  # no log wording: left as before
    ("policy", "Release notes 3.5.5", REQUESTS_ENTRY),             # a declared non-log type wins
    (None, "Configuration Handling", "Applications need configuration. Released under BSD."),
    (None, "Incident response policy", "Impact: high.\nEscalate to on-call."),   # one cue is not enough
    (None, "Python 3.12", "Python 3.12 is fast."),
])
def test_other_documents_are_not_logs(doc_type, title, text):
    assert log_record_type(doc_type, title, text) is None
    assert not is_log_record(doc_type, title, text)


def test_release_entry_with_a_version_is_an_event_not_a_version():
    kind, why = infer_kind("Flask changelog", PALLETS_ENTRY, version="3.1.0")
    assert kind == K.EVENT
    assert why == "inferred EVENT: a changelog entry, a record of its own moment ('changelog' in title)"
    # explicit replacement evidence still makes a version
    kind, why = infer_kind("Flask changelog", PALLETS_ENTRY, supersedes=("flask-3.0.3",))
    assert kind == K.VERSIONED


def test_version_like_title_without_log_wording_stays_versioned():
    assert infer_kind("Rate limit policy 2.1.0", "The API allows 500 requests.")[0] == K.VERSIONED


def test_doc_type_inferred_for_logs():
    assert infer_doc_type("Release notes 3.5.5", "Fixes.") == ("release_notes", "inferred release_notes: "
                                                                "'Release notes' in title")
    assert infer_doc_type("", INCIDENT)[0] == "incident_report"
    # an incident report is not breaking news (1-day half-life): the log rule comes first
    assert infer_doc_type("Incident report: API outage", "")[0] == "incident_report"


def test_log_doc_types_have_their_own_decay_profiles():
    for name in LOG_DOC_TYPES:
        profile = decay_profile(name)
        assert profile.name == name
    assert decay_profile("release_notes").half_life_days > decay_profile("incident_report").half_life_days
    assert decay_profile("release_notes").temporal_weight < decay_profile("news").temporal_weight


def test_classify_shows_the_inference_for_a_changelog_entry():
    doc = Document(id="flask-3.1.0", text=PALLETS_ENTRY, created_at=datetime(2024, 11, 13, tzinfo=UTC),
                   title="Flask changelog", version="3.1.0")
    kind, kind_reason, doc_type, type_reason = classify(doc)
    assert (kind, doc_type) == (K.EVENT, "changelog")
    assert "record of its own moment" in kind_reason and "changelog" in type_reason


def test_every_entry_of_the_real_changelog_set_is_a_log_record():
    path = Path(__file__).resolve().parents[2] / "data" / "real" / "changelogs" / "corpus.jsonl"
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    # the title alone, and the text alone, are each enough evidence
    assert all(is_log_record(None, r["title"], "") for r in records)
    assert all(is_log_record(None, "", r["text"]) for r in records)


@pytest.mark.parametrize(("doc_type", "title", "series"), [
    ("release_notes", "Larkspur SDK 3.0.0 release notes", "larkspur sdk release notes"),
    ("release_notes", "Larkspur SDK v2.8 release notes", "larkspur sdk release notes"),
    ("changelog", "Flask changelog", "flask changelog"),
    ("release_note", "Node.js 20.19.0 release notes", "node.js release notes"),   # an alias
    ("policy", "API rate limit policy v3", ""),                                   # no release record
    ("meeting_minutes", "Minutes of the board", ""),                              # a log, no release
    (None, "Flask changelog", ""),                                                # the doc type decides
])
def test_release_series(doc_type, title, series):
    from smartvector_core.temporal.kinds import release_series
    assert release_series(doc_type, title) == series
