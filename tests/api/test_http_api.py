"""The HTTP API served for real (uvicorn in a subprocess on a free 127.0.0.1 port)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from smartvector_core.service import SmartVector
from smartvector_core.settings import load_settings
from tests.conftest import NOW, REPO
from tests.servers import free_port, wait_healthy

AS_OF = "2026-06-01T12:00:00Z"
CORPUS = REPO / "data" / "demo_corpus.jsonl"


def _env(tmp: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SMARTVECTOR_")}
    env.update({"SMARTVECTOR_MODEL": "hashing", "SMARTVECTOR_STORE": str(tmp / "store"),
                "LANCEDB_LOG": "error", **extra})
    return env


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "smartvector_core", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=300)


def _call(base: str, method: str, path: str, body: dict | None = None, headers: dict | None = None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=60) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null")


def _serve(env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    """``serve`` in a subprocess on a free 127.0.0.1 port, once ``/health`` answers."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "smartvector_core", "serve", "--port", str(port)], cwd=REPO,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(base + "/health", proc, timeout=120, what="serve")
    except (TimeoutError, RuntimeError) as exc:
        proc.kill()
        pytest.fail(f"server did not come up ({exc}): " + proc.stderr.read())
    return proc, base


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("api")
    env = _env(tmp, SMARTVECTOR_OPERATOR_TOKEN="s3cret")
    assert _cli(env, "ingest", str(CORPUS), "--json").returncode == 0
    extra = tmp / "slashed.jsonl"
    extra.write_text(json.dumps({"id": "guides/rate limits", "text": "Guides say the rate limit is 60 per minute.",
                                 "created_at": "2026-01-01"}) + "\n", encoding="utf-8")
    assert _cli(env, "ingest", str(extra)).returncode == 0
    proc, base = _serve(env)
    yield base, env, proc
    proc.terminate()
    proc.wait(timeout=30)


def test_query_equals_cli_json_line(server):
    base, env, _ = server
    question = "What are the API rate limits?"
    # a first answer's access events may wake a dormant document; ask once so that both answers
    # below read the same store (the API sees a write one flush tick later)
    assert _cli(env, "query", question, "--as-of", AS_OF, "--k", "5").returncode == 0
    cli = _cli(env, "query", question, "--as-of", AS_OF, "--k", "5", "--json")
    assert cli.returncode == 0, cli.stderr
    line = json.loads(cli.stdout)
    time.sleep(1.0)
    status, body = _call(base, "POST", "/query", {"text": question, "as_of": AS_OF, "k": 5})
    assert status == 200
    assert body["results"], "the demo corpus answers this question"
    for payload in (body, line):
        payload.pop("query_id")
        payload.pop("timings_ms", None)
    assert body == line


def test_batch_answers_in_order_and_health(server):
    base, _, _ = server
    questions = ["What is the refund window?", "What are the API rate limits?", "asdf qwerty"]
    status, body = _call(base, "POST", "/query/batch",
                         {"queries": [{"text": q, "as_of": AS_OF, "id": f"b{i}"} for i, q in enumerate(questions)]})
    assert status == 200
    assert [r["query"] for r in body["responses"]] == questions
    assert [r["query_id"] for r in body["responses"]] == ["b0", "b1", "b2"]
    status, health = _call(base, "GET", "/health")
    assert status == 200 and health["documents"] > 0


def test_bad_input_is_422_naming_the_field(server):
    base, _, _ = server
    status, body = _call(base, "POST", "/query", {"text": "x", "k": 0})
    assert status == 422 and body["detail"][0]["loc"][-1] == "k"
    status, body = _call(base, "POST", "/query", {"text": "x", "as_of": "not a time"})
    assert status == 422 and body["detail"][0]["loc"][-1] == "as_of"
    status, body = _call(base, "POST", "/query", {"text": "x", "profile": "nope"})
    assert status == 422
    status, _ = _call(base, "POST", "/query", {"text": "x", "path": "/etc/passwd"})
    assert status == 422   # unknown fields are refused, not ignored


def test_feedback_needs_the_operator_token_and_moves_trust(server):
    base, _, _ = server
    status, _ = _call(base, "POST", "/feedback", {"id": "policy_v3", "verdict": "correct"})
    assert status == 403
    status, _ = _call(base, "POST", "/feedback", {"id": "policy_v3", "verdict": "correct"},
                      headers={"X-Operator-Token": "wrong"})
    assert status == 403
    _, before = _call(base, "GET", "/documents/policy_v3")
    status, out = _call(base, "POST", "/feedback", {"id": "policy_v3", "verdict": "correct"},
                        headers={"X-Operator-Token": "s3cret"})
    assert status == 200 and out["id"] == "policy_v3"
    _, after = _call(base, "GET", "/documents/policy_v3")
    assert after["trust"] < before["trust"]
    assert out["trust_after"] == pytest.approx(after["trust"], abs=1e-6)
    status, undone = _call(base, "POST", "/feedback", {"id": "policy_v3", "verdict": "undo"},
                           headers={"X-Operator-Token": "s3cret"})
    assert status == 200 and undone["undone"] == "correct"
    assert undone["trust_after"] == pytest.approx(before["trust"], abs=0.01)   # access events may add a little
    status, _ = _call(base, "POST", "/feedback", {"id": "no_such_doc", "verdict": "accept"},
                      headers={"X-Operator-Token": "s3cret"})
    assert status == 404


def test_document_view_has_chain_and_dependents(server):
    base, _, _ = server
    status, doc = _call(base, "GET", "/documents/policy_v2")
    assert status == 200
    chain_ids = [v["id"] for v in doc["version_chain"]]
    assert "policy_v2" in chain_ids and len(chain_ids) >= 2
    assert 0.0 <= doc["trust"] <= 1.0
    assert _call(base, "GET", "/documents/nope")[0] == 404


def test_openapi_schema_is_complete(server):
    base, _, _ = server
    status, schema = _call(base, "GET", "/openapi.json")
    assert status == 200
    assert {"/query", "/query/batch", "/feedback", "/archive", "/unarchive", "/documents/{doc_id}", "/health",
            "/stats"} <= set(schema["paths"])
    assert "QueryOut" in schema["components"]["schemas"]


def _logged_queries(env: dict[str, str]) -> int:
    """Rows of the store's query log, read in this process."""
    settings = load_settings(env["SMARTVECTOR_STORE"], env={"SMARTVECTOR_MODEL": env["SMARTVECTOR_MODEL"]})
    return SmartVector(settings).stats()["queries"]


def test_query_log_is_flushed_on_shutdown(tmp_path):
    env = _env(tmp_path)
    seed = SmartVector(load_settings(env["SMARTVECTOR_STORE"], env={"SMARTVECTOR_MODEL": env["SMARTVECTOR_MODEL"]}))
    assert seed.ingest_paths([CORPUS], now=NOW).documents > 0      # seeded here: only the server is a subprocess
    before = _logged_queries(env)
    proc, base = _serve(env)
    try:
        for i in range(5):
            assert _call(base, "POST", "/query", {"text": f"refund window {i}", "as_of": AS_OF})[0] == 200
    finally:
        proc.terminate()          # SIGTERM: uvicorn shuts down, the lifespan flushes the buffers
        proc.wait(timeout=30)
    assert _logged_queries(env) - before == 5


HOSTILE_BODIES = [   # raw JSON: NaN, Infinity and 1e309 (read as Infinity) where numbers, times and text go
    b'{"text": "x", "k": NaN}', b'{"text": "x", "k": Infinity}', b'{"text": "x", "k": -Infinity}',
    b'{"text": "x", "k": 1e309}', b'{"text": "x", "as_of": NaN}', b'{"text": "x", "as_of": Infinity}',
    b'{"text": "x", "as_of": -1e309}', b'{"text": "\\ud800"}', b'{"text": "a\\udfffb"}',
    b'{"text": "x", "id": "\\ud800"}', b'{"text": "x", "profile": "\\udc00"}', b'{"text": "x", "id": "q\\u0000"}',
    b'{"text": "x", "id": "q\\u001b[31m"}', b'{"text": "x", "id": ["a"]}',
    b'{"queries": [{"text": "x", "k": NaN}]}', b'{"text": "x", "k": true}',
    b'{"text": "x", "k": ' + b"9" * 5000 + b'}', b'{"text": "x", "id": -' + b"9" * 5000 + b'}',
]


@pytest.mark.parametrize("body", HOSTILE_BODIES, ids=lambda b: b.decode("ascii"))
def test_non_finite_and_unencodable_values_are_422_and_the_connection_lives(server, body):
    import http.client

    base, _, _ = server
    conn = http.client.HTTPConnection(base.removeprefix("http://"), timeout=60)
    try:
        path = "/query/batch" if body.startswith(b'{"queries"') else "/query"
        conn.request("POST", path, body=body, headers={"Content-Type": "application/json"})
        reply = conn.getresponse()
        detail = json.loads(reply.read())
        assert reply.status == 422, detail
        assert detail["detail"] and all("loc" in d and "msg" in d for d in detail["detail"])
        if b"9" * 5000 in body:
            assert detail["detail"][0]["loc"][-1] in ("k", "id") and "5000 digits" in detail["detail"][0]["msg"]
        for _ in range(2):   # the same keep-alive connection answers the next requests
            conn.request("GET", "/health")
            again = conn.getresponse()
            again.read()
            assert again.status == 200
    finally:
        conn.close()


def test_feedback_with_an_unencodable_or_control_id_is_422(server):
    base, _, _ = server
    import http.client

    conn = http.client.HTTPConnection(base.removeprefix("http://"), timeout=60)
    for body in (b'{"id": "\\ud800", "verdict": "accept"}', b'{"id": "a\\u0000", "verdict": "accept"}',
                 b'{"id": "policy_v3", "verdict": "accept", "query_id": "\\u001b"}',
                 b'{"id": "policy_v3", "verdict": "accept", "actor": "someone else"}'):
        conn.request("POST", "/feedback", body=body, headers={"Content-Type": "application/json",
                                                             "X-Operator-Token": "s3cret"})
        reply = conn.getresponse()
        reply.read()
        assert reply.status == 422, body
    conn.close()


def test_ids_with_a_slash_are_readable(server):
    base, _, _ = server
    status, doc = _call(base, "GET", "/documents/guides%2Frate%20limits")
    assert status == 200 and doc["id"] == "guides/rate limits"
    status, doc = _call(base, "GET", "/documents/guides/rate%20limits")
    assert status == 200 and doc["id"] == "guides/rate limits"


def test_a_query_id_is_one_question(server):
    base, _, _ = server
    assert _call(base, "POST", "/query", {"text": "What is the refund window?", "id": "same-id"})[0] == 200
    assert _call(base, "POST", "/query", {"text": "What is the refund window?", "id": "same-id"})[0] == 200
    status, body = _call(base, "POST", "/query", {"text": "What are the API rate limits?", "id": "same-id"})
    assert status == 422 and "already logged for another question" in body["detail"][0]["msg"]


def test_the_actor_is_the_credential(server):
    base, env, _ = server
    status, _ = _call(base, "POST", "/feedback", {"id": "policy_v2", "verdict": "accept", "query_id": "actor-q"},
                      headers={"X-Operator-Token": "s3cret"})
    assert status == 200
    from smartvector_core.api.app import actor_of

    events = _cli(env, "stats", "--json")
    assert events.returncode == 0
    from smartvector_core.embedding import HashingEmbedder

    app = SmartVector(load_settings(env["SMARTVECTOR_STORE"], env={}), embedder=HashingEmbedder())
    rows = [e for e in app.store.events(["policy_v2"]).to_pylist() if e["query_id"] == "actor-q"]
    assert rows and {e["actor"] for e in rows} == {actor_of("s3cret")}
    assert actor_of("s3cret").startswith("operator-token:") and "s3cret" not in actor_of("s3cret")


def test_archive_and_unarchive_need_the_token_and_move_the_document_out_of_answers(server):
    base, _, _ = server
    question = {"text": "What is the refund window?", "k": 5}   # asked now: after the archive below
    _, before = _call(base, "POST", "/query", question)
    top = before["results"][0]["id"]
    assert _call(base, "POST", "/archive", {"id": top})[0] == 403
    from smartvector_core.api.app import actor_of

    status, out = _call(base, "POST", "/archive", {"id": top, "reason": "under review"},
                        headers={"X-Operator-Token": "s3cret"})
    assert status == 200 and out["lifecycle"] == "ARCHIVED" and out["actor"] == actor_of("s3cret")
    _, doc = _call(base, "GET", f"/documents/{top}")
    assert doc["lifecycle"] == "ARCHIVED"
    _, after = _call(base, "POST", "/query", question)
    assert top not in [r["id"] for r in after["results"]]
    assert {"id": top, "code": "ARCHIVED"}.items() <= next(r for r in after["rejections"] if r["id"] == top).items()
    assert _call(base, "POST", "/unarchive", {"id": top}, headers={"X-Operator-Token": "s3cret"})[0] == 200
    _, back = _call(base, "POST", "/query", question)
    assert top in [r["id"] for r in back["results"]]
    assert _call(base, "POST", "/unarchive", {"id": "nope"}, headers={"X-Operator-Token": "s3cret"})[0] == 404
    assert _call(base, "POST", "/unarchive", {"id": top}, headers={"X-Operator-Token": "s3cret"})[0] == 422
