"""Query -> rejections -> what the Rejection Log page shows (issue 20).

A query that rejects documents is logged; the page's frame (``SmartVector.rejections_frame``,
read from the query log's ``rejection_ids`` / ``rejection_codes`` columns with the logged
reasons) must hold each rejected id, its code and the query id, and the page's views (counts per
code, drill-down, per-query picker, per-query table) must show them.
"""

from __future__ import annotations

import pytest

from smartvector_core.ui import views
from tests.conftest import NOW

RECORDS = [
    {"id": "limits_v1", "title": "API rate limit policy", "kind": "VERSIONED", "doc_type": "policy",
     "created_at": "2025-01-01T00:00:00Z", "valid_from": "2025-01-01T00:00:00Z",
     "valid_until": "2025-06-01T00:00:00Z", "text": "The API rate limit is 100 requests per minute per key."},
    {"id": "limits_v2", "title": "API rate limit policy", "kind": "VERSIONED", "doc_type": "policy",
     "created_at": "2025-06-01T00:00:00Z", "valid_from": "2025-06-01T00:00:00Z", "supersedes": "limits_v1",
     "text": "The API rate limit is 200 requests per minute per key."},
    {"id": "limits_outage", "title": "API rate limit during the March maintenance", "kind": "EVENT",
     "doc_type": "incident", "created_at": "2026-02-20T00:00:00Z", "valid_from": "2026-03-01T00:00:00Z",
     "valid_until": "2026-03-02T00:00:00Z",
     "text": "During the maintenance window the API rate limit is 50 requests per minute per key."},
]
# at NOW (2026-11-30): v1 expired on 2025-06-01, the maintenance window closed on 2026-03-02
EXPECTED = {"limits_v1": "EXPIRED_VERSIONED_DOC", "limits_outage": "HARD_EXPIRED_EVENT"}


@pytest.fixture
def asked(fake_app):
    fake_app.ingest_records(RECORDS, now=NOW)
    fake_app.query("Where is the glossary?", as_of=NOW, query_id="q-other")
    resp = fake_app.query("What is the API rate limit?", as_of=NOW, query_id="q-limits")
    return fake_app, resp


def test_the_query_rejects_what_it_should(asked):
    _, resp = asked
    got = {r.id: r.code.value for r in resp.rejections}
    assert {k: got.get(k) for k in EXPECTED} == EXPECTED
    assert [r.id for r in resp.results][:1] == ["limits_v2"]


def test_the_page_frame_holds_id_code_and_query_id(asked):
    sv, resp = asked
    frame = sv.rejections_frame()
    mine = frame[frame["query_id"] == "q-limits"]
    assert list(zip(mine["id"], mine["code"], strict=True)) == [(r.id, r.code.value) for r in resp.rejections]
    assert list(mine["reason"]) == [r.reason for r in resp.rejections]
    assert set(mine["query"]) == {"What is the API rate limit?"} and set(mine["profile"]) == {"default"}
    # the query log's columns say the same as the frame (they are what the frame reads)
    log = sv.store.queries().to_pandas().set_index("query_id")
    assert list(log.loc["q-limits", "rejection_ids"]) == list(mine["id"])
    assert list(log.loc["q-limits", "rejection_codes"]) == list(mine["code"])


def test_the_page_views_show_the_rejections(asked):
    sv, resp = asked
    frame = sv.rejections_frame()
    counts = views.rejection_counts(frame).set_index("code")
    for code in set(EXPECTED.values()):
        assert counts.loc[code, "rejections"] >= 1 and counts.loc[code, "queries"] >= 1
    queries, documents = views.rejection_drilldown(frame, "HARD_EXPIRED_EVENT")
    assert "q-limits" in set(queries["query_id"]) and "limits_outage" in set(documents["id"])
    labels, first = views.query_choices(sv.query_log(), frame)
    assert labels["q-limits"].endswith(f" · {len(resp.rejections)} rejected")
    assert list(labels)[first] in set(frame["query_id"])     # opens on a query that rejected something



def test_the_rejection_log_page_shows_them(seeded_store):
    """The page itself: pick the query, its table holds the ids, codes and the query id."""
    from streamlit.testing.v1 import AppTest

    from smartvector_core.service import SmartVector
    from smartvector_core.settings import load_settings
    from tests.conftest import REPO

    sv = SmartVector(load_settings(str(seeded_store), env={"SMARTVECTOR_MODEL": "hashing"}))
    sv.ingest_records(RECORDS, now=NOW)
    resp = sv.query("What is the API rate limit?", as_of=NOW, query_id="q-limits")
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60).run()
    at.switch_page("pages/rejection_log.py").run()
    assert not at.exception and not at.error
    assert set(EXPECTED.values()) <= set(at.selectbox(key="rej_code").options)
    at.selectbox(key="rej_query").select("q-limits").run()
    assert not at.exception and not at.error
    shown = next(d.value for d in at.dataframe
                 if "query_id" in d.value.columns and set(d.value["query_id"]) == {"q-limits"})
    assert list(zip(shown["id"], shown["code"], strict=True)) == [(r.id, r.code.value) for r in resp.rejections]
