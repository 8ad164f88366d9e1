"""Version chains over the whole store: SUPERSEDES edges, declared or inferred by consolidation
(same-title versions of like authority with overlapping, changed content)."""

from __future__ import annotations

from .conftest import NOW


def _doc(doc_id, created, authority, title="Refund policy"):
    return {"id": doc_id, "title": title, "text": f"{doc_id}: refunds within some days.", "kind": "VERSIONED",
            "doc_type": "policy", "created_at": created, "authority": authority}


def test_same_title_versions_chain_but_a_low_authority_namesake_does_not(fake_app):
    fake_app.ingest_records([
        _doc("official_2024", "2024-01-01", 0.9), _doc("official_2025", "2025-01-01", 0.85),
        _doc("forum_2026", "2026-01-01", 0.25), _doc("other", "2026-02-01", 0.9, title="Shipping policy"),
    ], now=NOW, consolidate=False)
    index = fake_app.knowledge.get().doc_index()
    # only edges make chains: before consolidation has found evidence, a shared title is not one
    assert len(set(index.chain.tolist())) == 4
    fake_app.consolidate(now=NOW)
    index = fake_app.knowledge.get().doc_index()
    chain = dict(zip(index.ids, index.chain, strict=True))
    superseded = dict(zip(index.ids, index.superseded_us, strict=True))
    assert chain["official_2024"] == chain["official_2025"]
    assert chain["forum_2026"] != chain["official_2024"] and chain["other"] != chain["official_2024"]
    never = max(superseded.values())
    assert superseded["official_2024"] < never          # replaced by official_2025
    assert superseded["official_2025"] == never          # the forum post does not replace it


def test_consolidation_does_not_infer_a_version_from_a_low_authority_namesake(fake_app):
    fake_app.ingest_records([
        _doc("official_2024", "2024-01-01", 0.9), _doc("official_2025", "2025-01-01", 0.85),
        _doc("forum_2026", "2026-01-01", 0.25),
    ], now=NOW, consolidate=False)
    fake_app.consolidate(now=NOW)
    edges = fake_app.edges_frame()
    sup = edges[edges["edge_type"] == "SUPERSEDES"]
    assert set(zip(sup["src"], sup["dst"], strict=True)) == {("official_2025", "official_2024")}


def test_a_newer_answer_with_a_changed_value_replaces_the_older_one(fake_app):
    """Same title, newer, the same statement with a different name: consolidation infers the chain
    (no ``supersedes`` declared) and the edge's evidence shows the inference; the question asked now
    gets the newer answer."""
    title = "who coaches the houston texans"
    fake_app.ingest_records([
        {"id": "coach:prev", "title": title, "text": "Who coaches the houston texans? Bill O'Brien.",
         "created_at": "2014-01-01T00:00:00Z", "doc_type": "reference"},
        {"id": "coach:cur", "title": title, "text": "Who coaches the houston texans? David Culley.",
         "created_at": "2021-01-01T00:00:00Z", "doc_type": "reference"},
    ], now=NOW, consolidate=False)
    fake_app.consolidate(now=NOW)
    edges = fake_app.edges_frame()
    sup = edges[edges["edge_type"] == "SUPERSEDES"]
    assert list(zip(sup["src"], sup["dst"], strict=True)) == [("coach:cur", "coach:prev")]
    assert "different name ('Bill O ' Brien' -> 'David Culley')" in sup["evidence"].iloc[0]
    top = fake_app.query("who coaches the houston texans", as_of=NOW, k=2).results[0]
    assert top.id == "coach:cur"
