"""fit_poisson_mixed's reading of the optimiser's outcome, with the optimiser's result
altered to the case in question (the real optimiser reaches these only on rare data):

- an estimated σ that gains nothing over the plain GLM is the boundary: σ = 0, the GLM's β;
- a run the optimiser calls failed is still converged when the Newton decrement at its end is
  below 1e-8, and not converged when a further step would still gain more (here ~1e-4);
- with an information matrix that cannot be inverted as well, the covariance is NaN and the
  fit is not converged.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import fairdesk.stats.regression.poisson_mixed as pm
from fairdesk.stats.regression.poisson_mixed import fit_poisson_mixed


def _data(seed=3, S=5, per=4):
    rng = np.random.default_rng(seed)
    spk = np.repeat(np.arange(S), per)
    N = rng.integers(5, 12, S * per)
    x = rng.normal(0, 1, S * per)
    y = rng.poisson(N * np.exp(-1.5 + 0.4 * x + rng.normal(0, 0.8, S)[spk]))
    return y, np.column_stack([np.ones(S * per), x]), np.log(N), spk


def _altered(monkeypatch, change):
    """Wrap _maximise: ``change(call_no, estimate_sigma, res, calls)`` edits its result."""
    real = pm._maximise
    calls = []

    def wrapped(m, beta0, sigma0, estimate_sigma, gtol):
        res = real(m, beta0, sigma0, estimate_sigma, gtol)
        calls.append(res)
        change(len(calls), estimate_sigma, res, calls)
        return res

    monkeypatch.setattr(pm, "_maximise", wrapped)
    return calls


@pytest.mark.parametrize(
    "gain, boundary", [(0.0, True), (5e-10, True), (1e-9, True), (1e-6, False)]
)
def test_an_estimated_sigma_that_gains_nothing_is_the_boundary(monkeypatch, gain, boundary):
    y, X, off, spk = _data()

    def change(k, estimate_sigma, res, calls):
        if estimate_sigma:  # σ well above 1e-4, log-likelihood the GLM's plus ``gain``
            res.x = np.append(calls[0].x, 0.3)
            res.fun = calls[0].fun - gain

    calls = _altered(monkeypatch, change)
    fit = fit_poisson_mixed(y, X, off, spk)
    glm = calls[0]
    assert fit.boundary is boundary
    if boundary:
        assert fit.sigma == 0.0
        np.testing.assert_array_equal(fit.beta, glm.x)
        assert fit.cov.shape == (2, 2)
    else:
        assert fit.sigma == 0.3
        assert fit.cov.shape == (3, 3)


def _fixed_run(monkeypatch, shift, singular=False):
    y, X, off, spk = _data()

    def change(k, estimate_sigma, res, calls):
        if k == 2:  # the fixed-σ run: stopped ``shift`` away from its maximum, "failed"
            res.x = res.x + shift
            res.success = False
            res.message = "stalled"
            if singular:

                def no_inverse(a):
                    raise np.linalg.LinAlgError("singular")

                monkeypatch.setattr(np.linalg, "inv", no_inverse)

    _altered(monkeypatch, change)
    return fit_poisson_mixed(y, X, off, spk, sigma=0.7)


def test_a_failed_run_at_the_maximum_is_converged(monkeypatch):
    fit = _fixed_run(monkeypatch, 0.0)
    assert fit.converged is True and fit.message == "stalled"


def test_a_failed_run_short_of_the_maximum_is_not_converged(monkeypatch):
    y, X, off, spk = _data()
    exact = fit_poisson_mixed(y, X, off, spk, sigma=0.7)
    shift = np.array([0.01, -0.01])
    fit = _fixed_run(monkeypatch, shift)
    # the Newton decrement g' I^-1 g at the stopping point, recomputed here
    m = pm._Marginal(np.asarray(y, float), X, off, spk, 15)
    _, g, H, _ = m.evaluate(exact.beta + shift, 0.7, order=2)
    dec = float(g[:2] @ np.linalg.inv(-H[:2, :2]) @ g[:2])
    assert 1e-8 < dec < 1.0
    assert fit.converged is False
    np.testing.assert_allclose(fit.beta, exact.beta + shift, rtol=1e-6)


def test_a_failed_run_without_an_inverse_information_is_not_converged(monkeypatch):
    fit = _fixed_run(monkeypatch, 0.0, singular=True)
    assert fit.converged is False
    assert np.isnan(fit.cov).all() and fit.cov.shape == (2, 2)
    assert math.isfinite(fit.loglik)
