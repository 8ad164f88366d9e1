"""SOLO / PAIR / DROP on the query path (blog, "When a document is too old to stand alone but
too useful to drop"): the rule is :func:`smartvector_core.temporal.freshness.pairing_partners`,
applied by the reranker to STATIC candidates of the ``temporal`` profile."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pandas as pd
import pyarrow as pa

from smartvector_core.clock import to_us
from smartvector_core.knowledge import KnowledgeState, events_frame
from smartvector_core.memory import KnowledgeGraph
from smartvector_core.retrieval.candidates import NO_END, NO_START, Candidates
from smartvector_core.retrieval.pipeline import QueryRequest, answer
from smartvector_core.retrieval.profiles import PROFILES
from smartvector_core.store import EVENTS_SCHEMA, TS

AS_OF = datetime(2026, 6, 1, tzinfo=UTC)
DAY = 86_400 * 1_000_000
# id -> (doc type, age in days). STATIC, no floor for news/policy: decay = 0.5 ** (age / half-life)
DOCS = {"news_fresh": ("news", 0),        # 1.000 SOLO
        "news_old": ("news", 14),         # 0.250 PAIR, news_fresh is 0.75 fresher
        "news_ancient": ("news", 30),     # 0.051 DROP
        "policy_old": ("policy", 150)}    # 0.315 PAIR, no fresher policy (a fresher news doc does not count)


def _candidates() -> Candidates:
    n = len(DOCS)
    obj = lambda values: np.array(values, dtype=object)  # noqa: E731
    ids = list(DOCS)
    created = np.array([to_us(AS_OF) - age * DAY for _, age in DOCS.values()], dtype=np.int64)
    return Candidates(
        chunk_id=obj([f"{d}:c" for d in ids]), doc_id=obj(ids), text=obj([f"rate limit note {d}" for d in ids]),
        title=obj(ids), source=obj([""] * n), doc_type=obj([t for t, _ in DOCS.values()]),
        kind=np.zeros(n, np.int8), kind_reason=obj(["declared"] * n), version=obj([""] * n),
        lifecycle=obj(["ACTIVE"] * n), supersedes=obj([[] for _ in ids]), depends_on=obj([[] for _ in ids]),
        raw_cosine=np.full(n, 0.8), created_us=created, dated=np.ones(n, bool),
        valid_from_us=np.full(n, NO_START, np.int64), valid_until_us=np.full(n, NO_END, np.int64),
        superseded_us=np.full(n, NO_END, np.int64), authority=np.full(n, np.nan))


def _state(c: Candidates) -> KnowledgeState:
    docs = pa.table({"doc_id": pa.array(list(c.doc_id), pa.string()), "created_at": pa.array(c.created_us, TS),
                     "valid_from": pa.array([None] * len(c), TS), "kind": pa.array(["STATIC"] * len(c), pa.string()),
                     "title": pa.array(list(c.title), pa.string())})
    return KnowledgeState(events=events_frame(EVENTS_SCHEMA.empty_table()), edges=pd.DataFrame(),
                          graph=KnowledgeGraph(list(c.doc_id)), docs=docs)


def test_solo_pair_drop_on_the_query_path():
    cands = _candidates()
    profile = PROFILES["temporal"]
    assert profile.pairing
    resp = answer(cands, QueryRequest("rate limit note", AS_OF, profile, k=10), profile, _state(cands))
    results = {r.id: r for r in resp.results}
    rejected = {r.id: r.code.value for r in resp.rejections}
    assert set(results) == {"news_fresh", "news_old"}
    assert results["news_old"].paired_with == "news_fresh" and results["news_fresh"].paired_with is None
    assert rejected == {"news_ancient": "STALE_STATIC_DOC", "policy_old": "PAIR_PARTNER_NOT_FOUND"}


def test_a_different_temporal_config_reaches_the_query():
    """EngineConfig (config/engine.py) travels with the request: with DROP below 0.0 instead of
    0.15 the ancient news item is no longer dropped but paired with the fresh one."""
    from dataclasses import replace

    from smartvector_core.config import DEFAULT_ENGINE
    from smartvector_core.config.temporal import DEFAULT_TEMPORAL

    cands = _candidates()
    profile = PROFILES["temporal"]
    fresh = replace(DEFAULT_TEMPORAL.freshness, drop_below=0.0)
    config = replace(DEFAULT_ENGINE, temporal=replace(DEFAULT_TEMPORAL, freshness=fresh))
    resp = answer(cands, QueryRequest("rate limit note", AS_OF, profile, k=10, config=config), profile, _state(cands))
    results = {r.id: r for r in resp.results}
    assert results["news_ancient"].paired_with == "news_fresh"
    assert {r.id: r.code.value for r in resp.rejections} == {"policy_old": "PAIR_PARTNER_NOT_FOUND"}


def test_the_service_hands_its_config_to_every_query(store_dir, monkeypatch):
    from dataclasses import replace

    import smartvector_core.service.query as service_query
    from smartvector_core.config import DEFAULT_ENGINE
    from smartvector_core.embedding import HashingEmbedder
    from smartvector_core.service import SmartVector
    from smartvector_core.settings import load_settings

    config = replace(DEFAULT_ENGINE, scoring=replace(DEFAULT_ENGINE.scoring, relevance_gate=0.5))
    sv = SmartVector(load_settings(str(store_dir), env={}), embedder=HashingEmbedder(), config=config)
    seen = []
    real = service_query.run_query
    monkeypatch.setattr(service_query, "run_query", lambda *a, **kw: seen.append(a[2].config) or real(*a, **kw))
    sv.ingest_records([{"id": "a", "text": "rate limit note", "created_at": "2026-01-01"}], now=AS_OF)
    sv.query("rate limit note", as_of=AS_OF, log=False)
    assert seen == [config]
    assert SmartVector(load_settings(str(store_dir), env={}), embedder=HashingEmbedder()).config is DEFAULT_ENGINE


def test_the_paired_result_says_with_whom_and_the_gain():
    cands = _candidates()
    profile = PROFILES["temporal"]
    resp = answer(cands, QueryRequest("rate limit note", AS_OF, profile, k=10), profile, _state(cands))
    results = {r.id: r for r in resp.results}
    paired = [reason for reason in results["news_old"].reasons if "pair with" in reason]
    assert len(paired) == 1 and paired[0].startswith("weak alone (decay ")
    assert "pair with news_fresh (gain +" in paired[0]
    assert not any("pair with" in reason for reason in results["news_fresh"].reasons)
