"""Practical size, verdicts, direction and the plain-English reading (docs/METHODS.md, "Verdicts").

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
from fairdesk.metrics.units import MISSING, fmt_bound, fmt_gap, fmt_p, fmt_size, fmt_value
from fairdesk.stats.bootstrap import ESTIMATOR_LABELS
from fairdesk.stats.results import Basis, BlockCounts, NoVariation
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


def _said(text: str) -> str:
    """A number as the cards and tables format it (``30.4%``, ``-28.6 pp``), or ``undefined``
    where they show the missing marker: a sentence says so in words."""
    return "undefined" if text == MISSING else text


def _values(metric, label, group, reference, value, reference_value, sample=None) -> str:
    """``WER on <sample> is 30.4% for en-gb vs 58.9% for the reference en-029``: how every
    comparison's sentence begins."""
    where = f" on {sample}" if sample else ""
    return (
        f"{label}{where} is {_said(fmt_value(metric, value))} for {group} vs "
        f"{_said(fmt_value(metric, reference_value))} for the reference {reference}"
    )


def _ci(metric: str, low, high) -> str:
    """``-80.1 to +24.0 pp``: a gap's 95% CI in its unit."""
    return f"{_said(fmt_bound(metric, low, with_unit=False))} to {_said(fmt_bound(metric, high))}"


def _p(p: float) -> str:
    """A p-value as the cards and tables show it (``0.012``, ``< 0.001``)."""
    return _said(fmt_p(p))


def basis_text(basis: Basis | None) -> str:
    """A diacritic comparison's basis in words, ``E = 12 + 40 expected diacritics`` ('' for
    None)."""
    if basis is None:
        return ""
    return f"E = {basis.group:,.0f} + {basis.reference:,.0f} {basis.unit}"


def blocks_text(estimator: str, n_blocks: BlockCounts) -> str:
    """Block counts in words, e.g. ``12 + 14 speakers × 30 shared sentences``."""
    sg, sr, c = n_blocks.group_speakers, n_blocks.reference_speakers, n_blocks.contents
    if estimator == "two_way":
        return f"{sg} + {sr} speakers × {c} shared sentences"
    if estimator == "speaker":
        return f"{sg} + {sr} speakers"
    if estimator == "content":
        return f"{c} shared sentences"
    return f"{n_blocks.group_items} + {n_blocks.reference_items} utterances"


def reading(
    *,
    metric: str,
    label: str,
    group: str,
    reference: str,
    value: float,
    reference_value: float,
    gap: float,
    ci_low: float,
    ci_high: float,
    p_adjusted: float,
    mde: float,
    threshold: float,
    estimator: str,
    conditional: bool,
    n_blocks: BlockCounts,
    verdict: str,
    direction_: str,
    design: str,
    multiplicity: int = 0,
    single_speaker: bool = False,
    basis: Basis | None = None,
    sample: str | None = None,
    shared_subset: bool = False,
) -> str:
    """One plain-English sentence with the CI, p_adjusted, estimator and block counts (and
    the basis E of a diacritic metric; the sample of a metric computed on one), every number
    of ``metric`` in its unit as the cards show it (``30.4%``, a gap ``-28.6 pp``).
    ``shared_subset``: the values compared are those of the sentences both groups said
    (``shared_content_subset``), which the sentence says, since the group table's count
    every item."""
    est = ESTIMATOR_LABELS["content_conditional" if conditional else estimator]
    if shared_subset and not sample:
        sample = f"the {n_blocks.contents} sentences both groups said"
    on_basis = f"; {basis_text(basis)}" if basis is not None else ""
    head = (
        f"{_values(metric, label, group, reference, value, reference_value, sample)} (gap "
        f"{_said(fmt_gap(metric, gap))}, 95% CI {_ci(metric, ci_low, ci_high)}, p_adjusted "
        f"{_p(p_adjusted)}; {est}, {blocks_text(estimator, n_blocks)}{on_basis})"
    )
    if verdict == "speaker_confounded":
        tail = (
            f"the gap is significant ({direction_} than the reference) but rests on too few "
            "speakers or on a single speaker, so get more speakers before concluding"
        )
    elif verdict == "disparity_detected":
        tail = f"a disparity of practical size: {group} does {direction_} than the reference"
    elif verdict == "significant_but_small":
        tail = (
            f"a significant but small difference ({direction_}), below the practical "
            f"threshold of {_said(fmt_size(metric, threshold))}"
        )
    elif verdict == "inconclusive_underpowered" and not threshold > 0:
        tail = (  # the reference at 0: the ratio criterion makes any gap practical
            "inconclusive, not fine: the reference's value is 0, so by the disparity ratio "
            "any gap above 0 is of practical size and no sample can rule every such gap "
            f"out; this sample could detect gaps of {_said(fmt_size(metric, mde))} or more"
        )
    elif verdict == "inconclusive_underpowered":
        tail = (
            "inconclusive, not fine: this sample could only detect gaps of "
            f"{_said(fmt_size(metric, mde))} or more, above the practical threshold of "
            f"{_said(fmt_size(metric, threshold))}"
        )
    elif verdict == "no_disparity_detected":
        tail = (
            "no disparity detected, and the sample could have detected a gap of "
            f"{_said(fmt_size(metric, mde))} (practical threshold "
            f"{_said(fmt_size(metric, threshold))})"
        )
    else:
        tail = "not computable (the metric is undefined on one side, e.g. a zero denominator)"
    caveat = ""
    if design == "unmatched" and verdict != "not_computable":
        caveat = (
            "; the groups said different content, so the gap may reflect harder "
            "sentences rather than the group and is not causal"
        )
    if single_speaker:
        caveat += (
            "; a side has a single speaker, so the interval describes these recordings of "
            "this speaker, not the group"
        )
    if shared_subset:
        caveat += (
            "; these values are of the sentences both groups said, so they can differ from "
            "the group table's, which count every item"
        )
    if multiplicity:
        caveat += (
            f"; the 95% CI excludes 0 on its own, but not once the {multiplicity} comparisons "
            "of this run are taken into account (Holm), so treat it as a lead to confirm"
        )
    return f"{head}: {tail}{caveat}."


def reading_not_estimable(
    metric: str,
    label: str,
    group: str,
    reference: str,
    value: float,
    reference_value: float,
    reason: str,
    sample: str | None = None,
) -> str:
    """The sentence of a ``not_estimable`` comparison: values, no verdict, the reason (and
    the sample of a metric computed on one)."""
    head = _values(metric, label, group, reference, value, reference_value, sample)
    return f"{head}, but no verdict is possible: {reason}."


def reading_descriptive(
    metric: str,
    label: str,
    group: str,
    reference: str,
    value: float,
    reference_value: float,
    basis: Basis,
) -> str:
    """The sentence of a ``descriptive`` comparison (a diacritic metric on fewer than 10
    expected marks on a side): the values with their basis E, no interval, no test."""
    return (
        f"{_values(metric, label, group, reference, value, reference_value)} "
        f"({basis_text(basis)}): fewer than 10 on a side, so the values are descriptive, with "
        "no interval, no test and no verdict; a mark or two decides them."
    )


def reading_no_variation(
    metric: str, label: str, group: str, reference: str, nv: NoVariation
) -> str:
    """The sentence of a ``no_variation`` comparison: both constant, n and the 3/n bound (a
    rate of the other outcome, in percent as the metric's values are)."""
    unit = nv.unit
    return (
        f"{label} is {_said(fmt_value(metric, nv.value))} on every item of both {group} and the "
        f"reference {reference}: there is no variation to compare, which is not evidence of no "
        f"disparity. With {nv.n_group:g} and {nv.n_reference:g} {unit}, the rate of "
        f"the other outcome is below {_said(fmt_value(metric, nv.bound_group))} in {group} and "
        f"{_said(fmt_value(metric, nv.bound_reference))} in {reference} (rule of three, 95%); test more "
        "or harder material to tell the groups apart."
    )
