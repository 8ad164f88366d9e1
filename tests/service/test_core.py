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
