"""Named constants from the seeds, and the frozen configuration objects built from them.

Sources:
- temporal-rag blog (``seeds/temporal-rag-blog.txt``): decay profiles, decay floors, validity
  multipliers, event relevance gate, semantic penalty, recency-intent weights, pairing.
- SmartVector paper (``seeds/smartvector-paper-*.txt``): four-signal weights, confidence engine
  constants.

Presets are constants; derive variants with ``dataclasses.replace``, never mutate one.

The package holds the engine's configuration in one place: this module (embeddings, chunking,
decay profiles and floors, the paper's weights, trust constants), :mod:`.temporal` (the temporal
layer's thresholds, ``DEFAULT_TEMPORAL``), :mod:`.scoring` (the query's gates,
``DEFAULT_SCORING``), :mod:`.query` (the search's sizes, the answer confidence's and the
abstention's constants), :mod:`.consolidation` (the consolidation agent's constants with ripple and
lifecycle, ``DEFAULT_CONSOLIDATION``) and :mod:`.engine` (:class:`EngineConfig`, all of them in
one object handed down every query and every consolidation run). Environment variables are read only in :mod:`smartvector_core.settings`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from ..models import DocumentKind

# --- embeddings ---------------------------------------------------------------------------
DEFAULT_MODEL_NAME = "all-MiniLM-L6-v2"
EMBEDDING_DIM = 384
EMBED_BATCH_SIZE = 64

# --- chunking -----------------------------------------------------------------------------
CHUNK_TARGET_CHARS = 800     # MiniLM reads 256 word pieces; ~800 characters stay inside that
CHUNK_MAX_CHARS = 1200


@dataclass(frozen=True)
class DecayProfile:
    """How fast one doc type goes stale (blog, "Not All Content Decays at the Same Rate").

    ``half_life_days``: decay = 0.5 ** (age_days / half_life_days).
    ``temporal_weight``: w in the temporal score, the share of the score given to time.
    """

    name: str
    half_life_days: float
    temporal_weight: float


DECAY_PROFILES: Mapping[str, DecayProfile] = MappingProxyType({
    p.name: p for p in (
        DecayProfile("breaking_news", 1.0, 0.70),
        DecayProfile("news", 7.0, 0.55),
        DecayProfile("policy", 90.0, 0.45),
        DecayProfile("research", 180.0, 0.35),
        DecayProfile("legal", 365.0, 0.25),
        DecayProfile("reference", 1825.0, 0.10),
        DecayProfile("mathematics", 36500.0, 0.01),
        # ours: logs, records of their own moment. What a release changed stays
        # true of that release, so old entries must stay findable ("which release fixed X"): long
        # half-lives and small temporal weights; minutes and incident reports age faster.
        DecayProfile("release_notes", 730.0, 0.10),
        DecayProfile("changelog", 730.0, 0.10),
        DecayProfile("meeting_minutes", 365.0, 0.20),
        DecayProfile("incident_report", 180.0, 0.30),
    )
})

# Our choice, documented: a doc type we do not know decays like a yearly-reviewed document
# ("general": half-life 365 days, temporal weight 0.30), between research and legal.
DEFAULT_DOC_TYPE = "general"
DEFAULT_DECAY_PROFILE = DecayProfile(DEFAULT_DOC_TYPE, 365.0, 0.30)

# Minimum decay per (doc_type, kind) (blog: "DECAY_FLOORS"). Pairs without an entry decay freely.
DECAY_FLOORS: Mapping[tuple[str, DocumentKind], float] = MappingProxyType({
    ("mathematics", DocumentKind.STATIC): 0.95,
    ("reference", DocumentKind.STATIC): 0.70,
    ("research", DocumentKind.STATIC): 0.10,
    ("legal", DocumentKind.STATIC): 0.30,
    ("general", DocumentKind.STATIC): 0.20,
    # ours: a log entry declared STATIC stays a retrievable record (0.50: the blog's SOLO threshold)
    ("release_notes", DocumentKind.STATIC): 0.50,
    ("changelog", DocumentKind.STATIC): 0.50,
    ("meeting_minutes", DocumentKind.STATIC): 0.50,
    ("incident_report", DocumentKind.STATIC): 0.50,
})


def decay_profile(doc_type: str | None) -> DecayProfile:
    """The profile of ``doc_type`` (case-insensitive); unknown or None -> the default profile."""
    if not doc_type:
        return DEFAULT_DECAY_PROFILE
    return DECAY_PROFILES.get(doc_type.strip().lower(), DEFAULT_DECAY_PROFILE)


# --- SmartVector four-signal score (paper, section 2.3) ----------------------------------
@dataclass(frozen=True)
class SignalWeights:
    """Score = semantic·S_sim + temporal·S_temporal + confidence·S_conf + relational·S_rel."""

    semantic: float = 0.35
    temporal: float = 0.25
    confidence: float = 0.25
    relational: float = 0.15

    def as_dict(self) -> dict[str, float]:
        return {"semantic": self.semantic, "temporal": self.temporal,
                "confidence": self.confidence, "relational": self.relational}


PAPER_WEIGHTS = SignalWeights()


# --- confidence engine (paper, section 2.4 "ConfidenceEngine") -------------------------------
@dataclass(frozen=True)
class ConfidenceConfig:
    """Trust and memory strength (memory/confidence.py): C0 + Σ feedback + access_gain·ln(1+n)
    − Σ penalties, clamped to [floor, ceiling]; memory strength decays C0 by 2^(−Δ/H)."""

    default_authority: float = 0.70
    correct_delta: float = -0.08
    accept_delta: float = 0.03
    access_gain: float = 0.01
    floor: float = 0.01
    ceiling: float = 1.0
    superseded_factor: float = 0.5   # ours: a replaced version keeps half its trust (DESIGN.md "Trust model")
    source_authority: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({
        "official": 0.90, "docs": 0.85, "policy": 0.85, "internal": 0.75, "wiki": 0.60,
        "blog": 0.55, "forum": 0.40, "rumor": 0.25, "rumour": 0.25, "social": 0.30,
    }))


DEFAULT_CONFIDENCE = ConfidenceConfig()


# --- the whole engine's configuration (config/engine.py; sub-configs in config/temporal.py, config/scoring.py)
from .engine import DEFAULT_ENGINE, EngineConfig  # noqa: E402, F401  (re-exported)
