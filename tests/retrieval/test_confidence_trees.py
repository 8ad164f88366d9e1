"""The confidence model as monotone boosted trees: a hand-worked tree's log-odds and path
contributions, its JSON, scikit-learn's trees read back, the directions held, factors."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest

from smartvector_core.errors import InputError
from smartvector_core.retrieval import confidence_fitting as fitting
from smartvector_core.retrieval import confidence_model as cm
from smartvector_core.retrieval.confidence_trees import TreeModel, from_predictors

COL = {n: j for j, n in enumerate(cm.FEATURES)}


def _stump(bias: float = 0.5) -> TreeModel:
    """One tree: margin ≤ 0.1 → leaf −1 (3 fit rows), else leaf +1 (1 row); the root's value is
    their count-weighted mean (−1·3 + 1·1) / 4 = −0.5."""
    names = ("margin", "coverage")
    return TreeModel(names, np.array([0.05, 0.5]), bias, feature=np.array([[0, -1, -1]]),
                     threshold=np.array([[0.1, 0.0, 0.0]]), left=np.array([[1, 0, 0]]), right=np.array([[2, 0, 0]]),
                     missing_left=np.array([[True, False, False]]), value=np.array([[-0.5, -1.0, 1.0]]))


def test_a_stump_adds_its_leaf_and_credits_the_split_feature():
    model = _stump()
    x = np.array([[0.2, 0.9], [0.0, 0.9], [np.nan, 0.1]])
    # logit = bias + leaf: 0.5 + 1 = 1.5; 0.5 − 1 = −0.5; NaN goes left: −0.5
    assert model.logit(x).tolist() == pytest.approx([1.5, -0.5, -0.5])
    assert model.base == pytest.approx(0.0)            # 0.5 + (−0.5)
    # margin's contribution: leaf − root = 1 − (−0.5) = 1.5 and −1 − (−0.5) = −0.5; coverage 0
    assert np.allclose(model.contributions(x), [[1.5, 0.0], [-0.5, 0.0], [-0.5, 0.0]])
    assert model.certainty(x[:1])[0] == pytest.approx(1 / (1 + np.exp(-1.5)))


def test_trees_survive_their_json_and_are_read_as_trees():
    model = _stump()
    back = cm.model_from_dict(json.loads(json.dumps(model.to_dict())))
    assert isinstance(back, TreeModel)
    x = np.array([[0.1, 0.0], [0.1000001, 0.0]])        # the threshold itself goes left
    assert back.logit(x).tolist() == model.logit(x).tolist() == pytest.approx([-0.5, 1.5])
    assert isinstance(cm.model_from_dict({"features": ["margin"], "mean": [0.0], "scale": [1.0], "coef": [1.0],
                                          "intercept": 0.0}), cm.ConfidenceModel)
    broken = {k: v for k, v in model.to_dict().items() if k != "value"}
    with pytest.raises(InputError, match="calibration.json"):
        cm.model_from_dict(broken)


def test_a_feature_the_rows_lack_is_filled_with_its_mean():
    model = _stump()
    rows = np.array([[0.9]])                            # only "coverage"
    assert model.aligned(rows, ("coverage",)).tolist() == [[0.05, 0.9]]


def test_scikit_learn_trees_are_read_with_inner_values_from_their_leaves():
    fields = [("value", "f8"), ("count", "u4"), ("feature_idx", "i8"), ("num_threshold", "f8"),
              ("missing_go_to_left", "u1"), ("left", "u4"), ("right", "u4"), ("is_leaf", "u1"), ("depth", "u4")]
    # root splits column 0 of the fitted columns ([1]: "coverage") at 0.5; its left child splits
    # again; leaves −2 (1 row), 0 (3 rows), 4 (2 rows). Inner: (−2·1 + 0·3)/4 = −0.5, then
    # (−0.5·4 + 4·2)/6 = 1
    nodes = np.array([(9.0, 6, 0, 0.5, 0, 1, 4, 0, 0), (9.0, 4, 0, 0.2, 0, 2, 3, 0, 1), (-2.0, 1, 0, 0, 0, 0, 0, 1, 2),
                      (0.0, 3, 0, 0, 0, 0, 0, 1, 2), (4.0, 2, 0, 0, 0, 0, 0, 1, 1)], dtype=fields)
    model = from_predictors([[SimpleNamespace(nodes=nodes)]], [1], ("margin", "coverage"), np.zeros(2), 0.25)
    assert model.value[0].tolist() == pytest.approx([1.0, -0.5, -2.0, 0.0, 4.0])
    assert model.feature[0].tolist() == [1, 1, -1, -1, -1]
    x = np.array([[0.0, 0.1], [0.0, 0.3], [0.0, 0.9]])
    assert model.logit(x).tolist() == pytest.approx([0.25 - 2.0, 0.25, 4.25])
    assert model.contributions(x)[:, 1].tolist() == pytest.approx([-3.0, -1.0, 3.0])   # leaf − root value


def test_fit_trees_holds_each_feature_to_its_direction():
    rng = np.random.default_rng(5)
    x = np.zeros((600, len(cm.FEATURES)))
    x[:, COL["margin"]] = rng.uniform(-0.3, 0.3, 600)
    x[:, COL["coverage"]] = rng.uniform(0, 1, 600)
    # right where the margin is *low*: against its direction (+1); coverage along it
    y = (rng.random(600) < np.clip(0.5 - x[:, COL["margin"]] + 0.4 * (x[:, COL["coverage"]] - 0.5), 0, 1)).astype(float)
    model = fitting.fit_trees(x, y)
    grid = np.zeros((50, len(cm.FEATURES)))
    grid[:, COL["margin"]] = np.linspace(-0.3, 0.3, 50)
    grid[:, COL["coverage"]] = 0.5
    assert np.all(np.diff(model.certainty(grid)) >= -1e-12)      # never lower with more margin
    grid[:, COL["margin"]], grid[:, COL["coverage"]] = 0.0, np.linspace(0, 1, 50)
    assert model.certainty(grid)[-1] > model.certainty(grid)[0]     # coverage is read
    held = fitting.fit_trees(x, y, fixed=frozenset({"coverage"}))
    assert not (held.feature == COL["coverage"]).any()


def test_no_feature_left_gives_the_base_rate():
    model = fitting.fit_trees(np.zeros((4, len(cm.FEATURES))), np.array([1.0, 1.0, 1.0, 0.0]))
    assert model.certainty(np.zeros((2, len(cm.FEATURES)))).tolist() == pytest.approx([0.75, 0.75])
    back = cm.model_from_dict(json.loads(json.dumps(model.to_dict())))      # no tree at all, read back
    assert back.certainty(np.zeros((1, len(cm.FEATURES)))).tolist() == pytest.approx([0.75])
    assert back.contributions(np.zeros((1, len(cm.FEATURES)))).tolist() == [[0.0] * len(cm.FEATURES)]


def test_factors_of_trees_name_the_split_feature_in_words():
    names = cm.FEATURES
    stump = _stump()
    feature = np.where(stump.feature >= 0, COL["margin"], -1)
    model = TreeModel(names, np.zeros(len(names)), 0.5, feature, stump.threshold, stump.left, stump.right,
                      stump.missing_left, stump.value)
    x = np.zeros((2, len(names)))
    x[:, COL["margin"]] = [0.2, 0.0]
    assert cm.factors(model, x) == [["no other answer comes close"], ["a close second answer disagrees"]]


def test_the_trees_read_back_are_scikit_learns_own():
    """fit_trees reads scikit-learn's fitted trees through private attributes (``_predictors``,
    ``_baseline_prediction``): its probabilities must stay the classifier's."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    rng = np.random.default_rng(8)
    x = np.zeros((800, len(cm.FEATURES)))
    x[:, COL["margin"]] = rng.uniform(-0.3, 0.3, 800)
    x[:, COL["agreement"]] = rng.uniform(0, 1, 800)
    y = (rng.random(800) < 0.3 + x[:, COL["margin"]] + 0.3 * x[:, COL["agreement"]]).astype(float)
    model = fitting.fit_trees(x, y)
    cols = [COL["margin"], COL["agreement"]]
    clf = HistGradientBoostingClassifier(**fitting.TREES, early_stopping=False, random_state=0,
                                         monotonic_cst=[1, 1]).fit(x[:, cols], y.astype(int))
    assert np.allclose(model.certainty(x), clf.predict_proba(x[:, cols])[:, 1], atol=1e-12)
    assert np.allclose(model.contributions(x).sum(axis=1) + model.base, model.logit(x))
    certainty, contributions = model.certainty_and_contributions(x)   # one walk: the same numbers
    assert np.array_equal(certainty, model.certainty(x))
    assert np.array_equal(contributions, model.contributions(x))
