"""Where a dataset's audio is read from, and moving it (relinking a dataset root).

Every item stores its audio path relative to its dataset's root folder (``datasets.root``),
and everything that reads audio (the player, the exports, saliency, the audit) joins the
two. A project folder copied or moved to another machine still names the old root, so it
keeps reading the original files (or none). :func:`relink_dataset` points a dataset at a
new root after checking that every item's file is there, and inside the new root (a path
that leads out of the dataset folder, e.g. through a symbolic link, is refused as the
import refuses it); only ``datasets.root`` changes, so items, annotations, runs and caches
are kept as they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .errors import StoreError
from .store import Dataset, Project

__all__ = ["AudioRoot", "RelinkReport", "audio_root", "relink_dataset"]

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

    def to_dict(self) -> dict:
        return {
            "dataset": self.dataset,
            "old_root": str(self.old_root),
            "new_root": str(self.new_root),
            "items": self.items,
        }


def _paths(project: Project, ds: Dataset) -> list[tuple[str, str]]:
    """(item id, relative path) of the dataset's items the last import still listed."""
    rows = project.conn.execute(
        "SELECT item_key, path FROM items WHERE dataset_id=? AND id NOT IN "
        "(SELECT item_id FROM item_status WHERE stale=1) ORDER BY id",
        (ds.id,),
    ).fetchall()
    return [(str(r["item_key"]), str(r["path"])) for r in rows]


def audio_root(project: Project, ds: Dataset, sample: int | None = 50) -> AudioRoot:
    """Where ``ds``'s audio is read from and whether its files are there (the first
    ``sample`` items checked; None: all)."""
    rows = _paths(project, ds)
    root = Path(ds.root)
    exists = root.is_dir()
    checked = rows if sample is None else rows[:sample]
    missing = [root / p for _, p in checked if not (root / p).is_file()] if exists else []
    return AudioRoot(
        ds.name,
        root,
        exists,
        len(rows),
        len(checked) if exists else 0,
        len(missing),
        missing[0] if missing else None,
    )


def _inside(root: Path, rel: str) -> Path | None:
    """``root / rel`` resolved, or None when it leads out of ``root``."""
    try:
        full = (root / rel).resolve()
        full.relative_to(root)
    except (ValueError, RuntimeError, OSError):
        return None
    return full


def relink_dataset(project: Project, name: str, new_root) -> RelinkReport:
    """Read dataset ``name``'s audio from ``new_root`` from now on.

    Every item's file must be a file under ``new_root`` (checked before anything is
    saved); only the dataset's root changes in the store.

    Raises
    ------
    StoreError
        No such dataset, ``new_root`` is not a folder, a file is missing under it (the
        message names the first ones and their items) or leads out of it.
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
    rows = _paths(project, ds)
    example = f" (it should hold {rows[0][1]}, the audio of item {rows[0][0]})" if rows else ""
    if not new.is_dir():
        raise StoreError(
            f"{new}: not a folder; give the folder that holds dataset {name!r}'s audio{example}"
        )
    outside, missing = [], []
    for key, rel in rows:
        full = _inside(new, rel)
        if full is None:
            outside.append((key, rel))
        elif not full.is_file():
            missing.append((key, new / rel))
    if outside:
        key, rel = outside[0]
        raise StoreError(
            f"dataset {name!r} was not relinked to {new}: the audio of item {key} ({rel}) "
            f"leads outside that folder (a symbolic link out of it?); audio must be inside the "
            "dataset folder: copy the files in instead of linking them"
        )
    if missing:
        shown = "; ".join(f"{p} (item {k})" for k, p in missing[:SHOWN])
        more = f" and {len(missing) - SHOWN} more" if len(missing) > SHOWN else ""
        raise StoreError(
            f"dataset {name!r} was not relinked to {new}: {len(missing)} of {len(rows)} audio "
            f"files are not there: {shown}{more}; give the folder that holds the dataset's "
            "audio as it was imported (its sub-folders as they were)"
        )
    with project.transaction() as c:
        c.execute("UPDATE datasets SET root=? WHERE id=?", (str(new), ds.id))
    return RelinkReport(name, Path(ds.root), new, len(rows))
