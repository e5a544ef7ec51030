"""Checks of per-item transcripts before scoring (docs/METHODS.md, "Missing values").

A row whose reference is missing (empty cell, NaN, only spaces) cannot be scored: scoring it
would count every hypothesis word as an insertion. It becomes a *problem* naming its line and
is left out. An empty hypothesis is a real output (no words on hard audio): it is kept and
counts as all deletions, with a warning giving the count.
"""

from __future__ import annotations

import pandas as pd

from ..core.values import as_text, blank, classification_only

__all__ = ["check_transcripts", "classification_only"]


def _line(frame: pd.DataFrame, pos: int):
    if "line" in frame.columns:
        v = frame["line"].iloc[pos]
        try:
            return int(v)
        except (TypeError, ValueError):
            return v
    v = frame.index[pos]
    return int(v) if isinstance(v, int) or hasattr(v, "__index__") else v


def check_transcripts(
    frame: pd.DataFrame, ref_col: str = "reference", hyp_col: str = "hypothesis"
) -> tuple[pd.DataFrame, list[dict], list[str]]:
    """Leave out rows without a reference; count empty hypotheses.

    Parameters
    ----------
    frame : per-item frame. Line numbers come from its ``line`` column when it has one
        (e.g. the table reader's file line), else from its index.
    ref_col, hyp_col : the transcript columns (a frame without ``ref_col`` is returned
        unchanged: e.g. a classification table).

    Returns
    -------
    (kept, problems, warnings)
        ``kept``: the rows with a reference (index kept; a classification table, see
        :func:`classification_only`, is returned whole); ``problems``: ``{"line": line,
        "item": id (when the frame has ``item_id``/``id``), "reason": ...}`` per left-out
        row; ``warnings``: sentences (the empty-hypothesis count).
    """
    if ref_col not in frame.columns or classification_only(frame, ref_col):
        return frame, [], []
    empty_ref = blank(frame[ref_col]).to_numpy()
    problems = []
    id_col = next((c for c in ("item_id", "id") if c in frame.columns), None)
    for pos in empty_ref.nonzero()[0]:
        p = {
            "line": _line(frame, int(pos)),
            "reason": f"empty {ref_col}: the row cannot be scored (every hypothesis word "
            "would count as an insertion) and is left out; fill in the reference or drop "
            "the row",
        }
        if id_col is not None:
            p["item"] = as_text(frame[id_col].iloc[pos])
        problems.append(p)
    kept = frame.loc[~empty_ref]
    warnings = []
    if hyp_col in kept.columns:
        n_empty = int(blank(kept[hyp_col]).sum())
        if n_empty:
            warnings.append(
                f"{n_empty} item(s) have an empty {hyp_col} (the model produced no words): "
                "each counts as all deletions"
            )
    return kept, problems, warnings
