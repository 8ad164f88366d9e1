"""The request's :class:`EngineConfig` reaches every stage of a query: the gates, the answer
confidence, the abstention and the explanations that state their thresholds."""

from __future__ import annotations

from dataclasses import replace

import pytest

from smartvector_core.config import DEFAULT_ENGINE
from smartvector_core.config.query import DEFAULT_ABSTENTION
from smartvector_core.config.scoring import DEFAULT_SCORING

from ..conftest import NOW
from .helpers import configured_app

RECORDS = [
    {"id": "refunds", "title": "Refund policy", "created_at": "2026-01-01T00:00:00Z",
     "text": "Refunds are issued within 30 days of purchase for every order."},
    {"id": "shipping", "title": "Shipping times", "created_at": "2026-01-01T00:00:00Z",
     "text": "Orders ship within two business days from the central warehouse."},
]
QUESTION = "Within how many days are refunds issued for an order?"


@pytest.fixture
def stored(store_dir):
    configured_app(store_dir).ingest_records(RECORDS, now=NOW, consolidate=False)
    return store_dir


def test_a_stricter_relevance_gate_rejects_and_its_reason_states_the_configured_gate(stored):
    plain = configured_app(stored).query(QUESTION, as_of=NOW, log=False)
    assert plain.results and plain.results[0].id == "refunds"
    best = plain.results[0].signals["semantic"].value
    gate = round(best + 0.01, 2)     # just above the best passage: nothing passes
    strict = replace(DEFAULT_ENGINE, scoring=replace(DEFAULT_SCORING, relevance_gate=gate))
    answer = configured_app(stored, strict).query(QUESTION, as_of=NOW, log=False)
    assert not answer.results
    gated = [r for r in answer.rejections if r.code.value == "BELOW_RELEVANCE_GATE"]
    assert {r.id for r in gated} == {"refunds", "shipping"}
    assert all(r.reason.endswith(f"below the relevance gate {gate}") for r in gated)
    assert str(DEFAULT_SCORING.relevance_gate) not in gated[0].reason.split("gate ")[-1]


def test_a_higher_abstention_floor_abstains_caps_confidence_and_says_so(stored):
    plain = configured_app(stored).query(QUESTION, as_of=NOW, log=False)
    assert not plain.abstained and plain.results[0].confidence > 0.1
    floor = 0.99
    strict = replace(DEFAULT_ENGINE, abstention=replace(DEFAULT_ABSTENTION, cosine=floor, cap=0.1))
    answer = configured_app(stored, strict).query(QUESTION, as_of=NOW, log=False)
    assert answer.abstained and answer.abstain_reason.endswith(f"< {floor}")
    assert answer.results and all(r.confidence <= 0.1 for r in answer.results)
