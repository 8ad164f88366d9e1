"""Invariants of the reranker over generated candidate sets: scores bounded, expired never
returned by gated profiles, one result per version chain."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from smartvector_core.clock import to_us
from smartvector_core.knowledge import KnowledgeState, events_frame
from smartvector_core.memory import KnowledgeGraph
from smartvector_core.retrieval.candidates import NO_END, NO_START, Candidates
from smartvector_core.retrieval.pipeline import QueryRequest, answer
from smartvector_core.retrieval.profiles import PROFILES
from smartvector_core.store import EVENTS_SCHEMA, TS

AS_OF = datetime(2026, 6, 1, tzinfo=UTC)
DAY = 86_400 * 1_000_000
KINDS = ["STATIC", "VERSIONED", "EVENT"]


def _state(c: Candidates) -> KnowledgeState:
    docs = pa.table({
        "doc_id": pa.array(list(c.doc_id), pa.string()),
        "created_at": pa.array(c.created_us, TS),
        "valid_from": pa.array([None if v == NO_START else int(v) for v in c.valid_from_us], TS),
        "kind": pa.array([KINDS[k] for k in c.kind], pa.string()),
        "title": pa.array(list(c.title), pa.string()),
    })
    import pandas as pd

    return KnowledgeState(events=events_frame(EVENTS_SCHEMA.empty_table()), edges=pd.DataFrame(),
                          graph=KnowledgeGraph(list(c.doc_id)), docs=docs)


@st.composite
def candidate_sets(draw):
    n = draw(st.integers(1, 25))
    as_of = to_us(AS_OF)
    created = np.array([as_of - draw(st.integers(0, 2000)) * DAY for _ in range(n)], dtype=np.int64)
    kind = np.array([draw(st.integers(0, 2)) for _ in range(n)], dtype=np.int8)
    until = np.array([draw(st.sampled_from([NO_END, as_of - 5 * DAY, as_of + 5 * DAY])) for _ in range(n)],
                     dtype=np.int64)
    titles = np.array([draw(st.sampled_from(["Rate limits", "Refunds", "Glossary", ""])) for _ in range(n)],
                      dtype=object)
    obj = lambda values: np.array(values, dtype=object)  # noqa: E731
    return Candidates(
        chunk_id=obj([f"d{i}:c" for i in range(n)]), doc_id=obj([f"d{i}" for i in range(n)]),
        text=obj([f"text {i} with {draw(st.integers(1, 999))} days" for i in range(n)]), title=titles,
        source=obj([""] * n), doc_type=obj([draw(st.sampled_from(["policy", "news", "mathematics", "x"]))
                                           for _ in range(n)]),
        kind=kind, kind_reason=obj(["declared"] * n), version=obj([""] * n), lifecycle=obj(["ACTIVE"] * n),
        supersedes=obj([[] for _ in range(n)]), depends_on=obj([[] for _ in range(n)]),
        raw_cosine=np.array([draw(st.floats(-0.2, 1.0)) for _ in range(n)]), created_us=created,
        dated=np.array([draw(st.booleans()) for _ in range(n)]), valid_from_us=np.full(n, NO_START, np.int64),
        valid_until_us=until, superseded_us=np.full(n, NO_END, np.int64),
        authority=np.array([draw(st.sampled_from([np.nan, 0.3, 0.9])) for _ in range(n)]))


@settings(max_examples=60, deadline=None)
@given(cands=candidate_sets(), profile=st.sampled_from(sorted(PROFILES)))
def test_scores_bounded_and_gated_profiles_never_return_expired(cands, profile):
    state = _state(cands)
    resp = answer(cands, QueryRequest("what is the current rate limit?", AS_OF, PROFILES[profile], k=10),
                  PROFILES[profile], state)
    for r in resp.results:
        assert 0.0 <= r.score <= 1.0 and 0.0 <= r.confidence <= 1.0
        for s in r.signals.values():
            assert np.isfinite(s.value) and np.isfinite(s.contribution)
    if PROFILES[profile].gates:
        expired = {cands.doc_id[i] for i in range(len(cands)) if cands.valid_until_us[i] <= to_us(AS_OF)}
        assert not expired & {r.id for r in resp.results}
        returned = {r.id for r in resp.results} | {r.id for r in resp.rejections}
        assert returned <= set(cands.doc_id)


@settings(max_examples=40, deadline=None)
@given(cands=candidate_sets())
def test_one_result_per_version_chain(cands):
    state = _state(cands)
    profile = PROFILES["default"]
    resp = answer(cands, QueryRequest("rate limits", AS_OF, profile, k=25), profile, state)
    index = state.doc_index()
    chains = [int(index.chain[index.lookup(np.array([r.id], dtype=object))[0]]) for r in resp.results]
    assert len(chains) == len(set(chains))
