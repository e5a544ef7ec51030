"""Edges of the comparison formulas and the estimability messages (METHODS.md §3), against
hand-worked values; the coded notes' words word for word."""

import math
import warnings

import numpy as np
import pytest

from fairdesk.presentation.estimability_words import count_words
from fairdesk.presentation.notices import notice_text
from fairdesk.stats.estimability import rule_of_three, units_problem
from fairdesk.stats.formulas import bootstrap_p, cohens_h, pooled_sd
from fairdesk.stats.results import NoVariation

SPEAKER = (
    "speaker and group cannot be told apart, so no interval for the group can be "
    "estimated; record more speakers (--resampling utterance gives an interval that "
    "describes these recordings of this speaker only)"
)
UNITS = {"group": 5, "reference": 5, "contents": None, "group_items": 7, "reference_items": 9}


@pytest.mark.parametrize(
    "units, scheme, message",
    [
        ({"group": 1}, "speaker", "one speaker in scot: " + SPEAKER),
        ({"reference": 0, "reference_items": 3}, "two_way", "no speaker in us: " + SPEAKER),
        ({"group": None, "reference": 1}, "speaker", "one speaker in us: " + SPEAKER),
        (
            {"group": 0, "group_items": 0},
            "two_way",
            "scot has no item on the sentences shared with the other side, so nothing can be "
            "compared; record the shared sentences in both groups",
        ),
        (
            {"group": 1, "group_items": 1},
            "utterance",
            "only 1 utterance in scot: there is nothing to resample and no uncertainty can be "
            "estimated; record more utterances",
        ),
        ({"group": 1, "group_items": 1}, "speaker", "one speaker in scot: " + SPEAKER),
        ({"contents": 1}, "two_way", "only one shared sentence: nothing to resample"),
        (
            {"group": None, "reference": None, "contents": 1},
            "content",
            "only one shared sentence: nothing to resample",
        ),
        ({"group": 2, "reference": 2, "contents": 2}, "two_way", None),
        ({"group": None, "reference": None, "contents": None}, "content", None),
    ],
)
def test_units_problem_word_for_word(units, scheme, message):
    """The coded note reads, in today's words, what the statistics used to write."""
    note = units_problem({**UNITS, **units}, scheme, "scot", "us")
    assert (None if note is None else notice_text(note)) == message
    if note is not None:
        assert note.code.startswith("estimability.") and note.args.get("name", "us") in (
            "scot",
            "us",
        )


def test_count_words():
    assert (count_words(0, "speaker"), count_words(1, "speaker"), count_words(3, "speaker")) == (
        "no speaker",
        "one speaker",
        "3 speakers",
    )


def test_rule_of_three_bounds():
    r = rule_of_three(1.0, 40, 1, "items")
    assert r == NoVariation(
        value=1.0,
        unit="items",
        n_group=40,
        n_reference=1,
        bound_group=3 / 40,
        bound_reference=3.0,
    )
    for n in (0, None, -2):
        assert math.isnan(rule_of_three(0.0, n, 10, "speakers").bound_group)
    assert rule_of_three(0.0, 60, 20.0, "x").bound_reference == pytest.approx(0.15)


def test_cohens_h_edges():
    assert cohens_h(0.5, 0.5) == 0.0
    assert cohens_h(0.25, 0.0) == pytest.approx(2 * math.asin(0.5))
    # values outside [0, 1] are clipped to it
    assert cohens_h(1.2, 0.5) == cohens_h(1.0, 0.5) == pytest.approx(math.pi - math.pi / 2)
    assert cohens_h(0.5, 1.7) == cohens_h(0.5, 1.0)
    assert cohens_h(-0.1, 0.5) == cohens_h(0.0, 0.5)
    for p1, p2 in ((math.inf, 0.5), (0.5, math.inf), (math.nan, 0.5), (0.5, math.nan)):
        assert math.isnan(cohens_h(p1, p2))


def test_pooled_sd_edges():
    assert pooled_sd([1.0], [2.0, 4.0]) == pytest.approx(math.sqrt(2.0))  # dof 1
    assert pooled_sd([2.0, 4.0], [1.0]) == pytest.approx(math.sqrt(2.0))
    assert pooled_sd([1.0, None, 3.0], [2.0, 4.0, math.nan]) == pytest.approx(math.sqrt(4 / 2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # undefined is NaN, quietly
        for a, b in (([1.0, 2.0, 3.0], []), ([], [1.0, 2.0, 3.0]), ([1.0], [2.0]), ([], [])):
            assert math.isnan(pooled_sd(a, b))


def test_bootstrap_p_drops_undefined_replicates():
    # |0.1 − 0.5| < 0.5, |1.2 − 0.5| ≥ 0.5: (1 + 1) / (2 + 1)
    assert bootstrap_p(0.5, [0.1, None, 1.2, math.nan]) == pytest.approx(2 / 3)
    assert bootstrap_p(0.5, np.array([0.1, 1.2])) == pytest.approx(2 / 3)
    assert math.isnan(bootstrap_p(0.5, [None, math.nan])) and math.isnan(bootstrap_p(math.nan, [1]))


def _side(speakers, n_contents=5):
    from fairdesk.stats.bootstrap import Side

    n = len(speakers)
    contents = np.array([f"c{i % n_contents}" for i in range(n)], dtype=object)
    return Side(np.ones((n, 2)), np.array(speakers, dtype=object), contents)


def test_auto_scheme_at_five_shared_sentences_and_its_problem():
    from fairdesk.stats.estimability import auto_scheme

    g, r = _side(["a"] * 5 + ["b"] * 5), _side(["x"] * 5 + ["y"] * 5)
    assert auto_scheme(g, r, True, 5) == (
        "two_way",
        {"group": 2, "reference": 2, "contents": 5, "group_items": 10, "reference_items": 10},
        None,
    )
    assert auto_scheme(g, r, True, 4)[0] == "speaker"
    one = _side(["a"] * 10)
    assert auto_scheme(one, r, True, 0) == (
        None,
        {"group": 1, "reference": 2, "contents": None, "group_items": 10, "reference_items": 10},
        "speaker",
    )
    assert auto_scheme(one, r, True, 5)[2] == "two_way"  # the first scheme tried is reported


def test_zero_spread_edges():
    from fairdesk.stats.estimability import zero_spread

    assert zero_spread([0.3], 0.0) and zero_spread([0.3, None, math.nan], 0.0)
    assert not zero_spread([0.1, 0.2], 0.0)  # two replicates that differ
    assert not zero_spread([0.1, None, 0.2], 0.0)
    assert zero_spread([0.5, 0.5, 0.5], 0.5)  # exactly no spread
    assert zero_spread([0.0, 1e-12], 0.0)  # at the tolerance: no spread
    # the tolerance is 1e-12 relative to max(1, |centre|), 1 for an undefined centre
    assert zero_spread([1e6, 1e6 + 1e-7], 1e6)
    assert not zero_spread([0.0, 1.5e-12], 0.0)
    assert not zero_spread([0.0, 1.5e-12], math.nan)
    assert not zero_spread([0.0, 1.0], math.inf)


def test_pooled_sd_and_small_cluster_scaling_drop_missing_values():
    from fairdesk.stats.estimability import scale_small_clusters

    assert pooled_sd([1.0, 3.0], [2.0, None, 4.0]) == pytest.approx(math.sqrt(4 / 2))
    out = scale_small_clusters([[None, 4.0]], [2.0, None], 2)
    assert np.isnan(out).all() and out.dtype == float


def test_holm_ties_in_order_of_appearance_and_missing_values():
    from scipy.stats import rankdata

    from fairdesk.stats.formulas import holm_adjust, holm_multipliers

    p = np.array([0.5, 0.2, 0.5, 0.1] * 10)
    # ties take ranks in order of appearance (scipy's "ordinal" ranks)
    np.testing.assert_array_equal(holm_multipliers(p), len(p) - rankdata(p, "ordinal") + 1)
    np.testing.assert_array_equal(holm_multipliers([0.04, None, 0.01]), [1, np.nan, 2])
    np.testing.assert_allclose(holm_adjust([0.04, None, 0.01]), [0.04, np.nan, 0.02])


def test_planned_bootstrap_records_word_for_word():
    from fairdesk.presentation.bootstrap_words import bootstrap_json
    from fairdesk.stats.bootstrap_plan import BOOTSTRAP_RULE, BootstrapPlan
    from fairdesk.stats.formulas import planned_bootstrap

    def worded(plan):  # the block as --json writes it: the coded rule in words
        assert plan.rule is not None and plan.rule.code == BOOTSTRAP_RULE
        return bootstrap_json({"bootstrap": plan.to_json()})["bootstrap"]

    rule = 'B >= ceil(5 * comparisons / alpha), at most 20,000 (docs/METHODS.md, "Multiple comparisons (Holm)")'
    assert worded(planned_bootstrap(2000, 0, 0.05)) == {
        "requested": 2000,
        "used": 2000,
        "comparisons": 0,
        "required": 0,
        "raised": False,
        "capped": False,
        "rule": rule,
    }
    # 5 · 200 / 0.05 = 20,000 exactly: raised to the cap, not capped
    assert worded(planned_bootstrap(2000, 200, 0.05)) == {
        "requested": 2000,
        "used": 20000,
        "comparisons": 200,
        "required": 20000,
        "raised": True,
        "capped": False,
        "rule": rule,
    }
    assert planned_bootstrap(2000, 201, 0.05).capped
    # the stored block reads back equal to the plan; a stored sentence is kept as stored
    plan = planned_bootstrap(2000, 200, 0.05)
    assert BootstrapPlan.from_json(plan.to_json()) == plan
    old = BootstrapPlan.from_json(worded(plan))
    assert old.rule is not None and old.rule.code == "stored.sentence"
    assert old.to_json() == worded(plan)


def test_too_few_and_constant_value_edges():
    from fairdesk.stats.estimability import constant_value, too_few

    assert too_few({"group": 2, "reference": 2, "contents": 1})
    assert not too_few({"group": 2, "reference": 2, "contents": 2})
    assert not too_few({"group": None, "reference": None, "contents": None})
    assert too_few({"group": 5, "reference": 1})
    assert constant_value([0.5, None, 0.5, math.nan]) == 0.5
    assert constant_value([0.25, 0.25]) == 0.25
    assert constant_value([None, math.nan]) is None
    # tolerance 1e-12 relative to max(1, |values|)
    assert constant_value([1e6, 1e6 + 1e-7]) == 1e6
    assert constant_value([-1e6 - 1e-7, -1e6]) == -1e6 - 1e-7
    assert constant_value([0.0, 1e-13]) == 0.0
    assert constant_value([0.0, 1e-12]) == 0.0  # at the tolerance: still constant
    assert constant_value([0.0, 1.5e-12]) is None


def test_gap_ratio_edges():
    from fairdesk.stats.formulas import gap_ratio

    assert gap_ratio(0.3, 0.2) == pytest.approx(1.5)
    assert gap_ratio(0.2, 0.0) == math.inf and gap_ratio(-0.2, 0.0) == -math.inf
    for a, b in ((0.0, 0.0), (math.nan, 0.2), (0.2, math.nan), (math.inf, 0.2), (0.2, math.inf)):
        assert math.isnan(gap_ratio(a, b))
