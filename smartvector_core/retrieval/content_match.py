"""The ``content_time`` signal over a candidate set: the period a question names against the
periods written in each passage (:mod:`smartvector_core.temporal.content_time`).

It applies to passages of documents whose metadata carries no validity window (neither
``valid_from`` nor ``valid_until``): there the text is the only record of when its facts held.
Elsewhere the validity window owns the question's period (the gates and ``windows.in_range``), and the
signal's weight is 0. It only ranks: a passage it applies to whose spans miss the period, or
that has none, is scored lower and never rejected.
"""

from __future__ import annotations

import numpy as np

from ..clock import from_us
from ..config import DEFAULT_DOC_TYPE
from ..config.temporal import ContentTimeConfig
from ..store.schema import content_spans
from ..temporal.codes import KIND_STATIC, NO_END, NO_START
from ..temporal.content_time import DEFAULT_CONTENT_TIME, content_time_signal
from ..temporal.kinds import NEWS_DOC_TYPES


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


# doc types whose documents tell of other times than their own (an encyclopedia article, a
# reference page, a text of no declared type): a period in the question is about the periods
# their text names. Others (a news story, a study, a report, a changelog) are records of their
# own moment: a period is about when they were written.
TEXT_DATED_DOC_TYPES = frozenset({"reference", DEFAULT_DOC_TYPE})


def dated_by_text(cands) -> np.ndarray:
    """Candidates whose text, not their metadata, says when their facts held: windowless STATIC
    documents of a doc type in :data:`TEXT_DATED_DOC_TYPES`."""
    told = np.isin(np.asarray(cands.doc_type, dtype=str), sorted(TEXT_DATED_DOC_TYPES))
    return windowless(cands) & (cands.kind == KIND_STATIC) & told


def judged_by_text(cands) -> np.ndarray:
    """Candidates a period in the question never rejects: those :func:`dated_by_text` whose
    text names some period (:func:`content_time_values` ranks them)."""
    offsets, _, _ = spans_of(cands)
    return dated_by_text(cands) & (np.diff(offsets) > 0)


def _names(cands, period: tuple[int, int]) -> np.ndarray:
    """Candidates with a content span overlapping ``period`` (half-open)."""
    offsets, starts, ends = spans_of(cands)
    overlap = (starts < period[1]) & (ends > period[0])
    owner = np.repeat(np.arange(len(cands)), np.diff(offsets))
    hit = np.zeros(len(cands), dtype=bool)
    hit[owner[overlap]] = True
    return hit


def _news_since(cands, start_us: int) -> np.ndarray:
    """Windowless STATIC news (:data:`NEWS_DOC_TYPES`) published at or after ``start_us``."""
    news = np.isin(np.asarray(cands.doc_type, dtype=str), sorted(NEWS_DOC_TYPES))
    return windowless(cands) & (cands.kind == KIND_STATIC) & news & (cands.created_us >= start_us)


def recalls(cands, period: tuple[int, int]) -> np.ndarray:
    """Windowless STATIC news (:data:`NEWS_DOC_TYPES`) published since ``period`` began whose text
    names it: a later report of what happened then (RealTimeQA 2022, tune: a July 2022 poll on
    "trying to hold on to his office after the 2020 election" was ruled out of "2020", which the
    question names as an event, not when to look)."""
    return _news_since(cands, period[0]) & _names(cands, period)


def speaks_of(cands, period: tuple[int, int]) -> np.ndarray:
    """Candidates whose text says what held during ``period``: those :func:`dated_by_text` with a
    span overlapping it, whenever they were written, and the news that :func:`recalls` it (the
    spans are read once for both)."""
    return _names(cands, period) & (dated_by_text(cands) | _news_since(cands, period[0]))


def _label(start: int, end: int) -> str:
    """A span as written for a person: years when it runs from 1 January to 1 January."""
    if start == NO_START:
        return f"until {_label(end - 1, end)}" if end != NO_END else "any time"
    a, b = from_us(int(start)), from_us(int(end) - 1)
    if (a.month, a.day, a.hour) == (1, 1, 0) and (b.month, b.day) == (12, 31):
        return str(a.year) if a.year == b.year else f"{a.year}–{b.year}"
    return a.date().isoformat() if a.date() == b.date() else f"{a.date().isoformat()}–{b.date().isoformat()}"


def content_time_reason(cands, i: int, period: tuple[int, int], value: float) -> str:
    """Why passage ``i`` got its ``content_time`` value: the periods its text names, against the
    question's (one result: the explanation, not the scoring)."""
    offsets, starts, ends = spans_of(cands)
    lo, hi = int(offsets[i]), int(offsets[i + 1])
    asked = _label(*period)
    if lo == hi:
        return f"content time {value:.2f}: its text names no period (asked: {asked})"
    named = ", ".join(dict.fromkeys(_label(int(a), int(b)) for a, b in zip(starts[lo:hi], ends[lo:hi], strict=True)))
    return f"content time {value:.2f}: its text names {named} (asked: {asked})"
