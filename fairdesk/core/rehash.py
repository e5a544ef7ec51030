"""The cache follows the audio: an item's ``audio_hash`` is computed again when its file
changed.

Predictions, embeddings, saliency, alignments and results are keyed by the audio's content
hash (``items.audio_hash``), computed at import. A file replaced under the same name (a
relinked folder holding other audio, a re-recorded take) would otherwise be answered from
the cache with the old audio's transcripts. Each item keeps the size and modification time
its file had when it was hashed (``items.size``/``items.mtime``); :func:`refresh_frame`
(audits, saliency, exports) hashes again every item whose file's size or time differ (or
were never stored: a project older than them) and stores the new ``audio_hash``,
``duration``, ``sample_rate`` and ``channels``; :func:`rehash_items` (``relink``) hashes
every file. The same audio moved or copied keeps its hash, so its cache entries still
answer; other audio under the same name gets a new hash, so it is transcribed again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from . import audio as audio_io
from .audio_paths import audio_file, file_stamp, shown_item_path
from .batches import select_in
from .errors import AudioError
from .spans import probe_span

__all__ = [
    "Rehashed",
    "current_hash",
    "item_files",
    "refresh_frame",
    "rehash_items",
    "store_rehashed",
]

_SELECT = (
    "SELECT items.id, items.item_key, items.path, ar.path AS root_path, d.root AS ds_root, "
    "items.audio_hash, items.size, items.mtime, sp.start_s, sp.end_s FROM items "
    "JOIN datasets AS d ON d.id = items.dataset_id "
    "LEFT JOIN audio_roots AS ar ON ar.id = items.root_id "
    "LEFT JOIN item_spans AS sp ON sp.item_id = items.id WHERE items.id IN ({marks})"
)


@dataclass(frozen=True)
class Rehashed:
    """One item hashed again: its new facts (``changed``: the hash differs from the
    stored one)."""

    item_id: int
    audio_hash: str
    duration: float
    sample_rate: int
    channels: int
    size: int | None
    mtime: float | None
    changed: bool


def item_files(conn, item_ids: Iterable[int]) -> list[dict]:
    """Per item: ``id``, ``key``, ``file`` (the file its audio is read from), ``audio_hash``,
    ``size``, ``mtime`` and ``span`` (None: the whole file), in id order."""
    out = []
    for r in select_in(conn, _SELECT, (), [int(i) for i in item_ids]):
        shown = shown_item_path(r["root_path"], r["path"])
        out.append(
            {
                "id": int(r["id"]),
                "key": str(r["item_key"]),
                "file": audio_file(r["ds_root"], shown),
                "audio_hash": r["audio_hash"],
                "size": r["size"],
                "mtime": r["mtime"],
                "span": None if r["start_s"] is None else (r["start_s"], r["end_s"]),
            }
        )
    return sorted(out, key=lambda x: x["id"])


def _probe(entry: dict, file: Path | None = None) -> Rehashed:
    """Hash one item's audio again (raises AudioError when it does not decode)."""
    f = Path(file or entry["file"])
    stamp = file_stamp(f)
    span = entry["span"]
    info = audio_io.probe(f) if span is None else probe_span(f, span[0], span[1])
    size, mtime = stamp if stamp is not None else (None, None)
    return Rehashed(
        entry["id"],
        info.content_hash,
        info.duration,
        info.sample_rate,
        info.channels,
        size,
        mtime,
        info.content_hash != entry["audio_hash"],
    )


def rehash_items(
    entries: list[dict],
    file_of: Callable[[dict], Path] | None = None,
    progress: Callable[[float, str], None] | None = None,
    only_changed: bool = False,
) -> tuple[list[Rehashed], list[tuple[dict, str]]]:
    """Hash the audio of ``entries`` (:func:`item_files`) again.

    ``file_of``: where each entry's file is read (default: its ``file``). ``only_changed``:
    only the entries whose file's size or modification time differ from the stored ones.
    Returns the items hashed and the ``(entry, reason)`` of those whose file did not decode
    (nothing is stored here: :func:`store_rehashed`).
    """
    done: list[Rehashed] = []
    failed: list[tuple[dict, str]] = []
    todo = []
    for e in entries:
        f = file_of(e) if file_of else e["file"]
        if only_changed:
            stamp = file_stamp(f)
            if stamp is None:  # not there: reading it says so
                continue
            if (
                e["size"] is not None
                and e["mtime"] is not None
                and stamp
                == (
                    int(e["size"]),
                    float(e["mtime"]),
                )
            ):
                continue
        todo.append((e, f))
    for n, (e, f) in enumerate(todo, start=1):
        try:
            done.append(_probe(e, f))
        except AudioError as exc:
            failed.append((e, exc.reason))
        if progress is not None and (n % 20 == 0 or n == len(todo)):
            progress(n / len(todo), f"hashed {n}/{len(todo)} audio files")
    return done, failed


def store_rehashed(conn, done: list[Rehashed]) -> None:
    """Write the items' new hash, duration, rate, channels, size and time (inside the
    caller's transaction)."""
    conn.executemany(
        "UPDATE items SET audio_hash=?, duration=?, sample_rate=?, channels=?, size=?, "
        "mtime=? WHERE id=?",
        [
            (r.audio_hash, r.duration, r.sample_rate, r.channels, r.size, r.mtime, r.item_id)
            for r in done
        ],
    )


def refresh_frame(project, frame, progress=None):
    """A frame of items (``db_id``; :meth:`~fairdesk.core.store.Project.items`) with the
    ``audio_hash``, ``duration``, ``sample_rate`` and ``channels`` of every item whose file
    changed since it was hashed, those stored too (a read-only project: the frame only).
    An item whose file is missing or no longer decodes is left as it is (reading it says
    why)."""
    if frame is None or len(frame) == 0 or "db_id" not in frame.columns:
        return frame
    entries = item_files(project.conn, frame["db_id"])
    done, _failed = rehash_items(entries, progress=progress, only_changed=True)
    if not done:
        return frame
    if not project.read_only:
        with project.transaction() as c:
            store_rehashed(c, done)
    by_id = {r.item_id: r for r in done}
    frame = frame.copy()
    for col in ("audio_hash", "duration", "sample_rate", "channels"):
        if col in frame.columns:
            frame[col] = [
                getattr(by_id[int(i)], col) if int(i) in by_id else v
                for i, v in zip(frame["db_id"], frame[col])
            ]
    return frame


def current_hash(project, audio_hash: str, file) -> str:
    """The audio hash of the item(s) hashed ``audio_hash`` whose audio is read from
    ``file``, hashed again (and stored) when the file changed since (saliency of one item:
    keyed by the audio it reads)."""
    if not audio_hash:
        return audio_hash
    ids = [
        r[0] for r in project.conn.execute("SELECT id FROM items WHERE audio_hash=?", (audio_hash,))
    ]
    want = Path(file).resolve()
    entries = [e for e in item_files(project.conn, ids) if Path(e["file"]).resolve() == want]
    done, _failed = rehash_items(entries, only_changed=True)
    if not done:
        return audio_hash
    if not project.read_only:
        with project.transaction() as c:
            store_rehashed(c, done)
    return done[0].audio_hash
