"""A question written without case names its subject by its rare words: each content word is a
name (lexical.uncased_terms), weighted by its BM25, so the document of the named subject outranks
a near-duplicate about another one. Real model, real LanceDB full-text index."""

from __future__ import annotations

import json

import pytest

from smartvector_core.retrieval.lexical import subject_terms, uncased_terms
from smartvector_core.retrieval.search import retrieve

from ..conftest import NOW


def test_uncased_terms_by_hand():
    assert uncased_terms("when did dublin last win the all ireland as of March 2021") == [
        "dublin", "last", "win", "ireland"]                 # "March" is a date, not case; 2021 a number
    assert uncased_terms("What is the state of the engineering team?") == []      # has case
    assert uncased_terms("who won the final in Galway") == []
    assert uncased_terms("") == []
    # a question with case keeps its names; one without gets its words; one with case and no
    # names gets none (plain BM25 there is mostly noise)
    assert subject_terms("who won the final in Galway") == ["Galway"]
    assert subject_terms("who holds the record for most olympic medals") == ["holds", "record", "olympic", "medals"]
    assert subject_terms("Who won the final this week?") == []


def _team(name: str, year: int) -> dict:
    return {"id": f"{name.lower()}_football", "title": "All-Ireland Senior Football Championship winners",
            "doc_type": "reference", "created_at": "2024-01-10T00:00:00Z",
            "text": f"The last time {name} won the All-Ireland Senior Football Championship final was "
                    f"{year}, when {name} beat the holders in the final at Croke Park."}


@pytest.fixture
def teams_app(real_app, tmp_path):
    rows = [_team("Galway", 2001), _team("Dublin", 2023), _team("Kerry", 2022), _team("Mayo", 1951),
            _team("Tyrone", 2021), _team("Armagh", 2002)]
    path = tmp_path / "corpus.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    real_app.ingest_paths([path], now=NOW)
    return real_app


def test_the_named_subject_gets_the_lexical_signal(teams_app):
    """Without case the question named nothing and no passage had a lexical signal (all 0)."""
    question = "when did dublin last win the all ireland football final"
    app = teams_app
    cands = retrieve(app.store, app.embedder.encode([question])[0], NOW, 5, app.query_cache(), text=question)
    lexical = dict(zip(cands.doc_id, cands.lexical_signal(), strict=True))
    assert lexical["dublin_football"] > 0.5
    assert all(v < lexical["dublin_football"] - 0.3 for d, v in lexical.items() if d != "dublin_football")


def test_the_named_subject_answers_by_its_name(teams_app):
    resp = teams_app.query("when did dublin last win the all ireland football final", as_of=NOW, k=5, log=False)
    assert resp.results[0].id == "dublin_football"
    assert resp.results[0].signals["lexical"].value > 0.5          # its name, in the breakdown
