"""Small fragments merged as writes add them (ours). Every LanceDB commit that adds rows writes
a fragment of its own in each table it touches, and every search and whole-table read opens each
fragment apart. At 100k chunks a product query took 10.1 ms p50 on a quiet machine, 17.2 / 20.0 /
26.5 ms after 30 / 60 / 120 one-document writes (LanceDB's vector search alone +0.07 ms a
fragment, its full-text search +0.1), and 11.7-13.6 ms with the merges below (docs/PERF.md).

So a write merges the small fragments of the tables it wrote in tiers, as an LSM tree merges its
runs: past ``FRAGMENT_BOUND`` fragments under ``TIER_ROWS[0]`` rows they become one of up to that
size (a tail of one-row fragments: 10-40 ms at 100k chunks), past the bound under ``TIER_ROWS[1]``
one of up to that size. Bulk-loaded fragments (ingest and the perf builder add up to 50k rows at a
time) are left alone. The merge is Lance's ``compact_files``: no index changes (a merged tail stays
unindexed until :meth:`.indexes.Indexes.ensure_indexes` merges it into the indexes) and no version
is dropped (a cleanup is ``maintain``'s). LanceDB's own ``optimize()`` cannot do this: it also
indexes each merged tail into a delta of its own, and fragments under different deltas are never
merged again (one more fragment after every merge: measured). Rewritten rows get new row ids:
readers see them as new rows (``TextIndex.caught_up``).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from datetime import timedelta

# pylance warns at every fork once imported; LanceDB's own engine is no more fork-safe and says
# nothing. No forked child of ours touches a table (Ray's workers open their own store), so the
# warning only worried operators of `ingest --engine ray`.
warnings.filterwarnings("ignore", message="lance is not fork-safe")

FRAGMENT_BOUND = 8
TIER_ROWS = (5_000, 50_000)
KEEP_EVERY_VERSION = timedelta(days=36_500)   # a compaction's cleanup cut-off that drops no version


def merge_tier(fragment_rows: Sequence[int], *, bound: int = FRAGMENT_BOUND,
               tiers: Sequence[int] = TIER_ROWS) -> int | None:
    """The fragment size to merge a table's small fragments up to, given each fragment's rows
    (``fragment_rows``), or None: the first tier ``T`` of ``tiers`` with more than ``bound``
    fragments under ``T`` rows."""
    for tier in tiers:
        if sum(1 for rows in fragment_rows if rows < tier) > bound:
            return tier
    return None


def fragment_rows(table) -> list[int]:
    """Physical rows of each data fragment of a LanceDB table, from its manifest (under 1 ms)."""
    return [f.metadata.physical_rows for f in table.to_lance().get_fragments()]


def merge_small_fragments(table, unmergeable: dict[str, tuple[int, ...]], name: str) -> bool:
    """Merge ``table``'s small fragments when :func:`merge_tier` finds a tier past its bound;
    True when some were merged. The caller holds the write lock. ``unmergeable``: per table,
    the fragments a merge left as they were (fragments under different index deltas: the next
    merge waits for a new fragment)."""
    dataset = table.to_lance()
    fragments = dataset.get_fragments()
    tier = merge_tier([f.metadata.physical_rows for f in fragments])
    ids = tuple(f.fragment_id for f in fragments)
    if tier is None or unmergeable.get(name) == ids:
        return False
    metrics = dataset.optimize.compact_files(target_rows_per_fragment=tier)
    table.checkout_latest()
    if not metrics.fragments_removed:
        unmergeable[name] = ids
        return False
    return True


def compact(table) -> None:
    """LanceDB's ``optimize()`` without its version cleanup: small fragments merged, new rows
    merged into the indexes, every version kept (a cleanup is ``maintain``'s, which keeps tags:
    nothing an operator may restore is dropped by a write). Rewritten rows get new row ids:
    readers see them as new rows (``TextIndex.caught_up``)."""
    table.optimize(cleanup_older_than=KEEP_EVERY_VERSION)
