"""Adjustment of one variable on another and the interaction test: the refusals word for word
with their fields, the test's name per method, the clustered unadjusted and interaction
fits against statsmodels, three variables, and the Wald conclusion at p exactly alpha."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
import statsmodels.formula.api as smf
from scipy import stats

from fairdesk.presentation.notices import notice_text
from fairdesk.stats.regression import run_regression
from tests.stats.regression.conftest import confounded_frame, texts, words

TOL = 1e-6


def _c(var: str, ref: str) -> str:
    return f"C({var}, Treatment(reference='{ref}'))"


def _pair(res, a: str, b: str, clustered: bool = False):
    adjs = res.clustered.adjustments if clustered else res.adjustments
    return next(x for x in adjs if (x.variable, x.adjusted_on) == (a, b))


def _assert_failed(adj, n: int, problem: str, test: str = "lr") -> None:
    assert math.isnan(adj.lr_stat) and math.isnan(adj.p_value)
    assert adj.df == 0
    assert adj.confounder is False
    assert adj.or_change_pct == {}
    assert adj.levels == () and adj.unadjusted_levels == () and adj.changed_levels == ()
    assert adj.n == n and adj.test == test
    assert adj.problem is not None and notice_text(adj.problem) == problem
    d = adj.to_dict(detail=True, words=notice_text)
    assert d["df"] == 0 and d["confounder"] is False and d["problem"] == problem


def _alternating(n: int) -> np.ndarray:
    return np.arange(n) % 2


def test_single_level_where_the_other_is_known_names_both_variables():
    # a = y only on rows where b is missing: where b is known, a is all x (its reference)
    a = ["x"] * 12 + ["y"] * 6
    b = ["p", "q"] * 6 + [None] * 6
    frame = pd.DataFrame({"a": a, "b": b, "em": _alternating(18)})
    res = run_regression(frame, "em", ["a", "b"])
    _assert_failed(_pair(res, "a", "b"), 12, "a has a single level where b is known")
    # b adjusted on a: b is fine, then a (the other one here) has the single level
    _assert_failed(_pair(res, "b", "a"), 12, "a has a single level where b is known")


def test_single_level_of_the_adjusting_variable():
    # b = q only where a is missing: b has the single level p where a is known, whichever
    # of the two is adjusted on the other
    a = ["x", "y"] * 6 + [None] * 6
    b = ["p"] * 12 + ["q"] * 6
    frame = pd.DataFrame({"a": a, "b": b, "em": _alternating(18)})
    res = run_regression(frame, "em", ["a", "b"])
    _assert_failed(_pair(res, "a", "b"), 12, "b has a single level where a is known")
    _assert_failed(_pair(res, "b", "a"), 12, "b has a single level where a is known")


def test_reference_level_missing_where_the_other_is_known():
    # a's reference x appears only where b is missing; a keeps two other levels there
    a = ["x"] * 20 + ["y", "z"] * 6
    b = [None] * 20 + ["p", "p", "q", "q"] * 3
    frame = pd.DataFrame({"a": a, "b": b, "em": _alternating(32)})
    res = run_regression(frame, "em", ["a", "b"], references={"a": "x"})
    why = "the reference level 'x' of a has no row where b is known"
    _assert_failed(_pair(res, "a", "b"), 12, why)
    _assert_failed(_pair(res, "b", "a"), 12, why)


def test_separation_in_the_adjusted_model_is_reported_with_its_level(small_frame):
    frame = small_frame.copy()
    frame.loc[frame["accent"] == "ng", "em"] = 1
    k = int((frame["accent"] == "ng").sum())
    res = run_regression(frame, "em", ["age", "accent"])
    why = (
        f"perfect separation: accent=ng has outcome = 1 on all {k} rows, so its odds ratio "
        "is infinite; merge or drop that level"
    )
    _assert_failed(_pair(res, "age", "accent"), len(frame), why)
    _assert_failed(_pair(res, "accent", "age"), len(frame), why)


def test_collinear_variables_message_word_for_word(small_frame):
    frame = small_frame.assign(band=small_frame["age"].map(lambda a: f"band {a}"))
    res = run_regression(frame, "em", ["age", "band"])
    for a, b in (("age", "band"), ("band", "age")):
        _assert_failed(
            _pair(res, a, b),
            len(frame),
            "age and band are collinear (one determines the other), so one cannot be "
            "adjusted on the other",
        )


def test_test_name_is_lr_for_plain_and_wald_for_clustered(small_frame):
    res = run_regression(small_frame, "em", ["age", "accent"], cluster="speaker_id")
    assert [a.test for a in res.adjustments] == ["lr", "lr"]
    assert [a.test for a in res.clustered.adjustments] == ["wald", "wald"]
    assert res.adjustments[0].to_dict(detail=True)["test"] == "lr"


def test_clustered_unadjusted_levels_use_the_clustered_covariance(small_frame):
    res = run_regression(small_frame, "em", ["age", "accent"], cluster="speaker_id")
    refs = {u.variable: u.reference for u in res.univariate}
    groups = pd.factorize(small_frame["speaker_id"])[0]
    ca = _c("age", refs["age"])
    fit = smf.logit(f"em ~ {ca}", small_frame).fit(
        disp=0, cov_type="cluster", cov_kwds={"groups": groups}
    )
    adj = _pair(res, "age", "accent", clustered=True)
    assert [lev.level for lev in adj.unadjusted_levels] == ["18-29", "60+"]
    for lev in adj.unadjusted_levels:
        name = f"{ca}[T.{lev.level}]"
        assert lev.odds_ratio == pytest.approx(np.exp(fit.params[name]), rel=TOL)
        assert lev.p_value == pytest.approx(fit.pvalues[name], rel=TOL, abs=1e-12)
        assert lev.ci_low == pytest.approx(np.exp(fit.conf_int().loc[name, 0]), rel=TOL)
    plain = _pair(res, "age", "accent")
    # the plain unadjusted p-values differ from the clustered ones
    assert all(
        abs(p.p_value - c.p_value) > 1e-4
        for p, c in zip(plain.unadjusted_levels, adj.unadjusted_levels, strict=True)
    )


def test_clustered_interaction_is_a_wald_test_with_the_clustered_covariance(small_frame):
    res = run_regression(
        small_frame, "em", ["age", "accent"], cluster="speaker_id", interactions=True
    )
    refs = {u.variable: u.reference for u in res.univariate}
    groups = pd.factorize(small_frame["speaker_id"])[0]
    ca, cb = _c("age", refs["age"]), _c("accent", refs["accent"])
    fit = smf.logit(f"em ~ {ca} * {cb}", small_frame).fit(
        disp=0, cov_type="cluster", cov_kwds={"groups": groups}
    )
    inter = [k for k in fit.params.index if ":" in k]
    assert len(inter) == 6
    b = fit.params[inter].to_numpy()
    v = fit.cov_params().loc[inter, inter].to_numpy()
    stat = float(b @ np.linalg.solve(v, b))
    for pair in (("age", "accent"), ("accent", "age")):
        adj = _pair(res, *pair, clustered=True)
        assert adj.interaction_problem is None
        assert adj.interaction_df == 6
        assert adj.interaction_lr_stat == pytest.approx(stat, rel=TOL)
        assert adj.interaction_p_value == pytest.approx(stats.chi2.sf(stat, 6), rel=TOL)
    # the plain one is the LR test (a different number)
    plain = _pair(res, "age", "accent")
    assert abs(plain.interaction_lr_stat - stat) > 1e-3


def test_three_variables_each_pair_has_its_own_adjusted_and_interaction_models(small_frame):
    rng = np.random.default_rng(3)
    frame = small_frame.assign(mic=rng.choice(["a", "b"], len(small_frame)))
    variables = ["age", "accent", "mic"]
    res = run_regression(frame, "em", variables, interactions=True)
    refs = {u.variable: u.reference for u in res.univariate}
    terms = {v: _c(v, refs[v]) for v in variables}
    levels = {"age": 3, "accent": 4, "mic": 2}
    single = {v: smf.logit(f"em ~ {terms[v]}", frame).fit(disp=0) for v in variables}
    assert len(res.adjustments) == 6
    for adj in res.adjustments:
        a, b = adj.variable, adj.adjusted_on
        both = smf.logit(f"em ~ {terms[a]} + {terms[b]}", frame).fit(disp=0)
        inter = smf.logit(f"em ~ {terms[a]} * {terms[b]}", frame).fit(disp=0)
        lr = 2 * (both.llf - single[a].llf)
        assert adj.problem is None
        assert adj.df == levels[b] - 1
        assert adj.lr_stat == pytest.approx(lr, rel=TOL, abs=TOL)
        assert adj.p_value == pytest.approx(stats.chi2.sf(lr, levels[b] - 1), rel=TOL)
        for lev in adj.levels:
            name = f"{terms[a]}[T.{lev.level}]"
            assert lev.odds_ratio == pytest.approx(np.exp(both.params[name]), rel=TOL)
        df_int = (levels[a] - 1) * (levels[b] - 1)
        lr_int = 2 * (inter.llf - both.llf)
        assert adj.interaction_problem is None
        assert adj.interaction_df == df_int
        assert adj.interaction_lr_stat == pytest.approx(lr_int, rel=TOL, abs=TOL)
        assert adj.interaction_p_value == pytest.approx(stats.chi2.sf(lr_int, df_int), rel=TOL)


def test_confounder_needs_both_a_significant_adjustment_and_a_changed_level(small_frame):
    frame = confounded_frame(5, 300)[["em", "gender", "region"]]
    refs = {"gender": "female", "region": "east"}
    cg, cr = _c("gender", refs["gender"]), _c("region", refs["region"])
    one = smf.logit(f"em ~ {cg}", frame).fit(disp=0)
    two = smf.logit(f"em ~ {cg} + {cr}", frame).fit(disp=0)
    lr_p = stats.chi2.sf(2 * (two.llf - one.llf), 3)
    name = f"{cg}[T.male]"
    # male's Wald p moves from 0.005 to 0.25, the LR test of region gives p = 0.055
    assert one.pvalues[name] < 0.05 < lr_p < 0.06 < two.pvalues[name]
    for alpha, confounder in ((0.05, False), (0.06, True)):
        res = run_regression(frame, "em", ["gender", "region"], references=refs, alpha=alpha)
        adj = _pair(res, "gender", "region")
        assert adj.p_value == pytest.approx(lr_p, rel=TOL)
        assert adj.changed_levels == ("male",)
        assert adj.confounder is confounder
    # the LR p-value exactly at alpha: not significant, so no confounder
    res = run_regression(frame, "em", ["gender", "region"], references=refs, alpha=adj.p_value)
    adj = _pair(res, "gender", "region")
    assert adj.changed_levels == ("male",) and adj.confounder is False
    # significant adjustment, no level changed: no confounder either
    adj = _pair(run_regression(small_frame, "em", ["age", "accent"]), "age", "accent")
    assert adj.p_value < 0.05 and adj.changed_levels == () and adj.confounder is False


@pytest.mark.parametrize("which", ["unadjusted", "adjusted"])
def test_p_value_equal_to_alpha_is_not_significant_in_either_model(small_frame, which):
    base = _pair(run_regression(small_frame, "em", ["age", "accent"]), "age", "accent")
    pick = base.unadjusted_levels if which == "unadjusted" else base.levels
    lev = next(x for x in pick if x.level == "18-29")
    alpha = lev.p_value  # exactly the p-value of 18-29 in one of the two models
    adj = _pair(run_regression(small_frame, "em", ["age", "accent"], alpha=alpha), "age", "accent")
    p1 = next(x.p_value for x in adj.unadjusted_levels if x.level == "18-29")
    p2 = next(x.p_value for x in adj.levels if x.level == "18-29")
    assert (p1 if which == "unadjusted" else p2) == alpha
    other = p2 if which == "unadjusted" else p1
    assert other != alpha
    # p == alpha is "not significant"; the level changed only if the other p is below alpha
    assert ("18-29" in adj.changed_levels) == (other < alpha)


def test_interaction_without_an_estimable_term():
    # no row has a = x and b = y: the only interaction cell is empty
    a = ["r"] * 20 + ["x"] * 20 + ["r"] * 20
    b = ["s"] * 20 + ["s"] * 20 + ["y"] * 20
    frame = pd.DataFrame({"a": a, "b": b, "em": _alternating(60)})
    res = run_regression(
        frame, "em", ["a", "b"], references={"a": "r", "b": "s"}, interactions=True
    )
    for adj in res.adjustments:
        assert adj.problem is None and adj.df == 1
        assert (
            words(adj.interaction_problem)
            == "no interaction term is estimable (too many empty cells)"
        )
        assert adj.interaction_df == 0
        assert math.isnan(adj.interaction_lr_stat) and math.isnan(adj.interaction_p_value)
        d = adj.to_dict(detail=True, words=notice_text)
        assert d["interaction_df"] == 0 and d["interaction_problem"] == words(
            adj.interaction_problem
        )
    assert "a × b: no interaction term is estimable (too many empty cells)" in texts(res.problems)


def test_interaction_model_that_runs_off_to_infinity_is_reported():
    # word-error rates with logits 0, 7, 7 and -7 in the four cells: the additive model fits,
    # the interaction's coefficient is about -21, beyond the |20| the fit accepts
    cells = [
        ("r", "s", 1000, 500),
        ("x", "s", 100000, 99909),
        ("r", "y", 100000, 99909),
        ("x", "y", 1000, 1),
    ]
    frame = pd.DataFrame(
        [c for c in cells for _ in range(2)], columns=["a", "b", "n_words", "n_errors"]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # statsmodels warns of the near-separation
        glm = smf.glm(
            "n_errors + I(n_words - n_errors) ~ C(a) * C(b)", frame, family=sm.families.Binomial()
        ).fit()
    assert glm.params["C(a)[T.x]:C(b)[T.y]"] < -20
    res = run_regression(
        frame,
        "wer",
        ["a", "b"],
        references={"a": "r", "b": "s"},
        binomial=("n_errors", "n_words"),
        interactions=True,
    )
    why = (
        "interaction model: the model did not converge (coefficients ran off to infinity: "
        "quasi-complete separation or too few rows per level); merge sparse levels"
    )
    for adj in res.adjustments:
        assert adj.problem is None and np.isfinite(adj.lr_stat)
        assert words(adj.interaction_problem) == why
        assert adj.interaction_df == 0
        assert math.isnan(adj.interaction_lr_stat) and math.isnan(adj.interaction_p_value)
