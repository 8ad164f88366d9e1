"""Live is the benchmark: ``bench --corpus C --queries Q`` answers exactly what ingest ->
consolidate -> ``query --batch`` answers on the same files, the store loaded right after the
corpus and each question asked at its own ``as_of``, questions about the past (dated before the
ingest, before later versions existed) included. Both paths run here on a small corpus and are
compared result by result."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from smartvector_core import cli, clock
from smartvector_core.clock import parse_time
from smartvector_core.evaluation import run_bench
from smartvector_core.evaluation.accuracy.metrics import evaluate
from smartvector_core.evaluation.accuracy.runner import ingest_moment, normalise_queries
from tests.conftest import write_jsonl

CORPUS = [
    {"id": "rate_v1", "title": "API rate limit", "kind": "VERSIONED", "doc_type": "policy",
     "text": "API rate limit: each key may send 100 requests per minute.", "created_at": "2025-01-10T00:00:00Z"},
    {"id": "rate_v2", "title": "API rate limit", "kind": "VERSIONED", "doc_type": "policy",
     "text": "API rate limit: each key may send 1000 requests per minute.", "created_at": "2025-09-01T00:00:00Z",
     "supersedes": "rate_v1"},
    {"id": "mail_limit", "title": "Mail gateway limits", "kind": "VERSIONED", "doc_type": "policy",
     "text": "The mail gateway accepts 50 messages per minute for each account.",
     "created_at": "2025-05-01T00:00:00Z"},
    {"id": "rate_rumour", "title": "Forum thread", "source": "forum", "authority": 0.3,
     "text": "Someone on the forum says each API key may now send 5000 requests per minute.",
     "created_at": "2025-11-01T00:00:00Z"},
    {"id": "refund_v1", "title": "Refund policy", "kind": "VERSIONED", "doc_type": "policy",
     "text": "Customers may request a refund within 30 days of purchase.", "created_at": "2024-06-01T00:00:00Z",
     "valid_from": "2024-06-01T00:00:00Z", "valid_until": "2025-06-01T00:00:00Z"},
    {"id": "refund_v2", "title": "Refund policy", "kind": "VERSIONED", "doc_type": "policy",
     "text": "Customers may request a refund within 60 days of purchase.", "created_at": "2025-06-01T00:00:00Z",
     "valid_from": "2025-06-01T00:00:00Z", "supersedes": "refund_v1"},
    {"id": "maintenance", "title": "Maintenance window", "kind": "EVENT", "doc_type": "news",
     "text": "The API is read-only for database maintenance on Saturday night.",
     "created_at": "2026-01-08T00:00:00Z", "valid_from": "2026-01-10T00:00:00Z",
     "valid_until": "2026-01-11T00:00:00Z"},
    {"id": "glossary", "title": "Glossary", "text": "A rate limit caps how many requests a client may send."},
    {"id": "light", "title": "Speed of light", "kind": "STATIC", "doc_type": "reference",
     "text": "The speed of light in vacuum is 299792458 metres per second.", "created_at": "1990-05-01T00:00:00Z"},
]
QUERIES = [
    {"id": "q1", "text": "How many requests per minute may an API key send?", "as_of": "2026-01-05T00:00:00Z",
     "relevant": ["rate_v2"], "stale": ["rate_v1"]},
    {"id": "q2", "text": "How many days do customers have to ask for a refund?", "as_of": "2026-02-01T00:00:00Z",
     "relevant": ["refund_v2"], "stale": ["refund_v1"]},
    {"id": "q3", "text": "Is the API read-only right now?", "as_of": "2026-01-10T12:00:00Z",
     "relevant": ["maintenance"], "stale": []},
    {"id": "q4", "text": "What is a rate limit?", "as_of": "2026-03-01T00:00:00Z", "relevant": ["glossary"],
     "stale": []},
    {"id": "q5", "text": "How fast is light in vacuum?", "as_of": "2026-03-01T00:00:00Z", "relevant": ["light"],
     "stale": []},
    {"id": "q6", "text": "How many messages per minute does the mail gateway accept?",
     "as_of": "2026-02-15T00:00:00Z", "relevant": ["mail_limit"], "stale": []},
]
# asked about the past: before rate_v2, refund_v2 and the maintenance notice existed, and before
# the ingest moment (right after the corpus, 2026-01-08)
PAST_QUERIES = [
    {"id": "p1", "text": "How many requests per minute may an API key send?", "as_of": "2025-07-01T00:00:00Z",
     "relevant": ["rate_v1"], "stale": []},
    {"id": "p2", "text": "How many days do customers have to ask for a refund?", "as_of": "2025-01-15T00:00:00Z",
     "relevant": ["refund_v1"], "stale": []},
    {"id": "p3", "text": "How many requests per minute may an API key send?", "as_of": "2025-10-15T00:00:00Z",
     "relevant": ["rate_v2"], "stale": ["rate_v1"]},
    {"id": "p4", "text": "How fast is light in vacuum?", "as_of": "2000-01-01T00:00:00Z", "relevant": ["light"],
     "stale": []},
]
QUERIES = QUERIES + PAST_QUERIES
PROFILES = ("naive", "temporal", "smartvector", "default")


def cli_store(tmp_path, monkeypatch, profile: str, ingest_at):
    """ingest -> consolidate in a fresh store with the clock pinned at ``ingest_at``: (store, queries file)."""
    corpus = write_jsonl(tmp_path / "corpus.jsonl", CORPUS)
    queries = write_jsonl(tmp_path / "queries.jsonl", QUERIES)
    store = str(tmp_path / f"store-{profile}")
    monkeypatch.setattr(clock, "now", lambda: ingest_at)
    assert cli.main(["--store", store, "ingest", str(corpus)]) == 0
    assert cli.main(["--store", store, "consolidate"]) == 0
    return store, queries


@pytest.fixture(scope="module")
def bench_runs(real_embedder):
    return run_bench(CORPUS, QUERIES, PROFILES, embedder=real_embedder, mode="live")


def _batch(store, queries, profile, capsys) -> dict[str, list[dict]]:
    capsys.readouterr()
    assert cli.main(["--store", store, "query", "--batch", str(queries), "--profile", profile, "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    return {line["query_id"]: line["results"] for line in lines}


def test_live_ingest_moment_is_right_after_the_corpus():
    queries = normalise_queries(QUERIES)
    assert ingest_moment(CORPUS, queries, "live") == parse_time("2026-01-08T00:00:00Z")   # the latest created_at
    assert ingest_moment(CORPUS, queries, "backdated") == parse_time("2026-03-01T00:00:00Z")
    undated = [{k: v for k, v in r.items() if k != "created_at"} for r in CORPUS]
    assert ingest_moment(undated, queries, "live") == parse_time("2000-01-01T00:00:00Z")   # the earliest question
    assert sum(q.as_of < parse_time("2026-01-08T00:00:00Z") for q in queries) == 5   # asked about the past


def test_past_questions_are_judged_from_the_event_history(bench_runs):
    """Asked before a newer version existed, the version then in force answers; the ingest
    moment (after both) does not change that."""
    top = {qid: results[0]["id"] for qid, results in bench_runs.runs["default"].items() if results}
    assert top["p1"] == "rate_v1" and top["p2"] == "refund_v1" and top["p3"] == "rate_v2" and top["p4"] == "light"


@pytest.mark.parametrize("profile", PROFILES)
def test_bench_equals_ingest_consolidate_query_batch(profile, bench_runs, tmp_path, monkeypatch, capsys):
    assert bench_runs.params["mode"] == "live"
    ingest_at = parse_time(bench_runs.params["ingested_at"])
    store, queries = cli_store(tmp_path, monkeypatch, profile, ingest_at)
    live = _batch(store, queries, profile, capsys)
    bench = bench_runs.runs[profile]
    assert set(live) == set(bench) == {q["id"] for q in QUERIES}
    for qid, results in live.items():
        assert [(r["id"], r["rank"]) for r in results] == [(r["id"], r["rank"]) for r in bench[qid]], qid
        assert [r["score"] for r in results] == pytest.approx([r["score"] for r in bench[qid]], abs=1e-6), qid
        assert [r["confidence"] for r in results] == pytest.approx([r["confidence"] for r in bench[qid]],
                                                                   abs=1e-6), qid
    # and so the same figures
    labels = [{"id": q["id"], "relevant": q["relevant"], "stale": q["stale"]} for q in QUERIES]
    cli_metrics = evaluate({qid: results for qid, results in live.items()}, labels)
    for key in ("top1", "stale_at_1", "mrr"):
        assert cli_metrics[key] == pytest.approx(bench_runs.profiles[profile][key])


def test_backdated_mode_dates_questions_before_the_consolidation(real_embedder):
    out = run_bench(CORPUS, QUERIES, ("default",), embedder=real_embedder, mode="backdated")
    assert out.params["mode"] == "backdated"
    assert parse_time(out.params["ingested_at"]) == parse_time("2026-03-01T00:00:00Z")
    assert parse_time(out.params["ingested_at"]) - timedelta(days=1) > parse_time(QUERIES[0]["as_of"])


def test_dated_corpus_same_answers_whenever_the_cli_ingested_before_the_questions(
        real_embedder, tmp_path, monkeypatch, capsys):
    """Any ingest moment after the corpus gives the same answers on dated documents, past-dated
    questions included (an undated one takes the ingest moment as its created_at, so only there
    the moment shows)."""
    dated = [r for r in CORPUS if "created_at" in r]
    bench = run_bench(dated, QUERIES, ("default",), embedder=real_embedder, mode="live").runs["default"]
    corpus = write_jsonl(tmp_path / "dated.jsonl", dated)
    queries = write_jsonl(tmp_path / "queries.jsonl", QUERIES)
    store = str(tmp_path / "store-early")
    monkeypatch.setattr(clock, "now", lambda: parse_time("2026-04-08T00:00:00Z"))   # 90 days later, after every question
    assert cli.main(["--store", store, "ingest", str(corpus)]) == 0
    assert cli.main(["--store", store, "consolidate"]) == 0
    live = _batch(store, queries, "default", capsys)
    for qid, results in live.items():
        assert [(r["id"], r["rank"]) for r in results] == [(r["id"], r["rank"]) for r in bench[qid]], qid
        assert [r["score"] for r in results] == pytest.approx([r["score"] for r in bench[qid]], abs=1e-6), qid
