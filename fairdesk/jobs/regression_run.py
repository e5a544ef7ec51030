"""Regression tests (METHODS.md §4) of a stored run, and storing their result with the run.

Pure code, no Qt: the GUI's Regression tab runs :func:`regress_run` as a background job and
the CLI's ``regress --project P --run N`` can call the same function. The result is stored in
the ``results`` table with ``kind='regression'`` (:func:`store_regression`), so the tab, the
report and later sessions find it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from ..core.runs import add_result, results_for_run
from ..core.store import Project

#: The outcomes a stored run can be regressed on: id -> what it means.
OUTCOMES = {
    "correct": "recognised without error (logistic regression of 0/1 per utterance)",
    "wer": "word errors out of reference words (binomial regression)",
    "em": "exact match of intent and slots (logistic regression)",
}
KIND = "regression"


def outcome_frame(frame, outcome: str):
    """Derive the regression outcome from a run's per-item rows.

    Parameters
    ----------
    frame : pandas.DataFrame of the run's items (``run_items_frame``).
    outcome : ``"correct"``, ``"wer"``, ``"em"`` or an existing 0/1 column.

    Returns
    -------
    (frame, column, binomial, label)
        The rows used, the outcome column, ``(errors, words)`` for a binomial model (else
        None) and how sentences name the outcome.

    Raises
    ------
    ValueError
        The run lacks what the outcome needs (the message says which outcome to use).
    """
    df = frame.copy()
    if outcome == "em":
        if "em" not in df.columns or df["em"].notna().sum() == 0:
            raise ValueError(
                "outcome 'em' needs intent and slot labels (this run has no exact "
                "match); use the outcome 'correct' or 'wer'"
            )
        return df[df["em"].notna()], "em", None, "exact match"
    errs = None
    if {"n_sub", "n_del", "n_ins"} <= set(df.columns):
        errs = df["n_sub"] + df["n_del"] + df["n_ins"]
    if outcome == "correct":
        if errs is None:
            raise ValueError(
                "outcome 'correct' needs word-error counts (n_sub, n_del, n_ins); this run has none"
            )
        df["correct"] = (errs == 0).astype(int)
        return df, "correct", None, "recognised without error"
    if outcome == "wer":
        if errs is None or "n_words" not in df.columns:
            raise ValueError(
                "outcome 'wer' needs word-error counts and reference word counts "
                "(n_sub, n_del, n_ins, n_words); this run has none"
            )
        df["n_errors"] = errs
        df = df[df["n_words"] > 0]
        return df, "n_errors", ("n_errors", "n_words"), "word errors"
    if outcome not in df.columns:
        raise ValueError(
            f"no outcome column {outcome!r} in the run's items (columns: "
            f"{', '.join(map(str, df.columns))})"
        )
    return df, outcome, None, outcome


def default_request(payload: dict, columns: Sequence[str]) -> dict:
    """The regression a run suggests: its grouping columns as variables, ``em`` when the run
    has exact match else ``correct``, speakers as clusters when the items name them."""
    tested = set(payload.get("tested_metrics") or []) | set(
        payload.get("descriptive_metrics") or []
    )
    outcome = "em" if "em" in tested and "em" in columns else "correct"
    variables = [b for b in payload.get("by") or [] if b in columns]
    return {
        "outcome": outcome,
        "variables": variables,
        "cluster": "speaker_id" if "speaker_id" in columns else None,
        "alpha": 0.05,
    }


def regress_run(
    folder,
    run_id: int,
    outcome: str,
    variables: Sequence[str],
    cluster: str | None = "speaker_id",
    alpha: float = 0.05,
    references: dict | None = None,
    store: bool = True,
    *,
    progress: Callable[[float, str], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> dict:
    """Fit the regression tests of a finished run and (by default) store them with it.

    Parameters
    ----------
    folder : the project folder (a job opens its own connection).
    run_id : a finished run with stored per-item results.
    outcome : see :data:`OUTCOMES` (or a 0/1 column of the items).
    variables : demographic columns of the items (one or more).
    cluster : speaker column for the clustered models (None: plain models only).
    alpha : significance level; CIs are at ``1 - alpha``.
    references : variable -> reference level (default: the run's reference for its one
        grouping column, else the largest level).
    store : store the result with the run (``results`` row, kind ``regression``).
    progress, cancelled : job callbacks (the fit itself is not interruptible).

    Returns
    -------
    dict
        ``{"run_id", "request", "result", "created_at", "result_id"}``; ``result`` is
        :meth:`RegressionResult.to_dict` with details.

    Raises
    ------
    ValueError
        Unknown run, outcome or variable, or data the models cannot use.
    """
    from ..core.runs import run_items_frame, run_payload
    from ..stats.regression import run_regression

    variables = [v for v in dict.fromkeys(variables) if v]
    if not variables:
        raise ValueError("choose at least one variable to regress on")
    project = Project(folder, create=False)
    try:
        if progress:
            progress(0.05, "reading the run's items")
        payload = run_payload(project, int(run_id))
        df = run_items_frame(project, int(run_id))
        missing = [v for v in variables if v not in df.columns]
        if missing:
            raise ValueError(
                f"unknown variable(s) {', '.join(missing)} (the run's item columns: "
                f"{', '.join(map(str, df.columns))})"
            )
        if cluster and cluster not in df.columns:
            raise ValueError(
                f"cluster column {cluster!r} is not in the run's items; choose another or none"
            )
        refs = dict(references or {})
        by = payload.get("by") or []
        if len(by) == 1 and by[0] in variables and payload.get("reference"):
            refs.setdefault(by[0], str(payload["reference"]).split("=", 1)[-1])
        df, col, binomial, label = outcome_frame(df, outcome)
        if cancelled is not None and cancelled():
            from ..core.progress import Cancelled

            raise Cancelled("regression cancelled")
        if progress:
            progress(0.2, f"fitting {label} on {', '.join(variables)}")
        res = run_regression(
            df,
            col,
            variables,
            references=refs or None,
            cluster=cluster or None,
            alpha=alpha,
            binomial=binomial,
            outcome_label=label,
        )
        out = {
            "run_id": int(run_id),
            "request": {
                "outcome": outcome,
                "variables": list(variables),
                "cluster": cluster or None,
                "alpha": float(alpha),
                "references": refs,
            },
            "result": res.to_dict(detail=True),
            "created_at": time.time(),
        }
        if store:
            out["result_id"] = store_regression(project, int(run_id), out)
        if progress:
            progress(1.0, "done")
        return out
    finally:
        project.close()


def store_regression(project: Project, run_id: int, payload: dict) -> int:
    """Store a regression payload (as :func:`regress_run` returns it) with run ``run_id``."""
    body = {k: v for k, v in payload.items() if k != "result_id"}
    return add_result(project, run_id, KIND, body)


def stored_regressions(project: Project, run_id: int) -> list[dict]:
    """The regressions stored with run ``run_id``, newest first (each with ``result_id``)."""
    rows = results_for_run(project, run_id, KIND)
    return [{**r["payload"], "result_id": r["id"]} for r in reversed(rows)]
