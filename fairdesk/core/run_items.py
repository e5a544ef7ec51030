"""A run's items and their predictions in the project store.

``predictions`` is the prediction cache: one row per (audio content hash, model key), where
the model key is the model id with a hash of its weights and decoding settings, so a changed
model or setting misses. ``run_items`` says, per run and item, whether the item was done
(with its prediction) or failed (with the reason).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, is_dataclass

from .batches import select_in
from .store import Project

__all__ = [
    "lookup_predictions",
    "prediction_to_dict",
    "prediction_words",
    "run_item_words",
    "store_shard",
]


def prediction_to_dict(p) -> dict:
    """A backend's Transcription / Classification / Prediction as the stored plain dict."""
    d = asdict(p) if is_dataclass(p) and not isinstance(p, type) else dict(p)
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
    """The cached predictions of ``model_key`` for the given audio hashes (hash -> dict)."""
    out: dict[str, dict] = {}
    q = (
        "SELECT audio_hash, text, words, confidence, extra FROM predictions "
        "WHERE model_key=? AND audio_hash IN ({marks})"
    )
    for r in select_in(project.conn, q, (model_key,), dict.fromkeys(hashes)):
        out[r["audio_hash"]] = {
            "text": r["text"],
            "words": json.loads(r["words"]),
            "confidence": r["confidence"],
            "extra": json.loads(r["extra"]),
        }
    return out


def store_shard(project: Project, run_id: int, model_key: str, frame, results) -> None:
    """Write one shard's predictions and item states in one transaction.

    Parameters
    ----------
    frame : the run's items (``db_id`` and ``audio_hash`` columns).
    results : ``(row index, prediction dict or None, failure reason)`` per item.
    """
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


def prediction_words(project: Project, audio_hash: str, model_key: str) -> str | None:
    """The stored ``words`` JSON text of the cached prediction (None when there is none)."""
    r = project.conn.execute(
        "SELECT words FROM predictions WHERE audio_hash=? AND model_key=?",
        (audio_hash, model_key),
    ).fetchone()
    return None if r is None else r[0]


def run_item_words(project: Project, run_id: int, item_db_id: int) -> str | None:
    """The ``words`` JSON text of the prediction run ``run_id`` used for an item (None when
    the item has no prediction in that run)."""
    r = project.conn.execute(
        "SELECT p.words FROM run_items ri JOIN predictions p ON p.id = ri.prediction_id "
        "WHERE ri.run_id=? AND ri.item_id=?",
        (run_id, int(item_db_id)),
    ).fetchone()
    return None if r is None else r["words"]
