"""The store's upkeep: table rows and versions, tags and restore, compaction and cleanup. A part
of :class:`smartvector_core.store.Store`, over the shared :class:`.context.StoreContext`."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

import pyarrow as pa

from ..errors import InputError, StoreError
from .context import StoreContext, add_missing_columns
from .fragments import compact
from .repair import repair_tags
from .schema import RESTORABLE_TABLES, check_tag_label, chunks_schema


class Upkeep:
    """Rows and versions of the store's tables, tags, restore, compaction and cleanup."""

    def __init__(self, ctx: StoreContext) -> None:
        self.ctx = ctx
        self._versions_seen: dict[tuple, tuple] = {}   # table names -> (their version files, versions)

    # ------------------------------------------------------------------------ rows & versions
    def count_rows(self, name: str, *, at: int | str | None = None) -> int:
        """Rows of table ``name`` (chunks, edges, events, queries), all versions of a document
        included; ``at``: in that table version or tag instead of the current one (read from a
        handle of its own: this store's tables stay current)."""
        if at is None:
            return int(self.ctx.tables[name].count_rows())
        table = self.ctx.db.open_table(name)
        table.checkout(at)
        return int(table.count_rows())

    def all_rows(self, name: str) -> pa.Table:
        """Every row of table ``name`` as stored (retired chunks, rejected edges included), for
        comparing two stores or two moments of one; the engine reads through the methods below."""
        return self.ctx.tables[name].to_arrow()

    def version(self, name: str) -> int:
        """The current version of table ``name`` (changes with every commit, ours or another process's)."""
        return int(self.ctx.tables[name].version)

    def versions(self, names: Sequence[str]) -> tuple[int, ...]:
        """The current versions of tables ``names`` (:meth:`version` of each). On a local store
        LanceDB is asked only when the tables' version files changed since it was last asked:
        a directory listing costs ~7 µs a table, LanceDB's check ~0.3 ms (more while the question
        is being encoded beside it), and every query asks. Every commit writes a new manifest
        file, so a listing that has not changed means versions that have not changed."""
        names = tuple(names)
        listed = self._version_files(names)
        known = self._versions_seen.get(names)
        if listed is not None and known is not None and known[0] == listed:
            return known[1]
        versions = tuple(self.version(n) for n in names)
        if listed is not None:   # listed before asking: a commit in between changes the next listing
            self._versions_seen[names] = (listed, versions)
        return versions

    def _version_files(self, names: tuple[str, ...]) -> tuple[frozenset, ...] | None:
        """The manifest file names of each table (None: not a local store, or not laid out as expected)."""
        if "://" in self.ctx.uri:
            return None
        try:
            return tuple(frozenset(os.listdir(os.path.join(self.ctx.uri, f"{n}.lance", "_versions"))) for n in names)
        except OSError:
            return None

    # -------------------------------------------------------------------- versions & upkeep
    def table_versions(self) -> dict[str, int]:
        return {name: int(t.version) for name, t in self.ctx.tables.items()}

    def versions_of(self, name: str) -> list[int]:
        """The versions table ``name`` still keeps (``maintain`` drops old untagged ones), oldest first."""
        return [int(v["version"]) for v in self.ctx.tables[name].list_versions()]

    def fragments(self, name: str) -> int:
        """Data fragments of table ``name`` (each append adds one; :mod:`.fragments` merges the small ones)."""
        return int(self.ctx.tables[name].stats()["fragment_stats"]["num_fragments"])

    def tag(self, label: str) -> dict[str, int]:
        """Tag the current version of every table with ``label`` (kept by cleanup), all or
        nothing: a table that cannot be tagged (a full disk) is a :class:`StoreError`, its
        broken tag file is removed (:func:`~smartvector_core.store.repair.repair_tags`) and the
        tags this call created on the other tables are deleted again."""
        label = check_tag_label(label)
        versions: dict[str, int] = {}
        created: list[Any] = []
        with self.ctx.write_lock():
            for name, t in self.ctx.tables.items():
                try:
                    if label in t.tags.list():
                        t.tags.update(label, t.version)
                    else:
                        t.tags.create(label, t.version)
                        created.append(t)
                    t.tags.list()   # read back: a full disk can leave the file empty without an error
                except Exception as exc:
                    repair_tags(self.ctx)
                    for done in created:   # removed already, or a broken file repair_tags took: fine
                        with contextlib.suppress(Exception):
                            done.tags.delete(label)
                    raise StoreError(f"store {self.ctx.uri}: cannot tag table {name} {label!r} ({exc}); "
                                     "the tags this call created on other tables were deleted again") from exc
                versions[name] = int(t.version)
        return versions

    def tags(self) -> dict[str, dict[str, Any]]:
        return {name: t.tags.list() for name, t in self.ctx.tables.items()}

    def restore(self, *, tag: str | None = None, versions: dict[str, int] | None = None) -> dict[str, int]:
        """Make an earlier version of the knowledge tables current again (a new version: history
        is kept), all or nothing.

        Only ``RESTORABLE_TABLES`` (chunks, edges: what the store knows) roll back. ``events`` and
        ``queries`` are append-only history (the audit and the query log): a restore never removes
        what operators did, it is recorded there as one more event by the caller
        (docs/RELIABILITY.md, "Restore"). Under the write lock, every target is checked first
        (:meth:`restore_problem`: the tag is on every table, each version is still kept, not
        cleaned up by ``maintain``), then the tables roll back; if one fails, those already rolled
        back return to the versions they had. Crash points ``restore:after:<table>``: a re-run
        of the same restore converges.
        """
        restored = {}
        with self.ctx.write_lock():
            problem = self.restore_problem(tag=tag, versions=versions)
            if problem:
                raise InputError(problem, field="--tag" if tag is not None else "--version")
            previous = self.table_versions()
            try:
                for name in RESTORABLE_TABLES:
                    t = self.ctx.tables[name]
                    target: int | str | None = tag if tag is not None else (versions or {}).get(name)
                    if target is None:
                        continue
                    t.checkout(target)
                    t.restore()
                    restored[name] = int(t.version)
                    self.ctx.crash_point(f"restore:after:{name}")
                if "chunks" in restored:   # a version older than a column gets it back (one more commit)
                    add_missing_columns(self.ctx, chunks_schema(self.ctx.dim))
                    restored["chunks"] = int(self.ctx.tables["chunks"].version)
            except Exception:
                for name in restored:   # all or nothing: the tables already rolled back go forward again
                    t = self.ctx.tables[name]
                    t.checkout(previous[name])
                    t.restore()
                raise
        return restored

    def restore_problem(self, *, tag: str | None = None, versions: dict[str, int] | None = None) -> str | None:
        """Why :meth:`restore` of ``tag`` or ``versions`` cannot be done whole (None: it can)."""
        if (tag is None) == (versions is None):
            return "give exactly one of a tag or versions"
        if tag is not None:
            lacking = [name for name in RESTORABLE_TABLES if tag not in self.ctx.tables[name].tags.list()]
            return f"no tag {tag!r} on table(s) {', '.join(lacking)}" if lacking else None
        if not versions:
            return "no table version given"
        for name, number in versions.items():
            if name not in RESTORABLE_TABLES:
                return (f"expected a table of {', '.join(RESTORABLE_TABLES)} (events and queries are "
                        f"append-only history), found {name!r}")
            kept = self.versions_of(name)
            if number not in kept:
                cleaned = 1 <= number < max(kept, default=0)
                return (f"{name} version {number} " + ("was cleaned up by maintain" if cleaned else "does not exist")
                        + f" (kept: {_ranges(kept)})")
        return None

    def optimize(self, *, cleanup_older_than_days: float | None = None, now: datetime | None = None) -> None:
        """Compact, and (with ``cleanup_older_than_days`` and ``now``) drop versions older than
        that age at ``now``.

        Tagged versions are kept: LanceDB 0.40 refuses a cleanup whose cut-off passes a tagged
        version, so the cut-off stops just before each table's oldest tagged version (rolling
        tags move forward, so old versions still go; a pinned operator tag pins what follows it).
        """
        if cleanup_older_than_days is not None and now is None:
            raise ValueError("optimize: a cleanup needs the moment it is measured from (now)")
        with self.ctx.write_lock():
            for t in self.ctx.tables.values():
                compact(t)   # no cleanup here: LanceDB's default drops versions over 7 days old, and
                #              refuses to when a tag is older: the cleanup below keeps the age asked and the tags
                if cleanup_older_than_days is None:
                    continue
                _cleanup(t, timedelta(days=cleanup_older_than_days), now)


_SLACK_S = (1, 10, 120, 3600)   # seconds kept before the oldest tagged version, tried in turn


def _cleanup(table, age: timedelta, now: datetime) -> None:
    """Drop ``table``'s versions older than ``age`` at ``now``, never a tagged one: the cut-off
    stops ``slack`` before the oldest tagged version. LanceDB measures the age from its own
    clock, which has moved on since ``now`` (by the command's run so far), so a cut-off it finds
    past a tag (its "tagged version(s)" error) is retried with more slack: keeping a few more
    versions is safe, deleting a tagged one is refused."""
    local_now = now.astimezone().replace(tzinfo=None)   # LanceDB stamps versions in naive local time
    tagged = {v["version"] for v in table.tags.list().values()}
    stamps = [v["timestamp"] for v in table.list_versions() if v["version"] in tagged]
    for slack in _SLACK_S:
        cut = max(age, local_now - min(stamps) + timedelta(seconds=slack)) if stamps else age
        try:
            table.optimize(cleanup_older_than=cut)   # compacted already: this is the cleanup
            return
        except RuntimeError as err:
            if not stamps or "tagged" not in str(err) or slack == _SLACK_S[-1]:
                raise


def _ranges(numbers: list[int]) -> str:
    """``[1, 2, 3, 7, 9, 10]`` -> ``"1-3, 7, 9-10"``."""
    out: list[str] = []
    for n in sorted(numbers):
        if out and int(out[-1].split("-")[-1]) == n - 1:
            out[-1] = f"{out[-1].split('-')[0]}-{n}"
        else:
            out.append(str(n))
    return ", ".join(out) or "none"
