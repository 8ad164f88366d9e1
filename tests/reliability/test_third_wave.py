"""The third wave of hostile input (issue 31's breaks and decided cases), one regression test
each: exit 2 with one stderr line naming the file, line and field, nothing written; and what
is accepted instead, read as written (docs/RELIABILITY.md, "Decisions")."""

from __future__ import annotations

import json
import os
import time
import unicodedata

import pytest

from ..conftest import NOW
from .helpers import cli_stats, seed

BIG = "9" * 5000
BASE = [{"id": "rules_v1", "title": "Rules", "text": "The old rules allow 10 requests per minute.",
         "created_at": "2025-01-01", "kind": "VERSIONED", "doc_type": "policy"},
        {"id": "rules_v2", "title": "Rules", "text": "The new rules allow 20 requests per minute.",
         "created_at": "2025-06-01", "kind": "VERSIONED", "doc_type": "policy", "supersedes": "rules_v1"}]


@pytest.fixture
def seeded(cli, tmp_path):
    return seed(cli, tmp_path, BASE)


def _one_line_exit_2(cli, *args: str, pieces: tuple[str, ...] = ()) -> str:
    before = cli_stats(cli)
    code, out, err = cli(*args)
    assert code == 2, (code, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    for piece in pieces:
        assert piece in lines[0], (piece, lines[0])
    after = cli_stats(cli)
    assert after["table_versions"] == before["table_versions"] and after["documents"] == before["documents"]
    return lines[0]


def _write(path, text: str):
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("line, field", [
    (f'{{"id": {BIG}, "text": "x"}}', "id:"),
    (f'{{"id": "a", "text": "x", "metadata": {{"n": [1, {BIG}]}}}}', "metadata:"),
    (f'{{"id": "a", "text": "x", "authority": -{BIG}}}', "authority:"),
    (f'{{"id": "a", "text": "x", "created_at": {BIG}}}', "created_at:"),
])
def test_a_5000_digit_number_is_exit_2_naming_file_line_and_field(seeded, tmp_path, line, field):
    path = _write(tmp_path / "big.jsonl", '{"id": "ok", "text": "fine"}\n' + line + "\n")
    _one_line_exit_2(seeded, "ingest", path, pieces=(f"{path}:2:", field, "5000 digits"))


def test_a_5000_digit_number_in_front_matter_and_in_a_query_file(seeded, tmp_path):
    md = _write(tmp_path / "big.md", f"---\ntitle: T\nauthority: {BIG}\n---\nBody.\n")
    _one_line_exit_2(seeded, "ingest", md, pieces=(f"{md}:3:", "authority:", "5000 digits"))
    queries = _write(tmp_path / "q.jsonl", f'{{"id": "q1", "text": "rules"}}\n{{"id": {BIG}, "text": "x"}}\n')
    _one_line_exit_2(seeded, "query", "--batch", queries, "--json", pieces=(f"{queries}:2:", "id:", "5000 digits"))


def test_unicode_line_separators_are_content_not_line_breaks(seeded, tmp_path):
    text = "".join(json.dumps({"id": f"sep{i}", "text": f"before{c}after"}, ensure_ascii=False) + "\n"
                   for i, c in enumerate(["\u2028", "\u2029", "\u0085", "\x1c", "\x0b"]))
    path = _write(tmp_path / "seps.jsonl", text)
    code, out, err = seeded("ingest", path, "--json")
    assert code == 0, err
    assert json.loads(out)["documents"] == 5
    # two objects joined by U+2028 on one line are one bad line, not two documents
    joined = _write(tmp_path / "joined.jsonl", '{"id": "a", "text": "x"}\u2028{"id": "b", "text": "y"}\n')
    _one_line_exit_2(seeded, "ingest", joined, pieces=(f"{joined}:1:", "not valid JSON"))
    # a later error names its real line
    later = _write(tmp_path / "later.jsonl", '{"id": "c", "text": "x\u2028y\u2029z"}\n{"id": "d"}\n')
    _one_line_exit_2(seeded, "ingest", later, pieces=(f"{later}:2:", "text:"))


def test_query_files_are_split_on_newline_only(seeded, tmp_path):
    path = _write(tmp_path / "q.jsonl", '{"id": "q\u2028a", "text": "old rules"}\n'.replace("q\u2028a", "qa")
                  + '{"id": "qb", "text": "new\u2028rules\u0085now"}\n{"id": "qc"}\n')
    _one_line_exit_2(seeded, "query", "--batch", path, "--json", pieces=(f"{path}:3:", "text:"))
    good = _write(tmp_path / "good.jsonl", '{"id": "qa", "text": "old rules"}\n{"id": "qb", "text": "new\u2028rules"}\n')
    code, out, err = seeded("query", "--batch", good, "--json")
    assert code == 0, err
    assert [json.loads(line)["query_id"] for line in out.strip().split("\n")] == ["qa", "qb"]


def test_an_impossible_unquoted_date_in_front_matter_is_exit_2_naming_the_field(seeded, tmp_path):
    bad = _write(tmp_path / "bad.md", "---\ntitle: T\ncreated_at: 2025-13-45\n---\nBody.\n")
    _one_line_exit_2(seeded, "ingest", bad, pieces=(bad, "created_at:", "2025-13-45"))
    folder = tmp_path / "folder"
    folder.mkdir()
    for name in ("a.md", "z.md"):
        _write(folder / name, "---\ntitle: Fine\ncreated_at: 2025-03-01\n---\nA fine note.\n")
    _write(folder / "m.md", "---\ntitle: T\nvalid_until: 2025-02-30\n---\nBody.\n")
    _one_line_exit_2(seeded, "ingest", str(folder), pieces=("m.md", "valid_until:"))


def test_front_matter_is_read_as_written(cli, tmp_path, fake_app):
    _write(tmp_path / "note.md", "---\nid: 0x1F\ncreated_at: 20250301\nversion: 1.10\nsupersedes: [0x1E]\n"
                                 "metadata:\n  when: 2025-02-30\n---\nBody.\n")
    code, _, err = cli("ingest", str(tmp_path / "note.md"))
    assert code == 0, err
    row = fake_app.store.documents().to_pylist()[0]
    assert row["doc_id"] == "0x1F" and row["version"] == "1.10"
    assert row["created_at"].date().isoformat() == "2025-03-01"
    assert json.loads(row["metadata"]) == {"when": "2025-02-30"}
    assert [e["dst"] for e in fake_app.store.edges().to_pylist()] == ["0x1E"]


def test_unclosed_front_matter_is_exit_2(seeded, tmp_path):
    path = _write(tmp_path / "open.md", "---\ntitle: T\ncreated_at: 2025-01-01\nBody without a closing line.\n")
    _one_line_exit_2(seeded, "ingest", path, pieces=(f"{path}:1:", "not closed"))


def test_symlinks_leaving_the_folder_are_refused(seeded, tmp_path):
    folder = tmp_path / "docs"
    (folder / "sub").mkdir(parents=True)
    _write(folder / "a.md", "A note inside the folder.")
    secret = tmp_path / "secret.txt"
    _write(secret, "the host's secret")
    os.symlink(secret, folder / "sub" / "leak.txt")
    _one_line_exit_2(seeded, "ingest", str(folder), pieces=("leak.txt", "outside the folder"))
    (folder / "sub" / "leak.txt").unlink()
    os.symlink(tmp_path, folder / "up")          # a folder link out of it
    _one_line_exit_2(seeded, "ingest", str(folder), pieces=("up", "outside the folder"))
    (folder / "up").unlink()
    os.symlink(folder / "a.md", folder / "sub" / "same.md")   # a link inside is read
    os.symlink(folder / "sub", folder / "loop")                # a folder link inside is not descended
    code, out, err = seeded("ingest", str(folder), "--json")
    assert code == 0, err
    assert json.loads(out)["documents"] == 2


def test_ids_are_nfc_normalised(seeded, tmp_path, fake_app):
    composed, decomposed = "caf\u00e9", unicodedata.normalize("NFD", "caf\u00e9")
    both = _write(tmp_path / "both.jsonl", json.dumps({"id": composed, "text": "one"}) + "\n"
                  + json.dumps({"id": decomposed, "text": "two"}) + "\n")
    _one_line_exit_2(seeded, "ingest", both, pieces=(f"{both}:2:", "duplicate id"))
    for n, spelled in enumerate((composed, decomposed)):
        path = _write(tmp_path / f"one{n}.jsonl", json.dumps({"id": spelled, "text": f"version {n}"}) + "\n")
        assert seeded("ingest", path)[0] == 0
    ids = fake_app.store.documents().column("doc_id").to_pylist()
    assert ids.count(composed) == 1 and decomposed not in ids
    code, _, err = seeded("feedback", decomposed, "accept")
    assert code == 0, err


@pytest.mark.parametrize("qid", [["a"], {"x": 1}, True, "q\u0000", "q\u001b[31m", "q\u202e"])
def test_query_ids_must_be_text_without_control_characters(seeded, tmp_path, qid):
    path = _write(tmp_path / "q.jsonl", json.dumps({"id": qid, "text": "rules"}) + "\n")
    _one_line_exit_2(seeded, "query", "--batch", path, "--json", pieces=(f"{path}:1:", "id:"))


def test_feedback_ids_with_control_characters_are_exit_2(seeded):
    _one_line_exit_2(seeded, "feedback", "rules_v2", "accept", "--query-id", "q\u001b", pieces=("query_id:",))
    _one_line_exit_2(seeded, "feedback", "rules\u0000v2", "accept", pieces=("id:",))


def test_a_query_id_names_one_question(seeded, tmp_path):
    first = _write(tmp_path / "q1.jsonl", '{"id": "same", "text": "old rules"}\n')
    assert seeded("query", "--batch", first, "--json")[0] == 0
    assert seeded("query", "--batch", first, "--json")[0] == 0   # the same question again: fine
    other = _write(tmp_path / "q2.jsonl", '{"id": "same", "text": "a different question"}\n')
    _one_line_exit_2(seeded, "query", "--batch", other, "--json", pieces=("id:", "already logged"))
    unnamed = _write(tmp_path / "q3.jsonl", '{"text": "x"}\n')
    assert seeded("query", "--batch", unnamed, "--json")[0] == 0
    assert seeded("query", "--batch", _write(tmp_path / "q4.jsonl", '{"text": "y"}\n'), "--json")[0] == 0


def test_store_paths(monkeypatch, capsys, tmp_path):
    from smartvector_core.cli import main

    monkeypatch.setenv("SMARTVECTOR_MODEL", "hashing")
    monkeypatch.chdir(tmp_path)
    for store, piece in (("", "--store: empty"), ("  ", "--store: empty"), ("ftp://host/x", "unknown scheme"),
                         ("file://otherhost/x", "host")):
        assert main(["--store", store, "stats"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and piece in err[0], err
    target = tmp_path / "via uri"
    assert main(["--store", f"file://{str(target).replace(' ', '%20')}", "stats", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["store"] == str(target)
    assert (target / "chunks.lance").is_dir() and not (tmp_path / "file:").exists()


@pytest.mark.parametrize("name, value", [("SMARTVECTOR_MAX_FILE_BYTES", "lots"), ("SMARTVECTOR_MAX_FILE_BYTES", "-1"),
                                         ("SMARTVECTOR_MAX_LINE_BYTES", "1.5"), ("SMARTVECTOR_EMBED_THREADS", "two"),
                                         ("SMARTVECTOR_EMBED_THREADS", "-3")])
def test_bad_number_settings_name_the_variable(cli, monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    code, _, err = cli("stats")
    assert code == 2 and len(err.strip().splitlines()) == 1 and f"{name}:" in err, err


def _restorable(cli, tmp_path, *, tag: bool = True):
    if tag:
        cli("tag", "start")
    for n in range(3):
        path = _write(tmp_path / f"more{n}.jsonl", json.dumps({"id": f"more{n}", "text": f"more text {n}",
                                                               "supersedes": "rules_v2" if n == 0 else None}) + "\n")
        assert cli("ingest", path)[0] == 0
    return cli_stats(cli)


def test_restore_of_a_cleaned_up_version_is_exit_2_and_rolls_back_nothing(seeded, tmp_path, fake_app):
    time.sleep(1.5)   # the first versions are older than the cleanup's cut-off (1 s before the oldest tag)
    _restorable(seeded, tmp_path, tag=False)
    assert seeded("maintain", "--older-than-days", "0")[0] == 0
    assert 1 not in fake_app.store.versions_of("edges")
    chunks = fake_app.store.versions_of("chunks")[0]   # kept (tag "start"), older than the current one
    before = sorted(fake_app.store.documents().column("doc_id").to_pylist())
    line = _one_line_exit_2(seeded, "restore", "--version", f"chunks={chunks},edges=1", pieces=("--version:",))
    assert "edges version 1 was cleaned up by maintain" in line, line
    assert sorted(fake_app.store.documents().column("doc_id").to_pylist()) == before
    assert [e for e in fake_app.store.events().to_pylist() if e["event_type"] == "RESTORE"] == []
    _one_line_exit_2(seeded, "restore", "--version", f"chunks={chunks},chunks=2", pieces=("given twice",))
    _one_line_exit_2(seeded, "restore", "--version", "chunks=99999", pieces=("does not exist",))
    assert seeded("restore", "--tag", "pre-consolidate")[0] == 0


def test_restore_is_all_or_nothing_when_a_table_fails(seeded, tmp_path, fake_app, monkeypatch):
    _restorable(seeded, tmp_path)
    before = cli_stats(seeded)
    edges = fake_app.store.ctx.tables["edges"]

    class Failing:
        def __getattr__(self, name):
            if name == "restore":
                def fail(*_):
                    raise OSError(28, "No space left on device")
                return fail
            return getattr(edges, name)

    monkeypatch.setitem(fake_app.store.ctx.tables, "edges", Failing())
    with pytest.raises(OSError):
        fake_app.restore(tag="start", now=NOW)
    monkeypatch.undo()
    after = cli_stats(seeded)
    assert after["documents"] == before["documents"]
    assert sorted(fake_app.store.documents().column("doc_id").to_pylist()) == sorted(
        ["rules_v1", "rules_v2", "more0", "more1", "more2"])
    assert [e for e in fake_app.store.events().to_pylist() if e["event_type"] == "RESTORE"] == []
