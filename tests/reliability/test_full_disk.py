"""A full disk never bricks a store: no empty tag file is left, the failing command exits
non-zero, and a tag file a fault did break is removed on open and by ``maintain --repair``,
which says what it did. The disk is filled for real on a small tmpfs where this process may
mount one (root in a container), and the fault is injected at the tag write everywhere."""

from __future__ import annotations

import errno
import json
import os
import subprocess
from pathlib import Path

import pytest

from smartvector_core.embedding import HashingEmbedder
from smartvector_core.errors import StoreError
from smartvector_core.service import SmartVector
from smartvector_core.settings import load_settings

from ..conftest import NOW
from .helpers import run_cli


def _app(store: Path) -> SmartVector:
    return SmartVector(load_settings(str(store), env={}), embedder=HashingEmbedder())


def _docs(n: int, word: str) -> list[dict]:
    return [{"id": f"{word}{i}", "text": f"{word} " * 40 + str(i), "created_at": "2025-01-01"} for i in range(n)]


def _empty_json(store: Path) -> list[Path]:
    return [p for p in store.rglob("*.json") if p.stat().st_size == 0]


def test_a_tag_write_that_fails_leaves_no_empty_tag_and_no_half_tag(tmp_path, monkeypatch):
    """The fault injected at the write: the command fails, no empty file, no table keeps the tag."""
    app = _app(tmp_path / "store")
    app.ingest_records(_docs(3, "alpha"), now=NOW)
    edges = app.store.ctx.tables["edges"]
    folder = tmp_path / "store" / "edges.lance" / "_refs" / "tags"

    class FullDisk:   # what LanceDB does on ENOSPC: the file is created, nothing written, an error raised
        def __init__(self, tags):
            self._tags = tags

        def __getattr__(self, name):
            return getattr(self._tags, name)

        def create(self, label, version):
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{label}.json").write_bytes(b"")
            raise OSError(errno.ENOSPC, "No space left on device")

    class Table:   # the edges table, its tag writes failing
        def __getattr__(self, name):
            return FullDisk(edges.tags) if name == "tags" else getattr(edges, name)

    monkeypatch.setitem(app.store.ctx.tables, "edges", Table())
    with pytest.raises(StoreError, match="cannot tag table edges"):
        app.store.tag("snapshot")
    monkeypatch.undo()
    assert _empty_json(tmp_path / "store") == []
    assert all("snapshot" not in tags for tags in _app(tmp_path / "store").store.tags().values())


@pytest.mark.slow
def test_an_empty_tag_file_is_removed_on_open_and_every_command_works(tmp_path):
    store = tmp_path / "store"
    app = _app(store)
    app.ingest_records(_docs(60, "beta"), now=NOW)   # >= 50 documents: the rolling pre-ingest tag
    app.store.tag("operator-pin")
    for name in ("pre-ingest", "operator-pin"):
        (store / "chunks.lance" / "_refs" / "tags" / f"{name}.json").write_bytes(b"")   # what ENOSPC left
    proc = run_cli(store, "stats", "--json")
    assert proc.returncode == 0
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("warning: repaired:")]
    assert len(warnings) == 2 and any("'operator-pin'" in w and "lost" in w for w in warnings)
    assert _empty_json(store) == []
    batch = tmp_path / "more.jsonl"
    batch.write_text("".join(json.dumps(r) + "\n" for r in _docs(60, "gamma")), encoding="utf-8")
    for args in (("ingest", str(batch)), ("consolidate", "--full"), ("tag", "again"),
                 ("restore", "--tag", "again"), ("maintain", "--older-than-days", "0")):
        proc = run_cli(store, *args)
        assert proc.returncode == 0, (args, proc.stderr[-500:])


def test_maintain_repair_says_what_it_did(tmp_path):
    store = tmp_path / "store"
    app = _app(store)
    app.ingest_records(_docs(2, "delta"), now=NOW)
    app.store.tag("keep")
    assert run_cli(store, "maintain", "--repair", "--json").returncode == 0
    (store / "edges.lance" / "_refs" / "tags" / "keep.json").write_text('{"vers', encoding="utf-8")
    app = _app(store)   # opening repairs: maintain --repair reports it
    done = app.repair()
    assert any("'keep' of table edges (not valid JSON" in line for line in done)
    assert any(line.startswith("write lock: free") for line in done)


@pytest.fixture
def tiny_disk(tmp_path):
    """A 2 MiB tmpfs (skipped where this process may not mount one)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount)],
                                           capture_output=True).returncode:
        pytest.skip("no tmpfs can be mounted here; the injected-fault tests cover the write")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill(disk: Path) -> Path:
    filler = disk / "filler"
    with open(filler, "wb") as out:
        try:
            while True:
                out.write(b"\0" * 65536)
                out.flush()
        except OSError:
            pass
    return filler


@pytest.mark.slow
def test_a_real_full_disk_fails_the_command_and_leaves_no_empty_tag(tiny_disk, tmp_path):
    store = tiny_disk / "store"
    base = tmp_path / "base.jsonl"
    base.write_text("".join(json.dumps(r) + "\n" for r in _docs(60, "eps")), encoding="utf-8")
    assert run_cli(store, "ingest", str(base)).returncode == 0
    filler = _fill(tiny_disk)
    more = tmp_path / "more.jsonl"
    more.write_text("".join(json.dumps(r) + "\n" for r in _docs(60, "zeta")), encoding="utf-8")
    codes = {}
    for args in (("consolidate", "--full"), ("ingest", str(more)), ("tag", "full"), ("feedback", "eps1", "accept")):
        proc = run_cli(store, *args)
        codes[args[0]] = proc.returncode
        assert len(proc.stderr.strip().splitlines()) <= 2, proc.stderr
        assert _empty_json(store) == [], args
    assert codes["consolidate"] != 0 and codes["ingest"] != 0 and codes["tag"] != 0
    filler.unlink()
    for args in (("ingest", str(more)), ("consolidate", "--full"), ("tag", "after"), ("restore", "--tag", "after"),
                 ("maintain", "--older-than-days", "0"), ("stats", "--json")):
        proc = run_cli(store, *args)
        assert proc.returncode == 0, (args, proc.stderr[-500:])
    assert json.loads(run_cli(store, "stats", "--json").stdout)["documents"] == 120
