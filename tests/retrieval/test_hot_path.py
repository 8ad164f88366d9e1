"""The query hot path keeps its behaviour when vectorised (issue 18, the rerank regression).

:func:`calibration.lexical_support` matches each question word over all candidate texts at
once (Arrow string kernels); it must give exactly what the per-candidate word sets gave. The
reference below is that set-based definition, kept here as the oracle."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from smartvector_core.config.query import DEFAULT_ABSTENTION, DEFAULT_SEARCH
from smartvector_core.evaluation.perf import synthetic_candidates
from smartvector_core.retrieval import calibration as cal
from smartvector_core.retrieval.candidates import first_per_document
from smartvector_core.words import content_words


def reference_support(question, best, pool=None):
    """The set-based definition: stems of a text = its content words and their 5-letter prefixes."""
    asked = content_words(question)
    if not asked:
        return 0.0

    def stems(text):
        words = content_words(text)
        return words | {w[:5] for w in words}

    best_stems = set().union(*(stems(t) for t in best)) if best else set()
    pool_stems = [stems(t) for t in (pool if pool is not None else best)]
    limit = DEFAULT_ABSTENTION.generic_share * max(len(pool_stems), 1)
    found = [w for w in asked if {w, w[:5]} & best_stems
             and sum(bool({w, w[:5]} & p) for p in pool_stems) <= max(limit, 1)]
    return len(found) / len(asked)


# words chosen to hit the edges: shared 5-letter prefixes, long stop words sharing a prefix with a
# content word (current/currency, please/pleased, under/underlying), short words, digits, İ
# (whose lower case is two characters), non-ASCII letters as separators, underscores
VOCAB = ["refund", "refunds", "Refunding", "current", "currency", "currently", "pleased", "please", "the",
         "API", "rate", "rates", "rated", "ratel", "İstanbul", "istanbul", "which", "whichever", "latest",
         "lately", "under", "underlying", "café", "caf", "a1", "x", "2024", "20245", "okay", "limit",
         "Limitless", "_rate_", "rate-limit", "naïve", "naive", "straße", "key", "keys", "K"]
words = st.lists(st.sampled_from(VOCAB), max_size=8)
separators = st.sampled_from([" ", "  ", ",", "-", "_", "\n", ". ", "\u0307"])
texts = st.builds(lambda ws, sep: sep.join(ws), words, separators)


@settings(max_examples=400, deadline=None)
@given(question=texts, pool=st.lists(texts, min_size=1, max_size=12), cut=st.integers(0, 12))
def test_vectorised_support_equals_the_word_set_definition(question, pool, cut):
    best = pool[:cut]
    assert cal.lexical_support(question, best, pool) == reference_support(question, best, pool)
    assert cal.lexical_support(question, best) == reference_support(question, best)
    arrow = pa.array(pool, pa.string())
    assert cal.lexical_support(question, arrow.slice(0, cut), arrow) == reference_support(question, best, pool)


def test_support_is_read_only_where_the_cosine_leaves_it_open():
    assert not cal.support_decides(0.19) and not cal.support_decides(0.40) and not cal.support_decides(np.nan)
    assert cal.support_decides(0.20) and cal.support_decides(0.39)
    for cosine in (0.1, 0.45, float("nan")):      # outside the band the support changes nothing
        assert cal.abstains(cosine, 0.0) == cal.abstains(cosine, 1.0)


def test_document_codes_name_documents():
    cands, _ = synthetic_candidates(200)
    ids = cands.doc_id.copy()
    ids[::7] = ids[1]                                   # several passages of one document
    cands.doc_id = ids
    code = cands.doc_code
    same = ids[:, None] == ids[None, :]
    assert np.array_equal(code[:, None] == code[None, :], same)
    rows = np.arange(len(ids))[::-1]
    assert np.array_equal(first_per_document(code, rows), first_per_document(ids, rows))


def test_name_matches_read_store_wide_equal_the_search_within_the_pool(fake_app, monkeypatch):
    """The names of a question are searched store-wide while the question is encoded; a name
    with too many matches is searched again within the pool. Both give the within-pool answer, and
    so does the in-memory index behind the same interface."""
    from smartvector_core.retrieval.candidates import CHUNK_COLUMNS
    from smartvector_core.retrieval.full_text import IndexedFullText, LanceFullText
    from smartvector_core.retrieval.lexical import subject_terms
    from smartvector_core.retrieval.text_index import TextIndex

    from ..conftest import NOW

    records = [{"id": f"d{i}", "title": f"Page {i}", "created_at": "2026-01-01T00:00:00Z",
                "text": f"The Checkout Service {'uses SEND_FILE_MAX_AGE ' if i % 3 == 0 else ''}note {i} "
                        f"{'Checkout ' * (i % 4)}about limits and quotas."} for i in range(40)]
    fake_app.ingest_records(records, now=NOW, consolidate=False)
    store = fake_app.store
    ids = store.fts_search("limits", as_of=None, limit=100).column("chunk_id").to_pylist()
    pool = sorted(ids)[::2]                                     # half of the chunks
    question = "What does the Checkout Service set SEND_FILE_MAX_AGE to?"
    expected = []
    names = subject_terms(question)
    for name in names:
        named = store.fts_search(name, as_of=None, limit=len(pool), require_all=True, within=pool)
        expected.append((set(named.column("chunk_id").to_pylist()), float(max(named.column("_score").to_pylist()))))
    assert len(expected) == 2 and all(ids for ids, _ in expected)
    indexes = [LanceFullText(store, config=replace(DEFAULT_SEARCH, name_matches=cap))
               for cap in (1_000, 3)]                          # store-wide, then the fallback
    for index in [*indexes, IndexedFullText(store, TextIndex.from_store(store))]:
        got = index.search(question, names, None, CHUNK_COLUMNS).named_in_pool(pool)
        assert [ids for ids, _ in got] == [ids for ids, _ in expected]
        assert np.allclose([w for _, w in got], [w for _, w in expected])


def _passages_by_loop(doc_id, order, k, per_document):
    """The former per-row loop of select_passages (the oracle of the vectorised rank)."""
    order = np.asarray(order, dtype=np.intp)
    _, inverse = np.unique(doc_id[order], return_inverse=True)
    seen = np.zeros(inverse.max() + 1, dtype=np.int64)
    rank = np.empty(len(order), dtype=np.int64)
    for j, d in enumerate(inverse):
        rank[j] = seen[d]
        seen[d] += 1
    chosen = np.flatnonzero(rank < max(1, per_document))[:k]
    first = np.full(len(seen), len(order), dtype=np.int64)
    np.minimum.at(first, inverse[chosen], chosen)
    return order[chosen[np.lexsort((chosen, first[inverse[chosen]]))]]


@settings(max_examples=300, deadline=None)
@given(ids=st.lists(st.integers(0, 12), min_size=1, max_size=60), k=st.integers(1, 12),
       per_document=st.integers(1, 4), seed=st.integers(0, 2**16))
def test_passage_selection_equals_the_loop(ids, k, per_document, seed):
    from smartvector_core.retrieval.candidates import select_passages

    doc_id = np.array([f"d{i}" for i in ids], dtype=object)
    order = np.random.default_rng(seed).permutation(len(ids))
    assert np.array_equal(select_passages(doc_id, order, k, per_document),
                          _passages_by_loop(doc_id, order, k, per_document))


def _checkout_pages(app, now) -> None:
    """Six pages that all name the Checkout Service (each with its own replica count)."""
    app.ingest_records([{"id": f"d{i}", "title": f"Page {i}", "created_at": "2026-01-01T00:00:00Z",
                         "text": f"The Checkout Service keeps {i} replicas."} for i in range(6)],
                       now=now, consolidate=False)


CHECKOUT_QUESTION = "How many replicas does the Checkout Service keep?"


def _names_of_a_checkout_question(app, config=DEFAULT_SEARCH):
    """Over the Checkout Service pages: (store, the names' cache, a pool of every other page, what
    the question's names find in it the first time)."""
    from ..conftest import NOW

    _checkout_pages(app, NOW)
    store, known = app.store, {}
    pool = store.fts_search("replicas", as_of=None, limit=10).column("chunk_id").to_pylist()[::2]
    return store, known, pool, _named(store, known, CHECKOUT_QUESTION, pool, None, config)


def _named(store, known, question, pool, as_of, config=DEFAULT_SEARCH):
    """What LanceDB's full-text index finds of the names of ``question`` in ``pool``."""
    from smartvector_core.retrieval.full_text import LanceFullText
    from smartvector_core.retrieval.lexical import subject_terms

    search = LanceFullText(store, known, config).search(question, subject_terms(question), as_of, ["chunk_id"])
    return search.named_in_pool(pool)


def test_a_names_matches_are_searched_once_per_knowledge_state(fake_app):
    from ..conftest import NOW

    store, known, pool, first = _names_of_a_checkout_question(fake_app)
    assert list(known) == [("Checkout Service", None)]
    calls = []
    original = store.fts_search
    store.fts_search = lambda text, **kw: calls.append(text) or original(text, **kw)
    again = _named(store, known, CHECKOUT_QUESTION, pool, None)
    assert again == first and "Checkout Service" not in calls   # the name was not searched again
    _named(store, known, CHECKOUT_QUESTION, pool, NOW)   # another moment: searched
    assert calls.count("Checkout Service") == 1


def test_a_question_asked_again_reuses_its_full_text_hits_and_profiles_without_lexical_skip_them(
        fake_app, monkeypatch):
    """LanceDB's full-text path (a store whose in-memory text index is not built yet)."""
    from smartvector_core.retrieval.query_cache import QueryCache

    from ..conftest import NOW

    _checkout_pages(fake_app, NOW)
    monkeypatch.setattr(QueryCache, "text_index", lambda self: None)
    question = "How many replicas does the Checkout Service keep?"
    first = fake_app.query(question, as_of=NOW, profile="default", log=False)
    calls = []
    original = fake_app.store.fts_search
    fake_app.store.fts_search = lambda text, **kw: calls.append(text) or original(text, **kw)
    again = fake_app.query(question, as_of=NOW, profile="default", log=False)
    assert calls == []                                         # question and name: both known
    assert [(r.chunk_id, r.score) for r in again.results] == [(r.chunk_id, r.score) for r in first.results]
    fake_app.query("Which page lists eleven replicas?", as_of=NOW, profile="naive", log=False)
    fake_app.query("Which page lists eleven replicas?", as_of=NOW, profile="temporal", log=False)
    assert calls == []                                         # no lexical weight: no full-text search
    fake_app.query("Which page lists eleven replicas?", as_of=NOW, profile="default", log=False)
    assert calls == ["Which page lists eleven replicas?"]


def test_a_common_name_is_searched_store_wide_once_then_only_within_the_pool(fake_app):
    from smartvector_core.retrieval.full_text import COMMON_NAME


    config = replace(DEFAULT_SEARCH, name_matches=3)       # "Checkout Service" is in 6 chunks: common
    store, known, pool, first = _names_of_a_checkout_question(fake_app, config)
    assert known[("Checkout Service", None)] is COMMON_NAME
    assert first == [(set(pool), pytest.approx(first[0][1]))] and first[0][1] > 0   # every pool chunk names it
    calls = []
    original = store.fts_search
    store.fts_search = lambda text, **kw: calls.append((text, kw.get("within") is not None)) or original(text, **kw)
    again = _named(store, known, "Which Checkout Service page?", pool, None, config)
    assert again == first
    assert ("Checkout Service", False) not in calls and ("Checkout Service", True) in calls


def _one_per_chain_by_sort(chain, doc_code, codes, score):
    """The former sort-based _one_per_chain (the oracle of the per-chain maxima)."""
    from smartvector_core.retrieval import rerank

    alive = codes == rerank.KEEP
    order = np.lexsort((-score, chain))
    survivors = np.flatnonzero(alive[order])
    winner = np.zeros(len(chain), dtype=bool)
    if survivors.size:
        c = chain[order][survivors]
        heads = order[survivors[np.r_[True, c[1:] != c[:-1]]]]
        winner = np.isin(doc_code, doc_code[heads])
    return rerank.reject(codes, alive & ~winner, rerank.RejectionCode.SUPERSEDED_IN_CHAIN)


@settings(max_examples=300, deadline=None)
@given(docs=st.lists(st.tuples(st.integers(0, 15), st.integers(0, 10), st.booleans()), min_size=1, max_size=60),
       shared=st.lists(st.integers(-1, 4), min_size=16, max_size=16))
def test_one_version_per_chain_equals_the_sort(docs, shared):
    """Per chain the document of the best surviving passage wins (ties: the first row), with every
    surviving passage of it; rows of other versions are rejected as superseded in chain."""
    from types import SimpleNamespace

    from smartvector_core.retrieval import rerank

    doc_code = np.array([d for d, _, _ in docs], dtype=np.intp)
    chain = np.array([shared[d] if shared[d] >= 0 else -1 - d for d in doc_code])   # -1: a chain of its own
    score = np.array([s / 10 for _, s, _ in docs])                                   # ties on purpose
    codes = np.array([rerank.KEEP if keep else 3 for _, _, keep in docs], dtype=np.int16)
    pool = SimpleNamespace(chain=chain, cands=SimpleNamespace(doc_code=doc_code))
    assert np.array_equal(rerank.one_per_chain(pool, codes, score),
                          _one_per_chain_by_sort(chain, doc_code, codes, score))


def test_with_the_text_index_a_query_makes_no_full_text_search_in_lancedb(fake_app):
    from ..conftest import NOW

    _checkout_pages(fake_app, NOW)
    calls = []
    original = fake_app.store.fts_search
    fake_app.store.fts_search = lambda text, **kw: calls.append(text) or original(text, **kw)
    answer = fake_app.query("How many replicas does the Checkout Service keep?", as_of=NOW, log=False)
    assert calls == [] and answer.results
    assert all(r.signals["lexical"].value > 0 for r in answer.results)   # every page names the service


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([0.1, 0.2, 0.5, 0.5, 0.9, float("nan")]), min_size=0, max_size=40),
       st.integers(0, 45), st.integers(0, 2 ** 16))
def test_best_kept_equals_the_stable_sort_of_every_kept_row(scores, n, seed):
    from smartvector_core.retrieval.conflicts import best_kept

    score = np.asarray(scores, dtype=np.float64)
    kept = np.random.default_rng(seed).random(len(score)) < 0.8
    rows = np.flatnonzero(kept)
    assert np.array_equal(best_kept(kept, score, n), rows[np.argsort(-score[rows], kind="stable")][:n])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([0.1, 0.2, 0.5, 0.5, 0.9, float("nan")]), min_size=0, max_size=40),
       st.integers(0, 45), st.booleans())
def test_stable_top_equals_the_stable_argsort(values, n, ordered):
    from smartvector_core.retrieval.candidates import stable_top

    v = np.asarray(sorted(values, reverse=True) if ordered and not any(x != x for x in values) else values)
    assert np.array_equal(stable_top(v, n), np.argsort(-v, kind="stable")[:n])
    ints = np.arange(len(values)) % 3
    assert np.array_equal(stable_top(ints, n), np.argsort(-ints, kind="stable")[:n])
