"""The χ² independence check of two demographic variables: every returned field (n, the
smallest expected count, the share of expected counts below 5), the validity thresholds at
their exact boundaries, and the single-level refusal, against scipy and hand counts."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from fairdesk.presentation.notices import notice_text
from fairdesk.stats.regression import run_regression
from tests.stats.regression.conftest import words


def _frame(counts: dict[str, dict[str, int]]) -> pd.DataFrame:
    """One row per utterance of a cross table a x b; em alternates 0/1 down the rows."""
    rows = [(ra, cb) for ra, row in counts.items() for cb, k in row.items() for _ in range(k)]
    frame = pd.DataFrame(rows, columns=["a", "b"])
    frame["em"] = np.arange(len(frame)) % 2
    return frame


def _independence(frame: pd.DataFrame):
    (ind,) = run_regression(frame, "em", ["a", "b"]).independence
    return ind


def _scipy(counts: dict[str, dict[str, int]]):
    table = pd.DataFrame(counts).T.to_numpy()
    return stats.chi2_contingency(table)


def test_all_fields_equal_scipy_and_the_counts():
    counts = {"x": {"p": 12, "q": 7, "r": 3}, "y": {"p": 4, "q": 9, "r": 11}}
    chi2, p, dof, expected = _scipy(counts)
    ind = _independence(_frame(counts))
    assert (ind.variable_a, ind.variable_b) == ("a", "b")
    assert ind.chi2 == pytest.approx(chi2, rel=1e-12)
    assert ind.p_value == pytest.approx(p, rel=1e-12)
    assert ind.df == dof == 2
    assert ind.n == 46
    assert ind.min_expected == pytest.approx(expected.min(), rel=1e-12)
    assert ind.share_expected_below_5 == pytest.approx(np.mean(expected < 5), rel=1e-12)
    assert ind.table == counts
    d = ind.to_dict(detail=True, words=notice_text)
    assert d["n"] == 46
    assert d["min_expected"] == pytest.approx(expected.min(), rel=1e-12)
    assert d["share_expected_below_5"] == pytest.approx(np.mean(expected < 5), rel=1e-12)


def test_n_counts_only_rows_where_both_variables_are_known():
    counts = {"x": {"p": 10, "q": 10}, "y": {"p": 10, "q": 10}}
    frame = _frame(counts)
    extra = pd.DataFrame({"a": ["x", None, "y"], "b": [None, "q", None], "em": [0, 1, 1]})
    frame = pd.concat([frame, extra], ignore_index=True)
    ind = _independence(frame)
    assert ind.n == 40
    assert ind.table == counts
    chi2, p, _, _ = _scipy(counts)
    assert ind.chi2 == pytest.approx(chi2, abs=1e-12) and ind.p_value == pytest.approx(p)


def test_expected_count_of_exactly_5_is_not_below_5():
    # every margin 10 of 20: every expected count is exactly 10 * 10 / 20 = 5
    counts = {"x": {"p": 5, "q": 5}, "y": {"p": 5, "q": 5}}
    expected = _scipy(counts)[3]
    assert (expected == 5.0).all()
    ind = _independence(_frame(counts))
    assert ind.min_expected == 5.0
    assert ind.share_expected_below_5 == 0.0
    assert ind.valid and ind.reason is None


def test_expected_counts_between_5_and_6_are_not_below_5():
    # margins 11/11 of 22: every expected count is 5.5
    counts = {"x": {"p": 6, "q": 5}, "y": {"p": 5, "q": 6}}
    ind = _independence(_frame(counts))
    assert ind.min_expected == pytest.approx(5.5)
    assert ind.share_expected_below_5 == 0.0
    assert ind.valid and ind.reason is None


def test_smallest_expected_count_of_exactly_1_is_valid():
    # margins 10/90 of 100: expected counts 1, 9, 9, 81 (the table is exactly independent)
    counts = {"x": {"p": 1, "q": 9}, "y": {"p": 9, "q": 81}}
    expected = _scipy(counts)[3]
    assert expected.min() == 1.0 and np.mean(expected < 5) == 0.25
    ind = _independence(_frame(counts))
    assert ind.min_expected == 1.0
    # not below 1, so the reason is the share below 5 (1 cell of 4)
    assert not ind.valid
    assert words(ind.reason) == "25% of cells have an expected count below 5 (more than 20%)"


def test_smallest_expected_count_between_1_and_2_with_few_sparse_cells_is_valid():
    # 2 x 5, rows 60/88 of 148, the first column 4: expected counts 1.62 and 2.38 there,
    # the rest above 14: 2 cells of 10 below 5
    counts = {
        "x": {"c0": 2, "c1": 14, "c2": 15, "c3": 14, "c4": 15},
        "y": {"c0": 2, "c1": 22, "c2": 21, "c3": 22, "c4": 21},
    }
    expected = _scipy(counts)[3]
    assert 1 < expected.min() < 2
    ind = _independence(_frame(counts))
    assert ind.min_expected == pytest.approx(expected.min(), rel=1e-12)
    assert ind.share_expected_below_5 == 0.2
    assert ind.valid and ind.reason is None


def test_exactly_20_percent_of_cells_below_5_is_valid():
    # 2 x 5 with rows 50/50 of 100: expected = column total / 2; one column of 4: 2 cells
    # (of 10) expected 2, the others 12
    counts = {
        "x": {"c0": 2, "c1": 12, "c2": 12, "c3": 12, "c4": 12},
        "y": {"c0": 2, "c1": 12, "c2": 12, "c3": 12, "c4": 12},
    }
    ind = _independence(_frame(counts))
    assert ind.min_expected == 2.0
    assert ind.share_expected_below_5 == 0.2
    assert ind.valid and ind.reason is None


def test_more_than_20_percent_below_5_and_below_1_messages():
    counts = {
        "x": {"c0": 2, "c1": 12, "c2": 12, "c3": 12},
        "y": {"c0": 2, "c1": 12, "c2": 12, "c3": 12},
    }
    ind = _independence(_frame(counts))
    assert ind.share_expected_below_5 == 0.25 and ind.min_expected == 2.0
    assert not ind.valid
    assert words(ind.reason) == "25% of cells have an expected count below 5 (more than 20%)"
    # margins 5/95 of 100 and 10/90: smallest expected 0.5
    counts = {"x": {"p": 1, "q": 4}, "y": {"p": 9, "q": 86}}
    ind = _independence(_frame(counts))
    assert ind.min_expected == pytest.approx(0.5)
    assert not ind.valid
    assert words(ind.reason) == "an expected count is below 1 (smallest 0.50)"


def _assert_single_level(ind, one: str, table: dict, n: int) -> None:
    assert (ind.variable_a, ind.variable_b) == ("a", "b")
    assert math.isnan(ind.chi2) and math.isnan(ind.p_value)
    assert ind.df == 0
    assert ind.valid is False
    assert words(ind.reason) == f"{one} has a single level on the shared rows"
    assert ind.table == table
    assert ind.n == n
    assert math.isnan(ind.min_expected) and math.isnan(ind.share_expected_below_5)


def test_first_variable_with_a_single_level_on_the_shared_rows():
    # a = y only where b is missing: on the shared rows a has the single level x
    frame = pd.DataFrame(
        {
            "a": ["x", "x", "x", "x", "y", "y"],
            "b": ["p", "q", "p", "q", None, None],
            "em": [0, 1, 0, 1, 0, 1],
        }
    )
    ind = _independence(frame)
    _assert_single_level(ind, "a", {"x": {"p": 2, "q": 2}}, 4)


def test_second_variable_with_a_single_level_on_the_shared_rows():
    # a keeps two levels on the shared rows, b only p: the single-level variable is b
    frame = pd.DataFrame(
        {
            "a": ["x", "y", "x", "y", None, None],
            "b": ["p", "p", "p", "p", "q", "q"],
            "em": [0, 1, 1, 0, 0, 1],
        }
    )
    ind = _independence(frame)
    _assert_single_level(ind, "b", {"x": {"p": 2}, "y": {"p": 2}}, 4)
    d = ind.to_dict(detail=True, words=notice_text)
    assert d["chi2"] is None and d["p_value"] is None and d["df"] == 0 and d["valid"] is False
    assert d["n"] == 4 and d["min_expected"] is None and d["share_expected_below_5"] is None
