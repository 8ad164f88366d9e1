"""Answer confidence: certainty worked by hand, rank order, refit from verdicts, abstention rule."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from smartvector_core.retrieval import calibration as cal


def test_certainty_hand_worked():
    # clear winner (margin 0.2): 0.8 · 1 · (0.5 + 0.5 · 0.9) = 0.76
    assert cal.certainty([0.8], [0.2], [0.9])[0] == pytest.approx(0.76)
    # a tie halves it: 0.8 · 0.5 · 0.95 = 0.38
    assert cal.certainty([0.8], [0.0], [0.9])[0] == pytest.approx(0.38)
    # expired (not current): × 0.5
    assert cal.certainty([0.8], [0.2], [0.9], False)[0] == pytest.approx(0.38)
    # 0.1 behind a disagreeing result: nothing
    assert cal.certainty([0.8], [-0.1], [0.9])[0] == 0.0
    # no disagreeing result (NaN margin): a clear win
    assert cal.certainty([0.8], [np.nan], [1.0])[0] == pytest.approx(0.8)


def test_margins_are_against_the_best_disagreeing_result():
    # passages of one document (group 7) agree: rank 2 is not a close race for rank 1
    m = cal.disagreeing_margins(np.array([0.80, 0.79, 0.60, 0.50]), np.array([7, 7, 3, 4]))
    assert m.tolist() == pytest.approx([0.20, 0.19, -0.20, -0.30])
    assert np.isnan(cal.disagreeing_margins(np.array([0.5, 0.4]), np.array([1, 1]))).all()


@given(st.lists(st.floats(0, 1), min_size=2, max_size=12), st.floats(0, 1))
def test_rank_one_has_the_highest_certainty_at_equal_trust(scores, trust):
    s = np.sort(np.array(scores))[::-1]
    x = cal.certainty(s, cal.disagreeing_margins(s, np.arange(len(s))), trust)
    assert np.all(x[0] >= x[1:] - 1e-12)
    assert np.all(np.diff(x) <= 1e-12)          # and it falls with rank


def test_refit_moves_the_prior_towards_the_verdicts():
    prior = cal.calibrate("default", np.array([0.6]))[0]
    many_wrong = cal.refit_knots("default", np.full(200, 0.6), np.zeros(200))
    few_wrong = cal.refit_knots("default", np.full(3, 0.6), np.zeros(3))
    hard = cal.calibrate("default", np.array([0.6]), many_wrong)[0]
    soft = cal.calibrate("default", np.array([0.6]), few_wrong)[0]
    assert hard < soft <= prior + 1e-12
    assert hard < 0.2
    knots = cal.refit_knots("default", np.linspace(0, 1, 50), np.linspace(0, 1, 50) > 0.5)
    assert np.all(np.diff(knots[1]) >= 0)       # still non-decreasing: never reorders results


def test_naive_reports_its_cosine():
    assert cal.calibrate("naive", np.array([0.1]), raw_scores=np.array([0.63]))[0] == pytest.approx(0.63)


def test_abstention_rule():
    assert cal.abstains(0.15, 1.0) is not None                  # under the floor, whatever the words
    assert cal.abstains(0.30, 0.0) is not None                  # weak and no word of the question found
    assert cal.abstains(0.30, 0.2) is not None                  # weak and one word in five: generic
    assert cal.abstains(0.30, 0.5) is None                      # weak but the words are there
    assert cal.abstains(0.45, 0.0) is None                      # strong enough on its own
    assert cal.lexical_support("What is the refund window?", ["Refunds within 60 days"]) == pytest.approx(0.5)
    assert cal.lexical_support("asdf qwerty", ["Refund policy"]) == 0.0
    # a word most candidates contain is not specific: "refund" in 3 of 4 -> no support
    pool = ["Refund policy", "refund macro", "refunds FAQ", "pricing plans"]
    assert cal.lexical_support("refund", pool[:1], pool) == 0.0
    assert cal.lexical_support("pricing", pool[3:], pool) == 1.0


@given(st.lists(st.floats(0, 1), min_size=2, max_size=20), st.floats(0.01, 0.99), st.integers(1, 5))
def test_a_wrong_verdict_never_raises_the_confidence_at_its_certainty(knot_y, x, n):
    """Whatever the prior's knots, verdicts "wrong" at certainty ``x`` leave the store's
    calibration at ``x`` at most the prior's; "right" ones leave it at least the prior's."""
    prior = (np.linspace(0, 1, len(knot_y)), np.maximum.accumulate(np.array(knot_y)))
    before = np.interp(x, *prior)
    wrong = cal.refit_knots("default", np.full(n, x), np.zeros(n), prior=prior)
    right = cal.refit_knots("default", np.full(n, x), np.ones(n), prior=prior)
    assert np.interp(x, *wrong) <= before + 1e-9
    assert np.interp(x, *right) >= before - 1e-9


@given(st.lists(st.floats(0.0, 1.0), min_size=0, max_size=12), st.lists(st.booleans(), min_size=12, max_size=12))
def test_a_confidence_never_exceeds_the_one_ranked_above_it(p, starts):
    p = np.asarray(p)
    first = np.asarray(starts[:len(p)])
    if len(p):
        first[0] = True
    held = cal.held_to_rank(p, first)
    assert held.shape == p.shape and np.all(held <= p)
    for seg_p, seg in zip(np.split(p, np.flatnonzero(first)[1:]), np.split(held, np.flatnonzero(first)[1:]),
                          strict=True):
        if len(seg):
            assert seg[0] == seg_p[0]                  # each answer's rank 1 is unchanged
            assert np.all(np.diff(seg) <= 0)           # and nothing rises down the list
    assert cal.held_to_rank(np.array([0.4, 0.7, 0.5])).tolist() == [0.4, 0.4, 0.4]
