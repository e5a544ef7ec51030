"""What statsmodels reports about a fit reaches the user: a fit it flags as not converged
is refused with the convergence message (even with finite, moderate coefficients), and a
fit it cannot compute is refused with the error's class and text."""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm

from fairdesk.stats.regression import run_regression
from tests.stats.regression.conftest import words

NOT_CONVERGED = (
    "the model did not converge (coefficients ran off to infinity: quasi-complete "
    "separation or too few rows per level); merge sparse levels"
)


def test_a_logit_fit_flagged_not_converged_is_refused(small_frame, monkeypatch):
    real = sm.Logit.fit

    def flagged(self, *args, **kwargs):
        res = real(self, *args, **kwargs)
        res.mle_retvals["converged"] = False
        return res

    ok = run_regression(small_frame, "em", ["age"]).univariate[0]
    assert ok.problem is None and np.all(np.abs([lev.odds_ratio for lev in ok.levels]) < 20)
    monkeypatch.setattr(sm.Logit, "fit", flagged)
    uni = run_regression(small_frame, "em", ["age"]).univariate[0]
    assert words(uni.problem) == NOT_CONVERGED


def test_a_gee_fit_flagged_not_converged_is_refused(small_frame, monkeypatch):
    real = sm.GEE.fit

    def flagged(self, *args, **kwargs):
        res = real(self, *args, **kwargs)
        res.converged = False
        return res

    ok = run_regression(
        small_frame, "em", ["age"], cluster="speaker_id", cluster_method="gee"
    ).clustered.univariate[0]
    assert ok.problem is None
    monkeypatch.setattr(sm.GEE, "fit", flagged)
    gee = run_regression(
        small_frame, "em", ["age"], cluster="speaker_id", cluster_method="gee"
    ).clustered.univariate[0]
    assert words(gee.problem) == NOT_CONVERGED


def test_a_fit_statsmodels_cannot_compute_names_the_error(small_frame, monkeypatch):
    def singular(self, *args, **kwargs):
        raise np.linalg.LinAlgError("Singular matrix")

    monkeypatch.setattr(sm.Logit, "fit", singular)
    uni = run_regression(small_frame, "em", ["age"]).univariate[0]
    assert words(uni.problem) == "the model could not be estimated (LinAlgError: Singular matrix)"


@pytest.mark.parametrize("exc", [ValueError("bad design")])
def test_a_value_error_in_the_fit_is_named_too(small_frame, monkeypatch, exc):
    def boom(self, *args, **kwargs):
        raise exc

    monkeypatch.setattr(sm.Logit, "fit", boom)
    uni = run_regression(small_frame, "em", ["age"]).univariate[0]
    assert words(uni.problem) == "the model could not be estimated (ValueError: bad design)"
