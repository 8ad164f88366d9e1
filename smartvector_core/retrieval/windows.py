"""Which candidates belong to the time a question names (ours): a hard period's members
(:func:`in_range`), the EVENTs of a soft window ("this week", :func:`ended_in_window`,
:func:`events_in_window`), and the later reports of a date the question judges at
(:func:`recalled_at`, :func:`later_reports_from_asking`). Masks over one candidate set, read by
the reranker's gates and signals."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..clock import US_PER_DAY, to_us
from ..memory.chains import effective_us
from ..temporal import KIND_EVENT, KIND_VERSIONED, STATE_EXPIRED, STATE_TEMPORAL
from .content_match import recalls, speaks_of
from .scoring import current_decay


def in_range(cands, rng, superseded_us) -> np.ndarray:
    """Candidates that belong to the period ``rng`` named in the question: a VERSIONED document
    when the period it was in force overlaps it, an EVENT when its window does, any other
    document when it was published inside it, or when its text names a period overlapping it
    (:func:`.content_match.speaks_of`: a document dated by its text)."""
    start, end = rng
    until = np.minimum(cands.valid_until_us, superseded_us)
    begin = effective_us(cands.valid_from_us, cands.created_us)
    in_force = (begin < end) & (until > start)
    published = (cands.created_us >= start) & (cands.created_us < end)
    event_window = (cands.kind == KIND_EVENT) & in_force
    # a document without a validity window whose text names the period speaks of it (content time)
    return np.where(cands.kind == KIND_VERSIONED, in_force, published | event_window) | speaks_of(cands, rng)


def ended_in_window(cands, states: np.ndarray, soft) -> np.ndarray:
    """EVENTs that ended inside the window the question names: its soft recent window ("this
    week"), or the day it asks about (:func:`day_asked`: an outage from 02:00 to 06:00 on the
    day asked has ended by the day's end, the moment judged). Expired at the moment of
    judgement, yet what the question is about."""
    if soft is None:
        return np.zeros(len(cands), dtype=bool)
    return ((states == STATE_EXPIRED) & (cands.kind == KIND_EVENT) & (cands.valid_until_us >= soft[0])
            & (cands.valid_until_us < soft[1]))


def events_in_window(cands, soft) -> np.ndarray:
    """EVENTs whose window overlaps the soft window the question names ("this week"): over in it
    or still running. They are what "What happened this week?" asks about whatever their words:
    a question of time words alone matches no event's text (this morning's finished
    maintenance: cosine 0.14, under the relevance gate 0.15), so the relevance gate does not
    remove them; the window signal and the cosine still rank them."""
    if soft is None:
        return np.zeros(len(cands), dtype=bool)
    begin = effective_us(cands.valid_from_us, cands.created_us)
    return (cands.kind == KIND_EVENT) & (begin < soft[1]) & (cands.valid_until_us >= soft[0])


def recalled_at(cands, intent, use_intent: bool = True) -> np.ndarray | None:
    """Candidates a judgement moment from a named date ("on January 6, 2021", "as of 2018") does
    not rule out as not yet written: news that :func:`.content_match.recalls` the date's period
    (the rule a named period uses for news), a report published after that day whose text names
    it ("How many minutes did … let violence play out … on January 6, 2021?", asked in July 2022:
    every report of it came later). A version or reference page written later is still not yet
    written then: what it says may not have held at that moment. None when the question names no
    date to judge at."""
    if intent is None or not use_intent or intent.judged_period is None:
        return None
    return recalls(cands, tuple(to_us(t) for t in intent.judged_period))


def day_asked(intent, use_intent: bool = True) -> tuple[int, int] | None:
    """The day the question judges at ("on 12 December", "next Monday": the judgement moment is
    that day's end), as int64 µs ``[start, end)``; None when it names no moment, or one of more
    than a day ("as of 2018" judges the state at the year's end, not what happened in it)."""
    if intent is None or not use_intent or intent.judged_period is None:
        return None
    start, end = (to_us(t) for t in intent.judged_period)
    return (start, end) if end - start <= US_PER_DAY else None


def later_reports_from_asking(pool, later: np.ndarray, asked_us: int | None, scoring, decay_config):
    """``pool`` with the ``current`` decay of ``later`` (reports written after the moment judged
    whose text names it, :func:`recalled_at`) read at the moment asked, ``asked_us``, instead of
    at the moment judged (ours):

        current_i = current_decay(created_i, asked)   for i in later, asked > t
        current_i = current_decay(created_i, t)       otherwise

    Judged at the named day every later report is of age 0, so they all tie on freshness and an
    anniversary piece ranks with this week's findings. Validity is still judged at the moment
    named; what orders its later reports is how recent they are when the question is asked: the
    newest knows the most (RealTimeQA 2022, report weeks: "How many minutes did … on January 6,
    2021?", asked on 21 July 2022, was answered by a January 2022 piece over the report of the
    hearing the day before). An EVENT inside its window keeps 1."""
    if asked_us is None or asked_us <= pool.t_us or not later.any():
        return pool
    cands = pool.cands
    at_asking = current_decay(cands.created_us, cands.dated, asked_us, pool.half_life, pool.floors,
                              news_half_life_days=scoring.news_half_life_days,
                              current_days=scoring.news_current_days, config=decay_config)
    return replace(pool, current=np.where(later & (pool.states != STATE_TEMPORAL), at_asking, pool.current))
