"""The Evaluation page's one call: an unknown suite is refused by name before anything runs."""

from __future__ import annotations

import pytest

from smartvector_core.embedding import HashingEmbedder
from smartvector_core.errors import InputError
from smartvector_core.evaluation import page_benchmark


def test_an_unknown_suite_is_refused_and_the_valid_ones_listed():
    with pytest.raises(InputError, match="expected one of demo, paper, found 'weekly'"):
        page_benchmark(HashingEmbedder(), "weekly", ["default"])
