"""Lifecycle planner: the moves of a run, from memory strength, never from age.

Source: SmartVector paper (``seeds/smartvector-paper-summary-zh.txt``, section 2.2 "five-stage
lifecycle") and DESIGN.md "Trust model": Ebbinghaus decay is *memory strength*
(:func:`smartvector_core.memory.memory_strength`, counted from ingest or the last access, never
from ``created_at``); it moves ACTIVE -> DORMANT only what nobody asks about. The rules are
:func:`smartvector_core.memory.plan_lifecycle`: UNCONSOLIDATED -> ACTIVE, superseded ->
ARCHIVED, strength < 0.15 and idle for ``idle_days`` -> DORMANT, and back. Nothing is DORMANT
right after it is ingested: it has been idle for less than ``idle_days``.

Each move is a LIFECYCLE event whose id is derived from (document, from, to, moment); a move
whose LIFECYCLE event is already the document's latest is not recorded twice.
"""

from __future__ import annotations

import numpy as np

from ..clock import to_us
from ..config.consolidation import DEFAULT_CONSOLIDATION, ConsolidationConfig
from ..memory import EventAggregates, Move, memory_strength, plan_lifecycle
from ..models import EventType, Lifecycle
from .documents import Documents
from .records import Event, stable_id


def plan_moves(docs: Documents, aggregates: EventAggregates, superseded_now: np.ndarray, now_us: int,
               config: ConsolidationConfig = DEFAULT_CONSOLIDATION) -> list[Move]:
    """The lifecycle moves due at ``now_us``, run to a fixpoint (at most three steps: a new,
    long-idle, weak document could go U -> A -> D in one run), in document order per step.

    ``aggregates``: the event sums at ``now_us`` including this run's own events."""
    strength = memory_strength(docs.authority, docs.ingested_us, docs.half_life_days, now_us, aggregates)
    position = docs.position
    moves: list[Move] = []
    current = docs.states.copy()
    for _ in range(3):
        step = plan_lifecycle(docs.ids, current, strength, aggregates.last_access_us, superseded_now, now_us,
                              config.lifecycle.idle_days, ingested_us=docs.ingested_us,
                              dormancy_threshold=config.lifecycle.dormancy_threshold)
        if not step:
            break
        moves += step
        current[position.get_indexer([m.doc_id for m in step])] = [m.to_state.value for m in step]
    return moves


def move_events(moves: list[Move], latest: dict[str, tuple[str, str]], now) -> list[Event]:
    """LIFECYCLE events for ``moves``, skipping a move already recorded as the document's latest
    (``latest``: doc_id -> (from, to) of its latest LIFECYCLE event)."""
    at = str(to_us(now))
    return [Event(stable_id("lifecycle", m.doc_id, m.from_state.value, m.to_state.value, at), m.doc_id,
                  EventType.LIFECYCLE, {"from": m.from_state.value, "to": m.to_state.value, "reason": m.reason})
            for m in moves if latest.get(m.doc_id) != (m.from_state.value, m.to_state.value)]


def count_moves(moves: list[Move]) -> dict[str, int]:
    """Moves per target: ``archived``, ``dormant``, ``activated``."""
    targets = [m.to_state for m in moves]
    return {"archived": targets.count(Lifecycle.ARCHIVED), "dormant": targets.count(Lifecycle.DORMANT),
            "activated": targets.count(Lifecycle.ACTIVE)}
