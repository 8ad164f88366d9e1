"""One :class:`EngineConfig`: every number the query and consolidation paths read, in one frozen object.

The service holds one (``SmartVector(config=...)``, default :data:`DEFAULT_ENGINE`) and hands it
to every query (``QueryRequest.config``), so a different temporal or scoring configuration
reaches the search, gates, signals, pairing, conflict boost, intent reading, answer confidence,
abstention and explanations of that query; every
consolidation run gets its ``consolidation`` part (``SmartVector.consolidate``, after ingest and
feedback too; ``consolidate(config=...)`` overrides it for one run). Derive variants with
``dataclasses.replace``, e.g.
``replace(DEFAULT_ENGINE, temporal=replace(DEFAULT_TEMPORAL, freshness=replace(DEFAULT_TEMPORAL.freshness, drop_below=0.0)))``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .consolidation import DEFAULT_CONSOLIDATION, ConsolidationConfig
from .query import (
    DEFAULT_ABSTENTION,
    DEFAULT_CALIBRATION,
    DEFAULT_SEARCH,
    AbstentionConfig,
    CalibrationConfig,
    SearchConfig,
)
from .scoring import DEFAULT_SCORING, ScoringConfig
from .temporal import DEFAULT_TEMPORAL, TemporalConfig


@dataclass(frozen=True)
class EngineConfig:
    """``temporal``: the blog's thresholds (:mod:`.temporal`); ``scoring``: the query's gates
    (:mod:`.scoring`); ``search``: how much the search reads, ``calibration``: the answer
    confidence's certainty, ``abstention``: when nothing is about the question (:mod:`.query`);
    ``consolidation``: the consolidation agent's constants with its ripple and lifecycle ones
    (:mod:`.consolidation`). Profile weights live on the profiles (``retrieval/profiles.py``)
    and trust constants in :data:`~smartvector_core.config.DEFAULT_CONFIDENCE`."""

    temporal: TemporalConfig = DEFAULT_TEMPORAL
    scoring: ScoringConfig = DEFAULT_SCORING
    search: SearchConfig = DEFAULT_SEARCH
    calibration: CalibrationConfig = DEFAULT_CALIBRATION
    abstention: AbstentionConfig = DEFAULT_ABSTENTION
    consolidation: ConsolidationConfig = DEFAULT_CONSOLIDATION


DEFAULT_ENGINE = EngineConfig()
