"""Incremental runs in the project store (no schema change).

An incremental run is a ``runs`` row whose ``settings`` JSON has ``"kind": "incremental"``
(``model_id`` lists the models, joined with ``+``; ``model_fingerprint`` hashes their
fingerprints; ``request_hash`` hashes the settings, the models and the item ids) and one
``results`` row of kind ``"incremental"`` holding the whole result
(:meth:`fairdesk.incremental.result.IncrementalResult.to_json`, the JSON of
``fairdesk incremental``: summary, models × policies table, per-item and per-segment rows,
group comparisons, settings, hardware) plus ``timelines`` (one add/revoke timeline per item ×
model × policy, :func:`fairdesk.incremental.timeline.timeline`). Audit-run lists leave these
runs out (:func:`is_incremental_settings`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from fairdesk.core.jsonio import jsonable
from fairdesk.core.runs import INCREMENTAL, add_result, insert_run, list_runs, results_for_run
from fairdesk.core.runs import run_kind as _run_kind
from fairdesk.core.store import Project
from fairdesk.incremental.result import IncrementalResult

__all__ = [
    "KIND",
    "StoredRun",
    "incremental_runs",
    "is_incremental_settings",
    "load_incremental",
    "store_incremental",
]

KIND = INCREMENTAL


def is_incremental_settings(settings_json: str | None) -> bool:
    """Whether a ``runs.settings`` text marks an incremental run."""
    return _run_kind(settings_json) == KIND


def _digest(obj) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()


def store_incremental(
    project: Project,
    dataset_id: int | None,
    result: IncrementalResult | dict,
    fingerprints: dict[str, str] | None = None,
) -> int:
    """Store a finished incremental result as a run; returns its id.

    Parameters
    ----------
    result : the result (its :meth:`~IncrementalResult.to_json`, timelines included, is
        stored; a dict is taken as such a payload); NaN and infinity become null.
    fingerprints : model id -> backend fingerprint.
    """
    if isinstance(result, IncrementalResult):
        result = result.to_json()
    models = list(result.get("models") or [result.get("model", "?")])
    fps = fingerprints or {}
    settings = {
        "kind": KIND,
        "by": list(result.get("settings", {}).get("by") or []),
        "models": models,
        "policies": result.get("policies"),
        "chunk_s": result.get("chunk_s"),
        "split": result.get("split"),
        "policy_options": result.get("policy_options"),
        "filters": result.get("settings", {}).get("filters"),
        "sample": result.get("settings", {}).get("sample"),
    }
    items = [r.get("id") for r in result.get("items", [])]
    run_id = insert_run(
        project,
        dataset_id,
        "+".join(models),
        _digest([fps.get(m, m) for m in models]),
        _digest([settings, sorted(map(str, items)), fps]),
        settings,
    )
    add_result(project, run_id, KIND, jsonable(result))
    return run_id


@dataclass(frozen=True)
class StoredRun:
    """A stored incremental run as the run lists show it.

    Attributes
    ----------
    id : the run id.
    models, policies : what was streamed.
    dataset : the dataset's name (None when it is gone).
    created_at : when it was stored (seconds since the epoch).
    """

    id: int
    models: tuple[str, ...]
    dataset: str | None
    created_at: float
    policies: tuple[str, ...] = ()


def incremental_runs(project: Project) -> list[StoredRun]:
    """Stored incremental runs, newest first."""
    out = []
    for r in list_runs(project):
        if _run_kind(r["settings"]) != KIND:
            continue
        s = json.loads(r["settings"])
        out.append(
            StoredRun(
                id=int(r["id"]),
                models=tuple(s.get("models") or [r["model_id"]]),
                dataset=r["dataset"],
                created_at=r["created_at"],
                policies=tuple(s.get("policies") or ()),
            )
        )
    return out


def load_incremental(project: Project, run_id: int) -> IncrementalResult:
    """The stored result of incremental run ``run_id`` (stored in today's layout or with a
    schema version: :meth:`IncrementalResult.from_json`), with its ``run_id``.

    Raises
    ------
    ValueError
        When the run has no incremental result (or one written by a newer fairdesk).
    """
    rows = results_for_run(project, int(run_id), KIND)
    if not rows:
        known = [r.id for r in incremental_runs(project)]
        raise ValueError(
            f"run {run_id} has no stored incremental result; incremental runs: {known or 'none'}"
        )
    return IncrementalResult.from_json(rows[-1]["payload"]).with_run_id(run_id)
