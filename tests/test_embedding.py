"""The encoder backends: ONNX Runtime reproduces PyTorch, its export cache, and the fallbacks."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from smartvector_core import embedding
from smartvector_core.embedding import OnnxEmbedder, OnnxUnavailable, SentenceEmbedder, get_embedder
from smartvector_core.errors import SmartVectorError

TEXTS = ["What is the current API rate limit per key?",
         "  Refunds are accepted for 30 days (was 14).  ",
         "Ünïcode — café, naïve, 東京, ✓",
         "",
         " ".join(["the retention policy applies to every archived invoice"] * 60)]   # past 256 tokens


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    """One export into a private cache directory, shared by the tests of this module."""
    cache = tmp_path_factory.mktemp("onnx-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SMARTVECTOR_CACHE_DIR", str(cache))
        model = OnnxEmbedder(threads=1)
    assert model.path.is_file() and model.path.parent == cache / "onnx"
    return model.path


@pytest.fixture(scope="module")
def torch_model() -> SentenceEmbedder:
    return SentenceEmbedder(threads=1)


def test_onnx_vectors_match_pytorch(exported, torch_model):
    onnx = OnnxEmbedder(onnx_path=exported, threads=1)
    got, expected = onnx.encode(TEXTS), torch_model.encode(TEXTS)
    assert got.shape == expected.shape == (len(TEXTS), 384) and got.dtype == np.float32
    assert np.abs(got - expected).max() < 1e-5
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    # batching sorts by length and pads per batch: the same rows whatever the batch size
    assert np.abs(onnx.encode(TEXTS, batch_size=2) - got).max() < 1e-5
    assert onnx.encode([]).shape == (0, 384)


def test_cached_export_is_reused_without_exporting(exported, monkeypatch, tmp_path):
    cache = tmp_path / "cache"
    (cache / "onnx").mkdir(parents=True)
    shutil.copy(exported, cache / "onnx" / exported.name)
    monkeypatch.setenv("SMARTVECTOR_CACHE_DIR", str(cache))
    monkeypatch.setattr(embedding, "_export_onnx", lambda *_: pytest.fail("exported again"))
    assert OnnxEmbedder(threads=1).path == cache / "onnx" / exported.name


def test_damaged_cache_file_is_exported_afresh(exported, monkeypatch, tmp_path, torch_model):
    cache = tmp_path / "cache"
    (cache / "onnx").mkdir(parents=True)
    (cache / "onnx" / exported.name).write_bytes(b"not an onnx graph")
    monkeypatch.setenv("SMARTVECTOR_CACHE_DIR", str(cache))
    model = OnnxEmbedder(threads=1)
    assert model.path.stat().st_size > 1_000_000
    assert np.abs(model.encode(TEXTS[:1]) - torch_model.encode(TEXTS[:1])).max() < 1e-5


def test_export_that_does_not_reproduce_pytorch_is_not_kept(monkeypatch, tmp_path):
    monkeypatch.setenv("SMARTVECTOR_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(embedding, "_EXPORT_TOLERANCE", -1.0)
    with pytest.raises(OnnxUnavailable, match="differs from PyTorch"):
        OnnxEmbedder(threads=1)
    assert list((tmp_path / "onnx").iterdir()) == []   # neither the graph nor a partial file


def test_unusable_cache_directory_falls_back_to_pytorch(monkeypatch, tmp_path, caplog):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("SMARTVECTOR_CACHE_DIR", str(blocker))
    model = get_embedder.__wrapped__()
    assert isinstance(model, SentenceEmbedder)
    assert "encoding with PyTorch" in caplog.text and str(blocker) in caplog.text


def test_backend_is_chosen_by_environment(monkeypatch):
    monkeypatch.setenv("SMARTVECTOR_EMBED_BACKEND", "torch")
    assert isinstance(get_embedder.__wrapped__(), SentenceEmbedder)
    monkeypatch.setenv("SMARTVECTOR_EMBED_BACKEND", "tensorflow")
    with pytest.raises(SmartVectorError, match="SMARTVECTOR_EMBED_BACKEND='tensorflow'.*onnx, onnx-int8, torch"):
        get_embedder.__wrapped__()


def test_int8_variant_is_built_verified_and_named_apart(exported, monkeypatch):
    """The int8 encoder comes from the fp32 export by ONNX Runtime's own quantiser, keeps the
    fp32 geometry (mean cosine >= 0.99 on texts it was not verified on) and says it is int8."""
    monkeypatch.setenv("SMARTVECTOR_CACHE_DIR", str(exported.parent.parent))
    fp32 = OnnxEmbedder(threads=1)
    int8 = OnnxEmbedder(threads=1, int8=True)
    assert int8.path.name.endswith("-int8.onnx") and int8.path.is_file()
    assert fp32.encoder_id == "all-MiniLM-L6-v2" and int8.encoder_id == "all-MiniLM-L6-v2+int8"
    texts = [t for t in TEXTS if t] + ["Which release fixed the redirect bug?", "Orders API: 5000 calls a minute"]
    cosine = (fp32.encode(texts) * int8.encode(texts)).sum(axis=1)
    assert cosine.mean() >= 0.99 and cosine.min() >= 0.97
    assert not np.allclose(fp32.encode(texts), int8.encode(texts), atol=1e-4)   # a different encoder


def test_int8_drift_is_refused(exported, tmp_path, monkeypatch):
    monkeypatch.setattr(embedding, "_INT8_MIN_MEAN_COSINE", 1.01)   # no quantised model can pass this
    with pytest.raises(OnnxUnavailable, match="drift"):
        embedding._quantize_int8(exported, tmp_path / "x-int8.onnx", embedding._model_path("all-MiniLM-L6-v2"))
    assert not list(tmp_path.iterdir())   # nothing half-made is left behind


def test_encoder_id_follows_the_backend(monkeypatch):
    monkeypatch.setenv("SMARTVECTOR_EMBED_BACKEND", "onnx-int8")
    assert embedding.encoder_id_for("all-MiniLM-L6-v2") == "all-MiniLM-L6-v2+int8"
    monkeypatch.setenv("SMARTVECTOR_EMBED_BACKEND", "torch")
    assert embedding.encoder_id_for("all-MiniLM-L6-v2") == "all-MiniLM-L6-v2"
    assert embedding.encoder_id_for("hashing") == "hashing-384"
