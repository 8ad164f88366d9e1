"""An opt-in on-disk cache of sentence vectors, for repeated benchmark runs over the same texts.

Set ``SMARTVECTOR_EMBED_CACHE_DIR`` (read by :func:`settings.embed_cache_dir`) and
:func:`embedding.get_embedder` wraps its encoder in :class:`CachedEmbedder`. Unset (the default)
nothing is cached and nothing changes.

Layout: one folder per encoder, named by the encoder id (``encoder_id``, e.g.
``all-MiniLM-L6-v2`` or ``all-MiniLM-L6-v2+int8``: vectors of two encoders never mix), holding two
append-only files written together under an exclusive ``flock``:

- ``keys.bin``: one 16-byte BLAKE2b digest per vector, of the text exactly as given to ``encode``;
- ``vectors.f32``: the vectors, ``dim`` float32 each, in the same order.

A vector read back is the float32 the encoder returned when the text was first encoded, so a
cached run gives the vectors of an earlier run bit for bit. A run cut off between the two writes
leaves the longer file with a tail that the shorter one does not cover; that tail is ignored on
the next load (the rows kept are ``min(keys, vectors)``).
"""

from __future__ import annotations

import fcntl
import hashlib
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

DIGEST_BYTES = 16


def text_digest(text: str) -> bytes:
    """The cache key of one text: BLAKE2b-128 of its UTF-8 bytes."""
    return hashlib.blake2b(str(text).encode("utf-8"), digest_size=DIGEST_BYTES).digest()


class CachedEmbedder:
    """Wraps an encoder: texts seen before (by any process using the same folder) are read from disk."""

    def __init__(self, inner, root: str | Path) -> None:
        self.inner = inner
        self.name = inner.name
        self.encoder_id = inner.encoder_id
        self.dim = int(inner.dim)
        self.folder = Path(root) / re.sub(r"[^A-Za-z0-9._+-]", "_", str(self.encoder_id))
        self.folder.mkdir(parents=True, exist_ok=True)
        self._keys = self.folder / "keys.bin"
        self._vectors = self.folder / "vectors.f32"
        self._lock = self.folder / "lock"
        self._row: dict[bytes, int] = {}
        self._matrix = np.zeros((0, self.dim), dtype=np.float32)   # capacity >= rows
        self._rows = 0
        self.encoded = 0            # texts this wrapper had to encode (not found on disk)
        self._read_tail()

    def _read_tail(self) -> None:
        """Read the rows other writers appended since the last read (all of them the first time)."""
        key_rows = self._keys.stat().st_size // DIGEST_BYTES if self._keys.is_file() else 0
        vec_rows = self._vectors.stat().st_size // (4 * self.dim) if self._vectors.is_file() else 0
        rows = min(key_rows, vec_rows)
        if rows <= self._rows:
            return
        with open(self._keys, "rb") as kf, open(self._vectors, "rb") as vf:
            kf.seek(self._rows * DIGEST_BYTES)
            keys = kf.read((rows - self._rows) * DIGEST_BYTES)
            vf.seek(self._rows * self.dim * 4)
            block = np.fromfile(vf, dtype=np.float32, count=(rows - self._rows) * self.dim).reshape(-1, self.dim)
        self._grow(rows)
        self._matrix[self._rows:rows] = block
        for i in range(rows - self._rows):
            self._row[keys[i * DIGEST_BYTES:(i + 1) * DIGEST_BYTES]] = self._rows + i
        self._rows = rows

    def _grow(self, rows: int) -> None:
        if rows > len(self._matrix):
            bigger = np.zeros((max(rows, 2 * len(self._matrix), 1024), self.dim), dtype=np.float32)
            bigger[:self._rows] = self._matrix[:self._rows]
            self._matrix = bigger

    def encode(self, texts: Sequence[str], **kwargs) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        digests = [text_digest(t) for t in texts]
        missing = list(dict.fromkeys(d for d in digests if d not in self._row))
        if missing:
            first = {}
            for d, t in zip(digests, texts, strict=True):
                first.setdefault(d, t)
            fresh = np.asarray(self.inner.encode([first[d] for d in missing], **kwargs), dtype=np.float32)
            self.encoded += len(missing)
            self._append(missing, fresh)
        return self._matrix[[self._row[d] for d in digests]].copy()

    def _append(self, digests: list[bytes], vectors: np.ndarray) -> None:
        """Append the vectors of texts not yet on disk; a text another process wrote first keeps
        that process's vector (the same text, the same encoder)."""
        with open(self._lock, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                self._read_tail()
                new = [i for i, d in enumerate(digests) if d not in self._row]
                if not new:
                    return
                with open(self._keys, "ab") as kf, open(self._vectors, "ab") as vf:
                    kf.truncate(self._rows * DIGEST_BYTES)   # drop a torn tail before appending
                    vf.truncate(self._rows * self.dim * 4)
                    kf.write(b"".join(digests[i] for i in new))
                    vf.write(np.ascontiguousarray(vectors[new], dtype=np.float32).tobytes())
                self._read_tail()
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)
