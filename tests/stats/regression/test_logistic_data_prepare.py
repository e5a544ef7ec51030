"""The logistic family's data preparation: every refusal word for word, the dropped counts and
notes, the reference levels and the cluster codes, on small hand-made frames."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairdesk.stats.regression.data import _prepare
from tests.stats.regression.conftest import texts


def _frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "em": [1, 0, 1, 0, 1, 0, 1, 1],
            "age": ["30s", "20s", "30s", "20s", "60+", "30s", "20s", "60+"],
            "accent": pd.Categorical(
                ["uk", "us", "us", "uk", "us", "uk", "us", "us"], categories=["us", "uk", "in"]
            ),
            "err": [0, 1, 2, 0, 3, 1, 0, 2],
            "n": [4, 4, 5, 3, 6, 4, 2, 5],
            "spk": ["a", "a", "b", "b", "c", "c", "d", "d"],
        }
    )


def _msg(*args, **kw) -> str:
    with pytest.raises(ValueError) as e:
        _prepare(*args, **kw)
    return str(e.value)


def P(
    frame,
    outcome="em",
    variables=("age",),
    references=None,
    cluster=None,  # noqa: N802
    binomial=None,
    clip=False,
):
    return _prepare(frame, outcome, list(variables), references, cluster, binomial, clip)


def test_refusals_word_for_word():
    df = _frame()
    cols = "em, age, accent, err, n, spk"
    assert _msg([1], "em", ["age"], None, None, None, False) == (
        "frame must be a pandas DataFrame, got list"
    )
    assert _msg(df, "em", [], None, None, None, False) == (
        "variables is empty: name at least one demographic column to test"
    )
    assert _msg(df, "em", ["age", "age"], None, None, None, False) == (
        "variables lists a column twice: ['age', 'age']; list each once"
    )
    assert _msg(df, "em", ["gender"], None, None, None, False) == (
        f"Demographic variable column 'gender' is not in the frame; available columns: {cols}. "
        "Pass the name of an existing column."
    )
    assert _msg(df, "x", ["age"], None, None, None, False) == (
        f"Outcome column 'x' is not in the frame; available columns: {cols}. Pass the name of "
        "an existing column."
    )
    assert _msg(df.assign(em=list("abababab")), "em", ["age"], None, None, None, False).startswith(
        "outcome column 'em' must hold 0/1 values (e.g. exact match, or 1 "
        "when an utterance has no word error); it holds non-numeric "
        "values: "
    )
    assert _msg(df.assign(em=[0, 1, 2, 3, 2, 1, 0, 5]), "em", ["age"], None, None, None, False) == (
        "outcome column 'em' must hold only 0/1 values; 4 rows hold other "
        "values (2.0, 3.0, 5.0). For word errors pass binomial=(errors_column,"
        " words_column) instead."
    )
    assert _msg(df.assign(em=1), "em", ["age"], None, None, None, False) == (
        "outcome column 'em' is constant (1 on every row): there is no variation to explain"
    )
    assert _msg(df, "em", ["age"], None, None, ("err",), False) == (
        "binomial must be a pair (errors_column, words_column), e.g. binomial=('n_errors', "
        "'n_words')"
    )
    assert _msg(df, "em", ["age"], None, None, ("e", "n"), False).startswith(
        "Error-count column 'e' is not in the frame"
    )
    assert _msg(df, "em", ["age"], None, None, ("err", "w"), False).startswith(
        "Word-count column 'w' is not in the frame"
    )
    assert _msg(
        df.assign(err=list("abcdefgh")), "em", ["age"], None, None, ("err", "n"), False
    ).startswith("binomial columns 'err' and 'n' must be numeric counts: ")
    assert _msg(
        df.assign(err=[0, -1, 0.5, 0, 0, 0, -2, 1.5]),
        "em",
        ["age"],
        None,
        None,
        ("err", "n"),
        False,
    ) == ("column 'err' must hold non-negative whole counts; found [-1.0, 0.5, -2.0]")
    assert (
        _msg(
            df.assign(n=[4, 4, 5, 3, 6, 4, 2, 5.5]), "em", ["age"], None, None, ("err", "n"), False
        )
        == "column 'n' must hold non-negative whole counts; found [5.5]"
    )
    assert _msg(
        df.assign(err=[5, 1, 2, 0, 3, 1, 3, 2]), "em", ["age"], None, None, ("err", "n"), False
    ) == (
        "2 rows have more errors (err) than words (n), which a binomial model cannot hold "
        "(insertions); pass clip_errors=True or count substitutions + deletions only"
    )
    assert _msg(df.assign(err=0), "em", ["age"], None, None, ("err", "n"), False) == (
        "'err' is 0 on every row: there is no variation to explain"
    )
    assert _msg(df.assign(err=df.n), "em", ["age"], None, None, ("err", "n"), False) == (
        "'err' is equal to 'n' on every row: there is no variation to explain"
    )
    assert _msg(df, "em", ["age"], None, "talker", None, False).startswith(
        "Cluster (speaker) column 'talker' is not in the frame"
    )
    assert _msg(df, "em", ["spk"], None, "spk", None, False) == (
        "'spk' is used both as a demographic variable and as the cluster column"
    )
    assert _msg(df, "em", ["em"], None, None, None, False) == (
        "'em' is used both as a demographic variable and as the outcome column"
    )
    assert _msg(df, "em", ["n"], None, None, ("err", "n"), False) == (
        "'n' is used both as a demographic variable and as the word count column"
    )
    assert _msg(df, "em", ["err"], None, None, ("err", "n"), False) == (
        "'err' is used both as a demographic variable and as the error count column"
    )
    assert _msg(df, "em", ["age"], {"accent": "us"}, None, None, False) == (
        "references names ['accent'], which are not among variables ['age']"
    )
    assert _msg(df.assign(age="x"), "em", ["age"], None, None, None, False) == (
        "variable 'age' has 1 level(s) (['x']) on the rows with a known outcome: a test needs "
        "at least two; drop it from variables"
    )
    assert _msg(df, "em", ["age"], {"age": "40s"}, None, None, False) == (
        "reference level '40s' for 'age' is not among its levels ['20s', '30s', '60+']"
    )
    assert _msg(df.assign(spk="a"), "em", ["age"], None, "spk", None, False) == (
        "cluster column 'spk' has a single cluster: nothing to cluster"
    )


def test_logit_rows_levels_references_and_notes():
    df = _frame().astype({"em": float, "age": object})
    df.loc[1, "em"] = np.nan
    df.loc[3, "age"] = None
    df.loc[[2, 6], "spk"] = None
    data, dropped, notes = P(
        df, variables=("age", "accent"), references={"accent": "uk"}, cluster="spk"
    )
    assert not data.binomial and data.trials is None
    np.testing.assert_array_equal(data.y, [1, 1, 0, 1, 0, 1, 1])
    assert data.index.tolist() == [0, 2, 3, 4, 5, 6, 7]
    # age: 30s 3 rows, 20s 1 (+1 missing), 60+ 2: the largest level first
    assert data.levels == {"age": ["30s", "20s", "60+"], "accent": ["uk", "us"]}
    assert data.values["age"].tolist() == ["30s", "30s", None, "60+", "30s", "20s", "60+"]
    assert dropped == {"em": 1, "age": 1}
    # clusters a b c d with two rows of no speaker: each its own cluster
    assert data.groups.tolist() == [0, 4, 1, 2, 2, 5, 3]
    assert texts(notes) == [
        "1 row with a missing em was left out.",
        "1 row with a missing age was left out of its models.",
        "2 utterances have no spk; each was treated as its own cluster.",
        "Only 6 spk clusters: clustered standard errors are unreliable with fewer than about "
        "20 clusters.",
    ]


def test_boolean_outcome_and_tied_reference():
    df = _frame().assign(
        em=[True, False, True, False, True, False, True, True],
        age=["b", "a", "b", "a", "c", "c", "d", "d"],
    )
    data, dropped, notes = P(df)
    np.testing.assert_array_equal(data.y, [1, 0, 1, 0, 1, 0, 1, 1])
    # four levels of two rows each: the first in level order is the reference
    assert data.levels["age"] == ["a", "b", "c", "d"]
    assert dropped == {} and notes == []


def test_binomial_rows_notes_and_capping():
    df = _frame().astype({"err": float, "n": float})
    df.loc[0, "err"] = np.nan
    df.loc[1, "n"] = 0
    df.loc[[2, 4], "err"] = [7, 9]
    data, dropped, notes = P(df, binomial=("err", "n"), clip=True)
    assert data.binomial
    np.testing.assert_array_equal(data.y, [5, 0, 6, 1, 0, 2])
    np.testing.assert_array_equal(data.trials, [5, 3, 6, 4, 2, 5])
    assert dropped == {"err": 1, "n": 1}
    assert texts(notes) == [
        "1 row with missing error or word counts was left out.",
        "1 row with 0 reference words was left out.",
        "2 rows had more errors than reference words (insertions); their error count was "
        "capped at the word count for the binomial model.",
    ]


def test_twenty_clusters_are_enough_nineteen_are_not():
    rng = np.random.default_rng(0)
    df = pd.DataFrame(
        {
            "em": rng.integers(0, 2, 40),
            "age": ["a", "b"] * 20,
            "spk": [f"s{i // 2}" for i in range(40)],
        }
    )
    assert P(df, cluster="spk")[2] == []
    _, _, notes = P(df.iloc[:38], cluster="spk")
    assert texts(notes) == [
        "Only 19 spk clusters: clustered standard errors are unreliable with fewer "
        "than about 20 clusters."
    ]
