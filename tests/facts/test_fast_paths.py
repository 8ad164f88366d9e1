"""The parser's fast paths (clauses without a digit, number word or marker word are skipped
early: consolidation parses every chunk, issue 18) give exactly what the full path gives."""

import re

import pytest

from smartvector_core.facts import quantities, statements

CLAUSES = [
    "Region compliance the contract account team project region project partner platform plan",
    "Refunds are accepted within thirty days", "Logins are locked after FIVE failed attempts",
    "Backups run Twice a day", "Seats are capped at 40 seats", "Uploads mustn't exceed 5 GB",
    "Exports cannot be scheduled", "Trials can't be extended", "Webhooks are no longer supported",
    "Badges are PROHIBITED in the lab", "It is not Required", "Sessions last forty-five minutes",
    "Someone phoned about the tent content", "Often done, never gone", "In 2024 the plan was optional",
    "Les reçus ſont requis", "Café opening hours are twelve hours",
]


def _full_path(monkeypatch):
    monkeypatch.setattr(quantities, "_DIGIT", re.compile(""))        # every text "has a digit"
    monkeypatch.setattr(statements, "_ANY_MARKER", re.compile(""))   # every clause "has a marker"


@pytest.mark.parametrize("clause", CLAUSES)
def test_fast_paths_change_nothing(clause, monkeypatch):
    fast_q = quantities.extract_quantities.__wrapped__(clause)
    fast_p = statements._polarity_statements(clause)
    _full_path(monkeypatch)
    assert quantities.extract_quantities.__wrapped__(clause) == fast_q
    assert statements._polarity_statements(clause) == fast_p


def test_the_fast_paths_are_taken_and_still_find_words():
    assert quantities.extract_quantities.__wrapped__(CLAUSES[0]) == ()
    assert statements._polarity_statements(CLAUSES[0]) == []
    assert [q.lo for q in quantities.extract_quantities.__wrapped__("Logins lock after FIVE failed attempts")] == [5.0]
    assert statements._polarity_statements("Uploads mustn't exceed the quota")
    assert statements._polarity_statements("Trials CAN'T be extended")
