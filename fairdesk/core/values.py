"""Plain values of tables: a cell as text (missing cells are empty), blank cells, and whether a
frame is a classification table. Below every reader and metric, so the table reader and the
metrics decide these the same way."""

from __future__ import annotations

import math


def as_text(value) -> str:
    """Return ``value`` as a string, with ``None``, NaN and ``pd.NA`` mapped to ``""``.

    Parameters
    ----------
    value : str, None, float NaN, pandas NA, or anything with a ``str()``.

    Returns
    -------
    str
    """
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, float) and math.isnan(value):
        return ""
    try:
        import pandas as pd

        if value is pd.NA or value is pd.NaT:
            return ""
    except ImportError:  # pragma: no cover - pandas is a dependency
        pass
    return str(value)


def blank(series):
    """Per cell of a pandas Series: whether it is missing or only white space."""
    return series.map(lambda v: not as_text(v).strip()).astype(bool)


def classification_only(
    frame,
    ref_col: str = "reference",
    label_col: str = "label",
    pred_col: str = "predicted_label",
) -> bool:
    """Whether the frame is a classification table: true and predicted labels, and no
    reference transcript at all (no column, or every cell empty)."""
    if label_col not in frame.columns or pred_col not in frame.columns:
        return False
    return ref_col not in frame.columns or bool(blank(frame[ref_col]).all())
