"""Bad input everywhere: exit 2, one line naming file/line/field, nothing written, no traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .helpers import cli_stats, run_cli, seed

BASE = [
    {"id": "rules_v1", "title": "Rules", "text": "The old rules allow 10 requests per minute.",
     "created_at": "2025-01-01", "kind": "VERSIONED", "doc_type": "policy"},
    {"id": "rules_v2", "title": "Rules", "text": "The new rules allow 20 requests per minute.",
     "created_at": "2025-06-01", "kind": "VERSIONED", "doc_type": "policy", "supersedes": "rules_v1"},
]
GOOD = json.dumps({"id": "fine", "text": "A perfectly good document about rate limits.", "created_at": "2025-02-01"})


@pytest.fixture
def seeded(cli, tmp_path):
    return seed(cli, tmp_path, BASE)


_stats = cli_stats


def _jsonl(*lines: str) -> bytes:
    return ("".join(line + "\n" for line in lines)).encode()


def _nested(depth: int) -> str:
    return '{"id": "deep", "text": "x", "metadata": ' + '{"a": ' * depth + "1" + "}" * depth + "}"


# (name, file name, bytes, env, expected pieces of the one stderr line: besides the file name)
CASES = [
    ("binary text file", "notes.txt", b"hello\x00\x01\x02\xff binary", {}, ["binary content"]),
    ("binary markdown", "readme.md", bytes(range(256)) * 4, {}, ["binary content"]),
    ("binary jsonl", "dump.jsonl", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", {}, ["binary content"]),
    ("pdf that does not parse", "broken.pdf", b"%PDF-1.7\n" + b"\x8f garbage \x00 not a pdf body" * 20, {},
     ["PDF"]),
    ("pdf extension, not a pdf", "fake.pdf", b"just text", {}, ["not a PDF"]),
    ("file over size limit", "big.jsonl", _jsonl(GOOD, GOOD.replace("fine", "fine2")),
     {"SMARTVECTOR_MAX_FILE_BYTES": "100"}, ["over the limit of 100 bytes"]),
    ("line over limit", "long.jsonl",
     _jsonl(GOOD, json.dumps({"id": "long", "text": "word " * 400})), {"SMARTVECTOR_MAX_LINE_BYTES": "1000"},
     [":2:", "over the limit of 1000 bytes"]),
    ("json nested 40 deep", "deep.jsonl", _jsonl(GOOD, _nested(40)), {}, [":2:", "nested deeper"]),
    ("json nested 100000 deep", "deeper.jsonl", _jsonl(GOOD, _nested(100_000)), {}, [":2:", "nested deeper"]),
    ("control chars in id", "ctrl.jsonl", _jsonl(GOOD, json.dumps({"id": "a\u0007b", "text": "x"})), {},
     [":2:", "id:", "control characters"]),
    ("unreadable date", "date.jsonl", _jsonl(GOOD, json.dumps({"id": "d", "text": "x", "created_at": "2025-13-45"})),
     {}, [":2:", "created_at:"]),
    ("unreadable valid_until", "date2.jsonl",
     _jsonl(GOOD, json.dumps({"id": "d", "text": "x", "valid_until": "next tuesday"})), {}, [":2:", "valid_until:"]),
    ("supersedes cycle in a file", "cycle.jsonl",
     _jsonl(GOOD, json.dumps({"id": "a", "text": "x", "supersedes": "b"}),
            json.dumps({"id": "b", "text": "y", "supersedes": "c"}), json.dumps({"id": "c", "text": "z", "supersedes": "a"})),
     {}, ["supersedes:", "cycle"]),
    ("supersedes cycle with the store", "cycle2.jsonl",
     _jsonl(GOOD, json.dumps({"id": "rules_v1", "text": "The old rules, edited.", "supersedes": "rules_v2"})), {},
     [":2:", "supersedes:", "cycle", "rules_v1", "rules_v2"]),
    ("not utf-8", "latin.jsonl", _jsonl(GOOD) + '{"id": "x", "text": "caf\xe9"}\n'.encode("latin-1"), {},
     [":2:", "not valid UTF-8"]),
]


@pytest.mark.parametrize(("name", "filename", "data", "env", "expected"), CASES, ids=[c[0] for c in CASES])
def test_bad_file_exits_2_one_line_nothing_written(seeded, tmp_path, monkeypatch, name, filename, data, env,
                                                   expected):
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    before = _stats(seeded)
    path = tmp_path / filename
    path.write_bytes(data)
    code, out, err = seeded("ingest", str(path))
    assert code == 2, (name, err)
    assert err.count("\n") == 1 and err.startswith("error: "), err
    assert str(path) in err and all(piece in err for piece in expected), err
    assert "Traceback" not in err
    after = _stats(seeded)
    assert after == before  # documents, chunks, events, edges and every table version


def test_control_characters_in_text_and_title_are_stripped(seeded, tmp_path, fake_app):
    path = tmp_path / "ctrl.jsonl"
    path.write_text(json.dumps({"id": "ctl", "title": "Ti\u0000tle\u001b", "text": "bell\u0007 and\u0008 nul\u0000 gone\ttab"})
                    + "\n", encoding="utf-8")
    code, _, err = seeded("ingest", str(path))
    assert code == 0, err
    from smartvector_core.service import SmartVector
    from smartvector_core.settings import load_settings

    app = SmartVector(load_settings(str(Path(fake_app.settings.store_uri)), env={}), embedder=fake_app.embedder)
    row = app.store.chunks_for_docs(["ctl"]).to_pylist()[0]
    assert row["text"] == "bell and nul gone\ttab" and row["title"] == "Title"


def test_unreadable_as_of_exits_2_naming_the_option(seeded):
    before = _stats(seeded)
    code, out, err = seeded("query", "rules", "--as-of", "the day after tomorrow")
    assert code == 2 and err.count("\n") == 1 and "--as-of" in err and "Traceback" not in err
    assert _stats(seeded) == before  # not even a query-log row


def test_queries_file_bad_as_of_exits_2_with_file_line_field(seeded, tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps({"id": "q1", "text": "rules"}) + "\n"
                    + json.dumps({"id": "q2", "text": "rules", "as_of": "31/12/2025"}) + "\n", encoding="utf-8")
    before = _stats(seeded)
    code, out, err = seeded("query", "--batch", str(path), "--json")
    assert code == 2 and err.count("\n") == 1 and f"{path}:2: as_of:" in err
    assert out == "" and _stats(seeded) == before  # q1 was not run either


def test_queries_file_unknown_fields_accepted_with_one_warning(seeded, tmp_path):
    from smartvector_core.service import read_queries

    path = tmp_path / "q.jsonl"
    rows = [{"id": f"q{i}", "text": "rules", "team": "ops", "priority": i} for i in range(3)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code, out, err = seeded("query", "--batch", str(path), "--json", "--profile", "naive")
    assert code == 0 and len(out.splitlines()) == 3
    assert err.count("warning:") == 1 and "priority" in err and "team" in err
    specs = read_queries(path, now=__import__("datetime").datetime.now(__import__("datetime").UTC))
    assert [s.extra for s in specs] == [{"team": "ops", "priority": i} for i in range(3)]


def test_depends_on_unknown_id_warns_then_resolves_when_it_arrives(seeded, tmp_path, fake_app):
    first = tmp_path / "a.jsonl"
    first.write_text(json.dumps({"id": "guide", "text": "The guide relies on the handbook.",
                                 "depends_on": ["handbook"]}) + "\n", encoding="utf-8")
    code, _, err = seeded("ingest", str(first))
    assert code == 0
    assert err.count("warning:") == 1 and "depends_on" in err and "handbook" in err and f"{first}:1" in err
    second = tmp_path / "b.jsonl"
    second.write_text(json.dumps({"id": "handbook", "text": "The handbook says forty."}) + "\n", encoding="utf-8")
    code, _, err = seeded("ingest", str(second))
    assert code == 0 and "warning" not in err
    from smartvector_core.service import SmartVector
    from smartvector_core.settings import load_settings

    app = SmartVector(load_settings(fake_app.settings.store_uri, env={}), embedder=fake_app.embedder)
    assert [step["doc_id"] for step in app.ripple_preview("handbook")] == ["guide"]


@pytest.mark.parametrize(("args", "data", "expected"), [
    (("ingest",), b"\x00\x01binary\x00", "binary content"),
    (("query", "rules", "--as-of", "soon-ish"), None, "--as-of"),
])
def test_subprocess_bad_input_no_traceback(tmp_path, args, data, expected):
    store = tmp_path / "store"
    argv = list(args)
    if data is not None:
        path = tmp_path / "bin.txt"
        path.write_bytes(data)
        argv.append(str(path))
    proc = run_cli(store, *argv)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and expected in proc.stderr and "Traceback" not in proc.stderr
