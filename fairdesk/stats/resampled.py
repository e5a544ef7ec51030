"""The statistics a comparison's bootstrap resamples: as few columns as its metrics need.

A metric made by :func:`fairdesk.metrics.registry.ratio_metric` is ``Σ numerator / Σ
denominator``, so its replicates need only two sums, not one per statistic: WER needs
``S + D + I`` and ``N``, not S, D, I and N apart. The comparisons resample these summed
columns (half the products for WER and CER together); every other metric keeps its own
columns. The sums are of whole numbers (counts), so the replicates, and so every number of
a comparison, are the same as with the columns apart; columns that are not whole numbers
are never summed ahead.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from fairdesk.metrics.registry import MetricSpec, _ratio


def _ratio_of_two(s: np.ndarray) -> np.ndarray:
    return _ratio(s[..., 0], s[..., 1])


def resampled_columns(
    X: np.ndarray, specs: list[MetricSpec], cols: dict[str, list[int]]
) -> tuple[np.ndarray, list[MetricSpec], dict[str, list[int]]]:
    """The matrix the comparisons resample, the metrics over it and their columns.

    Parameters
    ----------
    X : ``(n_items, n_stats)`` per-item statistics.
    specs : the tested metrics.
    cols : ``cols[spec.id]`` = column indices of ``spec.stats`` in ``X``.

    Returns
    -------
    (Xr, specs_r, cols_r)
        ``Xr`` holds one column per distinct summed set of ``X``'s columns; a ratio metric
        over whole-number columns becomes the same metric (id, label, kind, direction) over
        its numerator and denominator sums; any other metric keeps its columns.
    """
    sets: dict[tuple[int, ...], int] = {}
    whole: dict[int, bool] = {}

    def column(idx) -> int:
        key = tuple(sorted(idx))
        if key not in sets:
            sets[key] = len(sets)
        return sets[key]

    def is_whole(j: int) -> bool:
        if j not in whole:
            whole[j] = bool(np.array_equal(X[:, j], np.round(X[:, j])))
        return whole[j]

    out_specs, out_cols = [], {}
    for s in specs:
        c = cols[s.id]
        num = [c[s.stats.index(x)] for x in s.numerator if x in s.stats]
        den = [c[s.stats.index(x)] for x in s.denominator if x in s.stats]
        plain = (
            s.numerator
            and s.denominator
            and len(num) == len(s.numerator)
            and len(den) == len(s.denominator)
            and all(map(is_whole, num + den))
        )
        if not plain:
            out_specs.append(s)
            out_cols[s.id] = [column((j,)) for j in c]
            continue
        # the denominator keeps its name where it is one statistic (its unit is reported)
        den_name = s.denominator[0] if len(den) == 1 else s.id + ":denominator"
        out_specs.append(
            replace(
                s,
                stats=(s.id + ":numerator", den_name),
                value=_ratio_of_two,
                denominator=(den_name,),
                numerator=(s.id + ":numerator",),
            )
        )
        out_cols[s.id] = [column(num), column(den)]
    Xr = np.empty((X.shape[0], len(sets)))
    for key, k in sets.items():
        Xr[:, k] = X[:, key[0]] if len(key) == 1 else X[:, list(key)].sum(axis=1)
    return Xr, out_specs, out_cols
