"""Per-group confusion matrices for classifiers and intents."""

from __future__ import annotations

import pandas as pd

from .normalize import label_text

__all__ = ["NO_PREDICTION", "confusion_matrix"]

#: Column used for items whose prediction is missing, so rows still sum to group sizes.
NO_PREDICTION = "(no prediction)"


def confusion_matrix(
    frame: pd.DataFrame,
    group_col: str = "group",
    true_col: str = "label",
    pred_col: str = "predicted_label",
) -> dict[str, pd.DataFrame]:
    """One confusion matrix per group.

    Parameters
    ----------
    frame : the audit frame.
    group_col : column holding the group label (rows with a missing group are left out).
    true_col, pred_col : true and predicted labels; for intents pass ``"ref_intent"`` and
        ``"hyp_intent"``. Labels are compared as stripped strings (``1.0`` == ``1``).

    Returns
    -------
    dict
        group -> DataFrame with rows = true labels and columns = predicted labels, both the
        sorted labels of the *whole* frame (so every group's matrix has the same shape),
        counts as int. Items without a true label are left out; a missing prediction is
        counted in a ``"(no prediction)"`` column (present only when some prediction is
        missing). Each matrix's total is the group's number of labelled items, and row L sums
        to the group's number of items of true class L.

    Raises
    ------
    ValueError
        If a named column is missing (the message lists the frame's columns).
    """
    for col in (group_col, true_col, pred_col):
        if col not in frame.columns:
            raise ValueError(
                f"confusion_matrix: column {col!r} is not in the frame; its columns are "
                f"{list(frame.columns)}."
            )
    true = frame[true_col].map(label_text)
    pred = frame[pred_col].map(lambda v: label_text(v) or NO_PREDICTION)
    keep = (true != "") & frame[group_col].notna()
    data = pd.DataFrame({"g": frame[group_col][keep], "t": true[keep], "p": pred[keep]})
    labels = sorted(set(data["t"]) | (set(data["p"]) - {NO_PREDICTION}))
    cols = labels + ([NO_PREDICTION] if (data["p"] == NO_PREDICTION).any() else [])
    out = {}
    for group, part in data.groupby("g", sort=True):
        cm = pd.crosstab(part["t"], part["p"]).reindex(index=labels, columns=cols, fill_value=0)
        cm.index.name = true_col
        cm.columns.name = pred_col
        out[group] = cm.astype(int)
    return out
