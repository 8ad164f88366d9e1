"""Moved to :mod:`smartvector_core.store_index` (the store imports nothing from the
scale-out package); this name stays for the benchmark scripts that import it."""

from ..store_index import ivf_hnsw_partitions, search_nprobes  # noqa: F401
