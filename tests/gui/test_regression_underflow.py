"""The GUI's regression and model-based tables show a p-value that underflowed to 0.0 as
``< 1e-300 (log10 p = …)`` (issue 28), through the shared formatter; without its logarithm
(a result stored before ``p_log10``) as ``< 1e-300``."""

from __future__ import annotations

import math

from fairdesk.gui.results.model_based_view import rate_rows
from fairdesk.gui.results.regression_panel import odds_rows
from fairdesk.jobs.regression_result import RegressionRun
from fairdesk.stats.regression import RegressionResult


def _level(p_log10=None, **kw):
    lev = {"level": "Mid-Atlantic", "odds_ratio": 3.52, "ci_low": 3.37, "ci_high": 3.68}
    lev.update(p_value=0.0, **kw)
    if p_log10 is not None:
        lev["p_log10"] = p_log10
    return lev


def test_odds_rows_show_the_floor_with_its_logarithm():
    result = {
        "univariate": [
            {"variable": "dialectal_region", "reference": "Asian", "levels": [_level(-671.86)]}
        ],
        "clustered": {
            "univariate": [{"variable": "dialectal_region", "levels": [_level(-686.79)]}]
        },
    }
    (row,) = odds_rows(RegressionResult.from_json(result))
    assert row[:2] == ["dialectal_region", "Mid-Atlantic vs Asian"]
    assert row[4] == "< 1e-300 (log10 p = -671.9)"
    assert row[7] == "< 1e-300 (log10 p = -686.8)"
    assert "e+00" not in " ".join(row)


def test_a_result_stored_before_p_log10_reads_the_floor():
    stored = {
        "request": {"family": "logit"},
        "result": {
            "univariate": [
                {
                    "variable": "dialectal_region",
                    "reference": "Asian",
                    "llr_p_value": 0.0,
                    "levels": [_level(), {**_level(), "level": "Southern", "p_value": 1e-14}],
                }
            ]
        },
    }
    run = RegressionRun.from_json(stored)
    assert isinstance(run.result, RegressionResult)
    (u,) = run.result.univariate
    assert math.isnan(u.llr_p_log10) and math.isnan(u.levels[0].p_log10)
    assert u.levels[1].p_log10 == -14.0
    rows = odds_rows(run.result)
    assert [r[4] for r in rows] == ["< 1e-300", "< 0.001"]


def test_model_based_rows_show_the_holm_p_with_its_logarithm():
    from fairdesk.jobs.result_parts import ModelBasedFit

    fit = ModelBasedFit.from_json(
        {
            "group_variables": [
                {
                    "variable": "accent",
                    "reference": "us",
                    "levels": [
                        {
                            "level": "scot",
                            "rate_ratio": 5.0,
                            "ci_low": 4.0,
                            "ci_high": 6.0,
                            "p_value": 0.0,
                            "p_log10": -420.0,
                            "p_adjusted": 0.0,
                            "p_adjusted_log10": -419.7,
                            "n_speakers": 40,
                            "wer": 0.3,
                        }
                    ],
                }
            ]
        }
    )
    (row,) = rate_rows({"accent": fit})
    assert row[4:6] == ["< 1e-300 (log10 p = -420.0)", "< 1e-300 (log10 p = -419.7)"]
