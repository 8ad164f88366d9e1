"""What holds now, asked of a release log, is told by the newest release notes that state it
(issue 27: time in real questions; data/real/django-releases, "What is the minimum PostgreSQL
version Django supports?", where each feature release states its own minimum in near-identical
words and the oldest embedded closest). Real model, real LanceDB; release notes inferred from
their titles."""

from __future__ import annotations

from smartvector_core.retrieval import rerank

from ..conftest import NOW, release_notes

RECORDS = [
    release_notes("1.0", "2021-01-10T12:00:00Z", "Dropped support for PostgreSQL 9.4. The minimum PostgreSQL version "
                  "Acme supports is now PostgreSQL 9.5: Acme 1.0 supports PostgreSQL 9.5 and higher."),
    release_notes("2.0", "2023-01-10T12:00:00Z", "Dropped support for PostgreSQL 10. Upstream support for PostgreSQL "
                  "10 ends in November 2022. Acme 2.0 supports PostgreSQL 11 and higher."),
    release_notes("3.0", "2026-06-10T12:00:00Z", "Dropped support for PostgreSQL 13. Upstream support for PostgreSQL "
                  "13 ends in November 2025. Acme 3.0 supports PostgreSQL 14 and higher. The new composite primary "
                  "keys are described below."),
]
NOW_QUESTION = "What is the minimum PostgreSQL version Acme supports?"



def _top(app, question):
    return app.query(question, as_of=NOW, k=5, log=False).results[0]


def test_the_newest_notes_tell_what_holds_now(corpus_app):
    top = _top(corpus_app, NOW_QUESTION)
    assert top.id == "acme-3.0"
    results = corpus_app.query(NOW_QUESTION, as_of=NOW, k=5, log=False).results
    older = [r for r in results if r.id != "acme-3.0"]
    assert older and all(any("a newer release of its series" in reason for reason in r.reasons) for r in older)


def test_a_which_release_question_is_left_to_the_other_rules(corpus_app):
    results = corpus_app.query("Which Acme release dropped support for PostgreSQL 10?", as_of=NOW, k=5, log=False).results
    assert not any("a newer release of its series" in reason for r in results for reason in r.reasons)
    assert results[0].id == "acme-2.0"


def test_without_the_rule_the_oldest_notes_answer(corpus_app, monkeypatch):
    """The test can fail: with no older release demoted, the oldest notes, worded closest, lead."""
    monkeypatch.setattr(rerank, "older_release_records", lambda cands, kept, score: kept & False)
    assert _top(corpus_app, NOW_QUESTION).id == "acme-1.0"
