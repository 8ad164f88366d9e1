"""The answer-confidence stage: per returned passage, the calibrated probability that it is right
and current (:func:`result_confidence`), and whether the answer abstains: nothing in the store is
about the question (:func:`abstention`), or nothing about it was in force at the moment judged
(:func:`out_of_force`).

The maths (certainty, calibration knots, the word support) is :mod:`.calibration`'s; this module
picks the arrays it reads from one query's candidates and reranking.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..clock import from_us, iso
from ..config import DEFAULT_ENGINE, EngineConfig
from ..config.query import DEFAULT_ABSTENTION, AbstentionConfig
from ..temporal import STATE_TEMPORAL, STATE_VALID, confidence_tiers
from . import calibration, confidence_model
from .candidates import Candidates, stable_top
from .profiles import Profile
from .query_cache import Knots
from .rerank import CODES, Ranked

OUT_OF_FORCE = "nothing about this was in force"     # how :func:`out_of_force`'s reason begins


@dataclass(frozen=True)
class ResultConfidence:
    """Per returned passage (``top``, in rank order): its profile score, margin over the best
    disagreeing kept candidate, trust, whether it is current (VALID or TEMPORAL), conflict
    severity, certainty (the profile's confidence model on the passage's evidence,
    :mod:`.confidence_model`; :func:`.calibration.certainty` where no model is shipped),
    probability (calibrated, held to at most the rank above's (:func:`.calibration.held_to_rank`),
    capped when the answer abstains), tier, the evidence rows and the
    factors that moved each confidence most."""

    scores: np.ndarray
    margins: np.ndarray
    trust: np.ndarray
    current: np.ndarray
    severity: np.ndarray
    certainty: np.ndarray
    probability: np.ndarray
    tiers: np.ndarray
    features: np.ndarray | None = None          # the evidence rows (confidence_model.FEATURES)
    factors: list[list[str]] | None = None      # per passage, what moved its confidence most, in words
    model: confidence_model.ConfidenceModel | None = None
    own: np.ndarray | None = None               # each passage's probability before the rank cap

    def why_lower(self) -> str | None:
        """Why a later rank's own evidence reads higher than rank 1's (its confidence is held at
        rank 1's, :func:`calibration.held_to_rank`), in the model's words."""
        own = self.probability if self.own is None else self.own
        return None if self.model is None else confidence_model.why_lower(self.model, self.features, own)


def result_confidence(cands: Candidates, ranked: Ranked, top: np.ndarray, profile: Profile, *,
                      knots: Knots | None = None, abstained: bool = False,
                      config: EngineConfig = DEFAULT_ENGINE, asked: confidence_model.QuestionWords | None = None,
                      t_us: int | None = None, words: calibration.TextWords | None = None) -> ResultConfidence:
    """The confidence of the ``top`` rows (indices into ``cands``). Reads: the scores of every
    kept row (``ranked.order``: the margins are against the best kept row of another version
    chain, or of another document when it has no chain), and of the top rows their score, trust
    (``ranked.trust``), validity state and conflict severity; ``knots``: the store's refit of the
    profile (None: the shipped prior); capped at ``config.abstention.cap`` when ``abstained``;
    tiers are ``config.temporal.tiers`` thresholds on the probability. ``words``: the
    :func:`pool_words` of ``cands`` when the caller has them (None: read here)."""
    kept = ranked.order
    groups = np.where(ranked.chain[kept] >= 0, ranked.chain[kept], -1 - cands.doc_code[kept])
    at = np.empty(len(cands), dtype=np.intp)
    at[kept] = np.arange(len(kept))
    margins = calibration.disagreeing_margins(ranked.score[kept].astype(np.float64), groups)[at[top]]
    scores = ranked.score[top].astype(np.float64)
    severity = ranked.severity[top] if ranked.severity is not None else np.zeros(len(top))
    trust = ranked.trust[top]
    states = ranked.states[top]
    current = (states == STATE_VALID) | (states == STATE_TEMPORAL)
    features = model = None
    factors = [[] for _ in top]
    if reads_evidence(profile):
        texts = cands.title_text if words is None else words
        values = ranked.signals.values
        created = cands.created_us[top]
        features = confidence_model.evidence(
            asked or confidence_model.question_words(""), top=top, kept=kept, raw_cosine=cands.raw_cosine,
            score=ranked.score, margins=margins, groups_kept=groups, texts=texts, trust=trust, current=current,
            severity=severity, temporal=values.get("temporal"), content_time=values.get("content_time"),
            range_ignored=ranked.range_ignored, chain=ranked.chain, versions=cands.version,
            age_days=((created.max(initial=0) if t_us is None else t_us) - created) / 86_400_000_000,
            generic_share=config.abstention.generic_share,
            groups=np.where(ranked.chain >= 0, ranked.chain, -1 - cands.doc_code),
            gated=ranked.time_gated)
        model = confidence_model.prior_model(profile.name)
    if model is not None:
        values = model.aligned(features)
        x, contrib = model.certainty_and_contributions(values)
        factors = confidence_model.factors(model, values, model.features, contributions=contrib)
    else:
        x = calibration.certainty(scores, margins, trust, current, severity, config.calibration)
    own = calibration.calibrate(profile.name, x, knots, raw_scores=scores)
    probability = calibration.held_to_rank(own)
    if abstained:
        probability = np.minimum(probability, config.abstention.cap)
    return ResultConfidence(scores, margins, trust, current, severity, x, probability,
                            confidence_tiers(probability, config.temporal.tiers), features, factors, model, own)


def reads_evidence(profile: Profile) -> bool:
    """Whether the profile's confidence reads the evidence features (every profile but ``naive``,
    whose confidence is :func:`calibration.certainty` of its scores)."""
    return profile.name != "naive"


def pool_words(cands: Candidates, profile: Profile) -> calibration.TextWords | None:
    """The words of every candidate's title and text (:func:`calibration.text_words` of
    :attr:`Candidates.title_text`), read once per query for the confidence evidence and
    :func:`out_of_force`; None for a profile that reads no evidence (:func:`reads_evidence`)."""
    return calibration.text_words(cands.title_text) if reads_evidence(profile) else None


def abstention(cands: Candidates, question: str, config: AbstentionConfig = DEFAULT_ABSTENTION) -> str | None:
    """Why nothing in the store answers ``question`` (None: something does), judged on every
    candidate that existed at ``as_of`` before any gate: the best raw cosine, and whether the
    question's words occur in the best ``config.support_pool`` candidates
    (:func:`calibration.abstains`; the words are only read when the best cosine leaves it open,
    :func:`calibration.support_decides`)."""
    if not len(cands):
        return "nothing in the store existed at this moment"
    best = stable_top(cands.raw_cosine, config.support_pool)
    best_cosine = float(cands.raw_cosine[best[0]])
    support = 0.0                # read only where the cosine alone does not decide
    if calibration.support_decides(best_cosine, config):
        texts = [None if text is None else joined for text, joined in zip(cands.text, cands.title_text, strict=True)]
        support = calibration.lexical_support(question, [texts[i] for i in best], texts, config.generic_share)
    return calibration.abstains(best_cosine, support, config)


def out_of_force(cands: Candidates, ranked: Ranked, asked: confidence_model.QuestionWords, t_us: int,
                 config: AbstentionConfig = DEFAULT_ABSTENTION, words: calibration.TextWords | None = None
                 ) -> str | None:
    """Why the answer abstains although the store is about the question (None: it does not):
    everything about it was ruled out by the question's time, and what is left is about something
    else ("the API rate limit as of March 2025" when the first rate-limit policy starts in June).

    Of the best ``config.support_pool`` candidates (by raw cosine) that a time or version rule
    removed (:data:`.rerank.TIME_RULES`), and of the best as many kept ones (by raw cosine, and
    the first by score), ``coverage`` is the share of the question's subject words
    (``asked.topic``: its content words less its time) found in the passage, by the rule of
    :func:`.confidence_model.word_presence`. It abstains when

        max coverage(kept) < g,   max coverage(removed) − max coverage(kept) ≥ g
        and max cosine(removed) > max cosine(kept)          (g = config.in_force_gap)

    that is, no kept passage holds half the subject words (g = 0.5), the removed ones hold half
    of them more, and the question is closer to them (no kept candidate: its coverage and cosine
    are 0 and −∞). "The refund window as of March 2025", answered by the 2024 refund policy
    ("refunds", not "window": coverage 0.5), does not abstain. ``words``: the :func:`pool_words`
    of ``cands`` when the caller has them (each term's presence is then read once per query)."""
    gated = ranked.time_gated
    if not asked.topic or not gated.any():
        return None
    n = config.support_pool
    cos = cands.raw_cosine
    removed = gated.nonzero()[0]
    removed = removed[stable_top(cos[removed], n)]
    kept = ranked.order
    kept = np.unique(np.concatenate([kept[:n], kept[stable_top(cos[kept], n)]])).astype(np.intp)
    rows = np.concatenate([removed, kept]).astype(np.intp)
    if words is None:
        coverage = confidence_model.word_presence([cands.title_text[i] for i in rows], asked.topic, prefix=True)
    else:
        coverage = confidence_model.word_presence(words, asked.topic, prefix=True)[:, rows]
    coverage = coverage.mean(axis=0)
    covered = coverage[len(removed):].max(initial=0.0)
    gap = coverage[:len(removed)].max() - covered
    closer = cos[removed].max() > cos[kept].max(initial=-np.inf)
    if covered >= config.in_force_gap or gap < config.in_force_gap or not closer:
        return None
    best = removed[int(np.argmax(coverage[:len(removed)]))]
    code = CODES[int(ranked.reject_code[best])].value
    moment = iso(from_us(int(t_us)))[:10]
    return (f"{OUT_OF_FORCE} at {moment}: the passages about it were ruled out by time "
            f"({cands.doc_id[best]}: {code}); what is left is about something else")
