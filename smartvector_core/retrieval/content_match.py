"""The ``content_time`` signal over a candidate set: the period a question names against the
periods written in each passage (:mod:`smartvector_core.temporal.content_time`).

It applies to passages of documents whose metadata carries no validity window (neither
``valid_from`` nor ``valid_until``): there the text is the only record of when its facts held.
Elsewhere the validity window owns the question's period (the gates and ``in_range``), and the
signal's weight is 0. It only ranks: a passage it applies to whose spans miss the period, or
that has none, is scored lower and never rejected.
"""

from __future__ import annotations

import numpy as np

from ..store_schema import content_spans
from ..temporal.codes import NO_END, NO_START
from ..temporal.content_time import DEFAULT_CONTENT_TIME, ContentTimeConfig, content_time_signal


def windowless(cands) -> np.ndarray:
    """Candidates whose document declares no validity window."""
    return (cands.valid_from_us == NO_START) & (cands.valid_until_us == NO_END)


def spans_of(cands) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(offsets, starts, ends) of the candidates' content spans (no spans where none were kept)."""
    if cands.content_start is None or cands.content_end is None:
        z = np.zeros(0, dtype=np.int64)
        return np.zeros(len(cands) + 1, dtype=np.int64), z, z
    return content_spans(cands.content_start, cands.content_end)


def content_time_values(cands, period: tuple[int, int] | None,
                        config: ContentTimeConfig = DEFAULT_CONTENT_TIME) -> tuple[np.ndarray, np.ndarray]:
    """(the ``content_time`` signal per candidate, where it applies): zeros and nowhere when the
    question names no period."""
    n = len(cands)
    if period is None or n == 0:
        return np.zeros(n), np.zeros(n, dtype=bool)
    offsets, starts, ends = spans_of(cands)
    return content_time_signal(period, offsets, starts, ends, config), windowless(cands)


def speaks_of(cands, period: tuple[int, int]) -> np.ndarray:
    """Windowless candidates with a span overlapping ``period`` (half-open): their text says
    what held during it, so a period filter keeps them whenever they were written."""
    offsets, starts, ends = spans_of(cands)
    overlap = (starts < period[1]) & (ends > period[0])
    owner = np.repeat(np.arange(len(cands)), np.diff(offsets))
    hit = np.zeros(len(cands), dtype=bool)
    hit[owner[overlap]] = True
    return hit & windowless(cands)
