"""Mixed-effects Poisson regression of word errors: known answers (issue 17)."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from scipy import integrate
from scipy.stats import norm, poisson
from statsmodels.stats.multitest import multipletests
from statsmodels.tools.numdiff import approx_hess3

from fairdesk.stats.regression.poisson_mixed import _Marginal, fit_poisson_mixed, speaker_loglik
from fairdesk.stats.regression.poisson_mixed_report import _holm
from tests.stats.regression.poisson_words import agreement_words as agreement_with_bootstrap
from tests.stats.regression.poisson_words import run_poisson_mixed


def _frame(
    rng,
    effects,
    *,
    speakers=20,
    per=15,
    sd=0.5,
    base=-1.7,
    long_group=None,
    gamma=0.0,
    contents=None,
    extra=None,
):
    """Utterances with errors ~ Poisson(N exp(base + effect + γ(duration − 4) + u))."""
    rows = []
    for g, eff in effects.items():
        lo, hi = (10, 26) if g == long_group else (5, 12)
        n = speakers * per
        si = np.repeat(np.arange(speakers), per)
        words = rng.integers(lo, hi, n)
        duration = words / rng.uniform(2.0, 3.5, n)
        eta = base + eff + gamma * (duration - 4.0) + rng.normal(0, sd, speakers)[si]
        if extra is not None:  # utterance-level gamma noise: extra-Poisson variation
            eta = eta + np.log(rng.gamma(1 / extra, extra, n))
        err = rng.poisson(words * np.exp(eta))
        cont = (
            [f"c{c}" for c in rng.integers(0, contents, n)]
            if contents
            else [f"{g}/u{i}" for i in range(n)]
        )
        rows.append(
            pd.DataFrame(
                {
                    "accent": g,
                    "speaker_id": [f"{g}/s{i}" for i in si],
                    "content_id": cont,
                    "n_words": words,
                    "n_sub": err,
                    "n_del": 0,
                    "n_ins": 0,
                    "duration": duration,
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


def _level(res, lev, var="accent"):
    g = next(g for g in res["group_variables"] if g["variable"] == var)
    return next(r for r in g["levels"] if r["level"] == lev)


# ------------------------------------------------------------------ the likelihood itself


def _brute_speaker(y, N, sigma, log_rate):
    def f(u):
        return math.exp(poisson.logpmf(y, N * np.exp(log_rate + u)).sum()) * norm.pdf(u, 0, sigma)

    lo, hi = -12 * sigma, 12 * sigma
    val, _ = integrate.quad(f, lo, hi, epsabs=0, epsrel=1e-12, limit=400, points=[0.0])
    return math.log(val)


@pytest.mark.parametrize("sigma", [0.3, 1.0, 2.0])
@pytest.mark.parametrize("n_utt", [1, 15, 60])
def test_speaker_marginal_loglik_equals_numerical_integral(sigma, n_utt):
    rng = np.random.default_rng(n_utt)
    N = rng.integers(5, 12, n_utt)
    y = rng.poisson(N * math.exp(-1.2 + 0.7))
    brute = _brute_speaker(y, N, sigma, -1.2)
    assert speaker_loglik(y, N, sigma, -1.2) == pytest.approx(brute, abs=1e-6)
    # the Laplace approximation (1 node) is visibly worse: the check can tell them apart
    if n_utt <= 15:
        assert abs(speaker_loglik(y, N, sigma, -1.2, n_quad=1) - brute) > 1e-5


def test_fit_maximises_the_exact_marginal_likelihood():
    rng = np.random.default_rng(5)
    S, per = 8, 8
    spk = np.repeat(np.arange(S), per)
    g = (spk >= S // 2).astype(float)
    N = rng.integers(5, 12, S * per)
    y = rng.poisson(N * np.exp(-1.5 + 0.4 * g + rng.normal(0, 0.6, S)[spk]))
    X = np.column_stack([np.ones_like(g), g])
    fit = fit_poisson_mixed(y, X, np.log(N), spk)

    def exact(theta):
        b0, b1, s = theta
        return sum(
            _brute_speaker(y[spk == i], N[spk == i], abs(s), b0 + b1 * g[spk == i][0])
            for i in range(S)
        )

    theta = np.array([*fit.beta, fit.sigma])
    assert exact(theta) == pytest.approx(fit.loglik, abs=1e-6)
    # the estimate is the maximum of the exact likelihood: central-difference slopes vanish
    for j in range(3):
        h = np.zeros(3)
        h[j] = 1e-4
        slope = (exact(theta + h) - exact(theta - h)) / 2e-4
        assert abs(slope) < 1e-3


def test_observed_information_equals_numerical_hessian():
    rng = np.random.default_rng(9)
    S, per = 16, 12
    spk = np.repeat(np.arange(S), per)
    x = rng.normal(size=S * per)
    N = rng.integers(5, 12, S * per)
    y = rng.poisson(N * np.exp(-1.7 + 0.2 * x + rng.normal(0, 0.5, S)[spk]))
    X = np.column_stack([np.ones(S * per), x])
    m = _Marginal(y, X, np.log(N), spk, 15)
    theta = np.array([-1.6, 0.25, 0.45])
    _, _, H, _ = m.evaluate(theta[:2], theta[2])
    num = approx_hess3(theta, lambda t: m.evaluate(t[:2], t[2], order=0)[0])
    np.testing.assert_allclose(H, num, rtol=1e-4, atol=1e-3)


def test_no_random_effect_equals_statsmodels_poisson_glm():
    rng = np.random.default_rng(11)
    df = _frame(rng, {"ref": 0.0, "a": 0.3, "b": -0.2}, speakers=10, sd=0.5)
    X = np.column_stack(
        [
            np.ones(len(df)),
            (df.accent == "a") * 1.0,
            (df.accent == "b") * 1.0,
            df.duration - df.duration.mean(),
        ]
    )
    off = np.log(df.n_words.to_numpy(float))
    glm = sm.GLM(df.n_sub, X, family=sm.families.Poisson(), offset=off).fit()
    fit = fit_poisson_mixed(df.n_sub, X, off, pd.factorize(df.speaker_id)[0], sigma=0.0)
    np.testing.assert_allclose(fit.beta, glm.params, atol=1e-5)
    np.testing.assert_allclose(fit.se_beta, glm.bse, rtol=1e-5)
    assert fit.loglik == pytest.approx(glm.llf, abs=1e-6)
    assert fit.approximation == "glm"


# ------------------------------------------------------------------ planted effects


def test_planted_rate_ratio_and_speaker_sd_recovered():
    rng = np.random.default_rng(2024)
    df = _frame(rng, {"ref": 0.0, "grp": math.log(1.5)}, speakers=40, sd=0.5)
    res = run_poisson_mixed(df, "accent", reference="ref", content_col=None)
    lev = _level(res, "grp")
    assert lev["ci_low"] <= 1.5 <= lev["ci_high"]
    assert lev["rate_ratio"] == pytest.approx(1.5, rel=0.15)
    assert lev["p_adjusted"] < 0.05
    assert res["speaker_sd"] == pytest.approx(0.5, abs=0.1)
    assert not res["speaker_sd_at_boundary"]
    assert res["speaker_sd_lr_p_value"] < 1e-6
    assert not res["overdispersion"]["overdispersed"]
    assert "adaptive Gauss-Hermite quadrature, 15 nodes" in res["approximation"]
    assert res["converged"]
    json.dumps(res, allow_nan=False)  # JSON-ready, NaN written as null


def test_no_speaker_variation_sits_on_the_boundary_and_equals_the_glm():
    rng = np.random.default_rng(4)
    df = _frame(rng, {"ref": 0.0, "grp": 0.2}, speakers=15, sd=0.0)
    res = run_poisson_mixed(df, "accent", reference="ref", content_col=None)
    glm = sm.GLM(
        df.n_sub,
        np.column_stack([np.ones(len(df)), (df.accent == "grp") * 1.0]),
        family=sm.families.Poisson(),
        offset=np.log(df.n_words.to_numpy(float)),
    ).fit()
    b_glm = float(np.asarray(glm.params)[1])
    assert res["speaker_sd"] < 0.1
    # at the boundary the fit is the GLM's exactly; just inside it, nearly
    tol = 1e-5 if res["speaker_sd_at_boundary"] else 0.02
    assert _level(res, "grp")["log_rr"] == pytest.approx(b_glm, abs=tol)


def test_nuisance_duration_is_absorbed_and_traced_in_seed_000_words():
    rng = np.random.default_rng(7)
    df = _frame(rng, {"ref": 0.0, "grp": 0.0}, speakers=30, sd=0.3, long_group="grp", gamma=0.15)
    res = run_poisson_mixed(df, "accent", ["duration"], reference="ref", content_col=None)
    lev = _level(res, "grp")
    assert lev["ci_low"] <= 1.0 <= lev["ci_high"]
    (step,) = res["tracing"]
    trace = step["levels"][0]
    assert trace["rate_ratio_before"] > 1.3 and trace["p_before"] < 0.05
    assert trace["shrink_pct"] > 50
    shrink = 100 * (1 - math.log(trace["rate_ratio_after"]) / math.log(trace["rate_ratio_before"]))
    assert trace["shrink_pct"] == pytest.approx(shrink)
    assert "once duration is included" in trace["sentence"]
    assert step["lr_p_value"] < 1e-6 and step["confounder"]
    assert any("duration confounds" in s for s in res["conclusions"])
    assert res["covariates"][0]["rate_ratio"] > 1  # per SD of duration


# ------------------------------------------------------------------ content, checks, input


def test_content_handling():
    rng = np.random.default_rng(3)
    shared = _frame(rng, {"ref": 0.0, "grp": 0.3}, speakers=8, per=10, contents=20)
    res = run_poisson_mixed(shared, "accent", reference="ref")
    assert res["content"]["handling"] == "fixed_effect"
    assert "content" in res["model"]
    assert "Crossed speaker × content random effects are not fitted" in res["content"]["reason"]
    many = _frame(rng, {"ref": 0.0, "grp": 0.3}, speakers=8, per=10, contents=70)
    assert run_poisson_mixed(many, "accent")["content"]["handling"] == "not_modelled"
    own = _frame(rng, {"ref": 0.0, "grp": 0.3}, speakers=8, per=10)
    assert run_poisson_mixed(own, "accent")["content"]["handling"] == "not_shared"
    assert run_poisson_mixed(own, "accent", content_col=None)["content"]["handling"] == "absent"


def test_error_free_content_is_left_out_exactly():
    rng = np.random.default_rng(8)
    df = _frame(rng, {"ref": 0.0, "grp": 0.3}, speakers=8, per=10, contents=10)
    df.loc[df.content_id == "c3", "n_sub"] = 0
    res = run_poisson_mixed(df, "accent", reference="ref")
    assert res["content"]["dropped_error_free_contents"] == 1
    assert res["n_utterances"] == int((df.content_id != "c3").sum())


def test_overdispersion_is_flagged():
    rng = np.random.default_rng(12)
    df = _frame(rng, {"ref": 0.0, "grp": 0.2}, speakers=15, extra=1.0)
    over = run_poisson_mixed(df, "accent", content_col=None)["overdispersion"]
    assert over["overdispersed"] and over["ratio"] > 1.2
    assert "too narrow" in over["reading"]


def test_holm_matches_statsmodels():
    p = np.random.default_rng(0).uniform(0, 0.2, 9)
    np.testing.assert_allclose(_holm(p), multipletests(p, method="holm")[1])


def test_several_levels_get_holm_across_levels():
    rng = np.random.default_rng(21)
    df = _frame(rng, {"ref": 0.0, "a": 0.5, "b": 0.0}, speakers=15)
    res = run_poisson_mixed(df, "accent", reference="ref", content_col=None)
    levels = res["group_variables"][0]["levels"]
    np.testing.assert_allclose(
        [r["p_adjusted"] for r in levels], _holm([r["p_value"] for r in levels])
    )
    assert res["group_variables"][0]["df"] == 2


def test_agreement_with_bootstrap_in_words():
    rng = np.random.default_rng(1)
    df = _frame(rng, {"ref": 0.0, "grp": 0.8}, speakers=20)
    res = run_poisson_mixed(df, "accent", reference="ref", content_col=None)
    comps = [
        {
            "metric": "wer",
            "group": "grp",
            "gap": 0.2,
            "ci_low": 0.1,
            "ci_high": 0.3,
            "p_adjusted": 0.001,
        }
    ]
    (a,) = agreement_with_bootstrap(res, comps)
    assert a["agree"] and "agree: grp is worse than ref" in a["sentence"]
    comps[0]["p_adjusted"] = 0.5
    assert not agreement_with_bootstrap(res, comps)[0]["agree"]


def test_bad_input_gets_clear_messages():
    rng = np.random.default_rng(0)
    df = _frame(rng, {"ref": 0.0, "grp": 0.3}, speakers=6, per=5)
    with pytest.raises(ValueError, match="speaker column"):
        run_poisson_mixed(df.drop(columns="speaker_id"), "accent")
    with pytest.raises(ValueError, match="not in the frame"):
        run_poisson_mixed(df, "dialect")
    with pytest.raises(ValueError, match="single level"):
        run_poisson_mixed(df[df.accent == "ref"], "accent")
    with pytest.raises(ValueError, match="Reference level"):
        run_poisson_mixed(df, "accent", reference="nope")
    bad = df.assign(n_sub=df.n_sub.astype(float))
    bad.loc[bad.index[3], "n_sub"] = 1.5
    with pytest.raises(ValueError, match="non-negative integers"):
        run_poisson_mixed(bad, "accent")
    with pytest.raises(ValueError, match="collinear"):
        run_poisson_mixed(df.assign(flag=(df.accent == "grp") * 1.0), "accent", ["flag"])
    silent = df.assign(n_sub=np.where(df.accent == "grp", 0, df.n_sub))
    with pytest.raises(ValueError, match="no word error at all"):
        run_poisson_mixed(silent, "accent", reference="grp")
    three = pd.concat([df, silent[silent.accent == "grp"].assign(accent="quiet")])
    res = run_poisson_mixed(three, "accent", reference="ref", content_col=None)
    assert [r["level"] for r in res["group_variables"][0]["levels"]] == ["grp"]
    assert any("'quiet'" in c and "left out" in c for c in res["conclusions"])
    res = run_poisson_mixed(
        df.assign(n_words=df.n_words.where(df.index != 0, 0)), "accent", content_col=None
    )
    assert res["n_utterances"] == len(df) - 1 and res["dropped"]


def test_small_group_gets_welch_df_and_inflated_standard_error():
    rng = np.random.default_rng(31)
    big = _frame(rng, {"ref": 0.0}, speakers=30)
    small = _frame(rng, {"few": 0.4}, speakers=5)
    df = pd.concat([big, small], ignore_index=True)
    res = run_poisson_mixed(df, "accent", reference="ref", content_col=None)
    lev = _level(res, "few")
    assert lev["df"] == 4  # min(5, 30) - 1
    X = np.column_stack([np.ones(len(df)), (df.accent == "few") * 1.0])
    fit = fit_poisson_mixed(
        df.n_sub, X, np.log(df.n_words.to_numpy(float)), pd.factorize(df.speaker_id)[0]
    )
    assert lev["se"] == pytest.approx(fit.se_beta[1] * math.sqrt(35 / 33), rel=1e-6)
    half = math.log(lev["ci_high"] / lev["ci_low"]) / 2
    assert half == pytest.approx(2.776445 * lev["se"], rel=1e-5)  # t(4) quantile
