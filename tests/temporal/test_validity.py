import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from smartvector_core.temporal import (
    KIND_CODES,
    NO_END,
    NO_START,
    STATE_CODES,
    encode_kinds,
    remaining_window_hours,
    state_names,
    validity_multiplier,
    validity_states,
)

H = 3_600 * 1_000_000
NOW = 1_000_000 * H
S, V, E = 0, 1, 2


def test_codes_match_the_brief():
    assert {str(k): v for k, v in KIND_CODES.items()} == {"STATIC": 0, "VERSIONED": 1, "EVENT": 2}
    assert {str(k): v for k, v in STATE_CODES.items()} == {
        "VALID": 0, "TEMPORAL": 1, "EXPIRED": 2, "NOT_YET_VALID": 3}
    assert np.iinfo(np.int64).min == NO_START and np.iinfo(np.int64).max == NO_END


def test_encode_kinds_defaults_missing_to_static():
    assert encode_kinds(["event", "VERSIONED", None, "", "STATIC"]).tolist() == [2, 1, 0, 0, 0]


def test_states_rules_in_order():
    kinds = np.array([S, V, E, E, E, V, E, S], dtype=np.int8)
    start = np.array([NO_START, NO_START, NOW - H, NO_START, NOW - H, NOW + H, NOW + H, NOW - H])
    end = np.array([NO_END, NOW, NOW + 42 * H, NOW - 1, NO_END, NO_END, NOW + 2 * H, NOW + H])
    got = state_names(validity_states(kinds, start, end, NOW)).tolist()
    assert got == ["VALID",          # no bounds
                   "EXPIRED",        # as_of == valid_until: half-open window
                   "TEMPORAL",       # event inside a closing window
                   "EXPIRED",        # event past its end
                   "VALID",          # event with no end: not boosted forever
                   "NOT_YET_VALID",  # versioned, starts later
                   "NOT_YET_VALID",  # event, starts later
                   "VALID"]          # static with a window is never TEMPORAL


def test_multiplier_and_hours():
    states = np.array([0, 1, 2, 3], dtype=np.int8)
    assert validity_multiplier(states).tolist() == [1.0, 1.2, 0.0, 0.0]
    hours = remaining_window_hours(np.array([NOW + 42 * H, NOW - H, NO_END]), NOW)
    assert hours.tolist() == [42.0, 0.0, float("inf")]


@given(st.lists(st.tuples(st.integers(0, 2), st.integers(-10, 10), st.integers(-10, 10),
                          st.booleans(), st.booleans()), min_size=1, max_size=30))
def test_expired_and_not_yet_valid_are_exact(rows):
    kinds = np.array([r[0] for r in rows], dtype=np.int8)
    start = np.array([r[1] * H if r[3] else NO_START for r in rows], dtype=np.int64)
    end = np.array([r[2] * H if r[4] else NO_END for r in rows], dtype=np.int64)
    states = validity_states(kinds, start, end, 0)
    assert np.array_equal(states == 2, end <= 0)
    assert np.all((states == 1) <= (kinds == 2))
    assert np.all(validity_multiplier(states)[states == 2] == 0.0)


def test_live_means_not_superseded_then_and_not_archived():
    from smartvector_core.temporal.validity import is_live

    superseded = np.array([False, True, False, False])
    lifecycle = np.array(["ACTIVE", "ACTIVE", "ARCHIVED", None], dtype=object)
    assert is_live(superseded, lifecycle).tolist() == [True, False, False, True]
