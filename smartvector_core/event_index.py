"""Per-document event sums at any ``as_of`` in O(candidates · log events), for the query path.

:func:`memory.aggregate_events` scans the whole events table on every call; a query asks for
the aggregates of ~60–1,000 candidates, twice, against a table that grows with every query. The
:class:`EventIndex` sorts each category of events (feedback, ripple, contradiction, access)
once by (document, time) under one integer key ``doc_code · (U + 1) + time_rank`` (``U`` distinct
event times), so the events of document ``d`` up to ``as_of`` are the contiguous key range
``[d·(U+1) + 1, d·(U+1) + rank(as_of)]``: two ``searchsorted`` calls per category, then a
``bincount`` over just the events of the candidates. Same sums as ``aggregate_events``
(module :mod:`smartvector_core.memory.confidence`): feedback Σ delta, penalty Σ −|delta|
(ripple optional) + Σ |delta| of contradiction settlements, access count and last access time; a NaN delta counts as 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .memory.confidence import (
    ACCESS_EVENTS,
    FEEDBACK_EVENTS,
    NO_ACCESS_US,
    EventAggregates,
    _times_us,
    aggregate_events,
)
from .models import EventType

_CATEGORIES = {"feedback": FEEDBACK_EVENTS, "ripple": (EventType.RIPPLE.value,),
               "contradiction": (EventType.CONTRADICTION.value,), "access": ACCESS_EVENTS,
               "settled": (EventType.CONTRADICTION_SETTLED.value,)}


@dataclass
class _Sorted:
    keys: np.ndarray        # int64, ascending
    at_us: np.ndarray
    value: np.ndarray       # delta (feedback), −|delta| (penalties), unused for access


@dataclass
class EventIndex:
    """Sorted event arrays of one events frame (its first ``size`` rows)."""

    position: dict[str, int]
    times: np.ndarray       # distinct event times, ascending
    parts: dict[str, _Sorted]
    size: int

    @classmethod
    def build(cls, events: pd.DataFrame) -> EventIndex:
        size = len(events)
        if not size:
            return cls({}, np.zeros(0, dtype=np.int64), {}, 0)
        codes, uniques = pd.factorize(np.asarray(events["doc_id"], dtype=object))
        position = {str(u): i for i, u in enumerate(uniques)}
        at_us = _times_us(np.asarray(events["at_us"]))
        times = np.unique(at_us)
        key = codes.astype(np.int64) * (len(times) + 1) + np.searchsorted(times, at_us) + 1
        delta = np.nan_to_num(np.asarray(events["delta"], dtype=np.float64), nan=0.0)
        etype = np.asarray(events["event_type"], dtype=object)
        parts = {}
        for name, members in _CATEGORIES.items():
            mask = np.isin(etype, list(members)) & (codes >= 0)
            order = np.argsort(key[mask], kind="stable")
            value = (delta[mask] if name == "feedback" else np.abs(delta[mask]) if name == "settled"
                     else -np.abs(delta[mask]))
            parts[name] = _Sorted(key[mask][order], at_us[mask][order], value[order])
        return cls(position, times, parts, size)

    def _ranges(self, part: _Sorted, codes: np.ndarray, as_of_us: int) -> tuple[np.ndarray, np.ndarray]:
        base = np.maximum(codes, 0).astype(np.int64) * (len(self.times) + 1)
        rank = int(np.searchsorted(self.times, int(as_of_us), side="right"))
        lo = np.searchsorted(part.keys, base + 1, side="left")
        hi = np.searchsorted(part.keys, base + rank, side="right")
        hi = np.where(codes >= 0, np.maximum(hi, lo), lo)
        return lo, hi

    @staticmethod
    def _sum(part: _Sorted, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        lengths = hi - lo
        total = int(lengths.sum())
        if not total:
            return np.zeros(len(lo))
        owner = np.repeat(np.arange(len(lo)), lengths)
        starts = np.repeat(lo - np.r_[0, np.cumsum(lengths)[:-1]], lengths)
        return np.bincount(owner, weights=part.value[starts + np.arange(total)], minlength=len(lo))

    def aggregate(self, doc_ids: np.ndarray, as_of_us: int, *, ripple: bool = True) -> EventAggregates:
        ids = np.asarray(doc_ids, dtype=object)
        n = len(ids)
        if not self.size:
            return EventAggregates.empty(ids, as_of_us)
        get = self.position.get
        codes = np.array([get(d, -1) for d in ids.tolist()], dtype=np.int64).reshape(n)
        feedback = self._sum(self.parts["feedback"], *self._ranges(self.parts["feedback"], codes, as_of_us))
        penalty = self._sum(self.parts["contradiction"],
                            *self._ranges(self.parts["contradiction"], codes, as_of_us))
        penalty = penalty + self._sum(self.parts["settled"], *self._ranges(self.parts["settled"], codes, as_of_us))
        if ripple:
            penalty = penalty + self._sum(self.parts["ripple"],
                                          *self._ranges(self.parts["ripple"], codes, as_of_us))
        access = self.parts["access"]
        lo, hi = self._ranges(access, codes, as_of_us)
        count = (hi - lo).astype(np.int64)
        last = np.full(n, NO_ACCESS_US, dtype=np.int64)
        has = count > 0
        last[has] = access.at_us[hi[has] - 1]
        return EventAggregates(ids, feedback.astype(np.float64), penalty.astype(np.float64), count, last,
                               int(as_of_us))


def combine(base: EventAggregates, tail: EventAggregates) -> EventAggregates:
    """Aggregates of two disjoint event sets over the same documents."""
    return EventAggregates(base.doc_ids, base.feedback_sum + tail.feedback_sum, base.penalty_sum + tail.penalty_sum,
                           base.access_count + tail.access_count,
                           np.maximum(base.last_access_us, tail.last_access_us), base.as_of_us)


def aggregate_tail(events: pd.DataFrame, start: int, doc_ids: np.ndarray, as_of_us: int,
                   *, ripple: bool) -> EventAggregates:
    """``aggregate_events`` over the rows from ``start`` on (the events appended since the build)."""
    tail = events.iloc[start:]
    if not ripple and len(tail):
        tail = tail[tail["event_type"] != EventType.RIPPLE.value]
    return aggregate_events(tail, doc_ids, as_of_us)
