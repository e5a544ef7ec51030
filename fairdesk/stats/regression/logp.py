"""Base-10 logarithms of the regressions' p-values, from the log survival functions.

A p-value of a large, clean effect is smaller than a float holds (a Wald z of 40 gives
2·Φ(−40) ≈ 7e-350), so statsmodels and ``scipy.stats.*.sf`` return 0.0 and its size is
lost. Its logarithm keeps it: every regression p-value is stored with its ``p_log10``
beside it (docs/METHODS.md, "Conclusions and p-values"), and :mod:`fairdesk.presentation.pvalues`
shows an underflowed p as ``< 1e-300 (log10 p = -412.3)``. The normal's comes from
``scipy.stats.norm.logsf`` (accurate in the far tail); scipy's ``logsf`` of χ², t and F is
``log(sf)`` and turns -inf where sf underflows, so below 1e-290 their tails come from the
continued fractions of the incomplete gamma and beta functions (modified Lentz, as in
Numerical Recipes), on the log scale.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import stats

__all__ = ["chi2_log10", "f_log10", "holm_log10", "normal_log10", "t_log10"]

_LN10 = math.log(10.0)
_LN2 = math.log(2.0)


def normal_log10(z) -> float:
    """log10 of the two-sided normal p-value ``2·Φ(−|z|)`` (NaN for a non-finite z)."""
    z = float(z)
    if not math.isfinite(z):
        return math.nan
    return min((_LN2 + float(stats.norm.logsf(abs(z)))) / _LN10, 0.0)


def _gamma_q_log(a: float, x: float) -> float:
    """ln Q(a, x), the regularised upper incomplete gamma, by its continued fraction
    (modified Lentz; Numerical Recipes' ``gcf``), for x > a + 1."""
    tiny = 1e-300
    b = x + 1.0 - a
    c, d = 1.0 / tiny, 1.0 / b
    h = d
    for i in range(1, 100_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return -x + a * math.log(x) - math.lgamma(a) + math.log(h)


def _beta_i_log(x: float, a: float, b: float) -> float:
    """ln I_x(a, b), the regularised incomplete beta, by its continued fraction (modified
    Lentz; Numerical Recipes' ``betacf``), for x < (a + 1) / (a + b + 2)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (tiny if abs(d) < tiny else d)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        for aa in (
            m * (b - m) * x / ((qam + m2) * (a + m2)),
            -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)),
        ):
            d = 1.0 + aa * d
            d = 1.0 / (tiny if abs(d) < tiny else d)
            c = 1.0 + aa / c
            c = tiny if abs(c) < tiny else c
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    lbeta = math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    return a * math.log(x) + b * math.log1p(-x) - math.log(a) - lbeta + math.log(h)


def _log10(sf: float, tail) -> float:
    """log10 of a tail probability: of ``sf`` while it is a normal float (scipy's own
    ``logsf`` of these distributions is ``log(sf)``, -inf once sf underflows), else of the
    continued fraction ``tail()`` (natural log)."""
    if sf > 1e-290:
        return min(math.log10(sf), 0.0)
    return min(tail() / _LN10, 0.0)


def t_log10(t, df) -> float:
    """log10 of the two-sided Student-t p-value on ``df`` degrees of freedom (the normal's
    for an infinite ``df``): ``I_{df/(df+t²)}(df/2, 1/2)``."""
    t, df = float(t), float(df)
    if not math.isfinite(t) or math.isnan(df) or df <= 0:
        return math.nan
    if math.isinf(df):
        return normal_log10(t)
    x = df / (df + t * t)
    return _log10(2.0 * float(stats.t.sf(abs(t), df)), lambda: _beta_i_log(x, df / 2, 0.5))


def chi2_log10(stat, df) -> float:
    """log10 of the χ² upper tail ``P(χ²_df ≥ stat)`` (an LR or Wald test; NaN without df)."""
    stat = float(stat)
    if not df or df <= 0 or math.isnan(stat):
        return math.nan
    if math.isinf(stat):
        return -math.inf
    return _log10(float(stats.chi2.sf(stat, df)), lambda: _gamma_q_log(df / 2, stat / 2))


def f_log10(f, df1, df2) -> float:
    """log10 of the F upper tail ``P(F_{df1, df2} ≥ f)``, i.e.
    ``I_{df2/(df2+df1·f)}(df2/2, df1/2)``."""
    f = float(f)
    if not df1 or not df2 or df1 <= 0 or df2 <= 0 or math.isnan(f):
        return math.nan
    if math.isinf(f):
        return -math.inf
    x = df2 / (df2 + df1 * f)
    return _log10(float(stats.f.sf(f, df1, df2)), lambda: _beta_i_log(x, df2 / 2, df1 / 2))


def holm_log10(log10s: Sequence[float]) -> np.ndarray:
    """log10 of the Holm-adjusted p-values, computed on the log scale: the step-down
    ``max_{j ≤ i} min(1, (m − j + 1)·p_(j))``, so p-values that underflowed keep their order
    and size."""
    lg = np.asarray(log10s, dtype=float)
    order = np.argsort(lg, kind="stable")
    m = lg.size
    steps = np.log10(m - np.arange(m)) + lg[order]
    adj = np.minimum(np.maximum.accumulate(steps), 0.0)
    out = np.empty_like(lg)
    out[order] = adj
    return out
