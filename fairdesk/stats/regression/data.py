"""Checking and preparing the frame: outcome, levels, references, clusters, dropped rows."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..notices import Notice, notice
from .codes import (
    CAPPED_ERRORS,
    FEW_CLUSTERS,
    MISSING_COUNTS,
    MISSING_OUTCOME,
    MISSING_VARIABLE,
    NO_SPEAKER,
    ZERO_WORDS,
)

_MIN_CLUSTERS_WARN = 20


@dataclass
class _Data:
    y: np.ndarray  # 0/1 outcome, or error counts (binomial)
    trials: np.ndarray | None  # words per utterance (binomial) or None
    values: dict[str, np.ndarray]  # variable -> str labels (object array, None when missing)
    levels: dict[str, list[str]]  # variable -> levels, reference first
    groups: np.ndarray | None  # cluster codes (int), unknown speakers as singletons
    index: pd.Index | None = None  # the frame's rows these arrays hold (in order)

    @property
    def binomial(self) -> bool:
        return self.trials is not None


def _ordered_levels(col: pd.Series) -> list[Any]:
    """Observed levels in a stable order: categorical order, else sorted, else first seen."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        seen = set(col.dropna().unique())
        return [c for c in col.cat.categories if c in seen]
    uniq = list(pd.unique(col.dropna()))
    try:
        return sorted(uniq)
    except TypeError:
        return sorted(uniq, key=str)


def _check_column(frame: pd.DataFrame, name: str, role: str) -> None:
    if not isinstance(name, str) or name not in frame.columns:
        cols = ", ".join(map(str, frame.columns))
        raise ValueError(
            f"{role} column {name!r} is not in the frame; available columns: {cols}. "
            "Pass the name of an existing column."
        )


def _prepare(
    frame: pd.DataFrame,
    outcome: str,
    variables: list[str],
    references: Mapping[str, Any] | None,
    cluster: str | None,
    binomial: tuple[str, str] | None,
    clip_errors: bool,
) -> tuple[_Data, dict[str, int], list[Notice]]:
    if not isinstance(frame, pd.DataFrame):
        raise ValueError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    if not variables:
        raise ValueError("variables is empty: name at least one demographic column to test")
    if len(set(variables)) != len(variables):
        raise ValueError(f"variables lists a column twice: {variables}; list each once")
    for var in variables:
        _check_column(frame, var, "Demographic variable")
    notes: list[Notice] = []
    dropped: dict[str, int] = {}

    if binomial is None:
        _check_column(frame, outcome, "Outcome")
        raw = frame[outcome]
        if raw.dtype == bool:
            raw = raw.astype(float)
        try:
            y_all = pd.to_numeric(raw, errors="raise").astype(float)
        except (ValueError, TypeError) as exc:
            raise ValueError(
                f"outcome column {outcome!r} must hold 0/1 values (e.g. exact match, or 1 when "
                f"an utterance has no word error); it holds non-numeric values: {exc}"
            ) from None
        bad = ~y_all.isna() & ~y_all.isin([0.0, 1.0])
        if bad.any():
            examples = ", ".join(map(repr, y_all[bad].unique()[:5].tolist()))
            raise ValueError(
                f"outcome column {outcome!r} must hold only 0/1 values; {int(bad.sum())} rows "
                f"hold other values ({examples}). For word errors pass "
                "binomial=(errors_column, words_column) instead."
            )
        keep = ~y_all.isna().to_numpy()
        if (~keep).any():
            dropped[outcome] = int((~keep).sum())
            notes.append(notice(MISSING_OUTCOME, n=int((~keep).sum()), outcome=outcome))
        y = y_all.to_numpy()[keep]
        trials = None
        if len(y) and np.unique(y).size < 2:
            raise ValueError(
                f"outcome column {outcome!r} is constant ({int(y[0])} on every row): there is "
                "no variation to explain"
            )
        roles = {outcome: "outcome"}
    else:
        if not (isinstance(binomial, (tuple, list)) and len(binomial) == 2):
            raise ValueError(
                "binomial must be a pair (errors_column, words_column), e.g. "
                "binomial=('n_errors', 'n_words')"
            )
        err_col, n_col = binomial
        _check_column(frame, err_col, "Error-count")
        _check_column(frame, n_col, "Word-count")
        try:
            err = pd.to_numeric(frame[err_col], errors="raise").astype(float).to_numpy()
            words = pd.to_numeric(frame[n_col], errors="raise").astype(float).to_numpy()
        except (ValueError, TypeError) as exc:
            raise ValueError(
                f"binomial columns {err_col!r} and {n_col!r} must be numeric counts: {exc}"
            ) from None
        keep = ~(np.isnan(err) | np.isnan(words))
        for name, arr in ((err_col, err), (n_col, words)):
            finite = arr[keep]
            if (finite < 0).any() or (finite != np.round(finite)).any():
                raise ValueError(
                    f"column {name!r} must hold non-negative whole counts; found "
                    f"{finite[(finite < 0) | (finite != np.round(finite))][:3].tolist()}"
                )
        if (~keep).any():
            dropped[err_col] = int((~keep).sum())
            notes.append(notice(MISSING_COUNTS, n=int((~keep).sum())))
        zero = keep & (words == 0)
        if zero.any():
            dropped[n_col] = int(zero.sum())
            notes.append(notice(ZERO_WORDS, n=int(zero.sum())))
            keep &= words > 0
        over = keep & (err > words)
        if over.any():
            if not clip_errors:
                raise ValueError(
                    f"{int(over.sum())} rows have more errors ({err_col}) than words ({n_col}), "
                    "which a binomial model cannot hold (insertions); pass clip_errors=True or "
                    "count substitutions + deletions only"
                )
            notes.append(notice(CAPPED_ERRORS, n=int(over.sum())))
            err = np.where(over, words, err)
        y, trials = err[keep], words[keep]
        if len(y) and (y.sum() == 0 or y.sum() == trials.sum()):
            raise ValueError(
                f"{err_col!r} is {'0' if y.sum() == 0 else 'equal to ' + repr(n_col)} on every "
                "row: there is no variation to explain"
            )
        roles = {err_col: "error count", n_col: "word count"}

    if cluster is not None:
        _check_column(frame, cluster, "Cluster (speaker)")
        roles[cluster] = "cluster"
    for var in variables:
        if var in roles:
            raise ValueError(
                f"{var!r} is used both as a demographic variable and as the {roles[var]} column"
            )

    sub = frame.loc[keep]
    references = dict(references or {})
    unknown = [k for k in references if k not in variables]
    if unknown:
        raise ValueError(f"references names {unknown}, which are not among variables {variables}")

    values: dict[str, np.ndarray] = {}
    levels: dict[str, list[str]] = {}
    for var in variables:
        col = sub[var]
        ordered = [str(v) for v in _ordered_levels(col)]
        labels = np.array([None if pd.isna(v) else str(v) for v in col], dtype=object)
        n_missing = int(sum(v is None for v in labels))
        if n_missing:
            dropped[var] = n_missing
            notes.append(notice(MISSING_VARIABLE, n=n_missing, variable=var))
        if len(ordered) < 2:
            raise ValueError(
                f"variable {var!r} has {len(ordered)} level(s) ({ordered}) on the rows with a "
                "known outcome: a test needs at least two; drop it from variables"
            )
        counts = pd.Series(labels).value_counts()
        if var in references:
            ref = str(references[var])
            if ref not in ordered:
                raise ValueError(
                    f"reference level {ref!r} for {var!r} is not among its levels {ordered}"
                )
        else:  # largest level by items; ties go to the first in level order
            ref = max(ordered, key=lambda lev: (counts.get(lev, 0), -ordered.index(lev)))
        levels[var] = [ref] + [lev for lev in ordered if lev != ref]
        values[var] = labels

    groups = None
    if cluster is not None:
        codes, uniques = pd.factorize(sub[cluster])
        missing = codes < 0
        if missing.any():
            codes = codes.copy()
            codes[missing] = len(uniques) + np.arange(int(missing.sum()))
            notes.append(notice(NO_SPEAKER, n=int(missing.sum()), cluster=cluster))
        groups = codes.astype(int)
        n_clusters = int(np.unique(groups).size)
        if n_clusters < 2:
            raise ValueError(f"cluster column {cluster!r} has a single cluster: nothing to cluster")
        if n_clusters < _MIN_CLUSTERS_WARN:
            notes.append(
                notice(FEW_CLUSTERS, n=n_clusters, cluster=cluster, minimum=_MIN_CLUSTERS_WARN)
            )
    data = _Data(y=y, trials=trials, values=values, levels=levels, groups=groups, index=sub.index)
    return data, dropped, notes
