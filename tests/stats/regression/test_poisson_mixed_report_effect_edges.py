"""One column's Wald inference (_Model.effect) at its edges, on a model with known numbers."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from fairdesk.stats.regression.poisson_mixed_report import _Model
from tests.stats.regression.poisson_words import run_poisson_mixed

KEYS = ["log_rr", "se", "df", "rate_ratio", "ci_low", "ci_high", "p_value", "p_log10"]


class _Fit:
    def __init__(self, beta, se):
        self.beta, self.se_beta = np.asarray(beta, float), np.asarray(se, float)


def _model(beta, se, df, between, n_speakers=12, df_between=10):
    m = _Model.__new__(_Model)
    m.fit = _Fit(beta, se)
    m.df = np.asarray(df, float)
    m.between = np.asarray(between, bool)
    m.n_speakers, m.df_between = n_speakers, df_between
    return m


def _no_test(b, se, df):
    return {
        "log_rr": b,
        "se": se,
        "df": df,
        "rate_ratio": math.exp(b),
        "ci_low": math.nan,
        "ci_high": math.nan,
        "p_value": math.nan,
        "p_log10": math.nan,
    }


def _same(effect, want):
    """The typed effect against the dict the report wrote (an infinite df as None)."""
    got = {k: getattr(effect, k) for k in KEYS}
    got["df"] = None if got["df"] == math.inf else got["df"]
    for k in KEYS:
        g, w = got[k], want[k]
        if isinstance(w, float) and math.isnan(w):
            assert isinstance(g, float) and math.isnan(g), k
        elif k == "p_log10":  # the log survival function's, against log10 of the p itself
            assert g == pytest.approx(w, rel=1e-12, abs=1e-15), k
        else:
            assert g == w and type(g) is type(w), k


@pytest.mark.parametrize("se", [0.0, math.inf, math.nan])
def test_no_usable_standard_error_gives_no_interval_or_test(se):
    m = _model([0.4], [se], [math.inf], [False])
    _same(m.effect(0), _no_test(0.4, se, None))


@pytest.mark.parametrize("se", [0.125, 2.0])
def test_within_speaker_effect_uses_the_normal_and_no_inflation(se):
    m = _model([0.0, 0.9], [0.1, se], [10.0, math.inf], [True, False])
    q = stats.norm.ppf(0.975)
    _same(
        m.effect(1),
        {
            "log_rr": 0.9,
            "se": se,
            "df": None,
            "rate_ratio": math.exp(0.9),
            "ci_low": math.exp(0.9 - q * se),
            "ci_high": math.exp(0.9 + q * se),
            "p_value": float(2 * stats.norm.sf(0.9 / se)),
            "p_log10": math.log10(2 * stats.norm.sf(0.9 / se)),
        },
    )


def test_between_speaker_effect_on_one_degree_of_freedom_gets_an_interval():
    # a level with 2 speakers: Welch df 1, t quantile 12.706; SE × sqrt(12 / 10)
    m = _model([0.0, 0.5], [0.1, 0.2], [10.0, 1.0], [True, True])
    se = 0.2 * math.sqrt(12 / 10)
    q = stats.t.ppf(0.975, 1)
    assert q == pytest.approx(12.706204736, rel=1e-9)
    _same(
        m.effect(1),
        {
            "log_rr": 0.5,
            "se": se,
            "df": 1.0,
            "rate_ratio": math.exp(0.5),
            "ci_low": math.exp(0.5 - q * se),
            "ci_high": math.exp(0.5 + q * se),
            "p_value": float(2 * stats.t.sf(0.5 / se, 1)),
            "p_log10": math.log10(2 * stats.t.sf(0.5 / se, 1)),
        },
    )


def test_no_degree_of_freedom_gives_no_test_but_the_inflated_standard_error():
    # 3 speakers, 2 between-speaker columns: df_between = 1, SE × sqrt(3 / 1); the level
    # with a single speaker has Welch df 0
    m = _model([0.0, 0.5], [0.1, 0.2], [1.0, 0.0], [True, True], n_speakers=3, df_between=1)
    _same(m.effect(1), _no_test(0.5, 0.2 * math.sqrt(3.0), 0.0))


def test_as_many_between_effects_as_speakers_leaves_the_standard_error_alone():
    m = _model([0.0, 0.5], [0.1, 0.2], [0.0, 0.0], [True, True], n_speakers=2, df_between=0)
    _same(m.effect(1), _no_test(0.5, 0.2, 0.0))


def test_one_speaker_per_level_is_reported_without_interval_or_test():
    rng = np.random.default_rng(3)
    rows = []
    for g, spk in (("ref", "a"), ("grp", "b")):
        words = rng.integers(5, 12, 20)
        rows.append(
            pd.DataFrame(
                {
                    "accent": g,
                    "speaker_id": spk,
                    "n_words": words,
                    "n_sub": rng.poisson(words * 0.2),
                    "n_del": 0,
                    "n_ins": 0,
                }
            )
        )
    df = pd.concat(rows, ignore_index=True)
    res = run_poisson_mixed(df, "accent", reference="ref", content_col=None)
    row = res["group_variables"][0]["levels"][0]
    assert list(row) == [
        "level",
        "n_utterances",
        "n_speakers",
        "wer",
        *KEYS,
        "p_adjusted",
        "p_adjusted_log10",
    ]
    assert row["df"] == 0.0 and row["n_speakers"] == 1
    assert row["ci_low"] is None and row["ci_high"] is None and row["p_value"] is None
    assert row["p_adjusted"] is None and row["p_log10"] is None
    assert row["p_adjusted_log10"] is None
    assert row["rate_ratio"] == pytest.approx(math.exp(row["log_rr"]), rel=1e-12)
    # no speaker variation can be told from the groups with one speaker each; the rate ratio
    # is the ratio of the two WERs
    wer = {"ref": res["group_variables"][0]["reference_row"]["wer"], "grp": row["wer"]}
    assert row["rate_ratio"] == pytest.approx(wer["grp"] / wer["ref"], rel=1e-5)
    assert (
        f"grp vs ref: no interval or test (rate ratio {row['rate_ratio']:.2f}); a side "
        "has fewer than 2 speakers."
    ) in res["conclusions"]
