"""The shipped confidence prior, fitted on many corpora (``calibration --fit-prior``).

Each corpus is benchmarked live (:func:`runner.prepared_bench`: ingest, consolidate, then each
question asked through :meth:`SmartVector.query` at its own ``as_of``), and every result of
every gated profile gives one row: its evidence (:data:`confidence_model.FEATURES`), whether it
is a right answer (its id is relevant), its rank, and whether the answer abstained. Questions are
sampled per corpus and part with a fixed seed so that a fit runs in minutes on a small CPU
(:data:`CORPORA`); every corpus has a **fit** part and a **report** part that never overlap:

=================  ===========================================  ==========================================
corpus             fit                                          report
=================  ===========================================  ==========================================
``paper``          the paper suite's ``tune`` split             its ``heldout`` split
``changelogs``     ``data/real/changelogs`` ``split: tune``      ``split: test``
``flask-docs``     ``data/real/flask-docs`` ``split: tune``      ``split: test``
``timeqa``         TimeQA train, a seeded half of its pages     the other half (a page's paragraphs and
                   (150 questions)                              questions stay on one side; 60)
``situatedqa``     SituatedQA train                             SituatedQA dev
``realtimeqa``     RealTimeQA 2022: 6 weeks drawn from          3 weeks drawn from the others, all their
                   alternate weeks, all their questions         questions (articles cut to 800 characters)
=================  ===========================================  ==========================================

The fit (:func:`fit_prior`) weighs each corpus equally (its rows share one unit of weight), fits
:func:`confidence_fitting.fit_trees` per profile (monotone boosted trees; ``form="logistic"``:
:func:`confidence_fitting.fit_model`) and the isotonic map on its certainties
(:func:`confidence_fitting.isotonic_knots`), and writes ``retrieval/calibration.json`` with what
it was fitted on and the scoring version. :func:`loco_table` reports each corpus under a prior
fitted without it (leave one corpus out). The collected rows stay on disk per corpus and part
(``--rows``), so a refit of a model variant reads them in seconds (``--reuse-rows``). Embeddings are kept in an on-disk cache (``--cache``):
a re-fit after a scoring change re-embeds nothing.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np

from ...clock import iso, parse_time
from ...config import DEFAULT_ENGINE
from ...config.temporal import DEFAULT_TEMPORAL
from ...embedding_cache import CachedEmbedder
from ...errors import InputError
from ...retrieval import confidence_fitting as fitting
from ...retrieval import confidence_model as cm
from ...retrieval.calibration import KNOTS_FILE, calibrate, certainty, held_to_rank
from .metrics import confidence_report
from .paper_suite import generate_paper_suite
from .runner import prepared_bench

FIT_PROFILES = ("default", "temporal", "smartvector")
ROLES = ("fit", "report")
DEFAULT_SEED = 7


@dataclass(frozen=True)
class CorpusPlan:
    """How many questions of a corpus are asked (per role), and its article cut (news only)."""

    name: str
    questions: int                 # report part, sampled with the seed (0: all; RealTimeQA: weeks)
    article_chars: int = 0         # news articles cut to this many characters (0: whole)
    fit_questions: int | None = None   # fit part (None: as many as the report part)

    def count(self, role: str) -> int:
        return self.fit_questions if role == "fit" and self.fit_questions is not None else self.questions


CORPORA = (
    CorpusPlan("paper", 0),
    CorpusPlan("changelogs", 0),
    CorpusPlan("flask-docs", 0),
    CorpusPlan("situatedqa", 400),
    CorpusPlan("timeqa", 60, fit_questions=150),
    CorpusPlan("realtimeqa", 3, article_chars=800, fit_questions=6),   # weeks: every question of a week
)


def _read(path: Path) -> list[dict]:
    if not path.exists():
        raise InputError(f"{path}: not found", field="corpus")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _sample(items: list, n: int, rng: random.Random) -> list:
    return list(items) if n <= 0 or n >= len(items) else rng.sample(items, n)


def corpus_parts(plan: CorpusPlan, role: str, *, repo: Path, realdata: Path, realtimeqa: Path | None,
                 seed: int = DEFAULT_SEED) -> tuple[list[dict], list[dict]] | None:
    """(corpus records, queries) of one corpus and role (None: its data is not here)."""
    rng = random.Random(f"{seed}:{plan.name}:{role}")
    if plan.name == "paper":
        suite = generate_paper_suite(seed)
        return list(suite.corpus), suite.split("tune" if role == "fit" else "heldout")
    if plan.name in ("changelogs", "flask-docs"):
        folder = repo / "data" / "real" / plan.name
        queries = [q for q in _read(folder / "queries.jsonl") if q.get("split") == ("tune" if role == "fit" else "test")]
        return _read(folder / "corpus.jsonl"), _sample(queries, plan.count(role), rng)
    if plan.name == "situatedqa":
        folder = realdata / ("situatedqa-train" if role == "fit" else "situatedqa-dev")
        if not folder.exists():
            return None
        corpus, queries = _read(folder / "corpus.jsonl"), _read(folder / "queries.jsonl")
        queries = _asked_now(corpus, queries)
        return _subset_by_group(corpus, _sample(queries, plan.count(role), rng), lambda d: d["id"].split(":")[0],
                                lambda q: q["id"].rsplit("-q", 1)[0], rng)
    if plan.name == "timeqa":
        folder = realdata / "timeqa-train"
        if not folder.exists():
            return None
        corpus = _read(folder / "corpus.jsonl")
        queries = _asked_now(corpus, _read(folder / "queries.jsonl"))
        pages = sorted({d["id"].split("#")[0] for d in corpus})
        half = {p for p in pages if (int(hashlib.sha1(f"{seed}:{p}".encode()).hexdigest(), 16) % 2 == 0) == (role == "fit")}
        page_of = {d["id"]: d["id"].split("#")[0] for d in corpus}
        mine = [q for q in queries if q["relevant"] and page_of.get(q["relevant"][0]) in half]
        chosen = _sample(mine, plan.count(role), rng)
        keep = {page_of[q["relevant"][0]] for q in chosen}
        return [d for d in corpus if page_of[d["id"]] in keep], chosen
    if plan.name == "realtimeqa":
        if realtimeqa is None or not (realtimeqa / "queries.jsonl").exists():
            return None
        corpus, queries = _read(realtimeqa / "corpus.jsonl"), _read(realtimeqa / "queries.jsonl")
        if any(str(q.get("week", ""))[:4] != "2022" for q in queries):
            raise InputError(f"{realtimeqa}: RealTimeQA weeks after 2022 are held out", field="week")
        weeks = sorted({q["week"] for q in queries})
        use = set(_sample(weeks[0 if role == "fit" else 1::2], plan.count(role), rng))
        chosen = [q for q in queries if q["week"] in use]
        docs = [d for d in corpus if d.get("metadata", {}).get("week") in use]
        if plan.article_chars:
            docs = [{**d, "text": d["text"][:plan.article_chars]} for d in docs]
        return docs, chosen
    raise InputError(f"unknown corpus {plan.name!r}", field="corpus")


def _asked_now(corpus: list[dict], queries: list[dict]) -> list[dict]:
    """Questions without an ``as_of`` (SituatedQA's ``now``: the plain question, asked now;
    TimeQA's, about undated text) asked a day after the corpus' latest ``created_at`` (from the data, never the clock)."""
    latest = max(parse_time(d["created_at"], field="created_at") for d in corpus if d.get("created_at"))
    now = iso(latest + timedelta(days=1))
    return [q if q.get("as_of") else {**q, "as_of": now} for q in queries]


def _subset_by_group(corpus, queries, doc_group, query_group, rng):
    """The documents of the questions' groups, plus as many other (distractor) documents."""
    wanted = {query_group(q) for q in queries}
    own = [d for d in corpus if doc_group(d) in wanted]
    others = [d for d in corpus if doc_group(d) not in wanted]
    return own + _sample(others, len(own), rng), queries


def cached_embedder(inner, folder: Path | None):
    """``inner`` with its vectors kept on disk in ``folder`` (:mod:`..embedding_cache`); ``None``:
    no cache."""
    return inner if folder is None else CachedEmbedder(inner, folder)


def collect(corpus: list[dict], queries: list[dict], embedder, *, profiles: Sequence[str] = FIT_PROFILES,
            k: int = 5) -> dict[str, np.ndarray]:
    """Rows of one corpus: per question, profile and result, its evidence and label; plus the
    naive profile's top-1 (its confidence is the cosine). Live: ingest, consolidate, ask."""
    with prepared_bench(corpus, queries, embedder=embedder, k=k) as bench:
        return collect_from(bench, profiles=profiles)


def collect_from(bench, *, profiles: Sequence[str] = FIT_PROFILES) -> dict[str, np.ndarray]:
    """:func:`collect` on a :class:`runner.PreparedBench` already built."""
    k = bench.k
    rows: dict[str, list] = {key: [] for key in ("x", "right", "rank", "qid", "profile", "abstained",
                                                "confidence", "certainty")}
    app = bench.app
    app.batching = True
    try:
        for i, q in enumerate(bench.queries):
            relevant = set(q.relevant)
            for name in ("naive", *profiles):
                resp = app.query(q.text, as_of=q.as_of, profile=name, k=k, query_id=q.id, log=False,
                                 vector=bench.vectors[i])
                if not resp.results:      # no result: counted as a wrong top-1 at confidence 0
                    rows["x"].append(np.zeros(len(cm.FEATURES)))
                    for key, value in (("right", False), ("rank", 1), ("qid", q.id), ("profile", name),
                                       ("abstained", True), ("confidence", 0.0), ("certainty", 0.0)):
                        rows[key].append(value)
                    continue
                for r in resp.results:
                    ev = r.evidence if r.evidence else (0.0,) * len(cm.FEATURES)
                    rows["x"].append(np.asarray(ev, dtype=np.float64))
                    rows["right"].append(r.id in relevant)
                    rows["rank"].append(r.rank)
                    rows["qid"].append(q.id)
                    rows["profile"].append(name)
                    rows["abstained"].append(resp.abstained)
                    rows["confidence"].append(r.confidence)
                    rows["certainty"].append(r.certainty)
    finally:
        app.flush()
        app.batching = False
    out = {key: np.asarray(v) for key, v in rows.items() if key != "x"}
    out["x"] = np.stack(rows["x"]) if rows["x"] else np.zeros((0, len(cm.FEATURES)))
    return out


def collect_all(*, repo: Path, realdata: Path, realtimeqa: Path | None, out: Path, embedder,
                plans: Iterable[CorpusPlan] = CORPORA, seed: int = DEFAULT_SEED, k: int = 5,
                log=print) -> dict[str, dict[str, Any]]:
    """:func:`collect` for every corpus and role, each saved as ``out/<corpus>-<role>.npz``."""
    out.mkdir(parents=True, exist_ok=True)
    summary: dict[str, dict[str, Any]] = {}
    for plan in plans:
        for role in ROLES:
            parts = corpus_parts(plan, role, repo=repo, realdata=realdata, realtimeqa=realtimeqa, seed=seed)
            if parts is None:
                log(f"{plan.name} {role}: data not found, skipped")
                continue
            corpus, queries = parts
            t0 = time.perf_counter()
            rows = collect(corpus, queries, embedder, k=k)
            np.savez(out / f"{plan.name}-{role}.npz", **rows)
            summary[f"{plan.name}-{role}"] = {"documents": len(corpus), "questions": len(queries),
                                              "rows": int(len(rows["right"])), "seconds": round(time.perf_counter() - t0, 1)}
            log(f"{plan.name} {role}: {summary[f'{plan.name}-{role}']}")
    return summary


def load_rows(folder: Path) -> dict[tuple[str, str], dict[str, np.ndarray]]:
    """The collected rows per (corpus, role)."""
    found = {}
    for path in sorted(Path(folder).glob("*.npz")):
        name, role = path.stem.rsplit("-", 1)
        with np.load(path, allow_pickle=False) as data:
            found[(name, role)] = {key: data[key] for key in data.files}
    return found


# Levels, not ranks, margins or matches: a raw cosine's scale is the embedding's and the corpus'
# (in changelogs and flask-docs the wrong top-1 has the *higher* cosine), a score's is the
# profile's scoring (which changes with every scoring change), an age is the corpus' own. Held at 0
# in the fit: left-one-corpus-out they lowered AUROC on the unseen corpus (docs/CONFIDENCE.md; re-checked
# with model version 3: the raw cosine released takes changelogs' LOCO ECE from 0.098 to 0.150).
LEVELS = frozenset({"cosine", "cosine_gap", "score", "log_age"})
TOP1_SHARE = 0.3    # ours: a corpus' rank-1 rows carry 0.3 of its weight in the model, its other ranks the rest (docs/CONFIDENCE.md)


FORM = "trees"      # the prior's model: monotone boosted trees (fitting.fit_trees); "logistic": fitting.fit_model


def fit_prior(rows: dict[tuple[str, str], dict[str, np.ndarray]], *, profiles: Sequence[str] = FIT_PROFILES,
              exclude: Sequence[str] = (), c: float = 0.5, top1_share: float = TOP1_SHARE,
              verdicts: dict[str, tuple[Sequence[float], Sequence[bool]]] | None = None,
              form: str = FORM) -> dict[str, dict[str, Any]]:
    """Per profile, the model (``form``: :data:`FORM`; ``c`` regularises the logistic one) and
    isotonic knots fitted on every corpus' fit rows (``exclude``:
    corpora left out). Each corpus weighs one unit: in the model its rank-1 rows share
    ``top1_share`` of it and its other ranks the rest (the model learns what tells a right
    passage from a wrong one at every rank, the first counting most); the isotonic map is fitted
    on the rank-1 rows (each corpus' sharing one unit), the answers whose confidence is what
    operators read and what ECE measures. Rows of abstained answers are left out (their
    confidence is capped whatever the model says). ``verdicts``: operators' (certainty,
    accepted) pairs per profile, added to the isotonic step, each weighing as one rank-1 row."""
    if form not in ("trees", "logistic"):
        raise InputError(f"unknown model form {form!r}: 'trees' or 'logistic'", field="form")
    fitted: dict[str, dict[str, Any]] = {}
    for name in profiles:
        xs, ys, ws, firsts = [], [], [], []
        for (corpus, role), data in rows.items():
            if role != "fit" or corpus in exclude:
                continue
            keep = (data["profile"] == name) & ~data["abstained"].astype(bool)
            first = data["rank"][keep] == 1
            if not first.any():
                continue
            rest = max(int((~first).sum()), 1)
            xs.append(data["x"][keep])
            ys.append(data["right"][keep].astype(float))
            ws.append(np.where(first, top1_share / first.sum(), (1.0 - top1_share) / rest))
            firsts.append(np.where(first, 1.0 / first.sum(), 0.0))
        if not xs:
            continue
        x, y, w, f = (np.concatenate(a) for a in (xs, ys, ws, firsts))
        fixed = single_corpus_features(xs) | LEVELS
        model = fitting.fit_trees(x, y, w, fixed=fixed) if form == "trees" else fitting.fit_model(x, y, w, c=c, fixed=fixed)
        top = f > 0
        vx, vy = (verdicts or {}).get(name, ((), ()))
        cert = np.r_[model.certainty(x[top]), np.asarray(vx, dtype=np.float64)]
        kx, ky = fitting.isotonic_knots(cert, np.r_[y[top], np.asarray(vy, dtype=np.float64)],
                                     np.r_[f[top], np.full(len(vx), f[top].mean())])
        fitted[name] = {"model": model.to_dict(), "x": [float(v) for v in kx], "y": [float(v) for v in ky],
                        "n": int(len(y) + len(vx))}
    return fitted


def single_corpus_features(per_corpus: Sequence[np.ndarray]) -> frozenset[str]:
    """The features that vary within fewer than two corpora (``per_corpus``: each corpus' fit
    rows). Their weight would only tell that corpus from the others (trust is the authority
    default 0.7 everywhere but in the paper suite): the fit holds them at 0."""
    varies = np.sum([np.asarray(x).std(axis=0) > 1e-9 for x in per_corpus], axis=0)
    return frozenset(n for n, v in zip(cm.FEATURES, varies, strict=True) if v < 2)


def confidences(rows: dict[str, np.ndarray], profile: str, fitted: dict[str, Any] | None) -> np.ndarray:
    """The confidence of each row of ``profile`` under a prior (``fitted``: one profile's entry
    of :func:`fit_prior`; None: the rows' own logged confidence), held to at most the rank
    above's (:func:`calibration.held_to_rank`) and capped where the answer abstained, as the
    query path computes it."""
    keep = rows["profile"] == profile
    if fitted is None or profile == "naive":
        return rows["confidence"][keep].astype(float)
    model = cm.model_from_dict(fitted["model"])
    p = np.interp(model.certainty(model.aligned(rows["x"][keep])), fitted["x"], fitted["y"])
    p = held_to_rank(p, rows["rank"][keep] == 1)
    return np.where(rows["abstained"][keep].astype(bool), np.minimum(p, DEFAULT_ENGINE.abstention.cap), p)


def before_confidences(rows: dict[str, np.ndarray], profile: str, knots: dict[str, Any] | None) -> np.ndarray:
    """The confidence of the earlier prior (``knots``: one profile's entry of its file) from the
    same evidence: its model and isotonic map where it has a model (:func:`confidences`), else
    the earlier scoring's (certainty = score · g(margin) · trust · validity − conflict, mapped
    by its knots)."""
    if knots is not None and "model" in knots:
        return confidences(rows, profile, knots)
    keep = rows["profile"] == profile
    x = rows["x"][keep]
    col = {n: j for j, n in enumerate(cm.FEATURES)}
    cert = certainty(x[:, col["score"]], x[:, col["margin"]], x[:, col["trust"]], x[:, col["current"]] > 0.5,
                     x[:, col["conflict"]])
    k = None if knots is None else (np.asarray(knots["x"]), np.asarray(knots["y"]))
    p = calibrate(profile, cert, k) if k is not None else cert
    return np.where(rows["abstained"][keep].astype(bool), np.minimum(p, DEFAULT_ENGINE.abstention.cap), p)


RESAMPLES = 400     # ours: paired bootstrap resamples of a part's answers (change_interval)
INTERVAL = 0.9      # ours: the central share of the resampled changes reported


def change_interval(before: np.ndarray, after: np.ndarray, right: np.ndarray, *, resamples: int = RESAMPLES,
                    level: float = INTERVAL, seed: int = DEFAULT_SEED) -> dict[str, list[float] | None]:
    """Whether a change of ECE and AUROC on one part is more than that part's noise: the central
    ``level`` interval of ``metric(after) − metric(before)`` over ``resamples`` bootstrap
    resamples of the answers, one resample for both (paired: the percentile interval of Efron
    & Tibshirani 1993, ch. 13). ``before``, ``after``: two confidences of the same top-1 answers,
    ``right`` their labels. An interval holding 0 is a change the part cannot tell from noise
    (changelogs' 52 questions, logistic model to trees: ECE −0.084 to +0.051; docs/CONFIDENCE.md
    "Eighth session"). AUROC is read on the resamples holding both right and wrong answers
    (None: fewer than two such)."""
    from ...retrieval.calibration import auroc, expected_calibration_error

    before, after = (np.asarray(v, dtype=np.float64) for v in (before, after))
    right = np.asarray(right, dtype=bool)
    if not len(right):
        return {"ece_change": None, "auroc_change": None}
    rng = np.random.default_rng(seed)
    ece, roc = [], []
    for pick in rng.integers(0, len(right), size=(resamples, len(right))):
        hit = right[pick]
        ece.append(expected_calibration_error(after[pick], hit) - expected_calibration_error(before[pick], hit))
        if 0 < hit.sum() < len(hit):
            roc.append(auroc(after[pick], hit) - auroc(before[pick], hit))
    tails = [100 * (1 - level) / 2, 100 * (1 + level) / 2]
    return {"ece_change": [float(v) for v in np.percentile(ece, tails)],
            "auroc_change": [float(v) for v in np.percentile(roc, tails)] if len(roc) > 1 else None}


def top1(rows: dict[str, np.ndarray], profile: str, conf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(confidence, right) of each question's rank-1 result of ``profile``."""
    keep = rows["profile"] == profile
    first = rows["rank"][keep] == 1
    return conf[first], rows["right"][keep][first].astype(bool)


def report_table(rows: dict[tuple[str, str], dict[str, np.ndarray]], fitted: dict[str, dict[str, Any]],
                 before: dict[str, Any] | None, *, profiles: Sequence[str] = ("default",),
                 role: str = "report", high: float = DEFAULT_TEMPORAL.tiers.high) -> list[dict[str, Any]]:
    """Per corpus (its ``role`` rows) and variant (naive; each profile before and after), the
    top-1 accuracy and :func:`metrics.confidence_report` of the top-1 confidence; each "after"
    row also holds the interval of its change from "before" (:func:`change_interval`)."""
    table = []
    for (corpus, r), data in sorted(rows.items()):
        if r != role:
            continue
        variants = [("naive", "naive", confidences(data, "naive", None))]
        for name in profiles:
            old = (before or {}).get("profiles", {}).get(name)
            variants.append((f"{name} before", name, before_confidences(data, name, old)))
            variants.append((f"{name} after", name, confidences(data, name, fitted.get(name))))
        earlier = None
        for label, name, conf in variants:
            c, right = top1(data, name, conf)
            if not len(c):
                continue
            row = {"corpus": corpus, "variant": label, "n": int(len(c)), "top1": float(right.mean()),
                   **confidence_report(c, right, high=high)}
            if label.endswith(" after") and earlier is not None:     # after − before, with the part's noise
                row.update(change_interval(earlier, c, right))
            earlier = c if label.endswith(" before") else None
            table.append(row)
    return table


def loco_table(rows: dict[tuple[str, str], dict[str, np.ndarray]], *, profiles: Sequence[str] = ("default",),
               role: str = "report", high: float = DEFAULT_TEMPORAL.tiers.high) -> list[dict[str, Any]]:
    """Leave one corpus out: per corpus, each profile's prior fitted (:func:`fit_prior`) on the
    fit parts of the *other* corpora, then the top-1 report of this corpus' ``role`` part
    (variant ``"<profile> LOCO"``). How the prior does on a corpus it has never seen, which is
    what a new store starts with before its operators' verdicts."""
    table = []
    for corpus in sorted({c for c, r in rows if r == role}):
        fitted = fit_prior(rows, profiles=profiles, exclude=(corpus,))
        data = rows[(corpus, role)]
        for name in profiles:
            if name not in fitted:
                continue
            c, right = top1(data, name, confidences(data, name, fitted[name]))
            if len(c):
                table.append({"corpus": corpus, "variant": f"{name} LOCO", "n": int(len(c)), "top1": float(right.mean()),
                              **confidence_report(c, right, high=high)})
    return table


def write_prior(fitted: dict[str, dict[str, Any]], meta: dict[str, Any], path: Path = KNOTS_FILE) -> None:
    """The prior's file: what it was fitted on and the knots one value a line, each profile's
    model on one line of its own (a model of trees holds thousands of numbers)."""
    marks = {name: f"@model:{name}@" for name in fitted}
    text = json.dumps({"meta": meta, "profiles": {name: {**v, "model": marks[name]} for name, v in fitted.items()}},
                      indent=1)
    for name, mark in marks.items():
        text = text.replace(json.dumps(mark), json.dumps(fitted[name]["model"], separators=(",", ":")), 1)
    path.write_text(text, encoding="utf-8")
    from ...retrieval import calibration

    calibration._shipped.cache_clear()
    cm.clear_cache()


def fit_prior_command(*, embedder, repo: Path, realdata: Path, realtimeqa: Path | None, rows_dir: Path,
                      cache: Path | None, collect_rows: bool = True, write: bool = True,
                      before: Path | None = None, seed: int = DEFAULT_SEED, k: int = 5, log=print) -> dict[str, Any]:
    """``calibration --fit-prior``: collect the rows of every corpus (unless ``collect_rows`` is
    off: the rows already in ``rows_dir``), fit the prior, write it (``write``), and report the
    top-1 table of every corpus' report part: naive, and each profile before (``before``: the
    earlier prior's file, default the one being replaced), after, and left one corpus out
    (:func:`loco_table`)."""
    from ...retrieval.profiles import PROFILES

    t0 = time.perf_counter()
    previous = json.loads((before or KNOTS_FILE).read_text(encoding="utf-8")) if (before or KNOTS_FILE).exists() else None
    summary = None
    if collect_rows:
        cached = cached_embedder(embedder, cache)
        summary = collect_all(repo=repo, realdata=realdata, realtimeqa=realtimeqa, out=rows_dir, embedder=cached,
                              seed=seed, k=k, log=log)
        log(f"embedded {getattr(cached, 'encoded', 'all')} new texts")
    rows = load_rows(rows_dir)
    if not rows:
        raise InputError(f"{rows_dir}: no collected rows", field="--rows")
    fitted = fit_prior(rows)
    fitted_on = {}
    for (corpus, role), data in sorted(rows.items()):
        if role == "fit":
            fitted_on[corpus] = {"questions": int(len(set(data["qid"].tolist()))), "rows": int(len(data["right"]))}
    meta = {"method": ("monotone boosted trees" if FORM == "trees" else "logistic regression on standardised evidence")
            + " on the evidence, then centred isotonic",
            "fitted_on": fitted_on, "corpus_weight": "each corpus one unit", "seed": seed, "k": k,
            "model": getattr(embedder, "name", type(embedder).__name__),
            "scoring_versions": {name: cm.version_of(DEFAULT_ENGINE, PROFILES[name]) for name in fitted},
            "command": "python -m smartvector_core calibration --fit-prior"}
    check = None
    if write:
        write_prior(fitted, meta)
        check = live_check(fitted, embedder=cached_embedder(embedder, cache), repo=repo, realdata=realdata,
                           realtimeqa=realtimeqa, seed=seed, k=k)
        log(f"live check: {check}")
    table = report_table(rows, fitted, previous, profiles=FIT_PROFILES) + loco_table(rows, profiles=FIT_PROFILES)
    return {"meta": meta, "collected": summary, "live_check": check, "table": table,
            "seconds": round(time.perf_counter() - t0, 1)}


def live_check(fitted: dict[str, dict[str, Any]], *, embedder, repo: Path, realdata: Path, realtimeqa: Path | None,
               seed: int = DEFAULT_SEED, k: int = 5, corpus: str = "paper") -> dict[str, Any]:
    """Ask one corpus' report questions again, live, with the prior just written: the largest
    difference between the confidence the query path reports and the one the fit computes from
    the same evidence (0 up to rounding: the table is what the engine says)."""
    plan = next(p for p in CORPORA if p.name == corpus)
    docs, queries = corpus_parts(plan, "report", repo=repo, realdata=realdata, realtimeqa=realtimeqa, seed=seed)
    rows = collect(docs, queries, embedder, k=k)
    worst = 0.0
    for name in fitted:
        worst = max(worst, float(np.abs(confidences(rows, name, fitted[name]) - confidences(rows, name, None)).max()))
    return {"corpus": corpus, "questions": len(queries), "max_abs_difference": worst}


def format_table(table: list[dict[str, Any]]) -> str:
    """The report table as Markdown (a change's interval: after − before, :func:`change_interval`)."""
    def f(v):
        return "–" if v is None else f"{v:.3f}"

    def span(v):
        return "" if v is None else f"[{v[0]:+.3f}, {v[1]:+.3f}]"
    lines = ["| corpus | variant | n | top-1 | ECE | AUROC | Brier | distinct/100 | HIGH precision (n) "
             "| ECE change (90%) | AUROC change (90%) |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in table:
        lines.append(f"| {r['corpus']} | {r['variant']} | {r['n']} | {f(r['top1'])} | {f(r['ece'])} | {f(r['auroc'])} "
                     f"| {f(r['brier'])} | {r['distinct_per_100']:.0f} | {f(r['high_precision'])} ({r['high_n']}) "
                     f"| {span(r.get('ece_change'))} | {span(r.get('auroc_change'))} |")
    return "\n".join(lines)
