"""A pool filled by replaced versions (:func:`smartvector_core.retrieval.search.with_live`): where
most vector hits are chunks of versions a newer one replaced, the nearest chunks of the documents
in force join the pool, so the version in force can fill k passages. Real LanceDB in a temp
directory, the hashing embedder (the rule is about the pool, not about meaning)."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from smartvector_core.config import DEFAULT_ENGINE
from smartvector_core.config.query import DEFAULT_SEARCH

from ..config.helpers import configured_app
from ..conftest import NOW

TOPICS = ("retention of invoices and receipts", "deletion of closed accounts", "export of account data",
          "backups of customer records")
FILLER = ("The schedule applies to every region and every plan, and an operator may not shorten it. "
          "Questions about it go to the records team, who answer within two business days. ") * 3


def page(version: int) -> str:
    return "\n\n".join(f"Section {i + 1}: {topic}. Under release {version} of the records policy, "
                       f"{topic} follows rule {version}.{i}. {FILLER}" for i, topic in enumerate(TOPICS))


def records() -> list[dict]:
    out = [{"id": f"policy_v{v}", "title": "Records policy", "text": page(v), "version": f"v{v}",
            "created_at": (NOW - timedelta(days=70 - 10 * v)).isoformat(),
            **({"supersedes": f"policy_v{v - 1}"} if v > 1 else {})} for v in range(1, 7)]
    out.append({"id": "travel", "title": "Travel policy", "created_at": (NOW - timedelta(days=5)).isoformat(),
                "text": "Travel is booked through the portal and approved by a manager before the trip. " * 6})
    return out


QUESTION = "What does the records policy say about the retention of invoices and receipts and account data?"


def ask(store_dir, share: float):
    config = replace(DEFAULT_ENGINE, search=replace(DEFAULT_SEARCH, candidate_pool=12, candidate_pool_per_k=1,
                                                    lexical_pool=2, live_pool_share=share))
    app = configured_app(store_dir, config)
    return app.query(QUESTION, as_of=NOW, k=5, log=False)


def test_the_version_in_force_fills_k_passages_when_replaced_versions_fill_the_pool(store_dir):
    app = configured_app(store_dir)
    app.ingest_records(records(), now=NOW)
    assert app.store.chunks_for_docs(["policy_v6"]).num_rows == 4
    crowded = ask(store_dir, 0.0)             # the rule off: the 12 hits are mostly replaced copies
    filled = ask(store_dir, 0.5)
    assert {r.id for r in crowded.results} == {"policy_v6"}
    assert len(crowded.results) == 2          # v6's two sections among the 12 hits; the rest replaced
    # the rule on: v6's other sections join the pool and v6 shows its 3 passages (the cap per
    # document); the best passage is the one it was
    assert [r.id for r in filled.results] == ["policy_v6"] * 3
    assert filled.results[0].chunk_id == crowded.results[0].chunk_id
    assert any(r.code.value == "SUPERSEDED_IN_CHAIN" for r in filled.rejections)


def test_a_question_about_the_past_still_finds_the_version_then_in_force(store_dir):
    configured_app(store_dir).ingest_records(records(), now=NOW)
    config = replace(DEFAULT_ENGINE, search=replace(DEFAULT_SEARCH, candidate_pool=12, candidate_pool_per_k=1,
                                                    lexical_pool=2))
    asked = QUESTION + " as of " + (NOW - timedelta(days=25)).strftime("%B %d, %Y")
    past = configured_app(store_dir, config).query(asked, as_of=NOW, k=5, log=False)
    assert past.results and past.results[0].id == "policy_v4"


def test_the_in_memory_copy_and_lancedb_add_the_same_chunks(store_dir):
    from smartvector_core.retrieval.candidates import CHUNK_COLUMNS
    from smartvector_core.retrieval.search import with_live

    app = configured_app(store_dir)
    app.ingest_records(records(), now=NOW)
    cache = app.query_caches.get(app.knowledge.get())
    index = cache.text_index()
    assert index is not None and index.vectors is not None
    vector = app.embedder.encode([QUESTION])[0]
    hits = app.store.search(vector, as_of=NOW, limit=12, columns=CHUNK_COLUMNS)
    search = replace(DEFAULT_SEARCH, live_pool_share=0.5)
    by_lance = with_live(app.store, hits, vector, cache.knowledge, NOW, NOW, CHUNK_COLUMNS, search)
    in_memory = with_live(app.store, hits, vector, cache.knowledge, NOW, NOW, CHUNK_COLUMNS, search, index)
    assert by_lance.num_rows > hits.num_rows
    assert by_lance.column("chunk_id").to_pylist() == in_memory.column("chunk_id").to_pylist()
