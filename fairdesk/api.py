"""fairdesk's public Python API: audit a table, or open a project and audit its datasets.

>>> import fairdesk
>>> run = fairdesk.audit_table(df, by="accent")        # doctest: +SKIP
>>> run.by_group                                        # doctest: +SKIP

Every call returns a :class:`~fairdesk.jobs.result.AuditRun`, the same typed result the
command line writes with ``--json`` and the desktop app stores: ``by_group`` (one row per
group, one column per metric, as fairlearn's ``MetricFrame.by_group``), ``overall``,
``comparisons_table`` (one row per comparison with its verdict), ``groups`` /
``comparisons`` (typed records) and ``to_json()``; :func:`reading` words a comparison as
every view does (``fairdesk.reading(run.comparisons[0], run)``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

    from .jobs.result import AuditRun
    from .stats.results import Comparison
    from .stats.settings import AuditSettings

__all__ = ["AuditSettings", "FairdeskProject", "audit_table", "open_project", "reading"]


def __getattr__(name: str):
    """``fairdesk.api.AuditSettings``: the statistics settings, imported on first use."""
    if name == "AuditSettings":
        from .stats.settings import AuditSettings

        return AuditSettings
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _named(
    n_bootstrap, alpha, min_items, min_speakers, seed, random_state, stats_options: Mapping
) -> dict:
    """The statistics options: the named ones given (not None), ``random_state`` read as
    ``seed`` (scikit-learn's name), then the other ``AuditSettings`` fields."""
    if random_state is not None and seed is not None and int(random_state) != int(seed):
        raise TypeError(
            f"seed={seed} and random_state={random_state}: random_state is another name for "
            "seed; give one of them"
        )
    named = {
        "n_bootstrap": n_bootstrap,
        "alpha": alpha,
        "min_items": min_items,
        "min_speakers": min_speakers,
        "seed": seed if seed is not None else random_state,
    }
    return {**{k: v for k, v in named.items() if v is not None}, **stats_options}


def _by_columns(frame, by) -> tuple[object, list[str]]:
    """``by`` as column names of ``frame``, as fairlearn's ``sensitive_features``: a column
    name, a pandas Series (aligned on the table's index; an unnamed one is ``by_1``, ...) or
    a list of them. A Series becomes a column of a copy of the table (the caller's frame is
    never changed)."""
    import pandas as pd

    items = list(by) if isinstance(by, (list, tuple)) else [by]
    if not items or len(items) > 2:
        raise ValueError(f"by: give one or two grouping columns or Series (got {len(items)})")
    names: list[str] = []
    added: dict[str, pd.Series] = {}
    for k, b in enumerate(items, 1):
        if isinstance(b, str):
            names.append(b)
            continue
        if not isinstance(b, pd.Series):
            raise TypeError(
                f"by: expected a column name or a pandas Series, got {type(b).__name__} "
                "(wrap an array as pd.Series(values, index=df.index))"
            )
        if not isinstance(frame, pd.DataFrame):
            raise TypeError(
                "by: a Series needs the table as a pandas DataFrame (read the file with "
                "pandas first, or name a column of the file)"
            )
        if b.index.equals(frame.index):
            col = pd.Series(b.to_numpy(), index=frame.index)
        elif (
            len(b) == len(frame)
            and b.index.is_unique
            and frame.index.is_unique
            and b.index.sort_values().equals(frame.index.sort_values())
        ):
            col = b.reindex(frame.index)  # the same rows in another order
        else:
            raise ValueError(
                f"by: the Series {b.name or k!r} has {len(b)} values whose index is not the "
                f"table's ({len(frame)} rows): give a Series with the table's index"
            )
        name = str(b.name) if b.name is not None else f"by_{k}"
        if name in frame.columns and not frame[name].equals(col):
            raise ValueError(
                f"by: the Series {name!r} differs from the table's column {name!r}: rename "
                "the Series (Series.rename) or use the column"
            )
        added[name] = col
        names.append(name)
    if len(set(names)) != len(names):
        raise ValueError(f"by: the grouping columns repeat a name ({names})")
    return (frame.assign(**added) if added else frame), names


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
    by: str | pd.Series | Sequence[str | pd.Series],
    reference: str | None = None,
    metrics: Sequence[str] | None = None,
    language: str = "auto",
    settings: AuditSettings | None = None,
    *,
    filters: Mapping[str, Sequence[str]] | None = None,
    sample: int | None = None,
    n_bootstrap: int | None = None,
    alpha: float | None = None,
    min_items: int | None = None,
    min_speakers: int | None = None,
    seed: int | None = None,
    random_state: int | None = None,
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
    by : str, pandas.Series or a list of them
        One or two grouping columns: column names, or Series aligned with the table's index
        (as fairlearn's ``sensitive_features``; an unnamed Series is named ``by_1``).
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
    n_bootstrap, alpha, min_items, min_speakers, seed : optional
        The statistics settings most often changed (None: as ``settings`` say; defaults
        2,000, 0.05, 30, 5 and 0).
    random_state : int, optional
        Another name for ``seed`` (scikit-learn's).
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
        ``run.warnings`` says so (coded notes: ``fairdesk.presentation.notices.notice_texts``
        words them).
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
    from .presentation.warnings import with_run_warnings

    frame, by = _by_columns(frame, by)
    stats_options = _named(
        n_bootstrap, alpha, min_items, min_speakers, seed, random_state, stats_options
    )
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
    return with_run_warnings(run)  # the typed warnings (no speaker ids ...) in words


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
        n_bootstrap: int | None = None,
        alpha: float | None = None,
        min_items: int | None = None,
        min_speakers: int | None = None,
        seed: int | None = None,
        random_state: int | None = None,
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
        n_bootstrap, alpha, min_items, min_speakers, seed, random_state : optional
            As in :func:`audit_table` (``random_state`` is another name for ``seed``).
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
        stats_options = _named(
            n_bootstrap, alpha, min_items, min_speakers, seed, random_state, stats_options
        )
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
        from .presentation.warnings import with_run_warnings

        out = audit_project(
            self._project, req, normaliser_sensitivity=normaliser_sensitivity, progress=progress
        )
        return with_run_warnings(out.result)  # the typed warnings in words


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


def reading(comparison: Comparison, run: AuditRun) -> str:
    """The plain-English reading of one comparison of a run, in the words every view uses.

    Parameters
    ----------
    comparison : Comparison
        One of ``run.comparisons`` (a group × metric compared with the reference).
    run : AuditRun
        The run it belongs to (its settings give the practical threshold, its tested
        comparisons the Holm family a caveat names).

    Returns
    -------
    str
        One sentence: the values, the gap with its 95% CI, p_adjusted, the estimator and its
        blocks, the verdict and its caveats (docs/METHODS.md, "Verdicts"); the reason for a
        comparison without a verdict. A stored run reads in this release's words.

    Examples
    --------
    >>> run = fairdesk.audit_table(df, by="accent")             # doctest: +SKIP
    >>> print(fairdesk.reading(run.comparisons[0], run))        # doctest: +SKIP
    """
    from .presentation.readings import reading as _reading

    return _reading(comparison, run)
