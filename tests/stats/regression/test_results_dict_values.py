"""``to_dict`` carries every finite number and every problem sentence of the result objects:
the upper confidence bound and McFadden's pseudo-R² against statsmodels, the problems of a
separated variable and of a collinear pair word for word."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import statsmodels.formula.api as smf

from fairdesk.presentation.notices import notice_text
from fairdesk.stats.regression import (
    AdjustmentResult,
    LevelEffect,
    UnivariateResult,
    run_regression,
)
from tests.stats.regression.conftest import S


def _json(d: dict) -> dict:
    return json.loads(json.dumps(d, allow_nan=False))


def test_level_and_univariate_dicts_hold_the_statsmodels_numbers(small_frame):
    res = run_regression(small_frame, "em", ["age"], references={"age": "18-29"})
    fit = smf.logit("em ~ C(age, Treatment('18-29'))", small_frame).fit(disp=0)
    ci = fit.conf_int(0.05)
    u = _json(res.to_dict(words=notice_text))["univariate"][0]
    assert u["pseudo_r2"] == pytest.approx(fit.prsquared, rel=1e-6)
    assert u["pseudo_r2"] > 0
    assert [lev["level"] for lev in u["levels"]] == ["30-44", "60+"]
    for lev in u["levels"]:
        name = f"C(age, Treatment('18-29'))[T.{lev['level']}]"
        assert lev["ci_low"] == pytest.approx(math.exp(ci.loc[name, 0]), rel=1e-6)
        assert lev["ci_high"] == pytest.approx(math.exp(ci.loc[name, 1]), rel=1e-6)
        assert lev["odds_ratio"] == pytest.approx(math.exp(fit.params[name]), rel=1e-6)
        # log10 of the Wald p beside it, from the normal log survival function
        assert lev["p_log10"] == pytest.approx(math.log10(fit.pvalues[name]), rel=1e-6)
    assert u["llr_p_log10"] == pytest.approx(math.log10(fit.llr_pvalue), rel=1e-6)


def test_hand_made_finite_fields_pass_through():
    lev = LevelEffect("60+", 2.0, np.float64(1.5), np.float64(2.75), 0.01)
    assert lev.to_dict() == {
        "level": "60+",
        "odds_ratio": 2.0,
        "ci_low": 1.5,
        "ci_high": 2.75,
        "p_value": 0.01,
        "p_log10": None,  # not given: NaN, written as null
    }
    u = UnivariateResult(
        "age",
        "18-29",
        0.01,
        np.float64(0.125),
        100,
        (lev,),
        problem=S("the model did not converge"),
    )
    assert u.to_dict(words=notice_text)["pseudo_r2"] == 0.125
    assert u.to_dict(True, words=notice_text)["problem"] == "the model did not converge"
    a = AdjustmentResult(
        "age",
        "accent",
        math.nan,
        0,
        math.nan,
        False,
        {},
        problem=S("age has a single level where accent is known"),
    )
    assert (
        a.to_dict(True, words=notice_text)["problem"]
        == "age has a single level where accent is known"
    )


def test_separated_variable_problem_in_the_detailed_dict(small_frame):
    frame = small_frame.copy()
    frame.loc[frame["accent"] == "ng", "em"] = 1
    n_ng = int((frame["accent"] == "ng").sum())
    res = run_regression(frame, "em", ["accent", "age"])
    want = (
        f"perfect separation: accent=ng has outcome = 1 on all {n_ng} rows, so its odds "
        "ratio is infinite; merge or drop that level"
    )
    d = _json(res.to_dict(detail=True, words=notice_text))
    assert d["univariate"][0]["variable"] == "accent"
    assert d["univariate"][0]["problem"] == want
    assert d["univariate"][1]["problem"] is None
    # the adjustments that involve accent meet the same separated level
    assert [a["problem"] for a in d["adjustments"]] == [want, want]


def test_collinear_pair_problem_in_the_detailed_dict(small_frame):
    frame = small_frame.assign(age_copy=small_frame["age"].map(lambda a: f"band {a}"))
    res = run_regression(frame, "em", ["age", "age_copy"])
    d = _json(res.to_dict(detail=True, words=notice_text))
    # the pair is checked once (either order): the sentence names it as first met
    want = (
        "age and age_copy are collinear (one determines the other), so one cannot be "
        "adjusted on the other"
    )
    assert [(a["variable"], a["adjusted_on"], a["problem"]) for a in d["adjustments"]] == [
        ("age", "age_copy", want),
        ("age_copy", "age", want),
    ]


def test_num_gives_plain_json_values():
    from fairdesk.stats.regression.results import _num

    cases = [
        (None, None, type(None)),
        (True, True, bool),
        (np.bool_(False), False, bool),
        (np.bool_(True), True, bool),
        (np.int64(7), 7, int),
        (3, 3, int),
        (np.float32(0.5), 0.5, float),
        (2.25, 2.25, float),
        (math.inf, None, type(None)),
        (-math.inf, None, type(None)),
        (math.nan, None, type(None)),
        (np.float64("nan"), None, type(None)),
    ]
    for x, want, kind in cases:
        got = _num(x)
        assert got == want and type(got) is kind, x
    assert json.dumps([_num(np.bool_(True)), _num(np.int64(2)), _num(np.inf)]) == "[true, 2, null]"
