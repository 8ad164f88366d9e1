"""Issue 15's hostile inputs, one regression test each: exit 2, one stderr line naming the file
(line and field where there is one), nothing written; and the questionable cases, decided
(docs/RELIABILITY.md, "Decisions")."""

from __future__ import annotations

import json
import shutil

import pytest

from smartvector_core.embedding import HashingEmbedder
from smartvector_core.service import SmartVector
from smartvector_core.settings import load_settings

from ..conftest import NOW
from .helpers import cli_stats, run_cli, seed

BASE = [{"id": "rules_v1", "title": "Rules", "text": "The old rules allow 10 requests per minute.",
         "created_at": "2025-01-01", "kind": "VERSIONED", "doc_type": "policy"},
        {"id": "rules_v2", "title": "Rules", "text": "The new rules allow 20 requests per minute.",
         "created_at": "2025-06-01", "kind": "VERSIONED", "doc_type": "policy", "supersedes": "rules_v1"}]
GOOD = {"id": "fine", "text": "A perfectly good document about rate limits.", "created_at": "2025-02-01"}
BOMB = "\n".join([f'l0: &l0 [{", ".join(["lol"] * 9)}]'] + [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]"
                                                               for i in range(1, 9)])


@pytest.fixture
def seeded(cli, tmp_path):
    return seed(cli, tmp_path, BASE)


_stats = cli_stats


def _jsonl(*records) -> str:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records)


def _md(front: str, body: str = "Body text of the note.") -> str:
    return f"---\n{front}\n---\n{body}\n"


# (name, file name, content, pieces of the one stderr line besides the file name)
FILES = [
    ("id given as a list", "idlist.jsonl", _jsonl(GOOD, {"id": ["a"], "text": "x"}), [":2:", "id:", "list"]),
    ("created_at in year 0 (UTC)", "y0.jsonl", _jsonl(GOOD, {"id": "o", "text": "x", "created_at": "0001-01-01T00:00:00+01:00"}),
     [":2:", "created_at:", "outside"]),
    ("created_at in year 10000 (UTC)", "y10k.jsonl",
     _jsonl(GOOD, {"id": "o", "text": "x", "created_at": "9999-12-31T23:59:59-01:00"}), [":2:", "created_at:", "outside"]),
    ("front matter key 1", "key1.md", _md("title: T\n1: a"), [":3:", "front matter key '1'"]),
    ("front matter key ~", "keynull.md", _md("title: T\n~: a"), [":3:", "front matter key 'null'"]),
    ("YAML nested 3,000 deep", "deep.md", _md("x: " + "[" * 3000 + "]" * 3000), ["nested deeper"]),
    ("YAML nested 40 deep", "deep40.md", _md("x: " + "[" * 40 + "]" * 40), ["nested deeper than 32"]),
    ("YAML alias bomb", "bomb.md", _md(BOMB), ["once expanded"]),
    ("YAML key given twice", "dup.md", _md("title: A\ntitle: B"), ["duplicate key 'title'"]),
    ("YAML binary value", "bin.md", _md("metadata:\n  blob: !!binary aGVsbG8="), ["metadata:", "bytes"]),
    ("empty JSONL file", "empty.jsonl", "", ["no documents"]),
    ("JSONL of blank lines", "blank.jsonl", "\n \n\t\n", ["no documents"]),
    ("empty Markdown file", "empty.md", "", ["text:", "empty"]),
    ("Markdown of blank lines", "blank.md", "\n\n   \n", ["text:", "empty"]),
    ("metadata []", "meta.jsonl", _jsonl(GOOD, {"id": "m", "text": "x", "metadata": []}), [":2:", "metadata:", "list"]),
    ("metadata NaN", "nan.jsonl", _jsonl(GOOD, '{"id": "m", "text": "x", "metadata": {"v": NaN}}'), [":2:", "metadata:"]),
    ("duplicate JSON key", "dupkey.jsonl", _jsonl(GOOD, '{"id": "a", "id": "b", "text": "x"}'), [":2:", "id:", "twice"]),
    ("id of a zero-width space", "zwsp.jsonl", _jsonl(GOOD, {"id": "\u200b", "text": "x"}), [":2:", "id:", "U+200B"]),
    ("id with a right-to-left override", "rtl.jsonl", _jsonl(GOOD, {"id": "v1\u202e2v", "text": "x"}),
     [":2:", "id:", "U+202E"]),
    ("supersedes an id with a zero-width joiner", "zwj.jsonl",
     _jsonl(GOOD, {"id": "z", "text": "x", "supersedes": "rules\u200d_v1"}), [":2:", "supersedes:", "U+200D"]),
]


@pytest.mark.parametrize(("name", "filename", "content", "expected"), FILES, ids=[f[0] for f in FILES])
def test_hostile_file_exits_2_one_line_nothing_written(seeded, tmp_path, name, filename, content, expected):
    before = _stats(seeded)
    path = tmp_path / filename
    path.write_text(content, encoding="utf-8")
    code, _, err = seeded("ingest", str(path))
    assert code == 2, (name, err)
    assert err.count("\n") == 1 and err.startswith("error: ") and str(path) in err, err
    assert all(piece in err for piece in expected), err
    assert _stats(seeded) == before  # documents, chunks, events, edges and every table version


def test_garbage_pdf_prints_one_line_not_the_pdf_library_warning(tmp_path):
    """In a real process: pytest captures logging, so only a subprocess shows pypdf's own warning."""
    path = tmp_path / "broken.pdf"
    path.write_bytes(b"%PDF-1.7\n" + b"\x8f garbage \x00 not a pdf body" * 20)
    proc = run_cli(tmp_path / "store", "ingest", str(path))
    err = proc.stderr
    assert proc.returncode == 2 and err.count("\n") == 1 and str(path) in err and "PDF" in err, err


@pytest.mark.parametrize("bad", ["metadata:\n  when: !!binary aGVsbG8=", "1: one", "id: \"\\u200b\""])
def test_directory_of_2000_good_files_and_one_bad_sorted_last_writes_nothing(seeded, tmp_path, bad):
    folder = tmp_path / "notes"
    folder.mkdir()
    for i in range(2000):
        (folder / f"a{i:04d}.md").write_text(_md(f"title: Note {i}", f"Good note number {i}."), encoding="utf-8")
    (folder / "zz_bad.md").write_text(_md(bad), encoding="utf-8")
    before = _stats(seeded)
    code, _, err = seeded("ingest", str(folder))
    assert code == 2 and err.count("\n") == 1 and "zz_bad.md" in err, err
    assert _stats(seeded) == before


def test_yaml_dates_in_metadata_and_unknown_fields_are_kept_as_iso_text(seeded, tmp_path, store_dir):
    path = tmp_path / "dated.md"
    path.write_text(_md("id: dated\nmetadata:\n  reviewed: 2024-05-01\n  at: 2024-05-01 10:00:00\n"
                        "milestones: [2024-01-01, beta]"), encoding="utf-8")
    code, _, err = seeded("ingest", str(path))
    assert code == 0, err
    app = SmartVector(load_settings(str(store_dir), env={}), embedder=HashingEmbedder())
    meta = json.loads(app.store.chunks_for_docs(["dated"]).column("metadata")[0].as_py())
    assert meta == {"reviewed": "2024-05-01", "at": "2024-05-01T10:00:00", "milestones": ["2024-01-01", "beta"]}


def test_front_matter_date_key_is_refused_naming_it(seeded, tmp_path):
    path = tmp_path / "datekey.md"
    path.write_text(_md("title: T\n2024-02-02: leap"), encoding="utf-8")
    code, _, err = seeded("ingest", str(path))
    assert code == 2 and err.count("\n") == 1 and ":3:" in err and "key '2024-02-02'" in err, err


@pytest.mark.parametrize(("args", "expected"), [
    (("query", "rules", "--as-of", "0001-01-01T00:00:00+01:00"), "--as-of:"),
    (("query", "rules", "--as-of", "9999-12-31T23:59:59-01:00"), "--as-of:"),
    (("query", "rules", "--k", "99999999999999999999"), "--k:"),
    (("query", "rules", "--k", "0"), "--k:"),
    (("tag", "a/b"), "LABEL:"),
    (("tag", "x'y"), "LABEL:"),
    (("tag", "..x"), "LABEL:"),
    (("tag", "snap.lock"), "LABEL:"),
    (("restore", "--version", "events=1"), "--version:"),
    (("restore", "--version", "queries=1"), "--version:"),
    (("maintain", "--older-than-days", "1e10"), "--older-than-days:"),
    (("maintain", "--older-than-days", "inf"), "--older-than-days:"),
    (("ingest", "/no/such/corpus.jsonl"), "no such file"),
])
def test_hostile_options_exit_2_one_line_nothing_written(seeded, args, expected):
    before = _stats(seeded)
    code, out, err = seeded(*args)
    assert code == 2 and err.count("\n") == 1 and expected in err and "Traceback" not in err, err
    assert _stats(seeded) == before  # not even a query-log row


def test_extreme_but_valid_times_work_end_to_end(seeded, tmp_path):
    path = tmp_path / "ends.jsonl"
    path.write_text(_jsonl({"id": "first", "text": "Tea was first brewed long ago.", "created_at": "0001-01-01T00:00:00Z"},
                           {"id": "last", "text": "Tea rules for the far future.", "created_at": "9999-12-31T23:59:59Z"},
                           {"id": "always", "text": "Tea is a drink.", "valid_from": "0001-01-01",
                            "valid_until": "9999-12-31"}), encoding="utf-8")
    assert seeded("ingest", str(path))[0] == 0
    for as_of in ("0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z"):
        code, out, err = seeded("query", "tea", "--as-of", as_of, "--json")
        assert code == 0, err
        assert json.loads(out)["as_of"].startswith(as_of[:10])
    assert seeded("consolidate", "--full", "--json")[0] == 0
    assert seeded("freshness", "--json")[0] == 0


def test_valid_until_before_created_at_is_kept_with_one_warning(seeded, tmp_path):
    path = tmp_path / "report.jsonl"
    path.write_text(_jsonl({"id": "incident", "text": "Outage report: the API was down for two hours.",
                            "created_at": "2025-03-10", "valid_from": "2025-03-01", "valid_until": "2025-03-02"}),
                    encoding="utf-8")
    code, _, err = seeded("ingest", str(path))
    assert code == 0 and err.count("\n") == 1 and err.startswith("warning: ") and f"{path}:1: valid_until:" in err


def test_half_created_tables_are_finished_on_open(tmp_path):
    """``kill -9`` while LanceDB creates table N leaves tables before N whole, N's directory without
    a committed version, and none after: every later command used to fail ("Table 'events' was not
    found"). Each state opens, and an ingest there gives what it gives on a fresh store."""
    whole = tmp_path / "whole"
    SmartVector(load_settings(str(whole), env={}), embedder=HashingEmbedder()).store  # noqa: B018 - creates it
    tables = ["chunks", "edges", "events", "queries"]
    for n, name in enumerate(tables):
        store = tmp_path / f"half-{name}"
        store.mkdir()
        for done in tables[:n]:
            shutil.copytree(whole / f"{done}.lance", store / f"{done}.lance")
        shutil.copytree(whole / f"{name}.lance", store / f"{name}.lance")
        shutil.rmtree(store / f"{name}.lance" / "_versions")  # no committed version: half-created
        app = SmartVector(load_settings(str(store), env={}), embedder=HashingEmbedder())
        assert app.stats()["documents"] == 0
        app.ingest_records([{"id": "a", "text": "Alpha text."}], now=NOW)
        assert app.stats()["documents"] == 1 and app.store.events().num_rows >= 1


def test_restore_keeps_events_and_query_log_and_records_what_it_removed(seeded, tmp_path, store_dir):
    assert seeded("tag", "before-damage")[0] == 0
    damage = tmp_path / "damage.jsonl"
    damage.write_text(_jsonl({"id": "bad", "text": "The rules allow 9000 requests per minute.", "created_at": "2025-07-01"}),
                      encoding="utf-8")
    assert seeded("ingest", str(damage))[0] == 0
    code, out, _ = seeded("query", "how many requests per minute", "--json")
    query_id = json.loads(out)["query_id"]
    assert "bad" in [r["id"] for r in json.loads(out)["results"]]
    assert seeded("feedback", "bad", "correct", "--query-id", query_id)[0] == 0
    before = _stats(seeded)
    code, _, err = seeded("restore", "--tag", "before-damage")
    assert code == 0, err
    after = _stats(seeded)
    assert after["documents"] == 2 and after["queries"] == before["queries"]
    assert after["events"] == before["events"] + 1  # nothing removed, the restore recorded
    app = SmartVector(load_settings(str(store_dir), env={}), embedder=HashingEmbedder())
    events = app.store.events().to_pandas()
    assert (events["event_type"] == "FEEDBACK_CORRECT").sum() == 1
    restore = json.loads(events[events["event_type"] == "RESTORE"].iloc[0]["detail"])
    assert restore["removed"] == ["bad"] and restore["removed_count"] == 1 and restore["tag"] == "before-damage"
    code, out, _ = seeded("calibration", "--json")
    assert code == 0 and json.loads(out)["n"] == 1  # calibration still pairs the verdict with its logged answer


@pytest.mark.parametrize("args", [("query", "x", "--group-by", "doc"), ("query", "x", "--k", "many"), ("frobnicate",),
                                  ("ingest",), ("tag",)])
def test_usage_errors_exit_2_with_one_line(seeded, capsys, args):
    """argparse's own errors follow CONTRACT.md too: one line, not the usage block."""
    from smartvector_core.cli import main

    with pytest.raises(SystemExit) as info:
        main(list(args))
    err = capsys.readouterr().err
    assert info.value.code == 2 and err.count("\n") == 1 and err.startswith("error: ") and "--help" in err, err


def test_empty_queries_file_exits_2_naming_it(seeded, tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text("\n\n", encoding="utf-8")
    before = _stats(seeded)
    code, out, err = seeded("query", "--batch", str(path), "--json")
    assert code == 2 and err.count("\n") == 1 and str(path) in err and "no queries" in err and out == ""
    assert _stats(seeded) == before
