"""Result shape, input validation, separation and missing values."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from fairdesk.presentation.notices import notice_text
from fairdesk.presentation.regression_words import result_conclusions
from fairdesk.stats.regression import RegressionResult, run_regression
from tests.stats.regression.conftest import texts, words

UNIVARIATE_KEYS = {
    "variable",
    "reference",
    "llr_p_value",
    "llr_p_log10",
    "pseudo_r2",
    "n",
    "levels",
}
LEVEL_KEYS = {"level", "odds_ratio", "ci_low", "ci_high", "p_value", "p_log10"}
ADJ_KEYS = {
    "variable",
    "adjusted_on",
    "lr_stat",
    "df",
    "p_value",
    "p_log10",
    "confounder",
    "or_change_pct",
    "levels",
}
INTER_KEYS = {
    "interaction_lr_stat",
    "interaction_df",
    "interaction_p_value",
    "interaction_p_log10",
}
IND_KEYS = {
    "variable_a",
    "variable_b",
    "chi2",
    "df",
    "p_value",
    "p_log10",
    "valid",
    "reason",
    "table",
}


def test_to_dict_shape(small_frame):
    res = run_regression(small_frame, "em", ["age", "accent"], cluster="speaker_id")
    assert isinstance(res, RegressionResult)
    d = json.loads(json.dumps(res.to_dict(words=notice_text), allow_nan=False))
    assert set(d) == {
        "univariate",
        "adjustments",
        "clustered",
        "independence",
        "conclusions",
        "cautions",
        "outcome_chi2",
        "anova",
        "cross_tables",
        "speaker_spread",
    }
    for u in d["univariate"] + d["clustered"]["univariate"]:
        assert set(u) == UNIVARIATE_KEYS
        assert all(set(lev) == LEVEL_KEYS for lev in u["levels"])
    for a in d["adjustments"] + d["clustered"]["adjustments"]:
        assert set(a) == ADJ_KEYS
        assert isinstance(a["or_change_pct"], dict)
    assert set(d["clustered"]) == {"method", "cluster", "univariate", "adjustments"}
    assert [set(i) for i in d["independence"]] == [IND_KEYS]
    assert all(isinstance(s, str) for s in d["conclusions"])
    with_inter = run_regression(small_frame, "em", ["age", "accent"], interactions=True)
    assert all(
        set(a) == ADJ_KEYS | INTER_KEYS
        for a in with_inter.to_dict(words=notice_text)["adjustments"]
    )
    assert with_inter.to_dict(words=notice_text)["clustered"] is None
    detail = json.loads(
        json.dumps(with_inter.to_dict(detail=True, words=notice_text), allow_nan=False)
    )
    assert {"dropped", "problems", "alpha", "model"} <= set(detail)


def test_conclusion_sentence_for_a_significant_variable(small_frame):
    res = run_regression(small_frame, "em", ["age"], references={"age": "18-29"})
    uni = res.univariate[0]
    assert uni.llr_p_value < 0.05
    sentence = result_conclusions(res)[0]
    # the column name as given, never capitalised; two levels: their range and the one that
    # differs most (largest |log OR| among the significant ones)
    assert sentence.startswith("age is associated with exact match (LR p = ")
    ors = {lev.level: lev.odds_ratio for lev in uni.levels}
    sig = [lev for lev in uni.levels if lev.p_value < 0.05]
    best = max(sig, key=lambda lev: abs(np.log(lev.odds_ratio)))
    assert (
        f"odds ratios vs 18-29 range {min(ors.values()):.2f}–{max(ors.values()):.2f} over 2 levels"
        in sentence
    )
    assert f"; largest difference: {best.level} {best.odds_ratio:.2f} [" in sentence


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"variables": ["nope"]}, "'nope' is not in the frame"),
        ({"outcome": "missing"}, "Outcome column 'missing'"),
        ({"variables": ["one"]}, "has 1 level"),
        ({"outcome": "score"}, "only 0/1"),
        ({"outcome": "word"}, "non-numeric"),
        ({"references": {"age": "90+"}}, "not among its levels"),
        ({"references": {"other": "x"}}, "not among variables"),
        ({"variables": []}, "at least one"),
        ({"cluster": "spk"}, "Cluster"),
        ({"variables": ["age", "em"]}, "both as a demographic variable and as the outcome"),
        ({"alpha": 1.5}, "alpha"),
        ({"cluster": "speaker_id", "cluster_method": "mixed"}, "cluster_method"),
    ],
)
def test_bad_input_raises_clear_errors(small_frame, kwargs, match):
    frame = small_frame.assign(one="x", score=np.linspace(0, 1, len(small_frame)), word="yes")
    args = {"frame": frame, "outcome": "em", "variables": ["age"]} | kwargs
    with pytest.raises(ValueError, match=match):
        run_regression(**args)


def test_perfect_separation_is_reported_not_raised(small_frame):
    frame = small_frame.copy()
    frame.loc[frame["accent"] == "ng", "em"] = 1
    res = run_regression(frame, "em", ["accent", "age"], cluster="speaker_id", interactions=True)
    acc = res.univariate[0]
    assert acc.problem and "accent=ng" in words(acc.problem) and not acc.levels
    assert np.isnan(acc.llr_p_value)
    assert res.univariate[1].problem is None  # age is still modelled
    assert any(
        "accent could not be modelled: perfect separation" in s for s in result_conclusions(res)
    )
    assert any(p.startswith("accent:") for p in texts(res.problems))
    d = json.loads(json.dumps(res.to_dict(words=notice_text), allow_nan=False))
    assert d["univariate"][0]["llr_p_value"] is None


def test_sparse_interaction_cell_is_reported(small_frame):
    frame = small_frame.copy()
    cell = (frame["accent"] == "in") & (frame["age"] == "60+")
    frame.loc[cell, "em"] = 0
    res = run_regression(frame, "em", ["accent", "age"], interactions=True)
    adj = res.adjustments[0]
    assert adj.problem is None and np.isfinite(adj.p_value)
    assert adj.interaction_problem and "accent=in × age=60+" in words(adj.interaction_problem)


def test_missing_values_dropped_and_counted(small_frame):
    frame = small_frame.copy()
    frame.loc[:29, "age"] = np.nan
    frame.loc[30:34, "em"] = np.nan
    frame.loc[35:36, "speaker_id"] = None
    res = run_regression(frame, "em", ["age", "accent"], cluster="speaker_id")
    assert res.dropped == {"em": 5, "age": 30}
    assert res.univariate[0].n == len(frame) - 35 and res.univariate[1].n == len(frame) - 5
    assert res.adjustments[0].n == len(frame) - 35
    assert any("30 rows with a missing age" in s for s in result_conclusions(res))
    assert any("5 rows with a missing em" in s for s in result_conclusions(res))
    assert any("2 utterances have no speaker_id" in s for s in result_conclusions(res))


def test_collinear_variables_reported(small_frame):
    frame = small_frame.assign(age_copy=small_frame["age"].map(lambda a: f"band {a}"))
    res = run_regression(frame, "em", ["age", "age_copy"])
    assert all(a.problem and "collinear" in words(a.problem) for a in res.adjustments)


def test_categorical_order_and_bool_outcome():
    rng = np.random.default_rng(3)
    n = 400
    frame = pd.DataFrame(
        {
            "ok": rng.random(n) < 0.6,
            "age": pd.Categorical(
                rng.choice(["young", "mid", "old"], n), categories=["young", "mid", "old"]
            ),
        }
    )
    res = run_regression(frame, "ok", ["age"], references={"age": "young"})
    assert [lev.level for lev in res.univariate[0].levels] == ["mid", "old"]
    assert "ok" in result_conclusions(res)[0]


def test_single_speaker_levels_and_unclustered_word_models_carry_cautions():
    """A level with one speaker is flagged (speaker and level cannot be told apart, even in
    the clustered test); the unclustered binomial WER model says words are not
    independent, and the clustered one does not."""
    import numpy as np
    import pandas as pd

    from fairdesk.stats.regression import run_regression

    rng = np.random.default_rng(0)
    rows = []
    for level, speakers in (("a", [f"a{i}" for i in range(6)]), ("b", ["b0"])):
        for spk in speakers:
            for _ in range(12):
                words = 6
                errors = int(rng.binomial(words, 0.2 if level == "a" else 0.35))
                rows.append(
                    {
                        "region": level,
                        "speaker_id": spk,
                        "errors": errors,
                        "words": words,
                        "ok": int(errors == 0),
                    }
                )
    df = pd.DataFrame(rows)
    res = run_regression(df, "ok", ["region"], cluster="speaker_id").to_dict(words=notice_text)
    single = [c for c in res["cautions"] if "single speaker" in c]
    assert len(single) == 1 and "region = b" in single[0]
    assert single[0] in res["conclusions"]
    words = run_regression(df, "wer", ["region"], binomial=("errors", "words")).to_dict(
        words=notice_text
    )
    assert any("not independent" in c for c in words["cautions"])
    clustered = run_regression(
        df, "wer", ["region"], binomial=("errors", "words"), cluster="speaker_id"
    ).to_dict()
    assert not any("not independent" in c for c in clustered["cautions"])
