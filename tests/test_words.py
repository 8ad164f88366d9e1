"""The one tokenizer and its stop-list views (:mod:`smartvector_core.words`)."""

from __future__ import annotations

import pytest

from smartvector_core import words
from smartvector_core.retrieval.lexical import subject_terms


def test_every_view_is_the_full_text_list_plus_named_additions():
    for view in (words.CONTENT_STOP_WORDS, words.STARTER_WORDS, words.FACT_STOP_WORDS):
        assert view & words.STOP_WORDS                          # shares tantivy's function words
    with pytest.raises(ValueError, match="pineapple"):
        words._view("the a pineapple")                           # a word no list names is refused


def test_readers_use_their_view():
    assert words.content_words("What is the latest refund window today?") == {"refund", "window"}
    assert words.terms_of("What is the latest refund window?") == ["latest", "refund", "window"]   # stemmed, own list
    assert subject_terms("Explain Checkout Service limits") == ["Checkout Service"]   # a starter is no name
