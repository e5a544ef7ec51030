"""The table audit job: a table of references and hypotheses (no audio, no project) to one
typed :class:`~fairdesk.jobs.result.AuditRun` (``fairdesk audit --table``,
``fairdesk.audit_table``).

Slicing, sampling and the run cap, the analysis (:func:`fairdesk.jobs.analysis.analyse`),
the table's problems, the optional model-based block and the normaliser sensitivity, with
plain keyword arguments. Also :func:`audit_project`: the project audit
(:func:`fairdesk.jobs.audit.run_audit`) with the normaliser sensitivity after it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal, overload

from ..core.errors import FairdeskError
from .result import AuditRun
from .result_codec import canonical
from .result_parts import RunSettings, TableRows

if TYPE_CHECKING:
    import pandas as pd

    from ..core.store import Project
    from ..stats.settings import AuditSettings
    from .request import AuditOutcome, AuditRequest

__all__ = ["audit_project", "audit_table", "table_input"]


def table_input(
    table,
    ref_col: str = "reference",
    hyp_col: str = "hypothesis",
    speaker_col: str | None = None,
    content_col: str = "content_id",
) -> tuple[pd.DataFrame, list[dict]]:
    """The per-item audit frame of a table (a DataFrame, or a CSV/TSV/JSONL/Parquet path)
    and its problems.

    Renames the named columns to ``reference``, ``hypothesis``, ``speaker_id``,
    ``content_id``; an item without an ``item_id`` column is named by its line (the row
    index of a DataFrame); a missing ``content_id`` is derived from the reference. A frame
    already in this form is returned as it is.

    Parameters
    ----------
    table : pandas.DataFrame or str or Path
        The rows, or a file.
    ref_col, hyp_col, content_col : str
        The table's columns for the reference, hypothesis and content id.
    speaker_col : str, optional
        The speaker column; None: found by the one rule
        (:func:`fairdesk.core.speaker_columns.find_speaker_column`).

    Returns
    -------
    (pandas.DataFrame, list of dict)
        The frame and the rows left out (``line``, ``reason``, ``source``).

    Raises
    ------
    FairdeskError
        The file cannot be read, or a named column is missing.
    """
    import pandas as pd

    from ..core.table_input import read_any_table, rows_frame
    from ..core.tables import TableError

    try:
        if isinstance(table, pd.DataFrame):
            df, problems, source = table.copy(), [], "table"
        else:  # the one reader of table files (missing, unreadable, not a regular file)
            df, problems = read_any_table(table)
            source = str(table)
        return rows_frame(
            df,
            problems,
            source=source,
            ref_col=ref_col,
            hyp_col=hyp_col,
            speaker_col=speaker_col,
            content_col=content_col,
        )
    except TableError as exc:  # MissingColumn included
        raise FairdeskError(str(exc)) from None


@overload
def audit_table(
    table,
    *,
    by: Sequence[str] | str,
    reference: str | None = None,
    metrics: Sequence[str] | None = None,
    language: str | None = None,
    filters: Mapping[str, Sequence[str]] | None = None,
    sample: int | None = None,
    settings: AuditSettings | None = None,
    model_based: bool = False,
    covariates: Sequence[str] = (),
    normaliser_sensitivity: bool = False,
    problems: Sequence[Mapping] = (),
    source: str | None = None,
    ref_col: str = "reference",
    hyp_col: str = "hypothesis",
    speaker_col: str | None = None,
    content_col: str = "content_id",
    return_frame: Literal[False] = False,
) -> AuditRun: ...


@overload
def audit_table(
    table,
    *,
    by: Sequence[str] | str,
    reference: str | None = None,
    metrics: Sequence[str] | None = None,
    language: str | None = None,
    filters: Mapping[str, Sequence[str]] | None = None,
    sample: int | None = None,
    settings: AuditSettings | None = None,
    model_based: bool = False,
    covariates: Sequence[str] = (),
    normaliser_sensitivity: bool = False,
    problems: Sequence[Mapping] = (),
    source: str | None = None,
    ref_col: str = "reference",
    hyp_col: str = "hypothesis",
    speaker_col: str | None = None,
    content_col: str = "content_id",
    return_frame: Literal[True],
) -> tuple[AuditRun, pd.DataFrame]: ...


def audit_table(
    table,
    *,
    by: Sequence[str] | str,
    reference: str | None = None,
    metrics: Sequence[str] | None = None,
    language: str | None = None,
    filters: Mapping[str, Sequence[str]] | None = None,
    sample: int | None = None,
    settings: AuditSettings | None = None,
    model_based: bool = False,
    covariates: Sequence[str] = (),
    normaliser_sensitivity: bool = False,
    problems: Sequence[Mapping] = (),
    source: str | None = None,
    ref_col: str = "reference",
    hyp_col: str = "hypothesis",
    speaker_col: str | None = None,
    content_col: str = "content_id",
    return_frame: bool = False,
) -> AuditRun | tuple[AuditRun, pd.DataFrame]:
    """Audit a table of references and hypotheses: every text metric, no audio.

    Parameters
    ----------
    table : pandas.DataFrame or str or Path
        The rows (see :func:`table_input`), or a CSV/TSV/JSONL/Parquet file.
    by : str or sequence of str
        One or two grouping columns.
    reference : str, optional
        Reference group (None: the largest).
    metrics : sequence of str, optional
        Metric ids to test (None: every metric the table supports, less the descriptive
        ones).
    language : str, optional
        Text language (None or ``auto``: decided from the references).
    filters : mapping, optional
        Column → allowed values.
    sample : int, optional
        Stratified sample of this many items per group.
    settings : AuditSettings, optional
        Statistics settings (None: the defaults).
    model_based : bool
        Also fit the mixed-effects Poisson model of word errors per grouping column.
    covariates : sequence of str
        Covariate columns of that model.
    normaliser_sensitivity : bool
        Re-score under each normaliser and say whether each verdict holds.
    problems : sequence of mapping
        Rows already left out by the caller's reading of the file (``line``, ``reason``,
        ``source``).
    source : str, optional
        The table's name in the result (``table``; default: the path, or ``table``).
    ref_col, hyp_col, content_col : str
        The table's column names.
    speaker_col : str, optional
        The speaker column (None: ``speaker_id``, else one of the usual names; two of them
        are refused, see :func:`fairdesk.core.speaker_columns.find_speaker_column`).
    return_frame : bool
        Return ``(run, frame)``: also the analysed per-item frame (what a comparison of
        systems reads, :mod:`fairdesk.jobs.system_run`).

    Returns
    -------
    AuditRun
        The typed result (``table``, ``problems``; ``model_based`` and
        ``normaliser_sensitivity`` when asked for).

    Raises
    ------
    FairdeskError
        No usable row, an unknown column, representation or grounding metrics (they need
        audio), a run over the cap.
    """
    from ..stats.settings import AuditSettings
    from ..stats.slicing import check_run_cap, slice_frame, stratified_sample
    from .analysis import analyse, split_metric_ids, wants_explain

    settings = settings if settings is not None else AuditSettings()
    by = [by] if isinstance(by, str) else list(by)
    filters = {k: list(v) for k, v in (filters or {}).items()}
    name = (
        source
        if source is not None
        else (str(table) if isinstance(table, (str, Path)) else "table")
    )
    from ..core.table_input import no_rows_message, row_warnings, speaker_source

    frame, read_problems = table_input(table, ref_col, hyp_col, speaker_col, content_col)
    spk_source = speaker_source(frame)
    n_rows = len(frame) + len(problems) + len(read_problems)  # the file's data rows
    if frame.empty:
        raise FairdeskError(f"--table {no_rows_message(name, [*problems, *read_problems])}")
    suspicious = row_warnings(frame, name)
    wanted, rep = split_metric_ids(list(metrics) if metrics else None)
    if rep:
        raise FairdeskError(
            "silhouette and leakage need embeddings of the audio; audit a project "
            "dataset with a model instead of --table"
        )
    if wants_explain(metrics):
        raise FairdeskError(
            "grounding_lift needs saliency maps of the audio; audit a project "
            "dataset with a model (--explain) instead of --table"
        )
    try:
        frame = slice_frame(frame, by, filters, include_missing=settings.include_missing)
        if sample:
            frame = stratified_sample(frame, "group", int(sample), seed=settings.seed)
        check_run_cap(frame, settings.max_items)
    except KeyError as exc:
        raise FairdeskError(str(exc)) from None
    frame, run = analyse(
        frame,
        settings,
        reference=reference,
        wanted=wanted,
        language=language,
        speaker_column=spk_source,
    )
    every = [*problems, *read_problems]
    every += [{**pr, "source": name} for pr in _input_problems(run)]
    every = sorted(every, key=lambda pr: pr.get("line") or 0)
    run = replace(
        run,
        table=name,
        by=tuple(by),
        failures=(),
        problems=canonical(every),
        table_rows=TableRows(n_rows, len(frame), len(every), tuple(suspicious)),
        from_cache=False,
        run_settings=RunSettings(
            language=language or "auto", by=tuple(by), filters=canonical(filters)
        ),
    )
    if model_based and run.groups:
        from .model_based import model_based_block
        from .result_parts import ModelBasedFit

        missing = [c for c in covariates if c not in frame.columns]
        if missing:
            raise FairdeskError(
                f"--covariates {missing}: no such column in --table "
                f"(columns: {', '.join(map(str, frame.columns))})"
            )
        run = replace(
            run,
            model_based=canonical(
                model_based_block(frame, run, by, covariates), dict[str, ModelBasedFit]
            ),
        )
    if normaliser_sensitivity:
        from .sensitivity import sensitivity_stage

        run = sensitivity_stage(frame, run, settings)
    return (run, frame) if return_frame else run


def _input_problems(run: AuditRun) -> list[dict]:
    """The run's ``input_problems`` as JSON dicts."""
    from .result_codec import encode

    return [encode(p) for p in run.input_problems]


def audit_project(
    project: Project,
    req: AuditRequest,
    *,
    normaliser_sensitivity: bool = False,
    progress: Callable | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> AuditOutcome:
    """A project audit (:func:`fairdesk.jobs.audit.run_audit`) and, when asked for, the
    normaliser sensitivity of its items (also of a run answered from the cache).

    Parameters
    ----------
    project : Project
        The open project.
    req : AuditRequest
        The request.
    normaliser_sensitivity : bool
        Re-score the run's items under each normaliser.
    progress, cancelled : callable, optional
        The job's callbacks.

    Returns
    -------
    AuditOutcome
        The outcome; its ``result`` has ``normaliser_sensitivity`` when asked for.
    """
    from .audit import run_audit

    out = run_audit(project, req, progress=progress, cancelled=cancelled)
    if not normaliser_sensitivity or out.result.all_failed:
        return out
    from .sensitivity import sensitivity_stage

    frame = out.frame
    if frame is None:  # answered from the cache
        from ..core.runs import run_items_frame

        frame = run_items_frame(project, out.run_id)
    return replace(out, result=sensitivity_stage(frame, out.result, req.settings))
