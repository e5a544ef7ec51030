"""Group and metric labels, the same in every view."""

from __future__ import annotations

from ..metrics.registry import CLASS_METRIC_IDS, METRICS

#: Short axis/column labels of metrics (the id, spaced, for any other).
SHORT = {
    "wer": "WER",
    "cer": "CER",
    "em": "EM",
    "intent_accuracy": "Intent acc.",
    "sub_rate": "Sub. rate",
    "del_rate": "Del. rate",
    "ins_rate": "Ins. rate",
    "insertion_ratio": "Ins. ratio",
    "der": "DER",
    "ter": "TER",
    "rdd": "RDD",
    "accuracy": "Accuracy",
    "balanced_accuracy": "Bal. acc.",
    "macro_recall": "Macro recall",
    "mean_confidence": "Confidence",
    "hallucination_rate": "Halluc.",
    "wer_unflagged": "WER unflagged",
    "grounding_lift": "Grounding lift",
}

_CLASS_LABELS = {"balanced_accuracy": "Balanced accuracy", "macro_recall": "Macro recall"}


def short_group(label) -> str:
    """``accent=en-gb × gender=male`` → ``en-gb × male`` (axis labels, legends, cards)."""
    return " × ".join(p.split("=", 1)[-1] for p in str(label).split(" × "))


def metric_short(metric: str) -> str:
    """The short label of a metric (``WER``, ``Bal. acc.``)."""
    return SHORT.get(metric, str(metric).replace("_", " "))


def metric_label(metric: str) -> str:
    """The metric's label from the registry (its id, spaced, when unknown)."""
    spec = METRICS.get(metric)
    if spec is not None:
        return spec.label
    return _CLASS_LABELS.get(metric, str(metric).replace("_", " "))


def higher_is_better(metric: str) -> bool:
    """Whether a higher value of ``metric`` is better (accuracies) or worse (error rates)."""
    if metric in CLASS_METRIC_IDS:
        return True
    spec = METRICS.get(metric)
    return bool(spec and spec.higher_is_better)
