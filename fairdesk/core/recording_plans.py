"""Recording plans kept in the project store (table ``recording_plans``): which groups a
recording dataset must fill, with the grouping values each new speaker gets, how many
speakers per group, the prompts and the utterances per speaker (docs/METHODS.md,
"Recording plan"). Made from an audit's plan by :mod:`fairdesk.jobs.recording_plan`; the
recording panel shows their quota and progress (:func:`quota_progress`).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass

from .atomic import write_text
from .errors import FairdeskError
from .schema import inserted_id
from .store import Project

__all__ = [
    "GroupQuota",
    "PlanPrediction",
    "QuotaProgress",
    "RecordingPlan",
    "latest_plan",
    "load_plans",
    "quota_progress",
    "prompt_list_path",
    "save_plan",
]


@dataclass(frozen=True)
class GroupQuota:
    """One group to fill: its label, the metadata every new speaker of it gets (e.g.
    ``{"age_group": "child"}``) and the speakers to record."""

    group: str
    values: dict
    speakers: int


@dataclass(frozen=True)
class PlanPrediction:
    """What the comparison a plan was made from predicts, kept so that the audit of the
    grown dataset can show its new MDE beside it.

    Attributes
    ----------
    run_id : the pilot run; metric, group, reference : the comparison; by : its grouping.
    pilot_mde : the pilot's MDE; k_pilot : the smaller side's pilot speakers.
    target_gap : the gap to detect; k_star : speakers per side that reach it (None: not
        reachable by speakers).
    curve : ``(k, MDE)`` of the plan (k speakers per side); method : ``closed_form`` or
        ``resampling``.
    """

    run_id: int
    metric: str
    group: str
    reference: str
    by: tuple[str, ...]
    pilot_mde: float | None
    k_pilot: int | None
    target_gap: float
    k_star: int | None
    curve: tuple[tuple[int, float], ...]
    method: str

    @classmethod
    def from_dict(cls, d: dict) -> PlanPrediction:
        return cls(
            run_id=int(d["run_id"]),
            metric=str(d["metric"]),
            group=str(d["group"]),
            reference=str(d["reference"]),
            by=tuple(str(b) for b in d.get("by") or ()),
            pilot_mde=None if d.get("pilot_mde") is None else float(d["pilot_mde"]),
            k_pilot=None if d.get("k_pilot") is None else int(d["k_pilot"]),
            target_gap=float(d["target_gap"]),
            k_star=None if d.get("k_star") is None else int(d["k_star"]),
            curve=tuple((int(k), float(m)) for k, m in d.get("curve") or ()),
            method=str(d.get("method") or ""),
        )


@dataclass(frozen=True)
class RecordingPlan:
    """A recording plan.

    Attributes
    ----------
    dataset : the recording dataset it grows (``recordings/<dataset>``).
    groups : the groups to fill.
    utterances_per_speaker : prompts each new speaker records.
    prompts : ``(text, content_id)`` pairs to record (the pilot's own for a matched design).
    prompt_source : where the prompts come from, in words.
    source : the audit and comparison it was made from, in words.
    prediction : what that comparison's plan predicts (None for plans stored before).
    language : the pilot dataset's language, which the recordings get (so that they can be
        audited with it); '' for plans stored before.
    id, created_at : set by the store (None before it is saved).
    """

    dataset: str
    groups: tuple[GroupQuota, ...]
    utterances_per_speaker: int
    prompts: tuple[tuple[str, str], ...]
    prompt_source: str = ""
    source: str = ""
    prediction: PlanPrediction | None = None
    language: str = ""
    id: int | None = None
    created_at: float | None = None

    def body(self) -> str:
        d = asdict(self)
        d.pop("id"), d.pop("created_at")
        return json.dumps(d, ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_row(cls, row) -> RecordingPlan:
        d = json.loads(row["body"])
        return cls(
            dataset=d["dataset"],
            groups=tuple(
                GroupQuota(g["group"], dict(g["values"]), int(g["speakers"])) for g in d["groups"]
            ),  # fmt: skip
            utterances_per_speaker=int(d["utterances_per_speaker"]),
            prompts=tuple((str(t), str(c)) for t, c in d["prompts"]),
            prompt_source=d.get("prompt_source", ""),
            source=d.get("source", ""),
            prediction=PlanPrediction.from_dict(d["prediction"]) if d.get("prediction") else None,
            language=str(d.get("language") or ""),
            id=int(row["id"]),
            created_at=float(row["created_at"]),
        )


@dataclass(frozen=True)
class QuotaProgress:
    """Progress of one group of a plan: speakers with at least one accepted take
    (``started``) and with every planned utterance (``complete``), of ``quota``."""

    group: str
    values: dict
    quota: int
    started: int
    complete: int


def save_plan(project: Project, plan: RecordingPlan) -> RecordingPlan:
    """Store ``plan`` (one transaction); returns it with its id and time."""
    if not plan.groups:
        raise FairdeskError("a recording plan needs at least one group to fill")
    now = time.time()
    with project.transaction() as c:
        cur = c.execute(
            "INSERT INTO recording_plans (dataset, source, body, created_at) VALUES (?,?,?,?)",
            (plan.dataset, plan.source, plan.body(), now),
        )
        rid = inserted_id(cur)
    return RecordingPlan(**{**plan.__dict__, "id": rid, "created_at": now})


def load_plans(project: Project, dataset: str | None = None) -> list[RecordingPlan]:
    """The stored plans (of ``dataset``, or all), newest first."""
    sql = "SELECT * FROM recording_plans"
    args: tuple = ()
    if dataset is not None:
        sql, args = sql + " WHERE dataset=?", (dataset,)
    rows = project.conn.execute(sql + " ORDER BY id DESC", args).fetchall()
    return [RecordingPlan.from_row(r) for r in rows]


def latest_plan(project: Project, dataset: str | None = None) -> RecordingPlan | None:
    """The newest plan (of ``dataset``), or None."""
    plans = load_plans(project, dataset)
    return plans[0] if plans else None


def _matches(meta: dict, values: dict) -> bool:
    return all(str(meta.get(k, "")) == str(v) for k, v in values.items())


def quota_progress(project: Project, plan: RecordingPlan) -> list[QuotaProgress]:
    """Per group of ``plan``: how many speakers of its dataset (with the group's values)
    have recorded, and how many recorded every planned utterance. A dataset not created
    yet counts zero."""
    counts: dict[str, list[int]] = {g.group: [0, 0] for g in plan.groups}
    try:
        ds = project.dataset(plan.dataset)
    except FairdeskError:
        ds = None
    if ds is not None:
        items = project.items(ds)
        if len(items) and "speaker_id" in items.columns:
            for _spk, sub in items.groupby("speaker_id", sort=False):
                meta = sub.iloc[0].to_dict()
                n = int(sub["content_id"].nunique())
                for g in plan.groups:
                    if _matches(meta, g.values):
                        counts[g.group][0] += 1
                        counts[g.group][1] += int(n >= plan.utterances_per_speaker)
                        break
    return [
        QuotaProgress(g.group, dict(g.values), g.speakers, *counts[g.group]) for g in plan.groups
    ]


def prompt_list_path(project: Project, plan: RecordingPlan):
    """The plan's prompts as a JSONL prompt list (``<project>/plans/recording-plan-<id>.jsonl``,
    written atomically when missing): what the Record tab opens for the plan."""
    path = project.folder / "plans" / f"recording-plan-{plan.id}.jsonl"
    if not path.exists():
        head = {"_list": {"name": f"recording plan {plan.id} ({plan.prompt_source})"}}
        if plan.language:  # the Record tab gives the recordings the pilot's language
            head["_list"]["language"] = plan.language
        lines = [json.dumps(head, ensure_ascii=False)]
        lines += [json.dumps({"text": t, "content_id": c}, ensure_ascii=False)
                  for t, c in plan.prompts]  # fmt: skip
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text(path, "\n".join(lines) + "\n", newline="\n")
    return path
