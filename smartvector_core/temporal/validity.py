"""Validity state of each candidate at ``as_of`` (blog, "Axis 1: Validity State").

All inputs are arrays of equal length (or scalars that broadcast): int8 kind codes
(:data:`KIND_CODES`), ``valid_from``/``valid_until`` as int64 microseconds with
:data:`NO_START`/:data:`NO_END` for a missing bound, and ``as_of`` in microseconds.
"""

from __future__ import annotations

import numpy as np

from ..config.temporal import DEFAULT_TEMPORAL, ValidityConfig
from ..models import Lifecycle
from .codes import (
    KIND_EVENT,
    NO_END,
    STATE_EXPIRED,
    STATE_NOT_YET_VALID,
    STATE_TEMPORAL,
    STATE_VALID,
)

_US_PER_HOUR = 3_600 * 1_000_000


def is_live(superseded: np.ndarray, lifecycle: np.ndarray) -> np.ndarray:
    """Per document: *live* at a moment: not ``superseded`` then (a newer version of its chain
    has taken effect, ``superseded_at <= as_of``: :mod:`smartvector_core.memory.chains`) and its
    ``lifecycle`` is not ARCHIVED. The documents consolidation judges contradictions and
    dependencies between, the ones a ripple reaches (consolidation's and a correction's), and
    the freshness report's ``live`` (which also needs the document not expired)."""
    return ~np.asarray(superseded, dtype=bool) & (np.asarray(lifecycle, dtype=object) != Lifecycle.ARCHIVED.value)


def validity_states(kind_codes: np.ndarray, valid_from_us: np.ndarray, valid_until_us: np.ndarray,
                    as_of_us: int) -> np.ndarray:
    """int8 validity state per document at ``as_of`` (codes in :data:`STATE_CODES`).

    The window is half-open, ``[valid_from, valid_until)``; rules in order:

    - EXPIRED        when ``as_of >= valid_until`` (blog: "was true, is no longer true");
    - NOT_YET_VALID  when ``as_of < valid_from`` (ours: a scheduled fact is not yet true);
    - TEMPORAL       when the kind is EVENT *and* the window has an end (``valid_until`` given)
      (blog: "Only EVENT documents reach TEMPORAL — not VERSIONED, not STATIC");
    - VALID          otherwise.

    Our choice, documented: an EVENT without a ``valid_until`` is VALID, not TEMPORAL. The
    boost exists "while its window is open"; a window that never closes would be boosted
    forever, so an open-ended event is left to ordinary decay instead.
    """
    kinds = np.asarray(kind_codes)
    start = np.asarray(valid_from_us, dtype=np.int64)
    end = np.asarray(valid_until_us, dtype=np.int64)
    as_of = np.int64(as_of_us)
    shape = np.broadcast_shapes(kinds.shape, start.shape, end.shape)
    states = np.full(shape, STATE_VALID, dtype=np.int8)
    states[(kinds == KIND_EVENT) & (end != NO_END)] = STATE_TEMPORAL
    states[as_of < start] = STATE_NOT_YET_VALID
    states[as_of >= end] = STATE_EXPIRED
    return states


def validity_multiplier(states: np.ndarray, config: ValidityConfig = DEFAULT_TEMPORAL.validity) -> np.ndarray:
    """Score multiplier per state (blog, "The Scoring Formula", validity_multiplier).

    EXPIRED -> 0.0 (safety net; should already be filtered), VALID -> 1.0,
    TEMPORAL -> 1.2 (boost for active EVENT signals), NOT_YET_VALID -> 0.0 (ours).
    Note: TEMPORAL makes the product exceed 1, as in the blog (final score 1.079).
    """
    table = np.array([config.valid, config.temporal, config.expired, config.not_yet_valid])
    return table[np.asarray(states, dtype=np.intp)]


def remaining_window_hours(valid_until_us: np.ndarray, as_of_us: int) -> np.ndarray:
    """Hours left until ``valid_until`` (blog: "window: 42h remaining").

    ``max(0, (valid_until − as_of) / 3.6e9)``; 0 once expired; ``inf`` where there is no end.
    """
    end = np.asarray(valid_until_us, dtype=np.int64)
    open_ended = end == NO_END
    safe_end = np.where(open_ended, np.int64(as_of_us), end)
    hours = np.maximum(safe_end - np.int64(as_of_us), 0) / _US_PER_HOUR
    return np.where(open_ended, np.inf, hours)
