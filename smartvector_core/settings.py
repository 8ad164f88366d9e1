"""Settings read once from the environment (the only place that reads it).

``store_uri``: ``--store``, else ``$SMARTVECTOR_STORE``, else ``data/lancedb`` beside the repo.
Object-store URIs (``s3://``, ``gs://``, ``az://``) pass straight to LanceDB with
``storage_options`` taken from the standard variables (``AWS_ENDPOINT_URL``, ``AWS_ACCESS_KEY_ID``,
``AWS_SECRET_ACCESS_KEY``, ``AWS_SESSION_TOKEN``, ``AWS_REGION``, ``AWS_ALLOW_HTTP``) over those of
the settings file ``$SMARTVECTOR_SETTINGS`` (JSON or TOML with a ``storage_options`` table).
A ``file://`` URI is the local path it names; an explicit empty ``--store`` and any other scheme
are input errors. A number setting (``SMARTVECTOR_MAX_FILE_BYTES``, ``SMARTVECTOR_MAX_LINE_BYTES``,
``SMARTVECTOR_EMBED_THREADS``) that is not a whole number in its range is an input error naming
the variable.
"""

from __future__ import annotations

import hmac
import json
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .config import DEFAULT_MODEL_NAME
from .errors import InputError

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


def _file_storage_options(path: str | None) -> dict[str, str]:
    """``storage_options`` from a settings file (``$SMARTVECTOR_SETTINGS``, JSON or TOML).

    Environment variables override the file, key by key.
    """
    if not path:
        return {}
    file = Path(path).expanduser()
    try:
        text = file.read_text(encoding="utf-8")
        data = tomllib.loads(text) if file.suffix.lower() == ".toml" else json.loads(text)
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read settings file {file}: {exc}", field="SMARTVECTOR_SETTINGS") from exc
    options = data.get("storage_options", {}) if isinstance(data, dict) else None
    if not isinstance(options, dict):
        raise InputError(f"{file}: expected a table 'storage_options' of strings, found {options!r}",
                         field="storage_options")
    return {str(k): str(v).lower() if isinstance(v, bool) else str(v) for k, v in options.items()}


def is_remote(uri: str) -> bool:
    return uri.startswith(_REMOTE_SCHEMES)


def _store_uri(store: str | None, env: dict[str, str]) -> str:
    """The store: ``store`` (None: not given), else ``$SMARTVECTOR_STORE`` (empty: unset), else
    the default; a local path made absolute, ``file://`` turned into its path."""
    if store is not None and not store.strip():
        raise InputError("empty: give a store folder or URI, or leave --store out for the default", field="--store")
    uri = store or env.get("SMARTVECTOR_STORE") or str(DEFAULT_STORE)
    if is_remote(uri):
        return uri
    if uri.lower().startswith("file://"):
        from urllib.parse import unquote, urlparse

        parsed = urlparse(uri)
        if parsed.netloc not in ("", "localhost"):
            raise InputError(f"a file:// URI names a folder on this machine, found host {parsed.netloc!r}",
                             field="--store")
        uri = unquote(parsed.path)
    elif "://" in uri:
        raise InputError(f"unknown scheme in {uri!r}: expected a folder, file://, or one of "
                         f"{', '.join(s.removesuffix('://') for s in _REMOTE_SCHEMES)}", field="--store")
    return str(Path(uri).expanduser().resolve())


def _whole_number(env: dict[str, str], name: str, default: int, *, low: int) -> int:
    """``env[name]`` as a whole number >= ``low`` (absent or empty: ``default``), else an
    :class:`InputError` naming the variable."""
    text = str(env.get(name, "")).strip()
    if not text:
        return default
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise InputError(f"expected a whole number, found {text[:40]!r}", field=name) from None
    if value < low:
        raise InputError(f"expected a whole number of at least {low}, found {value}", field=name)
    return value


@dataclass(frozen=True)
class Settings:
    store_uri: str
    model_name: str = DEFAULT_MODEL_NAME
    storage_options: dict[str, str] = field(default_factory=dict)
    operator_token: str | None = None
    max_file_bytes: int = 50 * 1024 * 1024
    max_line_bytes: int = 5 * 1024 * 1024
    crash_at: str | None = None   # test hook: SMARTVECTOR_CRASH_AT=<point> (see Store.crash_point)

    @property
    def remote(self) -> bool:
        return is_remote(self.store_uri)


def token_allows(expected: str | None, given: str | None) -> bool:
    """The operator-token rule (DESIGN.md "Trust model"): writing is open when no token is
    configured; otherwise ``given`` must equal it (constant-time comparison). The service
    (:meth:`SmartVector.check_operator`, the HTTP API) and the dashboard both ask this."""
    if not expected:
        return True
    return bool(given) and hmac.compare_digest(str(given).encode("utf-8"), expected.encode("utf-8"))


def debug_enabled(env: dict[str, str] | None = None) -> bool:
    """``SMARTVECTOR_DEBUG`` set: the CLI re-raises unexpected errors (a traceback) instead of one
    line. Read on its own, so it works even when the rest of the settings fail to load."""
    return bool((os.environ if env is None else env).get("SMARTVECTOR_DEBUG"))


def load_settings(store: str | None = None, *, env: dict[str, str] | None = None) -> Settings:
    """Build :class:`Settings` from an explicit store and the environment (default ``os.environ``)."""
    env = dict(os.environ if env is None else env)
    uri = _store_uri(store, env)
    embed_threads(env)   # a bad value is reported now, naming the variable, not at the first encoding
    options = {**_file_storage_options(env.get("SMARTVECTOR_SETTINGS")),
               **{key: env[name] for name, key in _STORAGE_ENV.items() if env.get(name)}}
    if "aws_region" not in options and env.get("AWS_DEFAULT_REGION"):
        options["aws_region"] = env["AWS_DEFAULT_REGION"]
    return Settings(
        store_uri=uri,
        model_name=env.get("SMARTVECTOR_MODEL", DEFAULT_MODEL_NAME),
        storage_options=options,
        operator_token=env.get("SMARTVECTOR_OPERATOR_TOKEN") or None,
        max_file_bytes=_whole_number(env, "SMARTVECTOR_MAX_FILE_BYTES", 50 * 1024 * 1024, low=1),
        max_line_bytes=_whole_number(env, "SMARTVECTOR_MAX_LINE_BYTES", 5 * 1024 * 1024, low=1),
        crash_at=env.get("SMARTVECTOR_CRASH_AT") or None,
    )


# --- the encoder's process-level switches: read at each call (a benchmark or a Ray actor sets
# them for its own process), by smartvector_core.embedding
def embed_backend_name(env: dict[str, str] | None = None) -> str:
    """``SMARTVECTOR_EMBED_BACKEND`` lower-cased (default ``onnx``); :func:`embedding.embed_backend` checks it."""
    return (os.environ if env is None else env).get("SMARTVECTOR_EMBED_BACKEND", "onnx").strip().lower() or "onnx"


def embed_threads(env: dict[str, str] | None = None) -> int | None:
    """Threads for the encoder (``SMARTVECTOR_EMBED_THREADS``; unset or 0: the library's default)."""
    return _whole_number(os.environ if env is None else env, "SMARTVECTOR_EMBED_THREADS", 0, low=0) or None


def embed_cache_dir(env: dict[str, str] | None = None) -> Path | None:
    """Folder of the opt-in on-disk vector cache (``SMARTVECTOR_EMBED_CACHE_DIR``; unset: no cache),
    see :mod:`smartvector_core.embedding_cache`."""
    root = (os.environ if env is None else env).get("SMARTVECTOR_EMBED_CACHE_DIR", "").strip()
    return Path(root) if root else None


def cache_dir(env: dict[str, str] | None = None) -> Path:
    """Where one-time builds are kept: ``$SMARTVECTOR_CACHE_DIR``, default ``~/.cache/smartvector``."""
    root = (os.environ if env is None else env).get("SMARTVECTOR_CACHE_DIR")
    return Path(root or os.path.join(os.path.expanduser("~"), ".cache", "smartvector"))
