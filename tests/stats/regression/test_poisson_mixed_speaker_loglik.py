"""speaker_loglik against an independent numerical integral: defaults and input dtypes."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import integrate, optimize
from scipy.stats import norm, poisson

from fairdesk.stats.regression.poisson_mixed import speaker_loglik


def _integral(y, N, sigma, log_rate):
    """log ∫ Π_j Poisson(y_j; N_j e^{log_rate_j + u}) φ(u; 0, σ) du by adaptive quadrature."""
    y = np.asarray(y, dtype=float)
    N = np.asarray(N, dtype=float)
    log_rate = np.broadcast_to(np.asarray(log_rate, dtype=float), y.shape)

    def f(u):
        return math.exp(poisson.logpmf(y, N * np.exp(log_rate + u)).sum()) * norm.pdf(u, 0, sigma)

    val, _ = integrate.quad(
        f, -12 * sigma, 12 * sigma, epsabs=0, epsrel=1e-12, limit=400, points=[0.0]
    )
    return math.log(val)


Y = [1, 0, 3, 2, 0, 1]
N = [6, 4, 11, 9, 5, 7]


@pytest.mark.parametrize("sigma", [0.4, 1.5])
def test_default_log_rate_is_zero(sigma):
    # without log_rate the rate per word is e^u: the likelihood of the counts at log rate 0
    got = speaker_loglik(Y, N, sigma)
    assert got == pytest.approx(_integral(Y, N, sigma, 0.0), abs=1e-7)
    assert got == speaker_loglik(Y, N, sigma, 0.0)
    assert abs(got - _integral(Y, N, sigma, 1.0)) > 0.5


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.int64, float])
def test_word_counts_of_any_numeric_dtype_give_the_float64_likelihood(dtype):
    # log N is taken in double precision whatever the dtype of the counts (numpy's log of
    # int8/uint8 is float16 and of int16 float32, far too coarse for a likelihood)
    y = np.array(Y, dtype=dtype)
    n = np.array(N, dtype=dtype)
    ref = _integral(Y, N, 0.8, -1.3)
    got = speaker_loglik(y, n, 0.8, -1.3)
    assert got == pytest.approx(ref, abs=1e-7)
    assert got == pytest.approx(speaker_loglik(Y, [float(v) for v in N], 0.8, -1.3), abs=1e-12)


def test_counts_as_python_lists_and_per_utterance_log_rate():
    log_rate = np.array([-1.0, -1.5, -0.8, -1.2, -2.0, -1.1])
    got = speaker_loglik(Y, N, 1.1, log_rate)
    assert got == pytest.approx(_integral(Y, N, 1.1, log_rate), abs=1e-7)


def test_one_utterance_without_errors_at_sigma_zero_is_the_poisson_probability():
    # σ = 0: no speaker effect, the plain Poisson probability of the counts
    assert speaker_loglik([0, 2], [5, 8], 0.0, -1.0) == pytest.approx(
        poisson.logpmf([0, 2], np.array([5, 8]) * math.exp(-1.0)).sum(), abs=1e-12
    )


def test_no_utterance_has_log_likelihood_zero():
    # the integral of the normal density alone
    assert speaker_loglik([], [], 0.7) == 0.0


@pytest.mark.parametrize(
    ("y", "N", "sigma", "log_rate", "n_quad"),
    [
        ([60], [1], 5.0, -4.0, 15),  # far more errors than the rate allows, a wide SD
        ([0, 0], [10, 12], 2.0, 0.0, 50),  # no error at a high rate (skewed: 15 nodes err 2e-5)
        ([25, 30], [200, 250], 0.1, -2.0, 15),  # a narrow SD and many words
        ([12000], [1], 0.01, math.log(10000), 15),  # a tiny SD: the Newton step needs σ²
    ],
)
def test_extreme_speakers_against_the_integral_around_their_mode(y, N, sigma, log_rate, n_quad):
    # the first Newton step from u = 0 overshoots far (e^{σv} overflows) and is backtracked
    Y = float(np.sum(y))
    A = float(np.sum(N)) * math.exp(log_rate)
    const = float(
        np.sum(np.asarray(y) * (np.log(N) + log_rate)) - np.sum([math.lgamma(k + 1.0) for k in y])
    )

    def logf(u):
        return Y * u - A * math.exp(u) - u * u / (2 * sigma * sigma)

    mode = optimize.brentq(lambda u: Y - A * math.exp(u) - u / sigma**2, -60 * sigma, 60)
    top = logf(mode)
    val, _ = integrate.quad(
        lambda u: math.exp(logf(u) - top),
        mode - 40,
        mode + 40,
        points=[mode],
        epsabs=0,
        epsrel=1e-12,
        limit=400,
    )
    want = const + top + math.log(val) - math.log(sigma * math.sqrt(2 * math.pi))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # exp overflow of the overshoot
        got = speaker_loglik(y, N, sigma, log_rate, n_quad)
    assert got == pytest.approx(want, abs=1e-7)
