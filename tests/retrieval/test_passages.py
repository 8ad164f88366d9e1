"""k means k passages (issue 14 item 1): up to k chunk-level passages grouped under their
document, at most ``per_document`` of one document; one version per chain; rejections, gates
and chains per document; ``--group-by document`` returns one per document."""

from __future__ import annotations

import json
from dataclasses import fields

import numpy as np
import pytest

from smartvector_core.errors import InputError
from smartvector_core.retrieval.candidates import (
    Candidates,
    Lexical,
    first_per_document,
    relevant_passages,
    select_passages,
)
from smartvector_core.retrieval.pipeline import QueryRequest
from smartvector_core.retrieval.profiles import DEFAULT

from ..conftest import NOW

PARAGRAPH = ("Refunds for annual plans are prorated by the day and paid back to the card used. "
             "A refund request needs the invoice number and the reason for the refund. ")


def test_select_passages_by_hand():
    docs = np.array(["a", "a", "b", "a", "a", "c"], dtype=object)
    order = np.arange(6)
    # the 5 best under a cap of 3 per document: a0 a1 b2 a3 c5 (a4 is a's fourth); grouped under a, b, c
    assert select_passages(docs, order, 5, 3).tolist() == [0, 1, 3, 2, 5]
    assert select_passages(docs, order, 5, 1).tolist() == [0, 2, 5]          # one per document
    assert select_passages(docs, order, 2, 3).tolist() == [0, 1]
    assert select_passages(docs, np.array([2, 0, 1]), 3, 3).tolist() == [2, 0, 1]   # b first: its passage ranks first
    assert select_passages(docs, np.zeros(0, dtype=np.intp), 5, 3).tolist() == []
    # a's second passage is not relevant enough to ride along: a0 a3 a4, b2, c5
    relevant = np.array([True, False, True, True, True, True])
    assert select_passages(docs, order, 5, 3, relevant).tolist() == [0, 3, 4, 2, 5]


def test_passages_held_back_fill_the_places_left_after_the_others():
    docs = np.array(["a", "a", "b", "a", "c"], dtype=object)
    order = np.arange(5)
    # a1 and a3 are not relevant enough to ride along with a0; the relevant ones are a0, b2, c4:
    # three of five places, so a1 then a3 fill the last two, after the better documents' passages
    relevant = np.array([True, False, True, False, True])
    assert select_passages(docs, order, 5, 3, relevant).tolist() == [0, 2, 4, 1, 3]
    # the cap still holds for the fillers: one per document leaves nothing to fill with
    assert select_passages(docs, order, 5, 1, relevant).tolist() == [0, 2, 4]
    # enough relevant passages: nothing is filled
    assert select_passages(docs, order, 3, 3, relevant).tolist() == [0, 2, 4]


def test_relevant_passages_by_hand():
    docs = np.array(["a", "a", "a", "b"], dtype=object)
    cos = np.array([0.50, 0.41, 0.39, 0.20])
    # >= 0.8 x the document's best (0.50 -> 0.40): a0, a1; b's only passage is its best
    assert relevant_passages(docs, cos).tolist() == [True, True, False, True]


def test_first_per_document_keeps_the_callers_order():
    docs = np.array(["a", "b", "a", "c", "b"], dtype=object)
    assert first_per_document(docs, np.array([4, 2, 0, 1, 3])).tolist() == [4, 2, 3]


def test_bad_group_by_is_one_clear_error():
    with pytest.raises(InputError, match="chunk, document"):
        QueryRequest("q", NOW, DEFAULT, group_by="paragraph")
    with pytest.raises(InputError, match="per-document"):
        QueryRequest("q", NOW, DEFAULT, per_document=0)


def _handbook(doc_id, **extra):
    text = "\n\n".join(f"Section {i}. " + PARAGRAPH * 5 for i in range(1, 6))   # five ~800-char chunks
    return {"id": doc_id, "title": "Refund handbook", "text": text, "created_at": "2025-01-01T00:00:00Z",
            "doc_type": "policy", **extra}


@pytest.fixture
def handbook_app(fake_app):
    fake_app.ingest_records([
        _handbook("handbook_v1", kind="VERSIONED", version="1"),
        {**_handbook("handbook_v2", kind="VERSIONED", version="2", supersedes=["handbook_v1"]),
         "created_at": "2025-06-01T00:00:00Z"},
        {"id": "billing_faq", "title": "Billing FAQ", "created_at": "2025-02-01T00:00:00Z", "doc_type": "policy",
         "text": "Refunds: a refund request needs the invoice number. Annual plans are prorated by the day."},
        {"id": "pricing", "title": "Pricing", "created_at": "2025-02-01T00:00:00Z", "doc_type": "policy",
         "text": "Annual plans cost ten months of the monthly price and renew each year."},
    ], now=NOW)
    assert len(set(fake_app.store.chunks_for_docs(["handbook_v2"]).column("chunk_id").to_pylist())) >= 4
    return fake_app


QUESTION = "How are refunds for annual plans paid back, and what does a refund request need?"


def test_several_passages_of_one_version_capped_per_document(handbook_app):
    resp = handbook_app.query(QUESTION, as_of=NOW, k=5, log=False)
    ids = [r.id for r in resp.results]
    assert len(resp.results) == 5                                   # k means k passages
    assert ids.count("handbook_v2") == 3                            # several chunks, capped at 3
    assert "handbook_v1" not in ids                                 # one version per chain
    handbook_chunks = [r.chunk_id for r in resp.results if r.id == "handbook_v2"]
    assert len(set(handbook_chunks)) == 3                           # chunk_id tells them apart
    first = ids.index("handbook_v2")
    assert ids[first:first + 3] == ["handbook_v2"] * 3              # grouped under their document
    assert [r.rank for r in resp.results] == [1, 2, 3, 4, 5]
    rejected = [x.id for x in resp.rejections]
    assert rejected.count("handbook_v1") == 1                       # rejections stay per document
    assert "handbook_v2" not in rejected


def test_per_document_cap_is_configurable(handbook_app):
    resp = handbook_app.query(QUESTION, as_of=NOW, k=5, log=False, per_document=2)
    assert [r.id for r in resp.results].count("handbook_v2") == 2


def test_group_by_document_returns_one_per_document(handbook_app):
    resp = handbook_app.query(QUESTION, as_of=NOW, k=5, log=False, group_by="document")
    ids = [r.id for r in resp.results]
    assert len(ids) == len(set(ids)) and "handbook_v2" in ids and "handbook_v1" not in ids


def test_naive_returns_passages_too(handbook_app):
    resp = handbook_app.query(QUESTION, as_of=NOW, k=5, profile="naive", log=False)
    ids = [r.id for r in resp.results]
    assert len(ids) == 5 and max(ids.count(d) for d in set(ids)) <= 3 and len(set(ids)) < 5


def test_cli_group_by(cli, tmp_path):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("\n".join(json.dumps(r) for r in [
        _handbook("handbook"),
        {"id": "billing_faq", "title": "Billing FAQ", "created_at": "2025-02-01T00:00:00Z",
         "text": "Refunds: a refund request needs the invoice number. Annual plans are prorated by the day."},
    ]), encoding="utf-8")
    assert cli("ingest", str(corpus))[0] == 0
    code, out, _ = cli("query", QUESTION, "--json", "--as-of", "2026-01-01")
    ids = [r["id"] for r in json.loads(out)["results"]]
    assert code == 0 and ids.count("handbook") == 3
    code, out, _ = cli("query", QUESTION, "--json", "--as-of", "2026-01-01", "--group-by", "document")
    ids = [r["id"] for r in json.loads(out)["results"]]
    assert code == 0 and sorted(ids) == ["billing_faq", "handbook"]
    with pytest.raises(SystemExit) as usage:                        # argparse: exit status 2
        cli("query", QUESTION, "--group-by", "paragraph")
    assert usage.value.code == 2


def test_an_empty_search_gives_zero_rows_in_every_column():
    for cands in (Candidates.empty(), Candidates.from_search(None, lexical=Lexical({}, {}))):
        assert len(cands) == 0
        for f in fields(cands):
            value = getattr(cands, f.name)
            assert value is None or len(value) == 0, f.name
        assert Candidates.from_search(None).lexical is None
        assert len(cands.lexical_signal()) == 0


def test_no_passages_no_relevance_flags():
    out = relevant_passages(np.zeros(0, dtype=object), np.zeros(0))
    assert out.dtype == bool and out.shape == (0,)
    assert relevant_passages(np.array(["a", "a", "b"], dtype=object), np.array([0.8, 0.3, 0.5])).tolist() == [
        True, False, True]
