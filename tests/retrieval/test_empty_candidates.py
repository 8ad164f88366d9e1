"""An empty search is an empty candidate set in every column (found by the mutation check,
issue 20: ``np.zeros(0)`` -> ``np.zeros(1)`` in these paths was not noticed)."""

from dataclasses import fields

import numpy as np

from smartvector_core.retrieval.candidates import Candidates, relevant_passages


def test_an_empty_search_gives_zero_rows_in_every_column():
    for cands in (Candidates.empty(), Candidates.from_search(None, lexical={})):
        assert len(cands) == 0
        for f in fields(cands):
            value = getattr(cands, f.name)
            assert value is None or len(value) == 0, f.name
        assert Candidates.from_search(None).lexical is None
        assert len(cands.lexical_signal()) == 0


def test_no_passages_no_relevance_flags():
    out = relevant_passages(np.zeros(0, dtype=object), np.zeros(0))
    assert out.dtype == bool and out.shape == (0,)
    assert relevant_passages(np.array(["a", "a", "b"], dtype=object), np.array([0.8, 0.3, 0.5])).tolist() == [
        True, False, True]
