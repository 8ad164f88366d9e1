"""Lifecycle planning: the transition table, each rule, wake on access, invariants."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from smartvector_core.clock import US_PER_DAY
from smartvector_core.errors import InputError
from smartvector_core.memory import (
    NO_ACCESS_US,
    TRANSITIONS,
    IllegalTransition,
    Move,
    check_move,
    make_move,
    plan_lifecycle,
    wake_on_access,
)
from smartvector_core.models import Lifecycle

U, A, D, R = Lifecycle.UNCONSOLIDATED, Lifecycle.ACTIVE, Lifecycle.DORMANT, Lifecycle.ARCHIVED
NOW = 1_767_225_600_000_000
DAY = US_PER_DAY


def plan(states, conf, last_access_days_ago, superseded, **kw):
    access = np.array([NO_ACCESS_US if d is None else NOW - int(d * DAY) for d in last_access_days_ago])
    return plan_lifecycle([f"d{i}" for i in range(len(states))], states, np.array(conf, dtype=float),
                          access, np.array(superseded, dtype=bool), NOW, **kw)


def test_each_rule():
    moves = plan(
        [U, A, A, A, D, D, D, A, R, R],
        [0.9, 0.10, 0.10, 0.50, 0.10, 0.40, 0.10, 0.9, 0.9, 0.9],
        [None, 45, 10, 90, 60, 90, 2, 1, 1, 1],
        [False, False, False, False, False, False, False, True, True, False],
    )
    assert [(m.doc_id, m.from_state, m.to_state) for m in moves] == [
        ("d0", U, A),   # consolidated
        ("d1", A, D),   # low confidence and idle 45 days (d2: accessed recently, d3: trusted)
        ("d5", D, A),   # confidence back above the threshold (d4 stays asleep)
        ("d6", D, A),   # accessed 2 days ago
        ("d7", A, R),   # superseded (d8 already archived, d9 archived stays archived)
    ]
    reasons = {m.doc_id: m.reason for m in moves}
    assert reasons["d1"] == "memory strength 0.100 < 0.15, no access for 45.0 days"
    assert reasons["d5"] == "memory strength 0.400 back at or above 0.15"
    assert reasons["d6"] == "accessed 2.0 days ago"
    assert reasons["d7"] == "superseded by a newer version"


def test_threshold_and_idle_boundaries():
    # exactly at the threshold is not below it; exactly idle_days idle counts as idle
    moves = plan([A, A, A], [0.15, 0.1499, 0.1499], [30, 30, 29.999], [False] * 3)
    assert [m.doc_id for m in moves] == ["d1"]


def test_idle_time_counts_from_ingest_or_the_last_access_whichever_is_later():
    ingested = np.array([NOW - 5 * DAY, NOW - 50 * DAY, NOW - 50 * DAY])
    moves = plan([A, A, A], [0.05, 0.05, 0.05], [None, None, 3], [False] * 3, ingested_us=ingested)
    assert [m.doc_id for m in moves] == ["d1"]           # d0 ingested 5 days ago, d2 read 3 days ago
    assert moves[0].reason.endswith("50.0 days")
    # an access older than the ingest (a re-ingest) does not make it idle longer
    assert plan([A], [0.05], [90], [False], ingested_us=np.array([NOW - 2 * DAY])) == []
    # without an ingest time, never accessed is idle for ever
    assert [m.reason for m in plan([A], [0.05], [None], [False])] == [
        "memory strength 0.050 < 0.15, no access for ever"]


def test_superseded_unconsolidated_goes_straight_to_archive_and_consolidate_can_be_off():
    assert plan([U], [0.9], [None], [True])[0].to_state == R
    assert plan([U], [0.9], [None], [False], consolidate=False) == []


def test_strings_accepted_and_bad_ones_list_choices():
    assert plan(["active"], [0.01], [100], [False])[0].to_state == D
    with pytest.raises(InputError, match="UNCONSOLIDATED, ACTIVE, DORMANT, ARCHIVED"):
        plan(["asleep"], [0.1], [1], [False])


def test_length_mismatch_raises():
    with pytest.raises(IllegalTransition, match="length 2"):
        plan_lifecycle(["a", "b"], [A, A], np.array([0.1]), np.array([0, 0]), np.array([False, False]), NOW)


def test_transition_table():
    assert check_move(A, D) == "low memory strength without access"
    with pytest.raises(IllegalTransition, match="ARCHIVED -> DORMANT"):
        check_move(R, D)
    with pytest.raises(IllegalTransition):
        make_move("x", U, D, "skip consolidation")
    with pytest.raises(ValueError):  # also a ValueError
        check_move(A, U)
    assert all(to != from_ for from_, targets in TRANSITIONS.items() for to in targets)
    assert set(TRANSITIONS) == set(Lifecycle)


def test_wake_on_access():
    moves = wake_on_access({"a": D, "b": A, "c": R, "d": "dormant", "e": U})
    assert moves == [Move("a", D, A, "accessed"), Move("d", D, A, "accessed")]
    assert wake_on_access({"a": D}, reason="accepted")[0].reason == "accepted"


_states = st.sampled_from(list(Lifecycle))


@settings(max_examples=200, deadline=None)
@given(rows=st.lists(st.tuples(_states, st.floats(0, 1), st.one_of(st.none(), st.floats(0, 400)), st.booleans()),
                     max_size=30))
def test_plans_are_legal_single_and_never_revive_the_archive(rows):
    if not rows:
        assert plan([], [], [], []) == []
        return
    states, conf, ago, sup = zip(*rows, strict=True)
    moves = plan(list(states), list(conf), list(ago), list(sup))
    ids = [m.doc_id for m in moves]
    assert len(ids) == len(set(ids))
    for m in moves:
        i = int(m.doc_id[1:])
        assert m.from_state == states[i] and m.to_state in TRANSITIONS[m.from_state]
        assert m.from_state != R  # a plan never restores
        if sup[i]:
            assert m.to_state == R
    for i, s in enumerate(states):  # every superseded, non-archived doc is archived
        if sup[i] and s != R:
            assert f"d{i}" in ids
