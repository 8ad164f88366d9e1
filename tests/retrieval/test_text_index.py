"""The in-memory text index answers what LanceDB's full-text index answers (issue 18).

:class:`TextIndex` replaces LanceDB's full-text queries on the query path, so it must score
and match exactly as LanceDB does: the same BM25 for every question, the same chunks for every
name, the same analysis (split, length limit, lower case, stem, stop words, folding). The
oracle is LanceDB itself, over real LanceDB stores in temp directories: real documentation and
changelog text from data/real/, and a corpus of awkward text."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pyarrow as pa
import pytest

from smartvector_core.clock import parse_time, to_us
from smartvector_core.ingest import read_records
from smartvector_core.retrieval.candidates import CHUNK_COLUMNS
from smartvector_core.retrieval.full_text import IndexedFullText
from smartvector_core.retrieval.lexical import subject_terms
from smartvector_core.retrieval.search import indexed_vector_hits, retrieve
from smartvector_core.retrieval.text_index import TextIndex
from smartvector_core.words import analyse, terms_of

from ..conftest import NOW
from ..test_real_sets import REAL, SETS

AWKWARD = [
    "Café naïve résumé: the Straße in İstanbul, ﬁle ２０２４ and Ⅻ³.",
    "snake_case_name, kebab-case-name, dotted.name.here and a/b/c paths",
    "x" * 39 + " fits; " + "y" * 40 + " is too long; " + "z" * 45 + " too",
    "Don't repeat repeat REPEAT yourself: it's the rule, isn't it?",
    "Having done it, he does it once more; only very few would.",
    "日本語のテキスト 中文 한국어 ΑΒΓ δέλτα",
    "Configure, configured, configuration and configurations all stem alike.",
    "Numbers: 3.5.5, v2, HTTP2, 1,000,000 and 42.",
    "",
]


def _real_records(per_set: int) -> tuple[list[dict], list[str]]:
    records, questions = [], []
    for name in SETS:
        records += read_records(REAL / name / "corpus.jsonl")[:per_set]
        questions += [q["text"] for q in read_records(REAL / name / "queries.jsonl")]
    return records, questions


@pytest.fixture
def real_text_store(fake_app, monkeypatch):
    """Real documentation and changelog text (500 documents of each set), re-ingested in part so
    that the table holds retired versions too, with LanceDB's full-text index rebuilt over all
    of it (between rebuilds LanceDB scores new rows with its older statistics: module docstring)."""
    import smartvector_core.store.indexes as indexes

    records, questions = _real_records(500)
    for r in records:
        r.pop("supersedes", None)   # this test is about text: no chains needed
    fake_app.ingest_records(records, now=NOW, consolidate=False)
    fake_app.ingest_records([{**r, "text": r["text"] + " Amended."} for r in records[:40]],
                            now=NOW + timedelta(days=1), consolidate=False)
    monkeypatch.setattr(indexes, "REINDEX_FRACTION", -1.0)     # rebuild now
    assert fake_app.store.ensure_text_index()
    monkeypatch.undo()
    return fake_app.store, questions


def _lance_scores(store, text: str, *, limit: int, require_all: bool = False) -> dict[str, float]:
    found = store.fts_search(text, as_of=None, limit=limit, columns=("chunk_id",), require_all=require_all)
    return dict(zip(found.column("chunk_id").to_pylist(), found.column("_score").to_pylist(), strict=True))


def test_question_scores_equal_lancedb_on_real_text(real_text_store):
    store, questions = real_text_store
    index = TextIndex.from_store(store)
    assert len(index) == store.count_rows("chunks") > store.count_chunks()   # retired rows are indexed too
    compared = 0
    for question in questions:
        lance = _lance_scores(store, question, limit=30)
        rows, scores = index.search(question, as_of_us=None, limit=30)
        assert np.allclose(sorted(lance.values(), reverse=True), scores, rtol=1e-5), question
        mine = dict(zip(index.ids(rows), scores.tolist(), strict=True))
        cut = min(scores) if len(scores) else 0.0
        # the same chunks, except which of several tied at the cut (LanceDB breaks ties arbitrarily)
        assert {c for c, s in lance.items() if s > cut * (1 + 1e-5)} == {c for c, s in mine.items()
                                                                         if s > cut * (1 + 1e-5)}
        compared += len(lance)
    assert compared > 1000


def test_name_matches_equal_lancedb_on_real_text(real_text_store):
    store, questions = real_text_store
    index = TextIndex.from_store(store)
    names = sorted({n for q in questions for n in subject_terms(q)})
    assert len(names) > 100
    everything = np.flatnonzero(index.current)
    for name in names:
        lance = _lance_scores(store, name, limit=100_000, require_all=True)
        named, scores = index.matches(name, everything)
        assert set(index.ids(everything[named])) == set(lance), name
        mine = dict(zip(index.ids(everything[named]), scores[named].tolist(), strict=True))
        assert all(np.isclose(mine[c], s, rtol=1e-5) for c, s in lance.items()), name


def test_awkward_text_is_analysed_as_lancedb_analyses_it(fake_app):
    fake_app.ingest_records([{"id": f"a{i}", "text": t or "(empty)", "created_at": "2025-01-01"}
                             for i, t in enumerate(AWKWARD)], now=NOW, consolidate=False)
    store = fake_app.store
    store.ensure_text_index()
    index = TextIndex.from_store(store)
    words = sorted({w for t in AWKWARD for w in t.replace(",", " ").replace(":", " ").split()} | {
        "cafe", "CAFÉ", "strasse", "file", "2024", "configur", "having", "does", "once", "the"})
    everything = np.arange(len(index))
    for word in words:
        lance = _lance_scores(store, word, limit=100)
        rows, scores = index.search(word, as_of_us=None, limit=100)
        assert set(index.ids(rows)) == set(lance), word
        assert np.allclose(sorted(lance.values(), reverse=True), scores, rtol=1e-5), word
        named, _ = index.matches(word, everything)
        assert set(index.ids(everything[named])) == set(_lance_scores(store, word, limit=100, require_all=True))
    assert terms_of("Having done it, he does it") == ["done", "doe"]   # stop words compared after stemming
    assert terms_of("x" * 40) == [] and terms_of("x" * 39) == ["x" * 39]


def test_one_question_is_analysed_as_the_batch_is():
    """terms_of (Python, one short text) and analyse (Arrow, every row) split alike."""
    records, questions = _real_records(10_000)
    texts = [r["text"] for r in records] + questions + AWKWARD
    owner, entry, vocabulary = analyse(pa.array(texts))
    batch: list[list[str]] = [[] for _ in texts]
    for row, e in zip(owner.tolist(), entry.tolist(), strict=True):
        if vocabulary[e] is not None:
            batch[row].append(vocabulary[e])
    assert [terms_of(t) for t in texts] == batch


def test_search_keeps_only_rows_existing_at_the_moment(real_text_store):
    store, questions = real_text_store
    index = TextIndex.from_store(store)
    moment = parse_time("2023-01-01")
    for question in questions[:40]:
        rows, _ = index.search(question, as_of_us=to_us(moment), limit=30)
        assert index.current[rows].all() and (index.created_us[rows] <= to_us(moment)).all()
        lance = store.fts_search(question, as_of=moment, limit=30, columns=("chunk_id",))
        assert np.allclose(sorted(lance.column("_score").to_pylist(), reverse=True),
                           np.sort(index.search(question, as_of_us=to_us(moment), limit=30)[1])[::-1], rtol=1e-5)


def _same_up_to_ties(a, b, question: str, atol: float = 1e-6) -> None:
    """Two candidate pools of one ranking: the same cosines (to ``atol``: LanceDB's float32
    kernel against ours) of the chunks in both, their lexical signals where the pools hold the
    same chunks, and a chunk in one pool only
    tied with another (identical texts of two versions: exact ties at the vector search's cut
    that LanceDB breaks in no set order; the other pick may then join as a full-text hit)."""
    def by_chunk(pool, values) -> dict:
        return dict(zip(pool.chunk_id.tolist(), values, strict=True))

    ca, cb = by_chunk(a, a.raw_cosine.tolist()), by_chunk(b, b.raw_cosine.tolist())
    every = {**ca, **cb}
    for c in set(ca) ^ set(cb):   # in one pool only: tied with another chunk (the other side's pick)
        assert any(o != c and abs(every[c] - r) <= atol for o, r in every.items()), (question, c)
    for c in set(ca) & set(cb):
        assert abs(ca[c] - cb[c]) <= atol, (question, c)
    la, lb = by_chunk(a, list(a.lexical_signal())), by_chunk(b, list(b.lexical_signal()))
    if set(ca) == set(cb):   # the signal's name shares are over the pool: comparable in one pool
        assert all(np.allclose(la[c], lb[c], atol=1e-5) for c in la), question


@pytest.mark.parametrize("keeps", ["vectors and texts", "texts", "neither"])
def test_retrieval_is_the_same_with_the_index_and_with_lancedb(real_text_store, fake_app, monkeypatch, keeps):
    """The whole lexical path (the question's hits joining the pool, each name's matches in the
    pool, the lexical signal) and the vector hits give the same candidates either way; the
    question's hits come from what the index keeps (a small store), or their vectors (and, past
    the text budget, their texts) are read from LanceDB by row id (a large one); the vector hits'
    columns come from the index while it keeps the texts, else from LanceDB."""
    import smartvector_core.retrieval.text_index as text_index_module

    store, questions = real_text_store
    if keeps != "vectors and texts":
        monkeypatch.setattr(text_index_module, "MEMORY_ROWS", 0)
    if keeps == "neither":
        monkeypatch.setattr(text_index_module, "TEXT_MEMORY_BYTES", 0)
    cache = fake_app.query_cache()
    built = cache.text_index()                               # a small store: built at once
    assert built is not None and (built.vectors is not None) == (keeps == "vectors and texts")
    assert (built.texts is not None) == (keeps != "neither")
    monkeypatch.undo()
    searched = []
    original = store.search
    # the pool's vector search (a named version's own search, with ``extra``, runs on both halves alike)
    store.search = lambda *a, **kw: (kw.get("extra") is None and searched.append(kw.get("columns"))) or original(*a, **kw)
    for question in questions[:60]:
        for as_of in (NOW, parse_time("2023-06-01")):
            vector = fake_app.embedder.encode([question])[0]
            with_index = retrieve(store, vector, as_of, 5, cache, text=question)
            monkeypatch.setattr(type(cache), "text_index", lambda self: None)
            cache.full_text.clear()
            with_lance = retrieve(store, vector, as_of, 5, cache, text=question)
            monkeypatch.undo()
            if keeps == "vectors and texts":   # searched in process: LanceDB's exact ranking, ties by row
                _same_up_to_ties(with_index, with_lance, question)
                continue
            assert with_index.chunk_id.tolist() == with_lance.chunk_id.tolist(), question
            assert with_index.text.tolist() == with_lance.text.tolist(), question
            assert np.array_equal(with_index.raw_cosine, with_lance.raw_cosine), question
            assert np.allclose(with_index.lexical_signal(), with_lance.lexical_signal(), atol=1e-5), question
    # LanceDB's columns were read for the LanceDB half, and for the index half only where it keeps
    # no texts or where too few rows existed for an unfiltered search (a rare early moment)
    by_index_half = len(searched) - 60 * 2
    assert by_index_half == 60 * 2 if keeps == "neither" else by_index_half <= 6


def test_a_large_store_builds_its_index_in_the_background(fake_app, monkeypatch):
    import smartvector_core.retrieval.query_cache as query_cache_module

    fake_app.ingest_records([{"id": f"d{i}", "text": f"The Checkout Service keeps {i} replicas.",
                              "created_at": "2025-01-01"} for i in range(8)], now=NOW, consolidate=False)
    monkeypatch.setattr(query_cache_module, "TEXT_INDEX_NOW_ROWS", 0)
    cache = fake_app.query_cache()
    first = cache.text_index()                         # not built yet: LanceDB's index answers meanwhile
    cache.wait_for_text_index(timeout=60)
    built = cache.text_index()
    assert first is None and built is not None and len(built) == 8
    fake_app.feedback_accept = None                      # an events-only change keeps the chunks' index
    fake_app.knowledge.record_events([{"doc_id": "d1", "event_type": "ACCESS", "at": NOW}])
    assert fake_app.query_cache().text_index() is built
    fake_app.ingest_records([{"id": "d9", "text": "A new page.", "created_at": "2025-02-01"}], now=NOW,
                            consolidate=False)
    again = fake_app.query_cache()                       # new chunks: a new index
    monkeypatch.setattr(query_cache_module, "TEXT_INDEX_NOW_ROWS", 100)
    assert len(again.text_index()) == 9


def test_hits_read_by_stale_row_ids_are_read_again_by_chunk_id(real_text_store, monkeypatch):
    """A large store's index reads the question's hits by LanceDB row id; after a write moved
    those rows (a newer table version), the ids it gets back are checked and the hits read by
    chunk id instead: the same hits, never another row's."""
    import smartvector_core.retrieval.text_index as text_index_module

    store, questions = real_text_store
    monkeypatch.setattr(text_index_module, "MEMORY_ROWS", 0)
    index = TextIndex.from_store(store)
    assert index.vectors is None and index.texts is not None
    question = questions[0]
    by_id = []
    original = store.chunks_by_id
    store.chunks_by_id = lambda ids, columns: by_id.append(len(ids)) or original(ids, columns)
    before = IndexedFullText(store, index).search(question, [], None, CHUNK_COLUMNS).best()
    assert by_id == [] and before.num_rows == 30                 # read by row id
    moved = store.chunks_for_docs(sorted(set(before.column("doc_id").to_pylist())), current_only=False,
                                  with_vectors=True)
    store.upsert_chunks(moved)                                    # rewritten: their row ids are gone
    after = IndexedFullText(store, index).search(question, [], None, CHUNK_COLUMNS).best()
    assert by_id == [30]                                          # read again by chunk id
    assert after.column("chunk_id").to_pylist() == before.column("chunk_id").to_pylist()
    assert after.column("text").to_pylist() == before.column("text").to_pylist()


def test_vector_hits_from_the_kept_vectors_are_lancedbs_exact_search(real_text_store, fake_app):
    """A small store's copy keeps the vectors and answers the vector search itself: the rows and
    distances of LanceDB's exact prefiltered search, at every moment, up to exact ties."""
    store, questions = real_text_store
    index = TextIndex.from_store(store)
    assert index.vectors is not None
    searched = []
    original = store.search_row_ids
    store.search_row_ids = lambda *a, **kw: searched.append(1) or original(*a, **kw)
    for vector in fake_app.embedder.encode(questions[:20]):
        for as_of in (None, NOW - timedelta(days=1), parse_time("2023-06-01")):
            got = indexed_vector_hits(store, index, vector, as_of, 60, 1.25)
            want = store.search(vector, as_of=as_of, limit=60, columns=CHUNK_COLUMNS, exact=True)
            assert got.num_rows == want.num_rows > 0
            dg, dw = got.column("_distance").to_numpy(), want.column("_distance").to_numpy()
            assert np.allclose(dg, dw, rtol=0, atol=1e-6) and (np.diff(dg) >= 0).all()
            ig, iw = got.column("chunk_id").to_pylist(), want.column("chunk_id").to_pylist()
            moved = [i for i in range(len(ig)) if ig[i] != iw[i]]
            assert all(any(abs(dg[i] - dw[j]) <= 1e-6 for j in moved) for i in moved)   # ties only
            assert all(abs(dg[ig.index(c)] - dg[-1]) <= 1e-6 for c in set(ig) - set(iw))   # only a tie at the cut
    assert searched == []   # no LanceDB vector search


def test_vector_hits_are_read_by_row_id_from_the_index_and_never_another_rows(real_text_store, fake_app, monkeypatch):
    """The query's vector search asks LanceDB for row ids and distances only, and the index
    gives each hit's columns: the same rows as the search that reads LanceDB's columns. A row
    written since the index was built is unknown to it (then LanceDB's columns are read); after
    a compaction every row id it still knows names the row it holds. (A large store: the copy
    keeps no vectors.)"""
    import smartvector_core.retrieval.text_index as text_index_module

    store, questions = real_text_store
    monkeypatch.setattr(text_index_module, "MEMORY_ROWS", 0)
    index = TextIndex.from_store(store)
    assert index.vectors is None

    def both(vector, as_of):
        by_index = indexed_vector_hits(store, index, vector, as_of, 60, 1.25)
        by_lance = store.search(vector, as_of=as_of, limit=60, columns=CHUNK_COLUMNS, overfetch=1.25)
        return by_index, by_lance

    vectors = fake_app.embedder.encode(questions[:20])
    for vector in vectors:
        for as_of in (None, NOW - timedelta(days=1)):   # the amended versions are newer: not yet there
            by_index, by_lance = both(vector, as_of)
            assert by_index is not None and by_index.num_rows == by_lance.num_rows > 0
            for name in (*CHUNK_COLUMNS, "_distance"):
                assert by_index.column(name).to_pylist() == by_lance.column(name).to_pylist(), name
    first, _ = both(vectors[0], None)
    moved = store.chunks_for_docs(sorted(set(first.column("doc_id").to_pylist()))[:3], current_only=False,
                                  with_vectors=True)
    store.upsert_chunks(moved)                                # rewritten: new row ids
    assert both(vectors[0], None)[0] is None                  # unknown to the index: LanceDB's columns
    store.optimize()                                          # compaction moves rows to new fragments
    for vector in vectors:
        found = store.search_row_ids(vector, 60)
        rows = index.hit_rows(found.column("_rowid").to_numpy())
        known = rows >= 0
        read = store.chunks_by_row_id(found.column("_rowid").to_numpy()[known], ["chunk_id", "text"])
        held = index.columns(rows[known])
        assert sorted(zip(read.column("chunk_id").to_pylist(), read.column("text").to_pylist(), strict=True)) == \
            sorted(zip(held["chunk_id"].to_pylist(), held["text"].to_pylist(), strict=True))
