"""The resampling plan of a stored run (``fairdesk plan --project P --run N``;
docs/METHODS.md, "Recording plan"). Reads the run's result and
per-item rows; the numbers come from :func:`fairdesk.stats.plans.resampling_plan`."""

from __future__ import annotations

from dataclasses import replace

from ..core.errors import FairdeskError
from ..core.store import Project


def plan_stored_run(
    project: Project,
    run_id: int,
    *,
    power: float = 0.8,
    gap: float | None = None,
    utterances: float | None = None,
    future_m: int | None = None,
    n_rep: int | None = None,
    seed: int = 0,
):
    """The recording plan of run ``run_id``'s ``inconclusive_underpowered`` comparisons.

    Returns
    -------
    (Plan, AuditRun)
        The plan (empty ``comparisons`` when none is underpowered) and the run.

    Raises
    ------
    FairdeskError
        An unknown run, a run without comparisons, or out-of-range options.
    """
    from ..core.runs import done_run_ids, run_items_frame, run_payload, run_row
    from ..metrics import metric_specs
    from ..stats.planning import PLAN_REPLICATES, check_replicates
    from ..stats.plans import resampling_plan
    from .result import AuditRun

    if not 0 < power < 1:
        raise FairdeskError(f"--power {power}: give a power between 0 and 1, e.g. 0.8")
    if gap is not None and not gap > 0:
        raise FairdeskError(f"--gap {gap}: give a positive gap as a fraction (0.05 is 5 pp)")
    if utterances is not None and not utterances > 0:
        raise FairdeskError(f"--utterances-per-speaker {utterances}: give a positive number")
    if future_m is not None and future_m < 1:
        raise FairdeskError(f"--future-m {future_m}: give at least 1 comparison")
    if run_row(project, int(run_id)) is None:
        known = done_run_ids(project)
        raise FairdeskError(
            f"no run {run_id} in project {project.folder}; finished runs: "
            f"{', '.join(map(str, known)) or 'none'} (list them with fairdesk runs)"
        )
    run = AuditRun.from_json(run_payload(project, int(run_id)))
    if run.result is None or not run.comparisons:
        why = (
            "every item failed"
            if run.all_failed
            else "no group met the minimums beside the reference"
        )
        raise FairdeskError(
            f"run {run_id} has no comparisons to plan ({why}); see fairdesk show --project "
            f"{project.folder} --run {run_id}"
        )
    n_rep = PLAN_REPLICATES if n_rep is None else int(n_rep)
    try:
        check_replicates(n_rep)
    except ValueError as exc:
        raise FairdeskError(f"--replicates {n_rep}: {exc}") from None
    defaults = (power, gap, utterances, future_m, n_rep, seed) == (
        0.8, None, None, None, PLAN_REPLICATES, 0,
    )  # fmt: skip
    stored = stored_plan(project, int(run_id), run)
    if defaults and stored is not None and stored.method == "resampling":
        # the audit (or an earlier fairdesk plan) made this very plan, with the same
        # defaults and seed: one plan, one number
        plan = stored
    else:
        items = run_items_frame(project, int(run_id))
        metrics = sorted({c.metric for c in run.comparisons})
        specs = {s.id: s for s in metric_specs(items, wanted=metrics)}
        plan = resampling_plan(
            items,
            run.result,
            specs,
            power=power,
            gap=gap,
            future_m=future_m,
            utterances=utterances,
            n_rep=n_rep,
            seed=seed,
        )
        if defaults and run.plan is not None and plan.comparisons:
            # the run stored only the closed-form estimate: this plan replaces it in every
            # view (stored with the run; a read-only project keeps the estimate)
            _store(project, int(run_id), plan)
    return with_sample(project, run, plan), run


#: The kind of the stored result that holds a run's resampling plan, where the audit
#: stored only the closed-form estimate (runs audited before the audit made the plan).
PLAN_KIND = "plan"


def _store(project: Project, run_id: int, plan) -> None:
    import logging

    from ..core.runs import add_result
    from .result_codec import encode

    if project.read_only:
        return
    try:
        add_result(project, run_id, PLAN_KIND, encode(plan))
    except (FairdeskError, OSError) as exc:  # the plan is still returned and shown
        logging.getLogger(__name__).warning("the recording plan was not stored: %s", exc)


def stored_plan(project: Project, run_id: int, run):
    """The plan every view shows for ``run``: its own (the resampling plan the audit made),
    or where it stored only the closed-form estimate, the resampling plan made since with
    the defaults (``fairdesk plan``, or "Make the resampling plan" in the plan dialog),
    else that estimate. Carries the sampled pilot's caveat."""
    plan = run.plan
    if plan is None or plan.method == "resampling":
        return plan
    from ..core.runs import results_for_run
    from ..stats.planning_types import Plan
    from .result_codec import decode

    rows = results_for_run(project, int(run_id), PLAN_KIND)
    if not rows:
        return plan
    return with_sample(project, run, decode(rows[-1]["payload"], Plan))


def with_stored_plan(project: Project, run_id: int, run):
    """``run`` with :func:`stored_plan` as its plan (the same object when unchanged)."""
    plan = stored_plan(project, run_id, run)
    return run if plan is run.plan else replace(run, plan=plan)


def with_sample(project: Project, run, plan):
    """``plan`` with the pilot's ``--sample`` and the whole dataset's sizes (the "audit every
    item first" caveat every view shows), when ``run`` was audited on a sample."""
    sample = run.run_settings.sample_per_group if run.run_settings else None
    if not sample or plan.sample_per_group == int(sample):
        return plan
    return replace(plan, sample_per_group=int(sample), dataset_sizes=_dataset_sizes(project, run))


def _dataset_sizes(project: Project, run) -> dict[str, tuple[int, int]] | None:
    """Group -> (items, speakers) in the whole dataset of a sampled run (None if unknown)."""
    from ..core.dataset_sets import run_set, set_items
    from ..stats.slicing import slice_frame

    try:
        filters = dict(run.run_settings.filters or {}) if run.run_settings else {}
        items = set_items(project, run_set(project, run), filters)
        settings = run.settings
        frame = slice_frame(
            items, list(run.by), {}, include_missing=bool(settings and settings.include_missing)
        )
    except (FairdeskError, KeyError, ValueError):
        return None
    out = {}
    for g, sub in frame.groupby(frame["group"].astype(str), sort=False):
        n_spk = sub["speaker_id"].nunique() if "speaker_id" in sub.columns else 0
        out[str(g)] = (int(len(sub)), int(n_spk))
    return out


__all__ = ["PLAN_KIND", "plan_stored_run", "stored_plan", "with_sample", "with_stored_plan"]
