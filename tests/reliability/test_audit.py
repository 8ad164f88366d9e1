"""Audit and restore: feedback traceable to events, pre-ingest tags, restore, retention."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta

import pytest

from smartvector_core.embedding import HashingEmbedder
from smartvector_core.errors import OperatorTokenError
from smartvector_core.service import PRE_INGEST_TAG, PRE_INGEST_TAG_MIN_DOCS, SmartVector
from smartvector_core.settings import load_settings

from ..conftest import NOW, write_jsonl
from .helpers import store_state


def _docs(prefix: str, n: int) -> list[dict]:
    return [{"id": f"{prefix}{i}", "text": f"Document {prefix} {i} about topic {i}.", "created_at": "2025-01-01",
             "kind": "STATIC", "doc_type": "reference"} for i in range(n)]


def _app(store_dir) -> SmartVector:
    return SmartVector(load_settings(str(store_dir), env={}), embedder=HashingEmbedder())


def test_feedback_with_query_id_is_traceable(cli, tmp_path, store_dir):
    assert cli("ingest", str(write_jsonl(tmp_path / "c.jsonl", _docs("a", 3))))[0] == 0
    code, out, _ = cli("feedback", "a1", "correct", "--query-id", "q-42", "--json")
    assert code == 0
    result = json.loads(out)
    events = _app(store_dir).store.events(["a1"]).to_pandas()
    row = events[events["event_type"] == "FEEDBACK_CORRECT"].iloc[0]
    assert (row["query_id"], row["actor"], row["delta"]) == ("q-42", "cli", pytest.approx(-0.08))
    assert abs(row["at"].to_pydatetime() - datetime.now(UTC)) < timedelta(minutes=5)  # when
    assert json.loads(row["detail"])["verdict"] == "correct"  # what
    assert result["trust_after"] < result["trust_before"]
    code, _, err = cli("feedback", "nope", "accept")
    assert code == 2 and "id:" in err


def test_bulk_ingest_tags_then_restore_returns_to_tagged_state(fake_app, store_dir, cli, tmp_path):
    fake_app.ingest_records(_docs("a", 10), now=NOW)
    cut = store_state(fake_app)
    fake_app.ingest_records(_docs("b", PRE_INGEST_TAG_MIN_DOCS), now=NOW)  # bulk: tagged first
    assert all(PRE_INGEST_TAG in tags for tags in fake_app.store.tags().values())
    assert store_state(fake_app) != cut
    code, out, err = cli("restore", "--tag", PRE_INGEST_TAG, "--json")
    assert code == 0, err
    app = _app(store_dir)
    assert store_state(app) == cut
    restores = app.store.events().to_pandas().query("event_type == 'RESTORE'")
    assert len(restores) == 1 and json.loads(restores.iloc[0]["detail"])["tag"] == PRE_INGEST_TAG


def test_operator_tag_and_restore_by_version(cli, store_dir, tmp_path):
    assert cli("ingest", str(write_jsonl(tmp_path / "a.jsonl", _docs("a", 3))))[0] == 0
    assert cli("tag", "before-b")[0] == 0
    versions = _app(store_dir).store.table_versions()
    assert cli("ingest", str(write_jsonl(tmp_path / "b.jsonl", _docs("b", 3))))[0] == 0
    code, _, err = cli("restore", "--version", f"chunks={versions['chunks']}")
    assert code == 0, err
    assert _app(store_dir).stats()["documents"] == 3
    code, _, err = cli("restore", "--tag", "no-such-tag")
    assert code == 2 and "--tag" in err


def test_retention_keeps_tagged_versions(fake_app, cli, store_dir):
    for n in range(2):  # history: each ingest and consolidation adds versions
        fake_app.ingest_records(_docs(f"x{n}", 3), now=NOW)
    old = set(fake_app.store.versions_of("chunks"))
    time.sleep(1.5)  # maintain keeps a second of slack before the oldest tag
    fake_app.ingest_records(_docs("x2", 3), now=NOW)
    fake_app.tag("keep-me")
    kept = fake_app.store.table_versions()["chunks"]
    rows_kept = fake_app.store.count_rows("chunks")
    fake_app.ingest_records(_docs("a", 5), now=NOW)  # the rolling pre-consolidate tag moves past keep-me
    before = fake_app.store.versions_of("chunks")
    code, out, err = cli("maintain", "--older-than-days", "0", "--json")
    assert code == 0, err
    out = json.loads(out)
    assert "keep-me" in out["tags"]
    app = _app(store_dir)
    left = app.store.versions_of("chunks")
    assert old <= set(before) and not old & set(left)  # versions well before the oldest tag are gone
    assert kept in left
    assert app.store.count_rows("chunks", at="keep-me") == rows_kept  # the tagged version is still readable
    assert app.store.count_rows("chunks") > rows_kept
    code, _, err = cli("maintain", "--older-than-days", "-1")
    assert code == 2 and "--older-than-days" in err


def test_check_operator_token(store_dir):
    open_app = SmartVector(load_settings(str(store_dir), env={}), embedder=HashingEmbedder())
    open_app.check_operator(None)  # no token configured: writes are open
    assert not open_app.writes_need_token
    guarded = SmartVector(load_settings(str(store_dir), env={"SMARTVECTOR_OPERATOR_TOKEN": "s3cret"}),
                          embedder=HashingEmbedder())
    assert guarded.writes_need_token
    guarded.check_operator("s3cret")
    for wrong in (None, "", "S3CRET", "s3cret ", "x"):
        with pytest.raises(OperatorTokenError) as info:
            guarded.check_operator(wrong)
        assert isinstance(info.value, PermissionError) and "operator token" in str(info.value)
        assert "s3cret" not in str(info.value)
