"""Plain (independent-utterance) models equal statsmodels fitted directly (METHODS.md §4)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
import statsmodels.formula.api as smf
from scipy import stats

from fairdesk.presentation.regression_words import result_conclusions
from fairdesk.stats.regression import run_regression
from tests.stats.regression.conftest import words

TOL = 1e-6


def _term(var: str, ref: str, level: str) -> str:
    return f"C({var}, Treatment(reference='{ref}'))[T.{level}]"


@pytest.mark.parametrize("reference", [None, "18-29", "60+"])
def test_univariate_equals_smf_logit(small_frame, reference):
    refs = None if reference is None else {"age": reference}
    res = run_regression(small_frame, "em", ["age", "accent"], references=refs)
    uni = res.univariate[0]
    ref = reference or small_frame["age"].value_counts().idxmax()  # default: largest level
    assert uni.reference == ref == (reference or "30-44")
    fit = smf.logit(f"em ~ C(age, Treatment(reference='{ref}'))", small_frame).fit(disp=0)
    ci = np.exp(fit.conf_int(0.05))
    assert [lev.level for lev in uni.levels] == sorted(set(small_frame["age"]) - {ref})
    for lev in uni.levels:
        name = _term("age", ref, lev.level)
        assert lev.odds_ratio == pytest.approx(np.exp(fit.params[name]), abs=TOL, rel=TOL)
        assert lev.ci_low == pytest.approx(ci.loc[name, 0], abs=TOL, rel=TOL)
        assert lev.ci_high == pytest.approx(ci.loc[name, 1], abs=TOL, rel=TOL)
        assert lev.p_value == pytest.approx(fit.pvalues[name], abs=TOL, rel=TOL)
    assert uni.llr_p_value == pytest.approx(fit.llr_pvalue, abs=TOL, rel=TOL)
    assert uni.pseudo_r2 == pytest.approx(fit.prsquared, abs=TOL, rel=TOL)
    assert uni.n == len(small_frame)


def test_adjustment_lr_by_hand(small_frame):
    res = run_regression(small_frame, "em", ["age", "accent"], interactions=True)
    by_pair = {(a.variable, a.adjusted_on): a for a in res.adjustments}
    assert set(by_pair) == {("age", "accent"), ("accent", "age")}
    refs = {u.variable: u.reference for u in res.univariate}
    ca = f"C(age, Treatment(reference='{refs['age']}'))"
    cb = f"C(accent, Treatment(reference='{refs['accent']}'))"
    fits = {
        f: smf.logit(f"em ~ {f}", small_frame).fit(disp=0)
        for f in (ca, cb, f"{ca} + {cb}", f"{ca} * {cb}")
    }
    for (a, b), fa, n_levels_b in (
        (("age", "accent"), ca, 4),
        (("accent", "age"), cb, 3),
    ):
        adj = by_pair[(a, b)]
        lr = 2 * (fits[f"{ca} + {cb}"].llf - fits[fa].llf)
        assert adj.df == n_levels_b - 1
        assert adj.lr_stat == pytest.approx(lr, abs=TOL, rel=TOL)
        assert adj.p_value == pytest.approx(stats.chi2.sf(lr, n_levels_b - 1), abs=TOL, rel=TOL)
        # change-in-estimate of every OR of A
        ref_a = refs[a]
        for lev, pct in adj.or_change_pct.items():
            name = _term(a, ref_a, lev)
            expected = 100 * (
                np.exp(fits[f"{ca} + {cb}"].params[name]) / np.exp(fits[fa].params[name]) - 1
            )
            assert pct == pytest.approx(expected, abs=TOL, rel=TOL)
        # interaction C(A)*C(B) against C(A)+C(B): df = (3-1)*(4-1)
        lr_int = 2 * (fits[f"{ca} * {cb}"].llf - fits[f"{ca} + {cb}"].llf)
        assert adj.interaction_df == 6
        assert adj.interaction_lr_stat == pytest.approx(lr_int, abs=TOL, rel=TOL)
        assert adj.interaction_p_value == pytest.approx(stats.chi2.sf(lr_int, 6), abs=TOL)


def test_confounding_by_region_is_detected(confounded):
    res = run_regression(confounded, "em", ["gender", "region"])
    gender = res.univariate[0]
    assert gender.llr_p_value < 1e-6  # univariately significant through region only
    adj = next(a for a in res.adjustments if (a.variable, a.adjusted_on) == ("gender", "region"))
    assert adj.df == 3 and adj.p_value < 0.05
    assert adj.confounder and adj.changed_levels == ("male",)
    assert all(lev.p_value >= 0.05 for lev in adj.levels)
    assert adj.or_change_pct["male"] < -20  # the OR moves towards 1
    assert any(
        s.startswith("The effect of gender is explained by region: adjusted on region, no level")
        for s in result_conclusions(res)
    )
    # region is not confounded by gender: its levels stay significant
    rev = next(a for a in res.adjustments if (a.variable, a.adjusted_on) == ("region", "gender"))
    assert not rev.confounder
    # the descriptive check flags the imbalance
    (ind,) = res.independence
    assert ind.valid and ind.p_value < 1e-10


def test_binomial_glm_equals_statsmodels_glm(small_frame):
    res = run_regression(
        small_frame, "wer", ["accent", "age"], binomial=("n_errors", "n_words"), interactions=True
    )
    assert res.model == "binomial"
    uni = res.univariate[0]
    ref = uni.reference
    term = f"C(accent, Treatment(reference='{ref}'))"
    fit = smf.glm(
        f"n_errors + I(n_words - n_errors) ~ {term}", small_frame, family=sm.families.Binomial()
    ).fit()
    ci = np.exp(fit.conf_int(0.05))
    for lev in uni.levels:
        name = f"{term}[T.{lev.level}]"
        assert lev.odds_ratio == pytest.approx(np.exp(fit.params[name]), abs=TOL, rel=TOL)
        assert lev.ci_low == pytest.approx(ci.loc[name, 0], abs=TOL, rel=TOL)
        assert lev.ci_high == pytest.approx(ci.loc[name, 1], abs=TOL, rel=TOL)
        assert lev.p_value == pytest.approx(fit.pvalues[name], abs=TOL, rel=TOL)
    lr = 2 * (fit.llf - fit.llnull)
    assert uni.llr_p_value == pytest.approx(stats.chi2.sf(lr, 3), abs=TOL, rel=TOL)
    assert uni.pseudo_r2 == pytest.approx(1 - fit.llf / fit.llnull, abs=TOL, rel=TOL)
    # adjustment of accent on age, by hand
    age_ref = res.univariate[1].reference
    both = smf.glm(
        f"n_errors + I(n_words - n_errors) ~ {term} + C(age, Treatment(reference='{age_ref}'))",
        small_frame,
        family=sm.families.Binomial(),
    ).fit()
    adj = res.adjustments[0]
    assert (adj.variable, adj.adjusted_on, adj.df) == ("accent", "age", 2)
    assert adj.lr_stat == pytest.approx(2 * (both.llf - fit.llf), abs=TOL, rel=TOL)


def test_binomial_caps_insertions_and_reports(small_frame):
    frame = small_frame.copy()
    frame.loc[:4, "n_errors"] = frame.loc[:4, "n_words"] + 2
    res = run_regression(frame, "wer", ["age"], binomial=("n_errors", "n_words"))
    assert any("capped" in s for s in result_conclusions(res))
    with pytest.raises(ValueError, match="more errors"):
        run_regression(frame, "wer", ["age"], binomial=("n_errors", "n_words"), clip_errors=False)


def test_alpha_sets_ci_level(small_frame):
    res = run_regression(small_frame, "em", ["age"], alpha=0.1)
    ref = res.univariate[0].reference
    fit = smf.logit(f"em ~ C(age, Treatment(reference='{ref}'))", small_frame).fit(disp=0)
    lev = res.univariate[0].levels[0]
    name = _term("age", ref, lev.level)
    assert lev.ci_low == pytest.approx(np.exp(fit.conf_int(0.1).loc[name, 0]), abs=TOL)


def test_independence_equals_scipy(small_frame):
    res = run_regression(small_frame, "em", ["age", "accent"])
    (ind,) = res.independence
    table = pd.crosstab(small_frame["age"], small_frame["accent"])
    chi2, p, dof, _ = stats.chi2_contingency(table.to_numpy())
    assert (ind.variable_a, ind.variable_b) == ("age", "accent")
    assert ind.chi2 == pytest.approx(chi2, abs=TOL) and ind.p_value == pytest.approx(p, abs=TOL)
    assert ind.df == dof == 6 and ind.valid and ind.reason is None
    assert sum(sum(row.values()) for row in ind.table.values()) == len(small_frame)
    assert ind.table["60+"]["ng"] == int(table.loc["60+", "ng"])


def test_independence_validity_flag():
    # 2 x 3 table with sparse cells: expected counts below 5 in most cells, one below 1
    frame = pd.DataFrame(
        {
            "a": ["x"] * 40 + ["y"] * 4,
            "b": ["p"] * 20 + ["q"] * 18 + ["r"] * 2 + ["p", "q", "q", "r"],
            "em": [0, 1] * 22,
        }
    )
    res = run_regression(frame, "em", ["a", "b"])
    (ind,) = res.independence
    table = pd.crosstab(frame["a"], frame["b"]).to_numpy()
    expected = stats.chi2_contingency(table)[3]
    assert expected.min() < 1
    assert not ind.valid and "below 1" in words(ind.reason)
    frame2 = pd.DataFrame(
        {"a": ["x"] * 30 + ["y"] * 12, "b": (["p"] * 27 + ["q"] * 3) + (["p"] * 8 + ["q"] * 4)}
    )
    frame2["em"] = [0, 1] * 21
    (ind2,) = run_regression(frame2, "em", ["a", "b"]).independence
    assert not ind2.valid and "below 5" in words(ind2.reason)
