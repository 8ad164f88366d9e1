"""The confidence model as monotone boosted trees (model version 6; docs/CONFIDENCE.md "Eighth
session"): the same evidence rows as the logistic model (:data:`.confidence_model.FEATURES`),
the same interface (``logit``, ``contributions``, ``certainty``, ``aligned``, ``to_dict``), so
the isotonic map, the store's refit, factors and the rank cap read it unchanged::

    logit(x)   = bias + Σ_t value_t(leaf_t(x))        (gradient boosting of the log-loss,
                                                      depth-limited trees, Friedman 2001)
    certainty  = σ(logit)

Each tree is held monotone in every feature of :data:`.confidence_model.DIRECTION` (more
support never lowers the confidence; scikit-learn's ``monotonic_cst``), but trees, unlike the
logistic model, read features *together*: a period written in the passage counts for more when
the question names one, a margin for less where every source is one page's paragraphs.

**Contributions** (what a result card lists): along each tree's path, the change of the node
value at a split goes to the split's feature (Saabas' path attribution); an inner node's value
is the count-weighted mean of the leaves below it, so the contributions of a row sum to
``logit(x) − base`` with ``base = bias + Σ_t value_t(root)``, the log-odds of an average result
of the fit data, as the logistic model's ``w_j · z_j`` do.

Evaluated with numpy on every tree at once (the trees are padded to one node count and walked
level by level); scikit-learn is needed only to fit (:func:`.confidence_fitting.fit_trees`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..errors import InputError


@dataclass(frozen=True)
class TreeModel:
    """Boosted trees over ``features``. Node arrays are (trees, nodes): ``feature`` the split's
    column (-1 at a leaf), ``threshold`` (x ≤ threshold goes left, NaN by ``missing_left``),
    ``left`` / ``right`` child nodes, ``value`` (leaf: its log-odds; inner: the mean of the
    leaves below). ``mean``: per feature, the fit data's mean (:meth:`aligned` fills with it)."""

    features: tuple[str, ...]
    mean: np.ndarray
    bias: float
    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    missing_left: np.ndarray
    value: np.ndarray

    @property
    def base(self) -> float:
        """The log-odds every row starts from: ``bias + Σ_t value_t(root)``."""
        return float(self.bias + self.value[:, 0].sum()) if self.value.size else float(self.bias)

    @cached_property
    def _flat(self) -> tuple[np.ndarray, ...]:
        """The node arrays flattened to one index ``t · nodes + i``, a leaf pointing at itself on
        both sides (so a walk of ``depth`` steps stops there and credits nothing more), the
        roots' indices, and the deepest path's length."""
        trees, width = self.value.shape
        base = (np.arange(trees) * width)[:, None]
        leaf = self.feature < 0
        here = base + np.arange(width)[None, :]
        left = np.where(leaf, here, base + self.left).ravel()
        right = np.where(leaf, here, base + self.right).ravel()
        depth, node = 0, base[:, 0]
        frontier = [node]
        while frontier and depth <= width:        # the deepest path, level by level
            level = np.concatenate(frontier)
            level = level[~leaf.ravel()[level]]
            if not len(level):
                break
            frontier, depth = [left[level], right[level]], depth + 1
        return (np.maximum(self.feature, 0).ravel(), self.threshold.ravel(), left, right,
                self.missing_left.ravel(), self.value.ravel(), base[:, 0], depth)

    def _walk(self, x: np.ndarray, credit: bool = True) -> tuple[np.ndarray | None, np.ndarray]:
        """(contributions (rows, features), or None without ``credit``; the leaf values summed
        per row) of ``x``: every tree walked at once, one level per step."""
        x = np.asarray(x, dtype=np.float64).reshape(-1, len(self.features))
        if not self.value.size or not len(x):
            return (np.zeros_like(x) if credit else None), np.zeros(len(x))
        feature, threshold, left, right, missing, value, roots, depth = self._flat
        n, width = x.shape
        offset = (np.arange(n) * width)[:, None]
        flat_x = x.ravel()
        gaps = bool(np.isnan(flat_x).any())
        node = np.broadcast_to(roots, (n, len(roots)))
        where, steps = [], []
        for _ in range(depth):
            col = offset + feature[node]
            v = flat_x[col]
            go_left = v <= threshold[node]
            if gaps:
                go_left = np.where(np.isnan(v), missing[node], go_left)
            child = np.where(go_left, left[node], right[node])
            if credit:
                where.append(col.ravel())
                steps.append((value[child] - value[node]).ravel())
            node = child
        contrib = None
        if credit:
            contrib = np.bincount(np.concatenate(where), np.concatenate(steps), minlength=n * width).reshape(n, width) \
                if where else np.zeros((n, width))
        return contrib, value[node].sum(axis=1)

    def logit(self, x: np.ndarray) -> np.ndarray:
        """bias + Σ_t value_t(leaf_t(x)) per row of ``x`` (n, len(features))."""
        return self.bias + self._walk(x, credit=False)[1]

    def contributions(self, x: np.ndarray) -> np.ndarray:
        """Per row and feature, the log-odds its splits add along the trees' paths (they sum to
        ``logit − base``)."""
        return self._walk(x)[0]

    def certainty(self, x: np.ndarray) -> np.ndarray:
        """σ(logit) per row, in (0, 1)."""
        return _sigmoid(self.logit(x))

    def certainty_and_contributions(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(:meth:`certainty`, :meth:`contributions`) of ``x`` from one walk of the trees (a
        result card reads both: the same numbers as the two calls, half the work)."""
        contrib, leaves = self._walk(x)
        return _sigmoid(self.bias + leaves), contrib

    def aligned(self, x: np.ndarray, names: tuple[str, ...] | None = None) -> np.ndarray:
        """``x`` (columns ``names``) reordered to this model's features (a missing one: its mean)."""
        from .confidence_model import FEATURES, align

        return align(x, FEATURES if names is None else names, self.features, self.mean)

    def to_dict(self) -> dict:
        def nums(a):            # every digit: a threshold can equal a fitted row's value exactly
            return np.asarray(a, dtype=np.float64).tolist()
        return {"kind": "trees", "features": list(self.features), "mean": [float(v) for v in self.mean],
                "bias": float(self.bias), "feature": self.feature.astype(int).tolist(),
                "threshold": nums(self.threshold), "left": self.left.astype(int).tolist(),
                "right": self.right.astype(int).tolist(), "missing_left": self.missing_left.astype(int).tolist(),
                "value": nums(self.value)}

    @classmethod
    def from_dict(cls, data: dict, *, where: str = "calibration.json") -> TreeModel:
        try:
            names = tuple(data["features"])
            mean = np.asarray(data["mean"], dtype=np.float64)
            arrays = {k: np.asarray(data[k], dtype=np.float64).reshape(len(data[k]), -1) if len(data[k])
                      else np.zeros((0, 1)) for k in ("feature", "threshold", "left", "right", "missing_left", "value")}
            bias = float(data["bias"])
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"{where}: confidence trees are incomplete ({exc})", field="model") from exc
        shapes = {a.shape for a in arrays.values()}
        if mean.shape != (len(names),) or len(shapes) != 1:
            raise InputError(f"{where}: expected one node count for every tree array and {len(names)} means",
                             field="model")
        feature = arrays["feature"].astype(np.intp)
        if (feature >= len(names)).any():
            raise InputError(f"{where}: a split reads a feature beyond the {len(names)} listed", field="model")
        return cls(names, mean, bias, feature, arrays["threshold"], arrays["left"].astype(np.intp),
                   arrays["right"].astype(np.intp), arrays["missing_left"].astype(bool), arrays["value"])


def _sigmoid(logit: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(logit, -30.0, 30.0)))


def from_predictors(predictors, columns: list[int], names: tuple[str, ...], mean: np.ndarray,
                    bias: float) -> TreeModel:
    """A :class:`TreeModel` from scikit-learn's fitted trees (``HistGradientBoostingClassifier``'s
    ``_predictors``, one per iteration; their nodes' ``value`` at leaves, ``feature_idx`` into the
    fitted ``columns`` of ``names``). Inner values: the count-weighted mean of their children,
    worked out from the leaves up."""
    nodes = [p[0].nodes for p in predictors]
    width = max((len(n) for n in nodes), default=0)
    shape = (len(nodes), width)
    feature = np.full(shape, -1, dtype=np.intp)
    threshold, value = np.zeros(shape), np.zeros(shape)
    left, right = np.zeros(shape, dtype=np.intp), np.zeros(shape, dtype=np.intp)
    missing = np.zeros(shape, dtype=bool)
    for t, n in enumerate(nodes):
        leaf = n["is_leaf"].astype(bool)
        feature[t, :len(n)] = np.where(leaf, -1, np.asarray(columns, dtype=np.intp)[n["feature_idx"]])
        threshold[t, :len(n)] = n["num_threshold"]
        left[t, :len(n)], right[t, :len(n)] = n["left"], n["right"]
        missing[t, :len(n)] = n["missing_go_to_left"].astype(bool)
        val, count = n["value"].astype(np.float64), n["count"].astype(np.float64)
        for i in np.argsort(-n["depth"].astype(np.int64), kind="stable"):     # children before their parent
            if not leaf[i]:
                a, b = n["left"][i], n["right"][i]
                val[i] = (val[a] * count[a] + val[b] * count[b]) / max(count[a] + count[b], 1.0)
        value[t, :len(n)] = val
    return TreeModel(tuple(names), np.asarray(mean, dtype=np.float64), float(bias), feature, threshold, left, right,
                     missing, value)
