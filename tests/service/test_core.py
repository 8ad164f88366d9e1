"""The service's own state (``service/core.py``): the encoder it shares with callers that encode
elsewhere (Ray ingest)."""

from __future__ import annotations

from smartvector_core.embedding import HashingEmbedder
from smartvector_core.service import SmartVector
from smartvector_core.settings import load_settings


def test_share_embedder_makes_one_encoder_once_and_keeps_it(tmp_path):
    app = SmartVector(load_settings(str(tmp_path / "store"), env={}))
    made: list[int] = []
    first = app.share_embedder(lambda: made.append(1) or HashingEmbedder())
    again = app.share_embedder(lambda: made.append(2) or HashingEmbedder())
    assert again is first and app.embedder is first and made == [1]
    given = HashingEmbedder()
    assert SmartVector(load_settings(str(tmp_path / "other"), env={}), embedder=given).share_embedder(
        HashingEmbedder) is given


def test_warm_reads_the_state_and_starts_the_chunks_copy_before_the_first_question(tmp_path, monkeypatch):
    import smartvector_core.retrieval.query_cache as query_cache_module
    from tests.conftest import NOW

    empty = SmartVector(load_settings(str(tmp_path / "empty"), env={}), embedder=HashingEmbedder())
    empty.warm(as_of=NOW)                                      # an empty store: nothing to warm, no error
    app = SmartVector(load_settings(str(tmp_path / "store"), env={}), embedder=HashingEmbedder())
    app.ingest_records([{"id": f"d{i}", "text": f"The Checkout Service keeps {i} replicas.",
                         "created_at": "2025-01-01"} for i in range(8)], now=NOW, consolidate=False)
    monkeypatch.setattr(query_cache_module, "TEXT_INDEX_NOW_ROWS", 0)     # a large store: in the background
    assert app.query_cache()._text_index is None                 # nothing asked yet: not started
    events = app.store.events().num_rows
    app.warm(as_of=NOW)
    cache = app.query_cache()
    assert cache._text_index is not None and cache.calibration() is not None     # started, and fitted
    assert cache._fields is not None and app.store.events().num_rows == events    # read; nothing written
    assert app.pending_log_rows() == 0 and app.store.count_rows("queries") == 0
    assert len(cache.wait_for_text_index(timeout=60)) == 8
    answer = app.query("How many replicas does the Checkout Service keep?", as_of=NOW, log=False)
    assert app.query_cache() is cache and answer.results                 # the first question reads that cache
