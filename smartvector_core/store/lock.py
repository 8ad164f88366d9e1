"""A write lock that lives in the bucket: one writer per ``s3://`` store across machines.

The lock is one object, ``<prefix>/_smartvector/write.lock``, created with a conditional write
(``PutObject`` with ``If-None-Match: *``): S3 (and moto 5.2.5) accept exactly one of several
racing creators and answer the others ``412 Precondition Failed``. The body names the holder
(a random owner token, host, pid) and a lease expiry. While held, a heartbeat thread renews the
lease with ``If-Match: <etag>`` so a slow bulk write keeps it; a holder that crashed stops
renewing, and a waiter that finds the lease expired takes it over with ``If-Match`` on the stale
etag (only one waiter can win that too). Release deletes the object with ``If-Match`` on our
etag, so a holder whose lease was taken over never deletes the new holder's lock.

Limits (see docs/SCALING.md): the guarantee rests on the store honouring conditional writes
(AWS S3 since 2024, MinIO, moto; some S3-compatible stores ignore them). A holder paused longer
than the lease (``ttl_s``, default 60 s; renewed every ``ttl_s / 4``) can lose the lock while it
still believes it holds it; the next renewal notices (``lost`` is set) but a commit already in
flight is not undone. Expiry compares wall clocks of different machines, so keep them in NTP
sync well within ``ttl_s``.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Protocol

from filelock import FileLock

from ..clock import unix_seconds
from ..errors import StoreError

LOCK_KEY = "_smartvector/write.lock"
LOCAL_LOCK_TIMEOUT_S = 120   # a local writer waits this long for the file lock


class WriteLock(Protocol):
    """The store's write lock: an OS file lock (``filelock.FileLock``) on a local store, or
    :class:`S3WriteLock` on an ``s3://`` one; a context manager that serialises writers."""

    def acquire(self, *args: Any, **kwargs: Any) -> Any: ...
    def release(self, *args: Any, **kwargs: Any) -> Any: ...
    def __enter__(self) -> Any: ...
    def __exit__(self, *exc: Any) -> Any: ...


def open_write_lock(uri: str, storage_options: dict[str, str] | None) -> WriteLock:
    """The write lock of the store at ``uri``: one writer across machines (a lock object in the
    bucket) for ``s3://``; else an OS file lock, in the store's directory for a local store and
    in the temporary directory for another object store."""
    if uri.startswith("s3://"):
        return S3WriteLock(uri, storage_options or {})
    return FileLock(str(_lock_path(uri)), timeout=LOCAL_LOCK_TIMEOUT_S)


def _lock_path(uri: str) -> Path:
    if "://" not in uri:
        Path(uri).mkdir(parents=True, exist_ok=True)
        return Path(uri) / ".write.lock"
    digest = hashlib.sha1(uri.encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"smartvector-{digest}.lock"


def split_s3_uri(uri: str) -> tuple[str, str]:
    """``s3://bucket/a/b`` -> (``bucket``, ``a/b``)."""
    rest = uri.split("://", 1)[1]
    bucket, _, prefix = rest.partition("/")
    return bucket, prefix.strip("/")


def s3_client(storage_options: dict[str, str]):
    """A boto3 S3 client for the same endpoint and credentials LanceDB uses."""
    import boto3
    from botocore.config import Config

    opts = {k.lower(): v for k, v in (storage_options or {}).items()}
    kwargs: dict[str, Any] = {}
    endpoint = opts.get("aws_endpoint") or opts.get("endpoint") or opts.get("aws_endpoint_url")
    if endpoint:
        kwargs["endpoint_url"] = endpoint
    for ours, theirs in (("aws_access_key_id", "aws_access_key_id"),
                         ("aws_secret_access_key", "aws_secret_access_key"),
                         ("aws_session_token", "aws_session_token"),
                         ("aws_region", "region_name")):
        if opts.get(ours):
            kwargs[theirs] = opts[ours]
    kwargs.setdefault("region_name", opts.get("region") or "us-east-1")
    return boto3.client("s3", config=Config(retries={"max_attempts": 3, "mode": "standard"}), **kwargs)


def _status(exc: Exception) -> int:
    return int(getattr(exc, "response", {}).get("ResponseMetadata", {}).get("HTTPStatusCode", 0))


class S3WriteLock:
    """Re-entrant, cross-machine lock object in the bucket (use as a context manager)."""

    def __init__(self, uri: str, storage_options: dict[str, str], *, timeout_s: float = 120.0,
                 ttl_s: float = 60.0, client=None) -> None:
        self.bucket, prefix = split_s3_uri(uri)
        self.key = f"{prefix}/{LOCK_KEY}" if prefix else LOCK_KEY
        self.timeout_s = timeout_s
        self.ttl_s = ttl_s
        self._client = client or s3_client(storage_options)
        self._local = threading.RLock()
        self._depth = 0
        self._etag: str | None = None
        self._stop = threading.Event()
        self._beat: threading.Thread | None = None
        self.lost = False
        self.token = ""

    # ------------------------------------------------------------------------- protocol
    def _body(self) -> bytes:
        return json.dumps({"owner": self.token, "host": socket.gethostname(), "pid": os.getpid(),
                           "expires_at": unix_seconds() + self.ttl_s}).encode()

    def _put(self, **cond) -> str | None:
        """Conditional put of our lease; the new etag, or None when the condition failed."""
        from botocore.exceptions import ClientError

        try:
            resp = self._client.put_object(Bucket=self.bucket, Key=self.key, Body=self._body(), **cond)
        except ClientError as exc:
            if _status(exc) in (409, 412):  # 409: a concurrent conditional write is in progress
                return None
            raise
        return resp["ETag"]

    def _read(self) -> tuple[dict[str, Any], str] | None:
        from botocore.exceptions import ClientError

        try:
            resp = self._client.get_object(Bucket=self.bucket, Key=self.key)
        except ClientError as exc:
            if _status(exc) == 404:
                return None
            raise
        try:
            holder = json.loads(resp["Body"].read())
        except ValueError:
            holder = {"expires_at": 0}
        return holder, resp["ETag"]

    def _try_acquire(self) -> bool:
        etag = self._put(IfNoneMatch="*")
        if etag is None:
            current = self._read()
            if current is None:
                return False  # released in between: try again at once
            holder, stale = current
            if float(holder.get("expires_at", 0)) >= unix_seconds():
                return False
            etag = self._put(IfMatch=stale)  # take over an expired lease: one waiter wins
            if etag is None:
                return False
        self._etag = etag
        return True

    def _heartbeat(self) -> None:
        while not self._stop.wait(self.ttl_s / 4):
            etag = self._put(IfMatch=self._etag)
            if etag is None:
                self.lost = True
                return
            self._etag = etag

    def acquire(self) -> None:
        self._local.acquire()
        if self._depth:
            self._depth += 1
            return
        self.token = os.urandom(16).hex()
        self.lost = False
        deadline = time.monotonic() + self.timeout_s
        delay = 0.02
        try:
            while not self._try_acquire():
                if time.monotonic() > deadline:
                    holder = (self._read() or ({},))[0]
                    raise StoreError(f"store s3://{self.bucket}/{self.key} is locked by "
                                     f"{holder.get('host', '?')} pid {holder.get('pid', '?')}: "
                                     f"gave up after {self.timeout_s:.0f} s")
                time.sleep(delay)
                delay = min(delay * 2, 0.5)
        except BaseException:
            self._local.release()
            raise
        self._depth = 1
        self._stop.clear()
        self._beat = threading.Thread(target=self._heartbeat, name="s3-lock-heartbeat", daemon=True)
        self._beat.start()

    def release(self) -> None:
        from botocore.exceptions import ClientError

        if self._depth > 1:
            self._depth -= 1
            self._local.release()
            return
        try:
            self._stop.set()
            if self._beat is not None:
                self._beat.join()
            try:
                self._client.delete_object(Bucket=self.bucket, Key=self.key, IfMatch=self._etag)
            except ClientError as exc:
                if _status(exc) not in (404, 412):  # 412: our lease was taken over after expiry
                    raise
        finally:
            self._depth = 0
            self._etag = None
            self._local.release()

    def clear_expired(self) -> str | None:
        """Delete the lock object if its lease has expired (its holder died); what was done, or
        None when there is no lock or its holder is alive. ``If-Match`` on the expired etag, so
        a writer that renewed or took the lock meanwhile keeps it."""
        from botocore.exceptions import ClientError

        current = self._read()
        if current is None:
            return None
        holder, etag = current
        if float(holder.get("expires_at", 0)) >= unix_seconds():
            return None
        try:
            self._client.delete_object(Bucket=self.bucket, Key=self.key, IfMatch=etag)
        except ClientError as exc:
            if _status(exc) in (404, 412):
                return None
            raise
        return (f"removed the expired write lock of {holder.get('host', '?')} pid {holder.get('pid', '?')} "
                f"(s3://{self.bucket}/{self.key})")

    def __enter__(self) -> S3WriteLock:
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()
