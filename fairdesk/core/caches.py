"""The computation caches of the project store: embeddings and saliency curves.

* ``embeddings`` (schema 2): one float32 vector per (audio content hash, model key).
* ``saliency`` (schema 3): one curve per (audio content hash, model key, target hash, method
  key). The curve is stored as little-endian float32 bytes; ``meta`` holds the method's
  numbers and, once aligned, the reference word spans (``meta["words"]``, with the aligner's
  key in ``meta["aligner"]``).

The prediction cache is in :mod:`fairdesk.core.run_items`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from .batches import select_in

__all__ = [
    "SaliencyKey",
    "StoredSaliency",
    "lookup_embeddings",
    "lookup_saliency",
    "saliency_for_audio",
    "saliency_hashes",
    "save_embeddings",
    "save_saliency",
    "update_saliency_meta",
]


# -- embeddings ------------------------------------------------------------------------------
def lookup_embeddings(project, model_key: str, hashes: Iterable[str]) -> dict[str, np.ndarray]:
    """The cached embeddings of ``model_key`` for the given audio hashes (hash -> vector)."""
    q = "SELECT audio_hash, vector FROM embeddings WHERE model_key=? AND audio_hash IN ({marks})"
    return {
        r["audio_hash"]: np.frombuffer(r["vector"], dtype=np.float32)
        for r in select_in(project.conn, q, (model_key,), hashes)
    }


def save_embeddings(project, model_key: str, vectors: Iterable[tuple[str, np.ndarray]]) -> None:
    """Store ``(audio hash, float32 vector)`` pairs of ``model_key`` in one transaction."""
    with project.transaction() as c:
        for audio_hash, v in vectors:
            c.execute(
                "INSERT OR REPLACE INTO embeddings(audio_hash, model_key, vector) VALUES (?,?,?)",
                (audio_hash, model_key, v.tobytes()),
            )


# -- saliency --------------------------------------------------------------------------------
@dataclass(frozen=True)
class SaliencyKey:
    """What a stored saliency curve is the curve of."""

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
    """One row of the ``saliency`` table."""

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


def lookup_saliency(project, key: SaliencyKey) -> StoredSaliency | None:
    """The stored curve of ``key`` (None when there is none)."""
    r = project.conn.execute(
        "SELECT * FROM saliency WHERE audio_hash=? AND model_key=? AND target_hash=? AND method=?",
        (key.audio_hash, key.model_key, key.target_hash, key.method),
    ).fetchone()
    return None if r is None else _row(r)


def save_saliency(project, key: SaliencyKey, frame_s: float, curve, meta: dict) -> None:
    """Store (or replace) the curve of ``key``."""
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


def update_saliency_meta(project, key: SaliencyKey, meta: dict) -> None:
    """Replace the ``meta`` of the stored curve of ``key``."""
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


def saliency_for_audio(
    project, audio_hash: str, model_key: str | None = None
) -> list[StoredSaliency]:
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


def saliency_hashes(project, model_key: str) -> set[str]:
    """The audio hashes that have a stored curve of ``model_key``."""
    return {
        r[0]
        for r in project.conn.execute(
            "SELECT DISTINCT audio_hash FROM saliency WHERE model_key=?", (model_key,)
        )
    }
