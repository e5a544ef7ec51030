"""Classical cross-checks of a system difference: the sign test and the Wilcoxon signed-rank
test on per-utterance values (docs/METHODS.md, "Classical cross-checks"). They treat the
utterances as independent (no speakers, no sentences), which the paired cluster bootstrap
does not; every view labels them so.

Two versions of each are computed: the textbook tests of scipy (ties dropped), and the
conventions of NIST's ``sc_stats`` (Debian package ``sctk``, ``-t sign wilc``), so that its
output on the same data (each utterance its own speaker, per-utterance WER%) can be checked
digit for digit (tests/stats/test_systems_classical.py runs it):

* sign test: differences within ±0.005 are ties; half the ties go to each sign, the odd
  one to the negative side; p = 2·P(X ≤ min(N−, N+)), X ~ Binomial(N, ½), N every utterance,
  capped at 1;
* Wilcoxon: |differences| ranked with average ranks (equal as floating-point numbers, the
  WER% being ``100·S/N + 100·D/N + 100·I/N`` as sclite sums its parts), zero differences
  ranked with the rest and split between the signs (the odd one positive);
  z = (min(W+, W−) − N(N+1)/4) / √(N(N+1)(2N+1)/24), no tie or continuity correction,
  truncated to two decimals, p = 2·Φ(z); sc_stats uses this normal approximation from 8
  utterances.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats as sps

from fairdesk.stats.system_results import ClassicalTests

#: sc_stats' threshold for equal percentages (±0.005 of a point).
SCTK_TIE = 0.005
#: Fewest utterances for sc_stats' normal approximation of the Wilcoxon statistic.
SCTK_MIN_WILCOXON = 8


def sign_test_sctk(diff_percent: np.ndarray) -> tuple[float, int, int, int]:
    """sc_stats' sign test of per-utterance differences in percent (baseline − system).

    Returns ``(p, n_positive, n_negative, n_ties)`` (counts before the ties are split)."""
    d = np.asarray(diff_percent, dtype=float)
    pos = int(np.sum(d > SCTK_TIE))
    neg = int(np.sum(d < -SCTK_TIE))
    ties = len(d) - pos - neg
    n = len(d)
    if n == 0:
        return math.nan, pos, neg, ties
    lo = min(pos + ties // 2, neg + ties - ties // 2)
    p = min(1.0, 2.0 * float(sps.binom.cdf(lo, n, 0.5)))
    return p, pos, neg, ties


def wilcoxon_sctk(diff_percent: np.ndarray) -> tuple[float, float]:
    """sc_stats' Wilcoxon signed-rank test of per-utterance differences: ``(z, p)``."""
    d = np.asarray(diff_percent, dtype=float)
    n = len(d)
    if n < SCTK_MIN_WILCOXON:
        return math.nan, math.nan
    ranks = sps.rankdata(np.abs(d))
    zeros = np.flatnonzero(d == 0)
    half = (len(zeros) + 1) // 2  # the odd zero goes to the positive side
    w_pos = float(ranks[d > 0].sum() + ranks[zeros[:half]].sum())
    w_neg = float(ranks[d < 0].sum() + ranks[zeros[half:]].sum())
    mean = n * (n + 1) / 4.0
    sd = math.sqrt(n * (n + 1) * (2 * n + 1) / 24.0)
    z = math.trunc((min(w_pos, w_neg) - mean) / sd * 100) / 100
    return z, float(2.0 * sps.norm.cdf(z))


def classical_tests(
    baseline_values: np.ndarray,
    system_values: np.ndarray,
    *,
    metric: str,
    system: str,
    baseline: str,
    scale: float = 100.0,
    baseline_percent: np.ndarray | None = None,
    system_percent: np.ndarray | None = None,
) -> ClassicalTests:
    """Both tests on per-utterance values (the metric on each item alone).

    Parameters
    ----------
    baseline_values, system_values : per-utterance values of the two systems on the same
        items (fractions for rates: 0.25 is 25%); items undefined for either are dropped.
    metric, system, baseline : names recorded in the result.
    scale : the factor to the shown unit (100 for percent), so that sc_stats' tie threshold
        of 0.005 applies in percentage points.
    baseline_percent, system_percent : the per-utterance values in the shown unit as sclite
        computes them (WER% = 100·S/N + 100·D/N + 100·I/N), for the sc_stats versions;
        None = the values × ``scale``.
    """
    a = np.asarray(baseline_values, dtype=float)
    b = np.asarray(system_values, dtype=float)
    ok = np.isfinite(a) & np.isfinite(b)
    a, b = a[ok], b[ok]
    d = (a - b) * scale  # positive: the baseline has the higher value (sc_stats' sign)
    if baseline_percent is not None and system_percent is not None:
        d_sctk = (np.asarray(baseline_percent, float) - np.asarray(system_percent, float))[ok]
    else:
        d_sctk = a * scale - b * scale
    p_sctk, pos, neg, ties = sign_test_sctk(d_sctk)
    z_sctk, pw_sctk = wilcoxon_sctk(d_sctk)
    untied = d[np.abs(d) > SCTK_TIE]
    sign_p = (
        float(sps.binomtest(int((untied > 0).sum()), len(untied), 0.5).pvalue)
        if len(untied)
        else math.nan
    )
    wil_p = math.nan
    if len(untied):
        wil_p = float(sps.wilcoxon(untied, zero_method="wilcox").pvalue)
    return ClassicalTests(
        metric=metric,
        system=system,
        baseline=baseline,
        n_items=int(len(d)),
        n_positive=pos,
        n_negative=neg,
        n_ties=ties,
        mean_difference=float(np.mean(b - a)) if len(d) else math.nan,
        sign_p=sign_p,
        wilcoxon_p=wil_p,
        sign_p_sctk=p_sctk,
        wilcoxon_z_sctk=z_sctk,
        wilcoxon_p_sctk=pw_sctk,
    )
