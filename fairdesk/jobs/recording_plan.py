"""A recording plan made from an audit's plan (docs/METHODS.md, "Recording plan"): the groups
a comparison's plan asks new speakers of, with the grouping values each must get, the
speakers per group, the prompts (the pilot's own for a shared-content design; otherwise a
list the user picks, less the sentences the pilot already has) and the utterances per
speaker. Stored with :func:`fairdesk.core.recording_plans.save_plan`."""

from __future__ import annotations

import math

from ..core.errors import FairdeskError
from ..core.recording_plans import GroupQuota, RecordingPlan, save_plan
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


__all__ = ["SHARED_DESIGNS", "group_values", "make_recording_plan", "pilot_prompts"]
