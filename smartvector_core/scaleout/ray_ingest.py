"""Distributed ingest on Ray Data: chunk and embed on a cluster, commit from one writer.

Stages (``ingest --engine ray``)::

    from_items(doc id, text) --map_batches(chunk_batch, tasks)--> (content_hash, text), known hashes dropped
                             --map_batches(EncodeActor, actor pool: one model per actor)--> (content_hash, vector)
    driver: ingest_documents(..., vectors={hash: vector}) -> merge_insert in DOC_BATCH commits, one writer

Parsing and validation stay on the driver (all-or-nothing: nothing is written when any record is
bad). Content-hash reuse is the local rule: hashes already in the store are filtered out before
the embedding stage, and the driver builds every row with the same code as the local engine, so
the two engines write identical rows.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from ..config import DEFAULT_MODEL_NAME, EMBEDDING_DIM
from ..embedding import claim_encoder, encoder_id_for
from ..ingest import IngestReport, ingest_documents, validate_records
from ..ingest.chunking import chunk_document
from ..models import Document

REPO_ROOT = Path(__file__).resolve().parent.parent.parent
CHUNK_BATCH = 64
ENCODE_BATCH = 256


def model_dim(model_name: str) -> int:
    """The vector size of ``model_name`` without loading it (hashing-<dim> or MiniLM)."""
    if model_name.startswith("hashing"):
        dim = model_name.partition("-")[2]
        return int(dim) if dim.isdigit() else EMBEDDING_DIM
    if model_name.split("/")[-1].lower() == DEFAULT_MODEL_NAME.lower():
        return EMBEDDING_DIM
    from ..embedding import get_embedder

    return get_embedder(model_name).dim


class LazyEmbedder:
    """Stands in for the driver's model: loaded only if something is left to encode there."""

    def __init__(self, model_name: str) -> None:
        self.name = model_name
        self.encoder_id = encoder_id_for(model_name)
        self.dim = model_dim(model_name)

    def encode(self, texts: Sequence[str], **kwargs: Any) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        from ..embedding import get_embedder

        return get_embedder(self.name).encode(texts, **kwargs)


def chunk_batch(batch: dict[str, np.ndarray], known: frozenset[str]) -> dict[str, np.ndarray]:
    """Ray stage 1 (tasks): documents -> (content_hash, text) of chunks whose hash is new."""
    hashes: list[str] = []
    texts: list[str] = []
    seen: set[str] = set()
    for doc_id, text in zip(batch["doc_id"], batch["text"], strict=True):
        for chunk in chunk_document(str(doc_id), str(text)):
            if chunk.content_hash not in known and chunk.content_hash not in seen:
                seen.add(chunk.content_hash)
                hashes.append(chunk.content_hash)
                texts.append(chunk.text)
    return {"content_hash": np.asarray(hashes, dtype=object), "text": np.asarray(texts, dtype=object)}


class EncodeActor:
    """Ray stage 2 (actor pool): the model is loaded once per actor, then encodes batches."""

    def __init__(self, model_name: str, threads: int = 1) -> None:
        os.environ.setdefault("SMARTVECTOR_EMBED_THREADS", str(threads))
        from ..embedding import get_embedder

        self.embedder = get_embedder(model_name)

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        texts = [str(t) for t in batch["text"]]
        vectors = np.asarray(self.embedder.encode(texts), dtype=np.float32).reshape(len(texts), self.embedder.dim)
        return {"content_hash": np.asarray(batch["content_hash"], dtype=object), "vector": vectors}


def ensure_ray(num_cpus: int | None = None) -> None:
    """Join the running Ray cluster, or start a local one (workers import this repository)."""
    import ray

    if ray.is_initialized():
        return
    path = os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH", "")) if p)
    ray.init(address=os.environ.get("RAY_ADDRESS"), num_cpus=num_cpus, include_dashboard=False,
             log_to_driver=False, runtime_env={"env_vars": {"PYTHONPATH": path}})


def embed_with_ray(docs: Sequence[Document], model_name: str, known: Iterable[str], *,
                   actors: int | None = None, chunk_batch_docs: int = CHUNK_BATCH,
                   encode_batch: int = ENCODE_BATCH) -> dict[str, np.ndarray]:
    """Vectors of every chunk text of ``docs`` whose content hash is not in ``known``."""
    import ray
    from ray.data import ActorPoolStrategy, TaskPoolStrategy

    ensure_ray()
    if not docs:
        return {}
    cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
    actors = actors or cpus
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    ds = ray.data.from_items([{"doc_id": d.id, "text": d.text} for d in docs],
                             override_num_blocks=min(len(docs), max(cpus, min(len(docs) // chunk_batch_docs, 4 * cpus))))
    ds = ds.map_batches(chunk_batch, fn_kwargs={"known": frozenset(known)}, batch_size=chunk_batch_docs,
                        batch_format="numpy", compute=TaskPoolStrategy(size=cpus))
    ds = ds.map_batches(EncodeActor, fn_constructor_kwargs={"model_name": model_name},
                        batch_size=encode_batch, batch_format="numpy",
                        compute=ActorPoolStrategy(size=actors), num_cpus=1)
    vectors: dict[str, np.ndarray] = {}
    for batch in ds.iter_batches(batch_size=4096, batch_format="numpy"):
        for h, v in zip(batch["content_hash"], batch["vector"], strict=True):
            vectors.setdefault(str(h), np.asarray(v, dtype=np.float32))
    return vectors


def ingest_documents_ray(store, docs: Sequence[Document], *, model_name: str, now: datetime,
                         embedder=None, progress: Callable[[int, int], None] | None = None,
                         actor: str = "cli", actors: int | None = None) -> IngestReport:
    """The Ray engine: embed on the cluster, then one writer commits with the local row logic
    (a store of another encoder is refused before the cluster encodes anything)."""
    if docs:
        claim_encoder(store, encoder_id_for(model_name))
    vectors = embed_with_ray(docs, model_name, store.content_hashes(), actors=actors)
    return ingest_documents(store, embedder or LazyEmbedder(model_name), docs, now=now,
                            progress=progress, actor=actor, vectors=vectors)


def ingest_paths_ray(app, paths: Iterable[str | Path], *, now: datetime,
                     progress: Callable[[int, int], None] | None = None, actor: str = "cli",
                     consolidate: bool = True) -> IngestReport:
    """``SmartVector.ingest_paths`` with the Ray engine (the driver never loads the model unless needed)."""
    docs = validate_records(app.load_records(paths), ingest_time=now)
    if app._embedder is None:  # opening the store needs only the dimension
        app._embedder = LazyEmbedder(app.settings.model_name)
    report = ingest_documents_ray(app.store, docs, model_name=app.settings.model_name, now=now,
                                  embedder=app.embedder, progress=progress, actor=actor)
    report.consolidation = (app.consolidate(now=now) if consolidate and (report.added or report.updated)
                            else None)
    return report
