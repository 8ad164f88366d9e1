"""Trust and memory strength of a document, vectorised over documents.

Two closed forms built on the paper's ConfidenceEngine (``seeds/smartvector-paper-summary-zh.txt``,
section 2.4 "ConfidenceEngine"; the review's "confidence follows a closed-form function of
exponential decay, user feedback, and access reinforcement"), split as DESIGN.md "Trust model"
asks ("a version in force does not lose trust by being old: age is the temporal signal's
business; Ebbinghaus decay is memory strength")::

    trust(t)  = clamp( C0                               the source's authority
                       + Σ feedback deltas              reconsolidation: accept +0.03, correct −0.08
                       + access_gain · ln(1 + n)        logarithmic access reinforcement
                       + Σ penalty deltas,              ripple / contradiction penalties (≤ 0)
                       floor, ceiling ) × s             s = superseded_factor once a newer version
                                                        of its chain is in force, else 1

    strength(t) = clamp( C0 · 2^(−Δ/H) + the same three sums, floor, ceiling )
                  Δ = as_of − max(ingested_at, last access), in days

with C0 the initial (authority) confidence, ``H`` the document's half-life in days, ``n`` the
number of ACCESS events so far, floor 0.01 and ceiling 1.0
(:class:`~smartvector_core.config.ConfidenceConfig`).

- **trust** (:func:`live_trust`) is what every result, the feedback message, the graph and the
  audit charts show. It has no age term: an old version that is still in force is as credible
  as the day it was written (the paper's ``2^(−age/H)`` counted from ``created_at`` made a valid
  policy of 2023 look less credible than a rumour of last week). Supersession is the one way
  time lowers it: a replaced version keeps ``superseded_factor`` (0.5, ours) of its trust.
- **memory strength** (:func:`memory_strength`) is the paper's Ebbinghaus curve, kept for what
  it is about: whether anybody still uses a document. It drives lifecycle (ACTIVE → DORMANT for
  what nobody asks about) and is counted from ingest or the last access, never from
  ``created_at`` (a corpus of old articles is not dormant on the day it is loaded).

Choices shared by both (the paper leaves them open): feedback, access reinforcement and
penalties do not fade: an explicit judgement ("this is wrong", "this is right") is a fact about
the document, not a memory trace, so a correction made a year ago still counts in full. Penalty
events always lower the value: their delta is taken as −|delta| whatever sign the writer used.
Every sum counts only events with ``at_us <= as_of_us``, so the value at a past moment can be
reproduced after later feedback was appended.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..clock import US_PER_DAY
from ..config import DEFAULT_CONFIDENCE, ConfidenceConfig
from ..errors import InputError
from ..models import EventType
from ..temporal.codes import NO_START

#: ``last_access_us`` of a document that was never accessed (before ``as_of``): the temporal
#: layer's "no start" sentinel (:data:`~smartvector_core.temporal.codes.NO_START`).
NO_ACCESS_US = NO_START

FEEDBACK_EVENTS = (EventType.FEEDBACK_ACCEPT.value, EventType.FEEDBACK_CORRECT.value,
                   EventType.FEEDBACK_UNDO.value)   # an undo's delta is the reverse of what it undoes
PENALTY_EVENTS = (EventType.RIPPLE.value, EventType.CONTRADICTION.value)
#: appended when a supersession or an operator settles a contradiction: +|delta| undoes its penalty
SETTLEMENT_EVENTS = (EventType.CONTRADICTION_SETTLED.value,)
ACCESS_EVENTS = (EventType.ACCESS.value,)
_REQUIRED_COLUMNS = ("doc_id", "event_type", "at_us", "delta")


@dataclass(frozen=True)
class EventAggregates:
    """Per-document sums of the event table up to ``as_of_us``, aligned with ``doc_ids``.

    ``feedback_sum``: Σ delta of FEEDBACK_ACCEPT / FEEDBACK_CORRECT / FEEDBACK_UNDO events.
    ``penalty_sum``: Σ −|delta| of RIPPLE / CONTRADICTION events + Σ |delta| of
    CONTRADICTION_SETTLED events (each reverses one contradiction penalty; ≤ 0).
    ``access_count``: number of ACCESS events.
    ``last_access_us``: time of the latest ACCESS event, :data:`NO_ACCESS_US` when none.
    """

    doc_ids: np.ndarray
    feedback_sum: np.ndarray
    penalty_sum: np.ndarray
    access_count: np.ndarray
    last_access_us: np.ndarray
    as_of_us: int

    @classmethod
    def empty(cls, doc_ids: np.ndarray | list[str], as_of_us: int) -> EventAggregates:
        ids = np.asarray(doc_ids, dtype=object)
        n = len(ids)
        return cls(ids, np.zeros(n), np.zeros(n), np.zeros(n, dtype=np.int64),
                   np.full(n, NO_ACCESS_US, dtype=np.int64), int(as_of_us))

    def __len__(self) -> int:
        return len(self.doc_ids)


def _column(events: pd.DataFrame | Mapping[str, Any], name: str) -> np.ndarray:
    return np.asarray(events[name])


_FEEDBACK, _PENALTY, _ACCESS, _SETTLED = 0, 1, 2, 3


def _event_category(uniques: Any) -> np.ndarray:
    """0 feedback, 1 penalty, 2 access, −1 other, per distinct event type."""
    category = {**dict.fromkeys(FEEDBACK_EVENTS, _FEEDBACK), **dict.fromkeys(PENALTY_EVENTS, _PENALTY),
                **dict.fromkeys(SETTLEMENT_EVENTS, _SETTLED),
                **dict.fromkeys(ACCESS_EVENTS, _ACCESS)}
    return np.asarray([category.get(str(u), -1) for u in uniques], dtype=np.int64)


def _lookup(values: Any, per_unique: Any) -> np.ndarray:
    """Apply ``per_unique`` (distinct values -> int array) to every value; −1 for missing."""
    codes, uniques = pd.factorize(values if isinstance(values, pd.Series) else np.asarray(values))
    if len(uniques) == 0:
        return np.full(len(codes), -1, dtype=np.int64)
    mapped = np.asarray(per_unique(uniques), dtype=np.int64)
    return np.where(codes >= 0, mapped[np.maximum(codes, 0)], -1)


def _times_us(values: np.ndarray) -> np.ndarray:
    """int64 microseconds from an int or datetime64 column."""
    if np.issubdtype(values.dtype, np.datetime64):
        return values.astype("datetime64[us]").astype(np.int64)
    return values.astype(np.int64, copy=False)


def aggregate_events(events: pd.DataFrame | Mapping[str, Any] | None,
                     doc_ids: np.ndarray | list[str], as_of_us: int) -> EventAggregates:
    """Sum the event table per document, counting only events with ``at_us <= as_of_us``.

    ``events``: a DataFrame or a mapping of equal-length arrays with columns ``doc_id``,
    ``event_type`` (EventType values), ``at_us`` (int64 µs or datetime64) and ``delta``.
    Events of documents outside ``doc_ids`` and of other event types are ignored; a NaN
    delta counts as 0. One hash lookup per event and ``np.bincount``: no Python loop.
    """
    ids = np.asarray(doc_ids, dtype=object)
    index = pd.Index(ids)
    if not index.is_unique:
        dupes = sorted(map(str, index[index.duplicated()].unique()))[:5]
        raise InputError(f"expected unique doc ids, found duplicates {dupes}", field="doc_ids")
    if events is None:
        return EventAggregates.empty(ids, as_of_us)
    missing = [c for c in _REQUIRED_COLUMNS if c not in events]
    if missing:
        raise InputError(f"expected event columns {list(_REQUIRED_COLUMNS)}, missing {missing}",
                         field="events")
    at_us = _times_us(_column(events, "at_us"))
    if len(at_us) == 0:
        return EventAggregates.empty(ids, as_of_us)
    # factorize first: a hash pass over the events, then lookups among the few distinct values
    position = _lookup(events["doc_id"], lambda uniques: index.get_indexer(uniques))
    category = _lookup(events["event_type"], _event_category)
    keep = (position >= 0) & (at_us <= int(as_of_us)) & (category >= 0)
    position, at_us, category = position[keep], at_us[keep], category[keep]
    delta = np.nan_to_num(_column(events, "delta")[keep].astype(np.float64), nan=0.0)
    n = len(ids)

    def total(mask: np.ndarray, weights: np.ndarray | None) -> np.ndarray:
        return np.bincount(position[mask], weights=None if weights is None else weights[mask],
                           minlength=n)

    is_feedback, is_penalty, is_access = category == _FEEDBACK, category == _PENALTY, category == _ACCESS
    last_access = np.full(n, NO_ACCESS_US, dtype=np.int64)
    np.maximum.at(last_access, position[is_access], at_us[is_access])
    return EventAggregates(
        doc_ids=ids,
        feedback_sum=total(is_feedback, delta).astype(np.float64),
        penalty_sum=(total(category == _SETTLED, np.abs(delta)) - total(is_penalty, np.abs(delta))).astype(np.float64),
        access_count=total(is_access, None).astype(np.int64),
        last_access_us=last_access,
        as_of_us=int(as_of_us),
    )


def initial_confidence(authority: float | None = None, source: str | None = None,
                       config: ConfidenceConfig = DEFAULT_CONFIDENCE) -> float:
    """C0: the document's own ``authority`` if given, else its source's, else the default.

    ``source`` is looked up case-insensitively in ``config.source_authority``
    (paper: "initial source authority"); the result is clamped to [floor, ceiling].
    """
    if authority is not None and not (isinstance(authority, float) and math.isnan(authority)):
        value = float(authority)
    elif source and source.strip().lower() in config.source_authority:
        value = float(config.source_authority[source.strip().lower()])
    else:
        value = float(config.default_authority)
    return min(max(value, config.floor), config.ceiling)


def decayed_base(c0: np.ndarray | float, since_us: np.ndarray | int,
                 half_life_days: np.ndarray | float, as_of_us: int) -> np.ndarray:
    """C0 · 2^(−Δ/H), Δ = as_of − since in days, clipped at 0 when ``since`` is after ``as_of``.

    ``half_life_days`` must be > 0; ``inf`` means no decay.
    """
    half_life = np.asarray(half_life_days, dtype=np.float64)
    if np.any(~(half_life > 0)):
        raise InputError(f"expected half-lives > 0 days, found {half_life[~(half_life > 0)][:5]}",
                         field="half_life_days")
    age_days = np.maximum(int(as_of_us) - np.asarray(since_us, dtype=np.int64), 0) / US_PER_DAY
    return np.asarray(c0, dtype=np.float64) * np.exp2(-age_days / half_life)


def _authority(authority: np.ndarray, aggregates: EventAggregates, as_of_us: int,
               config: ConfidenceConfig) -> np.ndarray:
    """C0 per document (NaN: ``config.default_authority``), checked against ``aggregates``."""
    c0 = np.asarray(authority, dtype=np.float64)
    c0 = np.where(np.isnan(c0), config.default_authority, c0)
    if c0.shape != (len(aggregates),):
        raise InputError(f"expected {len(aggregates)} authorities (one per aggregated doc), "
                         f"found shape {c0.shape}", field="authority")
    if int(as_of_us) != aggregates.as_of_us:
        raise InputError(f"expected aggregates built at as_of_us={int(as_of_us)}, "
                         f"found {aggregates.as_of_us}", field="aggregates")
    return c0


def _event_terms(aggregates: EventAggregates, config: ConfidenceConfig) -> np.ndarray:
    """Σ feedback + access_gain·ln(1+n_access) + Σ penalties per document."""
    return (aggregates.feedback_sum + config.access_gain * np.log1p(aggregates.access_count)
            + aggregates.penalty_sum)


def live_trust(authority: np.ndarray, as_of_us: int, aggregates: EventAggregates,
               superseded: np.ndarray | None = None,
               config: ConfidenceConfig = DEFAULT_CONFIDENCE) -> np.ndarray:
    """Trust at ``as_of`` per document, in [config.floor, config.ceiling].

    trust = clamp(C0 + feedback_sum + access_gain·ln(1+n_access) + penalty_sum, floor, ceiling),
    times ``config.superseded_factor`` where ``superseded`` (a newer version of its chain is in
    force at ``as_of``). No age term (DESIGN.md "Trust model"; module docstring). ``authority``
    is C0 per document (see :func:`initial_confidence`); NaN means ``config.default_authority``.
    Arrays are aligned with ``aggregates.doc_ids``.

    Worked example (tests/memory/test_confidence.py): C0 0.70, one accept (+0.03), no access:
    0.73 at any age; one correct instead: 0.62; superseded with neither: 0.35.
    """
    c0 = _authority(authority, aggregates, as_of_us, config)
    trust = np.clip(c0 + _event_terms(aggregates, config), config.floor, config.ceiling)
    if superseded is not None:
        replaced = np.asarray(superseded, dtype=bool)
        if replaced.shape != trust.shape:
            raise InputError(f"expected {len(trust)} superseded flags, found shape {replaced.shape}",
                             field="superseded")
        trust = np.where(replaced, np.maximum(trust * config.superseded_factor, config.floor), trust)
    return trust


def memory_strength(authority: np.ndarray, ingested_us: np.ndarray, half_life_days: np.ndarray | float,
                    as_of_us: int, aggregates: EventAggregates,
                    config: ConfidenceConfig = DEFAULT_CONFIDENCE) -> np.ndarray:
    """Ebbinghaus memory strength at ``as_of`` per document, in [config.floor, config.ceiling].

    strength = clamp(C0·2^(−Δ/H) + feedback_sum + access_gain·ln(1+n_access) + penalty_sum,
    floor, ceiling), Δ = as_of − max(ingested_at, last access) in days (paper, section 2.4 and
    "未访问的向量置信度指数衰减": the confidence of vectors nobody accesses decays; counted from
    ingest, never from ``created_at``). This drives lifecycle (ACTIVE → DORMANT below the
    dormancy threshold); it is not the document's trust (:func:`live_trust`).
    """
    c0 = _authority(authority, aggregates, as_of_us, config)
    since = np.maximum(np.asarray(ingested_us, dtype=np.int64), aggregates.last_access_us)
    raw = decayed_base(c0, since, half_life_days, as_of_us) + _event_terms(aggregates, config)
    return np.clip(raw, config.floor, config.ceiling)
