"""Block labels of the resampling: speaker or content ids with their missing values (None,
NaN, or a negative integer code), as integer codes where each missing label is its own block.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def _missing_mask(values: np.ndarray) -> np.ndarray:
    """Missing labels: None/NaN, or negative codes in an integer array."""
    values = np.asarray(values)
    if values.dtype.kind in "iu":
        return values < 0
    return pd.isna(values)


def _codes(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes ``0..n-1`` of labels and the labels; a missing label is its own block."""
    values = np.asarray(values)
    missing = _missing_mask(values)
    if missing.any():
        values = values.astype(object)
        values[missing] = None
    codes, uniq = pd.factorize(values)
    labels = np.asarray(uniq, dtype=object)
    if missing.any():
        n_missing = int(missing.sum())
        codes = codes.copy()
        codes[missing] = len(labels) + np.arange(n_missing)
        labels = np.concatenate([labels, np.array([None] * n_missing, dtype=object)])
    return codes.astype(np.int64), labels


def _present(values: np.ndarray) -> set:
    values = np.asarray(values)
    return set(pd.unique(values[~_missing_mask(values)]).tolist())
