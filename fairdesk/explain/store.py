"""The ``saliency`` cache table (store schema 3): one curve per (audio content hash, model key,
target hash, method key). The curve is stored as little-endian float32 bytes; ``meta`` holds
the method's numbers and, once aligned, the reference word spans (``meta["words"]``, with the
aligner's key in ``meta["aligner"]``)."""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass

import numpy as np

#: What a saliency curve explains (part of the target hash).
TARGET = "reference_transcript_logprob"


def target_hash(text: str) -> str:
    """Hash of the target: the log-probability of this (stripped) reference text."""
    blob = json.dumps({"target": TARGET, "text": str(text).strip()}, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class SaliencyKey:
    audio_hash: str
    model_key: str
    target_hash: str
    method: str

    def to_dict(self) -> dict:
        return {
            "audio_hash": self.audio_hash,
            "model_key": self.model_key,
            "target_hash": self.target_hash,
            "method": self.method,
        }


@dataclass(frozen=True)
class StoredSaliency:
    key: SaliencyKey
    frame_s: float
    curve: np.ndarray
    meta: dict
    created_at: float


def _row(r) -> StoredSaliency:
    return StoredSaliency(
        SaliencyKey(r["audio_hash"], r["model_key"], r["target_hash"], r["method"]),
        float(r["frame_s"]),
        np.frombuffer(r["curve"], dtype="<f4").astype(np.float32),
        json.loads(r["meta"] or "{}"),
        float(r["created_at"]),
    )


def lookup(project, key: SaliencyKey) -> StoredSaliency | None:
    r = project.conn.execute(
        "SELECT * FROM saliency WHERE audio_hash=? AND model_key=? AND target_hash=? AND method=?",
        (key.audio_hash, key.model_key, key.target_hash, key.method),
    ).fetchone()
    return None if r is None else _row(r)


def save(project, key: SaliencyKey, frame_s: float, curve, meta: dict) -> None:
    blob = np.asarray(curve, dtype="<f4").tobytes()
    with project.transaction() as c:
        c.execute(
            "INSERT INTO saliency(audio_hash, model_key, target_hash, method, frame_s, curve, "
            "meta, created_at) VALUES (?,?,?,?,?,?,?,?) ON CONFLICT(audio_hash, model_key, "
            "target_hash, method) DO UPDATE SET frame_s=excluded.frame_s, "
            "curve=excluded.curve, meta=excluded.meta, created_at=excluded.created_at",
            (
                key.audio_hash,
                key.model_key,
                key.target_hash,
                key.method,
                float(frame_s),
                blob,
                json.dumps(meta, ensure_ascii=False, default=float),
                time.time(),
            ),
        )


def update_meta(project, key: SaliencyKey, meta: dict) -> None:
    with project.transaction() as c:
        c.execute(
            "UPDATE saliency SET meta=? WHERE audio_hash=? AND model_key=? AND "
            "target_hash=? AND method=?",
            (
                json.dumps(meta, ensure_ascii=False, default=float),
                key.audio_hash,
                key.model_key,
                key.target_hash,
                key.method,
            ),
        )


def for_audio(project, audio_hash: str, model_key: str | None = None) -> list[StoredSaliency]:
    """Every stored curve of one clip (of one model when given), newest first."""
    if model_key is None:
        rows = project.conn.execute(
            "SELECT * FROM saliency WHERE audio_hash=? ORDER BY created_at DESC", (audio_hash,)
        ).fetchall()
    else:
        rows = project.conn.execute(
            "SELECT * FROM saliency WHERE audio_hash=? AND model_key=? ORDER BY created_at DESC",
            (audio_hash, model_key),
        ).fetchall()
    return [_row(r) for r in rows]
