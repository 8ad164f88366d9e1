"""Two-letter names count; one capital letter does not (``retrieval/lexical.py``
``subject_terms``; found by the mutation check, issue 20: "names are longer than one letter"
could become "longer than two" without any test noticing)."""

from smartvector_core.retrieval.lexical import subject_terms


def test_two_letter_names_are_names():
    assert subject_terms("Is the EU data policy in force?") == ["EU"]
    assert subject_terms("How does AI Gateway retry?") == ["AI Gateway"]


def test_a_single_capital_letter_is_not_a_name():
    assert subject_terms("Does I count?") == []
