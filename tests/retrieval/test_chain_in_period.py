"""One answer per version chain inside a named period (issue 20).

A question that names a period ("in 2025") skips the superseded gate: both versions of a chain
that were in force during the period are candidates. The chain then keeps ONE version: the one
whose best passage scores highest (inside a named period the score is the semantic signal, so
the hand-set raw cosines below decide it), with all of that version's surviving passages; the
other version is rejected as SUPERSEDED_IN_CHAIN. Both orders are checked, so neither "keep the
newest" nor "keep the oldest" nor "keep the worst" passes.
"""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from smartvector_core.clock import to_us
from smartvector_core.knowledge import KnowledgeState, events_frame
from smartvector_core.memory import KnowledgeGraph
from smartvector_core.models import RejectionCode
from smartvector_core.retrieval.candidates import NO_END, NO_START, Candidates
from smartvector_core.retrieval.pipeline import QueryRequest, answer
from smartvector_core.retrieval.profiles import PROFILES
from smartvector_core.store import EVENTS_SCHEMA, TS

AS_OF = datetime(2026, 6, 1, tzinfo=UTC)
V1_AT = to_us(datetime(2025, 1, 1, tzinfo=UTC))    # in force 2025-01-01 .. 2025-07-01
V2_AT = to_us(datetime(2025, 7, 1, tzinfo=UTC))    # supersedes v1 from 2025-07-01
QUESTION = "What was the refund window in 2025?"
CHAIN_PROFILES = sorted(name for name, p in PROFILES.items() if p.chains and p.gates and p.use_intent)


def _candidates(cos_v1: tuple[float, float], cos_v2: float) -> Candidates:
    """Rows: v1 passage a, v1 passage b, v2 passage, and an unrelated STATIC note."""
    obj = lambda values: np.array(values, dtype=object)  # noqa: E731
    doc = ["refund_v1", "refund_v1", "refund_v2", "glossary"]
    n = len(doc)
    return Candidates(
        chunk_id=obj(["refund_v1:0", "refund_v1:1", "refund_v2:0", "glossary:0"]), doc_id=obj(doc),
        text=obj(["Refunds within 30 days of purchase.", "Refund requests go to billing.",
                  "Refunds within 14 days of purchase.", "A refund returns money to the buyer."]),
        title=obj(["Refund policy", "Refund policy", "Refund policy", "Glossary"]), source=obj([""] * n),
        doc_type=obj(["policy", "policy", "policy", "reference"]),
        kind=np.array([1, 1, 1, 0], dtype=np.int8), kind_reason=obj(["declared"] * n),
        version=obj(["1", "1", "2", ""]), lifecycle=obj(["ACTIVE"] * n),
        supersedes=obj([[], [], ["refund_v1"], []]), depends_on=obj([[] for _ in range(n)]),
        raw_cosine=np.array([cos_v1[0], cos_v1[1], cos_v2, 0.42]),
        created_us=np.array([V1_AT, V1_AT, V2_AT, V1_AT], dtype=np.int64), dated=np.ones(n, dtype=bool),
        valid_from_us=np.array([V1_AT, V1_AT, V2_AT, NO_START], dtype=np.int64),
        valid_until_us=np.full(n, NO_END, np.int64), superseded_us=np.full(n, NO_END, np.int64),
        authority=np.full(n, np.nan))


def _knowledge() -> KnowledgeState:
    """The store's view: refund_v2 SUPERSEDES refund_v1 (declared), no events."""
    docs = pa.table({
        "doc_id": pa.array(["refund_v1", "refund_v2", "glossary"], pa.string()),
        "created_at": pa.array([V1_AT, V2_AT, V1_AT], TS),
        "valid_from": pa.array([V1_AT, V2_AT, None], TS),
        "kind": pa.array(["VERSIONED", "VERSIONED", "STATIC"], pa.string()),
        "title": pa.array(["Refund policy", "Refund policy", "Glossary"], pa.string()),
    })
    edges = pd.DataFrame({"edge_id": ["e1"], "src": ["refund_v2"], "dst": ["refund_v1"],
                          "edge_type": ["SUPERSEDES"], "origin": ["declared"], "evidence": [""],
                          "status": ["confirmed"]})
    return KnowledgeState(events=events_frame(EVENTS_SCHEMA.empty_table()), edges=edges,
                          graph=KnowledgeGraph.from_edges(edges, ["refund_v1", "refund_v2"]), docs=docs)


def _ask(profile: str, cands: Candidates):
    p = PROFILES[profile]
    return answer(cands, QueryRequest(QUESTION, AS_OF, p, k=5), p, _knowledge())


def test_question_names_a_period_that_both_versions_were_in_force_in():
    resp = _ask("default", _candidates((0.80, 0.50), 0.60))
    assert resp.intent["range_mode"] == "hard"
    assert resp.intent["time_range"] == ["2025-01-01T00:00:00Z", "2026-01-01T00:00:00Z"]
    assert "range_ignored" not in resp.intent
    # without the period the superseded gate would have rejected v1 at as_of: here it must not be
    # the reason (it is a candidate of the period), only the chain's one-version rule is
    assert not any(r.id == "refund_v1" and r.code == RejectionCode.OUT_OF_TIME_RANGE for r in resp.rejections)


@pytest.mark.parametrize("profile", CHAIN_PROFILES)
def test_the_older_version_wins_when_its_passage_scores_higher(profile):
    resp = _ask(profile, _candidates((0.80, 0.65), 0.60))
    kept = [r.id for r in resp.results]
    assert "refund_v1" in kept and "refund_v2" not in kept
    # the winner keeps all of its surviving passages (both of v1's), the loser none
    assert {r.chunk_id for r in resp.results if r.id == "refund_v1"} == {"refund_v1:0", "refund_v1:1"}
    codes = {r.id: r.code for r in resp.rejections}
    assert codes.get("refund_v2") == RejectionCode.SUPERSEDED_IN_CHAIN
    assert "glossary" in kept   # not in a chain: untouched by the chain rule


@pytest.mark.parametrize("profile", CHAIN_PROFILES)
def test_the_newer_version_wins_when_its_passage_scores_higher(profile):
    resp = _ask(profile, _candidates((0.55, 0.50), 0.85))
    kept = [r.id for r in resp.results]
    assert "refund_v2" in kept and "refund_v1" not in kept
    codes = {r.id: r.code for r in resp.rejections}
    assert codes.get("refund_v1") == RejectionCode.SUPERSEDED_IN_CHAIN


def test_the_best_passage_decides_not_the_document_average():
    """v1's passages average 0.55 (< v2's 0.70) but its best (0.90) beats v2's best: v1 wins."""
    resp = _ask("default", _candidates((0.90, 0.20), 0.70))
    kept = [r.id for r in resp.results]
    assert "refund_v1" in kept and "refund_v2" not in kept
