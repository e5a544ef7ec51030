"""Verdicts of a system difference and of a gap difference (docs/METHODS.md,
"System difference" and "Gap difference"). Pure functions of numbers.

System difference Δ = value(B) − value(A), checked in this order:
``better`` / ``worse`` (p_adjusted < alpha and |Δ| ≥ the threshold; by the metric's
direction), ``difference_small`` (significant, not practical), ``inconclusive_underpowered``
(MDE > threshold), ``no_difference_detected``.

Gap difference ΔGap = gap_B − gap_A (practical: |ΔGap| ≥ the threshold; no ratio criterion),
significant and practical: ``reversed`` (the sign flips and |gap_B| ≥ the threshold: the
disadvantage moved to the other side), ``fairer`` (|gap_B| < |gap_A|), ``less_fair``
(|gap_B| > |gap_A|); then ``difference_small``, ``inconclusive_underpowered``,
``no_difference_detected``.
"""

from __future__ import annotations

import math

from fairdesk.metrics.registry import MetricSpec
from fairdesk.stats.settings import AuditSettings
from fairdesk.stats.verdicts import direction, is_grounding


def system_threshold(spec: MetricSpec, settings: AuditSettings) -> float:
    """The smallest practical |Δ| or |ΔGap|: ``grounding_gap`` for grounding metrics, else
    ``absolute_error_gap`` (no ratio criterion for system comparisons)."""
    return settings.grounding_gap if is_grounding(spec) else settings.absolute_error_gap


def system_verdict(
    delta: float,
    p_adjusted: float,
    mde: float,
    threshold: float,
    alpha: float,
    higher_is_better: bool,
) -> str:
    """The verdict of one system difference (see the module docstring)."""
    if not (math.isfinite(p_adjusted) and math.isfinite(delta)):
        return "not_computable"
    if p_adjusted < alpha:
        if abs(delta) >= threshold:
            return "better" if direction(delta, higher_is_better) == "better" else "worse"
        return "difference_small"
    if not math.isfinite(mde) or mde > threshold:
        return "inconclusive_underpowered"
    return "no_difference_detected"


def gap_verdict(
    gap_a: float,
    gap_b: float,
    p_adjusted: float,
    mde: float,
    threshold: float,
    alpha: float,
) -> str:
    """The verdict of one gap difference ``gap_b − gap_a`` (see the module docstring)."""
    diff = gap_b - gap_a
    if not (math.isfinite(p_adjusted) and math.isfinite(diff)):
        return "not_computable"
    if p_adjusted < alpha:
        if abs(diff) < threshold:
            return "difference_small"
        flips = gap_a * gap_b < 0
        if flips and abs(gap_b) >= threshold:
            return "reversed"
        return "fairer" if abs(gap_b) < abs(gap_a) else "less_fair"
    if not math.isfinite(mde) or mde > threshold:
        return "inconclusive_underpowered"
    return "no_difference_detected"
