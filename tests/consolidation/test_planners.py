"""Each consolidation planner as a pure function: hand-made documents, no store, no model."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from smartvector_core.clock import US_PER_DAY
from smartvector_core.consolidation import Documents, stable_id
from smartvector_core.consolidation.contradictions import (
    plan_contradictions,
    plan_settlements,
    settlement_events,
)
from smartvector_core.consolidation.dependencies import plan_dependencies
from smartvector_core.consolidation.lifecycle import count_moves, move_events, plan_moves
from smartvector_core.consolidation.ripple import plan_ripple, ripple_graph
from smartvector_core.consolidation.supersession import (
    apply_supersession,
    document_texts,
    plan_supersession,
    same_title_versions,
)
from smartvector_core.memory import EventAggregates, Move
from smartvector_core.memory.chains import NO_END, NO_START
from smartvector_core.models import EdgeType, EventType, Lifecycle

DAY = US_PER_DAY
NOW = 1_000 * DAY


def unit(*rows) -> np.ndarray:
    m = np.asarray(rows, dtype=np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


# --- supersession ----------------------------------------------------------------------------
def policies(**kw) -> Documents:
    base = dict(titles=["Vacation policy"] * 3, kinds=["VERSIONED"] * 3, doc_types=["policy"] * 3,
                created_us=[100 * DAY, 200 * DAY, 300 * DAY], authority=[0.9, 0.9, 0.9])
    return Documents.of(["v1", "v2", "v3"], **{**base, **kw})


def test_same_title_versions_chain_consecutively_with_overlapping_changed_content():
    docs = policies()
    centroids = unit([1, 0.2, 0], [1, 0.3, 0], [1, 0.4, 0])     # cosines ~0.99: overlapping
    pairs = same_title_versions(docs, centroids, np.array([False, False, True]))
    assert [(o, n) for o, n, _ in pairs] == [(0, 1), (1, 2)]
    assert pairs[0][2].startswith("same title 'vacation policy', newer created_at")
    assert "content overlaps (cosine 0.99" in pairs[0][2]
    edges = plan_supersession(docs, pairs, [], np.zeros(0), np.zeros(0), set())
    assert [(e.src, e.dst, e.edge_type) for e in edges] == [("v2", "v1", EdgeType.SUPERSEDES),
                                                            ("v3", "v2", EdgeType.SUPERSEDES)]
    # an unknown text hash (older stores) is no evidence either way: the content overlap decides
    unknown = policies(doc_hash=[None, None, None])
    assert [(o, n) for o, n, _ in same_title_versions(unknown, centroids, np.ones(3, bool))] == [(0, 1), (1, 2)]


def test_a_shared_title_alone_is_no_evidence_of_replacement():
    docs = policies()
    unrelated = unit([1, 0, 0], [0, 1, 0], [0, 0, 1])            # cosine 0: different content
    assert same_title_versions(docs, unrelated, np.ones(3, bool)) == []
    same_text = policies(doc_hash=["h", "h", "h"])               # nothing changed: not a new version
    assert same_title_versions(same_text, unit([1, 0, 0], [1, 0, 0], [1, 0, 0]), np.ones(3, bool)) == []
    undated = policies(dated=[False, True, True])
    close = unit([1, 0.2, 0], [1, 0.3, 0], [1, 0.4, 0])
    assert [(o, n) for o, n, _ in same_title_versions(undated, close, np.ones(3, bool))] == [(1, 2)]


@pytest.mark.parametrize(("doc_type", "title"), [
    ("release_notes", "Flask"), ("changelog", "Werkzeug"), ("minutes", "Board"), ("incident_report", "Checkout"),
    ("", "Release notes"), ("", "Incident report: checkout outage")])
def test_records_of_their_own_moment_never_chain_implicitly(doc_type, title):
    """Engineer F's log kinds (temporal.kinds.is_log_record): by doc type or by title."""
    docs = policies(doc_types=[doc_type] * 3, titles=[title] * 3)
    assert docs.log.all()
    close = unit([1, 0.2, 0], [1, 0.3, 0], [1, 0.4, 0])
    assert same_title_versions(docs, close, np.ones(3, bool)) == []


def test_low_authority_namesake_and_untouched_titles_are_not_versions():
    docs = policies(authority=[0.9, 0.85, 0.25])
    close = unit([1, 0.2, 0], [1, 0.3, 0], [1, 0.4, 0])
    assert [(o, n) for o, n, _ in same_title_versions(docs, close, np.ones(3, bool))] == [(0, 1)]
    # only titles of query-side documents are examined (incremental runs)
    assert same_title_versions(policies(), close, np.zeros(3, bool)) == []


def test_static_namesakes_need_near_duplicate_content():
    docs = policies(kinds=["STATIC"] * 3)
    assert same_title_versions(docs, unit([1, 0.2, 0], [1, 0.3, 0], [0.2, 1, 0]), np.ones(3, bool))[0][:2] == (0, 1)
    assert len(same_title_versions(docs, unit([1, 0.2, 0], [1, 0.3, 0], [0.2, 1, 0]), np.ones(3, bool))) == 1


def test_static_namesakes_far_apart_are_versions_when_only_a_value_changed():
    """Rule (a'): short answers to one question embed apart (cosine 0.1 here), but the newer text
    is the older statement with a different value: the edge says which values."""
    texts = {0: "Who coaches the Texans? Bill O'Brien.", 1: "Who coaches the Texans? David Culley.",
             2: "The Texans play their home games at NRG Stadium in Houston."}
    docs = policies(kinds=["STATIC"] * 3, titles=["Who coaches the Texans"] * 3)
    far = unit([1, 0.1, 0], [0.1, 1, 0], [0, 0.1, 1])
    asked: list[list[int]] = []

    def read(rows):
        asked.append(list(rows))
        return {r: texts[r] for r in rows}

    pairs = same_title_versions(docs, far, np.ones(3, bool), texts=read)
    assert [(o, n) for o, n, _ in pairs] == [(0, 1)]          # v3 is another statement: not a version
    assert "the same statement with a different name ('Bill O ' Brien' -> 'David Culley')" in pairs[0][2]
    assert "content cosine 0.198" in pairs[0][2] and asked == [[0, 1, 2]]
    assert same_title_versions(docs, far, np.ones(3, bool)) == []              # no texts: no evidence
    logs = policies(kinds=["STATIC"] * 3, titles=["Texans changelog"] * 3, doc_types=[""] * 3)   # own moment
    assert same_title_versions(logs, far, np.ones(3, bool), texts=read) == []
    same_day = policies(kinds=["STATIC"] * 3, titles=["Who coaches the Texans"] * 3, created_us=[DAY] * 3)
    assert same_title_versions(same_day, far, np.ones(3, bool), texts=read) == []   # list items of one moment


def test_document_texts_join_the_chunks_of_the_rows_asked():
    chunk_doc = np.array([0, 1, 0, 2])
    texts = np.array(["a1", "b1", "a2", "c1"], dtype=object)
    assert document_texts([0, 2], chunk_doc, texts) == {0: "a1 a2", 2: "c1"}
    assert document_texts([5], chunk_doc, texts) == {}


def test_existing_paths_and_known_edges_give_no_new_supersession():
    docs = policies()
    pairs = [(0, 1, "e"), (1, 2, "e")]
    # v3 -> v1 already stored: v2 -> v1 still joins (no path between v1 and v2), v3 -> v2 does not
    # (v3 already reaches v1 ... but not v2); a rejected edge id is never re-proposed
    edges = plan_supersession(docs, pairs, [], np.array([2]), np.array([0]), set())
    assert [(e.src, e.dst) for e in edges] == [("v2", "v1"), ("v3", "v2")]
    rejected = {edges[0].edge_id}
    assert [(e.src, e.dst) for e in plan_supersession(docs, pairs, [], np.zeros(0), np.zeros(0), rejected)] == [
        ("v3", "v2")]
    cyclic = plan_supersession(docs, [(0, 1, "e")], [], np.array([0]), np.array([1]), set())
    assert cyclic == []    # v1 -> v2 stored: v2 -> v1 would close a cycle


def test_near_duplicates_supersede_the_older_one():
    docs = policies(titles=["", "", ""])
    edges = plan_supersession(docs, [], [(0, 2, 0.97)], np.zeros(0), np.zeros(0), set())
    assert [(e.src, e.dst) for e in edges] == [("v3", "v1")]
    assert edges[0].evidence.startswith("near-duplicate text (cosine 0.970), same source")


def test_apply_supersession_uses_the_one_chain_definition():
    docs = Documents.of(["a", "b", "c", "d"], created_us=[10, 20, 30, 40], valid_from_us=[NO_START, 25, NO_START, NO_START],
                        superseded_us=[NO_END, NO_END, 99, NO_END])
    sup = apply_supersession(docs, np.array([1, 2]), np.array([0, 1]), now_us=28)
    assert sup.superseded_us.tolist() == [25, 30, NO_END, NO_END]   # b's valid_from, then c's created
    assert sup.newly.tolist() == [0, 1] and sup.changed.tolist() == [0, 1, 2]   # c's stale 99 is cleared
    assert sup.superseded_now.tolist() == [True, False, False, False]
    assert sup.chain.tolist() == ["a", "a", "a", "d"]


# --- contradictions --------------------------------------------------------------------------
HIT = SimpleNamespace(kind="numeric", evidence="30 days vs 14 days", excerpt_a="30 days", excerpt_b="14 days")


def test_contradiction_between_live_documents_of_different_chains():
    docs = Documents.of(["refund", "forum", "old"], created_us=[50, 10, 5], authority=[0.9, 0.4, 0.9])
    chain = np.array(["refund", "forum", "old"], dtype=object)
    live = np.array([True, True, False])
    edges, events = plan_contradictions(docs, [(1, 0, HIT), (2, 0, HIT)], chain, live, set())
    assert [(e.src, e.dst, e.status) for e in edges] == [("refund", "forum", "open")]   # newer side is src
    assert edges[0].evidence == "numeric: 30 days vs 14 days | refund: '14 days' | forum: '30 days'"
    # the less trusted side only (0.4 against 0.9)
    assert [(e.doc_id, e.delta) for e in events] == [("forum", -0.05)]
    assert events[0].event_id == stable_id("contradiction", edges[0].edge_id, "forum")
    assert events[0].detail == {"edge_id": edges[0].edge_id, "other": "refund", "evidence": HIT.evidence,
                                "kind": "numeric"}


def test_contradiction_penalty_follows_trust_and_needs_the_same_time():
    docs = Documents.of(["a", "b"], created_us=[2, 1], authority=[0.8, 0.7])
    chain, live = np.array(["a", "b"], dtype=object), np.ones(2, bool)
    edges, events = plan_contradictions(docs, [(0, 1, HIT)], chain, live, set())
    assert len(edges) == 1 and events == []                        # within the margin: the operator decides
    edges, events = plan_contradictions(docs, [(0, 1, HIT)], chain, live, set(), trust=np.array([0.3, 0.7]))
    assert [e.doc_id for e in events] == ["a"]                      # live trust, not authority
    # validity windows that do not overlap: statements of different times, no contradiction
    apart = Documents.of(["a", "b"], created_us=[10, 1])
    assert plan_contradictions(apart, [(0, 1, HIT)], chain, live, set(),
                               until_us=np.array([np.iinfo(np.int64).max, 5])) == ([], [])


def test_supersession_settles_an_open_contradiction_by_an_appended_reversal():
    docs = Documents.of(["a", "b", "c", "d"], created_us=[2, 1, 3, 4])
    edges = pd.DataFrame([
        {"edge_id": "e1", "src": "a", "dst": "b", "edge_type": "CONTRADICTS", "origin": "inferred", "evidence": "x",
         "status": "open", "created_at": None},
        {"edge_id": "e2", "src": "c", "dst": "d", "edge_type": "CONTRADICTS", "origin": "inferred", "evidence": "y",
         "status": "open", "created_at": None}])
    events = pd.DataFrame({"doc_id": ["b", "d"], "event_type": ["CONTRADICTION", "CONTRADICTION"],
                           "delta": [-0.05, -0.05], "detail": ['{"edge_id": "e1"}', {"edge_id": "e2"}]})
    chain = np.array(["a", "a", "c", "d"], dtype=object)          # a now supersedes b: one chain
    rows, settled = plan_settlements(docs, edges, events, chain, np.array([True, False, True, True]))
    assert [(r["edge_id"], r["status"], r["evidence"]) for r in rows] == [("e1", "settled:superseded", "x")]
    assert [(e.doc_id, e.event_type.value, e.delta) for e in settled] == [("b", "CONTRADICTION_SETTLED", 0.05)]
    assert settled[0].event_id == stable_id("contradiction-settled", "e1", "b")
    assert settlement_events("e2", events, "resolved:keep_both")[0].detail == {"edge_id": "e2",
                                                                               "reason": "resolved:keep_both"}


def test_contradiction_in_one_chain_is_none_and_a_stored_edge_is_reused_either_way():
    docs = Documents.of(["a", "b"], created_us=[2, 1], authority=[0.9, 0.5])
    live = np.ones(2, bool)
    assert plan_contradictions(docs, [(0, 1, HIT)], np.array(["a", "a"], dtype=object), live, set()) == ([], [])
    chain = np.array(["a", "b"], dtype=object)
    first, _ = plan_contradictions(docs, [(0, 1, HIT)], chain, live, set())
    from smartvector_core.store import edge_id

    reverse = edge_id("b", "CONTRADICTS", "a")
    edges, events = plan_contradictions(docs, [(0, 1, HIT)], chain, live, {reverse})
    assert edges == [] and {e.detail["edge_id"] for e in events} == {reverse}
    edges, events = plan_contradictions(docs, [(0, 1, HIT)], chain, live, {first[0].edge_id})
    assert edges == [] and [e.doc_id for e in events] == ["b"]   # the less trusted side only


# --- dependencies ----------------------------------------------------------------------------
def test_citations_resolve_titles_to_the_newest_live_document():
    docs = Documents.of(["faq", "policy_v1", "policy_v2", "other"],
                        titles=["FAQ", "Rate limit policy", "Rate limit policy", "Rate limit policy"],
                        created_us=[1, 10, 20, 30])
    live = np.array([True, True, True, False])          # "other" (newest) is superseded
    chain = np.array(["faq", "policy_v1", "policy_v1", "other"], dtype=object)
    citations = {(0, "title", ("rate", "limit", "policy"), "text cites title 'rate limit policy'"),
                 (0, "id", 1, "text cites id 'policy_v1'"),
                 (2, "id", 1, "text cites id 'policy_v1'")}   # within one chain: not a dependency
    edges = plan_dependencies(docs, citations, chain, live, set())
    assert sorted((e.src, e.dst, e.evidence) for e in edges) == [
        ("faq", "policy_v1", "text cites id 'policy_v1'"),
        ("faq", "policy_v2", "text cites title 'rate limit policy'")]
    assert plan_dependencies(docs, citations, chain, live, {edges[0].edge_id, edges[1].edge_id}) == []


# --- ripple ----------------------------------------------------------------------------------
def test_ripple_hits_each_dependent_once_with_a_decaying_penalty_and_skips_the_archive():
    edges = pd.DataFrame({"src": ["dep1", "dep2", "gone"], "dst": ["base", "dep1", "base"],
                          "edge_type": ["DEPENDS_ON"] * 3})
    graph = ripple_graph(edges, {"base", "dep1", "dep2", "gone"})
    events = plan_ripple([("superseded:base", "base", "superseded"), ("edit:lonely:h", "lonely", "edited")],
                         graph, archived={"gone"})
    assert [(e.doc_id, e.delta, e.detail["hop"]) for e in events] == [("dep1", -0.10, 1), ("dep2", -0.05, 2)]
    assert events[0].event_id == stable_id("ripple", "superseded:base", "dep1")
    assert all(e.event_type == EventType.RIPPLE and e.detail["reason"] == "superseded" for e in events)


# --- lifecycle -------------------------------------------------------------------------------
def lifecycle_docs(ingested_days_ago, states, authority=0.7, doc_type="news", created_days_ago=None):
    n = len(states)
    created = [NOW - int(d * DAY) for d in (created_days_ago or ingested_days_ago)]
    return Documents.of([f"d{i}" for i in range(n)], states=states, doc_types=[doc_type] * n,
                        authority=[authority] * n, created_us=created,
                        ingested_us=[NOW - int(d * DAY) for d in ingested_days_ago])


def test_nothing_is_dormant_right_after_ingest_however_old_it_is():
    docs = lifecycle_docs([0, 0], ["UNCONSOLIDATED", "UNCONSOLIDATED"], authority=0.05,
                          created_days_ago=[4000, 30])
    moves = plan_moves(docs, EventAggregates.empty(docs.ids, NOW), np.zeros(2, bool), NOW)
    assert [(m.doc_id, m.to_state) for m in moves] == [("d0", Lifecycle.ACTIVE), ("d1", Lifecycle.ACTIVE)]


def test_what_nobody_asks_about_goes_dormant_counted_from_ingest():
    # news: H = 7 days; 0.7 * 2^(-40/7) = 0.0134 < 0.15 after 40 idle days; 0.7 * 2^(-10/7) = 0.26 after 10
    docs = lifecycle_docs([40, 10, 40], ["ACTIVE", "ACTIVE", "ACTIVE"])
    agg = EventAggregates.empty(docs.ids, NOW)
    agg.last_access_us[2] = NOW - 2 * DAY                  # d2 was read two days ago
    moves = plan_moves(docs, agg, np.zeros(3, bool), NOW)
    assert [(m.doc_id, m.to_state) for m in moves] == [("d0", Lifecycle.DORMANT)]
    assert moves[0].reason == "memory strength 0.013 < 0.15, no access for 40.0 days"
    # a new, long-unread document never moves U -> A -> D in one run: it was ingested now
    assert count_moves(plan_moves(lifecycle_docs([0], ["UNCONSOLIDATED"]), EventAggregates.empty(["d0"], NOW),
                                  np.zeros(1, bool), NOW)) == {"archived": 0, "dormant": 0, "activated": 1}


def test_superseded_goes_to_the_archive_and_moves_become_idempotent_events():
    docs = lifecycle_docs([1, 1], ["ACTIVE", "UNCONSOLIDATED"])
    moves = plan_moves(docs, EventAggregates.empty(docs.ids, NOW), np.array([True, False]), NOW)
    assert [(m.doc_id, m.to_state) for m in moves] == [("d0", Lifecycle.ARCHIVED), ("d1", Lifecycle.ACTIVE)]
    from smartvector_core.clock import from_us

    events = move_events(moves, {"d1": ("UNCONSOLIDATED", "ACTIVE")}, from_us(NOW))
    assert [(e.doc_id, e.detail["to"]) for e in events] == [("d0", "ARCHIVED")]   # d1's is already recorded
    assert events[0].event_id == move_events(moves, {}, from_us(NOW))[0].event_id
    assert move_events([Move("d0", Lifecycle.ACTIVE, Lifecycle.ARCHIVED, "x")], {}, from_us(NOW + 1))[0].event_id \
        != events[0].event_id
