"""The consolidation agent's configuration (``EngineConfig.consolidation``), with the memory
constants it carries: ripple propagation (:class:`RippleConfig`) and lifecycle moves
(:class:`LifecycleConfig`). Sources: SmartVector paper (``seeds/smartvector-paper-summary-zh.txt``,
section 2.2 stage 2 "Consolidation", section 2.4 "RipplePropagator"); the numbers the paper does
not give are ours, each said where it is set.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InputError

CONSOLIDATE_TAG = "pre-consolidate"


@dataclass(frozen=True)
class RippleConfig:
    """Ripple propagation constants (ours; the paper says only "decaying penalty per hop").

    ``penalty``: confidence removed from a direct dependent (hop 1), same order as the paper's
    correction delta (0.08) so one correction upstream weighs about one correction on the doc.
    ``hop_decay``: factor per further hop: penalty at hop h = penalty · hop_decay^(h−1).
    ``max_hops``: bound of the BFS ("bounded BFS").
    """

    penalty: float = 0.10
    hop_decay: float = 0.5
    max_hops: int = 2

    def __post_init__(self) -> None:
        if not self.penalty >= 0:
            raise InputError(f"expected a penalty >= 0, found {self.penalty!r}", field="penalty")
        if not 0 <= self.hop_decay <= 1:
            raise InputError(f"expected hop_decay in [0, 1], found {self.hop_decay!r}",
                             field="hop_decay")
        if int(self.max_hops) != self.max_hops or self.max_hops < 0:
            raise InputError(f"expected max_hops an integer >= 0, found {self.max_hops!r}",
                             field="max_hops")


DEFAULT_RIPPLE = RippleConfig()


@dataclass(frozen=True)
class LifecycleConfig:
    """``dormancy_threshold``: the paper's 0.15 (section 2.4, memory strength below it goes
    dormant); ``idle_days``: ours (30)."""

    dormancy_threshold: float = 0.15
    idle_days: float = 30.0


DEFAULT_LIFECYCLE = LifecycleConfig()


@dataclass(frozen=True)
class ConsolidationConfig:
    """Constants of the agent (ours; the paper gives none)."""

    neighbours: int = 8                     # m: neighbours per query chunk
    near_duplicate: float = 0.92            # centroid cosine of a near-duplicate document
    # implicit same-title versions need content that overlaps (centroid cosine >= this) and changed
    version_overlap: float = 0.5
    # same title, newer, and the same statement with a different value (facts.changed_value):
    # a value spans at most this many tokens, the unchanged statement is at least this share of
    # the longer text
    changed_value_tokens: int = 24
    changed_value_shared: float = 0.5
    # same-title documents further apart in authority than this are not versions of each other
    implicit_authority_gap: float = 0.3
    contradiction_min_similarity: float = 0.5
    contradiction_delta: float = -0.05      # CONTRADICTION event on the less trusted side
    exact_limit: int = 20_000               # exact numpy top-m up to this many chunks, inverted lists above
    # inverted lists (consolidation.neighbours.build_index): ~64 chunks a list, 16 lists probed per
    # chunk (~1,000 candidates per chunk at any size); recall of the exact top-13 at 10k chunks
    # 0.998 on MiniLM vectors (docs/PERF.md "Consolidation at 100k chunks")
    ivf_list_size: int = 64
    ivf_probes: int = 16
    # ... but exact while the query side (new or edited chunks) is at most this share of all chunks:
    # then the exact search costs less than building the lists (consolidation.neighbours.exact_search)
    exact_query_share: float = 1 / 32
    block_rows: int = 1024
    min_title_words: int = 2
    # point-in-time reports: two of them written on different days describe different moments
    # ("attrition 15% in 2025" vs "21% in 2026"), so they are never taken to contradict each other;
    # log records (temporal.kinds.is_log_record: release notes, changelogs, minutes, incident
    # reports) count as such reports too
    snapshot_doc_types: tuple[str, ...] = ("breaking_news", "news", "report", "release_notes")
    ripple: RippleConfig = DEFAULT_RIPPLE
    lifecycle: LifecycleConfig = DEFAULT_LIFECYCLE
    tag: str = CONSOLIDATE_TAG


DEFAULT_CONSOLIDATION = ConsolidationConfig()
