"""The Ray engine writes the same rows as the local engine (local Ray cluster, 2 CPUs).

Slow (Ray start-up ~15 s) but part of CI.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from smartvector_core import cli
from smartvector_core.embedding import HashingEmbedder
from smartvector_core.errors import InputError
from smartvector_core.ingest import read_records, validate_records
from smartvector_core.scaleout.ray_ingest import EncoderPool, ingest_documents_ray
from smartvector_core.service import SmartVector
from smartvector_core.settings import DEMO_CORPUS, load_settings
from tests.conftest import NOW, write_jsonl

pytestmark = pytest.mark.slow


def _app(path) -> SmartVector:
    return SmartVector(load_settings(str(path), env={"SMARTVECTOR_MODEL": "hashing"}), embedder=HashingEmbedder())


def _rows(app: SmartVector):
    ids = app.store.documents(include_retired=True).column("doc_id").to_pylist()
    rows = app.store.chunks_for_docs(ids, current_only=False, with_vectors=True).to_pylist()
    return sorted(rows, key=lambda r: (r["doc_id"], r["ordinal"], r["chunk_id"], r["current"]))


def _assert_same_rows(a: SmartVector, b: SmartVector) -> None:
    left, right = _rows(a), _rows(b)
    assert len(left) == len(right) > 0
    for x, y in zip(left, right, strict=True):
        vx, vy = np.asarray(x.pop("vector")), np.asarray(y.pop("vector"))
        assert np.allclose(vx, vy, atol=1e-6), x["chunk_id"]
        for key in ("authority",):  # NaN != NaN
            if x[key] != x[key] and y[key] != y[key]:
                x[key] = y[key] = None
        assert x == y


def test_ray_engine_writes_the_same_rows_as_the_local_engine(ray_cluster, tmp_path):
    docs = validate_records(read_records(DEMO_CORPUS), ingest_time=NOW)
    local, distributed = _app(tmp_path / "local"), _app(tmp_path / "ray")
    a = local.ingest_records(read_records(DEMO_CORPUS), now=NOW, consolidate=False)
    stats: dict = {}
    b = ingest_documents_ray(distributed.store, docs, model_name="hashing", now=NOW,
                             embedder=_NoEncode(distributed.store.dim), batch=16, stats=stats)
    assert a.to_dict() == b.to_dict()
    assert stats["texts"] == b.chunks_embedded and stats["batches"] >= b.chunks_embedded / 16
    _assert_same_rows(local, distributed)

    # an edit: only the changed chunk is new; content-hash reuse is the local rule
    records = [json.loads(line) for line in DEMO_CORPUS.read_text().splitlines() if line.strip()]
    records[0]["text"] += "\n\nA new closing paragraph about quotas."
    records.append({**records[1], "id": records[1]["id"] + "_copy"})  # same texts, new id: all reused
    docs2 = validate_records(records, ingest_time=NOW)
    a2 = local.ingest_records(records, now=NOW, consolidate=False)
    b2 = ingest_documents_ray(distributed.store, docs2, model_name="hashing", now=NOW,
                              embedder=_NoEncode(distributed.store.dim))
    assert a2.to_dict() == b2.to_dict()
    assert b2.chunks_embedded >= 1 and b2.updated == [records[0]["id"]]
    _assert_same_rows(local, distributed)


def test_a_store_of_another_encoder_is_refused_before_anything_is_encoded(ray_cluster, tmp_path):
    app = _app(tmp_path / "s")
    app.ingest_records(read_records(DEMO_CORPUS)[:2], now=NOW, consolidate=False)     # records hashing-384
    docs = validate_records(read_records(DEMO_CORPUS)[2:4], ingest_time=NOW)
    with pytest.raises(InputError, match="hashing-384"):
        ingest_documents_ray(app.store, docs, model_name="hashing-128", now=NOW, stats=(stats := {}))
    assert stats == {} and app.store.encoder() == "hashing-384"   # no actor was asked for a vector


def test_encoder_pool_gives_each_text_its_own_vector(ray_cluster):
    """Many batches, a short last one, results taken in whatever order the actors finish."""
    texts = [f"text {i} about {'quotas' if i % 3 else 'limits'} and item {i * 7}" for i in range(53)]
    pool = EncoderPool("hashing", 2, batch=8)
    for i, text in enumerate(texts):
        pool.add(f"h{i}", text)
    vectors = pool.finish()
    expected = HashingEmbedder().encode(texts)
    assert sorted(vectors) == sorted(f"h{i}" for i in range(53))
    for i in range(53):
        assert np.array_equal(vectors[f"h{i}"], expected[i]), i
    assert pool.stats["texts"] == 53 and pool.stats["batches"] >= 7 and not pool.actors


class _NoEncode:
    """The driver must not encode anything itself: the Ray stage did it all."""

    def __init__(self, dim: int) -> None:
        self.dim = dim

    def encode(self, texts, **_):
        assert not texts, f"driver asked to encode {len(texts)} texts"
        return np.zeros((0, self.dim), dtype=np.float32)


def _json_line(stdout: str) -> dict:
    """The command's JSON line. Ray's raylet may print its own notices into this process's
    stdout (e.g. a worker killed on a loaded machine); the JSON stays one line of its own."""
    return json.loads(next(line for line in reversed(stdout.splitlines()) if line.startswith("{")))


def test_cli_engine_ray(ray_cluster, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SMARTVECTOR_MODEL", "hashing")
    corpus = write_jsonl(tmp_path / "c.jsonl",
                         [json.loads(line) for line in DEMO_CORPUS.read_text().splitlines()[:10]])
    assert cli.main(["--store", str(tmp_path / "s"), "ingest", "--engine", "ray", "--json", str(corpus)]) == 0
    out = _json_line(capsys.readouterr().out)
    assert out["documents"] == 10 and out["added"] == 10 and out["chunks_embedded"] > 0
    assert cli.main(["--store", str(tmp_path / "s"), "ingest", "--engine", "ray", "--json", str(corpus)]) == 0
    again = _json_line(capsys.readouterr().out)
    assert again["unchanged"] == 10 and again["chunks_embedded"] == 0
