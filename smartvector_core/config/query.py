"""The query path's sizes and the answer confidence's constants (``EngineConfig.search``,
``.calibration``, ``.abstention``); the gates are in :mod:`.scoring`, the temporal layer's
thresholds in :mod:`.temporal`.

Sources: temporal-rag blog (``seeds/temporal-rag-blog.txt``, "When the score looks good but the
answer isn't certain" and "When the fact changed significantly between versions"); CONTRACT.md
(the abstention cap); the rest is ours, with the reason beside it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SearchConfig:
    """How much the search reads (:mod:`smartvector_core.retrieval.search`).

    ``candidate_pool``: vector hits per query, at least (``candidate_pool_per_k`` · k when larger);
    ``lexical_pool``: the question's best full-text hits added to the pool (chunks);
    ``version_pool``: the nearest chunks of the documents declaring the version a question names,
    added to the pool (:func:`smartvector_core.retrieval.search.with_named_version`);
    ``live_pool_share``: where fewer of the vector hits than this share are of documents still in
    force at ``as_of`` (not replaced by a newer version), the nearest chunks of the others join the
    pool until it holds that many hits of them (:func:`smartvector_core.retrieval.search.with_live`;
    0: never);
    ``max_names``: names of the question searched (one full-text query each);
    ``max_terms``: content words of a question without case searched as names (its words carry
    no case, so more of them are searched: their BM25 weights pick the rare ones);
    ``name_matches``: a name's matches read store-wide at once (more: searched within the pool,
    and the name remembered as common); ``full_text_cache``: full-text results (a name's, a
    question's) one query cache keeps; ``postfilter_min_share``: below this share of existing
    rows LanceDB's prefilter is used; ``postfilter_margin``: rows searched per row wanted, over
    1 / share (covers the share estimate's error)."""

    candidate_pool: int = 60
    candidate_pool_per_k: int = 12
    lexical_pool: int = 30
    version_pool: int = 10
    live_pool_share: float = 0.5
    max_names: int = 4
    max_terms: int = 8
    name_matches: int = 1_000
    full_text_cache: int = 512
    postfilter_min_share: float = 0.5
    postfilter_margin: float = 1.25


@dataclass(frozen=True)
class CalibrationConfig:
    """The certainty of :func:`smartvector_core.retrieval.calibration.certainty`::

        x = score · g(margin) · (0.5 + 0.5 · trust) · validity − conflict_penalty · severity

    ``margin_scale``: ours, a lead of this much over any disagreeing result is a clear win
    (g(m) = clip(0.5 + 0.5 · m / margin_scale, 0, 1)); ``conflict_flag``: blog, the severity
    from which a changed fact counts as a race with no margin; ``conflict_penalty``: blog,
    "conf_pen = −0.1 · severity"; ``not_current_factor``: ours, an expired or not-yet-valid
    result is not a current answer; ``prior_weight``: ours, the shipped prior counts as this
    many operator verdicts in a store's refit."""

    margin_scale: float = 0.1
    conflict_flag: float = 0.5
    conflict_penalty: float = 0.1
    not_current_factor: float = 0.5
    prior_weight: float = 30.0


@dataclass(frozen=True)
class AbstentionConfig:
    """When nothing in the store is about the question (:func:`smartvector_core.retrieval.calibration.abstains`).

    Floors measured on ``data/eval/abstain_queries.jsonl`` (35 nonsense and off-topic questions)
    and ``data/demo_queries.jsonl`` (34 on-topic ones) against the demo corpus with
    all-MiniLM-L6-v2 (tests/retrieval/test_abstention.py): the off-topic and nonsense questions
    reach a best raw cosine of 0.07–0.29, and those above 0.20 a lexical support of at most 0.20;
    the on-topic ones reach 0.40–0.87 (support 0.67–0.80 at the low end).

    ``cap``: CONTRACT.md, an abstaining answer has no result above this confidence;
    ``cosine``: the blog's relevance floor ("raw cosine was 0.165, below the 0.20 floor");
    ``supported_cosine``: ours, from here the cosine alone says the candidates are on topic;
    ``min_support``: ours, below ``supported_cosine`` at least this share of the question's
    words must be found; ``support_pool``: ours, the best candidates (by raw cosine) whose words
    count as support; ``generic_share``: ours, a word found in more than this share of the
    candidates is not specific; ``in_force_gap``: ours, the answer abstains when no kept
    passage holds this share of the question's subject words, the passages a time or version
    rule removed hold this share more, and are closer to it
    (:func:`smartvector_core.retrieval.confidence.out_of_force`)."""

    cap: float = 0.25
    cosine: float = 0.20
    supported_cosine: float = 0.40
    min_support: float = 0.25
    support_pool: int = 5
    generic_share: float = 0.25
    in_force_gap: float = 0.5


DEFAULT_SEARCH = SearchConfig()
DEFAULT_CALIBRATION = CalibrationConfig()
DEFAULT_ABSTENTION = AbstentionConfig()
