"""The immutable results of a recording plan (docs/METHODS.md, "Recording plan"), built by
:mod:`fairdesk.stats.planning`: the resampling plan every audit stores as its ``plan`` block
(and ``fairdesk plan`` prints), or in runs stored before that, the closed-form estimate."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from fairdesk.core.jsonio import ResultJson, json_number
from fairdesk.stats.notices import Notice, notice

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

    JSON_CODEC: ClassVar[bool] = True

    k: int
    se: float
    mde: float

    def to_json(self) -> ResultJson:
        """``{"k", "se", "mde"}`` (NaN as null)."""
        return ResultJson(
            {"k": int(self.k), "se": json_number(self.se), "mde": json_number(self.mde)}
        )

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MdePoint:
        """The inverse of :meth:`to_json` (a null number reads as NaN)."""
        return cls(int(data["k"]), _float(data.get("se")), _float(data.get("mde")))


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

    JSON_CODEC: ClassVar[bool] = True

    group: str
    speakers_now: int
    speakers_needed: int | None
    new_speakers: int | None
    utterances_per_speaker: float
    new_utterances: int | None
    hours: float | None
    mean_duration_s: float | None

    def to_json(self) -> ResultJson:
        """The need as stored (every field by name)."""
        return ResultJson(
            {
                "group": self.group,
                "speakers_now": int(self.speakers_now),
                "speakers_needed": _int(self.speakers_needed),
                "new_speakers": _int(self.new_speakers),
                "utterances_per_speaker": json_number(self.utterances_per_speaker),
                "new_utterances": _int(self.new_utterances),
                "hours": json_number(self.hours),
                "mean_duration_s": json_number(self.mean_duration_s),
            }
        )

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SideNeed:
        """The inverse of :meth:`to_json`."""
        return cls(
            group=str(data["group"]),
            speakers_now=int(data["speakers_now"]),
            speakers_needed=_int(data.get("speakers_needed")),
            new_speakers=_int(data.get("new_speakers")),
            utterances_per_speaker=_float(data.get("utterances_per_speaker")),
            new_utterances=_int(data.get("new_utterances")),
            hours=_opt(data.get("hours")),
            mean_duration_s=_opt(data.get("mean_duration_s")),
        )


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

    JSON_CODEC: ClassVar[bool] = True

    contents_now: int
    contents_needed: int | None
    new_utterances: int | None
    curve: tuple[MdePoint, ...]
    cheaper: str | None

    def to_json(self) -> ResultJson:
        """The plan by contents as stored."""
        return ResultJson(
            {
                "contents_now": int(self.contents_now),
                "contents_needed": _int(self.contents_needed),
                "new_utterances": _int(self.new_utterances),
                "curve": [p.to_json() for p in self.curve],
                "cheaper": self.cheaper,
            }
        )

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ContentPlan:
        """The inverse of :meth:`to_json`."""
        return cls(
            contents_now=int(data["contents_now"]),
            contents_needed=_int(data.get("contents_needed")),
            new_utterances=_int(data.get("new_utterances")),
            curve=tuple(MdePoint.from_json(p) for p in data.get("curve") or ()),
            cheaper=None if data.get("cheaper") is None else str(data["cheaper"]),
        )


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
    notes : what the plan assumes, as coded notes (:data:`NOTE_TWO_WAY`,
        :data:`NOTE_UTTERANCES`; empty when nothing to add), worded by
        :mod:`fairdesk.presentation.plans`.
    dense : MDE(k) at many k from the pilot's speakers (the smaller side's) to the search limit (about 60,
        spread evenly on a log scale, with every k of ``curve``): what a chart draws as its line (``curve`` holds
        the table's points). Empty in plans stored before it existed.
    """

    JSON_CODEC: ClassVar[bool] = True

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
    notes: tuple[Notice, ...] = ()
    dense: tuple[MdePoint, ...] = ()
    search_limit: int = 0

    def to_json(self) -> ResultJson:
        """The comparison plan as stored: every field by name, the notes coded
        (``notes``: ``[{"code", "args"}]``); ``--json`` writes them as the ``note``
        sentence of older versions (:func:`fairdesk.presentation.plans.plan_json`)."""
        return ResultJson(
            {
                "metric": self.metric,
                "group": self.group,
                "reference": self.reference,
                "method": self.method,
                "scheme": self.scheme,
                "design": self.design,
                "target_gap": json_number(self.target_gap),
                "z_factor": json_number(self.z_factor),
                "pilot_mde": json_number(self.pilot_mde),
                "speakers_needed": _int(self.speakers_needed),
                "reachable": bool(self.reachable),
                "limit": self.limit,
                "floor_mde": json_number(self.floor_mde),
                "closed_form_k": _int(self.closed_form_k),
                "curve": [p.to_json() for p in self.curve],
                "group_need": None if self.group_need is None else self.group_need.to_json(),
                "reference_need": None
                if self.reference_need is None
                else self.reference_need.to_json(),
                "contents": None if self.contents is None else self.contents.to_json(),
                "notes": [n.to_json() for n in self.notes],
                "dense": [p.to_json() for p in self.dense],
                "search_limit": int(self.search_limit),
            }
        )

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ComparisonPlan:
        """The inverse of :meth:`to_json`; also a plan stored before the notes were coded
        (its ``note`` sentence read back as codes, :func:`notes_of_sentence`) or before
        the dense curve and the search limit were kept."""
        if "notes" in data:
            notes = tuple(Notice.from_json(n) for n in data.get("notes") or ())
        else:
            notes = notes_of_sentence(data.get("note"))
        g, r, c = data.get("group_need"), data.get("reference_need"), data.get("contents")
        return cls(
            metric=str(data["metric"]),
            group=str(data["group"]),
            reference=str(data["reference"]),
            method=str(data["method"]),
            scheme=_str(data.get("scheme")),
            design=_str(data.get("design")),
            target_gap=_float(data.get("target_gap")),
            z_factor=_float(data.get("z_factor")),
            pilot_mde=_opt(data.get("pilot_mde")),
            speakers_needed=_int(data.get("speakers_needed")),
            reachable=bool(data.get("reachable")),
            limit=_str(data.get("limit")),
            floor_mde=_opt(data.get("floor_mde")),
            closed_form_k=_int(data.get("closed_form_k")),
            curve=tuple(MdePoint.from_json(p) for p in data.get("curve") or ()),
            group_need=None if g is None else SideNeed.from_json(g),
            reference_need=None if r is None else SideNeed.from_json(r),
            contents=None if c is None else ContentPlan.from_json(c),
            notes=notes,
            dense=tuple(MdePoint.from_json(p) for p in data.get("dense") or ()),
            search_limit=int(data.get("search_limit") or 0),
        )


@dataclass(frozen=True)
class Plan:
    """A recording plan for a run's underpowered comparisons.

    Attributes
    ----------
    method : ``resampling`` (what the audit stores and ``fairdesk plan`` prints) or
        ``closed_form`` (the estimate of runs stored before the audit made the resampling
        plan, or where its resampling failed).
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

    JSON_CODEC: ClassVar[bool] = True

    method: str
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

    @property
    def label(self) -> str:
        """The method's name (:data:`METHOD_LABELS`)."""
        return METHOD_LABELS.get(self.method, self.method)

    def to_json(self) -> ResultJson:
        """The plan as stored (the ``plan`` block of a run, a stored ``plan`` result):
        every field by name, the comparisons' notes coded. ``--json`` adds the method's
        ``label`` and each comparison's ``note`` in words
        (:func:`fairdesk.presentation.plans.plan_json`)."""
        sizes = self.dataset_sizes
        return ResultJson(
            {
                "method": self.method,
                "power": json_number(self.power),
                "alpha": json_number(self.alpha),
                "future_m": int(self.future_m),
                "alpha_adjusted": json_number(self.alpha_adjusted),
                "gap": json_number(self.gap),
                "comparisons": [c.to_json() for c in self.comparisons],
                "sides": [n.to_json() for n in self.sides],
                "sample_per_group": _int(self.sample_per_group),
                "dataset_sizes": None
                if sizes is None
                else {str(g): [int(x) for x in v] for g, v in sizes.items()},
                "n_bootstrap": _int(self.n_bootstrap),
                "seed": _int(self.seed),
            }
        )

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Plan:
        """The inverse of :meth:`to_json`; also what earlier versions stored (with the
        ``label`` in words, which is read from ``method`` instead, and each comparison's
        ``note`` as a sentence)."""
        sizes = data.get("dataset_sizes")
        return cls(
            method=str(data["method"]),
            power=_float(data.get("power")),
            alpha=_float(data.get("alpha")),
            future_m=int(data["future_m"]),
            alpha_adjusted=_float(data.get("alpha_adjusted")),
            gap=_opt(data.get("gap")),
            comparisons=tuple(ComparisonPlan.from_json(c) for c in data.get("comparisons") or ()),
            sides=tuple(SideNeed.from_json(n) for n in data.get("sides") or ()),
            sample_per_group=_int(data.get("sample_per_group")),
            dataset_sizes=None
            if sizes is None
            else {str(g): tuple(int(x) for x in v) for g, v in sizes.items()},
            n_bootstrap=_int(data.get("n_bootstrap")),
            seed=_int(data.get("seed")),
        )


#: Note code: the two-way scheme's content part does not shrink with more speakers.
NOTE_TWO_WAY = "plans.two_way_content"
#: Note code: the MDEs assume new speakers record about as much as the pilot's
#: (args ``pilot``: the pilot's utterances per speaker, ``utterances``: the plan's).
NOTE_UTTERANCES = "plans.utterances_differ"

#: How versions before the coded notes worded them (to read a stored sentence back).
_STORED_TWO_WAY = (
    "two-way scheme: part of the uncertainty comes from the shared sentences and "
    "does not shrink with more speakers"
)
_STORED_UTTERANCES = re.compile(
    r"the MDEs assume each new speaker records about as much as the pilot's "
    r"\((?P<pilot>[-+0-9.eE]+|nan|inf) utterances\); (?P<utt>[-+0-9.eE]+|nan|inf) per "
    r"speaker makes them approximate"
)


def notes_of_sentence(text: str | None) -> tuple[Notice, ...]:
    """The coded notes of a ``note`` sentence stored by an earlier version (its two known
    sentences, with their numbers; anything else kept as a stored sentence)."""
    if not text:
        return ()
    out: list[Notice] = []
    rest = str(text)
    if rest.startswith(_STORED_TWO_WAY):
        out.append(notice(NOTE_TWO_WAY))
        rest = rest[len(_STORED_TWO_WAY) :].removeprefix("; ")
    m = _STORED_UTTERANCES.fullmatch(rest)
    if m is not None:
        out.append(notice(NOTE_UTTERANCES, pilot=float(m["pilot"]), utterances=float(m["utt"])))
    elif rest:
        out.append(notice("stored.sentence", text=rest))
    return tuple(out)


def _float(x: Any) -> float:
    return math.nan if x is None else float(x)


def _opt(x: Any) -> float | None:
    """An optional number: None stays None (and NaN is written None)."""
    if x is None:
        return None
    v = float(x)
    return None if math.isnan(v) else v


def _int(x: Any) -> int | None:
    return None if x is None else int(x)


def _str(x: Any) -> str | None:
    return None if x is None else str(x)


__all__ = [
    "METHODS",
    "METHOD_LABELS",
    "NOTE_TWO_WAY",
    "NOTE_UTTERANCES",
    "ComparisonPlan",
    "ContentPlan",
    "MdePoint",
    "Plan",
    "SideNeed",
    "notes_of_sentence",
]
