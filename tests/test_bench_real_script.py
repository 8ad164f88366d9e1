"""scripts/bench/real.py's confidence table, on a hand-made run: the figures ``bench --json``
reports (``metrics.evaluate``, through ``calibration.confidence_report`` as ``calibration --json``),
per profile, a question without results counted at confidence 0."""

import importlib.util
from pathlib import Path

import pytest

from smartvector_core.evaluation.accuracy.metrics import evaluate

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("bench_real", ROOT / "scripts" / "bench" / "real.py")
real = importlib.util.module_from_spec(spec)
spec.loader.exec_module(real)


def test_confidence_targets_per_profile_from_a_run() -> None:
    rows = [("default", "a", 0.95), ("default", "b", 0.92), ("default", "a", 0.30), ("default", None, None),
            ("naive", "b", 0.50)]
    got = {}
    for profile in ("default", "naive"):
        mine = [(top, c) for p, top, c in rows if p == profile]
        queries = [{"id": f"q{i}", "relevant": ["a"]} for i in range(len(mine))]
        runs = {f"q{i}": [] if top is None else [{"id": top, "confidence": c}] for i, (top, c) in enumerate(mine)}
        got[profile] = evaluate(runs, queries)
    d = got["default"]
    # HIGH (>= 0.90): 0.95 right, 0.92 wrong; AUROC: right {0.95, 0.30} against wrong {0.92, 0.0}: 3 of 4 pairs
    assert (d["high_precision"], d["high_n"]) == (0.5, 2)
    assert d["auroc"] == pytest.approx(0.75)
    assert d["distinct_per_100"] == pytest.approx(100.0)
    assert got["naive"]["auroc"] is None            # one answer, wrong: no pair to order
    table = real.table("set", {"profiles": got, "params": {}})
    assert "| default | " in table.split("issue 28's targets")[1] and "0.500 (2)" in table
