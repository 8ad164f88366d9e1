"""Run a benchmark: ingest a corpus into a temporary store, answer labelled queries, score them.

:func:`run_bench` is what ``bench --corpus C --queries Q`` and ``bench --suite paper`` call.
Choices (documented here, tested in ``tests/evaluation/test_runner.py``):

- **Live, and time comes from the data.** The benchmark runs what an operator runs: ``ingest``
  (which consolidates what it added), ``consolidate``, then ``query --batch``. Ingest and
  consolidation happen at one moment taken from the data, never the wall clock, so two runs give
  identical numbers; each query is answered at its own ``as_of``. In ``live`` mode (default)
  that moment is right after the corpus (its latest ``created_at``), as an operator ingests a
  finished corpus and then asks, some questions about the past (``--as-of``): a question dated
  before the ingest is judged from the event history at its ``as_of`` (what existed, what was
  valid and what had been superseded then), not from the ingest moment. In ``backdated`` mode
  (the earlier benchmark) it is the latest moment in the data (max of the queries' ``as_of``
  and the corpus' ``created_at``), so every question is dated before the consolidation. See
  :func:`ingest_moment`; ``tests/evaluation/test_live_bench.py`` checks that ``live`` gives,
  result by result, what ingest -> consolidate -> ``query --batch`` gives, past-dated questions
  included.
- **Queries do not teach the store.** Queries are answered with ``log=False``: no query-log rows
  and no ACCESS events, so answering one query never raises the confidence of a document for a
  later one, and the order of queries and profiles does not matter.
- **The query path itself.** The questions are embedded in one batch (as ``query --batch`` does);
  every registered profile answers through :meth:`SmartVector.query` (``log=False``, one
  knowledge snapshot), so the numbers are those of ``query --batch --json``. Variants (ablations,
  the weight sweep) rerank each query's cached candidate pool (:func:`retrieval.search.retrieve`
  with the question's text, as the query path fetches it) with :func:`retrieval.pipeline.answer`.
- **Baselines** (same store, same candidate pool or LanceDB's full-text index), each returning
  up to k passages (chunks), at most ``PASSAGES_PER_DOCUMENT`` of one document, as the profiles
  do, and reporting a *confidence* so ECE is defined:

  ==================  ==================================================================  ==========================================
  name                ranking                                                             confidence of a result
  ==================  ==================================================================  ==========================================
  ``naive``           cosine similarity (the ``naive`` profile)                           the cosine, clipped to [0, 1]
  ``bm25``            LanceDB native full-text search (BM25) over chunk texts              its share of the top-k BM25 mass, s / Σ s
  ``hybrid``          RRF (k = 60) of the vector and the BM25 rankings of chunks           RRF score / its maximum 2/(60 + 1)
  ``langchain``       similarity + (1 − 0.01)^hours (LangChain time-weighted retriever)    the combined score clipped to [0, 1]
  ``llamaindex_fixed``  the k most similar, newest first (LlamaIndex FixedRecency)         the cosine of that result
  ``llamaindex_time``   similarity + (1 − 0.99)^hours (LlamaIndex TimeWeighted)            the combined score clipped to [0, 1]
  ==================  ==================================================================  ==========================================

  LangChain and LlamaIndex measure hours since a document was last *accessed*; the benchmark
  simulates no access history, so both get hours since ``created_at`` at the query's ``as_of``
  (LangChain sets ``last_accessed_at`` to the creation time on insert, so this is what it
  would see on a first retrieval). None of the baselines knows about validity windows or
  versions; they only ever see documents that existed at ``as_of`` (the store's prefilter).
- **Variants** of a profile (ablations, weight sweep) keep their base profile's ``name``, so
  they use the base profile's calibration knots; they are reported under their own label.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from ...clock import parse_time, to_us
from ...errors import InputError
from ...retrieval.candidates import PASSAGES_PER_DOCUMENT, Candidates, select_passages
from ...retrieval.pipeline import QueryRequest, answer
from ...retrieval.profiles import PROFILES, Profile, get_profile
from ...retrieval.search import retrieve
from ...service import SmartVector
from ...settings import load_settings
from .baselines import (
    LANGCHAIN_DECAY_RATE,
    LLAMAINDEX_TIME_DECAY,
    RRF_K,
    fixed_recency,
    langchain_time_weighted,
    llamaindex_time_weighted,
    rrf_fuse,
)
from .metrics import evaluate

BASELINES = ("bm25", "hybrid", "langchain", "llamaindex_fixed", "llamaindex_time")
DEFAULT_PROFILES = ("naive", "temporal", "smartvector", "default")
ALL_PROFILES = tuple(PROFILES) + BASELINES
US_PER_HOUR = 3_600_000_000
FTS_POOL = 60                     # BM25 hits fetched per query (chunks), as the vector pool


@dataclass
class BenchQuery:
    """A labelled query, normalised from a :class:`service.QuerySpec` or a query record."""

    id: str
    text: str
    as_of: datetime
    relevant: list[str]
    stale: list[str]
    type: str | None = None
    split: str | None = None
    answers: list[str] = field(default_factory=list)   # answer strings (``answers``, or one ``answer``)

    def label(self) -> dict[str, Any]:
        return {"id": self.id, "relevant": self.relevant, "stale": self.stale, "type": self.type,
                "answers": self.answers}


def normalise_queries(specs: Sequence[Any]) -> list[BenchQuery]:
    """QuerySpec objects (``service.read_queries``) or CONTRACT query dicts -> :class:`BenchQuery`."""
    out: list[BenchQuery] = []
    for i, spec in enumerate(specs, start=1):
        if isinstance(spec, Mapping):
            extra = spec
            qid, text, as_of = spec.get("id") or f"q{i}", spec.get("text"), spec.get("as_of")
            relevant, stale = spec.get("relevant") or [], spec.get("stale") or []
        else:
            extra = getattr(spec, "extra", {}) or {}
            qid, text, as_of, relevant, stale = spec.id, spec.text, spec.as_of, spec.relevant, spec.stale
        if not isinstance(text, str) or not text.strip():
            raise InputError(f"query {qid!r} has no text", field="text")
        if as_of is None:
            raise InputError(f"query {qid!r} has no as_of: give one (the benchmark never reads the clock)",
                             field="as_of")
        moment = as_of if isinstance(as_of, datetime) else parse_time(as_of, field="as_of")
        out.append(BenchQuery(str(qid), text.strip(), moment, list(relevant), list(stale),
                              extra.get("type"), extra.get("split"), answer_strings(extra, str(qid))))
    return out


def answer_strings(record: Mapping[str, Any], qid: str) -> list[str]:
    """A query's answer strings: its ``answers`` (a list of strings) or its one ``answer``."""
    value = record.get("answers", record.get("answer"))
    if value is None:
        return []
    values = [value] if isinstance(value, str) else value
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise InputError(f"query {qid!r}: answers must be a string or a list of strings", field="answers")
    return [v for v in values if v.strip()]


def data_now(corpus: Sequence[Mapping[str, Any]], queries: Sequence[BenchQuery]) -> datetime | None:
    """The latest moment in the data: max of the queries' ``as_of`` and the corpus' ``created_at``
    (unparsable times are skipped here; validation reports them). None if the data has no time."""
    moments = [q.as_of for q in queries]
    for record in corpus:
        value = record.get("created_at")
        if value in (None, ""):
            continue
        try:
            moments.append(parse_time(value, field="created_at"))
        except InputError:
            continue
    return max(moments) if moments else None


@dataclass
class BenchResult:
    """Metrics per profile (CONTRACT.md ``bench --json``) plus run parameters and extras."""

    profiles: dict[str, dict[str, Any]]
    params: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    runs: dict[str, dict[str, list[dict[str, Any]]]] = field(default_factory=dict, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {"profiles": self.profiles, "params": self.params, "timings_s": self.timings}


class TimedEmbedder:
    """Wraps an embedder: memoises vectors by text and counts encoder calls and seconds.

    Memoising lets a benchmark that builds several stores from overlapping corpora (the
    contradiction sweep, the no-consolidation ablation) embed each text once.
    """

    def __init__(self, embedder, *, memo: bool = True) -> None:
        self.inner = embedder
        self.name = embedder.name
        self.encoder_id = embedder.encoder_id
        self.dim = embedder.dim
        self.memo: dict[str, np.ndarray] | None = {} if memo else None
        self.texts_encoded = 0
        self.seconds = 0.0

    def encode(self, texts: Sequence[str], **kwargs) -> np.ndarray:
        texts = list(texts)
        if self.memo is None:
            return self._encode(texts, **kwargs)
        missing = list(dict.fromkeys(t for t in texts if t not in self.memo))
        if missing:
            for text, vector in zip(missing, self._encode(missing, **kwargs), strict=True):
                self.memo[text] = vector
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self.memo[t] for t in texts]).astype(np.float32, copy=False)

    def _encode(self, texts: list[str], **kwargs) -> np.ndarray:
        t0 = time.perf_counter()
        vectors = self.inner.encode(texts, **kwargs)
        self.seconds += time.perf_counter() - t0
        self.texts_encoded += len(texts)
        return vectors


class PreparedBench:
    """A corpus ingested into a temporary store, with each query embedded and retrieved once."""

    def __init__(self, app, queries: list[BenchQuery], *, k: int, now: datetime, mode: str = "live") -> None:
        self.app = app
        self.queries = queries
        self.k = k
        self.now = now              # when the corpus was ingested and consolidated
        self.mode = mode
        self.knowledge = app.knowledge.get()
        self.cache = app.query_caches.get(self.knowledge)
        # one batched encoder call, as ``query --batch`` does (same vectors, same scores)
        self.vectors = app.embedder.encode([q.text for q in queries]) if queries else []
        self.candidates: list[Candidates] = [
            retrieve(app.store, vector, q.as_of, k, self.cache, text=q.text, config=app.config.search)
            for q, vector in zip(queries, self.vectors, strict=True)]
        self._fts: list[list[tuple[str, str, float]]] | None = None
        self._texts: dict[str, str] = {}   # chunk id -> text, of the full-text hits (the baselines' passages)

    # ------------------------------------------------------------------------- profiles
    def answer_profile(self, profile: Profile | str, queries: Sequence[int] | None = None
                       ) -> dict[str, list[dict[str, Any]]]:
        """Each query answered with ``profile``: ``{query_id: [{id, rank, confidence, score, ...}, ...]}``.

        A registered profile (by name, or its preset object) is answered by
        :meth:`SmartVector.query` itself (``log=False``, one knowledge snapshot for the batch):
        the code path of ``query --batch``, so whatever the service does around retrieval and
        reranking (store calibration, abstention, passages) the benchmark does too. A variant
        (ablations, weight sweep) reranks the query's cached candidate pool with
        :func:`retrieval.pipeline.answer`.
        """
        prof = get_profile(profile)
        idx = range(len(self.queries)) if queries is None else queries
        registered = PROFILES.get(prof.name) is prof
        runs: dict[str, list[dict[str, Any]]] = {}
        self.app.batching = True
        try:
            for i in idx:
                q = self.queries[i]
                if registered:
                    resp = self.app.query(q.text, as_of=q.as_of, profile=prof.name, k=self.k, query_id=q.id,
                                          log=False, vector=self.vectors[i])
                else:
                    resp = answer(self.candidates[i], QueryRequest(q.text, q.as_of, prof, self.k, q.id,
                                                                   config=self.app.config), prof,
                                  self.knowledge, knots=self.cache.calibration_knots(prof.name))
                runs[q.id] = [result_row(r) for r in resp.results]
        finally:
            self.app.flush()
            self.app.batching = False
        return runs

    def run(self, name: str) -> dict[str, list[dict[str, Any]]]:
        """Runs of a named profile or baseline."""
        key = str(name).strip().lower()
        if key in BASELINES:
            return getattr(self, f"_{key}")()
        if key in PROFILES:
            return self.answer_profile(key)
        raise InputError(f"unknown profile {name!r}: expected one of {', '.join(ALL_PROFILES)}",
                         field="profiles")

    # ------------------------------------------------------------------------ baselines
    def _hours(self, i: int) -> np.ndarray:
        cands = self.candidates[i]
        return np.maximum(0, to_us(self.queries[i].as_of) - cands.created_us) / US_PER_HOUR

    def _fts_rankings(self) -> list[list[tuple[str, str, float]]]:
        """Per query, LanceDB's BM25 hits as ``(chunk_id, doc_id, score)``, best first."""
        if self._fts is None:
            self._fts = []
            for q in self.queries:
                hits = self.app.store.fts_search(q.text, as_of=q.as_of, limit=FTS_POOL,
                                                 columns=("chunk_id", "doc_id", "text"))
                self._fts.append(list(zip(hits.column("chunk_id").to_pylist(), hits.column("doc_id").to_pylist(),
                                          map(float, hits.column("_score").to_pylist()), strict=True)))
                self._texts.update(zip(hits.column("chunk_id").to_pylist(), hits.column("text").to_pylist(),
                                       strict=True))
        return self._fts

    def _passages(self, chunks: list[tuple[str, str, float]]) -> list[tuple[str, str, float]]:
        """``(chunk_id, doc_id, score)`` of the ``k`` best passages, at most ``PASSAGES_PER_DOCUMENT``
        of one document, grouped under their document: the profiles' passage rule."""
        if not chunks:
            return []
        docs = np.array([d for _, d, _ in chunks], dtype=object)
        pick = select_passages(docs, np.arange(len(chunks)), self.k, PASSAGES_PER_DOCUMENT)
        return [chunks[i] for i in pick]

    def _bm25(self) -> dict[str, list[dict[str, Any]]]:
        runs = {}
        for q, ranking in zip(self.queries, self._fts_rankings(), strict=True):
            top = self._passages(ranking)
            mass = sum(s for _, _, s in top) or 1.0
            runs[q.id] = [{"id": d, "confidence": float(np.clip(s / mass, 0, 1)), "score": s,
                           "text": self._texts.get(c)} for c, d, s in top]
        return runs

    def _hybrid(self) -> dict[str, list[dict[str, Any]]]:
        """RRF of the vector and BM25 rankings of passages (chunks), then the passage rule."""
        runs = {}
        best = 2.0 / (RRF_K + 1)
        for q, cands, text_rank in zip(self.queries, self.candidates, self._fts_rankings(), strict=True):
            doc_of = dict(zip(cands.chunk_id, cands.doc_id, strict=True)) | {c: d for c, d, _ in text_rank}
            text_of = dict(zip(cands.chunk_id, cands.text, strict=True))
            fused = rrf_fuse([list(cands.chunk_id), [c for c, _, _ in text_rank]], k=RRF_K)
            top = self._passages([(c, doc_of[c], s) for c, s in fused])
            runs[q.id] = [{"id": d, "confidence": float(min(1.0, s / best)), "score": s,
                           "text": text_of.get(c, self._texts.get(c))} for c, d, s in top]
        return runs

    def _langchain(self) -> dict[str, list[dict[str, Any]]]:
        runs = {}
        for i, (q, cands) in enumerate(zip(self.queries, self.candidates, strict=True)):
            score = langchain_time_weighted(cands.raw_cosine, self._hours(i), LANGCHAIN_DECAY_RATE)
            order = select_passages(cands.doc_id, np.argsort(-score, kind="stable"), self.k, PASSAGES_PER_DOCUMENT)
            runs[q.id] = [{"id": cands.doc_id[j], "confidence": float(np.clip(score[j], 0, 1)),
                           "score": float(score[j]), "text": cands.text[j]} for j in order]
        return runs

    def _llamaindex_fixed(self) -> dict[str, list[dict[str, Any]]]:
        runs = {}
        for q, cands in zip(self.queries, self.candidates, strict=True):
            pool = select_passages(cands.doc_id, np.arange(len(cands)), self.k,   # the k most similar
                                   PASSAGES_PER_DOCUMENT)                             # (pool is sorted)
            pool = np.sort(pool)
            if not len(pool):
                runs[q.id] = []
                continue
            order = pool[fixed_recency(cands.created_us[pool], top_k=len(pool))]
            runs[q.id] = [{"id": cands.doc_id[j], "confidence": float(np.clip(cands.raw_cosine[j], 0, 1)),
                           "score": float(cands.raw_cosine[j]), "text": cands.text[j]} for j in order]
        return runs

    def _llamaindex_time(self) -> dict[str, list[dict[str, Any]]]:
        runs = {}
        for i, (q, cands) in enumerate(zip(self.queries, self.candidates, strict=True)):
            if not len(cands):
                runs[q.id] = []
                continue
            order, scores = llamaindex_time_weighted(cands.raw_cosine, self._hours(i), LLAMAINDEX_TIME_DECAY,
                                                     top_k=len(cands))
            score_of = dict(zip(order.tolist(), scores.tolist(), strict=True))
            pick = select_passages(cands.doc_id, np.asarray(order), self.k, PASSAGES_PER_DOCUMENT)
            runs[q.id] = [{"id": cands.doc_id[j], "confidence": float(np.clip(score_of[j], 0, 1)),
                           "score": float(score_of[j]), "text": cands.text[j]} for j in pick.tolist()]
        return runs

    # -------------------------------------------------------------------------- scoring
    def evaluate(self, runs: Mapping[str, Sequence[Mapping[str, Any]]],
                 queries: Sequence[int] | None = None) -> dict[str, Any]:
        idx = range(len(self.queries)) if queries is None else queries
        return evaluate(runs, [self.queries[i].label() for i in idx])


def result_row(result) -> dict[str, Any]:
    """What the benchmark keeps of one result: id, rank, score, confidence (and certainty), and
    the passage's text (for answer containment; the dump leaves it out)."""
    return {"id": result.id, "rank": result.rank, "score": result.score, "confidence": result.confidence,
            "certainty": getattr(result, "certainty", None), "text": result.text}


MODES = ("live", "backdated")


def ingest_moment(corpus: Sequence[Mapping[str, Any]], queries: Sequence[BenchQuery], mode: str = "live"
                  ) -> datetime | None:
    """When the benchmark ingests (and consolidates) the corpus; None if the data has no time.

    - ``live`` (default; DESIGN.md "benchmarks run live"): right after the corpus, at its latest
      ``created_at``: the whole corpus is on file, ingested and consolidated at one moment, as an
      operator loads a finished corpus (ingest -> consolidate -> ``query --batch``). Each question
      keeps its own ``as_of``; one dated before the ingest asks about the past, and validity,
      existence and supersession are judged from the event history at that ``as_of``. Moving a
      past question after the consolidation instead would change what it asks. A corpus with no
      ``created_at``: the earliest question's ``as_of`` (every question sees it); without
      queries: as ``backdated``.
    - ``backdated`` (the earlier benchmark): at the latest moment in the data (:func:`data_now`),
      so questions are dated before the consolidation and see none of its penalties or moves.
    """
    if mode not in MODES:
        raise InputError(f"unknown bench mode {mode!r}: expected one of {', '.join(MODES)}", field="--mode")
    if mode == "live":
        written = data_now(corpus, [])
        if written is not None:
            return written
        if queries:
            return min(q.as_of for q in queries)
    return data_now(corpus, queries)


@contextmanager
def prepared_bench(corpus: Sequence[Mapping[str, Any]], queries: Sequence[Any], *, embedder, k: int = 5,
                   consolidate: bool = True, store_dir: str | Path | None = None,
                   timings: dict[str, float] | None = None, mode: str = "live") -> Iterator[PreparedBench]:
    """Ingest ``corpus`` into a fresh temporary store (removed afterwards) and retrieve each query once.

    Exactly what an operator runs: ``ingest`` (which consolidates what it added) and then
    ``consolidate``, both at :func:`ingest_moment` (``mode``), then the questions as
    ``query --batch`` asks them. ``consolidate=False`` skips both consolidations (ablation).
    ``store_dir``: a parent folder for the temporary store (default: the system temp folder).
    """

    if k < 1:
        raise InputError(f"expected k >= 1, found {k}", field="k")
    bench_queries = normalise_queries(queries)
    now = ingest_moment(corpus, bench_queries, mode)
    if now is None:
        raise InputError("the corpus and queries carry no time at all (no created_at, no as_of): "
                         "the benchmark needs one to be reproducible", field="as_of")
    timings = {} if timings is None else timings
    folder = tempfile.mkdtemp(prefix="smartvector-bench-", dir=str(store_dir) if store_dir else None)
    try:
        app = SmartVector(load_settings(str(Path(folder) / "store"), env={}), embedder=embedder)
        t0 = time.perf_counter()
        app.ingest_records([dict(r) for r in corpus], now=now, actor="bench", consolidate=consolidate)
        timings["ingest"] = time.perf_counter() - t0
        if consolidate:
            t0 = time.perf_counter()
            app.consolidate(now=now)
            timings["consolidate"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        bench = PreparedBench(app, bench_queries, k=k, now=now, mode=mode)
        timings["retrieve"] = time.perf_counter() - t0
        yield bench
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def check_profiles(names: Sequence[str]) -> list[str]:
    out = [str(n).strip().lower() for n in names if str(n).strip()]
    bad = [n for n in out if n not in ALL_PROFILES]
    if bad or not out:
        raise InputError(f"unknown profile {bad[0] if bad else ''!r}: expected one of {', '.join(ALL_PROFILES)}",
                         field="profiles")
    return list(dict.fromkeys(out))


def score_profiles(bench: PreparedBench, names: Sequence[str], timings: dict[str, float],
                   queries: Sequence[int] | None = None, keep_runs: dict | None = None) -> dict[str, dict]:
    out = {}
    for name in names:
        t0 = time.perf_counter()
        runs = bench.run(name)
        if queries is not None:
            wanted = {bench.queries[i].id for i in queries}
            runs = {qid: r for qid, r in runs.items() if qid in wanted}
        out[name] = bench.evaluate(runs, queries)
        timings[f"answer_{name}"] = time.perf_counter() - t0
        if keep_runs is not None:
            keep_runs[name] = runs
    return out


def run_bench(corpus_records: Sequence[Mapping[str, Any]], query_specs: Sequence[Any],
              profiles: Sequence[str] = DEFAULT_PROFILES, *, embedder, k: int = 5, consolidate: bool = True,
              store_dir: str | Path | None = None,
              extra: Callable[[PreparedBench], dict[str, Any]] | None = None, mode: str = "live") -> BenchResult:
    """Ingest, (consolidate), answer every query with every profile, score (module docstring).
    ``mode``: ``live`` or ``backdated`` (:func:`ingest_moment`).

    ``profiles``: names among ``naive, temporal, smartvector, default`` and the baselines
    ``bm25, hybrid, langchain, llamaindex_fixed, llamaindex_time``. ``extra(bench)``, if given,
    runs on the prepared store before it is removed; its dict lands in ``params["extra"]``.
    """
    names = check_profiles(profiles)
    timings: dict[str, float] = {}
    runs: dict[str, dict] = {}
    with prepared_bench(corpus_records, query_specs, embedder=embedder, k=k, consolidate=consolidate,
                        store_dir=store_dir, timings=timings, mode=mode) as bench:
        metrics = score_profiles(bench, names, timings, keep_runs=runs)
        params = {"k": k, "mode": mode, "now": bench.now.isoformat(), "ingested_at": bench.now.isoformat(),
                  "consolidated": consolidate,
                  "n_documents": len(corpus_records), "n_queries": len(bench.queries),
                  "model": getattr(embedder, "name", type(embedder).__name__), "query_log": False}
        if extra is not None:
            params["extra"] = extra(bench)
    return BenchResult(profiles=metrics, params=params, timings={k_: round(v, 3) for k_, v in timings.items()},
                       runs=runs)
