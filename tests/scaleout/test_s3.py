"""The same knowledge base on an S3-compatible server (moto) as on a local folder.

Slow (a moto server and two CLI subprocesses) but part of CI.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from smartvector_core.embedding import HashingEmbedder
from smartvector_core.errors import StoreError
from smartvector_core.service import SmartVector, read_queries
from smartvector_core.settings import DEMO_CORPUS, DEMO_QUERIES, load_settings
from smartvector_core.store.lock import S3WriteLock, s3_client
from tests.conftest import NOW, REPO, write_jsonl

pytestmark = pytest.mark.slow


def _app(uri: str, env: dict[str, str]) -> SmartVector:
    return SmartVector(load_settings(uri, env=env), embedder=HashingEmbedder())


def _run_steps(app: SmartVector) -> dict:
    """Ingest the demo corpus, ask every demo query, give feedback, read stats."""
    report = app.ingest_paths([DEMO_CORPUS], now=NOW).to_dict()
    answers = []
    for spec in read_queries(DEMO_QUERIES, now=NOW):
        resp = app.query(spec.text, as_of=spec.as_of, k=5, query_id=spec.id)
        answers.append([(r.id, r.rank, round(r.score, 6)) for r in resp.results])
    first = answers[0][0][0]
    fb = app.feedback(first, "correct", now=NOW, query_id="q01")
    stats = app.stats()
    rows = app.store.chunks_for_docs([d for d in app.store.documents().column("doc_id").to_pylist()],
                                     current_only=False).to_pylist()
    chunks = sorted((r["doc_id"], r["chunk_id"], r["content_hash"], r["lifecycle"]) for r in rows)
    for key in ("store", "table_versions"):
        stats.pop(key)
    return {"report": report, "answers": answers,
            "feedback": {k: fb[k] for k in ("id", "verdict", "trust_before", "trust_after")},
            "rippled": sorted(map(str, fb["rippled"])), "stats": stats, "chunks": chunks}


def test_s3_store_matches_local_folder(s3_env, tmp_path):
    env = {**s3_env, "SMARTVECTOR_MODEL": "hashing"}
    remote = _run_steps(_app(f"s3://{s3_env['BUCKET']}/store", env))
    local = _run_steps(_app(str(tmp_path / "local"), {"SMARTVECTOR_MODEL": "hashing"}))
    assert remote["chunks"] and remote["answers"][0]
    assert remote == local
    # a second connection (another process would do the same) sees the rows
    again = _app(f"s3://{s3_env['BUCKET']}/store", env)
    assert again.store.count_chunks() == len([c for c in local["chunks"]])


def test_settings_file_gives_storage_options(tmp_path):
    path = tmp_path / "settings.toml"
    path.write_text('[storage_options]\naws_endpoint = "http://h:1"\nallow_http = true\naws_region = "x"\n')
    settings = load_settings("s3://b/p", env={"SMARTVECTOR_SETTINGS": str(path), "AWS_REGION": "eu-west-1"})
    assert settings.storage_options == {"aws_endpoint": "http://h:1", "allow_http": "true",
                                        "aws_region": "eu-west-1"}
    js = tmp_path / "s.json"
    js.write_text(json.dumps({"storage_options": {"aws_access_key_id": "k"}}))
    assert load_settings("s3://b/p", env={"SMARTVECTOR_SETTINGS": str(js)}).storage_options == \
        {"aws_access_key_id": "k"}


def _opts(env: dict[str, str]) -> dict[str, str]:
    return load_settings("s3://x/y", env=env).storage_options


def test_lock_object_excludes_a_second_holder(s3_env):
    uri = f"s3://{s3_env['BUCKET']}/store"
    first = S3WriteLock(uri, _opts(s3_env), timeout_s=0.5)
    second = S3WriteLock(uri, _opts(s3_env), timeout_s=0.5)
    with first:
        with first:  # re-entrant in one process
            pass
        with pytest.raises(StoreError, match="locked by"):
            second.acquire()
    with second:
        assert not second.lost


def test_expired_lease_is_taken_over_and_heartbeat_keeps_a_live_one(s3_env):
    uri = f"s3://{s3_env['BUCKET']}/store"
    client = s3_client(_opts(s3_env))
    key = "store/_smartvector/write.lock"
    client.put_object(Bucket=s3_env["BUCKET"], Key=key,
                      Body=json.dumps({"owner": "dead", "expires_at": time.time() - 1}).encode())
    with S3WriteLock(uri, _opts(s3_env), timeout_s=5) as lock:  # the crashed holder's lease expired
        assert json.loads(client.get_object(Bucket=s3_env["BUCKET"], Key=key)["Body"].read())["owner"] \
            == lock.token
    live = S3WriteLock(uri, _opts(s3_env), ttl_s=0.8)
    with live:
        time.sleep(1.5)  # longer than the lease: the heartbeat must have renewed it
        with pytest.raises(StoreError):
            S3WriteLock(uri, _opts(s3_env), timeout_s=0.3).acquire()
        assert not live.lost
    from botocore.exceptions import ClientError

    with pytest.raises(ClientError):  # released: the object is gone
        client.head_object(Bucket=s3_env["BUCKET"], Key=key)


def test_two_cli_processes_share_the_store_without_duplicates(s3_env, tmp_path):
    uri = f"s3://{s3_env['BUCKET']}/shared"
    base = [json.loads(line) for line in DEMO_CORPUS.read_text().splitlines() if line.strip()]
    a = write_jsonl(tmp_path / "a.jsonl", base[:40])
    b = write_jsonl(tmp_path / "b.jsonl", base[20:])  # 20 new ids in both files
    env = {**os.environ, **s3_env, "SMARTVECTOR_MODEL": "hashing", "PYTHONPATH": str(REPO)}
    procs = [subprocess.Popen([sys.executable, "-m", "smartvector_core", "--store", uri, "ingest", str(p),
                               "--json"], env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for p in (a, b)]
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
    app = _app(uri, {**s3_env, "SMARTVECTOR_MODEL": "hashing"})
    rows = app.store.chunks_for_docs([r["id"] for r in base], current_only=False)
    ids = rows.column("chunk_id").to_pylist()
    assert len(ids) == len(set(ids)), "duplicate chunk rows: the single-writer rule did not hold"
    assert set(rows.column("doc_id").to_pylist()) == {r["id"] for r in base}
    local = _app(str(tmp_path / "local"), {"SMARTVECTOR_MODEL": "hashing"})
    local.ingest_paths([DEMO_CORPUS], now=NOW)
    assert sorted(ids) == sorted(local.store.chunks_for_docs([r["id"] for r in base]).column("chunk_id")
                                 .to_pylist())
