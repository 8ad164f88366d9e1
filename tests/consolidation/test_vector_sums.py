"""Per-document vector sums (the centroids before normalising) equal ``np.add.at``'s bit for bit,
so a run that reads the store and a warm cache's run still give the same centroids
(tests/consolidation/test_incremental.py compares their writes)."""

import numpy as np
import pytest

from smartvector_core.consolidation.documents import vector_sums


@pytest.mark.parametrize(("rows", "groups"), [(0, 3), (1, 1), (7, 3), (2_000, 5), (5_000, 1_500), (3_000, 1)])
def test_vector_sums_equal_add_at_bit_for_bit(rows, groups):
    rng = np.random.default_rng(rows + groups)
    vectors = rng.standard_normal((rows, 16)).astype(np.float32) * np.float32(1e3) ** rng.integers(-2, 3, (rows, 1))
    owner = rng.integers(0, groups, rows)
    expected = np.zeros((groups, 16), np.float32)
    np.add.at(expected, owner, vectors)
    got = vector_sums(owner, vectors, groups)
    assert got.dtype == np.float32 and got.shape == (groups, 16)
    assert np.array_equal(got, expected)                    # same float32 additions in the same order


def test_vector_sums_by_hand():
    vectors = np.array([[1, 0], [0, 2], [3, 0], [0, 4]], np.float32)
    assert vector_sums(np.array([2, 0, 2, 0]), vectors, 4).tolist() == [[0, 6], [0, 0], [4, 0], [0, 0]]
