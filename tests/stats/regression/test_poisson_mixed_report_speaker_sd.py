"""The report's speaker SD, its standard error and its test against 0, against direct fits;
the categorical covariate entry; the inference line with one between-speaker df."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from fairdesk.stats.regression.poisson_mixed import fit_poisson_mixed
from tests.stats.regression.poisson_words import run_poisson_mixed


def _frame(seed, spk=6, per=5, sd=0.25):
    rng = np.random.default_rng(seed)
    rows = []
    for g in ("ref", "grp"):
        si = np.repeat(np.arange(spk), per)
        words = rng.integers(5, 12, si.size)
        eta = -1.5 + rng.normal(0, sd, spk)[si]
        rows.append(
            pd.DataFrame(
                {
                    "accent": g,
                    "speaker_id": [f"{g}{i}" for i in si],
                    "n_words": words,
                    "n_sub": rng.poisson(words * np.exp(eta)),
                    "n_del": 0,
                    "n_ins": 0,
                }
            )
        )
    return pd.concat(rows, ignore_index=True)


def _fits(df):
    X = np.column_stack([np.ones(len(df)), (df.accent == "grp").to_numpy(float)])
    args = (
        df.n_sub.to_numpy(float),
        X,
        np.log(df.n_words.to_numpy(float)),
        pd.factorize(df.speaker_id)[0],
    )
    return fit_poisson_mixed(*args), fit_poisson_mixed(*args, sigma=0.0)


def test_small_speaker_variation_is_tested_with_the_halved_chi2():
    df = _frame(7)  # an LR statistic below 1, the SD inside (0, ∞)
    res = run_poisson_mixed(df, "accent", reference="ref", content_col=None)
    fit, glm = _fits(df)
    lr = 2 * (fit.loglik - glm.loglik)
    assert 0 < lr < 1 and not fit.boundary
    assert res["speaker_sd"] == pytest.approx(fit.sigma, rel=1e-6)
    assert res["speaker_sd_at_boundary"] is False
    assert res["speaker_sd_lr_stat"] == pytest.approx(lr, rel=1e-5)
    assert res["speaker_sd_lr_p_value"] == pytest.approx(0.5 * stats.chi2.sf(lr, 1), rel=1e-5)
    assert fit.cov.shape == (3, 3)
    assert res["speaker_sd_se"] == pytest.approx(math.sqrt(fit.cov[2, 2]), rel=1e-5)


def test_no_speaker_variation_has_p_one_and_no_standard_error():
    df = _frame(1, sd=0.0)
    res = run_poisson_mixed(df, "accent", reference="ref", content_col=None)
    assert res["speaker_sd_at_boundary"] is True and res["speaker_sd"] == 0.0
    assert res["speaker_sd_lr_stat"] == 0.0
    assert res["speaker_sd_lr_p_value"] == 1.0 and res["speaker_sd_lr_p_log10"] == 0.0
    assert res["speaker_sd_se"] is None


def test_categorical_covariate_entry_names_its_level_and_reference():
    df = _frame(7)
    df["mic"] = np.where(np.arange(len(df)) % 3 == 0, "phone", "headset")
    res = run_poisson_mixed(df, "accent", ["mic"], reference="ref", content_col=None)
    (entry,) = res["covariates"]
    assert entry["covariate"] == "mic" and entry["kind"] == "categorical"
    assert entry["level"] == "phone" and entry["reference"] == "headset"
    assert "per" not in entry and "sd" not in entry


def test_inference_line_with_one_between_speaker_df():
    # 3 speakers, intercept + one level: S - p_between = 1, factor sqrt(3 / 1)
    df = _frame(2, spk=2, per=6)
    df = df[df.speaker_id != "grp1"]
    res = run_poisson_mixed(df, "accent", reference="ref", content_col=None)
    assert res["n_speakers"] == 3
    assert "between-speaker effects)) = × 1.732, " in res["inference"]
