"""Settings read once from the environment (the only place that reads it).

``store_uri``: ``--store``, else ``$SMARTVECTOR_STORE``, else ``data/lancedb`` beside the repo.
Object-store URIs (``s3://``, ``gs://``, ``az://``) pass straight to LanceDB with
``storage_options`` taken from the standard variables (``AWS_ENDPOINT_URL``, ``AWS_ACCESS_KEY_ID``,
``AWS_SECRET_ACCESS_KEY``, ``AWS_REGION``, ``AWS_ALLOW_HTTP``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from .config import DEFAULT_MODEL_NAME

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_STORE = REPO_ROOT / "data" / "lancedb"
DEMO_CORPUS = REPO_ROOT / "data" / "demo_corpus.jsonl"
DEMO_QUERIES = REPO_ROOT / "data" / "demo_queries.jsonl"
_REMOTE_SCHEMES = ("s3://", "gs://", "az://", "s3+ddb://", "memory://")

_STORAGE_ENV = {
    "AWS_ENDPOINT_URL": "aws_endpoint",
    "AWS_ACCESS_KEY_ID": "aws_access_key_id",
    "AWS_SECRET_ACCESS_KEY": "aws_secret_access_key",
    "AWS_SESSION_TOKEN": "aws_session_token",
    "AWS_REGION": "aws_region",
    "AWS_ALLOW_HTTP": "allow_http",
}


def is_remote(uri: str) -> bool:
    return uri.startswith(_REMOTE_SCHEMES)


@dataclass(frozen=True)
class Settings:
    store_uri: str
    model_name: str = DEFAULT_MODEL_NAME
    storage_options: dict[str, str] = field(default_factory=dict)
    operator_token: str | None = None
    max_file_bytes: int = 50 * 1024 * 1024
    max_line_bytes: int = 5 * 1024 * 1024

    @property
    def remote(self) -> bool:
        return is_remote(self.store_uri)


def load_settings(store: str | None = None, *, env: dict[str, str] | None = None) -> Settings:
    """Build :class:`Settings` from an explicit store and the environment (default ``os.environ``)."""
    env = dict(os.environ if env is None else env)
    uri = store or env.get("SMARTVECTOR_STORE") or str(DEFAULT_STORE)
    if not is_remote(uri):
        uri = str(Path(uri).expanduser().resolve())
    options = {key: env[name] for name, key in _STORAGE_ENV.items() if env.get(name)}
    return Settings(
        store_uri=uri,
        model_name=env.get("SMARTVECTOR_MODEL", DEFAULT_MODEL_NAME),
        storage_options=options,
        operator_token=env.get("SMARTVECTOR_OPERATOR_TOKEN") or None,
        max_file_bytes=int(env.get("SMARTVECTOR_MAX_FILE_BYTES", 50 * 1024 * 1024)),
    )
