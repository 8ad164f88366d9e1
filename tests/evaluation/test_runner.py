"""The benchmark runner: JSON shape, agreement with query output, determinism, CLI, extras."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from smartvector_core import cli
from smartvector_core.clock import parse_time
from smartvector_core.embedding import HashingEmbedder
from smartvector_core.evaluation import (
    ALL_PROFILES,
    ablation_profiles,
    measure_reembedding,
    run_bench,
    simplex_grid,
)
from smartvector_core.evaluation.accuracy import paper_bench as paper_bench_module
from smartvector_core.retrieval.profiles import DEFAULT, PROFILES, SMARTVECTOR
from smartvector_core.service import SmartVector, dumps
from smartvector_core.settings import load_settings
from tests.conftest import write_jsonl

CORPUS = [
    {"id": "refund_v1", "title": "Refund Policy", "kind": "VERSIONED", "doc_type": "policy",
     "text": "Refund policy: customers may request a refund within 30 days of purchase.",
     "created_at": "2024-01-10T00:00:00Z", "valid_from": "2024-01-15T00:00:00Z",
     "valid_until": "2025-01-15T00:00:00Z"},
    {"id": "refund_v2", "title": "Refund Policy", "kind": "VERSIONED", "doc_type": "policy",
     "text": "Refund policy: customers may request a refund within 60 days of purchase.",
     "created_at": "2025-01-10T00:00:00Z", "valid_from": "2025-01-15T00:00:00Z", "supersedes": "refund_v1"},
    {"id": "rate_v1", "title": "API Rate Limit", "kind": "VERSIONED", "doc_type": "policy",
     "text": "API rate limit: each key may send 100 requests per minute.",
     "created_at": "2024-03-01T00:00:00Z", "valid_from": "2024-03-01T00:00:00Z"},
    {"id": "rate_v2", "title": "API Rate Limit", "kind": "VERSIONED", "doc_type": "policy",
     "text": "API rate limit: each key may send 1000 requests per minute.",
     "created_at": "2025-06-01T00:00:00Z", "valid_from": "2025-06-01T00:00:00Z", "supersedes": "rate_v1"},
    {"id": "holiday", "title": "Holiday support hours", "kind": "EVENT", "doc_type": "news",
     "text": "Holiday notice: the help desk closes at noon during the holiday week.",
     "created_at": "2025-12-15T00:00:00Z", "valid_from": "2025-12-20T00:00:00Z",
     "valid_until": "2025-12-27T00:00:00Z"},
    {"id": "light", "title": "Speed of light", "kind": "STATIC", "doc_type": "reference",
     "text": "The speed of light in vacuum is 299792458 metres per second.",
     "created_at": "1990-05-01T00:00:00Z"},
    {"id": "rumour", "title": "Forum post", "source": "forum", "authority": 0.2,
     "text": "Someone on the forum says the refund window is now 90 days of purchase.",
     "created_at": "2025-09-01T00:00:00Z"},
]
QUERIES = [
    {"id": "q1", "text": "How many days do customers have to request a refund?", "as_of": "2026-03-01T00:00:00Z",
     "relevant": ["refund_v2"], "stale": ["refund_v1"], "type": "current"},
    {"id": "q2", "text": "How many days do customers have to request a refund?", "as_of": "2024-06-01T00:00:00Z",
     "relevant": ["refund_v1"], "stale": [], "type": "past"},
    {"id": "q3", "text": "What is the API rate limit per key?", "as_of": "2026-03-01T00:00:00Z",
     "relevant": ["rate_v2"], "stale": ["rate_v1"], "type": "current"},
    {"id": "q4", "text": "What is the speed of light in vacuum?", "as_of": "2026-03-01T00:00:00Z",
     "relevant": ["light"], "stale": [], "type": "timeless"},
]
CONTRACT_KEYS = {"top1", "stale_at_1", "ece", "mrr", "n"}


@pytest.fixture(scope="module")
def result():
    return run_bench(CORPUS, QUERIES, ALL_PROFILES, embedder=HashingEmbedder(), k=5)


def test_json_shape(result):
    out = json.loads(json.dumps(result.to_dict()))
    assert set(out["profiles"]) == set(ALL_PROFILES)
    for metrics in out["profiles"].values():
        assert CONTRACT_KEYS | {"recall_at_5", "by_type"} <= set(metrics)
        assert metrics["n"] == 4
        assert 0.0 <= metrics["top1"] <= 1.0 and 0.0 <= metrics["ece"] <= 1.0
        assert set(metrics["by_type"]) == {"current", "past", "timeless"}
    # live: ingested and consolidated right after the corpus (its latest created_at), the earlier
    # questions asked about the past
    assert out["params"]["mode"] == "live" and out["params"]["ingested_at"].startswith("2025-12-15")
    assert out["params"]["query_log"] is False


def _by_hand(lines: list[dict], queries: list[dict]) -> dict[str, float]:
    """top1 / stale@1 / MRR / ECE computed directly from query --json lines (no metrics module)."""
    labels = {q["id"]: q for q in queries}
    top1 = stale = rr = 0.0
    bins: dict[int, list[tuple[float, bool]]] = {}
    for line in lines:
        q = labels[line["query_id"]]
        ids = []
        for r in line["results"]:
            if r["id"] not in ids:
                ids.append(r["id"])
        hit = bool(ids) and ids[0] in q["relevant"]
        top1 += hit
        stale += bool(ids) and ids[0] in q["stale"]
        rr += next((1 / (i + 1) for i, d in enumerate(ids) if d in q["relevant"]), 0.0)
        conf = line["results"][0]["confidence"] if line["results"] else 0.0
        bins.setdefault(min(int(conf * 10), 9), []).append((conf, hit))
    n = len(lines)
    ece = sum(abs(sum(h for _, h in b) - sum(c for c, _ in b)) for b in bins.values()) / n
    return {"top1": top1 / n, "stale_at_1": stale / n, "mrr": rr / n, "ece": ece}


@pytest.mark.parametrize("profile", ["naive", "temporal", "smartvector", "default"])
def test_metrics_agree_with_query_output(result, tmp_path, profile):
    app = SmartVector(load_settings(str(tmp_path / "store"), env={}), embedder=HashingEmbedder())
    app.ingest_records([dict(r) for r in CORPUS], now=parse_time(result.params["now"]))
    lines = [json.loads(dumps(app.query(q["text"], as_of=parse_time(q["as_of"]), profile=profile, k=5,
                                        query_id=q["id"], log=False).to_dict())) for q in QUERIES]
    expected = _by_hand(lines, QUERIES)
    got = result.profiles[profile]
    for key, value in expected.items():       # query --json rounds confidences: ECE to 1e-4
        assert got[key] == pytest.approx(value, abs=1e-4 if key == "ece" else 1e-12), key


def test_deterministic(result):
    again = run_bench(CORPUS, QUERIES, ALL_PROFILES, embedder=HashingEmbedder(), k=5)
    assert again.profiles == result.profiles
    assert again.runs == result.runs


def test_baselines_rank_what_existed(result):
    for name in ("bm25", "hybrid", "langchain", "llamaindex_fixed", "llamaindex_time"):
        ids = [r["id"] for r in result.runs[name]["q2"]]         # asked in 2024-06
        assert ids and not {"refund_v2", "rate_v2", "holiday", "rumour"} & set(ids), name
        assert all(0.0 <= r["confidence"] <= 1.0 for r in result.runs[name]["q2"])


def test_cli_bench_files(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SMARTVECTOR_MODEL", "hashing")
    corpus = write_jsonl(tmp_path / "c.jsonl", CORPUS)
    queries = write_jsonl(tmp_path / "q.jsonl", QUERIES)
    code = cli.main(["--store", str(tmp_path / "unused"), "bench", "--corpus", str(corpus), "--queries",
                     str(queries), "--profiles", "naive,default,bm25", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert list(out["profiles"]) == ["naive", "default", "bm25"]
    assert set(out["profiles"]["default"]) >= CONTRACT_KEYS
    assert not (tmp_path / "unused").exists()                  # only the temporary store is written
    assert cli.main(["bench", "--corpus", str(corpus), "--queries", str(queries)]) == 0
    assert "top1%" in capsys.readouterr().out


def test_cli_bench_dump_is_the_runs_the_metrics_come_from(tmp_path, monkeypatch, capsys):
    """``--dump``: one line per (profile, question), results as ranked; top-1 recomputed from it
    equals the reported top-1, and the labels are the question's own."""
    monkeypatch.setenv("SMARTVECTOR_MODEL", "hashing")
    corpus = write_jsonl(tmp_path / "c.jsonl", CORPUS)
    queries = write_jsonl(tmp_path / "q.jsonl", QUERIES)
    dump = tmp_path / "dump.jsonl"
    assert cli.main(["bench", "--corpus", str(corpus), "--queries", str(queries), "--profiles", "naive,default",
                     "--json", "--dump", str(dump)]) == 0
    out = json.loads(capsys.readouterr().out)
    lines = [json.loads(line) for line in dump.read_text(encoding="utf-8").splitlines()]
    assert [(d["profile"], d["query_id"]) for d in lines] == [(p, q["id"]) for p in ("naive", "default")
                                                               for q in QUERIES]
    for profile in ("naive", "default"):
        rows = [d for d in lines if d["profile"] == profile]
        top1 = sum(bool(d["results"]) and d["results"][0]["id"] in d["relevant"] for d in rows) / len(rows)
        assert top1 == pytest.approx(out["profiles"][profile]["top1"])
    assert lines[0]["stale"] == ["refund_v1"] and lines[0]["type"] == "current"
    assert cli.main(["bench", "--suite", "paper", "--dump", str(dump)]) == 2   # only with --corpus/--queries


def test_cli_bench_on_data_without_any_time(tmp_path, monkeypatch, capsys):
    """No created_at, no as_of: nothing in the data depends on time, so the bench still runs."""
    monkeypatch.setenv("SMARTVECTOR_MODEL", "hashing")
    corpus = write_jsonl(tmp_path / "c.jsonl", [{"id": "a", "text": "Refunds are accepted within 30 days."},
                                                 {"id": "b", "text": "Passwords change every 90 days."}])
    queries = write_jsonl(tmp_path / "q.jsonl", [{"id": "q1", "text": "refunds accepted days", "relevant": ["a"]}])
    assert cli.main(["bench", "--corpus", str(corpus), "--queries", str(queries), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["profiles"]["naive"]["n"] == 1


def test_cli_bench_bad_input(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SMARTVECTOR_MODEL", "hashing")
    corpus = write_jsonl(tmp_path / "c.jsonl", CORPUS)
    bad = tmp_path / "q.jsonl"
    bad.write_text('{"id": "q1", "text": "x", "as_of": "yesterday-ish"}\n', encoding="utf-8")
    assert cli.main(["bench", "--corpus", str(corpus), "--queries", str(bad)]) == 2
    assert "as_of" in capsys.readouterr().err
    queries = write_jsonl(tmp_path / "ok.jsonl", QUERIES)
    assert cli.main(["bench", "--corpus", str(corpus), "--queries", str(queries), "--profiles", "nope"]) == 2
    assert cli.main(["bench", "--queries", str(queries)]) == 2
    assert cli.main(["bench", "--corpus", str(tmp_path / "missing.jsonl"), "--queries", str(queries)]) == 2


def test_simplex_grid():
    grid = simplex_grid(0.125)
    assert len(grid) == 165                                     # C(8 + 3, 3)
    assert all(abs(sum(w.as_dict().values()) - 1.0) < 1e-9 for w in grid)
    assert len(simplex_grid(0.1)) == 286
    with pytest.raises(ValueError):
        simplex_grid(0.3)


def test_ablations_derive_without_mutating_presets():
    before = (replace(DEFAULT), replace(SMARTVECTOR))
    variants = ablation_profiles()
    assert variants["default_minus_temporal"].weights.temporal == 0.0
    assert variants["default_minus_trust"].trust_weight == 0.0
    assert variants["decay_access_only"].weights.as_dict() == {"semantic": 0.5, "temporal": 0.0,
                                                               "confidence": 0.5, "relational": 0.0}
    assert (PROFILES["default"], PROFILES["smartvector"]) == before


def test_reembedding_one_word_edit():
    out = measure_reembedding(HashingEmbedder(), paragraphs=20)
    assert out["chunks_total"] == 20                  # each paragraph long enough to stand alone
    assert out["chunks_embedded"] == 1 and out["chunks_reused"] == 19
    assert out["whole_document"]["chunks_embedded"] == 20
    assert out["saving_chunks"] == pytest.approx(0.95)


@pytest.fixture(scope="module")
def tune_fit():
    """One ``fit_calibration`` of ``default`` (hashing model, nothing written), with the split of
    every question it read: (the fit, those splits)."""
    seen: list[str] = []
    real = paper_bench_module.prepared_bench

    def spy(corpus, queries, **kwargs):
        seen.extend(q["split"] for q in queries)
        return real(corpus, queries, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(paper_bench_module, "prepared_bench", spy)
        out = paper_bench_module.fit_calibration(HashingEmbedder(), profiles=("default",), write=False)
    return out, seen


def test_fit_calibration_reads_only_tune(tune_fit):
    out, seen = tune_fit
    assert seen and set(seen) == {"tune"}
    assert out["meta"]["split"] == "tune" and out["written"] is None
    assert out["profiles"]["default"]["n"] > 0


@pytest.mark.slow
def test_paper_suite_end_to_end(capsys):
    """``bench --suite paper --json`` with the real model: the CONTRACT keys, naive beside default."""
    code = cli.main(["bench", "--suite", "paper", "--json", "--rates", "0,0.75"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert {"naive", "default", "smartvector", "temporal", "bm25", "hybrid"} <= set(out["profiles"])
    for name in ("naive", "default"):
        assert set(out["profiles"][name]) >= CONTRACT_KEYS
        assert out["profiles"][name]["n"] == 69
    assert out["params"]["split"] == "heldout" and out["params"]["model"] == "all-MiniLM-L6-v2"
    assert [r["rate"] for r in out["robustness"]["rates"]] == [0.0, 0.75]
    assert out["paper"]["smartvector"]["top1"] == 0.62


def test_fit_calibration_adds_operator_verdicts(tune_fit):
    base, _ = tune_fit
    verdicts = {"default": ([0.9, 0.9, 0.2], [False, False, True]), "naive": ([0.5], [True])}
    out = paper_bench_module.fit_calibration(HashingEmbedder(), profiles=("default",), write=False,
                                             feedback=verdicts)
    assert out["profiles"]["default"]["n"] == base["profiles"]["default"]["n"] + 3
    assert out["meta"]["feedback_pairs"] == 4 and "naive" not in out["profiles"]
