"""Where a dataset's audio is read from, and moving it (relinking one of its audio roots).

Every item stores its audio path relative to its audio root: the dataset's root folder
(``datasets.root``) or one of its other roots (``audio_roots``: a folder a manifest listed
absolute paths in; :mod:`fairdesk.core.audio_paths`), and everything that reads audio (the
player, the exports, saliency, the audit) joins the two. A project folder copied or moved to
another machine still names the old roots, so it keeps reading the original files (or none).
:func:`relink_dataset` points one root of a dataset at a new folder after checking that
every item of that root has its file there, and hashes every file again
(:mod:`fairdesk.core.rehash`): the same audio keeps its hash and its cached transcripts,
audio that differs under the same name gets a new hash, so the next audit transcribes it
again. Items, annotations and runs are kept as they are.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .audio_paths import audio_file
from .errors import StoreError
from .rehash import item_files, rehash_items, store_rehashed
from .store import Dataset, Project
from .summaries import audio_roots as _roots

__all__ = ["AudioRoot", "RelinkReport", "audio_root", "audio_roots", "relink_dataset"]

#: How many missing files a refusal names.
SHOWN = 3


@dataclass(frozen=True)
class AudioRoot:
    """Where a dataset's audio is read from: its ``root``, whether that folder exists, and
    the first item whose file is not there (None: every one checked is there)."""

    dataset: str
    root: Path
    exists: bool
    items: int
    checked: int
    missing: int
    first_missing: Path | None

    def describe(self) -> str:
        """One line for a status bar or ``fairdesk datasets``."""
        if not self.exists:
            return f"audio of {self.dataset!r} read from {self.root}: the folder is not there"
        if self.missing:
            return (
                f"audio of {self.dataset!r} read from {self.root}: {self.missing} of "
                f"{self.checked} files checked are missing (e.g. {self.first_missing})"
            )
        return f"audio of {self.dataset!r} read from {self.root}"


@dataclass(frozen=True)
class RelinkReport:
    """What :func:`relink_dataset` did."""

    dataset: str
    old_root: Path
    new_root: Path
    items: int
    #: Items whose audio differs from what was hashed before (a new hash: transcribed again).
    changed: int = 0

    def to_dict(self) -> dict:
        return {
            "dataset": self.dataset,
            "old_root": str(self.old_root),
            "new_root": str(self.new_root),
            "items": self.items,
            "changed": self.changed,
        }


def _items(project: Project, ds: Dataset, root_id: int | None, live: bool = True) -> list[dict]:
    """:func:`~fairdesk.core.rehash.item_files` of the dataset's items of one root (``live``:
    only those the last import still listed), each with ``rel``: its path in the root."""
    rows = project.conn.execute(
        "SELECT id, path FROM items WHERE dataset_id=? AND root_id IS ? "
        + ("AND id NOT IN (SELECT item_id FROM item_status WHERE stale=1) " if live else "")
        + "ORDER BY id",
        (ds.id, root_id),
    ).fetchall()
    rel = {int(r["id"]): str(r["path"]) for r in rows}
    out = item_files(project.conn, rel)
    for e in out:
        e["rel"] = rel[e["id"]]
    return out


def _check(root: Path, exists: bool, items: list[dict], sample: int | None, name: str):
    checked = items if sample is None else items[:sample]
    missing = [e["file"] for e in checked if not Path(e["file"]).is_file()] if exists else []
    return AudioRoot(
        name,
        root,
        exists,
        len(items),
        len(checked) if exists else 0,
        len(missing),
        missing[0] if missing else None,
    )


def audio_roots(project: Project, ds: Dataset, sample: int | None = 50) -> list[AudioRoot]:
    """Every folder ``ds`` reads audio from (its root first, then its other roots) and
    whether their files are there (the first ``sample`` items of each checked; None: all)."""
    out = []
    for rid, path, _n in _roots(project.conn, ds):
        root = Path(path)
        out.append(_check(root, root.is_dir(), _items(project, ds, rid), sample, ds.name))
    return out


def audio_root(project: Project, ds: Dataset, sample: int | None = 50) -> AudioRoot:
    """The first of :func:`audio_roots` whose folder or files are missing, else the
    dataset's root."""
    roots = audio_roots(project, ds, sample)
    return next((r for r in roots if not r.exists or r.missing), roots[0])


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except (OSError, RuntimeError):
        return os.path.abspath(a) == os.path.abspath(b)


def _pick_root(project: Project, ds: Dataset, new: Path, old_root):
    """(root id, folder) of the root to relink: the one ``old_root`` names, else the only
    root, else the one root whose files are all under ``new``."""
    roots = [(rid, Path(p)) for rid, p, n in _roots(project.conn, ds) if n or rid is None]
    listed = ", ".join(str(p) for _r, p in roots)
    if old_root is not None:
        for rid, p in roots:
            if _same(p, Path(old_root).expanduser()):
                return rid, p
        raise StoreError(
            f"dataset {ds.name!r} reads no audio from {old_root} (its audio roots: {listed}); "
            "give one of those with --from"
        )
    used = [(rid, p) for rid, p in roots if _items(project, ds, rid)]
    if len(used) <= 1:
        return used[0] if used else roots[0]
    fits = [
        (rid, p)
        for rid, p in used
        if all((new / e["rel"]).is_file() for e in _items(project, ds, rid))
    ]
    if len(fits) == 1:
        return fits[0]
    raise StoreError(
        f"dataset {ds.name!r} reads audio from {len(used)} folders ({listed}); say which one "
        f"moved to {new} with --from OLD_FOLDER"
    )


def relink_dataset(
    project: Project, name: str, new_root, old_root=None, progress=None
) -> RelinkReport:
    """Read the audio dataset ``name`` read from ``old_root`` (default: its only root, or
    the one whose files ``new_root`` holds) from ``new_root`` from now on.

    Every item's file of that root must be a file under ``new_root`` and decode as audio
    (checked before anything is saved); every file is hashed again (``progress(fraction,
    message)``), and the items whose audio changed get their new hash, duration and sample
    rate, so that they are transcribed again while identical audio is answered from the
    cache (:mod:`fairdesk.core.rehash`).

    Raises
    ------
    StoreError
        No such dataset, ``new_root`` is not a folder, several roots and none named, a file
        is missing under it or does not decode (the message names the first ones and their
        items).
    ReadOnlyProject
        The project cannot be written.
    """
    ds = project.dataset(name)
    new = Path(new_root).expanduser()
    try:
        new = new.resolve()
    except (OSError, RuntimeError) as exc:
        raise StoreError(
            f"{new_root}: cannot be resolved ({exc}); give an existing folder"
        ) from None
    rid, old = _pick_root(project, ds, new, old_root) if new.is_dir() else (None, Path(ds.root))
    rows = _items(project, ds, rid)
    example = (
        f" (it should hold {rows[0]['rel']}, the audio of item {rows[0]['key']})" if rows else ""
    )
    if not new.is_dir():
        raise StoreError(
            f"{new}: not a folder; give the folder that holds dataset {name!r}'s audio{example}"
        )
    missing = [(e["key"], new / e["rel"]) for e in rows if not (new / e["rel"]).is_file()]
    if missing:
        shown = "; ".join(f"{p} (item {k})" for k, p in missing[:SHOWN])
        more = f" and {len(missing) - SHOWN} more" if len(missing) > SHOWN else ""
        raise StoreError(
            f"dataset {name!r} was not relinked to {new}: {len(missing)} of {len(rows)} audio "
            f"files are not there: {shown}{more}; give the folder that holds the dataset's "
            "audio as it was imported (its sub-folders as they were)"
        )
    everything = _items(project, ds, rid, live=False)
    done, failed = rehash_items(everything, lambda e: audio_file(new, e["rel"]), progress)
    live = {e["id"] for e in rows}
    failed = [(e, why) for e, why in failed if e["id"] in live]
    if failed:
        shown = "; ".join(f"{new / e['rel']} (item {e['key']}): {why}" for e, why in failed[:SHOWN])
        more = f" and {len(failed) - SHOWN} more" if len(failed) > SHOWN else ""
        raise StoreError(
            f"dataset {name!r} was not relinked to {new}: {len(failed)} of {len(rows)} files "
            f"there do not decode as audio: {shown}{more}; give the folder that holds the "
            "dataset's audio"
        )
    with project.transaction() as c:
        _move_root(c, ds, rid, new)
        store_rehashed(c, done)
    changed = sum(1 for r in done if r.changed and r.item_id in live)
    return RelinkReport(name, old, new, len(rows), changed)


def _move_root(c, ds: Dataset, rid: int | None, new: Path) -> None:
    """Point root ``rid`` (None: the dataset's own) at ``new``; a root that becomes the same
    folder as another of the dataset's roots is merged into it."""
    others = {
        Path(p): int(i)
        for i, p in c.execute("SELECT id, path FROM audio_roots WHERE dataset_id=?", (ds.id,))
        if int(i) != rid
    }
    same = next((i for p, i in others.items() if p == new), None)
    if rid is None:
        if same is not None:  # that root's files are now under the dataset's root
            c.execute("UPDATE items SET root_id=NULL WHERE root_id=?", (same,))
            c.execute("DELETE FROM audio_roots WHERE id=?", (same,))
        c.execute("UPDATE datasets SET root=? WHERE id=?", (str(new), ds.id))
    elif Path(ds.root) == new or same is not None:
        c.execute("UPDATE items SET root_id=? WHERE root_id=?", (same, rid))
        c.execute("DELETE FROM audio_roots WHERE id=?", (rid,))
    else:
        c.execute("UPDATE audio_roots SET path=? WHERE id=?", (str(new), rid))
