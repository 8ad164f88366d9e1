"""What ``bench`` runs and prints: argument handling shared by the CLI, and the text table.

``bench --corpus C --queries Q``: any files in the CONTRACT.md formats. A query without
``as_of`` is asked at the latest moment in the data (never the wall clock). Extra query fields
are kept; ``type`` gives the ``by_type`` breakdown.
``bench --suite paper``: see :mod:`.paper_bench`.
``--mode live`` (default): the corpus ingested and consolidated right after its latest
``created_at``, each question asked at its own ``as_of`` (past ones judged from the event
history), as an operator asks; ``--mode backdated``: the earlier benchmark, every question
dated before the consolidation (:func:`.runner.ingest_moment`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ...errors import InputError
from ...ingest import read_records
from ...service import read_queries
from .paper_bench import PAPER_FIGURES, fit_calibration, run_paper_bench
from .runner import ALL_PROFILES, DEFAULT_PROFILES, MODES, data_now, normalise_queries, run_bench

_NO_TIME = datetime(1, 1, 1, tzinfo=UTC)     # placeholder for a query without as_of
SUITES = ("paper",)


def parse_list(text: str | None) -> list[str]:
    """Comma-separated values, stripped, empty ones dropped."""
    return [p.strip() for p in (text or "").split(",") if p.strip()]


def parse_rates(text: str | None) -> list[float]:
    if text is None:
        return [0.0, 0.25, 0.5, 0.75]
    if text.strip().lower() in ("", "none"):
        return []
    try:
        return [float(p) for p in parse_list(text)]
    except ValueError:
        raise InputError(f"expected comma-separated numbers in [0, 1], found {text!r}", field="--rates") from None


def load_bench(corpus_path: str | Path, queries_path: str | Path, *, warn: Callable[[str], None] | None = None,
               now: datetime | None = None) -> tuple[list[dict[str, Any]], list[Any]]:
    """The benchmark set-up (CLI ``bench --corpus --queries`` and the Evaluation page's demo):
    the corpus records and the query specs, every query without ``as_of`` asked at the latest
    moment in the data; data with no time at all (no ``created_at``, no ``as_of``) is asked at
    ``now`` (the caller's clock), which then cannot change any answer."""

    corpus = read_records(corpus_path)
    if not corpus:
        raise InputError("no documents in the corpus file", file=str(corpus_path))
    specs = read_queries(queries_path, now=_NO_TIME, warn=warn)
    if not specs:
        raise InputError("no queries in the queries file", file=str(queries_path))
    dated = [s for s in specs if s.as_of != _NO_TIME]

    latest = data_now(corpus, normalise_queries(dated)) or now
    if latest is None:
        raise InputError("no created_at in the corpus and no as_of in the queries: the benchmark needs a "
                         "moment from the data", file=str(queries_path), field="as_of")
    for spec in specs:
        if spec.as_of == _NO_TIME:
            spec.as_of = latest
    return corpus, specs


def write_dump(path: str | Path, runs: dict[str, dict[str, list[dict[str, Any]]]], queries: list[Any]) -> None:
    """Each profile's answer to each question, one JSON line per (profile, question), profiles in
    the order asked and questions in file order: ``{"profile", "query_id", "text", "as_of", "type",
    "relevant", "stale", "results": [{"id", "score", "confidence"}, ...]}`` (results as ranked,
    passages with repeats). For studying failures; the metrics come from the same runs."""
    with open(path, "w", encoding="utf-8") as out:
        for profile, by_query in runs.items():
            for q in queries:
                rows = [{"id": r["id"], "score": r.get("score"), "confidence": r.get("confidence")}
                        for r in by_query.get(q.id, ())]
                out.write(json.dumps({"profile": profile, "query_id": q.id, "text": q.text,
                                      "as_of": q.as_of.isoformat(), "type": q.type, "relevant": q.relevant,
                                      "stale": q.stale, "results": rows}, default=float) + "\n")


def bench_files(corpus_path: str, queries_path: str, profiles: list[str], *, embedder, k: int,
                warn: Callable[[str], None] | None = None, now: datetime | None = None,
                mode: str = "live", dump: str | Path | None = None) -> dict[str, Any]:
    """``bench --corpus --queries``: the CONTRACT JSON (``profiles``) plus ``params`` and timings
    (set-up: :func:`load_bench`); ``dump``: also write the per-question answers (:func:`write_dump`)."""
    corpus, specs = load_bench(corpus_path, queries_path, warn=warn, now=now)
    result = run_bench(corpus, specs, profiles or DEFAULT_PROFILES, embedder=embedder, k=k, mode=mode)
    if dump:
        write_dump(dump, result.runs, normalise_queries(specs))
    out = result.to_dict()
    out["params"].update({"corpus": str(corpus_path), "queries": str(queries_path)})
    return out


def bench_command(args, *, embedder, warn: Callable[[str], None] | None = None,
                  feedback=None, now: datetime | None = None) -> dict[str, Any]:
    """Dispatch the parsed ``bench`` arguments (see cli.py) and return the JSON document."""
    profiles = parse_list(args.profiles)
    mode = getattr(args, "mode", "live")
    if mode not in MODES:
        raise InputError(f"expected one of {', '.join(MODES)}, found {mode!r}", field="--mode")
    if args.k < 1:
        raise InputError(f"expected k >= 1, found {args.k}", field="--k")
    if args.suite:
        if args.corpus or args.queries:
            raise InputError("give either --suite or --corpus/--queries, not both", field="--suite")
        if args.suite not in SUITES:
            raise InputError(f"expected one of {', '.join(SUITES)}, found {args.suite!r}", field="--suite")
        if getattr(args, "dump", None):
            raise InputError("--dump needs --corpus/--queries", field="--dump")
        out: dict[str, Any] = {}
        if args.fit_calibration:
            out["calibration_fit"] = fit_calibration(embedder, seed=args.seed, k=args.k,
                                                     feedback=feedback() if feedback else None)
        out.update(run_paper_bench(embedder, seed=args.seed, split=args.split, rates=parse_rates(args.rates),
                                   profiles=profiles or ALL_PROFILES, k=args.k, ablations=args.ablations,
                                   sweep=args.sweep, sweep_step=args.sweep_step, reembed=args.reembed,
                                   mode=mode))
        return out
    if not (args.corpus and args.queries):
        raise InputError("give --corpus C.jsonl and --queries Q.jsonl, or --suite paper", field="bench")
    if args.fit_calibration or args.ablations or args.sweep:
        raise InputError("--fit-calibration, --ablations and --sweep need --suite paper", field="bench")
    return bench_files(args.corpus, args.queries, profiles, embedder=embedder, k=args.k, warn=warn, now=now,
                       mode=mode, dump=getattr(args, "dump", None))


def _row(name: str, m: dict[str, Any]) -> str:
    return (f"{name:<26} {100 * m['top1']:6.1f} {100 * m['stale_at_1']:7.1f} {m['ece']:6.3f} "
            f"{m['mrr']:6.3f} {m.get('recall_at_5', float('nan')):6.3f} {m['n']:5d}")


HEADER = f"{'profile':<26} {'top1%':>6} {'stale%':>7} {'ECE':>6} {'MRR':>6} {'R@5':>6} {'n':>5}"


def format_report(out: dict[str, Any]) -> str:
    """The text table of a ``bench`` JSON document."""
    lines = []
    params = out.get("params", {})
    title = f"bench: {params.get('n_queries', '')} queries" if "split" not in params else \
        f"bench --suite paper (seed {params.get('seed')}, {params['split']} split, {params.get('n_documents')} docs)"
    if params.get("mode"):
        title += f", {params['mode']} mode (ingested and consolidated at {params.get('ingested_at')})"
    lines += [title, HEADER]
    lines += [_row(name, m) for name, m in out["profiles"].items()]
    if "paper" in out:
        lines.append("paper's figures (held-out):")
        for name in ("cosine_rag", "smartvector"):
            f = PAPER_FIGURES[name]
            lines.append(f"{'  ' + name:<26} {100 * f['top1']:6.1f} {100 * f['stale_at_1']:7.1f} {f['ece']:6.3f}")
    by_type = {n: m.get("by_type", {}) for n, m in out["profiles"].items()}
    types = sorted({t for bt in by_type.values() for t in bt})
    if len(types) > 1:
        names = list(out["profiles"])
        lines.append("top-1 % by query type:")
        lines.append(f"{'type':<16}" + "".join(f"{n[:11]:>12}" for n in names))
        for t in types:
            cells = "".join(f"{100 * by_type[n][t]['top1']:12.1f}" if t in by_type[n] else f"{'':>12}" for n in names)
            lines.append(f"{t:<16}{cells}")
    if "robustness" in out:
        lines.append("contradiction sweep (top1% / stale%):")
        for r in out["robustness"]["rates"]:
            lines.append(f"  rate {r['rate']:.2f}: " + "  ".join(
                f"{n} {100 * r[n]['top1']:.1f}/{100 * r[n]['stale_at_1']:.1f}" for n in ("naive", "default")))
        lines.append(f"  max top-1 drop (points): {out['robustness']['max_drop_points']}")
    if "ablations" in out:
        lines += ["ablations:", HEADER]
        lines += [_row(name, m) + f"  Δtop1 {100 * m['delta_top1_vs_default']:+.1f}"
                  for name, m in out["ablations"].items()]
    if "sweep" in out:
        pts = out["sweep"]["points"]
        for scorer in ("smartvector", "default"):
            rows = [p for p in pts if p["scorer"] == scorer]
            if rows:
                best = max(rows, key=lambda p: (p["top1"], -p["stale_at_1"]))
                lines.append(f"sweep [{scorer}] {len(rows)} points: top1 {100 * min(p['top1'] for p in rows):.1f}"
                             f"–{100 * best['top1']:.1f}%; best at sem {best['semantic']} tmp {best['temporal']} "
                             f"conf {best['confidence']} rel {best['relational']} (report only, not tuned)")
    if "reembed" in out:
        r = out["reembed"]
        lines.append(f"re-embedding per one-word edit: {r['chunks_embedded']}/{r['chunks_total']} chunks, "
                     f"{r['encoder_seconds']:.3f}s vs whole document {r['whole_document']['encoder_seconds']:.3f}s "
                     f"(saving {100 * r['saving_chunks']:.0f}% of chunks; paper claims 77%)")
    if "calibration_fit" in out:
        lines.append(f"calibration fitted on the tune split: {out['calibration_fit']['profiles']}")
    if "timings_s" in out:
        lines.append(f"timings (s): {out['timings_s']}")
    return "\n".join(lines)
