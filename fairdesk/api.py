"""fairdesk's public Python API: audit a table, or open a project and audit its datasets.

>>> import fairdesk
>>> run = fairdesk.audit_table(df, by="accent")        # doctest: +SKIP
>>> run.by_group                                        # doctest: +SKIP

Every call returns a :class:`~fairdesk.jobs.result.AuditRun`, the same typed result the
command line writes with ``--json`` and the desktop app stores: ``by_group`` (one row per
group, one column per metric, as fairlearn's ``MetricFrame.by_group``), ``overall``,
``comparisons_table`` (one row per comparison with its verdict), ``groups`` /
``comparisons`` (typed records) and ``to_json()``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

    from .jobs.result import AuditRun
    from .stats.settings import AuditSettings

__all__ = ["FairdeskProject", "audit_table", "open_project"]


def _settings(settings: AuditSettings | None, options: Mapping) -> AuditSettings:
    """``settings`` (default: the command line's defaults, so ``normaliser="auto"``) with
    the statistics options changed."""
    from .stats.settings import AuditSettings

    base = settings if settings is not None else AuditSettings(normaliser="auto")
    known = {f.name for f in dataclasses.fields(AuditSettings)}
    unknown = sorted(set(options) - known)
    if unknown:
        raise TypeError(
            f"unknown statistics option(s) {unknown}; the options are the fields of "
            f"AuditSettings: {', '.join(sorted(known))}"
        )
    return dataclasses.replace(base, **options) if options else base


def _with_missing(options: Mapping, include_missing: bool | None) -> dict:
    """The statistics options with ``include_missing`` where it is given."""
    out = dict(options)
    if include_missing is not None:
        out["include_missing"] = bool(include_missing)
    return out


def audit_table(
    frame: pd.DataFrame | str | Path,
    by: str | Sequence[str],
    reference: str | None = None,
    metrics: Sequence[str] | None = None,
    language: str = "auto",
    settings: AuditSettings | None = None,
    *,
    filters: Mapping[str, Sequence[str]] | None = None,
    sample: int | None = None,
    model_based: bool = False,
    covariates: Sequence[str] = (),
    normaliser_sensitivity: bool = False,
    include_missing: bool | None = None,
    ref_col: str = "reference",
    hyp_col: str = "hypothesis",
    speaker_col: str | None = None,
    content_col: str = "content_id",
    **stats_options,
) -> AuditRun:
    """Audit a table of references and hypotheses (no audio), as ``fairdesk audit --table``.

    Parameters
    ----------
    frame : pandas.DataFrame or str or Path
        One row per utterance with a reference and a hypothesis column and the grouping
        column(s); optional speaker and content ids (the resampling uses them). Or a CSV,
        TSV, JSONL or Parquet file with those columns.
    by : str or sequence of str
        One or two grouping columns.
    reference : str, optional
        The reference group (default: the largest).
    metrics : sequence of str, optional
        Metric ids to test (default: every metric the table supports, less the
        descriptive ones).
    language : str
        Text language; ``auto`` decides from the references (English only when nearly every
        reference letter is ASCII).
    settings : AuditSettings, optional
        Statistics settings (default: the command line's defaults, the normaliser chosen
        from the language).
    filters : mapping, optional
        Column → allowed values.
    sample : int, optional
        Stratified sample of this many items per group.
    model_based : bool
        Also fit the mixed-effects Poisson model of word errors per grouping column.
    covariates : sequence of str
        Covariate columns of that model.
    normaliser_sensitivity : bool
        Re-score under each text normaliser and say whether each verdict holds.
    include_missing : bool, optional
        True: the items with no value for a grouping column form the tested group
        ``(missing)`` (never the default reference); False: a descriptive row, not compared
        (docs/METHODS.md, "Missing values"); None: as ``settings`` say (default False).
    ref_col, hyp_col, content_col : str
        The table's column names.
    speaker_col : str, optional
        The speaker column (default: ``speaker_id``, else one of ``speaker``, ``spk``,
        ``spk_id``, ``speakerid``, ``client_id``, ``participant``, ``participant_id``,
        ``talker``, ``subject``, ``subject_id``, ``reader`` in any case; two of them are
        refused). Without speaker ids each utterance counts as independent and
        ``run.warnings`` says so.
    **stats_options
        Fields of :class:`~fairdesk.stats.settings.AuditSettings` to change
        (``n_bootstrap=500``, ``alpha=0.01``, ``min_items=10``, ``seed=1``, ...).

    Returns
    -------
    AuditRun
        The typed result; ``run.by_group`` is the group table, ``run.comparisons_table``
        the comparisons with their verdicts.

    Examples
    --------
    >>> run = fairdesk.audit_table(df, by="accent", n_bootstrap=500)  # doctest: +SKIP
    >>> print(run.by_group)  # doctest: +SKIP
    """
    from .jobs.table_audit import audit_table as _audit_table
    from .presentation.warnings import with_worded_warnings

    run = _audit_table(
        frame,
        by=by,
        reference=reference,
        metrics=metrics,
        language=None if language in (None, "", "auto") else language,
        filters=filters,
        sample=sample,
        settings=_settings(settings, _with_missing(stats_options, include_missing)),
        model_based=model_based,
        covariates=covariates,
        normaliser_sensitivity=normaliser_sensitivity,
        ref_col=ref_col,
        hyp_col=hyp_col,
        speaker_col=speaker_col,
        content_col=content_col,
    )
    return with_worded_warnings(run)  # the typed warnings (no speaker ids ...) in words


class FairdeskProject:
    """A fairdesk project folder opened from Python (:func:`open_project`).

    Parameters
    ----------
    path : str or Path
        The project folder (it must hold a project: ``fairdesk init`` makes one).

    Attributes
    ----------
    path : Path
        The folder.
    """

    def __init__(self, path: str | Path):
        from .core.store import Project

        self.path = Path(path)
        self._project = Project(self.path, create=False)

    def __repr__(self) -> str:
        return f"FairdeskProject({str(self.path)!r}, datasets={self.datasets!r})"

    def __enter__(self) -> FairdeskProject:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Close the project's database connection."""
        self._project.close()

    @property
    def datasets(self) -> list[str]:
        """The names of the project's datasets."""
        return [d.name for d in self._project.datasets()]

    def runs(self, done_only: bool = True) -> pd.DataFrame:
        """The project's audit runs, newest first.

        Parameters
        ----------
        done_only : bool
            Only the finished runs (those :meth:`run` opens).

        Returns
        -------
        pandas.DataFrame
            Columns ``run_id``, ``dataset``, ``model``, ``status``, ``created_at``.
        """
        import pandas as pd

        from .core.runs import AUDIT, list_runs, run_kind

        rows = [
            {
                "run_id": r["id"],
                "dataset": r["dataset"],
                "model": r["model_id"],
                "status": r["status"],
                "created_at": r["created_at"],
            }
            for r in list_runs(self._project, done_only=done_only)
            if run_kind(r["settings"]) == AUDIT
        ]
        cols = ["run_id", "dataset", "model", "status", "created_at"]
        return pd.DataFrame(rows, columns=cols)

    def run(self, run_id: int) -> AuditRun:
        """A stored run (also one stored by an older fairdesk).

        Parameters
        ----------
        run_id : int
            The run's id (:meth:`runs`).

        Returns
        -------
        AuditRun
        """
        from .core.runs import run_payload
        from .jobs.result import AuditRun

        return AuditRun.from_json(run_payload(self._project, int(run_id)))

    def audit(
        self,
        dataset: str,
        model: str,
        by: str | Sequence[str],
        reference: str | None = None,
        metrics: Sequence[str] | None = None,
        settings: AuditSettings | None = None,
        *,
        filters: Mapping[str, Sequence[str]] | None = None,
        sample: int | None = None,
        normaliser_sensitivity: bool = False,
        include_missing: bool | None = None,
        progress: Callable[[float, str], None] | None = None,
        request_options: Mapping | None = None,
        **stats_options,
    ) -> AuditRun:
        """Run an audit of a dataset with a model (``fairdesk audit --project``).

        Parameters
        ----------
        dataset : str
            The dataset's name (:attr:`datasets`).
        model : str
            The model (``whisper-tiny.en``, ``hf:<folder>``, ``predictions:<file>``, ...).
        by : str or sequence of str
            One or two grouping columns.
        reference : str, optional
            The reference group (default: the largest).
        metrics : sequence of str, optional
            Metric ids to test.
        settings : AuditSettings, optional
            Statistics settings.
        filters : mapping, optional
            Column → allowed values.
        sample : int, optional
            Stratified sample of this many items per group.
        normaliser_sensitivity : bool
            Re-score the run under each text normaliser.
        include_missing : bool, optional
            True: the items with no value for a grouping column form the tested group
            ``(missing)``; False: a descriptive row (docs/METHODS.md, "Missing values");
            None: as ``settings`` say.
        progress : callable, optional
            ``progress(fraction, message)``.
        request_options : mapping, optional
            Other fields of :class:`~fairdesk.jobs.request.AuditRequest` (``device``,
            ``nlu``, ``representation``, ``explain``, ``model_based``, ``engine``, ...).
        **stats_options
            Fields of ``AuditSettings`` to change.

        Returns
        -------
        AuditRun
            The typed result (answered from the stored results when the same request ran
            before: ``from_cache``).
        """
        from .jobs.analysis import split_metric_ids, wants_explain
        from .jobs.request import AuditRequest
        from .jobs.table_audit import audit_project

        by = (by,) if isinstance(by, str) else tuple(by)
        wanted, rep = split_metric_ids(list(metrics) if metrics else None)
        options = dict(request_options or {})
        if rep:
            options["representation"] = True
        if wants_explain(metrics):
            options["explain"] = True
        req = AuditRequest(
            dataset=dataset,
            model=model,
            by=by,
            filters=tuple((k, tuple(v)) for k, v in sorted((filters or {}).items())),
            reference=reference,
            metrics=tuple(wanted) if wanted else None,
            sample=sample,
            settings=_settings(settings, _with_missing(stats_options, include_missing)),
            **options,
        )
        from .presentation.warnings import with_worded_warnings

        out = audit_project(
            self._project, req, normaliser_sensitivity=normaliser_sensitivity, progress=progress
        )
        return with_worded_warnings(out.result)  # the typed warnings in words


def open_project(path: str | Path) -> FairdeskProject:
    """Open a fairdesk project folder.

    Parameters
    ----------
    path : str or Path
        The folder (it must hold a project).

    Returns
    -------
    FairdeskProject
        ``.datasets``, ``.runs()``, ``.run(run_id)`` and ``.audit(...)``.
    """
    return FairdeskProject(path)
