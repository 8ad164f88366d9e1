"""Command line of CONTRACT.md: ``python -m smartvector_core COMMAND``.

Exit status: 0 success; 2 bad input or usage (one line on stderr naming file, line and field,
nothing written); 1 anything else. This layer reads the clock and the environment, and passes
``as_of`` / ``now`` down.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from . import clock
from .errors import InputError, SmartVectorError
from .service import SmartVector, dumps, read_queries
from .settings import load_settings


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
    report = app.ingest_paths(args.paths, now=clock.now(), progress=_progress_bar("ingest"))
    for warning in report.warnings:
        _eprint(f"warning: {warning}")
    out = report.to_dict()
    if args.json:
        print(dumps(out))
    else:
        print(f"{out['documents']} documents ({out['added']} added, {out['updated']} updated, "
              f"{out['unchanged']} unchanged), {out['chunks']} chunks: {out['chunks_embedded']} embedded, "
              f"{out['chunks_reused']} reused")
    return 0


def _print_response(resp, as_json: bool) -> None:
    if as_json:
        print(dumps(resp.to_dict()))
        return
    print(f"query {resp.query_id} [{resp.profile}] as of {resp.as_of}: {resp.query}")
    for r in resp.results:
        print(f"  {r.rank}. {r.id:<28} score={r.score:.3f} conf={r.confidence:.2f} {r.confidence_tier.value:<6} "
              f"{r.kind.value:<9} {r.validity_state.value}")
        for reason in r.reasons[:3]:
            print(f"       - {reason}")
    if resp.rejections:
        print("  rejected: " + ", ".join(f"{x.id} ({x.code.value})" for x in resp.rejections))


def cmd_query(app: SmartVector, args) -> int:
    if args.batch:
        if args.text:
            raise InputError("give either TEXT or --batch FILE, not both", field="query")
        specs = read_queries(args.batch, now=clock.now(), warn=lambda m: _eprint(f"warning: {m}"))
        app.batching = True
        try:
            for spec in specs:
                resp = app.query(spec.text, as_of=spec.as_of, profile=args.profile, k=args.k, query_id=spec.id)
                _print_response(resp, args.json)
        finally:
            app.flush()
        return 0
    if not args.text:
        raise InputError("missing: give the question TEXT or --batch FILE", field="query")
    resp = app.query(" ".join(args.text), as_of=_as_of(args.as_of), profile=args.profile, k=args.k)
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m smartvector_core",
                                     description="SmartVector Studio: a knowledge base that knows when each "
                                                 "fact was true, how far to trust it, and what depends on it.")
    parser.add_argument("--store", help="LanceDB directory or object-store URI "
                                        "(default: $SMARTVECTOR_STORE, else data/lancedb)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("ingest", help="add or update documents (re-ingesting an id updates it)")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_ingest)

    p = sub.add_parser("query", help="ask a question")
    p.add_argument("text", nargs="*", metavar="TEXT")
    p.add_argument("--batch", metavar="QUERIES.jsonl")
    p.add_argument("--profile", default="default")
    p.add_argument("--as-of", dest="as_of")
    p.add_argument("--k", type=int, default=5)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_query)

    p = sub.add_parser("stats", help="what the store holds")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_stats)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        app = SmartVector(load_settings(args.store))
        return int(args.func(app, args) or 0)
    except InputError as exc:
        _eprint(f"error: {exc}")
        return 2
    except KeyboardInterrupt:
        _eprint("interrupted")
        return 130
    except (SmartVectorError, Exception) as exc:
        if os.environ.get("SMARTVECTOR_DEBUG"):
            raise
        _eprint(f"error: {type(exc).__name__}: {exc}")
        return 1
