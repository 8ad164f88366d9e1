"""The same statement with a different value (facts.changed_value), worked by hand."""

from __future__ import annotations

import pytest

from smartvector_core.facts.changed_value import changed_value, value_kind


@pytest.mark.parametrize(("old", "new", "values", "kind"), [
    ("When did England last reach the semi final? 1990.", "When did England last reach the semi final? 2018.",
     ("1990", "2018"), "date"),
    ("Who coaches the Texans? Bill O'Brien.", "Who coaches the Texans? David Culley.",
     ("Bill O ' Brien", "David Culley"), "name"),
    ("API rate limit: each key may send 100 requests per minute.",
     "API rate limit: each key may send 1000 requests per minute.", ("100", "1000"), "number"),
    ("How many championships do the Knicks have? one.", "How many championships do the Knicks have? two.",
     ("one", "two"), "number"),
    ("Does Arizona have a republican or democratic governor? Democratic.",
     "Does Arizona have a republican or democratic governor? republican.", ("Democratic", "republican"), "wording"),
    ("Which party holds the seat? the greens.", "Which party holds the seat? the conservatives.",
     ("greens", "conservatives"), "wording"),
])
def test_a_changed_value_is_found_and_named(old, new, values, kind):
    change = changed_value(old, new)
    assert change is not None and (change.old, change.new) == values and change.kind == kind
    assert f"'{values[0]}' -> '{values[1]}'" in change.evidence() and kind in change.evidence()


@pytest.mark.parametrize(("old", "new"), [
    ("Refunds are allowed within 30 days.", "Refunds are not allowed within 30 days."),   # words only added
    ("Refunds are allowed within 30 days.", "Refunds are allowed within 30 days."),       # nothing changed
    ("The office moved to Berlin in 2019 and the team grew to forty people over two years of hiring.",
     "Quarterly revenue rose by a fifth, driven by subscriptions in the Nordic markets and Spain."),
])
def test_other_edits_are_not_a_changed_value(old, new):
    assert changed_value(old, new) is None


def test_a_long_rewrite_in_the_middle_is_not_a_value():
    frame = "The support desk answers every ticket"
    old = f"{frame} within one business day. Contact us by mail."
    new = f"{frame} after a long review by a committee of seven senior agents who read each message twice " \
          f"and then decide together, in a weekly meeting, which team should answer it. Contact us by mail."
    assert changed_value(old, new) is None                    # the new middle is past 24 tokens


def test_value_kind():
    assert value_kind(["March", "2021"]) == "date" and value_kind(["1990s"]) == "date"
    assert value_kind(["9", ",", "216"]) == "number" and value_kind(["Toy", "Story"]) == "name"
    assert value_kind(["may"]) == "wording"                    # the verb, not the month
