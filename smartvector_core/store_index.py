"""Vector-index sizing for large stores (pure functions; store_upkeep.Indexes builds the index).

IVF_HNSW_SQ builds one HNSW graph per IVF partition. LanceDB's own advice is few partitions
(one works for most tables) and more only when one graph would not fit in memory while it is
trained: so partitions are sized by rows per graph, not by ``sqrt(rows)`` (which at 100k rows
would give 316 graphs of 316 vectors, and 20 probes would then see only 6% of the data).
"""

from __future__ import annotations

import math

ROWS_PER_PARTITION = 250_000   # 384-d float32: ~0.4 GB of vectors + graph per partition trained
MAX_PARTITIONS = 4_096


def ivf_hnsw_partitions(rows: int, *, rows_per_partition: int = ROWS_PER_PARTITION,
                        max_partitions: int = MAX_PARTITIONS) -> int:
    """IVF partitions for an IVF_HNSW_SQ index over ``rows`` vectors.

    ``clamp(ceil(rows / rows_per_partition), 1, max_partitions)``: 1 up to 250k rows, 4 at 1 M,
    400 at 100 M (then ``nprobes = 20`` reads 5% of the partitions per query).
    """
    if rows <= 0:
        return 1
    return max(1, min(max_partitions, math.ceil(rows / rows_per_partition)))


def search_nprobes(partitions: int, *, floor: int = 20, fraction: float = 0.05) -> int:
    """Partitions to probe: at least ``floor`` (or all), else ``fraction`` of them."""
    return min(partitions, max(floor, math.ceil(fraction * partitions)))
