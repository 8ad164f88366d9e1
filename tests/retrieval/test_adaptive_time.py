"""Soft relative time and adaptive recency (issue 14 items 3 and 4): the window signal, the
pool's news share and the recency factor by hand; end to end with the real model, "this week"
keeps a 15-day-old article that a hard filter rejected, and an explicit year stays a filter."""

from __future__ import annotations

import json

import numpy as np
import pytest

from smartvector_core.clock import US_PER_DAY
from smartvector_core.retrieval.scoring import pool_time_sensitivity, recency_factor, window_signal

from ..conftest import NOW

DAY = US_PER_DAY


def test_window_signal_by_hand():
    window = (10 * DAY, 17 * DAY)                         # a 7-day window
    begin = np.array([12 * DAY, 3 * DAY, 24 * DAY, -4 * DAY, 5 * DAY], dtype=np.int64)
    end = np.array([12 * DAY, 3 * DAY, 24 * DAY, -4 * DAY, 11 * DAY], dtype=np.int64)
    # inside: 1; 7 days before: 0.5; 7 days after (from the window's last instant): 0.5; 14 before: 0.25;
    # a span overlapping the window: 1
    assert window_signal(begin, end, window) == pytest.approx([1.0, 0.5, 0.5, 0.25, 1.0], abs=1e-6)


def test_pool_time_sensitivity_by_hand():
    cos = np.array([0.8, 0.6, 0.4, 0.2])
    live = np.array([False, False, True, False])
    half = np.array([7.0, 90.0, 365.0, 1.0])
    # documents 0 (news, 7 d), 2 (live EVENT), 3 (breaking news) count: (0.8 + 0.4 + 0.2) / 2.0
    assert pool_time_sensitivity(cos, np.arange(4), live, half, top=10, news_half_life_days=30) == pytest.approx(0.7)
    assert pool_time_sensitivity(cos, np.arange(4), live, half, top=2, news_half_life_days=30) == pytest.approx(0.8 / 1.4)
    assert pool_time_sensitivity(cos, np.zeros(0, dtype=int), live, half, top=10, news_half_life_days=30) == 0.0


def test_recency_factor_follows_question_and_pool():
    assert recency_factor(1.0, 0.0, gain=1.5, cap=4.0) == 1.0          # policies, no recency word: unchanged
    assert recency_factor(3.5, 0.0, gain=1.5, cap=4.0) == 3.5          # "latest" over policies: the blog's weight
    assert recency_factor(1.0, 1.0, gain=1.5, cap=4.0) == 2.5          # a news pool raises it by itself
    assert recency_factor(2.75, 1.0, gain=1.5, cap=4.0) == 4.0         # "who won" over news: capped
    assert recency_factor(1.0, 2.0, gain=1.5, cap=4.0) == 2.5          # tau clipped to [0, 1]


FINAL = "{team} won the national cup final {score} on Saturday evening in front of a sold-out stadium."
NEWS = [
    ("final_this_year", "2026-11-15T18:00:00Z", FINAL.format(team="Harbour City", score="3-1")),
    ("final_last_year", "2025-11-16T18:00:00Z", FINAL.format(team="Northbridge United", score="2-0")),
    ("final_two_years_ago", "2024-11-17T18:00:00Z", FINAL.format(team="Eastfield Rovers", score="1-0")),
    # this week's news (AS_OF is Monday 2026-11-30): inside the window, but not about the final
    ("transfer_news", "2026-11-30T09:00:00Z", "Harbour City signed a new goalkeeper on a three-year contract."),
    ("stadium_news", "2026-11-30T08:00:00Z", "The national stadium will get a new roof before the cup season."),
]


@pytest.fixture
def news_app(real_app, tmp_path):
    path = tmp_path / "news.jsonl"
    path.write_text("\n".join(json.dumps({"id": i, "title": i.replace("_", " "), "created_at": t, "text": x,
                                          "doc_type": "news", "kind": "STATIC"}) for i, t, x in NEWS),
                    encoding="utf-8")
    real_app.ingest_paths([path], now=NOW)
    return real_app


def test_this_week_keeps_a_15_day_old_article(news_app):
    resp = news_app.query("Which team won the cup final this week?", as_of=NOW, log=False)
    assert resp.intent["range_mode"] == "soft"
    assert resp.results[0].id == "final_this_year"                   # 15 days old, outside the week
    assert "OUT_OF_TIME_RANGE" not in {x.code.value for x in resp.rejections}
    window = resp.results[0].signals["temporal"].value
    assert 0.0 < window < 1.0                                         # a preference that fell off, not a gate


def test_an_explicit_year_stays_a_hard_filter(news_app):
    resp = news_app.query("Which team won the cup final in 2025?", as_of=NOW, log=False)
    assert resp.intent["range_mode"] == "hard"
    assert resp.results[0].id == "final_last_year"
    codes = {x.id: x.code.value for x in resp.rejections}
    assert codes.get("final_this_year") == "OUT_OF_TIME_RANGE"
