"""Specificity (issue 14 item 5): a document that names the question's subject outranks a generic
one about the same attribute. Real model, real LanceDB full-text index."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import pytest

from smartvector_core.retrieval import get_profile
from smartvector_core.retrieval.lexical import NAME_SHARE, lexical_signal, separation, subject_terms
from smartvector_core.retrieval.pipeline import QueryRequest, answer
from smartvector_core.retrieval.search import retrieve

from ..conftest import NOW

GLOSSARY = [
    {"id": "glossary_uptime", "title": "Glossary: uptime guarantee", "doc_type": "reference", "source": "official",
     "created_at": "2025-01-10T00:00:00Z",
     "text": "Uptime guarantee: the uptime a service guarantees to its customers, stated as the share of "
             "each month the service is up, such as 99.9% uptime. A service that guarantees uptime owes "
             "credits when its uptime falls short of what it guarantees."},
    {"id": "glossary_upload", "title": "Glossary: upload size limit", "doc_type": "reference", "source": "official",
     "created_at": "2025-01-10T00:00:00Z",
     "text": "Upload size limit: the largest upload a service accepts, stated in megabytes. The upload size "
             "limit of a service decides whether an upload must be split before it is sent."},
]
NAMED = [
    {"id": "checkout_service_policy", "title": "Checkout Service runbook", "doc_type": "policy",
     "created_at": "2025-06-01T00:00:00Z",
     "text": "Checkout Service runbook. Owner: payments team. Availability target: 99.95% per calendar "
             "month, measured at the load balancer. Pages reach the on-call engineer within five minutes; "
             "deploys happen on Tuesdays."},
    {"id": "media_service_policy", "title": "Media Service runbook", "doc_type": "policy",
     "created_at": "2025-06-01T00:00:00Z",
     "text": "Media Service runbook. Owner: content team. Files: at most 250 MB each from the web app; "
             "originals kept two years; larger files through the bulk importer. Thumbnails are made on upload."},
    {"id": "search_service_policy", "title": "Search Service operations policy", "doc_type": "policy",
     "created_at": "2025-06-01T00:00:00Z",
     "text": "Search Service operations policy. The discovery team runs the Search Service, which is "
             "available 99.5% of each calendar month and indexes new products within an hour."},
]
QUESTIONS = [("What uptime does the Checkout Service guarantee?", "checkout_service_policy"),
             ("What is the upload size limit of the Media Service?", "media_service_policy")]


def test_subject_terms_are_the_names_of_the_question():
    assert subject_terms("What uptime does the Checkout Service guarantee?") == ["Checkout Service"]
    # a release number right after a name is read with it (tests/retrieval/test_identifier_names.py)
    assert subject_terms("Which release fixed the send_file bug in Flask 2.0.1?") == ["send_file", "Flask 2.0.1"]
    assert subject_terms('how do I set "SESSION_COOKIE_NAME" in HTTPError?') == ["SESSION_COOKIE_NAME", "HTTPError"]
    assert subject_terms("Who won the final this week?") == []
    assert subject_terms("What was the rotation period as of March 2025, in Q1 or on Monday?") == []   # dates
    assert subject_terms("Does the HTTP2 client of Flask v2 retry 3 times?") == ["HTTP2", "Flask", "v2"]
    assert subject_terms(None) == []


def test_lexical_signal_by_hand():
    bm25 = {"a": 4.0, "b": 2.0, "c": 1.0}
    assert lexical_signal(bm25, []) == {}                      # names nothing: no lexical signal
    # two names: one (weight 3) in b and d, one (weight 1) in b: b names all, d three quarters
    got = lexical_signal(bm25, [({"b", "d"}, 3.0), ({"b"}, 1.0)], name_share=0.5)
    assert got == pytest.approx({"a": 0.5, "b": 0.75, "c": 0.125, "d": 0.375})
    assert lexical_signal({"a": 0.0}, []) == {}


def test_separation_by_hand():
    # idf(n, N) = ln(1 + (N - n + 0.5) / (n + 0.5)); N = 10: idf(1) = ln(1 + 9.5 / 1.5) = ln(7.333)
    assert separation(1, 10) == pytest.approx(1.0)
    assert separation(5, 10) == pytest.approx(math.log(1 + 5.5 / 5.5) / math.log(1 + 9.5 / 1.5))   # 0.347
    assert separation(10, 10) == pytest.approx(math.log(1 + 0.5 / 10.5) / math.log(1 + 9.5 / 1.5))  # 0.023
    assert separation(0, 10) == 0.0 and separation(1, 1) == 1.0


def test_a_name_most_of_the_pool_holds_decides_little():
    """A question's only name, held by 5 of a pool of 10 chunks ("Since which Requests release
    ...?"): without separation the 5 holders get the whole names half over the chunk BM25 ranks
    first; with it they get sep(5, 10) = 0.347 of it, and BM25's best wins."""
    bm25 = {"right": 4.0, "holder": 1.0}
    names = [({"holder", "h2", "h3", "h4", "h5"}, 2.0)]
    flat = lexical_signal(bm25, names, name_share=0.5)
    assert flat["holder"] > flat["right"]                                   # 0.625 > 0.5
    got = lexical_signal(bm25, names, name_share=0.5, pool_size=10)
    assert got["right"] == pytest.approx(0.5)
    assert got["holder"] == pytest.approx(0.5 * 0.25 + 0.5 * separation(5, 10))   # 0.298
    assert got["right"] > got["holder"]
    # a rare name (one chunk of the pool) keeps its whole weight: it separates near-duplicates
    assert lexical_signal(bm25, [({"holder"}, 2.0)], name_share=0.5, pool_size=10)["holder"] == pytest.approx(0.625)


@pytest.fixture
def policy_app(real_app, tmp_path):
    path = tmp_path / "corpus.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in GLOSSARY + NAMED), encoding="utf-8")
    real_app.ingest_paths([path], now=NOW)
    return real_app


def test_full_text_index_is_built_on_ingest(policy_app):
    assert policy_app.store.chunk_indexes().get("text") == "FTS"


@pytest.mark.parametrize(("question", "named"), QUESTIONS)
def test_the_document_naming_the_subject_beats_the_generic_glossary(policy_app, question, named):
    resp = policy_app.query(question, as_of=NOW, k=5, log=False)
    assert resp.results[0].id == named
    lexical = resp.results[0].signals["lexical"]
    assert lexical.value >= NAME_SHARE and lexical.weight > 0           # names the subject; its own signal
    generic = next(r for r in resp.results if r.id.startswith("glossary"))
    assert generic.signals["lexical"].value <= 1.0 - NAME_SHARE          # its BM25 half only


@pytest.mark.parametrize(("question", "named"), QUESTIONS)
def test_without_the_lexical_signal_the_glossary_wins(policy_app, question, named):
    """The test can fail: default minus its lexical signal answers with the generic entry."""
    app = policy_app
    cache = app.query_cache()
    vector = app.embedder.encode([question])[0]
    cands = retrieve(app.store, vector, NOW, 5, cache, text=question)
    no_lexical = replace(get_profile("default"), lexical_weight=0.0)
    resp = answer(cands, QueryRequest(question, NOW, no_lexical, 5), no_lexical, cache.knowledge)
    assert resp.results[0].id.startswith("glossary")


# --- what counts as a name: two letters do, one capital does not
def test_two_letter_names_are_names():
    assert subject_terms("Is the EU data policy in force?") == ["EU"]
    assert subject_terms("How does AI Gateway retry?") == ["AI Gateway"]


def test_a_single_capital_letter_is_not_a_name():
    assert subject_terms("Does I count?") == []
