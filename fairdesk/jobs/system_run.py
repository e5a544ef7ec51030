"""Several systems audited on one dataset and compared (docs/METHODS.md, "Comparing systems"):
``fairdesk audit --model A --model B``, ``fairdesk audit --table T --hyp-col a --hyp-col b``
and ``fairdesk compare --run N --run M``.

Every system is an ordinary audit run (openable alone, as before); the comparison is a
result of kind :data:`KIND` stored with the baseline's run, naming the systems' runs. The
numbers come from :func:`fairdesk.stats.systems.compare_systems` on the per-item rows the
runs stored, so a comparison made right after the audits and one made later from the
stored runs are the same.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..core.errors import FairdeskError
from ..core.jsonio import ResultJson

if TYPE_CHECKING:
    import pandas as pd

    from ..core.store import Project
    from ..stats.system_results import SystemComparisonResult
    from .request import AuditRequest
    from .result import AuditRun

__all__ = [
    "KIND",
    "StoredComparison",
    "SystemsOutcome",
    "audit_systems",
    "audit_table_systems",
    "compare_frames",
    "compare_stored_runs",
    "comparison_frames",
    "decode_comparison",
    "encode_comparison",
    "latest_comparison",
    "stored_comparisons",
    "system_names",
]

#: The ``results.kind`` of a comparison of systems (stored with the baseline's run).
KIND = "system_comparison"


@dataclass(frozen=True)
class StoredComparison:
    """A comparison of systems as the project keeps it.

    Attributes
    ----------
    result_id : the ``results`` row (None before it is stored, or for a table audit).
    run_ids : the systems' runs, baseline first (None entries for a table audit).
    result : the typed comparison.
    """

    result_id: int | None
    run_ids: tuple[int | None, ...]
    result: SystemComparisonResult

    @property
    def systems(self) -> tuple[str, ...]:
        return self.result.systems

    def to_json(self) -> ResultJson:
        """The stored payload: the runs and the encoded result (draws left out)."""
        return ResultJson(
            {
                "kind": KIND,
                "run_ids": list(self.run_ids),
                "result": encode_comparison(self.result),
            }
        )

    @classmethod
    def from_json(cls, payload: dict, result_id: int | None = None) -> StoredComparison:
        return cls(
            result_id=result_id,
            run_ids=tuple(payload.get("run_ids") or ()),
            result=decode_comparison(payload["result"]),
        )


def encode_comparison(result: SystemComparisonResult) -> dict:
    """A comparison as JSON-ready data: the typed fields, each system's own audit in the
    layout an audit run stores its statistics (``AuditRun.to_json``), no draws."""
    from .result import _stats_json
    from .result_codec import encode_dataclass

    out = encode_dataclass(replace(result, draws=None, audits=None))
    if result.audits is not None:
        out["audits"] = {name: _stats_json(a) for name, a in result.audits.items()}
    return out


def decode_comparison(data: dict) -> SystemComparisonResult:
    """:func:`encode_comparison`'s data back as the typed comparison
    (:func:`fairdesk.stats.codec.decode_system_comparison`)."""
    from ..stats.codec import decode_system_comparison

    return decode_system_comparison(data)


@dataclass(frozen=True)
class SystemsOutcome:
    """Several systems' audits and their comparison.

    Attributes
    ----------
    runs : each system's own audit (baseline first), as an ordinary run gives it.
    comparison : the comparison (stored with the baseline's run for a project audit).
    """

    runs: tuple[AuditRun, ...]
    comparison: StoredComparison


def system_names(models: Sequence[str]) -> tuple[str, ...]:
    """Display names of the systems: the model ids, ``B (2)`` for a repeated one."""
    out: list[str] = []
    seen: dict[str, int] = {}
    for m in models:
        seen[m] = seen.get(m, 0) + 1
        out.append(m if seen[m] == 1 else f"{m} ({seen[m]})")
    return tuple(out)


def compare_frames(
    frames: dict[str, pd.DataFrame],
    runs: Sequence[AuditRun],
    *,
    failed: Mapping[str, Sequence] | None = None,
) -> SystemComparisonResult:
    """Compare systems on their analysed item frames (one per system, baseline first).

    The metrics are those the baseline's audit tested; the reference group and the
    statistics' settings are the baseline's.

    Raises
    ------
    FairdeskError
        The baseline has no analysed group, or the systems' items cannot be compared.
    """
    from ..metrics import metric_specs
    from ..stats.systems import compare_systems

    base = runs[0]
    if base.result is None or not base.comparisons:
        raise FairdeskError(
            "the baseline's audit has no comparison of groups (every item failed, or no group "
            "met the minimums beside the reference): nothing to compare the systems on"
        )
    metrics = list(dict.fromkeys(base.tested_metrics or [c.metric for c in base.comparisons]))
    first = next(iter(frames.values()))
    try:
        specs = metric_specs(first, wanted=metrics)
        return compare_systems(
            frames, specs, base.settings, reference=base.reference, failed=failed
        )
    except ValueError as exc:
        raise FairdeskError(f"the systems cannot be compared: {exc}") from None


def _check_same_slice(runs: Sequence[AuditRun], run_ids: Sequence[int]) -> None:
    from ..core.dataset_sets import run_dataset_names

    base = runs[0]
    for rid, run in zip(run_ids[1:], runs[1:]):
        for what, a, b in (
            ("datasets", run_dataset_names(base), run_dataset_names(run)),
            ("grouping", tuple(base.by), tuple(run.by)),
            (
                "filters",
                base.run_settings.filters if base.run_settings else None,
                run.run_settings.filters if run.run_settings else None,
            ),
            (
                "sample",
                base.run_settings.sample_per_group if base.run_settings else None,
                run.run_settings.sample_per_group if run.run_settings else None,
            ),
        ):
            if a != b:
                raise FairdeskError(
                    f"run {rid} differs from the baseline run {run_ids[0]} in its {what} "
                    f"({b!r} against {a!r}): systems are compared on the same items, so audit "
                    "them with the same dataset, --by, --filter and --sample"
                )


def compare_stored_runs(
    project: Project, run_ids: Sequence[int], *, store: bool = True
) -> StoredComparison:
    """Compare the systems of stored audit runs (the first is the baseline) and, with
    ``store``, keep the comparison with the baseline's run.

    Raises
    ------
    FairdeskError
        Fewer than two runs, an unknown run or one without per-item rows, runs of different
        datasets or slices.
    """
    from ..core.runs import add_result, done_run_ids, run_items_frame, run_payload, run_row
    from .result import AuditRun

    run_ids = [int(r) for r in run_ids]
    if len(run_ids) < 2:
        raise FairdeskError("a comparison of systems needs two runs or more (--run N --run M)")
    if len(set(run_ids)) != len(run_ids):
        raise FairdeskError(f"--run lists a run twice ({run_ids}): name each system's run once")
    runs, frames, failed = [], {}, {}
    for rid in run_ids:
        if run_row(project, rid) is None:
            known = done_run_ids(project)
            raise FairdeskError(
                f"no run {rid} in project {project.folder}; finished runs: "
                f"{', '.join(map(str, known)) or 'none'} (list them with fairdesk runs)"
            )
        try:
            run = AuditRun.from_json(run_payload(project, rid))
            frame = run_items_frame(project, rid)
        except ValueError as exc:
            raise FairdeskError(str(exc)) from None
        runs.append(run)
        frames[rid] = frame
    _check_same_slice(runs, run_ids)
    names = system_names([r.model or f"run {rid}" for r, rid in zip(runs, run_ids)])
    by_name = {n: frames[rid] for n, rid in zip(names, run_ids)}
    for n, run in zip(names, runs):
        failed[n] = [f.item for f in run.failures if f.item is not None]
    result = compare_frames(by_name, runs, failed=failed)
    out = StoredComparison(None, tuple(run_ids), result)
    if store and not getattr(project, "read_only", False):
        rid = add_result(project, run_ids[0], KIND, out.to_json())
        out = replace(out, result_id=rid)
    return out


def stored_comparisons(project: Project, run_id: int) -> list[StoredComparison]:
    """The comparisons of systems stored with run ``run_id`` (its baseline), oldest first."""
    from ..core.runs import results_for_run

    return [
        StoredComparison.from_json(r["payload"], r["id"])
        for r in results_for_run(project, int(run_id), KIND)
    ]


def latest_comparison(project: Project, run_id: int | None) -> StoredComparison | None:
    """The newest comparison of systems stored with run ``run_id`` (its baseline), or None
    (no run, no comparison, or one that cannot be read)."""
    if project is None or run_id is None:
        return None
    try:
        cmps = stored_comparisons(project, run_id)
    except (ValueError, KeyError, TypeError):  # a payload of an older layout
        return None
    return cmps[-1] if cmps else None


def comparison_frames(project: Project, cmp: StoredComparison) -> dict[str, pd.DataFrame]:
    """System name → the per-item rows of its run (a stored comparison's runs, baseline
    first).

    Raises
    ------
    ValueError
        A run's rows are gone (``run_items_frame``).
    """
    from ..core.runs import run_items_frame

    frames = {}
    for n, rid in zip(cmp.systems, cmp.run_ids):
        if rid is None:  # a comparison of a table's columns stores no run
            raise ValueError(f"system {n} has no stored run, so no stored per-item results")
        frames[n] = run_items_frame(project, rid)
    return frames


def audit_systems(
    project: Project,
    req: AuditRequest,
    models: Sequence[str],
    *,
    normaliser_sensitivity: bool = False,
    progress: Callable | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> SystemsOutcome:
    """Audit ``req`` once per model (each an ordinary run, using the inference cache) and
    compare the systems, the first model the baseline.

    Raises
    ------
    FairdeskError
        Fewer than two models, or the comparison cannot be made (see
        :func:`compare_stored_runs`).
    """
    from .table_audit import audit_project

    if len(models) < 2:
        raise FairdeskError("a comparison of systems needs two models or more")
    n = len(models)
    outs = []
    for i, m in enumerate(models):

        def prog(frac, msg, i=i, m=m):
            if progress is not None:
                progress((i + frac) / (n + 0.25), f"system {i + 1}/{n} ({m}): {msg}")

        outs.append(
            audit_project(
                project,
                replace(req, model=m),
                normaliser_sensitivity=normaliser_sensitivity,
                progress=prog,
                cancelled=cancelled,
            )
        )
        if req.reference is None and outs[0].result.reference is not None:
            # every system against the baseline's reference group: the largest group of a
            # system missing some items can be another one, and its gaps change sign
            req = replace(req, reference=outs[0].result.reference)
    if progress is not None:
        progress(n / (n + 0.25), "comparing the systems on their common items")
    comparison = compare_stored_runs(project, [o.run_id for o in outs])
    if progress is not None:
        progress(1.0, "systems compared")
    return SystemsOutcome(tuple(o.result for o in outs), comparison)


def audit_table_systems(table, hyp_cols: Sequence[str], **kwargs) -> SystemsOutcome:
    """Audit a table once per hypothesis column (``--hyp-col a --hyp-col b``; the first is
    the baseline) and compare the systems on the rows every column has a hypothesis for.

    ``kwargs`` are :func:`fairdesk.jobs.table_audit.audit_table`'s. A row the table audit
    leaves out for one column only (its problems say why) is a failure of that system,
    removed from the common rows.

    Raises
    ------
    FairdeskError
        Fewer than two columns, a repeated or unknown column, or no common row.
    """
    from .table_audit import audit_table

    hyp_cols = list(hyp_cols)
    if len(hyp_cols) < 2:
        raise FairdeskError("a comparison of systems needs two --hyp-col columns or more")
    if len(set(hyp_cols)) != len(hyp_cols):
        raise FairdeskError(f"--hyp-col lists a column twice ({hyp_cols})")
    if isinstance(table, (str,)) or hasattr(table, "__fspath__"):
        from ..core.table_input import read_any_table
        from ..core.tables import TableError

        try:
            df, read_problems = read_any_table(table)
        except TableError as exc:  # the reader's own message names the file
            raise FairdeskError(str(exc)) from None
        source = kwargs.pop("source", None) or str(table)
    else:
        df, read_problems = table, []
        source = kwargs.pop("source", None) or "table"
    problems = [*kwargs.pop("problems", ()), *read_problems]
    missing = [c for c in hyp_cols if c not in df.columns]
    if missing:
        raise FairdeskError(
            f"--hyp-col {missing}: no such column in {source} "
            f"(columns: {', '.join(map(str, df.columns))})"
        )
    runs, frames = [], {}
    for col in hyp_cols:
        sub = df.drop(columns=[c for c in hyp_cols if c != col])
        run, frame = audit_table(
            sub, hyp_col=col, source=source, problems=problems, return_frame=True, **kwargs
        )
        runs.append(replace(run, model=col))
        frames[col] = frame
        if kwargs.get("reference") is None and run.reference is not None:
            kwargs["reference"] = run.reference  # the baseline's reference for every system
    result = compare_frames(frames, runs)
    return SystemsOutcome(tuple(runs), StoredComparison(None, (None,) * len(runs), result))
