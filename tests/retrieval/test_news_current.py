"""News of the question's last week is all current (retrieval.scoring.current_decay): by hand, and
end to end with the real model on pools of neighbouring stories where the newest is not the answer
(the headline signal decides), and news in a soft window longer than a week still fading."""

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
def neighbours_app(tmp_path_factory):
    """One week of neighbouring stories on one subject; the newest is not the answer."""
    from smartvector_core.service import SmartVector
    from smartvector_core.settings import load_settings

    app = SmartVector(load_settings(str(tmp_path_factory.mktemp("neighbours") / "store"), env={}))
    day = lambda n: (NOW - timedelta(days=n)).isoformat()  # noqa: E731
    app.ingest_records([
        {"id": "nato_invites", "doc_type": "news", "created_at": day(2),
         "title": "NATO formally invites Finland and Sweden to join alliance",
         "text": "NATO leaders agreed at the Madrid summit to invite Finland and Sweden to join the "
                 "alliance, after Turkey dropped its veto on Tuesday."},
        {"id": "nato_bid", "doc_type": "news", "created_at": day(1),
         "title": "Inside Biden's six-month bid to expand NATO",
         "text": "For six months Biden pressed allies to let two Nordic countries join the NATO alliance, "
                 "and this week the alliance agreed to invite them."},
        {"id": "nato_troops", "doc_type": "news", "created_at": day(0),
         "title": "Biden to NATO: US will keep more troops in Poland",
         "text": "The US will station a permanent army headquarters in Poland, Biden told the NATO alliance."},
    ], now=NOW)
    return app


def test_the_headline_names_the_story_among_neighbours(neighbours_app):
    """The headline signal (scoring.headline_signal) decides between articles of one week on one
    subject: the invitation's own headline states 5 of the question's 7 terms, the newer bid's 1."""
    from dataclasses import replace

    from smartvector_core.retrieval.profiles import DEFAULT

    question = "Which two countries did NATO formally invite to join its alliance this week?"
    ask = lambda profile: [r.id for r in neighbours_app.query(question, as_of=NOW, k=3, profile=profile).results]  # noqa: E731
    assert ask("default")[0] == "nato_invites"
    assert ask(replace(DEFAULT, headline_weight=0.0))[0] == "nato_bid"   # without it the newer bid's text wins
    reasons = neighbours_app.query(question, as_of=NOW, k=1, profile="default").results[0].reasons
    assert "its headline states 71% of the question's terms (headline signal)" in reasons      # 5 / 7


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


def test_no_headline_signal_in_a_mixed_pool(tmp_path):
    """A live notice beside the policy it suspends: titles there are not headlines of rival
    stories, so the headline signal stays out (rerank._add_headline: a pool of news only); a weight
    on the news rows alone would dilute the notice's score against the policy's."""
    from smartvector_core.service import SmartVector
    from smartvector_core.settings import load_settings

    app = SmartVector(load_settings(str(tmp_path / "store"), env={}))
    day = lambda n: (NOW + timedelta(days=n)).isoformat()  # noqa: E731
    app.ingest_records([
        {"id": "policy", "doc_type": "policy", "created_at": day(-90), "title": "Backup retention policy",
         "text": "Backups of the Cobalt service are kept for 30 days."},
        {"id": "notice", "doc_type": "news", "kind": "EVENT", "created_at": day(-2), "valid_from": day(-1),
         "valid_until": day(3), "title": "Scheduled maintenance notice for Cobalt",
         "text": "During the maintenance the Cobalt service keeps backups for 7 days only."},
    ], now=NOW)
    resp = app.query("How long does the Cobalt service keep backups?", as_of=NOW, k=2, log=False)
    assert resp.results[0].id == "notice"
    assert all("headline" not in r.signals for r in resp.results)
