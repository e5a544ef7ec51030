"""Corpus-level summary of one metric over the analysed groups (docs/METHODS.md, "Corpus summary")."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


def gini(values) -> float:
    """Gini coefficient ``Σ_i Σ_j |x_i − x_j| / (2 n² mean)`` of group values.

    NaN values are ignored; 0.0 when all values are equal (including all zero), NaN when
    the mean is zero with unequal values or fewer than one value remains.
    """
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    if x.size == 0:
        return math.nan
    diff = np.abs(x[:, None] - x[None, :]).sum()
    if diff == 0:
        return 0.0
    mean = x.mean()
    if mean == 0:
        return math.nan
    return float(diff / (2 * x.size**2 * mean))


def weighted_std(values, weights) -> float:
    """Weighted (population) standard deviation ``sqrt(Σ w (x − x̄_w)² / Σ w)``."""
    x = np.asarray(values, dtype=float)
    w = np.asarray(weights, dtype=float)
    ok = np.isfinite(x) & np.isfinite(w) & (w > 0)
    if not ok.any():
        return math.nan
    x, w = x[ok], w[ok]
    mean = np.average(x, weights=w)
    return float(math.sqrt(np.average((x - mean) ** 2, weights=w)))


@dataclass(frozen=True)
class MetricSummary:
    """Corpus-level summary of one metric.

    Attributes
    ----------
    max_gap : the comparison gap (group − reference) largest in absolute value, signed.
    disparity_ratio : worst ÷ best group value for lower-is-better metrics, best ÷ worst for
        higher-is-better ones (so it is ≥ 1 and reads like the ``disparity_ratio`` setting).
    gini : Gini coefficient of the analysed groups' values.
    weighted_std : standard deviation of group values weighted by group size (items).
    best_group, worst_group : the groups with the best and worst values.
    overall : the corpus-wide value with its 95% CI: ``value, ci, scheme`` and block counts
        (``groupci.group_intervals``), and ``n_missing``: the items with no grouping value
        that it includes although they are in no group (the descriptive rows; 0 with
        ``include_missing``, where they are the group ``(missing)``; docs/METHODS.md,
        "Missing values"; absent in older runs).
    """

    max_gap: float
    disparity_ratio: float
    gini: float
    weighted_std: float
    best_group: str | None
    worst_group: str | None
    overall: dict | None = None


def summarise_metric(
    groups: list[str], values, sizes, gaps, higher_is_better: bool
) -> MetricSummary:
    """Summary of one metric from the analysed groups' values and the comparison gaps."""
    v = np.asarray(values, dtype=float)
    g = np.asarray(gaps, dtype=float)
    g = g[np.isfinite(g)]
    max_gap = float(g[np.argmax(np.abs(g))]) if g.size else math.nan
    ok = np.flatnonzero(np.isfinite(v))
    if ok.size == 0:
        return MetricSummary(max_gap, math.nan, math.nan, math.nan, None, None)
    # ties broken by group name
    lo_val, hi_val = v[ok].min(), v[ok].max()
    lo = min((i for i in ok if v[i] == lo_val), key=lambda i: groups[i])
    hi = min((i for i in ok if v[i] == hi_val), key=lambda i: groups[i])
    best, worst = (hi, lo) if higher_is_better else (lo, hi)
    b, w = v[best], v[worst]
    num, den = (b, w) if higher_is_better else (w, b)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = float(num / den) if den != 0 else (math.inf if num > 0 else math.nan)
    return MetricSummary(
        max_gap=max_gap,
        disparity_ratio=ratio,
        gini=gini(v[ok]),
        weighted_std=weighted_std(v, sizes),
        best_group=groups[best],
        worst_group=groups[worst],
    )
