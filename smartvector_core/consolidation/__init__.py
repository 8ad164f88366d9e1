"""The consolidation agent: pure planners and one runner that orders and writes their records.

Source: SmartVector paper (``seeds/smartvector-paper-summary-zh.txt``, section 2.2 stage 2
"Consolidation": a background agent detects contradictions, builds dependency edges,
recomputes confidence and promotes vectors to ACTIVE; section 2.4 "RipplePropagator").

One module per concern, each a pure function of arrays that returns plain records
(:class:`~.records.Edge`, :class:`~.records.Event`, :class:`~smartvector_core.memory.Move`):

- :mod:`.neighbours`: the expensive, parallel part (neighbour pairs, the near-duplicate test,
  the contradiction rule on pairs, the citation scan); local or on Ray, merged deterministically;
- :mod:`.supersession`: implicit versions, on evidence of a replacement; ``superseded_at`` and
  chains from :mod:`smartvector_core.memory.chains`;
- :mod:`.contradictions`: review-queue edges and penalties for contradictions between live
  documents of different chains;
- :mod:`.dependencies`: DEPENDS_ON edges from citations of ids and titles;
- :mod:`.ripple`: penalties for the dependents of newly superseded or edited documents;
- :mod:`.lifecycle`: lifecycle moves from memory strength (from ingest or last access);
- :mod:`.runner`: :func:`consolidate` reads the store, runs them in that order and writes
  edges -> events -> fields (crash-safe, idempotent event ids).

**DORMANT stays searchable** (our decision): a dormant document is not filtered out of search;
a query that matches it well still returns it, and that access wakes it (:func:`wake_accessed`:
an ACCESS event, then LIFECYCLE DORMANT -> ACTIVE).
"""

from ..config.consolidation import CONSOLIDATE_TAG, DEFAULT_CONSOLIDATION, ConsolidationConfig
from .documents import Documents
from .neighbours import (
    ConsolidationPlan,
    Findings,
    cosines,
    find_candidates,
    local_finder,
    merge_findings,
    top_neighbours,
)
from .records import ConsolidationReport, Edge, Event, stable_id
from .runner import consolidate, wake_accessed, write_moves

__all__ = [
    "CONSOLIDATE_TAG", "DEFAULT_CONSOLIDATION", "ConsolidationConfig", "ConsolidationPlan",
    "ConsolidationReport", "Documents", "Edge", "Event", "Findings", "consolidate", "cosines", "find_candidates",
    "local_finder", "merge_findings", "stable_id", "top_neighbours", "wake_accessed", "write_moves",
]
