"""One :class:`EngineConfig`: every number the query path reads, in one frozen object.

The service holds one (``SmartVector(config=...)``, default :data:`DEFAULT_ENGINE`) and hands it
to every query (``QueryRequest.config``), so a different temporal or scoring configuration
reaches the gates, signals, pairing, conflict boost and intent reading of that query. Derive
variants with ``dataclasses.replace``, e.g.
``replace(DEFAULT_ENGINE, temporal=replace(DEFAULT_TEMPORAL, freshness=replace(DEFAULT_TEMPORAL.freshness, drop_below=0.0)))``.
Consolidation takes its own :class:`~smartvector_core.consolidation.ConsolidationConfig`
(``SmartVector.consolidate(config=...)``).
"""

from __future__ import annotations

from dataclasses import dataclass

from . import DEFAULT_CONFIDENCE, PAPER_WEIGHTS, ConfidenceConfig, SignalWeights
from .scoring import DEFAULT_SCORING, ScoringConfig
from .temporal import DEFAULT_TEMPORAL, TemporalConfig


@dataclass(frozen=True)
class EngineConfig:
    """``temporal``: the blog's thresholds (:mod:`.temporal`); ``scoring``: the query's gates
    (:mod:`.scoring`); ``confidence``: trust constants; ``weights``: the paper's four-signal weights."""

    temporal: TemporalConfig = DEFAULT_TEMPORAL
    scoring: ScoringConfig = DEFAULT_SCORING
    confidence: ConfidenceConfig = DEFAULT_CONFIDENCE
    weights: SignalWeights = PAPER_WEIGHTS


DEFAULT_ENGINE = EngineConfig()
