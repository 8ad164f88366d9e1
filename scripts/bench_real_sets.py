"""Benchmark the real-text sets of ``data/real/`` through the CLI, on one split.

For each set, the questions of the chosen split are written to a temporary file and
``python -m smartvector_core bench --corpus … --queries … --profiles … --k 5 --json`` is run on
it, exactly as a user would. The JSON of each run is saved to ``OUT/<set>.json`` and a Markdown
table (top-1, containment@5, stale@1, ECE, MRR, mean passages returned) is printed.

    python scripts/bench_real_sets.py --split test --out data/real/bench/baseline
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SETS = ("changelogs", "flask-docs")
PROFILES = "naive,bm25,hybrid,temporal,default"
COLUMNS = (("top1", "top-1"), ("containment_at_5", "containment@5"), ("stale_at_1", "stale@1"), ("ece", "ECE"),
           ("mrr", "MRR"), ("mean_passages", "passages at k=5"))


def split_queries(name: str, split: str, folder: Path) -> Path:
    lines = (ROOT / "data" / "real" / name / "queries.jsonl").read_text(encoding="utf-8").splitlines()
    kept = [line for line in lines if line.strip() and (split == "all" or json.loads(line).get("split") == split)]
    path = folder / f"{name}-{split}.jsonl"
    path.write_text("\n".join(kept) + "\n", encoding="utf-8")
    return path


def run_set(name: str, split: str, profiles: str, folder: Path) -> dict:
    queries = split_queries(name, split, folder)
    cmd = [sys.executable, "-m", "smartvector_core", "bench", "--corpus", str(ROOT / "data" / "real" / name /
           "corpus.jsonl"), "--queries", str(queries), "--profiles", profiles, "--k", "5", "--json"]
    env = {**os.environ, "LANCEDB_LOG": "error"}
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"bench failed on {name} (exit {done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def table(name: str, out: dict) -> str:
    n = next(iter(out["profiles"].values()))["n"]
    rows = [f"**{name}** ({n} questions)", "", "| profile | " + " | ".join(c for _, c in COLUMNS) + " |",
            "|---" * (len(COLUMNS) + 1) + "|"]
    for profile, m in out["profiles"].items():
        cells = [f"{m[k]:.3f}" if k in m else "–" for k, _ in COLUMNS]
        rows.append(f"| {profile} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", default="test", choices=["test", "tune", "all"])
    parser.add_argument("--profiles", default=PROFILES)
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--out", type=Path, help="folder for the JSON of each run")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        for name in [s for s in args.sets.split(",") if s]:
            out = run_set(name, args.split, args.profiles, Path(tmp))
            if args.out:
                args.out.mkdir(parents=True, exist_ok=True)
                (args.out / f"{name}.json").write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
            print(table(name, out) + "\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
