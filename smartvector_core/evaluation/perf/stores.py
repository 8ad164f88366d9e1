"""The perf harness's inputs: synthetic vectors, texts, candidates, knowledge states, chunk rows,
the real-text store and ingest records (``python -m smartvector_core perf``, docs/PERF.md).

Where embedding would dominate and is not what is measured, rows carry random unit vectors
(or :func:`embedding_like_vectors`) written straight through :meth:`Store.add_chunks`. Every
store is dated before :func:`fixed_now`, the harness's one moment.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa

from ...clock import parse_time, to_us
from ...knowledge import KnowledgeState
from ...memory import KnowledgeGraph
from ...retrieval.candidates import KIND_CODE, NO_END, NO_START, Candidates
from ...service import SmartVector
from ...settings import cache_dir, load_settings
from ...store import chunks_schema

DIM = 384
QUESTIONS = [
    "What is the current API rate limit per key?",
    "How long are refunds accepted after purchase?",
    "Which regions does the outage notice cover?",
    "What did the 2024 security review recommend?",
    "How many paid seats does the team plan include?",
    "When does the maintenance window close?",
    "What changed in the latest billing policy?",
    "Who approves exceptions to the retention rule?",
]

DOC_TYPES = np.array(["policy", "news", "reference", "research", "legal", "general"], dtype=object)
KINDS = np.array(["STATIC", "VERSIONED", "EVENT"], dtype=object)
WORDS = ["api", "rate", "limit", "key", "request", "minute", "refund", "purchase", "region", "outage", "notice", "security", "review", "seat", "plan", "team", "billing", "policy", "retention", "rule", "exception", "window", "maintenance", "customer", "invoice", "account", "support", "release", "version", "upgrade", "storage", "latency", "error", "quota", "token", "server", "deploy", "backup", "audit", "contract", "renewal", "discount", "partner", "dashboard", "alert"]


def fixed_now() -> datetime:
    """The harness's one moment (stores are dated before it; queries ask at it)."""
    return datetime(2026, 1, 15, 12, 0, tzinfo=UTC)


def unit_vectors(n: int, rng: np.random.Generator, dim: int = DIM) -> np.ndarray:
    v = rng.standard_normal((n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def embedding_like_vectors(n: int, rng: np.random.Generator, dim: int = DIM, *, topics: int = 2_000,
                           noise: float = 0.6) -> np.ndarray:
    """Unit vectors with the neighbourhood structure of sentence embeddings: each is one of
    ``topics`` random directions plus Gaussian noise of norm ~``noise`` (top-1 neighbour cosine
    ~0.86, top-20 ~0.64, as paraphrases and related passages score with MiniLM). Used where the
    vector index is measured: random unit vectors have no near neighbours at all in 384
    dimensions, so no approximate index can find their top-20 and the recall figure would say
    nothing about real stores."""
    centres = unit_vectors(topics, rng, dim)
    v = centres[rng.integers(0, topics, n)] + rng.standard_normal((n, dim)).astype(np.float32) * (noise / np.sqrt(dim))
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


def synthetic_text(rng: np.random.Generator, words: int = 40) -> str:
    picked = rng.choice(len(WORDS), size=words)
    number = int(rng.integers(1, 1000))
    body = " ".join(WORDS[i] for i in picked)
    return f"The {body} is {number} per month. {body[:60].capitalize()} applies to every plan."



# ------------------------------------------------------------------ rerank inputs
def synthetic_candidates(n: int, *, seed: int = 0):
    """A 1,000-document candidate set with every field the reranker reads (random values)."""

    rng = np.random.default_rng(seed)
    as_of = fixed_now()
    now_us = to_us(as_of)
    ids = np.array([f"doc_{i:06d}" for i in range(n)], dtype=object)
    kinds = KINDS[rng.integers(0, 3, n)]
    created = now_us - rng.integers(0, 800, n) * 86_400_000_000
    valid_until = np.where(rng.random(n) < 0.3, created + rng.integers(1, 400, n) * 86_400_000_000, NO_END)
    titles = np.array([f"Topic {i % (n // 3 or 1)} guide" for i in range(n)], dtype=object)
    cands = Candidates(
        chunk_id=np.array([f"{d}#0" for d in ids], dtype=object), doc_id=ids,
        text=np.array([synthetic_text(rng, 20) for _ in range(n)], dtype=object), title=titles,
        source=np.array(["official"] * n, dtype=object), doc_type=DOC_TYPES[rng.integers(0, len(DOC_TYPES), n)],
        kind=np.array([KIND_CODE[k] for k in kinds], dtype=np.int8),
        kind_reason=np.array(["declared"] * n, dtype=object),
        version=np.array([f"v{i % 4 + 1}" for i in range(n)], dtype=object),
        lifecycle=np.array(["ACTIVE"] * n, dtype=object),
        supersedes=np.array([[] for _ in range(n)] + [None], dtype=object)[:n],
        depends_on=np.array([[] for _ in range(n)] + [None], dtype=object)[:n],
        raw_cosine=np.sort(rng.uniform(0.05, 0.9, n))[::-1].copy(), created_us=created.astype(np.int64),
        dated=rng.random(n) < 0.95, valid_from_us=np.full(n, NO_START, dtype=np.int64),
        valid_until_us=valid_until.astype(np.int64), superseded_us=np.full(n, NO_END, dtype=np.int64),
        authority=np.where(rng.random(n) < 0.5, rng.uniform(0.3, 1.0, n), np.nan))
    return cands, as_of


def synthetic_knowledge(cands, *, n_docs: int = 20_000, n_events: int = 50_000, seed: int = 0):
    """A :class:`KnowledgeState` over ``n_docs`` documents (the candidates among them) with
    ``n_events`` access / feedback / ripple events and a few supersedes / depends_on edges."""

    rng = np.random.default_rng(seed + 1)
    extra = np.array([f"other_{i:06d}" for i in range(max(0, n_docs - len(cands)))], dtype=object)
    ids = np.concatenate([cands.doc_id, extra])
    m = len(ids)
    created = pd.to_datetime(np.concatenate([cands.created_us, np.full(len(extra), cands.created_us.min())]),
                             unit="us", utc=True)
    docs = pa.table({"doc_id": pa.array(ids.tolist()), "created_at": pa.array(created),
                     "valid_from": pa.nulls(m, pa.timestamp("us", tz="UTC")),
                     "kind": pa.array(np.concatenate([KINDS[cands.kind], np.full(len(extra), "STATIC")]).tolist()),
                     "title": pa.array(np.concatenate([cands.title, extra]).tolist())})
    pairs = rng.integers(0, len(cands), (len(cands) // 5, 2))
    edges = pd.DataFrame({"src": ids[pairs[:, 0]], "dst": ids[pairs[:, 1]],
                          "edge_type": np.where(rng.random(len(pairs)) < 0.5, "SUPERSEDES", "DEPENDS_ON"),
                          "origin": "declared", "status": "", "evidence": "", "edge_id": np.arange(len(pairs)).astype(str)})
    edges = edges[edges["src"] != edges["dst"]].reset_index(drop=True)
    types = np.array(["ACCESS", "ACCESS", "ACCESS", "FEEDBACK_ACCEPT", "FEEDBACK_CORRECT", "RIPPLE", "INGEST"])
    t = rng.integers(0, 400, n_events) * 86_400_000_000
    events = pd.DataFrame({
        "doc_id": ids[rng.integers(0, m, n_events)], "event_type": types[rng.integers(0, len(types), n_events)],
        "at_us": (int(cands.created_us.max()) - t).astype(np.int64), "delta": rng.uniform(-0.1, 0.05, n_events),
        "query_id": "", "actor": "perf", "detail": ""})
    graph = KnowledgeGraph.from_edges(edges, ids.tolist())
    return KnowledgeState(events=events, edges=edges, graph=graph, docs=docs)


# ---------------------------------------------------------------------------- stores
def chunk_rows(n: int, *, seed: int = 0, start: int = 0, per_doc: int = 5, vectors: np.ndarray | None = None,
               texts: list[str] | None = None, lifecycle: str = "ACTIVE", titles: list[str] | None = None) -> pa.Table:
    """``n`` chunk rows (``per_doc`` per document) with random unit vectors unless given."""

    rng = np.random.default_rng(seed + start)
    idx = np.arange(start, start + n)
    now_us = int(fixed_now().timestamp() * 1_000_000)
    doc = idx // per_doc
    created = now_us - (doc * 7919 % 1000) * 86_400_000_000 - 3_600_000_000
    ts = pa.timestamp("us", tz="UTC")
    vec = unit_vectors(n, rng) if vectors is None else np.asarray(vectors, dtype=np.float32)
    if texts is None:
        pool = [synthetic_text(rng, 30) for _ in range(min(n, 500))]
        texts = [f"{pool[i % len(pool)]} Item {i}." for i in idx]
    ids = [f"doc_{d:07d}" for d in doc]
    kinds = KINDS[doc % 3]
    null_ts = pa.nulls(n, ts)
    cols = {
        "chunk_id": [f"{d}#{i % per_doc}" for d, i in zip(ids, idx, strict=True)], "doc_id": ids,
        "ordinal": pa.array(idx % per_doc, pa.int32()), "text": texts,
        "char_start": pa.array(np.zeros(n), pa.int32()), "char_end": pa.array([len(t) for t in texts], pa.int32()),
        "content_hash": [f"h{i:012d}" for i in idx],
        "vector": pa.FixedSizeListArray.from_arrays(pa.array(vec.reshape(-1)), vec.shape[1]),
        "title": titles if titles is not None else [f"Topic {d % 997}" for d in doc],
        "source": ["official"] * n, "created_at": pa.array(created, pa.int64()).cast(ts),
        "dated": pa.array(np.ones(n, bool)), "valid_from": null_ts,
        "valid_until": null_ts, "kind": kinds.tolist(), "kind_reason": ["declared"] * n,
        "doc_type": DOC_TYPES[doc % len(DOC_TYPES)].tolist(), "doc_type_reason": ["declared"] * n,
        "version": [f"v{d % 3 + 1}" for d in doc], "supersedes": pa.array([[]] * n, pa.list_(pa.string())),
        "depends_on": pa.array([[]] * n, pa.list_(pa.string())), "authority": pa.array(np.full(n, 0.8), pa.float32()),
        "metadata": ["{}"] * n, "lifecycle": [lifecycle] * n, "superseded_at": null_ts,
        "current": pa.array(np.ones(n, bool)), "ingested_at": pa.array(np.full(n, now_us), pa.int64()).cast(ts),
        "retired_at": null_ts, "doc_hash": [f"d{d}" for d in doc],
        "content_start_us": pa.array([[]] * n, pa.list_(pa.int64())),
        "content_end_us": pa.array([[]] * n, pa.list_(pa.int64())),
    }
    return pa.table({name: cols[name] for name in chunks_schema(vec.shape[1]).names}).cast(chunks_schema(vec.shape[1]))


def open_app(directory: str, embedder) -> SmartVector:
    """A service over the store in ``directory`` with ``embedder``, no environment read."""
    return SmartVector(load_settings(directory, env={}), embedder=embedder)


def fill(store, n: int, *, batch: int = 50_000, vectors: np.ndarray | None = None, **kwargs) -> None:
    for start in range(0, n, batch):
        part = None if vectors is None else vectors[start:start + batch]
        store.add_chunks(chunk_rows(min(batch, n - start), start=start, vectors=part, **kwargs))


REAL_SETS = ("flask-docs", "changelogs")   # data/real/: versioned docs pages and release notes
REAL_ROOT = Path(__file__).resolve().parents[3] / "data" / "real"


def real_store(embedder, *, sets: tuple[str, ...] = REAL_SETS, root: Path = REAL_ROOT,
               cache: Path | None = None, limit: int | None = None,
               vector_index: bool = False) -> tuple[Path, list[dict]]:
    """A store of real text: the corpora of ``sets`` (data/real/, engineer F's
    evaluation sets: long versioned documentation pages and changelog entries) ingested and
    consolidated as the CLI does, once, and their questions (each with its own ``as_of``);
    ``limit``: only the first ``limit`` documents and questions of each set (tests);
    ``vector_index``: with the IVF_HNSW_SQ vector index a store of 10k chunks or more gets
    (``Store.ensure_indexes``), built here whatever the size (the real-text stores of docs/PERF.md, 14k and 22k chunks,
    have one).

    Cached under ``$SMARTVECTOR_CACHE_DIR/perf-real-<fingerprint>`` (default
    ``~/.cache/smartvector``); the fingerprint covers the corpus files, the limit, the encoder
    and the chunk schema, so a change of any of them builds a fresh store. Returns (store
    directory, questions)."""

    digest = hashlib.sha256(f"{embedder.encoder_id}|{chunks_schema(embedder.dim)}|{limit}"
                            f"{'|vector-index' if vector_index else ''}".encode())
    records, questions = [], []
    for name in sets:
        corpus = (root / name / "corpus.jsonl").read_bytes()
        digest.update(corpus)
        records += [json.loads(line) for line in corpus.decode("utf-8").splitlines() if line.strip()][:limit]
        questions += [json.loads(line) for line in (root / name / "queries.jsonl").read_text(
            encoding="utf-8").splitlines() if line.strip()][:limit]
    directory = (cache or cache_dir()) / f"perf-real-{digest.hexdigest()[:16]}"
    if not (directory / "READY").is_file():
        shutil.rmtree(directory, ignore_errors=True)
        app = open_app(str(directory), embedder)
        app.ingest_records(records, now=max(parse_time(q["as_of"]) for q in questions))
        app.store.ensure_indexes(vector_min_rows=1 if vector_index else None)
        (directory / "READY").write_text(json.dumps({"sets": list(sets), "encoder": embedder.encoder_id}))
    return directory, questions



# ---------------------------------------------------------------------------- ingest
def synthetic_records(n_chunks: int, *, per_doc: int = 4, seed: int = 3, prefix: str = "ing") -> list[dict]:
    """Documents of ``per_doc`` distinct paragraphs (one chunk each), real English-like text."""
    rng = np.random.default_rng(seed)
    out = []
    for d in range(max(1, n_chunks // per_doc)):
        paragraphs = [f"Section {d}.{p}: {synthetic_text(rng, 30)}" for p in range(per_doc)]
        out.append({"id": f"{prefix}_{d:06d}", "title": f"{prefix} document {d}", "text": "\n\n".join(paragraphs),
                    "created_at": "2025-06-01T00:00:00Z", "doc_type": "policy", "kind": "STATIC",
                    "source": "official"})
    return out
