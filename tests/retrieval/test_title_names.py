"""A passage names what its document's title names (issue 27, item 6: names stated in the question
separate near-duplicate subjects). Encyclopedia paragraphs say "its" where the page title says
"Council of State": the lexical signal's names half reads the title too. Real model, real LanceDB
full-text index."""

from __future__ import annotations

import pytest

from smartvector_core.retrieval import lexical, search
from smartvector_core.retrieval.lexical import named_in_titles, names_reason

from ..conftest import NOW

DATED = "2021-02-20T00:00:00Z"
RECORDS = [
    {"id": "council#lead", "title": "Council of State ( Greece )", "doc_type": "reference", "created_at": DATED,
     "text": "The Council of State is the supreme administrative court of Greece. It hears appeals against "
             "the acts of the administration and advises on the decrees of the government."},
    {"id": "council#history", "title": "Council of State ( Greece )", "doc_type": "reference", "created_at": DATED,
     "text": "Although the Constitution of 1911 provided for its re-establishment, it was not refounded until "
             "1928. Its first president, from 1928 until 1935, was Konstantinos Raktivan."},
    {"id": "davis_cup#1929", "title": "Yugoslavia Davis Cup team", "doc_type": "reference", "created_at": DATED,
     "text": "- 1929 – Europe zone, 1st round (losing to Greece 1–4)"},
]
QUESTION = "Who was the president of the Council of State of Greece from 1929 to 1935?"


def test_named_in_titles_by_hand():
    chunks = ["a", "b", "c", "d"]
    titles = ["Council of State ( Greece )", "Courts of Greece", None, "State council records"]
    # stemmed terms, stop words dropped, any order: "State council" holds "Council of State"
    assert named_in_titles(["Council of State", "Greece", "Raktivan"], chunks, titles) == [
        {"a", "d"}, {"a", "b"}, set()]
    assert named_in_titles(["the", "of"], chunks, titles) == [set(), set()]   # stop words name nothing
    # the page's common name inside the full name the question writes; one word is not enough
    assert named_in_titles(["Helen Elizabeth Clark", "Clark Kent"], ["h", "c"], ["Helen Clark", "Clark"]) == [
        {"h"}, set()]
    assert named_in_titles([], chunks, titles) == []


def test_names_reason_by_hand():
    assert names_reason(["Greece"], ["Council", "State"]) == "names Greece; Council, State through its title"
    assert names_reason([], ["Council of State"]) == "names Council of State through its title"
    assert names_reason(["Greece"], []) == "names Greece"
    assert names_reason([], []) is None



def _answer(app):
    response = app.query(QUESTION, as_of=NOW, k=4, log=False)
    return {r.id: r for r in response.results}, [r.id for r in response.results]


def test_a_paragraph_names_its_pages_title(corpus_app):
    """The paragraph that answers writes "its", not "Council of State": it names the Council
    through its page's title, and leads; its lexical signal holds the names half."""
    by_id, order = _answer(corpus_app)
    assert order[0] == "council#history"
    assert by_id["council#history"].signals["lexical"].value > by_id["davis_cup#1929"].signals["lexical"].value
    # the reasons say which names each passage holds, and where (the question's names: Council,
    # State, Greece; "of" ends a run of capitals)
    assert "names Council, State, Greece through its title" in by_id["council#history"].reasons
    assert "names Greece" in by_id["davis_cup#1929"].reasons


def test_without_the_titles_the_paragraph_names_nothing(corpus_app, monkeypatch):
    """The test can fail: with titles unread, the answering paragraph gets no names half and
    falls behind a paragraph that writes "Greece" and the year asked."""
    monkeypatch.setattr(search, "named_in_titles", lambda names, chunks, titles: [set() for _ in names])
    by_id, order = _answer(corpus_app)
    assert order[0] != "council#history"
    assert by_id["council#history"].signals["lexical"].value < 1.0 - lexical.NAME_SHARE + 1e-9


def test_a_headline_names_no_subject():
    """A news story's title is a headline, shared in substance by the other articles on its story:
    it is not read as names; every other doc type's title is."""
    from smartvector_core.retrieval.lexical import subject_titles

    assert subject_titles(["Hurricane Ian live updates", "Council of State ( Greece )", "Flask API", None],
                          ["news", "reference", None, "policy"]) == [
        None, "Council of State ( Greece )", "Flask API", None]


def test_both_search_paths_read_the_titles(corpus_app):
    """The knowledge state's document fields (a server's path) and the hits' own columns (no
    state yet) give every chunk the same lexical signal."""
    from smartvector_core.retrieval.search import retrieve

    vector = corpus_app.embedder.encode([QUESTION])[0]
    cached = retrieve(corpus_app.store, vector, NOW, 4, corpus_app.query_cache(), text=QUESTION)
    plain = retrieve(corpus_app.store, vector, NOW, 4, None, text=QUESTION)
    signal = {c: v for c, v in zip(cached.chunk_id, cached.lexical_signal(), strict=True)}
    assert signal == pytest.approx({c: v for c, v in zip(plain.chunk_id, plain.lexical_signal(), strict=True)})
    history = next(c for c, d in zip(cached.chunk_id, cached.doc_id, strict=True) if d == "council#history")
    assert signal[history] > 1.0 - lexical.NAME_SHARE     # the names half, through the title
