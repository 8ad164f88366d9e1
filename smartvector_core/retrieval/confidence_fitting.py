"""Fitting the confidence model (:mod:`.confidence_model`): the monotone boosted trees the prior
ships (:func:`fit_trees`, :mod:`.confidence_trees`), the monotone logistic regression on
standardised evidence (:func:`fit_model`, the form up to model version 5) and the isotonic map on
their certainties (:func:`isotonic_knots`). Needed only to fit (``calibration --fit-prior``, a store's refit from
its operators' verdicts); SciPy and scikit-learn are imported inside each function."""

from __future__ import annotations

import numpy as np

from .confidence_model import DIRECTION, FEATURES, ConfidenceModel


def fit_model(x: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None, *, c: float = 0.5,
              names: tuple[str, ...] = FEATURES, fixed: frozenset[str] = frozenset()) -> ConfidenceModel:
    """Logistic regression on standardised features, L2-regularised (``C = c``, as
    scikit-learn's: minimise ``Σ_i w_i · logloss_i + ||w||² / (2C)`` with the weights summing to
    the row count), each weight constrained to the sign of :data:`DIRECTION` (L-BFGS-B bounds);
    a feature constant in the data, or named in ``fixed``, gets weight 0. ``weights``: per row
    (e.g. each corpus one share)."""
    from scipy.optimize import minimize

    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    w = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=np.float64)
    w = w * len(w) / w.sum()
    mean = np.average(x, axis=0, weights=w)
    scale = np.sqrt(np.average((x - mean) ** 2, axis=0, weights=w))
    flat = scale <= 1e-9
    scale = np.where(flat, 1.0, scale)
    z = (x - mean) / scale

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        t = z @ theta[1:] + theta[0]
        p = 1.0 / (1.0 + np.exp(-np.clip(t, -30, 30)))
        ll = w * (np.logaddexp(0.0, t) - y * t)
        g = w * (p - y)
        grad = np.r_[g.sum(), z.T @ g + theta[1:] / c]
        return float(ll.sum() + theta[1:] @ theta[1:] / (2 * c)), grad

    flat = flat | np.array([n in fixed for n in names], dtype=bool)
    bounds = [(None, None)] + [(0.0, 0.0) if f else ((0.0, None) if DIRECTION.get(n, 0) > 0 else
                                                     (None, 0.0) if DIRECTION.get(n, 0) < 0 else (None, None))
                               for n, f in zip(names, flat, strict=True)]
    found = minimize(loss, np.zeros(len(names) + 1), jac=True, method="L-BFGS-B", bounds=bounds)
    return ConfidenceModel(tuple(names), mean, scale, found.x[1:].astype(np.float64), float(found.x[0]))


def isotonic_knots(x: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None, *, at: str = "centres"
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Isotonic (non-decreasing) regression of ``y`` on ``x``, as knots at the weighted centre of
    each block of equal fitted value (``at="centres"``; and the data's ends), for ``np.interp``: piecewise linear,
    non-decreasing, strictly increasing between blocks of different value.

    ``at="ends"``: knots at each block's first and last ``x`` instead, so the fitted value holds over
    the whole block (flat inside it). An observation then never moves the curve at its own ``x``
    against its label: a wrong verdict at ``x`` can only lower the value there (with centres, a
    block pooled around it moves its centre away and the line from the next block can rise)."""
    from sklearn.isotonic import IsotonicRegression

    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    w = np.ones(len(x)) if weights is None else np.asarray(weights, dtype=np.float64)
    if not len(x):
        return np.array([0.0, 1.0]), np.array([0.0, 1.0])
    fitted = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(x, y, sample_weight=w).predict(x)
    order = np.argsort(x, kind="stable")
    xs, fs, ws = x[order], fitted[order], w[order]
    starts = np.r_[0, np.flatnonzero(np.diff(fs) != 0) + 1]
    sums = np.add.reduceat(ws, starts)
    centres = np.add.reduceat(ws * xs, starts) / np.maximum(sums, 1e-12)
    values = fs[starts]
    if at not in ("centres", "ends"):
        raise ValueError(f"isotonic_knots: at is 'centres' or 'ends', not {at!r}")
    if at == "ends":
        last = np.r_[starts[1:], len(xs)] - 1
        kx = np.column_stack([xs[starts], xs[last]]).ravel()
        ky = np.repeat(values, 2)
    else:
        kx = np.r_[xs[0], centres, xs[-1]]
        ky = np.r_[values[0], values, values[-1]]
    keep = np.r_[True, np.diff(kx) > 0]
    return kx[keep], ky[keep]


# ours (docs/CONFIDENCE.md "Eighth session"): depth-3 trees, 150 rounds at rate 0.05, leaves of at
# least 50 rows, L2 1.0 on the leaf values; no early stopping (its validation split is a random draw)
TREES = {"max_depth": 3, "max_iter": 150, "learning_rate": 0.05, "min_samples_leaf": 50, "l2_regularization": 1.0}


def fit_trees(x: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None, *,
              names: tuple[str, ...] = FEATURES, fixed: frozenset[str] = frozenset(), params: dict | None = None):
    """Gradient-boosted trees of the log-loss (scikit-learn's ``HistGradientBoostingClassifier``,
    :data:`TREES`), each feature held to the direction of :data:`DIRECTION` (``monotonic_cst``:
    +1 never lowers, −1 never raises, 0 free); a feature constant in the data, or named in
    ``fixed``, is not read. ``weights``: per row (scaled to sum to the row count). No feature
    left: the trees are empty and every row gets the weighted base rate's log-odds. The fitted
    trees are read through scikit-learn's private ``_predictors`` and ``_baseline_prediction``
    (tests/retrieval/test_confidence_trees.py checks the result against ``predict_proba``)."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    from .confidence_trees import TreeModel, from_predictors

    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    w = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=np.float64)
    w = w * len(w) / w.sum()
    mean = np.average(x, axis=0, weights=w)
    varies = np.sqrt(np.average((x - mean) ** 2, axis=0, weights=w)) > 1e-9
    columns = [j for j, n in enumerate(names) if varies[j] and n not in fixed]
    rate = float(np.clip(np.average(y, weights=w), 1e-6, 1 - 1e-6))
    if not columns or rate in (1e-6, 1 - 1e-6):
        empty = np.zeros((0, 1))
        return TreeModel(tuple(names), mean, float(np.log(rate / (1 - rate))), empty.astype(np.intp), empty,
                         empty.astype(np.intp), empty.astype(np.intp), empty.astype(bool), empty)
    clf = HistGradientBoostingClassifier(**{**TREES, **(params or {})}, early_stopping=False, random_state=0,
                                         monotonic_cst=[DIRECTION.get(names[j], 0) for j in columns])
    clf.fit(x[:, columns], y.astype(int), sample_weight=w)
    return from_predictors(clf._predictors, columns, tuple(names), mean, float(np.ravel(clf._baseline_prediction)[0]))
