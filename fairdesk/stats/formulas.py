"""The formulas of a comparison (docs/METHODS.md, "Comparisons with the reference"): effect sizes, the bootstrap p-value, Holm's
adjustment, the MDE factor and the B raise. Pure functions of numbers and arrays."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy.stats import norm

from fairdesk.stats.bootstrap_plan import BootstrapPlan, bootstrap_rule

#: (z_0.975 + z_0.80), the MDE multiplier of docs/METHODS.md, "Minimum detectable effect".
MDE_FACTOR = float(norm.ppf(0.975) + norm.ppf(0.80))
#: Most bootstrap resamples (the B raise of docs/METHODS.md, "Multiple comparisons (Holm)" stops here).
MAX_BOOTSTRAP = 20_000


def gap_ratio(a: float, b: float) -> float:
    """``a / b`` of two group values (NaN when undefined, ±inf over a zero reference)."""
    if not (math.isfinite(a) and math.isfinite(b)):
        return math.nan
    if b == 0:
        return math.nan if a == 0 else math.copysign(math.inf, a)
    return a / b


def cohens_h(p1: float, p2: float) -> float:
    """Cohen's h = 2·asin(√p1) − 2·asin(√p2) (group minus reference)."""
    if not (math.isfinite(p1) and math.isfinite(p2)):
        return math.nan
    p1, p2 = min(max(p1, 0.0), 1.0), min(max(p2, 0.0), 1.0)
    return 2 * math.asin(math.sqrt(p1)) - 2 * math.asin(math.sqrt(p2))


def pooled_sd(a, b) -> float:
    """Pooled standard deviation of two samples (NaNs dropped; NaN if undefined)."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    a, b = a[np.isfinite(a)], b[np.isfinite(b)]
    dof = a.size + b.size - 2
    if a.size < 1 or b.size < 1 or dof < 1:
        return math.nan
    ss = ((a - a.mean()) ** 2).sum() + ((b - b.mean()) ** 2).sum()
    return math.sqrt(ss / dof)


def bootstrap_p(gap: float, gap_reps: np.ndarray) -> float:
    """Two-sided bootstrap p on the null-centred replicates (docs/METHODS.md, "Comparisons with the reference"):
    ``(1 + #{|gap* − gap| ≥ |gap|}) / (B + 1)``; undefined replicates are dropped."""
    reps = np.asarray(gap_reps, dtype=float)
    reps = reps[np.isfinite(reps)]
    if not math.isfinite(gap) or reps.size == 0:
        return math.nan
    return float((1 + np.count_nonzero(np.abs(reps - gap) >= abs(gap))) / (reps.size + 1))


def holm_multipliers(p_values: Sequence[float] | np.ndarray) -> np.ndarray:
    """Holm's multiplier m − rank + 1 of each p-value (rank 1 = smallest; NaN → NaN)."""
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    order = ok[np.argsort(p[ok], kind="stable")]
    out[order] = len(ok) - np.arange(len(ok))
    return out


def holm_adjust(p_values: Sequence[float] | np.ndarray) -> np.ndarray:
    """Holm–Bonferroni adjusted p-values; NaN stays NaN.

    The same numbers as statsmodels ``multipletests(p, method="holm")[1]`` (checked by the
    tests): sorted p times (m − rank + 1), running maximum, capped at 1. Written out because
    statsmodels' Holm branch calls ``gc.collect()`` on every call (~0.2 s), which dominates
    simulation studies of hundreds of audits.
    """
    p = np.asarray(p_values, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    if ok.size:
        order = ok[np.argsort(p[ok], kind="mergesort")]
        adj = np.maximum.accumulate(p[order] * (ok.size - np.arange(ok.size)))
        out[order] = np.minimum(adj, 1.0)
    return out


def planned_bootstrap(requested: int, m: int, alpha: float) -> BootstrapPlan:
    """B for a run with ``m`` comparisons: at least ⌈5·m/α⌉, capped at 20,000 (docs/METHODS.md, "Multiple comparisons (Holm)").

    The bootstrap p cannot go below 1/(B+1) and Holm multiplies the smallest by m, so this
    keeps the smallest attainable adjusted p at or below α/5.

    Returns
    -------
    BootstrapPlan
        ``requested, used, comparisons`` (m), ``required`` (⌈5·m/α⌉), ``raised``, ``capped``
        and the coded ``rule``.
    """
    required = math.ceil(5 * m / alpha - 1e-9) if m else 0
    used = max(requested, min(MAX_BOOTSTRAP, required))
    return BootstrapPlan(
        requested=int(requested),
        used=int(used),
        comparisons=int(m),
        required=int(required),
        raised=used > requested,
        capped=required > MAX_BOOTSTRAP,
        rule=bootstrap_rule(),
    )
