"""The abstention rule at its boundaries, hand-worked (end-to-end guard:
tests/test_operator_guards.py::test_cli_abstains_on_a_question_about_nothing_and_answers_one_about_a_document).

abstain  <=>  best cosine < 0.20 (``AbstentionConfig.cosine``), or best cosine < 0.40
(``supported_cosine``) and lexical support < 0.25 (``min_support``); NaN abstains. Both floors are strict: exactly 0.20, 0.40 or
a support of exactly 0.25 do not abstain on that ground.
"""

import math
from dataclasses import replace

import pytest

from smartvector_core.config.query import DEFAULT_ABSTENTION
from smartvector_core.retrieval import calibration as cal


def test_the_floors_come_from_the_configuration_given():
    strict = replace(DEFAULT_ABSTENTION, cosine=0.5, supported_cosine=0.7)
    assert cal.abstains(0.45, 0.0) is None and not cal.support_decides(0.45)
    assert cal.abstains(0.45, 1.0, strict) == ("nothing in the store is about the question: "
                                                "best cosine similarity 0.450 < 0.5")
    assert cal.support_decides(0.6, strict)
    assert "< 0.7 and only 10% of its words" in cal.abstains(0.6, 0.1, strict)


@pytest.mark.parametrize(("cosine", "support", "abstains"), [
    (0.1999, 1.00, True),    # under the floor: words do not help
    (0.2000, 1.00, False),   # at the floor, with support
    (0.2000, 0.00, True),    # at the floor, no support: under 0.40 with support < 0.25
    (0.3999, 0.2499, True),  # weak and one word in four missed by a hair
    (0.3999, 0.25, False),   # weak, exactly one word in four found
    (0.4000, 0.00, False),   # strong enough on its own
    (0.95, 0.00, False),
    (math.nan, 1.00, True),
    (-math.inf, 1.00, True),
])
def test_boundaries(cosine, support, abstains):
    reason = cal.abstains(cosine, support)
    assert (reason is not None) is abstains
    if abstains:
        assert reason.startswith("nothing in the store is about the question")


def test_support_counts_content_words_only():
    # "What is the refund window?": content words refund, window; "Refunds within 60 days" has
    # "refund" (5-letter prefix of "refunds") but not "window": 1 of 2 = 0.5
    assert cal.lexical_support("What is the refund window?", ["Refunds within 60 days"]) == pytest.approx(0.5)
    # 0.5 >= 0.25: a weak cosine with this support is still answered
    assert cal.abstains(0.30, cal.lexical_support("What is the refund window?", ["Refunds within 60 days"])) is None
