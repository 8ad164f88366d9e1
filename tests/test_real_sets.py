"""The real-text evaluation sets of ``data/real/`` load, validate and are labelled consistently
(issue 14, item 6): ids unique, every relevant/stale id in the corpus, relevant documents
existing at the question's ``as_of``, at least 60 hand-written questions per set."""

from datetime import UTC, datetime
from pathlib import Path

import pytest

from smartvector_core.clock import parse_time
from smartvector_core.ingest import read_records, validate_records
from smartvector_core.service import read_queries

REAL = Path(__file__).resolve().parents[1] / "data" / "real"
SETS = ("changelogs", "flask-docs", "django-docs", "django-releases")
QUERY_TYPES = {"current", "version_specific", "which_release", "between", "as_of_past", "dated_in_text"}


def load(name: str) -> tuple[list[dict], list[dict]]:
    corpus = read_records(REAL / name / "corpus.jsonl")
    queries = read_records(REAL / name / "queries.jsonl")     # plain JSON lines, same reader
    return corpus, queries


@pytest.mark.parametrize("name", SETS)
def test_corpus_validates_and_ids_are_unique(name):
    corpus, _ = load(name)
    ids = [r["id"] for r in corpus]
    assert len(ids) == len(set(ids))
    docs = validate_records([dict(r) for r in corpus], ingest_time=datetime(2026, 1, 1, tzinfo=UTC))
    assert len(docs) == len(corpus)
    assert all(d.dated and d.version for d in docs)                 # every document is dated and labelled
    known = set(ids)
    assert all(set(d.supersedes) <= known for d in docs)
    assert (REAL / name / "README.md").is_file()


@pytest.mark.parametrize("name", SETS)
def test_queries_are_labelled_with_existing_documents(name):
    corpus, queries = load(name)
    created = {r["id"]: parse_time(r["created_at"], field="created_at") for r in corpus}
    assert len(queries) >= 60
    qids = [q["id"] for q in queries]
    assert len(qids) == len(set(qids))
    for q in queries:
        assert q["text"].strip() and q["relevant"], q["id"]
        assert set(q["relevant"]) <= set(created), q["id"]
        assert set(q["stale"]) <= set(created), q["id"]
        assert not set(q["relevant"]) & set(q["stale"]), q["id"]
        as_of = parse_time(q["as_of"], field="as_of")
        assert all(created[d] <= as_of for d in q["relevant"] + q["stale"]), q["id"]
        assert q["type"] in QUERY_TYPES and q["split"] in ("tune", "test"), q["id"]
    tune = sum(q["split"] == "tune" for q in queries) / len(queries)
    assert 0.25 <= tune <= 0.40
    # every kind of question the issue asks for is there
    assert {"current", "version_specific", "which_release", "between"} <= {q["type"] for q in queries}


@pytest.mark.parametrize("name", SETS)
def test_queries_file_reads_as_the_cli_reads_it(name):
    specs = read_queries(REAL / name / "queries.jsonl", now=datetime(2026, 1, 1, tzinfo=UTC))
    assert len(specs) >= 60 and all(s.relevant for s in specs)
