"""CLI around the memory: consolidate, feedback, demo, tag / restore, freshness (hashing model)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import write_jsonl

CORPUS = [
    {"id": "limits_v1", "title": "Rate limits", "text": "API calls are limited to 100 requests per minute.",
     "created_at": "2026-09-01T00:00:00Z", "kind": "VERSIONED", "doc_type": "policy"},
    {"id": "limits_v2", "title": "Rate limits", "text": "API calls are limited to 300 requests per minute.",
     "created_at": "2026-11-01T00:00:00Z", "kind": "VERSIONED", "doc_type": "policy"},
    {"id": "sdk", "text": "The SDK backs off when it hits the limit.", "depends_on": ["limits_v2"],
     "created_at": "2026-11-10T00:00:00Z"},
]
CONTRACT_KEYS = {"supersessions", "contradictions", "dependencies", "archived", "dormant"}


@pytest.fixture
def loaded(cli, tmp_path):
    code, _, _ = cli("ingest", str(write_jsonl(tmp_path / "c.jsonl", CORPUS)))
    assert code == 0
    return cli


def test_consolidate_json_has_the_contract_keys_and_second_run_is_zero(loaded):
    code, out, err = loaded("consolidate", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report.keys() >= CONTRACT_KEYS
    assert all(isinstance(report[k], int) for k in CONTRACT_KEYS)
    code, out, _ = loaded("consolidate", "--json", "--full")
    assert code == 0 and {k: json.loads(out)[k] for k in ("supersessions", "contradictions", "dependencies",
                                                          "archived")} == dict.fromkeys(
        ("supersessions", "contradictions", "dependencies", "archived"), 0)
    code, out, _ = loaded("consolidate")
    assert code == 0 and out.startswith("supersessions 0")


def test_ingest_consolidated_incrementally(loaded, tmp_path):
    stats = json.loads(loaded("stats", "--json")[1])
    extra = write_jsonl(tmp_path / "x.jsonl", [{"id": "x", "text": "Per sdk, retries wait a second."}])
    code, out, _ = loaded("ingest", str(extra), "--json")
    assert code == 0 and json.loads(out)["consolidation"]["archived"] == 0
    assert stats["by_lifecycle"].get("ARCHIVED") == 1 and "UNCONSOLIDATED" not in stats["by_lifecycle"]


def test_feedback_accept_and_correct(loaded):
    code, out, err = loaded("feedback", "limits_v2", "correct", "--query-id", "q7", "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["trust_after"] < result["trust_before"]
    assert [s["doc_id"] for s in result["rippled"]] == ["sdk"] and result["query_id"] == "q7"
    code, out, _ = loaded("feedback", "limits_v2", "accept")
    assert code == 0 and "accept" in out


def test_feedback_undo_from_the_cli_reverses_the_verdict_and_its_ripple(loaded):
    _, out, _ = loaded("feedback", "limits_v2", "correct", "--query-id", "q9", "--json")
    corrected = json.loads(out)
    code, out, err = loaded("feedback", "limits_v2", "undo", "--query-id", "q9", "--json")
    assert code == 0, err
    undone = json.loads(out)
    assert undone["undone"] == "correct" and undone["ripple_reversed"] == 1
    assert undone["trust_after"] == pytest.approx(corrected["trust_before"], abs=1e-9)
    events = json.loads(loaded("stats", "--json")[1])["events"]
    code, _, err = loaded("feedback", "limits_v2", "undo", "--query-id", "q9")
    assert code == 2 and "no verdict" in err            # nothing left to undo: nothing written
    assert json.loads(loaded("stats", "--json")[1])["events"] == events


@pytest.mark.parametrize(("args", "expected"), [
    (("feedback", "no_such_doc", "accept"), "no document with id 'no_such_doc'"),
    (("feedback", "limits_v2", "love"), "expected accept or correct"),
    (("restore", "--tag", "never-made"), "no tag 'never-made'"),
    (("restore", "--version", "999"), "chunks version 999 does not exist (kept: "),
    (("restore", "--version", "x=y"), "expected N or TABLE=N"),
    (("restore",), "give exactly one of --tag T or --version N"),
    (("tag", "two words"), "without spaces"),
    (("freshness", "--as-of", "someday"), "--as-of"),
])
def test_bad_input_exits_2_with_one_line(loaded, args, expected):
    events_before = json.loads(loaded("stats", "--json")[1])["events"]
    code, out, err = loaded(*args)
    assert code == 2
    assert err.count("\n") == 1 and expected in err and "Traceback" not in err
    assert json.loads(loaded("stats", "--json")[1])["events"] == events_before


def test_tag_then_restore_brings_back_the_tagged_state(loaded, tmp_path):
    code, out, _ = loaded("tag", "before-extra", "--json")
    assert code == 0 and json.loads(out)["tag"] == "before-extra"
    extra = write_jsonl(tmp_path / "extra.jsonl", [{"id": "extra", "text": "One more document."}])
    assert loaded("ingest", str(extra))[0] == 0
    assert json.loads(loaded("stats", "--json")[1])["documents"] == 4
    code, out, err = loaded("restore", "--tag", "before-extra", "--json")
    assert code == 0, err
    assert "chunks" in json.loads(out)["restored"]
    assert json.loads(loaded("stats", "--json")[1])["documents"] == 3


def test_freshness_report(loaded):
    code, out, err = loaded("freshness", "--json", "--as-of", "2026-12-01T00:00:00Z")
    assert code == 0, err
    report = json.loads(out)
    rows = {r["id"]: r for r in report["documents"]}
    assert set(rows) == {"limits_v1", "limits_v2", "sdk"}
    assert {"grade", "decay", "validity_state", "action", "advice"} <= rows["sdk"].keys()


def test_demo_if_empty_loads_once(cli):
    code, out, err = cli("demo", "--if-empty")
    assert code == 0, err
    assert "demo corpus" in out
    documents = json.loads(cli("stats", "--json")[1])["documents"]
    assert documents > 10
    code, out, _ = cli("demo", "--if-empty")
    assert code == 0 and "not loaded" in out
    assert json.loads(cli("stats", "--json")[1])["documents"] == documents


def test_many_feedback_clicks_do_not_pile_up_small_files(fake_app):
    from smartvector_core.store import FRAGMENT_BOUND, LOG_MERGE_EVERY
    from tests.conftest import NOW

    fake_app.ingest_records(CORPUS, now=NOW, consolidate=False)
    before = fake_app.store.count_rows("events")
    clicks = LOG_MERGE_EVERY + 10
    for i in range(clicks):
        fake_app.feedback("limits_v2", "accept" if i % 2 else "correct", now=NOW, query_id=f"q{i}")
    assert fake_app.store.count_rows("events") >= before + clicks          # every click recorded (plus ripples)
    assert fake_app.store.fragments("events") <= FRAGMENT_BOUND + 12   # merged at the 50th write


def test_feedback_reliability_pairs_verdicts_with_reported_confidence(fake_app):
    from tests.conftest import NOW

    fake_app.ingest_records(CORPUS, now=NOW, consolidate=False)
    assert fake_app.feedback_reliability()["n"] == 0
    resp = fake_app.query("requests per minute limit", as_of=NOW, profile="default", k=3)
    top = resp.results[0]
    fake_app.feedback(top.id, "accept", now=NOW, query_id=resp.query_id)
    fake_app.feedback(top.id, "correct", now=NOW, query_id=resp.query_id, actor="second operator")
    fake_app.feedback(top.id, "accept", now=NOW)                    # no query id: not paired
    report = fake_app.feedback_reliability()
    assert report["n"] == 2 and set(report["by_profile"]) == {"default"}
    # two verdicts on one answer of confidence c: half right, so ECE = |c - 0.5|
    assert report["ece"] == pytest.approx(abs(top.confidence - 0.5), abs=1e-6)   # logged to 6 decimals
    (only_bin,) = report["by_profile"]["default"]["bins"]
    assert only_bin["count"] == 2 and only_bin["accuracy"] == 0.5


def test_calibration_command(loaded):
    code, out, _ = loaded("calibration", "--json")
    assert code == 0 and json.loads(out)["n"] == 0


def test_feedback_certainty_pairs_use_the_logged_certainty(fake_app):
    from tests.conftest import NOW

    fake_app.ingest_records(CORPUS, now=NOW, consolidate=False)
    resp = fake_app.query("requests per minute limit", as_of=NOW, profile="temporal", k=3)
    first = resp.results[0]
    fake_app.feedback(first.id, "correct", now=NOW, query_id=resp.query_id)
    pairs = fake_app.feedback_certainty_pairs()
    assert pairs == {"temporal": ([pytest.approx(first.certainty, abs=1e-6)], [False])}   # logged to 6 decimals


def test_operator_verdicts_refit_the_store_calibration(fake_app):
    """Corrections of confident answers pull the store's calibration below the shipped prior."""
    from smartvector_core.retrieval.calibration import calibrate
    from tests.conftest import NOW

    fake_app.ingest_records(CORPUS, now=NOW, consolidate=False)
    resp = fake_app.query("requests per minute limit", as_of=NOW, profile="temporal", k=3)
    first = resp.results[0]
    assert fake_app.store_calibration() == {}
    for n in range(40):
        fake_app.feedback(first.id, "correct", now=NOW, query_id=resp.query_id, actor=f"operator{n}")
    knots = fake_app.store_calibration()["temporal"]
    refit = calibrate("temporal", [first.certainty], knots)[0]
    assert refit < calibrate("temporal", [first.certainty])[0]
    again = fake_app.query("requests per minute limit", as_of=NOW, profile="temporal", k=3)
    top = again.results[0]                       # the store's refit is what queries now report
    assert top.confidence == pytest.approx(calibrate("temporal", [top.certainty], knots)[0])
    assert top.confidence < calibrate("temporal", [top.certainty])[0]


def test_compare_answers_each_profile_once_embedded(fake_app, monkeypatch):
    """The Query Lab's side by side is one service call: one embedding, one logged answer per profile."""
    from tests.conftest import NOW

    fake_app.ingest_records([{"id": "a", "text": "The API rate limit is 100 requests per minute.",
                              "created_at": "2025-01-01"}], now=NOW)
    calls = []
    real = fake_app.embedder.encode
    monkeypatch.setattr(fake_app.embedder, "encode", lambda texts: calls.append(list(texts)) or real(texts))
    out = fake_app.compare("rate limit", ("naive", "default"), as_of=NOW, k=3)
    assert [r.profile for r in out] == ["naive", "default"]
    assert calls == [["rate limit"]]
    fake_app.flush()
    assert len(fake_app.query_log()) == 2
    assert set(fake_app.versions()) == {"versions", "tags"}


def test_verdicts_scored_with_another_scoring_version_are_left_out_and_warned(fake_app, monkeypatch):
    """A scoring change makes logged certainties incomparable: the refit leaves them out and says so."""
    from smartvector_core.retrieval import confidence_model
    from tests.conftest import NOW

    fake_app.ingest_records(CORPUS, now=NOW, consolidate=False)
    resp = fake_app.query("requests per minute limit", as_of=NOW, profile="temporal", k=3)
    assert resp.scoring_version and resp.to_dict()["scoring_version"] == resp.scoring_version
    fake_app.feedback(resp.results[0].id, "accept", now=NOW, query_id=resp.query_id)
    assert fake_app.feedback_certainty_pairs()
    assert not [w for w in fake_app.scoring_warnings() if "verdicts" in w]
    monkeypatch.setattr(confidence_model, "version_of", lambda config, profile: "another")
    assert fake_app.feedback_certainty_pairs() == {}
    (warning,) = [w for w in fake_app.scoring_warnings() if "verdicts" in w]
    assert warning.startswith("1 verdicts on 'temporal' answers were scored with another scoring version")
    report = fake_app.feedback_reliability()
    assert warning in report["warnings"] and {"auroc", "brier", "high_precision"} <= set(report)
