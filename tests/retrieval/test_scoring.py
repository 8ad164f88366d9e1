"""Hand-worked values of the scoring formulas in ``retrieval/scoring.py`` (in the style of ranx's
metric tests: each expected number is computed by hand in the comment beside it, from the
formula's source).

Sources: temporal-rag blog (``seeds/temporal-rag-blog.txt``, "The Scoring Formula": final score,
validity multiplier, event relevance multiplier, semantic penalty); SmartVector paper
(``seeds/smartvector-paper-summary-zh.txt`` section 2.3: Score = 0.35·S_sim + 0.25·S_temporal +
0.25·S_confidence + 0.15·S_relational). The window, pool and recency formulas (ours, issue 14)
have their hand-worked tests in ``test_adaptive_time.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

from smartvector_core.config import PAPER_WEIGHTS
from smartvector_core.retrieval.scoring import (
    announced_count,
    current_signal,
    event_relevance,
    relative_similarity,
    roundup_titles,
    semantic_signal,
    temporal_layer_score,
    temporal_signal,
    validity_factor,
    weighted_sum,
)
from smartvector_core.temporal import (
    KIND_EVENT,
    KIND_STATIC,
    KIND_VERSIONED,
    STATE_EXPIRED,
    STATE_NOT_YET_VALID,
    STATE_TEMPORAL,
    STATE_VALID,
)


def test_semantic_and_relative_similarity():
    cos = np.array([0.8, 0.4, -0.1])
    assert semantic_signal(cos).tolist() == [0.8, 0.4, 0.0]                     # clip(cos, 0, 1)
    assert relative_similarity(cos) == pytest.approx([1.0, 0.5, 0.0])           # cos / max cos: 0.4 / 0.8
    assert relative_similarity(np.array([-0.2, 0.0])).tolist() == [0.0, 0.0]    # no positive cosine: unchanged


def test_validity_and_event_relevance_multipliers():
    states = np.array([STATE_VALID, STATE_TEMPORAL, STATE_EXPIRED, STATE_NOT_YET_VALID])
    # blog: VALID 1.0, TEMPORAL 1.2, EXPIRED 0.0; divided by 1.2 to stay in [0, 1]
    assert validity_factor(states) == pytest.approx([1 / 1.2, 1.0, 0.0, 0.0])
    kind = np.array([KIND_EVENT, KIND_EVENT, KIND_EVENT, KIND_STATIC])
    st = np.array([STATE_TEMPORAL, STATE_TEMPORAL, STATE_VALID, STATE_TEMPORAL])
    cos = np.array([0.34, 0.35, 0.10, 0.10])
    # blog: EVENT + TEMPORAL + raw cosine < floor (0.35 for MiniLM) -> 0.5 ("boost halved"), else 1.0
    assert event_relevance(kind, st, cos).tolist() == [0.5, 1.0, 1.0, 1.0]


def test_temporal_layer_score_by_hand():
    """final = penalty × [(1 − w)·vector + w·(decay × recency × validity × event_relevance)]."""
    cos = np.array([0.80, 0.60, 0.40])
    kind = np.array([KIND_EVENT, KIND_VERSIONED, KIND_STATIC])
    states = np.array([STATE_TEMPORAL, STATE_VALID, STATE_VALID])
    decay = np.array([1.0, 0.5, 0.25])
    recency = np.array([1.0, 0.5, 0.0])
    out = temporal_layer_score(cos, kind, states, decay, recency, 0.40)    # the blog runs w = 0.40
    # vector = cos / 0.8 = [1.0, 0.75, 0.5]; penalty: 0.5 < 0.60 -> 0.3, else 1.0
    # temporal = [1·1·1.0·1, 0.5·0.5·(1/1.2)·1, 0.25·0·(1/1.2)·1] = [1.0, 0.208333, 0.0]
    # final = [0.6·1.0 + 0.4·1.0, 0.6·0.75 + 0.4·0.208333, 0.3·(0.6·0.5 + 0)] = [1.0, 0.533333, 0.09]
    assert out.values["semantic"] == pytest.approx([1.0, 0.75, 0.5])
    assert out.values["temporal"] == pytest.approx([1.0, 0.25 / 1.2, 0.0])
    assert out.score == pytest.approx([1.0, 0.45 + 0.1 / 1.2, 0.09])
    assert out.weights["semantic"] == pytest.approx([0.6, 0.6, 0.18])        # penalty × (1 − w)
    assert out.weights["temporal"] == pytest.approx([0.4, 0.4, 0.12])        # penalty × w
    assert sum(out.contributions().values()) == pytest.approx(out.score)


def test_temporal_and_current_signals_by_hand():
    kind = np.array([KIND_EVENT, KIND_EVENT, KIND_VERSIONED, KIND_STATIC, KIND_VERSIONED])
    states = np.array([STATE_TEMPORAL, STATE_TEMPORAL, STATE_VALID, STATE_VALID, STATE_EXPIRED])
    decay = np.array([0.9, 0.9, 0.4, 0.6, 0.8])
    cos = np.array([0.50, 0.20, 0.50, 0.50, 0.50])
    # paper: S_temporal = validity × decay (0 outside the window); a live, relevant EVENT is 1.0
    assert temporal_signal(kind, states, decay, cos).tolist() == pytest.approx([1.0, 0.9, 0.4, 0.6, 0.0])
    # default: live relevant EVENT 1.0; VERSIONED in force 1/1.2; STATIC decay / 1.2; outside 0
    assert current_signal(kind, states, decay, cos) == pytest.approx([1.0, 0.9 / 1.2, 1 / 1.2, 0.6 / 1.2, 0.0])


def test_four_signal_score_with_the_papers_weights():
    values = {"semantic": np.array([0.8, 0.6]), "temporal": np.array([0.2, 1.0]),
              "confidence": np.array([0.7, 0.7]), "relational": np.array([0.0, 1.0])}
    out = weighted_sum(values, PAPER_WEIGHTS.as_dict())
    # 0.35·0.8 + 0.25·0.2 + 0.25·0.7 + 0.15·0 = 0.28 + 0.05 + 0.175 = 0.505
    # 0.35·0.6 + 0.25·1.0 + 0.25·0.7 + 0.15·1 = 0.21 + 0.25 + 0.175 + 0.15 = 0.785
    assert out.score == pytest.approx([0.505, 0.785])
    assert out.contributions()["temporal"] == pytest.approx([0.05, 0.25])


def test_roundup_titles_count_listed_items():
    titles = np.array([
        "Yellowstone floods, Fed meeting: 5 things to know Wednesday",       # 2 separators: 3 items
        "Justice Stephen Breyer, NATO and R. Kelly. It's Wednesday's news.",  # ", ", " and ", ". ": 4 items
        "Yellowstone still closed as flooding recedes",                       # 1 item
        "Opinion: Arrests at Idaho Pride event could be a harbinger",         # ": ": 2 items
        None,                                                                 # no title: 1 item
        # no comma: " and " joins two clauses of one story, ". ": 2 items (3 if " and " counted)
        "Sri Lanka is in chaos and its president has fled. Here's what we know",
    ], dtype=object)
    assert roundup_titles(titles).tolist() == [True, True, False, False, False, False]
    assert roundup_titles(titles, min_items=2).tolist() == [True, True, False, True, False, True]
    assert roundup_titles(np.array([], dtype=object)).shape == (0,)


def test_roundup_titles_that_announce_a_count_of_things_to_know():
    titles = np.array([
        "Ten Things You Need to Know Today: 17 June 2022 | The Week UK",   # ": " alone: 2 items listed
        "5 things to know for June 3",                                     # no separator at all
        "10 things you probably don't know about the Space Coast",         # one subject's listicle
        "What you need to know about the new vaccine",                     # announces no count
    ], dtype=object)
    assert roundup_titles(titles).tolist() == [True, True, False, False]
    assert roundup_titles(titles, min_items=6).tolist() == [True, False, False, False]   # 10 and 5 announced
    assert announced_count("Ten Things You Need to Know Today") == 10
    assert announced_count("Yellowstone still closed") == 1


def test_newest_release_signal_measures_each_release_against_the_newest_of_its_series():
    from smartvector_core.clock import US_PER_DAY
    from smartvector_core.retrieval.scoring import newest_release_signal
    t = 1000 * US_PER_DAY
    series = np.array(["sdk", "sdk", "cli", ""], dtype=object)
    created = np.array([t - 168 * US_PER_DAY, t - 898 * US_PER_DAY, t - 600 * US_PER_DAY, t - 700 * US_PER_DAY])
    alive = np.array([True, True, True, True])
    half_life = np.full(4, 730.0)
    values, applies = newest_release_signal(series, created, alive, t, half_life, 0.0, True)
    # sdk: the newest scores 1 however old; the other is 730 days older: 0.5; cli alone: 1; the
    # policy ("" series) is no release: 0, left to its own value
    assert values == pytest.approx([1.0, 0.5, 1.0, 0.0])
    assert applies.tolist() == [True, True, True, False]
    # the store holds a newer cli release (written 235 days before t) than the pool retrieved
    later, _ = newest_release_signal(series, created, alive, t, half_life, 0.0, True,
                                     newest_by_series={"cli": int(t - 235 * US_PER_DAY)})
    assert later[2] == pytest.approx(0.5 ** (365 / 730))


def test_release_newest_reads_each_docs_table_once():
    """The newest release record of each series written by t, read from dates cached per docs
    table: hand-worked, Flask releases of 1 Jan, 1 Mar and 1 May; a guide is no release record."""
    from datetime import UTC, datetime

    import pyarrow as pa

    from smartvector_core.retrieval import releases

    def us(month):
        return int(datetime(2024, month, 1, tzinfo=UTC).timestamp() * 1_000_000)

    docs = pa.table({"doc_type": ["release_notes", "release_notes", "changelog", "guide"],
                     "title": ["Flask 3.0.0", "Flask 3.1.0", "Click changelog", "Flask guide"],
                     "created_at": pa.array([us(1), us(5), us(3), us(2)], pa.timestamp("us", tz="UTC"))})
    assert releases.release_newest(docs, us(4)) == {"flask": us(1), "click changelog": us(3), "*": us(3)}
    assert releases.release_newest(docs, us(6))["*"] == us(5)
    assert releases.release_newest(docs, us(1) - 1) == {}
    assert releases._series_dates(docs) is releases._series_dates(docs)      # read once per table
    assert releases.release_newest(None, us(6)) == {}
