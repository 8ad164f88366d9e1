"""Scoring profiles: named presets (constants). Derive variants with ``dataclasses.replace``.

- ``naive``: cosine similarity only (what plain RAG does).
- ``temporal``: the temporal layer of the blog (gates, chains, the blended temporal score).
- ``smartvector``: the paper's four-signal score 0.35·semantic + 0.25·temporal + 0.25·confidence
  + 0.15·relational.
- ``default``: the project's best configuration (see README for how it was chosen).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..config import PAPER_WEIGHTS, SignalWeights
from ..config.temporal import RECENCY_BASELINE
from ..errors import InputError


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    scorer: str = "cosine"             # cosine | temporal | four_signal | default
    gates: bool = False                # validity, time range, relevance gates with rejections
    chains: bool = False               # one answer per version chain
    pairing: bool = False              # SOLO / PAIR / DROP by freshness
    weights: SignalWeights = field(default_factory=SignalWeights)
    use_intent: bool = False           # parse time range / as-of / version / recency words
    consolidated: bool = True          # use consolidation's inferred edges (ablation switch)
    ripple: bool = True                # apply ripple penalties to confidence (ablation switch)
    trust_weight: float = 0.0          # default only: weight of C0 + feedback + access (no age term)
    recency_baseline: float = RECENCY_BASELINE   # default only: recency words scale the temporal weight by w/0.20
    conflict_boost: bool = True        # blog: a changed number raises the chain winner's score
    stale_dependency_demotion: float = 1.0  # default only: relies on a superseded version (ripple)
    contradiction_demotion: float = 1.0  # default only: score factor for the lower-trust side of a conflict
    roundup_demotion: float = 1.0      # default only: score factor for a news roundup (scoring.roundup_titles)
    older_release_demotion: float = 1.0  # default only: an older release record, for what holds now (releases.older_release_records)
    lexical_weight: float = 0.0        # default only: weight of the BM25 signal (scoring.py)
    asks_version_lexical_weight: float = 0.0   # default only: that weight when the question asks which
                                       # version or release did something (rerank._lexical_weight)
    content_time_weight: float = 0.0   # default only: weight of the content_time signal (retrieval.content_match)
    recency_pool_gain: float = 0.0     # default only: adaptive recency, gain on the pool's news share
    recency_cap: float = 3.5           # default only: adaptive recency, largest factor on the temporal weight
                                       # (strong recency word / baseline: a pool raises it no further)


NAIVE = Profile("naive", "cosine similarity only")
TEMPORAL = Profile("temporal", "the temporal layer: validity gates, decay, recency, chains, pairing",
                   scorer="temporal", gates=True, chains=True, pairing=True, use_intent=True)
SMARTVECTOR = Profile("smartvector", "the paper's four-signal score", scorer="four_signal",
                      weights=PAPER_WEIGHTS)
DEFAULT = Profile("default", "temporal gates, chains and intent with a tuned multi-signal score",
                  scorer="default", gates=True, chains=True, pairing=False, use_intent=True,
                  weights=SignalWeights(semantic=0.60, temporal=0.10, confidence=0.05, relational=0.05),
                  trust_weight=0.20, contradiction_demotion=0.7, conflict_boost=False,
                  stale_dependency_demotion=0.7, roundup_demotion=0.8, older_release_demotion=0.8, lexical_weight=0.25, asks_version_lexical_weight=0.60,
                  recency_pool_gain=4.0,
                  recency_cap=6.0, content_time_weight=0.30)

PROFILES: dict[str, Profile] = {p.name: p for p in (NAIVE, TEMPORAL, SMARTVECTOR, DEFAULT)}


def get_profile(name: str | Profile) -> Profile:
    if isinstance(name, Profile):
        return name
    try:
        return PROFILES[str(name).strip().lower()]
    except KeyError:
        raise InputError(f"unknown profile {name!r}: expected one of {', '.join(PROFILES)}",
                         field="profile") from None
