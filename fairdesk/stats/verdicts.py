"""Practical size, verdicts and direction (docs/METHODS.md, "Verdicts"); the reading in words
is written from them by :func:`fairdesk.presentation.readings.reading`.

Before any verdict (docs/METHODS.md, "Estimability"): ``not_estimable`` (fewer than 2 resampling units
on a side, or replicate gaps without spread while the groups are not both constant) and
``no_variation`` (both groups constant at the same value, reported with the rule-of-three
bound). Neither has a p-value or enters the Holm family. Nor does ``descriptive`` (a diacritic
metric whose group or reference has fewer than 10 expected marks: the values with their
basis E, no interval, no test; docs/METHODS.md, "When the diacritic metrics apply").

Verdicts, checked in this order (first that applies):

1. ``speaker_confounded``: p_adjusted < alpha, and the group has fewer than 10 speakers or
   leaving one of its speakers out changes the conclusion (see ``compare``);
2. ``disparity_detected``: p_adjusted < alpha and practical;
3. ``significant_but_small``: p_adjusted < alpha, not practical;
4. ``inconclusive_underpowered``: p_adjusted ≥ alpha and MDE > the practical threshold;
5. ``no_disparity_detected``: p_adjusted ≥ alpha and MDE ≤ the practical threshold.

``not_computable`` (docs/METHODS.md, "Estimability") marks a comparison whose gap or p-value is undefined (e.g. a
zero denominator).
"""

from __future__ import annotations

import math

from fairdesk.metrics.registry import MetricSpec
from fairdesk.stats.settings import AuditSettings

VERDICTS = (
    "descriptive",
    "not_estimable",
    "no_variation",
    "speaker_confounded",
    "disparity_detected",
    "significant_but_small",
    "inconclusive_underpowered",
    "no_disparity_detected",
    "not_computable",
)
#: Fewer speakers than this make a significant result speaker_confounded (docs/METHODS.md, "Verdicts").
MIN_SPEAKERS_FOR_TRUST = 10


def is_grounding(spec: MetricSpec) -> bool:
    """Whether the metric is judged with ``grounding_gap`` (grounding lift)."""
    return spec.id == "grounding_lift" or spec.family == "grounding"


def is_practical(gap: float, ratio: float, spec: MetricSpec, settings: AuditSettings) -> bool:
    """Whether a gap is of practical size (docs/METHODS.md, "Verdicts").

    |gap| ≥ absolute_error_gap, or ratio ≥ disparity_ratio (1/ratio for higher-is-better
    metrics, i.e. the ratio in the *worse* direction); grounding metrics: |gap| ≥
    grounding_gap.
    """
    if not math.isfinite(gap):
        return False
    if is_grounding(spec):
        return abs(gap) >= settings.grounding_gap
    if abs(gap) >= settings.absolute_error_gap:
        return True
    if math.isnan(ratio):
        return False
    if spec.higher_is_better:
        worse_ratio = math.inf if ratio == 0 else 1.0 / ratio
    else:
        worse_ratio = ratio
    return worse_ratio >= settings.disparity_ratio


def practical_threshold(reference_value: float, spec: MetricSpec, settings: AuditSettings) -> float:
    """The smallest |gap| that would count as practical, for the MDE test (docs/METHODS.md, "Minimum detectable effect").

    Grounding metrics: ``grounding_gap``. Others: the smaller of ``absolute_error_gap`` and
    the gap the ratio criterion implies at the reference value in the worse direction,
    ``(disparity_ratio − 1)·ref`` (lower is better) or ``(1 − 1/disparity_ratio)·ref``
    (higher is better).
    """
    if is_grounding(spec):
        return settings.grounding_gap
    if not math.isfinite(reference_value):
        return settings.absolute_error_gap
    r = settings.disparity_ratio
    factor = (1.0 - 1.0 / r) if spec.higher_is_better else (r - 1.0)
    return min(settings.absolute_error_gap, factor * abs(reference_value))


def direction(gap: float, higher_is_better: bool) -> str:
    """``worse``, ``better`` or ``equal`` for the group relative to the reference."""
    if not math.isfinite(gap) or gap == 0:
        return "equal"
    worse = gap < 0 if higher_is_better else gap > 0
    return "worse" if worse else "better"


def decide_verdict(
    p_adjusted: float,
    practical: bool,
    mde: float,
    threshold: float,
    alpha: float,
    speaker_confounded: bool,
) -> str:
    """The first verdict of docs/METHODS.md, "Verdicts" that applies (``speaker_confounded`` decided by the caller)."""
    if not math.isfinite(p_adjusted):
        return "not_computable"
    if p_adjusted < alpha:
        if speaker_confounded:
            return "speaker_confounded"
        return "disparity_detected" if practical else "significant_but_small"
    if not math.isfinite(mde) or mde > threshold:
        return "inconclusive_underpowered"
    return "no_disparity_detected"
