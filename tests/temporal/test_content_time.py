from datetime import UTC, datetime

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from smartvector_core.clock import to_us
from smartvector_core.config.temporal import ContentTimeConfig
from smartvector_core.temporal.codes import NO_START
from smartvector_core.temporal.content_time import DEFAULT_CONTENT_TIME, content_time_signal, passage_spans

CREATED = datetime(2021, 2, 20, tzinfo=UTC)


def y(year, month=1, day=1):
    return to_us(datetime(year, month, day, tzinfo=UTC))


def spans(text, created=CREATED):
    return list(zip(*passage_spans(text, created), strict=True))


# --- extraction -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "expected"), [
    ("He played for Ajax from 2004 to 2005 .", [(y(2004), y(2006))]),
    ("Secretary of War , during 1916-1920 , while", [(y(1916), y(1921))]),
    ("between 1990 and 1995 she taught", [(y(1990), y(1996))]),
    ("Built in 1794 , it was", [(y(1794), y(1795))]),
    ("In March 2024 the rule changed", [(y(2024, 3), y(2024, 4))]),
    ("on 15 March 2024 it opened", [(y(2024, 3, 15), y(2024, 3, 16))]),
    ("music of the 1980s", [(y(1980), y(1990))]),
    ("until 2019 it was", [(NO_START, y(2020))]),
    ("since 1996 he has", [(y(1996), to_us(CREATED) + 1)]),
    ("last year the firm moved", [(y(2020), y(2021))]),            # relative to created_at
    ("It has 2000 employees and 1500 requests", []),
    ("A plain sentence.", []),
])
def test_passage_spans(text, expected):
    assert spans(text) == expected


def test_two_periods_in_text_order():
    assert spans("In 1963 she bought it; in 1976 it was declared a landmark") == [(y(1963), y(1964)),
                                                                                  (y(1976), y(1977))]


def test_undated_passages_drop_relative_phrases():
    assert spans("last year the firm moved", None) == []
    (start, end), = spans("since 1996 he has", None)
    assert start == y(1996) and end > y(9000)


def test_non_text_is_empty():
    assert passage_spans(None, CREATED) == ([], [])


# --- the signal, hand-worked (module docstring) ---------------------------------------------------
Q = (y(2004), y(2006))   # "from 2004 to 2005"


def signal(per_passage, period=Q, config=DEFAULT_CONTENT_TIME):
    offsets = np.cumsum([0] + [len(p) for p in per_passage])
    starts = np.array([a for p in per_passage for a, _ in p], dtype=np.int64)
    ends = np.array([b for p in per_passage for _, b in p], dtype=np.int64)
    return content_time_signal(period, offsets, starts, ends, config)


def test_hand_worked_values():
    since_1996 = (y(1996), to_us(CREATED) + 1)
    got = signal([[(y(2004), y(2005))], [(y(2007), y(2008))], [since_1996], []])
    union_years = (since_1996[1] - since_1996[0]) / (365.25 * 86_400e6)
    assert got[0] == pytest.approx(1.0)
    assert got[1] == pytest.approx(0.5 * np.sqrt(2 / 4), rel=1e-3)
    assert got[2] == pytest.approx(np.sqrt(2 / union_years), rel=1e-3) and got[2] == pytest.approx(0.282, abs=2e-3)
    assert got[3] == 0.0


def test_best_span_of_a_passage_counts():
    got = signal([[(y(1990), y(1991)), (y(2005), y(2006))], [(y(1990), y(1991))]])
    assert got[0] == pytest.approx(1.0)
    assert got[1] == pytest.approx(2 ** -13 * np.sqrt(2 / 16), rel=1e-3)


def test_touching_periods_have_no_gap():
    # "he joined in 2003" touches [2004, 2006): gap 0, |q ∪ s| = 3 years
    assert signal([[(y(2003), y(2004))]])[0] == pytest.approx(np.sqrt(2 / 3), rel=1e-3)


def test_open_start_periods():
    until_2019 = [(NO_START, y(2020))]
    got = signal([until_2019, [(y(2010), y(2011))]], period=(NO_START, y(2020)))   # "before 2020"
    assert got[0] == pytest.approx(1.0) and 0.0 < got[1] <= 1.0
    assert 0.0 <= signal([until_2019])[0] < 0.01                # overlaps, but says nothing precise


def test_unspanned_value_is_configurable_and_never_a_rejection():
    got = signal([[], [(y(1900), y(1901))]], config=ContentTimeConfig(unspanned=0.25))
    assert got[0] == 0.25 and np.isfinite(got).all()


def test_empty_pool():
    assert signal([]).shape == (0,)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.tuples(st.integers(1000, 2100), st.integers(0, 30)), max_size=4), max_size=6),
       st.integers(1000, 2100), st.integers(0, 20))
def test_signal_is_in_unit_interval(per_passage, q_start, q_len):
    passages = [[(y(a), y(a + w + 1)) for a, w in p] for p in per_passage]
    got = signal(passages, period=(y(q_start), y(q_start + q_len + 1)))
    assert got.shape == (len(passages),)
    assert ((got >= 0.0) & (got <= 1.0)).all()


def test_years_before_1900_need_their_context():
    """A year before 1900 is a year where the text says so (a time word, a range); a bare
    '1000' stays a number, so the blog's 1000 -> 500 change is still a quantity conflict."""
    from datetime import UTC, datetime

    from smartvector_core.facts import conflict_severity
    from smartvector_core.temporal.intent import periods_in

    anchor = datetime(2021, 1, 1, tzinfo=UTC)
    years = lambda text: [(p[2].year, p[3].year) for p in periods_in(text, anchor)]   # noqa: E731
    assert years("He moved there in 1850.") == [(1850, 1851)]
    assert years("from 1850 to 1860") == [(1850, 1861)]
    assert years("1850-1860") == [(1850, 1861)]
    assert years("a limit of 1500") == [] and years("1000 -> 500") == []
    assert conflict_severity("1000", "500").severity == 0.5
