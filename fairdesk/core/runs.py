"""Runs and their results in the project store.

A run is a ``runs`` row (model, fingerprint, request hash, settings JSON, status); what it
found is kept in ``results`` rows of a ``kind``: ``"audit"`` (the whole result),
``"items"`` (the per-item rows), ``"regression"``, ``"incremental"`` ... each payload a JSON
dict. The settings of a run say what kind of run it is (:func:`run_kind`).
"""

from __future__ import annotations

import json
import time

from .errors import StoreError
from .jsonio import ResultJson
from .schema import inserted_id
from .store import Project

__all__ = [
    "AUDIT",
    "INCREMENTAL",
    "add_result",
    "done_run_ids",
    "finish_run",
    "insert_run",
    "list_runs",
    "lookup_result",
    "mark_run",
    "results_for_run",
    "run_items_frame",
    "run_kind",
    "run_payload",
    "run_row",
    "start_run",
]

#: The kind of a run whose settings name none (an audit).
AUDIT = "audit"
#: The kind of an incremental run (:mod:`fairdesk.incremental.store`).
INCREMENTAL = "incremental"


# -- runs ------------------------------------------------------------------------------------
def _datasets_setting(prep) -> dict:
    """``{"datasets": [...]}`` for a run of several datasets (none for one)."""
    dset = getattr(prep, "dataset_set", None)
    return {"datasets": list(dset.names)} if dset is not None and dset.several else {}


def _annotated_setting(prep) -> dict:
    """``{"annotated": n}``: the run's items whose reference is a transcript annotated in
    fairdesk (none: nothing stored, so a run of the imported texts keeps its settings)."""
    frame = getattr(prep, "frame", None)
    if frame is None or "text_source" not in frame.columns:
        return {}
    n = int((frame["text_source"] == "annotation").sum())
    return {"annotated": n} if n else {}


def _reference_text_setting(req) -> dict:
    """``reference_text`` where it is not the default ``latest`` (the rows before the choice
    existed read as ``latest``)."""
    choice = getattr(req, "reference_text", "latest")
    return {} if choice == "latest" else {"reference_text": choice}


def start_run(project: Project, prep, req):
    """Insert the run (status ``running``) and take its OS lock before the row is visible
    to anyone else; returns ``(run_id, lock)`` (see :mod:`fairdesk.core.runlock`)."""
    from .runlock import RunLock

    with project.transaction() as c:
        cur = c.execute(
            "INSERT INTO runs(dataset_id, model_id, model_fingerprint, request_hash, settings, "
            "status, created_at) VALUES (?,?,?,?,?,?,?)",
            (
                prep.dataset.id,
                req.model,
                prep.model_key,
                prep.request_hash,
                json.dumps(
                    {
                        "by": list(req.by),
                        "filters": req.filters_dict(),
                        "sample": req.sample,
                        "settings": req.settings.to_dict(),
                        **_datasets_setting(prep),
                        **_annotated_setting(prep),
                        **_reference_text_setting(req),
                    }
                ),
                "running",
                time.time(),
            ),
        )
        run_id = inserted_id(cur)
        lock = RunLock(project, run_id)  # held before COMMIT: never seen running and unlocked
    return run_id, lock


def insert_run(
    project: Project,
    dataset_id: int | None,
    model_id: str,
    fingerprint: str,
    request_hash: str,
    settings: dict,
    status: str = "done",
) -> int:
    """Insert a run that is already over (created and finished now); returns its id.

    Parameters
    ----------
    project : the open project.
    dataset_id : the dataset's row id (None: no dataset).
    model_id, fingerprint, request_hash : the ``runs`` columns of those names
        (``model_fingerprint`` for ``fingerprint``).
    settings : stored as JSON in ``runs.settings``.
    status : the run's status.
    """
    now = time.time()
    with project.transaction() as c:
        cur = c.execute(
            "INSERT INTO runs(dataset_id, model_id, model_fingerprint, request_hash, settings, "
            "status, created_at, finished_at) VALUES (?,?,?,?,?,?,?,?)",
            (
                dataset_id,
                model_id,
                fingerprint,
                request_hash,
                json.dumps(settings),
                status,
                now,
                now,
            ),
        )
        return inserted_id(cur)


def finish_run(
    project: Project,
    run_id: int,
    request_hash: str,
    result: dict,
    items: list[dict] | None = None,
    status: str = "done",
) -> None:
    """Mark a run ``status`` (``done``; ``failed`` when every item failed) and store its
    result (and its per-item rows, for later analyses)."""
    from .jsonio import jsonable

    with project.transaction() as c:
        if items is not None:
            c.execute(
                "INSERT INTO results(run_id, kind, payload, created_at) VALUES (?,?,?,?)",
                (
                    run_id,
                    "items",
                    json.dumps(jsonable(items), ensure_ascii=False, default=str),
                    time.time(),
                ),
            )
        c.execute(
            "UPDATE runs SET status=?, finished_at=? WHERE id=?", (status, time.time(), run_id)
        )
        c.execute(
            "INSERT INTO results(run_id, kind, payload, created_at) VALUES (?,?,?,?)",
            (
                run_id,
                "audit",
                json.dumps(jsonable(result), ensure_ascii=False, default=str),
                time.time(),
            ),
        )


def mark_run(project: Project, run_id: int, status: str) -> None:
    """Set a run's status (``cancelled``, ``failed`` ...) and its finishing time."""
    with project.transaction() as c:
        c.execute(
            "UPDATE runs SET status=?, finished_at=? WHERE id=?", (status, time.time(), run_id)
        )


def run_row(project: Project, run_id: int) -> dict | None:
    """The ``runs`` row of ``run_id`` as a dict (settings as stored text); None when absent."""
    row = project.conn.execute("SELECT * FROM runs WHERE id=?", (int(run_id),)).fetchone()
    return dict(row) if row is not None else None


def run_kind(settings) -> str:
    """The kind a run's settings give (``settings["kind"]``), :data:`AUDIT` when none.

    ``settings`` is the decoded dict or the stored text; unreadable settings give
    :data:`AUDIT`.
    """
    if not isinstance(settings, dict):
        try:
            settings = json.loads(settings or "{}")
        except (TypeError, ValueError):
            return AUDIT
    kind = settings.get("kind") if isinstance(settings, dict) else None
    return kind if isinstance(kind, str) and kind else AUDIT


def list_runs(project: Project, done_only: bool = True) -> list[dict]:
    """The project's runs, newest first (every kind: filter with :func:`run_kind`).

    Returns
    -------
    list of dict
        ``id``, ``model_id``, ``status``, ``created_at``, ``dataset`` (its name, None when
        it was removed) and ``settings`` (the stored JSON text).
    """
    q = (
        "SELECT runs.id, runs.model_id, runs.status, runs.created_at, runs.settings, "
        "datasets.name AS dataset FROM runs LEFT JOIN datasets ON datasets.id = "
        "runs.dataset_id"
        + (" WHERE runs.status='done'" if done_only else "")
        + " ORDER BY runs.id DESC"
    )
    return [
        {
            "id": int(r["id"]),
            "model_id": r["model_id"],
            "status": r["status"],
            "created_at": float(r["created_at"]),
            "dataset": r["dataset"],
            "settings": r["settings"],
        }
        for r in project.conn.execute(q)
    ]


def done_run_ids(project: Project) -> list[int]:
    """Ids of the finished (``done``) runs, oldest first."""
    return [
        int(x[0])
        for x in project.conn.execute("SELECT id FROM runs WHERE status='done' ORDER BY id")
    ]


# -- results ---------------------------------------------------------------------------------
def add_result(project: Project, run_id: int, kind: str, payload: dict) -> int:
    """Store ``payload`` (JSON-ready) as a result of ``kind`` with run ``run_id``.

    Parameters
    ----------
    project : the open project.
    run_id : an existing run.
    kind : e.g. ``"regression"`` (``"audit"`` and ``"items"`` are written by the audit).
    payload : plain values only.

    Returns
    -------
    int
        The id of the new ``results`` row.

    Raises
    ------
    StoreError
        When the run does not exist.
    """
    text = json.dumps(payload, ensure_ascii=False, allow_nan=False)
    with project.transaction() as c:
        if c.execute("SELECT 1 FROM runs WHERE id=?", (int(run_id),)).fetchone() is None:
            raise StoreError(f"run {run_id} does not exist in {project.folder}")
        cur = c.execute(
            "INSERT INTO results(run_id, kind, payload, created_at) VALUES (?,?,?,?)",
            (int(run_id), kind, text, time.time()),
        )
        return inserted_id(cur)


def results_for_run(project: Project, run_id: int, kind: str | None = None) -> list[ResultJson]:
    """Results stored with run ``run_id`` (of ``kind`` when given), oldest first.

    Returns
    -------
    list of dict
        ``{"id", "run_id", "kind", "created_at", "payload"}`` with the payload decoded.
    """
    q = "SELECT id, run_id, kind, payload, created_at FROM results WHERE run_id=?"
    args: list = [int(run_id)]
    if kind is not None:
        q += " AND kind=?"
        args.append(kind)
    rows = project.conn.execute(q + " ORDER BY id", args).fetchall()
    return [
        ResultJson(
            {
                "id": int(r["id"]),
                "run_id": int(r["run_id"]),
                "kind": r["kind"],
                "created_at": float(r["created_at"]),
                "payload": json.loads(r["payload"]),
            }
        )
        for r in rows
    ]


def _latest_payload(project: Project, run_id: int, kind: str) -> ResultJson | None:
    r = project.conn.execute(
        "SELECT payload FROM results WHERE run_id=? AND kind=? ORDER BY id DESC LIMIT 1",
        (run_id, kind),
    ).fetchone()
    return None if r is None else ResultJson(json.loads(r["payload"]))


def lookup_result(project: Project, request_hash: str) -> tuple[int, ResultJson] | None:
    """``(run_id, audit payload)`` of the newest finished run of ``request_hash``, or None."""
    r = project.conn.execute(
        "SELECT runs.id AS run_id, results.payload AS payload FROM runs JOIN results ON "
        "results.run_id = runs.id WHERE runs.request_hash=? AND runs.status='done' AND "
        "results.kind='audit' ORDER BY runs.id DESC LIMIT 1",
        (request_hash,),
    ).fetchone()
    if r is None:
        return None
    return int(r["run_id"]), ResultJson(json.loads(r["payload"]))


def run_payload(project: Project, run_id: int) -> ResultJson:
    """The audit result stored with a finished run.

    Raises
    ------
    ValueError
        When the run has no stored audit result.
    """
    payload = _latest_payload(project, run_id, "audit")
    if payload is None:
        raise ValueError(f"run {run_id} has no stored audit result (finished runs only)")
    return payload


def run_items_frame(project: Project, run_id: int):
    """The per-item rows stored with a finished run (a DataFrame).

    Raises
    ------
    ValueError
        When the run has no stored per-item rows (the message lists the finished runs).
    """
    import pandas as pd

    payload = _latest_payload(project, run_id, "items")
    if payload is None:
        known = done_run_ids(project)
        raise ValueError(
            f"run {run_id} has no stored per-item results; finished runs: {known or 'none'}"
        )
    return pd.DataFrame.from_records(payload)
