"""Prediction cache and run records in the project store.

Predictions are keyed by (audio content hash, model key); the model key is the model id
with a hash of its weights and decoding settings, so a changed model or setting misses.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, is_dataclass

from ..core.store import Project


def prediction_to_dict(p) -> dict:
    """A backend's Transcription / Classification / Prediction as a plain dict."""
    d = asdict(p) if is_dataclass(p) else dict(p)
    text = d.pop("text", None) or ""
    words = d.pop("words", None) or []
    conf = d.pop("confidence", None)
    extra = {k: v for k, v in d.items() if v is not None}
    if "label" in extra and conf is not None:
        extra["confidence"] = conf
    return {
        "text": text,
        "words": [dict(w) if not isinstance(w, dict) else w for w in words],
        "confidence": conf,
        "extra": extra,
    }


def lookup_predictions(project: Project, model_key: str, hashes: list[str]) -> dict[str, dict]:
    out: dict[str, dict] = {}
    conn = project.conn
    uniq = list(dict.fromkeys(hashes))
    for i in range(0, len(uniq), 500):
        chunk = uniq[i : i + 500]
        q = (
            "SELECT audio_hash, text, words, confidence, extra FROM predictions "
            f"WHERE model_key=? AND audio_hash IN ({','.join('?' * len(chunk))})"
        )
        for r in conn.execute(q, (model_key, *chunk)):
            out[r["audio_hash"]] = {
                "text": r["text"],
                "words": json.loads(r["words"]),
                "confidence": r["confidence"],
                "extra": json.loads(r["extra"]),
            }
    return out


def start_run(project: Project, prep, req):
    """Insert the run (status ``running``) and take its OS lock before the row is visible
    to anyone else; returns ``(run_id, lock)`` (see :mod:`fairdesk.core.runlock`)."""
    from ..core.runlock import RunLock

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
                    }
                ),
                "running",
                time.time(),
            ),
        )
        run_id = int(cur.lastrowid)
        lock = RunLock(project, run_id)  # held before COMMIT: never seen running and unlocked
    return run_id, lock


def store_shard(project: Project, run_id: int, model_key: str, frame, results) -> None:
    """Write one shard's predictions and item states in one transaction."""
    now = time.time()
    with project.transaction() as c:
        for idx, pred, reason in results:
            item_db_id = int(frame["db_id"].iloc[idx])
            if pred is None:
                c.execute(
                    "INSERT OR REPLACE INTO run_items(run_id, item_id, status, error) "
                    "VALUES (?,?,?,?)",
                    (run_id, item_db_id, "failed", reason),
                )
                continue
            ah = frame["audio_hash"].iloc[idx]
            c.execute(
                "INSERT INTO predictions(audio_hash, model_key, text, words, confidence, extra, "
                "created_at) VALUES (?,?,?,?,?,?,?) ON CONFLICT(audio_hash, model_key) DO "
                "UPDATE SET text=excluded.text, words=excluded.words, "
                "confidence=excluded.confidence, extra=excluded.extra",
                (
                    ah,
                    model_key,
                    pred["text"],
                    json.dumps(pred["words"]),
                    pred["confidence"],
                    json.dumps(pred["extra"], ensure_ascii=False),
                    now,
                ),
            )
            pid = c.execute(
                "SELECT id FROM predictions WHERE audio_hash=? AND model_key=?", (ah, model_key)
            ).fetchone()[0]
            c.execute(
                "INSERT OR REPLACE INTO run_items(run_id, item_id, status, prediction_id) "
                "VALUES (?,?,?,?)",
                (run_id, item_db_id, "done", pid),
            )


def finish_run(
    project: Project,
    run_id: int,
    request_hash: str,
    result,
    items: list[dict] | None = None,
    status: str = "done",
) -> None:
    """Mark a run ``status`` (``done``; ``failed`` when every item failed) and store its
    result (an ``AuditRun``: its ``to_json()``; and its per-item rows, for later analyses)."""
    from ..core.jsonio import clean_json

    if hasattr(result, "to_json"):
        result = result.to_json()
    with project.transaction() as c:
        if items is not None:
            c.execute(
                "INSERT INTO results(run_id, kind, payload, created_at) VALUES (?,?,?,?)",
                (
                    run_id,
                    "items",
                    json.dumps(clean_json(items), ensure_ascii=False, default=str),
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
                json.dumps(clean_json(result), ensure_ascii=False, default=str),
                time.time(),
            ),
        )


def mark_run(project: Project, run_id: int, status: str) -> None:
    with project.transaction() as c:
        c.execute(
            "UPDATE runs SET status=?, finished_at=? WHERE id=?", (status, time.time(), run_id)
        )


def lookup_result(project: Project, request_hash: str):
    r = project.conn.execute(
        "SELECT runs.id AS run_id, results.payload AS payload FROM runs JOIN results ON "
        "results.run_id = runs.id WHERE runs.request_hash=? AND runs.status='done' AND "
        "results.kind='audit' ORDER BY runs.id DESC LIMIT 1",
        (request_hash,),
    ).fetchone()
    if r is None:
        return None
    return int(r["run_id"]), json.loads(r["payload"])


def run_payload(project: Project, run_id: int) -> dict:
    r = project.conn.execute(
        "SELECT payload FROM results WHERE run_id=? AND kind='audit' ORDER BY id DESC LIMIT 1",
        (run_id,),
    ).fetchone()
    if r is None:
        raise ValueError(f"run {run_id} has no stored audit result (finished runs only)")
    return json.loads(r["payload"])


def run_items_frame(project: Project, run_id: int):
    """The per-item rows stored with a finished run (a DataFrame)."""
    import pandas as pd

    r = project.conn.execute(
        "SELECT payload FROM results WHERE run_id=? AND kind='items' ORDER BY id DESC LIMIT 1",
        (run_id,),
    ).fetchone()
    if r is None:
        known = [
            x[0]
            for x in project.conn.execute("SELECT id FROM runs WHERE status='done' ORDER BY id")
        ]
        raise ValueError(
            f"run {run_id} has no stored per-item results; finished runs: {known or 'none'}"
        )
    return pd.DataFrame.from_records(json.loads(r["payload"]))
