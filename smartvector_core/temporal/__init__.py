"""The temporal layer as pure, vectorised functions (temporal-rag blog, ``seeds/``).

Nothing here reads the wall clock or touches the store: every function takes ``as_of``.
Arrays hold int8 kind/state codes and int64 microseconds since the epoch (UTC).
"""

from ..config.temporal import DEFAULT_TEMPORAL, TemporalConfig
from .codes import (
    KIND_CODES,
    KIND_EVENT,
    KIND_STATIC,
    KIND_VERSIONED,
    NO_END,
    NO_START,
    STATE_CODES,
    STATE_EXPIRED,
    STATE_NOT_YET_VALID,
    STATE_TEMPORAL,
    STATE_VALID,
    encode_kinds,
    kind_names,
    state_names,
)
from .decay import decay_scores, floors_for, half_lives_for, recency_scores, temporal_weights_for
from .freshness import freshness_grades, freshness_report, live_f_share, pairing_action, pairing_partners
from .intent import OPEN_START, QueryIntent, declared_version, parse_intent, period_bounds
from .kinds import infer_doc_type, infer_kind
from .tiers import confidence_tiers
from .validity import remaining_window_hours, validity_multiplier, validity_states

__all__ = [
    "confidence_tiers", "decay_scores",
    "DEFAULT_TEMPORAL", "encode_kinds", "floors_for", "freshness_grades",
    "freshness_report", "half_lives_for", "live_f_share", "infer_doc_type", "infer_kind", "KIND_CODES",
    "KIND_EVENT", "kind_names", "KIND_STATIC", "KIND_VERSIONED", "NO_END",
    "declared_version", "NO_START", "OPEN_START", "pairing_action", "pairing_partners", "parse_intent", "period_bounds",
    "QueryIntent", "recency_scores", "remaining_window_hours",
    "STATE_CODES", "STATE_EXPIRED", "state_names", "STATE_NOT_YET_VALID", "STATE_TEMPORAL",
    "STATE_VALID", "temporal_weights_for", "TemporalConfig", "validity_multiplier",
    "validity_states",
]
