"""scripts/bench/real.py's confidence table, on a hand-made ``bench --dump`` file: the same
figures as ``calibration --json`` reads (``calibration.confidence_report``), per profile, a
question without results counted at confidence 0 as ``bench`` counts it."""

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("bench_real", ROOT / "scripts" / "bench" / "real.py")
real = importlib.util.module_from_spec(spec)
spec.loader.exec_module(real)


def test_confidence_targets_per_profile_from_a_dump(tmp_path: Path) -> None:
    rows = [("default", "a", 0.95), ("default", "b", 0.92), ("default", "a", 0.30), ("default", None, None),
            ("naive", "b", 0.50)]
    dump = tmp_path / "d.jsonl"
    dump.write_text("".join(json.dumps({"profile": p, "relevant": ["a"],
                                        "results": [] if top is None else [{"id": top, "confidence": c}]}) + "\n"
                            for p, top, c in rows), encoding="utf-8")
    got = real.confidence_targets(dump)
    assert set(got) == {"default", "naive"}
    d = got["default"]
    # HIGH (>= 0.90): 0.95 right, 0.92 wrong; AUROC: right {0.95, 0.30} against wrong {0.92, 0.0}: 3 of 4 pairs
    assert (d["high_precision"], d["high_n"]) == (0.5, 2)
    assert d["auroc"] == pytest.approx(0.75)
    assert d["distinct_per_100"] == pytest.approx(100.0)
    assert got["naive"]["auroc"] is None            # one answer, wrong: no pair to order
    table = real.table("set", {"profiles": {"default": {"n": 4, "top1": 0.5}}, "params": {}, "confidence": got})
    assert "| default | " in table.split("issue 28's targets")[1] and "0.500 (2)" in table
