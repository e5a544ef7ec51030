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
import time

from fairdesk.core.jsonio import clean_json
from fairdesk.core.store import Project, add_result, results_for_run
from fairdesk.incremental.result import IncrementalResult

__all__ = [
    "KIND",
    "incremental_runs",
    "is_incremental_settings",
    "load_incremental",
    "store_incremental",
]

KIND = "incremental"


def is_incremental_settings(settings_json: str | None) -> bool:
    """Whether a ``runs.settings`` text marks an incremental run."""
    try:
        return json.loads(settings_json or "{}").get("kind") == KIND
    except (TypeError, ValueError, AttributeError):
        return False


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
    now = time.time()
    with project.transaction() as c:
        cur = c.execute(
            "INSERT INTO runs(dataset_id, model_id, model_fingerprint, request_hash, settings, "
            "status, created_at, finished_at) VALUES (?,?,?,?,?,?,?,?)",
            (
                dataset_id,
                "+".join(models),
                _digest([fps.get(m, m) for m in models]),
                _digest([settings, sorted(map(str, items)), fps]),
                json.dumps(settings),
                "done",
                now,
                now,
            ),
        )
        run_id = int(cur.lastrowid)
    add_result(project, run_id, KIND, clean_json(result))
    return run_id


def incremental_runs(project: Project) -> list[dict]:
    """Stored incremental runs, newest first: ``id``, ``models``, ``dataset``, ``created_at``,
    ``policies``."""
    q = (
        "SELECT runs.id, runs.model_id, runs.settings, runs.created_at, datasets.name AS ds "
        "FROM runs LEFT JOIN datasets ON datasets.id = runs.dataset_id "
        "WHERE runs.status='done' ORDER BY runs.id DESC"
    )
    out = []
    for r in project.conn.execute(q):
        if not is_incremental_settings(r["settings"]):
            continue
        s = json.loads(r["settings"])
        out.append(
            {
                "id": int(r["id"]),
                "models": s.get("models") or [r["model_id"]],
                "dataset": r["ds"],
                "created_at": float(r["created_at"]),
                "policies": s.get("policies") or [],
            }
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
        known = [r["id"] for r in incremental_runs(project)]
        raise ValueError(
            f"run {run_id} has no stored incremental result; incremental runs: {known or 'none'}"
        )
    return IncrementalResult.from_json(rows[-1]["payload"]).with_run_id(run_id)
