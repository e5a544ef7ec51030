"""Metric specifications: every group metric is a function of summed per-item statistics.

A group's value of a metric is computed *pooled*: the per-item sufficient statistics
(``stats`` columns) are summed over the group's items (with bootstrap weights when
resampling), then ``value`` maps the sums to the metric. This makes every metric of
docs/METHODS.md, "Per-item metrics" a ratio of sums, and lets the bootstrap resample with matrix products.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    num = np.asarray(num, dtype=float)
    den = np.asarray(den, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    return out


@dataclass(frozen=True)
class MetricSpec:
    """How one metric is computed from summed per-item statistics.

    Parameters
    ----------
    id : metric id used in the CLI and JSON (``wer``, ``cer``, ...).
    label : human-readable name.
    stats : names of the per-item statistic columns the metric needs.
    value : maps ``sums[..., len(stats)]`` (the columns summed over items, in ``stats``
        order) to the metric value(s) ``[...]``; NaN where undefined (zero denominator).
    higher_is_better : True for accuracy-like metrics, False for error rates.
    kind : ``"rate"`` (a ratio of counts, effect size by block SD) or ``"proportion"``
        (mean of a 0/1 per-item outcome; effect size is Cohen's h).
    family : ``"transcription"``, ``"diacritic"``, ``"slu"``, ``"classification"``,
        ``"grounding"`` (judged with ``grounding_gap``).
    denominator : the stats whose sum is the metric's denominator (empty if none); a metric
        whose denominator sums to 0 over a whole frame is undefined there.
    numerator : for a plain ratio of sums (:func:`ratio_metric`), the stats whose sum is the
        numerator (empty otherwise): the value is then ``Σ numerator / Σ denominator``.
    unit : how the value is shown: ``"%"`` (a rate or proportion, shown × ``scale``; its
        gaps in percentage points, ``pp``) or ``"×"`` (a ratio, shown as is; its gaps as
        differences of ratios).
    scale : the factor from the stored value to the shown number (100 for ``%``).
    decimals : digits after the point of the shown number.
    sample : for a metric a stage computes on a sample of the items (grounding lift: the
        explained items, which carry a denominator > 0), the sample's items in words
        (``explained items``); '' for a metric of every item. A sampled metric is compared on
        its sample alone (its speakers and contents the blocks, the minimums applied to it).
    value_range : ``(lowest, highest)`` value the metric can take (stored units): every CI
        bound of a group, corpus or plan value is clamped to it
        (docs/METHODS.md, "Bounds stay inside the metric's range"). Rates ``(0, inf)``,
        proportions ``(0, 1)``.
    """

    id: str
    label: str
    stats: tuple[str, ...]
    value: Callable[[np.ndarray], np.ndarray] = field(compare=False)
    higher_is_better: bool = False
    kind: str = "rate"
    family: str = "transcription"
    denominator: tuple[str, ...] = field(default=(), compare=False)
    numerator: tuple[str, ...] = field(default=(), compare=False)
    unit: str = "%"
    scale: float = 100.0
    decimals: int = 1
    sample: str = ""
    value_range: tuple[float, float] = field(default=(0.0, math.inf), compare=False)

    @property
    def is_ratio(self) -> bool:
        """Whether the metric is shown as a ratio (``×``) rather than a percentage."""
        return self.unit == RATIO_UNIT

    def compute(self, sums: np.ndarray) -> np.ndarray:
        """Metric value(s) from sums with the stats on the last axis."""
        return self.value(np.asarray(sums, dtype=float))


#: The unit of a rate or proportion (shown in percent, gaps in percentage points).
PERCENT_UNIT = "%"
#: The unit of a ratio metric (shown as is, ``1.23×``).
RATIO_UNIT = "×"
#: ``(unit, scale, decimals)`` of each unit.
UNITS = {PERCENT_UNIT: (PERCENT_UNIT, 100.0, 1), RATIO_UNIT: (RATIO_UNIT, 1.0, 2)}


def ratio_metric(
    id,
    label,
    num,
    den,
    *,
    higher_is_better=False,
    kind="rate",
    family="transcription",
    unit=PERCENT_UNIT,
    sample="",
    value_range=None,
):
    """A metric sum(num columns) / sum(den columns), shown in ``unit`` (see :data:`UNITS`);
    ``sample`` names the items of a metric computed on a sample (see :class:`MetricSpec`);
    ``value_range`` defaults to ``(0, 1)`` for a proportion and ``(0, inf)`` otherwise."""
    num = tuple(num)
    den = tuple(den)
    stats = tuple(dict.fromkeys(num + den))
    ni = [stats.index(c) for c in num]
    di = [stats.index(c) for c in den]

    def value(s: np.ndarray) -> np.ndarray:
        return _ratio(s[..., ni].sum(axis=-1), s[..., di].sum(axis=-1))

    _, scale, decimals = UNITS[unit]
    return MetricSpec(
        id,
        label,
        stats,
        value,
        higher_is_better,
        kind,
        family,
        den,
        num,
        unit,
        scale,
        decimals,
        sample,
        value_range or ((0.0, 1.0) if kind == "proportion" else (0.0, math.inf)),
    )


# --------------------------------------------------------------------------- the fixed metrics

_TR, _DIA, _SLU, _CLS = "transcription", "diacritic", "slu", "classification"
_GRD = "grounding"
_WORD_ERRORS = ("n_sub", "n_del", "n_ins")
_TONE_ERRORS = ("tone_dropped", "tone_hallucinated", "tone_wrong")


def _net_loss() -> MetricSpec:
    def value(s: np.ndarray) -> np.ndarray:
        return _ratio(s[..., 0] - s[..., 1], s[..., 0])

    return MetricSpec(
        "diacritic_net_loss",
        "Diacritic net loss (E-P)/E",
        ("dia_expected", "dia_produced"),
        value,
        False,
        "rate",
        _DIA,
        ("dia_expected",),
        value_range=(-math.inf, 1.0),
    )


def _fixed_metrics() -> dict[str, MetricSpec]:
    specs = [
        ratio_metric("wer", "Word error rate (WER)", _WORD_ERRORS, ("n_words",)),
        ratio_metric("sub_rate", "Substitution rate S/N", ("n_sub",), ("n_words",)),
        ratio_metric("del_rate", "Deletion rate D/N", ("n_del",), ("n_words",)),
        ratio_metric("ins_rate", "Insertion rate I/N", ("n_ins",), ("n_words",)),
        ratio_metric(
            "insertion_ratio",
            "Insertion ratio I/(S+D+I)",
            ("n_ins",),
            _WORD_ERRORS,
            value_range=(0.0, 1.0),
        ),
        # docs/METHODS.md, "Hallucination flags" (fairdesk.metrics.hallucination)
        ratio_metric(
            "hallucination_rate",
            "Hallucination rate (share of items flagged)",
            ("hallucinated",),
            ("n_items",),
            kind="proportion",
        ),
        ratio_metric(
            "wer_unflagged",
            "WER without flagged items",
            ("unflagged_errors",),
            ("unflagged_words",),
        ),
        ratio_metric(
            "cer", "Character error rate (CER)", ("c_sub", "c_del", "c_ins"), ("n_chars",)
        ),
        ratio_metric(
            "der",
            "Diacritic error rate (D+H)/E",
            ("dia_dropped", "dia_added"),
            ("dia_expected",),
            family=_DIA,
        ),
        ratio_metric(
            "rdd",
            "Raw diacritic drop rate D/E",
            ("dia_dropped",),
            ("dia_expected",),
            family=_DIA,
            value_range=(0.0, 1.0),  # D = max(0, E - P) per item
        ),
        _net_loss(),
        ratio_metric("ter", "Tone error rate (TER)", _TONE_ERRORS, ("tone_expected",), family=_DIA),
        ratio_metric(
            "ter_dropped",
            "Tone marks dropped / E",
            ("tone_dropped",),
            ("tone_expected",),
            family=_DIA,
        ),
        ratio_metric(
            "ter_hallucinated",
            "Tone marks hallucinated / E",
            ("tone_hallucinated",),
            ("tone_expected",),
            family=_DIA,
        ),
        ratio_metric(
            "ter_wrong", "Wrong tone marks / E", ("tone_wrong",), ("tone_expected",), family=_DIA
        ),
        ratio_metric(
            "em",
            "Exact match (EM)",
            ("em",),
            ("n_nlu",),
            higher_is_better=True,
            kind="proportion",
            family=_SLU,
        ),
        ratio_metric(
            "intent_accuracy",
            "Intent accuracy",
            ("intent_correct",),
            ("n_nlu",),
            higher_is_better=True,
            kind="proportion",
            family=_SLU,
        ),
        ratio_metric(
            "accuracy",
            "Accuracy",
            ("correct",),
            ("n_cls",),
            higher_is_better=True,
            kind="proportion",
            family=_CLS,
        ),
        # docs/METHODS.md, "Saliency grounding": mean grounding lift of the explained items (explain stage)
        ratio_metric(
            "grounding_lift",
            "Grounding lift",
            ("grounding_lift",),
            ("n_grounded",),
            higher_is_better=True,
            kind="rate",
            family=_GRD,
            unit=RATIO_UNIT,
            sample="explained items",
        ),
        ratio_metric(
            "mean_confidence",
            "Mean confidence",
            ("confidence",),
            ("n_conf",),
            higher_is_better=True,
            kind="rate",
            family=_CLS,
            value_range=(-math.inf, math.inf),  # a score of the user's: not checked in [0, 1]
        ),
    ]
    return {s.id: s for s in specs}


#: Every metric with a fixed set of stat columns, by id.
METRICS: dict[str, MetricSpec] = _fixed_metrics()

#: Metrics built per label set by :func:`class_metric` (balanced accuracy == macro recall).
CLASS_METRIC_IDS = ("balanced_accuracy", "macro_recall")

#: Every valid metric id, in the canonical (display) order.
METRIC_IDS: tuple[str, ...] = (
    *[i for i in METRICS if i not in ("mean_confidence", "grounding_lift")],
    *CLASS_METRIC_IDS,
    "mean_confidence",
    "grounding_lift",
)

_CLASS_LABELS = {
    "balanced_accuracy": "Balanced accuracy",
    "macro_recall": "Macro recall",
}


def display_spec(metric: str) -> tuple[str, float, int]:
    """``(unit, scale, decimals)`` of a metric id (the per-label-set class metrics and unknown
    ids are rates: percent).

    Parameters
    ----------
    metric : a metric id.

    Returns
    -------
    tuple
        The spec's ``unit``, ``scale`` and ``decimals``.
    """
    spec = METRICS.get(str(metric))
    if spec is None:
        return UNITS[PERCENT_UNIT]
    return spec.unit, spec.scale, spec.decimals


#: The flag of an interval whose bound was clamped to the metric's range (docs/METHODS.md,
#: "Bounds stay inside the metric's range").
BOUND_CLAMPED = "bound_clamped"


def metric_range(metric) -> tuple[float, float]:
    """``(lowest, highest)`` value a metric can take, in stored units.

    ``metric`` is a :class:`MetricSpec` or an id; the per-label-set class metrics are in
    ``[0, 1]``; an unknown id has no range (``(-inf, inf)``: nothing is clamped).
    """
    if isinstance(metric, MetricSpec):
        return metric.value_range
    if metric in CLASS_METRIC_IDS:
        return (0.0, 1.0)
    spec = METRICS.get(str(metric))
    return spec.value_range if spec is not None else (-math.inf, math.inf)


def gap_range(metric, span: int = 1) -> tuple[float, float]:
    """The largest gaps the metric's range allows: ``value − other value`` lies in
    ``[low − high, high − low]`` (a proportion's gap in [−1, 1]); ``span`` 2 for a
    difference of two gaps (``[−2, 2]`` for a proportion)."""
    lo, hi = metric_range(metric)
    width = hi - lo
    return (-span * width, span * width)


def _clamped(low: float, high: float, lo: float, hi: float) -> tuple[float, float, bool]:
    """``low`` and ``high`` inside ``[lo, hi]`` (NaN left as is) and whether either moved."""
    out_lo = low if math.isnan(low) else min(max(low, lo), hi)
    out_hi = high if math.isnan(high) else min(max(high, lo), hi)
    moved = (not math.isnan(low) and out_lo != low) or (not math.isnan(high) and out_hi != high)
    return out_lo, out_hi, moved


def clamp_value_interval(metric, low: float, high: float) -> tuple[float, float, bool]:
    """A CI of a group, corpus or plan value with its bounds clamped to the metric's range.

    The one rule of docs/METHODS.md, "Bounds stay inside the metric's range": a percentile
    bound moved past what the metric can take (by the small-cluster scaling, say: a
    hallucination rate of 1 in 200 got a lower bound of −0.004%) is set to the range's end.

    Parameters
    ----------
    metric : a :class:`MetricSpec` or a metric id (:func:`metric_range`).
    low, high : the bounds in stored units (NaN passes through).

    Returns
    -------
    (low, high, clamped)
        The bounds inside the range, and whether either moved (then the interval carries
        the flag :data:`BOUND_CLAMPED`).
    """
    lo, hi = metric_range(metric)
    return _clamped(float(low), float(high), lo, hi)


def clamp_gap_interval(metric, low: float, high: float, span: int = 1) -> tuple[float, float, bool]:
    """A gap's CI (or a difference of two values, ``span`` 1; of two gaps, ``span`` 2) cut at
    the largest gap the metric's range allows (:func:`gap_range`); a gap is not clamped at 0.

    Returns ``(low, high, clamped)`` as :func:`clamp_value_interval`.
    """
    lo, hi = gap_range(metric, span)
    return _clamped(float(low), float(high), lo, hi)


def class_labels(columns) -> list[str]:
    """Labels L that have both ``cls_L_n`` and ``cls_L_correct`` among ``columns``, sorted."""
    cols = set(columns)
    out = []
    for c in cols:
        if c.startswith("cls_") and c.endswith("_n"):
            label = c[len("cls_") : -len("_n")]
            if f"cls_{label}_correct" in cols:
                out.append(label)
    return sorted(out)


def class_metric(id: str, labels) -> MetricSpec:
    """Balanced accuracy or macro recall over the given class labels.

    The value is the mean, over the classes with ``n > 0`` in the (resampled) group, of the
    recall ``cls_L_correct / cls_L_n``; NaN when no class is present. With this (unadjusted)
    definition the two ids are the same number, equal to
    ``sklearn.metrics.balanced_accuracy_score`` on the group's items. (sklearn's
    ``recall_score(average="macro")`` differs only when a group's predictions contain labels
    absent from its true labels: it averages over those too, counting them as recall 0.)

    Parameters
    ----------
    id : ``"balanced_accuracy"`` or ``"macro_recall"``.
    labels : the class labels (as in the ``cls_<label>_*`` column names).

    Returns
    -------
    MetricSpec
    """
    if id not in CLASS_METRIC_IDS:
        raise ValueError(f"class_metric id must be one of {CLASS_METRIC_IDS}, got {id!r}.")
    labels = list(labels)
    if not labels:
        raise ValueError(f"{id} needs at least one class label (columns cls_<label>_n).")
    k = len(labels)
    n_cols = tuple(f"cls_{lab}_n" for lab in labels)
    c_cols = tuple(f"cls_{lab}_correct" for lab in labels)

    def value(s: np.ndarray) -> np.ndarray:
        n = s[..., :k]
        c = s[..., k:]
        present = n > 0
        recall = np.where(present, c / np.where(present, n, 1.0), 0.0)
        count = present.sum(axis=-1)
        return np.where(count > 0, recall.sum(axis=-1) / np.maximum(count, 1), np.nan)

    return MetricSpec(
        id,
        _CLASS_LABELS[id],
        n_cols + c_cols,
        value,
        True,
        "rate",
        _CLS,
        n_cols,
        value_range=(0.0, 1.0),
    )


_NEEDS = {
    "n_words": "'reference' and 'hypothesis'",
    "n_items": "'reference' and 'hypothesis'",
    "unflagged_words": "'reference' and 'hypothesis'",
    "n_chars": "'reference' and 'hypothesis'",
    "dia_expected": "'reference' and 'hypothesis'",
    "tone_expected": "'reference' and 'hypothesis'",
    "n_nlu": "'ref_intent' and 'hyp_intent'",
    "n_cls": "'label' and 'predicted_label'",
    "n_conf": "'confidence'",
    "n_grounded": "'grounding_lift' and 'n_grounded' (written by the explain stage: audit a "
    "project dataset with a model and --explain)",
}


def _spec_for(id: str, columns) -> MetricSpec | None:
    if id in CLASS_METRIC_IDS:
        labels = class_labels(columns)
        return class_metric(id, labels) if labels else None
    spec = METRICS[id]
    return spec if set(spec.stats) <= set(columns) else None


def _missing_message(id: str) -> str:
    if id in CLASS_METRIC_IDS:
        needs = _NEEDS["n_cls"]
    else:
        den = METRICS[id].denominator
        needs = _NEEDS.get(den[0], "'reference' and 'hypothesis'") if den else "its inputs"
    return (
        f"metric {id!r} cannot be computed: the item stats lack its columns. "
        f"The audit frame needs the columns {needs}."
    )


def metric_specs(stats_df, wanted=None) -> list[MetricSpec]:
    """The metric specs computable from a frame of per-item stats.

    Parameters
    ----------
    stats_df : the output of :func:`~fairdesk.metrics.compute_item_stats` (a DataFrame), or
        just its column names.
    wanted : None (every metric the columns allow, in the canonical order of ``METRIC_IDS``,
        skipping metrics whose denominator sums to 0 over the whole frame -- e.g. diacritic
        metrics on text without diacritics), or an id / list of ids (returned in that order,
        duplicates dropped; undefined values are then NaN rather than skipped).

    Returns
    -------
    list of MetricSpec

    Raises
    ------
    ValueError
        For an unknown id (the message lists the valid ones), or a wanted metric whose columns
        are missing (the message says which input columns the audit frame needs).
    """
    import pandas as pd  # lazily: the GUI's first window reads the display specs only

    is_frame = isinstance(stats_df, pd.DataFrame)
    columns = list(stats_df.columns) if is_frame else list(stats_df)
    if wanted is None:
        out = []
        for id in METRIC_IDS:
            spec = _spec_for(id, columns)
            if spec is None:
                continue
            if is_frame and spec.denominator:
                if float(stats_df[list(spec.denominator)].to_numpy(float).sum()) <= 0:
                    continue
            out.append(spec)
        return out
    ids = [wanted] if isinstance(wanted, str) else list(dict.fromkeys(wanted))
    unknown = [i for i in ids if i not in METRIC_IDS]
    if unknown:
        raise ValueError(f"unknown metric id(s) {unknown}; valid ids are: {', '.join(METRIC_IDS)}.")
    out = []
    for id in ids:
        spec = _spec_for(id, columns)
        if spec is None:
            raise ValueError(_missing_message(id))
        out.append(spec)
    return out
