"""Regression tests of bias (docs/METHODS.md, "Regression" and "Corpus-specific analyses") of a stored run or a table, and storing
their result with the run: the one regression job.

Pure code, no Qt: the GUI's Regression tab runs :func:`regress_run` as a background job and
``fairdesk regress`` calls :func:`regress_run` (``--project P --run N``) or
:func:`regress_table` (``--table F``); both derive the outcome with :func:`outcome_frame` and
fit with the same code. A run's result is stored in the ``results`` table with
``kind='regression'`` (:func:`store_regression`), so the tab, the report and later sessions
find it. Results are :class:`~fairdesk.jobs.regression_result.RegressionRun`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from ..core.runs import add_result, results_for_run
from ..core.store import Project
from .regression_result import (
    FAMILIES,
    ITEM_COVARIATES,
    RegressionRequest,
    RegressionRun,
    outcome_label,
)

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
        return df[df["em"].notna()], "em", None, outcome_label("em")
    errs = None
    if {"n_sub", "n_del", "n_ins"} <= set(df.columns):
        errs = df["n_sub"] + df["n_del"] + df["n_ins"]
    if outcome == "correct":
        if errs is None:
            raise ValueError(
                "outcome 'correct' needs word-error counts (n_sub, n_del, n_ins); this run has none"
            )
        df["correct"] = (errs == 0).astype(int)
        return df, "correct", None, outcome_label("correct")
    if outcome == "wer":
        if errs is None or "n_words" not in df.columns:
            raise ValueError(
                "outcome 'wer' needs word-error counts and reference word counts "
                "(n_sub, n_del, n_ins, n_words); this run has none"
            )
        df["n_errors"] = errs
        df = df[df["n_words"] > 0]
        return df, "n_errors", ("n_errors", "n_words"), outcome_label("wer")
    if outcome not in df.columns:
        raise ValueError(
            f"no outcome column {outcome!r} in the run's items (columns: "
            f"{', '.join(map(str, df.columns))})"
        )
    return df, outcome, None, outcome_label(outcome)


def default_request(run, columns: Sequence[str]) -> dict:
    """The regression a run suggests: its grouping columns as variables, ``em`` when the run
    has exact match else ``correct``, speakers as clusters when the items name them.

    Parameters
    ----------
    run : the run's :class:`~fairdesk.jobs.result.AuditRun` (None: no run, the defaults).
    columns : the columns of the run's item table.
    """
    tested = (
        set(run.tested_metrics or ()) | set(run.descriptive_metrics or ())
        if run is not None
        else set()
    )
    outcome = "em" if "em" in tested and "em" in columns else "correct"
    variables = [b for b in (run.by if run is not None else None) or () if b in columns]
    return {
        "outcome": outcome,
        "variables": variables,
        "cluster": "speaker_id" if "speaker_id" in columns else None,
        "alpha": 0.05,
    }


def _check_request(family, outcome, variables, covariates, interactions) -> None:
    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r}; use one of {', '.join(FAMILIES)}")
    if family in ("logit", "poisson-mixed") and not variables:
        raise ValueError(f"choose at least one variable to regress on (family {family})")
    if family == "linear" and not covariates:
        raise ValueError("family linear needs at least one covariate")
    if family == "poisson-mixed" and outcome not in (None, "wer"):
        raise ValueError(
            "family poisson-mixed models word errors (S+D+I per utterance); choose no outcome"
        )
    if family != "logit" and interactions:
        raise ValueError("interactions belong to family logit")


def _filtered(df, filters: dict | None):
    """Rows whose column equals one of the values given for it."""
    for col, values in (filters or {}).items():
        values = [str(v) for v in values]
        if col not in df.columns:
            raise ValueError(
                f"filter {col}: no such column (columns: {', '.join(map(str, df.columns))})"
            )
        kept = df[df[col].astype(str).isin(values)]
        if kept.empty:
            raise ValueError(
                f"filter {col}={'/'.join(values)}: no row left (values of "
                f"{col}: {', '.join(sorted(map(str, df[col].unique()))[:10])})"
            )
        df = kept
    return df


def _check_columns(df, variables, covariates) -> None:
    missing = [v for v in variables if v not in df.columns]
    if missing:
        raise ValueError(
            f"unknown variable(s) {', '.join(map(str, missing))} (the item columns: "
            f"{', '.join(map(str, df.columns))})"
        )
    missing = [c for c in covariates if c not in df.columns]
    if missing:
        hint = (
            " (per-item acoustic covariates are stored with project audits run by this "
            "fairdesk; a table must carry them as columns)"
            if any(c in ITEM_COVARIATES for c in missing)
            else ""
        )
        raise ValueError(
            f"unknown covariate(s) {missing}{hint}; columns: {', '.join(map(str, df.columns))}"
        )


def _fit(df, family, outcome, variables, covariates, refs, cluster, alpha, interactions, level):
    """Fit one family: its typed result."""
    if family == "poisson-mixed":
        from ..stats.regression import run_poisson_mixed

        fit = run_poisson_mixed(
            df,
            list(variables),
            list(covariates),
            reference=refs or None,
            speaker_col=cluster or "speaker_id",
            content_col="content_id" if "content_id" in df.columns else None,
            alpha=alpha,
        )
        # words: fairdesk.presentation.regression_poisson_words
        return fit
    spk = cluster or ("speaker_id" if "speaker_id" in df.columns else None)
    if family == "linear":
        from ..stats.regression.linear import run_linear

        return run_linear(
            df,
            list(covariates),
            list(variables),
            refs or None,
            outcome=outcome or "wer",
            speaker_col=spk,
            level=level,
            alpha=alpha,
        )
    from ..stats.regression import run_regression

    df, col, binomial, label = outcome_frame(df, outcome or "em")
    return run_regression(
        df,
        col,
        list(variables),
        references=refs or None,
        cluster=cluster or None,
        alpha=alpha,
        interactions=interactions,
        binomial=binomial,
        outcome_label=label,
        speaker_col=spk,
    )


def _regress(
    df,
    *,
    family,
    outcome,
    variables,
    covariates,
    filters,
    references,
    cluster,
    alpha,
    interactions,
    level,
    table,
    run_id,
    progress,
    cancelled,
) -> RegressionRun:
    df = _filtered(df, filters)
    _check_columns(df, variables, covariates)
    if cluster and cluster not in df.columns:
        if table and "speaker_id" in df.columns:  # the table reader renamed it
            cluster = "speaker_id"
        else:
            raise ValueError(
                f"cluster column {cluster!r} is not in the items (columns: "
                f"{', '.join(map(str, df.columns))}); choose another or none"
            )
    if cancelled is not None and cancelled():
        from ..core.progress import Cancelled

        raise Cancelled("regression cancelled")
    if progress:
        progress(0.2, f"fitting {family} on {', '.join(variables or covariates)}")
    result = _fit(
        df, family, outcome, variables, covariates, references, cluster, alpha, interactions, level
    )
    request = RegressionRequest(
        family=family,
        outcome=outcome or {"logit": "em", "linear": "wer"}.get(family, "word errors"),
        variables=tuple(variables),
        covariates=tuple(covariates),
        filters=tuple(f"{c}={v}" for c, vals in (filters or {}).items() for v in vals),
        cluster=cluster or None,
        alpha=float(alpha),
        references={str(k): str(v) for k, v in references.items()},
    )
    return RegressionRun(request, result, time.time(), run_id=run_id)


def regress_run(
    project,
    run_id: int,
    outcome: str | None,
    variables: Sequence[str],
    cluster: str | None = "speaker_id",
    alpha: float = 0.05,
    references: dict | None = None,
    store: bool = True,
    *,
    family: str = "logit",
    covariates: Sequence[str] = (),
    filters: dict | None = None,
    interactions: bool = False,
    level: str = "auto",
    progress: Callable[[float, str], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> RegressionRun:
    """Fit the regression tests of a finished run and (by default) store them with it.

    Parameters
    ----------
    project : the project folder (a job opens its own connection) or an open
        :class:`~fairdesk.core.store.Project`.
    run_id : a finished run with stored per-item results.
    outcome : logit: see :data:`OUTCOMES` (or a 0/1 column of the items; None: ``em``);
        linear: ``wer`` (None) or a numeric column; poisson-mixed: None (word errors).
    variables : demographic columns of the items (logit and poisson-mixed: one or more).
    cluster : speaker column for the clustered models (None: plain models only).
    alpha : significance level; CIs are at ``1 - alpha``.
    references : variable -> reference level (default: the run's reference for its one
        grouping column, else the largest level).
    store : store the result with the run (``results`` row, kind ``regression``).
    family : one of :data:`FAMILIES`.
    covariates : numeric columns (linear: required; poisson-mixed: optional), e.g.
        :data:`ITEM_COVARIATES`.
    filters : column -> accepted values (only these rows are fitted).
    interactions : logit: also the pairwise interactions.
    level : linear: ``auto``, ``speaker`` or ``utterance`` rows.
    progress, cancelled : job callbacks (the fit itself is not interruptible).

    Returns
    -------
    RegressionRun
        With ``result_id`` when stored.

    Raises
    ------
    ValueError
        Unknown run, family, outcome, variable, covariate or filter, or data the models
        cannot use (e.g. ``em`` on a run without exact match).
    """
    from ..core.runs import run_items_frame, run_payload

    variables = [v for v in dict.fromkeys(variables) if v]
    _check_request(family, outcome, variables, covariates, interactions)
    own = not isinstance(project, Project)
    proj = Project(project, create=False) if own else project
    try:
        if progress:
            progress(0.05, "reading the run's items")
        payload = run_payload(proj, int(run_id))
        df = run_items_frame(proj, int(run_id))
        refs = dict(references or {})
        by = payload.get("by") or []
        if len(by) == 1 and by[0] in variables and payload.get("reference"):
            refs.setdefault(by[0], str(payload["reference"]).split("=", 1)[-1])
        out = _regress(
            df,
            family=family,
            outcome=outcome,
            variables=variables,
            covariates=list(covariates),
            filters=filters,
            references=refs,
            cluster=cluster,
            alpha=alpha,
            interactions=interactions,
            level=level,
            table=False,
            run_id=int(run_id),
            progress=progress,
            cancelled=cancelled,
        )
        if store:
            out = out.with_result_id(store_regression(proj, int(run_id), out))
        if progress:
            progress(1.0, "done")
        return out
    finally:
        if own:
            proj.close()


def regress_table(
    path,
    outcome: str | None,
    variables: Sequence[str],
    cluster: str | None = None,
    alpha: float = 0.05,
    references: dict | None = None,
    *,
    family: str = "logit",
    covariates: Sequence[str] = (),
    filters: dict | None = None,
    interactions: bool = False,
    level: str = "auto",
    ref_col: str = "reference",
    hyp_col: str = "hypothesis",
    progress: Callable[[float, str], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> RegressionRun:
    """:func:`regress_run` on a table of references and hypotheses (no project, not stored).

    The table is read by :func:`fairdesk.core.table_input.table_frame` (``ref_col`` /
    ``hyp_col``; ``cluster`` names its speaker column) and its per-item word-error counts
    computed; a table without reference and hypothesis columns is used as it is (its own
    outcome and covariate columns).

    Raises
    ------
    ValueError
        As :func:`regress_run`, and a table that cannot be read
        (:class:`fairdesk.core.tables.TableError`).
    """
    from dataclasses import replace

    import pandas as pd

    from ..core.table_input import (
        MissingColumn,
        no_rows_message,
        read_any_table,
        row_warnings,
        table_frame,
    )
    from ..core.tables import TableError
    from ..metrics import compute_item_stats
    from .result_parts import TableRows

    variables = [v for v in dict.fromkeys(variables) if v]
    _check_request(family, outcome, variables, covariates, interactions)
    if progress:
        progress(0.05, "reading the table")
    try:
        df, problems = table_frame(
            path,
            ref_col=ref_col,
            hyp_col=hyp_col,
            speaker_col=cluster or None,  # None: the one rule (speaker_id, speaker, ...)
            content_col="content_id",
        )
        if cluster:  # the named speaker column is the frame's speaker_id now
            cluster = "speaker_id"
        stats = compute_item_stats(df)
        # the counts scored from the table's own texts replace any copies the table carries
        # (an exported run's n_words, read back as text, would otherwise be compared as str)
        df = pd.concat(
            [df.drop(columns=[c for c in stats.columns if c in df.columns]), stats], axis=1
        )
    except MissingColumn:  # no texts: the table's own columns are the outcome
        df, problems = read_any_table(path)
    if df.empty:
        raise TableError(no_rows_message(str(path), problems))
    rows = TableRows(
        len(df) + len(problems), len(df), len(problems), tuple(row_warnings(df, str(path)))
    )
    out = _regress(
        df,
        family=family,
        outcome=outcome,
        variables=variables,
        covariates=list(covariates),
        filters=filters,
        references=dict(references or {}),
        cluster=cluster,
        alpha=alpha,
        interactions=interactions,
        level=level,
        table=True,
        run_id=None,
        progress=progress,
        cancelled=cancelled,
    )
    if progress:
        progress(1.0, "done")
    return replace(out, table_rows=rows, table_problems=tuple(problems))


def store_regression(project: Project, run_id: int, result: RegressionRun | dict) -> int:
    """Store a regression (:func:`regress_run`'s result, or its JSON payload) with run
    ``run_id``; returns the ``results`` row's id."""
    body: dict
    if isinstance(result, RegressionRun):
        body = result.to_json()
    else:
        body = {k: v for k, v in result.items() if k != "result_id"}
    return add_result(project, run_id, KIND, body)


def stored_regressions(project: Project, run_id: int) -> list[RegressionRun]:
    """The regressions stored with run ``run_id``, newest first (each with ``result_id``;
    payloads of today's layout and of a schema version alike)."""
    rows = results_for_run(project, run_id, KIND)
    return [RegressionRun.from_json(r["payload"], r["id"]) for r in reversed(rows)]
