"""The consolidation agent on a temp LanceDB store: supersession, contradictions, dependencies,
ripple, lifecycle (dormancy and waking), idempotence, crash convergence; feedback and as_of.

The one-word-edit case (one chunk re-embedded) is ``tests/ingest/test_ingest.py::test_one_word_edit_reembeds_one_chunk``.
"""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest

from smartvector_core.config import DEFAULT_CONFIDENCE
from smartvector_core.consolidation import DEFAULT_CONSOLIDATION, cosines, top_neighbours
from smartvector_core.memory import DEFAULT_RIPPLE

from ..conftest import NOW

DAY = timedelta(days=1)
RECENT = (NOW - 10 * DAY).isoformat()


def doc(id_: str, text: str, **fields) -> dict:
    base = {"id": id_, "text": text, "created_at": RECENT, "doc_type": "reference", "kind": "STATIC"}
    return {**base, **fields}


def lifecycle(app, doc_id: str) -> str:
    return app.store.chunks_for_docs([doc_id]).column("lifecycle")[0].as_py()


def counts(app) -> tuple[int, int]:
    return app.store.count_rows("events"), app.store.count_rows("edges")


# --- feedback and ripple ----------------------------------------------------------------------
@pytest.fixture
def chain_app(fake_app):
    """base <- dep1 <- dep2 (depends_on), and an unrelated document."""
    fake_app.ingest_records([
        doc("base", "The base fact about gateway timeouts."),
        doc("dep1", "A guide that relies on the base fact.", depends_on=["base"]),
        doc("dep2", "A checklist that relies on the guide.", depends_on=["dep1"]),
        doc("other", "Cafeteria menu for the week: soup and bread."),
    ], now=NOW)
    return fake_app


def test_correct_lowers_the_document_and_ripples_less_at_two_hops_none_to_unrelated(chain_app):
    ids = ["base", "dep1", "dep2", "other"]
    before = chain_app.trust_of(ids, as_of=NOW)
    out = chain_app.feedback("base", "correct", now=NOW)
    after = chain_app.trust_of(ids, as_of=NOW)
    drop = {d: before[d] - after[d] for d in ids}
    assert drop["base"] == pytest.approx(-DEFAULT_CONFIDENCE.correct_delta)
    assert drop["dep1"] == pytest.approx(DEFAULT_RIPPLE.penalty)
    assert drop["dep2"] == pytest.approx(DEFAULT_RIPPLE.penalty * DEFAULT_RIPPLE.hop_decay)
    assert 0 < drop["dep2"] < drop["dep1"]
    assert drop["other"] == 0
    assert [(s["doc_id"], s["hop"]) for s in out["rippled"]] == [("dep1", 1), ("dep2", 2)]


def test_accept_raises(chain_app):
    before = chain_app.trust_of(["other"], as_of=NOW)["other"]
    chain_app.feedback("other", "accept", now=NOW)
    after = chain_app.trust_of(["other"], as_of=NOW)["other"]
    assert after == pytest.approx(before + DEFAULT_CONFIDENCE.accept_delta)


def test_trust_at_a_past_as_of_is_reproducible_after_later_feedback(chain_app):
    past = NOW - 2 * DAY
    then = chain_app.trust_of(["base", "dep1"], as_of=past)
    chain_app.feedback("base", "correct", now=NOW)
    chain_app.feedback("base", "correct", now=NOW + DAY)
    assert chain_app.trust_of(["base", "dep1"], as_of=past) == then
    assert chain_app.trust_of(["base"], as_of=NOW + DAY)["base"] < then["base"]


# --- supersession -------------------------------------------------------------------------------
def test_implicit_old_version_with_the_same_title_is_archived(fake_app):
    fake_app.ingest_records([
        doc("leave_2024", "Employees get 20 vacation days a year.", title="Vacation policy", kind="VERSIONED",
            doc_type="policy", created_at=(NOW - 300 * DAY).isoformat()),
        doc("leave_2025", "Employees get 25 vacation days a year, carried over once.", title="Vacation Policy",
            kind="VERSIONED", doc_type="policy", created_at=(NOW - 20 * DAY).isoformat()),
        # same title, both STATIC reference pages with different content: not versions of each other
        doc("glossary_a", "Latency is the time a request waits.", title="Glossary"),
        doc("glossary_b", "Throughput counts requests served per second by the fleet.", title="Glossary",
            created_at=(NOW - 5 * DAY).isoformat()),
    ], now=NOW, consolidate=False)
    report = fake_app.consolidate(now=NOW)
    assert report["supersessions"] == 1 and report["archived"] == 1
    assert lifecycle(fake_app, "leave_2024") == "ARCHIVED"
    assert lifecycle(fake_app, "leave_2025") == "ACTIVE"
    superseded_at = fake_app.store.chunks_for_docs(["leave_2024"]).column("superseded_at")[0].as_py()
    assert superseded_at == NOW - 20 * DAY
    edges = fake_app.edges_frame()
    sup = edges[edges["edge_type"] == "SUPERSEDES"]
    assert sup[["src", "dst", "origin"]].values.tolist() == [["leave_2025", "leave_2024", "inferred"]]
    assert "same title 'vacation policy', newer created_at" in sup["evidence"].iloc[0]
    assert {lifecycle(fake_app, "glossary_a"), lifecycle(fake_app, "glossary_b")} == {"ACTIVE"}
    events = fake_app.events_frame("leave_2024")
    moves = events[events["event_type"] == "LIFECYCLE"]["detail"].tolist()
    assert any('"to": "ARCHIVED"' in m for m in moves)
    chain = fake_app.version_chain("leave_2025")
    assert [v["id"] for v in chain] == ["leave_2024", "leave_2025"]
    assert chain[0]["superseded_by"] == ["leave_2025"] and chain[0]["lifecycle"] == "ARCHIVED"


def test_explicit_supersession_archives_and_ripples_to_dependents(fake_app):
    fake_app.ingest_records([
        doc("limits_v1", "API calls are limited to 100 requests per minute.", kind="VERSIONED",
            created_at=(NOW - 60 * DAY).isoformat()),
        doc("sdk_guide", "The SDK retries when the rate limit is hit.", depends_on=["limits_v1"]),
    ], now=NOW)
    fake_app.ingest_records([
        doc("limits_v2", "API calls are limited to 500 requests per minute.", kind="VERSIONED",
            supersedes=["limits_v1"], valid_from=(NOW - 2 * DAY).isoformat()),
    ], now=NOW, consolidate=False)
    before = fake_app.trust_of(["sdk_guide"], as_of=NOW)["sdk_guide"]
    report = fake_app.consolidate(now=NOW)
    assert report["supersessions"] == 1 and report["archived"] == 1 and report["rippled"] == 1
    assert lifecycle(fake_app, "limits_v1") == "ARCHIVED"
    superseded_at = fake_app.store.chunks_for_docs(["limits_v1"]).column("superseded_at")[0].as_py()
    assert superseded_at == NOW - 2 * DAY  # the successor's valid_from
    after = fake_app.trust_of(["sdk_guide"], as_of=NOW)["sdk_guide"]
    assert after == pytest.approx(before - DEFAULT_RIPPLE.penalty)
    # a superseded version is not a contradiction (100 vs 500 requests)
    assert len(fake_app.review_queue()) == 0


def test_edit_ripples_to_dependents_once(fake_app):
    fake_app.ingest_records([
        doc("spec", "The export format is CSV with a header row."),
        doc("importer", "The importer reads the export files.", depends_on=["spec"]),
    ], now=NOW)
    fake_app.ingest_records([doc("spec", "The export format is JSON lines with one record per line.")],
                            now=NOW + DAY)
    ripples = fake_app.events_frame("importer").query("event_type == 'RIPPLE'")
    assert len(ripples) == 1 and '"reason": "edited"' in ripples["detail"].iloc[0]
    assert fake_app.consolidate(now=NOW + DAY, full=True)["rippled"] == 0


def test_a_ripple_skips_archived_dependents_in_consolidation_and_in_a_correction(fake_app):
    """One rule for both paths (``temporal.validity.is_live``): the old version of a dependent,
    archived by its successor, is neither hit by an edit of what it relies on nor by a correction."""
    fake_app.ingest_records([
        doc("spec", "The export format is CSV with a header row."),
        doc("importer_v1", "The importer reads CSV export files.", kind="VERSIONED", depends_on=["spec"],
            created_at=(NOW - 60 * DAY).isoformat()),
        doc("importer_v2", "The importer reads every export file.", kind="VERSIONED", depends_on=["spec"],
            supersedes=["importer_v1"]),
    ], now=NOW)
    assert lifecycle(fake_app, "importer_v1") == "ARCHIVED"
    assert [s["doc_id"] for s in fake_app.ripple_preview("spec", as_of=NOW)] == ["importer_v2"]
    corrected = fake_app.feedback("spec", "correct", now=NOW + DAY)
    assert [s["doc_id"] for s in corrected["rippled"]] == ["importer_v2"]
    fake_app.ingest_records([doc("spec", "The export format is JSON lines with one record per line.")],
                            now=NOW + 2 * DAY)
    events = fake_app.events_frame()
    edited = events[(events["event_type"] == "RIPPLE") & events["detail"].str.contains('"reason": "edited"')]
    assert edited["doc_id"].tolist() == ["importer_v2"]


# --- contradictions -----------------------------------------------------------------------------
def test_30_vs_14_day_contradiction_is_queued_less_trusted_lowered_neither_archived(real_app):
    real_app.ingest_records([
        doc("refund_policy", "Refunds are accepted within 30 days of purchase.", title="Refund policy",
            source="official", kind="VERSIONED", doc_type="policy", authority=0.9),
        doc("forum_refunds", "Refunds are accepted within 14 days of purchase.", title="Forum: how refunds work",
            source="forum", kind="VERSIONED", doc_type="policy", created_at=(NOW - 5 * DAY).isoformat(),
            authority=0.4),
        doc("cafeteria", "The cafeteria serves lunch from noon until two o'clock."),
    ], now=NOW, consolidate=False)
    ids = ["refund_policy", "forum_refunds", "cafeteria"]
    before = real_app.trust_of(ids, as_of=NOW)
    report = real_app.consolidate(now=NOW)
    assert report["contradictions"] == 1 and report["supersessions"] == 0 and report["archived"] == 0
    queue = real_app.review_queue()
    assert len(queue) == 1 and queue["status"].iloc[0] == "open"
    assert {queue["src"].iloc[0], queue["dst"].iloc[0]} == {"refund_policy", "forum_refunds"}
    assert "30 days" in queue["evidence"].iloc[0] and "14 days" in queue["evidence"].iloc[0]
    after = real_app.trust_of(ids, as_of=NOW)
    # only the less trusted side (forum 0.40 against official 0.90) pays (DESIGN.md "Trust model")
    delta = abs(DEFAULT_CONSOLIDATION.contradiction_delta)
    assert after["forum_refunds"] == pytest.approx(before["forum_refunds"] - delta)
    assert after["refund_policy"] == pytest.approx(before["refund_policy"])
    for d in ("refund_policy", "forum_refunds"):
        assert lifecycle(real_app, d) == "ACTIVE"
    assert after["cafeteria"] == before["cafeteria"]
    # resolving: keep the official policy; the forum post is corrected, the edge leaves the queue
    out = real_app.resolve_contradiction(queue["edge_id"].iloc[0], "keep_src" if queue["src"].iloc[0]
                                         == "refund_policy" else "keep_dst", now=NOW, actor="tester",
                                         confirm_kept=True)
    assert len(real_app.review_queue()) == 0
    assert out["corrected"]["id"] == "forum_refunds" and out["accepted"]["id"] == "refund_policy"
    # the resolution settles the pair: the penalty is reversed by an appended event, then corrected
    settled = real_app.events_frame().query("event_type == 'CONTRADICTION_SETTLED'")
    assert settled["doc_id"].tolist() == ["forum_refunds"] and settled["delta"].tolist() == [0.05]
    assert real_app.trust_of(["forum_refunds"], as_of=NOW)["forum_refunds"] < after["forum_refunds"]
    reviews = real_app.events_frame().query("event_type == 'REVIEW'")
    assert sorted(reviews["doc_id"]) == ["forum_refunds", "refund_policy"]


def test_resolve_by_superseding_archives_the_other_side(fake_app):
    fake_app.ingest_records([
        doc("kb_a", "Password resets are allowed for contractors.", source="wiki"),
        doc("kb_b", "Password resets are not allowed for contractors.", source="security"),
    ], now=NOW)
    queue = fake_app.review_queue()
    assert len(queue) == 1
    edge = queue.iloc[0]
    fake_app.resolve_contradiction(edge["edge_id"], "supersede_dst", now=NOW)
    assert lifecycle(fake_app, edge["dst"]) == "ARCHIVED"
    assert lifecycle(fake_app, edge["src"]) == "ACTIVE"
    with pytest.raises(ValueError, match="expected one of keep_both"):
        fake_app.resolve_contradiction(edge["edge_id"], "delete_both", now=NOW)
    with pytest.raises(ValueError, match="no contradiction"):
        fake_app.resolve_contradiction("nope", "keep_both", now=NOW)


# --- dependencies ---------------------------------------------------------------------------------
def test_citations_of_ids_and_titles_become_inferred_dependencies(fake_app):
    fake_app.ingest_records([
        doc("policy_v3", "Rate limit is 1,000 requests per minute.", title="API rate limit policy"),
        doc("faq", "Limits follow the API Rate Limit Policy; see policy_v3 for numbers. Refunds are manual."),
        doc("refunds", "Refund requests go to billing.", title="Refunds"),
    ], now=NOW)
    edges = fake_app.edges_frame()
    deps = edges[edges["edge_type"] == "DEPENDS_ON"]
    assert deps[["src", "dst"]].values.tolist() == [["faq", "policy_v3"]]
    # a one-word title ("Refunds") and a bare-word id ("refunds") are not taken for citations
    assert "cites" in deps["evidence"].iloc[0]


# --- lifecycle ------------------------------------------------------------------------------------
def test_nothing_is_dormant_after_ingest_but_what_nobody_reads_goes_dormant(fake_app):
    """Memory strength counts from ingest, never from created_at: a 400-day-old news article
    is ACTIVE on the day it is loaded; 60 unread days later (news: H = 7 days) it is DORMANT."""
    text = "Legacy fax gateway configuration steps for the Lisbon office printers."
    fake_app.ingest_records([doc("fax_gateway", text, authority=0.12, doc_type="news", kind="STATIC",
                                 created_at=(NOW - 400 * DAY).isoformat())], now=NOW)
    assert lifecycle(fake_app, "fax_gateway") == "ACTIVE"
    assert fake_app.consolidate(now=NOW + 20 * DAY)["dormant"] == 0       # idle < 30 days
    assert lifecycle(fake_app, "fax_gateway") == "ACTIVE"
    assert fake_app.consolidate(now=NOW + 60 * DAY)["dormant"] == 1
    assert lifecycle(fake_app, "fax_gateway") == "DORMANT"


def test_demo_corpus_has_nothing_dormant_at_load_and_unread_news_sleeps_later(fake_app):
    """Issue 13 item 4: 22 of 57 demo documents were DORMANT at first load (decay counted from
    created_at). Now none; half a year without a reader, the short-lived ones (news: H = 7 days,
    breaking news: 1 day) are DORMANT, the long-lived ones (mathematics, H = 36,500 days) are not."""
    from smartvector_core.settings import DEMO_CORPUS

    fake_app.ingest_paths([DEMO_CORPUS], now=NOW)          # consolidates at ingest
    docs = fake_app.documents_frame(as_of=NOW)
    assert (docs["lifecycle"] == "DORMANT").sum() == 0 and (docs["lifecycle"] == "ACTIVE").sum() > 40
    fake_app.consolidate(now=NOW + 180 * DAY)
    later = fake_app.documents_frame(as_of=NOW + 180 * DAY).set_index("id")
    dormant = later[later["lifecycle"] == "DORMANT"]
    assert set(dormant["doc_type"]) >= {"news", "breaking_news"}
    assert "mathematics" not in set(dormant["doc_type"])


def test_dormant_document_stays_searchable_and_wakes_on_access(fake_app):
    text = "Legacy fax gateway configuration steps for the Lisbon office printers."
    fake_app.ingest_records([doc("fax_gateway", text, authority=0.12, doc_type="news", kind="STATIC",
                                 created_at=(NOW - 400 * DAY).isoformat())], now=NOW)
    fake_app.consolidate(now=NOW + 60 * DAY)
    assert lifecycle(fake_app, "fax_gateway") == "DORMANT"
    moves = fake_app.events_frame("fax_gateway").query("event_type == 'LIFECYCLE'")
    assert len(moves) == 2   # U -> A at ingest, A -> D 60 days later
    response = fake_app.query(text, as_of=NOW + 61 * DAY, profile="naive")
    assert [r.id for r in response.results] == ["fax_gateway"]
    assert lifecycle(fake_app, "fax_gateway") == "ACTIVE"
    events = fake_app.events_frame("fax_gateway").sort_values("at", kind="stable")
    assert events["event_type"].tolist()[-2:] in (["ACCESS", "LIFECYCLE"], ["LIFECYCLE", "ACCESS"])
    assert '"from": "DORMANT"' in events[events["event_type"] == "LIFECYCLE"]["detail"].iloc[-1]


def test_record_access_wakes_a_dormant_document(fake_app):
    fake_app.ingest_records([doc("old_note", "An old note nobody reads.", authority=0.1, doc_type="news",
                                 created_at=(NOW - 400 * DAY).isoformat())], now=NOW - 60 * DAY)
    fake_app.consolidate(now=NOW)
    assert lifecycle(fake_app, "old_note") == "DORMANT"
    fake_app.record_access(["old_note"], now=NOW + DAY)
    assert lifecycle(fake_app, "old_note") == "ACTIVE"
    # and consolidation leaves it awake while the access is recent
    fake_app.consolidate(now=NOW + 2 * DAY)
    assert lifecycle(fake_app, "old_note") == "ACTIVE"


# --- idempotence, incrementality, crash -----------------------------------------------------------
def corpus() -> list[dict]:
    return [
        doc("limits_v1", "API calls are limited to 100 requests per minute.", title="Rate limits",
            kind="VERSIONED", created_at=(NOW - 90 * DAY).isoformat()),
        doc("limits_v2", "API calls are limited to 300 requests per minute.", title="Rate limits",
            kind="VERSIONED", created_at=(NOW - 30 * DAY).isoformat()),
        doc("client", "Our client follows the rate limits document and policy limits_v2.", depends_on=["limits_v1"]),
        doc("kb_a", "Password resets are allowed for contractors.", source="wiki"),
        doc("kb_b", "Password resets are not allowed for contractors.", source="security"),
        doc("stale", "A note.", authority=0.1, doc_type="news", created_at=(NOW - 400 * DAY).isoformat()),
    ]


def test_second_consolidate_is_a_no_op(fake_app):
    fake_app.ingest_records(corpus(), now=NOW - 60 * DAY, consolidate=False)   # "stale" unread since
    first = fake_app.consolidate(now=NOW)
    assert first["supersessions"] == 1 and first["contradictions"] == 1 and first["dependencies"] >= 1
    assert first["dormant"] >= 1
    state = counts(fake_app)
    for full in (False, True):
        again = fake_app.consolidate(now=NOW, full=full)
        assert {k: again[k] for k in ("supersessions", "contradictions", "dependencies", "archived", "dormant",
                                      "activated", "rippled")} == dict.fromkeys(
            ("supersessions", "contradictions", "dependencies", "archived", "dormant", "activated", "rippled"), 0)
        assert counts(fake_app) == state
    assert "pre-consolidate" in fake_app.store.tags()["chunks"]


def test_incremental_run_queries_only_new_documents(fake_app):
    fake_app.ingest_records(corpus(), now=NOW)
    fake_app.ingest_records([doc("new_one", "Password resets need a manager approval.")], now=NOW,
                            consolidate=False)
    report = fake_app.consolidate(now=NOW)
    assert report["query_documents"] == 1 and report["activated"] == 1
    assert report["examined_pairs"] <= DEFAULT_CONSOLIDATION.neighbours


def test_rerun_after_a_crash_converges_without_duplicate_events(fake_app, monkeypatch, tmp_path):
    from smartvector_core.embedding import HashingEmbedder
    from smartvector_core.service import SmartVector
    from smartvector_core.settings import load_settings

    reference = SmartVector(load_settings(str(tmp_path / "ref"), env={}), embedder=HashingEmbedder())
    reference.ingest_records(corpus(), now=NOW, consolidate=False)
    reference.consolidate(now=NOW)

    fake_app.ingest_records(corpus(), now=NOW, consolidate=False)
    store = fake_app.store

    def crash(_updates):
        raise KeyboardInterrupt("killed before the lifecycle fields were written")

    monkeypatch.setattr(store, "update_doc_fields", crash)
    with pytest.raises(KeyboardInterrupt):
        fake_app.consolidate(now=NOW)
    monkeypatch.undo()
    fake_app.consolidate(now=NOW)

    def summary(app):
        ev = app.events_frame()
        docs = app.documents_frame(as_of=NOW).set_index("id")
        return (sorted(ev["event_type"]), sorted(zip(app.edges_frame()["src"], app.edges_frame()["dst"],
                                                      strict=True)),
                docs["lifecycle"].sort_index().to_dict(), docs["trust"].sort_index().round(9).to_dict())

    assert summary(fake_app) == summary(reference)


def test_numpy_neighbours_match_brute_force(fake_app):
    fake_app.ingest_records(corpus(), now=NOW, consolidate=False)
    _, vectors = fake_app.store.current_chunks()
    rows, cols, sims = top_neighbours(vectors, vectors, 3)
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    full = unit @ unit.T
    assert len(rows) == 3 * len(vectors)
    for row in range(len(vectors)):  # the same top-3 similarities per query (ties may swap ids)
        assert np.allclose(np.sort(sims[rows == row]), np.sort(full[row])[-3:], atol=1e-5)
        assert np.allclose(full[row, cols[rows == row]], sims[rows == row], atol=1e-5)


def test_point_in_time_reports_of_different_days_do_not_contradict(fake_app):
    fake_app.ingest_records([
        doc("news_2025", "Voluntary attrition at Larkspur was 15% this year.", doc_type="news",
            created_at=(NOW - 400 * DAY).isoformat()),
        doc("news_2026", "Voluntary attrition at Larkspur was 21% this year.", doc_type="news",
            created_at=(NOW - 30 * DAY).isoformat()),
        doc("policy_note", "Voluntary attrition at Larkspur was 9% this year.", doc_type="policy",
            created_at=(NOW - 20 * DAY).isoformat()),
    ], now=NOW)
    pairs = {frozenset((r.src, r.dst)) for r in fake_app.review_queue().itertuples()}
    assert frozenset(("news_2025", "news_2026")) not in pairs
    assert frozenset(("news_2026", "policy_note")) in pairs


def test_lifecycle_counts_this_runs_penalties_once(fake_app):
    """Memory strength 40 days after ingest, unread (reference: H = 1825 days):
    0.21 · 2^(−40/1825) − 0.05 = 0.157 >= 0.15: stays ACTIVE (counted twice, 0.107: it would sleep)."""
    old = (NOW - 40 * DAY).isoformat()
    fake_app.ingest_records([
        doc("kb_a", "Password resets are allowed for contractors.", source="wiki", authority=0.21, created_at=old),
        doc("kb_b", "Password resets are not allowed for contractors.", source="security", created_at=old),
    ], now=NOW - 40 * DAY, consolidate=False)
    first = fake_app.consolidate(now=NOW)
    assert first["contradictions"] == 1 and first["dormant"] == 0
    assert lifecycle(fake_app, "kb_a") == "ACTIVE"
    assert fake_app.consolidate(now=NOW)["activated"] == 0


def test_pair_cosines_are_exact_symmetric_and_independent_of_blocks():
    rng = np.random.default_rng(3)
    matrix = rng.standard_normal((300, 384)).astype(np.float32)
    a, b = rng.integers(0, 300, 5000), rng.integers(0, 300, 5000)
    got = cosines(matrix, a, b)
    exact = (matrix[a].astype(np.float64) * matrix[b].astype(np.float64)).sum(axis=1)
    assert np.allclose(got, exact, rtol=0, atol=1e-9)
    assert np.array_equal(got, cosines(matrix, b, a))                  # symmetric, bit for bit
    assert np.array_equal(got, cosines(matrix, a, b, block=7))         # any partition of the pairs
    assert np.array_equal(got[1234:1240], cosines(matrix, a[1234:1240], b[1234:1240]))


def test_top_neighbours_is_the_exact_top_m_best_first():
    rng = np.random.default_rng(5)
    base = rng.standard_normal((500, 32)).astype(np.float32)
    base[7] = base[3]                                   # a tie: both must be found, lower row first
    queries = np.vstack([base[3], rng.standard_normal((40, 32)).astype(np.float32)])
    rows, cols, sims = top_neighbours(queries, base, 6, block_rows=16)
    scores = queries @ base.T
    for q in range(len(queries)):
        got = cols[rows == q]
        expected = np.lexsort((np.arange(500), -scores[q]))[:6]
        assert list(got) == list(expected)
        assert np.allclose(sims[rows == q], scores[q, expected])
    assert list(cols[rows == 0][:2]) == [3, 7]
    r_all, c_all, _ = top_neighbours(queries[:2], base[:5], 10)   # m above the base size: every row
    assert len(r_all) == 10 and sorted(c_all[r_all == 1]) == [0, 1, 2, 3, 4]


def test_top_neighbours_over_a_kept_matrix_is_the_gathered_matrixs():
    """A warm cache's RowView: slots in another order, some not held (retired), duplicates (ties
    broken by run row, not slot): the same rows, columns and scores as over the gathered rows."""
    from smartvector_core.consolidation.incremental import RowView

    rng = np.random.default_rng(8)
    # small integers: every dot product is exact whatever the BLAS kernel sums first, so a tie is
    # a tie over the whole matrix and over the gathered one alike (Gaussian floats differ in the
    # last bit between the two products on some CPUs, and the tie's order with them)
    data = rng.integers(-4, 5, (700, 32)).astype(np.float32)
    data[600] = data[40]                                  # a tie between two held slots
    others = rng.permutation(np.setdiff1d(np.arange(700), [40, 600]))[:518]
    slots = np.r_[600, others[:300], 40, others[300:]]    # run rows 0 and 301 tie; 180 slots not held
    view = RowView(data, slots)
    gathered = data[slots]
    queries = np.vstack([data[40], rng.integers(-4, 5, (30, 32)).astype(np.float32)])
    for m, block in ((6, 16), (13, 4), (600, 64)):
        got, want = top_neighbours(queries, view, m, block), top_neighbours(queries, gathered, m, block)
        for x, y in zip(got, want, strict=True):
            assert np.array_equal(x, y)
    rows, cols, _ = top_neighbours(queries[:1], view, 2)
    assert cols.tolist() == [0, 301]                       # the lower run row first (slot 600 before 40)


def test_a_contradiction_penalised_on_either_side_is_written_once(fake_app):
    """Two runs that read the store at different moments may find one CONTRADICTS edge's less
    trusted side differently; the second run's penalty (other side, other event id) is not written."""
    from smartvector_core.consolidation.contradictions import contradiction_twin
    from smartvector_core.consolidation.records import Event, stable_id
    from smartvector_core.consolidation.runner import append_new_events
    from smartvector_core.models import EventType

    def penalty(me: str, other: str) -> dict:
        detail = {"edge_id": "edge-1", "other": other, "evidence": "rate", "kind": "quantity"}
        return Event(stable_id("contradiction", "edge-1", me), me, EventType.CONTRADICTION, detail, delta=-0.1).row(NOW)

    first, second = penalty("a", "b"), penalty("b", "a")
    assert contradiction_twin(second) == first["event_id"] != second["event_id"]
    assert [r["event_id"] for r in append_new_events(fake_app.store, [first])] == [first["event_id"]]
    assert append_new_events(fake_app.store, [second]) == []          # the twin is stored: nothing written
    assert append_new_events(fake_app.store, [first]) == []           # the same id: nothing written
    stored = [e for e in fake_app.store.events().to_pylist() if e["event_type"] == "CONTRADICTION"]
    assert [e["doc_id"] for e in stored] == ["a"]
