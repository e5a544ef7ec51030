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


The names load their modules on first use (module ``__getattr__``): importing
``metrics.registry`` (the display specs) does not load pandas.
"""

from .._lazy import lazy_attributes

#: public name -> the module that defines it (imported on first access)
_LAZY: dict[str, str] = {
    "NO_PREDICTION": ".confusion",
    "confusion_matrix": ".confusion",
    "class_column": ".items",
    "compute_item_stats": ".items",
    "basic": ".normalize",
    "english": ".normalize",
    "get_normalizer": ".normalize",
    "normalizer_for": ".normalize",
    "tone_preserving": ".normalize",
    "CLASS_METRIC_IDS": ".registry",
    "METRIC_IDS": ".registry",
    "METRICS": ".registry",
    "MetricSpec": ".registry",
    "class_labels": ".registry",
    "class_metric": ".registry",
    "metric_specs": ".registry",
    "ratio_metric": ".registry",
    "SlotDiff": ".slots",
    "exact_match": ".slots",
    "intent_match": ".slots",
    "parse_slots": ".slots",
    "slot_diff": ".slots",
    "CharCounts": ".text",
    "DiacriticCounts": ".text",
    "ToneCounts": ".text",
    "WordCounts": ".text",
    "char_counts": ".text",
    "diacritic_counts": ".text",
    "marked_letters": ".text",
    "tone_counts": ".text",
    "word_counts": ".text",
}

__all__ = sorted(_LAZY)


__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, globals())
