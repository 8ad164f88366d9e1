"""From a result's score to a probability that it is a right and current answer.

The raw feature is ``certainty = score × (0.5 + 0.5 · min(1, margin / 0.1))``: a result that
wins by a clear margin is more likely right than one in a close race (blog, confidence tiers).
Per profile, an isotonic regression (scikit-learn) fitted on labelled queries maps certainty to
the observed accuracy; its knots are stored in ``calibration.json`` beside this module and
applied with ``np.interp``. A profile without knots uses the certainty itself. ``naive`` uses
its cosine similarity unchanged: that is what plain RAG reports.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np

KNOTS_FILE = Path(__file__).with_name("calibration.json")
MARGIN_SCALE = 0.1


def certainty(scores: np.ndarray, margins: np.ndarray) -> np.ndarray:
    m = np.clip(np.asarray(margins, dtype=np.float64) / MARGIN_SCALE, 0.0, 1.0)
    return np.clip(np.asarray(scores, dtype=np.float64), 0.0, 1.0) * (0.5 + 0.5 * m)


@lru_cache(maxsize=1)
def _knots() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    if not KNOTS_FILE.exists():
        return {}
    data = json.loads(KNOTS_FILE.read_text(encoding="utf-8"))
    return {name: (np.asarray(v["x"], dtype=np.float64), np.asarray(v["y"], dtype=np.float64))
            for name, v in data.get("profiles", {}).items()}


def calibrate(profile: str, scores: np.ndarray, margins: np.ndarray, ranked=None, top=None) -> np.ndarray:
    """Probability per result that it is right and current."""
    if profile == "naive":
        return np.clip(scores, 0.0, 1.0)
    x = certainty(scores, margins)
    knots = _knots().get(profile)
    if knots is None:
        return x
    return np.interp(x, knots[0], knots[1])


def fit_knots(x: np.ndarray, correct: np.ndarray) -> dict[str, list[float]]:
    """Isotonic fit of correctness on certainty; returns the knots to store."""
    from sklearn.isotonic import IsotonicRegression

    iso = IsotonicRegression(y_min=0.0, y_max=1.0, increasing=True, out_of_bounds="clip")
    iso.fit(np.asarray(x, dtype=np.float64), np.asarray(correct, dtype=np.float64))
    return {"x": [float(v) for v in iso.X_thresholds_], "y": [float(v) for v in iso.y_thresholds_]}


def save_knots(per_profile: dict[str, dict[str, list[float]]], meta: dict) -> None:
    KNOTS_FILE.write_text(json.dumps({"meta": meta, "profiles": per_profile}, indent=1), encoding="utf-8")
    _knots.cache_clear()
