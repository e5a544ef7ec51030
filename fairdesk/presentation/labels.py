"""Group and metric labels, the same in every view."""

from __future__ import annotations

from ..core.plurals import count
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

#: Row names of the incremental models × policies table (console, GUI, report) and what each
#: row measures (docs/METHODS.md, "Incremental latency and speed"); ``lat_seed001`` is the
#: metric's stored id, kept so that earlier runs still read.
INCREMENTAL_ROW_NAMES = {
    "wer": "WER",
    "lat_seed001": "LAT (per word)",
    "lat_pooled": "LAT (pooled)",
    "eo": "EO",
    "rps": "RPS",
    "spr": "SPR",
    "rtf": "RTF",
}
INCREMENTAL_ROW_HELP = {
    "wer": "word error rate of the final transcript",
    "lat_seed001": "the LAT of Whetten, Imtiaz and Kennington: seconds from a chunk's arrival "
    "to its prediction, per word of the prediction, averaged over predictions (zero-word ones "
    "skipped)",
    "lat_pooled": "decode seconds per final word, pooled",
    "eo": "edit overhead: revokes / (adds + revokes)",
    "rps": "revokes per second of decode time",
    "spr": "decode seconds per revoke (inf: no revokes)",
    "rtf": "real-time factor: decode seconds / audio seconds",
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


#: The mark of the descriptive row of the items with no grouping value (docs/METHODS.md,
#: "Missing values"), beside its label in every group table; :func:`missing_row_note`
#: explains it.
MISSING_MARK = "*"
#: The status of that row in the tables that have a status column.
MISSING_STATUS = "descriptive, not tested"


def missing_row_note(label, n_items, option: str = "--include-missing") -> str:
    """The footnote of a descriptive row: ``* no value for accent (562 items): described
    (value and 95% CI), not a group: ...``; ``option`` names the switch that makes it one
    (the GUI's checkbox, the command line's flag)."""
    from .numbers import count

    return (
        f"{MISSING_MARK} {label} ({count(n_items or 0, 'item')}): described (value and 95% CI), "
        f"not a group: not compared, no minimums, not in Holm ({option} makes them a tested "
        "group, '(missing)')"
    )


def corpus_label(n_missing) -> str:
    """The corpus row's label: ``(corpus, analysed groups)``, or with the items that have no
    grouping value ``(corpus, incl. no value)``."""
    return "(corpus, incl. no value)" if n_missing else "(corpus, analysed groups)"


def corpus_note(n_missing) -> str:
    """What the corpus value pools, where it includes items with no grouping value ('' if
    none)."""
    from .numbers import count

    if not n_missing:
        return ""
    return (
        "the corpus value pools the analysed groups and the "
        f"{count(n_missing, 'item')} with no grouping value"
    )


#: How each source of a run's reference texts reads (``RunSettings.text_source``'s keys).
TEXT_SOURCES = {
    "import": "with the imported reference",
    "annotation": "with a reference annotated in fairdesk",
}


def text_sources(counts) -> str:
    """Where a run's references came from, in words, sources without items left out:
    ``{"annotation": 0, "import": 460}`` reads ``460 items with the imported reference``;
    none recorded reads ``the dataset's reference transcripts``."""
    parts = [
        f"{count(n, 'item')} {TEXT_SOURCES.get(str(k), f'from {k}')}"
        for k, n in sorted((counts or {}).items(), key=lambda kv: str(kv[0]) != "import")
        if n
    ]
    return "; ".join(parts) or "the dataset's reference transcripts"


#: Verdicts that found a gap (p_adjusted < alpha): only they may call a group worse or better.
SIGNIFICANT = frozenset({"disparity_detected", "speaker_confounded", "significant_but_small"})


def direction_word(verdict: str, direction, gap) -> str:
    """How a comparison's direction reads, in the GUI's cards and Comparisons table and the
    report alike: ``▼ worse`` / ``▲ better`` only where the verdict found a gap; a gap the
    test did not find is only ``▲ higher`` or ``▼ lower`` than the reference; '' for none."""
    if verdict in SIGNIFICANT:
        return {"worse": "▼ worse", "better": "▲ better"}.get(str(direction), "")
    try:
        g = float(gap)
    except (TypeError, ValueError):
        return ""
    if g != g or g == 0:
        return ""
    return "▲ higher" if g > 0 else "▼ lower"
