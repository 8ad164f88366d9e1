"""A question that asks which version first held something is answered by the first version that
names it, not by the newest in force (issue 27, items 3 and 4: version words; docs whose chain is
inferred). Reference docs drop their "new in 2.0" notes after a few releases, so the newest page
no longer says when a setting came (data/real/django-docs: "In which Django release was the
DEFAULT_AUTO_FIELD setting added?"). Real model, real LanceDB, the chain inferred at ingest."""

from __future__ import annotations

import pytest

from smartvector_core.retrieval import rerank
from smartvector_core.temporal.intent import parse_intent
from smartvector_core.temporal.version_words import asks_first_version

from ..conftest import NOW, ingested

TITLE = "Acme documentation: Settings"
COMMON = ("Settings reference. This page lists the settings of the Acme web framework and their defaults.\n\n"
          "DEBUG\n\nDefault: False\n\nA boolean that turns on debug mode. Never deploy a site with DEBUG on.\n\n"
          "ALLOWED_HOSTS\n\nDefault: [] (Empty list)\n\nA list of host names this site can serve.\n\n")
CACHE = "CACHE_TIMEOUT_SECONDS\n\n{note}Default: 300\n\nThe number of seconds a cached page is kept.\n\n"
PAGES = [
    {"id": "settings-1.0", "version": "1.0", "created_at": "2021-03-01T12:00:00Z", "text": COMMON},
    {"id": "settings-2.0", "version": "2.0", "created_at": "2022-03-01T12:00:00Z",
     "text": COMMON + CACHE.format(note="New in version 2.0.\n\n")},
    {"id": "settings-3.0", "version": "3.0", "created_at": "2023-03-01T12:00:00Z",
     "text": COMMON + CACHE.format(note="")},
]


@pytest.mark.parametrize(("question", "first"), [
    ("In which Acme release was the CACHE_TIMEOUT_SECONDS setting added?", True),
    ("Which release introduced CACHE_TIMEOUT_SECONDS?", True),
    ("Since which version can the cache timeout be set?", True),
    ("In which release did the docs first describe CACHE_TIMEOUT_SECONDS?", True),
    ("Which release removed CACHE_TIMEOUT_SECONDS?", False),      # an end, not an origin
    ("Which release changed the default of DEBUG?", False),       # a change: another question
    ("Which release fixed the first cache bug?", False),
    ("What was added in release 2.0?", False),                    # names the version: no "which"
    ("What is the default of CACHE_TIMEOUT_SECONDS?", False),
])
def test_asks_first_version_by_hand(question, first):
    assert asks_first_version(question) is first
    assert parse_intent(question, NOW).asks_first is first


@pytest.fixture
def pages_app(real_app, tmp_path):
    return ingested(real_app, tmp_path, [{**p, "title": TITLE} for p in PAGES])


def _order(app, question):
    response = app.query(question, as_of=NOW, k=5, log=False)
    return response.results[0], [r.id for r in response.results]


def test_the_first_version_that_names_it_answers(pages_app):
    top, order = _order(pages_app, "In which Acme release was the CACHE_TIMEOUT_SECONDS setting added?")
    assert top.id == "settings-2.0"
    assert any("first held it" in reason for reason in top.reasons)
    # the plain question is still answered by the newest version in force
    top, _ = _order(pages_app, "What is the default of CACHE_TIMEOUT_SECONDS?")
    assert top.id == "settings-3.0"


def test_without_the_rule_the_newest_version_answers(pages_app, monkeypatch):
    """The test can fail: with no version chosen, the newest page in force wins the origin question."""
    monkeypatch.setattr(rerank, "first_versions_holding", lambda cands, chain, eff: chain != chain)
    top, _ = _order(pages_app, "In which Acme release was the CACHE_TIMEOUT_SECONDS setting added?")
    assert top.id == "settings-3.0"
