"""The forced-alignment cache of the project store (schema 6, table ``alignments``).

The tier exports (TextGrid, EAF) give each reference word a time by forced alignment, the
slow part of an export. What an aligner found for a clip is stored here, keyed by what it is
the alignment of: the clip's content hash (``items.audio_hash``), the hash of the reference
text aligned (:func:`text_hash`), the aligner's name and the stretch of the clip it read
(``cut``, :func:`cut_key`). A corrected transcript or re-recorded audio is another key, so
only that item is aligned again; every other export (TextGrid then EAF, another run of the
same items) reads the stored words.
"""

from __future__ import annotations

import hashlib
import json
import time

__all__ = ["cut_key", "lookup_alignment", "save_alignment", "text_hash"]


def text_hash(text: str) -> str:
    """sha256 of the (stripped) reference text an alignment is of."""
    return hashlib.sha256(str(text).strip().encode("utf-8")).hexdigest()


def cut_key(start: float, end: float) -> str:
    """The stretch of the clip the aligner read, in whole milliseconds (``"350-2100"``)."""
    return f"{int(round(start * 1000))}-{int(round(end * 1000))}"


def lookup_alignment(
    project, audio_hash: str, text: str, aligner: str, cut: str
) -> list[tuple[float, float, str]] | None:
    """The stored word spans ``[(start, end, word)]`` (seconds from the clip's start; an
    empty list when the aligner placed no word), or None when this alignment is not stored."""
    r = project.conn.execute(
        "SELECT words FROM alignments WHERE audio_hash=? AND text_hash=? AND aligner=? AND cut=?",
        (audio_hash, text_hash(text), aligner, cut),
    ).fetchone()
    if r is None:
        return None
    try:
        return [(float(s), float(e), str(w)) for s, e, w in json.loads(r["words"])]
    except (TypeError, ValueError):
        return None  # unreadable: aligned again, and replaced


def save_alignment(
    project,
    audio_hash: str,
    text: str,
    aligner: str,
    cut: str,
    words,
    *,
    aligner_key: str = "",
    run_id: int | None = None,
) -> bool:
    """Store (or replace) the word spans of one alignment; returns False, storing nothing,
    on a read-only project (the export still writes its files)."""
    if project.read_only:
        return False
    blob = json.dumps([[float(s), float(e), str(w)] for s, e, w in words], ensure_ascii=False)
    with project.transaction() as c:
        c.execute(
            "INSERT OR REPLACE INTO alignments(audio_hash, text_hash, aligner, cut, words, "
            "aligner_key, run_id, created_at) VALUES (?,?,?,?,?,?,?,?)",
            (
                audio_hash,
                text_hash(text),
                aligner,
                cut,
                blob,
                aligner_key or "",
                None if run_id is None else int(run_id),
                time.time(),
            ),
        )
    return True
