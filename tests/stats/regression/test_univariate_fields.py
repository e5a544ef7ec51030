"""Univariate models, every returned field: the LR statistic and its df, rows used and left
out, the test's name per method, pseudo-R² per method, and the refusals (separation, a fit
that runs off to infinity) with their fields, against statsmodels."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf
from scipy import stats

from fairdesk.presentation.notices import notice_text
from fairdesk.stats.regression import run_regression
from tests.stats.regression.conftest import texts, words

TOL = 1e-6


def _c(var: str, ref: str) -> str:
    return f"C({var}, Treatment(reference='{ref}'))"


def test_plain_lr_statistic_df_and_rows_equal_statsmodels(small_frame):
    frame = small_frame.copy()
    frame.loc[:24, "accent"] = np.nan
    res = run_regression(frame, "em", ["age", "accent"])
    for uni, dropped in zip(res.univariate, (0, 25), strict=True):
        used = frame[frame[uni.variable].notna()]
        fit = smf.logit(f"em ~ {_c(uni.variable, uni.reference)}", used).fit(disp=0)
        assert uni.test == "lr" and uni.problem is None
        assert uni.llr_stat == pytest.approx(fit.llr, rel=TOL)
        assert uni.df == int(fit.df_model) == used[uni.variable].nunique() - 1
        assert uni.llr_p_value == pytest.approx(stats.chi2.sf(fit.llr, uni.df), rel=TOL)
        assert uni.pseudo_r2 == pytest.approx(fit.prsquared, rel=TOL)
        assert uni.n == len(used) and uni.n_dropped == dropped
        d = uni.to_dict(detail=True, words=notice_text)
        assert (d["n"], d["n_dropped"], d["df"], d["test"]) == (len(used), dropped, uni.df, "lr")
        assert d["llr_stat"] == pytest.approx(fit.llr, rel=TOL)


def test_clustered_fields_per_method(small_frame):
    res = run_regression(small_frame, "em", ["age"], cluster="speaker_id")
    plain, rob = res.univariate[0], res.clustered.univariate[0]
    assert rob.test == "wald" and rob.df == 2 and rob.n == len(small_frame)
    # the robust fit is the same maximum-likelihood fit: the same pseudo-R²
    assert rob.pseudo_r2 == pytest.approx(plain.pseudo_r2, rel=1e-12)
    # its Wald test uses the speaker-clustered covariance
    groups = pd.factorize(small_frame["speaker_id"])[0]
    fit = smf.logit(f"em ~ {_c('age', rob.reference)}", small_frame).fit(
        disp=0, cov_type="cluster", cov_kwds={"groups": groups}
    )
    names = [k for k in fit.params.index if k != "Intercept"]
    b = fit.params[names].to_numpy()
    wald = float(b @ np.linalg.solve(fit.cov_params().loc[names, names].to_numpy(), b))
    assert rob.llr_stat == pytest.approx(wald, rel=TOL)
    assert rob.llr_p_value == pytest.approx(stats.chi2.sf(wald, 2), rel=TOL)
    assert [lev.p_value for lev in rob.levels] == pytest.approx(
        [fit.pvalues[k] for k in names], rel=TOL
    )
    gee = run_regression(
        small_frame, "em", ["age"], cluster="speaker_id", cluster_method="gee"
    ).clustered.univariate[0]
    assert gee.test == "wald" and gee.df == 2
    assert math.isnan(gee.pseudo_r2)  # GEE has no likelihood
    assert np.isfinite(gee.llr_stat) and 0 < gee.llr_p_value < 1


def _assert_failed(uni, n: int, n_dropped: int, problem: str, test: str = "lr") -> None:
    assert math.isnan(uni.llr_p_value) and math.isnan(uni.pseudo_r2)
    assert math.isnan(uni.llr_stat) and uni.df == 0
    assert uni.levels == ()
    assert uni.n == n and uni.n_dropped == n_dropped
    assert uni.test == test
    assert words(uni.problem) == problem


def test_separation_refusal_word_for_word(small_frame):
    frame = small_frame.copy()
    frame.loc[frame["accent"] == "ng", "em"] = 1
    frame.loc[:9, "accent"] = np.nan
    k = int((frame["accent"] == "ng").sum())
    res = run_regression(frame, "em", ["accent"], cluster="speaker_id")
    why = (
        f"perfect separation: accent=ng has outcome = 1 on all {k} rows, so its odds ratio "
        "is infinite; merge or drop that level"
    )
    ref = res.univariate[0].reference
    assert ref == frame["accent"].value_counts().idxmax()
    _assert_failed(res.univariate[0], len(frame) - 10, 10, why)
    _assert_failed(res.clustered.univariate[0], len(frame) - 10, 10, why, test="wald")
    assert res.univariate[0].reference == res.clustered.univariate[0].reference == ref
    assert f"accent: {why}" in texts(res.problems)


def test_fit_running_off_to_infinity_is_reported():
    # word-error log-odds 0 in r, about 23 in x (1 correct word of 10^10): beyond |20|
    frame = pd.DataFrame(
        {
            "a": ["r", "r", "x", "x"],
            "n_words": [1000, 1000, 10**10, 10**10],
            "n_errors": [500, 500, 10**10 - 1, 10**10 - 1],
        }
    )
    res = run_regression(
        frame, "wer", ["a"], references={"a": "r"}, binomial=("n_errors", "n_words")
    )
    why = (
        "the model did not converge (coefficients ran off to infinity: quasi-complete "
        "separation or too few rows per level); merge sparse levels"
    )
    _assert_failed(res.univariate[0], 4, 0, why)
    assert res.univariate[0].reference == "r"
