"""Which candidates belong to the time a question names (ours): a hard period's members
(:func:`in_range`), and the EVENTs of a soft window ("this week", :func:`ended_in_window`,
:func:`events_in_window`). Masks over one candidate set, read by the reranker's gates."""

from __future__ import annotations

import numpy as np

from ..memory.chains import effective_us
from ..temporal import KIND_EVENT, KIND_VERSIONED, STATE_EXPIRED
from .content_match import speaks_of


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
    week"), or the day it asks about (:func:`.rerank._day_asked`: an outage from 02:00 to 06:00 on the
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
