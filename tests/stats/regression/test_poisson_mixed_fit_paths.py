"""fit_poisson_mixed on tiny data against a brute-force likelihood (scipy quad + optimize):
fixed σ, estimated σ (modes, covariance shape), the start, a singular design, refusals."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import integrate, optimize
from scipy.special import gammaln
from scipy.stats import poisson
from statsmodels.tools.numdiff import approx_hess3

from fairdesk.stats.regression.poisson_mixed import fit_poisson_mixed


def _data(seed, S=4, per=3, sd=0.8):
    rng = np.random.default_rng(seed)
    spk = np.repeat(np.arange(S), per)
    N = rng.integers(5, 12, S * per)
    x = rng.normal(0, 1, S * per)
    y = rng.poisson(N * np.exp(-1.5 + 0.4 * x + rng.normal(0, sd, S)[spk]))
    return y, np.column_stack([np.ones(S * per), x]), np.log(N), spk


def _brute_loglik(beta, sigma, y, X, offset, spk):
    """Σ_s log ∫ Π_j Poisson(y_j; e^{η_j + u}) φ(u; 0, σ) du, each integral by quad."""
    eta = offset + X @ beta
    total = float((y * eta - gammaln(y + 1.0)).sum())
    for s in np.unique(spk):
        k = spk == s
        Y, A = float(y[k].sum()), float(np.exp(eta[k]).sum())

        def f(u, Y=Y, A=A):
            return math.exp(Y * u - A * math.exp(u) - u * u / (2 * sigma * sigma)) / (
                sigma * math.sqrt(2 * math.pi)
            )

        val, _ = integrate.quad(f, -10 * sigma, 10 * sigma, epsabs=0, epsrel=1e-12, limit=200)
        total += math.log(val)
    return total


def test_fixed_sigma_maximises_the_exact_likelihood_over_beta():
    y, X, off, spk = _data(1)
    fit = fit_poisson_mixed(y, X, off, spk, sigma=1.0)
    res = optimize.minimize(
        lambda b: -_brute_loglik(b, 1.0, y, X, off, spk),
        [-1.5, 0.0],
        method="Nelder-Mead",
        options={"xatol": 1e-7, "fatol": 1e-11},
    )
    assert fit.beta == pytest.approx(res.x, abs=2e-5)
    assert fit.loglik == pytest.approx(_brute_loglik(fit.beta, 1.0, y, X, off, spk), abs=1e-7)
    assert (fit.sigma, fit.sigma_fixed, fit.boundary, fit.converged) == (1.0, True, False, True)
    assert fit.approximation == "aghq" and fit.n_quad == 15
    # covariance of beta alone: the inverse of the numerical information at the maximum
    assert fit.cov.shape == (2, 2)
    info = -approx_hess3(fit.beta, lambda b: _brute_loglik(b, 1.0, y, X, off, spk))
    assert fit.cov == pytest.approx(np.linalg.inv(info), rel=1e-3)
    assert isinstance(fit.n_iter, int) and fit.n_iter >= 1
    assert fit.message == "Optimization terminated successfully."
    # a negative σ is its absolute value (the likelihood is even in σ)
    neg = fit_poisson_mixed(y, X, off, spk, sigma=-1.0)
    assert neg.sigma == 1.0 and neg.beta == pytest.approx(fit.beta, abs=1e-9)
    other = fit_poisson_mixed(y, X, off, spk, sigma=0.5)
    assert other.sigma == 0.5 and abs(other.loglik - fit.loglik) > 1e-3


def test_estimated_sigma_modes_means_and_covariance_shape():
    y, X, off, spk = _data(3, S=8, per=4, sd=1.0)
    fit = fit_poisson_mixed(y, X, off, spk)
    assert not fit.sigma_fixed and not fit.boundary and fit.sigma > 0.3
    assert fit.cov.shape == (3, 3)  # (beta, sigma)
    assert np.all(np.diag(fit.cov) > 0)
    # σ maximises the exact profile at the fitted beta
    prof = optimize.minimize_scalar(
        lambda s: -_brute_loglik(fit.beta, s, y, X, off, spk),
        bounds=(0.05, 3.0),
        method="bounded",
        options={"xatol": 1e-7},
    )
    assert fit.sigma == pytest.approx(prof.x, abs=1e-4)
    # conditional modes of the speaker intercepts, one speaker at a time
    eta = off + X @ fit.beta
    for s in range(8):
        k = spk == s

        def neg(u, k=k):
            return -(poisson.logpmf(y[k], np.exp(eta[k] + u)).sum() - u * u / (2 * fit.sigma**2))

        u = optimize.minimize_scalar(
            neg, bounds=(-5, 5), method="bounded", options={"xatol": 1e-10}
        ).x
        assert fit.modes[s] == pytest.approx(u, abs=1e-7)
    assert fit.modes.shape == (8,)
    assert fit.mu == pytest.approx(np.exp(eta + fit.modes[spk]), rel=1e-12)
    assert isinstance(fit.n_iter, int) and isinstance(fit.message, str)


def test_given_start_is_where_a_loose_tolerance_stops():
    y, X, off, spk = _data(1)
    fit = fit_poisson_mixed(y, X, off, spk, sigma=0.0, start=[-1, 0], gtol=1e6)
    assert np.array_equal(fit.beta, [-1.0, 0.0]) and fit.n_iter == 0
    # the optimiser stopped on its (loose) tolerance: converged, though far from the maximum
    assert fit.converged is True
    tight = fit_poisson_mixed(y, X, off, spk, sigma=0.0, start=[-1, 0])
    assert tight.loglik > fit.loglik + 1.0 and tight.n_iter >= 1


def test_plain_glm_iterates_from_its_own_start():
    y, X, off, spk = _data(1)
    fit = fit_poisson_mixed(y, X, off, spk, sigma=0.0)
    assert fit.n_iter >= 1 and fit.approximation == "glm"


def test_singular_information_gives_a_nan_covariance():
    y, X, off, spk = _data(1)
    X0 = np.column_stack([X[:, 0], np.zeros(len(y))])
    fit = fit_poisson_mixed(y, X0, off, spk, sigma=0.0)
    assert fit.beta[0] == pytest.approx(math.log(y.sum() / np.exp(off).sum()), abs=1e-9)
    assert fit.beta[1] == 0.0
    assert fit.cov.shape == (2, 2) and np.all(np.isnan(fit.cov))
    assert np.all(np.isnan(fit.se_beta))
    assert fit.converged is True  # the optimiser met its tolerance


def test_fits_emit_no_warning():
    y, X, off, spk = _data(3, S=8, per=4, sd=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fit_poisson_mixed(y, X, off, spk)
        fit_poisson_mixed(y, X, off, spk, sigma=0.7)


def test_a_single_utterance_is_fitted():
    fit = fit_poisson_mixed([3], np.ones((1, 1)), [math.log(10.0)], [0], sigma=0.0)
    assert fit.beta[0] == pytest.approx(math.log(0.3), abs=1e-8)


@pytest.mark.parametrize("n_quad", [1, 50])
def test_n_quad_limits_are_accepted(n_quad):
    y, X, off, spk = _data(1)
    fit = fit_poisson_mixed(y, X, off, spk, sigma=1.0, n_quad=n_quad)
    assert fit.n_quad == n_quad
    assert fit.loglik == pytest.approx(
        _brute_loglik(fit.beta, 1.0, y, X, off, spk), abs=1e-7 if n_quad == 50 else 0.1
    )


def test_refusals_word_for_word():
    y, X, off, spk = _data(1)
    cases = [
        (([], np.zeros((0, 1)), [], []), {}, "No utterance to fit."),
        (
            ([-1, 2], np.ones((2, 1)), [0.0, 0.0], [0, 0]),
            {},
            "Error counts must be non-negative integers.",
        ),
        (
            ([-2, 0], np.ones((2, 1)), [0.0, 0.0], [0, 0]),
            {},
            "Error counts must be non-negative integers.",
        ),
        (
            ([0.5, 2], np.ones((2, 1)), [0.0, 0.0], [0, 0]),
            {},
            "Error counts must be non-negative integers.",
        ),
        ((y, X, off, spk), {"n_quad": 0}, "n_quad must be between 1 and 50, got 0."),
        ((y, X, off, spk), {"n_quad": 51}, "n_quad must be between 1 and 50, got 51."),
    ]
    for args, kw, msg in cases:
        with pytest.raises(ValueError) as err:
            fit_poisson_mixed(*args, **kw)
        assert str(err.value) == msg


def test_speaker_codes_given_as_floats_fit_the_same():
    y, X, off, spk = _data(3, S=8, per=4, sd=1.0)
    a = fit_poisson_mixed(y, X, off, spk)
    b = fit_poisson_mixed(y, X, off, spk.astype(float))
    assert b.beta == pytest.approx(a.beta, abs=1e-12) and b.sigma == pytest.approx(a.sigma)
    assert b.modes == pytest.approx(a.modes, abs=1e-12)


def test_one_error_in_all_gives_the_exact_rate_of_the_plain_glm():
    N = np.array([7.0, 9.0, 4.0])
    fit = fit_poisson_mixed([0, 1, 0], np.ones((3, 1)), np.log(N), [0, 1, 2], sigma=0.0)
    assert fit.beta[0] == pytest.approx(math.log(1 / 20), abs=1e-13)
    assert fit.mu == pytest.approx(N / 20, rel=1e-12)
