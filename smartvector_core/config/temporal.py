"""Thresholds and constants of the temporal layer, with the temporal-rag blog's values as defaults.

Every number here is either quoted from ``seeds/temporal-rag-blog.txt`` (section named beside
it) or is our choice, marked "ours" with the reason. Configs are frozen; derive a variant with
``dataclasses.replace(DEFAULT_TEMPORAL.freshness, pair_below=0.4)``, never mutate a preset.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

# --- validity (blog, "The Scoring Formula": validity_multiplier) ----------------------------
MULTIPLIER_EXPIRED = 0.0
MULTIPLIER_VALID = 1.0
MULTIPLIER_TEMPORAL = 1.2
MULTIPLIER_NOT_YET_VALID = 0.0   # ours: not yet true is as unusable as no longer true

# --- decay (blog, "Not All Content Decays at the Same Rate") --------------------------------
UNDATED_DECAY = 0.5      # ours: neutral, so an undated document is neither fresh nor stale
UNDATED_RECENCY = 0.5

# --- kinds (blog, "Axis 2: Document Kind"; ours: how short an EVENT window is) --------------
EVENT_MAX_WINDOW_DAYS = 31.0

# --- recency intent (blog, "When the query tells you how much recency should matter") -------
RECENCY_STRONG = 0.70
RECENCY_MEDIUM = 0.55
RECENCY_ADVISORY = 0.45
RECENCY_BASELINE = 0.20

# --- conflicts (blog, "When the fact changed significantly between versions") ---------------
CONFLICT_BOOST_PER_SEVERITY = 0.2       # '100' -> '5000': severity 0.980, boost +0.196
#                                       (its confidence penalty, 0.1 per severity: config/query.py)

# --- content time (ours: the periods a passage's text names against the question's; tuned on
# TimeQA train, temporal/content_time.py)
CONTENT_HALF_GAP_YEARS = 1.0      # a span a year from the question's period matches half as well
CONTENT_SPECIFICITY_POWER = 0.5   # a span 4x as wide as the question's period counts 1/2
CONTENT_UNSPANNED = 0.0           # a passage whose text names no period

# --- freshness (blog, "When a document is too old to stand alone ..." and freshness report) --
GRADE_THRESHOLDS = (0.85, 0.70, 0.50, 0.30)   # ours: A, B, C, D lower bounds; below -> F
DROP_BELOW = 0.15        # blog: decay 0.100 -> DO NOT RETRIEVE
PAIR_BELOW = 0.50        # blog: decay 0.351 -> PAIR; decay 0.891 -> RETRIEVE
MIN_PAIRING_GAIN = 0.10  # ours: a partner must be clearly fresher (blog example gain +0.540)
CLOSING_SOON_HOURS = 48.0  # ours: blog's live notice had 42h left and was "closes soon"

# --- review intervals (ours; DESIGN.md "Trust model": a version in force is graded by the time since
# ingest or last confirmation against its doc type's review interval). Days between editorial reviews:
# policies twice a year (the demo's policy_v3 carries review_cycle "6 months"), runbooks and release
# notes as often as policies, legal, research and reports yearly, references every two years, maths
# every ten; news is re-read monthly, breaking news weekly. Unknown types: DEFAULT_REVIEW_INTERVAL_DAYS
# (yearly, like the default decay profile's 365-day half-life).
REVIEW_INTERVAL_DAYS: Mapping[str, float] = MappingProxyType({
    "breaking_news": 7.0, "news": 30.0, "policy": 180.0, "runbook": 180.0, "release_notes": 180.0,
    "research": 365.0, "legal": 365.0, "report": 365.0, "reference": 730.0, "mathematics": 3650.0,
})
DEFAULT_REVIEW_INTERVAL_DAYS = 365.0

# --- confidence tiers (blog, "When the score looks good but the answer isn't certain") ------
TIER_HIGH = 0.90         # HIGH: the calibrated probability of a right answer is at least 0.9, so the
                         # tier's precision is >= 0.9 wherever the prior is calibrated (the blog's 0.72
                         # was a threshold on an uncalibrated score: 0.7485 -> HIGH)
TIER_MEDIUM = 0.45       # blog: 0.4727 with a conflict -> LOW: the conflict now lowers the confidence
                         # itself (retrieval/calibration.py), so tiers are thresholds on it only


@dataclass(frozen=True)
class ValidityConfig:
    """Multiplier per validity state, and what makes an EVENT window "short"."""

    expired: float = MULTIPLIER_EXPIRED
    valid: float = MULTIPLIER_VALID
    temporal: float = MULTIPLIER_TEMPORAL
    not_yet_valid: float = MULTIPLIER_NOT_YET_VALID
    event_max_window_days: float = EVENT_MAX_WINDOW_DAYS


@dataclass(frozen=True)
class DecayConfig:
    undated_decay: float = UNDATED_DECAY
    undated_recency: float = UNDATED_RECENCY


@dataclass(frozen=True)
class IntentConfig:
    """Recency weight per signal phrase; the query's weight is the max over matched phrases."""

    strong: float = RECENCY_STRONG
    medium: float = RECENCY_MEDIUM
    advisory: float = RECENCY_ADVISORY
    baseline: float = RECENCY_BASELINE
    strong_words: tuple[str, ...] = ("current", "currently", "latest", "now", "right now", "today",
                                     "as of now", "up to date", "up-to-date", "newest", "still")
    medium_words: tuple[str, ...] = ("recent", "recently", "this week", "this month", "lately",
                                     "new", "changed", "updated",
                                     # ours: questions about the latest outcome of news
                                     "who won", "who is winning", "winner", "breaking", "so far")
    advisory_words: tuple[str, ...] = ("should i", "do i need")


@dataclass(frozen=True)
class ConflictConfig:
    boost_per_severity: float = CONFLICT_BOOST_PER_SEVERITY


@dataclass(frozen=True)
class FreshnessConfig:
    """Grades (A >= 0.85, B >= 0.70, C >= 0.50, D >= 0.30, else F), SOLO/PAIR/DROP cuts, and the
    review interval per doc type that grades a version in force (:func:`.freshness.freshness_report`)."""

    grade_thresholds: tuple[float, float, float, float] = GRADE_THRESHOLDS
    drop_below: float = DROP_BELOW
    pair_below: float = PAIR_BELOW
    min_pairing_gain: float = MIN_PAIRING_GAIN
    closing_soon_hours: float = CLOSING_SOON_HOURS
    review_interval_days: Mapping[str, float] = field(default_factory=lambda: REVIEW_INTERVAL_DAYS)
    default_review_interval_days: float = DEFAULT_REVIEW_INTERVAL_DAYS

    def review_intervals(self, doc_types) -> np.ndarray:
        """Review interval in days per doc type (case-insensitive; unknown or missing -> the default)."""
        names = np.array([str(t).strip().lower() if isinstance(t, str) else "" for t in doc_types], dtype=object)
        if not names.size:
            return np.zeros(0)
        unique, inverse = np.unique(names.astype(str), return_inverse=True)
        table = {k.lower(): float(v) for k, v in self.review_interval_days.items()}
        values = np.array([table.get(u, self.default_review_interval_days) for u in unique], dtype=np.float64)
        return values[inverse]


@dataclass(frozen=True)
class TierConfig:
    high: float = TIER_HIGH
    medium: float = TIER_MEDIUM


@dataclass(frozen=True)
class ContentTimeConfig:
    """Parameters of the ``content_time`` signal (:func:`smartvector_core.temporal.content_time.content_time_signal`,
    whose docstring states the rule): a span ``half_gap_years`` away from the question's period
    matches half as well; ``specificity_power`` says how much a span wider than the question's
    period counts less; ``unspanned`` is the signal of a passage whose text names no period."""

    half_gap_years: float = CONTENT_HALF_GAP_YEARS
    specificity_power: float = CONTENT_SPECIFICITY_POWER
    unspanned: float = CONTENT_UNSPANNED


@dataclass(frozen=True)
class TemporalConfig:
    validity: ValidityConfig = field(default_factory=ValidityConfig)
    decay: DecayConfig = field(default_factory=DecayConfig)
    intent: IntentConfig = field(default_factory=IntentConfig)
    conflict: ConflictConfig = field(default_factory=ConflictConfig)
    freshness: FreshnessConfig = field(default_factory=FreshnessConfig)
    tiers: TierConfig = field(default_factory=TierConfig)
    content_time: ContentTimeConfig = field(default_factory=ContentTimeConfig)


DEFAULT_TEMPORAL = TemporalConfig()
