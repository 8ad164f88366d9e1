"""Metrics with values worked out by hand."""

import math

import pytest

from smartvector_core.errors import InputError
from smartvector_core.evaluation.accuracy.metrics import (
    evaluate,
    expected_calibration_error,
    mrr,
    recall_at_k,
    stale_at_1,
    top1_accuracy,
)

RANKINGS = [["a", "b", "c"], ["x", "a"], []]
RELEVANT = [{"a"}, {"a"}, {"a"}]
STALE = [{"b"}, {"x"}, {"a"}]


def test_top1_accuracy_counts_only_the_first_result():
    # q1 top a ∈ {a} -> 1; q2 top x -> 0; q3 empty -> 0   => 1/3
    assert top1_accuracy(RANKINGS, RELEVANT) == pytest.approx(1 / 3)


def test_stale_at_1():
    # q1 top a ∉ {b}; q2 top x ∈ {x}; q3 empty -> 0   => 1/3
    assert stale_at_1(RANKINGS, STALE) == pytest.approx(1 / 3)


def test_mrr():
    # q1: a at rank 1 -> 1; q2: a at rank 2 -> 1/2; q3: none -> 0   => 1.5/3 = 0.5
    assert mrr(RANKINGS, RELEVANT) == pytest.approx(0.5)


def test_recall_at_k():
    rankings = [["a", "b", "c", "d"], ["c", "x"]]
    relevant = [{"a", "d"}, {"x", "y"}]
    # k=2: q1 {a} of {a,d} -> 1/2; q2 {x} of {x,y} -> 1/2   => 0.5
    assert recall_at_k(rankings, relevant, k=2) == pytest.approx(0.5)
    # k=5: q1 2/2; q2 1/2   => 0.75
    assert recall_at_k(rankings, relevant, k=5) == pytest.approx(0.75)
    # a query with nothing relevant contributes 0
    assert recall_at_k([["a"]], [set()], k=5) == 0.0


def test_ece_hand_worked():
    # bins: 0.95,0.95 -> bin 9: acc 1/2, conf 0.95 -> |0.5-0.95| = 0.45, weight 2/4
    #       0.35 (correct) -> bin 3: |1 - 0.35| = 0.65, weight 1/4
    #       0.0 (no result, incorrect) -> bin 0: |0 - 0| = 0, weight 1/4
    # ECE = 0.5*0.45 + 0.25*0.65 + 0 = 0.225 + 0.1625 = 0.3875
    ece = expected_calibration_error([0.95, 0.95, 0.35, 0.0], [True, False, True, False])
    assert ece == pytest.approx(0.3875)


def test_ece_bin_edges():
    # 1.0 belongs to the last bin [0.9, 1.0]; 0.1 to [0.1, 0.2)
    assert expected_calibration_error([1.0], [True]) == pytest.approx(0.0)
    # 0.1 and 0.19 share a bin: acc 0.5, conf 0.145 -> 0.355
    assert expected_calibration_error([0.1, 0.19], [True, False]) == pytest.approx(0.355)
    # 0.09 and 0.1 are in different bins: |0-0.09|/2 + |1-0.1|/2 = 0.045 + 0.45
    assert expected_calibration_error([0.09, 0.1], [False, True]) == pytest.approx(0.495)


def test_ece_perfectly_calibrated_and_empty():
    assert expected_calibration_error([0.5, 0.5], [True, False]) == pytest.approx(0.0)
    assert expected_calibration_error([], []) == 0.0


@pytest.mark.parametrize("bad", [-0.1, 1.5, math.nan])
def test_ece_rejects_confidence_outside_unit_interval(bad):
    with pytest.raises(InputError, match="confidences"):
        expected_calibration_error([bad], [True])


def test_mismatched_lengths_are_an_input_error():
    with pytest.raises(InputError):
        top1_accuracy([["a"]], [])
    with pytest.raises(ValueError):
        expected_calibration_error([0.5], [True, False])


def test_evaluate_overall_and_by_type():
    queries = [
        {"id": "q1", "relevant": ["a"], "stale": ["b"], "type": "current"},
        {"id": "q2", "relevant": ["a"], "stale": ["x"], "type": "past"},
        {"id": "q3", "relevant": ["a"], "stale": [], "type": "current"},
        {"id": "q4", "relevant": ["z"], "stale": []},
    ]
    runs = {
        "q1": [{"id": "a", "confidence": 0.8}, {"id": "a", "confidence": 0.7},
               {"id": "b", "confidence": 0.2}],
        "q2": [{"id": "x", "confidence": 0.9}, {"id": "a", "confidence": 0.5}],
        # q3 missing -> empty ranking; q4 answered wrong
        "q4": [{"id": "y", "confidence": 0.05}, {"id": "z", "confidence": 0.01}],
        "unknown": [{"id": "a", "confidence": 1.0}],
    }
    out = evaluate(runs, queries)
    assert out["n"] == 4
    assert out["top1"] == pytest.approx(0.25)          # only q1
    assert out["stale_at_1"] == pytest.approx(0.25)    # only q2
    # RR: q1 1, q2 1/2, q3 0, q4 1/2 -> 2/4
    assert out["mrr"] == pytest.approx(0.5)
    # recall@5: q1 1, q2 1, q3 0, q4 1 -> 3/4 (duplicate 'a' in q1 counted once)
    assert out["recall_at_5"] == pytest.approx(0.75)
    # ECE: bins 8 (0.8 ok), 9 (0.9 wrong), 0 (0.0 none, 0.05 wrong)
    #   (|1-0.8| + |0-0.9| + |0-0.05|) / 4 = 1.15/4
    assert out["ece"] == pytest.approx(1.15 / 4)
    assert set(out["by_type"]) == {"current", "past", "untyped"}
    current = out["by_type"]["current"]
    assert current["n"] == 2 and current["top1"] == pytest.approx(0.5)
    assert out["by_type"]["past"]["stale_at_1"] == pytest.approx(1.0)


def test_evaluate_requires_top_confidence():
    with pytest.raises(InputError, match="confidence"):
        evaluate({"q1": [{"id": "a"}]}, [{"id": "q1", "relevant": ["a"], "stale": []}])


def test_evaluate_of_nothing_is_zero():
    out = evaluate({}, [])
    assert out["n"] == 0 and out["top1"] == 0.0 and out["by_type"] == {}
