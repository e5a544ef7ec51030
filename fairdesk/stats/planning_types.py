"""The immutable results of a recording plan (docs/METHODS.md, "Recording plan"), built by
:mod:`fairdesk.stats.planning`: the resampling plan every audit stores as its ``plan`` block
(and ``fairdesk plan`` prints), or in runs stored before that, the closed-form estimate."""

from __future__ import annotations

from dataclasses import dataclass

#: How a plan's SE(k) was obtained.
METHODS = ("closed_form", "resampling")
METHOD_LABELS = {
    "closed_form": "closed form SE(k) = SE_pilot * sqrt(k_p / k)",
    "resampling": "resampling k of the pilot's speakers per side (common random numbers)",
}


@dataclass(frozen=True)
class MdePoint:
    """MDE at ``k`` speakers on each side (a side keeps its own speakers where it has more).

    Attributes
    ----------
    k : speakers per side.
    se : the planned standard error of the gap.
    mde : (z_{1-alpha'/2} + z_power) * se.
    """

    k: int
    se: float
    mde: float


@dataclass(frozen=True)
class SideNeed:
    """What one group (a compared group or the reference) needs for one plan.

    Attributes
    ----------
    group : the group label.
    speakers_now : its speakers in the pilot.
    speakers_needed : speakers it needs (None where no number of speakers reaches the
        target).
    new_speakers : speakers to record, max(0, needed - now) (None where unreachable).
    utterances_per_speaker : utterances each new speaker records (default the pilot's mean).
    new_utterances : new_speakers * utterances_per_speaker, rounded up (None: unreachable).
    hours : recording time of the new utterances at the pilot's mean utterance length
        (None where the pilot has no durations or the target is unreachable).
    mean_duration_s : the pilot's mean utterance length in the group (None without one).
    """

    group: str
    speakers_now: int
    speakers_needed: int | None
    new_speakers: int | None
    utterances_per_speaker: float
    new_utterances: int | None
    hours: float | None
    mean_duration_s: float | None


@dataclass(frozen=True)
class ContentPlan:
    """Planning contents (sentences) instead of speakers, for a shared-content design.

    Attributes
    ----------
    contents_now : shared contents in the pilot.
    contents_needed : contents every speaker reads to reach the target at the pilot's
        speakers (None where 20 x contents_now is not enough).
    new_utterances : the recordings that takes: every pilot speaker of both sides reads each
        new sentence (None where unreachable).
    curve : MDE at a few numbers of contents.
    cheaper : ``speakers`` or ``contents``: which needs fewer new recordings (None where
        neither reaches the target).
    """

    contents_now: int
    contents_needed: int | None
    new_utterances: int | None
    curve: tuple[MdePoint, ...]
    cheaper: str | None


@dataclass(frozen=True)
class ComparisonPlan:
    """The plan of one ``group x metric`` comparison.

    Attributes
    ----------
    metric, group, reference : the comparison.
    method : ``closed_form`` or ``resampling`` (:data:`METHODS`).
    scheme : the pilot's resampling scheme (``speaker``, ``two_way``, ...).
    design : the pilot's design of the pair.
    target_gap : the gap to detect (default the smallest practical gap).
    z_factor : z_{1-alpha'/2} + z_power.
    pilot_mde : the pilot's own MDE (at alpha 0.05, power 0.8, as the audit reports it).
    speakers_needed : k*, speakers needed on each side (None: not reachable).
    reachable : whether adding speakers reaches the target within 20 x the pilot's speakers.
    limit : None when reachable; ``content`` (the content floor of a shared-content design
        keeps the MDE above the target for every k), ``search`` (the search stopped at
        20 x the pilot's speakers: ``search_limit`` per side is not enough), ``no_speakers``
        (the pilot has no speaker ids) or ``no_estimate`` (no standard error to plan from).
    floor_mde : the MDE with unlimited speakers (two-way: the content variance alone),
        None where there is no floor.
    closed_form_k : the closed form's k* (the check of a resampling plan).
    search_limit : the largest k searched (20 x the larger side's pilot speakers; 0 where
        nothing was searched).
    curve : MDE(k) for a few k around k*.
    group_need, reference_need : the two sides' needs.
    contents : the plan by contents (shared-content designs; resampling plans only).
    note : what the plan assumes, in words (None when nothing to add).
    dense : MDE(k) at many k from the pilot's speakers (the smaller side's) to the search limit (about 60,
        spread evenly on a log scale, with every k of ``curve``): what a chart draws as its line (``curve`` holds
        the table's points). Empty in plans stored before it existed.
    """

    metric: str
    group: str
    reference: str
    method: str
    scheme: str | None
    design: str | None
    target_gap: float
    z_factor: float
    pilot_mde: float | None
    speakers_needed: int | None
    reachable: bool
    limit: str | None
    floor_mde: float | None
    closed_form_k: int | None
    curve: tuple[MdePoint, ...]
    group_need: SideNeed | None
    reference_need: SideNeed | None
    contents: ContentPlan | None = None
    note: str | None = None
    dense: tuple[MdePoint, ...] = ()
    search_limit: int = 0


@dataclass(frozen=True)
class Plan:
    """A recording plan for a run's underpowered comparisons.

    Attributes
    ----------
    method : ``resampling`` (what the audit stores and ``fairdesk plan`` prints) or
        ``closed_form`` (the estimate of runs stored before the audit made the resampling
        plan, or where its resampling failed).
    label : the method in words.
    power : target power.
    alpha : the run's alpha.
    future_m : tested comparisons assumed in the future run (default the pilot's).
    alpha_adjusted : alpha / future_m (Bonferroni, Holm's worst case).
    gap : the target gap asked for (None: each comparison's smallest practical gap).
    comparisons : one plan per planned comparison.
    sides : per group, the largest need over its comparisons (a reference shared by
        several comparisons takes the largest).
    sample_per_group : the pilot's ``--sample`` (None: every item was audited).
    dataset_sizes : group -> ``[items, speakers]`` in the whole dataset (a sampled pilot
        only; None otherwise or where unknown).
    n_bootstrap : resampling replicates (resampling plans; None for the closed form).
    seed : the resampling seed (None for the closed form).
    """

    method: str
    label: str
    power: float
    alpha: float
    future_m: int
    alpha_adjusted: float
    gap: float | None
    comparisons: tuple[ComparisonPlan, ...]
    sides: tuple[SideNeed, ...]
    sample_per_group: int | None = None
    dataset_sizes: dict[str, tuple[int, ...]] | None = None
    n_bootstrap: int | None = None
    seed: int | None = None


__all__ = [
    "METHODS",
    "METHOD_LABELS",
    "ComparisonPlan",
    "ContentPlan",
    "MdePoint",
    "Plan",
    "SideNeed",
]
