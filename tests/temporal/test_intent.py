from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from smartvector_core.clock import to_us
from smartvector_core.config.temporal import IntentConfig
from smartvector_core.temporal import NO_START, OPEN_START, QueryIntent, parse_intent, period_bounds

AS_OF = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)   # a Monday
US = timedelta(microseconds=1)


def d(*args):
    return datetime(*args, tzinfo=UTC)


def rng(text):
    return parse_intent(text, AS_OF).time_range


# --- the blog's examples ------------------------------------------------------------------
def test_blog_time_ranges():
    assert rng("Show me research from 2021-2023") == (d(2021, 1, 1), d(2024, 1, 1))
    assert rng("What were the findings in 2019?") == (d(2019, 1, 1), d(2020, 1, 1))
    assert rng("Latest embeddings research") is None


@pytest.mark.parametrize(("query", "weight"), [
    ("What is the current rate limit?", 0.70),
    ("Has the rate limit changed recently?", 0.55),
    ("How does cosine similarity work?", 0.20),
    ("Should I rotate my keys?", 0.45),          # the blog's "should I" never matched
    ("should i rotate my keys", 0.45),
    ("Do I need a token?", 0.45),
    ("Is this still supported right now?", 0.70),
    ("What's new lately?", 0.55),
    ("Is the doc up-to-date?", 0.70),
    ("Any currency conversion tips?", 0.20),      # "current" only as a whole word
    ("The newest and the updated one", 0.70),     # max over matches
])
def test_recency_weights(query, weight):
    assert parse_intent(query, AS_OF).recency_weight == pytest.approx(weight)


def test_recency_words_reported():
    intent = parse_intent("Has it CHANGED recently, right now?", AS_OF)
    assert intent.recency_words == ("changed", "recently", "right now")
    custom = IntentConfig(strong_words=("asap",), medium_words=(), advisory_words=(), baseline=0.1)
    assert parse_intent("answer asap", AS_OF, custom).recency_weight == 0.70
    assert parse_intent("answer now", AS_OF, custom).recency_weight == 0.1


# --- ranges ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("query", "expected"), [
    ("research 2021 to 2023", (d(2021, 1, 1), d(2024, 1, 1))),
    ("research from 2021 to 2023", (d(2021, 1, 1), d(2024, 1, 1))),
    ("between 2021 and 2023", (d(2021, 1, 1), d(2024, 1, 1))),
    ("papers 2023–2021", (d(2021, 1, 1), d(2024, 1, 1))),            # en dash, reversed
    ("from March 2023 to June 2024", (d(2023, 3, 1), d(2024, 7, 1))),
    ("since 2022", (d(2022, 1, 1), AS_OF + US)),
    ("after 2022", (d(2023, 1, 1), AS_OF + US)),
    ("before 2020", (OPEN_START, d(2020, 1, 1))),
    ("up to 2020", (OPEN_START, d(2021, 1, 1))),
    ("news from March 2024", (d(2024, 3, 1), d(2024, 4, 1))),
    ("Mar. 2024", (d(2024, 3, 1), d(2024, 4, 1))),
    ("Q1 2025 results", (d(2025, 1, 1), d(2025, 4, 1))),
    ("2025-Q4 results", (d(2025, 10, 1), d(2026, 1, 1))),
    ("what happened on the 2024-03-15 release? no: 2024-03-15", (d(2024, 3, 15), d(2024, 3, 16))),
    ("March 15, 2024 outage", (d(2024, 3, 15), d(2024, 3, 16))),
    ("15th March 2024 outage", (d(2024, 3, 15), d(2024, 3, 16))),
    ("2024-02 invoices", (d(2024, 2, 1), d(2024, 3, 1))),
    ("music of the 1990s", (d(1990, 1, 1), d(2000, 1, 1))),
    ("last 7 days", (AS_OF - timedelta(days=7), AS_OF + US)),
    ("past 2 weeks", (AS_OF - timedelta(days=14), AS_OF + US)),
    ("in the last three months", (d(2026, 3, 15, 12), AS_OF + US)),
    ("past 1 year", (d(2025, 6, 15, 12), AS_OF + US)),
    ("the past year", (d(2025, 6, 15, 12), AS_OF + US)),
    ("what changed last year", (d(2025, 1, 1), d(2026, 1, 1))),       # previous calendar year
    ("what changed last month", (d(2026, 5, 1), d(2026, 6, 1))),
    ("last week", (d(2026, 6, 8), d(2026, 6, 15))),
    ("this week", (d(2026, 6, 15), d(2026, 6, 22))),                 # Monday 00:00 UTC
    ("this month", (d(2026, 6, 1), d(2026, 7, 1))),
    ("this quarter", (d(2026, 4, 1), d(2026, 7, 1))),
    ("this year", (d(2026, 1, 1), d(2027, 1, 1))),
    ("today", (d(2026, 6, 15), d(2026, 6, 16))),
    ("yesterday's incident", (d(2026, 6, 14), d(2026, 6, 15))),
])
def test_ranges(query, expected):
    assert rng(query) == expected


def test_this_week_on_a_sunday():
    sunday = d(2026, 6, 21, 23, 59)
    assert parse_intent("outages this week", sunday).time_range == (d(2026, 6, 15), d(2026, 6, 22))


@pytest.mark.parametrize("query", [
    "What changed in Node.js 20.19.0?",
    "Is the limit 1000 requests per minute?",
    "Is the limit 2000 requests per minute?",
    "We have 2048 tokens of context",
    "it costs $2019",
    "May I ask a question?",
    "march forward",
    "error 1999x on port 2020/tcp",
    "10:2020",
    "What is 19.99 + 2020.5?",
])
def test_not_a_range(query):
    assert rng(query) is None


def test_range_text_and_us():
    intent = parse_intent("Show me research from 2021-2023", AS_OF)
    assert intent.range_text == "from 2021-2023"
    start_us, end_us = intent.time_range_us
    assert end_us - start_us == (d(2024, 1, 1) - d(2021, 1, 1)) // US
    assert parse_intent("before 2020", AS_OF).time_range_us[0] == NO_START
    assert parse_intent("hello", AS_OF).time_range_us is None


def test_period_bounds_rejects_impossible_dates():
    assert period_bounds("2024-02-30") is None
    assert period_bounds("2024-13") is None
    assert period_bounds("2024-02-29") == (d(2024, 2, 29), d(2024, 3, 1))


# --- judgement moment -------------------------------------------------------------------------
@pytest.mark.parametrize(("query", "judged"), [
    ("What was the rate limit as of 2023?", d(2024, 1, 1) - US),
    ("policy in effect on 2024-03-15", d(2024, 3, 16) - US),
    ("terms as at March 2024", d(2024, 4, 1) - US),
    ("limits on March 1, 2024", d(2024, 3, 2) - US),
    ("effective 2025-01-01", d(2025, 1, 2) - US),
    ("rate limit as of 2026", AS_OF),                # the period contains as_of
    ("rate limit as of yesterday", d(2026, 6, 15) - US),
])
def test_judged_at(query, judged):
    intent = parse_intent(query, AS_OF)
    assert intent.judged_at == judged
    assert intent.time_range is None                 # a judged year is not a range


@pytest.mark.parametrize(("query", "judged", "reading"), [
    # a bare year is judged at its last microsecond, and the intent says so
    ("who held the office by 2019", d(2020, 1, 1) - US, "a bare year means the end of that year"),
    ("when did england last reach a semi final as of 2018", d(2019, 1, 1) - US, "a bare year"),
    # AS_OF is Monday 15 June 2026, 12:00: days without a year are their nearest occurrence
    ("Is the API available on 12 December?", d(2026, 12, 13) - US, "end of the period"),
    ("was it down on 14 June", d(2026, 6, 15) - US, "end of the period"),
    ("what happens on June 20th", d(2026, 6, 21) - US, "end of the period"),
    ("releases due next Monday", d(2026, 6, 23) - US, "end of the period"),
    ("what happened on Friday", d(2026, 6, 13) - US, "end of the period"),
    ("on Wednesday", d(2026, 6, 18) - US, "end of the period"),
])
def test_judged_moments_named_in_the_question(query, judged, reading):
    intent = parse_intent(query, AS_OF)
    assert intent.judged_at == judged
    assert reading in intent.judged_reading and reading in intent.to_dict()["judged_reading"]
    start, end = intent.judged_period
    assert start <= judged < end
    assert intent.named_period_us is not None


def test_named_period_prefers_the_range():
    intent = parse_intent("who ran it from 2004 to 2005", AS_OF)
    assert intent.named_period_us == intent.time_range_us
    assert parse_intent("limits as of 2019", AS_OF).named_period_us == (to_us(d(2019, 1, 1)), to_us(d(2020, 1, 1)))
    assert parse_intent("the policy", AS_OF).named_period_us is None


def test_years_before_1900_in_ranges():
    assert rng("Which painter worked in London from 1676 to 1695?") == (d(1676, 1, 1), d(1696, 1, 1))
    assert rng("We have 1500 employees") is None


def test_an_old_year_after_as_of_is_a_judgement_moment():
    """SituatedQA "... as of 1895": without the cue the year stayed a number, the question was
    judged now and the newer version (from 1919) answered it."""
    assert parse_intent("who has the most undefeated wins in boxing as of 1895", AS_OF).judged_at == d(1896, 1, 1) - US
    assert parse_intent("who ruled the largest empire as at 1376", AS_OF).judged_at == d(1377, 1, 1) - US
    assert parse_intent("a rate limit of 1500 requests", AS_OF).judged_at is None     # "of" alone is no cue


def test_judged_and_range_together():
    intent = parse_intent("research from 2019 to 2020 as of 2024-01-01", AS_OF)
    assert intent.time_range == (d(2019, 1, 1), d(2021, 1, 1))
    assert intent.judged_at == d(2024, 1, 2) - US
    assert intent.judged_text == "as of 2024-01-01"


def test_as_of_now_is_recency_not_range():
    intent = parse_intent("What is the limit as of now?", AS_OF)
    assert intent.time_range is None and intent.judged_at is None
    assert intent.recency_weight == 0.70
    assert parse_intent("the limit as of today", AS_OF).time_range is None


def test_on_needs_a_day():
    intent = parse_intent("a report on 2019 elections", AS_OF)
    assert intent.judged_at is None
    assert intent.time_range == (d(2019, 1, 1), d(2020, 1, 1))


# --- versions -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("query", "version"), [
    ("What changed in Node.js 20.19.0?", "20.19.0"),
    ("Is this fixed in v3.5?", "3.5"),
    ("docs for version 5.3.2", "5.3.2"),
    ("release 2.0 notes", "2.0"),
    ("asyncio in Python 3.12", "3.12"),
    ("What is 1.5 times 2?", None),
    ("the limit is 100 requests", None),
])
def test_versions(query, version):
    assert parse_intent(query, AS_OF).version == version


@pytest.mark.parametrize(("query", "version"), [
    ("Which Requests release reverted the 2.0.0 requirement of explicit proxy schemes?", None),
    ("Since which Click release can 8.0 style decorators be used bare?", None),
    ("In which version did Flask drop 2.7 support?", None),
    ("what release of Werkzeug followed 2.2.0?", None),
    ("What did Requests 2.26.0 change about chardet?", "2.26.0"),    # a question about that version
    ("Which breaking changes are in release 3.0?", "3.0"),             # "which" asks for changes here
    ("What changed in release 1.0?", "1.0"),
    ("What is release 2.0 about?", "2.0"),
])
def test_a_question_asking_which_version_names_no_target(query, version):
    """A version named in a question that asks which version or release did something is a
    reference point, not the version asked for (it would win its chain and demote the answer)."""
    assert parse_intent(query, AS_OF).version == version


@pytest.mark.parametrize(("query", "rank"), [
    ("Show me the oldest version of the policy", "oldest"),
    ("what did the first release say", "oldest"),
    ("the original version", "oldest"),
    ("the latest version of the policy", None),     # recency words are not version labels
    ("newest release", None),
    ("the current stable version", None),
    ("the most recent version", None),
    ("the policy", None),
    ("the first draft of the policy", "oldest"),
    ("who did the buffalo bills pick in the first round draft as of 2021", None),   # no document's draft
])
def test_version_rank(query, rank):
    assert parse_intent(query, AS_OF).version_rank == rank


@pytest.mark.parametrize("query", ["What changed in the latest release?", "the newest version of the API",
                                   "current version of the policy", "most recent release notes",
                                   "what is new in the latest version as of 2020"])
def test_recency_words_are_no_version(query):
    intent = parse_intent(query, AS_OF)
    assert intent.version is None and intent.version_rank is None
    assert intent.recency_weight >= 0.55            # they raise the recency weight instead


@pytest.mark.parametrize(("query", "newest"), [
    ("What changed in the latest release?", True),
    ("What is the minimum Werkzeug version required by the newest Flask release?", True),   # a name between
    ("the most recent version", True),
    ("notes of the last release", True),
    ("the current stable version", False),      # "current" asks what holds now: the gates answer it
    ("What is the current default hash method?", False),
    ("the latest news on the outage", False),   # a recency word, no release
    ("the latest news on the release", False),  # a linking word: news is asked for
    ("What changed in the latest Nimbus CLI release?", True),   # two words of a name
    ("the oldest version of the policy", False),
])
def test_asks_newest(query, newest):
    intent = parse_intent(query, AS_OF)
    assert intent.asks_newest is newest
    assert intent.version is None and intent.version_rank in (None, "oldest")


@pytest.mark.parametrize(("query", "asks"), [
    ("Which Requests release added support for urllib3 2.0?", True),
    ("In which release did Response become a context manager?", True),
    ("Since which Click release can decorators be applied without parentheses?", True),
    ("What changed in release 1.0?", False),    # it names the release asked about
    ("What is release 2.0 about?", False),
    ("What changed in the latest release?", False),
])
def test_asks_version(query, asks):
    assert parse_intent(query, AS_OF).asks_version is asks
    assert parse_intent(query, AS_OF).to_dict()["asks_version"] is asks


@pytest.mark.parametrize(("query", "version"), [("what changed in v2", "2"), ("release 3.5.1 notes", "3.5.1"),
                                                ("fixed in 3.5.1?", "3.5.1")])
def test_version_looking_strings_are_versions(query, version):
    assert parse_intent(query, AS_OF).version == version


def test_intent_is_frozen_and_serialisable():
    intent = parse_intent("since 2022, latest v2.1", AS_OF)
    assert isinstance(intent, QueryIntent)
    with pytest.raises(AttributeError):
        intent.version = "x"  # type: ignore[misc]
    out = intent.to_dict()
    assert out["time_range"] == ["2022-01-01T00:00:00Z", "2026-06-15T12:00:00.000001Z"]
    assert out["version"] == "2.1" and out["recency_words"] == ["latest"]


def test_non_text_input():
    assert parse_intent(None, AS_OF).recency_weight == 0.20
    assert parse_intent(2019, AS_OF).time_range == (d(2019, 1, 1), d(2020, 1, 1))
    assert parse_intent("since 2022", datetime(2026, 6, 15, 12)).time_range[1] == AS_OF + US


# --- properties -----------------------------------------------------------------------------------
_pieces = st.sampled_from(["in", "since", "before", "between", "and", "from", "to", "-", "–", "Q1",
                           "2025-Q3", "March", "May", "2019", "2100", "1899", "20.19.0", "v3", "as of",
                           "on", "last", "past", "99999", "years", "this", "week", "today", "now",
                           "should I", "2024-02-30", "the", "1990s", ",", "15th", "0", "latest version"])
_queries = st.one_of(st.text(max_size=80), st.lists(_pieces, max_size=12).map(" ".join))


@settings(max_examples=400, deadline=None)
@given(_queries, st.datetimes(min_value=datetime(1950, 1, 1), max_value=datetime(2090, 1, 1)))
def test_parser_is_total_and_ranges_are_ordered(query, moment):
    intent = parse_intent(query, moment)
    assert 0.0 <= intent.recency_weight <= 1.0
    if intent.time_range is not None:
        start, end = intent.time_range
        assert start <= end and start.tzinfo is not None and end.tzinfo is not None
    assert intent.version_rank in (None, "oldest", "latest")


@pytest.mark.parametrize("text", ["Can I upload 1999 files at once?", "error code 1900", "port 2020 is blocked",
                                  "Error 2003 when connecting", "We have 2025 seats left"])
def test_counts_and_codes_are_not_years(text):
    assert parse_intent(text, AS_OF_FOR_COUNTS).time_range is None


def test_a_year_beside_a_count_noun_still_counts_when_it_reads_as_a_year():
    assert parse_intent("What were the 2023 results?", AS_OF_FOR_COUNTS).time_range is not None


AS_OF_FOR_COUNTS = datetime(2026, 11, 30, tzinfo=UTC)


# --- hard and soft time (issue 14) ----------------------------------------------------------
@pytest.mark.parametrize(("query", "mode"), [
    ("Which team won the final this week?", "soft"),
    ("outages today", "soft"),
    ("what happened last month", "soft"),
    ("incidents in the past 30 days", "soft"),
    ("research from 2021 to 2023", "hard"),
    ("sales in Q1 2025", "hard"),
    ("changes since 2022", "hard"),
    ("the March 2024 outage", "hard"),
    ("what changed recently?", None),            # a recency word, not a window
    ("what is new lately", None),
    ("the refund policy", None),
])
def test_relative_periods_are_soft_explicit_dates_are_hard(query, mode):
    intent = parse_intent(query, AS_OF)
    assert intent.range_mode == mode
    assert intent.to_dict()["range_mode"] == mode
    assert (intent.hard_range_us is not None) == (mode == "hard")
    assert (intent.soft_range_us is not None) == (mode == "soft")
    assert (intent.time_range is None) == (mode is None)


def test_soft_week_keeps_its_window():
    intent = parse_intent("Which team won the final this week?", AS_OF)      # AS_OF is a Monday
    assert intent.time_range == (d(2026, 6, 15), d(2026, 6, 22))
    assert intent.hard_range_us is None and intent.recency_weight == pytest.approx(0.55)


def test_who_won_is_a_recency_question():
    assert parse_intent("Who won the cup final?", AS_OF).recency_words == ("who won",)


@pytest.mark.parametrize(("query", "version"), [
    ("In Flask 2.2, what was the default of the ENV config key?", "2.2"),
    ("How did the Flask 0.12 docs introduce the click CLI?", "0.12"),
    ("What changed in the Flask docs between 2.2 and 2.3 about ENV?", "2.3"),     # the later release
    ("What changed in Requests between 2.29.0 and 2.31.0?", "2.31.0"),
    ("What changed between 2021 and 2023?", None),                                # years, not versions
])
def test_versions_named_in_real_questions(query, version):
    assert parse_intent(query, AS_OF).version == version


def test_a_named_date_outranks_a_weekday():
    """SituatedQA "who has been on saturday night live the longest as of 2017": "on saturday" came
    first and moved the judgement to the Saturday before as_of, so the 2021 version answered."""
    intent = parse_intent("who has been on saturday night live the longest as of 2017", AS_OF)
    assert intent.judged_at == d(2018, 1, 1) - US and intent.judged_text == "as of 2017"
    assert parse_intent("was it down on Friday as of 2026-06-10", AS_OF).judged_at == d(2026, 6, 11) - US
    assert parse_intent("what happened on Friday", AS_OF).judged_at == d(2026, 6, 13) - US   # alone, still read


def test_versions_between_two_ends_name_the_releases_after_the_first_up_to_the_second():
    from smartvector_core.temporal.version_words import version_between, version_in_range
    assert version_between("What changed between Requests 2.24.0 and 2.26.0?") == ("2.24.0", "2.26.0")
    assert version_between("What changed in 2.26.0?") is None
    assert [version_in_range(v, "2.24.0", "2.26.0") for v in ("2.24.0", "2.24.1", "2.26", "2.26.1", "v2.25.0", None)] \
        == [False, True, True, False, True, False]
    assert version_in_range("2.10.0", "2.9", "2.10") and not version_in_range("2.9.5", "2.9.5", "2.10")
    intent = parse_intent("What changed between Requests 2.24.0 and 2.26.0?", AS_OF)
    assert intent.version == "2.26.0" and intent.version_range == ("2.24.0", "2.26.0")
    assert parse_intent("Which release between 2.0 and 3.0 added it?", AS_OF).version_range is None   # asks which


def test_which_version_did_something_most_recently_asks_for_the_newest_release():
    assert parse_intent("Which Python version did Flask most recently drop support for?", AS_OF).asks_newest
    assert not parse_intent("Which Flask release dropped support for Python 3.7?", AS_OF).asks_newest
    assert not parse_intent("What did the council most recently decide?", AS_OF).asks_newest   # asks no version


def test_the_period_of_a_clause_describing_the_subject_is_not_the_one_asked():
    """A relative clause closed by a comma, or a participle of origin, describes the subject
    (intent._DESCRIBING): the period asked is the one outside it; with none outside, the
    clause's period is read as before; a comma inside a date does not close the clause."""
    clark = ("New Zealand politician who served as prime minister of New Zealand from 1999 to 2008, "
             "Helen Clark received which award in 2010?")
    it = parse_intent(clark, AS_OF)
    assert it.range_text == "2010" and it.time_range[0].year == 2010 and it.time_range[1].year == 2011
    tower = "Who lived in the observatory that was built between 1772 and 1774 in Mannheim, Germany from 1774 to 1783?"
    assert parse_intent(tower, AS_OF).range_text == "from 1774 to 1783"
    school = "A school, established in 1960, was located in which county from 1996 to 2008?"
    assert parse_intent(school, AS_OF).range_text == "from 1996 to 2008"
    only = "Who was the leader of the party that ruled from 1999 to 2008, the left or the right?"
    assert parse_intent(only, AS_OF).range_text == "from 1999 to 2008"
    dated = "Who coached the team that won between March 24, 2021 and May 1, 2021, the reds or the blues?"
    assert parse_intent(dated, AS_OF).range_text == "between March 24, 2021 and May 1, 2021"


def test_a_relative_period_is_relative_to_the_moment_the_question_names():
    """SituatedQA dev, asked with no as_of (so now, 2026): "who won last year's six nations rugby as
    of 2021" is judged at the end of 2021, and its "last year" is 2020, the year before the moment
    named, not 2025, the year before the question is read. Without a named moment the period is
    relative to as_of, as before; asked inside the named year, both readings agree."""
    text = "who won last year's six nations rugby as of 2021"
    late = parse_intent(text, d(2026, 12, 4))
    assert late.judged_at == d(2022, 1, 1) - US
    assert late.time_range == (d(2020, 1, 1), d(2021, 1, 1)) and late.range_mode == "soft"
    assert parse_intent(text, d(2021, 3, 30)).time_range == (d(2020, 1, 1), d(2021, 1, 1))
    assert parse_intent("who is singing the anthem at this year's superbowl as of 2021",
                        d(2026, 12, 4)).time_range == (d(2021, 1, 1), d(2022, 1, 1))
    assert parse_intent("who won last year's six nations rugby", d(2026, 12, 4)).time_range == (d(2025, 1, 1),
                                                                                              d(2026, 1, 1))
