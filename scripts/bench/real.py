"""Every real set side by side, through the command line (outside CI: the data is not in the repo).

Each set is run as a user would run it, in live mode:

    python -m smartvector_core bench --corpus C.jsonl --queries Q.jsonl \\
        --profiles naive,bm25,hybrid,temporal,default --k 5 --json --dump D.jsonl

and the table gives, per set and profile, top-1, hit@5 (``containment_at_5``: a relevant id among
the first 5 passages returned), answer@5 (``answer_containment_at_5``: an answer string of the
question in the text of those passages; sets whose questions carry ``answers`` or ``answer``:
TimeQA, RealTimeQA, changelogs, flask-docs, django-docs, django-releases), stale@1, ECE, MRR and the mean passages returned; by query type
where a set has several. Then, per profile, what issue 28's targets read of the top result's
confidence, as ``bench --json`` reports them (:func:`calibration.confidence_report`, as
``calibration --json``): ECE, AUROC, distinct values per 100 answers and the HIGH tier's precision
and size. For the news set the two-line baselines of
``../shared/realdata/recency_baselines.py`` are run too, on a store ``ingest`` built from the same
corpus, with the same questions.

Sets (``--sets``; default all):

- ``timeqa-train``, ``situatedqa-train``, ``situatedqa-dev``: ``../shared/realdata/<set>/``;
- ``rtqa-a``, ``rtqa-b``, ``rtqa-c``: RealTimeQA weeks of 2022 built by ``realtimeqa_adapter.py``
  from the fetched snapshot into ``/tmp`` (never into the repository): ``a`` the odd weeks of the
  adapter's 21 (1st, 3rd, ...: the tune half), ``b`` the even ones (the report half), each cut to
  its first ``--weeks-per-half``; ``c`` (a second tune set) the weeks that cut leaves out of both,
  in date order (none without ``--weeks-per-half``);
- ``changelogs``, ``flask-docs``, ``django-docs``, ``django-releases``: ``data/real/<set>/``, questions of ``--split`` (default test).

``--sample N`` (seeded by ``--seed``) keeps N questions of a set, in file order. The corpus is
kept whole except where it is grouped by question: TimeQA keeps the pages (titles) of the
sampled questions, RealTimeQA the weeks (``--weeks-per-half``). Vectors are cached on disk by
encoder id and text digest (``SMARTVECTOR_EMBED_CACHE_DIR``, default
``/tmp/smartvector-embed-cache`` here; ``--no-cache`` turns it off), which leaves every answer as
it was and makes a second run cheap. ``SMARTVECTOR_REALDATA`` overrides where the shared sets lie
(default ``../shared/realdata``; for a checkout elsewhere, e.g. an exported earlier commit).

    nice -n 10 python scripts/bench/real.py --sample 200 --out /tmp/bench-real/before
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REALDATA = Path(os.environ.get("SMARTVECTOR_REALDATA", ROOT.parent / "shared" / "realdata"))
SNAPSHOT = Path("/work/.mirror/realtimeqa+realtimeqa_public/repo")
SHARED_SETS = ("timeqa-train", "situatedqa-train", "situatedqa-dev")
NEWS_SETS = ("rtqa-a", "rtqa-b", "rtqa-c")
OWN_SETS = ("changelogs", "flask-docs", "django-docs", "django-releases")
ALL_SETS = SHARED_SETS + NEWS_SETS + OWN_SETS
PROFILES = "naive,bm25,hybrid,temporal,default"
COLUMNS = (("top1", "top-1"), ("containment_at_5", "hit@5"), ("answer_containment_at_5", "answer@5"),
           ("stale_at_1", "stale@1"), ("ece", "ECE"), ("mrr", "MRR"), ("mean_passages", "passages"))
ADAPTER_WEEKS = ("20220617", "20220624", "20220701", "20220708", "20220715", "20220722", "20220729",
                 "20220805", "20220812", "20220819", "20220826", "20220902", "20220909", "20220916",
                 "20220923", "20220930", "20221007", "20221014", "20221021", "20221104", "20221111")


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def sample(rows: list[dict], n: int | None, seed: int, name: str) -> list[dict]:
    """``n`` rows chosen with ``random.Random(f"{seed}:{name}")``, kept in file order."""
    if not n or n >= len(rows):
        return rows
    keep = set(random.Random(f"{seed}:{name}").sample(range(len(rows)), n))
    return [r for i, r in enumerate(rows) if i in keep]


def news_weeks(half: str, per_half: int | None) -> list[str]:
    """Half ``a`` (odd weeks) or ``b`` (even weeks) cut to its first ``per_half``; ``c`` the rest of
    both, in date order."""
    if half == "c":
        if not per_half:
            raise SystemExit("rtqa-c is the weeks --weeks-per-half leaves out: give --weeks-per-half")
        return sorted(ADAPTER_WEEKS[0::2][per_half:] + ADAPTER_WEEKS[1::2][per_half:])
    weeks = ADAPTER_WEEKS[0::2] if half == "a" else ADAPTER_WEEKS[1::2]
    return weeks[:per_half] if per_half else weeks


def build_news(half: str, per_half: int | None) -> tuple[Path, Path]:
    weeks = news_weeks(half, per_half)
    out = Path(f"/tmp/rtqa2022-{half}-{weeks[0]}-{len(weeks)}")
    if not (out / "queries.jsonl").is_file():
        subprocess.run([sys.executable, str(REALDATA / "realtimeqa_adapter.py"), "--snapshot", str(SNAPSHOT),
                        "--out", str(out), "--weeks", ",".join(weeks)], check=True, capture_output=True)
    return out / "corpus.jsonl", out / "queries.jsonl"


def split_queries(name: str, split: str, folder: Path, n: int | None = None, seed: int = 7) -> Path:
    """The questions of one split (``test``, ``tune`` or ``all``) of a ``data/real`` set, sampled,
    written to ``folder``."""
    rows = read_jsonl(ROOT / "data" / "real" / name / "queries.jsonl")
    kept = [q for q in rows if split == "all" or q.get("split") == split]
    return write_jsonl(folder / f"{name}-{split}.jsonl", sample(kept, n, seed, name))


def prepare(name: str, args, folder: Path) -> tuple[Path, Path]:
    """The corpus and queries files of one set, sampled (module docstring)."""
    if name in NEWS_SETS:
        corpus, queries = build_news(name[-1], args.weeks_per_half)
        rows = sample(read_jsonl(queries), args.sample, args.seed, name)
        return corpus, write_jsonl(folder / f"{name}-queries.jsonl", rows)
    if name in OWN_SETS:
        return ROOT / "data" / "real" / name / "corpus.jsonl", split_queries(name, args.split, folder,
                                                                            args.sample, args.seed)
    base = REALDATA / name
    rows = sample(read_jsonl(base / "queries.jsonl"), args.sample, args.seed, name)
    corpus = base / "corpus.jsonl"
    if name.startswith("timeqa") and args.sample:
        docs = read_jsonl(corpus)
        pages = {d["id"].split("#")[0] for q in rows for d in docs if d["id"] in set(q.get("relevant", ()))}
        corpus = write_jsonl(folder / f"{name}-corpus.jsonl", [d for d in docs if d["id"].split("#")[0] in pages])
    return corpus, write_jsonl(folder / f"{name}-queries.jsonl", rows)


def run_bench(corpus: Path, queries: Path, profiles: str, dump: Path, env: dict) -> dict:
    cmd = [sys.executable, "-m", "smartvector_core", "bench", "--corpus", str(corpus), "--queries", str(queries),
           "--profiles", profiles, "--k", "5", "--json", "--dump", str(dump)]
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"bench failed on {corpus} (exit {done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def recency_baselines(corpus: Path, queries: Path, env: dict) -> dict:
    """``recency_baselines.py`` on a store that this checkout's ``ingest`` builds from ``corpus``
    in a fresh temporary directory: the baselines read the store's chunks, so a store kept from
    an earlier run (another chunker) would measure them on other passages."""
    with tempfile.TemporaryDirectory(prefix="bench-real-baselines-") as tmp:
        store = Path(tmp) / "store"
        subprocess.run([sys.executable, "-m", "smartvector_core", "--store", str(store), "ingest", str(corpus)],
                       cwd=ROOT, env=env, check=True, capture_output=True)
        done = subprocess.run([sys.executable, str(REALDATA / "recency_baselines.py"), str(store), str(queries)],
                              cwd=ROOT, env={**env, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True,
                              check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def table(name: str, out: dict) -> str:
    n = next(iter(out["profiles"].values()))["n"]
    rows = [f"**{name}** ({n} questions, {out['params'].get('n_documents')} documents)", "",
            "| profile | " + " | ".join(c for _, c in COLUMNS) + " |", "|---" * (len(COLUMNS) + 1) + "|"]
    for profile, m in out["profiles"].items():
        rows.append(f"| {profile} | " + " | ".join("–" if m.get(k) is None else f"{m[k]:.3f}" for k, _ in COLUMNS) + " |")
    types = sorted({t for m in out["profiles"].values() for t in m.get("by_type", {})})
    if len(types) > 1:
        names = list(out["profiles"])
        rows += ["", "top-1 / stale@1 by question type:", "",
                 "| type (n) | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
        for t in types:
            cells = [out["profiles"][p]["by_type"].get(t) for p in names]
            count = next(c["n"] for c in cells if c)
            rows.append(f"| {t} ({count}) | " + " | ".join(
                f"{c['top1']:.3f} / {c['stale_at_1']:.3f}" if c else "–" for c in cells) + " |")
    if any("high_n" in m for m in out["profiles"].values()):
        rows += ["", "confidence of the top result (issue 28's targets):", "",
                 "| profile | ECE | AUROC | distinct / 100 | HIGH precision (n) |", "|---|---|---|---|---|"]
        for profile, c in out["profiles"].items():
            cells = [f"{c['ece']:.3f}", "–" if c["auroc"] is None else f"{c['auroc']:.3f}", f"{c['distinct_per_100']:.0f}",
                     ("–" if c["high_precision"] is None else f"{c['high_precision']:.3f}") + f" ({c['high_n']})"]
            rows.append(f"| {profile} | " + " | ".join(cells) + " |")
    if "recency_baselines" in out:
        b = out["recency_baselines"]
        rows += ["", "two-line baselines (top-1): " + ", ".join(f"{k} {v:.3f}" for k, v in b.items() if k != "n")]
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", help="default all (rtqa-c only with --weeks-per-half)")
    parser.add_argument("--profiles", default=PROFILES)
    parser.add_argument("--sample", type=int, help="questions kept per set (seeded)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--weeks-per-half", dest="weeks_per_half", type=int,
                        help="RealTimeQA: the first W weeks of each half (default all)")
    parser.add_argument("--split", default="test", choices=["test", "tune", "all"], help="data/real sets only")
    parser.add_argument("--out", type=Path, default=Path("/tmp/bench-real/latest"),
                        help="folder for each set's bench JSON, per-question dump and table.md")
    parser.add_argument("--no-cache", dest="no_cache", action="store_true", help="no on-disk vector cache")
    args = parser.parse_args(argv)
    env = {**os.environ, "LANCEDB_LOG": "error"}
    if args.no_cache:
        env.pop("SMARTVECTOR_EMBED_CACHE_DIR", None)
    else:
        env.setdefault("SMARTVECTOR_EMBED_CACHE_DIR", "/tmp/smartvector-embed-cache")
    args.out.mkdir(parents=True, exist_ok=True)
    tables = []
    sets = args.sets or ",".join(s for s in ALL_SETS if s != "rtqa-c" or args.weeks_per_half)
    for name in [s for s in sets.split(",") if s]:
        if name not in ALL_SETS:
            raise SystemExit(f"unknown set {name!r}: expected one of {', '.join(ALL_SETS)}")
        t0 = time.time()
        corpus, queries = prepare(name, args, args.out)
        out = run_bench(corpus, queries, args.profiles, args.out / f"{name}.dump.jsonl", env)
        if name in NEWS_SETS:
            out["recency_baselines"] = recency_baselines(corpus, queries, env)
        (args.out / f"{name}.json").write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
        tables.append(table(name, out))
        print(tables[-1] + f"\n\n({time.time() - t0:.0f} s)\n", flush=True)
    (args.out / "table.md").write_text("\n\n".join(tables) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
