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

from typing import TYPE_CHECKING

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

# the same names for type checkers (``X as X``: re-exported; tests/test_lazy_exports.py)
if TYPE_CHECKING:
    from .confusion import NO_PREDICTION as NO_PREDICTION
    from .confusion import confusion_matrix as confusion_matrix
    from .items import class_column as class_column
    from .items import compute_item_stats as compute_item_stats
    from .normalize import basic as basic
    from .normalize import english as english
    from .normalize import get_normalizer as get_normalizer
    from .normalize import normalizer_for as normalizer_for
    from .normalize import tone_preserving as tone_preserving
    from .registry import CLASS_METRIC_IDS as CLASS_METRIC_IDS
    from .registry import METRIC_IDS as METRIC_IDS
    from .registry import METRICS as METRICS
    from .registry import MetricSpec as MetricSpec
    from .registry import class_labels as class_labels
    from .registry import class_metric as class_metric
    from .registry import metric_specs as metric_specs
    from .registry import ratio_metric as ratio_metric
    from .slots import SlotDiff as SlotDiff
    from .slots import exact_match as exact_match
    from .slots import intent_match as intent_match
    from .slots import parse_slots as parse_slots
    from .slots import slot_diff as slot_diff
    from .text import CharCounts as CharCounts
    from .text import DiacriticCounts as DiacriticCounts
    from .text import ToneCounts as ToneCounts
    from .text import WordCounts as WordCounts
    from .text import char_counts as char_counts
    from .text import diacritic_counts as diacritic_counts
    from .text import marked_letters as marked_letters
    from .text import tone_counts as tone_counts
    from .text import word_counts as word_counts

__all__ = sorted(_LAZY)


__getattr__, __dir__ = lazy_attributes(__name__, _LAZY, globals())
