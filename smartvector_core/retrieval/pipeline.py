"""One query, end to end, in stages: intent -> :mod:`.search` (embed once, vector and full-text
search, prefiltered at ``as_of``) -> :mod:`.rerank` (gates, signals, profile score, chains,
pairing, conflicts) -> :mod:`.confidence` (abstention, calibrated confidence) -> :mod:`.explain`
(results and rejections with their reasons).

Nothing here reads the clock: ``as_of`` is the moment the question is asked; a date named in
the question ("as of March 2025") moves the moment of judgement ``t`` but not what existed.
Logging (query log, access events) is the service's job; this module only computes. Every
stage reads the request's :class:`EngineConfig`.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from ..clock import from_us, iso, to_us
from ..config import DEFAULT_ENGINE, EngineConfig
from ..errors import InputError
from ..knowledge import KnowledgeState
from ..models import QueryResponse
from ..temporal import declared_version, parse_intent
from .candidates import PASSAGES_PER_DOCUMENT, Candidates
from .confidence import abstention, out_of_force, pool_words
from .confidence_model import question_words, version_of
from .explain import build_rejections, build_results
from .lexical import subject_terms
from .profiles import Profile, get_profile
from .query_cache import Knots, QueryCache
from .rerank import rerank
from .search import retrieve

GROUP_BY = ("chunk", "document")


@dataclass
class QueryRequest:
    text: str
    as_of: datetime
    profile: Profile
    k: int = 5
    query_id: str = ""
    group_by: str = "chunk"               # chunk: up to k passages; document: one per document
    per_document: int = PASSAGES_PER_DOCUMENT   # most passages of one document (chunk mode)
    config: EngineConfig = DEFAULT_ENGINE      # every threshold the query reads (config/engine.py)
    # documents an operator archived by ``as_of``: doc id -> the ARCHIVED rejection's reason
    archived: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.group_by not in GROUP_BY:
            raise InputError(f"unknown group-by {self.group_by!r}: expected one of {', '.join(GROUP_BY)}",
                             field="group_by")
        if self.per_document < 1:
            raise InputError(f"expected per-document >= 1, found {self.per_document}", field="per_document")

    @property
    def passages_per_document(self) -> int:
        return 1 if self.group_by == "document" else self.per_document


def new_query_id() -> str:
    return uuid.uuid4().hex[:12]


def run_query(store, embedder, request: QueryRequest, *, cache: QueryCache,
              vector: np.ndarray | Future | None = None) -> QueryResponse:
    """Answer one query; ``cache`` is the query cache of the store's knowledge state
    (:class:`.query_cache.QueryCache`); ``vector`` the question's embedding if already computed,
    or being computed (:func:`.search.start_encoding`); else it is embedded here, once."""
    profile = get_profile(request.profile)
    timings: dict[str, float] = {"embed": 0.0}
    waited_ms = 0.0   # what retrieve spent waiting for the embedding (not searching)

    def encode() -> np.ndarray:   # called by retrieve once the full-text search is under way
        nonlocal waited_ms
        t0 = time.perf_counter()
        if isinstance(vector, Future):
            encoded, timings["embed"] = vector.result()
        else:
            encoded = embedder.encode([request.text])[0]
            timings["embed"] = (time.perf_counter() - t0) * 1000
        waited_ms = (time.perf_counter() - t0) * 1000
        return encoded

    t1 = time.perf_counter()
    # the full-text searches feed only the lexical signal: a profile that does not weigh it
    # (naive, temporal, smartvector) does not pay for them
    cands = retrieve(store, vector if isinstance(vector, np.ndarray) else encode, request.as_of, request.k,
                     cache, text=request.text if profile.lexical_weight > 0 else None,
                     config=request.config.search)
    timings["search"] = (time.perf_counter() - t1) * 1000 - waited_ms
    t2 = time.perf_counter()
    response = answer(cands, request, profile, cache.knowledge, knots=cache.calibration_knots(profile.name))
    timings["rerank"] = (time.perf_counter() - t2) * 1000
    response.timings_ms = timings
    return response


def answer(cands: Candidates, request: QueryRequest, profile: Profile, knowledge: KnowledgeState, *,
           knots: Knots | None = None) -> QueryResponse:
    """Rerank ``cands`` and build the explained response (the part measured by ``rerank_1000_ms``);
    ``knots``: the store's calibration of the profile (None: the shipped prior)."""
    as_of_us = to_us(request.as_of)
    config = request.config
    intent = parse_intent(request.text, request.as_of, config.temporal.intent) if profile.use_intent else None
    if intent is not None:   # "2025-Q1" declared as a version by a candidate is that version, not a quarter
        intent = declared_version(intent, set(cands.version.tolist()))
    t_us = as_of_us   # the moment of judgement: a date the question names moves it, a future one too
    if intent is not None and intent.judged_at is not None:
        t_us = to_us(intent.judged_at)
    ranked = rerank(cands, profile, t_us=t_us, intent=intent, knowledge=knowledge,
                    k=request.k, scoring=config.scoring, temporal=config.temporal, archived=request.archived,
                    subject=subject_terms(request.text) if intent is not None else (), asked_us=as_of_us)
    asked = question_words(request.text, intent)
    words = pool_words(cands, profile)
    # "What happened this week?": the week's events are about it, whatever their words
    abstain_reason = None if ranked.window_answered else abstention(cands, request.text, config.abstention)
    if abstain_reason is None and not len(ranked.order) and ranked.archived_any:
        abstain_reason = "every relevant document is archived"
    if abstain_reason is None:
        abstain_reason = out_of_force(cands, ranked, asked, t_us, config.abstention, words)
    results = build_results(cands, ranked, profile, request.k, t_us, knots=knots,
                            abstained=abstain_reason is not None, per_document=request.passages_per_document,
                            config=config, asked=asked, words=words)
    rejections = build_rejections(cands, ranked, t_us, limit=max(25, 3 * request.k), config=config)
    intent_dict = intent.to_dict() if intent is not None else {}
    intent_dict["judged_at"] = iso(from_us(t_us))
    if ranked.range_ignored:
        intent_dict["range_ignored"] = "no relevant document falls in the named period: answered without it"
    return QueryResponse(query_id=request.query_id or new_query_id(), query=request.text,
                         as_of=iso(request.as_of), profile=profile.name, results=results,
                         rejections=rejections, intent=intent_dict, abstained=abstain_reason is not None,
                         abstain_reason=abstain_reason, scoring_version=version_of(config, profile))
