"""The fit report of the shipped prior: the "before" column of a model prior, and the paired
interval of a change of ECE and AUROC (hand-worked figures)."""

from __future__ import annotations

import numpy as np
import pytest

from smartvector_core.evaluation.accuracy import confidence_fit as cf
from smartvector_core.retrieval import confidence_model as cm

COL = {n: j for j, n in enumerate(cm.FEATURES)}


def test_the_same_confidences_change_nothing_on_any_resample():
    right = np.array([True, True, False, True, False])
    conf = np.array([0.9, 0.7, 0.4, 0.8, 0.2])
    assert cf.change_interval(conf, conf, right) == {"ece_change": [0.0, 0.0], "auroc_change": [0.0, 0.0]}


def test_a_change_beyond_the_noise_keeps_its_interval_off_zero():
    # before: 0.9 for all four (2 right): ECE of a resample = |share right − 0.9|, in [0.1, 0.9];
    # after: 1 for the right, 0 for the wrong: ECE 0 on every resample. So the change lies in
    # [−0.9, −0.1]. AUROC: 0.5 (all tied) before, 1 after, wherever both kinds are drawn: +0.5.
    right = np.array([True, True, False, False])
    got = cf.change_interval(np.full(4, 0.9), right.astype(float), right)
    lo, hi = got["ece_change"]
    assert -0.9 - 1e-9 <= lo <= hi <= -0.1 + 1e-9
    assert got["auroc_change"] == pytest.approx([0.5, 0.5])


def test_auroc_change_is_none_when_every_answer_is_right():
    got = cf.change_interval(np.full(3, 0.5), np.full(3, 0.9), np.ones(3, bool))
    assert got["auroc_change"] is None and got["ece_change"] == pytest.approx([-0.4, -0.4])


def _part(n: int, rng) -> dict[str, np.ndarray]:
    x = np.zeros((2 * n, len(cm.FEATURES)))
    right = np.tile([True, False], n) & (rng.random(2 * n) < 0.85)
    x[:, COL["margin"]] = np.where(right, 0.2, -0.1) + rng.normal(0, 0.05, 2 * n)
    x[:, COL["first"]] = np.tile([1.0, 0.0], n)
    return {"x": x, "right": right, "rank": np.tile([1, 2], n), "qid": np.repeat(np.arange(n), 2).astype(str),
            "profile": np.full(2 * n, "default"), "abstained": np.zeros(2 * n, bool),
            "confidence": np.zeros(2 * n), "certainty": np.zeros(2 * n)}


def test_before_reads_an_earlier_model_prior_through_its_model():
    rng = np.random.default_rng(4)
    rows = {(c, r): _part(30, rng) for c in ("a", "b") for r in ("fit", "report")}
    fitted = cf.fit_prior(rows)
    data = rows[("a", "report")]
    # the earlier prior is this very one: before is after, to the last digit, and the change 0
    assert np.array_equal(cf.before_confidences(data, "default", fitted["default"]),
                          cf.confidences(data, "default", fitted["default"]))
    table = cf.report_table(rows, fitted, {"profiles": fitted})
    after = next(t for t in table if t["corpus"] == "a" and t["variant"] == "default after")
    before = next(t for t in table if t["corpus"] == "a" and t["variant"] == "default before")
    assert before["ece"] == after["ece"] and after["ece_change"] == [0.0, 0.0]
    assert "ece_change" not in before
    assert "[+0.000, +0.000]" in cf.format_table([after])


def test_the_prior_file_keeps_each_model_on_one_line_and_reads_back(tmp_path, monkeypatch):
    import json

    from smartvector_core.retrieval import calibration

    rng = np.random.default_rng(6)
    rows = {(c, r): _part(30, rng) for c in ("a", "b") for r in ("fit", "report")}
    fitted = cf.fit_prior(rows)
    path = tmp_path / "calibration.json"
    monkeypatch.setattr(calibration._shipped, "cache_clear", lambda: None)
    monkeypatch.setattr(cm, "clear_cache", lambda: None)
    cf.write_prior(fitted, {"seed": 7}, path)
    text = path.read_text(encoding="utf-8")
    assert json.loads(text) == {"meta": {"seed": 7}, "profiles": fitted}
    assert sum('"model": {' in line for line in text.splitlines()) == 1     # one profile, one line
