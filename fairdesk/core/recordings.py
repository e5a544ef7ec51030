"""The ``recordings`` table (one row per take) and what a recording session writes with it:
the dataset row of a new session, take states, the accepted take, recorded transcripts.
The session's logic (files, manifest, statuses) is :mod:`fairdesk.recording.session`."""

from __future__ import annotations

import json
import time
from collections.abc import Callable

from .schema import inserted_id
from .store import Project

__all__ = [
    "accept_take",
    "add_take",
    "dataset_root",
    "drop_take",
    "fix_unfinished",
    "item_of_key",
    "save_recorded_transcript",
    "set_take_status",
    "takes_with_prefix",
]


def dataset_root(project: Project, name: str) -> str | None:
    """The stored root folder of dataset ``name`` (None when there is no such dataset)."""
    row = project.conn.execute("SELECT root FROM datasets WHERE name=?", (name,)).fetchone()
    return None if row is None else row["root"]


def item_of_key(project: Project, dataset: str, item_key: str) -> tuple[int, str] | None:
    """``(db id, reference text)`` of the item ``item_key`` of ``dataset``, or None."""
    r = project.conn.execute(
        "SELECT items.id, items.text FROM items JOIN datasets ON datasets.id = "
        "items.dataset_id WHERE datasets.name=? AND items.item_key=?",
        (dataset, item_key),
    ).fetchone()
    return None if r is None else (int(r["id"]), r["text"])


def _dataset_id(conn, name: str) -> int | None:
    row = conn.execute("SELECT id FROM datasets WHERE name=?", (name,)).fetchone()
    return None if row is None else int(row["id"])


def add_take(
    project: Project,
    dataset: str,
    root: str,
    language: str,
    path: str,
    prompt: str,
    speaker_id: str,
    status: str,
) -> tuple[int, int, bool]:
    """Register a take (one transaction), creating the dataset row when it is the first.

    Parameters
    ----------
    dataset, root, language : the dataset's name, audio folder and language (for a new row,
        the same row the importer would create, so that its root check then matches).
    path : the take's path relative to the project folder.
    prompt, speaker_id, status : the ``recordings`` columns.

    Returns
    -------
    tuple
        ``(recording id, dataset id, whether the dataset row was created)``.
    """
    with project.transaction() as c:
        ds_id = _dataset_id(c, dataset)
        new_ds = ds_id is None
        if ds_id is None:
            cur = c.execute(
                "INSERT INTO datasets(name, root, format, created_at, language) VALUES (?,?,?,?,?)",
                (dataset, root, "manifest", time.time(), language),
            )
            ds_id = inserted_id(cur)
        cur = c.execute(
            "INSERT INTO recordings(dataset_id, path, prompt, speaker_id, status, duration, "
            "created_at) VALUES (?,?,?,?,?,?,?)",
            (ds_id, path, prompt, speaker_id, status, None, time.time()),
        )
        return inserted_id(cur), ds_id, new_ds


def drop_take(project: Project, rec_id: int, ds_id: int, drop_dataset: bool) -> None:
    """Remove a take's row (an attempt that recorded nothing), and with ``drop_dataset``
    the dataset row when it holds no item and no other recording."""
    with project.transaction() as c:
        c.execute("DELETE FROM recordings WHERE id=?", (rec_id,))
        if drop_dataset:
            c.execute(
                "DELETE FROM datasets WHERE id=? AND NOT EXISTS (SELECT 1 "
                "FROM items WHERE dataset_id=?) AND NOT EXISTS (SELECT 1 "
                "FROM recordings WHERE dataset_id=?)",
                (ds_id, ds_id, ds_id),
            )


def set_take_status(project: Project, rec_id: int, status: str, duration=None) -> None:
    """Set a take's status (and its duration, unless ``duration`` is None)."""
    with project.transaction() as c:
        c.execute(
            "UPDATE recordings SET status=?, duration=COALESCE(?, duration) WHERE id=?",
            (status, duration, rec_id),
        )


def takes_with_prefix(project: Project, speaker_id: str, prefix: str) -> list[dict]:
    """The speaker's takes whose path starts with ``prefix``, oldest first: ``id``,
    ``path``, ``status``, ``duration``."""
    return [
        dict(r)
        for r in project.conn.execute(
            "SELECT id, path, status, duration FROM recordings WHERE speaker_id=? AND "
            "substr(path, 1, ?)=? ORDER BY id",
            (speaker_id, len(prefix), prefix),
        )
    ]


def accept_take(
    project: Project, rec_id: int, speaker_id: str, prefix: str, accepted: str, done: str
) -> None:
    """Mark take ``rec_id`` ``accepted`` and the speaker's other accepted takes under
    ``prefix`` (the same prompt) ``done``, in one transaction."""
    with project.transaction() as c:
        c.execute(
            "UPDATE recordings SET status=? WHERE status=? AND speaker_id=? AND "
            "substr(path, 1, ?)=?",
            (done, accepted, speaker_id, len(prefix), prefix),
        )
        c.execute("UPDATE recordings SET status=? WHERE id=?", (accepted, rec_id))


def save_recorded_transcript(
    project: Project, item_db_id: int, value: dict, text: str, annotator: str = ""
) -> int:
    """In one transaction: add a ``transcript`` annotation ``value`` by ``annotator`` to the
    item and make ``text`` its reference text; returns the annotation id."""
    now = time.time()
    with project.transaction() as c:
        cur = c.execute(
            "INSERT INTO annotations(item_id, kind, start, end, value, created_at, "
            "updated_at, annotator) VALUES (?,?,?,?,?,?,?,?)",
            (
                item_db_id,
                "transcript",
                None,
                None,
                json.dumps(value, ensure_ascii=False),
                now,
                now,
                annotator or "",
            ),
        )
        c.execute("UPDATE items SET text=? WHERE id=?", (text, item_db_id))
        return inserted_id(cur)


def fix_unfinished(project: Project, status: str, decide: Callable[[str], dict | None]) -> None:
    """Update, in one transaction, each take still marked ``status``.

    Parameters
    ----------
    status : the status of unfinished takes (``recording``).
    decide : called with a take's relative path; returns None (leave the row), or the new
        ``{"status": ...}`` with, when the key is given, its ``"duration"``.
    """
    with project.transaction() as c:
        rows = c.execute("SELECT id, path FROM recordings WHERE status=?", (status,)).fetchall()
        for r in rows:
            new = decide(r["path"])
            if new is None:
                continue
            if "duration" in new:
                c.execute(
                    "UPDATE recordings SET status=?, duration=? WHERE id=?",
                    (new["status"], new["duration"], r["id"]),
                )
            else:
                c.execute("UPDATE recordings SET status=? WHERE id=?", (new["status"], r["id"]))
