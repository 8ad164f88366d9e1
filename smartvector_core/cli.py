"""Command line of CONTRACT.md: ``python -m smartvector_core COMMAND``.

Exit status: 0 success; 2 bad input or usage (one line on stderr naming file, line and field,
nothing written); 1 anything else. This layer reads the clock and the environment, and passes
``as_of`` / ``now`` down.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import clock
from .errors import InputError, SmartVectorError
from .service import RETENTION_DAYS, SmartVector, dumps, read_queries
from .settings import debug_enabled, load_settings
from .store import RESTORABLE_TABLES, check_tag_label


def _eprint(message: str) -> None:
    print(message, file=sys.stderr)


def _progress_bar(desc: str):
    """A tqdm bar on stderr that appears only for work lasting over a second."""
    import time

    from tqdm import tqdm

    started = time.monotonic()
    bar = None

    def update(done: int, total: int) -> None:
        nonlocal bar
        if bar is None and done < total and time.monotonic() - started > 1.0:
            bar = tqdm(total=total, desc=desc, unit="doc", file=sys.stderr, leave=False)
        if bar is not None:
            bar.n = done
            bar.refresh()
            if done >= total:
                bar.close()

    return update


def _as_of(value: str | None):
    return clock.now() if not value else clock.parse_time(value, field="--as-of")


def cmd_ingest(app: SmartVector, args) -> int:
    if getattr(args, "engine", "local") == "ray":  # chunk + embed on Ray, commit from this process
        from .scaleout.ray_ingest import ingest_paths_ray

        report = ingest_paths_ray(app, args.paths, now=clock.now(), progress=_progress_bar("ingest"))
    else:
        report = app.ingest_paths(args.paths, now=clock.now(), progress=_progress_bar("ingest"))
    for warning in report.warnings:
        _eprint(f"warning: {warning}")
    out = report.to_dict()
    consolidation = getattr(report, "consolidation", None)  # the incremental run after the write
    if consolidation:
        out["consolidation"] = {k: consolidation[k] for k in ("supersessions", "contradictions", "dependencies",
                                                              "archived", "dormant", "seconds")}
    if args.json:
        print(dumps(out))
    else:
        print(f"{out['documents']} documents ({out['added']} added, {out['updated']} updated, "
              f"{out['unchanged']} unchanged), {out['chunks']} chunks: {out['chunks_embedded']} embedded, "
              f"{out['chunks_reused']} reused")
        if consolidation:
            print("consolidated: " + ", ".join(f"{k} {v}" for k, v in out["consolidation"].items()))
    return 0


def _print_response(resp, as_json: bool) -> None:
    if as_json:
        print(dumps(resp.to_dict()))
        return
    print(f"query {resp.query_id} [{resp.profile}] as of {resp.as_of}: {resp.query}")
    if resp.abstained:
        print(f"  abstained: {resp.abstain_reason}")
    for r in resp.results:
        print(f"  {r.rank}. {r.id:<28} score={r.score:.3f} confidence={r.confidence:.2f} {r.confidence_tier.value:<6} "
              f"trust={r.trust:.2f} {r.kind.value:<9} {r.validity_state.value}")
        if r.confidence_factors:
            print("       confidence: " + "; ".join(r.confidence_factors))
        for reason in r.reasons[:3]:
            print(f"       - {reason}")
    if resp.rejections:
        print("  rejected: " + ", ".join(f"{x.id} ({x.code.value})" for x in resp.rejections))


def cmd_query(app: SmartVector, args) -> int:
    if args.batch:
        if args.text:
            raise InputError("give either TEXT or --batch FILE, not both", field="query")
        asked_at = clock.now()
        specs = read_queries(args.batch, now=asked_at, warn=lambda m: _eprint(f"warning: {m}"))
        app.check_query_ids({spec.id: spec.text for spec in specs if spec.id_given})
        vectors = app.embedder.encode([spec.text for spec in specs]) if specs else []   # one batched call
        app.batching = True
        try:
            for spec, vector in zip(specs, vectors, strict=True):
                resp = app.query(spec.text, as_of=spec.as_of, profile=args.profile, k=args.k, query_id=spec.id,
                                 asked_at=asked_at, vector=vector, group_by=args.group_by,
                                 per_document=args.per_document)
                _print_response(resp, args.json)
        finally:
            app.flush()
        return 0
    if not args.text:
        raise InputError("missing: give the question TEXT or --batch FILE", field="query")
    resp = app.query(" ".join(args.text), as_of=_as_of(args.as_of), profile=args.profile, k=args.k,
                     asked_at=clock.now(), group_by=args.group_by, per_document=args.per_document)
    _print_response(resp, args.json)
    return 0


def cmd_stats(app: SmartVector, args) -> int:
    stats = app.stats()
    if args.json:
        print(dumps(stats))
    else:
        for key, value in stats.items():
            print(f"{key:>16}: {value}")
    return 0


def cmd_calibration(app: SmartVector, args) -> int:
    if args.fit_prior:
        return _fit_prior(app, args)
    report = app.feedback_reliability()
    if args.json:
        print(dumps(report))
        return 0
    for warning in report.get("warnings") or []:
        _eprint(f"warning: {warning}")
    if not report["n"]:
        print("no feedback tied to a logged query yet (feedback ID accept|correct --query-id Q)")
        return 0

    def parts(r) -> str:
        def f(key):
            return "–" if r.get(key) is None else f"{r[key]:.3f}"
        return (f"ECE {f('ece')}, Brier {f('brier')} (reliability {f('reliability')}, resolution {f('resolution')}), "
                f"AUROC {f('auroc')}, HIGH precision {f('high_precision')} ({r.get('high_n', 0)} HIGH)")
    print(f"{report['n']} verdicts on logged answers: {parts(report)}")
    for profile, part in report["by_profile"].items():
        print(f"  {profile}: n={part['n']} {parts(part)}")
        for b in part["bins"]:
            print(f"    conf {b['confidence']:.2f}  accepted {b['accuracy']:.2f}  (n={b['count']})")
    return 0


def _print_counts(out: dict, as_json: bool, keys: Sequence[str]) -> None:
    if as_json:
        print(dumps(out))
    else:
        print(", ".join(f"{key} {out[key]}" for key in keys if key in out))


def cmd_consolidate(app: SmartVector, args) -> int:
    out = app.consolidate(now=clock.now(), full=args.full, engine=getattr(args, "engine", "local"))
    _print_counts(out, args.json, ("supersessions", "contradictions", "dependencies", "archived", "dormant",
                                   "activated", "rippled", "examined_pairs", "seconds"))
    return 0


def cmd_feedback(app: SmartVector, args) -> int:
    with app.store.write_lock():   # the moment is read under the lock: event times follow commit order, so
        # concurrent commands' "before -> after" chain (trust at ``now`` counts the events stamped by then)
        if str(args.verdict).strip().lower() == "undo":   # an appended reversing event, never a deletion
            out = app.feedback_undo(args.id, now=clock.now(), query_id=args.query_id or "", actor="cli")
        else:
            out = app.feedback(args.id, args.verdict, now=clock.now(), query_id=args.query_id or "", actor="cli")
    if args.json:
        print(dumps(out))
    elif "undone" in out:
        print(f"{out['id']}: {out['undone']} undone, trust {out['trust_before']:.3f} -> "
              f"{out['trust_after']:.3f}; {out['ripple_reversed']} ripple penalt(ies) reversed")
    else:
        print(f"{out['id']}: {out['verdict']}, trust {out['trust_before']:.3f} -> "
              f"{out['trust_after']:.3f}; rippled to {len(out['rippled'])} dependent(s)")
    return 0


def cmd_archive(app: SmartVector, args) -> int:
    """``archive ID [--reason TEXT]`` / ``unarchive ID``: an appended LIFECYCLE event by ``cli``."""
    if args.command == "archive":
        out = app.archive(args.id, now=clock.now(), reason=args.reason or "", actor="cli")
    else:
        out = app.unarchive(args.id, now=clock.now(), actor="cli")
    print(dumps(out) if args.json else f"{out['id']}: {out['from']} -> {out['lifecycle']} ({out['reason']})")
    return 0


def cmd_demo(app: SmartVector, args) -> int:
    now = clock.now()
    report = app.load_demo(now=now, if_empty=args.if_empty)
    if report is None:
        print("the store already holds documents: demo corpus not loaded (drop --if-empty to add it)")
        return 0
    out = report.to_dict()
    consolidation = getattr(report, "consolidation", None) or app.consolidate(now=now)
    print(f"demo corpus: {out['documents']} documents, {out['chunks']} chunks; consolidated: "
          + ", ".join(f"{k} {consolidation[k]}" for k in ("supersessions", "contradictions", "dependencies",
                                                          "archived", "dormant")))
    return 0


def _parse_versions(text: str) -> dict[str, int]:
    """'12' -> {'chunks': 12}; 'chunks=12,edges=4' -> both."""
    out: dict[str, int] = {}
    for part in text.split(","):
        name, _, value = part.strip().rpartition("=")
        name = name.strip() or "chunks"
        try:
            number = int(value)
        except ValueError:
            raise InputError(f"expected N or TABLE=N[,TABLE=N], found {text!r}", field="--version") from None
        if name in out:
            raise InputError(f"table {name!r} given twice, found {text!r}", field="--version")
        out[name] = number
    return out


def cmd_restore(app: SmartVector, args) -> int:
    if (args.tag is None) == (args.version is None):
        raise InputError("give exactly one of --tag T or --version N", field="restore")
    versions = None
    if args.tag is not None:
        known = {t for tags in app.store.tags().values() for t in tags}
        if args.tag not in known:
            raise InputError(f"no tag {args.tag!r} in the store (tags: {', '.join(sorted(known)) or 'none'})",
                             field="--tag")
    else:
        versions = _parse_versions(args.version)
        for name in versions:
            if name not in RESTORABLE_TABLES:
                raise InputError(f"expected a table of {', '.join(RESTORABLE_TABLES)} (events and queries are "
                                 f"append-only history), found {name!r}", field="--version")
    problem = app.store.restore_problem(tag=args.tag, versions=versions)   # every version checked before any
    if problem:
        raise InputError(problem, field="--tag" if args.tag is not None else "--version")
    restored = app.restore(tag=args.tag, versions=versions, now=clock.now())
    print(dumps({"restored": restored}) if args.json else
          "restored: " + ", ".join(f"{k} -> version {v}" for k, v in restored.items()))
    return 0


def cmd_tag(app: SmartVector, args) -> int:
    label = check_tag_label(args.label)   # before the store is opened: a bad label writes nothing
    versions = app.tag(label)
    print(dumps({"tag": label, "versions": versions}) if args.json else
          f"tagged {label}: " + ", ".join(f"{k} v{v}" for k, v in versions.items()))
    return 0


def cmd_maintain(app: SmartVector, args) -> int:
    """``maintain``: compact, and drop versions older than the retention age (tagged ones kept);
    ``--repair``: only undo what a fault left (broken tag files, stale locks), and say what."""
    if args.repair:
        done = app.repair()
        print(dumps({"repaired": done}) if args.json else "\n".join(f"repaired: {line}" for line in done))
        return 0
    out = app.maintain(cleanup_older_than_days=args.older_than_days, now=clock.now())
    print(dumps(out) if args.json else
          f"kept versions newer than {out['cleanup_older_than_days']} days and tags "
          f"{', '.join(out['tags']) or 'none'}; table versions now {out['versions_after']}")
    return 0


def cmd_freshness(app: SmartVector, args) -> int:
    """``freshness``: grade (review urgency) and advice per document, from ``SmartVector.freshness``."""
    from .temporal.freshness import live_f_share, report_records

    as_of = _as_of(args.as_of)
    report = app.freshness(as_of=as_of)
    rows = report_records(report)
    if args.json:
        print(dumps({"as_of": clock.iso(as_of), "live": int(report["live"].sum()),
                     "live_f_share": round(live_f_share(report), 4), "documents": rows}))
    else:
        for r in rows:
            age = "undated" if r["age_days"] is None else f"{r['age_days']:.0f} d"
            print(f"{r['id']:<28} {r['grade']:<2} {r['graded_by']:<8} {age:>8} {r['validity_state']:<13} "
                  f"{r['advice']}")
    return 0


def _fit_prior(app: SmartVector, args) -> int:
    """``calibration --fit-prior``: rebuild the shipped confidence prior (evaluation.accuracy.confidence_fit)."""
    from pathlib import Path

    from .evaluation.accuracy.confidence_fit import fit_prior_command, format_table

    rtqa = Path(args.realtimeqa) if args.realtimeqa else None
    out = fit_prior_command(embedder=app.embedder, repo=Path(__file__).resolve().parent.parent,
                            realdata=Path(args.realdata), realtimeqa=rtqa, rows_dir=Path(args.rows),
                            cache=Path(args.cache) if args.cache else None, collect_rows=not args.reuse_rows,
                            write=not args.dry_run, before=Path(args.before) if args.before else None,
                            log=lambda m: _eprint(f"fit-prior: {m}"))
    print(dumps(out) if args.json else format_table(out["table"]))
    return 0


def cmd_bench(app: SmartVector, args) -> int:
    """``bench``: a benchmark in a temporary store (see smartvector_core.evaluation.accuracy.report)."""
    from .evaluation.accuracy.report import bench_command, format_report

    out = bench_command(args, embedder=app.embedder, warn=lambda m: _eprint(f"warning: {m}"),
                        feedback=app.feedback_certainty_pairs if args.with_feedback else None, now=clock.now())
    print(dumps(out) if args.json else format_report(out))
    return 0


def cmd_perf(app: SmartVector, args) -> int:
    """``perf``: speed figures of this machine in temporary stores (smartvector_core.evaluation.perf)."""
    from .evaluation.perf import format_table, perf_markdown, run

    out = run(quick=args.quick, log=lambda m: _eprint(f"perf: {m}"))
    target = args.out or (None if args.quick else "docs/perf.json")
    if target:
        from pathlib import Path

        Path(target).parent.mkdir(parents=True, exist_ok=True)
        Path(target).write_text(dumps(out) + "\n", encoding="utf-8")
        if not args.out:   # the full run also renders the table of docs/PERF.md (its other sections stay)
            page = Path(target).with_name("PERF.md")
            previous = page.read_text(encoding="utf-8") if page.is_file() else ""
            page.write_text(perf_markdown(out, previous), encoding="utf-8")
    print(dumps(out) if args.json else format_table(out))
    return 0


def cmd_serve(app: SmartVector, args) -> int:
    from .api import serve

    if not 0 < args.port < 65536:
        raise InputError(f"expected a TCP port 1-65535, found {args.port}", field="--port")
    serve(app, host=args.host, port=args.port)
    return 0


class _Parser(argparse.ArgumentParser):
    """argparse with CONTRACT.md's usage errors: exit 2 and one line on stderr (not the usage block)."""

    def error(self, message: str):
        self.exit(2, f"error: {self.prog.removeprefix('python -m smartvector_core').strip() or 'usage'}: "
                     f"{message} (see --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m smartvector_core",
                                     description="SmartVector Studio: a knowledge base that knows when each "
                                                 "fact was true, how far to trust it, and what depends on it.")
    parser.add_argument("--store", help="LanceDB directory or object-store URI "
                                        "(default: $SMARTVECTOR_STORE, else data/lancedb)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    _add_knowledge_commands(sub)
    _add_store_commands(sub)
    _add_bench_commands(sub)
    return parser


def _add_knowledge_commands(sub) -> None:
    """ingest, query, stats, calibration, consolidate, feedback, archive, unarchive, demo."""
    p = sub.add_parser("ingest", help="add or update documents (re-ingesting an id updates it)")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--json", action="store_true")
    p.add_argument("--engine", choices=("local", "ray"), default="local",
                   help="ray: chunk and embed on a Ray cluster ($RAY_ADDRESS, else a local one), "
                        "commit from this process (see docs/SCALING.md)")
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("query", help="ask a question")
    p.add_argument("text", nargs="*", metavar="TEXT")
    p.add_argument("--batch", metavar="QUERIES.jsonl")
    p.add_argument("--profile", default="default")
    p.add_argument("--as-of", dest="as_of")
    p.add_argument("--k", type=int, default=5)
    p.add_argument("--group-by", dest="group_by", choices=("chunk", "document"), default="chunk",
                   help="chunk (default): up to k passages, several of one document allowed; "
                        "document: one result per document")
    p.add_argument("--per-document", dest="per_document", type=int, default=3,
                   help="most passages of one document in chunk mode (default 3)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_query)

    p = sub.add_parser("stats", help="what the store holds")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_stats)

    p = sub.add_parser("calibration", help="reported confidence against operators' accept/correct verdicts")
    p.add_argument("--json", action="store_true")
    p.add_argument("--fit-prior", dest="fit_prior", action="store_true",
                   help="rebuild the shipped confidence prior from many corpora (live benchmarks)")
    p.add_argument("--realdata", default="../shared/realdata", help="--fit-prior: TimeQA / SituatedQA folders")
    p.add_argument("--realtimeqa", default="/tmp/rtqa2022", help="--fit-prior: RealTimeQA 2022 set (adapter output)")
    p.add_argument("--rows", default=".calibration/rows", help="--fit-prior: where the collected rows are kept")
    p.add_argument("--cache", default=".calibration/cache", help="--fit-prior: embedding cache ('' for none)")
    p.add_argument("--reuse-rows", dest="reuse_rows", action="store_true",
                   help="--fit-prior: fit on the rows already collected (no benchmark runs)")
    p.add_argument("--dry-run", dest="dry_run", action="store_true", help="--fit-prior: report, write nothing")
    p.add_argument("--before", help="--fit-prior: the earlier prior to report beside the new one "
                                    "(default: the file being replaced)")
    p.set_defaults(func=cmd_calibration)

    p = sub.add_parser("consolidate", help="run the consolidation agent now")
    p.add_argument("--full", action="store_true", help="re-examine every document, not only new or edited ones")
    p.add_argument("--engine", choices=("local", "ray"), default="local",
                   help="ray: candidate search and per-pair checks as Ray tasks ($RAY_ADDRESS, else a local Ray)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_consolidate)

    p = sub.add_parser("feedback", help="operator feedback on a document version")
    p.add_argument("id", metavar="ID")
    p.add_argument("verdict", metavar="accept|correct|undo",
                   help="undo reverses the verdict this operator gave (for --query-id) by an appended event")
    p.add_argument("--query-id", dest="query_id")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_feedback)

    p = sub.add_parser("archive", help="take a document version out of answers (an appended event; nothing deleted)")
    p.add_argument("id", metavar="ID")
    p.add_argument("--reason", help="why (kept in the event and shown in rejections)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_archive)

    p = sub.add_parser("unarchive", help="bring an archived version back")
    p.add_argument("id", metavar="ID")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_archive)

    p = sub.add_parser("demo", help="load the demo corpus and consolidate")
    p.add_argument("--if-empty", dest="if_empty", action="store_true", help="only into an empty store")
    p.set_defaults(func=cmd_demo)


def _add_store_commands(sub) -> None:
    """restore, tag, maintain, freshness."""
    p = sub.add_parser("restore", help="make an earlier tagged or numbered version current again")
    p.add_argument("--tag")
    p.add_argument("--version", help="N (chunks table) or TABLE=N[,TABLE=N]")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_restore)

    p = sub.add_parser("tag", help="tag the current version of every table")
    p.add_argument("label", metavar="LABEL")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_tag)

    p = sub.add_parser("maintain", help="retention: compact and clean up old versions (tagged ones are kept)")
    p.add_argument("--older-than-days", dest="older_than_days", type=float, default=RETENTION_DAYS,
                   help="drop untagged versions older than this (default 7)")
    p.add_argument("--repair", action="store_true",
                   help="only repair what a fault left (a tag file a full disk broke, a stale lock) and say what")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_maintain)

    p = sub.add_parser("freshness", help="freshness report: grade (review urgency) and advice per document")
    p.add_argument("--as-of", dest="as_of")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_freshness)


def _add_bench_commands(sub) -> None:
    """bench, perf, serve."""
    p = sub.add_parser("bench", help="benchmark the profiles and baselines in a temporary store")
    p.add_argument("--corpus", metavar="C.jsonl")
    p.add_argument("--queries", metavar="Q.jsonl")
    p.add_argument("--suite", metavar="paper", help="a built-in benchmark (paper: the rebuilt SmartVector suite)")
    p.add_argument("--profiles", help="comma-separated profiles and baselines (naive, temporal, smartvector, "
                                      "default, bm25, hybrid, langchain, llamaindex_fixed, llamaindex_time)")
    p.add_argument("--k", type=int, default=5)
    p.add_argument("--mode", default="live", choices=["live", "backdated"],
                   help="live (default): ingest and consolidate right after the corpus (its latest created_at), "
                        "each question at its own as_of, as an operator asks; backdated: at the latest moment "
                        "in the data, every question dated before it")
    p.add_argument("--dump", metavar="FILE", help="--corpus/--queries only: write each profile's answer to each "
                                                   "question here (JSON Lines; see evaluation.accuracy.report.write_dump)")
    p.add_argument("--split", default="heldout", choices=["heldout", "tune", "all"], help="--suite only")
    p.add_argument("--seed", type=int, default=7, help="--suite only")
    p.add_argument("--rates", help="contradiction rates of the robustness sweep (default 0,0.25,0.5,0.75; none)")
    p.add_argument("--ablations", action="store_true", help="--suite only: ablation table")
    p.add_argument("--sweep", action="store_true", help="--suite only: weight-sensitivity simplex sweep")
    p.add_argument("--sweep-step", dest="sweep_step", type=float, default=0.125)
    p.add_argument("--reembed", action="store_true", help="--suite only: re-embedding cost per one-word edit")
    p.add_argument("--fit-calibration", dest="fit_calibration", action="store_true",
                   help="--suite only: fit calibration knots on the tune split first")
    p.add_argument("--with-feedback", dest="with_feedback", action="store_true",
                   help="with --fit-calibration: add the store's accept/correct verdicts to the fit")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("perf", help="speed figures of this machine (rerank, query, ingest, indexes, memory)")
    p.add_argument("--quick", action="store_true", help="smaller sizes, same keys (under 3 minutes)")
    p.add_argument("--out", metavar="FILE", help="write the JSON here (full run default: docs/perf.json)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_perf)

    p = sub.add_parser("serve", help="serve the HTTP query API (FastAPI; OpenAPI schema at /docs)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8600)
    p.set_defaults(func=cmd_serve)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        app = SmartVector(load_settings(args.store))
        code = int(args.func(app, args) or 0)
        if app.store_is_open and args.func is not cmd_maintain:
            for line in app.store.repairs:   # done when the store opened (maintain --repair prints them itself)
                _eprint(f"warning: repaired: {line}")
        return code
    except InputError as exc:
        _eprint(f"error: {exc}")
        return 2
    except KeyboardInterrupt:
        _eprint("interrupted")
        return 130
    except (SmartVectorError, Exception) as exc:
        if debug_enabled():
            raise
        _eprint(f"error: {type(exc).__name__}: {exc}")
        return 1
