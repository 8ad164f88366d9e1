"""Gates and thresholds of the query's scoring (retrieval/scoring.py reads them from here).

Sources: temporal-rag blog (``seeds/temporal-rag-blog.txt``, "The Scoring Formula" and "The
Failure That Revealed the EVENT Relevance Gate"); the rest is ours, with the reason beside it.
"""

from __future__ import annotations

from dataclasses import dataclass

# ours: measured on MiniLM (see README "Calibrating the gates"): unrelated sentence pairs
# score 0.0–0.2, paraphrases 0.5–0.8. The blog gives 0.35–0.50 for dense models.
EVENT_RELEVANCE_FLOOR = 0.35
EVENT_BELOW_FLOOR_MULTIPLIER = 0.5      # blog: "boost halved"
MIN_RELATIVE_SIMILARITY = 0.60          # ours: vector score relative to the best candidate
SEMANTIC_PENALTY = 0.3                  # blog: "normalized_score < min_threshold -> 0.3"
RELEVANCE_GATE = 0.15                   # ours: raw cosine under this is not about the question
NEWS_HALF_LIFE_DAYS = 30.0              # ours: doc types decaying at least this fast are news-like
NEWS_CURRENT_DAYS = 7.0                 # ours: news of the question's last week is all current (retrieval.scoring.current_decay)
POOL_TOP_DOCUMENTS = 10                 # ours: the documents that say what a pool is about
VERSION_NOT_NAMED_FACTOR = 0.8          # ours: score factor for candidates not carrying a version the question names
PRODUCT_NOT_NAMED_FACTOR = 0.8          # ours: score factor for another product's release records (releases.other_products)


@dataclass(frozen=True)
class ScoringConfig:
    event_relevance_floor: float = EVENT_RELEVANCE_FLOOR
    event_below_floor_multiplier: float = EVENT_BELOW_FLOOR_MULTIPLIER
    min_relative_similarity: float = MIN_RELATIVE_SIMILARITY
    semantic_penalty: float = SEMANTIC_PENALTY
    relevance_gate: float = RELEVANCE_GATE
    news_half_life_days: float = NEWS_HALF_LIFE_DAYS
    news_current_days: float = NEWS_CURRENT_DAYS
    pool_top_documents: int = POOL_TOP_DOCUMENTS
    version_not_named_factor: float = VERSION_NOT_NAMED_FACTOR
    product_not_named_factor: float = PRODUCT_NOT_NAMED_FACTOR


DEFAULT_SCORING = ScoringConfig()
