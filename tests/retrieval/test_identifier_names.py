"""An identifier the question states names a passage only where the passage writes it whole
(issue 27, item 6: names stated in the question separate near-duplicate subjects), and an
identifier that carries a year is no period (item 2). The full-text index reads ``db_default`` as
the terms ``db`` and ``default``, so the Django 3.2 notes on ``DEFAULT_AUTO_FIELD`` ("django.db
... the default value") named it and answered "Which Django release added the db_default field
option?" (data/real/django-releases, held out). Real model, real LanceDB full-text index."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from smartvector_core.retrieval import search
from smartvector_core.retrieval.lexical import is_identifier, subject_terms, written_whole
from smartvector_core.temporal.intent import parse_intent

from ..conftest import NOW, release_notes


def test_written_whole_by_hand():
    texts = {"a": "The new Field.db_default parameter", "b": "django.db.models: the default value",
             "c": "PASSWORD_RESET_TIMEOUT_DAYS is removed", "d": "PASSWORD_RESET_TIMEOUT (3 days)",
             "e": "Python 3.10, 3.11", "f": "Python 3.1.2 and 2.3.1", "g": "CVE-2021-45115: fixed", "h": "in 3.1."}
    got = written_whole(["db_default", "PASSWORD_RESET_TIMEOUT", "3.10", "3.1", "CVE-2021-45115", "Django"], texts)
    assert got == [{"a"}, {"d"}, {"e"}, {"h"}, {"g"}, None]       # None: not an identifier, its terms name it
    assert is_identifier("db_default") and is_identifier("X-Forwarded-For") and not is_identifier("Django")


@pytest.mark.parametrize(("question", "names"), [
    ("Which Django release dropped support for PostgreSQL 12?", ["Django", "PostgreSQL 12"]),
    ("Which Django release added compatibility with Python 3.10?", ["Django", "Python 3.10"]),
    ("What did Apollo 11 carry?", ["Apollo 11"]),
    ("Who won Wimbledon 2019?", ["Wimbledon"]),                     # a year is the time intent's
    ("What changed in 3.5.5?", ["3.5.5"]),
    ("What changed in Larkspur SDK 3.0.0?", ["Larkspur SDK", "3.0.0"]),   # the version asked: the intent's
    ("Which release fixed the send_file bug in Flask 2.0.1?", ["send_file", "Flask 2.0.1"]),
])
def test_a_release_number_belongs_to_the_name_before_it(question, names):
    assert subject_terms(question) == names


def test_a_name_with_its_release_number_is_written_whole():
    texts = {"a": "Dropped support for PostgreSQL 12\n---", "b": "PostgreSQL 12.1 only", "c": "PostgreSQL 9.4 and 12",
             "d": "supports Python 3.8, 3.9, and 3.10", "e": "compatibility with Python\n3.10."}
    assert written_whole(["PostgreSQL 12", "Python 3.10"], texts) == [{"a"}, {"e"}]


@pytest.mark.parametrize("question", ["Which Django releases fixed CVE-2021-45115?",
                                      "What did GHSA-2021-1234 report?"])
def test_an_identifier_with_a_year_names_no_period(question):
    intent = parse_intent(question, datetime(2025, 6, 1, tzinfo=UTC))
    assert intent.time_range is None and intent.judged_at is None
    # a year on its own still names one
    assert parse_intent("What changed in 2021?", datetime(2025, 6, 1, tzinfo=UTC)).time_range is not None


RECORDS = [
    release_notes("3.2", "2021-04-06T12:00:00Z",
                  "Maintaining the historical behavior, the default value for DEFAULT_AUTO_FIELD is AutoField. "
                  "Starting with 3.2 new projects are generated with it set to BigAutoField in django.db.models."),
    release_notes("5.0", "2023-12-04T12:00:00Z",
                  "Database-computed default values: the new Field.db_default parameter sets a database-computed "
                  "default value."),
]
QUESTION = "Which Acme release added the db_default field option?"



def _lexical(app):
    return {r.id: r for r in app.query(QUESTION, as_of=NOW, k=4, log=False).results}


def test_only_the_notes_that_write_the_identifier_name_it(corpus_app):
    by_id = _lexical(corpus_app)
    assert "names db_default" not in " ".join(by_id["acme-3.2"].reasons)
    assert any("db_default" in reason for reason in by_id["acme-5.0"].reasons)
    assert by_id["acme-5.0"].signals["lexical"].value > by_id["acme-3.2"].signals["lexical"].value


def test_without_the_whole_word_rule_both_name_it(corpus_app, monkeypatch):
    """The test can fail: read as terms, db_default is named by the 3.2 notes too."""
    monkeypatch.setattr(search, "written_whole", lambda names, texts: [None for _ in names])
    by_id = _lexical(corpus_app)
    assert any("db_default" in reason for reason in by_id["acme-3.2"].reasons)
