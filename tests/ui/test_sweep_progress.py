"""The weight sweep reports each step and can be stopped from its progress callback (the
Evaluation page's "Stop": Streamlit interrupts the run inside the callback)."""

from __future__ import annotations

import pytest

from smartvector_core.evaluation.accuracy.ablation import simplex_grid, weight_sweep


class _Bench:
    """Just what weight_sweep asks of a prepared bench; counts the evaluations."""

    def __init__(self) -> None:
        self.evaluated = 0

    def answer_profile(self, profile, queries):
        return profile

    def evaluate(self, runs, queries):
        self.evaluated += 1
        return {"top1": 0.5, "stale_at_1": 0.1, "ece": 0.2, "mrr": 0.6, "n": 3}


def test_the_sweep_reports_every_step():
    seen: list[tuple[int, int]] = []
    rows = weight_sweep(_Bench(), step=0.5, progress=lambda done, total: seen.append((done, total)))
    total = len(simplex_grid(0.5))
    assert seen == [(i, total) for i in range(1, total + 1)]
    assert len(rows) == 2 * total                      # two scorers per grid point


def test_an_exception_from_the_callback_stops_the_sweep_at_that_step():
    class Stop(BaseException):      # what a Streamlit rerun raises: not an Exception
        pass

    bench = _Bench()

    def progress(done: int, total: int) -> None:
        if done == 2:
            raise Stop

    with pytest.raises(Stop):
        weight_sweep(bench, step=0.5, progress=progress)
    assert bench.evaluated == 4                         # two grid points, two scorers each, then stopped
