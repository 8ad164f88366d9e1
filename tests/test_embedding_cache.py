"""The opt-in on-disk vector cache: same vectors as the encoder, read back across instances."""

from __future__ import annotations

import numpy as np

from smartvector_core import embedding
from smartvector_core.embedding import HashingEmbedder
from smartvector_core.embedding_cache import CachedEmbedder
from smartvector_core.settings import embed_cache_dir


class Counting(HashingEmbedder):
    def __init__(self, encoder_id: str = "hashing") -> None:
        super().__init__()
        self.encoder_id = encoder_id
        self.seen: list[str] = []

    def encode(self, texts, **kwargs):
        self.seen += list(texts)
        return super().encode(texts, **kwargs)


def test_vectors_equal_the_encoders_and_are_read_back_by_a_new_instance(tmp_path):
    inner = Counting()
    cached = CachedEmbedder(inner, tmp_path)
    texts = ["refund window 30 days", "rate limit 100", "refund window 30 days"]
    first = cached.encode(texts)
    assert np.array_equal(first, HashingEmbedder().encode(texts))
    assert inner.seen == ["refund window 30 days", "rate limit 100"]        # each text once
    again = Counting()
    second = CachedEmbedder(again, tmp_path).encode(["rate limit 100", "new text"])
    assert again.seen == ["new text"]                                       # the rest came from disk
    assert np.array_equal(second[0], first[1])
    assert cached.encode([]).shape == (0, cached.dim)


def test_encoders_do_not_share_vectors_and_a_torn_tail_is_ignored(tmp_path):
    CachedEmbedder(Counting("model-a"), tmp_path).encode(["one", "two"])
    other = Counting("model-a+int8")
    CachedEmbedder(other, tmp_path).encode(["one"])
    assert other.seen == ["one"]
    folder = tmp_path / "model-a"
    with open(folder / "keys.bin", "ab") as keys:                           # a key without its vector
        keys.write(b"\0" * 16)
    fresh = Counting("model-a")
    cache = CachedEmbedder(fresh, tmp_path)
    assert cache.encode(["two", "three"]).shape == (2, cache.dim) and fresh.seen == ["three"]
    assert CachedEmbedder(Counting("model-a"), tmp_path)._rows == 3


def test_get_embedder_wraps_only_when_the_folder_is_set(tmp_path, monkeypatch):
    assert embed_cache_dir({}) is None
    assert embed_cache_dir({"SMARTVECTOR_EMBED_CACHE_DIR": str(tmp_path)}) == tmp_path
    monkeypatch.setattr(embedding, "_load_encoder", lambda name: Counting(name))
    embedding.get_embedder.cache_clear()
    try:
        monkeypatch.delenv("SMARTVECTOR_EMBED_CACHE_DIR", raising=False)
        assert isinstance(embedding.get_embedder("model-x"), Counting)
        embedding.get_embedder.cache_clear()
        monkeypatch.setenv("SMARTVECTOR_EMBED_CACHE_DIR", str(tmp_path))
        wrapped = embedding.get_embedder("model-x")
        assert isinstance(wrapped, CachedEmbedder) and wrapped.encoder_id == "model-x"
    finally:
        embedding.get_embedder.cache_clear()
