"""Regression p-values that underflow to 0.0 (issue 28): each keeps its base-10 logarithm
(``p_log10``) beside it, computed from the log survival function and checked here against
independent asymptotic formulas; sentences read ``p < 1e-300 (log10 p = …)``, never
``0.0e+00``; the headline names the level with the largest |log OR| among the significant
ones (not the first whose p is 0), with the range over the levels, and the column name as
given."""

from __future__ import annotations

import math

import numpy as np
import pytest
import statsmodels.api as sm
import statsmodels.formula.api as smf
from scipy import stats
from statsmodels.stats.multitest import multipletests

from fairdesk.presentation.notices import notice_text
from fairdesk.presentation.regression_logit_words import logistic_sentences as _conclusions
from fairdesk.presentation.regression_words import result_conclusions
from fairdesk.stats.regression import run_regression
from fairdesk.stats.regression.conclusions import largest_effect
from fairdesk.stats.regression.logp import (
    _beta_i_log,
    _gamma_q_log,
    chi2_log10,
    f_log10,
    holm_log10,
    normal_log10,
    t_log10,
)
from fairdesk.stats.regression.results import LevelEffect, UnivariateResult
from tests.stats.regression.conftest import (
    chi2_df3_tail_log10,
    normal_tail_log10,
    underflow_frame,
)

LN10 = math.log(10)
REF = {"dialectal_region": "Asian"}
TERM = "C(dialectal_region, Treatment('Asian'))[T.{}]"


@pytest.fixture(scope="module")
def frame():
    return underflow_frame()


@pytest.fixture(scope="module")
def sm_fit(frame):
    return smf.logit("recognised ~ C(dialectal_region, Treatment('Asian'))", frame).fit(disp=0)


def test_the_constructed_p_values_do_underflow_in_statsmodels(sm_fit):
    # the premise: a huge, clean effect whose Wald and LR p-values statsmodels returns as 0.0
    for lev in ("Inland-North", "Mid-Atlantic"):
        assert sm_fit.pvalues[TERM.format(lev)] == 0.0
        assert abs(sm_fit.tvalues[TERM.format(lev)]) > 50
    assert sm_fit.llr_pvalue == 0.0
    assert 0 < sm_fit.pvalues[TERM.format("Southern")] < 1e-10


def test_p_log10_keeps_the_size_of_underflowed_wald_and_lr_p_values(frame, sm_fit):
    res = run_regression(frame, "recognised", ["dialectal_region"], references=REF)
    (u,) = res.to_dict(words=notice_text)["univariate"]
    for lev in u["levels"]:
        z = sm_fit.tvalues[TERM.format(lev["level"])]
        assert lev["p_value"] == pytest.approx(sm_fit.pvalues[TERM.format(lev["level"])], rel=1e-9)
        assert math.isfinite(lev["p_log10"])
        if lev["level"] == "Southern":  # not underflowed: log10 of the p itself
            assert lev["p_log10"] == pytest.approx(math.log10(lev["p_value"]), rel=1e-9)
        else:
            assert lev["p_value"] == 0.0
            assert lev["p_log10"] == pytest.approx(normal_tail_log10(z), rel=1e-9)
            assert lev["p_log10"] < -500
    assert u["llr_p_value"] == 0.0
    stat = res.univariate[0].llr_stat  # statsmodels' LR statistic, to its optimiser's digits
    assert stat == pytest.approx(sm_fit.llr, rel=1e-7)
    assert u["llr_p_log10"] == pytest.approx(chi2_df3_tail_log10(stat), rel=1e-9)
    # no sentence reads 0.0e+00; the underflowed ones read p < 1e-300 with their logarithm
    assert not any("e+00" in s for s in result_conclusions(res))
    lr = f"LR p < 1e-300 (log10 p = {u['llr_p_log10']:.1f})"
    assert lr in result_conclusions(res)[0]


def test_headline_names_the_largest_effect_among_several_zero_p_values(frame, sm_fit):
    res = run_regression(frame, "recognised", ["dialectal_region"], references=REF)
    u = res.univariate[0]
    assert [lev.level for lev in u.levels] == ["Inland-North", "Mid-Atlantic", "Southern"]
    ors = {lev: math.exp(sm_fit.params[TERM.format(lev)]) for lev in ("Inland-North", "Southern")}
    name = TERM.format("Mid-Atlantic")
    lo, hi = np.exp(sm_fit.conf_int().loc[name])
    best = u.levels[1]
    # the first level whose p is 0 (Inland-North, 3.12) would have won the old "smallest p"
    # rule; Mid-Atlantic differs most (3.52)
    assert u.levels[0].p_value == best.p_value == 0.0
    assert result_conclusions(res)[0] == (
        f"dialectal_region is associated with recognised (LR p < 1e-300 (log10 p = "
        f"{u.llr_p_log10:.1f})): odds ratios vs Asian range {ors['Southern']:.2f}–"
        f"{math.exp(sm_fit.params[name]):.2f} over 3 levels; largest difference: Mid-Atlantic "
        f"{math.exp(sm_fit.params[name]):.2f} [{lo:.2f}, {hi:.2f}], p < 1e-300 (log10 p = "
        f"{normal_tail_log10(sm_fit.tvalues[name]):.1f})."
    )
    assert ors["Inland-North"] == pytest.approx(3.12, abs=0.005)
    assert f"{math.exp(sm_fit.params[name]):.2f}" == "3.52"
    assert not any("Dialectal_region" in s for s in result_conclusions(res))  # as given


def _lev(level, odds, p, log10=math.nan):
    return LevelEffect(level, odds, odds * 0.9, odds * 1.1, p, log10)


def test_largest_effect_rule_on_hand_made_levels():
    # several p = 0: the largest |log OR| wins, wherever it is listed
    levels = [_lev("a", 3.12, 0.0, -500), _lev("b", 3.52, 0.0, -400), _lev("c", 1.2, 0.01)]
    assert largest_effect(levels, 0.05).level == "b"
    # an odds ratio below 1 further from 1 wins: |log 0.2| > |log 3.52|
    assert largest_effect([*levels, _lev("d", 0.2, 1e-5)], 0.05).level == "d"
    # a bigger odds ratio that is not significant is not named
    assert largest_effect([*levels, _lev("e", 9.0, 0.2)], 0.05).level == "b"
    # equal |log OR|: the smaller p (by its logarithm) wins, and 0.0 without its logarithm
    # (a result stored before p_log10) counts as the smallest
    tie = [_lev("x", 2.0, 0.0, -350), _lev("y", 0.5, 0.0, -420)]
    assert largest_effect(tie, 0.05).level == "y"
    assert largest_effect([_lev("x", 2.0, 1e-30), _lev("y", 0.5, 0.0)], 0.05).level == "y"
    # none significant: the largest over all levels
    assert largest_effect([_lev("p", 1.1, 0.3), _lev("q", 0.7, 0.4)], 0.05).level == "q"
    assert largest_effect([], 0.05) is None


def test_headline_sentence_words_with_several_levels_and_with_one():
    u = UnivariateResult(
        "Dialect_region",
        "Asian",
        0.0,
        0.1,
        100,
        (_lev("Mid-Atlantic", 3.12, 0.0, -600.04), _lev("Inland-North", 3.52, 0.0, -550.0)),
        llr_p_log10=-1133.26,
    )
    (line,) = _conclusions([u], [], None, [], "exact match", 0.05, False, [])
    assert line == (
        "Dialect_region is associated with exact match (LR p < 1e-300 (log10 p = -1133.3)): "
        "odds ratios vs Asian range 3.12–3.52 over 2 levels; largest difference: "
        "Inland-North 3.52 [3.17, 3.87], p < 1e-300 (log10 p = -550.0)."
    )
    one = UnivariateResult("region", "a", 0.0, 0.1, 100, (_lev("b", 2.0, 0.0),))
    (line,) = _conclusions([one], [], None, [], "exact match", 0.05, False, [])
    # a result stored before p_log10 existed: the floor without a logarithm
    assert line == (
        "region is associated with exact match (LR p < 1e-300), odds ratio for b vs a: "
        "2.00 [1.80, 2.20]."
    )


@pytest.mark.parametrize("method", ["robust", "gee"])
def test_clustered_wald_p_values_keep_their_logarithm(frame, method):
    res = run_regression(
        frame,
        "recognised",
        ["dialectal_region"],
        references=REF,
        cluster="speaker_id",
        cluster_method=method,
    )
    d = res.to_dict(detail=True, words=notice_text)["clustered"]["univariate"][0]
    if method == "robust":
        fit = smf.logit("recognised ~ C(dialectal_region, Treatment('Asian'))", frame).fit(
            disp=0, cov_type="cluster", cov_kwds={"groups": frame["speaker_id"]}
        )
        z = {lev: fit.tvalues[TERM.format(lev)] for lev in ("Inland-North", "Mid-Atlantic")}
    for lev in d["levels"]:
        if lev["level"] == "Southern":
            assert lev["p_log10"] == pytest.approx(math.log10(lev["p_value"]), rel=1e-9)
            continue
        assert lev["p_value"] == 0.0 and lev["p_log10"] < -300
        if method == "robust":
            assert lev["p_log10"] == pytest.approx(normal_tail_log10(z[lev["level"]]), rel=1e-9)
    # the Wald χ² of the variable's terms (df 3) with the clustered covariance
    assert d["llr_p_value"] == 0.0 and d["df"] == 3
    assert d["llr_p_log10"] == pytest.approx(chi2_df3_tail_log10(d["llr_stat"]), rel=1e-9)


def test_binomial_glm_and_adjustment_p_log10(frame):
    res = run_regression(
        frame,
        "n_errors",
        ["dialectal_region", "gender"],
        references=REF,
        binomial=("n_errors", "n_words"),
    )
    X = sm.add_constant(
        np.column_stack(
            [(frame["dialectal_region"] == lev).astype(float) for lev in ("Inland-North",)]
            + [(frame["dialectal_region"] == lev).astype(float) for lev in ("Mid-Atlantic",)]
            + [(frame["dialectal_region"] == "Southern").astype(float)]
        )
    )
    endog = np.column_stack([frame["n_errors"], frame["n_words"] - frame["n_errors"]])
    glm = sm.GLM(endog, X, family=sm.families.Binomial()).fit()
    u = res.univariate[0]
    for k, lev in enumerate(u.levels, start=1):
        assert lev.p_value == pytest.approx(glm.pvalues[k], abs=1e-300)
        if lev.p_value == 0.0:
            assert lev.p_log10 == pytest.approx(normal_tail_log10(glm.tvalues[k]), rel=1e-7)
        else:
            assert lev.p_log10 == pytest.approx(math.log10(lev.p_value), rel=1e-7)
    assert sum(lev.p_value == 0.0 for lev in u.levels) == 2
    # region adjusted on gender (no effect): a p that does not underflow, and its logarithm
    adj = next(a for a in res.adjustments if a.variable == "dialectal_region")
    assert 0 < adj.p_value and adj.p_log10 == pytest.approx(math.log10(adj.p_value), rel=1e-9)
    assert all(math.isfinite(lev.p_log10) for lev in adj.levels)
    (ind,) = res.independence
    assert ind.p_log10 == pytest.approx(math.log10(ind.p_value), rel=1e-9)
    assert not any("e+00" in s for s in result_conclusions(res))
    assert result_conclusions(res)[0].startswith("Caution: ")  # the unclustered binomial model
    line = next(
        s for s in result_conclusions(res) if s.startswith("dialectal_region is associated")
    )
    assert "largest difference: Mid-Atlantic" in line and "p < 1e-300 (log10 p = -" in line


def test_log_tails_beyond_scipys_logsf():
    # scipy's χ², t and F logsf is log(sf): -inf once sf underflows; ours stays finite
    assert stats.chi2.logsf(6000, 3) == -math.inf
    assert chi2_log10(6000, 3) == pytest.approx(chi2_df3_tail_log10(6000), rel=1e-12)
    # where sf is an ordinary float, the continued fractions (used below 1e-290) agree with
    # scipy's log(sf)
    for x, df in ((100.0, 3), (600.0, 1), (1250.0, 4), (1300.0, 7)):
        want = math.log(stats.chi2.sf(x, df))
        assert _gamma_q_log(df / 2, x / 2) == pytest.approx(want, rel=1e-10)
    for t, df in ((30.0, 100.0), (8.0, 1e5), (1e3, 10.0), (10.0, 5.0)):
        want = math.log(2 * stats.t.sf(t, df))
        assert _beta_i_log(df / (df + t * t), df / 2, 0.5) == pytest.approx(want, rel=1e-10)
        assert t_log10(t, df) == pytest.approx(want / LN10, rel=1e-10)
    for f, d1, d2 in ((300.0, 3, 80_000), (60.0, 2, 500), (50.0, 3, 100)):
        want = math.log(stats.f.sf(f, d1, d2))
        assert _beta_i_log(d2 / (d2 + d1 * f), d2 / 2, d1 / 2) == pytest.approx(want, rel=1e-10)
        assert f_log10(f, d1, d2) == pytest.approx(want / LN10, rel=1e-10)
    # far tails: finite, and the t on many df tends to the normal's
    assert stats.t.logsf(60, 1e5) == -math.inf and math.isfinite(t_log10(60, 1e5))
    assert normal_tail_log10(60) < t_log10(60, 1e7) < t_log10(60, 1e5) < t_log10(60, 1e3)
    assert normal_log10(60) == pytest.approx(normal_tail_log10(60), rel=1e-12)
    assert math.isfinite(f_log10(6000, 3, 80_000)) and f_log10(6000, 3, 80_000) < -1000
    assert math.isnan(chi2_log10(5.0, 0)) and math.isnan(normal_log10(math.nan))


def test_holm_on_the_log_scale():
    p = np.array([0.01, 0.04, 0.03, 0.2, 0.0005])
    got = holm_log10(np.log10(p))
    assert 10**got == pytest.approx(multipletests(p, method="holm")[1], rel=1e-12)
    # underflowed p-values keep their order and size: m·p on the log scale
    lg = holm_log10([-400.0, -350.0, math.log10(0.2)])
    assert lg[0] == pytest.approx(-400 + math.log10(3))
    assert lg[1] == pytest.approx(-350 + math.log10(2))
    assert lg[2] == pytest.approx(math.log10(0.2))
