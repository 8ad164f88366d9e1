"""Mutation check of the engine's core: how many plausible one-line bugs do the tests catch?

One command (``make mutation``) does everything in COPIES of the repository, never touching the
working tree:

1. copy the tracked and untracked-but-not-ignored files into a temporary folder per worker;
2. run the tests once under coverage.py with one context per test function (``dynamic_context =
   test_function``) over the core packages, with a JUnit report for each test's time and outcome;
3. list every mutation site of the core modules (``smartvector_core/{temporal,retrieval,memory,
   consolidation,ingest}``), draw a deterministic sample (``--sample``, default 150, ``--seed``),
   and for each mutant splice ONE token of ONE line in a worker's copy and run only the tests that
   executed that line: fastest first, stopping at the first failure (``-x``), as many as fit in
   ``--test-budget`` seconds of their baseline time (default 30); a line run only at import time
   is covered by the tests of its file. The dashboard, cluster and adapter tests
   (``tests/ui``, ``tests/scaleout``, ``tests/api``, ``tests/integrations``) and the browser test
   are left out (``--ignore``, ``--marker``): they are not about the core;
4. write ``<out>/mutation.json`` and ``<out>/mutation.md``: killed / survived / not covered per
   package, the score, and each survivor with its line before and after.

Operators (one token each, the classic set of mutmut / cosmic-ray): comparison swaps
(``<``/``<=``, ``>``/``>=``, ``==``/``!=``, ``is``/``is not``, ``in``/``not in``), arithmetic and
bitwise swaps (``+``/``-``, ``*``/``/``, ``//``/``/``, ``**``/``*``, ``&``/``|``, also in augmented
assignments), ``and``/``or``, dropping ``not`` / ``~`` / unary ``-``, constants (int ``n`` -> ``n+1``,
float ``x`` -> ``x+1``, ``True``/``False``) and the names ``min``/``max``, ``minimum``/``maximum``,
``argmin``/``argmax``, ``any``/``all``. Not mutated: strings, annotations, decorators, ``raise``
and ``assert`` statements, f-strings, lines marked ``# pragma: no mutate``.

Score = killed / (mutants - equivalent - error - skipped), where the equivalent mutants are listed, each with the
reason it cannot change behaviour, in ``scripts/dev/mutation_equivalent.txt`` (one
``path | stripped source line | operator`` per line). A mutant is *killed* when a selected test
fails, errors or times out; *survived* when all pass; *not covered* when no test runs its line
(counted as survived); *error* when pytest could not run them (our fault, not the tests');
*skipped* when ``--max-minutes`` (default 28) ran out before it started: the mutants run in the
drawn random order, so a run cut short is still a random sample.

Usage: ``make mutation`` or ``python scripts/dev/mutation.py`` (full run: under 30 min on the two
idle cores);
``python scripts/dev/mutation.py --sample 20 --tests tests/retrieval tests/ingest`` (a quick check);
``python scripts/dev/mutation.py --list`` (count the sites).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGE = "smartvector_core"
CORE = ("temporal", "retrieval", "memory", "consolidation", "ingest")
EQUIVALENT_FILE = REPO / "scripts" / "dev" / "mutation_equivalent.txt"

COMPARE = {ast.Lt: ("<", "<="), ast.LtE: ("<=", "<"), ast.Gt: (">", ">="), ast.GtE: (">=", ">"),
           ast.Eq: ("==", "!="), ast.NotEq: ("!=", "=="), ast.Is: ("is", "is not"),
           ast.IsNot: ("is not", "is"), ast.In: ("in", "not in"), ast.NotIn: ("not in", "in")}
BINARY = {ast.Add: ("+", "-"), ast.Sub: ("-", "+"), ast.Mult: ("*", "/"), ast.Div: ("/", "*"),
          ast.FloorDiv: ("//", "/"), ast.Pow: ("**", "*"), ast.BitAnd: ("&", "|"), ast.BitOr: ("|", "&"),
          ast.Mod: ("%", "*")}
# one token, not part of a longer one
TOKEN_RE = {"<": r"(?<![<>=!])<(?![<=])", "<=": r"<=", ">": r"(?<![<>=-])>(?![>=])", ">=": r"(?<!>)>=",
            "==": r"==", "!=": r"!=", "is": r"\bis\b(?!\s+not\b)", "is not": r"\bis\s+not\b",
            "in": r"(?<!not )\bin\b", "not in": r"\bnot\s+in\b", "+": r"\+(?!=)", "-": r"-(?![=>])",
            "*": r"(?<!\*)\*(?![*=])", "/": r"(?<!/)/(?![/=])", "//": r"//(?!=)", "**": r"\*\*(?!=)",
            "&": r"&(?!=)", "|": r"\|(?!=)", "%": r"%(?!=)", "and": r"\band\b", "or": r"\bor\b"}
NAMES = {"min": "max", "max": "min", "minimum": "maximum", "maximum": "minimum", "argmin": "argmax",
         "argmax": "argmin", "any": "all", "all": "any"}


@dataclass
class Mutant:
    path: str              # relative to the repository
    line: int              # 1-based line of the mutated token
    op: str                # e.g. "< -> <="
    start: int             # byte offsets of the replaced span in the file
    end: int
    new: str               # replacement bytes (utf-8 text)
    stmt_lines: tuple[int, int]   # the enclosing statement's header lines (for coverage)
    original: str = ""     # the source line before and after
    mutated: str = ""
    status: str = ""       # killed | survived | not covered | error
    tests: int = 0
    seconds: float = 0.0
    killer: str = ""

    @property
    def key(self) -> str:
        return f"{self.path} | {self.original.strip()} | {self.op}"


# ------------------------------------------------------------------------------------------ sites
class _Sites(ast.NodeVisitor):
    """Every mutation site of one module, in source order of the AST walk."""

    def __init__(self, path: str, source: bytes) -> None:
        self.path, self.source = path, source
        self.starts = [0]
        for i, b in enumerate(source):
            if b == 10:
                self.starts.append(i + 1)
        self.lines = source.decode("utf-8").splitlines()
        self.out: list[Mutant] = []
        self.stmt: tuple[int, int] = (1, 1)

    def _off(self, lineno: int, col: int) -> int:
        return self.starts[lineno - 1] + col

    def _line_of(self, offset: int) -> int:
        lo, hi = 0, len(self.starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1

    def _add(self, start: int, end: int, new: str, op: str) -> None:
        line = self._line_of(start)
        text = self.lines[line - 1]
        if "pragma: no mutate" in text:
            return
        self.out.append(Mutant(self.path, line, op, start, end, new, self.stmt))

    def _token(self, left: ast.AST, right: ast.AST, token: str, new: str, op: str) -> None:
        """The ``token`` between the end of ``left`` and the start of ``right``."""
        a = self._off(left.end_lineno, left.end_col_offset)
        b = self._off(right.lineno, right.col_offset)
        segment = self.source[a:b].decode("utf-8")
        segment = re.sub(r"#[^\n]*", lambda m: " " * len(m.group()), segment)
        found = re.search(TOKEN_RE[token], segment)
        if found:
            start = a + len(segment[:found.start()].encode())
            self._add(start, start + len(found.group().encode()), new, op)

    # statements: remember the lines coverage reports for them
    def generic_visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.stmt):
            saved = self.stmt
            body = getattr(node, "body", None)
            if isinstance(body, list) and body and isinstance(body[0], ast.AST):
                self.stmt = (node.lineno, max(node.lineno, body[0].lineno - 1))
            else:
                self.stmt = (node.lineno, node.end_lineno or node.lineno)
            super().generic_visit(node)
            self.stmt = saved
        else:
            super().generic_visit(node)

    # never mutated
    def visit_Raise(self, node):  # noqa: N802
        return

    def visit_Assert(self, node):  # noqa: N802
        return

    def visit_JoinedStr(self, node):  # noqa: N802
        return

    def visit_arg(self, node):  # noqa: N802 - annotations only
        return

    def visit_AnnAssign(self, node):  # noqa: N802
        if node.value is not None:
            saved = self.stmt
            self.stmt = (node.lineno, node.end_lineno or node.lineno)
            self.visit(node.value)
            self.stmt = saved

    def _function(self, node) -> None:
        saved = self.stmt
        self.stmt = (node.lineno, node.lineno)
        for default in [*node.args.defaults, *[d for d in node.args.kw_defaults if d is not None]]:
            self.visit(default)
        for stmt in node.body:
            self.visit(stmt)
        self.stmt = saved

    visit_FunctionDef = visit_AsyncFunctionDef = _function  # noqa: N815

    def visit_ClassDef(self, node):  # noqa: N802
        for stmt in node.body:
            self.visit(stmt)

    # sites
    def visit_Compare(self, node):  # noqa: N802
        left = node.left
        for op, right in zip(node.ops, node.comparators, strict=True):
            if type(op) in COMPARE:
                old, new = COMPARE[type(op)]
                self._token(left, right, old, new, f"{old} -> {new}")
            left = right
        self.generic_visit(node)

    def visit_BinOp(self, node):  # noqa: N802
        if type(node.op) in BINARY:
            old, new = BINARY[type(node.op)]
            self._token(node.left, node.right, old, new, f"{old} -> {new}")
        self.generic_visit(node)

    def visit_AugAssign(self, node):  # noqa: N802
        if type(node.op) in BINARY:
            old, new = BINARY[type(node.op)]
            a = self._off(node.target.end_lineno, node.target.end_col_offset)
            b = self._off(node.value.lineno, node.value.col_offset)
            segment = self.source[a:b].decode("utf-8")
            at = segment.find(old + "=")
            if at >= 0:
                saved = self.stmt
                self.stmt = (node.lineno, node.end_lineno or node.lineno)
                start = a + len(segment[:at].encode())
                self._add(start, start + len(old), new, f"{old}= -> {new}=")
                self.stmt = saved
        self.generic_visit(node)

    def visit_BoolOp(self, node):  # noqa: N802
        old, new = ("and", "or") if isinstance(node.op, ast.And) else ("or", "and")
        # every connective of the operation at once (one mutant), rightmost first for stable offsets
        spans = []
        for left, right in zip(node.values, node.values[1:], strict=False):
            a = self._off(left.end_lineno, left.end_col_offset)
            b = self._off(right.lineno, right.col_offset)
            segment = self.source[a:b].decode("utf-8")
            found = re.search(TOKEN_RE[old], segment)
            if found:
                spans.append((a + len(segment[:found.start()].encode()), len(old)))
        if spans:
            start = spans[0][0]
            end = spans[-1][0] + spans[-1][1]
            text = self.source[start:end].decode("utf-8")
            replaced = text
            for s, n in reversed(spans):
                rel = len(self.source[start:s].decode("utf-8"))
                replaced = replaced[:rel] + new + replaced[rel + n:]
            self._add(start, end, replaced, f"{old} -> {new}")
        self.generic_visit(node)

    def visit_UnaryOp(self, node):  # noqa: N802
        names = {ast.Not: "not", ast.Invert: "~", ast.USub: "-"}
        if type(node.op) in names and not (isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant)):
            token = names[type(node.op)]
            start = self._off(node.lineno, node.col_offset)
            end = start + len(token)
            if self.source[start:end].decode() == token:
                while token == "not" and self.source[end:end + 1] in (b" ", b"\t"):
                    end += 1
                self._add(start, end, "", f"drop {token}")
        self.generic_visit(node)

    def visit_Constant(self, node):  # noqa: N802
        value = node.value
        if isinstance(value, bool):
            new = "False" if value else "True"
        elif isinstance(value, int):
            new = str(value + 1)
        elif isinstance(value, float):
            new = repr(value + 1.0)
        else:
            return
        start = self._off(node.lineno, node.col_offset)
        end = self._off(node.end_lineno, node.end_col_offset)
        old = self.source[start:end].decode("utf-8")
        self._add(start, end, new, f"{old} -> {new}")

    def visit_Name(self, node):  # noqa: N802
        if node.id in NAMES and isinstance(node.ctx, ast.Load):
            start = self._off(node.lineno, node.col_offset)
            self._add(start, start + len(node.id), NAMES[node.id], f"{node.id} -> {NAMES[node.id]}")

    def visit_Attribute(self, node):  # noqa: N802
        if node.attr in NAMES and isinstance(node.ctx, ast.Load):
            end = self._off(node.end_lineno, node.end_col_offset)
            if self.source[end - len(node.attr):end].decode() == node.attr:
                self._add(end - len(node.attr), end, NAMES[node.attr], f".{node.attr} -> .{NAMES[node.attr]}")
        self.generic_visit(node)


def module_sites(root: Path, rel: str) -> list[Mutant]:
    source = (root / rel).read_bytes()
    tree = ast.parse(source)
    visitor = _Sites(rel, source)
    for i, stmt in enumerate(tree.body):    # module docstring and __all__ are not behaviour
        if i == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue
        visitor.visit(stmt)
    for m in visitor.out:
        m.original = visitor.lines[m.line - 1]
        mutated = source[:m.start] + m.new.encode() + source[m.end:]
        m.mutated = mutated.decode("utf-8").splitlines()[m.line - 1] if m.new or m.line <= len(
            mutated.decode("utf-8").splitlines()) else ""
    return visitor.out


def core_files(root: Path, packages: list[str]) -> list[str]:
    out = []
    for pkg in packages:
        base = root / PACKAGE / pkg
        files = sorted(base.rglob("*.py")) if base.is_dir() else [root / PACKAGE / f"{pkg}.py"]
        out += [str(p.relative_to(root)) for p in files if p.exists()]
    return out


# ------------------------------------------------------------------------------------------ copies
def copy_repo(dest: Path) -> Path:
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO, check=True,
                            capture_output=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        src = REPO / rel
        if src.is_file() and not src.is_symlink():
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, target)
    return dest


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(OMP_NUM_THREADS="1", SMARTVECTOR_EMBED_THREADS="1", PYTHONDONTWRITEBYTECODE="1",
               PYTHONHASHSEED="0", LANCEDB_LOG="error")
    env.pop("SMARTVECTOR_STORE", None)
    return env


def _pytest(args: list[str]) -> list[str]:
    return [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--no-header", "-o", "addopts=",
            *args]


# ------------------------------------------------------------------------------------------ coverage
def coverage_map(root: Path, tests: list[str], marker: str, packages: list[str], log,
                 ignore: list[str] = ()) -> tuple[dict, dict, set]:
    """(file -> line -> test node ids, test node id -> seconds, failing node ids) from one run."""
    rc = root / ".coveragerc-mutation"
    sources = ",".join(f"{PACKAGE}/{p}" for p in packages)
    rc.write_text(f"[run]\nsource = {sources}\ndynamic_context = test_function\ndata_file = {root}/.coverage-mutation\n")
    junit = root / "junit-mutation.xml"
    cmd = [sys.executable, "-m", "coverage", "run", f"--rcfile={rc}", "-m", "pytest", "-q", "-p", "no:cacheprovider",
           "--no-header", "-o", "addopts=", "-m", marker, f"--junitxml={junit}",
           *[f"--ignore={p}" for p in ignore], *tests]
    t0 = time.time()
    done = subprocess.run(cmd, cwd=root, env=_env(), capture_output=True, text=True)
    log(f"coverage run: {time.time() - t0:.0f}s, pytest exit {done.returncode}: {done.stdout.strip().splitlines()[-1:]}")
    durations: dict[str, float] = defaultdict(float)
    failing: set[str] = set()
    for case in ET.parse(junit).getroot().iter("testcase"):
        cls, name = case.get("classname", ""), case.get("name", "")
        node = _node_id(root, cls, name.split("[")[0])
        if node is None:
            continue
        durations[node] += float(case.get("time", 0) or 0)
        if case.find("failure") is not None or case.find("error") is not None:
            failing.add(node)
    from coverage import CoverageData

    data = CoverageData(basename=str(root / ".coverage-mutation"))
    data.read()
    by_line: dict[str, dict[int, set[str]]] = {}
    ids: dict[str, str | None] = {}
    for filename in data.measured_files():
        rel = str(Path(filename).resolve().relative_to(root.resolve()))
        lines: dict[int, set[str]] = defaultdict(set)
        for line, contexts in data.contexts_by_lineno(filename).items():
            for ctx in contexts:
                if ctx not in ids:
                    ids[ctx] = _context_node(root, ctx) if ctx else None
                lines[line].add(ids[ctx] or "")
        by_line[rel] = lines
    return by_line, dict(durations), failing


def _node_id(root: Path, classname: str, name: str) -> str | None:
    parts = classname.split(".")
    for i in range(len(parts), 0, -1):
        path = Path(*parts[:i]).with_suffix(".py")
        if (root / path).is_file():
            return "::".join([str(path), *parts[i:], name])
    return None


def _context_node(root: Path, context: str) -> str | None:
    parts = context.split(".")
    return _node_id(root, ".".join(parts[:-1]), parts[-1]) if len(parts) > 1 else None


def _fastest(tests: set[str], durations: dict, budget_s: float) -> list[str]:
    """``tests`` fastest first, as many as fit in ``budget_s`` seconds of baseline time (at least one)."""
    total, out = 0.0, []
    for t in sorted(tests, key=lambda t: (durations.get(t, 1.0), t)):
        if out and total + durations.get(t, 1.0) > budget_s:
            break
        out.append(t)
        total += durations.get(t, 1.0)
    return out


def select_tests(m: Mutant, by_line: dict, durations: dict, failing: set, budget_s: float) -> list[str]:
    """Tests that ran the mutated statement, fastest first, up to ``budget_s`` seconds of their
    baseline time. A statement run only at import time (module constants, defaults) is covered by
    the tests of any line of its file."""
    lines = by_line.get(m.path, {})
    lo, hi = m.stmt_lines
    chosen: set[str] = set()
    import_only = False
    for line in {*range(lo, hi + 1), m.line}:
        found = lines.get(line, set())
        chosen |= found - {""}
        import_only |= "" in found
    if not chosen and import_only:
        chosen = {t for ts in lines.values() for t in ts if t}
    return _fastest(chosen - failing, durations, budget_s)


# ------------------------------------------------------------------------------------------ run
def run_mutant(root: Path, m: Mutant, tests: list[str], durations: dict, per_test_timeout: int) -> None:
    if not tests:
        m.status = "not covered"
        return
    path = root / m.path
    original = path.read_bytes()
    path.write_bytes(original[:m.start] + m.new.encode() + original[m.end:])
    budget = min(900.0, 60.0 + 3.0 * sum(durations.get(t, 1.0) for t in tests))
    t0 = time.time()
    try:
        done = subprocess.run(_pytest(["-x", f"--timeout={per_test_timeout}", *tests]), cwd=root, env=_env(),
                              capture_output=True, text=True, timeout=budget)
        code, out = done.returncode, done.stdout + done.stderr
    except subprocess.TimeoutExpired:
        code, out = -1, ""
    finally:
        path.write_bytes(original)
    m.seconds = round(time.time() - t0, 1)
    m.tests = len(tests)
    usage = code == 4 and re.search(r"^ERROR: (usage|file or directory not found|not found)", out, re.M)
    if code == 0:
        m.status = "survived"
    elif code in (1, 2, 3, 4, -1) and not usage:   # 4: the mutant broke an import (conftest)
        m.status = "killed"
        failed = re.findall(r"^(?:FAILED|ERROR) (\S+)", out, re.M)
        m.killer = failed[0] if failed else ("timeout" if code == -1 else f"pytest exit {code}")
    else:
        m.status = "error"
        m.killer = f"pytest exit {code}: {out.strip().splitlines()[-1:] if out else ''}"


def load_equivalent() -> dict[str, str]:
    out = {}
    if EQUIVALENT_FILE.exists():
        for raw in EQUIVALENT_FILE.read_text(encoding="utf-8").splitlines():
            if not raw.strip() or raw.lstrip().startswith("#"):
                continue
            key, _, why = raw.rpartition("  # ")
            out[key.strip()] = why.strip()
    return out


def summarise(mutants: list[Mutant], equivalent: dict[str, str], meta: dict) -> tuple[dict, str]:
    per_pkg: dict[str, Counter] = defaultdict(Counter)
    for m in mutants:
        pkg = m.path.split("/")[1] if m.path.count("/") >= 2 else m.path
        status = "equivalent" if m.status in ("survived", "not covered") and m.key in equivalent else m.status
        per_pkg[pkg][status] += 1
        per_pkg["all"][status] += 1

    def score(c: Counter) -> float | None:
        denominator = sum(c.values()) - c["equivalent"] - c["error"] - c["skipped"]
        return round(c["killed"] / denominator, 4) if denominator else None

    table = {pkg: {**dict(c), "score": score(c)} for pkg, c in sorted(per_pkg.items())}
    skipped = f"; {meta['skipped_for_time']} not run (out of time)" if meta.get("skipped_for_time") else ""
    report = {**meta, "by_package": table,
              "mutants": [{**{k: v for k, v in asdict(m).items() if k not in ("start", "end", "new", "stmt_lines")},
                           "key": m.key, "equivalent": equivalent.get(m.key, "")} for m in mutants]}
    md = ["# Mutation check of the core", "",
          f"{meta['sampled']} of {meta['sites']} mutation sites (seed {meta['seed']}), {meta['tests_dir']}, "
          f"{meta['minutes']:.1f} min on {meta['workers']} workers{skipped}.", "",
          "| package | killed | survived | not covered | equivalent | error | skipped | score |",
          "|---|---|---|---|---|---|---|---|"]
    for pkg, c in table.items():
        shown = "" if c["score"] is None else f"{100 * c['score']:.1f}%"
        md.append(f"| {pkg} | {c.get('killed', 0)} | {c.get('survived', 0)} | {c.get('not covered', 0)} | "
                  f"{c.get('equivalent', 0)} | {c.get('error', 0)} | {c.get('skipped', 0)} | {shown} |")
    md += ["", "Score = killed / (mutants - equivalent - error - skipped).", "", "## Survivors (not judged equivalent)", ""]
    for m in mutants:
        if m.status in ("survived", "not covered") and m.key not in equivalent:
            md.append(f"- `{m.path}:{m.line}` {m.op} ({m.status}, {m.tests} tests)  \n  `{m.original.strip()}`  \n"
                      f"  `{m.mutated.strip()}`")
    md += ["", "## Judged equivalent", ""]
    for m in mutants:
        if m.status != "killed" and m.key in equivalent:
            md.append(f"- `{m.path}:{m.line}` {m.op}: {equivalent[m.key]}")
    return report, "\n".join(md) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--packages", nargs="+", default=list(CORE), help="core packages under smartvector_core")
    ap.add_argument("--tests", nargs="+", default=["tests"], help="test paths to measure with")
    ap.add_argument("--marker", default="not browser", help="pytest -m expression for the tests")
    ap.add_argument("--sample", type=int, default=150, help="mutants drawn (0: all)")
    ap.add_argument("--seed", type=int, default=20)
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--per-test-timeout", type=int, default=120)
    ap.add_argument("--test-budget", type=float, default=30.0,
                    help="seconds of baseline test time per mutant (fastest covering tests first)")
    ap.add_argument("--ignore", nargs="*", default=["tests/ui", "tests/scaleout", "tests/api", "tests/integrations"],
                    help="test paths left out (dashboard, cluster and adapters: not the core)")
    ap.add_argument("--max-minutes", type=float, default=28.0,
                    help="start no mutant after this many minutes (the rest are reported as skipped)")
    ap.add_argument("--out", default=str(REPO / ".mutation"))
    ap.add_argument("--list", action="store_true", help="count the mutation sites and exit")
    ap.add_argument("--keep", action="store_true", help="keep the copies (printed)")
    args = ap.parse_args(argv)

    files = core_files(REPO, args.packages)
    sites = [m for f in files for m in module_sites(REPO, f)]
    if args.list:
        for f, n in Counter(m.path for m in sites).most_common():
            print(f"{n:5d}  {f}")
        print(f"{len(sites)} sites in {len(files)} files")
        return 0
    rng = random.Random(args.seed)
    chosen = sites if not args.sample or args.sample >= len(sites) else rng.sample(sites, args.sample)
    order = list(chosen)                  # run in the drawn (random) order: a run cut short by
    chosen = sorted(chosen, key=lambda m: (m.path, m.start, m.op))   # --max-minutes is still a sample
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    lock = threading.Lock()

    def log(msg: str) -> None:
        with lock:
            print(msg, flush=True)

    started = time.time()
    work = Path(tempfile.mkdtemp(prefix="smartvector-mutation-"))
    try:
        roots = [copy_repo(work / f"w{i}") for i in range(max(1, args.workers))]
        log(f"{len(chosen)} of {len(sites)} mutants; copies in {work}")
        by_line, durations, failing = coverage_map(roots[0], args.tests, args.marker, args.packages, log, args.ignore)
        if failing:
            log(f"{len(failing)} test(s) fail without any mutant and are not used: {sorted(failing)[:5]}")
        for root in roots:
            for cache in (root / PACKAGE).rglob("__pycache__"):
                shutil.rmtree(cache, ignore_errors=True)
        queue = list(enumerate(order))
        deadline = started + 60.0 * args.max_minutes
        free = list(roots)

        def one(item: tuple[int, Mutant]) -> None:
            i, m = item
            if time.time() > deadline:
                m.status = "skipped"           # out of time: left out of the score, counted in the report
                return
            with lock:
                root = free.pop()
            try:
                run_mutant(root, m, select_tests(m, by_line, durations, failing, args.test_budget), durations,
                           args.per_test_timeout)
            finally:
                with lock:
                    free.append(root)
            log(f"[{i + 1}/{len(chosen)}] {m.status:11s} {m.path}:{m.line} {m.op} ({m.tests} tests, {m.seconds}s)")

        with ThreadPoolExecutor(max_workers=len(roots)) as pool:
            list(pool.map(one, queue))
    finally:
        if args.keep:
            print(f"copies kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    meta = {"sites": len(sites), "sampled": len(chosen), "seed": args.seed, "workers": len(roots),
            "skipped_for_time": sum(m.status == "skipped" for m in chosen),
            "tests_dir": " ".join(args.tests) + f" (-m '{args.marker}', ignoring {' '.join(args.ignore) or 'nothing'})",
            "test_budget_s": args.test_budget, "minutes": (time.time() - started) / 60,
            "packages": args.packages}
    report, md = summarise(chosen, load_equivalent(), meta)
    (out / "mutation.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    (out / "mutation.md").write_text(md, encoding="utf-8")
    print(md.split("## Survivors")[0])
    print(f"written: {out / 'mutation.json'}, {out / 'mutation.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
