"""The report's model fits: degrees of freedom per column, SE inflation, LR tests, n_quad,
alpha and collinearity refusals, design labels; against direct fits of fit_poisson_mixed."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from fairdesk.stats.regression.poisson_mixed import PreparedData, fit_poisson_mixed
from fairdesk.stats.regression.poisson_mixed_report import _Model
from tests.stats.regression.poisson_words import run_poisson_mixed

ERR = ("n_sub", "n_del", "n_ins")


def _frame(spec, seed, per=6, sd=0.3):
    """spec: level -> (speakers, log rate effect). Per speaker an age and a gender (constant
    within the speaker), per utterance a pace and a device; errors depend on none of them."""
    rng, dev_rng = np.random.default_rng(seed), np.random.default_rng(seed + 1000)
    rows = []
    for g, (n_spk, eff) in spec.items():
        si = np.repeat(np.arange(n_spk), per)
        words = rng.integers(5, 12, si.size)
        u = rng.normal(0, sd, n_spk)[si]
        rows.append(
            pd.DataFrame(
                {
                    "accent": g,
                    "speaker_id": [f"{g}{i}" for i in si],
                    "n_words": words,
                    "n_sub": rng.poisson(words * np.exp(-1.6 + eff + u)),
                    "n_del": 0,
                    "n_ins": 0,
                    "age": rng.normal(40, 10, n_spk)[si],
                    "pace": rng.normal(0, 1, si.size),
                    "gender": np.where(np.arange(n_spk) % 3 == 0, "f", "m")[si],
                    "device": dev_rng.choice(["phone", "laptop"], si.size, p=[0.6, 0.4]),
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


def _std(x):
    x = np.asarray(x, float)
    return (x - x.mean()) / x.std()


def _direct(df, cols, **kw):
    X = np.column_stack([np.ones(len(df)), *cols])
    return fit_poisson_mixed(
        df.n_sub.to_numpy(float),
        X,
        np.log(df.n_words.to_numpy(float)),
        pd.factorize(df.speaker_id)[0],
        **kw,
    )


def test_small_reference_group_sets_the_welch_degrees_of_freedom():
    df = _frame({"ref": (4, 0.0), "big": (12, 0.3)}, seed=2)
    res = run_poisson_mixed(df, "accent", reference="ref", content_col=None)
    lev = res["group_variables"][0]["levels"][0]
    assert lev["level"] == "big" and lev["n_speakers"] == 12
    assert lev["df"] == 3.0  # min(12, 4) - 1
    fit = _direct(df, [(df.accent == "big").to_numpy(float)])
    se = fit.se_beta[1] * math.sqrt(16 / 14)
    assert lev["se"] == pytest.approx(se, rel=1e-6)
    q = stats.t.ppf(0.975, 3)
    assert lev["ci_high"] == pytest.approx(math.exp(fit.beta[1] + q * se), rel=1e-6)
    assert lev["p_value"] == pytest.approx(2 * stats.t.sf(abs(fit.beta[1]) / se, 3), rel=1e-6)


def test_speaker_level_and_utterance_level_covariates():
    df = _frame({"ref": (10, 0.0), "grp": (10, 0.2)}, seed=4)
    res = run_poisson_mixed(
        df, "accent", ["age", "pace", "device"], reference="ref", content_col=None
    )
    cov = {c["covariate"]: c for c in res["covariates"]}
    other = df.device.value_counts().index[1]
    fit = _direct(
        df,
        [
            (df.accent == "grp").to_numpy(float),
            _std(df.age),
            _std(df.pace),
            (df.device == other).to_numpy(float),
        ],
    )
    # age is constant within speakers: t on S - p_between = 20 - 3 df, SE × sqrt(20 / 17)
    se_age = fit.se_beta[2] * math.sqrt(20 / 17)
    assert cov["age"]["df"] == 17.0
    assert cov["age"]["se"] == pytest.approx(se_age, rel=1e-6)
    assert cov["age"]["p_value"] == pytest.approx(
        2 * stats.t.sf(abs(fit.beta[2]) / se_age, 17), rel=1e-6
    )
    # pace varies within speakers: normal, no inflation
    assert cov["pace"]["df"] is None
    assert cov["pace"]["se"] == pytest.approx(fit.se_beta[3], rel=1e-6)
    assert cov["pace"]["p_value"] == pytest.approx(
        2 * stats.norm.sf(abs(fit.beta[3]) / fit.se_beta[3]), rel=1e-6
    )
    # so does the device (a 0/1 column whose deviations from a speaker's mean stay below 1)
    assert cov["device"]["level"] == other and cov["device"]["df"] is None
    assert cov["device"]["se"] == pytest.approx(fit.se_beta[4], rel=1e-6)
    lev = res["group_variables"][0]["levels"][0]
    assert lev["df"] == 9.0
    assert lev["se"] == pytest.approx(fit.se_beta[1] * math.sqrt(20 / 17), rel=1e-6)


def test_model_without_the_first_group_variable_keeps_welch_df_of_the_others():
    # 24 speakers; gender f on 8 of them, m on 16: Welch df min(8, 16) - 1 = 7
    df = _frame({"ref": (12, 0.0), "grp": (12, 0.2)}, seed=5)
    data = PreparedData(
        df, ["accent", "gender"], None, None, "speaker_id", None, ERR, "n_words", 50
    )
    m = _Model(data, ["gender"], 15)
    assert m.labels == [("(intercept)", ""), ("gender", "f")]
    assert data.levels["gender"] == ["m", "f"]
    assert m.n_speakers == 24 and m.df_between == 22
    assert list(m.df) == [22.0, 7.0]
    assert m.effect(1).df == 7.0


def test_design_labels_intercept_then_term_levels():
    df = _frame({"ref": (5, 0.0), "grp": (5, 0.2)}, seed=6)
    data = PreparedData(df, ["accent"], ["pace"], "ref", "speaker_id", None, ERR, "n_words", 50)
    X, labels = data.design(["accent", "pace"])
    assert labels == [("(intercept)", ""), ("accent", "grp"), ("pace", "pace")]
    assert np.array_equal(X[:, 0], np.ones(len(df)))
    assert np.array_equal(X[:, 1], (df.accent == "grp").to_numpy(float))


def test_group_lr_test_against_direct_fits():
    df = _frame({"ref": (8, 0.0), "grp": (8, 0.0)}, seed=13)
    res = run_poisson_mixed(df, "accent", reference="ref", content_col=None)
    g = res["group_variables"][0]
    full = _direct(df, [(df.accent == "grp").to_numpy(float)])
    reduced = _direct(df, [])
    stat = 2 * (full.loglik - reduced.loglik)
    assert 0 < stat < 1  # a small statistic is reported as it is
    assert g["lr_stat"] == pytest.approx(stat, rel=1e-6)
    assert g["df"] == 1
    assert g["lr_p_value"] == pytest.approx(stats.chi2.sf(stat, 1), rel=1e-6)


def test_laplace_approximation_is_used_when_asked():
    df = _frame({"ref": (6, 0.0), "grp": (6, 0.4)}, seed=8, sd=0.6)
    res = run_poisson_mixed(df, "accent", reference="ref", content_col=None, n_quad=1)
    assert res["approximation"] == (
        "maximum likelihood, Laplace approximation (as lme4 glmer, nAGQ = 1)"
    )
    fit = _direct(df, [(df.accent == "grp").to_numpy(float)], n_quad=1)
    aghq = _direct(df, [(df.accent == "grp").to_numpy(float)])
    assert res["loglik"] == pytest.approx(fit.loglik, rel=1e-9)
    assert abs(fit.loglik - aghq.loglik) > 1e-6
    assert res["speaker_sd"] == pytest.approx(fit.sigma, rel=1e-5)


@pytest.mark.parametrize("alpha", [0, 0.0, 1, 1.0, 1.5, -0.1])
def test_alpha_outside_the_open_unit_interval_is_refused(alpha):
    df = _frame({"ref": (3, 0.0), "grp": (3, 0.0)}, seed=1)
    with pytest.raises(ValueError) as err:
        run_poisson_mixed(df, "accent", content_col=None, alpha=alpha)
    assert str(err.value) == f"alpha must be between 0 and 1, got {alpha}."


def test_collinear_covariate_is_refused_word_for_word():
    df = _frame({"ref": (4, 0.0), "grp": (4, 0.3)}, seed=3)
    df["region"] = df.accent.map({"ref": "north", "grp": "south"})
    with pytest.raises(ValueError) as err:
        run_poisson_mixed(df, "accent", ["region"], reference="ref", content_col=None)
    assert str(err.value) == (
        "The terms ['accent', 'region'] are collinear (design rank 2 < 3 columns): a "
        "covariate is determined by the group variables or by another covariate (e.g. "
        "constant within every group). Leave it out."
    )
