"""Metric specifications: every group metric is a function of summed per-item statistics.

A group's value of a metric is computed *pooled*: the per-item sufficient statistics
(``stats`` columns) are summed over the group's items (with bootstrap weights when
resampling), then ``value`` maps the sums to the metric. This makes every metric of
METHODS.md §2 a ratio of sums, and lets the bootstrap resample with matrix products.
"""

from __future__ import annotations

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
    family : ``"transcription"``, ``"diacritic"``, ``"slu"``, ``"classification"``.
    """

    id: str
    label: str
    stats: tuple[str, ...]
    value: Callable[[np.ndarray], np.ndarray] = field(compare=False)
    higher_is_better: bool = False
    kind: str = "rate"
    family: str = "transcription"

    def compute(self, sums: np.ndarray) -> np.ndarray:
        """Metric value(s) from sums with the stats on the last axis."""
        return self.value(np.asarray(sums, dtype=float))


def ratio_metric(id, label, num, den, *, higher_is_better=False, kind="rate", family="transcription"):
    """A metric sum(num columns) / sum(den columns)."""
    num = tuple(num)
    den = tuple(den)
    stats = tuple(dict.fromkeys(num + den))
    ni = [stats.index(c) for c in num]
    di = [stats.index(c) for c in den]

    def value(s: np.ndarray) -> np.ndarray:
        return _ratio(s[..., ni].sum(axis=-1), s[..., di].sum(axis=-1))

    return MetricSpec(id, label, stats, value, higher_is_better, kind, family)
