"""News of the question's last week is all current (retrieval.scoring.current_decay): by hand, and
end to end with the real model on a pool of neighbouring stories where the newest is not the answer,
news in a soft window longer than a week still fading, and news in a named period that holds the
moment asked keeping its temporal signal."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest

from smartvector_core.clock import US_PER_DAY
from smartvector_core.retrieval.scoring import current_decay

from ..conftest import NOW

DAY = US_PER_DAY


def test_current_decay_by_hand():
    t = 100 * DAY
    created = np.array([97, 93, 86, 97], dtype=np.int64) * DAY        # 3, 7, 14 and 3 days old
    half = np.array([7.0, 7.0, 7.0, 90.0])                              # news, news, news, policy
    got = current_decay(created, True, t, half, 0.0, news_half_life_days=30.0, current_days=7.0)
    # news: age' = max(0, age - 7): 0, 0, 7 days -> 1, 1, 0.5; the policy keeps its age: 0.5 ** (3/90)
    assert got == pytest.approx([1.0, 1.0, 0.5, 0.5 ** (3 / 90)])
    plain = current_decay(created, True, t, half, 0.0, news_half_life_days=30.0, current_days=0.0)
    assert plain == pytest.approx(0.5 ** (np.array([3, 7, 14, 3]) / half))
    assert current_decay(created, True, t, half, 0.6, news_half_life_days=30.0, current_days=7.0)[2] == 0.6  # floor


@pytest.fixture(scope="module")
def news_app(tmp_path_factory):
    from smartvector_core.service import SmartVector
    from smartvector_core.settings import load_settings

    app = SmartVector(load_settings(str(tmp_path_factory.mktemp("news") / "store"), env={}))
    day = lambda n: (NOW - timedelta(days=n)).isoformat()  # noqa: E731
    app.ingest_records([
        {"id": "pride_arrests", "doc_type": "news", "created_at": day(6), "title": "Idaho Pride event arrests",
         "text": "Police arrested 31 men who planned to riot at the Pride event in Coeur d'Alene, Idaho."},
        {"id": "denver_parade", "doc_type": "news", "created_at": day(0), "title": "Denver Pride arrests",
         "text": "Police arrested 31 men who rioted at the Pride parade in Denver, Colorado."},
        {"id": "flood_update", "doc_type": "news", "created_at": day(1), "title": "Yellowstone floods",
         "text": "Yellowstone National Park stays closed after record flooding washed out roads."},
        {"id": "pride_2019", "doc_type": "news", "created_at": day(900), "title": "Pride parade 2019",
         "text": "Police arrested men tied to Patriot Front near a Pride event in Idaho."},
    ], now=NOW)
    return app


def test_the_right_article_of_the_week_beats_a_newer_neighbouring_story(news_app):
    question = "Where did police arrest 31 men who planned to riot at the Pride event?"
    ids = [r.id for r in news_app.query(question, as_of=NOW, k=4, profile="default").results]
    # 6 days old and the closer match; the Denver story came out today (counting its age, it won)
    assert ids[:2] == ["pride_arrests", "denver_parade"]
    assert ids.index("pride_2019") > 1                 # old news still fades


@pytest.fixture(scope="module")
def season_app(tmp_path_factory):
    """Two stories of one season: an older one that matches the question's words a little better,
    and yesterday's, the one asked about."""
    from smartvector_core.service import SmartVector
    from smartvector_core.settings import load_settings

    app = SmartVector(load_settings(str(tmp_path_factory.mktemp("season") / "store"), env={}))
    day = lambda n: (NOW - timedelta(days=n)).isoformat()  # noqa: E731
    app.ingest_records([
        {"id": "retires", "doc_type": "news", "created_at": day(17), "title": "Tennis star announces retirement",
         "text": "The tennis star announced that she will not play tennis after this year's US Open."},
        {"id": "withdraws", "doc_type": "news", "created_at": day(1), "title": "Tennis star out of the US Open",
         "text": "The tennis champion will not play at the US Open: he was refused entry into the country."},
    ], now=NOW)
    return app


def test_news_in_a_long_soft_window_still_fades(season_app):
    """"this year's" is a soft window of a year (both articles inside it, window signal 1); news in
    it is × its current decay (rerank._soft_window): yesterday's 1, the 17-day-old one
    0.5 ** ((17 - 7) / 7) = 0.37, so yesterday's story wins; counted level it lost."""
    resp = season_app.query("Which tennis star announced that they won't play at this year's US Open?",
                            as_of=NOW, k=2, log=False)
    assert resp.intent["range_mode"] == "soft"
    got = {r.id: r.signals["temporal"].value for r in resp.results}
    assert [r.id for r in resp.results] == ["withdraws", "retires"]
    cos = {r.id: r.signals["semantic"].value for r in resp.results}
    best = max(cos.values())
    assert got["retires"] == pytest.approx(0.5 ** (10 / 7) * cos["retires"] / best, rel=1e-3)
    assert got["withdraws"] == pytest.approx(cos["withdraws"] / best, rel=1e-3)


@pytest.fixture(scope="module")
def year_app(tmp_path_factory):
    """A preview of a final written two months ago, naming the year, and this week's report of it."""
    from smartvector_core.service import SmartVector
    from smartvector_core.settings import load_settings

    app = SmartVector(load_settings(str(tmp_path_factory.mktemp("year") / "store"), env={}))
    day = lambda n: (NOW - timedelta(days=n)).isoformat()  # noqa: E731
    app.ingest_records([
        {"id": "preview", "doc_type": "news", "created_at": day(60), "title": f"{NOW.year} hockey final picks",
         "text": f"Our experts pick the team that will win the {NOW.year} hockey final."},
        {"id": "report", "doc_type": "news", "created_at": day(5), "title": "Colorado wins the hockey final",
         "text": "Colorado won the hockey final on Sunday, its first title in twenty years."},
    ], now=NOW)
    return app


def test_news_in_a_named_period_that_holds_the_moment_asked_keeps_its_temporal_signal(year_app):
    """"the 2026 hockey final" asked in 2026 names the present (rerank._in_period): news keeps its
    temporal signal there (the report of 5 days: current 1, the preview of 60: 0.5 ** (53 / 7)),
    so the report leads; a past year's question is answered without freshness."""
    resp = year_app.query(f"Which team won the {NOW.year} hockey final?", as_of=NOW, k=2, log=False)
    assert resp.intent["range_mode"] == "hard"
    assert [r.id for r in resp.results] == ["report", "preview"]
    temporal = {r.id: r.signals["temporal"] for r in resp.results}
    assert temporal["report"].weight > 0 and temporal["report"].value > temporal["preview"].value
    past = year_app.query(f"Which team won the {NOW.year} hockey final?", as_of=NOW.replace(year=NOW.year + 1),
                          k=2, log=False)
    assert all("temporal" not in r.signals for r in past.results)


def test_news_since_a_named_period_that_names_it_speaks_of_it(tmp_path):
    """"after the 2024 election" names an event: this week's poll whose text names 2024 recalls it
    (content_match.speaks_of) and is not ruled out of the period; a preview written before the
    period began, naming it, still is."""
    from smartvector_core.service import SmartVector
    from smartvector_core.settings import load_settings

    app = SmartVector(load_settings(str(tmp_path / "store"), env={}))
    year = NOW.year - 2
    app.ingest_records([
        {"id": "poll", "doc_type": "news", "created_at": (NOW - timedelta(days=3)).isoformat(), "title": "New poll",
         "text": f"A new poll finds 79% say the senator acted unethically after the {year} election."},
        {"id": "preview", "doc_type": "news", "created_at": NOW.replace(year=year - 1).isoformat(),
         "title": "Election preview", "text": f"The senator will run in the {year} election, aides say."},
    ], now=NOW)
    resp = app.query(f"What share of people say the senator acted unethically after the {year} election?",
                     as_of=NOW, k=2, log=False)
    assert resp.intent["range_mode"] == "hard"
    assert [r.id for r in resp.results] == ["poll"]


def test_a_report_after_the_date_the_question_names_is_not_ruled_out_as_not_yet_written(tmp_path):
    """"… on 6 January <year>?" moves the moment of judgement to that day's end (intent), but every
    report of that day came later: a report whose text names the day speaks of it
    (windows.recalled_at, content_match.speaks_of) and answers; a later article that does not name
    the day is still not yet written then (NOT_YET_VALID), and so is a policy page naming it."""
    from smartvector_core.service import SmartVector
    from smartvector_core.settings import load_settings

    app = SmartVector(load_settings(str(tmp_path / "store"), env={}))
    year = NOW.year - 2
    app.ingest_records([
        {"id": "report", "doc_type": "news", "created_at": (NOW - timedelta(days=5)).isoformat(),
         "title": "Hearing on the riot", "text": f"The committee said the mayor let the riot at the city hall go on "
                                                 f"for 187 minutes on January 6, {year}."},
        {"id": "other", "doc_type": "news", "created_at": (NOW - timedelta(days=4)).isoformat(),
         "title": "Hearing schedule", "text": "The committee will hold its next hearing about the riot at the city "
                                              "hall next week."},
        {"id": "policy", "doc_type": "policy", "created_at": (NOW - timedelta(days=3)).isoformat(),
         "title": "City hall visits", "text": f"After the riot at the city hall on January 6, {year}, visits need a pass."},
    ], now=NOW)
    resp = app.query(f"How many minutes did the mayor let the riot at the city hall go on on January 6, {year}?",
                     as_of=NOW, k=3, log=False)
    assert resp.intent["judged_at"].startswith(f"{year}-01-06")
    assert [r.id for r in resp.results][:1] == ["report"]
    assert "a later report of it" in " ".join(resp.results[0].reasons)
    rejected = {r.id: r.code for r in resp.rejections}
    assert rejected.get("other") == "NOT_YET_VALID" and rejected.get("policy") == "NOT_YET_VALID"
    assert "report" not in rejected


def test_later_reports_of_a_named_date_are_as_recent_as_they_are_when_asked(tmp_path):
    """Judged at "January 6, <year>" every later report is of age 0 there; what orders them is
    their age when the question is asked (windows.later_reports_from_asking): yesterday's report
    of the hearing beats a piece from ten months ago that matches the question a little better,
    and says so in its reasons."""
    from smartvector_core.service import SmartVector
    from smartvector_core.settings import load_settings

    app = SmartVector(load_settings(str(tmp_path / "store"), env={}))
    year = NOW.year - 2
    question = f"How many minutes did the mayor let the riot at the city hall go on on January 6, {year}?"
    app.ingest_records([
        {"id": "anniversary", "doc_type": "news", "created_at": (NOW - timedelta(days=300)).isoformat(),
         "title": "A year after the riot", "text": f"How long did the mayor let the riot at the city hall go on on "
                                                   f"January 6, {year}? A year on, nobody can say."},
        {"id": "hearing", "doc_type": "news", "created_at": (NOW - timedelta(days=1)).isoformat(),
         "title": "Hearing on the riot", "text": f"The committee found that the mayor waited 187 minutes before "
                                                 f"acting during the riot at the city hall on January 6, {year}."},
    ], now=NOW)
    resp = app.query(question, as_of=NOW, k=2, log=False)
    assert resp.intent["judged_at"].startswith(f"{year}-01-06")
    by_id = {r.id: r for r in resp.results}
    assert by_id["anniversary"].signals["semantic"].value > by_id["hearing"].signals["semantic"].value
    assert [r.id for r in resp.results] == ["hearing", "anniversary"]
    assert by_id["hearing"].signals["temporal"].value > by_id["anniversary"].signals["temporal"].value
    assert "as recent as it is now" in " ".join(by_id["hearing"].reasons)
