"""A recording plan made from an audit's plan (docs/METHODS.md, "Recording plan"): the groups
a comparison's plan asks new speakers of, with the grouping values each must get, the
speakers per group, the prompts (the pilot's own for a shared-content design; otherwise a
list the user picks, less the sentences the pilot already has) and the utterances per
speaker. Stored with :func:`fairdesk.core.recording_plans.save_plan`."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..core.errors import FairdeskError
from ..core.recording_plans import GroupQuota, PlanPrediction, RecordingPlan, save_plan
from ..core.store import Project

#: Designs whose plan records the pilot's own prompts (a matched design stays matched).
SHARED_DESIGNS = ("matched", "partially_matched")


def group_values(label: str, by) -> dict:
    """The grouping values of a group label: ``child`` with ``by=("age_group",)`` ->
    ``{"age_group": "child"}``; ``accent=a × gender=f`` -> ``{"accent": "a", "gender": "f"}``."""
    by = tuple(by or ())
    parts = str(label).split(" × ")
    if len(parts) == 1 and "=" not in parts[0] and len(by) == 1:
        return {by[0]: parts[0]}
    out = {}
    for p in parts:
        key, sep, value = p.partition("=")
        if not sep:
            raise FairdeskError(
                f"group {label!r}: cannot tell its grouping values (grouped by {', '.join(by)})"
            )
        out[key] = value
    return out


def pilot_prompts(items, groups) -> tuple[tuple[str, str], ...]:
    """The pilot's own prompts of ``groups``: each text once (a prompt list holds a text
    once) with its first content id, in order of first appearance."""
    sub = items[items["group"].astype(str).isin([str(g) for g in groups])]
    seen: dict[str, str] = {}
    ids: set[str] = set()
    for cid, text in zip(sub["content_id"].astype(str), sub["reference"].astype(str)):
        if text not in seen and cid not in ids:
            seen[text] = cid
            ids.add(cid)
    return tuple(seen.items())


def make_recording_plan(
    project: Project,
    run_id: int,
    plan,
    cp,
    dataset: str,
    *,
    prompt_list=None,
    by=None,
    save: bool = True,
) -> RecordingPlan:
    """The recording plan of one comparison plan ``cp`` of ``plan`` (run ``run_id``).

    Parameters
    ----------
    dataset : the recording dataset it grows.
    prompt_list : a :class:`fairdesk.recording.prompts.PromptList` for an unmatched design
        (its sentences the pilot already has are left out); ignored for a shared-content
        design, which records the pilot's own prompts.
    by : the run's grouping columns.
    save : store it in the project (False: only build it).

    Raises
    ------
    FairdeskError
        The comparison is not reachable by adding speakers, or needs no new speakers, or
        an unmatched design was given no prompt list.
    """
    from ..core.runs import run_items_frame

    needs = [n for n in (cp.group_need, cp.reference_need) if n is not None]
    if not cp.reachable or any(n.new_speakers is None for n in needs):
        raise FairdeskError(
            f"{cp.group} vs {cp.reference}: adding speakers does not reach the target, so "
            "there is no speaker quota to plan (see the plan's sentence)"
        )
    needs = [n for n in needs if n.new_speakers]
    if not needs:
        raise FairdeskError(f"{cp.group} vs {cp.reference}: the pilot's speakers already suffice")
    items = run_items_frame(project, int(run_id))
    own = pilot_prompts(items, [cp.group, cp.reference])
    if cp.design in SHARED_DESIGNS:
        prompts, source = own, "the pilot's own prompts (matched design)"
    elif prompt_list is None:
        raise FairdeskError(
            f"{cp.group} vs {cp.reference} is an unmatched design: pick a prompt list of new "
            "sentences for the new speakers"
        )
    else:
        had = {c for _t, c in own}
        prompts = tuple((p.text, p.content_id) for p in prompt_list.prompts
                        if p.content_id not in had and not p.placeholder)  # fmt: skip
        source = f"{prompt_list.name} (less the pilot's sentences)"
    if not prompts:
        raise FairdeskError("the recording plan has no prompts to record; pick another list")
    utt = max(n.utterances_per_speaker for n in needs)
    utt = max(1, min(len(prompts), int(math.ceil(utt - 1e-9))))
    rp = RecordingPlan(
        prediction=plan_prediction(run_id, cp, by),
        language=_pilot_language(project, run_id),
        dataset=dataset,
        groups=tuple(
            GroupQuota(n.group, group_values(n.group, by), int(n.new_speakers)) for n in needs
        ),  # fmt: skip
        utterances_per_speaker=utt,
        prompts=prompts,
        prompt_source=source,
        source=f"run {run_id}: {cp.metric} {cp.group} vs {cp.reference} ({plan.label})",
    )
    return save_plan(project, rp) if save else rp


def _pilot_language(project: Project, run_id: int) -> str:
    """The language the pilot run was audited in ('' when it did not say)."""
    from ..core.runs import run_payload
    from .result import AuditRun

    try:
        rs = AuditRun.from_json(run_payload(project, int(run_id))).run_settings
    except (ValueError, FairdeskError):
        return ""
    return str((rs.language if rs is not None else None) or "")


def plan_prediction(run_id: int, cp, by) -> PlanPrediction:
    """What comparison plan ``cp`` of run ``run_id`` predicts (kept with the recording plan)."""
    sides = [n.speakers_now for n in (cp.group_need, cp.reference_need) if n is not None]
    return PlanPrediction(
        run_id=int(run_id),
        metric=str(cp.metric),
        group=str(cp.group),
        reference=str(cp.reference),
        by=tuple(str(b) for b in (by or ())),
        pilot_mde=None if cp.pilot_mde is None else float(cp.pilot_mde),
        k_pilot=min(sides) if sides else None,
        target_gap=float(cp.target_gap),
        k_star=None if cp.speakers_needed is None else int(cp.speakers_needed),
        curve=tuple((int(p.k), float(p.mde)) for p in cp.curve),
        method=str(cp.method),
    )


def mde_on_curve(curve, k: int) -> tuple[float | None, bool]:
    """The plan's MDE at ``k`` speakers per side and whether it lies outside the curve.

    Between two points of the curve, MDE² is interpolated linearly in 1/k (the sampling
    variance of a mean over k speakers falls as 1/k); outside them it scales as √(k₀/k)
    from the nearest point (no content floor: marked as extrapolated)."""
    pts = sorted((int(a), float(b)) for a, b in curve if a and b == b)
    if not pts or k < 1:
        return None, False
    if k <= pts[0][0] or k >= pts[-1][0]:
        k0, m0 = pts[0] if k <= pts[0][0] else pts[-1]
        return m0 * math.sqrt(k0 / k), k != k0
    for (k1, m1), (k2, m2) in zip(pts, pts[1:]):
        if k1 <= k <= k2:
            if k1 == k2:
                return m1, False
            t = (1 / k - 1 / k1) / (1 / k2 - 1 / k1)
            return math.sqrt(max(0.0, m1 * m1 + t * (m2 * m2 - m1 * m1))), False
    return None, False  # not reached


def predicted_mde(pred: PlanPrediction, k: int) -> tuple[float | None, bool]:
    """The MDE the plan predicts for an audit with ``k`` speakers per side, on the audit's
    own scale (alpha 0.05, power 0.8, as the pilot's ``pilot_mde``): the pilot's MDE times
    the curve's ratio MDE(k) / MDE(k_pilot). The curve itself is on the plan's Holm-aware
    scale (alpha / m, the small-cluster factor), so only its ratio carries over. Also
    whether ``k`` lies outside the curve. None without a pilot MDE or speakers."""
    if pred.pilot_mde is None or not pred.k_pilot or k < 1:
        return None, False
    now, extra = mde_on_curve(pred.curve, k)
    then, _ = mde_on_curve(pred.curve, pred.k_pilot)
    if now is None or not then:
        return None, False
    return pred.pilot_mde * now / then, extra


@dataclass(frozen=True)
class PlanFollowup:
    """A comparison of an audit that a recording plan was made for: the audit's MDE now
    beside the plan's prediction (docs/METHODS.md, "Recording plan").

    Attributes
    ----------
    plan_id, dataset : the recording plan and the dataset it grows.
    prediction : the plan's :class:`~fairdesk.core.recording_plans.PlanPrediction`.
    mde_now : the audit's MDE of the comparison (None: not estimable).
    speakers_now : speakers of the group and of the reference in the audit.
    predicted_now : the MDE the plan predicts at ``min(speakers_now)`` speakers per side,
        on the audit's scale (:func:`predicted_mde`).
    extrapolated : that k lies outside the plan's curve.
    verdict : the comparison's verdict now.
    """

    plan_id: int
    dataset: str
    prediction: PlanPrediction
    mde_now: float | None
    speakers_now: tuple[int, int]
    predicted_now: float | None
    extrapolated: bool
    verdict: str | None


def plan_followups(project: Project, run) -> tuple[PlanFollowup, ...]:
    """The stored recording plans that ``run`` (an :class:`~fairdesk.jobs.result.AuditRun`)
    follows up: plans of a dataset the run audited, made from another run with the same
    grouping, whose comparison the run has. Newest plan first; one per comparison."""
    from ..core.dataset_sets import run_dataset_names
    from ..core.recording_plans import load_plans

    names = set(run_dataset_names(run))
    if not names or not run.comparisons:
        return ()
    out, seen = [], set()
    try:
        plans = load_plans(project)
    except Exception:  # noqa: BLE001 - an old or read-only store without the table: none
        return ()
    for rp in plans:
        pred = rp.prediction
        if pred is None or rp.id is None or rp.dataset not in names or pred.run_id == run.run_id:
            continue
        if tuple(pred.by) != tuple(run.by):
            continue
        key = (pred.metric, pred.group, pred.reference)
        c = next(
            (c for c in run.comparisons if (c.metric, c.group, run.reference) == key),
            None,
        )
        if c is None or key in seen:
            continue
        seen.add(key)
        k = (_speakers(run, pred.group), _speakers(run, pred.reference))
        at, extra = predicted_mde(pred, min(k))
        mde = getattr(c, "mde", None)
        out.append(
            PlanFollowup(
                int(rp.id),
                rp.dataset,
                pred,
                None if mde is None or mde != mde else float(mde),
                k,
                at,
                extra,
                c.verdict,
            )  # fmt: skip
        )
    return tuple(out)


def _speakers(run, group: str) -> int:
    try:
        return int(run.group(group).n_speakers or 0)
    except (KeyError, ValueError):
        return 0


__all__ = [
    "SHARED_DESIGNS",
    "PlanFollowup",
    "group_values",
    "make_recording_plan",
    "mde_on_curve",
    "pilot_prompts",
    "plan_followups",
    "plan_prediction",
    "predicted_mde",
]
