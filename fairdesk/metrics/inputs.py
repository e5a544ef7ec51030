"""Checks of per-item transcripts before scoring (docs/METHODS.md, "Missing values").

A row whose reference is missing (empty cell, NaN, only spaces) cannot be scored: scoring it
would count every hypothesis word as an insertion. It becomes a *problem* naming its line and
is left out. An empty hypothesis is a real output (no words on hard audio): it is kept and
counts as all deletions, with a warning giving the count.

A reference that is not empty but has no word left after the run's normaliser (only emoji,
symbols or punctuation: "😀😀", "…") cannot be scored either, for the same reason: it is a
problem naming its line, the text and the normaliser, and is left out in the same way
(:func:`empty_after_normaliser`).
"""

from __future__ import annotations

import pandas as pd

from ..core.values import as_text, blank, classification_only

__all__ = ["check_transcripts", "classification_only", "empty_after_normaliser", "empty_hypotheses"]


def _line(frame: pd.DataFrame, pos: int):
    if "line" in frame.columns:
        v = frame["line"].iloc[pos]
        try:
            return int(v)
        except (TypeError, ValueError):
            return v
    v = frame.index[pos]
    return int(v) if isinstance(v, int) or hasattr(v, "__index__") else v


def empty_hypotheses(frame: pd.DataFrame, hyp_col: str = "hypothesis") -> int:
    """How many rows of ``frame`` have an empty (blank) ``hyp_col`` (0 without it)."""
    return int(blank(frame[hyp_col]).sum()) if hyp_col in frame.columns else 0


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
        n_empty = empty_hypotheses(kept, hyp_col)
        if n_empty:
            warnings.append(
                f"{n_empty} item(s) have an empty {hyp_col} (the model produced no words): "
                "each counts as all deletions"
            )
    return kept, problems, warnings


def empty_after_normaliser(
    frame: pd.DataFrame, stats: pd.DataFrame, normaliser: str, ref_col: str = "reference"
) -> tuple[pd.Series, list[dict]]:
    """The rows whose reference has no word after the normaliser, as problems.

    Parameters
    ----------
    frame : the rows :func:`check_transcripts` kept (their references are not blank).
    stats : their per-item stats, row for row (``n_words``; ``n_chars`` when present).
    normaliser : the run's normaliser, as the messages name it.

    Returns
    -------
    (keep, problems)
        ``keep``: a boolean mask by position (True: the row has words to score);
        ``problems``: ``{"line", "item" (when the frame has ids), "reason"}`` per other row.
    """
    import numpy as np

    if "n_words" not in stats.columns or ref_col not in frame.columns:
        return pd.Series(np.ones(len(frame), bool)), []
    empty = stats["n_words"].to_numpy(float) <= 0
    if "n_chars" in stats.columns:
        empty &= stats["n_chars"].to_numpy(float) <= 0
    id_col = next((c for c in ("item_id", "id") if c in frame.columns), None)
    problems = []
    for pos in empty.nonzero()[0]:
        text = as_text(frame[ref_col].iloc[pos])
        shown = text if len(text) <= 40 else text[:40] + "…"
        p = {
            "line": _line(frame, int(pos)),
            "reason": f"{ref_col} {shown!r} is empty after the {normaliser} normaliser (no "
            "letters or digits: only emoji, symbols or punctuation), so it has no words to "
            "score: the row is left out, as an empty reference is; write what was said in "
            "words, or drop the row",
        }
        if id_col is not None:
            p["item"] = as_text(frame[id_col].iloc[pos])
        problems.append(p)
    return pd.Series(~empty), problems
