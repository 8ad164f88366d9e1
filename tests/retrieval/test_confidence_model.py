"""The confidence model: evidence rows, the logistic model and its JSON, the centred isotonic
map, factors in words, and the calibration metrics beside ECE (hand-worked figures)."""

from __future__ import annotations

import math
from datetime import UTC
from unittest import mock

import numpy as np
import pyarrow as pa
import pytest

from smartvector_core.errors import InputError
from smartvector_core.retrieval import confidence_fitting as fitting
from smartvector_core.retrieval import confidence_model as cm
from smartvector_core.retrieval.calibration import (
    auroc,
    brier_decomposition,
    confidence_report,
    distinct_per_100,
    tier_precision,
)

COL = {n: j for j, n in enumerate(cm.FEATURES)}


# ------------------------------------------------------------------------------- metrics
def test_auroc_counts_pairs_and_halves_ties():
    # pairs (right, wrong): (.9,.8) (.9,.6) (.7,.6) ordered, (.7,.8) not: 3 of 4
    assert auroc([0.9, 0.8, 0.7, 0.6], [1, 0, 1, 0]) == pytest.approx(0.75)
    assert auroc([0.5, 0.5], [1, 0]) == pytest.approx(0.5)
    assert auroc([0.2, 0.9], [1, 0]) == pytest.approx(0.0)
    assert math.isnan(auroc([0.3, 0.4], [1, 1]))


def test_brier_decomposition_hand_worked():
    # BS = (.04 + .64 + .04 + .04) / 4 = .19; bins .8 (ō .5) and .2 (ō 0), base .25
    parts = brier_decomposition([0.8, 0.8, 0.2, 0.2], [1, 0, 0, 0])
    assert parts["brier"] == pytest.approx(0.19)
    assert parts["reliability"] == pytest.approx((2 * 0.3 ** 2 + 2 * 0.2 ** 2) / 4)     # .065
    assert parts["resolution"] == pytest.approx((2 * 0.25 ** 2 + 2 * 0.25 ** 2) / 4)   # .0625
    assert parts["uncertainty"] == pytest.approx(0.1875)
    assert parts["reliability"] - parts["resolution"] + parts["uncertainty"] == pytest.approx(parts["brier"])


def test_a_constant_is_calibrated_and_resolves_nothing():
    hit = np.r_[np.ones(80), np.zeros(20)].astype(bool)
    report = confidence_report(np.full(100, 0.8), hit)
    assert report["ece"] == pytest.approx(0.0)
    assert report["auroc"] == pytest.approx(0.5)
    assert report["resolution"] == pytest.approx(0.0)
    assert report["distinct_per_100"] == pytest.approx(1.0)


def test_tier_precision_and_distinct_values():
    assert tier_precision([0.9, 0.75, 0.5], [1, 0, 1], 0.72) == (pytest.approx(0.5), 2)
    precision, n = tier_precision([0.1], [1], 0.72)
    assert n == 0 and math.isnan(precision)
    assert distinct_per_100([0.1, 0.1, 0.2, 0.3]) == pytest.approx(75.0)
    assert confidence_report([0.1], [True])["high_precision"] is None


# ------------------------------------------------------------------------------- model
def _model(**coef) -> cm.ConfidenceModel:
    n = len(cm.FEATURES)
    w = np.zeros(n)
    for name, value in coef.items():
        w[COL[name]] = value
    return cm.ConfidenceModel(cm.FEATURES, np.zeros(n), np.ones(n), w, -0.5)


def test_certainty_is_the_logistic_of_the_standardised_evidence():
    model = cm.ConfidenceModel(("cosine", "margin"), np.array([0.5, 0.0]), np.array([0.1, 0.2]),
                               np.array([2.0, -1.0]), 0.25)
    x = np.array([[0.7, 0.1]])
    z = 0.25 + 2.0 * (0.7 - 0.5) / 0.1 - 1.0 * (0.1 / 0.2)     # 0.25 + 4 - 0.5 = 3.75
    assert model.certainty(x)[0] == pytest.approx(1 / (1 + math.exp(-z)))
    again = cm.ConfidenceModel.from_dict(model.to_dict())
    assert again.certainty(x)[0] == pytest.approx(model.certainty(x)[0])


def test_a_model_file_missing_a_field_names_it():
    with pytest.raises(InputError, match="calibration.json"):
        cm.ConfidenceModel.from_dict({"features": ["cosine"], "mean": [0.0]})


def test_aligned_fills_a_feature_the_rows_lack_with_its_mean():
    model = cm.ConfidenceModel(("cosine", "new_signal"), np.array([0.5, 0.3]), np.ones(2), np.ones(2), 0.0)
    x = np.zeros((1, len(cm.FEATURES)))
    x[0, COL["cosine"]] = 0.9
    assert model.aligned(x).tolist() == [[0.9, 0.3]]


def test_fit_model_learns_the_direction_of_the_evidence():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, len(cm.FEATURES)))
    y = (x[:, COL["margin"]] - x[:, COL["names_missing"]] + rng.normal(scale=0.5, size=400)) > 0
    model = fitting.fit_model(x, y)
    assert model.coef[COL["margin"]] > 0.5 and model.coef[COL["names_missing"]] < -0.5
    p = model.certainty(x)
    assert auroc(p, y) > 0.85


def test_isotonic_knots_keeps_distinct_certainties_distinct():
    x = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    y = np.array([0, 0, 1, 0, 1, 1])
    kx, ky = fitting.isotonic_knots(x, y)
    assert np.all(np.diff(kx) > 0) and np.all(np.diff(ky) >= 0)
    # blocks: {.1,.2}→0, {.3,.4}→.5, {.5,.6}→1; knots at the ends and at the centres .15, .35, .55
    assert kx.tolist() == pytest.approx([0.1, 0.15, 0.35, 0.55, 0.6])
    assert ky.tolist() == pytest.approx([0.0, 0.0, 0.5, 1.0, 1.0])
    out = np.interp([0.25, 0.3, 0.4], kx, ky)
    assert len(set(out.round(6))) == 3          # sklearn's thresholds give .5 for both .3 and .4


def test_factors_name_what_moved_the_confidence_in_words():
    model = _model(margin=2.0, support=1.0, cosine=0.05)
    x = np.zeros((2, len(cm.FEATURES)))
    x[0, COL["margin"]], x[0, COL["support"]] = -0.5, 0.4
    x[1, COL["margin"]] = 0.3
    words = cm.factors(model, x)
    assert words[0] == ["a close second answer disagrees", "the question's words are found in the passage"]
    assert words[1] == ["no other answer comes close"]          # cosine's 0 is below the floor


def test_why_lower_names_the_factor_that_favours_the_later_rank():
    model = _model(current=3.0)
    x = np.zeros((2, len(cm.FEATURES)))
    x[1, COL["current"]] = 1.0
    assert "not in force" in cm.why_lower(model, x, np.array([0.4, 0.7]))
    assert cm.why_lower(model, x, np.array([0.7, 0.4])) is None


# ------------------------------------------------------------------------------- evidence
def test_evidence_reads_support_names_years_margin_and_agreement():
    asked = cm.question_words("Who lived in the Baker House from 1964 to 1965?")
    assert asked.names == (("baker", "house"),) and asked.years == ("1964", "1965")
    texts = pa.array(["Baker House history. In 1964 Jacqueline Kennedy lived here.",
                      "The Baker family sold its home in 1990.",
                      "Unrelated passage about gardens."], pa.large_string())
    kept = np.array([0, 1, 2])
    x = cm.evidence(asked, top=np.array([0, 1]), kept=kept, raw_cosine=np.array([0.8, 0.6, 0.3]),
                    score=np.array([0.7, 0.5, 0.2]), margins=np.array([0.2, np.nan]),
                    groups_kept=np.array([10, 11, 12]), texts=texts, trust=np.array([1.0, 0.5]),
                    current=np.array([True, False]), severity=np.zeros(2), temporal=None, content_time=None,
                    range_ignored=False, chain=np.array([-1, -2, -3]), age_days=np.array([0.0, np.e - 1]))
    assert x[:, COL["cosine_gap"]].tolist() == pytest.approx([0.0, -0.2])
    assert x[:, COL["margin"]].tolist() == pytest.approx([0.2, cm.MARGIN_CLIP])
    assert x[:, COL["names_missing"]].tolist() == pytest.approx([0.0, 1.0])   # "Baker" alone does not name it
    assert x[:, COL["period_in_text"]].tolist() == pytest.approx([0.5, 0.0])
    # content words 1964, 1965, baker, house, lived; "baker" is in 2 of 3 pool texts (over a
    # quarter, at least one): not specific. Row 0 has 1964, house and lived; row 1 only baker
    assert x[0, COL["support"]] == pytest.approx(3 / 5)
    assert x[1, COL["support"]] == pytest.approx(0.0)
    assert x[:, COL["agreement"]].tolist() == pytest.approx([0.7 / 1.4, 0.5 / 1.4])
    assert x[:, COL["first"]].tolist() == [1.0, 0.0]
    assert x[:, COL["current"]].tolist() == [1.0, 0.0]
    assert x[:, COL["log_age"]].tolist() == pytest.approx([0.0, 1.0])


def test_a_version_the_question_names_is_matched_by_its_dotted_prefix():
    from datetime import datetime

    from smartvector_core.temporal import parse_intent

    question = "In Flask 2.2, which domain is the session cookie valid for?"
    asked = cm.question_words(question, parse_intent(question, datetime(2025, 1, 1, tzinfo=UTC)))
    assert asked.version == "2.2" and asked.time_asked
    texts = pa.array(["a", "b", "c"], pa.large_string())
    x = cm.evidence(asked, top=np.array([0, 1, 2]), kept=np.array([0, 1, 2]), raw_cosine=np.full(3, 0.5),
                    score=np.full(3, 0.5), margins=np.zeros(3), groups_kept=np.array([1, 2, 3]), texts=texts,
                    trust=np.ones(3), current=np.ones(3, dtype=bool), severity=np.zeros(3), temporal=None,
                    content_time=None, range_ignored=False, chain=np.array([-1, -2, -3]), age_days=np.zeros(3),
                    versions=np.array(["2.2.0", "2.20.1", None], dtype=object))
    assert x[:, COL["version_missed"]].tolist() == [0.0, 1.0, 1.0]


def test_a_period_the_question_names_and_the_passage_does_not_mention():
    from datetime import UTC, datetime

    from smartvector_core.temporal import parse_intent

    question = "Which team did Maurizio Sarri coach from 2015 to 2018?"
    asked = cm.question_words(question, parse_intent(question, datetime(2021, 3, 1, tzinfo=UTC)))
    assert asked.range_asked and asked.years == ("2015", "2018")
    texts = pa.array(["In 2015 Sarri joined Napoli.", "Sarri later coached Chelsea."], pa.large_string())
    x = cm.evidence(asked, top=np.array([0, 1]), kept=np.array([0, 1]), raw_cosine=np.full(2, 0.5),
                    score=np.full(2, 0.5), margins=np.zeros(2), groups_kept=np.array([1, 2]), texts=texts,
                    trust=np.ones(2), current=np.ones(2, dtype=bool), severity=np.zeros(2), temporal=None,
                    content_time=None, range_ignored=False, chain=np.array([-1, -2]), age_days=np.zeros(2))
    assert x[:, COL["range_asked"]].tolist() == [1.0, 1.0]
    assert x[:, COL["range_unmatched"]].tolist() == [0.0, 1.0]
    assert x[:, COL["period_in_text"]].tolist() == [0.5, 0.0]


def test_a_feature_held_fixed_gets_no_weight_and_rank_is_never_a_factor():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(300, len(cm.FEATURES)))
    y = (x[:, COL["trust"]] + x[:, COL["margin"]]) > 0
    model = fitting.fit_model(x, y, fixed=frozenset({"trust"}))
    assert model.coef[COL["trust"]] == 0.0 and model.coef[COL["margin"]] > 0
    first = _model(first=5.0, margin=0.2)
    row = np.zeros((1, len(cm.FEATURES)))
    row[0, COL["first"]], row[0, COL["margin"]] = 1.0, 1.0
    assert cm.factors(first, row) == [["no other answer comes close"]]


def test_features_that_vary_in_one_corpus_only_are_held_at_zero():
    from smartvector_core.evaluation.accuracy.confidence_fit import single_corpus_features

    a = np.zeros((4, len(cm.FEATURES)))
    b = np.zeros((4, len(cm.FEATURES)))
    a[:, COL["trust"]] = [0.7, 0.9, 1.0, 0.8]          # varies in one corpus only
    a[:, COL["margin"]] = b[:, COL["margin"]] = [0.1, 0.2, 0.0, -0.1]
    fixed = single_corpus_features([a, b])
    assert "trust" in fixed and "margin" not in fixed


def test_an_absent_thing_is_not_listed_as_a_factor():
    model = cm.ConfidenceModel(cm.FEATURES, np.full(len(cm.FEATURES), 0.5), np.ones(len(cm.FEATURES)),
                               np.where(np.array(cm.FEATURES) == "range_ignored", -2.0, 0.0), 0.0)
    rows = np.zeros((2, len(cm.FEATURES)))
    rows[1, COL["range_ignored"]] = 1.0
    assert cm.factors(model, rows) == [[], ["nothing relevant falls in the named period"]]


def test_cosine_and_time_margins_are_against_the_best_result_of_another_source():
    # pool rows 0..3; rows 0 and 1 are one chain (they agree), 2 and 3 other documents
    asked = cm.question_words("Who coached the team in 2015?")
    texts = pa.array(["a", "b", "c", "d"], pa.large_string())
    kept = np.array([0, 1, 2, 3])
    x = cm.evidence(asked, top=np.array([0, 1, 2]), kept=kept, raw_cosine=np.array([0.8, 0.75, 0.7, 0.3]),
                    score=np.array([0.9, 0.8, 0.7, 0.2]), margins=np.zeros(3), groups_kept=np.array([5, 5, 6, 7]),
                    texts=texts, trust=np.ones(3), current=np.ones(3, dtype=bool), severity=np.zeros(3),
                    temporal=None, content_time=np.array([1.0, 0.2, 0.9, 0.0]), range_ignored=False,
                    chain=np.array([5, 5, -1, -1]), age_days=np.zeros(3))
    # row 0 and 1 against row 2 (the best of another group); row 2 against row 0
    assert x[:, COL["cosine_margin"]].tolist() == pytest.approx([0.1, 0.05, -0.1])
    # row 1: 0.2 − 0.9 = −0.7, clipped
    assert x[:, COL["time_margin"]].tolist() == pytest.approx([0.1, -cm.MARGIN_CLIP, -0.1])
    # content time not scored: no time margin; a lone source has no rival: a clear win (the clip)
    y = cm.evidence(asked, top=np.array([0]), kept=np.array([0, 1]), raw_cosine=np.array([0.8, 0.6]),
                    score=np.array([0.9, 0.8]), margins=np.zeros(1), groups_kept=np.array([5, 5]), texts=texts[:2],
                    trust=np.ones(1), current=np.ones(1, dtype=bool), severity=np.zeros(1), temporal=None,
                    content_time=None, range_ignored=False, chain=np.array([5, 5]), age_days=np.zeros(1))
    assert y[0, COL["time_margin"]] == 0.0 and y[0, COL["cosine_margin"]] == pytest.approx(cm.MARGIN_CLIP)


def test_leave_one_corpus_out_never_fits_on_the_corpus_it_reports():
    from smartvector_core.evaluation.accuracy import confidence_fit as cf

    rng = np.random.default_rng(3)

    def part(n, shift):      # n questions of 2 results each; margin tells right from wrong
        x = np.zeros((2 * n, len(cm.FEATURES)))
        right = np.tile([True, False], n) & (rng.random(2 * n) < 0.8 + shift)
        x[:, COL["margin"]] = np.where(right, 0.2, -0.1) + rng.normal(0, 0.05, 2 * n)
        x[:, COL["first"]] = np.tile([1.0, 0.0], n)
        return {"x": x, "right": right, "rank": np.tile([1, 2], n), "qid": np.repeat(np.arange(n), 2).astype(str),
                "profile": np.full(2 * n, "default"), "abstained": np.zeros(2 * n, bool),
                "confidence": np.zeros(2 * n), "certainty": np.zeros(2 * n)}

    rows = {(c, r): part(40, s) for c, s in (("a", 0.0), ("b", -0.3), ("c", 0.1)) for r in ("fit", "report")}
    table = cf.loco_table(rows)
    assert [t["corpus"] for t in table] == ["a", "b", "c"] and {t["variant"] for t in table} == {"default LOCO"}
    # the LOCO figure of "b" is the prior fitted on a and c only: changing b's fit rows changes nothing
    rows[("b", "fit")] = part(40, 0.2)
    assert cf.loco_table(rows)[1] == table[1]
    assert cf.fit_prior(rows)["default"] != cf.fit_prior({**rows, ("b", "fit"): part(40, -0.3)})["default"]


def test_gated_margin_is_against_the_closest_answer_time_removed_from_another_source():
    # pool rows: 0 kept (group 1), 1 kept (group 2), 2 removed by time (group 3, cosine 0.9),
    # 3 removed by time but of row 0's own chain (group 1, cosine 0.95): not row 0's rival
    cos = np.array([0.6, 0.5, 0.9, 0.95])
    groups = np.array([1, 2, 3, 1])
    gated = np.array([False, False, True, True])
    # row 0: its rival is row 2 (0.6 − 0.9 = −0.3); row 1: row 3 (0.5 − 0.95 = −0.45, clipped)
    assert cm.gated_margin(cos, np.array([0, 1]), groups, gated).tolist() == pytest.approx([-0.3, -cm.MARGIN_CLIP])
    # a removed version of one's own chain alone is no rival: a clear win
    assert cm.gated_margin(cos, np.array([0]), groups, np.array([False, False, False, True])).tolist() == \
        pytest.approx([cm.MARGIN_CLIP])
    # nothing removed, or removed rows all less similar than the result (0.6 − 0.55 = 0.05)
    assert cm.gated_margin(cos, np.array([0]), groups, np.zeros(4, bool)).tolist() == [cm.MARGIN_CLIP]
    low = np.array([0.6, 0.5, 0.55, 0.2])
    assert cm.gated_margin(low, np.array([0]), groups, gated).tolist() == pytest.approx([0.05])


def test_evidence_reads_coverage_and_a_rival_removed_by_time_in_the_cosine_margin():
    asked = cm.question_words("What was the API rate limit in 2025?")
    # content words: 2025, api, limit, rate. "api" is in all three texts (not specific support,
    # but covered); row 0 has api and 2025 (coverage 2/4), row 1 api, rate, limit (3/4)
    texts = pa.array(["API request logs are kept for 90 days from 2025.", "The API rate limit is 100.",
                      "API keys"], pa.large_string())
    args = dict(kept=np.array([0, 1]), raw_cosine=np.array([0.54, 0.5, 0.64]), score=np.array([0.7, 0.5, np.nan]),
                groups_kept=np.array([1, 2]), texts=texts, temporal=None, content_time=None, range_ignored=False,
                chain=np.array([-1, -1, -1]))
    one = dict(trust=np.ones(2), current=np.ones(2, dtype=bool), severity=np.zeros(2), margins=np.zeros(2),
               age_days=np.zeros(2))
    x = cm.evidence(asked, top=np.array([0, 1]), **args, **one, groups=np.array([1, 2, 3]),
                    gated=np.array([False, False, True]))
    assert x[:, COL["coverage"]].tolist() == pytest.approx([2 / 4, 3 / 4])
    assert x[:, COL["support"]].tolist() == pytest.approx([1 / 4, 2 / 4])     # "api" is not specific
    # row 0: kept rival row 1 (0.54 − 0.5 = 0.04), but the removed row 2 is closer: 0.54 − 0.64
    assert x[:, COL["cosine_margin"]].tolist() == pytest.approx([0.54 - 0.64, 0.5 - 0.64])
    # without what time removed, only the kept rival counts (as before): 0.04 and −0.04
    y = cm.evidence(asked, top=np.array([0, 1]), **args, **one)
    assert y[:, COL["cosine_margin"]].tolist() == pytest.approx([0.04, -0.04])
    # support margin: its specific share minus the best of another source among the best kept
    assert x[:, COL["support_margin"]].tolist() == pytest.approx([1 / 4 - 2 / 4, 2 / 4 - 1 / 4])


def test_support_margin_is_against_another_source_only_and_clipped():
    found = np.array([[1, 1, 0, 0], [1, 1, 1, 0], [0, 0, 0, 0]], dtype=bool)     # (words, pool)
    specific = np.array([True, True, True])
    kept = np.array([0, 1, 2, 3])
    # rows 0 and 1 are one chain: row 0's rival is row 2 (1/3), not row 1 (2/3)
    got = cm.support_margin(found, specific, top=np.array([0, 1, 3]), kept=kept, groups_kept=np.array([7, 7, 8, 9]))
    assert got.tolist() == pytest.approx([2 / 3 - 1 / 3, 2 / 3 - 1 / 3, -0.5])   # row 3: 0 − 2/3, clipped
    alone = cm.support_margin(found, specific, top=np.array([0]), kept=np.array([0, 1]), groups_kept=np.array([7, 7]))
    assert alone.tolist() == [cm.WORD_MARGIN_CLIP]                                # no other source: a clear win


def test_a_rival_removed_by_time_is_named_as_a_factor():
    model = _model(cosine_margin=4.0)
    row = np.zeros((1, len(cm.FEATURES)))
    row[0, COL["cosine_margin"]] = -0.1
    assert cm.factors(model, row) == [["a passage of another source is as close or closer (kept, or ruled out by "
                                       "the question's time)"]]


@pytest.mark.parametrize("flag", ["range_asked", "period_asked"])
def test_a_named_range_or_year_can_only_lower_the_confidence(flag):
    # every question naming it answered right, every other half right: free, the flag would take
    # a positive weight; held to its direction (DIRECTION: -1) it gets none
    x = np.zeros((40, len(cm.FEATURES)))
    x[:4, COL[flag]] = 1.0
    x[:, COL["margin"]] = np.tile([0.1, -0.1], 20)
    y = np.r_[np.ones(4), np.tile([1.0, 0.0], 18)]
    assert cm.DIRECTION[flag] == -1
    model = fitting.fit_model(x, y)
    assert model.coef[COL[flag]] == 0.0 and model.coef[COL["margin"]] > 0
    free = dict(cm.DIRECTION)
    free.pop(flag)
    with mock.patch.dict(cm.DIRECTION, free, clear=True):
        assert fitting.fit_model(x, y).coef[COL[flag]] > 0


def test_a_period_other_sources_write_as_fully_is_weaker_evidence_for_the_top_result():
    """Worked by hand: the question's years 2004 and 2005; passage 0 writes both, 1 writes 2004,
    2 and 3 write both. Top result 0: rivals 1, 2, 3, of which 2 and 3 write both years: 2/3.
    Passages 0 and 2 of one document: rivals 1 and 3, 1/2. Read for the top result only."""
    asked = cm.question_words("Which institution did Ada Byron work for from 2004 to 2005?")
    texts = pa.array(["From 2004 to 2005 she taught at Leeds.", "In 2004 she married.",
                      "She left Leeds in 2005, having come in 2004.", "Between 2004 and 2005 she lived in Kent."],
                     pa.large_string())

    def rows(groups, content_time=None):
        return cm.evidence(asked, top=np.array([0, 1, 2]), kept=np.array([0, 1, 2, 3]), raw_cosine=np.full(4, 0.5),
                           score=np.full(4, 0.5), margins=np.zeros(3), groups_kept=np.array(groups), texts=texts,
                           trust=np.ones(3), current=np.ones(3, dtype=bool), severity=np.zeros(3), temporal=None,
                           content_time=content_time, range_ignored=False, chain=np.array([-1, -2, -3, -4]),
                           age_days=np.zeros(3))

    x = rows([1, 2, 3, 4])
    assert x[:, COL["period_in_text"]].tolist() == [1.0, 0.5, 1.0]
    assert x[:, COL["period_ties"]].tolist() == pytest.approx([2 / 3, 0.0, 0.0])
    assert x[:, COL["time_ties"]].tolist() == [0.0, 0.0, 0.0]           # content time not scored
    assert rows([1, 2, 1, 4])[0, COL["period_ties"]] == pytest.approx(1 / 2)
    # content_time 0.9, 0.95, 0.0, 0.9: rivals at least 0.9 and positive: passages 1 and 3 of 3
    x = rows([1, 2, 3, 4], content_time=np.array([0.9, 0.95, 0.0, 0.9]))
    assert x[:, COL["time_ties"]].tolist() == pytest.approx([2 / 3, 0.0, 0.0])
    none = cm.question_words("Which institution did Ada Byron work for?")
    y = cm.evidence(none, top=np.array([0]), kept=np.array([0, 1]), raw_cosine=np.full(4, 0.5), score=np.full(4, 0.5),
                    margins=np.zeros(1), groups_kept=np.array([1, 2]), texts=texts, trust=np.ones(1),
                    current=np.ones(1, dtype=bool), severity=np.zeros(1), temporal=None, content_time=None,
                    range_ignored=False, chain=np.array([-1, -2, -3, -4]), age_days=np.zeros(1))
    assert y[0, COL["period_ties"]] == 0.0
    assert cm.DIRECTION["period_ties"] == -1 and cm.DIRECTION["time_ties"] == -1


def test_ties_not_read_are_not_listed_as_a_factor():
    """period_ties is 0 below rank 1 and where no year is asked: not read, so never "no other
    source writes the question's period as fully"; read and high, it lowers in words."""
    model = cm.ConfidenceModel(cm.FEATURES, np.full(len(cm.FEATURES), 0.3), np.full(len(cm.FEATURES), 0.1),
                               np.where(np.array(cm.FEATURES) == "period_ties", -1.0, 0.0), 0.0)
    rows = np.zeros((2, len(cm.FEATURES)))
    rows[1, COL["period_ties"]] = 0.8
    assert cm.factors(model, rows) == [[], ["other sources write the question's period as fully"]]
