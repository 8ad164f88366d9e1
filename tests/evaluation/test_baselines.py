"""Baselines with values worked out by hand."""

import numpy as np
import pytest

from smartvector_core.errors import InputError
from smartvector_core.evaluation.accuracy.baselines import (
    fixed_recency,
    langchain_time_weighted,
    llamaindex_time_weighted,
    rrf_fuse,
)


def test_rrf_hand_worked():
    # k=60: a: 1/61 + 1/62; b: 1/62 + 1/61; c: 1/63; d: 1/63
    fused = rrf_fuse([["a", "b", "c"], ["b", "a", "d"]], k=60)
    ids = [doc_id for doc_id, _ in fused]
    assert ids == ["a", "b", "c", "d"]              # ties broken by id
    assert fused[0][1] == pytest.approx(1 / 61 + 1 / 62)
    assert fused[2][1] == pytest.approx(1 / 63)


def test_rrf_small_k_and_repeats():
    # k=0: x: 1/1 + 1/3 = 1.333; y: 1/2 + 1/1 = 1.5; repeated x in run 1 ignored
    fused = dict(rrf_fuse([["x", "y", "x"], ["y", "z", "x"]], k=0))
    assert fused["y"] == pytest.approx(1.5)
    assert fused["x"] == pytest.approx(1 + 1 / 3)
    assert fused["z"] == pytest.approx(0.5)
    assert rrf_fuse([]) == []


def test_langchain_time_weighted():
    # 0.5 + 0.99**0 = 1.5 ; 0.9 + 0.99**100 = 0.9 + 0.366032 = 1.266032
    scores = langchain_time_weighted([0.5, 0.9], [0.0, 100.0])
    assert np.allclose(scores, [1.5, 0.9 + 0.99 ** 100])
    assert scores[1] == pytest.approx(1.266032, abs=1e-6)
    # decay_rate 0.5: 0.2 + 0.5**2 = 0.45
    assert langchain_time_weighted([0.2], [2.0], decay_rate=0.5)[0] == pytest.approx(0.45)
    with pytest.raises(InputError):
        langchain_time_weighted([0.2], [2.0], decay_rate=1.5)


def test_fixed_recency_keeps_newest():
    dates = np.array(["2024-01-01", "2026-03-01", "2025-06-01", "2026-03-01"], dtype="datetime64[D]")
    # newest first; equal dates: later position first (np.flip of a stable argsort)
    assert fixed_recency(dates, top_k=3).tolist() == [3, 1, 2]
    assert fixed_recency(dates).tolist() == [3]
    assert fixed_recency([10, 30, 20], top_k=5).tolist() == [1, 2, 0]
    with pytest.raises(InputError):
        fixed_recency(dates, top_k=0)


def test_llamaindex_time_weighted_formula_and_quirks():
    # time_decay 0.99 -> (0.01)**hours
    # a: 0.6 + 0.01**0 = 1.6 ; b: 0.9 + 0.01**1 = 0.91 ; c: None -> 1.0 + 0.01**2 = 1.0001
    # d: 0.0 -> 1.0 (LlamaIndex's `score or 1.0`) + 0.01**0.5 = 1.1
    idx, scores = llamaindex_time_weighted([0.6, 0.9, None, 0.0], [0.0, 1.0, 2.0, 0.5], top_k=4)
    assert idx.tolist() == [0, 3, 2, 1]
    assert np.allclose(scores, [1.6, 1.1, 1.0001, 0.91])
    idx1, _ = llamaindex_time_weighted([0.6, 0.9], [0.0, 1.0])
    assert idx1.tolist() == [0]                                      # default top_k 1
    # time_decay 0.5 -> 0.5**hours: 0.2 + 0.25 = 0.45
    _, s = llamaindex_time_weighted([0.2], [2.0], time_decay=0.5)
    assert s[0] == pytest.approx(0.45)
