"""End-to-end second guards (issue 20 item 3) for behaviour an operator relies on, each with
hand-worked values, through the command line (the unit tests are named on each test):

- feedback direction: accept raises trust by 0.03, correct lowers it by 0.08;
- ripple depth: a correction reaches two hops (penalty 0.10, then 0.05) and no further;
- the abstention rule: a question about nothing in the store abstains, one about a document does not;
- tiers are thresholds on the answer's confidence (HIGH >= 0.90, MEDIUM >= 0.45), real model.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from smartvector_core.clock import parse_time
from smartvector_core.config.query import DEFAULT_ABSTENTION
from smartvector_core.config.temporal import DEFAULT_TEMPORAL
from smartvector_core.service import SmartVector
from smartvector_core.settings import DEMO_CORPUS, DEMO_QUERIES, load_settings

from .conftest import NOW, REPO, write_jsonl

AT = "2026-11-30T12:00:00Z"   # NOW
ABSTAIN_QUERIES = REPO / "data" / "eval" / "abstain_queries.jsonl"
RECORD = {"created_at": "2026-11-01T00:00:00Z", "kind": "STATIC", "doc_type": "reference"}
CORPUS = [
    {**RECORD, "id": "base", "text": "The gateway timeout is 30 seconds for every upstream call."},
    {**RECORD, "id": "dep1", "text": "Retry guide: retry after the gateway timeout of 30 seconds.",
     "depends_on": ["base"]},
    {**RECORD, "id": "dep2", "text": "Client checklist built on the retry guide.", "depends_on": ["dep1"]},
    {**RECORD, "id": "dep3", "text": "Onboarding notes that link the client checklist.", "depends_on": ["dep2"]},
    {**RECORD, "id": "menu", "text": "Cafeteria menu for the week: soup, bread and apples."},
    {**RECORD, "id": "badge", "text": "Visitor badges are printed at the front desk."},
]


@pytest.fixture
def loaded(cli, tmp_path):
    code, _, err = cli("ingest", str(write_jsonl(tmp_path / "c.jsonl", CORPUS)))
    assert code == 0, err
    return cli


def _json(out: str) -> dict:
    return json.loads(out.strip().splitlines()[-1])


def _trust(store_dir, ids):
    """Trust read back from the store after the CLI's feedback (dated by the CLI's clock)."""
    sv = SmartVector(load_settings(str(store_dir), env={"SMARTVECTOR_MODEL": "hashing"}))
    return sv.trust_of(ids, as_of=datetime.now(UTC) + timedelta(days=1))


def test_cli_feedback_accept_raises_and_correct_lowers_by_the_hand_worked_amounts(loaded, store_dir):
    """Unit guard: tests/memory/test_confidence.py::test_trust_hand_worked_no_age_loss_for_a_valid_version.
    C0 = 0.70 (no authority given, no access yet): accept -> 0.70 + 0.03 = 0.73;
    correct -> 0.70 - 0.08 = 0.62."""
    code, out, err = loaded("feedback", "menu", "accept", "--json")
    assert code == 0, err
    up = _json(out)
    code, out, err = loaded("feedback", "badge", "correct", "--json")
    assert code == 0, err
    down = _json(out)
    assert up["trust_before"] == pytest.approx(0.70) and up["trust_after"] == pytest.approx(0.73)
    assert down["trust_before"] == pytest.approx(0.70) and down["trust_after"] == pytest.approx(0.62)
    # what the store says afterwards is what the CLI reported
    trust = _trust(store_dir, ["menu", "badge"])
    assert trust["menu"] == pytest.approx(0.73) and trust["badge"] == pytest.approx(0.62)


def test_cli_correction_ripples_two_hops_and_no_further(loaded, store_dir):
    """Unit guard: tests/memory/test_graph.py::test_penalty_decays_per_hop_and_stops_at_max_hops.
    base <- dep1 <- dep2 <- dep3 (depends_on): correcting base costs dep1 0.10 (hop 1), dep2
    0.10 · 0.5 = 0.05 (hop 2); dep3 (hop 3) and the unrelated menu keep 0.70."""
    code, out, err = loaded("feedback", "base", "correct", "--json")
    assert code == 0, err
    result = _json(out)
    assert [(s["doc_id"], s["hop"], s["penalty"]) for s in result["rippled"]] == [("dep1", 1, 0.10), ("dep2", 2, 0.05)]
    trust = _trust(store_dir, ["base", "dep1", "dep2", "dep3", "menu"])
    assert trust == pytest.approx({"base": 0.62, "dep1": 0.60, "dep2": 0.65, "dep3": 0.70, "menu": 0.70})


def test_cli_abstains_on_a_question_about_nothing_and_answers_one_about_a_document(loaded):
    """Unit guard: tests/retrieval/test_calibration.py::test_abstention_rule (and the boundary
    values in tests/retrieval/test_abstention_rule.py). Hashing model: a question of unknown words
    shares no feature with any document; one that repeats a document's sentence is about it."""
    code, out, err = loaded("query", "zxqv wplk frobnicate", "--as-of", AT, "--json")
    assert code == 0, err
    nothing = _json(out)
    assert nothing["abstained"] is True and nothing["abstain_reason"].startswith("nothing in the store")
    assert all(r["confidence"] <= DEFAULT_ABSTENTION.cap and r["confidence_tier"] == "LOW" for r in nothing["results"])
    code, out, err = loaded("query", "Visitor badges are printed at the front desk.", "--as-of", AT, "--json")
    assert code == 0, err
    answered = _json(out)
    assert answered["abstained"] is False and answered["abstain_reason"] is None
    assert answered["results"][0]["id"] == "badge"


def _tier(confidence: float) -> str:
    tiers = DEFAULT_TEMPORAL.tiers
    return "HIGH" if confidence >= tiers.high else "MEDIUM" if confidence >= tiers.medium else "LOW"


@pytest.mark.slow
def test_every_shown_tier_is_the_threshold_of_its_confidence(real_app):
    """Unit guard: tests/temporal/test_tiers.py::test_thresholds (0.44 LOW, 0.45 MEDIUM, 0.90 HIGH).
    Over the demo questions and ten off-topic ones with the real model: each result's tier is the
    one its confidence falls in, whatever its trust or score, and the questions reach more than
    one tier."""
    assert (DEFAULT_TEMPORAL.tiers.high, DEFAULT_TEMPORAL.tiers.medium) == (0.90, 0.45)
    real_app.ingest_paths([DEMO_CORPUS], now=NOW)
    seen = []
    lines = [*DEMO_QUERIES.read_text(encoding="utf-8").splitlines(),
             *ABSTAIN_QUERIES.read_text(encoding="utf-8").splitlines()[:10]]
    for line in filter(str.strip, lines):
        q = json.loads(line)
        resp = real_app.query(q["text"], as_of=parse_time(q["as_of"]) if q.get("as_of") else NOW, log=False)
        for r in resp.results:
            seen.append((q["id"], r.id, r.confidence, r.confidence_tier.value, r.trust))
    assert seen
    assert [(qid, doc, t) for qid, doc, c, t, _ in seen] == [(qid, doc, _tier(c)) for qid, doc, c, _, _ in seen]
    assert len({t for *_, t, _ in seen}) >= 2, "the demo questions should reach more than one tier"
