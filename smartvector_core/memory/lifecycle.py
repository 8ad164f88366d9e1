"""Planning of lifecycle moves: pure, vectorised decisions; the store writes them as events.

Source: SmartVector paper (``seeds/smartvector-paper-summary-zh.txt``, section 2.2 "five-stage
lifecycle"): (1) encoding -> UNCONSOLIDATED; (2) consolidation -> ACTIVE; (3) retrieval and
reconsolidation (access and feedback events: not a stored state); (4) decay and dormancy ->
DORMANT when confidence falls below the threshold (0.15) without access; (5) supersession ->
ARCHIVED. The decaying quantity is *memory strength* (:func:`.confidence.memory_strength`,
DESIGN.md "Trust model"): Ebbinghaus decay counted from ingest or the last access, never from
``created_at``, so nothing is DORMANT right after it is ingested. Nothing is ever deleted: ARCHIVED and DORMANT documents stay, only their state moves.

Legal moves are the table :data:`TRANSITIONS`; :func:`check_move` raises
:class:`IllegalTransition` on any other. Choices (the paper leaves them open):

- "without access" means no ACCESS event for ``idle_days`` (30) before ``as_of``; a document
  never accessed counts from its ingest;
- a DORMANT document wakes (-> ACTIVE) when it is accessed or when its strength is back at
  or above the threshold (an accept), and in :func:`plan_lifecycle` when it was accessed
  within ``idle_days``;
- supersession wins over everything; an ARCHIVED document is only brought back by an explicit
  restore or unarchive (a person's move, :mod:`.archive`), never by a plan;
- one move per document per plan: an UNCONSOLIDATED document becomes ACTIVE first and may go
  DORMANT on a later run.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from ..clock import US_PER_DAY
from ..config.consolidation import DEFAULT_LIFECYCLE
from ..errors import SmartVectorError
from ..models import Lifecycle
from .confidence import NO_ACCESS_US

U, A, D, R = Lifecycle.UNCONSOLIDATED, Lifecycle.ACTIVE, Lifecycle.DORMANT, Lifecycle.ARCHIVED

#: from_state -> {to_state: what makes that move}. Anything else is illegal.
TRANSITIONS: Mapping[Lifecycle, Mapping[Lifecycle, str]] = MappingProxyType({
    U: MappingProxyType({A: "consolidated", R: "superseded or archived by a person"}),
    A: MappingProxyType({D: "low memory strength without access", R: "superseded or archived by a person"}),
    D: MappingProxyType({A: "accessed or accepted", R: "superseded or archived by a person"}),
    R: MappingProxyType({A: "restored or unarchived by a person"}),
})




class IllegalTransition(SmartVectorError, ValueError):
    """A lifecycle move that :data:`TRANSITIONS` does not allow."""


@dataclass(frozen=True)
class Move:
    doc_id: str
    from_state: Lifecycle
    to_state: Lifecycle
    reason: str


def check_move(from_state: Lifecycle | str, to_state: Lifecycle | str) -> str:
    """The table's description of a legal move; :class:`IllegalTransition` otherwise."""
    source = Lifecycle.parse(from_state, field_name="from_state")
    target = Lifecycle.parse(to_state, field_name="to_state")
    allowed = TRANSITIONS[source]
    if target not in allowed:
        legal = ", ".join(s.value for s in allowed) or "none"
        raise IllegalTransition(f"expected a move from {source.value} to one of {legal}, "
                                f"found {source.value} -> {target.value}")
    return allowed[target]


def make_move(doc_id: str, from_state: Lifecycle | str, to_state: Lifecycle | str,
              reason: str) -> Move:
    """A checked :class:`Move` (raises :class:`IllegalTransition` when not in the table)."""
    check_move(from_state, to_state)
    return Move(str(doc_id), Lifecycle.parse(from_state), Lifecycle.parse(to_state), reason)


def plan_lifecycle(doc_ids: Iterable[str], current_states: Iterable[Lifecycle | str],
                   strength: np.ndarray, last_access_us: np.ndarray, superseded: np.ndarray,
                   as_of_us: int, idle_days: float = DEFAULT_LIFECYCLE.idle_days, *,
                   ingested_us: np.ndarray | None = None,
                   dormancy_threshold: float = DEFAULT_LIFECYCLE.dormancy_threshold,
                   consolidate: bool = True) -> list[Move]:
    """The moves due at ``as_of_us``, in input order; documents that stay put give none.

    Rules, first match wins, per document:
    1. superseded and not ARCHIVED -> ARCHIVED;
    2. UNCONSOLIDATED (and ``consolidate``) -> ACTIVE;
    3. ACTIVE, memory strength < threshold and idle >= ``idle_days`` -> DORMANT;
    4. DORMANT and (strength >= threshold or idle < ``idle_days``) -> ACTIVE.
    Idle time runs from the later of the last access (``NO_ACCESS_US``: never) and
    ``ingested_us`` when given; never accessed and no ingest time counts as idle for ever.
    """
    ids = doc_ids if isinstance(doc_ids, np.ndarray) else np.asarray(list(doc_ids), dtype=object)
    states = np.asarray(list(current_states), dtype=object)
    if len(states):   # each distinct state parsed once (checked, normalised)
        distinct, inverse = np.unique(states.astype(str), return_inverse=True)
        states = np.asarray([Lifecycle.parse(s, field_name="current_states").value for s in distinct],
                            dtype=object)[inverse.reshape(-1)]
    n = len(ids)
    conf = np.asarray(strength, dtype=np.float64)
    access = np.asarray(last_access_us, dtype=np.int64)
    gone = np.asarray(superseded, dtype=bool)
    for name, arr in (("current_states", states), ("strength", conf), ("last_access_us", access),
                      ("superseded", gone)):
        if arr.shape != (n,):
            raise IllegalTransition(f"expected {name} of length {n}, found shape {arr.shape}")
    since = access   # NO_ACCESS_US is the smallest int64: any ingest time is later
    if ingested_us is not None:
        since = np.maximum(since, np.asarray(ingested_us, dtype=np.int64))
    never = since == NO_ACCESS_US
    idle = np.where(never, np.inf, (int(as_of_us) - np.where(never, 0, since)) / US_PER_DAY)
    low = conf < dormancy_threshold
    is_idle = idle >= idle_days

    target = np.full(n, None, dtype=object)
    reason = np.full(n, "", dtype=object)
    rules = (
        (gone & (states != R.value), R, "superseded by a newer version"),
        ((states == U.value) & consolidate, A, "consolidated"),
        ((states == A.value) & low & is_idle, D, "memory strength {conf} < {thr}, no access for {idle}"),
        ((states == D.value) & ~low, A, "memory strength {conf} back at or above {thr}"),
        ((states == D.value) & ~is_idle, A, "accessed {idle} ago"),
    )
    for mask, to_state, why in rules:
        fresh = mask & (target == None)  # noqa: E711 (element-wise)
        target[fresh] = to_state
        reason[fresh] = why
    moves = []
    for i in np.flatnonzero(target != None):  # noqa: E711
        text = str(reason[i]).format(thr=dormancy_threshold, conf=f"{conf[i]:.3f}",
                                     idle="ever" if np.isinf(idle[i]) else f"{idle[i]:.1f} days")
        moves.append(make_move(str(ids[i]), states[i], target[i], text))
    return moves


def wake_on_access(states: Mapping[str, Lifecycle | str], reason: str = "accessed") -> list[Move]:
    """DORMANT -> ACTIVE for every accessed (or accepted) document that sleeps; others stay.

    ``states``: doc_id -> current state of the documents just accessed. An ARCHIVED document
    stays archived when read (history is readable without being revived).
    """
    return [make_move(doc_id, state, A, reason) for doc_id, state in states.items()
            if Lifecycle.parse(state, field_name="states") == D]
