"""The logistic family's data preparation on non-text levels and edge frames: numeric levels
in numeric order, mixed types in text order, numeric references, a non-text column name,
an outcome missing on every row, and the examples its refusals quote."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairdesk.stats.regression.data import _ordered_levels, _prepare
from tests.stats.regression.conftest import texts


def _msg(*args) -> str:
    with pytest.raises(ValueError) as e:
        _prepare(*args)
    return str(e.value)


def _frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "em": [1, 0, 1, 0, 1, 0, 1],
            "lvl": [10, 9, 100, 9, 10, 100, 9],
            "err": [0, 1, 2, 0, 3, 1, 0],
            "n": [4, 4, 5, 3, 6, 4, 2],
        }
    )


def test_numeric_levels_in_numeric_order_as_text():
    assert _ordered_levels(pd.Series([10, 9, 100, 9])) == [9, 10, 100]
    data, _, _ = _prepare(_frame(), "em", ["lvl"], None, None, None, False)
    # 9 has the most rows: the reference; then 10 before 100 (not "100" before "9")
    assert data.levels == {"lvl": ["9", "10", "100"]}
    assert data.values["lvl"].tolist() == ["10", "9", "100", "9", "10", "100", "9"]


def test_mixed_types_sorted_as_text():
    assert _ordered_levels(pd.Series(["b", 1, None, "a", 1])) == [1, "a", "b"]
    df = pd.DataFrame({"em": [1, 0, 1, 0, 1, 0], "v": ["b", 1, "a", "b", 1, "a"]})
    data, _, _ = _prepare(df, "em", ["v"], None, None, None, False)
    # a three-way tie: the first in text order is the reference
    assert data.levels == {"v": ["1", "a", "b"]}


def test_categorical_levels_in_category_order_observed_only():
    col = pd.Series(pd.Categorical(["z", "x", "z", None], categories=["z", "y", "x"]))
    assert _ordered_levels(col) == ["z", "x"]


def test_numeric_reference_matches_its_text():
    data, _, _ = _prepare(_frame(), "em", ["lvl"], {"lvl": 100}, None, None, False)
    assert data.levels == {"lvl": ["100", "9", "10"]}
    assert _msg(_frame(), "em", ["lvl"], {"lvl": 11}, None, None, False) == (
        "reference level '11' for 'lvl' is not among its levels ['9', '10', '100']"
    )


def test_non_text_column_names_are_refused():
    df = _frame().assign(**{"0": 1})
    df[0] = df["em"]
    assert _msg(df, 0, ["lvl"], None, None, None, False) == (
        "Outcome column 0 is not in the frame; available columns: em, lvl, err, n, 0, 0. "
        "Pass the name of an existing column."
    )


def test_outcome_missing_everywhere_leaves_no_level():
    df = _frame().assign(em=np.nan)
    assert _msg(df, "em", ["lvl"], None, None, None, False) == (
        "variable 'lvl' has 0 level(s) ([]) on the rows with a known outcome: a test needs "
        "at least two; drop it from variables"
    )
    words = _frame().assign(err=np.nan)
    assert _msg(words, "em", ["lvl"], None, None, ("err", "n"), False) == (
        "variable 'lvl' has 0 level(s) ([]) on the rows with a known outcome: a test needs "
        "at least two; drop it from variables"
    )


def test_refusals_quote_the_first_bad_values():
    df = pd.DataFrame({"em": [0, 1, 2, 3, 4, 5, 6, 7, 2], "lvl": list("ababababa")})
    assert _msg(df, "em", ["lvl"], None, None, None, False) == (
        "outcome column 'em' must hold only 0/1 values; 7 rows hold other values (2.0, 3.0, "
        "4.0, 5.0, 6.0). For word errors pass binomial=(errors_column, words_column) instead."
    )
    counts = pd.DataFrame(
        {"em": [0, 1] * 3, "lvl": list("ababab"), "err": [-1, 0.5, -2, 1.5, 1, 0], "n": [4] * 6}
    )
    assert _msg(counts, "em", ["lvl"], None, None, ("err", "n"), False) == (
        "column 'err' must hold non-negative whole counts; found [-1.0, 0.5, -2.0]"
    )
    bools = pd.DataFrame({"ok": [True, False, True, False], "lvl": list("abab")})
    data, _, _ = _prepare(bools, "ok", ["lvl"], None, None, None, False)
    assert data.y.dtype == float and data.y.tolist() == [1.0, 0.0, 1.0, 0.0]


def test_complete_word_counts_drop_nothing_and_keep_one_word_rows():
    df = pd.DataFrame(
        {
            "em": [0, 1] * 3,
            "lvl": list("ababab"),
            "err": [0, 1, 1, 0, 2, 1],
            "n": [1, 1, 3, 2, 4, 1],
        }
    )
    data, dropped, notes = _prepare(df, "em", ["lvl"], None, None, ("err", "n"), False)
    assert dropped == {} and notes == []
    assert data.trials.tolist() == [1.0, 1.0, 3.0, 2.0, 4.0, 1.0]
    assert data.y.tolist() == [0.0, 1.0, 1.0, 0.0, 2.0, 1.0]
    assert data.index.tolist() == [0, 1, 2, 3, 4, 5]


def test_zero_word_rows_go_one_word_rows_stay():
    df = pd.DataFrame(
        {
            "em": [0, 1] * 4,
            "lvl": list("abababab"),
            "err": [0, 1, 1, 0, 2, 1, 0, 0],
            "n": [1, 1, 3, 2, 4, 1, 0, 1],
        }
    )
    data, dropped, notes = _prepare(df, "em", ["lvl"], None, None, ("err", "n"), False)
    assert dropped == {"n": 1}
    assert texts(notes) == ["1 row with 0 reference words was left out."]
    assert data.index.tolist() == [0, 1, 2, 3, 4, 5, 7]
    assert data.trials.tolist() == [1.0, 1.0, 3.0, 2.0, 4.0, 1.0, 1.0]


def test_labels_are_an_object_array_of_python_text():
    """As _Data documents: object arrays of str (None where missing), with or without a
    missing value (a fixed-width text array would drop trailing NULs from a label)."""
    df = pd.DataFrame(
        {"em": [0, 1, 0, 1], "lvl": ["a\x00", "b", "a\x00", "b"], "v": [1.5, None, 2.5, 1.5]}
    )
    data, _, _ = _prepare(df, "em", ["lvl", "v"], None, None, None, False)
    assert data.values["lvl"].dtype == object and data.values["v"].dtype == object
    assert data.values["lvl"].tolist() == ["a\x00", "b", "a\x00", "b"]
    assert [type(x) for x in data.values["lvl"]] == [str] * 4
    assert data.values["v"].tolist() == ["1.5", None, "2.5", "1.5"]
    assert data.levels == {"lvl": ["a\x00", "b"], "v": ["1.5", "2.5"]}


def test_cluster_codes_are_integers_two_clusters_suffice():
    df = pd.DataFrame(
        {
            "em": [0, 1, 1, 0, 1, 0],
            "lvl": list("ababab"),
            "spk": ["s1", "s2", "s1", "s2", "s1", "s2"],
        }
    )
    data, _, notes = _prepare(df, "em", ["lvl"], None, "spk", None, False)
    assert data.groups.dtype.kind == "i" and data.groups.tolist() == [0, 1, 0, 1, 0, 1]
    assert texts(notes) == [
        "Only 2 spk clusters: clustered standard errors are unreliable with "
        "fewer than about 20 clusters."
    ]
    plain, _, _ = _prepare(df, "em", ["lvl"], None, None, None, False)
    assert plain.groups is None


def test_a_single_row_is_a_constant_outcome():
    assert _msg(
        pd.DataFrame({"em": [0], "lvl": ["a"]}), "em", ["lvl"], None, None, None, False
    ) == ("outcome column 'em' is constant (0 on every row): there is no variation to explain")
