"""Per-item and per-group metrics (docs/METHODS.md, "Per-item metrics").

Public API
----------
* :func:`compute_item_stats` -- per-item sufficient statistics of an audit frame.
* :data:`METRICS`, :data:`METRIC_IDS`, :func:`metric_specs` -- group metrics as
  :class:`MetricSpec` objects computed from summed stats.
* :func:`confusion_matrix` -- per-group confusion matrices.
* per-item functions: :func:`word_counts`, :func:`char_counts`, :func:`diacritic_counts`,
  :func:`tone_counts`, :func:`exact_match`, :func:`intent_match`, :func:`slot_diff`.
* normalisers: :func:`english`, :func:`basic`, :func:`tone_preserving`,
  :func:`normalizer_for`, :func:`get_normalizer`.
"""

from .confusion import NO_PREDICTION, confusion_matrix
from .items import class_column, compute_item_stats
from .normalize import basic, english, get_normalizer, normalizer_for, tone_preserving
from .registry import (
    CLASS_METRIC_IDS,
    METRIC_IDS,
    METRICS,
    MetricSpec,
    class_labels,
    class_metric,
    metric_specs,
    ratio_metric,
)
from .slots import SlotDiff, exact_match, intent_match, parse_slots, slot_diff
from .text import (
    CharCounts,
    DiacriticCounts,
    ToneCounts,
    WordCounts,
    char_counts,
    diacritic_counts,
    marked_letters,
    tone_counts,
    word_counts,
)

__all__ = [
    "CLASS_METRIC_IDS",
    "METRICS",
    "METRIC_IDS",
    "NO_PREDICTION",
    "CharCounts",
    "DiacriticCounts",
    "MetricSpec",
    "SlotDiff",
    "ToneCounts",
    "WordCounts",
    "basic",
    "char_counts",
    "class_column",
    "class_labels",
    "class_metric",
    "compute_item_stats",
    "confusion_matrix",
    "diacritic_counts",
    "english",
    "exact_match",
    "get_normalizer",
    "intent_match",
    "marked_letters",
    "metric_specs",
    "normalizer_for",
    "parse_slots",
    "ratio_metric",
    "slot_diff",
    "tone_counts",
    "tone_preserving",
    "word_counts",
]
