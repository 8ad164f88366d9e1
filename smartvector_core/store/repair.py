"""Repairs of what a fault can leave in a store: broken tag files and stale write locks.

A write that fails for lack of space can leave a tag file of LanceDB's (``<table>.lance/_refs/
tags/<label>.json``) empty or cut short. LanceDB then refuses every later tag, restore and
cleanup of that table ("EOF while parsing a value"). :func:`broken_tags` finds such files (local
stores: not valid JSON, or no version number), and :func:`repair` removes them under the write
lock. A tag names only a version number, and a broken file no longer holds it, so nothing can be
rebuilt from it: a rolling tag (``pre-ingest``, ``pre-consolidate``) is made again by the next
write that takes it; an operator's tag is reported as lost, by name.

Locks: the write lock of a local store is an OS file lock (``flock``), released by the kernel
when its holder dies, so its file is never a stale lock; :func:`repair` says whether it is free.
An ``s3://`` store's lock object (:class:`~smartvector_core.store.lock.S3WriteLock`) whose lease
has expired is deleted.

:class:`~smartvector_core.store.Store` runs :func:`repair_tags` when it opens a local store
(a directory listing of four tables: microseconds when nothing is broken) and keeps what it did
in ``Store.repairs``; ``maintain --repair`` runs :func:`repair` (``Store.repair``) and prints it.
"""

from __future__ import annotations

import json
from pathlib import Path

from .context import StoreContext
from .lock import S3WriteLock


def _tag_dirs(uri: str, tables) -> list[tuple[str, Path]]:
    if "://" in uri:
        return []
    return [(name, Path(uri) / f"{name}.lance" / "_refs" / "tags") for name in tables]


def broken_tags(uri: str, tables) -> list[tuple[str, str, Path, str]]:
    """(table, label, file, why) of each tag file of ``tables`` LanceDB could not read."""
    out = []
    for name, folder in _tag_dirs(uri, tables):
        try:
            files = sorted(folder.glob("*.json"))
        except OSError:
            continue
        for file in files:
            try:
                data = file.read_bytes()
            except OSError as exc:
                out.append((name, file.stem, file, f"unreadable ({exc.strerror})"))
                continue
            if not data.strip():
                out.append((name, file.stem, file, f"empty ({len(data)} bytes)"))
                continue
            try:
                value = json.loads(data)
            except ValueError:
                out.append((name, file.stem, file, f"not valid JSON ({len(data)} bytes)"))
                continue
            if not isinstance(value, dict) or not isinstance(value.get("version"), int):
                out.append((name, file.stem, file, "names no version"))
    return out


def repair_tags(ctx: StoreContext) -> list[str]:
    """Remove the broken tag files of the store ``ctx`` (under its write lock); what was done, one line each."""
    if not broken_tags(ctx.uri, ctx.tables):
        return []
    done = []
    with ctx.write_lock():
        for table, label, file, why in broken_tags(ctx.uri, ctx.tables):   # again, under the lock
            try:
                file.unlink()
            except FileNotFoundError:
                continue
            done.append(f"removed broken tag {label!r} of table {table} ({why}); "
                        + ("the next write that takes it makes it again" if label.startswith("pre-")
                           else "its version is lost: tag the version again if it is still wanted"))
    return done


def repair(ctx: StoreContext) -> list[str]:
    """Every repair: broken tag files, then the write lock (free, or an expired ``s3://`` lease removed)."""
    done = repair_tags(ctx)
    lock = ctx.lock
    if isinstance(lock, S3WriteLock):
        removed = lock.clear_expired()
        done.append(removed or "write lock: free or held by a live writer (lease not expired)")
    else:
        try:
            lock.acquire(timeout=5)
        except Exception:  # noqa: BLE001 - filelock's Timeout: a live process holds it
            done.append("write lock: held by a running process (an OS lock; it ends with its holder)")
        else:
            lock.release()
            done.append("write lock: free (an OS file lock; a killed holder leaves no stale lock)")
    return done
