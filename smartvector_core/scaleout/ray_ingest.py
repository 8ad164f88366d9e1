"""Distributed ingest on Ray: encoder actors encode, the driver chunks and commits (one writer).

``ingest --engine ray``::

    driver: validate every record (all-or-nothing), read the store's content hashes
    driver: prepare_documents (chunk, classify, fingerprint) slice by slice; each chunk text whose
            content hash is neither in the store nor seen before joins a buffer
    actors: one EncodeActor per worker CPU (model loaded once); the buffer goes out in batches of
            ENCODE_BATCH texts, IN_FLIGHT calls queued per actor, results taken with ray.wait as
            they finish (encoding overlaps the driver's chunking and the next batch's transfer)
    driver: ingest_documents(..., vectors={hash: vector}, prepared=...) -> the local engine's
            row building and commits (DOC_BATCH documents per commit)

Parsing and validation stay on the driver, and nothing is written when any record is bad.
Content-hash reuse is the local rule: hashes already in the store are never sent. The driver
builds every row with the same code as the local engine from the same ``prepared`` documents,
so the two engines write identical rows (vectors to float32 rounding where ONNX Runtime batches
differently). A batch of texts is one remote call returning one float32 array: per-call costs
(task dispatch, pickling, object-store copies) are paid per thousands of chunks, not per chunk
(the Ray Data version it replaces spent 21 s on 2,000 chunks, docs/SCALING.md).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from ..config import DEFAULT_MODEL_NAME, EMBEDDING_DIM
from ..embedding import check_encoder, claim_encoder, embed_backend, embed_threads, encoder_id_for
from ..errors import SmartVectorError
from ..ingest import IngestReport, ingest_documents, validate_records
from ..ingest.pipeline import DOC_BATCH, Prepared, prepare_documents
from ..models import Document
from .encode_actor import EncodeActor

REPO_ROOT = Path(__file__).resolve().parent.parent.parent
ENCODE_BATCH = 2048    # texts per actor call (~0.6 MB of text out, 3 MB of vectors back at 384-d)
IN_FLIGHT = 2          # calls queued per actor: one encoding, the next one already transferred


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


def ensure_ray(num_cpus: int | None = None) -> None:
    """Join the running Ray cluster, or start a local one (workers import this repository)."""
    import ray

    if ray.is_initialized():
        return
    path = os.pathsep.join(p for p in (str(REPO_ROOT), os.environ.get("PYTHONPATH", "")) if p)
    ray.init(address=os.environ.get("RAY_ADDRESS"), num_cpus=num_cpus, include_dashboard=False,
             log_to_driver=False, runtime_env={"env_vars": {"PYTHONPATH": path}})


class EncoderPool:
    """``size`` encoder actors fed from a buffer of (content hash, text), batch by batch.

    :meth:`add` buffers and dispatches whole batches to actors with a free slot (at most
    ``IN_FLIGHT`` calls per actor) without blocking; :meth:`finish` sends the rest, split
    evenly over the actors, waits for every result and ends the actors. Vectors come back as
    one float32 array per batch and are copied into one matrix (the object store is freed).
    """

    def __init__(self, model_name: str, size: int, *, batch: int = ENCODE_BATCH) -> None:
        import ray

        self._ray = ray
        self.model_name, self.batch = model_name, max(1, batch)
        env = {"SMARTVECTOR_EMBED_BACKEND": embed_backend(), "SMARTVECTOR_EMBED_THREADS": str(embed_threads() or 1)}
        remote = ray.remote(num_cpus=1)(EncodeActor)
        self.actors = [remote.remote(model_name, env) for _ in range(max(1, size))]
        self._ids = [a.encoder_id.remote() for a in self.actors]   # runs after the model loads
        self._load = [0] * len(self.actors)
        self._inflight: dict[Any, tuple[int, list[str], float]] = {}
        self._hashes: list[str] = []
        self._texts: list[str] = []
        self._done_hashes: list[str] = []
        self._done: list[np.ndarray] = []
        self.stats: dict[str, Any] = {"actors": len(self.actors), "batches": 0, "texts": 0,
                                      "actor_encode_s": 0.0, "call_s": 0.0}

    def add(self, content_hash: str, text: str) -> None:
        self._hashes.append(content_hash)
        self._texts.append(text)
        if len(self._texts) >= self.batch:
            self._collect(block=False)
            self._dispatch(self.batch)

    def _dispatch(self, size: int, *, final: bool = False) -> None:
        """Batches of ``size`` texts to actors with a free slot (``final``: the last one shorter)."""
        while self._texts and (final or len(self._texts) >= size):
            free = [i for i, n in enumerate(self._load) if n < IN_FLIGHT]
            if not free:
                return
            i = min(free, key=self._load.__getitem__)
            hashes, texts = self._hashes[:size], self._texts[:size]
            del self._hashes[:size], self._texts[:size]
            self._inflight[self.actors[i].encode.remote(texts)] = (i, hashes, time.perf_counter())
            self._load[i] += 1
            self.stats["batches"] += 1

    def _collect(self, block: bool) -> None:
        if not self._inflight:
            return
        ready, _ = self._ray.wait(list(self._inflight), num_returns=1, timeout=None if block else 0)
        for ref in ready:
            i, hashes, sent = self._inflight.pop(ref)
            vectors, seconds = self._ray.get(ref)
            self._load[i] -= 1
            self._done_hashes.extend(hashes)
            self._done.append(np.array(vectors, dtype=np.float32))      # a copy: frees the object
            self.stats["actor_encode_s"] += seconds
            self.stats["call_s"] += time.perf_counter() - sent

    def finish(self) -> dict[str, np.ndarray]:
        """Every buffered text's vector, by content hash."""
        try:
            while self._texts or self._inflight:
                # the tail in equal parts, one per actor (a small call leaves none idle, and
                # no actor is left with a whole batch while the others are done)
                size = max(1, min(self.batch, math.ceil(len(self._texts) / len(self.actors))))
                self._dispatch(size, final=True)
                self._collect(block=True)
            ids = set(self._ray.get(self._ids))
            expected = encoder_id_for(self.model_name)
            if ids != {expected}:
                raise SmartVectorError(f"Ray encoder actors encode with {sorted(map(str, ids))}, the driver "
                                       f"records {expected!r}: set the same SMARTVECTOR_EMBED_BACKEND on every node")
        finally:
            self.close()
        matrix = np.concatenate(self._done) if self._done else np.zeros((0, 0), dtype=np.float32)
        self.stats["texts"] = len(self._done_hashes)
        return dict(zip(self._done_hashes, matrix, strict=True))

    def close(self) -> None:
        for actor in self.actors:
            self._ray.kill(actor)
        self.actors = []


def embed_with_ray(docs: Sequence[Document], model_name: str, known: Iterable[str], *,
                   prepared: Mapping[str, Prepared] | None = None, actors: int | None = None,
                   batch: int = ENCODE_BATCH,
                   stats: dict | None = None) -> tuple[dict[str, np.ndarray], dict[str, Prepared]]:
    """Vectors of every chunk text of ``docs`` whose content hash is not in ``known``, and the
    prepared documents (computed here slice by slice, while the actors encode, unless given).

    ``stats`` (optional) receives the timings: ``prepare_s`` (driver, chunking and classifying,
    overlapped with encoding), ``drain_s`` (driver waiting for the last vectors),
    ``actor_encode_s`` (summed over actors), ``call_s`` (summed round trips of the calls).
    """
    import ray

    ensure_ray()
    if not docs:
        return {}, dict(prepared or {})
    cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
    pool = EncoderPool(model_name, actors or cpus, batch=batch)
    try:
        seen = set(known)
        out: dict[str, Prepared] = {}
        t0 = time.perf_counter()
        for start in range(0, len(docs), DOC_BATCH):
            part = docs[start:start + DOC_BATCH]
            done = prepare_documents(part) if prepared is None else {d.id: prepared[d.id] for d in part}
            out.update(done)
            for doc in part:
                for chunk in done[doc.id].chunks:
                    if chunk.content_hash not in seen:
                        seen.add(chunk.content_hash)
                        pool.add(chunk.content_hash, chunk.text)
        t1 = time.perf_counter()
        vectors = pool.finish()
    finally:
        pool.close()
    if stats is not None:
        stats.update(pool.stats, prepare_s=round(t1 - t0, 3), drain_s=round(time.perf_counter() - t1, 3))
    return vectors, out


def ingest_documents_ray(store, docs: Sequence[Document], *, model_name: str, now: datetime,
                         embedder=None, progress: Callable[[int, int], None] | None = None,
                         actor: str = "cli", actors: int | None = None, batch: int = ENCODE_BATCH,
                         stats: dict | None = None) -> IngestReport:
    """The Ray engine: embed on the cluster, then one writer commits with the local row logic
    (a store of another encoder is refused before the cluster encodes anything; the encoder is
    recorded in a new store only once every document is prepared, as in the local engine).

    ``stats`` (optional): :func:`embed_with_ray`'s timings plus ``write_s`` (the driver's row
    building, commits and index upkeep)."""
    encoder_id = encoder_id_for(model_name)
    if docs:
        check_encoder(store.encoder(), encoder_id, store.uri)
    vectors, prepared = embed_with_ray(docs, model_name, store.content_hashes(), actors=actors, batch=batch,
                                       stats=stats)
    if docs:
        claim_encoder(store, encoder_id)
    t0 = time.perf_counter()
    report = ingest_documents(store, embedder or LazyEmbedder(model_name), docs, now=now,
                              progress=progress, actor=actor, vectors=vectors, prepared=prepared)
    if stats is not None:
        stats["write_s"] = round(time.perf_counter() - t0, 3)
    return report


def ingest_paths_ray(app, paths: Iterable[str | Path], *, now: datetime,
                     progress: Callable[[int, int], None] | None = None, actor: str = "cli",
                     consolidate: bool = True) -> IngestReport:
    """``SmartVector.ingest_paths`` with the Ray engine (the driver never loads the model unless needed)."""
    docs = validate_records(app.load_records(paths), ingest_time=now)
    embedder = app.share_embedder(lambda: LazyEmbedder(app.settings.model_name))   # only the dimension here
    report = ingest_documents_ray(app.store, docs, model_name=app.settings.model_name, now=now,
                                  embedder=embedder, progress=progress, actor=actor)
    report.consolidation = (app.consolidate(now=now) if consolidate and (report.added or report.updated)
                            else None)
    return report
