from smartvector_core.store.indexes import ivf_hnsw_partitions, search_nprobes


def test_partitions_by_rows_per_graph():
    assert [ivf_hnsw_partitions(n) for n in (0, 1, 100_000, 250_000, 250_001, 1_000_000, 100_000_000)] \
        == [1, 1, 1, 1, 2, 4, 400]
    assert ivf_hnsw_partitions(10**12) == 4096


def test_nprobes_covers_small_indexes_and_five_percent_of_large_ones():
    assert search_nprobes(1) == 1
    assert search_nprobes(400) == 20
    assert search_nprobes(4096) == 205
