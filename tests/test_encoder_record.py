"""One store, one encoder (issue 18 item 3): the store records the encoder of its vectors on the
first write and refuses vectors or questions of another encoder, before anything is written."""

from __future__ import annotations

import json

import pytest

from smartvector_core.embedding import HashingEmbedder, check_encoder
from smartvector_core.errors import InputError
from smartvector_core.service import SmartVector
from smartvector_core.settings import load_settings

from .conftest import NOW

RECORDS = [{"id": "refunds", "title": "Refunds", "text": "Refunds are accepted within 30 days of purchase.",
            "created_at": "2026-01-01T00:00:00Z"}]


class OtherEncoder(HashingEmbedder):
    """Same dimension, another encoder (as the int8 variant is to the fp32 model)."""

    def __init__(self) -> None:
        super().__init__(384)
        self.encoder_id = "all-MiniLM-L6-v2+int8"


def _versions(app):
    return {name: app.store.version(name) for name in ("chunks", "edges", "events", "queries")}


def test_first_write_records_the_encoder_and_another_one_is_refused(store_dir):
    first = SmartVector(load_settings(str(store_dir), env={}), embedder=HashingEmbedder(384))
    assert first.store.encoder() is None
    first.ingest_records(RECORDS, now=NOW)
    assert first.store.encoder() == "hashing-384"
    first.query("refund window", as_of=NOW, log=False)            # same encoder: answered

    other = SmartVector(load_settings(str(store_dir), env={}), embedder=OtherEncoder())
    before = _versions(other)
    more = [dict(RECORDS[0], id="refunds_v2", text="Refunds are accepted within 60 days.")]
    with pytest.raises(InputError) as ingest_error:
        other.ingest_records(more, now=NOW)
    assert "'hashing-384'" in str(ingest_error.value) and "'all-MiniLM-L6-v2+int8'" in str(ingest_error.value)
    with pytest.raises(InputError, match="re-embed"):
        other.query("refund window", as_of=NOW, log=False)
    assert _versions(other) == before                              # nothing written
    assert other.store.count_chunks() == 1


def test_cli_exits_2_naming_both_encoders(cli, monkeypatch, tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("\n".join(json.dumps(r) for r in RECORDS) + "\n", encoding="utf-8")
    code, _, _ = cli("ingest", str(corpus))
    assert code == 0
    monkeypatch.setenv("SMARTVECTOR_MODEL", "all-MiniLM-L6-v2")   # the real model: another encoder
    code, out, err = cli("query", "refund window", "--json")
    assert code == 2 and out == ""
    line, = err.strip().splitlines()
    assert "'hashing-384'" in line and "'all-MiniLM-L6-v2'" in line and "SMARTVECTOR_MODEL=hashing-384" in line


def test_the_check_itself():
    check_encoder(None, "all-MiniLM-L6-v2", "s")                   # nothing recorded: allowed
    check_encoder("all-MiniLM-L6-v2", "all-MiniLM-L6-v2", "s")
    with pytest.raises(InputError, match="SMARTVECTOR_EMBED_BACKEND=onnx-int8"):
        check_encoder("all-MiniLM-L6-v2+int8", "all-MiniLM-L6-v2", "s")
