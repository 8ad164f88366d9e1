"""The answer-confidence stage: per returned passage, the calibrated probability that it is right
and current (:func:`result_confidence`), and whether the answer abstains (:func:`abstention`).

The maths (certainty, calibration knots, the word support) is :mod:`.calibration`'s; this module
picks the arrays it reads from one query's candidates and reranking.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..config import DEFAULT_ENGINE, EngineConfig
from ..config.query import DEFAULT_ABSTENTION, AbstentionConfig
from ..temporal import STATE_TEMPORAL, STATE_VALID, confidence_tiers
from . import calibration
from .candidates import Candidates
from .profiles import Profile
from .query_cache import Knots
from .rerank import Ranked


@dataclass(frozen=True)
class ResultConfidence:
    """Per returned passage (``top``, in rank order): its profile score, margin over the best
    disagreeing kept candidate, trust, whether it is current (VALID or TEMPORAL), conflict
    severity, certainty (:func:`.calibration.certainty`), probability (calibrated, capped when
    the answer abstains) and tier."""

    scores: np.ndarray
    margins: np.ndarray
    trust: np.ndarray
    current: np.ndarray
    severity: np.ndarray
    certainty: np.ndarray
    probability: np.ndarray
    tiers: np.ndarray


def result_confidence(cands: Candidates, ranked: Ranked, top: np.ndarray, profile: Profile, *,
                      knots: Knots | None = None, abstained: bool = False,
                      config: EngineConfig = DEFAULT_ENGINE) -> ResultConfidence:
    """The confidence of the ``top`` rows (indices into ``cands``). Reads: the scores of every
    kept row (``ranked.order``: the margins are against the best kept row of another version
    chain, or of another document when it has no chain), and of the top rows their score, trust
    (``ranked.trust``), validity state and conflict severity; ``knots``: the store's refit of the
    profile (None: the shipped prior); capped at ``config.abstention.cap`` when ``abstained``;
    tiers are ``config.temporal.tiers`` thresholds on the probability."""
    kept = ranked.order
    groups = np.where(ranked.chain[kept] >= 0, ranked.chain[kept], -1 - cands.doc_code[kept])
    at = np.empty(len(cands), dtype=np.intp)
    at[kept] = np.arange(len(kept))
    margins = calibration.disagreeing_margins(ranked.score[kept].astype(np.float64), groups)[at[top]]
    scores = ranked.score[top].astype(np.float64)
    severity = ranked.severity[top] if ranked.severity is not None else np.zeros(len(top))
    trust = ranked.trust[top]
    current = np.isin(ranked.states[top], (STATE_VALID, STATE_TEMPORAL))
    x = calibration.certainty(scores, margins, trust, current, severity, config.calibration)
    probability = calibration.calibrate(profile.name, x, knots, raw_scores=scores)
    if abstained:
        probability = np.minimum(probability, config.abstention.cap)
    return ResultConfidence(scores, margins, trust, current, severity, x, probability,
                            confidence_tiers(probability, config.temporal.tiers))


def abstention(cands: Candidates, question: str, config: AbstentionConfig = DEFAULT_ABSTENTION) -> str | None:
    """Why nothing in the store answers ``question`` (None: something does), judged on every
    candidate that existed at ``as_of`` before any gate: the best raw cosine, and whether the
    question's words occur in the best ``config.support_pool`` candidates
    (:func:`calibration.abstains`; the words are only read when the best cosine leaves it open,
    :func:`calibration.support_decides`)."""
    if not len(cands):
        return "nothing in the store existed at this moment"
    best = np.argsort(-cands.raw_cosine, kind="stable")[:config.support_pool]
    best_cosine = float(cands.raw_cosine[best[0]])
    support = 0.0                # read only where the cosine alone does not decide
    if calibration.support_decides(best_cosine, config):
        titles = pa.array(cands.title, pa.large_string()).fill_null("")
        texts = pc.binary_join_element_wise(titles, pa.array(cands.text, pa.large_string()),
                                            pa.scalar(" ", pa.large_string()))
        support = calibration.lexical_support(question, texts.take(pa.array(best)), texts, config.generic_share)
    return calibration.abstains(best_cosine, support, config)
