"""SmartVector's memory, the pure parts: confidence, relations graph,
lifecycle planning and surgical re-embedding. No store, no UI, no wall clock: every time is
an argument (``as_of_us``, int64 microseconds since the epoch, UTC)."""

from ..config.consolidation import DEFAULT_LIFECYCLE, DEFAULT_RIPPLE, LifecycleConfig, RippleConfig
from .confidence import (
    NO_ACCESS_US,
    EventAggregates,
    aggregate_events,
    decayed_base,
    initial_confidence,
    live_trust,
    memory_strength,
)
from .graph import (
    DEFAULT_RELATIONAL,
    KnowledgeGraph,
    RelationalConfig,
    RippleStep,
)
from .lifecycle import (
    TRANSITIONS,
    IllegalTransition,
    Move,
    check_move,
    make_move,
    plan_lifecycle,
    wake_on_access,
)
from .surgical import ChunkDiff, ChunkRef, diff_chunks, reembed_fraction

__all__ = [
    "DEFAULT_LIFECYCLE", "DEFAULT_RELATIONAL", "DEFAULT_RIPPLE",
    "NO_ACCESS_US", "TRANSITIONS", "ChunkDiff", "ChunkRef",
    "EventAggregates", "IllegalTransition", "KnowledgeGraph", "LifecycleConfig", "Move",
    "RelationalConfig", "RippleConfig", "RippleStep", "aggregate_events", "check_move",
    "decayed_base", "diff_chunks",
    "initial_confidence", "live_trust", "make_move", "memory_strength", "plan_lifecycle", "reembed_fraction",
    "wake_on_access",
]
