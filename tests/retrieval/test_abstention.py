"""Abstention over the demo corpus with the real model: nonsense and off-topic questions of
data/eval/abstain_queries.jsonl abstain; the demo's labelled questions do not."""

from __future__ import annotations

import json

import pytest

from smartvector_core.cli import main
from smartvector_core.clock import parse_time
from smartvector_core.config.query import DEFAULT_ABSTENTION
from smartvector_core.settings import DEMO_CORPUS, DEMO_QUERIES

from ..conftest import NOW, REPO

pytestmark = pytest.mark.slow
ABSTAIN_QUERIES = REPO / "data" / "eval" / "abstain_queries.jsonl"


def _lines(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture
def demo_app(real_app):
    real_app.ingest_paths([DEMO_CORPUS], now=NOW)
    return real_app


def test_nonsense_and_off_topic_questions_abstain(demo_app):
    queries = _lines(ABSTAIN_QUERIES)
    assert len(queries) >= 30
    answered = []
    for q in queries:
        resp = demo_app.query(q["text"], as_of=NOW, log=False)
        if not resp.abstained:
            answered.append(q["text"])
        assert all(r.confidence <= DEFAULT_ABSTENTION.cap for r in resp.results), q["text"]
    assert answered == []


def test_on_topic_demo_questions_do_not_abstain(demo_app):
    abstained = []
    for q in _lines(DEMO_QUERIES):
        as_of = parse_time(q["as_of"]) if q.get("as_of") else NOW
        resp = demo_app.query(q["text"], as_of=as_of, log=False)
        if resp.abstained:
            abstained.append((q["id"], resp.abstain_reason))
    assert abstained == []


def test_cli_json_carries_trust_confidence_and_abstention(demo_app, store_dir, capsys):
    capsys.readouterr()
    assert main(["--store", str(store_dir), "query", "asdf qwerty", "--json"]) == 0
    nonsense = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert nonsense["abstained"] is True and "nothing in the store" in nonsense["abstain_reason"]
    assert all(r["confidence"] <= DEFAULT_ABSTENTION.cap for r in nonsense["results"])
    assert main(["--store", str(store_dir), "query", "What are the API rate limits?", "--json"]) == 0
    line = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert line["abstained"] is False and line["abstain_reason"] is None
    first = line["results"][0]
    assert {"trust", "confidence", "confidence_tier", "certainty"} <= set(first)
    assert 0.0 <= first["trust"] <= 1.0 and 0.0 <= first["confidence"] <= 1.0
    confidences = [r["confidence"] for r in line["results"]]
    assert confidences[0] == max(confidences)       # rank 1 carries the highest confidence here
