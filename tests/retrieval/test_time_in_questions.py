"""Time in questions and in text, through the query path (hashing embedder: pure logic).

- A period the question names is matched against the periods a passage's text names
  (``content_time``: in the breakdown and the reasons; windowless documents only; it ranks).
- A date the question names moves the moment of judgement, a future one too: an upcoming EVENT
  valid then answers, it is not NOT_YET_VALID.
- An EVENT that ended inside the soft window the question names ("this week") answers it.
- Recency words are not version labels.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from smartvector_core.embedding import HashingEmbedder
from smartvector_core.service import SmartVector
from smartvector_core.settings import load_settings

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)   # a Tuesday


@pytest.fixture
def app(store_dir):
    return SmartVector(load_settings(str(store_dir), env={}), embedder=HashingEmbedder())


def _ask(app, text, **kw):
    return app.query(text, as_of=kw.pop("as_of", NOW), profile=kw.pop("profile", "default"), log=False, **kw)


CAREER = [{"id": f"smit#{i}", "title": "Jan Smit", "doc_type": "reference", "created_at": "2021-02-20T00:00:00Z",
           "text": text} for i, text in enumerate([
               "Jan Smit worked for Leiden University from 2004 to 2005 .",
               "Jan Smit worked for Utrecht University from 2010 to 2014 .",
               "Jan Smit worked for a university ."])]


def test_content_time_ranks_the_passage_naming_the_period(app):
    app.ingest_records(CAREER, now=NOW)
    resp = _ask(app, "Which university did Jan Smit work for from 2004 to 2005?")
    first, second = resp.results[0], resp.results[1]
    assert first.id == "smit#0" and second.id == "smit#1"
    assert first.signals["content_time"].value == pytest.approx(1.0)
    assert second.signals["content_time"].value < 0.1          # 2010-2014 is five years away
    assert any("content time 1.00: its text names 2004–2005 (asked: 2004–2005)" in r for r in first.reasons)
    # the passage naming another period is ranked, never rejected by the period
    assert "smit#1" not in {r.id for r in resp.rejections}


def test_content_time_is_not_applied_to_documents_with_a_validity_window(app):
    app.ingest_records([{**CAREER[0], "id": "windowed", "valid_from": "2020-01-01T00:00:00Z"}], now=NOW)
    resp = _ask(app, "Which university did Jan Smit work for from 2004 to 2005?")
    for result in resp.results:
        assert result.signals.get("content_time") is None or result.signals["content_time"].weight == 0.0


def test_without_a_period_there_is_no_content_time(app):
    app.ingest_records(CAREER, now=NOW)
    resp = _ask(app, "Which university did Jan Smit work for?")
    assert all("content_time" not in r.signals for r in resp.results)


MIGRATION = {"id": "migration", "title": "Planned API migration", "kind": "EVENT", "doc_type": "announcement",
             "created_at": "2026-11-20T00:00:00Z", "valid_from": "2026-12-12T00:00:00Z",
             "valid_until": "2026-12-13T00:00:00Z",
             "text": "The API is available on 12 December only through the new gateway during the planned migration."}
MAINTENANCE = {"id": "maintenance", "title": "Database maintenance", "kind": "EVENT", "doc_type": "announcement",
               "created_at": "2026-11-30T00:00:00Z", "valid_from": "2026-12-01T02:00:00Z",
               "valid_until": "2026-12-01T06:00:00Z",
               "text": "Database maintenance happened this morning: writes were paused for four hours."}


def test_a_future_day_judges_events_at_that_day(app):
    app.ingest_records([MIGRATION], now=NOW)
    resp = _ask(app, "Is the API available on 12 December?")
    assert resp.results and resp.results[0].id == "migration"
    assert "migration" not in {r.id for r in resp.rejections}
    assert resp.intent["judged_at"].startswith("2026-12-12T23:59:59")
    # asked without the date, the same event is not valid yet
    plain = _ask(app, "Is the API available through the new gateway?")
    assert {r.id: r.code.value for r in plain.rejections}.get("migration") == "NOT_YET_VALID"


OUTAGE = {"id": "outage", "title": "Read-only window", "kind": "EVENT", "doc_type": "announcement",
          "created_at": "2026-11-25T00:00:00Z", "valid_from": "2026-12-12T02:00:00Z",
          "valid_until": "2026-12-12T06:00:00Z",
          "text": "On 12 December the API is read-only from 02:00 to 06:00 UTC during the migration."}


def test_an_event_during_the_day_asked_answers_it(app):
    """Judged at the end of 12 December, the 02:00-06:00 window has ended; the question asks about
    the day, so the event answers it. A moment of more than a day ("as of 2026") does not."""
    app.ingest_records([OUTAGE], now=NOW)
    resp = _ask(app, "Is the API available on 12 December?")
    assert resp.results and resp.results[0].id == "outage"
    assert any("or the day the question names" in r for r in resp.results[0].reasons)
    later = _ask(app, "Is the API available as of 2027?")
    assert {r.id: r.code.value for r in later.rejections}.get("outage") == "HARD_EXPIRED_EVENT"
    # and it is as current then as a live event: its temporal signal is 1.0, not the 0 of an
    # expired one (the demo store: it ranked 8th behind documents in force, at cosine 0.37)
    assert resp.results[0].signals["temporal"].value == 1.0


def test_an_event_that_ended_this_week_answers_this_week(app):
    app.ingest_records([MAINTENANCE], now=NOW)
    resp = _ask(app, "What happened this week with the database maintenance?")
    assert resp.results and resp.results[0].id == "maintenance"
    assert any("ended inside the recent window" in r for r in resp.results[0].reasons)
    plain = _ask(app, "What is happening with the database maintenance?")
    assert {r.id: r.code.value for r in plain.rejections}.get("maintenance") == "HARD_EXPIRED_EVENT"


def test_a_question_of_time_words_alone_is_answered_by_the_events_of_its_window(app):
    # "What happened this week?" shares no word with the notice: under the relevance gate, and
    # the abstention's "nothing is about the question"; the week's events are what it asks about
    notice = {**MAINTENANCE, "text": "Writes to the ledger were paused for four hours."}
    old = {**notice, "id": "old", "created_at": "2026-06-01T00:00:00Z", "valid_from": "2026-06-01T00:00:00Z",
           "valid_until": "2026-06-02T00:00:00Z"}
    app.ingest_records([notice, old], now=NOW)
    resp = _ask(app, "What happened this week?")
    assert not resp.abstained and resp.results[0].id == "maintenance"
    assert {r.id: r.code.value for r in resp.rejections}.get("old") == "HARD_EXPIRED_EVENT"
    bare = _ask(app, "What happened?")                      # no window: nothing is about the question
    assert bare.abstained and {r.id: r.code.value for r in bare.rejections}.get("maintenance") in (
        "HARD_EXPIRED_EVENT", "BELOW_RELEVANCE_GATE")


RELEASES = [{"id": "release_1", "title": "Release notes", "kind": "VERSIONED", "doc_type": "policy", "version": "1.0",
             "created_at": "2026-01-10T00:00:00Z", "text": "Release 1.0 changed the export format."},
            {"id": "release_2", "title": "Release notes", "kind": "VERSIONED", "doc_type": "policy", "version": "2.0",
             "created_at": "2026-10-10T00:00:00Z", "supersedes": "release_1",
             "text": "Release 2.0 changed the login page."}]


def test_latest_is_a_recency_word_not_a_version(app):
    app.ingest_records(RELEASES, now=NOW)
    resp = _ask(app, "What changed in the latest release?")
    assert resp.intent["version"] is None and resp.intent["version_rank"] is None
    assert resp.results[0].id == "release_2"
    assert not any("question names version" in r for res in resp.results for r in res.reasons)
    assert "VERSION_MISMATCH" not in {r.code.value for r in resp.rejections}
    named = _ask(app, "What changed in release 1.0?")
    assert named.results[0].id == "release_1"


# release notes of two products beside a policy in force: "the latest release" is the newest
# release record of a series (however old), not an in-force document of another kind
SERIES = [{"id": "policy_2025", "title": "Data retention schedule", "kind": "VERSIONED", "doc_type": "legal",
           "version": "2025", "created_at": "2025-01-15T00:00:00Z",
           "text": "The schedule changed: logs are kept for 13 months."},
          {"id": "sdk_2_8", "title": "Larkspur SDK 2.8.0 release notes", "doc_type": "release_notes",
           "version": "2.8.0", "created_at": "2025-05-20T00:00:00Z", "text": "The Larkspur SDK release changed retries."},
          {"id": "sdk_3_0", "title": "Larkspur SDK 3.0.0 release notes", "doc_type": "release_notes",
           "version": "3.0.0", "created_at": "2026-06-18T00:00:00Z", "text": "The Larkspur SDK release changed timeouts."},
          {"id": "cli_1_0", "title": "Nimbus CLI 1.0.0 release notes", "doc_type": "release_notes",
           "version": "1.0.0", "created_at": "2024-03-01T00:00:00Z", "text": "The Nimbus CLI release changed flags."},
          {"id": "cli_1_1", "title": "Nimbus CLI 1.1.0 release notes", "doc_type": "release_notes",
           "version": "1.1.0", "created_at": "2024-09-01T00:00:00Z", "text": "The Nimbus CLI release changed flags."}]


def test_the_latest_release_is_the_newest_release_record_not_a_policy_in_force(app):
    app.ingest_records(SERIES, now=NOW)
    resp = _ask(app, "What changed in the latest release?")
    assert resp.intent["asks_newest"] is True and resp.intent["version"] is None
    assert resp.results[0].id == "sdk_3_0"
    temporal = {r.id: r.signals["temporal"].value for r in resp.results}
    assert temporal["sdk_3_0"] == pytest.approx(1.0)            # the store's newest release, 5 months old
    # others decay by how much older they are: 394 days at a half-life of 730, 0.5 ** (394 / 730)
    assert temporal["sdk_2_8"] == pytest.approx(0.5 ** (394 / 730), abs=1e-3) and temporal["cli_1_1"] < temporal["sdk_2_8"]
    assert temporal["policy_2025"] == pytest.approx(1 / 1.2)     # in force, no release: its value as before
    assert any("asks for the latest release" in r for r in resp.results[0].reasons)
    # the series the question names: the Nimbus CLI's newest release, two years old, is the latest of its own
    named = _ask(app, "What changed in the latest Nimbus CLI release?")
    assert named.results[0].id == "cli_1_1"
    assert {r.id: r.signals["temporal"].value for r in named.results}["cli_1_1"] == pytest.approx(1.0)


def test_another_products_releases_are_demoted_when_the_question_names_a_product(app):
    app.ingest_records(SERIES, now=NOW)
    resp = _ask(app, "Which Nimbus CLI release changed retries?")     # only the Larkspur SDK's text says retries
    notes = {r.id: r.reasons for r in resp.results}
    assert any("another product than the one asked (nimbus cli release notes)" in n for n in notes["sdk_2_8"])
    assert not any("another product" in n for n in notes.get("cli_1_1", []) + notes.get("policy_2025", []))
    plain = _ask(app, "Which release changed retries?")                # no product named: no demotion
    assert not any("another product" in n for r in plain.results for n in r.reasons)
    contributions = {r.id: sum(s.contribution for s in r.signals.values()) for r in resp.results}
    assert resp.results[[r.id for r in resp.results].index("sdk_2_8")].score == pytest.approx(
        contributions["sdk_2_8"] * 0.8, rel=1e-6)                      # x0.8 on what its signals add up to


# one changelog per product, every entry titled alike (no chain: each release is a record of its moment)
CHANGELOG = [{"id": f"{pkg}-{v}", "title": f"{pkg.title()} changelog", "doc_type": "changelog", "version": v,
              "created_at": f"202{i}-03-01T00:00:00Z",
              "text": f"Version {v}. The password hashing default changed: {pkg} now uses {n} iterations."}
             for pkg in ("werkzeug", "flask") for i, (v, n) in enumerate(
                 [("2.0.0", 150000), ("2.3.0", 600000), ("3.0.0", 600000), ("3.1.0", 1000000)])]


def test_a_named_version_wins_among_the_releases_of_the_series_the_question_names(app):
    app.ingest_records(CHANGELOG, now=NOW)
    resp = _ask(app, "What did Werkzeug 2.3.0 change about password hashing?")
    assert resp.results[0].id == "werkzeug-2.3.0"
    # another product's releases are not judged against Werkzeug's version: demoted, never removed
    assert not {r.id for r in resp.results if r.id.startswith("werkzeug")} - {"werkzeug-2.3.0"}
    assert "flask-2.3.0" in {r.id for r in resp.results}
    codes = {r.id: r.code.value for r in resp.rejections}
    assert codes["werkzeug-3.1.0"] == "VERSION_MISMATCH" and codes["werkzeug-2.0.0"] == "VERSION_MISMATCH"
    assert any("question names version 2.3.0" in r for r in resp.results[0].reasons)


def test_between_two_versions_names_the_releases_after_the_first_up_to_the_second(app):
    app.ingest_records(CHANGELOG, now=NOW)
    resp = _ask(app, "What changed in Werkzeug's password hashing between 2.0.0 and 3.0.0?")
    assert resp.intent["version_range"] == ["2.0.0", "3.0.0"]
    ranked = [r.id for r in resp.results]
    assert set(ranked[:2]) == {"werkzeug-2.3.0", "werkzeug-3.0.0"}
    assert "werkzeug-3.1.0" not in ranked and "werkzeug-2.0.0" not in ranked
    codes = {r.id: r.code.value for r in resp.rejections}
    assert codes["werkzeug-2.0.0"] == codes["werkzeug-3.1.0"] == "VERSION_MISMATCH"   # the start, and after the end
    assert any("releases after 2.0.0 up to 3.0.0" in r for r in resp.results[0].reasons)


def test_a_named_version_joins_the_pool_when_its_neighbours_fill_it(app):
    from dataclasses import replace

    from smartvector_core.config.query import DEFAULT_SEARCH
    from smartvector_core.retrieval import search
    app.ingest_records(CHANGELOG, now=NOW)
    small = replace(DEFAULT_SEARCH, candidate_pool=1, candidate_pool_per_k=0, lexical_pool=0)
    cands = search.retrieve(app.store, app.embedder.encode(["Werkzeug 2.0.0 iterations"])[0], NOW, 1,
                            text="How many iterations did Werkzeug 2.0.0 use?", config=small)
    assert set(cands.doc_id.tolist()) >= {"werkzeug-2.0.0", "flask-2.0.0"}
    plain = search.retrieve(app.store, app.embedder.encode(["Werkzeug 2.0.0 iterations"])[0], NOW, 1,
                            text="How many iterations did Werkzeug 2.0.0 use?",
                            config=replace(small, version_pool=0))
    assert len(set(plain.doc_id.tolist())) == 1


QUARTERS = [{"id": "plan_q1", "title": "Roadmap", "kind": "VERSIONED", "doc_type": "policy", "version": "2025-Q1",
             "created_at": "2024-12-01T00:00:00Z", "text": "The 2025-Q1 roadmap ships the export API."},
            {"id": "plan_q2", "title": "Roadmap", "kind": "VERSIONED", "doc_type": "policy", "version": "2025-Q2",
             "created_at": "2025-03-01T00:00:00Z", "supersedes": "plan_q1",
             "text": "The 2025-Q2 roadmap ships the login page."}]


def test_a_declared_version_written_as_a_quarter_is_a_version_label(app):
    app.ingest_records(QUARTERS, now=NOW)
    resp = _ask(app, "What does the roadmap ship in 2025-Q1?")
    # both were written before the quarter ended, yet the label picks the version that declares it
    assert resp.intent["version"] == "2025-Q1" and resp.intent["time_range"] is None
    assert resp.results[0].id == "plan_q1"
    assert any("question names version 2025-Q1" in r for r in resp.results[0].reasons)
    assert "plan_q2" in {r.id for r in resp.rejections if r.code.value == "VERSION_MISMATCH"}


def test_a_quarter_no_document_declares_stays_a_period(app):
    app.ingest_records(QUARTERS, now=NOW)
    resp = _ask(app, "What does the roadmap ship in Q3 2025?")
    assert resp.intent["version"] is None and resp.intent["range_mode"] == "hard"
