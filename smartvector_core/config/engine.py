"""One :class:`EngineConfig`: every number the query and consolidation paths read, in one frozen object.

The service holds one (``SmartVector(config=...)``, default :data:`DEFAULT_ENGINE`) and hands it
to every query (``QueryRequest.config``), so a different temporal or scoring configuration
reaches the gates, signals, pairing, conflict boost and intent reading of that query; every
consolidation run gets its ``consolidation`` part (``SmartVector.consolidate``, after ingest and
feedback too; ``consolidate(config=...)`` overrides it for one run). Derive variants with
``dataclasses.replace``, e.g.
``replace(DEFAULT_ENGINE, temporal=replace(DEFAULT_TEMPORAL, freshness=replace(DEFAULT_TEMPORAL.freshness, drop_below=0.0)))``.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import DEFAULT_CONFIDENCE, PAPER_WEIGHTS, ConfidenceConfig, SignalWeights
from .consolidation import DEFAULT_CONSOLIDATION, ConsolidationConfig
from .scoring import DEFAULT_SCORING, ScoringConfig
from .temporal import DEFAULT_TEMPORAL, TemporalConfig


@dataclass(frozen=True)
class EngineConfig:
    """``temporal``: the blog's thresholds (:mod:`.temporal`); ``scoring``: the query's gates
    (:mod:`.scoring`); ``confidence``: trust constants; ``weights``: the paper's four-signal weights;
    ``consolidation``: the consolidation agent's constants with its ripple and lifecycle ones
    (:mod:`.consolidation`)."""

    temporal: TemporalConfig = DEFAULT_TEMPORAL
    scoring: ScoringConfig = DEFAULT_SCORING
    confidence: ConfidenceConfig = DEFAULT_CONFIDENCE
    weights: SignalWeights = PAPER_WEIGHTS
    consolidation: ConsolidationConfig = DEFAULT_CONSOLIDATION


DEFAULT_ENGINE = EngineConfig()
