"""The corpus summary (METHODS.md §3): Gini, weighted SD, best/worst groups and the disparity
ratio at their edges (ties, zero denominators, missing values), against direct formulas."""

import math

import numpy as np
import pytest

from fairdesk.stats import gini, weighted_std
from fairdesk.stats.summary import MetricSummary, summarise_metric


def _gini_direct(x):
    x = [v for v in x if v is not None and math.isfinite(v)]
    n, m = len(x), sum(x) / len(x)
    return sum(abs(a - b) for a in x for b in x) / (2 * n * n * m)


def test_gini_edges():
    assert math.isnan(gini([])) and math.isnan(gini([math.nan]))
    assert gini([0.3]) == 0.0  # one value: no inequality
    assert gini([0.0, 0.0]) == 0.0  # all equal, even at zero mean
    assert math.isnan(gini([-1.0, 1.0]))  # unequal values with a zero mean
    # a total absolute difference of exactly 1 and a mean of exactly 1 are ordinary cases
    assert gini([0.0, 0.5]) == pytest.approx(_gini_direct([0.0, 0.5])) == pytest.approx(0.5)
    assert gini([0.5, 1.5]) == pytest.approx(_gini_direct([0.5, 1.5])) == pytest.approx(0.25)


def test_gini_ignores_missing_values():
    assert gini([0.1, None, 0.4, math.nan]) == pytest.approx(_gini_direct([0.1, 0.4]))
    assert gini(np.array([1, 2, 3])) == pytest.approx(2 / 9)


def test_weighted_std_drops_missing_values_and_non_positive_weights():
    base = math.sqrt(0.0075)  # values 0.1, 0.3 with weights 1, 3 (worked by hand)
    assert weighted_std([0.1, 0.3], [1, 3]) == pytest.approx(base)
    assert weighted_std([0.1, math.nan, 0.3], [1, 5, 3]) == pytest.approx(base)
    assert weighted_std([0.1, 0.3, 0.9], [1, 3, math.nan]) == pytest.approx(base)
    assert weighted_std([0.1, 0.3, 0.9], [1, 3, -2]) == pytest.approx(base)
    assert weighted_std([0.1, 0.3, 0.9], [1, 3, None]) == pytest.approx(base)
    assert weighted_std([0.1, None, 0.3], [1, 2, 3]) == pytest.approx(base)
    assert math.isnan(weighted_std([0.1, 0.3], [0, 0]))
    assert math.isnan(weighted_std([math.nan], [1]))


def test_summary_values_by_hand():
    v, sizes = [0.1, 0.2, 0.4], [10, 10, 20]
    s = summarise_metric(["a", "b", "c"], v, sizes, [0.1, None, -0.3], False)
    mean = np.dot(v, sizes) / 40
    assert s.weighted_std == pytest.approx(math.sqrt(np.dot(sizes, (np.array(v) - mean) ** 2) / 40))
    assert s.gini == pytest.approx(_gini_direct(v))
    assert s.max_gap == pytest.approx(-0.3) and s.overall is None
    # a group without a value is left out of the Gini, the SD and best/worst
    s2 = summarise_metric(
        ["a", "b", "c", "d"], [0.1, 0.2, 0.4, None], [10, 10, 20, 5], [0.1], False
    )
    assert (s2.gini, s2.weighted_std) == pytest.approx((s.gini, s.weighted_std))
    assert (s2.best_group, s2.worst_group, s2.max_gap) == ("a", "c", pytest.approx(0.1))


def test_summary_without_any_value():
    s = summarise_metric(["a", "b"], [math.nan, None], [5, 5], [0.2, -0.1], False)
    assert s.max_gap == pytest.approx(0.2)
    for x in (s.disparity_ratio, s.gini, s.weighted_std):
        assert isinstance(x, float) and math.isnan(x)
    assert (s.best_group, s.worst_group) == (None, None)
    assert isinstance(s, MetricSummary)


def test_summary_ties_are_broken_by_name_not_position():
    s = summarise_metric(["z", "b", "y", "a"], [0.1, 0.1, 0.3, 0.3], [1, 1, 1, 1], [], False)
    assert (s.best_group, s.worst_group) == ("b", "a")
    s = summarise_metric(["z", "b", "y", "a"], [0.1, 0.1, 0.3, 0.3], [1, 1, 1, 1], [], True)
    assert (s.best_group, s.worst_group) == ("a", "b")


def test_disparity_ratio_at_zero_and_one():
    # the best value is exactly 1: an ordinary ratio
    assert summarise_metric(["a", "b"], [1.0, 2.0], [1, 1], [], False).disparity_ratio == 2.0
    # lower is better and the best group has no errors: infinitely worse
    assert summarise_metric(["a", "b"], [0.0, 0.2], [1, 1], [], False).disparity_ratio == math.inf
    # higher is better and the worst group scores zero
    assert summarise_metric(["a", "b"], [0.0, 0.7], [1, 1], [], True).disparity_ratio == math.inf
    # every group at zero: no ratio
    assert math.isnan(summarise_metric(["a", "b"], [0.0, 0.0], [1, 1], [], False).disparity_ratio)
