"""Property tests (hypothesis): hostile records in every accepted format (JSON Lines, Markdown with
YAML front matter, plain text, PDF), alone or in a directory among good files, always give exit
2, exactly one stderr line naming the bad file, and a store unchanged: the documents, chunks,
events and edges tables hold the same bytes at the same table versions."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import shutil
from pathlib import Path

import pyarrow as pa
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from smartvector_core.cli import main
from smartvector_core.embedding import HashingEmbedder
from smartvector_core.ingest.parse import TEXT_FIELDS
from smartvector_core.service import SmartVector
from smartvector_core.settings import load_settings

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
GOOD = {"id": "good", "title": "Good note", "text": "A good note about rate limits.", "created_at": "2025-02-01"}
BASE = [{"id": "rules_v1", "title": "Rules", "text": "The old rules allow 10 requests per minute.",
         "created_at": "2025-01-01", "kind": "VERSIONED", "doc_type": "policy"},
        {"id": "rules_v2", "title": "Rules", "text": "The new rules allow 20 requests per minute.",
         "created_at": "2025-06-01", "kind": "VERSIONED", "doc_type": "policy", "supersedes": "rules_v1",
         "depends_on": ["handbook"]}]

HIDDEN = ["\u200b", "\u200d", "\u202e", "\u2066", "\ufeff", "\u00a0", "\u2028", "\x07", "\x00"]
BAD_TIMES = ["2025-13-45", "next tuesday", "0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00", "31/12/2025",
             "", " ", [], {}, [2025], 1e20, -1e20, True]


def nested(depth: int):
    value = "deep"
    for _ in range(depth):
        value = {"a": value}
    return value


# one hostile field each: (field, value) that any format's record may carry
hostile_field = st.one_of(
    st.tuples(st.just("id"), st.sampled_from([["a"], {"a": 1}, True, 1.5, "", "   ", "x" * 513]
                                             + [f"id{c}x" for c in HIDDEN] + HIDDEN)),
    st.tuples(st.just("text"), st.sampled_from([None, 5, ["a"], {"t": 1}, "", "  \n\t "])),
    st.tuples(st.sampled_from(["created_at", "valid_from", "valid_until"]), st.sampled_from(BAD_TIMES).filter(
        lambda v: v not in ("", " "))),
    st.tuples(st.just("authority"), st.sampled_from([-0.1, 1.5, "high", float("nan"), float("inf"), True, [0.5]])),
    st.tuples(st.just("kind"), st.sampled_from(["WHATEVER", 5, ["STATIC"]])),
    st.tuples(st.just("doc_type"), st.sampled_from([5, ["policy"], {"a": 1}])),
    st.tuples(st.just("metadata"), st.sampled_from([[], ["a"], "x", 5, True, {"v": float("nan")}, nested(40)])),
    st.tuples(st.sampled_from(["supersedes", "depends_on"]), st.sampled_from(
        ["self", [1], [""], {"a": 1}, ["ok", None]] + [f"ref{c}x" for c in HIDDEN])),
    st.tuples(st.sampled_from(["title", "version", "source"]), st.sampled_from([["a"], {"a": 1}])),
)


def bad_record(field: str, value, doc_id: str) -> dict:
    record = {**GOOD, "id": doc_id}
    if value is None:
        record.pop(field, None)
    else:
        record[field] = doc_id if value == "self" else value
    return record


def _ordered_window(doc_id: str) -> dict:
    return {**GOOD, "id": doc_id, "valid_from": "2025-06-01", "valid_until": "2025-01-01"}


# ---------------------------------------------------------------------------------- files
def jsonl_bytes(record: dict | str) -> bytes:
    good = json.dumps({**GOOD, "id": "good-line"})
    line = record if isinstance(record, str) else json.dumps(record)
    return (good + "\n" + line + "\n").encode()


def front_matter(record: dict, body: str = "The body of the note.") -> bytes:
    fields = {k: v for k, v in record.items() if k != "text"}
    if "text" in record and record["text"] != GOOD["text"]:
        fields["text"] = record["text"]
    return ("---\n" + yaml.safe_dump(fields, allow_unicode=True, sort_keys=False) + "---\n" + body + "\n").encode()


YAML_ONLY = [
    "title: T\n1: one", "title: T\n~: none", "title: T\n2024-01-01: day", "title: A\ntitle: B",
    "x: " + "[" * 3000 + "]" * 3000, "x: " + "[" * 40 + "]" * 40,
    "\n".join([f'l0: &l0 [{", ".join(["lol"] * 9)}]'] + [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]"
                                                       for i in range(1, 9)]),
    "metadata:\n  blob: !!binary aGVsbG8=", "metadata: !!set {a, b}", "title: [unclosed", "- a list\n- not a mapping",
    "title: \"bad \\x escape\"",
]
TEXT_ONLY = [b"", b"\n\n  \n", b"hello\x00binary", b"caf\xe9 not utf-8", b"%PDF-1.4 pretending to be text",
             b"\xff\xfe\x00\x00"]

jsonl_file = st.one_of(
    hostile_field.map(lambda fv: ("bad.jsonl", jsonl_bytes(bad_record(fv[0], fv[1], "hostile")))),
    st.just(("bad.jsonl", jsonl_bytes(_ordered_window("window")))),
    st.sampled_from(['{"id": "a", "id": "b", "text": "x"}', '{"id": "a", "text": "x",', "[1, 2]", '"text"',
                     '{"id": "a", "text": "x", "metadata": ' + '{"a": ' * 40 + "1" + "}" * 40 + "}"]
                    ).map(lambda line: ("bad.jsonl", jsonl_bytes(line))),
    st.sampled_from([b"", b"\n \n", b"\x00\x01\x02", b"\xc3\x28"]).map(lambda data: ("bad.jsonl", data)),
)
def _refused_in_front_matter(fv) -> bool:
    """Whether a hostile (field, value) is still bad in front matter, where the plain scalars of
    the text fields are read as written (``doc_type: 5`` is the profile name "5", like the JSON
    string "5"; ``id: true`` is the id "true"). A kind read as text must still be a kind."""
    field, value = fv
    if field == "text" and value is None:
        return False
    return not (field in TEXT_FIELDS and field != "kind" and isinstance(value, (int, float)))


markdown_file = st.one_of(
    hostile_field.filter(_refused_in_front_matter).map(
        lambda fv: ("bad.md", front_matter(bad_record(fv[0], fv[1], "hostile")))),
    st.sampled_from(YAML_ONLY).map(lambda front: ("bad.md", f"---\n{front}\n---\nBody.\n".encode())),
)
text_file = st.one_of(
    st.sampled_from(TEXT_ONLY).map(lambda data: ("bad.txt", data)),
    hostile_field.filter(lambda fv: fv[0] not in ("text",) and _refused_in_front_matter(fv)).map(
        lambda fv: ("bad.txt", front_matter(bad_record(fv[0], fv[1], "hostile")))),
)
pdf_file = st.one_of(
    st.binary(max_size=400).map(lambda tail: ("bad.pdf", b"%PDF-1." + tail)),
    st.binary(min_size=1, max_size=100).filter(lambda b: not b.startswith(b"%PDF")).map(lambda b: ("bad.pdf", b)),
)


def blank_pdf() -> bytes:
    from pypdf import PdfWriter

    writer = PdfWriter()
    writer.add_blank_page(width=200, height=200)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


# ---------------------------------------------------------------------------------- store
@pytest.fixture(scope="module")
def seeded(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("hostile")
    store = root / "store"
    base = root / "base.jsonl"
    base.write_text("".join(json.dumps(r) + "\n" for r in BASE), encoding="utf-8")
    assert run(store, "ingest", str(base))[0] == 0
    assert run(store, "feedback", "rules_v2", "accept", "--query-id", "q0")[0] == 0
    return store


def run(store: Path, *args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as mp, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        mp.setenv("SMARTVECTOR_MODEL", "hashing")
        code = main(["--store", str(store), *args])
    return code, out.getvalue(), err.getvalue()


def fingerprint(store: Path) -> dict[str, tuple[int, str]]:
    """(table version, SHA-256 of its rows in Arrow IPC) of chunks (documents), edges, events, queries."""
    app = SmartVector(load_settings(str(store), env={}), embedder=HashingEmbedder())
    out = {}
    for name in ("chunks", "edges", "events", "queries"):
        rows = app.store.all_rows(name)
        sink = io.BytesIO()
        with pa.ipc.new_stream(sink, rows.schema) as writer:
            writer.write_table(rows)
        out[name] = (app.store.version(name), hashlib.sha256(sink.getvalue()).hexdigest())
    return out


HELD: dict[str, int] = {}


def check(seeded: Path, tmp: Path, name: str, data: bytes, among_good: int, fmt: str) -> None:
    """Write the bad file (alone, or in a folder among ``among_good`` good files), ingest, assert."""
    before = fingerprint(seeded)
    folder = tmp / f"case{sum(HELD.values())}"
    folder.mkdir()
    bad = folder / name
    bad.write_bytes(data)
    for i in range(among_good):  # good files sort before and after the bad one
        (folder / f"{'a' if i % 2 else 'z'}good{i}.md").write_text(
            f"---\ntitle: Good {i}\n---\nA good note number {i}.\n", encoding="utf-8")
    code, out, err = run(seeded, "ingest", str(folder if among_good else bad))
    assert code == 2, (name, data[:200], err)
    assert err.count("\n") == 1 and err.startswith("error: ") and str(bad) in err, err
    assert "Traceback" not in err and out == ""
    assert fingerprint(seeded) == before
    HELD[fmt] = HELD.get(fmt, 0) + 1


@SETTINGS
@given(case=jsonl_file, among_good=st.sampled_from([0, 0, 3]))
def test_hostile_jsonl(seeded, tmp_path_factory, case, among_good):
    check(seeded, tmp_path_factory.mktemp("j"), *case, among_good, "jsonl")


@SETTINGS
@given(case=markdown_file, among_good=st.sampled_from([0, 0, 3]))
def test_hostile_markdown(seeded, tmp_path_factory, case, among_good):
    check(seeded, tmp_path_factory.mktemp("m"), *case, among_good, "markdown")


@SETTINGS
@given(case=text_file, among_good=st.sampled_from([0, 0, 3]))
def test_hostile_text(seeded, tmp_path_factory, case, among_good):
    check(seeded, tmp_path_factory.mktemp("t"), *case, among_good, "text")


@SETTINGS
@given(case=st.one_of(pdf_file, st.just(("blank.pdf", b""))), among_good=st.sampled_from([0, 0, 3]))
def test_hostile_pdf(seeded, tmp_path_factory, case, among_good):
    name, data = case
    if name == "blank.pdf":  # a well-formed PDF with no text
        data = blank_pdf()
    check(seeded, tmp_path_factory.mktemp("p"), name, data, among_good, "pdf")


def test_the_check_fails_on_an_input_that_is_not_refused(seeded, tmp_path):
    """The hostile tests above are not vacuous: the same ``check`` given a good file (ingested,
    exit 0, the store changed) fails, and the refused inputs it counted are each one case. With
    -s, prints the figures of docs/RELIABILITY.md."""
    store = tmp_path / "store"
    shutil.copytree(seeded, store)
    held = dict(HELD)
    good = b"---\ntitle: Fine\n---\nA fine note about retries.\n"
    with pytest.raises(AssertionError):
        check(store, tmp_path, "fine.md", good, 0, "markdown")
    assert held == HELD                        # a case is counted only when it was refused
    print(f"hostile inputs held, by format: {HELD} (total {sum(HELD.values())})")
